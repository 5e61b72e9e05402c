//! Which conditions of a filter directly over a table scan or a scan of Parquet or
//! Arrow files can skip whole row groups (or files, by their Hive partition values):
//! a column compared with a constant, a column IN a list of constants, a column IS
//! [NOT] NULL, joined by AND. The physical planner hands them to the scan, which checks
//! them against each row group's zone maps ([`stride_storage::zone_map`]) before
//! reading it. The filter itself still runs on the rows of the groups that are read.

use stride_common::DataType;
use stride_functions::scalar::ScalarFunction as F;
use stride_sql::plan::Expr;
use stride_storage::{CmpOp, Key, ZoneFilter, ZoneTest};

/// The zone filters implied by `predicate` over a scan reading `columns` of a table
/// (or files) whose columns have the types `table` (the scan's output column `i` is
/// column `columns[i]`).
pub fn zone_filters(predicate: &Expr, table: &[DataType], columns: &[usize]) -> Vec<ZoneFilter> {
    let mut conjuncts = Vec::new();
    predicate.clone().split_conjunction(&mut conjuncts);
    conjuncts
        .iter()
        .filter_map(|c| zone_filter(c, table, columns))
        .collect()
}

fn zone_filter(e: &Expr, table: &[DataType], columns: &[usize]) -> Option<ZoneFilter> {
    // The table column an expression reads, when it is a plain column (not the row
    // id, one past the last column).
    let column = |e: &Expr| match e {
        Expr::Column { index, .. } => columns.get(*index).copied().filter(|&c| c < table.len()),
        _ => None,
    };
    let key = |c: usize, e: &Expr| match e {
        Expr::Literal { value, .. } => Key::of(value, table.get(c)?),
        _ => None,
    };
    let (column, test) = match e {
        Expr::Function { func, args } if args.len() == 2 => {
            let op = match func.func {
                F::Eq => CmpOp::Eq,
                F::NotEq => CmpOp::NotEq,
                F::Lt => CmpOp::Lt,
                F::LtEq => CmpOp::LtEq,
                F::Gt => CmpOp::Gt,
                F::GtEq => CmpOp::GtEq,
                _ => return None,
            };
            if let Some(c) = column(&args[0]) {
                (c, ZoneTest::Compare(op, key(c, &args[1])?))
            } else {
                let c = column(&args[1])?;
                (c, ZoneTest::Compare(op.flip(), key(c, &args[0])?))
            }
        }
        Expr::InList {
            expr,
            list,
            negated: false,
        } => {
            let c = column(expr)?;
            let keys = list.iter().map(|e| key(c, e)).collect::<Option<Vec<_>>>()?;
            (c, ZoneTest::In(keys))
        }
        Expr::IsNull { expr, negated } => {
            let c = column(expr)?;
            (
                c,
                if *negated {
                    ZoneTest::IsNotNull
                } else {
                    ZoneTest::IsNull
                },
            )
        }
        _ => return None,
    };
    Some(ZoneFilter { column, test })
}
