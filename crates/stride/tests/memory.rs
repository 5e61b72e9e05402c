//! Bounded memory: under a small `memory_limit` a hash aggregate spills its groups to
//! `temp_directory` and gives the same answer as without a limit; what cannot spill
//! fails with an Out of Memory Error, and the connection and database go on working.

use stride::{Connection, Database, ErrorKind, ScalarValue};
use stride_common::memory::MemoryTag;

fn rows(conn: &Connection, sql: &str) -> Vec<Vec<ScalarValue>> {
    let r = conn.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    r.rows().map(|r| r.unwrap()).collect()
}

fn spilled(db: &Database) -> u64 {
    db.memory().spilled_total()
}

/// The same query under the default limit and under `limit`; the second must spill.
fn same_when_spilling(sql: &str, limit: &str) {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect().unwrap();
    let expected = rows(&conn, sql);
    assert_eq!(spilled(&db), 0, "spilled without a limit");
    conn.execute(&format!("SET memory_limit = '{limit}'"))
        .unwrap();
    for threads in [1, 2] {
        conn.execute(&format!("SET threads = {threads}")).unwrap();
        let before = spilled(&db);
        let got = rows(&conn, sql);
        assert!(
            spilled(&db) > before,
            "{sql}: nothing spilled under {limit}"
        );
        assert_eq!(got, expected, "{sql} with {threads} threads under {limit}");
    }
    // Everything reserved was given back.
    assert_eq!(db.memory().used(), 0);
}

#[test]
fn grouping_many_integer_keys_spills_and_agrees() {
    same_when_spilling(
        "SELECT count(*), sum(k), sum(c), sum(s), min(lo), max(hi), sum(a) FROM (
             SELECT x % 400000 AS k, count(*) AS c, sum(x) AS s, min(x) AS lo, max(x) AS hi,
                    avg(x)::BIGINT AS a
             FROM range(1200000) t(x) GROUP BY k)",
        "8MB",
    );
}

#[test]
fn grouping_string_and_null_keys_spills_and_agrees() {
    same_when_spilling(
        "SELECT k1, k2, count(*), sum(v), string_agg(DISTINCT tag, ',') FROM (
             SELECT k1, k2, count(*) AS n, sum(x) AS v, min(t) AS tag FROM (
                 SELECT CASE WHEN x % 7 = 0 THEN NULL ELSE 'key-' || (x % 150000) END AS k1,
                        x % 3 AS k2, x, 't' || (x % 5) AS t
                 FROM range(600000) r(x))
             GROUP BY k1, k2)
         GROUP BY ALL ORDER BY ALL LIMIT 50",
        "8MB",
    );
}

#[test]
fn a_distinct_aggregate_that_does_not_fit_fails_cleanly() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect().unwrap();
    conn.execute("SET memory_limit = '2MB'").unwrap();
    let e = conn
        .query("SELECT x % 10, count(DISTINCT x) FROM range(2000000) t(x) GROUP BY 1")
        .and_then(|r| r.rows().collect::<Result<Vec<_>, _>>())
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfMemory, "{e}");
    assert!(
        e.to_string()
            .starts_with("Out of Memory Error: the hash aggregate could not reserve"),
        "{e}"
    );
    assert!(e.message.contains("memory_limit is 1.9 MiB"), "{e}");
    // Nothing stays reserved, and the connection goes on.
    assert_eq!(db.memory().used(), 0);
    conn.execute("RESET memory_limit").unwrap();
    let r = rows(&conn, "SELECT count(DISTINCT x) FROM range(100000) t(x)");
    assert_eq!(r[0][0], ScalarValue::BigInt(100000));
}

#[test]
fn no_temp_directory_means_no_spilling() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect().unwrap();
    conn.execute("SET memory_limit = '4MB'").unwrap();
    conn.execute("SET temp_directory = ''").unwrap();
    let e = conn
        .query("SELECT x, count(*) FROM range(1000000) t(x) GROUP BY x")
        .and_then(|r| r.rows().collect::<Result<Vec<_>, _>>())
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfMemory, "{e}");
    assert!(e.message.contains("temp_directory is empty"), "{e}");
}

