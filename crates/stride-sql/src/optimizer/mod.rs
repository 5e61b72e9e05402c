//! Step 3 of a query's life: logical rewrites. Each pass lives in its own file named
//! after the pass, can be switched off with `SET disabled_optimizers = 'name,...'`,
//! and leaves the plan's output schema unchanged.

pub mod cardinality;
mod common_subexpressions;
mod common_subplan;
mod cte_filters;
mod decorrelate;
mod distinct_aggregates;
mod eager_aggregation;
mod empty_results;
mod filter_order;
mod filter_pushdown;
mod implied_filters;
mod join_order;
mod materialize_ctes;
mod outer_to_inner;
mod semi_join_bounds;
mod semi_join_pushdown;
mod semi_join_reduction;
mod set_semantics;
mod unused_columns;

use crate::plan::LogicalPlan;
use stride_common::{Result, ScalarValue, Settings};

/// The passes in the order they run.
pub const PASSES: &[&str] = &[
    "materialize_ctes",
    "decorrelate",
    "filter_pushdown",
    "implied_filters",
    "outer_to_inner",
    "cte_filters",
    "empty_results",
    "join_order",
    "set_semantics",
    "semi_join_reduction",
    "semi_join_pushdown",
    "semi_join_bounds",
    "distinct_aggregates",
    "eager_aggregation",
    "common_subexpressions",
    "common_subplan",
    "unused_columns",
    "filter_order",
];

/// What the optimizer may ask about the data: statistics of stored tables.
pub trait Statistics {
    /// Estimated distinct non-NULL values in column `column` of table `table_id`.
    fn distinct_values(&self, table_id: u64, column: usize) -> Option<f64>;

    /// The fraction of column `column`'s range of values (its smallest to its
    /// largest) that lies between `lo` and `hi` (either open), as a guess of the rows
    /// a range condition keeps; `None` when unknown.
    fn range_fraction(
        &self,
        _table_id: u64,
        _column: usize,
        _lo: Option<&ScalarValue>,
        _hi: Option<&ScalarValue>,
    ) -> Option<f64> {
        None
    }
}

/// Statistics of nothing: every estimate falls back to row counts.
pub struct NoStatistics;

impl Statistics for NoStatistics {
    fn distinct_values(&self, _: u64, _: usize) -> Option<f64> {
        None
    }
}

/// A stand-in while a pass moves a child out of its parent.
fn placeholder() -> LogicalPlan {
    LogicalPlan::Values {
        rows: vec![],
        schema: vec![],
    }
}

pub fn optimize(
    plan: LogicalPlan,
    settings: &Settings,
    stats: &dyn Statistics,
) -> Result<LogicalPlan> {
    // Always runs: switched off, it writes each CTE out at every reference.
    let mut plan = materialize_ctes::optimize(plan, settings, stats)?;
    if settings.is_optimizer_enabled("decorrelate") {
        plan = decorrelate::optimize(plan)?;
    }
    if settings.is_optimizer_enabled("filter_pushdown") {
        plan = filter_pushdown::optimize(
            plan,
            settings.is_optimizer_enabled("implied_filters"),
            settings.is_optimizer_enabled("outer_to_inner"),
        )?;
    }
    if settings.is_optimizer_enabled("cte_filters") {
        plan = cte_filters::optimize(plan, settings, stats)?;
    }
    if settings.is_optimizer_enabled("empty_results") {
        plan = empty_results::optimize(plan)?;
    }
    if settings.is_optimizer_enabled("join_order") {
        plan = join_order::optimize(plan, stats)?;
    }
    if settings.is_optimizer_enabled("set_semantics") {
        plan = set_semantics::optimize(plan)?;
    }
    if settings.is_optimizer_enabled("semi_join_reduction") {
        plan = semi_join_reduction::optimize(plan)?;
    }
    if settings.is_optimizer_enabled("semi_join_pushdown") {
        plan = semi_join_pushdown::optimize(plan)?;
    }
    if settings.is_optimizer_enabled("semi_join_bounds") {
        plan = semi_join_bounds::optimize(plan, stats)?;
    }
    if settings.is_optimizer_enabled("distinct_aggregates") {
        plan = distinct_aggregates::optimize(plan)?;
    }
    if settings.is_optimizer_enabled("eager_aggregation") {
        plan = eager_aggregation::optimize(plan, stats)?;
    }
    if settings.is_optimizer_enabled("common_subexpressions") {
        plan = common_subexpressions::optimize(plan)?;
    }
    // The passes after this one, for a plan it shares (optimized once, on its own).
    let finish = |mut plan: LogicalPlan| -> Result<LogicalPlan> {
        if settings.is_optimizer_enabled("unused_columns") {
            plan = unused_columns::optimize(plan)?;
        }
        if settings.is_optimizer_enabled("filter_order") {
            plan = filter_order::optimize(plan)?;
        }
        Ok(plan)
    };
    if settings.is_optimizer_enabled("common_subplan") {
        plan = common_subplan::optimize(plan, &finish)?;
    }
    finish(plan)
}
