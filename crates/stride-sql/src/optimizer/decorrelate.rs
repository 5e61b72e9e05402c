//! Pass `decorrelate`: turns subqueries into joins, so a correlated subquery runs
//! once over its whole input instead of once per outer row.
//!
//! - `EXISTS (…)`, `NOT EXISTS (…)` and `x IN (…)` that are conjuncts of a WHERE or
//!   HAVING condition become semi and anti joins with the enclosing query.
//! - A correlated scalar subquery whose result is one aggregate without GROUP BY
//!   (`(SELECT min(c) FROM t WHERE t.k = outer.k)`) becomes a LEFT JOIN with that
//!   aggregate grouped by the correlated columns. Where the aggregate over no rows is
//!   not NULL (`count`), a CASE restores that value for outer rows without a group.
//! - A LATERAL join whose subquery's correlated conditions can be pulled up becomes a
//!   plain join on those conditions.
//! - A correlated `[NOT] EXISTS` elsewhere (`EXISTS (…) OR EXISTS (…)`, in a select
//!   list) becomes a LEFT JOIN with the subquery's distinct correlation keys and a
//!   marker column, and the EXISTS a test of that marker.
//!
//! Correlated conditions are pulled up out of the subquery plan through filters,
//! projections, inner joins, the preserved side of outer, semi and anti joins, sorts
//! and grouped aggregates (equalities only, which become grouping keys). Whatever
//! cannot be pulled up keeps its subquery, which the executor then runs per distinct
//! outer value: slower, never wrong. `NOT IN` and `ANY`/`ALL` keep their subqueries,
//! because their NULL rules differ from an anti join's.
//!
//! Subqueries are unnested innermost first, so nested correlation unwinds one level
//! at a time; references that reach further out move one level closer each time.

use crate::plan::visit::{
    children_mut, expr_references_outer, node_expressions, outer_refs_one_level_closer,
    outer_to_columns, references_outer,
};
use crate::plan::{AggregateExpr, Expr, Field, JoinKind, LogicalPlan, Subquery, SubqueryKind};
use stride_common::{Result, ScalarValue};
use stride_functions::aggregate::AggregateFunction;
use stride_functions::ScalarFunction;

pub fn optimize(mut plan: LogicalPlan) -> Result<LogicalPlan> {
    for e in crate::plan::visit::node_expressions_mut(&mut plan) {
        optimize_subqueries(e)?;
    }
    for c in children_mut(&mut plan) {
        let child = std::mem::replace(c, super::placeholder());
        *c = optimize(child)?;
    }
    Ok(match plan {
        LogicalPlan::Filter { input, predicate } if predicate.has_subquery() => {
            unnest_filter(*input, predicate)
        }
        LogicalPlan::Project {
            input,
            exprs,
            schema,
        } if exprs.iter().any(Expr::has_subquery) => {
            let mut current = *input;
            let exprs = exprs
                .into_iter()
                .map(|e| unnest_scalars(e, &mut current))
                .collect();
            LogicalPlan::Project {
                input: Box::new(current),
                exprs,
                schema,
            }
        }
        LogicalPlan::LateralJoin {
            left,
            right,
            kind,
            schema,
        } => match lateral_unnest(&left, &right, kind, &schema)
            .or_else(|| lateral_to_join(&left, &right, kind))
        {
            Some(join) => restore_schema(join, schema),
            None => LogicalPlan::LateralJoin {
                left,
                right,
                kind,
                schema,
            },
        },
        other => other,
    })
}

/// `FROM t, unnest(t.list)` as the set-returning function over `t` it is (each row
/// repeated per element; rows with an empty or NULL list drop out, as the inner
/// join drops them).
fn lateral_unnest(
    left: &LogicalPlan,
    right: &Expr,
    kind: JoinKind,
    schema: &[Field],
) -> Option<LogicalPlan> {
    let Expr::Subquery(s) = right else {
        return None;
    };
    let LogicalPlan::TableFunction {
        func:
            crate::plan::TableFunction::Deferred {
                func: crate::plan::DeferredFunction::Unnest,
                args,
            },
        ..
    } = &s.plan
    else {
        return None;
    };
    if kind != JoinKind::Inner || args.len() != 1 || args[0].has_subquery() {
        return None;
    }
    let n = left.schema().len();
    Some(LogicalPlan::Unnest {
        input: Box::new(left.clone()),
        passed: (0..n).collect(),
        lists: vec![crate::plan::SetFunction::Elements(outer_to_column(
            args[0].clone(),
        ))],
        schema: schema.to_vec(),
    })
}

