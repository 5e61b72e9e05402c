//! DuckDB's `COLUMNS(...)` expression: one select-list item (or WHERE condition)
//! written once for many columns. `COLUMNS('regex')` stands for the FROM columns
//! whose names match the regular expression (anywhere in the name), `COLUMNS(*)` for
//! all of them (with `* EXCLUDE / REPLACE / RENAME` as a star has), `COLUMNS(['a',
//! 'b'])` for the named ones and `COLUMNS(lambda c: <condition on the name c>)` for
//! those the condition holds for.
//!
//! Expansion happens on the syntax tree, before binding: an item with COLUMNS becomes
//! one item per column, each COLUMNS replaced by that column; the item is named after
//! the column (an alias may use the regex's groups as `\1`). In WHERE and HAVING the
//! expansions are joined with AND. Several COLUMNS in one item expand in step and must
//! stand for as many columns.

use super::expr::ExprCtx;
use super::scope::Scope;
use super::Binder;
use sqlparser::ast;
use std::ops::ControlFlow;
use stride_common::{Error, Result, ScalarValue};

/// Whether `e` contains a COLUMNS(...) call.
pub(super) fn contains(e: &ast::Expr) -> bool {
    let mut found = false;
    let _ = ast::visit_expressions(e, |x| {
        if columns_call(x).is_some() {
            found = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    found
}

fn columns_call(e: &ast::Expr) -> Option<&ast::FunctionArguments> {
    match e {
        ast::Expr::Function(f)
            if f.name.0.len() == 1 && f.name.to_string().eq_ignore_ascii_case("columns") =>
        {
            Some(&f.args)
        }
        _ => None,
    }
}

/// One column a COLUMNS call stands for: how to name it in SQL, its name, and the
/// regex's capture groups when it was chosen by one (for aliases).
#[derive(Clone)]
struct Chosen {
    reference: ast::Expr,
    name: String,
    groups: Vec<String>,
}

/// The expansions of `e`: (the expression for one column, the output name).
pub(super) fn expand(
    b: &mut Binder,
    e: &ast::Expr,
    alias: Option<&ast::Ident>,
    scope: &Scope,
) -> Result<Vec<(ast::Expr, String)>> {
    // Each distinct COLUMNS call, in order of appearance, with its columns.
    let mut calls: Vec<(ast::Expr, Vec<Chosen>)> = Vec::new();
    let mut failure = None;
    let _ = ast::visit_expressions(e, |x| {
        if let Some(args) = columns_call(x) {
            if !calls.iter().any(|(c, _)| c == x) {
                match choose(b, args, scope) {
                    Ok(chosen) => calls.push((x.clone(), chosen)),
                    Err(err) => {
                        failure = Some(err);
                        return ControlFlow::Break(());
                    }
                }
            }
        }
        ControlFlow::Continue(())
    });
    if let Some(err) = failure {
        return Err(err);
    }
    let n = calls[0].1.len();
    if calls.iter().any(|(_, c)| c.len() != n) {
        return Err(Error::binder(
            "Multiple different COLUMNS in the same expression must stand for as many columns",
        ));
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let mut item = e.clone();
        let _ = ast::visit_expressions_mut(&mut item, |x| {
            if let Some((_, chosen)) = calls.iter().find(|(c, _)| c == x) {
                *x = chosen[i].reference.clone();
            }
            ControlFlow::<()>::Continue(())
        });
        let first = &calls[0].1[i];
        let name = match alias {
            Some(a) => with_groups(&super::expr::ident_name(a), &first.groups),
            None => first.name.clone(),
        };
        out.push((item, name));
    }
    Ok(out)
}

/// `alias` with `\N` replaced by the regex's N-th group (`\0` the whole name, also for
/// columns `*`, a list or a lambda chose).
fn with_groups(alias: &str, groups: &[String]) -> String {
    let mut out = String::new();
    let mut chars = alias.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek().and_then(|d| d.to_digit(10))) {
            ('\\', Some(d)) => {
                chars.next();
                out.push_str(groups.get(d as usize).map_or("", String::as_str));
            }
            _ => out.push(c),
        }
    }
    out
}

/// The columns one COLUMNS call stands for.
fn choose(b: &mut Binder, args: &ast::FunctionArguments, scope: &Scope) -> Result<Vec<Chosen>> {
    let ast::FunctionArguments::List(list) = args else {
        return Err(Error::binder("COLUMNS needs one argument"));
    };
    let [arg] = list.args.as_slice() else {
        return Err(Error::binder("COLUMNS needs one argument"));
    };
    let visible: Vec<usize> = (0..scope.fields.len())
        .filter(|&i| scope.is_visible(i))
        .collect();
    let chosen = |i: usize, groups: Vec<String>| -> Chosen {
        let f = &scope.fields[i];
        // A name other FROM columns share is written with its table's name.
        let shared = visible
            .iter()
            .filter(|&&j| scope.fields[j].name.eq_ignore_ascii_case(&f.name))
            .count()
            > 1;
        let reference = match (&f.qualifier, shared) {
            (Some(q), true) => ast::Expr::CompoundIdentifier(vec![
                ast::Ident::with_quote('"', q.clone()),
                ast::Ident::with_quote('"', f.name.clone()),
            ]),
            _ => ast::Expr::Identifier(ast::Ident::with_quote('"', f.name.clone())),
        };
        // Chosen other than by a regex, `\0` in an alias is still the column's name.
        let groups = if groups.is_empty() {
            vec![f.name.clone()]
        } else {
            groups
        };
        Chosen {
            reference,
            name: f.name.clone(),
            groups,
        }
    };
    let expr = match arg {
        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard) => {
            return Ok(visible.iter().map(|&i| chosen(i, vec![])).collect())
        }
        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::WildcardWithOptions(o))
            if o.opt_replace.is_none()
                && o.opt_rename.is_none()
                && o.opt_ilike.is_none()
                && o.opt_except.is_none() =>
        {
            let excluded: Vec<String> = match &o.opt_exclude {
                Some(ast::ExcludeSelectItem::Single(n)) => vec![last_part(n)],
                Some(ast::ExcludeSelectItem::Multiple(ns)) => ns.iter().map(last_part).collect(),
                None => vec![],
            };
            if let Some(n) = excluded.iter().find(|n| {
                !visible
                    .iter()
                    .any(|&i| scope.fields[i].name.eq_ignore_ascii_case(n))
            }) {
                return Err(Error::binder(format!(
                    "Column \"{n}\" in EXCLUDE list not found in FROM clause"
                )));
            }
            return Ok(visible
                .iter()
                .filter(|&&i| {
                    !excluded
                        .iter()
                        .any(|n| scope.fields[i].name.eq_ignore_ascii_case(n))
                })
                .map(|&i| chosen(i, vec![]))
                .collect());
        }
        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => e,
        other => {
            return Err(Error::not_supported(format!(
                "COLUMNS({other}) is not supported; use COLUMNS(*), COLUMNS('regex'), a list of names or a lambda"
            )))
        }
    };
    if let ast::Expr::Lambda(l) = expr {
        let [param] = l.params.iter().collect::<Vec<_>>()[..] else {
            return Err(Error::binder(
                "a COLUMNS lambda takes one parameter: the column name",
            ));
        };
        let mut out = Vec::new();
        for &i in &visible {
            let name = scope.fields[i].name.clone();
            let mut body = (*l.body).clone();
            let _ = ast::visit_expressions_mut(&mut body, |x| {
                if matches!(x, ast::Expr::Identifier(id) if id.value.eq_ignore_ascii_case(&param.name.value))
                {
                    *x = ast::Expr::Value(ast::Value::SingleQuotedString(name.clone()).into());
                }
                ControlFlow::<()>::Continue(())
            });
            let empty = Scope::new(vec![]);
            let mut ctx = ExprCtx::new(&empty, "COLUMNS");
            let bound = b.bind_expr(&body, &mut ctx)?;
            match super::fold::fold_constant(&bound)? {
                Some(ScalarValue::Boolean(true)) => out.push(chosen(i, vec![])),
                Some(ScalarValue::Boolean(false) | ScalarValue::Null) => {}
                _ => {
                    return Err(Error::binder(
                        "a COLUMNS lambda must be a condition on the column name",
                    ))
                }
            }
        }
        return Ok(out);
    }
    let empty = Scope::new(vec![]);
    let mut ctx = ExprCtx::new(&empty, "COLUMNS");
    let value = super::fold::fold_constant(&b.bind_expr(expr, &mut ctx)?)?;
    match value {
        Some(ScalarValue::Varchar(pattern)) => {
            let re = regex::Regex::new(&pattern).map_err(|e| {
                Error::binder(format!(
                    "invalid regular expression \"{pattern}\" in COLUMNS: {e}"
                ))
            })?;
            let out: Vec<Chosen> = visible
                .iter()
                .filter_map(|&i| {
                    let caps = re.captures(&scope.fields[i].name)?;
                    let groups = caps
                        .iter()
                        .map(|m| m.map_or(String::new(), |m| m.as_str().to_string()))
                        .collect();
                    Some(chosen(i, groups))
                })
                .collect();
            if out.is_empty() {
                return Err(Error::binder(format!(
                    "No matching columns found that match regex \"{pattern}\""
                )));
            }
            Ok(out)
        }
        Some(ScalarValue::List(_, names)) => names
            .iter()
            .map(|n| {
                let n = match n {
                    ScalarValue::Varchar(s) => s,
                    other => {
                        return Err(Error::binder(format!(
                            "COLUMNS takes a list of column names, not {other}"
                        )))
                    }
                };
                visible
                    .iter()
                    .find(|&&i| scope.fields[i].name.eq_ignore_ascii_case(n))
                    .map(|&i| chosen(i, vec![]))
                    .ok_or_else(|| {
                        Error::binder(format!(
                            "Column \"{n}\" in COLUMNS list not found in FROM clause"
                        ))
                    })
            })
            .collect(),
        _ => Err(Error::binder(
            "COLUMNS takes *, a regular expression, a list of column names or a lambda",
        )),
    }
}

fn last_part(n: &ast::ObjectName) -> String {
    n.0.last()
        .and_then(|p| p.as_ident())
        .map(super::expr::ident_name)
        .unwrap_or_default()
}

/// A WHERE or HAVING condition with each COLUMNS expanded: the expansions joined with
/// AND (`COLUMNS('a.*') > 0` holds when it holds for every such column).
pub(super) fn conjunction(b: &mut Binder, e: &ast::Expr, scope: &Scope) -> Result<ast::Expr> {
    if !contains(e) {
        return Ok(e.clone());
    }
    let mut parts = expand(b, e, None, scope)?
        .into_iter()
        .map(|(x, _)| ast::Expr::Nested(Box::new(x)));
    let first = parts
        .next()
        .ok_or_else(|| Error::binder("COLUMNS stands for no columns"))?;
    Ok(parts.fold(first, |acc, x| ast::Expr::BinaryOp {
        left: Box::new(acc),
        op: ast::BinaryOperator::And,
        right: Box::new(x),
    }))
}
