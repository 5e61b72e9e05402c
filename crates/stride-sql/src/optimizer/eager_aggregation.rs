//! Pass `eager_aggregation`: an aggregate over an inner join whose aggregate
//! arguments all read one side first aggregates that side by its join keys and the
//! grouping columns it holds, when that leaves far fewer rows; the smaller result is
//! joined, and aggregated again by the query's groups. TPC-DS Q22 averages 2.3M
//! inventory rows per item's product name, brand, class and category: summing per
//! item first leaves 18,000 rows to join and to group by four strings. Only the
//! topmost join under the aggregate is considered: where the join order puts
//! another table above the one the groups come from, nothing changes.
//!
//! Why it is right: every row the join would pair with a row of the other side is
//! summed into one partial row, which the join pairs with the same rows; summing
//! (counting, taking the least or greatest of) the partial results per group gives
//! what the rows would. So it holds however many rows of the other side match. Only
//! aggregates that split into parts and their combination (`plan/aggregate_split.rs`:
//! count, sum, min, max, avg), over an inner join without a residual condition.
//!
//! When: the partial groups' estimate (the product of the distinct counts of their
//! columns, a column that a filter compares with constants counting as that many)
//! must be at most a tenth of that side's estimated rows, a tenth more for each
//! string the query groups by (up to a half: grouping by strings costs far more per
//! row than the partial aggregate, so fewer rows pay off sooner; TPC-DS Q04 groups
//! store_sales by customer and year, a fifth of its rows, before grouping them by
//! seven strings of the customer), and the other side's
//! filters must keep at least a quarter of its rows (else joining first, with its
//! runtime filter, leaves fewer rows to aggregate); where a count is unknown,
//! nothing changes. The pass runs after the join order is fixed, before
//! `common_subexpressions` and `unused_columns`.

use super::cardinality::{estimate, selectivity};
use super::filter_pushdown::substitute;
use super::join_order::{distinct_through, InputFacts};
use super::Statistics;
use crate::plan::aggregate_split::{split, Split};
use crate::plan::visit::children_mut;
use crate::plan::{aggregate_schema, AggregateExpr, Expr, Field, JoinKind, LogicalPlan};
use stride_common::{PhysicalType, Result};

/// The partial groups must be at most this fraction of the rows they come from, and
/// this fraction more for each string group column, up to [`MOST_GROUPS_WIDE`]. (At a
/// quarter, TPC-H Q18's lineitem summed per order, 1.5M groups of 6M rows, took
/// longer than joining first: its other side keeps 57 orders, and its groups have
/// one string.)
const MOST_GROUPS: f64 = 0.1;
const MOST_GROUPS_WIDE: f64 = 0.5;
/// The other side's filters must keep at least this fraction of its rows.
const LEAST_KEPT: f64 = 0.25;

pub fn optimize(mut plan: LogicalPlan, stats: &dyn Statistics) -> Result<LogicalPlan> {
    for c in children_mut(&mut plan) {
        let child = std::mem::replace(c, super::placeholder());
        *c = optimize(child, stats)?;
    }
    Ok(rewrite(&plan, stats).unwrap_or(plan))
}

