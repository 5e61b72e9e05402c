//! Pass `set_semantics`: where only which rows a plan produces matters, not how
//! many times each comes, an inner join whose columns are read from one side only
//! becomes a semi join of that side, which outputs each of its rows at most once
//! instead of once per match.
//!
//! The inputs read as sets: the right input of a semi or anti join (an `IN` or
//! `EXISTS` subquery, after `decorrelate`), and, inside such an input, what
//! projections, filters and joins read. A shared CTE (`materialize_ctes`) every
//! reference of which is read as a set, each through some of its columns, gets its
//! body rewritten the same way; the columns no reference reads become NULL. TPC-DS
//! Q95's `ws_wh` CTE pairs the lines of each order shipped from different
//! warehouses (6.6 million rows at scale factor 1) but is only asked which order
//! numbers it holds: as a semi join it keeps each line at most once.
//!
//! It runs after `join_order`, which gives joins their equality keys; only joins
//! with keys are turned into semi joins.

use super::materialize_ctes::count;
use crate::plan::visit::{children_mut, subquery_plans_mut};
use crate::plan::{Expr, Field, JoinKind, LogicalPlan};
use std::collections::HashMap;
use std::sync::Arc;
use stride_common::{Result, ScalarValue};

pub fn optimize(plan: LogicalPlan) -> Result<LogicalPlan> {
    let mut reads = Reads::default();
    let mut plan = rewrite(plan, None, &mut reads);
    let mut all = HashMap::new();
    count(&plan, &mut all);
    let mut bodies: HashMap<u64, Arc<LogicalPlan>> = HashMap::new();
    for (id, (body, uses)) in reads.0 {
        if uses.len() != all.get(&id).copied().unwrap_or(0) {
            continue;
        }
        // Every reference is read as a set: the body needs the union of their columns.
        let Some(uses) = uses.into_iter().collect::<Option<Vec<Vec<bool>>>>() else {
            continue;
        };
        let width = body.schema().len();
        let used: Vec<bool> = (0..width)
            .map(|c| uses.iter().any(|u| u.get(c).copied().unwrap_or(true)))
            .collect();
        // References of other CTEs inside the body stay as they are.
        let rewritten = rewrite(
            Arc::unwrap_or_clone(body.clone()),
            Some(&used),
            &mut Reads::default(),
        );
        if rewritten != *body {
            bodies.insert(id, Arc::new(rewritten));
        }
    }
    if !bodies.is_empty() {
        super::cte_filters::replace(&mut plan, &bodies);
    }
    Ok(plan)
}

/// How the shared CTE references outside shared bodies are read, by CTE id: as a
/// set through the columns marked, or (`None`) as rows.
#[derive(Default)]
struct Reads(HashMap<u64, (Arc<LogicalPlan>, Vec<Option<Vec<bool>>>)>);

impl Reads {
    fn note(&mut self, id: u64, body: &Arc<LogicalPlan>, used: Option<Vec<bool>>) {
        self.0
            .entry(id)
            .or_insert_with(|| (body.clone(), Vec::new()))
            .1
            .push(used);
    }
}

/// `plan` rewritten where it is read as a set: with `set` holding the columns of its
/// output that are read when only the set of its rows matters, or `None` when its
/// rows are read as they come. The right input of a semi or anti join is always
/// read as a set (as are, within a set, the inputs of projections, filters and
/// joins); subqueries in expressions are read as rows.
fn rewrite(mut plan: LogicalPlan, set: Option<&[bool]>, reads: &mut Reads) -> LogicalPlan {
    subqueries(&mut plan, reads);
    match (plan, set) {
        (plan @ LogicalPlan::CteRef { shared: true, .. }, _) => {
            if let LogicalPlan::CteRef { id, body, .. } = &plan {
                reads.note(*id, body, set.map(<[bool]>::to_vec));
            }
            plan
        }
        (
            LogicalPlan::Join {
                left,
                right,
                kind: kind @ (JoinKind::Semi | JoinKind::Anti),
                on,
                filter,
                schema,
            },
            _,
        ) => {
            let (left_needs, right_needs) =
                join_needs(&left, &right, &on, filter.as_ref(), set.unwrap_or(&[]));
            LogicalPlan::Join {
                left: Box::new(rewrite(*left, set.map(|_| &left_needs[..]), reads)),
                right: Box::new(rewrite(*right, Some(&right_needs), reads)),
                kind,
                on,
                filter,
                schema,
            }
        }
        (
            LogicalPlan::Project {
                input,
                exprs,
                schema,
            },
            Some(used),
        ) => {
            let mut needs = vec![false; input.schema().len()];
            for (e, _) in exprs.iter().zip(used).filter(|(_, &u)| u) {
                mark(e, &mut needs);
            }
            // Columns nobody reads are not computed (they may read the NULL columns
            // of a join turned into a semi join below).
            let exprs = exprs
                .into_iter()
                .enumerate()
                .map(|(i, e)| match used.get(i) {
                    Some(false) => Expr::Literal {
                        value: ScalarValue::Null,
                        ty: e.data_type(),
                    },
                    _ => e,
                })
                .collect();
            LogicalPlan::Project {
                input: Box::new(rewrite(*input, Some(&needs), reads)),
                exprs,
                schema,
            }
        }
        (LogicalPlan::Filter { input, predicate }, Some(used)) => {
            let mut needs = used.to_vec();
            needs.resize(input.schema().len(), false);
            mark(&predicate, &mut needs);
            LogicalPlan::Filter {
                input: Box::new(rewrite(*input, Some(&needs), reads)),
                predicate,
            }
        }
        (
            LogicalPlan::Join {
                left,
                right,
                kind: JoinKind::Inner,
                on,
                filter,
                schema,
            },
            Some(used),
        ) => inner_join_in_set(*left, *right, on, filter, schema, used, reads),
        (mut other, _) => {
            for c in children_mut(&mut other) {
                let child = std::mem::replace(c, super::placeholder());
                *c = rewrite(child, None, reads);
            }
            other
        }
    }
}

