//! `TABLESAMPLE` after a table, table function or derived table: the FROM item's rows
//! are bound as usual and the sample is built on top of them from ordinary plan nodes,
//! keeping the item's columns (and so its scope) as they are.
//!
//! * `n ROWS`, a bare `n`, `reservoir(n)` and `system(n)`: exactly min(n, rows) rows,
//!   each set of n rows equally likely (the rows sorted by a random key, the first n
//!   kept).
//! * `p PERCENT`, `system(p PERCENT)`, `bernoulli(p PERCENT)`: each row kept with
//!   probability p/100 (DuckDB's `system` keeps or drops whole vectors; stride
//!   samples rows, which has the same expected size).
//! * `reservoir(p PERCENT)`: exactly round(rows * p / 100) rows, as in DuckDB.
//! * `REPEATABLE (seed)`: the random key of a row is a hash of its position and the
//!   seed, so the same seed over the same input picks the same rows.
//!
//! Bucket sampling (`BUCKET x OUT OF y`), `OFFSET`, and the `BLOCK` method of other
//! dialects are refused. The method `ROW` is what the parser turns `reservoir` into.

use super::function::bind_scalar_call;
use crate::plan::{Expr, Field, LogicalPlan, SortExpr, WindowExpr, WindowFrame, WindowFunction};
use sqlparser::ast;
use stride_common::{DataType, Error, Result, ScalarValue};
use stride_functions::aggregate::AggregateFunction;

/// How the rows are picked.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Method {
    /// A fixed number of rows, all sets of that size equally likely.
    Reservoir,
    /// Each row on its own, with the same probability.
    Bernoulli,
}

/// How many rows a sample keeps.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Size {
    Rows(u64),
    Percent(f64),
}

/// A bound `TABLESAMPLE` clause.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Sample {
    method: Method,
    size: Size,
    seed: Option<i64>,
}

const USAGE: &str = "write TABLESAMPLE n ROWS, TABLESAMPLE p PERCENT, or TABLESAMPLE reservoir(n) / bernoulli(p PERCENT) / system(p PERCENT), optionally followed by REPEATABLE (seed)";

/// The number a sample's size or seed is written as.
fn number(e: &ast::Expr, what: &str) -> Result<f64> {
    match e {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) => n.parse::<f64>().ok(),
            _ => None,
        },
        ast::Expr::Nested(inner) => return number(inner, what),
        _ => None,
    }
    .ok_or_else(|| {
        Error::parse(format!(
            "TABLESAMPLE {what} must be a number, not {e}; {USAGE}"
        ))
    })
}

/// Reads a parsed `TABLESAMPLE` clause.
pub(super) fn bind_sample(s: &ast::TableSample) -> Result<Sample> {
    if s.bucket.is_some() || s.offset.is_some() {
        return Err(Error::not_supported(format!(
            "TABLESAMPLE with BUCKET or OFFSET is not supported; {USAGE}"
        )));
    }
    let Some(q) = &s.quantity else {
        return Err(Error::parse(format!(
            "TABLESAMPLE needs a sample size; {USAGE}"
        )));
    };
    // `reservoir(5)` is parsed as a function call.
    let (method_name, value) = match (&s.name, &q.value) {
        (Some(ast::TableSampleMethod::Bernoulli), v) => (Some("bernoulli".to_string()), v),
        (Some(ast::TableSampleMethod::System), v) => (Some("system".to_string()), v),
        // The parser's name for `reservoir` (`parser.rs`).
        (Some(ast::TableSampleMethod::Row), v) => (Some("reservoir".to_string()), v),
        (Some(m), _) => {
            return Err(Error::not_supported(format!(
                "TABLESAMPLE method {m} is not supported; {USAGE}"
            )))
        }
        (None, ast::Expr::Function(f)) => {
            let ast::FunctionArguments::List(list) = &f.args else {
                return Err(Error::parse(format!(
                    "TABLESAMPLE {f} needs a sample size in parentheses; {USAGE}"
                )));
            };
            let [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(v))] = list.args.as_slice()
            else {
                return Err(Error::parse(format!(
                    "TABLESAMPLE {f} takes one sample size; {USAGE}"
                )));
            };
            (Some(f.name.to_string().to_lowercase()), v)
        }
        (None, v) => (None, v),
    };
    let amount = number(value, "size")?;
    let size = match q.unit {
        Some(ast::TableSampleUnit::Percent) => {
            if !(0.0..=100.0).contains(&amount) {
                return Err(Error::parse(format!(
                    "TABLESAMPLE size {amount} PERCENT is out of range: it must be between 0 and 100"
                )));
            }
            Size::Percent(amount)
        }
        Some(ast::TableSampleUnit::Rows) | None => {
            if amount < 0.0 {
                return Err(Error::parse(format!(
                    "TABLESAMPLE size {amount} ROWS must not be negative"
                )));
            }
            Size::Rows(amount as u64)
        }
    };
    let method = match (method_name.as_deref(), size) {
        (None, Size::Rows(_)) | (Some("reservoir" | "system"), Size::Rows(_)) => {
            Method::Reservoir
        }
        (Some("reservoir"), Size::Percent(_)) => Method::Reservoir,
        (None | Some("system" | "bernoulli"), Size::Percent(_)) => Method::Bernoulli,
        (Some("bernoulli"), Size::Rows(_)) => {
            return Err(Error::parse(format!(
                "bernoulli sampling keeps a share of the rows, not a number of them: write bernoulli({amount} PERCENT), or reservoir({amount}) for {amount} rows"
            )))
        }
        (Some(other), _) => {
            return Err(Error::parse(format!(
                "unknown TABLESAMPLE method \"{other}\"; the methods are reservoir, bernoulli and system"
            )))
        }
    };
    let seed = match &s.seed {
        None => None,
        Some(seed) => {
            let v = match &seed.value.value {
                ast::Value::Number(n, _) => n.parse::<i64>().ok(),
                _ => None,
            };
            Some(v.ok_or_else(|| {
                Error::parse(format!(
                    "REPEATABLE takes a whole number as the seed, not {}",
                    seed.value
                ))
            })?)
        }
    };
    Ok(Sample { method, size, seed })
}

