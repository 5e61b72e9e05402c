//! Transactions between connections: each sees one snapshot from BEGIN to COMMIT,
//! nothing uncommitted leaks, and of two transactions rewriting the same table the
//! second to commit fails (first committer wins). Write skew is allowed, as snapshot
//! isolation allows it. Runs in memory and on a database file.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use stride::{Connection, Database, ErrorKind, ScalarValue};

fn int(c: &Connection, sql: &str) -> i64 {
    let r = c.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let row = r.rows().next().unwrap().unwrap();
    match &row[0] {
        ScalarValue::BigInt(x) => *x,
        ScalarValue::Integer(x) => *x as i64,
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

#[test]
fn isolation_in_memory() {
    isolation(&|| Database::open_in_memory().unwrap());
}

#[test]
fn isolation_on_a_file_and_after_reopening() {
    let dir = std::env::temp_dir().join(format!("stride-tx-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
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