/// An inner join read as a set through its output's `used` columns: a semi join
/// of the side those columns come from, when they all come from one side.
fn inner_join_in_set(
    left: LogicalPlan,
    right: LogicalPlan,
    on: Vec<(Expr, Expr)>,
    filter: Option<Expr>,
    schema: Vec<Field>,
    used: &[bool],
    reads: &mut Reads,
) -> LogicalPlan {
    let nleft = left.schema().len();
    let (left_needs, right_needs) = join_needs(&left, &right, &on, filter.as_ref(), used);
    let reads_left = used[..nleft.min(used.len())].iter().any(|&u| u);
    let reads_right = used.get(nleft..).is_some_and(|r| r.iter().any(|&u| u));
    if on.is_empty() || (reads_left && reads_right) {
        return LogicalPlan::Join {
            left: Box::new(rewrite(left, Some(&left_needs), reads)),
            right: Box::new(rewrite(right, Some(&right_needs), reads)),
            kind: JoinKind::Inner,
            on,
            filter,
            schema,
        };
    }
    let (left_fields, right_fields) = (left.schema().to_vec(), right.schema().to_vec());
    let nright = right_fields.len();
    // The rows of the side whose columns are read that have a match (the join
    // turned around when that is the right side); the other side's columns,
    // never read, are NULL.
    let (kept, kept_needs, other, other_needs, on, filter) = if !reads_right {
        (left, left_needs, right, right_needs, on, filter)
    } else {
        let on = on.into_iter().map(|(l, r)| (r, l)).collect();
        let filter = filter.map(|mut f| {
            f.remap_columns(&|c| if c < nleft { c + nright } else { c - nleft });
            f
        });
        (right, right_needs, left, left_needs, on, filter)
    };
    let semi = LogicalPlan::Join {
        schema: kept.schema().to_vec(),
        left: Box::new(rewrite(kept, Some(&kept_needs), reads)),
        right: Box::new(rewrite(other, Some(&other_needs), reads)),
        kind: JoinKind::Semi,
        on,
        filter,
    };
    let exprs = if !reads_right {
        columns(&left_fields).chain(nulls(&right_fields)).collect()
    } else {
        nulls(&left_fields).chain(columns(&right_fields)).collect()
    };
    LogicalPlan::Project {
        input: Box::new(semi),
        exprs,
        schema,
    }
}

/// The columns of each input of a join that its output's `used` columns, its keys
/// and its condition read.
fn join_needs(
    left: &LogicalPlan,
    right: &LogicalPlan,
    on: &[(Expr, Expr)],
    filter: Option<&Expr>,
    used: &[bool],
) -> (Vec<bool>, Vec<bool>) {
    let nleft = left.schema().len();
    let mut both = vec![false; nleft + right.schema().len()];
    for (c, &u) in used.iter().enumerate().take(both.len()) {
        both[c] = u;
    }
    if let Some(f) = filter {
        mark(f, &mut both);
    }
    let mut right_needs = both.split_off(nleft);
    let mut left_needs = both;
    for (l, r) in on {
        mark(l, &mut left_needs);
        mark(r, &mut right_needs);
    }
    (left_needs, right_needs)
}

/// Marks the input columns `e` reads.
fn mark(e: &Expr, needs: &mut [bool]) {
    let mut cols = Vec::new();
    e.collect_columns(&mut cols);
    for c in cols {
        if let Some(n) = needs.get_mut(c) {
            *n = true;
        }
    }
}

fn columns(fields: &[Field]) -> impl Iterator<Item = Expr> + '_ {
    fields.iter().enumerate().map(|(index, f)| Expr::Column {
        index,
        ty: f.ty.clone(),
        name: f.name.clone(),
    })
}

fn nulls(fields: &[Field]) -> impl Iterator<Item = Expr> + '_ {
    fields.iter().map(|f| Expr::Literal {
        value: ScalarValue::Null,
        ty: f.ty.clone(),
    })
}

/// Rewrites the plans of the subqueries in `plan`'s own expressions, read as rows.
fn subqueries(plan: &mut LogicalPlan, reads: &mut Reads) {
    subquery_plans_mut(plan, &mut |p| {
        let taken = std::mem::replace(p, super::placeholder());
        *p = rewrite(taken, None, reads);
    });
}
