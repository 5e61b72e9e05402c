//! ORDER BY and window functions under a `memory_limit` their rows do not fit: sorts
//! spill sorted runs and merge them, windows split their input by PARTITION BY and
//! compute one part at a time, and both give exactly the answers they give in
//! memory. What cannot spill fails with an Out of Memory Error, and the connection
//! goes on.

use crate::common;

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use stride::{Connection, Database, ErrorKind, ScalarValue};

fn connect(threads: usize) -> Connection {
    let conn = Database::open_in_memory().unwrap().connect().unwrap();
    conn.execute(&format!("SET threads = {threads}")).unwrap();
    let dir = common::fresh_dir(&format!("spill-sort-{threads}"));
    conn.execute(&format!("SET temp_directory = '{}'", dir.display()))
        .unwrap();
    conn
}

fn spilled(conn: &Connection) -> u64 {
    conn.buffer_pool().accountant().spilled_total()
}

/// A hash of each row of `sql`'s result, in order (rows are compared without
/// holding millions of them); `pair` sees each row with the one before.
fn row_hashes(
    conn: &Connection,
    sql: &str,
    mut pair: impl FnMut(&[ScalarValue], &[ScalarValue]),
) -> Vec<u64> {
    let mut r = conn.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let mut out = Vec::new();
    let mut last: Option<Vec<ScalarValue>> = None;
    while let Some(chunk) = r.next_chunk() {
        let chunk = chunk.unwrap_or_else(|e| panic!("{sql}: {e}"));
        for i in 0..chunk.len() {
            let row = chunk.row(i);
            let mut h = DefaultHasher::new();
            row.iter().for_each(|v| hash_value(v, &mut h));
            out.push(h.finish());
            if let Some(last) = &last {
                pair(last, &row);
            }
            last = Some(row);
        }
    }
    out
}

/// Adds `v` to `h` (the common types directly: formatting every value is slow).
fn hash_value(v: &ScalarValue, h: &mut DefaultHasher) {
    match v {
        ScalarValue::Null => 0u8.hash(h),
        ScalarValue::BigInt(x) => x.hash(h),
        ScalarValue::HugeInt(x) => x.hash(h),
        ScalarValue::Varchar(s) => s.hash(h),
        other => format!("{other:?}").hash(h),
    }
}

/// `sql` under `limit` spills and gives the rows it gives with memory to spare, in
/// the same order; `pair` sees each spilled row with the one before.
fn same_when_spilled(
    conn: &Connection,
    sql: &str,
    limit: &str,
    pair: impl FnMut(&[ScalarValue], &[ScalarValue]),
) {
    same_rows_when_spilled(conn, sql, limit, true, pair)
}

/// [`same_when_spilled`], in any order when not `ordered`.
fn same_rows_when_spilled(
    conn: &Connection,
    sql: &str,
    limit: &str,
    ordered: bool,
    pair: impl FnMut(&[ScalarValue], &[ScalarValue]),
) {
    conn.execute("RESET memory_limit").unwrap();
    let mut want = row_hashes(conn, sql, |_, _| {});
    conn.execute(&format!("SET memory_limit = '{limit}'"))
        .unwrap();
    let before = spilled(conn);
    let mut got = row_hashes(conn, sql, pair);
    if !ordered {
        want.sort_unstable();
        got.sort_unstable();
    }
    assert!(
        spilled(conn) > before,
        "nothing spilled under {limit}: {sql}"
    );
    assert_eq!(conn.buffer_pool().accountant().used(), 0, "{sql}");
    assert_eq!(got.len(), want.len(), "{sql}");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!("row {i} differs under {limit}: {sql}");
    }
    conn.execute("RESET memory_limit").unwrap();
}

/// Rows with equal keys (the columns before the last) come in input order: their
/// last column, the row's position in the input, ascends.
fn ties_in_input_order(a: &[ScalarValue], b: &[ScalarValue]) {
    let n = a.len() - 1;
    if a[..n] == b[..n] {
        assert!(
            a[n].as_i64() < b[n].as_i64(),
            "ties out of order: {a:?} {b:?}"
        );
    }
}

/// 600,000 rows; sort keys with a VARCHAR, NULLs, DESC and many ties.
const ROWS: &str = "SELECT i AS id, i % 1000 AS a, \
     CASE WHEN i % 11 = 0 THEN NULL ELSE 'key' || (i * 7919 % 13) END AS s, \
     CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 31 % 17) * 0.5 END AS d \
     FROM range(600000) t(i)";

