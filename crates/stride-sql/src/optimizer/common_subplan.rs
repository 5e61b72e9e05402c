//! Pass `common_subplan`: a grouped subquery written out more than once in one
//! query is computed once. TPC-DS Q65 groups store_sales by store and item in two
//! derived tables, one to average per store and one to compare with that average;
//! both are the same plan, so one aggregation feeds both.
//!
//! Only aggregates are shared (the work worth sharing), and only where they are equal
//! plan for plan (same filters, same columns, same names): an aggregate that reads
//! an enclosing query's columns, calls a volatile function (random(), nextval()) or
//! holds a subquery is left alone. The shared plan becomes a [`LogicalPlan::CteRef`]
//! already optimized, which the executor runs once for all its readers, as it does
//! a CTE referenced twice. The pass runs after the passes that change a subtree by
//! where it stands (filter pushdown, join order) and before `unused_columns`, which
//! would otherwise trim each copy to what its own reader needs.

use crate::plan::expr::next_subquery_id;
use crate::plan::visit::{children_mut, node_expressions, references_outer};
use crate::plan::{Expr, LogicalPlan};
use std::sync::Arc;
use stride_common::Result;

pub fn optimize(
    plan: LogicalPlan,
    finish: &dyn Fn(LogicalPlan) -> Result<LogicalPlan>,
) -> Result<LogicalPlan> {
    let mut aggregates = Vec::new();
    collect(&plan, &mut aggregates);
    // Each plan that occurs at least twice, the outermost first (collected top-down).
    let mut repeated: Vec<&LogicalPlan> = Vec::new();
    for (i, a) in aggregates.iter().enumerate() {
        if !repeated.contains(&a) && aggregates[i + 1..].contains(a) && shareable(a) {
            repeated.push(a);
        }
    }
    if repeated.is_empty() {
        return Ok(plan);
    }
    let mut shared: Vec<(LogicalPlan, LogicalPlan)> = Vec::new();
    for r in repeated {
        // A shared plan may hold one shared earlier (an outer one holds the inner).
        let body = finish(replace(r.clone(), &shared))?;
        let reference = LogicalPlan::CteRef {
            id: next_subquery_id(),
            schema: r.schema().to_vec(),
            body: Arc::new(body),
            shared: true,
        };
        shared.push((r.clone(), reference));
    }
    Ok(replace(plan, &shared))
}

/// Every aggregate in `plan`, top-down (not inside CTE bodies, which are shared
/// already, nor inside subquery expressions, optimized on their own).
fn collect(plan: &LogicalPlan, out: &mut Vec<LogicalPlan>) {
    if matches!(plan, LogicalPlan::CteRef { .. }) {
        return;
    }
    if matches!(plan, LogicalPlan::Aggregate { .. }) {
        out.push(plan.clone());
    }
    for c in plan.children() {
        collect(c, out);
    }
}

/// Whether computing `plan` once gives each reader what its own copy would.
fn shareable(plan: &LogicalPlan) -> bool {
    fn deterministic(plan: &LogicalPlan) -> bool {
        let volatile = |e: &Expr| e.has_subquery() || e.calls_volatile();
        !matches!(plan, LogicalPlan::RecursiveRef { .. })
            && !node_expressions(plan).into_iter().any(volatile)
            && plan.children().into_iter().all(deterministic)
    }
    !references_outer(plan, 1) && deterministic(plan)
}

/// `plan` with every subtree equal to a shared plan replaced by its reference.
fn replace(plan: LogicalPlan, shared: &[(LogicalPlan, LogicalPlan)]) -> LogicalPlan {
    if let Some((_, reference)) = shared.iter().find(|(p, _)| *p == plan) {
        return reference.clone();
    }
    let mut plan = plan;
    for c in children_mut(&mut plan) {
        let child = std::mem::replace(c, super::placeholder());
        *c = replace(child, shared);
    }
    plan
}
