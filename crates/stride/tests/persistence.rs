//! Database files: what is committed survives closing, crashes (SIGKILL of a writing
//! child process at random moments) and failed writes; damaged or foreign files and
//! second writers get clear errors. (That every type and a bulk load read back as
//! written is `stored_values.rs`'s, which shares the helpers here.)
//!
//! The crash tests run this test binary again as a child process (with
//! `STRIDE_PERSISTENCE_CHILD` set) that writes and prints each acknowledged commit;
//! the parent kills it and checks the database it left.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use stride::fs::{Faults, FaultyFileSystem};
use stride::{Database, ScalarValue};

const CHILD: &str = "STRIDE_PERSISTENCE_CHILD";

pub(crate) fn dir(name: &str) -> PathBuf {
    common::fresh_dir(&format!("persistence-{name}"))
}

pub(crate) fn path_in(d: &Path) -> String {
    d.join("db.stride").to_string_lossy().into_owned()
}

pub(crate) fn query(db: &Database, sql: &str) -> Vec<Vec<ScalarValue>> {
    let conn = db.connect().unwrap();
    let r = conn.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    r.rows().map(|r| r.unwrap()).collect()
}

pub(crate) fn exec(db: &Database, sql: &str) {
    db.connect()
        .unwrap()
        .execute(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

pub(crate) fn int(v: &ScalarValue) -> i64 {
    match v {
        ScalarValue::BigInt(x) => *x,
        ScalarValue::Integer(x) => *x as i64,
        ScalarValue::HugeInt(x) => *x as i64,
        ScalarValue::Decimal(x, _, 0) => *x as i64,
        other => panic!("not an integer: {other:?}"),
    }
}

#[test]
fn a_database_file_is_named_by_its_stem() {
    let d = dir("named");
    let db = Database::open(&path_in(&d)).unwrap();
    exec(&db, "CREATE TABLE t(a INTEGER)");
    let name = ScalarValue::Varchar("db".into());
    for sql in [
        "SELECT current_database()",
        "SELECT current_catalog",
        "SELECT DISTINCT database_name FROM duckdb_tables()",
        "SELECT DISTINCT table_catalog FROM information_schema.tables",
        "SELECT datname FROM pg_database",
    ] {
        assert_eq!(query(&db, sql), vec![vec![name.clone()]], "{sql}");
    }
    drop(db);
    // A stem that names the TEMP database (or a schema) gets `_db`, as in DuckDB: the
    // file's tables and the connection's TEMP ones stay apart.
    let path = d.join("temp.stride").to_string_lossy().into_owned();
    let db = Database::open(&path).unwrap();
    exec(&db, "CREATE TABLE t(a INTEGER)");
    let conn = db.connect().unwrap();
    conn.execute("CREATE TEMP TABLE tt(a INTEGER)").unwrap();
    conn.execute(&format!("ATTACH '{}' AS other", path_in(&d)))
        .unwrap_or_else(|e| panic!("{e}"));
    let rows = conn
        .query("SELECT database_name || '.' || table_name || ' ' || temporary FROM duckdb_tables() WHERE database_name LIKE 'temp%' ORDER BY 1")
        .unwrap()
        .collect_rows()
        .unwrap();
    let text = |s: &str| vec![ScalarValue::Varchar(s.into())];
    assert_eq!(rows, [text("temp.tt true"), text("temp_db.t false")]);
}

#[test]
fn macros_survive_reopening() {
    let d = dir("macros");
    let path = path_in(&d);
    {
        let db = Database::open(&path).unwrap();
        exec(&db, "CREATE TABLE t AS SELECT * FROM range(5) r(i)");
        exec(&db, "CREATE MACRO add(x, y := 10) AS x + y");
        exec(&db, "CREATE MACRO twice(x) AS add(x, x)");
        exec(
            &db,
            "CREATE MACRO small(n) AS TABLE SELECT i FROM t WHERE i < n",
        );
        exec(&db, "CREATE FUNCTION gone(x) AS x");
        exec(&db, "DROP MACRO gone");
        exec(
            &db,
            "CREATE OR REPLACE MACRO twice(x) AS add(x, y := x) + 0",
        );
        exec(&db, "CREATE TEMP MACRO temp_one() AS 1");
    }
    // Once from the WAL, once from a checkpoint.
    for round in 0..2 {
        let db = Database::open(&path).unwrap();
        assert_eq!(int(&query(&db, "SELECT add(1)")[0][0]), 11, "round {round}");
        assert_eq!(int(&query(&db, "SELECT twice(21)")[0][0]), 42);
        assert_eq!(int(&query(&db, "SELECT count(*) FROM small(3)")[0][0]), 3);
        let conn = db.connect().unwrap();
        let e = conn.query("SELECT gone(1)").unwrap_err();
        assert!(e.message.contains("gone"), "{e}");
        let e = conn.query("SELECT temp_one()").unwrap_err();
        assert!(e.message.contains("temp_one"), "{e}");
        exec(&db, "CHECKPOINT");
    }
}

/// TEMP tables and views live in the connection's own in-memory database `temp`
/// (as in DuckDB): never written to the file, unseen by other connections, gone when
/// the connection closes, and found before the file's tables of the same name.
#[test]
fn temp_tables_and_views_belong_to_their_connection() {
    let d = dir("temp");
    let path = path_in(&d);
    let strings = |rows: Vec<Vec<ScalarValue>>| -> Vec<String> {
        rows.iter().map(|r| r[0].to_string()).collect()
    };
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect().unwrap();
        let rows = |sql: &str| -> Vec<Vec<ScalarValue>> {
            let r = conn.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
            r.rows().map(|r| r.unwrap()).collect()
        };
        rows("CREATE TABLE t AS SELECT 'file' AS x");
        rows("CREATE TEMP TABLE tt AS SELECT 1 AS x");
        rows("CREATE TEMP TABLE t AS SELECT 'temp' AS x");
        rows("CREATE TEMP VIEW tv AS SELECT x FROM t");
        assert_eq!(strings(rows("SELECT x FROM t")), ["temp"]);
        assert_eq!(strings(rows("SELECT x FROM main.t")), ["temp"]);
        assert_eq!(strings(rows("SELECT x FROM db.t")), ["file"]);
        assert_eq!(strings(rows("SELECT x FROM temp.main.t")), ["temp"]);
        assert_eq!(strings(rows("SELECT x FROM tv")), ["temp"]);
        assert_eq!(int(&rows("SELECT x FROM temp.tt")[0][0]), 1);
        // Other connections see the file's table only.
        assert_eq!(strings(query(&db, "SELECT x FROM t")), ["file"]);
        let e = db.connect().unwrap().query("SELECT * FROM tt").unwrap_err();
        assert!(e.message.contains("tt"), "{e}");
        // Two connections each have a TEMP table of the same name.
        let other = db.connect().unwrap();
        other
            .execute("CREATE TEMP TABLE tt AS SELECT 2 AS x")
            .unwrap();
        assert_eq!(int(&rows("SELECT x FROM tt")[0][0]), 1);
        // DROP finds the TEMP table first; then the file's is found again.
        rows("DROP TABLE t");
        assert_eq!(strings(rows("SELECT x FROM t")), ["file"]);
    }
    let db = Database::open(&path).unwrap();
    let conn = db.connect().unwrap();
    let e = conn.query("SELECT * FROM tt").unwrap_err();
    assert!(e.message.contains("tt"), "{e}");
    assert_eq!(
        strings(query(
            &db,
            "SELECT table_name FROM duckdb_tables() ORDER BY 1"
        )),
        ["t"]
    );
}

#[test]
fn tables_views_indexes_and_constraints_survive_reopening() {
    let d = dir("reopen");
    let path = path_in(&d);
    {
        let db = Database::open(&path).unwrap();
        exec(&db, "CREATE TABLE t(id INTEGER PRIMARY KEY, s VARCHAR NOT NULL, d DECIMAL(10,2) DEFAULT 1.5, l INTEGER[])");
        exec(&db, "INSERT INTO t VALUES (1, 'one', 2.25, [1, NULL]), (2, 'a string longer than twelve', NULL, NULL)");
        exec(&db, "INSERT INTO t (id, s) VALUES (3, '')");
        exec(&db, "CREATE VIEW v(x) AS SELECT id * 10 FROM t");
        exec(&db, "CREATE UNIQUE INDEX t_s ON t(s)");
        exec(
            &db,
            "CREATE TABLE big AS SELECT i, i % 7 AS g, 'row ' || i AS s FROM range(300000) r(i)",
        );
        exec(&db, "CREATE TABLE gone AS SELECT 1 AS x");
        exec(&db, "DROP TABLE gone");
        exec(&db, "CREATE TABLE c(s VARCHAR COLLATE NOCASE, b VARCHAR)");
        exec(&db, "INSERT INTO c VALUES ('Crème', 'Crème')");
        exec(
            &db,
            "CREATE TABLE k(a INT CHECK (a > 0), b INT, CONSTRAINT lt CHECK (a < b))",
        );
    }
    let db = Database::open(&path).unwrap();
    assert_eq!(
        query(&db, "SELECT id, s, d, l FROM t ORDER BY id")
            .iter()
            .map(|r| format!("{} {} {} {}", r[0], r[1], r[2], r[3]))
            .collect::<Vec<_>>(),
        vec![
            "1 one 2.25 [1, NULL]",
            "2 a string longer than twelve NULL NULL",
            "3  1.50 NULL"
        ]
    );
    assert_eq!(int(&query(&db, "SELECT sum(x) FROM v")[0][0]), 60);
    let big = &query(
        &db,
        "SELECT count(*), sum(i), count(DISTINCT s), max(g) FROM big",
    )[0];
    assert_eq!(
        (int(&big[0]), int(&big[1]), int(&big[2]), int(&big[3])),
        (300000, 44999850000, 300000, 6)
    );
    assert!(db.connect().unwrap().query("SELECT * FROM gone").is_err());
    let conn = db.connect().unwrap();
    let dup = conn
        .execute("INSERT INTO t VALUES (1, 'x', 0, NULL)")
        .unwrap_err();
    assert!(dup.message.contains("Duplicate key"), "{dup}");
    let dup = conn
        .execute("INSERT INTO t VALUES (9, 'one', 0, NULL)")
        .unwrap_err();
    assert!(dup.message.contains("Duplicate key"), "{dup}");
    let null = conn
        .execute("INSERT INTO t VALUES (9, NULL, 0, NULL)")
        .unwrap_err();
    assert!(null.message.contains("NOT NULL"), "{null}");
    for (row, check) in [("(0, 5)", "CHECK (a > 0)"), ("(3, 2)", "\"lt\"")] {
        let e = conn
            .execute(&format!("INSERT INTO k VALUES {row}"))
            .unwrap_err();
        assert!(e.message.contains(check), "{e}");
    }
    exec(&db, "CREATE TABLE k2(a INT CHECK (a % 2 = 0))");
    // Changes after reopening, and a checkpoint, survive too.
    exec(
        &db,
        "INSERT INTO big SELECT i, 0, 'more' FROM range(300000, 300010) r(i)",
    );
    exec(&db, "CHECKPOINT");
    exec(&db, "INSERT INTO t VALUES (4, 'four', 4, [4])");
    exec(&db, "ALTER TABLE t ADD COLUMN z INTEGER DEFAULT 5");
    exec(&db, "ALTER TABLE t DROP COLUMN l");
    exec(&db, "ALTER TABLE big RENAME TO big2");
    exec(&db, "ALTER TABLE big2 RENAME COLUMN g TO grp");
    exec(
        &db,
        "ALTER TABLE c ADD COLUMN a VARCHAR COLLATE NOACCENT DEFAULT 'Crème'",
    );
    drop(conn);
    drop(db);
    let db = Database::open(&path).unwrap();
    assert_eq!(int(&query(&db, "SELECT count(*) FROM big2")[0][0]), 300010);
    assert_eq!(int(&query(&db, "SELECT max(grp) FROM big2")[0][0]), 6);
    assert_eq!(int(&query(&db, "SELECT count(*) FROM t")[0][0]), 4);
    assert_eq!(int(&query(&db, "SELECT sum(z) FROM t")[0][0]), 20);
    assert_eq!(query(&db, "SELECT * FROM t WHERE id = 4")[0].len(), 4);
    for sql in ["INSERT INTO k VALUES (-1, 5)", "INSERT INTO k2 VALUES (3)"] {
        let e = db.connect().unwrap().execute(sql).unwrap_err();
        assert!(e.message.contains("CHECK constraint failed"), "{e}");
    }
    // Column collations, from the checkpoint and from the log.
    assert_eq!(
        query(&db, "SELECT s = 'CRÈME', b = 'CRÈME', a = 'Creme' FROM c")[0],
        [true, false, true].map(ScalarValue::Boolean)
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// ATTACH: an attached file is changed through its own WAL and writer, keeps what
/// was committed to it, closes at DETACH, and may be attached read-only.
#[test]
fn attached_files_keep_their_changes() {
    let d = dir("attach");
    let main = path_in(&d);
    let other = d.join("other.stride").to_string_lossy().into_owned();
    let count = |db: &Database, sql: &str| int(&query(db, sql)[0][0]);
    {
        let db = Database::open(&main).unwrap();
        let conn = db.connect().unwrap();
        for sql in [
            "CREATE TABLE m AS SELECT i FROM range(10) r(i)".to_string(),
            format!("ATTACH '{other}'"),
            // A bulk load of whole row groups, written to the attached file's blocks.
            "CREATE TABLE other.big AS SELECT i, 'v' || i AS s FROM range(200000) r(i)".into(),
            "INSERT INTO other.big SELECT i, 'm' FROM m".into(),
            "UPDATE other.big SET s = 'u' WHERE i < 5".into(),
            "DELETE FROM other.big WHERE i >= 199990".into(),
            "BEGIN".into(),
            "CREATE TABLE other.small(x INTEGER PRIMARY KEY)".into(),
            "INSERT INTO other.small VALUES (1), (2)".into(),
            "COMMIT".into(),
            "CHECKPOINT".into(),
        ] {
            conn.execute(&sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
        assert_eq!(count(&db, "SELECT count(*) FROM other.big"), 200_000);
        assert_eq!(
            count(
                &db,
                "SELECT count(*) FROM other.big b JOIN m ON b.i = m.i WHERE s = 'u'"
            ),
            10
        );
        let e = conn
            .execute("INSERT INTO other.small VALUES (2)")
            .unwrap_err();
        assert!(
            e.message.contains("PRIMARY KEY") || e.message.contains("unique"),
            "{e}"
        );
        let e = conn
            .execute(&format!("ATTACH '{other}' AS again"))
            .unwrap_err();
        assert!(e.message.contains("already open"), "{e}");

        // DETACH closes the file: it opens by itself, then attaches read-only.
        conn.execute("DETACH other").unwrap();
        drop(Database::open(&other).unwrap());
        conn.execute(&format!("ATTACH '{other}' AS o (READ_ONLY)"))
            .unwrap();
        assert_eq!(count(&db, "SELECT count(*) FROM o.small"), 2);
        let ro = query(
            &db,
            "SELECT readonly FROM duckdb_databases() WHERE database_name = 'o'",
        );
        assert_eq!(ro, vec![vec![ScalarValue::Boolean(true)]]);
        let e = conn.execute("INSERT INTO o.small VALUES (3)").unwrap_err();
        assert!(e.message.contains("read-only"), "{e}");
    }
    // Each file holds its own tables.
    let db = Database::open(&other).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM big"), 200_000);
    assert_eq!(count(&db, "SELECT count(*) FROM big WHERE s = 'u'"), 10);
    assert_eq!(count(&db, "SELECT count(*) FROM big WHERE s = 'm'"), 5);
    assert_eq!(count(&db, "SELECT count(*) FROM small"), 2);
    assert_eq!(
        query(&db, "PRAGMA integrity_check"),
        vec![vec![ScalarValue::Varchar("ok".into())]]
    );
    drop(db);
    let db = Database::open(&main).unwrap();
    assert_eq!(db.connect().unwrap().table_names(), vec!["m".to_string()]);
    drop(db);
    let _ = std::fs::remove_dir_all(&d);
}

/// ATTACH opens files, so it obeys the limits on file access (the server's
/// `--allow-dir`, `enable_external_access`).
#[test]
fn attach_obeys_file_access_limits() {
    let d = dir("attach-limits");
    let inside = d.join("inside");
    std::fs::create_dir_all(&inside).unwrap();
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect().unwrap();
    conn.restrict_file_access(vec![std::fs::canonicalize(&inside).unwrap()])
        .unwrap();
    let outside = d.join("outside.stride");
    let e = conn
        .execute(&format!("ATTACH '{}' AS o", outside.display()))
        .unwrap_err();
    assert!(e.message.contains("not allowed"), "{e}");
    assert!(!outside.exists());
    conn.execute(&format!(
        "ATTACH '{}' AS i",
        inside.join("i.stride").display()
    ))
    .unwrap();
    conn.execute("ATTACH ':memory:' AS m").unwrap();
    conn.execute("SET enable_external_access = false").unwrap();
    let e = conn
        .execute(&format!(
            "ATTACH '{}' AS j",
            inside.join("j.stride").display()
        ))
        .unwrap_err();
    assert!(e.message.contains("ATTACH"), "{e}");
    drop(conn);
    drop(db);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_second_open_and_foreign_files_are_refused() {
    let d = dir("refuse");
    let path = path_in(&d);
    let db = Database::open(&path).unwrap();
    let e = Database::open(&path).unwrap_err();
    assert!(e.message.contains("already open"), "{e}");
    drop(db);
    assert!(Database::open(&path).is_ok());

    let other = d.join("notes.txt");
    std::fs::write(&other, "hello, this is not a database").unwrap();
    let e = Database::open(other.to_str().unwrap()).unwrap_err();
    assert!(e.message.contains("not a stride database file"), "{e}");

    // A header of a newer format version.
    let newer = d.join("newer.stride");
    drop(Database::open(newer.to_str().unwrap()).unwrap());
    let mut bytes = std::fs::read(&newer).unwrap();
    for slot in [0usize, 4096] {
        if &bytes[slot..slot + 8] == b"STRIDEDB" {
            bytes[slot + 8..slot + 12].copy_from_slice(&99u32.to_le_bytes());
        }
    }
    std::fs::write(&newer, bytes).unwrap();
    let e = Database::open(newer.to_str().unwrap()).unwrap_err();
    assert!(
        e.message.contains("newer stride") && e.message.contains("99"),
        "{e}"
    );

    let e = Database::open_read_only(d.join("missing.stride").to_str().unwrap()).unwrap_err();
    assert!(e.message.contains("does not exist"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_damaged_block_is_named_and_a_damaged_header_slot_falls_back() {
    let d = dir("damage");
    let path = path_in(&d);
    {
        let db = Database::open(&path).unwrap();
        exec(&db, "CREATE TABLE t AS SELECT i FROM range(1000) r(i)");
        exec(&db, "CHECKPOINT");
        exec(&db, "INSERT INTO t VALUES (1000)");
    }
    // Two checkpoints were written (CHECKPOINT and closing). A torn write of the newer
    // header slot leaves the older one, and the log (not yet reset) continues it.
    let mut bytes = std::fs::read(&path).unwrap();
    let iteration =
        |b: &[u8], slot: usize| u64::from_le_bytes(b[slot + 16..slot + 24].try_into().unwrap());
    let newer = if iteration(&bytes, 0) > iteration(&bytes, 4096) {
        0
    } else {
        4096
    };
    let saved = bytes.clone();
    let wal = format!("{path}.wal");
    let saved_wal = std::fs::read(&wal).unwrap();
    bytes[newer + 100] ^= 0xff;
    std::fs::write(&path, &bytes).unwrap();
    // Damaged after the log was reset for it, the slot is restored from the log's copy
    // of it: nothing committed is lost, and the slot is written back.
    let db = Database::open(&path).unwrap();
    assert!(db.recovery().restored_header, "{:?}", db.recovery());
    assert_eq!(int(&query(&db, "SELECT count(*) FROM t")[0][0]), 1001);
    drop(db);
    let db = Database::open(&path).unwrap();
    assert!(!db.recovery().restored_header);
    assert_eq!(int(&query(&db, "SELECT count(*) FROM t")[0][0]), 1001);
    drop(db);
    // Without its log (a torn header write comes before the log is reset, so it names
    // the older checkpoint), opening falls back to the older slot.
    std::fs::write(&path, &bytes).unwrap();
    std::fs::remove_file(&wal).unwrap();
    let db = Database::open(&path).unwrap();
    assert!(!db.recovery().restored_header);
    assert_eq!(int(&query(&db, "SELECT count(*) FROM t")[0][0]), 1000);
    drop(db);
    std::fs::write(&wal, &saved_wal).unwrap();
    // A flipped byte in every data block: the error names the block.
    let mut bytes = saved;
    let mut at = 8192 + 100;
    while at < bytes.len() {
        bytes[at] ^= 0xff;
        at += 256 * 1024;
    }
    std::fs::write(&path, &bytes).unwrap();
    let e = Database::open(&path).unwrap_err();
    assert!(
        e.message.contains("block ") && e.message.contains("checksum"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn failed_writes_change_nothing_and_a_failed_sync_stops_writes() {
    let d = dir("faults");
    let path = path_in(&d);
    let faults = Arc::new(Faults::default());
    let fs = FaultyFileSystem {
        faults: faults.clone(),
    };
    let db = Database::open_with(&path, false, &fs).unwrap();
    exec(&db, "CREATE TABLE t(i INTEGER)");
    exec(&db, "INSERT INTO t VALUES (1)");
    let conn = db.connect().unwrap();
    // A full disk: the insert fails, and nothing of it is visible.
    *faults.writes_left.lock().unwrap() = Some(0);
    let e = conn.execute("INSERT INTO t VALUES (2)").unwrap_err();
    assert!(e.message.contains("No space left"), "{e}");
    let e = conn.execute("CREATE TABLE u(i INTEGER)").unwrap_err();
    assert!(e.message.contains("No space left"), "{e}");
    let e = conn
        .execute("INSERT INTO t SELECT i FROM range(200000) r(i)")
        .unwrap_err();
    assert!(e.message.contains("No space left"), "{e}");
    assert_eq!(int(&query(&db, "SELECT count(*) FROM t")[0][0]), 1);
    assert!(conn.query("SELECT * FROM u").is_err());
    // Space again: writes work.
    *faults.writes_left.lock().unwrap() = None;
    exec(&db, "INSERT INTO t VALUES (3)");
    // A failed sync: that statement fails, and so does every later change.
    faults.fail_sync.store(true, Ordering::SeqCst);
    assert!(conn.execute("INSERT INTO t VALUES (4)").is_err());
    faults.fail_sync.store(false, Ordering::SeqCst);
    let e = conn.execute("INSERT INTO t VALUES (5)").unwrap_err();
    assert!(e.message.contains("takes no more writes"), "{e}");
    assert_eq!(int(&query(&db, "SELECT sum(i) FROM t")[0][0]), 4);
    drop(conn);
    drop(db);
    // Every acknowledged commit is there after reopening.
    let db = Database::open(&path).unwrap();
    let rows: Vec<i64> = query(&db, "SELECT i FROM t ORDER BY i")
        .iter()
        .map(|r| int(&r[0]))
        .collect();
    assert!(rows == vec![1, 3] || rows == vec![1, 3, 4], "{rows:?}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn synchronous_off_commits_without_waiting_for_the_disk() {
    let d = dir("synchronous");
    let path = path_in(&d);
    let faults = Arc::new(Faults::default());
    let fs = FaultyFileSystem {
        faults: faults.clone(),
    };
    let db = Database::open_with(&path, false, &fs).unwrap();
    let conn = db.connect().unwrap();
    conn.execute("CREATE TABLE t(i INTEGER)").unwrap();
    conn.execute("SET synchronous = 'off'").unwrap();
    assert_eq!(
        conn.query("SHOW synchronous")
            .unwrap()
            .rows()
            .next()
            .unwrap()
            .unwrap()[0],
        ScalarValue::Varchar("off".into())
    );
    // With every sync failing, commits that do not sync still succeed...
    faults.fail_sync.store(true, Ordering::SeqCst);
    conn.execute("INSERT INTO t VALUES (1)").unwrap();
    conn.execute("BEGIN; INSERT INTO t VALUES (2); COMMIT")
        .unwrap();
    // ...and another connection, still synchronous, waits for its sync and fails.
    let other = db.connect().unwrap();
    assert!(other.execute("INSERT INTO t VALUES (3)").is_err());
    faults.fail_sync.store(false, Ordering::SeqCst);
    assert!(conn.execute("SET synchronous = 'sometimes'").is_err());
    drop((conn, other, db));
    // The failed commit was written, not synced: it may or may not be there.
    let db = Database::open(&path).unwrap();
    let sum = int(&query(&db, "SELECT sum(i) FROM t")[0][0]);
    assert!(sum == 3 || sum == 6, "{sum}");
    let _ = std::fs::remove_dir_all(&d);
}

/// A copy of the committed upgrade file of `format` (with its WAL of two commits),
/// opened: the directory it is in, and the database.
fn open_upgrade_file(format: &str) -> (PathBuf, Database) {
    let d = dir(format);
    let data = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(format);
    for f in ["every_type.stride", "every_type.stride.wal"] {
        std::fs::copy(data.join(f), d.join(f)).unwrap();
    }
    let db = Database::open(&d.join("every_type.stride").to_string_lossy()).unwrap();
    assert_eq!(db.recovery().replayed, 2, "{:?}", db.recovery());
    (d, db)
}

#[test]
fn files_of_format_5_still_open() {
    let (d, db) = open_upgrade_file("format5");
    let text =
        |sql: &str| -> Vec<String> { query(&db, sql)[0].iter().map(|v| v.to_string()).collect() };
    assert_eq!(
        text("SELECT count(*), sum(i), count(s), sum(k), count(price), sum(price), sum(r), min(dt), count(*) FILTER (WHERE ok) FROM every_type"),
        ["1000", "499501", "899", "999124251", "900", "42230.37", "124625.25", "2000-01-01", "500"]
    );
    assert_eq!(
        text("SELECT i, s, tag, d, f, l, k, price, r FROM every_type WHERE i = 7"),
        [
            "7",
            "row number 7 of the upgrade file",
            "green",
            "7.875",
            "1.0",
            "[7, 8]",
            "1000001",
            "2.59",
            "1.75"
        ]
    );
    assert_eq!(
        text("SELECT tag, price FROM every_type WHERE i = 1000"),
        ["after the checkpoint", "0.0"]
    );
    assert_eq!(text("SELECT count(*) FROM evens"), ["500"]);
    assert_eq!(text("PRAGMA integrity_check"), ["ok"]);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn files_of_format_2_still_open() {
    let (d, db) = open_upgrade_file("format2");
    let text =
        |sql: &str| -> Vec<String> { query(&db, sql)[0].iter().map(|v| v.to_string()).collect() };
    assert_eq!(
        text("SELECT count(*), sum(i), count(s), count(f), sum(d), min(dt), max(ts), count(*) FILTER (WHERE ok) FROM every_type"),
        ["1000", "499501", "899", "899", "560813.625", "2000-01-01", "2020-03-01 04:38:00", "500"]
    );
    assert_eq!(
        text("SELECT * FROM every_type WHERE i = 7"),
        [
            "7",
            "7000000049",
            "row number 7 of the upgrade file",
            "green",
            "7.875",
            "2000-01-08",
            "2020-02-29 12:07:00",
            "false",
            "1.0",
            "7 days",
            "[7, 8]"
        ]
    );
    assert_eq!(text("SELECT count(*) FROM evens"), ["500"]);
    assert_eq!(
        text("SELECT tag FROM every_type WHERE i = 1000"),
        ["after the checkpoint"]
    );
    assert_eq!(text("PRAGMA integrity_check"), ["ok"]);
    let dup = db
        .connect()
        .unwrap()
        .execute("INSERT INTO every_type(i) VALUES (5)")
        .unwrap_err();
    assert!(dup.message.contains("Duplicate key"), "{dup}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn vacuum_returns_the_space_of_deleted_rows() {
    let d = dir("vacuum");
    let path = path_in(&d);
    let db = Database::open(&path).unwrap();
    exec(
        &db,
        "CREATE TABLE big AS SELECT i, 'payload ' || i AS s FROM range(400000) r(i)",
    );
    exec(&db, "CREATE TABLE small AS SELECT 1 AS x");
    exec(&db, "CHECKPOINT");
    let full = std::fs::metadata(&path).unwrap().len();
    exec(&db, "TRUNCATE big");
    exec(&db, "VACUUM");
    let after = std::fs::metadata(&path).unwrap().len();
    // What is left: the small table, the metadata, and the slots.
    assert!(
        after * 2 < full && after <= 8192 + 4 * 262_144,
        "{full} bytes before, {after} after"
    );
    assert_eq!(int(&query(&db, "SELECT count(*) FROM big")[0][0]), 0);
    // PRAGMA database_size agrees with the file; after VACUUM at most one block is
    // free (the previous checkpoint's metadata).
    let r = db.connect().unwrap().query("PRAGMA database_size").unwrap();
    let row = r.rows().next().unwrap().unwrap();
    assert_eq!(int(&row[3]) as u64 * 262_144 + 8192, after);
    assert!(int(&row[5]) <= 1, "{row:?}");
    assert_eq!(int(&query(&db, "SELECT x FROM small")[0][0]), 1);
    assert_eq!(
        query(&db, "PRAGMA integrity_check")[0][0],
        ScalarValue::Varchar("ok".into())
    );
    drop(db);
    let db = Database::open(&path).unwrap();
    assert_eq!(int(&query(&db, "SELECT x FROM small")[0][0]), 1);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn checkpoint_threshold_sets_when_the_wal_is_folded_in() {
    let d = dir("threshold");
    let db = Database::open(&path_in(&d)).unwrap();
    let conn = db.connect().unwrap();
    let wal = |conn: &stride::Connection| {
        let r = conn.query("PRAGMA database_size").unwrap();
        r.rows().next().unwrap().unwrap()[6].to_string()
    };
    conn.execute("CREATE TABLE t(a INTEGER)").unwrap();
    conn.execute("INSERT INTO t SELECT range FROM range(1000)")
        .unwrap();
    assert_ne!(
        wal(&conn),
        "52 bytes",
        "16 MB by default: the commits stay in the WAL"
    );
    conn.execute("SET checkpoint_threshold = '1KB'").unwrap();
    conn.execute("INSERT INTO t SELECT range FROM range(1000)")
        .unwrap();
    assert_eq!(wal(&conn), "52 bytes", "past 1 KB the commit checkpointed");
    // One value for the database: another connection sees it.
    let other = db.connect().unwrap();
    let r = other.query("SHOW checkpoint_threshold").unwrap();
    assert_eq!(
        r.rows().next().unwrap().unwrap()[0].to_string(),
        "1000 bytes"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// The statements of the fault-injection workload: small and bulk inserts, an
/// update, a delete, checkpoints.
const FAULT_WORKLOAD: &[&str] = &[
    "CREATE TABLE t(i INTEGER PRIMARY KEY, s VARCHAR)",
    "INSERT INTO t VALUES (-1, 'a')",
    "INSERT INTO t VALUES (-2, 'b')",
    "INSERT INTO t SELECT i, 'bulk ' || i FROM range(123000) r(i)",
    "INSERT INTO t VALUES (-3, 'c')",
    "CHECKPOINT",
    "UPDATE t SET s = 'changed' WHERE i % 1000 = 7",
    "DELETE FROM t WHERE i % 5000 = 11",
    "INSERT INTO t VALUES (-4, 'd') ON CONFLICT DO NOTHING",
    "CHECKPOINT",
    "INSERT INTO t VALUES (-5, 'e')",
];

#[test]
fn a_write_failing_at_any_point_loses_no_acknowledged_commit() {
    let summary = "SELECT count(*), sum(i), count(*) FILTER (WHERE s = 'changed'), min(i) FROM t";
    // How many writes the whole workload makes.
    let d = dir("faultpoints");
    let count = Arc::new(Faults::default());
    {
        let fs = FaultyFileSystem {
            faults: count.clone(),
        };
        let db = Database::open_with(&path_in(&d), false, &fs).unwrap();
        for sql in FAULT_WORKLOAD {
            exec(&db, sql);
        }
    }
    let total = count.writes_done.load(Ordering::SeqCst);
    assert!(total > 10, "{total} writes");
    // A failure at each of about 30 points spread over them, the workload stopping at
    // its first failed statement as if the process had died there.
    let step = (total / 30).max(1);
    for k in (0..total).step_by(step as usize) {
        let d = dir(&format!("faultpoint{k}"));
        let path = path_in(&d);
        let faults = Arc::new(Faults::default());
        *faults.writes_left.lock().unwrap() = Some(k);
        let acknowledged = {
            let fs = FaultyFileSystem {
                faults: faults.clone(),
            };
            let Ok(db) = Database::open_with(&path, false, &fs) else {
                continue; // failed while creating the file: nothing was acknowledged
            };
            let conn = db.connect().unwrap();
            FAULT_WORKLOAD
                .iter()
                .take_while(|sql| conn.execute(sql).is_ok())
                .count()
        };
        // What the acknowledged statements leave, done again in memory.
        let expected = Database::open_in_memory().unwrap();
        for sql in &FAULT_WORKLOAD[..acknowledged] {
            if !sql.starts_with("CHECKPOINT") {
                exec(&expected, sql);
            }
        }
        let db = Database::open(&path)
            .unwrap_or_else(|e| panic!("failure at write {k}: the database does not open: {e}"));
        if acknowledged == 0 {
            continue;
        }
        assert_eq!(
            query(&db, summary),
            query(&expected, summary),
            "failure at write {k} of {total}, after {acknowledged} acknowledged statements"
        );
        assert_eq!(
            query(&db, "PRAGMA integrity_check")[0][0],
            ScalarValue::Varchar("ok".into()),
            "failure at write {k}"
        );
        drop(db);
        let _ = std::fs::remove_dir_all(&d);
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// The child's workload: commits numbered from 0, each inserting `batch` rows tagged
/// with its number (every fifth a bulk load of a whole row group, every seventh with
/// a checkpoint after it), printing "ack N" once each returns.
fn child_workload(path: &str) {
    // The parent has just closed the file, but a worker thread of its may still be
    // dropping its last task's hold on the database (and so the file's lock), all
    // the more while other tests in the process keep the workers busy: retry a while.
    let mut tries = 0;
    let db = loop {
        match Database::open(path) {
            Err(e) if e.message.contains("conflicting lock") && tries < 100 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(50));
            }
            other => break other.unwrap(),
        }
    };
    let conn = db.connect().unwrap();
    conn.execute("CREATE TABLE IF NOT EXISTS log(commit_no BIGINT, k BIGINT)")
        .unwrap();
    let start = match conn
        .query("SELECT coalesce(max(commit_no) + 1, 0) FROM log")
        .unwrap()
        .rows()
        .next()
    {
        Some(Ok(r)) => int(&r[0]),
        _ => 0,
    };
    let mut out = std::io::stdout();
    writeln!(out, "STRIDE-READY").unwrap();
    out.flush().unwrap();
    for n in start.. {
        let rows = if n % 5 == 4 { 130_000 } else { 1 + n % 50 };
        conn.execute(&format!(
            "INSERT INTO log SELECT {n}, i FROM range({rows}) r(i)"
        ))
        .unwrap();
        if n % 7 == 6 {
            conn.execute("CHECKPOINT").unwrap();
        }
        writeln!(out, "STRIDE-ACK {n}").unwrap();
        out.flush().unwrap();
    }
}

/// Changes replayed from the WAL alone: the child updates and deletes, says so, and
/// waits to be killed (so no checkpoint runs at close).
fn child_changes(path: &str) {
    let db = Database::open(path).unwrap();
    let conn = db.connect().unwrap();
    for sql in [
        "CREATE TABLE t(id INTEGER PRIMARY KEY, s VARCHAR, v INTEGER)",
        "INSERT INTO t SELECT i, 's' || i, i FROM range(200000) r(i)",
        "CHECKPOINT",
        "DELETE FROM t WHERE id % 2 = 0",
        "UPDATE t SET s = 'changed', v = -v WHERE id % 3 = 0",
        "INSERT INTO t VALUES (0, 'zero', 0)",
        "UPDATE t SET v = 1000000 WHERE id = 0",
        "DELETE FROM t WHERE id > 199990",
        "ALTER TABLE t ADD COLUMN w INTEGER DEFAULT 7",
        "ALTER TABLE t RENAME COLUMN s TO label",
        "INSERT INTO t VALUES (1, 'x', 5, 7), (200001, 'new', 3, 7) ON CONFLICT (id) DO UPDATE SET v = t.v + excluded.v",
        "INSERT INTO t VALUES (200001, 'dup', 100, 7) ON CONFLICT DO NOTHING",
        "ALTER TABLE t ALTER COLUMN v TYPE BIGINT",
        "ALTER TABLE t ALTER COLUMN label SET NOT NULL",
    ] {
        conn.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    println!("STRIDE-DONE");
    std::io::stdout().flush().unwrap();
    std::thread::sleep(Duration::from_secs(600));
}

/// Sequences moved by a DEFAULT, by a SELECT, by DDL and in a transaction, then
/// killed without a checkpoint (see `sequences_replay_from_the_log`).
fn child_sequences(path: &str) {
    let db = Database::open(path).unwrap();
    exec(&db, "CREATE SEQUENCE s START 10");
    exec(
        &db,
        "CREATE TABLE t(id BIGINT PRIMARY KEY DEFAULT nextval('s'), v VARCHAR)",
    );
    exec(&db, "INSERT INTO t(v) VALUES ('a'), ('b')");
    assert_eq!(int(&query(&db, "SELECT nextval('s')")[0][0]), 12);
    // the statement after a query logs what the query took
    exec(&db, "CREATE SEQUENCE gone");
    exec(&db, "DROP SEQUENCE gone");
    exec(
        &db,
        "CREATE SEQUENCE down INCREMENT BY -2 MAXVALUE 100 START 100 CYCLE",
    );
    assert_eq!(int(&query(&db, "SELECT nextval('down')")[0][0]), 100);
    exec(&db, "SELECT 1");
    // a transaction that took 1 commits after another connection took 2 and 3
    exec(&db, "CREATE SEQUENCE q");
    exec(
        &db,
        "CREATE TABLE tq(id BIGINT PRIMARY KEY DEFAULT nextval('q'), v VARCHAR)",
    );
    let (a, b) = (db.connect().unwrap(), db.connect().unwrap());
    for (c, sql) in [
        (&a, "BEGIN"),
        (&a, "INSERT INTO tq(v) VALUES ('a')"),
        (&b, "INSERT INTO tq(v) VALUES ('b1'), ('b2')"),
        (&a, "COMMIT"),
    ] {
        c.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    println!("STRIDE-DONE");
    std::io::stdout().flush().unwrap();
    std::thread::sleep(Duration::from_secs(600));
}

#[test]
fn sequences_replay_from_the_log() {
    let d = dir("sequences");
    let path = path_in(&d);
    run_child_until_done(&path, "sequences");
    {
        let db = Database::open(&path).unwrap();
        assert!(db.recovery().replayed >= 5, "{:?}", db.recovery());
        // no value handed out before the crash comes again
        exec(&db, "INSERT INTO t(v) VALUES ('c')");
        assert_eq!(
            query(&db, "SELECT id FROM t ORDER BY id")
                .iter()
                .map(|r| int(&r[0]))
                .collect::<Vec<_>>(),
            vec![10, 11, 13]
        );
        assert_eq!(int(&query(&db, "SELECT nextval('down')")[0][0]), 98);
        // the commit's log record does not set q back to before b's values
        exec(&db, "INSERT INTO tq(v) VALUES ('c')");
        assert_eq!(int(&query(&db, "SELECT max(id) FROM tq")[0][0]), 4);
        assert_eq!(
            query(
                &db,
                "SELECT sequence_name FROM duckdb_sequences() ORDER BY 1"
            ),
            vec![
                vec![ScalarValue::Varchar("down".into())],
                vec![ScalarValue::Varchar("q".into())],
                vec![ScalarValue::Varchar("s".into())]
            ]
        );
    }
    // And from the checkpoint written at close.
    let db = Database::open(&path).unwrap();
    assert_eq!(db.recovery().replayed, 0);
    assert_eq!(int(&query(&db, "SELECT nextval('s')")[0][0]), 14);
    assert_eq!(int(&query(&db, "SELECT currval('down')")[0][0]), 98);
    drop(db);
    let _ = std::fs::remove_dir_all(&d);
}

/// Types made, replaced and dropped, a table of an enum, then killed without a
/// checkpoint (see `types_replay_from_the_log_and_the_checkpoint`).
fn child_types(path: &str) {
    let db = Database::open(path).unwrap();
    exec(&db, "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
    exec(&db, "CREATE TYPE id AS INTEGER");
    exec(&db, "CREATE TYPE gone AS ENUM ('x')");
    exec(&db, "DROP TYPE gone");
    exec(&db, "CREATE OR REPLACE TYPE id AS BIGINT");
    exec(
        &db,
        "CREATE TYPE w AS ENUM (SELECT 'w' || range FROM range(300) ORDER BY range)",
    );
    exec(
        &db,
        "CREATE TABLE t(m mood, i id, l ENUM('a', 'b')[], wide w)",
    );
    exec(
        &db,
        "INSERT INTO t VALUES ('happy', 1, ['b', 'a'], 'w299'), ('sad', 2, NULL, 'w0'), (NULL, 3, [], NULL)",
    );
    println!("STRIDE-DONE");
    std::io::stdout().flush().unwrap();
    std::thread::sleep(Duration::from_secs(600));
}

#[test]
fn types_replay_from_the_log_and_the_checkpoint() {
    let d = dir("types");
    let path = path_in(&d);
    run_child_until_done(&path, "types");
    // Once from the WAL, once from the checkpoint written at close.
    for round in 0..2 {
        let db = Database::open(&path).unwrap();
        if round == 0 {
            assert!(db.recovery().replayed >= 8, "{:?}", db.recovery());
        } else {
            assert_eq!(db.recovery().replayed, 0);
        }
        let rows: Vec<String> = query(
            &db,
            "SELECT m, typeof(m), typeof(i), l, wide, enum_code(wide) FROM t ORDER BY m",
        )
        .iter()
        .map(|r| {
            r.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect();
        assert_eq!(
            rows,
            vec![
                "sad | ENUM('sad', 'ok', 'happy') | BIGINT | NULL | w0 | 0",
                "happy | ENUM('sad', 'ok', 'happy') | BIGINT | [b, a] | w299 | 299",
                "NULL | ENUM('sad', 'ok', 'happy') | BIGINT | [] | NULL | NULL",
            ],
            "round {round}"
        );
        assert_eq!(
            query(
                &db,
                "SELECT type_name, logical_type FROM duckdb_types() WHERE NOT internal ORDER BY 1"
            ),
            vec![
                vec![
                    ScalarValue::Varchar("id".into()),
                    ScalarValue::Varchar("BIGINT".into())
                ],
                vec![
                    ScalarValue::Varchar("mood".into()),
                    ScalarValue::Varchar("ENUM".into())
                ],
                vec![
                    ScalarValue::Varchar("w".into()),
                    ScalarValue::Varchar("ENUM".into())
                ],
            ]
        );
        // the type is still in use, and still the table's
        let conn = db.connect().unwrap();
        let e = conn.query("DROP TYPE mood").unwrap_err();
        assert!(
            e.message.contains("table \"t\" depends on type \"mood\""),
            "{e}"
        );
        exec(&db, "INSERT INTO t(m) VALUES ('ok'::mood)");
        exec(&db, "DELETE FROM t WHERE m = 'ok'");
        // not a label: an error when the row is read
        let e = conn
            .query("SELECT 'meh'::mood")
            .and_then(|r| r.rows().collect::<stride::Result<Vec<_>>>())
            .unwrap_err();
        assert!(e.message.contains("meh"), "{e}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn child_process_writer() {
    if let Ok(path) = std::env::var(CHILD) {
        match std::env::var("STRIDE_PERSISTENCE_MODE").as_deref() {
            Ok("changes") => child_changes(&path),
            Ok("sequences") => child_sequences(&path),
            Ok("types") => child_types(&path),
            _ => child_workload(&path),
        }
    }
}

#[test]
fn deletes_cut_stored_columns_of_every_codec() {
    let d = dir("cut");
    let path = path_in(&d);
    // Two row groups of columns in every codec, NULLs included: bit-packed (i, q),
    // run-length (k), dictionary (mode), FSST (comment), decimal floats (price),
    // plain (x), lists (l).
    let columns = "i, k, q, mode, comment, price, x, l";
    let rows = "SELECT i, i // 4 AS k, CASE WHEN i % 11 = 0 THEN NULL ELSE (i % 50)::DECIMAL(15, 2) END AS q, \
        CASE WHEN i % 13 = 0 THEN NULL ELSE ['AIR', 'MAIL', 'SHIP', 'a mode longer than twelve'][i % 4 + 1] END AS mode, \
        'carefully final deposits ' || (i * 7919 % 100000) || ' sleep quickly' AS comment, \
        (i % 1000) / 100.0 AS price, i / 3.0 AS x, CASE WHEN i % 5 = 0 THEN [i, NULL] END AS l \
        FROM range(250000) t(i)";
    let kept = |extra: &str| {
        format!("SELECT {columns} FROM ({rows}) WHERE i % 10 <> 7 {extra} ORDER BY i")
    };
    let summary = |from: &str| {
        format!(
            "SELECT count(*), sum(i), sum(k), sum(q), count(mode), count(DISTINCT mode), \
             max(comment), round(sum(price), 3), round(sum(x), 3), count(l), string_agg(comment, '' ORDER BY i) = \
             (SELECT string_agg(comment, '' ORDER BY i) FROM ({from})) FROM ({from})"
        )
    };
    {
        let db = Database::open(&path).unwrap();
        exec(&db, &format!("CREATE TABLE t AS {rows}"));
        exec(&db, "CHECKPOINT");
        exec(&db, "DELETE FROM t WHERE i % 10 = 7");
        let expected = query(&db, &summary(&kept("")));
        assert_eq!(query(&db, &summary("SELECT * FROM t")), expected);
        assert_eq!(
            query(
                &db,
                &format!("SELECT {columns} FROM t WHERE i BETWEEN 122000 AND 123000 ORDER BY i")
            ),
            query(&db, &kept("AND i BETWEEN 122000 AND 123000"))
        );
    }
    // The delete replays from the log, then a checkpoint writes the cut segments.
    for _ in 0..2 {
        let db = Database::open(&path).unwrap();
        let expected = query(&db, &summary(&kept("")));
        assert_eq!(query(&db, &summary("SELECT * FROM t")), expected);
        assert_eq!(
            query(&db, "PRAGMA integrity_check"),
            vec![vec![ScalarValue::Varchar("ok".into())]]
        );
        exec(&db, "CHECKPOINT");
    }
}

#[test]
fn updates_and_deletes_replay_from_the_log() {
    let d = dir("changes");
    let path = path_in(&d);
    run_child_until_done(&path, "changes");
    let check = |db: &Database| {
        assert_eq!(
            query(db, "SELECT typeof(v) FROM t LIMIT 1")[0][0],
            ScalarValue::Varchar("BIGINT".into())
        );
        let null = db
            .connect()
            .unwrap()
            .execute("UPDATE t SET label = NULL WHERE id = 1")
            .unwrap_err();
        assert!(null.message.contains("NOT NULL"), "{null}");
        let r = &query(
            db,
            "SELECT count(*), sum(v), count(*) FILTER (WHERE label = 'changed'), max(id), sum(w) FROM t",
        )[0];
        // Odd ids up to 199989, v = id except multiples of 3 (negated), plus row 0
        // and row 200001 (v = 3); row 1's v raised by 5.
        let odd: Vec<i64> = (1..=199989).step_by(2).collect();
        let sum: i64 = odd
            .iter()
            .map(|&i| if i % 3 == 0 { -i } else { i })
            .sum::<i64>()
            + 1_000_000
            + 8;
        let changed = odd.iter().filter(|&&i| i % 3 == 0).count() as i64;
        assert_eq!(
            (int(&r[0]), int(&r[1]), int(&r[2]), int(&r[3]), int(&r[4])),
            (
                odd.len() as i64 + 2,
                sum,
                changed,
                200001,
                7 * (odd.len() as i64 + 2)
            )
        );
    };
    let db = Database::open(&path).unwrap();
    assert!(db.recovery().replayed >= 5, "{:?}", db.recovery());
    check(&db);
    let conn = db.connect().unwrap();
    let dup = conn
        .execute("INSERT INTO t VALUES (1, 'dup', 1, 1)")
        .unwrap_err();
    assert!(dup.message.contains("Duplicate key"), "{dup}");
    drop(conn);
    drop(db);
    // And once more from the checkpoint written at close.
    let db = Database::open(&path).unwrap();
    assert_eq!(db.recovery().replayed, 0);
    check(&db);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_damaged_log_record_keeps_the_commits_before_it_and_a_copy_of_the_rest() {
    let d = dir("wal-damage");
    let path = path_in(&d);
    run_child_until_done(&path, "changes");
    // The log's records: a 52-byte header, then each commit's length, checksum and
    // payload. Damage the second commit's payload.
    let wal = format!("{path}.wal");
    let mut bytes = std::fs::read(&wal).unwrap();
    let mut records = Vec::new();
    let mut at = 52;
    loop {
        let n = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        if n == 0 {
            break;
        }
        records.push(at);
        at += 8 + n;
    }
    assert!(records.len() >= 5, "{records:?}");
    bytes[records[1] + 20] ^= 0x01;
    std::fs::write(&wal, &bytes).unwrap();

    // Attached, the damage is a note on ATTACH (and the copy is kept).
    let other = Database::open_in_memory().unwrap();
    let conn = other.connect().unwrap();
    let r = conn
        .execute(&format!("ATTACH '{path}' AS damaged"))
        .unwrap();
    let notes = r.notes();
    assert!(
        notes.len() == 1
            && notes[0].contains("commit 2 fails its checksum")
            && notes[0].contains(&format!("and {} commit(s) (", records.len() - 1))
            && notes[0].contains(".wal.damaged"),
        "{notes:?}"
    );
    assert_eq!(std::fs::read(format!("{wal}.damaged")).unwrap(), bytes);
    // The first commit (the DELETE) is there, nothing after it.
    assert_eq!(
        int(&query(&other, "SELECT count(*) FROM damaged.t")[0][0]),
        100_000
    );
    assert_eq!(
        query(&other, "PRAGMA integrity_check"),
        vec![vec![ScalarValue::Varchar("ok".into())]]
    );
    drop(conn);
    drop(other);
    // Cut back and checkpointed at detach: the next open finds nothing to report.
    let db = Database::open(&path).unwrap();
    assert_eq!(db.recovery().warning(&path), None);
    assert_eq!(int(&query(&db, "SELECT count(*) FROM t")[0][0]), 100_000);
    let _ = std::fs::remove_dir_all(&d);
}

/// Runs this test binary as a child writing in `mode` (`child_process_writer`), waits
/// for it to say it is done, and kills it: a crash with nothing checkpointed.
fn run_child_until_done(path: &str, mode: &str) {
    let mut child = child_command(path)
        .env("STRIDE_PERSISTENCE_MODE", mode)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    while !lines.next().unwrap().unwrap().contains("STRIDE-DONE") {}
    child.kill().unwrap();
    child.wait().unwrap();
}

/// This test binary, to run only `child_process_writer` on the database at `path`.
fn child_command(path: &str) -> Command {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args([
        "--exact",
        "persistence::child_process_writer",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(CHILD, path);
    c
}

fn spawn_child(path: &str) -> std::process::Child {
    child_command(path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// What a child that stopped early wrote to stderr, for the failure message.
fn child_stderr(child: &mut std::process::Child) -> String {
    let _ = child.kill();
    let _ = child.wait();
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut err);
    }
    err
}

#[test]
fn commits_survive_sigkill_and_torn_logs_are_cut_back() {
    let d = dir("crash");
    let path = path_in(&d);
    let mut acked: i64 = -1;
    let mut seed: u64 = 0x9e3779b97f4a7c15;
    for round in 0..12 {
        let mut child = spawn_child(&path);
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        loop {
            match rx.recv_timeout(Duration::from_secs(60)) {
                Ok(line) if line.contains("STRIDE-READY") => break,
                Ok(_) => {}
                Err(e) => panic!(
                    "round {round}: the writer stopped before it was ready ({e:?}); its stderr:\n{}",
                    child_stderr(&mut child)
                ),
            }
        }
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        std::thread::sleep(Duration::from_millis(20 + seed % 300));
        child.kill().unwrap();
        child.wait().unwrap();
        while let Ok(line) = rx.recv_timeout(Duration::from_millis(200)) {
            if let Some(at) = line.find("STRIDE-ACK ") {
                let n: String = line[at + 11..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                acked = acked.max(n.parse().unwrap());
            }
        }
        // Every third round, a torn append: garbage after the last record. (Unless the
        // kill came between a checkpoint and the reset of the log, which then names an
        // older checkpoint and is dropped whole.)
        let wal = format!("{path}.wal");
        let current = {
            let (w, d) = (std::fs::read(&wal).unwrap(), std::fs::read(&path).unwrap());
            let at = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
            w.len() >= 24 && at(&w, 16) == at(&d, 16).max(at(&d, 4096 + 16))
        };
        if round % 3 == 2 && current {
            // The start of a record of 1,000 bytes, cut short, where the log ends.
            let mut bytes = std::fs::read(&wal).unwrap();
            let mut at = 52;
            while at + 8 <= bytes.len() {
                let n = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
                if n == 0 {
                    break;
                }
                at += 8 + n;
            }
            bytes.resize(bytes.len().max(at + 45), 0);
            bytes[at..at + 4].copy_from_slice(&1000u32.to_le_bytes());
            bytes[at + 8..at + 45].fill(7);
            std::fs::write(&wal, &bytes).unwrap();
        }
        let db = Database::open(&path).unwrap();
        if round % 3 == 2 && current {
            let r = db.recovery();
            assert!(
                r.cut_bytes >= 37 && r.dropped == 1 && r.damage.is_none(),
                "{r:?}"
            );
        }
        // Whole commits only, every acknowledged one, numbered without gaps.
        let rows = query(
            &db,
            "SELECT commit_no, count(*), min(k), max(k) FROM log GROUP BY commit_no ORDER BY commit_no",
        );
        for (i, r) in rows.iter().enumerate() {
            let n = int(&r[0]);
            let want = if n % 5 == 4 { 130_000 } else { 1 + n % 50 };
            assert_eq!(n, i as i64, "commits are numbered without gaps");
            assert_eq!(
                (int(&r[1]), int(&r[2]), int(&r[3])),
                (want, 0, want - 1),
                "commit {n} is whole"
            );
        }
        assert!(
            rows.len() as i64 > acked,
            "round {round}: {} commits found, {acked} acknowledged",
            rows.len()
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn another_process_holding_the_file_is_named() {
    let d = dir("lock");
    let path = path_in(&d);
    let mut child = spawn_child(&path);
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    while !lines.next().unwrap().unwrap().contains("STRIDE-READY") {}
    let e = Database::open(&path).unwrap_err();
    assert!(
        e.message.contains("conflicting lock") && e.message.contains(&child.id().to_string()),
        "{e}"
    );
    let e = Database::open_read_only(&path).unwrap_err();
    assert!(e.message.contains("conflicting lock"), "{e}");
    child.kill().unwrap();
    child.wait().unwrap();
    // Once it is gone, the file opens (read-only too), with what it committed.
    let db = Database::open_read_only(&path).unwrap();
    assert!(db
        .connect()
        .unwrap()
        .execute("INSERT INTO log VALUES (0, 0)")
        .is_err());
    drop(db);
    let _ = std::fs::remove_dir_all(&d);
}
