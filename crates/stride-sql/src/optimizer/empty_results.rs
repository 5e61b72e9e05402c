//! Pass `empty_results`: a part of the plan that can produce no rows becomes an empty
//! VALUES, and what it makes pointless goes with it. `SELECT ... FROM a JOIN b ON a.x =
//! b.y AND (TRUE AND FALSE)` then reads neither table instead of pairing every row of
//! `a` with every row of `b` and dropping each pair; `a LEFT JOIN b ON FALSE` reads only
//! `a` and pads it with NULLs.
//!
//! Runs after `filter_pushdown` (which gathers a query's conditions over the nodes they
//! read) and before `join_order`. Works bottom-up: a node becomes empty when
//!
//! - it is a filter, or a join's condition, with a conjunct that is constant FALSE or
//!   NULL (conjunctions, disjunctions and negations of constants are folded here;
//!   other constant expressions with the evaluator's kernels; one whose evaluation
//!   fails is left for execution to report);
//! - its input is empty and it yields rows only for input rows: projections, filters,
//!   sorts, limits, unnests, grouped aggregates (an aggregate without GROUP BY still
//!   yields its one row);
//! - `LIMIT 0`;
//! - a join whose preserved sides are all empty; a join with an empty side that it
//!   does not preserve becomes its other input padded with NULLs (an anti join: the
//!   left input itself);
//! - an INTERSECT with an empty side, an EXCEPT with an empty left side, a UNION of two
//!   empty sides; an empty side of a UNION ALL is dropped.

use crate::binder::fold_constant;
use crate::plan::visit::children_mut;
use crate::plan::{Expr, Field, JoinKind, LogicalPlan, SetOpKind};
use stride_common::{Result, ScalarValue};

pub fn optimize(mut plan: LogicalPlan) -> Result<LogicalPlan> {
    for c in children_mut(&mut plan) {
        let child = std::mem::replace(c, super::placeholder());
        *c = optimize(child)?;
    }
    Ok(simplify(plan))
}

/// `plan`, whose children are already simplified, as an empty VALUES or a smaller
/// plan where one of the rules above applies.
fn simplify(plan: LogicalPlan) -> LogicalPlan {
    match plan {
        LogicalPlan::Filter { input, predicate } => {
            if is_empty(&input) || never_true(&predicate) {
                empty(input.schema())
            } else {
                LogicalPlan::Filter { input, predicate }
            }
        }
        LogicalPlan::Project { ref input, .. }
        | LogicalPlan::Sort { ref input, .. }
        | LogicalPlan::Unnest { ref input, .. }
        | LogicalPlan::Window { ref input, .. }
        | LogicalPlan::LateralJoin {
            left: ref input, ..
        } if is_empty(input) => empty(plan.schema()),
        LogicalPlan::Limit {
            ref input, limit, ..
        } if is_empty(input) || limit == Some(0) => empty(plan.schema()),
        LogicalPlan::Aggregate {
            ref input,
            ref group_by,
            ..
        } if !group_by.is_empty() && is_empty(input) => empty(plan.schema()),
        LogicalPlan::Join {
            left,
            right,
            kind,
            on,
            filter,
            schema,
        } => {
            let no_match = filter.as_ref().is_some_and(never_true);
            let (l, r) = (is_empty(&left), is_empty(&right));
            let padded_left = |left: LogicalPlan| pad(left, &schema, true);
            let padded_right = |right: LogicalPlan| pad(right, &schema, false);
            match kind {
                JoinKind::Inner | JoinKind::Semi if l || r || no_match => empty(&schema),
                JoinKind::Anti if l => empty(&schema),
                JoinKind::Anti if r || no_match => *left,
                JoinKind::Left if l => empty(&schema),
                JoinKind::Left if r || no_match => padded_left(*left),
                JoinKind::Right if r => empty(&schema),
                JoinKind::Right if l || no_match => padded_right(*right),
                JoinKind::Full if l && r => empty(&schema),
                JoinKind::Full if l => padded_right(*right),
                JoinKind::Full if r => padded_left(*left),
                JoinKind::Full if no_match => LogicalPlan::SetOp {
                    left: Box::new(padded_left(*left)),
                    right: Box::new(padded_right(*right)),
                    kind: SetOpKind::Union,
                    all: true,
                    schema,
                },
                _ => LogicalPlan::Join {
                    left,
                    right,
                    kind,
                    on,
                    filter,
                    schema,
                },
            }
        }
        LogicalPlan::SetOp {
            left,
            right,
            kind,
            all,
            schema,
        } => {
            let (l, r) = (is_empty(&left), is_empty(&right));
            match kind {
                SetOpKind::Intersect if l || r => empty(&schema),
                SetOpKind::Except if l => empty(&schema),
                SetOpKind::Union if l && r => empty(&schema),
                SetOpKind::Union if all && l && right.has_types(&schema) => {
                    LogicalPlan::project_leading(*right, schema)
                }
                SetOpKind::Union | SetOpKind::Except if all && r && left.has_types(&schema) => {
                    LogicalPlan::project_leading(*left, schema)
                }
                _ => LogicalPlan::SetOp {
                    left,
                    right,
                    kind,
                    all,
                    schema,
                },
            }
        }
        plan => plan,
    }
}