/// A lateral join as a plain join, if its subquery's correlated conditions can be
/// pulled up into the join condition. The output has the left columns, the
/// subquery's, then whatever the pulled conditions needed exposed.
fn lateral_to_join(left: &LogicalPlan, right: &Expr, kind: JoinKind) -> Option<LogicalPlan> {
    let Expr::Subquery(s) = right else {
        return None;
    };
    join_with(left, &s.plan, kind)
}

fn join_with(left: &LogicalPlan, sub: &LogicalPlan, kind: JoinKind) -> Option<LogicalPlan> {
    let n = left.schema().len();
    // `LATERAL (SELECT t.k * 10 AS x …)`: an inner join may compute the subquery's
    // projections above the join, where the left row is at hand. (A LEFT join may
    // not: its rows without a match must read NULL, not t.k * 10.)
    if let LogicalPlan::Project {
        input,
        exprs,
        schema,
    } = sub
    {
        if kind == JoinKind::Inner && !exprs.iter().any(Expr::has_subquery) {
            let join = join_with(left, input, kind)?;
            let mut out: Vec<Expr> = left
                .schema()
                .iter()
                .enumerate()
                .map(|(i, f)| Expr::column(i, f.ty.clone(), f.name.clone()))
                .collect();
            let mut fields = left.schema().to_vec();
            for (e, f) in exprs.iter().zip(schema) {
                let mut e = e.clone();
                e.remap_columns(&|i| i + n);
                out.push(outer_to_column(e));
                fields.push(f.clone());
            }
            return Some(LogicalPlan::Project {
                input: Box::new(join),
                exprs: out,
                schema: fields,
            });
        }
    }
    let (plan, preds) = pull_up(sub.clone())?;
    let right = finish_subquery_plan(plan)?;
    let (on, filter) = join_conditions(preds, n);
    let mut schema = left.schema().to_vec();
    schema.extend(right.schema().iter().cloned());
    Some(LogicalPlan::Join {
        left: Box::new(left.clone()),
        right: Box::new(right),
        kind,
        on,
        filter,
        schema,
    })
}

/// Decorrelates the plans of the subqueries inside `e`.
fn optimize_subqueries(e: &mut Expr) -> Result<()> {
    if let Expr::Subquery(s) = e {
        let plan = std::mem::replace(&mut s.plan, super::placeholder());
        s.plan = optimize(plan)?;
    }
    for c in e.children_mut() {
        optimize_subqueries(c)?;
    }
    Ok(())
}

/// `Filter(input, predicate)` with its subquery conjuncts turned into joins. Plain
/// conjuncts stay directly above the input, where join ordering can use them.
fn unnest_filter(input: LogicalPlan, predicate: Expr) -> LogicalPlan {
    let schema = input.schema().to_vec();
    let mut terms = Vec::new();
    predicate.split_conjunction(&mut terms);
    let (with_sub, plain): (Vec<Expr>, Vec<Expr>) = terms.into_iter().partition(Expr::has_subquery);
    let mut current = LogicalPlan::filtered(input, plain);
    let mut residual = Vec::new();
    for term in with_sub {
        match term {
            Expr::Subquery(s) => match semi_join(&current, &s) {
                Some(join) => current = join,
                None => residual.push(unnest_scalars(Expr::Subquery(s), &mut current)),
            },
            other => residual.push(unnest_scalars(other, &mut current)),
        }
    }
    let current = LogicalPlan::filtered(current, residual);
    restore_schema(current, schema)
}

/// Projects `plan` back to its first `schema.len()` columns if joins widened it.
fn restore_schema(plan: LogicalPlan, schema: Vec<crate::plan::Field>) -> LogicalPlan {
    if plan.schema().len() == schema.len() {
        return plan;
    }
    LogicalPlan::project_leading(plan, schema)
}

