//! Comparing a benchmark query's result with a reference answer written by another
//! engine (a pipe-separated file with a header row, NULL as an empty field), under
//! the benchmarks' tolerances: strings, dates and integers exactly, money to the cent,
//! averages within 1%.

use stride::Connection;
use stride_common::ScalarValue;

/// How a set of reference answers is compared.
pub struct Reference {
    pub dir: std::path::PathBuf,
    /// Whether column names must match too.
    pub names: bool,
    /// Columns whose values are not compared.
    pub skip_columns: &'static [&'static str],
    /// Queries not compared at all.
    pub skip_queries: &'static [usize],
    /// Whether rows that differ only in order also match: the order of rows that tie
    /// on every ORDER BY key is not specified.
    pub any_order_of_ties: bool,
}

/// Why the cell `actual` in column `column` does not match the expected text, if not.
pub fn mismatch(column: &str, actual: &ScalarValue, expected: &str) -> Option<String> {
    let differs = || Some(format!("{column}: got {actual}, expected {expected}"));
    match actual {
        ScalarValue::TinyInt(_)
        | ScalarValue::SmallInt(_)
        | ScalarValue::Integer(_)
        | ScalarValue::BigInt(_) => match expected.parse::<i64>() {
            Ok(e) if actual.as_i64() == Some(e) => None,
            _ => differs(),
        },
        ScalarValue::Decimal(..) | ScalarValue::Double(_) | ScalarValue::Real(_) => {
            let (Some(a), Ok(e)) = (actual.as_f64(), expected.parse::<f64>()) else {
                return differs();
            };
            let cents = (a - e).abs() <= 0.01 + 1e-9 * e.abs();
            let average = column.starts_with("avg") && (a - e).abs() <= 0.01 * e.abs();
            if cents || average {
                None
            } else {
                differs()
            }
        }
        ScalarValue::Null if expected.is_empty() => None,
        other if other.to_string() == expected => None,
        _ => differs(),
    }
}

/// Differences between the result of `sql` and the answer in `file` (empty if none).
pub fn check(conn: &Connection, sql: &str, file: &str, reference: &Reference) -> Vec<String> {
    let path = reference.dir.join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reference answer {}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split('|').collect();
    let expected: Vec<Vec<&str>> = lines.map(|l| l.split('|').collect()).collect();
    let result = match conn.query(sql) {
        Ok(r) => r,
        Err(e) => return vec![format!("error: {e}")],
    };
    let names = result.names.clone();
    let rows = match result.collect_rows() {
        Ok(r) => r,
        Err(e) => return vec![format!("error: {e}")],
    };
    let mut problems = Vec::new();
    if names.len() != header.len() || (reference.names && names != header) {
        problems.push(format!("columns {names:?}, expected {header:?}"));
    }
    if rows.len() != expected.len() {
        problems.push(format!("{} rows, expected {}", rows.len(), expected.len()));
    }
    let row_problems = |row: &[ScalarValue], exp: &[&str]| -> Vec<String> {
        row.iter()
            .zip(exp)
            .zip(&header)
            .filter(|(_, column)| !reference.skip_columns.contains(column))
            .filter_map(|((value, e), column)| mismatch(column, value, e))
            .collect()
    };
    let mut in_order = Vec::new();
    for (i, (row, exp)) in rows.iter().zip(&expected).enumerate() {
        for m in row_problems(row, exp) {
            in_order.push(format!("row {}: {m}", i + 1));
        }
    }
    if !in_order.is_empty() && reference.any_order_of_ties && rows.len() == expected.len() {
        // Each expected row must be matched by a distinct result row.
        let mut used = vec![false; rows.len()];
        let all_found = expected.iter().all(|exp| {
            let found =
                (0..rows.len()).find(|&k| !used[k] && row_problems(&rows[k], exp).is_empty());
            found.map(|k| used[k] = true).is_some()
        });
        if all_found {
            in_order.clear();
        }
    }
    problems.extend(in_order);
    problems
}

/// Asserts each table's row count.
pub fn assert_row_counts(conn: &Connection, counts: &[(&str, i64)]) {
    for &(table, rows) in counts {
        let r = conn
            .query(&format!("SELECT count(*) FROM {table}"))
            .unwrap()
            .collect_rows()
            .unwrap();
        assert_eq!(r[0][0], ScalarValue::BigInt(rows), "{table}");
    }
}

/// Runs `PRAGMA {pragma}(N)` for N in 1..=count and compares each result with
/// `qNN.csv` of `reference`; returns a description of each query that differs.
pub fn check_queries(
    conn: &Connection,
    pragma: &str,
    count: usize,
    reference: &Reference,
) -> Vec<String> {
    let mut failures = Vec::new();
    for n in 1..=count {
        if reference.skip_queries.contains(&n) {
            continue;
        }
        let sql = format!("PRAGMA {pragma}({n})");
        let problems = check(conn, &sql, &format!("q{n:02}.csv"), reference);
        if !problems.is_empty() {
            let shown: Vec<_> = problems.iter().take(5).cloned().collect();
            failures.push(format!(
                "Q{n}: {} problem(s):\n    {}",
                problems.len(),
                shown.join("\n    ")
            ));
        }
    }
    failures
}
