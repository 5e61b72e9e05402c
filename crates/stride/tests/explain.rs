//! EXPLAIN ANALYZE: every operator's row count is exact (checked against count(*) of
//! the same rows computed another way), the JSON parses and names the same operators
//! as the text form, and EXPLAIN (FORMAT json) shows the plan without running it.

use serde_json::Value;
use stride::{Connection, Database, ScalarValue};

fn lines(c: &Connection, sql: &str) -> Vec<String> {
    c.query(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .rows()
        .map(|r| r.unwrap()[0].to_string())
        .collect()
}

fn count(c: &Connection, sql: &str) -> u64 {
    match &c
        .query(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .rows()
        .next()
    {
        Some(Ok(r)) => match r[0] {
            ScalarValue::BigInt(n) => n as u64,
            ref other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

/// Nodes in pre-order.
fn nodes(v: &Value, out: &mut Vec<Value>) {
    out.push(v.clone());
    for c in v["children"].as_array().unwrap() {
        nodes(c, out);
    }
}

const QUERIES: &[&str] = &[
    "SELECT l_returnflag, l_linestatus, sum(l_quantity), count(*) FROM lineitem WHERE l_shipdate <= DATE '1998-09-02' GROUP BY ALL ORDER BY 1, 2",
    "SELECT o_orderpriority, count(*) FROM orders WHERE o_orderdate >= DATE '1993-07-01' AND o_orderdate < DATE '1993-10-01' AND EXISTS (SELECT 1 FROM lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate) GROUP BY 1 ORDER BY 1",
    "SELECT c_name, o_totalprice FROM customer JOIN orders ON c_custkey = o_custkey WHERE c_mktsegment = 'BUILDING' ORDER BY o_totalprice DESC LIMIT 10",
    "SELECT n_name, count(s_suppkey) FROM nation LEFT JOIN supplier ON s_nationkey = n_nationkey AND s_acctbal > 5000 GROUP BY n_name",
    "SELECT p_partkey FROM part WHERE p_size < 5 UNION ALL SELECT ps_partkey FROM partsupp WHERE ps_availqty < 100",
    "WITH big AS (SELECT o_custkey, sum(o_totalprice) AS t FROM orders GROUP BY 1) SELECT count(*) FROM big a JOIN big b ON a.o_custkey = b.o_custkey + 1 WHERE a.t > 100000",
];

#[test]
fn analyze_counts_every_operators_rows_exactly() {
    let db = Database::open_in_memory().unwrap();
    let c = db.connect().unwrap();
    c.execute("CALL dbgen(sf = 0.01)").unwrap();
    for q in QUERIES {
        let expected_rows = count(&c, &format!("SELECT count(*) FROM ({q}) t"));
        let json = lines(&c, &format!("EXPLAIN (ANALYZE, FORMAT json) {q}")).join("\n");
        let v: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
        assert_eq!(v["rows_returned"].as_u64(), Some(expected_rows), "{q}");
        assert!(v["total_seconds"].as_f64().unwrap() > 0.0);
        let mut all = Vec::new();
        nodes(&v["plan"], &mut all);
        assert_eq!(
            all[0]["rows"].as_u64(),
            Some(expected_rows),
            "{q}: {}",
            all[0]
        );
        for n in &all {
            // A CTE's body runs once, under whichever reference came first.
            if n.get("rows").is_none() && q.starts_with("WITH") {
                continue;
            }
            assert!(n["rows"].is_u64(), "{q}: a node without rows: {n}");
            let children = n["children"].as_array().unwrap();
            match n["name"].as_str().unwrap() {
                "SEQ_SCAN" => {
                    let table = n["detail"].as_str().unwrap().split(' ').next().unwrap();
                    let all_rows = count(&c, &format!("SELECT count(*) FROM {table}"));
                    if n["row_groups_skipped"].as_u64() == Some(0) {
                        assert_eq!(n["rows"].as_u64(), Some(all_rows), "{q}: {n}");
                    } else {
                        assert!(n["rows"].as_u64().unwrap() < all_rows, "{q}: {n}");
                    }
                }
                // A filter right above a scan keeps the rows its predicate passes.
                "FILTER" if children[0]["name"] == "SEQ_SCAN" => {
                    let table = children[0]["detail"]
                        .as_str()
                        .unwrap()
                        .split(' ')
                        .next()
                        .unwrap();
                    let predicate = n["detail"].as_str().unwrap();
                    let passed = count(
                        &c,
                        &format!("SELECT count(*) FROM {table} WHERE {predicate}"),
                    );
                    assert_eq!(n["rows"].as_u64(), Some(passed), "{q}: {n}");
                }
                _ => {}
            }
        }
        // The text form names the same operators, in the same order.
        let text = lines(&c, &format!("EXPLAIN ANALYZE {q}"));
        assert!(text[0].starts_with("Total Time: "), "{text:?}");
        let names: Vec<&str> = text[1..]
            .iter()
            .map(|l| l.trim_start().split(' ').next().unwrap())
            .collect();
        let json_names: Vec<&str> = all.iter().map(|n| n["name"].as_str().unwrap()).collect();
        assert_eq!(names, json_names, "{q}");
        assert!(
            text[1].contains(&format!("rows={expected_rows}")),
            "{text:?}"
        );
    }
}

#[test]
fn explain_json_shows_the_plan_without_running_it() {
    let db = Database::open_in_memory().unwrap();
    let c = db.connect().unwrap();
    c.execute("CREATE TABLE t AS SELECT range AS x FROM range(1000)")
        .unwrap();
    let json = lines(
        &c,
        "EXPLAIN (FORMAT json) SELECT sum(x) FROM t WHERE x > 10",
    )
    .join("");
    let v: Value = serde_json::from_str(&json).unwrap();
    let mut all = Vec::new();
    nodes(&v, &mut all);
    assert!(all.iter().any(|n| n["name"] == "SEQ_SCAN"), "{v}");
    assert!(all.iter().all(|n| n.get("rows").is_none()), "{v}");
    // Plain EXPLAIN is unchanged; unknown options are refused, not ignored.
    assert!(lines(&c, "EXPLAIN SELECT 1").len() >= 1);
    let e = c
        .execute("EXPLAIN (ANALYZE, BUFFERS) SELECT 1")
        .unwrap_err();
    assert!(e.message.contains("BUFFERS"), "{e}");
    // EXPLAIN ANALYZE of a query over no table still reports.
    let text = lines(&c, "EXPLAIN ANALYZE SELECT 42");
    assert!(text[0].starts_with("Total Time"), "{text:?}");
}

#[test]
fn analyze_shows_estimated_rows_and_peak_memory_per_operator() {
    let db = Database::open_in_memory().unwrap();
    let c = db.connect().unwrap();
    c.execute("CALL dbgen(sf = 0.01)").unwrap();
    let q = "SELECT l_returnflag, l_linestatus, count(*) FROM lineitem JOIN orders ON l_orderkey = o_orderkey \
             WHERE o_orderstatus = 'F' GROUP BY ALL ORDER BY ALL";
    let json = lines(&c, &format!("EXPLAIN (ANALYZE, FORMAT json) {q}")).join("\n");
    let v: Value = serde_json::from_str(&json).unwrap();
    let mut all = Vec::new();
    nodes(&v["plan"], &mut all);
    let node = |name: &str| {
        all.iter()
            .find(|n| n["name"] == name)
            .unwrap_or_else(|| panic!("no {name}: {v}"))
    };
    let lineitem = count(&c, "SELECT count(*) FROM lineitem");
    let scan = all
        .iter()
        .find(|n| n["detail"].as_str().unwrap().starts_with("lineitem"))
        .unwrap();
    assert_eq!(scan["estimated_rows"].as_u64(), Some(lineitem), "{scan}");
    // Three return flags times two line statuses: the sketches' distinct counts, not
    // a fixed fraction of the input.
    let groups = node("HASH_GROUP_BY")["estimated_rows"].as_u64().unwrap();
    assert!((3..=10).contains(&groups), "{v}");
    // o_orderstatus has three values: the filter keeps about a third of the orders.
    let filter = node("FILTER");
    let orders = count(&c, "SELECT count(*) FROM orders") as f64;
    let est = filter["estimated_rows"].as_f64().unwrap();
    assert!((orders / 4.0..orders / 2.0).contains(&est), "{filter}");
    // Operators that hold state report its peak; the query's is at least any one's.
    let peak = v["peak_memory_bytes"].as_u64().unwrap();
    for name in ["HASH_JOIN", "HASH_GROUP_BY"] {
        let p = node(name)["peak_memory_bytes"].as_u64().unwrap();
        assert!(p > 0 && p <= peak, "{name}: {p} of {peak}: {v}");
    }
    assert_eq!(filter["peak_memory_bytes"].as_u64(), Some(0), "{filter}");
    assert!(v["cpu_seconds"].as_f64().unwrap() >= 0.0);
    // The text form shows the same.
    let text = lines(&c, &format!("EXPLAIN ANALYZE {q}"));
    assert!(text[0].contains("peak memory: "), "{text:?}");
    assert!(text[0].contains("CPU time: "), "{text:?}");
    let join = text.iter().find(|l| l.contains("HASH_JOIN")).unwrap();
    assert!(
        join.contains(" memory=") && join.contains("rows; rows="),
        "{join}"
    );
    // A set operation holds its inputs' rows.
    let json = lines(
        &c,
        "EXPLAIN (ANALYZE, FORMAT json) SELECT x FROM range(100000) t(x) EXCEPT SELECT x FROM range(10) t(x)",
    )
    .join("\n");
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["plan"]["name"], "SET_OPERATION", "{v}");
    assert!(
        v["plan"]["peak_memory_bytes"].as_u64().unwrap() >= 100000 * 8,
        "{v}"
    );
    // EXPLAIN (FORMAT json) without ANALYZE estimates too.
    let plain = lines(&c, &format!("EXPLAIN (FORMAT json) {q}")).join("");
    let p: Value = serde_json::from_str(&plain).unwrap();
    assert!(p["estimated_rows"].as_u64().is_some(), "{p}");
}

#[test]
fn enable_profiling_profiles_every_query() {
    let db = Database::open_in_memory().unwrap();
    let c = db.connect().unwrap();
    c.execute("CREATE TABLE t AS SELECT range % 7 AS k, range AS v FROM range(10000)")
        .unwrap();
    let q = "SELECT k, sum(v) FROM t GROUP BY k ORDER BY k";
    let expected = c.query(q).unwrap().collect_rows().unwrap();
    assert!(c.query(q).unwrap().profile.is_none(), "off by default");

    // Without a file the profile comes with the result, after the same rows.
    c.execute("PRAGMA enable_profiling").unwrap();
    let r = c.query(q).unwrap();
    let profile = r.profile.clone().expect("a profile");
    assert!(profile.starts_with("Total Time: "), "{profile}");
    assert!(
        profile.contains("HASH_GROUP_BY") && profile.contains("rows=7"),
        "{profile}"
    );
    assert_eq!(r.collect_rows().unwrap(), expected);
    assert_eq!(
        c.query("SELECT current_setting('enable_profiling')")
            .unwrap()
            .collect_rows()
            .unwrap()[0][0],
        ScalarValue::Varchar("query_tree".into())
    );
    // Statements that are not queries are not profiled.
    let r = c.execute("INSERT INTO t VALUES (1, 1)").unwrap();
    assert!(r.profile.is_none());

    // JSON into a file, replaced by each query.
    let path = std::env::temp_dir().join(format!("stride-profile-{}.json", std::process::id()));
    c.execute("SET enable_profiling = 'json'").unwrap();
    c.execute(&format!("SET profiling_output = '{}'", path.display()))
        .unwrap();
    let r = c.query("SELECT count(*) FROM t WHERE v < 100").unwrap();
    assert!(r.profile.is_none(), "written to the file instead");
    assert_eq!(r.collect_rows().unwrap()[0][0], ScalarValue::BigInt(101));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v["rows_returned"].as_u64(), Some(1), "{v}");
    let mut all = Vec::new();
    nodes(&v["plan"], &mut all);
    let filter = all.iter().find(|n| n["name"] == "FILTER").unwrap();
    assert_eq!(filter["rows"].as_u64(), Some(101), "{v}");
    c.query(q).unwrap().collect_rows().unwrap();
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v["rows_returned"].as_u64(), Some(7), "{v}");
    std::fs::remove_file(&path).unwrap();

    // no_output profiles and writes nothing; disabling stops it.
    c.execute("RESET profiling_output").unwrap();
    c.execute("SET enable_profiling = 'no_output'").unwrap();
    assert!(c.query(q).unwrap().profile.is_none());
    c.execute("SET enable_profiling = 'query_tree'").unwrap();
    c.execute("PRAGMA disable_profiling").unwrap();
    assert!(c.query(q).unwrap().profile.is_none());
    assert_eq!(
        c.query("SELECT current_setting('enable_profiling')")
            .unwrap()
            .collect_rows()
            .unwrap()[0][0],
        ScalarValue::Null
    );
    // A format stride does not have is refused by name.
    let e = c
        .execute("SET enable_profiling = 'query_tree_optimizer'")
        .unwrap_err();
    assert!(e.message.contains("query_tree_optimizer"), "{e}");
    // A file that cannot be written fails the query with the path.
    c.execute("SET enable_profiling = 'json'").unwrap();
    c.execute("SET profiling_output = '/nonexistent-dir/p.json'")
        .unwrap();
    let e = c.query(q).unwrap_err();
    assert!(e.message.contains("/nonexistent-dir/p.json"), "{e}");
}

#[test]
fn analyze_counts_parquet_row_groups_read_and_skipped() {
    let db = Database::open_in_memory().unwrap();
    let c = db.connect().unwrap();
    let path = std::env::temp_dir().join(format!("stride-explain-{}.parquet", std::process::id()));
    c.execute(&format!(
        "COPY (SELECT range AS x FROM range(100000)) TO '{}' (FORMAT parquet, ROW_GROUP_SIZE 10000)",
        path.display()
    ))
    .unwrap();
    let json = lines(
        &c,
        &format!(
            "EXPLAIN (ANALYZE, FORMAT json) SELECT count(*) FROM '{}' WHERE x >= 95000",
            path.display()
        ),
    )
    .join("\n");
    let v: Value = serde_json::from_str(&json).unwrap();
    let mut all = Vec::new();
    nodes(&v["plan"], &mut all);
    let scan = all
        .iter()
        .find(|n| n["children"].as_array().unwrap().is_empty())
        .unwrap();
    assert_eq!(scan["row_groups_read"].as_u64(), Some(1), "{scan}");
    assert_eq!(scan["row_groups_skipped"].as_u64(), Some(9), "{scan}");
    assert_eq!(scan["estimated_rows"].as_u64(), Some(100000), "{scan}");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn range_estimates_and_runtime_filters_through_joins_skip_row_groups() {
    let db = Database::open_in_memory().unwrap();
    let c = db.connect().unwrap();
    // facts ordered by d, as a fact table loaded day by day is
    c.execute("CREATE TABLE facts AS SELECT i // 1000 AS d, i % 100 AS k FROM range(1000000) t(i)")
        .unwrap();
    c.execute("CREATE TABLE days AS SELECT i AS d_id, i AS day FROM range(1000) t(i)")
        .unwrap();
    c.execute("CREATE TABLE items AS SELECT i AS k, i % 10 AS flag FROM range(100) t(i)")
        .unwrap();
    // items.k = 7 looks more selective than the days, so facts meets items first and
    // the days' join probes with that join's output
    let q = "SELECT count(*) FROM facts, items, days WHERE facts.k = items.k AND items.k = 7 \
             AND facts.d = days.d_id AND days.day BETWEEN 10 AND 20";
    assert_eq!(count(&c, q), 11 * 10);
    let v: Value =
        serde_json::from_str(&lines(&c, &format!("EXPLAIN (ANALYZE, FORMAT json) {q}")).join("\n"))
            .unwrap();
    let mut all = Vec::new();
    nodes(&v["plan"], &mut all);
    // the range keeps 11 of the 1,000 days (not a fixed fraction of them)
    let filter = all
        .iter()
        .find(|n| n["name"] == "FILTER" && n["detail"].as_str().unwrap().contains("day"))
        .unwrap();
    assert_eq!(filter["estimated_rows"].as_u64(), Some(11), "{filter}");
    // the days' keys bound the facts' d, through the probe of the join with items:
    // only the first row group is read
    let scan = all
        .iter()
        .find(|n| n["detail"].as_str().unwrap().starts_with("facts"))
        .unwrap();
    assert_eq!(scan["row_groups_read"].as_u64(), Some(1), "{scan}");
    assert!(scan["row_groups_skipped"].as_u64().unwrap() >= 7, "{scan}");
}

#[test]
fn limit_over_a_computed_order_key_is_a_top_n() {
    let db = Database::open_in_memory().unwrap();
    let c = db.connect().unwrap();
    let names = |sql: &str| {
        let json = lines(&c, &format!("EXPLAIN (FORMAT json) {sql}")).join("");
        let v: Value = serde_json::from_str(&json).unwrap();
        let mut all = Vec::new();
        nodes(&v, &mut all);
        all.iter()
            .map(|n| n["name"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    // The key x % 7 is computed below the sort and dropped above it: the limit still
    // makes the sort a top-N, under the projection.
    let q = "SELECT x FROM range(1000) t(x) ORDER BY x % 7 DESC, x LIMIT 3";
    let plan = names(q);
    assert!(plan.contains(&"TOP_N".to_string()), "{plan:?}");
    assert!(!plan.contains(&"ORDER_BY".to_string()), "{plan:?}");
    assert_eq!(lines(&c, q), ["6", "13", "20"]);
    // A volatile call over the sorted rows runs once per row, as without the limit.
    c.execute("CREATE SEQUENCE s").unwrap();
    let q = "SELECT nextval('s') AS n, x FROM (SELECT x FROM range(100) t(x) ORDER BY x % 7 DESC, x) LIMIT 2";
    assert!(names(q).contains(&"ORDER_BY".to_string()));
    assert_eq!(lines(&c, q), ["1", "2"]);
    assert_eq!(count(&c, "SELECT currval('s')"), 100);
}
