//! Session variables (DuckDB's): `SET VARIABLE name = expr` binds to a one-row query
//! of the expression, which the facade runs and keeps the value of on the connection;
//! `RESET VARIABLE name` forgets it; `getvariable('name')` reads the value when the
//! statement is bound, as a constant of the value's type (NULL when the variable is
//! not set). Names are compared without case.

use super::expr::ExprCtx;
use super::fold::fold_constant;
use super::scope::Scope;
use super::{Binder, BoundStatement};
use crate::plan::{Expr, Field, LogicalPlan};
use sqlparser::ast;
use std::collections::HashMap;
use stride_common::{DataType, Error, Result, ScalarValue};

/// A connection's session variables, by lower-case name: each value with its type
/// (a NULL keeps the type its expression had).
pub type SessionVariables = HashMap<String, (ScalarValue, DataType)>;

impl Binder<'_> {
    /// `SET VARIABLE name = value` (`Some`) or `RESET VARIABLE name` (`None`).
    pub(super) fn bind_variable(
        &mut self,
        name: String,
        value: Option<&ast::Expr>,
    ) -> Result<BoundStatement> {
        let name = name.to_lowercase();
        let Some(value) = value else {
            return Ok(BoundStatement::ResetVariable { name });
        };
        let expr = match value {
            // a bare word is a value, as in SET
            ast::Expr::Identifier(id) => Expr::literal(ScalarValue::Varchar(id.value.clone())),
            e => {
                let scope = Scope::default();
                let mut ctx = ExprCtx::new(&scope, "SET VARIABLE");
                self.bind_expr(e, &mut ctx)?
            }
        };
        let ty = expr.data_type();
        let plan = LogicalPlan::Project {
            input: Box::new(LogicalPlan::Values {
                rows: vec![vec![]],
                schema: vec![],
            }),
            exprs: vec![expr],
            schema: vec![Field::new(name.clone(), ty)],
        };
        Ok(BoundStatement::SetVariable { name, plan })
    }

    /// `getvariable(name)`: the variable's value as a constant, NULL when unset.
    pub(super) fn getvariable(&self, args: &[Expr]) -> Result<Expr> {
        let [arg] = args else {
            return Err(no_match(args));
        };
        if !matches!(arg.data_type(), DataType::Varchar | DataType::Null) {
            return Err(no_match(args));
        }
        match fold_constant(arg)? {
            Some(ScalarValue::Varchar(name)) => Ok(self
                .variables
                .get(&name.to_lowercase())
                .map_or(Expr::literal(ScalarValue::Null), |(value, ty)| {
                    Expr::Literal {
                        value: value.clone(),
                        ty: ty.clone(),
                    }
                })),
            Some(_) => Ok(Expr::literal(ScalarValue::Null)),
            None => Err(Error::binder(
                "The \"variable_name\" argument in function \"getvariable\" must be a constant expression",
            )),
        }
    }
}

fn no_match(args: &[Expr]) -> Error {
    let types: Vec<String> = args.iter().map(|a| a.data_type().to_string()).collect();
    Error::binder(format!(
        "No function matches 'getvariable({})'. You might need to add explicit type casts.",
        types.join(", ")
    ))
}