/// Sorts conjuncts into those that refer to the enclosing query (`pulled`) and the
/// rest (`keep`); `None` when a correlated one holds a subquery, which cannot move.
fn split_correlated(terms: Vec<Expr>, pulled: &mut Vec<Expr>, keep: &mut Vec<Expr>) -> Option<()> {
    for t in terms {
        if !refers_outer(&t) {
            keep.push(t);
        } else if t.has_subquery() {
            return None;
        } else {
            pulled.push(t);
        }
    }
    Some(())
}

/// `EXISTS`, `NOT EXISTS` or `x IN` over `current` as a semi or anti join, if the
/// subquery can be decorrelated (uncorrelated EXISTS stays: it runs once anyway).
fn semi_join(current: &LogicalPlan, s: &Subquery) -> Option<LogicalPlan> {
    let (kind, value) = match &s.kind {
        SubqueryKind::Exists { negated } => {
            if !references_outer(&s.plan, 1) {
                return None;
            }
            let kind = if *negated {
                JoinKind::Anti
            } else {
                JoinKind::Semi
            };
            (kind, None)
        }
        SubqueryKind::In {
            expr,
            negated: false,
        } if !expr.has_subquery() => (JoinKind::Semi, Some(&**expr)),
        _ => return None,
    };
    let (plan, preds) = pull_up(s.plan.clone())?;
    let right = finish_subquery_plan(plan)?;
    let n = current.schema().len();
    let (mut on, filter) = join_conditions(preds, n);
    if let Some(x) = value {
        let f = &right.schema()[0];
        on.insert(
            0,
            (x.clone(), Expr::column(0, f.ty.clone(), f.name.clone())),
        );
    }
    Some(LogicalPlan::Join {
        left: Box::new(current.clone()),
        right: Box::new(right),
        kind,
        on,
        filter,
        schema: current.schema().to_vec(),
    })
}

/// Replaces every decorrelatable scalar subquery in `e` (not inside other subqueries)
/// by a column of a LEFT JOIN added on top of `current`.
fn unnest_scalars(mut e: Expr, current: &mut LogicalPlan) -> Expr {
    if let Expr::Subquery(s) = &e {
        let unnested = match s.kind {
            SubqueryKind::Scalar(_) => scalar_join(current, s),
            SubqueryKind::Exists { negated } => exists_join(current, s, negated),
            _ => None,
        };
        if let Some((join, value)) = unnested {
            *current = join;
            return value;
        }
        // Other subqueries stay; an IN operand may hold one.
    }
    for c in e.children_mut() {
        let child = take_expr(c);
        *c = unnest_scalars(child, current);
    }
    e
}

/// Takes the expression out of `slot`, leaving a NULL literal.
fn take_expr(slot: &mut Expr) -> Expr {
    std::mem::replace(slot, Expr::literal(ScalarValue::Null))
}

