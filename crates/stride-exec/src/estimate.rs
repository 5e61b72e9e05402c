//! Estimated rows of each physical plan node: what EXPLAIN (ANALYZE) prints beside
//! the rows a node really produced, so that a bad estimate stands out.
//!
//! The planner also chooses hash joins' build sides with them: a SEMI or ANTI join's,
//! and whether an inner join ordered by the optimizer's cruder logical estimate
//! (`cardinality::estimate`) is better turned around.
//!
//! The rules are the optimizer's (`stride_sql::optimizer::cardinality`): a fixed
//! selectivity per filter conjunct, except that `column = constant` (or IN, or an OR of
//! them) keeps one row per distinct value named; an equality join's rows are the
//! product of its inputs over the larger side's distinct key count, the foreign-key
//! case; GROUP BY yields as many rows as its keys have distinct combinations. Distinct
//! counts come from the stored tables' sketches and from Parquet statistics, followed
//! through the nodes that pass a column on unchanged; comparisons of a stored column
//! with constants keep the part of its range of values (zone maps) they leave.

use crate::physical_plan::PhysicalPlan;
use std::collections::HashMap;
use stride_common::ScalarValue;
use stride_sql::optimizer::cardinality::{selectivity, ColumnFacts, NoFacts};
use stride_sql::plan::{Expr, JoinKind, SetOpKind};

/// Estimated rows of `plan`.
pub fn rows(plan: &PhysicalPlan) -> f64 {
    Estimates::default().rows(plan)
}

/// Estimates of a plan's nodes, each computed once (a distinct count looks down a
/// node's input and needs the rows of every node on the way), by node address.
#[derive(Default)]
pub struct Estimates {
    rows: HashMap<usize, f64>,
}

impl Estimates {
    /// Estimated rows `plan` produces.
    pub fn rows(&mut self, plan: &PhysicalPlan) -> f64 {
        let key = plan as *const PhysicalPlan as usize;
        if let Some(&n) = self.rows.get(&key) {
            return n;
        }
        let n = self.compute(plan);
        self.rows.insert(key, n);
        n
    }

    fn compute(&mut self, plan: &PhysicalPlan) -> f64 {
        match plan {
            PhysicalPlan::Scan { table, .. } => table.row_count() as f64,
            PhysicalPlan::CsvScan { reader, filter, .. } => {
                let rows = reader.estimated_rows() as f64;
                match filter {
                    Some(f) => filtered(rows, f, &mut NoFacts),
                    None => rows,
                }
            }
            PhysicalPlan::ColumnarScan { reader, .. } => reader.estimated_rows() as f64,
            PhysicalPlan::Registered { data, .. } => data.estimated_rows(),
            PhysicalPlan::Range {
                start,
                stop,
                step,
                inclusive,
            } => {
                let span = (*stop as f64 - *start as f64) / *step as f64;
                (span.floor() + if *inclusive { 1.0 } else { 0.0 }).max(0.0)
            }
            PhysicalPlan::Values { rows, .. } => rows.len() as f64,
            PhysicalPlan::CteScan { input, .. }
            | PhysicalPlan::Project { input, .. }
            | PhysicalPlan::Sort { input, .. }
            | PhysicalPlan::Window { input, .. } => self.rows(input),
            PhysicalPlan::Filter { input, predicate } => {
                let rows = self.rows(input);
                filtered(rows, predicate, &mut InputFacts { est: self, input })
            }
            // List lengths are unknown before running: a small guess.
            PhysicalPlan::Unnest { input, .. } => self.rows(input) * 10.0,
            // A guess: a few subquery rows per left row.
            PhysicalPlan::LateralJoin { input, .. } => self.rows(input) * 2.0,
            PhysicalPlan::HashAggregate { input, groups, .. } => {
                let n = self.rows(input);
                if groups.is_empty() {
                    return 1.0;
                }
                let mut combos = 1.0f64;
                for g in groups {
                    match column(g).and_then(|c| self.distinct(input, c)) {
                        Some(d) => combos *= d.max(1.0),
                        // An expression or a column without statistics: half the rows.
                        None => return (n * 0.5).max(1.0),
                    }
                }
                combos.min(n).max(1.0)
            }
            PhysicalPlan::TopN { input, limit, .. } => self.rows(input).min(*limit as f64),
            PhysicalPlan::Limit { input, limit, .. } => {
                let n = self.rows(input);
                limit.map_or(n, |l| n.min(l as f64))
            }
            PhysicalPlan::HashJoin {
                left,
                right,
                kind,
                left_keys,
                right_keys,
                filter,
                ..
            } => {
                let (l, r) = (self.rows(left), self.rows(right));
                let mut keys = 1.0f64;
                for (a, b) in left_keys.iter().zip(right_keys) {
                    let da = column(a).and_then(|c| self.distinct(left, c));
                    let db = column(b).and_then(|c| self.distinct(right, c));
                    // Unknown: a key of the smaller input, the foreign-key case.
                    let d = match (da, db) {
                        (None, None) => l.min(r),
                        (a, b) => a.unwrap_or(0.0).max(b.unwrap_or(0.0)),
                    };
                    keys *= d.max(1.0);
                }
                let keys = keys.min(l.max(r)).max(1.0);
                let mut inner = l * r / keys;
                if let Some(f) = filter {
                    inner = filtered(inner, f, &mut NoFacts);
                }
                joined(*kind, l, r, inner)
            }
            PhysicalPlan::NestedLoopJoin {
                left,
                right,
                kind,
                filter,
                ..
            } => {
                let (l, r) = (self.rows(left), self.rows(right));
                let inner = match filter {
                    Some(f) => filtered(l * r, f, &mut NoFacts),
                    None => l * r,
                };
                joined(*kind, l, r, inner)
            }
            PhysicalPlan::SetOp {
                left, right, kind, ..
            } => {
                let (l, r) = (self.rows(left), self.rows(right));
                match kind {
                    SetOpKind::Union => l + r,
                    SetOpKind::Intersect => l.min(r),
                    SetOpKind::Except => l,
                }
            }
            // A guess: a few rounds of the first one's size.
            PhysicalPlan::RecursiveCte { base, .. } => (self.rows(base) * 10.0).max(100.0),
            // Assumed large, as the optimizer assumes (`cardinality.rs`): the joins of a
            // recursive step build on their other input, once for all rounds, and the
            // planner must not turn them around.
            PhysicalPlan::RecursiveScan { .. } => 1e9,
        }
    }
}

