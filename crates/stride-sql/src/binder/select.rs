//! Binding queries: WITH, SELECT blocks (FROM, WHERE, GROUP BY, HAVING, the select
//! list, DISTINCT), set operations, VALUES, ORDER BY and LIMIT/OFFSET.
//!
//! A SELECT block becomes, bottom-up: FROM plan → Filter (WHERE) → Aggregate (GROUP
//! BY and aggregates; a UNION ALL of aggregates for grouping sets,
//! `grouping_sets.rs`) → Filter (HAVING) → Window (`window.rs`) → Filter (QUALIFY) →
//! Project (select list plus hidden ORDER BY columns) → Aggregate (DISTINCT) → Sort →
//! Project (drop hidden columns) → Limit. WITH RECURSIVE CTEs are bound here too
//! (`bind_recursive_cte`).

use super::collation;
use super::expr::{bool_expr, cast_expr, ident_name, unify_all, ExprCtx};
use super::fold::fold_constant;
use super::scope::{Lookup, Scope};
use super::Binder;
use crate::plan::visit::rewrite_exprs_by_level;
use crate::plan::{AggregateExpr, Expr, Field, LogicalPlan, SetOpKind, SortExpr, WindowExpr};
use sqlparser::ast;
use std::collections::HashMap;
use std::sync::Arc;
use stride_common::settings::NullOrder;
use stride_common::{DataType, Error, Result, ScalarValue};

pub fn bind_query(b: &mut Binder, q: &ast::Query) -> Result<LogicalPlan> {
    let pushed = match &q.with {
        Some(with) => {
            let mut scope: Vec<(String, Arc<ast::Cte>)> = Vec::new();
            for cte in &with.cte_tables {
                let name = ident_name(&cte.alias.name);
                if scope.iter().any(|(n, _)| *n == name) {
                    return Err(Error::binder(format!(
                        "Duplicate CTE name \"{name}\": each CTE of a WITH needs its own name"
                    )));
                }
                let cte = Arc::new(cte.clone());
                if with.recursive {
                    b.recursive_ctes.insert(Arc::as_ptr(&cte) as usize);
                }
                scope.push((name, cte));
            }
            b.ctes.push(scope);
            true
        }
        None => false,
    };
    let result = bind_query_body(b, q);
    if pushed {
        // The bodies bound for these CTEs are keyed by the CTEs' addresses, which a
        // later WITH of the same statement may reuse once these are dropped (two
        // views, each with its own WITH): they must not outlive their scope.
        for (_, cte) in b.ctes.pop().unwrap_or_default() {
            let key = Arc::as_ptr(&cte) as usize;
            b.cte_bodies.remove(&key);
            b.recursive_ctes.remove(&key);
        }
    }
    result
}

/// ORDER BY ALL (a lone `*` key from `order_items`): every output column, left to
/// right, with its options.
fn expand_order_all(order: &[ast::OrderByExpr], columns: usize) -> Vec<ast::OrderByExpr> {
    match order {
        [o] if matches!(o.expr, ast::Expr::Wildcard(_)) => (1..=columns)
            .map(|i| ast::OrderByExpr {
                expr: ast::Expr::value(ast::Value::Number(i.to_string(), false)),
                options: o.options.clone(),
                with_fill: None,
            })
            .collect(),
        _ => order.to_vec(),
    }
}

fn order_items(q: &ast::Query) -> Result<Vec<ast::OrderByExpr>> {
    match &q.order_by {
        None => Ok(vec![]),
        Some(ob) => match &ob.kind {
            ast::OrderByKind::Expressions(items) => Ok(items.clone()),
            // ORDER BY ALL: a `*` key with the options, expanded once the output's
            // columns are known (`expand_order_all`).
            ast::OrderByKind::All(options) => Ok(vec![ast::OrderByExpr {
                expr: ast::Expr::Wildcard(ast::helpers::attached_token::AttachedToken::empty()),
                options: options.clone(),
                with_fill: None,
            }]),
        },
    }
}

fn bind_query_body(b: &mut Binder, q: &ast::Query) -> Result<LogicalPlan> {
    let order = order_items(q)?;
    // `FETCH FIRST n ROWS ONLY` (the standard's LIMIT; without n, one row)
    let fetch = match &q.fetch {
        None => None,
        Some(f) if f.with_ties || f.percent => {
            return Err(Error::not_supported(
                "FETCH FIRST ... WITH TIES or PERCENT is not supported; use FETCH FIRST n ROWS ONLY or LIMIT",
            ))
        }
        Some(f) => Some(
            f.quantity
                .clone()
                .unwrap_or_else(|| ast::Expr::value(ast::Value::Number("1".into(), false))),
        ),
    };
    let plan = match &*q.body {
        ast::SetExpr::Select(s) => bind_select(b, s, &order)?,
        other => {
            let plan = bind_set_expr(b, other)?;
            order_by_output(b, plan, &order)?
        }
    };
    let (limit, offset) = match &q.limit_clause {
        None => (None, None),
        Some(ast::LimitClause::LimitOffset {
            limit,
            offset,
            limit_by,
        }) => {
            if !limit_by.is_empty() {
                return Err(Error::not_supported("LIMIT BY is not supported"));
            }
            (limit.clone(), offset.as_ref().map(|o| o.value.clone()))
        }
        Some(ast::LimitClause::OffsetCommaLimit { offset, limit }) => {
            (Some(limit.clone()), Some(offset.clone()))
        }
    };
    let limit = match (limit, fetch) {
        (Some(_), Some(_)) => {
            return Err(Error::binder(
                "a query takes LIMIT or FETCH FIRST, not both",
            ))
        }
        (limit, fetch) => limit.or(fetch),
    };
    if limit.is_none() && offset.is_none() {
        return Ok(plan);
    }
    let limit = match &limit {
        Some(e) => limit_value(b, e, "LIMIT")?,
        None => None,
    };
    let offset = match &offset {
        Some(e) => limit_value(b, e, "OFFSET")?.unwrap_or(0),
        None => 0,
    };
    Ok(LogicalPlan::Limit {
        input: Box::new(plan),
        limit,
        offset,
    })
}

fn limit_value(b: &mut Binder, e: &ast::Expr, what: &'static str) -> Result<Option<u64>> {
    b.hint_parameter(e, &DataType::BigInt);
    let scope = Scope::default();
    let mut ctx = ExprCtx::new(&scope, what);
    let bound = b.bind_expr(e, &mut ctx)?;
    let v = fold_constant(&bound)?
        .ok_or_else(|| Error::binder(format!("{what} must be a constant")))?;
    if v.is_null() {
        return Ok(None);
    }
    let n = stride_functions::cast_scalar(&v, &DataType::BigInt, false)
        .map_err(|_| Error::binder(format!("{what} must be an integer, got {}", v.data_type())))?
        .as_i64()
        .unwrap_or(-1);
    if n < 0 {
        return Err(Error::binder(format!(
            "{what} must not be negative, got {n}"
        )));
    }
    Ok(Some(n as u64))
}