/// A correlated scalar aggregate subquery as `current LEFT JOIN (aggregate grouped by
/// the correlated columns)`, and the expression that reads its value.
fn scalar_join(current: &LogicalPlan, s: &Subquery) -> Option<(LogicalPlan, Expr)> {
    if !references_outer(&s.plan, 1) {
        return None;
    }
    // Shape: [Project over] Aggregate without GROUP BY.
    let (top, aggregate) = match s.plan.clone() {
        LogicalPlan::Project { input, exprs, .. } => (Some(exprs), *input),
        other => (None, other),
    };
    let LogicalPlan::Aggregate {
        input,
        group_by,
        aggregates,
        schema: agg_schema,
    } = aggregate
    else {
        return None;
    };
    let aggregate_refers_outer = aggregates.iter().any(|a| {
        a.args
            .iter()
            .chain(a.filter.iter())
            .chain(a.order_by.iter().map(|o| &o.expr))
            .any(refers_outer)
    });
    if !group_by.is_empty()
        || aggregate_refers_outer
        || top
            .iter()
            .flatten()
            .any(|e| expr_references_outer(e, 1) || e.has_subquery())
    {
        return None;
    }
    let (input, preds) = pull_up(*input)?;
    let keys = grouping_keys(preds)?;
    if keys.is_empty() {
        return None;
    }
    let k = keys.len();
    // Grouped aggregate: the keys, then the aggregates.
    let mut schema: Vec<Field> = keys
        .iter()
        .enumerate()
        .map(|(i, (inner, _))| Field::new(format!("__key{i}"), inner.data_type()))
        .collect();
    schema.extend(agg_schema.iter().cloned());
    let grouped = LogicalPlan::Aggregate {
        input: Box::new(input),
        group_by: keys.iter().map(|(inner, _)| inner.clone()).collect(),
        aggregates: aggregates.clone(),
        schema,
    };
    // The subquery's value over the aggregates, and that value over no rows.
    let (value, empty) = match top {
        Some(exprs) => {
            let mut value = exprs.into_iter().next()?;
            let empty = substitute_empty(value.clone(), &aggregates);
            value.remap_columns(&|i| i + k);
            (value, empty)
        }
        None => {
            let f = &agg_schema[0];
            (
                Expr::column(k, f.ty.clone(), f.name.clone()),
                empty_aggregate(&aggregates[0]),
            )
        }
    };
    let value_ty = value.data_type();
    let n = current.schema().len();
    let join = left_join_on_keys(current, grouped, value, "__value", keys)?;
    let column = Expr::column(n, value_ty.clone(), "__value");
    // When the value over no rows folds to NULL the LEFT JOIN's NULL is already right.
    let empty_is_null = matches!(
        crate::binder::fold_constant(&empty),
        Ok(Some(ScalarValue::Null))
    );
    let value = if empty_is_null {
        column
    } else {
        // Outer rows without a group see the aggregate over no rows.
        let key = Expr::column(n + 1, join.schema()[n + 1].ty.clone(), "__key0");
        Expr::Case {
            branches: vec![(
                Expr::IsNull {
                    expr: Box::new(key),
                    negated: false,
                },
                empty,
            )],
            else_expr: Box::new(column),
            ty: value_ty,
        }
    };
    let value = match &s.kind {
        SubqueryKind::Scalar(t) if *t != value.data_type() => Expr::Cast {
            expr: Box::new(value),
            to: t.clone(),
            try_cast: false,
        },
        _ => value,
    };
    Some((join, value))
}

/// A correlated `[NOT] EXISTS` that is not a conjunct (`EXISTS (…) OR EXISTS (…)`, in
/// a select list or CASE) as `current LEFT JOIN (the distinct correlated keys of
/// the subquery's rows, with a marker)`, and the test of that marker. Each outer row
/// meets at most one key row, so the join keeps the outer rows as they are; a NULL
/// outer key meets none, as `NULL = x` holds for no row of the subquery.
fn exists_join(current: &LogicalPlan, s: &Subquery, negated: bool) -> Option<(LogicalPlan, Expr)> {
    if !references_outer(&s.plan, 1) {
        return None;
    }
    let (input, preds) = pull_up(s.plan.clone())?;
    let keys = grouping_keys(preds)?;
    if keys.is_empty() {
        return None;
    }
    let key_fields: Vec<Field> = keys
        .iter()
        .enumerate()
        .map(|(i, (inner, _))| Field::new(format!("__key{i}"), inner.data_type()))
        .collect();
    let distinct = LogicalPlan::Aggregate {
        input: Box::new(input),
        group_by: keys.iter().map(|(inner, _)| inner.clone()).collect(),
        aggregates: Vec::new(),
        schema: key_fields,
    };
    let n = current.schema().len();
    let marker = Expr::literal(ScalarValue::Boolean(true));
    let join = left_join_on_keys(current, distinct, marker, "__exists", keys)?;
    let marker = Expr::column(n, stride_common::DataType::Boolean, "__exists");
    let value = Expr::IsNull {
        expr: Box::new(marker),
        negated: !negated,
    };
    Some((join, value))
}

