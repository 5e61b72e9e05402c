//! Step 3 of a query's life: logical rewrites. Each pass lives in its own file named
//! after the pass, can be switched off with `SET disabled_optimizers = 'name,...'`,
//! and leaves the plan's output schema unchanged.

pub mod cardinality;
mod decorrelate;
mod distinct_aggregates;
mod join_order;
mod unused_columns;

use crate::plan::LogicalPlan;
use stride_common::{Result, Settings};

/// The passes in the order they run.
pub const PASSES: &[&str] = &[
    "decorrelate",
    "join_order",
    "distinct_aggregates",
    "unused_columns",
];

pub fn optimize(plan: LogicalPlan, settings: &Settings) -> Result<LogicalPlan> {
    let mut plan = plan;
    if settings.is_optimizer_enabled("decorrelate") {
        plan = decorrelate::optimize(plan)?;
    }
    if settings.is_optimizer_enabled("join_order") {
        plan = join_order::optimize(plan)?;
    }
    if settings.is_optimizer_enabled("distinct_aggregates") {
        plan = distinct_aggregates::optimize(plan)?;
    }
    if settings.is_optimizer_enabled("unused_columns") {
        plan = unused_columns::optimize(plan)?;
    }
    Ok(plan)
}
