//! Runtime join filters: once a hash join's build side is complete, the smallest and
//! largest value of each of its keys bound the probe side's key. When the probe side
//! is a table scan whose key is one of the table's columns (through filters and plain
//! projections), those bounds join the scan's zone filters, so row groups whose key
//! range misses the build side's are never read. Only for joins that drop probe rows
//! without a match (inner and semi joins).

use crate::context::QueryContext;
use crate::expression;
use crate::pipeline::{Operator, Pipeline, Source};
use stride_common::{DataChunk, Result, ScalarValue};
use stride_sql::plan::Expr;
use stride_storage::{CmpOp, Key, ZoneFilter, ZoneTest};

/// Adds to `probe`'s scan the bounds of `build_keys` (over `build`'s chunks) on the
/// columns its `probe_keys` read.
pub fn add(
    probe: &mut Pipeline,
    probe_keys: &[Expr],
    build: &[DataChunk],
    build_keys: &[Expr],
    ctx: &QueryContext,
) -> Result<()> {
    let Source::Scan {
        columns,
        filters,
        row_groups,
        ..
    } = &mut probe.source
    else {
        return Ok(());
    };
    // Positions past the table's columns are the row id, which has no zone map.
    let stored = row_groups.first().map_or(0, |g| g.columns.len());
    for (pk, bk) in probe_keys.iter().zip(build_keys) {
        let Some(scan_column) = trace(pk, &probe.operators) else {
            continue;
        };
        let Some(&table_column) = columns.get(scan_column).filter(|&&c| c < stored) else {
            continue;
        };
        let Some((lo, hi)) = bounds(bk, build, ctx)? else {
            continue;
        };
        let ty = pk.data_type();
        if let (Some(lo), Some(hi)) = (Key::of(&lo, &ty), Key::of(&hi, &ty)) {
            filters.push(ZoneFilter {
                column: table_column,
                test: ZoneTest::Compare(CmpOp::GtEq, lo),
            });
            filters.push(ZoneFilter {
                column: table_column,
                test: ZoneTest::Compare(CmpOp::LtEq, hi),
            });
        }
    }
    Ok(())
}

/// The scan output column a key over the pipeline's output reads, when it is a plain
/// column passed through every operator unchanged.
fn trace(key: &Expr, operators: &[Operator]) -> Option<usize> {
    let Expr::Column { index, .. } = key else {
        return None;
    };
    let mut at = *index;
    for op in operators.iter().rev() {
        at = match op {
            Operator::Filter(_) => at,
            Operator::Columns(picks) => picks.get(at)?.0,
            Operator::Project(exprs) => match exprs.get(at)? {
                Expr::Column { index, .. } => *index,
                _ => return None,
            },
            _ => return None,
        };
    }
    Some(at)
}

/// The smallest and largest non-NULL value of `key` over `chunks`; `None` when there
/// is none or the values do not order simply.
fn bounds(
    key: &Expr,
    chunks: &[DataChunk],
    ctx: &QueryContext,
) -> Result<Option<(ScalarValue, ScalarValue)>> {
    let mut lo: Option<ScalarValue> = None;
    let mut hi: Option<ScalarValue> = None;
    for chunk in chunks {
        let v = expression::eval(key, chunk, ctx)?;
        let v = v.flatten(chunk.len());
        let zone = stride_storage::ZoneMap::of(&v, chunk.len());
        let Some(stride_storage::zone_map::Bounds::Int(a, b)) = zone.bounds else {
            if zone.nulls < zone.rows {
                return Ok(None); // not integers: no bounds
            }
            continue;
        };
        let (a, b) = (scalar_like(&v.ty, a), scalar_like(&v.ty, b));
        let (Some(a), Some(b)) = (a, b) else {
            return Ok(None);
        };
        if lo.as_ref().is_none_or(|l| a.total_cmp(l).is_lt()) {
            lo = Some(a);
        }
        if hi.as_ref().is_none_or(|h| b.total_cmp(h).is_gt()) {
            hi = Some(b);
        }
    }
    Ok(lo.zip(hi))
}

/// The integer `x` as a value of type `ty` (integers, dates, timestamps, decimals).
fn scalar_like(ty: &stride_common::DataType, x: i128) -> Option<ScalarValue> {
    use stride_common::DataType as T;
    Some(match ty {
        T::TinyInt => ScalarValue::TinyInt(x as i8),
        T::SmallInt => ScalarValue::SmallInt(x as i16),
        T::Integer => ScalarValue::Integer(x as i32),
        T::BigInt => ScalarValue::BigInt(x as i64),
        T::Date => ScalarValue::Date(x as i32),
        T::Timestamp => ScalarValue::Timestamp(x as i64),
        T::Decimal(p, s) => ScalarValue::Decimal(x, *p, *s),
        _ => return None,
    })
}
