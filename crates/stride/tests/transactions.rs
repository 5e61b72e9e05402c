//! Transactions between connections: each sees one snapshot from BEGIN to COMMIT,
//! nothing uncommitted leaks, and of two transactions changing the same row the second
//! to commit fails (first committer wins), while changes to different rows of one
//! table both commit. Write skew is allowed, as snapshot isolation allows it. Runs in
//! memory and on a database file.

use crate::common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use stride::{Connection, Database, ErrorKind, ScalarValue};

fn int(c: &Connection, sql: &str) -> i64 {
    let r = c.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let row = r.rows().next().unwrap().unwrap();
    match &row[0] {
        ScalarValue::BigInt(x) => *x,
        ScalarValue::Integer(x) => *x as i64,
        ScalarValue::HugeInt(x) => *x as i64,
        ScalarValue::Decimal(x, _, 0) => *x as i64,
        other => panic!("not an integer: {other:?}"),
    }
}

fn run(c: &Connection, sql: &str) {
    c.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// Every check, on a fresh database from `open`.
fn isolation(open: &dyn Fn() -> Database) {
    let db = open();
    let (a, b) = (db.connect().unwrap(), db.connect().unwrap());
    run(&a, "CREATE TABLE acct(id INTEGER PRIMARY KEY, bal INTEGER)");
    run(&a, "INSERT INTO acct VALUES (1, 100), (2, 100)");
    run(&a, "CREATE TABLE other(v INTEGER)");

    // Dirty read: b does not see a's uncommitted change; then it does.
    run(&a, "BEGIN");
    run(&a, "UPDATE acct SET bal = 0 WHERE id = 1");
    assert_eq!(int(&a, "SELECT bal FROM acct WHERE id = 1"), 0);
    assert_eq!(int(&b, "SELECT bal FROM acct WHERE id = 1"), 100);
    run(&a, "COMMIT");
    assert_eq!(int(&b, "SELECT bal FROM acct WHERE id = 1"), 0);
    run(&a, "UPDATE acct SET bal = 100 WHERE id = 1");

    // Non-repeatable read, phantom, read skew: a's snapshot stays as of BEGIN.
    run(&a, "BEGIN");
    assert_eq!(int(&a, "SELECT sum(bal) FROM acct"), 200);
    run(&b, "UPDATE acct SET bal = bal + 50 WHERE id = 2");
    run(&b, "INSERT INTO acct VALUES (3, 7)");
    assert_eq!(int(&a, "SELECT bal FROM acct WHERE id = 2"), 100);
    assert_eq!(int(&a, "SELECT count(*) FROM acct"), 2);
    assert_eq!(int(&a, "SELECT sum(bal) FROM acct"), 200);
    run(&a, "COMMIT");
    assert_eq!(int(&a, "SELECT sum(bal) FROM acct"), 257);
    run(&a, "DELETE FROM acct WHERE id = 3");
    run(&a, "UPDATE acct SET bal = 100");

    // Lost update: both read 100 and write; the second commit fails.
    run(&a, "BEGIN");
    run(&b, "BEGIN");
    run(&a, "UPDATE acct SET bal = bal + 10 WHERE id = 1");
    run(&b, "UPDATE acct SET bal = bal + 20 WHERE id = 1");
    run(&a, "COMMIT");
    let e = b.execute("COMMIT").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Transaction, "{e}");
    assert!(e.message.contains("conflict"), "{e}");
    assert_eq!(int(&b, "SELECT bal FROM acct WHERE id = 1"), 110);

    // Dirty write: an autocommit change wins over an open transaction's, which then
    // cannot commit.
    run(&a, "BEGIN");
    run(&a, "UPDATE acct SET bal = 1 WHERE id = 2");
    run(&b, "UPDATE acct SET bal = 2 WHERE id = 2");
    assert!(a.execute("COMMIT").is_err());
    assert_eq!(int(&a, "SELECT bal FROM acct WHERE id = 2"), 2);

    // Appends do not conflict: both transactions' rows arrive.
    run(&a, "BEGIN");
    run(&b, "BEGIN");
    run(&a, "INSERT INTO other VALUES (1)");
    run(&b, "INSERT INTO other VALUES (2)");
    run(&a, "COMMIT");
    run(&b, "COMMIT");
    assert_eq!(int(&a, "SELECT sum(v) FROM other"), 3);

    // ... unless their rows break a constraint together: the second COMMIT fails.
    run(&a, "BEGIN");
    run(&b, "BEGIN");
    run(&a, "INSERT INTO acct VALUES (10, 0)");
    run(&b, "INSERT INTO acct VALUES (10, 1)");
    run(&a, "COMMIT");
    let e = b.execute("COMMIT").unwrap_err();
    assert!(e.message.contains("Duplicate key"), "{e}");
    assert_eq!(int(&a, "SELECT count(*) FROM acct WHERE id = 10"), 1);

    // A table altered since BEGIN: even appends to it cannot commit.
    run(&a, "BEGIN");
    run(&a, "INSERT INTO other VALUES (9)");
    run(&b, "ALTER TABLE other ADD COLUMN w INTEGER");
    let e = a.execute("COMMIT").unwrap_err();
    assert!(e.message.contains("conflict"), "{e}");
    run(&b, "ALTER TABLE other DROP COLUMN w");

    // Write skew is allowed: each reads both tables and changes a different one.
    run(&a, "BEGIN");
    run(&b, "BEGIN");
    let (sa, sb) = (
        int(
            &a,
            "SELECT (SELECT sum(bal) FROM acct) + (SELECT sum(v) FROM other)",
        ),
        int(
            &b,
            "SELECT (SELECT sum(bal) FROM acct) + (SELECT sum(v) FROM other)",
        ),
    );
    assert_eq!(sa, sb);
    run(&a, "UPDATE acct SET bal = bal - 1 WHERE id = 1");
    run(&b, "DELETE FROM other WHERE v = 1");
    run(&a, "COMMIT");
    run(&b, "COMMIT");
    assert_eq!(int(&a, "SELECT count(*) FROM other"), 1);
}