/// Rows of a join of `kind` whose matching pairs number `inner`: an outer join keeps
/// every row of its preserved side; SEMI keeps the left rows with a match (at most
/// all of them), ANTI the others.
fn joined(kind: JoinKind, l: f64, r: f64, inner: f64) -> f64 {
    match kind {
        JoinKind::Inner => inner,
        JoinKind::Left => inner.max(l),
        JoinKind::Right => inner.max(r),
        JoinKind::Full => inner.max(l).max(r),
        JoinKind::Semi => inner.min(l),
        JoinKind::Anti => (l - inner.min(l)).max(l * 0.1),
    }
    .max(1.0)
}

/// `rows` after `predicate` ([`selectivity`]).
fn filtered(rows: f64, predicate: &Expr, facts: &mut dyn ColumnFacts) -> f64 {
    (rows * selectivity(predicate, facts)).max(1.0)
}

/// The statistics of a filter's input's columns.
struct InputFacts<'a> {
    est: &'a mut Estimates,
    input: &'a PhysicalPlan,
}

impl ColumnFacts for InputFacts<'_> {
    fn distinct(&mut self, column: usize) -> Option<f64> {
        self.est.distinct(self.input, column)
    }

    fn range_fraction(
        &mut self,
        column: usize,
        lo: Option<&ScalarValue>,
        hi: Option<&ScalarValue>,
    ) -> Option<f64> {
        stored_range_fraction(self.input, column, lo, hi)
    }
}

/// [`stride_storage::Table::range_fraction`] of the stored column an output column of
/// `plan` is, passed through unchanged by filters and projections.
fn stored_range_fraction(
    plan: &PhysicalPlan,
    col: usize,
    lo: Option<&ScalarValue>,
    hi: Option<&ScalarValue>,
) -> Option<f64> {
    match plan {
        PhysicalPlan::Scan { table, columns, .. } => {
            table.range_fraction(*columns.get(col)?, lo, hi)
        }
        PhysicalPlan::Filter { input, .. } => stored_range_fraction(input, col, lo, hi),
        PhysicalPlan::Project { input, exprs, .. } => {
            stored_range_fraction(input, column(exprs.get(col)?)?, lo, hi)
        }
        _ => None,
    }
}

/// The input column `e` reads, when it is a plain column.
fn column(e: &Expr) -> Option<usize> {
    match e {
        Expr::Column { index, .. } => Some(*index),
        _ => None,
    }
}

impl Estimates {
    /// Distinct values of output column `col` of `plan`, when it is a stored table's (or
    /// a Parquet file's) column passed on unchanged; at most the node's rows.
    fn distinct(&mut self, plan: &PhysicalPlan, col: usize) -> Option<f64> {
        let d = match plan {
            PhysicalPlan::Scan { table, columns, .. } => {
                let c = *columns.get(col)?;
                (c < table.schema.columns.len()).then(|| table.distinct_estimate(c))?
            }
            PhysicalPlan::ColumnarScan {
                reader, columns, ..
            } => reader.distinct_estimate(*columns.get(col)?)?,
            PhysicalPlan::Filter { input, .. }
            | PhysicalPlan::Sort { input, .. }
            | PhysicalPlan::TopN { input, .. }
            | PhysicalPlan::Limit { input, .. }
            | PhysicalPlan::CteScan { input, .. } => self.distinct(input, col)?,
            PhysicalPlan::Project { input, exprs, .. } => {
                self.distinct(input, column(exprs.get(col)?)?)?
            }
            PhysicalPlan::HashAggregate { input, groups, .. } => {
                self.distinct(input, column(groups.get(col)?)?)?
            }
            PhysicalPlan::HashJoin {
                left, right, kind, ..
            }
            | PhysicalPlan::NestedLoopJoin {
                left, right, kind, ..
            } => {
                let nleft = left.types().len();
                if col < nleft {
                    self.distinct(left, col)?
                } else if matches!(kind, JoinKind::Semi | JoinKind::Anti) {
                    return None;
                } else {
                    self.distinct(right, col - nleft)?
                }
            }
            _ => return None,
        };
        Some(d.min(self.rows(plan)))
    }
}