/// `current LEFT JOIN right ON outer = key` for a subquery decorrelated into
/// `grouped` (its first columns the correlation `keys`' inner sides): the right side
/// is `value` (named `name`), then the keys.
fn left_join_on_keys(
    current: &LogicalPlan,
    grouped: LogicalPlan,
    value: Expr,
    name: &str,
    keys: Vec<(Expr, Expr)>,
) -> Option<LogicalPlan> {
    let mut fields = vec![Field::new(name, value.data_type())];
    let mut exprs = vec![value];
    for (i, (inner, _)) in keys.iter().enumerate() {
        exprs.push(Expr::column(i, inner.data_type(), format!("__key{i}")));
        fields.push(Field::new(format!("__key{i}"), inner.data_type()));
    }
    let right = finish_subquery_plan(LogicalPlan::Project {
        input: Box::new(grouped),
        exprs,
        schema: fields,
    })?;
    let on = keys
        .into_iter()
        .enumerate()
        .map(|(i, (inner, outer))| {
            (
                outer_to_column(outer),
                Expr::column(1 + i, inner.data_type(), format!("__key{i}")),
            )
        })
        .collect();
    let mut schema = current.schema().to_vec();
    schema.extend(right.schema().iter().cloned());
    Some(LogicalPlan::Join {
        left: Box::new(current.clone()),
        right: Box::new(right),
        kind: JoinKind::Left,
        on,
        filter: None,
        schema,
    })
}

/// The value of aggregate-output expression `e` when the aggregates ran over no rows.
fn substitute_empty(mut e: Expr, aggregates: &[AggregateExpr]) -> Expr {
    if let Expr::Column { index, .. } = &e {
        return empty_aggregate(&aggregates[*index]);
    }
    for c in e.children_mut() {
        let child = take_expr(c);
        *c = substitute_empty(child, aggregates);
    }
    e
}

fn empty_aggregate(a: &AggregateExpr) -> Expr {
    let value = match a.func {
        AggregateFunction::Count | AggregateFunction::CountStar => ScalarValue::BigInt(0),
        _ => ScalarValue::Null,
    };
    Expr::Literal {
        value,
        ty: a.ty.clone(),
    }
}

/// Checks that nothing in the rewritten subquery still refers to the enclosing
/// query, and moves references that reach further out one level closer.
fn finish_subquery_plan(mut plan: LogicalPlan) -> Option<LogicalPlan> {
    if references_outer(&plan, 1) {
        return None;
    }
    outer_refs_one_level_closer(&mut plan);
    Some(plan)
}

/// Join keys and filter from pulled-up conditions, for a join whose left input has
/// `n` columns: `inner = outer` equalities become keys, the rest a filter over the
/// joined row (left columns first).
fn join_conditions(preds: Vec<Expr>, n: usize) -> (Vec<(Expr, Expr)>, Option<Expr>) {
    let mut on = Vec::new();
    let mut rest = Vec::new();
    for p in preds {
        match correlated_equality(&p) {
            Some((inner, outer)) => on.push((outer_to_column(outer.clone()), inner.clone())),
            None => {
                let mut p = p;
                p.remap_columns(&|i| i + n);
                rest.push(outer_to_column(p));
            }
        }
    }
    (on, Expr::conjunction(rest))
}

/// `(inner, outer)` when `p` is `inner = outer` with one side over the subquery's
/// columns only and the other over the enclosing query's columns only.
fn correlated_equality(p: &Expr) -> Option<(&Expr, &Expr)> {
    let Expr::Function { func, args } = p else {
        return None;
    };
    if func.func != ScalarFunction::Eq || args.len() != 2 {
        return None;
    }
    let inner_only = |e: &Expr| {
        !expr_references_outer(e, 1) && !e.has_subquery() && {
            let mut cols = Vec::new();
            e.collect_columns(&mut cols);
            !cols.is_empty()
        }
    };
    let outer_only = |e: &Expr| {
        expr_references_outer(e, 1) && !e.has_subquery() && {
            let mut cols = Vec::new();
            e.collect_columns(&mut cols);
            cols.is_empty()
        }
    };
    let (a, b) = (&args[0], &args[1]);
    if inner_only(a) && outer_only(b) {
        Some((a, b))
    } else if inner_only(b) && outer_only(a) {
        Some((b, a))
    } else {
        None
    }
}

/// Rewrites a condition pulled out of a subquery for the enclosing query, where it
/// now sits.
fn outer_to_column(e: Expr) -> Expr {
    outer_to_columns(e, 1)
}

/// The `(inner, outer)` sides of pulled-up conditions that must all be equalities.
fn grouping_keys(preds: Vec<Expr>) -> Option<Vec<(Expr, Expr)>> {
    preds
        .iter()
        .map(|p| correlated_equality(p).map(|(i, o)| (i.clone(), o.clone())))
        .collect()
}