/// Whether a set operation keeps duplicates (ALL) or removes them (DISTINCT, the
/// default); BY NAME and the other quantifiers are refused.
fn keeps_duplicates(op: &ast::SetOperator, q: &ast::SetQuantifier) -> Result<bool> {
    match q {
        ast::SetQuantifier::All => Ok(true),
        ast::SetQuantifier::Distinct | ast::SetQuantifier::None => Ok(false),
        other => Err(Error::not_supported(format!(
            "{op} {other} is not supported yet"
        ))),
    }
}

/// A CTE of WITH RECURSIVE whose body is `base UNION [ALL] step` with `step`
/// reading the CTE itself: a `RecursiveCte`. `None` when it is not recursive after
/// all (the caller binds it as any CTE).
pub(super) fn bind_recursive_cte(b: &mut Binder, cte: &ast::Cte) -> Result<Option<LogicalPlan>> {
    let ast::SetExpr::SetOperation {
        op: ast::SetOperator::Union,
        set_quantifier,
        left,
        right,
    } = &*cte.query.body
    else {
        return Ok(None);
    };
    let all = keeps_duplicates(&ast::SetOperator::Union, set_quantifier)?;
    let base = bind_set_expr(b, left)?;
    // The step names the CTE's columns as the CTE names them.
    let mut schema = super::unqualified(base.schema());
    for (f, c) in schema.iter_mut().zip(&cte.alias.columns) {
        f.name = ident_name(&c.name);
    }
    let id = crate::plan::expr::next_subquery_id();
    let name = ident_name(&cte.alias.name);
    b.recursive_refs.push((name, id, schema.clone()));
    let step = bind_set_expr(b, right);
    b.recursive_refs.pop();
    let step = step?;
    fn reads(p: &LogicalPlan, id: u64) -> bool {
        matches!(p, LogicalPlan::RecursiveRef { id: i, .. } if *i == id)
            || p.children().into_iter().any(|c| reads(c, id))
    }
    if !reads(&step, id) {
        return Ok(None);
    }
    if cte.query.order_by.is_some() || cte.query.limit_clause.is_some() {
        return Err(Error::not_supported(
            "ORDER BY or LIMIT on a recursive CTE's UNION is not supported",
        ));
    }
    let fields = step.schema().to_vec();
    if fields.len() != schema.len() {
        return Err(Error::binder(format!(
            "the recursive part of \"{}\" returns {} columns, the base part {}",
            ident_name(&cte.alias.name),
            fields.len(),
            schema.len()
        )));
    }
    // Each round's rows take the base's column types.
    let exprs = fields
        .iter()
        .enumerate()
        .zip(&schema)
        .map(|((i, f), want)| cast_expr(Expr::column(i, f.ty.clone(), f.name.clone()), &want.ty))
        .collect::<Result<Vec<_>>>()?;
    let step = LogicalPlan::Project {
        input: Box::new(step),
        exprs,
        schema: schema.clone(),
    };
    Ok(Some(LogicalPlan::RecursiveCte {
        id,
        base: Box::new(base),
        step: Box::new(step),
        all,
        schema,
    }))
}

fn bind_set_expr(b: &mut Binder, body: &ast::SetExpr) -> Result<LogicalPlan> {
    match body {
        ast::SetExpr::Select(s) => bind_select(b, s, &[]),
        ast::SetExpr::Query(q) => b.bind_query(q),
        ast::SetExpr::Values(v) => bind_values(b, v, None),
        ast::SetExpr::SetOperation {
            left,
            op,
            set_quantifier,
            right,
        } => {
            let l = bind_set_expr(b, left)?;
            let r = bind_set_expr(b, right)?;
            let kind = match op {
                ast::SetOperator::Union => SetOpKind::Union,
                ast::SetOperator::Intersect => SetOpKind::Intersect,
                ast::SetOperator::Except | ast::SetOperator::Minus => SetOpKind::Except,
            };
            let (l, r, all) = match super::by_name::by_name(set_quantifier) {
                Some(all) => {
                    let (l, r) = super::by_name::align(op, l, r)?;
                    (l, r, all)
                }
                None => (l, r, keeps_duplicates(op, set_quantifier)?),
            };
            let (ls, rs) = (l.schema().to_vec(), r.schema().to_vec());
            if ls.len() != rs.len() {
                return Err(Error::binder(format!(
                    "Set operations can only apply to expressions with the same number of result columns ({} vs {})",
                    ls.len(),
                    rs.len()
                )));
            }
            let mut types = Vec::new();
            for (a, c) in ls.iter().zip(&rs) {
                let t = set_op_type(&a.ty, &c.ty).ok_or_else(|| {
                    Error::binder(format!(
                        "{op}: column \"{}\" has types {} and {} that cannot be unified",
                        a.name, a.ty, c.ty
                    ))
                })?;
                types.push(if t == DataType::Null {
                    DataType::Integer
                } else {
                    t
                });
            }
            let l = cast_columns(l, &types)?;
            let r = cast_columns(r, &types)?;
            let mut schema = Vec::with_capacity(types.len());
            for ((a, c), t) in ls.iter().zip(&rs).zip(&types) {
                let collation = match t {
                    // Rows that are only appended are never compared: differing
                    // collations leave the column without one.
                    DataType::Varchar if kind == SetOpKind::Union && all => {
                        collation::of_columns(a, c).unwrap_or_default()
                    }
                    DataType::Varchar => collation::of_columns(a, c)?,
                    _ => stride_common::Collation::BINARY,
                };
                schema.push(Field::new(a.name.clone(), t.clone()).with_collation(collation));
            }
            if (kind == SetOpKind::Union && all) || !collation::any_collated(&schema) {
                return Ok(LogicalPlan::SetOp {
                    left: Box::new(l),
                    right: Box::new(r),
                    kind,
                    all,
                    schema,
                });
            }
            collation::set_operation(l, r, kind, all, schema)
        }
        other => Err(Error::not_supported(format!(
            "query form not supported yet: {other}"
        ))),
    }
}

