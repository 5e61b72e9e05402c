//! Pass `semi_join_bounds`: a SEMI or ANTI join whose only condition beyond its keys
//! is `left.x <> right.y` (TPC-DS Q16, Q94, Q95: an order shipped from another
//! warehouse, `ws1.ws_warehouse_sk <> ws2.ws_warehouse_sk`) joins with the smallest
//! and largest `y` of each key instead of with every right row: the right side is
//! aggregated to one row per key, and the condition becomes
//! `x <> min(y) OR x <> max(y)`. The hash table holds a row per key (72,000 orders
//! rather than 719,000 sales), and each left row is checked once.
//!
//! Why it is right: some right row of the key has a `y` that is not NULL and differs
//! from `x` exactly when `x` is not NULL and the key's non-NULL `y` values are not all
//! equal to `x`, that is when `x` differs from their least or their greatest. Where
//! `x` is NULL or the key has no `y` but NULLs, both comparisons are NULL, and the
//! row does not match, as with the original condition. Floating-point columns are
//! left alone: `<>` and min/max need not treat NaN alike. The pass runs after
//! `set_semantics`, which makes such joins out of inner joins whose right columns
//! nothing reads.

use super::cardinality::estimate;
use super::eager_aggregation::kept_fraction;
use super::placeholder;
use super::Statistics;
use crate::plan::visit::{children_mut, subquery_plans_mut};
use crate::plan::{aggregate_schema, AggregateExpr, Expr, JoinKind, LogicalPlan};
use std::collections::HashMap;
use std::sync::Arc;
use stride_common::Result;
use stride_functions::aggregate::resolve_aggregate;
use stride_functions::ScalarFunction;

pub fn optimize(plan: LogicalPlan, stats: &dyn Statistics) -> Result<LogicalPlan> {
    let mut plan = rewrite_all(plan, stats);
    // A shared CTE's body is no child of its references (`set_semantics` made Q95's
    // `ws_wh` a semi join there): each body is rewritten once, for all references.
    let mut bodies = HashMap::new();
    collect_bodies(&mut plan, &mut bodies);
    let mut changed = HashMap::new();
    for (id, body) in bodies {
        let new = optimize(Arc::unwrap_or_clone(body.clone()), stats)?;
        if new != *body {
            changed.insert(id, Arc::new(new));
        }
    }
    if !changed.is_empty() {
        super::cte_filters::replace(&mut plan, &changed);
    }
    Ok(plan)
}

fn rewrite_all(mut plan: LogicalPlan, stats: &dyn Statistics) -> LogicalPlan {
    subquery_plans_mut(&mut plan, &mut |p| {
        *p = rewrite_all(std::mem::replace(p, placeholder()), stats);
    });
    for c in children_mut(&mut plan) {
        let child = std::mem::replace(c, placeholder());
        *c = rewrite_all(child, stats);
    }
    rewrite(plan, stats)
}

/// The bodies of the shared CTEs `plan` references, by id.
fn collect_bodies(plan: &mut LogicalPlan, out: &mut HashMap<u64, Arc<LogicalPlan>>) {
    if let LogicalPlan::CteRef {
        id,
        body,
        shared: true,
        ..
    } = plan
    {
        out.entry(*id).or_insert_with(|| body.clone());
        return;
    }
    subquery_plans_mut(plan, &mut |p| collect_bodies(p, out));
    for c in children_mut(plan) {
        collect_bodies(c, out);
    }
}

fn rewrite(plan: LogicalPlan, stats: &dyn Statistics) -> LogicalPlan {
    let Some((y, least, greatest)) = bounds(&plan, stats) else {
        return plan;
    };
    let (left, right, kind, on, filter, schema) = match plan {
        LogicalPlan::Join {
            left,
            right,
            kind,
            on,
            filter: Some(filter),
            schema,
        } => (left, right, kind, on, filter, schema),
        // `bounds` accepts only joins with a condition.
        other => return other,
    };
    let nl = left.schema().len();
    // One row per key of the right side: its keys, then the least and greatest y.
    let keys: Vec<Expr> = on.iter().map(|(_, r)| r.clone()).collect();
    let aggregates = vec![least, greatest];
    let agg_schema = aggregate_schema(&keys, &aggregates);
    let nk = keys.len();
    let on: Vec<(Expr, Expr)> = on
        .into_iter()
        .enumerate()
        .map(|(i, (l, r))| (l, Expr::column(i, r.data_type(), format!("group{i}"))))
        .collect();
    // `x <> y` with y the least, then the greatest.
    let against = |at: usize| {
        let mut f = filter.clone();
        f.remap_columns(&|c| if c == y { at } else { c });
        f
    };
    let filter = Expr::Or(Box::new(against(nl + nk)), Box::new(against(nl + nk + 1)));
    LogicalPlan::Join {
        left,
        right: Box::new(LogicalPlan::Aggregate {
            input: right,
            group_by: keys,
            aggregates,
            schema: agg_schema,
        }),
        kind,
        on,
        filter: Some(filter),
        schema,
    }
}

/// For a SEMI or ANTI join this pass rewrites: the right column its condition
/// compares (numbered over the joined row), and the aggregates of its least and
/// greatest value.
fn bounds(
    plan: &LogicalPlan,
    stats: &dyn Statistics,
) -> Option<(usize, AggregateExpr, AggregateExpr)> {
    let LogicalPlan::Join {
        left,
        right,
        kind: JoinKind::Semi | JoinKind::Anti,
        on,
        filter: Some(filter),
        ..
    } = plan
    else {
        return None;
    };
    let nl = left.schema().len();
    let y = inequality(filter, nl)?;
    let field = &right.schema()[y - nl];
    // Floating point has NaN, which `<>` and min/max need not order alike.
    if field.ty.is_float() {
        return None;
    }
    let y_expr = Expr::column(y - nl, field.ty.clone(), field.name.clone());
    let bound = |name: &str| -> Option<AggregateExpr> {
        let b = resolve_aggregate(name, &[y_expr.data_type()]).ok()??;
        (b.return_type == y_expr.data_type()).then(|| AggregateExpr {
            func: b.func,
            args: vec![y_expr.clone()],
            distinct: false,
            filter: None,
            order_by: vec![],
            ty: b.return_type,
        })
    };
    // Aggregating the right side costs a pass over it: worth it only when the left
    // side is not much smaller (where it is, the hash table is built on the left
    // side's few rows, and the right side only probes it).
    let worth = estimate(left) * kept_fraction(left, stats) * 4.0 >= estimate(right);
    if on.is_empty() || !worth {
        return None;
    }
    Some((y, bound("min")?, bound("max")?))
}

/// For a condition `a <> b` of two plain columns of one type, one of the left input
/// (below `nl`) and one of the right: the right one.
fn inequality(filter: &Expr, nl: usize) -> Option<usize> {
    let Expr::Function { func, args } = filter else {
        return None;
    };
    if func.func != ScalarFunction::NotEq {
        return None;
    }
    let [Expr::Column {
        index: a, ty: ta, ..
    }, Expr::Column {
        index: b, ty: tb, ..
    }] = &args[..]
    else {
        return None;
    };
    if ta != tb {
        return None;
    }
    match (*a < nl, *b < nl) {
        (true, false) => Some(*b),
        (false, true) => Some(*a),
        _ => None,
    }
}