fn node_exprs_reference_outer(plan: &LogicalPlan) -> bool {
    node_expressions(plan)
        .into_iter()
        .any(|e| expr_references_outer(e, 1))
}

fn refers_outer(e: &Expr) -> bool {
    expr_references_outer(e, 1)
}

/// Removes the conditions that refer to the enclosing query from `plan` and returns
/// them over the columns of the rewritten plan, which may have extra columns appended
/// (its original columns keep their positions). `None` when some correlation cannot
/// be moved up.
fn pull_up(plan: LogicalPlan) -> Option<(LogicalPlan, Vec<Expr>)> {
    if !references_outer(&plan, 1) {
        return Some((plan, Vec::new()));
    }
    match plan {
        LogicalPlan::Filter { input, predicate } => {
            let (input, mut preds) = pull_up(*input)?;
            let mut terms = Vec::new();
            predicate.split_conjunction(&mut terms);
            // A correlation in every branch of an OR is a conjunct of its own.
            let terms: Vec<Expr> = terms.into_iter().flat_map(Expr::factor_or).collect();
            let mut keep = Vec::new();
            split_correlated(terms, &mut preds, &mut keep)?;
            Some((LogicalPlan::filtered(input, keep), preds))
        }
        LogicalPlan::Project {
            input,
            mut exprs,
            mut schema,
        } => {
            if exprs.iter().any(refers_outer) {
                return None;
            }
            let (input, preds) = pull_up(*input)?;
            let preds = expose(&mut exprs, &mut schema, preds, input.schema());
            Some((
                LogicalPlan::Project {
                    input: Box::new(input),
                    exprs,
                    schema,
                },
                preds,
            ))
        }
        LogicalPlan::Sort { input, keys } => {
            if keys.iter().any(|k| refers_outer(&k.expr)) {
                return None;
            }
            let (input, preds) = pull_up(*input)?;
            Some((
                LogicalPlan::Sort {
                    input: Box::new(input),
                    keys,
                },
                preds,
            ))
        }
        p @ LogicalPlan::Aggregate { .. } => pull_through_aggregate(p),
        p @ LogicalPlan::Join { .. } => pull_through_join(p),
        _ => None,
    }
}

/// Adds the columns that `preds` read from `input` to a projection's output and
/// rewrites `preds` over the projection's output.
fn expose(
    exprs: &mut Vec<Expr>,
    schema: &mut Vec<Field>,
    mut preds: Vec<Expr>,
    input: &[Field],
) -> Vec<Expr> {
    let mut used = Vec::new();
    for p in &preds {
        p.collect_columns(&mut used);
    }
    used.sort_unstable();
    used.dedup();
    let mut map = std::collections::HashMap::new();
    for c in used {
        let at = exprs
            .iter()
            .position(|e| matches!(e, Expr::Column { index, .. } if *index == c));
        let at = at.unwrap_or_else(|| {
            let f = &input[c];
            exprs.push(Expr::column(c, f.ty.clone(), f.name.clone()));
            schema.push(Field::new(f.name.clone(), f.ty.clone()));
            exprs.len() - 1
        });
        map.insert(c, at);
    }
    for p in &mut preds {
        p.remap_columns(&|i| map[&i]);
    }
    preds
}

/// Through a grouped aggregate, correlated equalities become grouping keys appended
/// after the original output columns.
fn pull_through_aggregate(plan: LogicalPlan) -> Option<(LogicalPlan, Vec<Expr>)> {
    if node_exprs_reference_outer(&plan) {
        return None;
    }
    let LogicalPlan::Aggregate {
        input,
        mut group_by,
        aggregates,
        schema,
    } = plan
    else {
        unreachable!("called with an aggregate")
    };
    // Without GROUP BY the aggregate yields one row even for no input; grouping by
    // the correlation would drop it.
    if group_by.is_empty() {
        return None;
    }
    let (input, preds) = pull_up(*input)?;
    let keys = grouping_keys(preds)?;
    let g = group_by.len();
    let width = schema.len();
    let mut fields = schema[..g].to_vec();
    let mut new_keys = Vec::new();
    for (inner, outer) in keys {
        let at = match group_by.iter().position(|e| *e == inner) {
            Some(at) => at,
            None => {
                fields.push(Field::new(
                    format!("__key{}", group_by.len()),
                    inner.data_type(),
                ));
                group_by.push(inner);
                group_by.len() - 1
            }
        };
        new_keys.push((at, outer));
    }
    let added = group_by.len() - g;
    fields.extend(schema[g..].iter().cloned());
    let grouped = LogicalPlan::Aggregate {
        input: Box::new(input),
        group_by,
        aggregates,
        schema: fields.clone(),
    };
    // Restore the original layout (groups, aggregates), then the added keys.
    let mut order: Vec<usize> = (0..g).chain(g + added..width + added).collect();
    order.extend(g..g + added);
    let position = |at: usize| order.iter().position(|&o| o == at).expect("in layout");
    let preds = new_keys
        .into_iter()
        .map(|(at, outer)| {
            let f = &fields[at];
            let col = Expr::column(position(at), f.ty.clone(), f.name.clone());
            crate::binder::equality(col, outer)
        })
        .collect();
    Some((reorder(grouped, &order), preds))
}