/// The type of a set operation's column whose sides have types `a` and `b`: as
/// DuckDB has it, a scalar type beside VARCHAR makes VARCHAR (`SELECT 10 UNION ALL
/// SELECT '9'` keeps both texts, and `'01'` stays apart from 1); otherwise the
/// types' common supertype, as elsewhere.
fn set_op_type(a: &DataType, b: &DataType) -> Option<DataType> {
    let scalar = |t: &DataType| !t.is_nested() && !matches!(t, DataType::Null | DataType::Json);
    match (a, b) {
        (DataType::Varchar, t) | (t, DataType::Varchar) if scalar(t) => Some(DataType::Varchar),
        _ => DataType::common_supertype(a, b),
    }
}

/// Wraps `plan` in a projection casting its columns to `types` when any differ.
pub fn cast_columns(plan: LogicalPlan, types: &[DataType]) -> Result<LogicalPlan> {
    let schema = plan.schema().to_vec();
    if schema.iter().zip(types).all(|(f, t)| f.ty == *t) {
        return Ok(plan);
    }
    let mut exprs = Vec::new();
    let mut fields = Vec::new();
    for (i, (f, t)) in schema.iter().zip(types).enumerate() {
        exprs.push(cast_expr(Expr::column(i, f.ty.clone(), f.name.clone()), t)?);
        fields.push(Field::new(f.name.clone(), t.clone()));
    }
    Ok(LogicalPlan::Project {
        input: Box::new(plan),
        exprs,
        schema: fields,
    })
}

/// A VALUES list. Each column takes the type its values unify to, or, for the rows
/// of an INSERT, the type of the column it fills (`targets`): so `INSERT INTO t(s)
/// VALUES (''), (0)` casts each value to VARCHAR rather than unifying them first.
pub(super) fn bind_values(
    b: &mut Binder,
    v: &ast::Values,
    targets: Option<&[DataType]>,
) -> Result<LogicalPlan> {
    let scope = Scope::default();
    let mut rows: Vec<Vec<Expr>> = Vec::new();
    for row in &v.rows {
        let mut out = Vec::new();
        for e in row.iter() {
            let mut ctx = ExprCtx::new(&scope, "VALUES");
            out.push(b.bind_expr(e, &mut ctx)?);
        }
        if let Some(first) = rows.first() {
            if first.len() != out.len() {
                return Err(Error::binder("VALUES lists must all be the same length"));
            }
        }
        rows.push(out);
    }
    let ncols = rows.first().map_or(0, |r| r.len());
    let mut types = Vec::new();
    if let Some(t) = targets.filter(|t| t.len() == ncols) {
        types = t.to_vec();
    }
    for c in types.len()..ncols {
        let col: Vec<Expr> = rows.iter().map(|r| r[c].clone()).collect();
        let (_, t) = unify_all(col, "VALUES")?;
        types.push(if t == DataType::Null {
            DataType::Integer
        } else {
            t
        });
    }
    let rows = rows
        .into_iter()
        .map(|r| {
            r.into_iter()
                .zip(&types)
                .map(|(e, t)| cast_expr(e, t))
                .collect::<Result<Vec<_>>>()
        })
        .collect::<Result<Vec<_>>>()?;
    // A column keeps a collation its values agree on (`VALUES ('a' COLLATE NOCASE)`).
    let schema = types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let values = rows.iter().map(|r| &r[i]);
            Field::new(format!("col{i}"), t.clone())
                .with_collation(collation::output_of_all(values))
        })
        .collect();
    Ok(LogicalPlan::Values { rows, schema })
}

/// The default NULL placement for a sort direction.
pub(super) fn nulls_first(b: &Binder, asc: bool, explicit: Option<bool>) -> bool {
    explicit.unwrap_or(match b.settings.default_null_order {
        NullOrder::NullsLargest => !asc,
        NullOrder::NullsFirst => true,
        NullOrder::NullsLast => false,
    })
}

/// ORDER BY over a finished query's output columns (set operations, VALUES).
fn order_by_output(
    b: &mut Binder,
    plan: LogicalPlan,
    order: &[ast::OrderByExpr],
) -> Result<LogicalPlan> {
    if order.is_empty() {
        return Ok(plan);
    }
    let scope = Scope::new(plan.schema().to_vec());
    let mut keys = Vec::new();
    let order = expand_order_all(order, scope.fields.len());
    for item in &order {
        let expr = match ordinal(&item.expr, scope.fields.len())? {
            Some(i) => scope.column(i),
            None => {
                let mut ctx = ExprCtx::new(&scope, "ORDER BY");
                b.bind_expr(&item.expr, &mut ctx)?
            }
        };
        let asc = !matches!(item.options.sort, Some(ast::OrderBySort::Desc));
        keys.push(SortExpr {
            expr: collation::sort_key(expr)?,
            asc,
            nulls_first: nulls_first(b, asc, item.options.nulls_first),
        });
    }
    Ok(LogicalPlan::Sort {
        input: Box::new(plan),
        keys,
    })
}

/// `Some(i)` when `e` is an integer literal naming output column i+1.
fn ordinal(e: &ast::Expr, n: usize) -> Result<Option<usize>> {
    if let ast::Expr::Value(v) = e {
        if let ast::Value::Number(s, _) = &v.value {
            let k: usize = s
                .parse()
                .map_err(|_| Error::binder(format!("invalid column position {s}")))?;
            if k == 0 || k > n {
                return Err(Error::binder(format!(
                    "column position {k} is out of range: the select list has {n} columns"
                )));
            }
            return Ok(Some(k - 1));
        }
    }
    Ok(None)
}

struct SelectItem {
    expr: Expr,
    name: String,
    /// The alias given with AS, for GROUP BY / ORDER BY by alias.
    alias: Option<String>,
}

fn bind_select(b: &mut Binder, s: &ast::Select, order: &[ast::OrderByExpr]) -> Result<LogicalPlan> {
    // DuckDB's `FROM t` without SELECT is `SELECT * FROM t`.
    if s.projection.is_empty() && s.flavor == ast::SelectFlavor::FromFirstNoSelect {
        let mut star = s.clone();
        star.projection = vec![ast::SelectItem::Wildcard(Default::default())];
        return bind_select(b, &star, order);
    }
    super::window::check_window_names(&s.named_window)?;
    b.set_functions.push(Vec::new());
    b.window_defs.push(s.named_window.clone());
    let r = bind_select_list(b, s, order);
    b.window_defs.pop();
    b.set_functions.pop();
    r
}

