//! Walks over plans and the expressions inside them, including subquery plans nested
//! in expressions. Used to rewrite correlated references when a subquery is
//! instantiated for an outer row, and by optimizer passes.

use super::expr::{Expr, SubqueryKind};
use super::logical::{LogicalPlan, TableFunction, WindowExpr};

/// Calls `f` on the plan of every subquery in the expressions of this node (not its
/// children), outermost first; what those plans hold is `f`'s to walk.
pub fn subquery_plans(plan: &LogicalPlan, f: &mut dyn FnMut(&LogicalPlan)) {
    fn walk(e: &Expr, f: &mut dyn FnMut(&LogicalPlan)) {
        if let Expr::Subquery(s) = e {
            f(&s.plan);
        }
        for c in e.children() {
            walk(c, f);
        }
    }
    for e in node_expressions(plan) {
        walk(e, f);
    }
}

/// [`subquery_plans`], mutably.
pub fn subquery_plans_mut(plan: &mut LogicalPlan, f: &mut dyn FnMut(&mut LogicalPlan)) {
    fn walk(e: &mut Expr, f: &mut dyn FnMut(&mut LogicalPlan)) {
        if let Expr::Subquery(s) = e {
            f(&mut s.plan);
        }
        for c in e.children_mut() {
            walk(c, f);
        }
    }
    for e in node_expressions_mut(plan) {
        walk(e, f);
    }
}

/// Mutable references to every expression evaluated by this node (not its children).
pub fn node_expressions_mut(plan: &mut LogicalPlan) -> Vec<&mut Expr> {
    match plan {
        LogicalPlan::TableFunction {
            func: TableFunction::Deferred { args, .. },
            ..
        } => args.iter_mut().collect(),
        LogicalPlan::Scan { .. }
        | LogicalPlan::CteRef { .. }
        | LogicalPlan::TableFunction { .. }
        | LogicalPlan::Limit { .. }
        | LogicalPlan::SetOp { .. }
        | LogicalPlan::RecursiveCte { .. }
        | LogicalPlan::RecursiveRef { .. } => vec![],
        LogicalPlan::Values { rows, .. } => rows.iter_mut().flatten().collect(),
        LogicalPlan::Filter { predicate, .. } => vec![predicate],
        LogicalPlan::LateralJoin { right, .. } => vec![&mut **right],
        LogicalPlan::Project { exprs, .. } => exprs.iter_mut().collect(),
        LogicalPlan::Unnest { lists, .. } => lists.iter_mut().map(|l| l.list_mut()).collect(),
        LogicalPlan::Window { functions, .. } => functions
            .iter_mut()
            .flat_map(WindowExpr::exprs_mut)
            .collect(),
        LogicalPlan::Aggregate {
            group_by,
            aggregates,
            ..
        } => {
            let mut v: Vec<&mut Expr> = group_by.iter_mut().collect();
            for a in aggregates.iter_mut() {
                v.extend(a.args.iter_mut());
                v.extend(a.filter.iter_mut());
                v.extend(a.order_by.iter_mut().map(|s| &mut s.expr));
            }
            v
        }
        LogicalPlan::Sort { keys, .. } => keys.iter_mut().map(|k| &mut k.expr).collect(),
        LogicalPlan::Join { on, filter, .. } => {
            let mut v: Vec<&mut Expr> = Vec::new();
            for (a, b) in on.iter_mut() {
                v.push(a);
                v.push(b);
            }
            v.extend(filter.iter_mut());
            v
        }
    }
}

pub fn children_mut(plan: &mut LogicalPlan) -> Vec<&mut LogicalPlan> {
    match plan {
        LogicalPlan::Scan { .. }
        | LogicalPlan::CteRef { .. }
        | LogicalPlan::Values { .. }
        | LogicalPlan::TableFunction { .. }
        | LogicalPlan::RecursiveRef { .. } => vec![],
        LogicalPlan::RecursiveCte { base, step, .. } => vec![base, step],
        LogicalPlan::Filter { input, .. }
        | LogicalPlan::Project { input, .. }
        | LogicalPlan::Aggregate { input, .. }
        | LogicalPlan::Sort { input, .. }
        | LogicalPlan::Limit { input, .. }
        | LogicalPlan::Unnest { input, .. }
        | LogicalPlan::Window { input, .. } => vec![input],
        LogicalPlan::LateralJoin { left, .. } => vec![left],
        LogicalPlan::Join { left, right, .. } | LogicalPlan::SetOp { left, right, .. } => {
            vec![left, right]
        }
    }
}

