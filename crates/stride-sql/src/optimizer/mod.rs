//! Step 3 of a query's life: logical rewrites. Each pass lives in its own file named
//! after the pass, can be switched off with `SET disabled_optimizers = 'name,...'`,
//! and leaves the plan's output schema unchanged.

mod join_order;

use crate::plan::LogicalPlan;
use stride_common::{Result, Settings};

/// The passes in the order they run.
pub const PASSES: &[&str] = &["join_order"];

pub fn optimize(plan: LogicalPlan, settings: &Settings) -> Result<LogicalPlan> {
    let mut plan = plan;
    if settings.is_optimizer_enabled("join_order") {
        plan = join_order::optimize(plan)?;
    }
    Ok(plan)
}
