//! Decorrelation changes plans, never results: every query here runs with the
//! `decorrelate` pass on and off and must return the same rows (as a multiset). The
//! data has NULLs, duplicates and keys without partners, where the rewrites' NULL
//! and empty-group rules matter. Queries the pass must unnest are also checked to
//! have no subquery left in their plan.

use stride_common::ScalarValue;

fn conn() -> stride::Connection {
    let c = stride::Database::open_in_memory()
        .unwrap()
        .connect()
        .unwrap();
    c.execute(
        "CREATE TABLE t1 AS SELECT * FROM (VALUES (1, 10, 'a'), (2, 20, 'b'), (2, 21, 'b'), \
         (3, NULL, 'c'), (NULL, 40, 'd'), (5, 50, NULL), (6, 60, 'f')) v(a, b, c); \
         CREATE TABLE t2 AS SELECT * FROM (VALUES (1, 100, 'a'), (1, 101, 'x'), (2, 200, 'b'), \
         (3, NULL, 'c'), (NULL, 400, 'd'), (4, 400, 'e'), (6, 5, 'f')) v(x, y, z); \
         CREATE TABLE t3 AS SELECT * FROM (VALUES (100, 1), (101, 2), (200, 3), (400, NULL)) v(p, q)",
    )
    .unwrap();
    c
}

