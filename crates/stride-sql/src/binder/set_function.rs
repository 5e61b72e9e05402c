//! Set-returning functions in a select list: `SELECT a, unnest(l) FROM t` and
//! `SELECT unnest(l), generate_subscripts(l, 1)`, as PostgreSQL clients write them
//! (pgcli's completion queries do), and `regexp_split_to_table(s, pattern)` (the
//! pieces of a string, one per row).
//!
//! Where it sits: binding a SELECT (`select.rs`), between WHERE and the select list.
//! The calls are found in the select list's syntax first; their list arguments are
//! bound over the FROM clause and become one `LogicalPlan::Unnest` over the filtered
//! FROM plan, which appends a column per call. The select list is then bound as
//! usual, each call reading its column. Several calls in one list advance together,
//! the shorter lists padded with NULL, as in PostgreSQL 10 and later. Elsewhere
//! (WHERE, GROUP BY, with aggregates) they are refused with an error saying where
//! they are allowed.

use super::expr::{cast_expr, ident_name, ExprCtx};
use super::fold::fold_constant;
use super::scope::Scope;
use super::Binder;
use crate::plan::{Expr, Field, LogicalPlan, SetFunction};
use sqlparser::ast;
use stride_common::{DataType, Error, Result, ScalarValue};

/// Names of the set-returning functions a select list may call.
pub(super) fn is_set_function(name: &str) -> bool {
    matches!(
        name,
        "unnest" | "generate_subscripts" | "regexp_split_to_table"
    )
}

fn function_name(f: &ast::Function) -> Option<String> {
    match f.name.0.last()? {
        ast::ObjectNamePart::Identifier(id) => Some(ident_name(id)),
        _ => None,
    }
}

fn arguments(f: &ast::Function) -> Vec<&ast::Expr> {
    match &f.args {
        ast::FunctionArguments::List(l) => l
            .args
            .iter()
            .filter_map(|a| match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => Some(e),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The set-returning calls in a select list, in order (not looking into subqueries,
/// which bind their own).
pub(super) fn find(items: &[ast::SelectItem]) -> Vec<&ast::Function> {
    let mut found = Vec::new();
    for item in items {
        match item {
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                walk(e, &mut found)
            }
            _ => {}
        }
    }
    found
}

fn walk<'a>(e: &'a ast::Expr, found: &mut Vec<&'a ast::Function>) {
    use ast::Expr as A;
    match e {
        A::Function(f) => {
            if function_name(f).is_some_and(|n| is_set_function(&n)) {
                if !found.contains(&f) {
                    found.push(f);
                }
            } else {
                for a in arguments(f) {
                    walk(a, found);
                }
            }
        }
        A::Nested(x) | A::Cast { expr: x, .. } | A::UnaryOp { expr: x, .. } => walk(x, found),
        A::BinaryOp { left, right, .. } => {
            walk(left, found);
            walk(right, found);
        }
        A::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            for x in operand.iter().chain(else_result.iter()) {
                walk(x, found);
            }
            for c in conditions {
                walk(&c.condition, found);
                walk(&c.result, found);
            }
        }
        _ => {}
    }
}

impl Binder<'_> {
    /// Binds the calls over the FROM plan: the plan with their columns appended, and
    /// each call with the column that holds its values.
    pub(super) fn bind_set_functions(
        &mut self,
        calls: &[&ast::Function],
        scope: &Scope,
        plan: LogicalPlan,
    ) -> Result<(LogicalPlan, Vec<(ast::Function, Expr)>)> {
        let mut schema = plan.schema().to_vec();
        let passed = (0..schema.len()).collect();
        let mut lists = Vec::new();
        let mut columns = Vec::new();
        for f in calls {
            let name = function_name(f).unwrap_or_default();
            let args = arguments(f);
            // `unnest(l, recursive := true)`, `max_depth := n`: refused, not ignored.
            if let ast::FunctionArguments::List(l) = &f.args {
                if l.args.len() != args.len() {
                    return Err(Error::not_supported(format!(
                        "{name}'s named parameters (such as recursive := true or max_depth := n) are not supported yet; flatten nested lists with flatten(l)"
                    )));
                }
            }
            let mut ctx = ExprCtx::new(scope, "set-returning function arguments");
            let (function, ty) = match (name.as_str(), args.as_slice()) {
                ("unnest", [l]) => {
                    let (list, elem) = self.list_argument(l, &mut ctx, &name)?;
                    (SetFunction::Elements(list), elem)
                }
                // DuckDB's macro: unnest(string_split_regex(text, pattern))
                ("regexp_split_to_table", [text, pattern]) => {
                    let text = self.bind_expr(text, &mut ctx)?;
                    let pattern = self.bind_expr(pattern, &mut ctx)?;
                    let list = super::expr::call("string_split_regex", vec![text, pattern])?;
                    (SetFunction::Elements(list), DataType::Varchar)
                }
                ("generate_subscripts", [l, dim]) => {
                    let (mut list, elem) = self.list_argument(l, &mut ctx, &name)?;
                    // Lists have one dimension: other dimensions have no subscripts.
                    let d = fold_constant(&self.bind_expr(dim, &mut ctx)?)?.ok_or_else(|| {
                        Error::binder("generate_subscripts: the dimension must be a constant")
                    })?;
                    if d.as_i64() != Some(1) {
                        list = Expr::Literal {
                            value: ScalarValue::Null,
                            ty: DataType::List(Box::new(elem)),
                        };
                    }
                    (SetFunction::Subscripts(list), DataType::Integer)
                }
                _ => {
                    return Err(Error::binder(format!(
                        "{name}() takes {} in a select list, got {} arguments",
                        match name.as_str() {
                            "unnest" => "one list",
                            "regexp_split_to_table" => "a string and a pattern",
                            _ => "a list and a dimension",
                        },
                        args.len()
                    )))
                }
            };
            let index = schema.len();
            schema.push(Field::new(name.clone(), ty.clone()));
            lists.push(function);
            columns.push(((*f).clone(), Expr::column(index, ty, name)));
        }
        let plan = LogicalPlan::Unnest {
            input: Box::new(plan),
            passed,
            lists,
            schema,
        };
        Ok((plan, columns))
    }

    fn list_argument(
        &mut self,
        e: &ast::Expr,
        ctx: &mut ExprCtx,
        name: &str,
    ) -> Result<(Expr, DataType)> {
        let list = self.bind_expr(e, ctx)?;
        match list.data_type() {
            DataType::List(elem) => Ok((list, *elem)),
            DataType::Array(elem, _) => {
                let as_list = cast_expr(list, &DataType::List(elem.clone()))?;
                Ok((as_list, *elem))
            }
            DataType::Null => {
                let ty = DataType::List(Box::new(DataType::Varchar));
                Ok((cast_expr(list, &ty)?, DataType::Varchar))
            }
            other => Err(Error::binder(format!(
                "{name}() needs a list (array) argument, got {other}"
            ))),
        }
    }

    /// The column holding a set-returning call's values in the select list being
    /// bound; an error where such calls are not allowed.
    pub(super) fn set_function_column(&self, f: &ast::Function, name: &str) -> Result<Expr> {
        self.set_functions
            .last()
            .and_then(|frame| frame.iter().find(|(g, _)| g == f))
            .map(|(_, e)| e.clone())
            .ok_or_else(|| {
                Error::binder(format!(
                    "set-returning function {name}() is only allowed in a select list (without GROUP BY or aggregates) or in FROM"
                ))
            })
    }
}
