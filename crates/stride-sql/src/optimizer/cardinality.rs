//! Row-count estimates for join ordering. Deliberately simple: table sizes from the
//! catalog, a fixed selectivity per filter conjunct, and joins on keys assumed to be
//! foreign-key joins (as large as their larger input). Good enough to build hash
//! tables on the smaller side and to join selective inputs first. Where a stored
//! column's statistics are known, [`selectivity`] refines a filter with them: distinct
//! counts for equalities, the range of values for comparisons with constants.

use crate::plan::{Expr, JoinKind, LogicalPlan, TableFunction};
use stride_common::ScalarValue;
use stride_functions::ScalarFunction;

/// Estimated rows `plan` produces.
pub fn estimate(plan: &LogicalPlan) -> f64 {
    rows(plan, true)
}

/// Estimated rows `plan` reads from its sources, before any filter: the fact table
/// of a star join is the input with the most.
pub fn unfiltered_estimate(plan: &LogicalPlan) -> f64 {
    rows(plan, false)
}

fn rows(plan: &LogicalPlan, filters: bool) -> f64 {
    let estimate = |p: &LogicalPlan| rows(p, filters);
    match plan {
        LogicalPlan::Scan { rows, .. } => *rows as f64,
        LogicalPlan::Values { rows, .. } => rows.len() as f64,
        LogicalPlan::CteRef { body, .. } => estimate(body),
        LogicalPlan::TableFunction { func, .. } => match func {
            TableFunction::Range {
                start, stop, step, ..
            } => {
                let span = (*stop as f64 - *start as f64) / *step as f64;
                span.max(0.0)
            }
            TableFunction::ReadCsv { source, .. } => source.0.estimated_rows() as f64,
            TableFunction::ReadColumnar { source, .. } => source.0.estimated_rows() as f64,
            TableFunction::Registered { data, .. } => data.0.estimated_rows(),
            // Known only once the outer row is: a small guess.
            TableFunction::Deferred { .. } => 10.0,
        },
        LogicalPlan::Filter { input, .. } if !filters => estimate(input),
        LogicalPlan::Filter { input, predicate } => {
            let mut terms = Vec::new();
            predicate.clone().split_conjunction(&mut terms);
            let selectivity: f64 = terms.iter().map(conjunct_selectivity).product();
            (estimate(input) * selectivity).max(1.0)
        }
        LogicalPlan::Project { input, .. } | LogicalPlan::Sort { input, .. } => estimate(input),
        LogicalPlan::Aggregate {
            input, group_by, ..
        } => {
            if group_by.is_empty() {
                1.0
            } else {
                (estimate(input) * 0.5).max(1.0)
            }
        }
        LogicalPlan::Limit { input, limit, .. } => {
            let n = estimate(input);
            limit.map_or(n, |l| n.min(l as f64))
        }
        LogicalPlan::Join {
            left,
            right,
            kind,
            on,
            ..
        } => {
            let (l, r) = (estimate(left), estimate(right));
            match kind {
                JoinKind::Semi | JoinKind::Anti => l * 0.5,
                JoinKind::Left => l,
                JoinKind::Right => r,
                JoinKind::Full => l + r,
                JoinKind::Inner if on.is_empty() => l * r,
                JoinKind::Inner => l.max(r),
            }
        }
        LogicalPlan::SetOp { left, right, .. } => estimate(left) + estimate(right),
        // List lengths are unknown before running: a small guess, as for unnest in FROM.
        LogicalPlan::Unnest { input, .. } => estimate(input) * 10.0,
        LogicalPlan::Window { input, .. } => estimate(input),
        // A guess: a few subquery rows per left row.
        LogicalPlan::LateralJoin { left, .. } => estimate(left) * 2.0,
        // A guess: a few rounds of the step's size.
        LogicalPlan::RecursiveCte { base, .. } => (estimate(base) * 10.0).max(100.0),
        // Assumed large, so joins in the step probe with the last round's rows and
        // build on the other input, which the executor then builds once for all
        // rounds (`PhysicalPlan::round_invariant`).
        LogicalPlan::RecursiveRef { .. } => 1e9,
    }
}

/// What a column's statistics tell the estimates: its distinct count, and the
/// fraction of its range of values between two bounds (see
/// [`super::Statistics::range_fraction`]). Each is unknown unless an input says.
pub trait ColumnFacts {
    fn distinct(&mut self, _column: usize) -> Option<f64> {
        None
    }

    fn range_fraction(
        &mut self,
        _column: usize,
        _lo: Option<&ScalarValue>,
        _hi: Option<&ScalarValue>,
    ) -> Option<f64> {
        None
    }
}

/// No statistics: the fixed selectivities.
pub struct NoFacts;

impl ColumnFacts for NoFacts {}