#[test]
fn a_sort_that_does_not_fit_spills_and_keeps_its_order() {
    let conn = connect(4);
    let sql = format!("SELECT s, d, a, id FROM ({ROWS}) ORDER BY s DESC NULLS FIRST, d, a DESC");
    same_when_spilled(&conn, &sql, "12MB", ties_in_input_order);
}

#[test]
fn a_sort_spills_on_one_thread_and_on_two() {
    for threads in [1, 2] {
        let conn = connect(threads);
        let sql = "SELECT 'v' || (i % 89) AS s, i % 977 AS a, i AS id \
             FROM range(300000) t(i) ORDER BY s, a DESC";
        same_when_spilled(&conn, sql, "2MB", ties_in_input_order);
        // A single BIGINT key (narrow packed keys), with ties.
        let sql = "SELECT i * 7919 % 30011 AS k, i FROM range(300000) t(i) ORDER BY k";
        same_when_spilled(&conn, sql, "2MB", ties_in_input_order);
    }
}

#[test]
fn window_functions_split_their_input_by_partition() {
    let conn = connect(2);
    // Its rows come partition by partition: compared in any order.
    let sql = "SELECT id, g, \
           row_number() OVER (PARTITION BY g ORDER BY v, id) AS rn, \
           sum(v) OVER (PARTITION BY g ORDER BY v, id) AS running, \
           lag(s) OVER (PARTITION BY g ORDER BY v, id) AS prev \
         FROM (SELECT i AS id, i % 1009 AS g, i * 7919 % 1000 AS v, 's' || (i % 7) AS s \
               FROM range(200000) t(i))";
    same_rows_when_spilled(&conn, sql, "6MB", false, |_, _| {});
    // A PARTITION BY on a VARCHAR expression, and a sort above the window.
    let sql = "SELECT id, count(*) OVER (PARTITION BY 'p' || (id % 97)) AS n, \
           first_value(id) OVER (PARTITION BY 'p' || (id % 97) ORDER BY id DESC) AS top \
         FROM (SELECT i AS id FROM range(200000) t(i)) ORDER BY id";
    same_when_spilled(&conn, sql, "6MB", |_, _| {});
}

#[test]
fn a_window_that_cannot_be_split_fails_with_out_of_memory() {
    let conn = connect(2);
    conn.execute("SET memory_limit = '1MB'").unwrap();
    for sql in [
        // No PARTITION BY.
        "SELECT sum(i) OVER (ORDER BY i) FROM range(1000000) t(i)",
        // Different PARTITION BYs.
        "SELECT sum(i) OVER (PARTITION BY i % 3), sum(i) OVER (PARTITION BY i % 5) \
         FROM range(1000000) t(i)",
        // Split, but one window partition alone passes the limit.
        "SELECT sum(i) OVER (PARTITION BY i % 2) FROM range(300000) t(i)",
    ] {
        let err = conn.query(sql).and_then(|r| r.collect_rows()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::OutOfMemory, "{err}");
        assert!(err.message.contains("window"), "{err}");
        assert!(err.message.contains("PARTITION BY"), "{err}");
    }
    // Nothing stays reserved, and the connection goes on, within the limit and past
    // it.
    assert_eq!(conn.buffer_pool().accountant().used(), 0);
    let rows = conn.query("SELECT 42").unwrap().collect_rows().unwrap();
    assert_eq!(rows[0][0].as_i64(), Some(42));
    conn.execute("RESET memory_limit").unwrap();
    let rows = conn
        .query("SELECT max(s) FROM (SELECT sum(i) OVER (ORDER BY i) AS s FROM range(1000000) t(i))")
        .unwrap()
        .collect_rows()
        .unwrap();
    assert_eq!(rows[0][0].as_i64(), Some(499_999_500_000));
}

#[test]
fn without_a_temp_directory_nothing_spills() {
    let conn = connect(2);
    conn.execute("SET temp_directory = ''").unwrap();
    conn.execute("SET memory_limit = '2MB'").unwrap();
    for sql in [
        "SELECT i FROM range(1000000) t(i) ORDER BY i DESC",
        "SELECT rank() OVER (PARTITION BY i % 10 ORDER BY i) FROM range(1000000) t(i)",
    ] {
        let err = conn.query(sql).and_then(|r| r.collect_rows()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::OutOfMemory, "{err}");
        assert!(err.message.contains("temp_directory"), "{err}");
    }
    assert_eq!(spilled(&conn), 0);
}