fn bind_select_list(
    b: &mut Binder,
    s: &ast::Select,
    order: &[ast::OrderByExpr],
) -> Result<LogicalPlan> {
    if s.top.is_some() || s.into.is_some() || !s.lateral_views.is_empty() {
        return Err(Error::not_supported(
            "TOP, INTO and LATERAL VIEW clauses are not supported yet",
        ));
    }
    let (mut plan, scope) = b.bind_from(&s.from)?;
    if let Some(w) = &s.selection {
        let w = super::columns::conjunction(b, w, &scope)?;
        let mut ctx = ExprCtx::new(&scope, "WHERE");
        let predicate = bool_expr(b.bind_expr(&w, &mut ctx)?, "WHERE clause")?;
        plan = LogicalPlan::Filter {
            input: Box::new(plan),
            predicate,
        };
    }
    // unnest(struct) is not set-returning: it spreads the fields into columns
    let set_items: Vec<ast::SelectItem> = s
        .projection
        .iter()
        .filter(|item| !matches!(item, ast::SelectItem::UnnamedExpr(e) if is_struct_unnest(b, e, &scope)))
        .cloned()
        .collect();
    let set_calls = super::set_function::find(&set_items);
    if !set_calls.is_empty() {
        let (p, columns) = b.bind_set_functions(&set_calls, &scope, plan)?;
        plan = p;
        if let Some(frame) = b.set_functions.last_mut() {
            *frame = columns;
        }
    }

    let mut aggregates: Vec<AggregateExpr> = Vec::new();
    let mut windows: Vec<WindowExpr> = Vec::new();
    let mut items: Vec<SelectItem> = Vec::new();
    for item in &s.projection {
        match item {
            ast::SelectItem::Wildcard(opts) => {
                if s.from.is_empty() {
                    return Err(Error::binder(
                        "SELECT * is not allowed without a FROM clause",
                    ));
                }
                let mut ctx = ExprCtx {
                    scope: &scope,
                    aggregates: Some(&mut aggregates),
                    windows: Some(&mut windows),
                    clause: "SELECT",
                };
                let star = super::star::expand(b, &mut ctx, None, opts)?;
                if star.is_empty() {
                    return Err(Error::binder(
                        "SELECT list is empty after resolving * expressions!",
                    ));
                }
                items.extend(star.into_iter().map(|(expr, name)| SelectItem {
                    expr,
                    name,
                    alias: None,
                }));
            }
            ast::SelectItem::QualifiedWildcard(kind, opts)
                if super::structs::star_operand(kind, &scope).is_some() =>
            {
                let operand = super::structs::star_operand(kind, &scope).expect("checked");
                let mut ctx = ExprCtx {
                    scope: &scope,
                    aggregates: Some(&mut aggregates),
                    windows: Some(&mut windows),
                    clause: "SELECT",
                };
                let x = b.bind_expr(&operand, &mut ctx)?;
                let fields = super::structs::expand(x, opts)?;
                items.extend(fields.into_iter().map(|(expr, name)| SelectItem {
                    expr,
                    name,
                    alias: None,
                }));
            }
            ast::SelectItem::UnnamedExpr(e) if is_struct_unnest(b, e, &scope) => {
                // unnest(struct): one column per field, as DuckDB does
                let operand = super::structs::unnest_operand(e).expect("checked");
                let mut ctx = ExprCtx {
                    scope: &scope,
                    aggregates: Some(&mut aggregates),
                    windows: Some(&mut windows),
                    clause: "SELECT",
                };
                let x = b.bind_expr(operand, &mut ctx)?;
                let fields = super::structs::expand(x, &Default::default())?;
                items.extend(fields.into_iter().map(|(expr, name)| SelectItem {
                    expr,
                    name,
                    alias: None,
                }));
            }
            ast::SelectItem::QualifiedWildcard(kind, opts) => {
                let q = wildcard_qualifier(kind)?;
                if !scope.has_qualifier(&q) {
                    return Err(Error::binder(format!(
                        "Referenced table \"{q}\" not found in FROM clause"
                    )));
                }
                let mut ctx = ExprCtx {
                    scope: &scope,
                    aggregates: Some(&mut aggregates),
                    windows: Some(&mut windows),
                    clause: "SELECT",
                };
                let star = super::star::expand(b, &mut ctx, Some(&q), opts)?;
                items.extend(star.into_iter().map(|(expr, name)| SelectItem {
                    expr,
                    name,
                    alias: None,
                }));
            }
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. }
                if super::columns::contains(e) =>
            {
                let alias = match item {
                    ast::SelectItem::ExprWithAlias { alias, .. } => Some(alias),
                    _ => None,
                };
                for (e, name) in super::columns::expand(b, e, alias, &scope)? {
                    let mut ctx = ExprCtx {
                        scope: &scope,
                        aggregates: Some(&mut aggregates),
                        windows: Some(&mut windows),
                        clause: "SELECT",
                    };
                    let expr = b.bind_expr(&e, &mut ctx)?;
                    items.push(SelectItem {
                        expr,
                        name,
                        alias: None,
                    });
                }
            }
            ast::SelectItem::UnnamedExpr(e) => {
                let mut ctx = ExprCtx {
                    scope: &scope,
                    aggregates: Some(&mut aggregates),
                    windows: Some(&mut windows),
                    clause: "SELECT",
                };
                let expr = b.bind_expr(e, &mut ctx)?;
                let name = unaliased_name(e, &expr);
                items.push(SelectItem {
                    expr,
                    name,
                    alias: None,
                });
            }
            ast::SelectItem::ExprWithAlias { expr: e, alias } => {
                let mut ctx = ExprCtx {
                    scope: &scope,
                    aggregates: Some(&mut aggregates),
                    windows: Some(&mut windows),
                    clause: "SELECT",
                };
                let expr = b.bind_expr(e, &mut ctx)?;
                let name = ident_name(alias);
                items.push(SelectItem {
                    expr,
                    name: name.clone(),
                    alias: Some(name),
                });
            }
            ast::SelectItem::ExprWithAliases { .. } => {
                return Err(Error::not_supported("multiple aliases for one expression"))
            }
        }
    }

    // GROUP BY: expressions over FROM, select aliases, or ordinals.
    // With ROLLUP, CUBE or GROUPING SETS, several grouping sets (`grouping_sets.rs`);
    // `group_by` is then every expression any of them groups by.
    let mut group_by: Vec<Expr> = Vec::new();
    let mut sets: Vec<Vec<Expr>> = Vec::new();
    match &s.group_by {
        ast::GroupByExpr::Expressions(exprs, modifiers) => {
            let mut with_rollup = false;
            for m in modifiers {
                match m {
                    ast::GroupByWithModifier::Rollup => with_rollup = true,
                    other => {
                        return Err(Error::not_supported(format!(
                        "GROUP BY ... {other} is not supported; use GROUPING SETS, ROLLUP or CUBE"
                    )))
                    }
                }
            }
            let mut bind_group = |b: &mut Binder, e: &ast::Expr| -> Result<Expr> {
                let g = if let Some(i) = ordinal(e, items.len())? {
                    items[i].expr.clone()
                } else if let Some(i) = alias_ref(e, &items, &scope) {
                    items[i].expr.clone()
                } else {
                    let mut ctx = ExprCtx::new(&scope, "GROUP BY");
                    b.bind_expr(e, &mut ctx)?
                };
                if g.any(&mut |x| matches!(x, Expr::AggregateRef { .. })) {
                    return Err(Error::binder(
                        "aggregate functions are not allowed in GROUP BY",
                    ));
                }
                Ok(g)
            };
            sets = b.grouping_sets(exprs, with_rollup, &mut bind_group)?;
            for set in &sets {
                for g in set {
                    if !group_by.contains(g) {
                        group_by.push(g.clone());
                    }
                }
            }
        }
        // Every select item without an aggregate or a window function (which is
        // computed after grouping, over the groups).
        ast::GroupByExpr::All(_) => {
            for it in &items {
                if !it
                    .expr
                    .any(&mut |x| matches!(x, Expr::AggregateRef { .. } | Expr::WindowRef { .. }))
                    && !group_by.contains(&it.expr)
                {
                    group_by.push(it.expr.clone());
                }
            }
        }
    }
    if sets.len() <= 1 {
        sets = vec![group_by.clone()];
    }
    let having = match &s.having {
        Some(h) => {
            // HAVING may name the select list's aliases, as in DuckDB.
            let h = &with_aliases(h, &s.projection, &scope);
            let mut ctx = ExprCtx {
                scope: &scope,
                aggregates: Some(&mut aggregates),
                windows: None,
                clause: "HAVING",
            };
            Some(bool_expr(b.bind_expr(h, &mut ctx)?, "HAVING clause")?)
        }
        None => None,
    };

    // ORDER BY: an output column (ordinal, alias or output name) or an expression.
    let mut order_targets = Vec::new();
    let order = expand_order_all(order, items.len());
    for item in &order {
        let mut ctx = ExprCtx {
            scope: &scope,
            aggregates: Some(&mut aggregates),
            windows: Some(&mut windows),
            clause: "ORDER BY",
        };
        let target = order_target(b, &item.expr, &items, &mut ctx)?;
        let asc = !matches!(item.options.sort, Some(ast::OrderBySort::Desc));
        order_targets.push((target, asc, nulls_first(b, asc, item.options.nulls_first)));
    }
    // DISTINCT ON (...): its expressions name output columns or FROM expressions, as
    // ORDER BY's do.
    let mut on_targets = Vec::new();
    if let Some(ast::Distinct::On(on)) = &s.distinct {
        for e in on {
            let mut ctx = ExprCtx {
                scope: &scope,
                aggregates: Some(&mut aggregates),
                windows: Some(&mut windows),
                clause: "DISTINCT ON",
            };
            on_targets.push(order_target(b, e, &items, &mut ctx)?);
        }
    }

    // QUALIFY: a filter on the rows once window functions are computed; it may call
    // them (and name the select list's aliases).
    let mut qualify = match &s.qualify {
        Some(q) => {
            let q = with_aliases(q, &s.projection, &scope);
            let mut ctx = ExprCtx {
                scope: &scope,
                aggregates: Some(&mut aggregates),
                windows: Some(&mut windows),
                clause: "QUALIFY",
            };
            Some(bool_expr(b.bind_expr(&q, &mut ctx)?, "QUALIFY clause")?)
        }
        None => None,
    };

    let aggregated = !aggregates.is_empty() || !group_by.is_empty() || having.is_some();
    if !aggregated
        && items
            .iter()
            .map(|i| &i.expr)
            .chain(qualify.iter())
            .any(|e| e.any(&mut |x| matches!(x, Expr::Grouping { .. })))
    {
        return Err(Error::binder(
            "GROUPING() needs a GROUP BY clause: it tells which grouping expressions a row was grouped by",
        ));
    }
    if aggregated && !set_calls.is_empty() {
        return Err(Error::not_supported(
            "set-returning functions (unnest, generate_subscripts) in a select list with GROUP BY or aggregates are not supported yet; unnest in a subquery in FROM instead",
        ));
    }
    let mut extras: Vec<Expr> = order_targets
        .iter()
        .map(|(t, _, _)| t)
        .chain(&on_targets)
        .filter_map(|t| match t {
            OrderTarget::Extra(e) => Some(e.clone()),
            _ => None,
        })
        .collect();
    let mut select_exprs: Vec<Expr> = items.iter().map(|i| i.expr.clone()).collect();
    let mut having = having;
    if aggregated {
        // What each grouping expression reads above the grouping: its group column,
        // or, grouped by a collation key, the first of the group's strings.
        let ngroups = group_by.len();
        let mut keys = Vec::with_capacity(ngroups);
        let mut outputs = Vec::with_capacity(ngroups);
        for (k, g) in group_by.iter().enumerate() {
            match collation::derived(g)?.filter(|d| !d.collation.is_binary()) {
                Some(_) if sets.len() > 1 => {
                    return Err(Error::not_supported(
                        "GROUPING SETS, ROLLUP and CUBE over strings with a collation are not supported yet; group by the collation key instead, as in lower(s)",
                    ))
                }
                Some(d) => {
                    keys.push(collation::sort_key(g.clone())?);
                    let first = Expr::column(ngroups + aggregates.len(), DataType::Varchar, g.to_string());
                    outputs.push(collation::marked_as(first, Some(d)));
                    aggregates.push(collation::first_of(g.clone())?);
                }
                None => {
                    keys.push(g.clone());
                    outputs.push(Expr::column(k, g.data_type(), g.to_string()));
                }
            }
        }
        let naggs = aggregates.len();
        let schema = crate::plan::aggregate_schema(&keys, &aggregates);
        // Expressions above the grouping read its output; GROUPING() becomes a
        // constant with one grouping set, else a column of the union.
        let mut calls: Vec<Vec<Expr>> = Vec::new();
        let window_exprs = windows.iter_mut().flat_map(|w| w.exprs_mut());
        for e in select_exprs
            .iter_mut()
            .chain(extras.iter_mut())
            .chain(having.iter_mut())
            .chain(qualify.iter_mut())
            .chain(window_exprs)
        {
            let inner = rewrite_for_aggregate(
                std::mem::replace(e, Expr::literal(ScalarValue::Null)),
                &group_by,
                &outputs,
                ngroups,
            )?;
            *e = if sets.len() > 1 {
                super::grouping_sets::take_groupings(inner, &group_by, &mut calls, &|k| {
                    Expr::column(
                        ngroups + naggs + k,
                        DataType::BigInt,
                        format!("grouping{k}"),
                    )
                })?
            } else {
                super::grouping_sets::single_set_groupings(inner, &group_by)?
            };
        }
        plan = if sets.len() > 1 {
            super::grouping_sets::grouped_union(plan, &sets, &group_by, &aggregates, &calls)
        } else {
            LogicalPlan::Aggregate {
                input: Box::new(plan),
                group_by: keys,
                aggregates,
                schema,
            }
        };
        if let Some(h) = having {
            plan = LogicalPlan::Filter {
                input: Box::new(plan),
                predicate: h,
            };
        }
    }

    // Window functions beside set-returning functions are computed before the rows
    // are unnested, as in PostgreSQL and DuckDB: over the FROM rows, their columns
    // passed through the unnesting.
    let unnested_from = match &plan {
        LogicalPlan::Unnest { input, .. } if !windows.is_empty() => {
            let n = input.schema().len();
            let reads_unnested =
                |e: &Expr| e.any(&mut |x| matches!(x, Expr::Column { index, .. } if *index >= n));
            let mut ws = windows.clone();
            let reads = ws
                .iter_mut()
                .flat_map(|w| w.exprs_mut())
                .any(|e| reads_unnested(e));
            (!reads).then_some(n)
        }
        _ => None,
    };
    if let (
        Some(n),
        LogicalPlan::Unnest {
            input,
            lists,
            schema: unnest_schema,
            ..
        },
    ) = (unnested_from, plan.clone())
    {
        let w = windows.len();
        let mut schema = input.schema().to_vec();
        for (i, win) in windows.iter().enumerate() {
            schema.push(Field::new(format!("window{i}"), win.ty.clone()));
        }
        let windowed = LogicalPlan::Window {
            input,
            functions: std::mem::take(&mut windows),
            schema: schema.clone(),
        };
        schema.extend(unnest_schema[n..].iter().cloned());
        plan = LogicalPlan::Unnest {
            input: Box::new(windowed),
            passed: (0..n + w).collect(),
            lists,
            schema,
        };
        for e in select_exprs
            .iter_mut()
            .chain(extras.iter_mut())
            .chain(qualify.iter_mut())
        {
            let shifted =
                shift_columns(std::mem::replace(e, Expr::literal(ScalarValue::Null)), n, w);
            *e = window_columns(shifted, n);
        }
    }
    // Window functions: computed over the rows as grouped (and filtered by HAVING),
    // each appended as a column the select list and ORDER BY read.
    if !windows.is_empty() {
        let base = plan.schema().len();
        let mut schema = plan.schema().to_vec();
        for (i, w) in windows.iter().enumerate() {
            schema.push(Field::new(format!("window{i}"), w.ty.clone()));
        }
        plan = LogicalPlan::Window {
            input: Box::new(plan),
            functions: std::mem::take(&mut windows),
            schema,
        };
        for e in select_exprs
            .iter_mut()
            .chain(extras.iter_mut())
            .chain(qualify.iter_mut())
        {
            *e = window_columns(std::mem::replace(e, Expr::literal(ScalarValue::Null)), base);
        }
    }
    if let Some(predicate) = qualify {
        plan = LogicalPlan::Filter {
            input: Box::new(plan),
            predicate,
        };
    }

    let distinct = matches!(s.distinct, Some(ast::Distinct::Distinct));
    if distinct && !extras.is_empty() {
        return Err(Error::binder(
            "for SELECT DISTINCT, ORDER BY expressions must appear in select list",
        ));
    }
    let nvisible = select_exprs.len();
    let field = |name: String, e: &Expr| -> Result<Field> {
        Ok(Field::new(name, e.data_type()).with_collation(collation::output(e)))
    };
    let mut fields: Vec<Field> = items
        .iter()
        .zip(&select_exprs)
        .map(|(it, e)| field(it.name.clone(), e))
        .collect::<Result<_>>()?;
    for (i, e) in extras.iter().enumerate() {
        fields.push(field(format!("__order{i}"), e)?);
    }
    let mut exprs = select_exprs;
    exprs.append(&mut extras);
    plan = LogicalPlan::Project {
        input: Box::new(plan),
        exprs,
        schema: fields.clone(),
    };
    // The position of each ORDER BY key among the projected columns (extras follow
    // the visible ones, ORDER BY's first, then DISTINCT ON's).
    let mut extra_i = nvisible;
    let mut position = |t: &OrderTarget| match t {
        OrderTarget::Output(i) => *i,
        OrderTarget::Extra(_) => {
            extra_i += 1;
            extra_i - 1
        }
    };
    let order_columns: Vec<(usize, bool, bool)> = order_targets
        .iter()
        .map(|(t, asc, nf)| (position(t), *asc, *nf))
        .collect();
    let on_columns: Vec<usize> = on_targets.iter().map(&mut position).collect();
    if !on_columns.is_empty() {
        plan = distinct_on(plan, &fields, &on_columns, &order_columns)?;
    }
    if distinct && collation::any_collated(&fields) {
        plan = collation::distinct_rows(plan, None)?;
    } else if distinct {
        let group_by = fields
            .iter()
            .enumerate()
            .map(|(i, f)| Expr::column(i, f.ty.clone(), f.name.clone()))
            .collect();
        plan = LogicalPlan::Aggregate {
            input: Box::new(plan),
            group_by,
            aggregates: vec![],
            schema: fields.clone(),
        };
    }
    if !order_columns.is_empty() {
        let keys = order_columns
            .into_iter()
            .map(|(idx, asc, nf)| {
                let f = &fields[idx];
                let column = Expr::column(idx, f.ty.clone(), f.name.clone());
                Ok(SortExpr {
                    expr: collation::sort_key(collation::mark(column, f.collation))?,
                    asc,
                    nulls_first: nf,
                })
            })
            .collect::<Result<_>>()?;
        plan = LogicalPlan::Sort {
            input: Box::new(plan),
            keys,
        };
    }
    if fields.len() > nvisible {
        let exprs = (0..nvisible)
            .map(|i| Expr::column(i, fields[i].ty.clone(), fields[i].name.clone()))
            .collect();
        plan = LogicalPlan::Project {
            input: Box::new(plan),
            exprs,
            schema: fields[..nvisible].to_vec(),
        };
    }
    Ok(plan)
}

