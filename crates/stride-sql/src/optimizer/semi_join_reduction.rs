//! Pass `semi_join_reduction`: a join whose right input groups rows by the join keys
//! (what `decorrelate` makes of a correlated aggregate subquery: TPC-H Q2, Q17, Q20)
//! computes every group, although only groups whose keys the left input holds are
//! ever joined. When some small part of the left input yields every such key, this
//! pass filters the aggregate's input with a semi join against those keys first:
//! Q17 then averages the quantities of two thousand parts, not of two hundred
//! thousand.
//!
//! The keys come from the smallest input inside the left side that outputs the key
//! columns (a leaf of its inner joins, with the leaf's filters). The rows of the
//! whole left side are a subset of that input's rows, so no group that could join is
//! filtered out; the join above still decides which rows match. The part is computed
//! a second time, so the pass applies only when it is estimated no larger than the
//! aggregate's input, and only when it is filtered (an unfiltered table yields all
//! its keys).

use super::cardinality::estimate;
use crate::plan::visit::children_mut;
use crate::plan::{Expr, JoinKind, LogicalPlan};
use stride_common::Result;

/// The reduction pays when the keys' input is estimated no larger than the rows
/// being aggregated: probing a small hash table per row costs less than grouping the
/// row, and filter estimates are rough enough that a stricter bar misses cases that
/// pay well (a prefix LIKE keeps far fewer rows than estimated).
const AT_MOST: f64 = 1.0;

pub fn optimize(mut plan: LogicalPlan) -> Result<LogicalPlan> {
    for c in children_mut(&mut plan) {
        let child = std::mem::replace(c, super::placeholder());
        *c = optimize(child)?;
    }
    if let LogicalPlan::Join {
        left,
        right,
        kind,
        on,
        ..
    } = &mut plan
    {
        // The aggregate may be on either side of an inner join; of an outer or semi
        // join, only the side whose unmatched rows are dropped can be reduced.
        if matches!(kind, JoinKind::Inner | JoinKind::Left | JoinKind::Semi) {
            if let Some(reduced) = reduce(left, right, on) {
                **right = reduced;
                return Ok(plan);
            }
        }
        if matches!(kind, JoinKind::Inner | JoinKind::Right) {
            let swapped: Vec<(Expr, Expr)> =
                on.iter().map(|(l, r)| (r.clone(), l.clone())).collect();
            if let Some(reduced) = reduce(right, left, &swapped) {
                **left = reduced;
            }
        }
    }
    Ok(plan)
}

/// `grouped` with its aggregate's input reduced to the keys `other` can hold; `on`
/// pairs an expression over `other` with one over `grouped`. When the keys together
/// cannot be traced (Q2, once its join is inner, also joins `min(ps_supplycost)` to
/// a column of another table), each key alone is tried.
fn reduce(other: &LogicalPlan, grouped: &LogicalPlan, on: &[(Expr, Expr)]) -> Option<LogicalPlan> {
    reduce_on(other, grouped, on).or_else(|| match on.len() {
        0 | 1 => None,
        _ => on
            .iter()
            .find_map(|pair| reduce_on(other, grouped, std::slice::from_ref(pair))),
    })
}

fn reduce_on(
    other: &LogicalPlan,
    grouped: &LogicalPlan,
    on: &[(Expr, Expr)],
) -> Option<LogicalPlan> {
    if on.is_empty() {
        return None;
    }
    let mut left_cols = Vec::new();
    let mut right_cols = Vec::new();
    for (l, r) in on {
        match (l, r) {
            (Expr::Column { index: a, .. }, Expr::Column { index: b, .. }) => {
                left_cols.push(*a);
                right_cols.push(*b);
            }
            _ => return None,
        }
    }
    let (domain, cols) = key_source(other, &left_cols)?;
    let keys = LogicalPlan::Project {
        exprs: cols
            .iter()
            .map(|&c| {
                let f = &domain.schema()[c];
                Expr::column(c, f.ty.clone(), f.name.clone())
            })
            .collect(),
        schema: cols.iter().map(|&c| domain.schema()[c].clone()).collect(),
        input: Box::new(domain),
    };
    filter_groups(grouped, &right_cols, keys)
}

