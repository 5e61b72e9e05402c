//! What a database file stores reads back as it was written: values of every type
//! through the write-ahead log, a checkpoint's compressed segments and zone maps,
//! and reopening; rows added to a stored table; bulk loads encoded as they are read.
//! (Crashes, failed writes and damaged files are `persistence.rs`'s.)

use crate::persistence::{dir, exec, int, path_in, query};
use stride::Database;

/// The rows of `sql` as text, values separated by " | ".
fn text_rows(db: &Database, sql: &str) -> Vec<String> {
    query(db, sql)
        .iter()
        .map(|r| {
            r.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect()
}

/// Runs `setup` on a new database file, then `check`s the database three times: in
/// the session that wrote it, reopened from the write-ahead log, and reopened after a
/// checkpoint (rows read back from compressed segments, filters through zone maps);
/// the file then passes the integrity check.
fn survives_the_log_and_a_checkpoint(name: &str, setup: &[&str], check: impl Fn(&Database)) {
    let d = dir(name);
    let path = path_in(&d);
    {
        let db = Database::open(&path).unwrap();
        for sql in setup {
            exec(&db, sql);
        }
        check(&db);
    }
    let db = Database::open(&path).unwrap();
    check(&db);
    exec(&db, "CHECKPOINT");
    drop(db);
    let db = Database::open(&path).unwrap();
    check(&db);
    assert_eq!(query(&db, "PRAGMA integrity_check")[0][0].to_string(), "ok");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn hugeint_uuid_and_time_survive_the_log_and_checkpoints() {
    survives_the_log_and_a_checkpoint(
        "new-types",
        &[
            "CREATE TABLE t(k INTEGER, h HUGEINT, u UUID, t TIME)",
            "INSERT INTO t VALUES \
             (0, 170141183460469231731687303715884105727, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '10:00:00.5'), \
             (1, -170141183460469231731687303715884105727 - 1, NULL, '24:00:00'), \
             (2, NULL, '{FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF}', NULL)",
            // a bulk load: row groups written at once, their extents logged
            "INSERT INTO t SELECT i + 3, i, gen_random_uuid(), make_time(i % 24, i % 60, 0) \
             FROM range(200000) r(i)",
        ],
        |db| {
            assert_eq!(
                text_rows(db, "SELECT h, u, t FROM t WHERE k < 3 ORDER BY k"),
                [
                    "170141183460469231731687303715884105727 | a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 | 10:00:00.5",
                    "-170141183460469231731687303715884105728 | NULL | 24:00:00",
                    "NULL | ffffffff-ffff-ffff-ffff-ffffffffffff | NULL",
                ]
            );
            assert_eq!(
                text_rows(
                    db,
                    "SELECT count(*), count(DISTINCT u), sum(h), min(t), max(t), \
                     count(*) FILTER (WHERE t > TIME '12:00:00'), \
                     count(*) FILTER (WHERE u = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11') FROM t",
                ),
                ["200003 | 200002 | 19999899999 | 00:00:00 | 24:00:00 | 98330 | 1"]
            );
        },
    );
}

#[test]
fn unsigned_integers_survive_the_log_and_checkpoints() {
    survives_the_log_and_a_checkpoint(
        "unsigned",
        &[
            "CREATE TABLE u(k INTEGER, a UTINYINT, b USMALLINT, c UINTEGER, d UBIGINT)",
            "INSERT INTO u VALUES (0, 255, 65535, 4294967295, 18446744073709551615), \
             (1, NULL, NULL, NULL, NULL)",
            "INSERT INTO u SELECT i + 2, i % 256, i % 65536, i * 1000, i * 100000 FROM range(100000) r(i)",
        ],
        |db| {
            assert_eq!(
                text_rows(db, "SELECT a, b, c, d, typeof(d) FROM u WHERE k < 2 ORDER BY k"),
                [
                    "255 | 65535 | 4294967295 | 18446744073709551615 | UBIGINT",
                    "NULL | NULL | NULL | NULL | UBIGINT"
                ]
            );
            // a filter on the stored column uses its zone maps, in the unsigned range
            assert_eq!(
                text_rows(
                    db,
                    "SELECT count(*), sum(a), sum(d), count(*) FILTER (WHERE d > 18446744073709551000) FROM u",
                ),
                ["100002 | 12742575 | 18447244068709551615 | 1"]
            );
        },
    );
}

#[test]
fn timestamp_units_and_timetz_survive_the_log_and_checkpoints() {
    survives_the_log_and_a_checkpoint(
        "timestamp_units",
        &[
            "CREATE TABLE t(k INTEGER, s TIMESTAMP_S, ms TIMESTAMP_MS, ns TIMESTAMP_NS, tz TIMETZ)",
            "INSERT INTO t VALUES (0, '2024-01-01 10:00:00.6', '2024-01-01 10:00:00.123', '2024-01-01 10:00:00.123456789', '10:00:00+02'), \
             (1, NULL, NULL, NULL, NULL), (2, 'infinity', '-infinity', '1677-09-22 00:00:00.000000001', '23:59:59.999999-15:59')",
            "INSERT INTO t SELECT i + 3, NULL, NULL, '2000-01-01'::TIMESTAMP_NS + to_microseconds(i), NULL FROM range(100000) r(i)",
        ],
        |db| {
            assert_eq!(
                text_rows(
                    db,
                    "SELECT s::VARCHAR, ms::VARCHAR, ns::VARCHAR, typeof(ns), tz::VARCHAR FROM t WHERE k < 3 ORDER BY k",
                ),
                [
                    "2024-01-01 10:00:01 | 2024-01-01 10:00:00.123 | 2024-01-01 10:00:00.123456789 | TIMESTAMP_NS | 10:00:00+02",
                    "NULL | NULL | NULL | TIMESTAMP_NS | NULL",
                    "infinity | -infinity | 1677-09-22 00:00:00.000000001 | TIMESTAMP_NS | 23:59:59.999999-15:59"
                ]
            );
            // a filter on the stored nanoseconds (zone maps over the i64 values)
            assert_eq!(
                text_rows(
                    db,
                    "SELECT count(*) FROM t WHERE ns >= '2000-01-01 00:00:00.050000001'::TIMESTAMP_NS",
                ),
                ["50000"]
            );
        },
    );
}

#[test]
fn uhugeint_survives_the_log_and_checkpoints() {
    survives_the_log_and_a_checkpoint(
        "uhugeint",
        &[
            "CREATE TABLE t(k INTEGER, u UHUGEINT)",
            "INSERT INTO t VALUES (0, 340282366920938463463374607431768211455), (1, NULL), (2, 0)",
            "INSERT INTO t SELECT i + 3, i::UHUGEINT * 18446744073709551616 FROM range(100000) r(i)",
        ],
        |db| {
            assert_eq!(
                text_rows(db, "SELECT u::VARCHAR, typeof(u) FROM t WHERE k < 3 ORDER BY k"),
                [
                    "340282366920938463463374607431768211455 | UHUGEINT",
                    "NULL | UHUGEINT",
                    "0 | UHUGEINT"
                ]
            );
            // a filter on the stored column: zone maps over the flipped stored values
            assert_eq!(
                text_rows(
                    db,
                    "SELECT count(*), max(u)::VARCHAR FROM t WHERE u >= 50000::UHUGEINT * 18446744073709551616",
                ),
                ["50001 | 340282366920938463463374607431768211455"]
            );
        },
    );
}

#[test]
fn unions_survive_the_log_and_checkpoints() {
    survives_the_log_and_a_checkpoint(
        "unions",
        &[
            "CREATE TABLE t(k INTEGER, u UNION(num INTEGER, str VARCHAR))",
            "INSERT INTO t VALUES (0, 1), (1, NULL), (2, 'two')",
            "INSERT INTO t SELECT i + 3, CASE WHEN i % 2 = 0 THEN union_value(num := i::INTEGER) ELSE union_value(str := i::VARCHAR) END FROM range(100000) r(i)",
        ],
        |db| {
            assert_eq!(
                text_rows(db, "SELECT u::VARCHAR, union_tag(u)::VARCHAR, typeof(u) FROM t WHERE k < 3 ORDER BY k"),
                [
                    "1 | num | UNION(num INTEGER, str VARCHAR)",
                    "NULL | NULL | UNION(num INTEGER, str VARCHAR)",
                    "two | str | UNION(num INTEGER, str VARCHAR)"
                ]
            );
            assert_eq!(
                text_rows(db, "SELECT union_tag(u)::VARCHAR, count(*), max(u.num) FROM t WHERE k >= 3 GROUP BY ALL ORDER BY 1"),
                ["num | 50000 | 99998", "str | 50000 | NULL"]
            );
        },
    );
}

#[test]
fn timestamptz_survives_the_log_and_checkpoints() {
    // the instants are stored; each session shows them in its own zone
    let rows = |db: &Database, zone: &str| -> Vec<String> {
        let conn = db.connect().unwrap();
        conn.execute(&format!("SET TimeZone = '{zone}'")).unwrap();
        let r = conn
            .query(
                "SELECT ts::VARCHAR, count(*) OVER (), min(ts) OVER ()::VARCHAR FROM t \
                 WHERE ts >= TIMESTAMPTZ '2024-01-01 00:00:00+00' AND k < 3 ORDER BY k",
            )
            .unwrap();
        r.rows()
            .map(|r| {
                r.unwrap()
                    .iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    survives_the_log_and_a_checkpoint(
        "timestamptz",
        &[
            "CREATE TABLE t(k INTEGER, ts TIMESTAMP WITH TIME ZONE)",
            "SET TimeZone = 'America/New_York'; INSERT INTO t VALUES \
             (0, '2024-03-10 02:30:00'), (1, '2024-11-03 01:30:00.25'), (2, NULL)",
            "INSERT INTO t SELECT i + 3, TIMESTAMPTZ '2000-01-01 00:00:00+00' + i * INTERVAL 1 SECOND \
             FROM range(100000) r(i)",
        ],
        |db| {
            assert_eq!(
                rows(db, "UTC"),
                [
                    "2024-03-10 07:30:00+00 2 2024-03-10 07:30:00+00",
                    "2024-11-03 06:30:00.25+00 2 2024-03-10 07:30:00+00",
                ]
            );
            assert_eq!(
                rows(db, "America/New_York"),
                [
                    "2024-03-10 03:30:00-04 2 2024-03-10 03:30:00-04",
                    "2024-11-03 01:30:00.25-05 2 2024-03-10 03:30:00-04",
                ]
            );
            assert_eq!(
                text_rows(
                    db,
                    "SELECT typeof(ts), count(*) FROM t \
                     WHERE ts < TIMESTAMPTZ '2000-01-01 00:00:10+00' GROUP BY 1",
                ),
                ["TIMESTAMP WITH TIME ZONE | 10"]
            );
        },
    );
}

#[test]
fn rows_added_after_reading_an_all_null_column_keep_their_values() {
    let d = dir("all-null");
    let path = path_in(&d);
    {
        let db = Database::open(&path).unwrap();
        exec(&db, "CREATE TABLE t(a INTEGER, b INTEGER)");
        exec(&db, "INSERT INTO t VALUES (1, NULL), (2, NULL), (3, NULL)");
    }
    let db = Database::open(&path).unwrap();
    exec(&db, "INSERT INTO t VALUES (4, 40)");
    exec(&db, "UPDATE t SET b = 20 WHERE a = 2");
    let rows: Vec<String> = query(&db, "SELECT a, b FROM t ORDER BY a")
        .iter()
        .map(|r| format!("{} {}", r[0], r[1]))
        .collect();
    assert_eq!(rows, vec!["1 NULL", "2 20", "3 NULL", "4 40"]);
    drop(db);
    let _ = std::fs::remove_dir_all(&d);
}

/// Bulk loads into a file encode each morsel's rows as they are read
/// (`bulk_load.rs`): NOT NULL is checked before anything is written, unique keys
/// still hold, a transaction's load rolls back, and the rows survive reopening,
/// including a last morsel too short for a row group of its own.
#[test]
fn bulk_loads_into_a_file_check_constraints_and_survive_reopening() {
    let d = dir("bulk-load");
    let path = path_in(&d);
    let sums = "SELECT count(*), sum(i), count(DISTINCT s), min(s), max(s) FROM t";
    let expected;
    {
        let db = Database::open(&path).unwrap();
        let conn = db.connect().unwrap();
        exec(&db, "CREATE TABLE t(i BIGINT NOT NULL, s VARCHAR)");
        let err = conn
            .execute("INSERT INTO t SELECT CASE WHEN i = 200000 THEN NULL ELSE i END, 'v' || (i % 1000) FROM range(250000) r(i)")
            .unwrap_err();
        assert!(
            err.to_string().contains("NOT NULL constraint failed: t.i"),
            "{err}"
        );
        assert_eq!(int(&query(&db, "SELECT count(*) FROM t")[0][0]), 0);
        // Nothing was logged either: the files as a crash now would leave them.
        let crashed = dir("bulk-load-crashed");
        for ext in ["", ".wal"] {
            std::fs::copy(
                format!("{path}{ext}"),
                format!("{}{ext}", path_in(&crashed)),
            )
            .unwrap();
        }
        let copy = Database::open(&path_in(&crashed)).unwrap();
        assert_eq!(int(&query(&copy, "SELECT count(*) FROM t")[0][0]), 0);
        drop(copy);
        let _ = std::fs::remove_dir_all(&crashed);
        exec(
            &db,
            "INSERT INTO t SELECT i, 'v' || (i % 1000) FROM range(250000) r(i)",
        );
        conn.execute("BEGIN").unwrap();
        conn.execute("INSERT INTO t SELECT i, 'rolled back' FROM range(200000) r(i)")
            .unwrap();
        conn.execute("ROLLBACK").unwrap();
        exec(
            &db,
            "CREATE TABLE c AS SELECT i, 'c' || (i % 7) AS s FROM range(250000) r(i)",
        );
        exec(&db, "CREATE TABLE k(i BIGINT PRIMARY KEY)");
        exec(&db, "INSERT INTO k SELECT i FROM range(250000) r(i)");
        let err = conn
            .execute("INSERT INTO k SELECT i + 249999 FROM range(200000) r(i)")
            .unwrap_err();
        assert!(err.to_string().contains("Duplicate key"), "{err}");
        expected = format!("{:?}", query(&db, sums));
        assert_eq!(expected, format!("{:?}", query(&db, "SELECT count(*), sum(i), count(DISTINCT s), min(s), max(s) FROM (SELECT i, 'v' || (i % 1000) AS s FROM range(250000) r(i))")));
        // The loaded rows are stored segments, not values held in memory.
        let stored = query(
            &db,
            "SELECT count(*) FROM pragma_storage_info('t') WHERE persistent",
        );
        assert!(int(&stored[0][0]) > 0);
    }
    let db = Database::open(&path).unwrap();
    assert_eq!(format!("{:?}", query(&db, sums)), expected);
    let c = query(&db, "SELECT count(*), sum(i), count(DISTINCT s) FROM c");
    assert_eq!(
        (int(&c[0][0]), int(&c[0][1]), int(&c[0][2])),
        (250000, 31249875000, 7)
    );
    assert_eq!(int(&query(&db, "SELECT count(*) FROM k")[0][0]), 250000);
    drop(db);
    let _ = std::fs::remove_dir_all(&d);
}
