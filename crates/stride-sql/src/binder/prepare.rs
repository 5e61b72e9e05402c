//! PREPARE name AS statement, EXECUTE name(args), DEALLOCATE [PREPARE] name: DuckDB's
//! (and PostgreSQL's) SQL-level prepared statements.
//!
//! Where it sits: binding (step 3). A prepared statement belongs to the connection
//! (`crates/stride/src/connection.rs` keeps them by lower-case name and hands them to
//! every binder it makes, see [`Binder::with_prepared`]). PREPARE binds its statement
//! once with every parameter NULL, as a client's Parse message is described, so an
//! unknown table is refused at once, and binds to [`BoundStatement::Prepare`], which
//! the connection stores. EXECUTE evaluates its arguments (constants only), checks them
//! against the parameters the statement uses, and binds the stored statement with
//! them as `$1`, `$2`, ...: each parameter takes its argument's type, as in DuckDB
//! (`EXECUTE p(1.5)` binds `$1` as DECIMAL(2,1)). What EXECUTE binds to is the stored
//! statement's own bound form, so it runs as if it had been written out.

use super::expr::{ident_name, ExprCtx};
use super::scope::Scope;
use super::{Binder, BoundStatement};
use sqlparser::ast;
use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::sync::Arc;
use stride_common::{Error, Result, ScalarValue};

/// The prepared statements of a connection, by lower-case name.
pub type PreparedStatements = std::collections::HashMap<String, Arc<ast::Statement>>;

impl Binder<'_> {
    pub(super) fn bind_prepare(
        &mut self,
        name: &ast::Ident,
        data_types: &[ast::DataType],
        statement: &ast::Statement,
    ) -> Result<BoundStatement> {
        if !data_types.is_empty() {
            return Err(Error::not_supported(
                "TypeList for prepared statement has not been implemented.",
            ));
        }
        use ast::Statement as S;
        let kind = match statement {
            S::Prepare { .. } => Some("PREPARE_STATEMENT"),
            S::Execute { .. } => Some("EXECUTE_STATEMENT"),
            S::Deallocate { .. } => Some("DEALLOCATE_STATEMENT"),
            _ => None,
        };
        if let Some(kind) = kind {
            return Err(Error::parse(format!(
                "{kind} is not a preparable statement"
            )));
        }
        // Bound once with every parameter NULL, to refuse what cannot bind now.
        let count = parameter_numbers(statement).last().copied().unwrap_or(0);
        let params = std::mem::replace(&mut self.params, vec![ScalarValue::Null; count]);
        let checked = self.bind_statement(statement);
        self.params = params;
        checked?;
        Ok(BoundStatement::Prepare {
            name: ident_name(name).to_ascii_lowercase(),
            statement: Arc::new(statement.clone()),
        })
    }

    pub(super) fn bind_execute(
        &mut self,
        name: &ast::ObjectName,
        arguments: &[ast::Expr],
    ) -> Result<BoundStatement> {
        let key = name.to_string().to_ascii_lowercase();
        let key = key.trim_matches('"').to_string();
        let Some(statement) = self.prepared.get(&key).cloned() else {
            return Err(Error::binder(format!(
                "Prepared statement \"{key}\" does not exist"
            )));
        };
        let mut values = Vec::with_capacity(arguments.len());
        for a in arguments {
            values.push(self.execute_argument(a)?);
        }
        let expected = parameter_numbers(&statement);
        let excess: Vec<String> = (1..=values.len())
            .filter(|n| !expected.contains(n))
            .map(|n| n.to_string())
            .collect();
        if !excess.is_empty() {
            return Err(Error::invalid_input(format!(
                "Parameter argument/count mismatch, identifiers of the excess parameters: {}",
                excess.join(", ")
            )));
        }
        let missing: Vec<String> = expected
            .iter()
            .filter(|&&n| n > values.len())
            .map(|n| n.to_string())
            .collect();
        if !missing.is_empty() {
            return Err(Error::invalid_input(format!(
                "Values were not provided for the following parameters: {}",
                missing.join(", ")
            )));
        }
        let params = std::mem::replace(&mut self.params, values);
        let bound = self.bind_statement(&statement);
        self.params = params;
        bound
    }

    /// An EXECUTE argument's value: a constant expression (a literal, a cast one,
    /// arithmetic on them), never a column or a subquery.
    fn execute_argument(&mut self, a: &ast::Expr) -> Result<ScalarValue> {
        let not_constant = || {
            Error::invalid_input(
                "Only scalar parameters, named parameters or NULL supported for EXECUTE",
            )
        };
        if matches!(
            a,
            ast::Expr::Subquery(_) | ast::Expr::Exists { .. } | ast::Expr::InSubquery { .. }
        ) {
            return Err(not_constant());
        }
        let scope = Scope::default();
        let mut ctx = ExprCtx::new(&scope, "EXECUTE");
        let bound = self.bind_expr(a, &mut ctx).map_err(|e| {
            if e.kind == stride_common::ErrorKind::Binder {
                not_constant()
            } else {
                e
            }
        })?;
        super::fold_constant(&bound)?.ok_or_else(not_constant)
    }
}

/// The numbers of the `$n` parameters `statement` uses, in order, each once.
pub(crate) fn parameter_numbers(statement: &ast::Statement) -> Vec<usize> {
    let mut numbers = BTreeSet::new();
    let _ = ast::visit_expressions(statement, |e: &ast::Expr| {
        if let Some(i) = super::parameters::placeholder_index(e) {
            numbers.insert(i + 1);
        }
        ControlFlow::<()>::Continue(())
    });
    numbers.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_parameters() {
        let s = crate::parser::parse("SELECT $1 + $3, ? FROM t WHERE a = $1").unwrap();
        assert_eq!(parameter_numbers(&s[0]), vec![1, 3]);
        let s = crate::parser::parse("SELECT ?, ? + 1").unwrap();
        assert_eq!(parameter_numbers(&s[0]), vec![1, 2]);
        let s = crate::parser::parse("INSERT INTO t VALUES ($2)").unwrap();
        assert_eq!(parameter_numbers(&s[0]), vec![2]);
    }
}
