//! Lambdas: `list_transform(l, x -> x + 1)` (also `lambda x: x + 1`, DuckDB's newer
//! syntax), `list_filter(l, x -> x > 0)` and `list_reduce(l, (acc, x) -> acc + x
//! [, initial])`, with their aliases. A lambda may take one more parameter, the
//! element's 1-based position, and may read the row's columns. A reduce's
//! accumulator has the common type of its start (the initial value, else the first
//! element) and of the body's result, as in DuckDB: `list_reduce([1, 2], (a, x) ->
//! a * 1.5)` folds in DECIMAL.
//!
//! The body is bound over its own input (stride-exec's lambda.rs evaluates it over
//! the elements of many lists at once): the parameters first, then every value of the
//! row the body reads, as captures. Binding sees the parameters in front of the row's
//! columns (a parameter hides a column of the same name), and then each column
//! reference beyond the parameters becomes a capture.

use super::expr::{cast_expr, ExprCtx};
use super::scope::{Scope, Visibility};
use super::Binder;
use crate::plan::{Expr, Field, LambdaKind};
use sqlparser::ast;
use stride_common::{DataType, Error, Result};

/// Every name of a function that takes a lambda.
pub(crate) const LAMBDA_FUNCTIONS: &[&str] = &[
    "list_transform",
    "array_transform",
    "apply",
    "list_apply",
    "array_apply",
    "list_filter",
    "array_filter",
    "filter",
    "list_reduce",
    "array_reduce",
    "reduce",
];

/// The lambda function a name calls, if it is one.
pub(super) fn kind(name: &str) -> Option<LambdaKind> {
    Some(match name {
        "list_transform" | "array_transform" | "apply" | "list_apply" | "array_apply" => {
            LambdaKind::Transform
        }
        "list_filter" | "array_filter" | "filter" => LambdaKind::Filter,
        "list_reduce" | "array_reduce" | "reduce" => LambdaKind::Reduce,
        _ => return None,
    })
}

impl Binder<'_> {
    pub(super) fn bind_lambda_call(
        &mut self,
        name: &str,
        kind: LambdaKind,
        args: &[ast::FunctionArg],
        ctx: &mut ExprCtx,
    ) -> Result<Expr> {
        let usage = || {
            Error::binder(format!(
                "{name} takes a list and a lambda, as in {name}([1, 2], x -> x + 1)"
            ))
        };
        let (list_arg, lambda_arg, initial_arg) = match (kind, args) {
            (_, [l, f]) => (l, f, None),
            (LambdaKind::Reduce, [l, f, init]) => (l, f, Some(init)),
            _ => return Err(usage()),
        };
        let list_expr = super::function::positional(list_arg).ok_or_else(usage)?;
        let lambda = match super::function::positional(lambda_arg).as_deref() {
            Some(ast::Expr::Lambda(l)) => l.clone(),
            _ => return Err(usage()),
        };
        let mut list = self.bind_expr(&list_expr, ctx)?;
        if let DataType::Array(e, _) = list.data_type() {
            list = cast_expr(list, &DataType::List(e))?;
        }
        let elem = match list.data_type() {
            DataType::List(e) => *e,
            DataType::Null => {
                list = cast_expr(list, &DataType::List(Box::new(DataType::Integer)))?;
                DataType::Integer
            }
            other => {
                return Err(Error::binder(format!(
                    "{name} needs a list as its first argument, not {other}"
                )))
            }
        };
        let initial = match initial_arg {
            Some(a) => {
                let e = super::function::positional(a).ok_or_else(usage)?;
                Some(self.bind_expr(&e, ctx)?)
            }
            None => None,
        };
        let kind = if initial.is_some() {
            LambdaKind::ReduceFrom
        } else {
            kind
        };
        let names: Vec<String> = lambda
            .params
            .iter()
            .map(|p| super::expr::ident_name(&p.name))
            .collect();
        // A reduce's accumulator starts as the initial value's type (the element's
        // without one).
        let start = match &initial {
            Some(i) if i.data_type() != DataType::Null => i.data_type(),
            _ => elem.clone(),
        };
        let mut types = match kind {
            LambdaKind::Reduce | LambdaKind::ReduceFrom => {
                vec![start.clone(), elem.clone(), DataType::BigInt]
            }
            _ => vec![elem.clone(), DataType::BigInt],
        };
        let least = types.len() - 1;
        if names.len() < least || names.len() > types.len() {
            return Err(Error::binder(format!(
                "the lambda of {name} takes {least} or {} parameters, not {}",
                least + 1,
                names.len()
            )));
        }
        types.truncate(names.len());

        let mut body = self.bind_lambda_body(&lambda.body, &names, &types, ctx)?;
        // The accumulator holds what the body returns as well as the start: their
        // common type, the body bound again when that is wider than the start.
        let acc = match kind {
            LambdaKind::Reduce | LambdaKind::ReduceFrom => {
                let result = body.data_type();
                let no_common = || {
                    Error::binder(format!(
                        "{name}: no common type for the accumulator, {start}, and the lambda's result, {result} - an explicit cast is required"
                    ))
                };
                // text and other values do not mix implicitly here (as DuckDB)
                let text = |t: &DataType| *t == DataType::Varchar;
                let acc = if result == DataType::Null {
                    start.clone()
                } else if text(&start) != text(&result) {
                    return Err(no_common());
                } else {
                    DataType::common_supertype(&start, &result).ok_or_else(no_common)?
                };
                if acc != start {
                    types[0] = acc.clone();
                    body = self.bind_lambda_body(&lambda.body, &names, &types, ctx)?;
                }
                acc
            }
            _ => elem.clone(),
        };
        // The initial value is the first capture, so the body's own captures follow it.
        let mut captures = Vec::new();
        if let Some(i) = initial {
            captures.push(cast_expr(i, &acc)?);
        }
        let body = capture(body, names.len(), &mut captures)?;
        let (body, ty) = match kind {
            LambdaKind::Transform => {
                let t = body.data_type();
                let t = if t == DataType::Null {
                    DataType::Integer
                } else {
                    t
                };
                (cast_expr(body, &t)?, DataType::List(Box::new(t)))
            }
            LambdaKind::Filter => (
                super::expr::bool_expr(body, "the lambda of list_filter")?,
                DataType::List(Box::new(elem)),
            ),
            LambdaKind::Reduce | LambdaKind::ReduceFrom => (cast_expr(body, &acc)?, acc),
        };
        Ok(Expr::Lambda {
            func: kind,
            list: Box::new(list),
            captures,
            body: Box::new(body),
            params: names.len(),
            ty,
        })
    }
}