/// Calls `f` on every `OuterColumn` that refers `level` subquery levels above `plan`
/// (level 1: the query that contains `plan` as a subquery).
pub fn for_each_outer_ref(plan: &mut LogicalPlan, level: usize, f: &mut dyn FnMut(&mut Expr)) {
    for e in node_expressions_mut(plan) {
        expr_outer_refs(e, level, f);
    }
    for c in children_mut(plan) {
        for_each_outer_ref(c, level, f);
    }
}

/// Like [`for_each_outer_ref`], within one expression evaluated at subquery depth
/// `level - 1` below the referenced query.
pub fn expr_outer_refs(e: &mut Expr, level: usize, f: &mut dyn FnMut(&mut Expr)) {
    match e {
        Expr::OuterColumn { depth, .. } if *depth == level => f(e),
        Expr::Subquery(s) => {
            match &mut s.kind {
                SubqueryKind::In { expr, .. } | SubqueryKind::Quantified { expr, .. } => {
                    expr_outer_refs(expr, level, f)
                }
                _ => {}
            }
            for_each_outer_ref(&mut s.plan, level + 1, f);
        }
        _ => {
            for c in e.children_mut() {
                expr_outer_refs(c, level, f);
            }
        }
    }
}

/// Offers `f` each expression of `plan` and of the subqueries inside it, outermost
/// first, with its level: 1 for `plan`'s own expressions, one more per subquery
/// nesting. Where `f` returns true it has replaced the expression, whose parts are
/// then not offered.
pub fn rewrite_exprs_by_level(
    plan: &mut LogicalPlan,
    level: usize,
    f: &mut dyn FnMut(&mut Expr, usize) -> bool,
) {
    for e in node_expressions_mut(plan) {
        rewrite_expr_by_level(e, level, f);
    }
    for c in children_mut(plan) {
        rewrite_exprs_by_level(c, level, f);
    }
}

fn rewrite_expr_by_level(e: &mut Expr, level: usize, f: &mut dyn FnMut(&mut Expr, usize) -> bool) {
    if f(e, level) {
        return;
    }
    match e {
        Expr::Subquery(s) => {
            match &mut s.kind {
                SubqueryKind::In { expr, .. } | SubqueryKind::Quantified { expr, .. } => {
                    rewrite_expr_by_level(expr, level, f)
                }
                _ => {}
            }
            rewrite_exprs_by_level(&mut s.plan, level + 1, f);
        }
        _ => {
            for c in e.children_mut() {
                rewrite_expr_by_level(c, level, f);
            }
        }
    }
}

/// Calls `f` with the column index of every `OuterColumn` that refers `level`
/// subquery levels above `plan` (the read-only form of [`for_each_outer_ref`]).
pub fn outer_refs(plan: &LogicalPlan, level: usize, f: &mut dyn FnMut(usize)) {
    for e in node_expressions(plan) {
        expr_outer_ref_indices(e, level, f);
    }
    for c in plan.children() {
        outer_refs(c, level, f);
    }
}

fn expr_outer_ref_indices(e: &Expr, level: usize, f: &mut dyn FnMut(usize)) {
    match e {
        Expr::OuterColumn { depth, index, .. } if *depth == level => f(*index),
        Expr::Subquery(s) => {
            if let SubqueryKind::In { expr, .. } | SubqueryKind::Quantified { expr, .. } = &s.kind {
                expr_outer_ref_indices(expr, level, f);
            }
            outer_refs(&s.plan, level + 1, f);
        }
        _ => {
            for c in e.children() {
                expr_outer_ref_indices(c, level, f);
            }
        }
    }
}

