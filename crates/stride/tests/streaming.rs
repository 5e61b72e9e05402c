//! Results stream and queries can be cancelled: the first chunk of a result that
//! would take hours to compute arrives, dropping the result stops the query, and an
//! interrupt from another thread ends a running statement with an Interrupted error.

use std::time::Duration;

fn conn() -> stride::Connection {
    let c = stride::Database::open_in_memory()
        .unwrap()
        .connect()
        .unwrap();
    c.execute("SET threads = 2").unwrap();
    c
}

#[test]
fn first_rows_arrive_before_the_last_are_computed() {
    let c = conn();
    // 10^13 rows: only streaming can deliver a first chunk.
    let mut r = c
        .query("SELECT i * 2 FROM range(10000000000000) t(i) WHERE i % 3 = 0")
        .unwrap();
    let first = r.next_chunk().unwrap().unwrap();
    assert_eq!(first.row(0)[0].to_string(), "0");
    assert_eq!(first.row(1)[0].to_string(), "6");
    drop(r); // cancels the query
             // The connection is usable right away.
    let rows = c.query("SELECT 1").unwrap().collect_rows().unwrap();
    assert_eq!(rows.len(), 1);
}

#[test]
fn interrupt_cancels_a_running_statement() {
    let c = conn();
    let handle = c.interrupt_handle();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        handle.interrupt();
    });
    let err = c
        .query("SELECT count(*) FROM range(10000000000000) t(i)")
        .and_then(|r| r.collect_rows())
        .unwrap_err();
    t.join().unwrap();
    assert_eq!(err.kind, stride::ErrorKind::Interrupted, "{err}");
}

#[test]
fn insertion_order_is_kept_without_order_by() {
    let c = conn();
    c.execute("CREATE TABLE t AS SELECT i FROM range(500000) r(i)")
        .unwrap();
    let rows = c
        .query("SELECT i FROM t WHERE i % 1000 = 7")
        .unwrap()
        .collect_rows()
        .unwrap();
    let got: Vec<i64> = rows.iter().map(|r| r[0].as_i64().unwrap()).collect();
    let want: Vec<i64> = (0..500).map(|k| k * 1000 + 7).collect();
    assert_eq!(got, want);
}