/// `plan` with its output columns in the given order.
fn reorder(plan: LogicalPlan, order: &[usize]) -> LogicalPlan {
    if order.iter().enumerate().all(|(i, &o)| i == o) && order.len() == plan.schema().len() {
        return plan;
    }
    let fields = plan.schema().to_vec();
    let exprs = order
        .iter()
        .map(|&i| Expr::column(i, fields[i].ty.clone(), fields[i].name.clone()))
        .collect();
    let schema = order.iter().map(|&i| fields[i].clone()).collect();
    LogicalPlan::Project {
        input: Box::new(plan),
        exprs,
        schema,
    }
}

/// Through an inner join both sides give up their correlation (and so does its
/// condition); through outer, semi and anti joins only the preserved left side can.
fn pull_through_join(plan: LogicalPlan) -> Option<(LogicalPlan, Vec<Expr>)> {
    let LogicalPlan::Join {
        left,
        right,
        kind,
        on,
        filter,
        ..
    } = plan
    else {
        unreachable!("called with a join")
    };
    if on.iter().any(|(a, b)| refers_outer(a) || refers_outer(b)) {
        return None;
    }
    let inner = kind == JoinKind::Inner;
    let preserves_left = matches!(kind, JoinKind::Left | JoinKind::Semi | JoinKind::Anti);
    if !inner && !preserves_left {
        return None;
    }
    if !inner && (references_outer(&right, 1) || filter.as_ref().is_some_and(refers_outer)) {
        return None;
    }
    let (nl_old, nr_old) = (left.schema().len(), right.schema().len());
    let (left, left_preds) = pull_up(*left)?;
    let (right, right_preds) = if inner {
        pull_up(*right)?
    } else {
        (*right, Vec::new())
    };
    let (nl, nr) = (left.schema().len(), right.schema().len());
    let shift_right = |i: usize| if i >= nl_old { i - nl_old + nl } else { i };
    let mut preds = left_preds;
    for mut p in right_preds {
        p.remap_columns(&|i| i + nl);
        preds.push(p);
    }
    let mut keep = Vec::new();
    if let Some(f) = filter {
        let mut terms = Vec::new();
        f.split_conjunction(&mut terms);
        for t in &mut terms {
            t.remap_columns(&shift_right);
        }
        split_correlated(terms, &mut preds, &mut keep)?;
    }
    let mut schema = left.schema().to_vec();
    if matches!(kind, JoinKind::Inner | JoinKind::Left) {
        schema.extend(right.schema().iter().cloned());
    }
    let join = LogicalPlan::Join {
        left: Box::new(left),
        right: Box::new(right),
        kind,
        on,
        filter: Expr::conjunction(keep),
        schema,
    };
    if matches!(kind, JoinKind::Semi | JoinKind::Anti) {
        return Some((join, preds));
    }
    // Restore the original layout (left, right), then the added columns of each side.
    let order: Vec<usize> = (0..nl_old)
        .chain(nl..nl + nr_old)
        .chain(nl_old..nl)
        .chain(nl + nr_old..nl + nr)
        .collect();
    let mut position = vec![0; order.len()];
    for (p, &o) in order.iter().enumerate() {
        position[o] = p;
    }
    for p in &mut preds {
        p.remap_columns(&|i| position[i]);
    }
    Some((reorder(join, &order), preds))
}
