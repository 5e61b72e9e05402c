//! TPC-DS at scale factors 0.01 and 0.1: `CALL dsdgen` fills the 24 tables and each
//! of the 99 queries, run with `PRAGMA tpcds(N)`, must match DuckDB's answer on the
//! same generated rows (tests/tpcds/make_answers.py loads tpcgen-cli's CSV files,
//! which come from the same tpcdsgen crate). A result whose rows match in another
//! order is accepted: TPC-DS queries order by keys that tie, and the order of tied
//! rows is not specified (the TPC-H test compares in order).

use crate::common;

use common::answers::{assert_row_counts, check_queries, Reference};
use stride::Connection;

fn generated(sf: &str) -> Connection {
    let conn = stride::Database::open_in_memory()
        .unwrap()
        .connect()
        .unwrap();
    conn.execute(&format!("CALL dsdgen(sf = {sf})")).unwrap();
    conn
}

/// Checks every query but `skip` against DuckDB's answers at scale factor `sf`.
fn check_all(conn: &Connection, sf: &str, skip: &'static [usize]) {
    let reference = Reference {
        dir: std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/tpcds")
            .join(format!("duckdb-sf{sf}")),
        // Names of unaliased expressions follow each engine's own rendering
        // (DuckDB's `count_star()`, `"substring"(...)`), and DuckDB keeps the case
        // of aliases as typed where stride folds them as PostgreSQL does; the
        // number of columns is still checked.
        names: false,
        skip_columns: &[],
        skip_queries: skip,
        any_order_of_ties: true,
    };
    let failures = check_queries(conn, "tpcds", stride_tpch::TPCDS_QUERY_COUNT, &reference);
    assert!(
        failures.is_empty(),
        "{} of 99 queries differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// SF 0.01: the tables' row counts (as tpcgen-cli writes them), clear errors, and
/// the queries.
#[test]
fn all_99_queries_match_duckdb_at_sf_0_01() {
    let conn = generated("0.01");
    let counts = [
        ("call_center", 2),
        ("catalog_page", 11718),
        ("catalog_returns", 8923),
        ("catalog_sales", 89807),
        ("customer", 1000),
        ("customer_demographics", 1920800),
        ("date_dim", 73049),
        ("inventory", 261261),
        ("reason", 75),
        ("store_returns", 11925),
        ("store_sales", 120527),
        ("time_dim", 86400),
        ("web_returns", 1152),
        ("web_sales", 11876),
    ];
    assert_row_counts(&conn, &counts);
    assert_eq!(stride_tpch::tpcds_tables().len(), 24);
    for (sql, expected) in [
        ("CALL dsdgen(sf = 0.01)", "already exists"),
        ("PRAGMA tpcds(100)", "no TPC-DS query 100"),
        ("PRAGMA tpcds('x')", "query number"),
        ("CALL dsdgen(sf = 0)", "out of range"),
        ("CALL dsdgen(scale = 1)", "no parameter \"scale\""),
        // Q12 divides by a class's revenue, which is 0 for one class at this scale:
        // DuckDB's `/` gives NaN there, stride's fails as PostgreSQL's does (see
        // docs/architecture.md), so Q12 is not compared at this scale.
        ("PRAGMA tpcds(12)", "division by zero"),
    ] {
        let err = conn
            .query(sql)
            .and_then(|r| r.collect_rows())
            .unwrap_err()
            .to_string();
        assert!(err.contains(expected), "{sql}: {err}");
    }
    check_all(&conn, "0.01", &[12]);
}

#[test]
fn all_99_queries_match_duckdb_at_sf_0_1() {
    check_all(&generated("0.1"), "0.1", &[]);
}
