fn main() -> stride::Result<()> {
    let conn = stride::Database::open_in_memory()?.connect()?;
    conn.execute("SET threads = 2")?;
    conn.execute("CREATE OR REPLACE TABLE t AS SELECT i AS id, i % 10 AS k10, (i * 7919) % 1000000 AS k1m, CAST(i % 100003 AS DOUBLE) / 7 AS d, CAST(i % 99991 AS DECIMAL(15,2)) AS m FROM range(10000000) r(i)")?;
    let q = std::env::args().nth(1).unwrap();
    for _ in 0..3 {
        let t = std::time::Instant::now();
        let r = conn.execute(&q)?;
        let n = r.collect_rows()?.len();
        println!("{:.4} ({n} rows)", t.elapsed().as_secs_f64());
    }
    Ok(())
}
