//! Pass `materialize_ctes`: a common table expression referenced more than once is
//! computed once. The binder turns every reference to an uncorrelated CTE into a
//! [`LogicalPlan::CteRef`] holding the bound body; this pass, which runs first,
//! puts the body in place of a reference that is the only one (so the other passes
//! optimize through it, pushing filters into it), and optimizes a shared body once,
//! on its own, for all its references. The executor runs a shared body once per
//! query and every reference reads its rows (TPC-H Q15 reads its revenue view twice).
//!
//! A reference decided shared stays so when a subquery holding it is optimized again
//! before it runs (an uncorrelated scalar subquery, as in Q15). Switched off, every
//! reference gets its own copy of the body, as if the CTE had been written out at
//! each place.

use super::{optimize as optimize_plan, Statistics};
use crate::plan::visit::{children_mut, node_expressions_mut};
use crate::plan::{Expr, LogicalPlan};
use std::collections::HashMap;
use std::sync::Arc;
use stride_common::{Result, Settings};

pub fn optimize(
    plan: LogicalPlan,
    settings: &Settings,
    stats: &dyn Statistics,
) -> Result<LogicalPlan> {
    let mut counts = HashMap::new();
    count(&plan, &mut counts);
    let mut r = Rewrite {
        counts,
        share: settings.is_optimizer_enabled("materialize_ctes"),
        shared: HashMap::new(),
        settings,
        stats,
    };
    r.plan(plan)
}

/// References per CTE id, counting those inside a body once, however many times the
/// body is referenced (it runs once, or is inlined once per reference and counted
/// anew when its own references are optimized).
pub(super) fn count(plan: &LogicalPlan, counts: &mut HashMap<u64, usize>) {
    if let LogicalPlan::CteRef { id, body, .. } = plan {
        let n = counts.entry(*id).or_insert(0);
        *n += 1;
        if *n == 1 {
            count(body, counts);
        }
        return;
    }
    crate::plan::visit::subquery_plans(plan, &mut |p| count(p, counts));
    for c in plan.children() {
        count(c, counts);
    }
}

struct Rewrite<'a> {
    counts: HashMap<u64, usize>,
    share: bool,
    /// Bodies already optimized, by CTE id.
    shared: HashMap<u64, Arc<LogicalPlan>>,
    settings: &'a Settings,
    stats: &'a dyn Statistics,
}

impl Rewrite<'_> {
    fn plan(&mut self, plan: LogicalPlan) -> Result<LogicalPlan> {
        let mut plan = match plan {
            shared @ LogicalPlan::CteRef { shared: true, .. } => return Ok(shared),
            LogicalPlan::CteRef {
                id, body, schema, ..
            } => {
                if !self.share || self.counts.get(&id).copied().unwrap_or(0) < 2 {
                    // The body's own schema is the reference's: it stands in exactly.
                    return self.plan(Arc::unwrap_or_clone(body));
                }
                let body = match self.shared.get(&id) {
                    Some(b) => b.clone(),
                    None => {
                        let b = Arc::new(optimize_plan(
                            Arc::unwrap_or_clone(body),
                            self.settings,
                            self.stats,
                        )?);
                        self.shared.insert(id, b.clone());
                        b
                    }
                };
                return Ok(LogicalPlan::CteRef {
                    id,
                    body,
                    schema,
                    shared: true,
                });
            }
            other => other,
        };
        for e in node_expressions_mut(&mut plan) {
            self.expr(e)?;
        }
        for c in children_mut(&mut plan) {
            let child = std::mem::replace(c, super::placeholder());
            *c = self.plan(child)?;
        }
        Ok(plan)
    }

    fn expr(&mut self, e: &mut Expr) -> Result<()> {
        if let Expr::Subquery(s) = e {
            let p = std::mem::replace(&mut s.plan, super::placeholder());
            s.plan = self.plan(p)?;
        }
        for c in e.children_mut() {
            self.expr(c)?;
        }
        Ok(())
    }
}