/// Immutable references to every expression evaluated by this node.
pub fn node_expressions(plan: &LogicalPlan) -> Vec<&Expr> {
    match plan {
        LogicalPlan::TableFunction {
            func: TableFunction::Deferred { args, .. },
            ..
        } => args.iter().collect(),
        LogicalPlan::Scan { .. }
        | LogicalPlan::CteRef { .. }
        | LogicalPlan::TableFunction { .. }
        | LogicalPlan::Limit { .. }
        | LogicalPlan::SetOp { .. }
        | LogicalPlan::RecursiveCte { .. }
        | LogicalPlan::RecursiveRef { .. } => vec![],
        LogicalPlan::Values { rows, .. } => rows.iter().flatten().collect(),
        LogicalPlan::Filter { predicate, .. } => vec![predicate],
        LogicalPlan::LateralJoin { right, .. } => vec![&**right],
        LogicalPlan::Project { exprs, .. } => exprs.iter().collect(),
        LogicalPlan::Unnest { lists, .. } => lists.iter().map(|l| l.list()).collect(),
        LogicalPlan::Window { functions, .. } => {
            functions.iter().flat_map(WindowExpr::exprs).collect()
        }
        LogicalPlan::Aggregate {
            group_by,
            aggregates,
            ..
        } => {
            let mut v: Vec<&Expr> = group_by.iter().collect();
            for a in aggregates {
                v.extend(a.args.iter());
                v.extend(a.filter.iter());
                v.extend(a.order_by.iter().map(|s| &s.expr));
            }
            v
        }
        LogicalPlan::Sort { keys, .. } => keys.iter().map(|k| &k.expr).collect(),
        LogicalPlan::Join { on, filter, .. } => {
            let mut v: Vec<&Expr> = Vec::new();
            for (a, b) in on {
                v.push(a);
                v.push(b);
            }
            v.extend(filter.iter());
            v
        }
    }
}

/// Whether the plan refers to a query `level` levels above it.
pub fn references_outer(plan: &LogicalPlan, level: usize) -> bool {
    node_expressions(plan)
        .into_iter()
        .any(|e| expr_references_outer(e, level))
        || plan
            .children()
            .into_iter()
            .any(|c| references_outer(c, level))
}

/// Whether the expression, evaluated at subquery depth `level - 1` below a query,
/// refers to that query.
pub fn expr_references_outer(e: &Expr, level: usize) -> bool {
    match e {
        Expr::OuterColumn { depth, .. } => *depth == level,
        Expr::Subquery(s) => {
            let outer_expr = match &s.kind {
                SubqueryKind::In { expr, .. } | SubqueryKind::Quantified { expr, .. } => {
                    expr_references_outer(expr, level)
                }
                _ => false,
            };
            outer_expr || references_outer(&s.plan, level + 1)
        }
        _ => e
            .children()
            .into_iter()
            .any(|c| expr_references_outer(c, level)),
    }
}

/// The deepest `depth` of any outer reference in the plan, nested subqueries included
/// (0 when there is none). No reference reaches further than this many levels up.
pub fn max_outer_depth(plan: &LogicalPlan) -> usize {
    let own = node_expressions(plan)
        .into_iter()
        .map(expr_max_outer_depth)
        .max()
        .unwrap_or(0);
    plan.children()
        .into_iter()
        .map(max_outer_depth)
        .fold(own, usize::max)
}

/// [`max_outer_depth`] of one expression.
pub fn expr_max_outer_depth(e: &Expr) -> usize {
    let own = match e {
        Expr::OuterColumn { depth, .. } => *depth,
        Expr::Subquery(s) => max_outer_depth(&s.plan),
        _ => 0,
    };
    e.children()
        .into_iter()
        .map(expr_max_outer_depth)
        .fold(own, usize::max)
}

/// `e` moved `levels` query levels out, to the query its references of level
/// `levels` address: those become plain columns, and references further out come
/// `levels` levels closer (a condition pulled out of a subquery, an aggregate of an
/// enclosing query found inside one).
pub fn outer_to_columns(mut e: Expr, levels: usize) -> Expr {
    expr_outer_refs(&mut e, levels, &mut |x| {
        if let Expr::OuterColumn {
            index, ty, name, ..
        } = x
        {
            *x = Expr::column(*index, ty.clone(), name.clone());
        }
    });
    for level in levels + 1..=expr_max_outer_depth(&e) {
        expr_outer_refs(&mut e, level, &mut |x| {
            if let Expr::OuterColumn { depth, .. } = x {
                *depth -= levels;
            }
        });
    }
    e
}

/// Brings the outer references of `plan`, which reads nothing of level 1, one level
/// closer: the plan of a subquery that no longer needs its enclosing query's row.
pub fn outer_refs_one_level_closer(plan: &mut LogicalPlan) {
    for level in 2..=max_outer_depth(plan) {
        for_each_outer_ref(plan, level, &mut |e| {
            if let Expr::OuterColumn { depth, .. } = e {
                *depth -= 1;
            }
        });
    }
}