/// What an ORDER BY or DISTINCT ON item sorts by: an output column (by ordinal,
/// alias or output name, or an expression the select list computes) or an expression
/// over FROM to compute beside the select list.
enum OrderTarget {
    Output(usize),
    Extra(Expr),
}

fn order_target(
    b: &mut Binder,
    e: &ast::Expr,
    items: &[SelectItem],
    ctx: &mut ExprCtx,
) -> Result<OrderTarget> {
    if let Some(i) = ordinal(e, items.len())? {
        return Ok(OrderTarget::Output(i));
    }
    if let Some(i) = output_name_ref(e, items) {
        return Ok(OrderTarget::Output(i));
    }
    let e = b.bind_expr(e, ctx)?;
    Ok(match items.iter().position(|it| it.expr == e) {
        Some(i) => OrderTarget::Output(i),
        None => OrderTarget::Extra(e),
    })
}

/// `SELECT DISTINCT ON (keys) ... ORDER BY order` over the projected rows `plan`
/// (columns `fields`): the first row of each distinct `on` key in `order`, as
/// `row_number() OVER (PARTITION BY on ORDER BY order) = 1`. Which row of a key comes
/// first is arbitrary where ORDER BY does not decide it, as in PostgreSQL and DuckDB.
fn distinct_on(
    plan: LogicalPlan,
    fields: &[Field],
    on: &[usize],
    order: &[(usize, bool, bool)],
) -> Result<LogicalPlan> {
    let column = |i: usize| Expr::column(i, fields[i].ty.clone(), fields[i].name.clone());
    let order_by: Vec<SortExpr> = order
        .iter()
        .map(|&(i, asc, nulls_first)| {
            Ok(SortExpr {
                expr: collation::sort_key(collation::mark(column(i), fields[i].collation))?,
                asc,
                nulls_first,
            })
        })
        .collect::<Result<_>>()?;
    let partition_by = on
        .iter()
        .map(|&i| collation::sort_key(collation::mark(column(i), fields[i].collation)))
        .collect::<Result<_>>()?;
    let rank = WindowExpr {
        func: crate::plan::WindowFunction::RowNumber,
        args: vec![],
        partition_by,
        frame: crate::plan::WindowFrame::default_for(!order_by.is_empty()),
        order_by,
        ignore_nulls: false,
        filter: None,
        distinct: false,
        ty: DataType::BigInt,
    };
    let mut schema = fields.to_vec();
    schema.push(Field::new("__distinct_on", DataType::BigInt));
    let n = fields.len();
    let windowed = LogicalPlan::Window {
        input: Box::new(plan),
        functions: vec![rank],
        schema,
    };
    let first = LogicalPlan::Filter {
        input: Box::new(windowed),
        predicate: super::function::bind_scalar_call(
            "=",
            vec![
                Expr::column(n, DataType::BigInt, "__distinct_on"),
                Expr::literal(ScalarValue::BigInt(1)),
            ],
        )?,
    };
    Ok(LogicalPlan::Project {
        input: Box::new(first),
        exprs: (0..n).map(column).collect(),
        schema: fields.to_vec(),
    })
}

