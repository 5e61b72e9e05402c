//! Hostile SQL: thousands of malformed, shuffled, truncated and absurdly nested or long
//! statements. Each must end in a result or an error — never a panic, abort, stack
//! overflow or hang (a watchdog fails the test if one statement runs over 20 seconds).

use crate::common;

use common::Rng;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const CORPUS: &[&str] = &[
    "SELECT a, sum(b) FROM t WHERE a > 1 AND b IS NOT NULL GROUP BY a HAVING count(*) > 0 ORDER BY 2 DESC LIMIT 5",
    "SELECT CASE WHEN a % 2 = 0 THEN 'even' ELSE 'odd' END, coalesce(c, 'x') || '!' FROM t",
    "SELECT * FROM t AS x JOIN t AS y ON x.a = y.a LEFT JOIN t z USING (a) WHERE x.b BETWEEN 1 AND 10",
    "SELECT a FROM t WHERE a IN (SELECT b FROM t WHERE b < 5) AND EXISTS (SELECT 1 FROM t u WHERE u.a = t.a)",
    "INSERT INTO t VALUES (1, 2, 'three'), (4, 5, NULL)",
    "SELECT CAST(a AS VARCHAR), TRY_CAST(c AS INTEGER), a::DOUBLE / 3, DATE '2020-01-01' + INTERVAL '1 day' FROM t",
    "WITH w AS (SELECT a, count(*) AS n FROM t GROUP BY a) SELECT * FROM w UNION ALL SELECT 1, 2 EXCEPT SELECT 3, 4",
    "SELECT string_agg(c, ',' ORDER BY c DESC) FILTER (WHERE a > 0), list(b ORDER BY a), count(DISTINCT b) FROM t",
    "CREATE TABLE u AS SELECT a, b FROM t WHERE a <> 3",
    "SELECT substring(c, 2, 3), lpad(c, 10, '*'), extract(year FROM DATE '1999-12-31'), round(b / 7.0, 2) FROM t",
];

fn tokens(s: &str) -> Vec<String> {
    s.split_whitespace().map(|t| t.to_string()).collect()
}

fn variants() -> Vec<String> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let junk = [
        "(", ")", ",", "'", "\"", ";", "--", "/*", "NULL", "SELECT", "FROM", "*", "::", "1e999",
        "-", "~", "[", "{", "\u{0}", "é", "$$",
    ];
    let mut out = Vec::new();
    for s in CORPUS {
        let t = tokens(s);
        for cut in 0..=t.len() {
            out.push(t[..cut].join(" "));
        }
        for cut in 0..s.len() {
            if s.is_char_boundary(cut) {
                out.push(s[..cut].to_string());
            }
        }
        for _ in 0..150 {
            let mut t2 = t.clone();
            match rng.below(4) {
                0 => {
                    for i in (1..t2.len()).rev() {
                        t2.swap(i, rng.below(i + 1));
                    }
                }
                1 => {
                    let i = rng.below(t2.len());
                    t2.remove(i);
                }
                2 => {
                    let i = rng.below(t2.len() + 1);
                    t2.insert(i, junk[rng.below(junk.len())].to_string());
                }
                _ => {
                    let i = rng.below(t2.len());
                    let j = rng.below(t2.len());
                    t2[i] = t2[j].clone();
                }
            }
            out.push(t2.join(" "));
        }
    }
    out
}

fn connection() -> stride::Connection {
    let conn = stride::Database::open_in_memory()
        .unwrap()
        .connect()
        .unwrap();
    conn.execute("CREATE TABLE t(a INTEGER, b BIGINT, c VARCHAR)")
        .unwrap();
    conn.execute("INSERT INTO t VALUES (1, 10, 'x'), (2, NULL, 'yy'), (3, 30, NULL)")
        .unwrap();
    conn
}

/// Runs `sql` to completion (consuming rows) under a watchdog.
fn run(conn: &stride::Connection, sql: &str) {
    let done = Arc::new(AtomicBool::new(false));
    let flag = done.clone();
    let shown: String = sql.chars().take(120).collect();
    let watchdog = std::thread::spawn(move || {
        let start = Instant::now();
        while !flag.load(Ordering::Relaxed) {
            if start.elapsed() > Duration::from_secs(20) {
                eprintln!("statement hangs: {shown}");
                std::process::abort();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    if let Ok(r) = conn.execute(sql) {
        let _ = r.collect_rows();
    }
    done.store(true, Ordering::Relaxed);
    watchdog.join().unwrap();
}

#[test]
fn malformed_statements_never_panic() {
    let conn = connection();
    let vs = variants();
    assert!(vs.len() > 2000, "only {} variants", vs.len());
    for v in &vs {
        run(&conn, v);
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let conn = connection();
    let n = 100_000;
    let parens = format!("SELECT {}1{}", "(".repeat(n), ")".repeat(n));
    assert!(conn.execute(&parens).is_err());
    let subqueries = format!("SELECT {}1{}", "(SELECT ".repeat(n), ")".repeat(n));
    assert!(conn.execute(&subqueries).is_err());
    let nots = format!("SELECT {}true", "NOT ".repeat(n));
    run(&conn, &nots);
    let minus = format!("SELECT {}1", "- ".repeat(n));
    run(&conn, &minus);
    // Long flat chains parse without recursion: refused beyond the binder's depth
    // limit, evaluated below it.
    let sum = format!("SELECT {}", vec!["1"; n].join(" + "));
    let err = conn.execute(&sum).expect_err("too deep");
    assert!(err.to_string().contains("nested too deeply"), "{err}");
    let sum = format!("SELECT {}", vec!["1"; 5000].join(" + "));
    let r = conn.execute(&sum).unwrap().collect_rows().unwrap();
    assert_eq!(r[0][0].to_string(), "5000");
    let ands = format!(
        "SELECT count(*) FROM t WHERE {}",
        vec!["a > 0"; 20_000].join(" AND ")
    );
    run(&conn, &ands);
    // A chain of set operations is read in a loop but builds a tree as deep as the
    // chain: 70,000 UNION ALLs overflowed the stack; beyond 10,000 it is refused.
    let unions: Vec<String> = (0..70_000).map(|i| format!("SELECT {i} AS k")).collect();
    let chain = format!("SELECT count(*) FROM ({})", unions.join(" UNION ALL "));
    let err = conn.execute(&chain).expect_err("too many set operations");
    assert!(err.to_string().contains("set operations"), "{err}");
}

#[test]
fn huge_in_list() {
    let conn = connection();
    let list: Vec<String> = (0..200_000).map(|i| i.to_string()).collect();
    let sql = format!("SELECT count(*) FROM t WHERE a IN ({})", list.join(", "));
    let r = conn.execute(&sql).unwrap().collect_rows().unwrap();
    assert_eq!(r[0][0].to_string(), "3");
}
