//! Pass `semi_join_pushdown`: a SEMI or ANTI join above an inner join, whose
//! conditions read the columns of only one of the inner join's inputs, moves onto that
//! input when it is expected to have no more rows than the inner join. An `IN`
//! subquery on a dimension's column (TPC-DS Q70's `s_state IN (SELECT ...)`) then
//! filters the dimension's 12 rows instead of the 540,000 rows the fact table's join
//! produced, and the aggregate above finds a plain inner join with a dimension, which
//! `eager_aggregation` (the pass after this one) can aggregate below.
//!
//! Why it is right: whether a row of the inner join survives depends only on that
//! input's columns, so keeping (or dropping) the input's rows before joining keeps
//! (or drops) exactly the joined rows made from them. The pass runs after
//! `join_order`, which leaves SEMI and ANTI joins above the inner joins it orders.

use super::cardinality::estimate;
use super::placeholder;
use crate::plan::visit::children_mut;
use crate::plan::{Expr, JoinKind, LogicalPlan};
use stride_common::Result;

pub fn optimize(mut plan: LogicalPlan) -> Result<LogicalPlan> {
    for c in children_mut(&mut plan) {
        let child = std::mem::replace(c, placeholder());
        *c = optimize(child)?;
    }
    Ok(push(plan))
}

/// `plan` with a SEMI or ANTI join at its top moved below the inner join under it,
/// as far down as it goes.
fn push(plan: LogicalPlan) -> LogicalPlan {
    let Some(onto_a) = target(&plan) else {
        return plan;
    };
    let LogicalPlan::Join {
        left,
        right,
        kind,
        on,
        filter,
        ..
    } = plan
    else {
        return plan;
    };
    let LogicalPlan::Join {
        left: a,
        right: b,
        on: inner_on,
        filter: inner_filter,
        schema: inner_schema,
        ..
    } = *left
    else {
        // `target` accepts only a SEMI or ANTI join over an inner join.
        return *left;
    };
    let (nl, na) = (inner_schema.len(), a.schema().len());
    // Column numbers as the moved join sees them: the side's own, then the right
    // input's (after the side's).
    let (offset, width) = if onto_a { (0, na) } else { (na, nl - na) };
    let remap = |mut e: Expr| {
        e.remap_columns(&|c| if c < nl { c - offset } else { c - nl + width });
        e
    };
    let on: Vec<(Expr, Expr)> = on.into_iter().map(|(l, r)| (remap(l), r)).collect();
    let filter = filter.map(remap);
    let moved = |side: Box<LogicalPlan>| {
        let schema = side.schema().to_vec();
        Box::new(push(LogicalPlan::Join {
            left: side,
            right,
            kind,
            on,
            filter,
            schema,
        }))
    };
    let (a, b) = if onto_a { (moved(a), b) } else { (a, moved(b)) };
    LogicalPlan::Join {
        left: a,
        right: b,
        kind: JoinKind::Inner,
        on: inner_on,
        filter: inner_filter,
        schema: inner_schema,
    }
}

/// For a SEMI or ANTI join over an inner join whose conditions read the columns of
/// one of the inner join's inputs only, expected to be no larger than the join:
/// whether that input is the left one (`Some(true)`) or the right one.
fn target(plan: &LogicalPlan) -> Option<bool> {
    let LogicalPlan::Join {
        left,
        kind: JoinKind::Semi | JoinKind::Anti,
        on,
        filter,
        ..
    } = plan
    else {
        return None;
    };
    let LogicalPlan::Join {
        left: a,
        right: b,
        kind: JoinKind::Inner,
        schema: inner_schema,
        ..
    } = &**left
    else {
        return None;
    };
    // The inner join's columns the conditions read.
    let nl = inner_schema.len();
    let mut read = Vec::new();
    for (l, _) in on {
        l.collect_columns(&mut read);
    }
    if let Some(f) = filter {
        let mut cols = Vec::new();
        f.collect_columns(&mut cols);
        read.extend(cols.into_iter().filter(|&c| c < nl));
    }
    let correlated = on.iter().any(|(l, r)| l.has_subquery() || r.has_subquery())
        || filter.as_ref().is_some_and(Expr::has_subquery);
    if read.is_empty() || correlated {
        return None;
    }
    let na = a.schema().len();
    let joined = estimate(left);
    let fits = |side: &LogicalPlan| estimate(side) <= joined;
    if read.iter().all(|&c| c < na) && fits(a) {
        Some(true)
    } else if read.iter().all(|&c| c >= na) && fits(b) {
        Some(false)
    } else {
        None
    }
}