/// The rows of `plan` (whose output columns are `fields`) that `sample` keeps, with
/// the same columns.
pub(super) fn apply_sample(plan: LogicalPlan, sample: &Sample) -> Result<LogicalPlan> {
    let fields = plan.schema().to_vec();
    let n = fields.len();
    let mut schema = fields.clone();
    // The random key of each row: random(), or a hash of the row's position and the
    // seed (the position is column n of `plan`).
    let (mut plan, key) = match sample.seed {
        None => (plan, bind_scalar_call("random", vec![])?),
        Some(seed) => {
            schema.push(Field::new("__sample_position", DataType::BigInt));
            let windowed = LogicalPlan::Window {
                input: Box::new(plan),
                functions: vec![window(WindowFunction::RowNumber, vec![])],
                schema: schema.clone(),
            };
            let position = Expr::column(n, DataType::BigInt, "__sample_position");
            let key = bind_scalar_call(
                "hash",
                vec![position, Expr::literal(ScalarValue::BigInt(seed))],
            )?;
            (windowed, key)
        }
    };
    let by_key = || SortExpr {
        expr: key.clone(),
        asc: true,
        nulls_first: false,
    };
    plan = match (sample.method, sample.size) {
        (_, Size::Rows(rows)) => LogicalPlan::Limit {
            input: Box::new(LogicalPlan::Sort {
                input: Box::new(plan),
                keys: vec![by_key()],
            }),
            limit: Some(rows),
            offset: 0,
        },
        (Method::Bernoulli, Size::Percent(p)) => {
            let threshold = match sample.seed {
                // random() is in [0, 1).
                None => Expr::literal(ScalarValue::Double(p / 100.0)),
                // hash() is spread evenly over all BIGINTs: keep the lowest p percent.
                Some(_) => {
                    let span = (p / 100.0 * 2f64.powi(64)) as i128;
                    let bound = i64::MIN as i128 + span;
                    if bound > i64::MAX as i128 {
                        return project(plan, &fields);
                    }
                    Expr::literal(ScalarValue::BigInt(bound as i64))
                }
            };
            LogicalPlan::Filter {
                input: Box::new(plan),
                predicate: bind_scalar_call("<", vec![key, threshold])?,
            }
        }
        // round(rows * p / 100) rows: number the rows in key order, and count them.
        (Method::Reservoir, Size::Percent(p)) => {
            let m = schema.len();
            let mut rank = window(WindowFunction::RowNumber, vec![]);
            rank.order_by = vec![by_key()];
            rank.frame = WindowFrame::default_for(true);
            schema.push(Field::new("__sample_rank", DataType::BigInt));
            schema.push(Field::new("__sample_count", DataType::BigInt));
            let windowed = LogicalPlan::Window {
                input: Box::new(plan),
                functions: vec![
                    rank,
                    window(
                        WindowFunction::Aggregate(AggregateFunction::CountStar),
                        vec![],
                    ),
                ],
                schema,
            };
            let count = Expr::Cast {
                expr: Box::new(Expr::column(m + 1, DataType::BigInt, "__sample_count")),
                to: DataType::Double,
                try_cast: false,
            };
            let share = bind_scalar_call(
                "/",
                vec![
                    bind_scalar_call("*", vec![count, Expr::literal(ScalarValue::Double(p))])?,
                    Expr::literal(ScalarValue::Double(100.0)),
                ],
            )?;
            let rank = Expr::Cast {
                expr: Box::new(Expr::column(m, DataType::BigInt, "__sample_rank")),
                to: DataType::Double,
                try_cast: false,
            };
            LogicalPlan::Filter {
                input: Box::new(windowed),
                predicate: bind_scalar_call(
                    "<=",
                    vec![rank, bind_scalar_call("round", vec![share])?],
                )?,
            }
        }
    };
    project(plan, &fields)
}

/// A window function over the whole input (no partitions, no order).
fn window(func: WindowFunction, args: Vec<Expr>) -> WindowExpr {
    WindowExpr {
        func,
        args,
        partition_by: vec![],
        order_by: vec![],
        frame: WindowFrame::default_for(false),
        ignore_nulls: false,
        filter: None,
        distinct: false,
        ty: DataType::BigInt,
    }
}

/// The first `fields.len()` columns of `plan`.
fn project(plan: LogicalPlan, fields: &[Field]) -> Result<LogicalPlan> {
    if plan.schema().len() == fields.len() {
        return Ok(plan);
    }
    Ok(LogicalPlan::Project {
        input: Box::new(plan),
        exprs: fields
            .iter()
            .enumerate()
            .map(|(i, f)| Expr::column(i, f.ty.clone(), f.name.clone()))
            .collect(),
        schema: fields.to_vec(),
    })
}