/// Fraction of rows `predicate` keeps: per conjunct, one row per distinct value named
/// when it matches a column whose distinct count is known to constants
/// (`p_type = 'ECONOMY ANODIZED STEEL'` keeps 1 in 150 parts, `n_name = 'FRANCE' OR
/// n_name = 'GERMANY'` 2 in 25 nations); the comparisons of one column with constants
/// together keep the part of its range of values they leave (`d_date BETWEEN ...`
/// keeps 61 of 73,049 days); otherwise [`conjunct_selectivity`].
pub fn selectivity(predicate: &Expr, facts: &mut dyn ColumnFacts) -> f64 {
    let mut terms = Vec::new();
    predicate.clone().split_conjunction(&mut terms);
    // (column, lower bound, upper bound, the terms giving them)
    let mut ranges: Vec<(usize, Option<ScalarValue>, Option<ScalarValue>, Vec<usize>)> = Vec::new();
    for (k, t) in terms.iter().enumerate() {
        let Some((c, lower, v)) = range_bound(t) else {
            continue;
        };
        let at = match ranges.iter().position(|r| r.0 == c) {
            Some(i) => i,
            None => {
                ranges.push((c, None, None, Vec::new()));
                ranges.len() - 1
            }
        };
        let r = &mut ranges[at];
        let bound = if lower { &mut r.1 } else { &mut r.2 };
        // the tighter bound of two
        let tighter = match bound {
            Some(b) if lower => v.total_cmp(b).is_gt(),
            Some(b) => v.total_cmp(b).is_lt(),
            None => true,
        };
        if tighter {
            *bound = Some(v);
        }
        r.3.push(k);
    }
    let mut kept = 1.0;
    let mut done = vec![false; terms.len()];
    for (c, lo, hi, used) in &ranges {
        if let Some(f) = facts.range_fraction(*c, lo.as_ref(), hi.as_ref()) {
            kept *= f;
            used.iter().for_each(|&k| done[k] = true);
        }
    }
    for (k, t) in terms.iter().enumerate() {
        if done[k] {
            continue;
        }
        kept *= constants_matched(t)
            .and_then(|(c, n)| Some((n as f64 / facts.distinct(c)?.max(1.0)).min(1.0)))
            .unwrap_or_else(|| conjunct_selectivity(t));
    }
    kept
}

/// `column >= constant` and the like: the column, whether the constant is a lower
/// bound, and the constant (an expression of constants counts, `d_month_seq <= 1200 +
/// 11`).
fn range_bound(e: &Expr) -> Option<(usize, bool, ScalarValue)> {
    let Expr::Function { func, args } = e else {
        return None;
    };
    let lower = match func.func {
        ScalarFunction::Gt | ScalarFunction::GtEq => true,
        ScalarFunction::Lt | ScalarFunction::LtEq => false,
        _ => return None,
    };
    let constant = |e: &Expr| {
        crate::binder::fold::fold_constant(e)
            .ok()
            .flatten()
            .filter(|v| !v.is_null())
    };
    match (args.first()?, args.get(1)?) {
        (Expr::Column { index, .. }, c) => Some((*index, lower, constant(c)?)),
        (c, Expr::Column { index, .. }) => Some((*index, !lower, constant(c)?)),
        _ => None,
    }
}

/// Fraction of rows a WHERE conjunct keeps.
pub fn conjunct_selectivity(e: &Expr) -> f64 {
    match e {
        Expr::Function { func, .. } if func.func == ScalarFunction::Eq => 0.1,
        Expr::InList {
            negated: false,
            list,
            ..
        } => (0.1 * list.len() as f64).min(0.5),
        Expr::Or(a, b) => (conjunct_selectivity(a) + conjunct_selectivity(b)).min(1.0),
        _ => 0.3,
    }
}

/// The column a condition compares with constants, and how many constants: `c = x`,
/// `c = x OR c = y ...`, `c IN (x, y, ...)`. The column may be cast to another
/// number type, as the binder does to compare it with a wider constant
/// (`CAST(s_gmt_offset AS DECIMAL(12,2)) = -5.00`).
pub fn constants_matched(t: &Expr) -> Option<(usize, usize)> {
    match t {
        Expr::Function { func, args } if func.func == ScalarFunction::Eq => match &args[..] {
            [c, Expr::Literal { .. }] | [Expr::Literal { .. }, c] => Some((compared_column(c)?, 1)),
            _ => None,
        },
        Expr::Or(a, b) => {
            let (x, m) = constants_matched(a)?;
            let (y, n) = constants_matched(b)?;
            (x == y).then_some((x, m + n))
        }
        Expr::InList {
            expr,
            list,
            negated: false,
            ..
        } if list.iter().all(|e| matches!(e, Expr::Literal { .. })) => {
            Some((compared_column(expr)?, list.len()))
        }
        _ => None,
    }
}

/// The column `e` reads, itself or cast from one number type to another (which keeps
/// its values apart, or nearly: a guess of its distinct values stays one).
fn compared_column(e: &Expr) -> Option<usize> {
    match e {
        Expr::Column { index, .. } => Some(*index),
        Expr::Cast { expr, to, .. } => match &**expr {
            Expr::Column { index, ty, .. } if ty.is_numeric() && to.is_numeric() => Some(*index),
            _ => None,
        },
        _ => None,
    }
}
