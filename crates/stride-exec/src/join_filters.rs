//! Runtime join filters: once a hash join's build side is complete, the smallest and
//! largest value of each of its keys bound the probe side's key. When the probe side
//! is a table scan whose key is one of the table's columns (through filters, plain
//! projections and the probes of other hash joins, which pass their probe columns
//! through unchanged), those bounds join the scan's zone filters, so row groups whose
//! key range misses the build side's are never read. Only for joins that drop probe
//! rows without a match (inner and semi joins): whatever the joins in between do, a
//! row whose key is out of range would be dropped at this join.

use crate::context::QueryContext;
use crate::expression;
use crate::operators::hash_join::BuildSide;
use crate::pipeline::{Operator, Pipeline, Source};
use stride_common::CompareOp;
use stride_common::{DataChunk, Result, Vector, VECTOR_SIZE};
use stride_sql::plan::Expr;
use stride_storage::zone_map::Bounds;
use stride_storage::{Key, ZoneFilter, ZoneMap, ZoneTest};

/// Adds to `probe`'s scan the bounds of `build_keys` (over `build`'s rows) on the
/// columns its `probe_keys` read.
pub fn add(
    probe: &mut Pipeline,
    probe_keys: &[Expr],
    build: &BuildSide,
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
        // Bounds are physical values: both keys must be of one type.
        if pk.data_type() != bk.data_type() {
            continue;
        }
        let Some(scan_column) = trace(pk, &probe.operators) else {
            continue;
        };
        let Some(&table_column) = columns.get(scan_column).filter(|&&c| c < stored) else {
            continue;
        };
        let Some((lo, hi)) = bounds(bk, build, ctx)? else {
            continue;
        };
        for (op, key) in [(CompareOp::GtEq, lo), (CompareOp::LtEq, hi)] {
            filters.push(ZoneFilter {
                column: table_column,
                test: ZoneTest::Compare(op, Key::Int(key)),
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
            // a probe's output starts with its input's columns, as they were
            Operator::HashProbe(p) if !p.spec.marking && at < p.spec.probe_types.len() => at,
            _ => return None,
        };
    }
    Some(at)
}

/// The smallest and largest non-NULL value of `key` over `build`'s rows, as the
/// integers a zone map keeps (integers, dates, timestamps, decimals); `None` when there
/// is none or the key is of another type.
fn bounds(key: &Expr, build: &BuildSide, ctx: &QueryContext) -> Result<Option<(i128, i128)>> {
    let mut used = Vec::new();
    key.collect_columns(&mut used);
    let mut range: Option<(i128, i128)> = None;
    for start in (0..build.len).step_by(VECTOR_SIZE) {
        // A vector's worth of the columns the key reads (the others are never looked at).
        let n = VECTOR_SIZE.min(build.len - start);
        let columns = build
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| match used.contains(&i) {
                true => c.slice(start, n),
                false => Vector::null_constant(&c.ty),
            });
        let chunk = DataChunk::new(columns.collect(), n);
        let v = expression::eval(key, &chunk, ctx)?;
        let zone = ZoneMap::of(&v, chunk.len());
        match zone.bounds {
            Some(Bounds::Int(a, b)) => {
                range = Some(range.map_or((a, b), |(lo, hi)| (lo.min(a), hi.max(b))));
            }
            _ if zone.nulls == zone.rows => {}
            _ => return Ok(None),
        }
    }
    Ok(range)
}