/// Conflicts are per row: transactions changing different rows of one table both
/// commit, even when rows before theirs were deleted meanwhile (positions moved).
fn row_conflicts(open: &dyn Fn() -> Database) {
    let db = open();
    let (a, b) = (db.connect().unwrap(), db.connect().unwrap());
    run(&a, "CREATE TABLE t(id INTEGER, v INTEGER)");
    run(&a, "INSERT INTO t SELECT i, 0 FROM range(300000) r(i)");
    let sum = |c: &Connection| int(c, "SELECT sum(v) FROM t");

    // Different rows, in the same and in different row groups.
    run(&a, "BEGIN");
    run(&b, "BEGIN");
    run(&a, "UPDATE t SET v = 1 WHERE id IN (5, 200000)");
    run(&b, "UPDATE t SET v = 2 WHERE id IN (6, 200001)");
    run(&a, "COMMIT");
    run(&b, "COMMIT");
    assert_eq!(sum(&a), 6);
    assert_eq!(int(&a, "SELECT v FROM t WHERE id = 200001"), 2);

    // Rows before b's were deleted by a (b's rows moved); b still changes its own.
    run(&b, "BEGIN");
    run(&b, "UPDATE t SET v = 10 WHERE id IN (100, 250000)");
    run(&b, "DELETE FROM t WHERE id IN (101, 250001)");
    run(
        &a,
        "DELETE FROM t WHERE id < 50 OR id BETWEEN 200002 AND 200100",
    );
    run(&b, "COMMIT");
    assert_eq!(int(&a, "SELECT v FROM t WHERE id = 100"), 10);
    assert_eq!(int(&a, "SELECT v FROM t WHERE id = 250000"), 10);
    assert_eq!(
        int(&a, "SELECT count(*) FROM t WHERE id IN (101, 250001)"),
        0
    );
    assert_eq!(int(&a, "SELECT count(*) FROM t"), 300_000 - 50 - 99 - 2);

    // Rows appended meanwhile by another; b changes rows it appended itself.
    run(&b, "BEGIN");
    run(&b, "INSERT INTO t VALUES (-1, 0), (-2, 0)");
    run(&a, "INSERT INTO t VALUES (-3, 0), (-4, 0)");
    run(&b, "UPDATE t SET v = 7 WHERE id = -2");
    run(&b, "DELETE FROM t WHERE id = -1");
    run(&b, "UPDATE t SET v = 8 WHERE id = 300");
    run(&b, "COMMIT");
    let rows = |c: &Connection| {
        c.query("SELECT id, v FROM t WHERE id < 0 OR id = 300 ORDER BY id")
            .unwrap()
            .rows()
            .map(|r| {
                let r = r.unwrap();
                format!("{} {}", r[0], r[1])
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(rows(&a), vec!["-4 0", "-3 0", "-2 7", "300 8"]);

    // The same row: the second to commit fails, whether the first updated or deleted it.
    for first in [
        "UPDATE t SET v = 3 WHERE id = 1000",
        "DELETE FROM t WHERE id = 1000",
    ] {
        run(&a, "BEGIN");
        run(&b, "BEGIN");
        run(&a, first);
        run(&b, "UPDATE t SET v = 4 WHERE id IN (999, 1000)");
        run(&a, "COMMIT");
        let e = b.execute("COMMIT").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Transaction, "{e}");
        assert!(e.message.contains("conflict"), "{e}");
        assert_eq!(int(&a, "SELECT v FROM t WHERE id = 999"), 0);
    }
    assert_eq!(rows(&b), vec!["-4 0", "-3 0", "-2 7", "300 8"]);
}

#[test]
fn row_conflicts_in_memory() {
    row_conflicts(&|| Database::open_in_memory().unwrap());
}

#[test]
fn row_conflicts_on_a_file_and_after_reopening() {
    let dir = common::fresh_dir("rows");
    let path = dir.join("rows.stride").to_string_lossy().into_owned();
    let p = path.clone();
    row_conflicts(&move || Database::open(&p).unwrap());
    let db = Database::open(&path).unwrap();
    let c = db.connect().unwrap();
    assert_eq!(int(&c, "SELECT v FROM t WHERE id = 250000"), 10);
    assert_eq!(int(&c, "SELECT count(*) FROM t WHERE id = 1000"), 0);
    // 5 and 6 were deleted; 200000 and 200001 hold 1 and 2.
    assert_eq!(int(&c, "SELECT sum(v) FROM t"), 3 + 20 + 7 + 8);
    drop(c);
    drop(db);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn isolation_in_memory() {
    isolation(&|| Database::open_in_memory().unwrap());
}

#[test]
fn isolation_on_a_file_and_after_reopening() {
    let dir = common::fresh_dir("tx");
    let path = dir.join("tx.stride").to_string_lossy().into_owned();
    let p = path.clone();
    isolation(&move || Database::open(&p).unwrap());
    let db = Database::open(&path).unwrap();
    let c = db.connect().unwrap();
    assert_eq!(int(&c, "SELECT sum(bal) FROM acct"), 111);
    assert_eq!(int(&c, "SELECT count(*) FROM other"), 1);
    drop(c);
    drop(db);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn transfers_keep_the_total() {
    let db = Database::open_in_memory().unwrap();
    let setup = db.connect().unwrap();
    run(
        &setup,
        "CREATE TABLE acct(id INTEGER PRIMARY KEY, bal BIGINT)",
    );
    run(
        &setup,
        "INSERT INTO acct SELECT i, 1000 FROM range(10) r(i)",
    );
    let done = Arc::new(AtomicBool::new(false));
    let reader = {
        let (db, done) = (db.clone(), done.clone());
        std::thread::spawn(move || {
            let c = db.connect().unwrap();
            let mut checks = 0;
            while !done.load(Ordering::SeqCst) {
                run(&c, "BEGIN");
                assert_eq!(int(&c, "SELECT sum(bal) FROM acct"), 10_000);
                assert_eq!(int(&c, "SELECT sum(bal) FROM acct"), 10_000);
                run(&c, "COMMIT");
                checks += 1;
            }
            checks
        })
    };
    let writers: Vec<_> = (0..3u64)
        .map(|w| {
            let db = db.clone();
            std::thread::spawn(move || {
                let c = db.connect().unwrap();
                let (mut committed, mut conflicts) = (0, 0);
                let mut seed = w * 7919 + 1;
                while committed < 30 {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let (from, to, amount) =
                        ((seed >> 33) % 10, (seed >> 40) % 10, (seed >> 50) % 100);
                    run(&c, "BEGIN");
                    run(
                        &c,
                        &format!("UPDATE acct SET bal = bal - {amount} WHERE id = {from}"),
                    );
                    run(
                        &c,
                        &format!("UPDATE acct SET bal = bal + {amount} WHERE id = {to}"),
                    );
                    match c.execute("COMMIT") {
                        Ok(_) => committed += 1,
                        Err(e) if e.kind == ErrorKind::Transaction => conflicts += 1,
                        Err(e) => panic!("{e}"),
                    }
                }
                (committed, conflicts)
            })
        })
        .collect();
    let mut total = 0;
    for w in writers {
        total += w.join().unwrap().0;
    }
    done.store(true, Ordering::SeqCst);
    assert!(reader.join().unwrap() > 0);
    assert_eq!(total, 90);
    assert_eq!(int(&setup, "SELECT sum(bal) FROM acct"), 10_000);
}

/// A statement outside a transaction reads one snapshot of every table: a commit
/// changing two tables is seen whole or not at all, even by a query that scans the
/// two tables at different moments.
#[test]
fn one_statement_sees_one_snapshot() {
    let db = Database::open_in_memory().unwrap();
    let setup = db.connect().unwrap();
    run(
        &setup,
        "CREATE TABLE a AS SELECT i AS id, 1 AS x FROM range(300000) r(i)",
    );
    run(
        &setup,
        "CREATE TABLE b AS SELECT i AS id, 1 AS x FROM range(300000) r(i)",
    );
    let done = Arc::new(AtomicBool::new(false));
    let writer = {
        let (db, done) = (db.clone(), done.clone());
        std::thread::spawn(move || {
            let c = db.connect().unwrap();
            let mut n = 0;
            while !done.load(Ordering::SeqCst) && n < 200 {
                run(&c, "BEGIN");
                run(&c, "UPDATE a SET x = x - 1 WHERE id = 0");
                run(&c, "UPDATE b SET x = x + 1 WHERE id = 0");
                run(&c, "COMMIT");
                n += 1;
            }
        })
    };
    let reader = db.connect().unwrap();
    for _ in 0..60 {
        assert_eq!(
            int(
                &reader,
                "SELECT (SELECT sum(x) FROM a) + (SELECT sum(x) FROM b) + (SELECT sum(x) FROM a) - (SELECT sum(x) FROM a)"
            ),
            600_000
        );
    }
    done.store(true, Ordering::SeqCst);
    writer.join().unwrap();
}

/// `lock_timeout` bounds the wait for the write lock another statement holds, and
/// `idle_in_transaction_session_timeout` rolls back a transaction left idle.
#[test]
fn lock_and_idle_timeouts_take_effect() {
    let db = Database::open_in_memory().unwrap();
    let (a, b) = (db.connect().unwrap(), db.connect().unwrap());
    run(&a, "CREATE TABLE t(v BIGINT)");
    run(&a, "INSERT INTO t VALUES (1)");
    // a's DELETE holds the write lock while its slow query runs.
    let stop = a.interrupt_handle();
    let slow = std::thread::spawn(move || {
        a.execute(
            "DELETE FROM t WHERE v IN (SELECT count(*) FROM range(1000000000) r(i) WHERE i % 3 = 1)",
        )
    });
    std::thread::sleep(std::time::Duration::from_millis(300));
    run(&b, "SET lock_timeout = '50ms'");
    let started = std::time::Instant::now();
    let e = b.execute("INSERT INTO t VALUES (2)").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Timeout, "{e}");
    assert!(e.message.contains("lock timeout"), "{e}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    stop.interrupt();
    assert!(slow.join().unwrap().is_err());
    // With the lock free, the same statement goes through.
    run(&b, "INSERT INTO t VALUES (2)");
    assert_eq!(int(&b, "SELECT count(*) FROM t"), 2);

    run(&b, "SET idle_in_transaction_session_timeout = '100ms'");
    run(&b, "BEGIN");
    run(&b, "INSERT INTO t VALUES (3)");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let e = b.execute("COMMIT").unwrap_err();
    assert!(
        e.message.contains("idle_in_transaction_session_timeout"),
        "{e}"
    );
    assert_eq!(int(&b, "SELECT count(*) FROM t"), 2);
    // Busy transactions are not idle.
    run(&b, "BEGIN");
    run(&b, "INSERT INTO t VALUES (3)");
    run(&b, "COMMIT");
    assert_eq!(int(&b, "SELECT count(*) FROM t"), 3);
}

/// current_connection_id() numbers connections; txid_current() is one number for a
/// whole transaction and a new one for each statement outside one;
/// current_query_id() counts a connection's statements.
#[test]
fn session_ids_number_connections_transactions_and_statements() {
    let db = Database::open_in_memory().unwrap();
    let (a, b) = (db.connect().unwrap(), db.connect().unwrap());
    assert_ne!(
        int(&a, "SELECT current_connection_id()"),
        int(&b, "SELECT current_connection_id()")
    );
    let t1 = int(&a, "SELECT txid_current()");
    let t2 = int(&a, "SELECT current_transaction_id()");
    assert!(t2 > t1);
    run(&a, "BEGIN");
    let inside = int(&a, "SELECT txid_current()");
    assert!(inside > t2);
    assert_eq!(int(&a, "SELECT current_transaction_id()"), inside);
    assert_ne!(int(&b, "SELECT txid_current()"), inside);
    run(&a, "COMMIT");
    assert!(int(&a, "SELECT txid_current()") > inside);
    let q = int(&a, "SELECT current_query_id()");
    assert_eq!(int(&a, "SELECT current_query_id()"), q + 1);
}

/// An error a query's rows end in (division by zero after the first rows streamed)
/// fails its transaction as an error the statement returns does: COMMIT refuses, and
/// the transaction's earlier INSERT is not kept.
#[test]
fn an_error_while_rows_stream_fails_the_transaction() {
    let db = Database::open_in_memory().unwrap();
    let c = db.connect().unwrap();
    run(&c, "CREATE TABLE t AS SELECT range AS a FROM range(100000)");
    run(&c, "BEGIN");
    run(&c, "INSERT INTO t VALUES (-1)");
    let r = c
        .query("SELECT 1 / (a - 99999) FROM t")
        .and_then(|r| r.collect_rows());
    assert!(r.is_err(), "expected a division by zero");
    let e = c.execute("COMMIT").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Transaction, "{e}");
    assert_eq!(int(&c, "SELECT count(*) FROM t WHERE a = -1"), 0);
    assert_eq!(int(&c, "SELECT count(*) FROM t"), 100000);
}

/// Sequences are not transactional and never go back: a transaction that took a
/// value and commits after another connection took later ones leaves the counter
/// where the other left it, a rolled-back transaction's values are not handed out
/// again, and neither after reopening the file.
fn sequences_only_move_forward(open: &dyn Fn() -> Database) {
    let db = open();
    let (a, b) = (db.connect().unwrap(), db.connect().unwrap());
    run(&a, "CREATE SEQUENCE s");
    run(
        &a,
        "CREATE TABLE ts(id BIGINT PRIMARY KEY DEFAULT nextval('s'), note VARCHAR)",
    );
    run(&a, "BEGIN");
    run(&a, "INSERT INTO ts(note) VALUES ('a')"); // 1
    run(&b, "INSERT INTO ts(note) VALUES ('b1'), ('b2')"); // 2, 3
    run(&a, "COMMIT");
    run(&b, "INSERT INTO ts(note) VALUES ('b3')"); // 4
    assert_eq!(int(&b, "SELECT max(id) FROM ts"), 4);
    run(&a, "BEGIN");
    assert_eq!(int(&a, "SELECT nextval('s')"), 5);
    run(&a, "ROLLBACK");
    assert_eq!(int(&b, "SELECT nextval('s')"), 6);
    // A sequence created in a transaction keeps the values it handed out there.
    run(&a, "BEGIN");
    run(&a, "CREATE SEQUENCE fresh");
    assert_eq!(int(&a, "SELECT nextval('fresh') + nextval('fresh')"), 3);
    run(&a, "COMMIT");
    assert_eq!(int(&b, "SELECT nextval('fresh')"), 3);
    drop((a, b));
    drop(db);
    let c = open().connect().unwrap();
    assert_eq!(int(&c, "SELECT nextval('s')"), 7);
    assert_eq!(int(&c, "SELECT nextval('fresh')"), 4);
}

#[test]
fn sequences_only_move_forward_in_memory() {
    let db = Database::open_in_memory().unwrap();
    sequences_only_move_forward(&move || db.clone());
}

#[test]
fn sequences_only_move_forward_on_a_file_and_after_reopening() {
    let dir = common::fresh_dir("seq");
    let path = dir.join("seq.stride").to_string_lossy().into_owned();
    sequences_only_move_forward(&move || Database::open(&path).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A COMMIT that fails (here a conflict) rolls the transaction back and leaves the
/// connection idle, as PostgreSQL does: its next statement commits on its own.
#[test]
fn a_failed_commit_leaves_the_connection_idle() {
    let db = Database::open_in_memory().unwrap();
    let (a, b) = (db.connect().unwrap(), db.connect().unwrap());
    run(&a, "CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER)");
    run(&a, "INSERT INTO t VALUES (1, 0)");
    run(&b, "BEGIN");
    run(&b, "UPDATE t SET v = v + 1 WHERE id = 1");
    run(&a, "UPDATE t SET v = v + 100 WHERE id = 1");
    let e = b.execute("COMMIT").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Transaction, "{e}");
    assert!(!b.in_transaction() && !b.transaction_failed());
    run(&b, "INSERT INTO t VALUES (2, 0)");
    assert_eq!(int(&a, "SELECT count(*) FROM t"), 2);
}

/// COMMIT AND CHAIN and ROLLBACK AND CHAIN begin the next transaction at once, with
/// the same access mode; outside a transaction they are errors (as in PostgreSQL).
#[test]
fn and_chain_begins_the_next_transaction() {
    let db = Database::open_in_memory().unwrap();
    let (a, b) = (db.connect().unwrap(), db.connect().unwrap());
    run(&a, "CREATE TABLE t(v INTEGER)");
    run(&a, "BEGIN");
    run(&a, "INSERT INTO t VALUES (1)");
    run(&a, "COMMIT AND CHAIN");
    assert!(a.in_transaction());
    run(&a, "INSERT INTO t VALUES (2)");
    assert_eq!(int(&b, "SELECT count(*) FROM t"), 1);
    run(&a, "ROLLBACK AND CHAIN");
    assert!(a.in_transaction());
    run(&a, "INSERT INTO t VALUES (4)");
    run(&a, "COMMIT AND NO CHAIN");
    assert!(!a.in_transaction());
    assert_eq!(int(&b, "SELECT sum(v) FROM t"), 5);
    run(&a, "BEGIN TRANSACTION READ ONLY");
    run(&a, "ROLLBACK AND CHAIN");
    let e = a.execute("INSERT INTO t VALUES (8)").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Transaction, "{e}");
    run(&a, "ROLLBACK");
    let e = a.execute("COMMIT AND CHAIN").unwrap_err();
    assert!(e.message.contains("transaction blocks"), "{e}");
    assert!(!a.in_transaction());
}