fn is_empty(plan: &LogicalPlan) -> bool {
    matches!(plan, LogicalPlan::Values { rows, .. } if rows.is_empty())
}

fn empty(schema: &[Field]) -> LogicalPlan {
    LogicalPlan::Values {
        rows: vec![],
        schema: schema.to_vec(),
    }
}

/// Whether one of the conjuncts of `predicate` is constant FALSE or NULL.
fn never_true(predicate: &Expr) -> bool {
    let mut terms = Vec::new();
    predicate.clone().split_conjunction(&mut terms);
    terms
        .iter()
        .any(|t| matches!(truth(t), Some(None | Some(false))))
}

/// The value of a constant condition (`Some(None)`: NULL); `None` when it depends on
/// rows, or when evaluating it fails.
fn truth(e: &Expr) -> Option<Option<bool>> {
    match e {
        Expr::And(a, b) => match (truth(a), truth(b)) {
            (Some(Some(false)), _) | (_, Some(Some(false))) => Some(Some(false)),
            (Some(Some(true)), Some(x)) | (Some(x), Some(Some(true))) => Some(x),
            (Some(None), Some(None)) => Some(None),
            _ => None,
        },
        Expr::Or(a, b) => match (truth(a), truth(b)) {
            (Some(Some(true)), _) | (_, Some(Some(true))) => Some(Some(true)),
            (Some(Some(false)), Some(x)) | (Some(x), Some(Some(false))) => Some(x),
            (Some(None), Some(None)) => Some(None),
            _ => None,
        },
        Expr::Not(a) => truth(a).map(|v| v.map(|b| !b)),
        e if e.has_subquery() => None,
        e => match fold_constant(e) {
            Ok(Some(ScalarValue::Boolean(b))) => Some(Some(b)),
            Ok(Some(ScalarValue::Null)) => Some(None),
            _ => None,
        },
    }
}

/// The rows of one side of a join with the join's output columns, those of the other
/// side NULL.
fn pad(side: LogicalPlan, schema: &[Field], side_is_left: bool) -> LogicalPlan {
    let n = side.schema().len();
    let other = schema.len() - n;
    let exprs = schema
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let own = if side_is_left {
                (i < n).then_some(i)
            } else {
                i.checked_sub(other)
            };
            match own {
                Some(c) => Expr::column(c, f.ty.clone(), f.name.clone()),
                None => Expr::Literal {
                    value: ScalarValue::Null,
                    ty: f.ty.clone(),
                },
            }
        })
        .collect();
    LogicalPlan::Project {
        input: Box::new(side),
        exprs,
        schema: schema.to_vec(),
    }
}