impl Binder<'_> {
    /// Binds a lambda's body over its parameters (`names`, typed `types`) in front of
    /// the row's columns (those a parameter names hidden).
    fn bind_lambda_body(
        &mut self,
        body: &ast::Expr,
        names: &[String],
        types: &[DataType],
        ctx: &mut ExprCtx,
    ) -> Result<Expr> {
        let mut fields: Vec<Field> = names
            .iter()
            .zip(types)
            .map(|(n, t)| Field::new(n.clone(), t.clone()))
            .collect();
        let mut visibility = vec![Visibility::Visible; fields.len()];
        for (f, v) in ctx.scope.fields.iter().zip(&ctx.scope.visibility) {
            let hidden = names.iter().any(|n| n.eq_ignore_ascii_case(&f.name));
            fields.push(f.clone());
            visibility.push(if hidden { Visibility::Qualified } else { *v });
        }
        let scope = Scope { fields, visibility };
        let mut inner = ExprCtx::new(&scope, "a lambda");
        self.bind_expr(body, &mut inner)
    }
}

/// `e` with each reference to the row (a column beyond the `params` parameters, or
/// an enclosing query's column) replaced by a column after the parameters, the
/// reference itself added to `captures`.
fn capture(e: Expr, params: usize, captures: &mut Vec<Expr>) -> Result<Expr> {
    let outer = match &e {
        Expr::Column { index, ty, name } if *index >= params => Some(Expr::Column {
            index: index - params,
            ty: ty.clone(),
            name: name.clone(),
        }),
        Expr::OuterColumn { .. } => Some(e.clone()),
        Expr::Subquery(_) => {
            return Err(Error::not_supported(
                "subqueries inside a lambda are not supported yet",
            ))
        }
        _ => None,
    };
    if let Some(outer) = outer {
        let at = match captures.iter().position(|c| *c == outer) {
            Some(i) => i,
            None => {
                captures.push(outer.clone());
                captures.len() - 1
            }
        };
        return Ok(Expr::Column {
            index: params + at,
            ty: outer.data_type(),
            name: outer.to_string(),
        });
    }
    let mut e = e;
    for c in e.children_mut() {
        let inner = std::mem::replace(c, Expr::literal(stride_common::ScalarValue::Null));
        *c = capture(inner, params, captures)?;
    }
    Ok(e)
}