/// `e` with the select list's aliases that name no column of FROM replaced by their
/// expressions (QUALIFY may name them, as in DuckDB).
fn with_aliases(e: &ast::Expr, projection: &[ast::SelectItem], scope: &Scope) -> ast::Expr {
    use ast::Expr as A;
    let go = |x: &ast::Expr| Box::new(with_aliases(x, projection, scope));
    match e {
        A::Identifier(id) if matches!(scope.lookup(None, &id.value), Lookup::NotFound) => {
            let aliased = projection.iter().find_map(|item| match item {
                ast::SelectItem::ExprWithAlias { expr, alias }
                    if alias.value.eq_ignore_ascii_case(&id.value) =>
                {
                    Some(expr.clone())
                }
                _ => None,
            });
            match aliased {
                Some(x) => A::Nested(Box::new(x)),
                None => e.clone(),
            }
        }
        A::BinaryOp { left, op, right } => A::BinaryOp {
            left: go(left),
            op: op.clone(),
            right: go(right),
        },
        A::UnaryOp { op, expr } => A::UnaryOp {
            op: *op,
            expr: go(expr),
        },
        A::Nested(x) => A::Nested(go(x)),
        A::IsNull(x) => A::IsNull(go(x)),
        A::IsNotNull(x) => A::IsNotNull(go(x)),
        A::Between {
            expr,
            negated,
            low,
            high,
        } => A::Between {
            expr: go(expr),
            negated: *negated,
            low: go(low),
            high: go(high),
        },
        A::InList {
            expr,
            list,
            negated,
        } => A::InList {
            expr: go(expr),
            list: list
                .iter()
                .map(|x| with_aliases(x, projection, scope))
                .collect(),
            negated: *negated,
        },
        other => other.clone(),
    }
}

