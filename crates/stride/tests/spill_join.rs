//! Hash joins under `memory_limit`: a build side that does not fit spills to disk
//! (a grace hash join) and every join kind answers as it does with room, at one
//! thread and at two; a build side of one key that cannot fit fails with an Out of
//! Memory Error, and the connection goes on.

use stride::{Connection, Database, ErrorKind, ScalarValue};
use stride_common::memory::MemoryTag;

fn conn(threads: usize) -> Connection {
    let c = Database::open_in_memory().unwrap().connect().unwrap();
    c.execute(&format!("SET threads = {threads}")).unwrap();
    c
}

fn rows(conn: &Connection, sql: &str) -> Vec<Vec<ScalarValue>> {
    let r = conn.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let mut rows: Vec<Vec<ScalarValue>> = r.rows().map(|r| r.unwrap()).collect();
    rows.sort_by_cached_key(|r| format!("{r:?}"));
    rows
}

fn spilled(conn: &Connection) -> u64 {
    conn.buffer_pool().accountant().spilled_total()
}

/// Each query answers under `limit` as it does with room (the default limit); those
/// in `spills` write to disk to do so.
fn same_under_limit(conn: &Connection, limit: &str, spills: &[&str], others: &[&str]) {
    for (sql, must_spill) in spills
        .iter()
        .map(|q| (q, true))
        .chain(others.iter().map(|q| (q, false)))
    {
        conn.execute("RESET memory_limit").unwrap();
        let expected = rows(conn, sql);
        conn.execute(&format!("SET memory_limit = '{limit}'"))
            .unwrap();
        let before = spilled(conn);
        let got = rows(conn, sql);
        assert_eq!(got, expected, "{sql} under {limit}");
        if must_spill {
            assert!(spilled(conn) > before, "{sql} did not spill under {limit}");
        }
        let accountant = conn.buffer_pool().accountant();
        assert_eq!(
            accountant.used_by(MemoryTag::HashJoin),
            0,
            "{sql} kept memory"
        );
        assert_eq!(accountant.spilled(), 0, "{sql} kept spill files");
    }
    conn.execute("RESET memory_limit").unwrap();
}

/// `probe`: `n` rows, keys 0..n (every 101st NULL); `build`: 0.6 n rows, keys the
/// even numbers below 1.2 n (every 97th NULL). Half the probe rows and a sixth of the
/// build rows have no partner.
fn tables(conn: &Connection, n: usize) {
    conn.execute(&format!(
        "CREATE TABLE probe AS SELECT CASE WHEN i % 101 = 0 THEN NULL ELSE i END AS k, \
         i % 7 AS x FROM range({n}) t(i)"
    ))
    .unwrap();
    conn.execute(&format!(
        "CREATE TABLE build AS SELECT CASE WHEN i % 97 = 0 THEN NULL ELSE i * 2 END AS k, \
         i AS v FROM range({}) t(i)",
        n * 6 / 10
    ))
    .unwrap();
}

#[test]
fn inner_joins_on_bigint_keys_spill_and_agree_at_one_and_two_threads() {
    for threads in [1, 2] {
        let c = conn(threads);
        tables(&c, 1_000_000);
        same_under_limit(
            &c,
            "16MB",
            &["SELECT count(*), sum(p.k), sum(b.v), sum(p.x) FROM probe p JOIN build b ON p.k = b.k"],
            &[],
        );
    }
}

#[test]
fn inner_joins_on_varchar_keys_spill() {
    let c = conn(2);
    c.execute("CREATE TABLE sp AS SELECT 'key number ' || i AS k, i AS x FROM range(500000) t(i)")
        .unwrap();
    c.execute(
        "CREATE TABLE sb AS SELECT 'key number ' || (i * 3) AS k, i AS v FROM range(300000) t(i)",
    )
    .unwrap();
    same_under_limit(
        &c,
        "12MB",
        &["SELECT count(*), sum(x), sum(v), min(b.k), max(b.k) FROM sp p JOIN sb b ON p.k = b.k"],
        &[],
    );
}

#[test]
fn outer_joins_keep_the_unmatched_rows_of_both_sides() {
    let c = conn(2);
    tables(&c, 300_000);
    same_under_limit(
        &c,
        "4MB",
        &[
            "SELECT count(*), count(p.k), count(b.k), count(b.v), sum(b.v), sum(p.x) \
             FROM probe p LEFT JOIN build b ON p.k = b.k",
            "SELECT count(*), count(p.k), count(p.x), count(b.k), sum(b.v), sum(p.x) \
             FROM probe p RIGHT JOIN build b ON p.k = b.k",
            "SELECT count(*), count(p.x), count(b.v), sum(b.v), sum(p.x), sum(coalesce(p.k, b.k)) \
             FROM probe p FULL JOIN build b ON p.k = b.k",
        ],
        &[],
    );
}

