//! Which conditions of a filter directly over a scan its source can use: a column
//! compared with a constant, a column IN a list of constants, a column IS [NOT]
//! NULL, a boolean column or its negation, joined by AND ([`conditions`]). A table
//! scan or a scan of Parquet or Arrow files checks them against each row group's
//! zone maps (or files' Hive partition values) before reading it ([`zone_filters`],
//! [`stride_storage::zone_map`]); an external source (a pyarrow Dataset) evaluates
//! those it accepts itself. The filter itself still runs on the rows read.

use stride_common::{CompareOp, DataType, ScalarValue};
use stride_functions::scalar::ScalarFunction as F;
use stride_io::external::{SourceFilter, SourceTest};
use stride_sql::plan::Expr;
use stride_storage::{Key, ZoneFilter, ZoneTest};

/// The zone filters implied by `predicate` over a scan reading `columns` of a table
/// (or files) whose columns have the types `table` (the scan's output column `i` is
/// column `columns[i]`).
pub fn zone_filters(predicate: &Expr, table: &[DataType], columns: &[usize]) -> Vec<ZoneFilter> {
    conditions(predicate, table.len(), columns)
        .iter()
        .filter_map(|c| zone_filter(c, &table[c.column]))
        .collect()
}

/// The simple conditions of `predicate` over a scan reading `columns` of a source
/// with `width` columns (the scan's output column `i` is column `columns[i]`), on
/// the source's columns.
pub fn conditions(predicate: &Expr, width: usize, columns: &[usize]) -> Vec<SourceFilter> {
    let mut conjuncts = Vec::new();
    predicate.clone().split_conjunction(&mut conjuncts);
    conjuncts
        .iter()
        .filter_map(|c| condition(c, width, columns))
        .collect()
}

fn condition(e: &Expr, width: usize, columns: &[usize]) -> Option<SourceFilter> {
    // The source column an expression reads, when it is a plain column (not the row
    // id, one past the last column).
    let column = |e: &Expr| match e {
        Expr::Column { index, .. } => columns.get(*index).copied().filter(|&c| c < width),
        _ => None,
    };
    let constant = |e: &Expr| match e {
        Expr::Literal { value, .. } if !value.is_null() => Some(value.clone()),
        _ => None,
    };
    let (column, test) = match e {
        // A boolean column as a condition (`WHERE done`, `WHERE NOT done`).
        Expr::Column { .. } => (
            column(e)?,
            SourceTest::Compare(CompareOp::Eq, ScalarValue::Boolean(true)),
        ),
        Expr::Not(inner) => (
            column(inner)?,
            SourceTest::Compare(CompareOp::Eq, ScalarValue::Boolean(false)),
        ),
        Expr::Function { func, args } if args.len() == 2 => {
            let op = match func.func {
                F::Eq => CompareOp::Eq,
                F::NotEq => CompareOp::NotEq,
                F::Lt => CompareOp::Lt,
                F::LtEq => CompareOp::LtEq,
                F::Gt => CompareOp::Gt,
                F::GtEq => CompareOp::GtEq,
                _ => return None,
            };
            if let Some(c) = column(&args[0]) {
                (c, SourceTest::Compare(op, constant(&args[1])?))
            } else {
                let c = column(&args[1])?;
                (c, SourceTest::Compare(op.flip(), constant(&args[0])?))
            }
        }
        Expr::InList {
            expr,
            list,
            negated: false,
            ..
        } => {
            let c = column(expr)?;
            (
                c,
                SourceTest::In(list.iter().map(constant).collect::<Option<Vec<_>>>()?),
            )
        }
        Expr::IsNull { expr, negated } => {
            let c = column(expr)?;
            (
                c,
                if *negated {
                    SourceTest::IsNotNull
                } else {
                    SourceTest::IsNull
                },
            )
        }
        _ => return None,
    };
    Some(SourceFilter { column, test })
}

/// `c` as a zone-map test on a column of type `ty`, where its constants compare
/// with the column's values directly.
fn zone_filter(c: &SourceFilter, ty: &DataType) -> Option<ZoneFilter> {
    let test = match &c.test {
        SourceTest::Compare(op, value) => ZoneTest::Compare(*op, Key::of(value, ty)?),
        SourceTest::In(list) => ZoneTest::In(
            list.iter()
                .map(|v| Key::of(v, ty))
                .collect::<Option<Vec<_>>>()?,
        ),
        SourceTest::IsNull => ZoneTest::IsNull,
        SourceTest::IsNotNull => ZoneTest::IsNotNull,
    };
    Some(ZoneFilter {
        column: c.column,
        test,
    })
}