/// `e` with each column at or after `from` moved `by` places right.
fn shift_columns(e: Expr, from: usize, by: usize) -> Expr {
    match e {
        Expr::Column { index, ty, name } if index >= from => Expr::Column {
            index: index + by,
            ty,
            name,
        },
        mut other => {
            for c in other.children_mut() {
                let inner = std::mem::replace(c, Expr::literal(ScalarValue::Null));
                *c = shift_columns(inner, from, by);
            }
            other
        }
    }
}

/// `e` with each window call's placeholder replaced by its column (`base + index`).
fn window_columns(e: Expr, base: usize) -> Expr {
    match e {
        Expr::WindowRef { index, ty } => Expr::column(base + index, ty, format!("window{index}")),
        mut other => {
            for c in other.children_mut() {
                let inner = std::mem::replace(c, Expr::literal(ScalarValue::Null));
                *c = window_columns(inner, base);
            }
            other
        }
    }
}

/// The table named by `t.*`.
/// Whether a select item is `unnest(x)` of a STRUCT value `x` (bound on its own to
/// learn its type; an aggregate or window inside makes it not one).
fn is_struct_unnest(b: &mut Binder, e: &ast::Expr, scope: &Scope) -> bool {
    let Some(operand) = super::structs::unnest_operand(e) else {
        return false;
    };
    let mut probe = ExprCtx {
        scope,
        aggregates: None,
        windows: None,
        clause: "SELECT",
    };
    b.bind_expr(operand, &mut probe)
        .is_ok_and(|x| matches!(x.data_type(), DataType::Struct(_)))
}

pub(super) fn wildcard_qualifier(kind: &ast::SelectItemQualifiedWildcardKind) -> Result<String> {
    match kind {
        ast::SelectItemQualifiedWildcardKind::ObjectName(n) => super::from::object_name(n),
        ast::SelectItemQualifiedWildcardKind::Expr(e) => {
            Err(Error::not_supported(format!("{e}.* is not supported")))
        }
    }
}

