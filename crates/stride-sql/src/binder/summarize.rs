//! SUMMARIZE table / SUMMARIZE query (DuckDB's): one row per column of the table or
//! query, with DuckDB's columns — column_name, column_type, min, max, approx_unique,
//! avg, std, q25, q50, q75, count, null_percentage — min to q75 as VARCHAR.
//!
//! Where it sits: `parser.rs` turns `SUMMARIZE x` into `SELECT * FROM
//! summarize((query))` (also inside parentheses, `FROM (SUMMARIZE t)`); here, in
//! binding (step 3), the query is bound once to learn its columns, and the call
//! becomes an ordinary query, written as SQL and bound in its place:
//!
//! ```sql
//! WITH __summary AS (SELECT min(c0)::VARCHAR AS min_0, ..., count(*) AS n
//!                    FROM (query) AS __source)
//! SELECT 'c0' AS column_name, 'INTEGER' AS column_type, min_0 AS min, ... FROM __summary
//! UNION ALL SELECT 'c1', ... FROM __summary
//! ```
//!
//! The source is read once (one aggregate for every column; the CTE read by each
//! branch is computed once). avg and std are computed in DOUBLE for numeric columns,
//! as DuckDB's are; the quartiles are exact (`quantile_disc` for integers,
//! `quantile_cont` cast back to the column's type for others) where DuckDB's are
//! approximate (`approx_quantile`, a t-digest), so
//! they can differ on small or irregular data; approx_unique is stride's HyperLogLog
//! count. Dates and timestamps get their average moment as a TIMESTAMP, as in
//! DuckDB, and no std; lists get only counts.

use super::Binder;
use crate::plan::LogicalPlan;
use sqlparser::ast;
use stride_common::{DataType, Error, Result};

impl Binder<'_> {
    /// `summarize((query))`, the rewritten SUMMARIZE.
    pub(super) fn bind_summarize(&mut self, args: &[ast::FunctionArg]) -> Result<LogicalPlan> {
        let [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Subquery(q)))] = args
        else {
            return Err(Error::binder(
                "summarize takes one query in parentheses; write SUMMARIZE table or SUMMARIZE SELECT ...",
            ));
        };
        let source = self.bind_query(q)?;
        let columns: Vec<(String, DataType)> = source
            .schema()
            .iter()
            .map(|f| (f.name.clone(), f.ty.clone()))
            .collect();
        let sql = summary_sql(&q.to_string(), &columns);
        let statements = crate::parser::parse(&sql)?;
        let [ast::Statement::Query(summary)] = statements.as_slice() else {
            return Err(Error::internal(
                "SUMMARIZE's query did not parse as one query",
            ));
        };
        self.bind_query(summary)
    }
}

/// `name` as a quoted identifier.
fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// `text` as a string literal.
fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// The query SUMMARIZE of `source` (SQL text) with these columns stands for.
fn summary_sql(source: &str, columns: &[(String, DataType)]) -> String {
    const NONE: &str = "CAST(NULL AS VARCHAR)";
    let mut aggregates = vec!["count(*) AS n".to_string()];
    let mut branches = Vec::with_capacity(columns.len());
    for (k, (name, ty)) in columns.iter().enumerate() {
        let c = ident(name);
        let orderable = !matches!(ty, DataType::List(_) | DataType::Null);
        let numeric = ty.is_numeric() || *ty == DataType::UHugeInt;
        let temporal = matches!(
            ty,
            DataType::Date | DataType::Timestamp | DataType::TimestampTz
        );
        let quartiles = numeric || temporal;
        let mut agg = |what: &str, expr: String| aggregates.push(format!("{expr} AS {what}_{k}"));
        if orderable {
            agg("min", format!("CAST(min({c}) AS VARCHAR)"));
            agg("max", format!("CAST(max({c}) AS VARCHAR)"));
            agg("unique", format!("approx_count_distinct({c})"));
        }
        if numeric {
            agg("avg", format!("CAST(avg(CAST({c} AS DOUBLE)) AS VARCHAR)"));
            agg(
                "std",
                format!("CAST(stddev(CAST({c} AS DOUBLE)) AS VARCHAR)"),
            );
        } else if temporal {
            // The average moment, a TIMESTAMP (as DuckDB's avg of dates).
            agg(
                "avg",
                format!("CAST(make_timestamp(CAST(avg(epoch_us({c})) AS BIGINT)) AS VARCHAR)"),
            );
        }
        if quartiles {
            // Integers take a value of the column (as DuckDB's approximate quartiles
            // of integers are), others interpolate.
            let f = if ty.is_integer() || *ty == DataType::UHugeInt {
                "quantile_disc"
            } else {
                "quantile_cont"
            };
            for q in ["25", "50", "75"] {
                agg(
                    &format!("q{q}"),
                    format!("CAST(CAST({f}({c}, 0.{q}) AS {ty}) AS VARCHAR)"),
                );
            }
        }
        agg("nonnull", format!("count({c})"));
        let or_none = |present: bool, what: &str| {
            if present {
                format!("{what}_{k}")
            } else {
                NONE.to_string()
            }
        };
        branches.push(format!(
            "SELECT {} AS column_name, {} AS column_type, {} AS min, {} AS max, {} AS approx_unique, \
             {} AS avg, {} AS std, {} AS q25, {} AS q50, {} AS q75, n AS count, \
             CASE WHEN n = 0 THEN NULL ELSE CAST(100.0 * (n - nonnull_{k}) / n AS DECIMAL(9,2)) END AS null_percentage \
             FROM __summary",
            literal(name),
            literal(&ty.to_string()),
            or_none(orderable, "min"),
            or_none(orderable, "max"),
            if orderable {
                format!("unique_{k}")
            } else {
                "CAST(NULL AS BIGINT)".to_string()
            },
            or_none(numeric || temporal, "avg"),
            or_none(numeric, "std"),
            or_none(quartiles, "q25"),
            or_none(quartiles, "q50"),
            or_none(quartiles, "q75"),
        ));
    }
    format!(
        "WITH __summary AS (SELECT {} FROM ({source}) AS __source) {}",
        aggregates.join(", "),
        branches.join(" UNION ALL ")
    )
}
