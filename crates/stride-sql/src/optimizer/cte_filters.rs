//! Pass `cte_filters`: a CTE computed once for several references
//! (`materialize_ctes`) computes only the rows some reference keeps. It runs after
//! `filter_pushdown`, which leaves each reference's conditions in a filter right
//! above it. When every reference of a CTE reads it through such a filter, the body
//! gets the disjunction of those filters on top and is optimized again, so that the
//! conditions reach the body's scans, joins and grouping (each reference keeps its
//! own filter). TPC-DS Q04 reads its `year_total` CTE six times, each for one sales
//! channel and one year: the body then aggregates two years instead of all five.
//!
//! A reference read any other way (without a filter, or with one that calls a
//! volatile function, holds a subquery or reads an outer query), or one inside
//! another shared body, leaves its CTE as it is.

use super::Statistics;
use crate::plan::visit::{children_mut, subquery_plans, subquery_plans_mut};
use crate::plan::{Expr, LogicalPlan};
use std::collections::HashMap;
use std::sync::Arc;
use stride_common::{Result, Settings};

pub fn optimize(
    plan: LogicalPlan,
    settings: &Settings,
    stats: &dyn Statistics,
) -> Result<LogicalPlan> {
    let mut all = HashMap::new();
    super::materialize_ctes::count(&plan, &mut all);
    let mut seen: HashMap<u64, Reads> = HashMap::new();
    reads(&plan, &mut seen);
    let mut bodies: HashMap<u64, Arc<LogicalPlan>> = HashMap::new();
    for (id, r) in seen {
        if r.filters.len() != all.get(&id).copied().unwrap_or(0) {
            continue;
        }
        let Some(filters) = r.filters.into_iter().collect::<Option<Vec<Expr>>>() else {
            continue;
        };
        let mut disjuncts: Vec<Expr> = Vec::new();
        for f in filters {
            if !disjuncts.contains(&f) {
                disjuncts.push(f);
            }
        }
        let Some(predicate) = disjuncts
            .into_iter()
            .reduce(|a, b| Expr::Or(Box::new(a), Box::new(b)))
        else {
            continue;
        };
        let body = LogicalPlan::Filter {
            input: Box::new(Arc::unwrap_or_clone(r.body)),
            predicate,
        };
        bodies.insert(id, Arc::new(super::optimize(body, settings, stats)?));
    }
    if bodies.is_empty() {
        return Ok(plan);
    }
    let mut plan = plan;
    replace(&mut plan, &bodies);
    Ok(plan)
}

/// How the references of one shared CTE read it: the filter right above each one
/// (`None` where there is none that can move into the body).
struct Reads {
    body: Arc<LogicalPlan>,
    filters: Vec<Option<Expr>>,
}

/// Whether a reference's filter can join the body's disjunction: it depends only on
/// the row, the same each time it is evaluated.
fn movable(e: &Expr) -> bool {
    !e.has_subquery()
        && !e.calls_volatile()
        && !e.any(&mut |x| matches!(x, Expr::OuterColumn { .. } | Expr::OuterAggregateRef { .. }))
}

/// Records every shared reference in `plan` (not inside shared bodies).
fn reads(plan: &LogicalPlan, seen: &mut HashMap<u64, Reads>) {
    let mut note = |id: u64, body: &Arc<LogicalPlan>, filter: Option<Expr>| {
        seen.entry(id)
            .or_insert_with(|| Reads {
                body: body.clone(),
                filters: Vec::new(),
            })
            .filters
            .push(filter);
    };
    match plan {
        LogicalPlan::Filter { input, predicate } => {
            if let LogicalPlan::CteRef {
                id,
                body,
                shared: true,
                ..
            } = &**input
            {
                note(*id, body, movable(predicate).then(|| predicate.clone()));
                return subquery_plans(plan, &mut |p| reads(p, seen));
            }
        }
        LogicalPlan::CteRef {
            id,
            body,
            shared: true,
            ..
        } => return note(*id, body, None),
        _ => {}
    }
    subquery_plans(plan, &mut |p| reads(p, seen));
    for c in plan.children() {
        reads(c, seen);
    }
}

/// Gives the references of the CTEs in `bodies` their filtered bodies.
pub(super) fn replace(plan: &mut LogicalPlan, bodies: &HashMap<u64, Arc<LogicalPlan>>) {
    if let LogicalPlan::CteRef {
        id,
        body,
        shared: true,
        ..
    } = plan
    {
        if let Some(b) = bodies.get(id) {
            *body = b.clone();
        }
        return;
    }
    subquery_plans_mut(plan, &mut |p| replace(p, bodies));
    for c in children_mut(plan) {
        replace(c, bodies);
    }
}