/// A bare name in GROUP BY that is not a FROM column but a select alias.
fn alias_ref(e: &ast::Expr, items: &[SelectItem], scope: &Scope) -> Option<usize> {
    let ast::Expr::Identifier(id) = e else {
        return None;
    };
    if !matches!(scope.lookup(None, &id.value), Lookup::NotFound) {
        return None;
    }
    items.iter().position(|it| {
        it.alias
            .as_deref()
            .is_some_and(|a| a.eq_ignore_ascii_case(&id.value))
    })
}

/// A bare name in ORDER BY that names an output column (PostgreSQL prefers those).
fn output_name_ref(e: &ast::Expr, items: &[SelectItem]) -> Option<usize> {
    let ast::Expr::Identifier(id) = e else {
        return None;
    };
    let matches: Vec<usize> = items
        .iter()
        .enumerate()
        .filter(|(_, it)| it.name.eq_ignore_ascii_case(&id.value))
        .map(|(i, _)| i)
        .collect();
    match matches.as_slice() {
        [i] => Some(*i),
        // Several output columns with this name: only fine when they are all alike.
        [i, rest @ ..] if rest.iter().all(|j| items[*j].expr == items[*i].expr) => Some(*i),
        _ => None,
    }
}

/// The name of a select item without an alias, `e` bound as `expr`: a column's own
/// name, else the expression as written without enclosing parentheses and with a
/// function's name in lower case (`SUM(x)` is named `sum(x)`, as in DuckDB).
pub(super) fn unaliased_name(e: &ast::Expr, expr: &Expr) -> String {
    let mut e = e;
    while let ast::Expr::Nested(inner) = e {
        e = inner;
    }
    match (e, expr.without_collation()) {
        (
            ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_),
            Expr::Column { name, .. } | Expr::OuterColumn { name, .. },
        ) => name.clone(),
        (ast::Expr::Function(f), _) => {
            let mut f = f.clone();
            for part in &mut f.name.0 {
                if let ast::ObjectNamePart::Identifier(id) = part {
                    if id.quote_style.is_none() {
                        id.value = id.value.to_lowercase();
                    }
                }
            }
            crate::frame_exclude::restore(&f.to_string())
        }
        _ => e.to_string(),
    }
}

/// `e`, bound over a query's FROM, as a subquery `level` levels below that query
/// sees it: its columns become outer references.
fn as_outer(e: &Expr, level: usize) -> Expr {
    match e {
        Expr::Column { index, ty, name } => Expr::OuterColumn {
            depth: level,
            index: *index,
            ty: ty.clone(),
            name: name.clone(),
        },
        Expr::OuterColumn {
            depth,
            index,
            ty,
            name,
        } => Expr::OuterColumn {
            depth: depth + level,
            index: *index,
            ty: ty.clone(),
            name: name.clone(),
        },
        e => {
            let mut e = e.clone();
            for c in e.children_mut() {
                *c = as_outer(c, level);
            }
            e
        }
    }
}

/// Rewrites an expression bound over FROM into one over the aggregate's output:
/// group expressions become group columns, aggregate placeholders become aggregate
/// columns, and any other FROM column is an error.
fn rewrite_for_aggregate(
    e: Expr,
    groups: &[Expr],
    outputs: &[Expr],
    ngroups: usize,
) -> Result<Expr> {
    if let Some(i) = groups.iter().position(|g| *g == e) {
        return Ok(outputs[i].clone());
    }
    match e {
        Expr::AggregateRef { index, ty } => Ok(Expr::column(ngroups + index, ty, format!("agg{index}"))),
        Expr::Column { name, .. } => Err(Error::binder(format!(
            "column \"{name}\" must appear in the GROUP BY clause or must be part of an aggregate function. \
             Either add it to the GROUP BY list, or use \"ANY_VALUE({name})\" if the exact value of \"{name}\" is not important."
        ))
        .with_sqlstate(stride_common::error::sqlstate::GROUPING_ERROR)),
        Expr::Subquery(mut s) => {
            // The subquery reads the grouped rows: a grouping expression it names
            // whole (`s1.i % 2` under GROUP BY i % 2) or a grouped column reads the
            // group's output column; any other column of the outer query is an error.
            let output_index = |k: usize| match outputs[k].without_collation() {
                Expr::Column { index, .. } => *index,
                _ => k,
            };
            let mut err = None;
            // The grouping expressions as seen at each level, made once per level.
            let mut seen_from: HashMap<usize, Vec<Option<Expr>>> = HashMap::new();
            rewrite_exprs_by_level(&mut s.plan, 1, &mut |x, level| {
                let lifted = seen_from.entry(level).or_insert_with(|| {
                    groups
                        .iter()
                        .map(|g| {
                            (!matches!(g.without_collation(), Expr::Column { .. }))
                                .then(|| as_outer(g, level))
                        })
                        .collect()
                });
                for (k, g) in groups.iter().enumerate() {
                    if lifted[k].as_ref() == Some(&*x) {
                        *x = Expr::OuterColumn {
                            depth: level,
                            index: output_index(k),
                            ty: g.data_type(),
                            name: g.to_string(),
                        };
                        return true;
                    }
                }
                match x {
                    Expr::OuterAggregateRef { depth, index, ty } if *depth == level => {
                        *x = Expr::OuterColumn {
                            depth: level,
                            index: ngroups + *index,
                            ty: ty.clone(),
                            name: format!("agg{index}"),
                        };
                        true
                    }
                    Expr::OuterColumn { depth, index, ty, name } if *depth == level => {
                        let col = Expr::column(*index, ty.clone(), name.clone());
                        match groups.iter().position(|g| *g.without_collation() == col) {
                            Some(k) => *index = output_index(k),
                            None => {
                                err = Some(Error::binder(format!(
                                    "subquery uses ungrouped column \"{name}\" from outer query: add it to the GROUP BY clause"
                                )))
                            }
                        }
                        true
                    }
                    _ => false,
                }
            });
            if let Some(e) = err {
                return Err(e);
            }
            match &mut s.kind {
                crate::plan::SubqueryKind::In { expr, .. } | crate::plan::SubqueryKind::Quantified { expr, .. } => {
                    let inner = std::mem::replace(&mut **expr, Expr::literal(ScalarValue::Null));
                    **expr = rewrite_for_aggregate(inner, groups, outputs, ngroups)?;
                }
                _ => {}
            }
            Ok(Expr::Subquery(s))
        }
        mut other => {
            for c in other.children_mut() {
                let inner = std::mem::replace(c, Expr::literal(ScalarValue::Null));
                *c = rewrite_for_aggregate(inner, groups, outputs, ngroups)?;
            }
            Ok(other)
        }
    }
}