/// `plan` with the input of the aggregate that produces output columns `cols` (group
/// columns, through projections and filters) semi-joined with `keys`; `None` when the
/// columns are not an aggregate's groups or the reduction would not pay.
fn filter_groups(plan: &LogicalPlan, cols: &[usize], keys: LogicalPlan) -> Option<LogicalPlan> {
    match plan {
        LogicalPlan::Project {
            input,
            exprs,
            schema,
        } => {
            let inner = cols
                .iter()
                .map(|&c| match exprs.get(c)? {
                    Expr::Column { index, .. } => Some(*index),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?;
            Some(LogicalPlan::Project {
                input: Box::new(filter_groups(input, &inner, keys)?),
                exprs: exprs.clone(),
                schema: schema.clone(),
            })
        }
        LogicalPlan::Filter { input, predicate } => Some(LogicalPlan::Filter {
            input: Box::new(filter_groups(input, cols, keys)?),
            predicate: predicate.clone(),
        }),
        LogicalPlan::Aggregate {
            input,
            group_by,
            aggregates,
            schema,
        } => {
            // Keys from an unfiltered table are all its keys: nothing is reduced
            // (Q18's orders hold every l_orderkey, also when read from files).
            if estimate(&keys) > AT_MOST * estimate(input) || whole_table(&keys) {
                return None;
            }
            // Join keys that are grouping columns filter; one on an aggregate's value
            // (Q2 joins on `min(ps_supplycost)` too, once its join is inner) is left to
            // the join: semi-joining on fewer columns keeps more groups, never fewer.
            let on: Vec<(Expr, Expr)> = cols
                .iter()
                .enumerate()
                .filter_map(|(k, &c)| {
                    let g = group_by.get(c)?;
                    let f = &keys.schema()[k];
                    (g.data_type() == f.ty)
                        .then(|| (g.clone(), Expr::column(k, f.ty.clone(), f.name.clone())))
                })
                .collect();
            if on.is_empty() {
                return None;
            }
            let filtered = LogicalPlan::Join {
                schema: input.schema().to_vec(),
                left: input.clone(),
                right: Box::new(keys),
                kind: JoinKind::Semi,
                on,
                filter: None,
            };
            Some(LogicalPlan::Aggregate {
                input: Box::new(filtered),
                group_by: group_by.clone(),
                aggregates: aggregates.clone(),
                schema: schema.clone(),
            })
        }
        _ => None,
    }
}

/// The smallest input inside `plan` whose rows, projected on the returned columns,
/// include every value of `plan`'s columns `cols`: found by following the columns
/// into the side of an inner join (or the preserved side of an outer or semi join)
/// that produces them all.
fn key_source(plan: &LogicalPlan, cols: &[usize]) -> Option<(LogicalPlan, Vec<usize>)> {
    let whole = || Some((plan.clone(), cols.to_vec()));
    match plan {
        LogicalPlan::Project { input, exprs, .. } => {
            let inner = cols
                .iter()
                .map(|&c| match exprs.get(c)? {
                    Expr::Column { index, .. } => Some(*index),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>();
            match inner {
                Some(inner) => key_source(input, &inner),
                None => whole(),
            }
        }
        LogicalPlan::Join {
            left, right, kind, ..
        } => {
            let nleft = left.schema().len();
            let all_left = cols.iter().all(|&c| c < nleft);
            let all_right = cols.iter().all(|&c| c >= nleft);
            match kind {
                JoinKind::Inner | JoinKind::Left if all_left => key_source(left, cols),
                JoinKind::Inner | JoinKind::Right if all_right => {
                    let shifted: Vec<usize> = cols.iter().map(|&c| c - nleft).collect();
                    key_source(right, &shifted)
                }
                // A semi or anti join keeps its filtering: it is what makes the input small.
                JoinKind::Semi | JoinKind::Anti => whole(),
                _ => None,
            }
        }
        // A filter over a join may span both sides: dropping it keeps a superset.
        LogicalPlan::Filter { input, .. }
            if matches!(
                **input,
                LogicalPlan::Join {
                    kind: JoinKind::Inner,
                    ..
                }
            ) =>
        {
            key_source(input, cols)
        }
        _ => whole(),
    }
}

/// Whether `plan` is a table read whole (its columns, perhaps projected): a stored
/// table, or files (Parquet, Arrow, CSV) or registered data read by a table
/// function.
fn whole_table(plan: &LogicalPlan) -> bool {
    match plan {
        LogicalPlan::Scan { .. } => true,
        LogicalPlan::TableFunction { func, .. } => func.reads_source(),
        LogicalPlan::Project { input, .. } => whole_table(input),
        _ => false,
    }
}