fn rewrite(plan: &LogicalPlan, stats: &dyn Statistics) -> Option<LogicalPlan> {
    let LogicalPlan::Aggregate {
        input,
        group_by,
        aggregates,
        schema,
    } = plan
    else {
        return None;
    };
    if group_by.is_empty() || aggregates.is_empty() {
        return None;
    }
    // Projections between the aggregate and the join (a CTE's body can have two),
    // composed into one mapping of their outputs to the join's columns.
    let mut join = &**input;
    let mut through: Option<Vec<Expr>> = None;
    while let LogicalPlan::Project { input, exprs, .. } = join {
        through = Some(match through {
            None => exprs.clone(),
            Some(outer) => outer.into_iter().map(|e| substitute(e, exprs)).collect(),
        });
        join = input;
    }
    let LogicalPlan::Join {
        left,
        right,
        kind: JoinKind::Inner,
        on,
        filter: None,
        ..
    } = join
    else {
        return None;
    };
    if on.is_empty() {
        return None;
    }
    // The groups and aggregates over the join's columns.
    let over_join = |e: &Expr| {
        through
            .as_ref()
            .map_or_else(|| e.clone(), |x| substitute(e.clone(), x))
    };
    let groups: Vec<Expr> = group_by.iter().map(over_join).collect();
    let aggs: Vec<AggregateExpr> = aggregates
        .iter()
        .map(|a| AggregateExpr {
            args: a.args.iter().map(over_join).collect(),
            ..a.clone()
        })
        .collect();
    let exprs = || groups.iter().chain(aggs.iter().flat_map(|a| &a.args));
    let volatile = |e: &Expr| e.has_subquery() || e.calls_volatile();
    if exprs().any(volatile) {
        return None;
    }
    let columns = |e: &Expr| {
        let mut c = Vec::new();
        e.collect_columns(&mut c);
        c
    };
    // The side every aggregate argument reads (the larger one for count(*) alone).
    let nleft = left.schema().len();
    let read: Vec<usize> = aggs
        .iter()
        .flat_map(|a| &a.args)
        .flat_map(columns)
        .collect();
    let on_left = if read.is_empty() {
        estimate(left) >= estimate(right)
    } else if read.iter().all(|&c| c < nleft) {
        true
    } else if read.iter().all(|&c| c >= nleft) {
        false
    } else {
        return None;
    };
    let (side, other) = if on_left {
        (left, right)
    } else {
        (right, left)
    };
    let offset = if on_left { 0 } else { nleft };
    let mine = |c: usize| c >= offset && c < offset + side.schema().len();
    // Nothing to gain unless some group comes from the other side.
    if groups.iter().flat_map(columns).all(mine) {
        return None;
    }
    // The join must keep most of this side's rows: a selective other side (a
    // dimension filtered to a few rows) is better joined first, its runtime filter
    // skipping rows before anything is aggregated (TPC-DS Q42's one manager's items).
    if kept_fraction(other, stats) < LEAST_KEPT {
        return None;
    }
    let splits: Vec<Split> = aggs.iter().map(split).collect::<Option<_>>()?;
    // The partial groups: the side's join keys and the columns its groups read.
    let side_keys: Vec<&Expr> = on
        .iter()
        .map(|(l, r)| if on_left { l } else { r })
        .collect();
    let mut keys: Vec<usize> = side_keys.iter().flat_map(|e| columns(e)).collect();
    keys.extend(
        groups
            .iter()
            .flat_map(columns)
            .filter(|&c| mine(c))
            .map(|c| c - offset),
    );
    keys.sort_unstable();
    keys.dedup();
    let mut groups_estimate = 1.0;
    for &k in &keys {
        // A column of NULLs only still makes one group.
        groups_estimate *= distinct(side, k, stats)?.max(1.0);
    }
    let strings = groups
        .iter()
        .filter(|g| g.data_type().physical() == PhysicalType::Str)
        .count();
    let most = (MOST_GROUPS * (1 + strings) as f64).min(MOST_GROUPS_WIDE);
    if groups_estimate > estimate(side) * most {
        return None;
    }
    // The partial aggregate over the side: keys, then every aggregate's parts.
    let side_fields = side.schema();
    let local = |mut e: Expr| {
        e.remap_columns(&|c| c - offset);
        e
    };
    let parts: Vec<AggregateExpr> = splits
        .iter()
        .flat_map(|s| &s.parts)
        .map(|p| AggregateExpr {
            args: p.args.iter().cloned().map(local).collect(),
            ..p.clone()
        })
        .collect();
    let partial_groups: Vec<Expr> = keys
        .iter()
        .map(|&k| Expr::column(k, side_fields[k].ty.clone(), side_fields[k].name.clone()))
        .collect();
    let partial_schema = aggregate_schema(&partial_groups, &parts);
    let partial = LogicalPlan::Aggregate {
        input: side.clone(),
        group_by: partial_groups,
        aggregates: parts,
        schema: partial_schema.clone(),
    };
    // The join of the partial rows with the other side, sides kept.
    let key_at = |c: usize| keys.binary_search(&c).expect("a partial key");
    let on: Vec<(Expr, Expr)> = on
        .iter()
        .map(|(l, r)| {
            let mut mine = if on_left { l.clone() } else { r.clone() };
            mine.remap_columns(&key_at);
            let theirs = if on_left { r.clone() } else { l.clone() };
            if on_left {
                (mine, theirs)
            } else {
                (theirs, mine)
            }
        })
        .collect();
    let (new_left, new_right) = if on_left {
        (partial, (**other).clone())
    } else {
        ((**other).clone(), partial)
    };
    let joined_schema: Vec<Field> = new_left
        .schema()
        .iter()
        .chain(new_right.schema())
        .cloned()
        .collect();
    let (partial_at, other_at) = if on_left {
        (0, partial_schema.len())
    } else {
        (other.schema().len(), 0)
    };
    let joined = LogicalPlan::Join {
        left: Box::new(new_left),
        right: Box::new(new_right),
        kind: JoinKind::Inner,
        on,
        filter: None,
        schema: joined_schema.clone(),
    };
    // The final aggregate: the query's groups over the joined columns, and each
    // aggregate combined from its parts.
    let moved = |mut e: Expr| {
        e.remap_columns(&|c| {
            if mine(c) {
                partial_at + key_at(c - offset)
            } else {
                other_at + c - if on_left { nleft } else { 0 }
            }
        });
        e
    };
    let final_groups: Vec<Expr> = groups.into_iter().map(moved).collect();
    let mut next = partial_at + keys.len();
    let mut finals = Vec::new();
    for s in &splits {
        finals.push(s.combine(next));
        next += s.parts.len();
    }
    let final_schema = aggregate_schema(&final_groups, &finals);
    let combined = LogicalPlan::Aggregate {
        input: Box::new(joined),
        group_by: final_groups,
        aggregates: finals,
        schema: final_schema.clone(),
    };
    // The original aggregate's columns, a count summed back to BIGINT.
    let exprs: Vec<Expr> = final_schema
        .iter()
        .zip(schema)
        .enumerate()
        .map(|(i, (got, want))| {
            let c = Expr::column(i, got.ty.clone(), want.name.clone());
            if got.ty == want.ty {
                c
            } else {
                Expr::Cast {
                    expr: Box::new(c),
                    to: want.ty.clone(),
                    try_cast: false,
                }
            }
        })
        .collect();
    Some(LogicalPlan::Project {
        input: Box::new(combined),
        exprs,
        schema: schema.clone(),
    })
}

/// The estimated fraction of its rows that `plan`'s filters keep (by the columns'
/// distinct counts and ranges where known, as join ordering estimates them), and so of the rows of a side joined to
/// it on a key that it keeps.
pub(super) fn kept_fraction(plan: &LogicalPlan, stats: &dyn Statistics) -> f64 {
    match plan {
        LogicalPlan::Filter { input, predicate } => {
            let mut facts = InputFacts { input, stats };
            selectivity(predicate, &mut facts) * kept_fraction(input, stats)
        }
        LogicalPlan::Project { input, .. } => kept_fraction(input, stats),
        LogicalPlan::Join {
            left, right, kind, ..
        } => match kind {
            JoinKind::Inner => kept_fraction(left, stats) * kept_fraction(right, stats),
            // A semi or anti join keeps some of its left rows: a guess of half.
            _ => 0.5 * kept_fraction(left, stats),
        },
        _ => 1.0,
    }
}

/// Estimated distinct values of output column `col` of `plan`: a stored column's
/// count, or as many as the constants a filter compares it with.
fn distinct(plan: &LogicalPlan, col: usize, stats: &dyn Statistics) -> Option<f64> {
    distinct_through(plan, col, stats, true)
}