#[test]
fn semi_and_anti_joins_with_nulls_agree() {
    let c = conn(1);
    tables(&c, 300_000);
    same_under_limit(
        &c,
        "2MB",
        &[
            // The preserved side is the larger: built on the other.
            "SELECT count(*), sum(k), sum(x) FROM probe p WHERE EXISTS \
             (SELECT 1 FROM build b WHERE b.k = p.k)",
            "SELECT count(*), sum(k), sum(x) FROM probe p WHERE NOT EXISTS \
             (SELECT 1 FROM build b WHERE b.k = p.k)",
            // The preserved side is the smaller: built on it, marked by the other.
            "SELECT count(*), sum(k), sum(v) FROM build b WHERE EXISTS \
             (SELECT 1 FROM probe p WHERE p.k = b.k)",
            "SELECT count(*), sum(k), sum(v), count(k) FROM build b WHERE NOT EXISTS \
             (SELECT 1 FROM probe p WHERE p.k = b.k)",
            "SELECT count(*), sum(v) FROM build WHERE k IN (SELECT k FROM probe)",
        ],
        // NOT IN with a NULL in the list is never true.
        &[
            "SELECT count(*) FROM build WHERE k NOT IN (SELECT k FROM probe)",
            "SELECT count(*), sum(v) FROM build WHERE k NOT IN \
             (SELECT k FROM probe WHERE k IS NOT NULL)",
        ],
    );
    let none = rows(
        &c,
        "SELECT count(*) FROM build WHERE k NOT IN (SELECT k FROM probe)",
    );
    assert_eq!(none, vec![vec![ScalarValue::BigInt(0)]]);
}

#[test]
fn residual_conditions_and_duplicate_keys_agree() {
    let c = conn(2);
    tables(&c, 300_000);
    c.execute("CREATE TABLE dup_b AS SELECT i % 2500 AS k, i AS v FROM range(100000) t(i)")
        .unwrap();
    c.execute("CREATE TABLE dup_p AS SELECT i % 5000 AS k, i AS w FROM range(50000) t(i)")
        .unwrap();
    same_under_limit(
        &c,
        "3MB",
        &[
            "SELECT count(*), sum(b.v), sum(p.x) FROM probe p JOIN build b \
             ON p.k = b.k AND p.x < b.v % 7",
            "SELECT count(*), count(b.v), sum(b.v) FROM probe p LEFT JOIN build b \
             ON p.k = b.k AND b.v % 3 = 0",
            "SELECT count(*), sum(k) FROM probe p WHERE NOT EXISTS \
             (SELECT 1 FROM build b WHERE b.k = p.k AND b.v % 2 = 0)",
            // 25,000 probe rows meet 40 build rows each.
            "SELECT count(*), sum(v), sum(w), max(b.k) FROM dup_p p JOIN dup_b b \
             ON p.k = b.k",
            "SELECT count(*), count(v), sum(w) FROM dup_p p FULL JOIN dup_b b \
             ON p.k = b.k AND v % 10 < w % 10",
        ],
        &[],
    );
}

#[test]
fn a_build_side_of_one_key_that_cannot_fit_fails_and_the_connection_goes_on() {
    let c = conn(2);
    // The smaller input is the build side: all of it key 7.
    c.execute("CREATE TABLE p AS SELECT i AS k FROM range(400000) t(i)")
        .unwrap();
    c.execute("CREATE TABLE one AS SELECT 7 AS k, i AS v FROM range(300000) t(i)")
        .unwrap();
    let sql = "SELECT count(*), sum(v) FROM p JOIN one USING (k)";
    c.execute("SET memory_limit = '2MB'").unwrap();
    let e = c.query(sql).and_then(|r| r.collect_rows()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfMemory, "{e}");
    assert!(e.message.contains("hash join"), "{e}");
    assert_eq!(
        rows(&c, "SELECT count(*) FROM p"),
        vec![vec![ScalarValue::BigInt(400000)]]
    );
    c.execute("RESET memory_limit").unwrap();
    assert_eq!(
        rows(&c, sql),
        vec![vec![
            ScalarValue::BigInt(300000),
            ScalarValue::HugeInt(300000 * 299999 / 2)
        ]]
    );
}

#[test]
fn a_join_that_must_spill_fails_cleanly_when_spilling_is_off() {
    let c = conn(2);
    c.execute("CREATE TABLE p AS SELECT i AS k FROM range(400000) t(i)")
        .unwrap();
    c.execute("CREATE TABLE many AS SELECT i * 2 AS k, i AS v FROM range(300000) t(i)")
        .unwrap();
    let sql = "SELECT count(*), sum(v) FROM p JOIN many USING (k)";
    let expected = rows(&c, sql);
    c.execute("SET memory_limit = '2MB'").unwrap();
    c.execute("SET temp_directory = ''").unwrap();
    let e = c.query(sql).and_then(|r| r.collect_rows()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfMemory, "{e}");
    assert!(e.message.contains("temp_directory is empty"), "{e}");
    // With somewhere to spill, it fits in 2 MB.
    c.execute("RESET temp_directory").unwrap();
    let before = spilled(&c);
    assert_eq!(rows(&c, sql), expected);
    assert!(spilled(&c) > before);
}

#[test]
fn a_partition_too_large_for_memory_is_split_again() {
    let c = conn(2);
    // 12 MB of build rows under a 32 KB limit: even 256 partitions are too large, so
    // each is split again when its turn comes.
    c.execute(
        "CREATE TABLE wide AS SELECT i AS k, repeat(CAST(i % 10 AS VARCHAR), 4000) AS pad \
         FROM range(3000) t(i)",
    )
    .unwrap();
    c.execute("CREATE TABLE keys AS SELECT i % 4500 AS k, i AS w FROM range(9000) t(i)")
        .unwrap();
    same_under_limit(
        &c,
        "32KB",
        &[
            "SELECT count(*), sum(w), sum(length(pad)), min(pad), max(pad) \
             FROM keys JOIN wide USING (k)",
            "SELECT count(*), count(pad), sum(w) FROM keys LEFT JOIN wide USING (k)",
        ],
        &[],
    );
}