#[test]
fn spill_files_go_to_temp_directory_and_are_gone_after() {
    let dir = std::env::temp_dir().join(format!("stride-spill-{}", std::process::id()));
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect().unwrap();
    conn.execute("SET memory_limit = '6MB'").unwrap();
    conn.execute(&format!("SET temp_directory = '{}'", dir.display()))
        .unwrap();
    assert_eq!(
        rows(&conn, "SELECT current_setting('temp_directory')")[0][0],
        ScalarValue::Varchar(dir.display().to_string())
    );
    let r = rows(
        &conn,
        "SELECT count(*) FROM (SELECT x, count(*) FROM range(800000) t(x) GROUP BY x)",
    );
    assert_eq!(r[0][0], ScalarValue::BigInt(800000));
    assert!(spilled(&db) > 0);
    assert!(dir.is_dir(), "spilled elsewhere");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "a spill file stayed"
    );
    assert_eq!(db.memory().spilled(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn stride_memory_lists_every_part() {
    let dir = std::env::temp_dir().join(format!("stride-memory-fn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.stride");
    let db = Database::open(path.to_str().unwrap()).unwrap();
    let conn = db.connect().unwrap();
    conn.execute("CREATE TABLE t AS SELECT range AS x FROM range(300000)")
        .unwrap();
    conn.execute("CHECKPOINT").unwrap();
    rows(&conn, "SELECT sum(x) FROM t");
    let parts = rows(
        &conn,
        "SELECT part, memory_usage_bytes, temporary_storage_bytes FROM stride_memory()",
    );
    let names: Vec<String> = parts.iter().map(|r| r[0].to_string()).collect();
    assert_eq!(
        names,
        [
            "in-memory tables",
            "buffer pool",
            "hash aggregate",
            "hash join",
            "sort",
            "window",
            "set operation",
            "materialized rows",
            "total"
        ]
    );
    // The checkpoint moved the table into the file; the scanned column is cached; no
    // query is running, so no operator holds memory.
    let bytes = |r: &Vec<ScalarValue>| match r[1] {
        ScalarValue::BigInt(b) => b,
        _ => -1,
    };
    assert_eq!(bytes(&parts[0]), 0, "{parts:?}");
    assert!(bytes(&parts[1]) > 0, "{parts:?}");
    assert!(parts[2..8].iter().all(|r| bytes(r) == 0), "{parts:?}");
    assert_eq!(bytes(&parts[8]), bytes(&parts[1]));
    assert_eq!(parts[8][2], ScalarValue::BigInt(0));
    let base = rows(
        &conn,
        "SELECT memory_usage_bytes FROM duckdb_memory() WHERE tag = 'BASE_TABLE'",
    );
    assert!(matches!(base[0][0], ScalarValue::BigInt(b) if b >= bytes(&parts[1])));
    drop(conn);
    drop(db);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An in-memory table's values count against memory_limit from the statement that
/// made them, and leave it with the table. Tables larger than the limit leave
/// operators a quarter of it, so they still spill and answer.
#[test]
fn in_memory_tables_count_against_the_limit() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect().unwrap();
    let tables = || db.memory().used_by(MemoryTag::InMemoryTables);
    assert_eq!(tables(), 0);
    conn.execute(
        "CREATE TABLE t AS SELECT x, x % 350000 AS k, 'value ' || x AS s FROM range(1000000) r(x)",
    )
    .unwrap();
    let made = tables();
    // 8-byte integers twice and 16-byte string views, at the least.
    assert!(made >= 32_000_000, "{made} bytes counted");
    conn.execute("INSERT INTO t SELECT * FROM t").unwrap();
    assert!(
        tables() >= 2 * made - made / 10,
        "{} after doubling {made}",
        tables()
    );
    let listed = rows(
        &conn,
        "SELECT memory_usage_bytes FROM stride_memory() WHERE part = 'in-memory tables'",
    );
    assert_eq!(listed[0][0], ScalarValue::BigInt(tables() as i64));
    // PRAGMA database_size's memory_usage is everything memory_limit bounds.
    let size = rows(&conn, "PRAGMA database_size");
    assert!(size[0][7].to_string().contains("MiB"), "{:?}", size[0]);
    let sql = "SELECT count(*), sum(c), sum(m) FROM (SELECT k, count(*) AS c, max(length(s)) AS m FROM t GROUP BY k)";
    let expected = rows(&conn, sql);
    // A limit below the table: the aggregate spills within a quarter of it.
    conn.execute("SET memory_limit = '40MB'").unwrap();
    let before = db.memory().spilled_total();
    assert_eq!(rows(&conn, sql), expected);
    assert!(db.memory().spilled_total() > before, "nothing spilled");
    conn.execute("DROP TABLE t").unwrap();
    assert_eq!(tables(), 0);
}

/// In-memory tables past a quarter of `memory_limit` are kept compressed (as a
/// database file keeps them), and answer every query, change and filter as the
/// same tables decoded do.
#[test]
fn in_memory_tables_past_a_quarter_of_the_limit_are_compressed() {
    let make = "CREATE TABLE t AS SELECT x, x % 1000 AS k, 'value ' || (x % 100) AS s, \
                x / 4 AS d, CASE WHEN x % 7 = 0 THEN NULL ELSE x % 13 END AS n \
                FROM range(1000000) r(x)";
    let plain = Database::open_in_memory().unwrap();
    let p = plain.connect().unwrap();
    p.execute(make).unwrap();
    let small = Database::open_in_memory().unwrap();
    let c = small.connect().unwrap();
    c.execute("SET memory_limit = '64MB'").unwrap();
    c.execute(make).unwrap();
    let held = |db: &Database| db.memory().used_by(MemoryTag::InMemoryTables);
    assert!(held(&plain) > 16 << 20, "{} bytes", held(&plain));
    assert!(
        held(&small) * 4 < held(&plain),
        "compressed {} against {}",
        held(&small),
        held(&plain)
    );
    // Every full row group is kept compressed, outside the file: the last one
    // (1,000,000 rows are 8 groups and a part) stays as it is for appends.
    let info = "SELECT count(*) FILTER (WHERE compression <> 'Uncompressed'), \
                count(*) FILTER (WHERE persistent) FROM pragma_storage_info('t')";
    assert_eq!(
        rows(&c, info),
        vec![vec![ScalarValue::BigInt(8 * 5), ScalarValue::BigInt(0)]]
    );
    assert_eq!(
        rows(&p, info),
        vec![vec![ScalarValue::BigInt(0), ScalarValue::BigInt(0)]]
    );
    let queries = [
        "SELECT count(*), sum(x), sum(d), count(n), sum(n) FROM t",
        "SELECT k, count(*), min(s), max(s), sum(n) FROM t GROUP BY k ORDER BY k LIMIT 20",
        "SELECT * FROM t WHERE x BETWEEN 500000 AND 500010 ORDER BY x",
        "SELECT count(*) FROM t WHERE s = 'value 42' AND n IS NULL",
        "SELECT s, count(*) FROM t WHERE k < 3 GROUP BY s ORDER BY s LIMIT 5",
    ];
    let same = |when: &str| {
        for q in queries {
            // Scanned several times: compressed at first, then decoded by the pool.
            for _ in 0..3 {
                assert_eq!(rows(&c, q), rows(&p, q), "{q} ({when})");
            }
        }
    };
    same("as made");
    for change in [
        "DELETE FROM t WHERE x % 3 = 0",
        "UPDATE t SET k = k + 1, s = 'changed' WHERE x % 1000 = 1",
        "INSERT INTO t SELECT x, 1, 'new', 0, NULL FROM range(1000000, 1300000) r(x)",
        "ALTER TABLE t ADD COLUMN e INTEGER DEFAULT 5",
    ] {
        p.execute(change).unwrap();
        c.execute(change).unwrap();
        same(change);
    }
    assert_eq!(
        rows(&c, "SELECT sum(e) FROM t"),
        rows(&p, "SELECT sum(e) FROM t")
    );
    assert!(held(&small) * 4 < held(&plain));
}

/// Rows an operator holds count as their own bytes, not as the whole string buffers
/// of the row group they were scanned from: a RIGHT join keeps its output (of 100
/// chunks here, each pointing into its row group's 7 MB of strings), and counting each
/// chunk's buffers whole once reserved 4.1 GiB for 1.5M rows of TPC-H's `o_comment`.
#[test]
fn held_rows_count_their_own_bytes_not_their_scans_buffers() {
    let db = Database::open_in_memory().unwrap();
    let conn = db.connect().unwrap();
    conn.execute(
        "CREATE TABLE o AS SELECT x % 10000 AS k, repeat('abcdef', 10) || x::VARCHAR AS s FROM range(200000) r(x)",
    )
    .unwrap();
    conn.execute("CREATE TABLE c AS SELECT x AS k FROM range(20000) r(x)")
        .unwrap();
    let plan = rows(
        &conn,
        "EXPLAIN (ANALYZE, FORMAT json) SELECT count(s) FROM c LEFT JOIN o ON c.k = o.k AND length(o.s) > 0",
    );
    let text = plan[0].last().unwrap().to_string();
    let at = text.find("\"peak_memory_bytes\": ").expect("a peak") + 21;
    let peak: u64 = text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap();
    // 200,000 rows of views, 66-byte strings and keys: about 20 MB.
    assert!(peak < 100 << 20, "peak {peak} bytes");
    assert_eq!(
        rows(
            &conn,
            "SELECT count(s) FROM c LEFT JOIN o ON c.k = o.k AND length(o.s) > 0"
        ),
        vec![vec![ScalarValue::BigInt(200000)]]
    );
}
