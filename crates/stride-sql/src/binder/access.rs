//! Names and accesses in expressions: column references, bare (`a`), qualified
//! (`t.a`, `main.t.a`) or followed by STRUCT fields (`s.f`, `t.s.f`), resolved in
//! the query's scope and then the enclosing queries' (an outer reference); and the
//! accesses that follow a value: subscripts and slices of lists, strings and maps,
//! fields of structs, and DuckDB's dot-call chains (`x.upper()`). Called from
//! `expr.rs`'s `bind_expr`.

use super::expr::{call, ExprCtx};
use super::scope::{column_not_found, Lookup, Scope};
use super::Binder;
use crate::plan::Expr;
use sqlparser::ast;
use stride_common::{DataType, Error, Result, ScalarValue};

impl Binder<'_> {
    /// `root` followed by `access_chain` (`t.l[1]`, `s['f']`, `x.upper()`).
    pub(super) fn bind_access(
        &mut self,
        root: &ast::Expr,
        access_chain: &[ast::AccessExpr],
        ctx: &mut ExprCtx,
    ) -> Result<Expr> {
        if let Some(rewritten) = method_calls(root, access_chain) {
            return self.bind_expr(&rewritten, ctx);
        }
        // `t.l[1]`, `s.f.g[1]`: the names before the first subscript resolve
        // as the same names without it do (`t.l` is table t's column l).
        let names = access_chain
            .iter()
            .take_while(|a| matches!(a, ast::AccessExpr::Dot(ast::Expr::Identifier(_))))
            .count();
        let (mut x, rest) = match root {
            ast::Expr::Identifier(first) if names > 0 => {
                let mut parts = vec![first.clone()];
                parts.extend(access_chain[..names].iter().map(|a| match a {
                    ast::AccessExpr::Dot(ast::Expr::Identifier(id)) => id.clone(),
                    _ => unreachable!("counted as a name"),
                }));
                let x = self.bind_compound_identifier(&parts, ctx)?;
                (x, &access_chain[names..])
            }
            _ => (self.bind_expr(root, ctx)?, &access_chain[..]),
        };
        for access in rest {
            match access {
                ast::AccessExpr::Subscript(ast::Subscript::Index { index })
                    if matches!(x.data_type(), DataType::Map(..)) =>
                {
                    let key = self.bind_expr(index, ctx)?;
                    x = call("map_extract_value", vec![x, key])?;
                }
                ast::AccessExpr::Subscript(ast::Subscript::Index { index })
                    if matches!(x.data_type(), DataType::Struct(_)) =>
                {
                    let key = self.bind_expr(index, ctx)?;
                    x = super::structs::field(x, key)?;
                }
                ast::AccessExpr::Dot(ast::Expr::Identifier(id)) => {
                    x = super::structs::field_named(x, &id.value)?;
                }
                ast::AccessExpr::Subscript(ast::Subscript::Index { index }) => {
                    let i = self.bind_expr(index, ctx)?;
                    let name = if x.data_type() == DataType::Varchar {
                        "array_extract"
                    } else {
                        "list_extract"
                    };
                    x = call(name, vec![x, i])?;
                }
                ast::AccessExpr::Subscript(ast::Subscript::Slice {
                    lower_bound,
                    upper_bound,
                    stride,
                }) => {
                    let step = match stride {
                        Some(step) => Some(self.bind_expr(step, ctx)?),
                        None => None,
                    };
                    // An omitted bound is the first or the last element: where the
                    // slice starts and ends, or, with a negative step, the other
                    // way round (`l[:2:-1]` walks from the last element down to 2).
                    let backwards = match &step {
                        None => None,
                        Some(s) => match super::fold::fold_constant(s)? {
                            Some(v) => Some(Expr::literal(ScalarValue::Boolean(
                                v.as_i64().is_some_and(|v| v < 0),
                            ))),
                            None => Some(call(
                                "<",
                                vec![s.clone(), Expr::literal(ScalarValue::BigInt(0))],
                            )?),
                        },
                    };
                    let default = |forwards: i64| -> Expr {
                        let forwards_lit = Expr::literal(ScalarValue::BigInt(forwards));
                        match &backwards {
                            Some(Expr::Literal {
                                value: ScalarValue::Boolean(true),
                                ..
                            }) => Expr::literal(ScalarValue::BigInt(-forwards)),
                            Some(Expr::Literal { .. }) | None => forwards_lit,
                            Some(b) => Expr::Case {
                                branches: vec![(
                                    b.clone(),
                                    Expr::literal(ScalarValue::BigInt(-forwards)),
                                )],
                                else_expr: Box::new(forwards_lit),
                                ty: DataType::BigInt,
                            },
                        }
                    };
                    let bound = |b: &Option<ast::Expr>,
                                 default: Expr,
                                 me: &mut Self,
                                 ctx: &mut ExprCtx| match b {
                        Some(e) => me.bind_expr(e, ctx),
                        None => Ok(default),
                    };
                    let mut args = vec![
                        x,
                        bound(lower_bound, default(1), self, ctx)?,
                        bound(upper_bound, default(-1), self, ctx)?,
                    ];
                    args.extend(step);
                    x = call("array_slice", args)?;
                }
                other => {
                    return Err(Error::not_supported(format!(
                        "the field access {other} is not supported"
                    )))
                }
            }
        }
        Ok(x)
    }

    /// `t.c`, `s.t.c`, or a column followed by struct fields (`s.a`, `t.s.a`): the
    /// table reading is tried first, as in DuckDB.
    pub(super) fn bind_compound_identifier(
        &mut self,
        parts: &[ast::Ident],
        ctx: &mut ExprCtx,
    ) -> Result<Expr> {
        // (qualifier, column, fields after it) readings: table.column.fields first,
        // then schema.table.column.fields (`main.t.a`), then column.fields, as
        // DuckDB reads them (`t.t.l` is table t's column t's field l, not `t.l`)
        let mut readings: Vec<(Option<&str>, &str, &[ast::Ident])> = Vec::new();
        if parts.len() >= 2 {
            readings.push((Some(&parts[0].value), &parts[1].value, &parts[2..]));
        }
        if parts.len() >= 3 {
            readings.push((Some(&parts[1].value), &parts[2].value, &parts[3..]));
        }
        readings.push((None, &parts[0].value, &parts[1..]));
        // the error to report: a field's, once some reading found its column
        let mut first_error = None;
        let mut field_error = None;
        for (qualifier, column, fields) in readings {
            let mut x = match self.bind_column(qualifier, column, ctx) {
                Ok(x) => x,
                Err(e) => {
                    first_error.get_or_insert(e);
                    continue;
                }
            };
            let mut failed = None;
            for f in fields {
                match super::structs::field_named(x.clone(), &f.value) {
                    Ok(next) => x = next,
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            match failed {
                None => return Ok(x),
                Some(e) => {
                    field_error.get_or_insert(e);
                }
            }
        }
        Err(field_error.or(first_error).expect("at least one reading"))
    }

    pub(super) fn bind_column(
        &mut self,
        qualifier: Option<&str>,
        name: &str,
        ctx: &mut ExprCtx,
    ) -> Result<Expr> {
        match ctx.scope.lookup(qualifier, name) {
            Lookup::Found(i) => return Ok(ctx.scope.column(i)),
            Lookup::Ambiguous => {
                return Err(Error::binder(format!(
                    "Ambiguous reference to column name \"{name}\": qualify it with a table name or alias"
                ))
                .with_sqlstate(stride_common::error::sqlstate::AMBIGUOUS_COLUMN))
            }
            Lookup::NotFound => {}
        }
        for (depth, scope) in self.outer_scopes.iter().rev().enumerate() {
            match scope.lookup(qualifier, name) {
                Lookup::Found(i) => {
                    let f = &scope.fields[i];
                    let column = Expr::OuterColumn {
                        depth: depth + 1,
                        index: i,
                        ty: f.ty.clone(),
                        name: f.name.clone(),
                    };
                    return Ok(super::collation::mark(column, f.collation));
                }
                Lookup::Ambiguous => {
                    return Err(Error::binder(format!(
                        "Ambiguous reference to column name \"{name}\" in an outer query"
                    ))
                    .with_sqlstate(stride_common::error::sqlstate::AMBIGUOUS_COLUMN))
                }
                Lookup::NotFound => {}
            }
        }
        if qualifier.is_none() && !name.is_empty() {
            // Unquoted boolean-like names are literals in PostgreSQL too.
            match name.to_ascii_lowercase().as_str() {
                "true" => return Ok(Expr::literal(ScalarValue::Boolean(true))),
                "false" => return Ok(Expr::literal(ScalarValue::Boolean(false))),
                // SQL's special values written without parentheses.
                "current_catalog" => {
                    return Ok(Expr::literal(ScalarValue::Varchar(
                        self.catalog.database_name(),
                    )))
                }
                n @ ("current_user" | "session_user" | "current_role" | "current_schema") => {
                    return super::function::bind_scalar_call(n, Vec::new())
                }
                _ => {}
            }
        }
        let mut scopes: Vec<&Scope> = vec![ctx.scope];
        scopes.extend(self.outer_scopes.iter());
        Err(column_not_found(qualifier, name, &scopes))
    }
}

/// `x.f(args)` (DuckDB's dot-call chaining) rewritten as `f(x, args)`, each call of a
/// chain wrapping the ones before it; `None` when the chain calls no function.
fn method_calls(root: &ast::Expr, chain: &[ast::AccessExpr]) -> Option<ast::Expr> {
    let at = chain
        .iter()
        .position(|a| matches!(a, ast::AccessExpr::Dot(ast::Expr::Function(_))))?;
    let receiver = if at == 0 {
        root.clone()
    } else {
        ast::Expr::CompoundFieldAccess {
            root: Box::new(root.clone()),
            access_chain: chain[..at].to_vec(),
        }
    };
    let ast::AccessExpr::Dot(ast::Expr::Function(f)) = &chain[at] else {
        return None;
    };
    let mut f = f.clone();
    let first = ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(receiver));
    match &mut f.args {
        ast::FunctionArguments::List(list) => list.args.insert(0, first),
        args => {
            *args = ast::FunctionArguments::List(ast::FunctionArgumentList {
                duplicate_treatment: None,
                args: vec![first],
                clauses: vec![],
            })
        }
    }
    let call = ast::Expr::Function(f);
    Some(if at + 1 == chain.len() {
        call
    } else {
        ast::Expr::CompoundFieldAccess {
            root: Box::new(call),
            access_chain: chain[at + 1..].to_vec(),
        }
    })
}