fn rows(c: &stride::Connection, sql: &str) -> Vec<String> {
    let rows = c
        .query(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .collect_rows()
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    rows.iter()
        .map(|r| {
            r.iter()
                .map(ScalarValue::to_string)
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect()
}

fn sorted_rows(c: &stride::Connection, sql: &str) -> Vec<String> {
    let mut out = rows(c, sql);
    out.sort();
    out
}

fn plan_of(c: &stride::Connection, sql: &str) -> String {
    rows(c, &format!("EXPLAIN {sql}")).join("\n")
}

/// Queries the pass must turn into joins.
const UNNESTED: &[&str] = &[
    "SELECT a, b FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.x = t1.a)",
    "SELECT a, b FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t2 WHERE t2.x = t1.a)",
    "SELECT a FROM t1 WHERE a IN (SELECT x FROM t2)",
    "SELECT a FROM t1 WHERE a IN (SELECT x FROM t2 WHERE t2.y > t1.b)",
    "SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.x = t1.a AND t2.y > t1.b * 5)",
    "SELECT a FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t2 WHERE t2.x = t1.a AND t2.z <> t1.c)",
    "SELECT a, (SELECT count(*) FROM t2 WHERE t2.x = t1.a) FROM t1",
    "SELECT a, (SELECT count(y) + 1 FROM t2 WHERE t2.x = t1.a) FROM t1",
    "SELECT a, (SELECT coalesce(sum(y), -1) FROM t2 WHERE t2.x = t1.a) FROM t1",
    "SELECT a, (SELECT max(y) FROM t2 WHERE t2.x = t1.a AND t2.z = t1.c) FROM t1",
    "SELECT a FROM t1 WHERE b < (SELECT avg(y) FROM t2 WHERE t2.x = t1.a)",
    "SELECT a FROM t1 WHERE b * 2 < (SELECT min(y) FROM t2 WHERE t2.x + 0 = t1.a - 0)",
    "SELECT a FROM t1 WHERE (SELECT count(*) FROM t2 WHERE t2.x = t1.a) = 0",
    "SELECT a, sum(b) FROM t1 GROUP BY a HAVING sum(b) > (SELECT min(y) FROM t2 WHERE t2.x = t1.a) / 10",
    "SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t2, t3 WHERE t2.y = t3.p AND t3.q = t1.a)",
    "SELECT a FROM t1 WHERE EXISTS (SELECT x FROM t2 WHERE t2.x = t1.a GROUP BY x HAVING count(*) > 1)",
    "SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t2 LEFT JOIN t3 ON t2.y = t3.p WHERE t2.x = t1.a AND t3.p IS NULL)",
    "SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.x = t1.a AND EXISTS (SELECT 1 FROM t3 WHERE t3.p = t2.y))",
    "SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.x = t1.a AND t2.y = (SELECT max(p) FROM t3 WHERE t3.q = t2.x))",
];

/// Queries that may keep their subquery; results must still agree.
const OTHERS: &[&str] = &[
    // A reference two levels up inside a condition that also reads the inner table
    // would need a dependent join; it keeps its subquery.
    "SELECT a FROM t1 WHERE a IN (SELECT x FROM t2 WHERE EXISTS (SELECT 1 FROM t3 WHERE t3.q = t2.x AND t3.p > t1.b))",
    // A non-equality correlation below GROUP BY cannot become a grouping key.
    "SELECT a FROM t1 WHERE EXISTS (SELECT x, count(*) FROM t2 WHERE t2.y > t1.b GROUP BY x HAVING count(*) > 0)",
    "SELECT a FROM t1 WHERE a NOT IN (SELECT x FROM t2)",
    "SELECT a FROM t1 WHERE a NOT IN (SELECT x FROM t2 WHERE x IS NOT NULL)",
    "SELECT a FROM t1 WHERE a NOT IN (SELECT x FROM t2 WHERE t2.y > t1.b)",
    "SELECT a FROM t1 WHERE b > ALL (SELECT y FROM t2 WHERE t2.x = t1.a)",
    "SELECT a FROM t1 WHERE b < ANY (SELECT y FROM t2 WHERE t2.x = t1.a)",
    "SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.x = t1.a LIMIT 1)",
    "SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.x = t1.a) OR b > 50",
    "SELECT a, EXISTS (SELECT 1 FROM t2 WHERE t2.x = t1.a) FROM t1",
    "SELECT a, (SELECT y FROM t2 WHERE t2.x = t1.a AND t2.z = t1.c) FROM t1",
    "SELECT a FROM t1 WHERE EXISTS (SELECT count(*) FROM t2 WHERE t2.x = t1.a)",
    "SELECT a FROM t1 WHERE 0 IN (SELECT count(*) FROM t2 WHERE t2.x = t1.a)",
    "SELECT a, (SELECT max(y) FROM t2 WHERE t2.x < t1.a) FROM t1",
    "SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.x = t1.a AND NOT EXISTS (SELECT 1 FROM t3 WHERE t3.p = t2.y AND t3.q <> t1.a))",
    "SELECT a, (SELECT sum(y) FROM t2 WHERE t2.x = t1.a HAVING count(*) > 1) FROM t1",
];

#[test]
fn results_are_the_same_with_and_without_decorrelation() {
    let c = conn();
    for sql in UNNESTED.iter().chain(OTHERS) {
        let with = sorted_rows(&c, sql);
        c.execute("SET disabled_optimizers = 'decorrelate'")
            .unwrap();
        let without = sorted_rows(&c, sql);
        c.execute("RESET disabled_optimizers").unwrap();
        assert_eq!(with, without, "{sql}");
    }
}

#[test]
fn correlated_subqueries_become_joins() {
    let c = conn();
    for sql in UNNESTED {
        let plan = plan_of(&c, sql);
        assert!(!plan.contains("SUBQUERY"), "{sql}\n{plan}");
        assert!(plan.contains("JOIN"), "{sql}\n{plan}");
    }
}

#[test]
fn the_empty_group_of_count_is_zero() {
    let c = conn();
    assert_eq!(
        sorted_rows(
            &c,
            "SELECT a, (SELECT count(*) FROM t2 WHERE t2.x = t1.a) FROM t1"
        ),
        ["1|2", "2|1", "2|1", "3|1", "5|0", "6|1", "NULL|0"]
    );
}

/// A small outer query against a large subquery: the semi and anti joins build on
/// the outer side and the subquery's rows only mark matches.
#[test]
fn semi_and_anti_joins_built_on_the_smaller_side_agree() {
    let c = conn();
    c.execute(
        "CREATE TABLE small AS SELECT CASE WHEN i % 7 = 0 THEN NULL ELSE i * 3 END AS k, i AS v \
         FROM range(40) t(i); \
         CREATE TABLE big AS SELECT i % 100 AS k, i AS w FROM range(20000) t(i)",
    )
    .unwrap();
    let queries = [
        "SELECT k, v FROM small WHERE EXISTS (SELECT 1 FROM big WHERE big.k = small.k)",
        "SELECT k, v FROM small WHERE NOT EXISTS (SELECT 1 FROM big WHERE big.k = small.k)",
        "SELECT k, v FROM small WHERE EXISTS (SELECT 1 FROM big WHERE big.k = small.k AND big.w < small.v * 10)",
        "SELECT k, v FROM small WHERE NOT EXISTS (SELECT 1 FROM big WHERE big.k = small.k AND big.w % 1000 = small.v)",
        "SELECT k, v FROM small WHERE k IN (SELECT k FROM big WHERE w > 19900)",
    ];
    for sql in queries {
        let with = sorted_rows(&c, sql);
        c.execute("SET disabled_optimizers = 'decorrelate'")
            .unwrap();
        let without = sorted_rows(&c, sql);
        c.execute("RESET disabled_optimizers").unwrap();
        assert!(!with.is_empty() || sql.contains("NOT"), "{sql}");
        assert_eq!(with, without, "{sql}");
    }
}
