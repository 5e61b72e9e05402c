//! CHECK constraints. CREATE TABLE binds each once over the table's columns, to report
//! its errors there, and keeps its SQL text with the columns named bare
//! ([`CheckConstraint`]), so that renaming the table leaves it whole (a column it
//! names cannot be dropped, renamed or retyped: `refuse_checked`).
//! Every statement that writes rows binds the table's checks again over the rows it
//! writes: INSERT (and so COPY FROM) and UPDATE guard the first column they write
//! with them ([`Binder::guard`]), ON CONFLICT DO UPDATE hands them to the facade
//! with the update. A row that makes a check FALSE fails the statement with a
//! Constraint Error before anything is written; NULL passes, as in SQL.

use super::expr::{bool_expr, ident_name, ExprCtx};
use super::scope::Scope;
use super::Binder;
use crate::plan::{Expr, Field, LogicalPlan};
use sqlparser::ast;
use std::ops::ControlFlow;
use stride_common::{CheckConstraint, ColumnSchema, DataType, Error, Result, TableSchema};
use stride_functions::scalar::{BoundFunction, ScalarFunction};

/// A table's checks bound over a row of its columns: each condition with what
/// raises its error.
pub type CheckBranches = Vec<(Expr, Expr)>;

impl Binder<'_> {
    /// `CHECK (expr)` of table `table` with `columns`: its qualified column names made
    /// bare, bound once to report what is wrong with it.
    pub(super) fn bind_check(
        &mut self,
        table: &str,
        columns: &[ColumnSchema],
        c: &ast::CheckConstraint,
        column_name: Option<&ast::Ident>,
    ) -> Result<CheckConstraint> {
        if c.no_inherit || c.enforced == Some(false) {
            return Err(Error::not_supported(
                "CHECK constraints with NO INHERIT or NOT ENFORCED are not supported",
            ));
        }
        let mut expr = (*c.expr).clone();
        bare_columns(&mut expr, table, columns)?;
        let check = CheckConstraint {
            name: c.name.as_ref().or(column_name).map(ident_name),
            expr: expr.to_string(),
        };
        self.bind_check_expr(table, columns, &check)?;
        Ok(check)
    }

    /// The condition of `check` over the columns of `table` (positions 0..n).
    fn bind_check_expr(
        &mut self,
        table: &str,
        columns: &[ColumnSchema],
        check: &CheckConstraint,
    ) -> Result<Expr> {
        let e = crate::parser::parse_expr(&check.expr)?;
        let fields = columns
            .iter()
            .map(|c| Field::of_column(c).with_qualifier(Some(table.to_string())))
            .collect();
        let scope = Scope::new(fields);
        let mut ctx = ExprCtx::new(&scope, "CHECK constraints");
        let bound = self.bind_expr(&e, &mut ctx).map_err(|e| {
            if e.message.contains("not found") || e.message.contains("does not have") {
                Error::binder(format!(
                    "{}: a CHECK constraint may only name the columns of table \"{table}\"",
                    e.message
                ))
            } else {
                e
            }
        })?;
        if bound.has_subquery() {
            return Err(Error::binder(
                "subqueries are not allowed in CHECK constraints",
            ));
        }
        bool_expr(bound, "a CHECK constraint")
    }

    /// `schema`'s checks bound over a row of its columns (positions 0..n): each
    /// condition, and an expression that raises its Constraint Error.
    pub(super) fn check_branches(&mut self, schema: &TableSchema) -> Result<CheckBranches> {
        let mut branches = Vec::with_capacity(schema.checks.len());
        for check in &schema.checks {
            let cond = self.bind_check_expr(&schema.name, &schema.columns, check)?;
            let name = match &check.name {
                Some(n) => format!(" \"{n}\""),
                None => String::new(),
            };
            let message = format!(
                "CHECK constraint{name} failed on table \"{}\" with expression CHECK ({})",
                schema.name, check.expr
            );
            let raise = Expr::Function {
                func: BoundFunction::new(
                    ScalarFunction::CheckFailed,
                    vec![DataType::Varchar],
                    DataType::Null,
                ),
                args: vec![Expr::literal(stride_common::ScalarValue::Varchar(message))],
            };
            branches.push((Expr::Not(Box::new(cond)), raise));
        }
        Ok(branches)
    }
}

/// `plan`'s rows (a table's columns, in order) with the checks of `branches` guarding
/// the first column. The checks read the row as `plan` computed it, in a projection
/// of their own: a DEFAULT such as `nextval('s')` or a `random()` is drawn once.
pub(crate) fn guarded_rows(plan: LogicalPlan, branches: CheckBranches) -> LogicalPlan {
    if branches.is_empty() {
        return plan;
    }
    let fields = plan.schema().to_vec();
    let mut row: Vec<Expr> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| Expr::column(i, f.ty.clone(), f.name.clone()))
        .collect();
    row[0] = guard(branches, row[0].clone());
    LogicalPlan::Project {
        input: Box::new(plan),
        exprs: row,
        schema: fields,
    }
}

/// `value` for rows that pass every check of `branches`; a row that makes one FALSE
/// raises its error instead. Only the rows that fail evaluate the raise.
pub(super) fn guard(branches: CheckBranches, value: Expr) -> Expr {
    if branches.is_empty() {
        return value;
    }
    let ty = value.data_type();
    Expr::Case {
        branches: branches
            .into_iter()
            .map(|(cond, raise)| {
                let raise = Expr::Cast {
                    expr: Box::new(raise),
                    to: ty.clone(),
                    try_cast: false,
                };
                (cond, raise)
            })
            .collect(),
        else_expr: Box::new(value),
        ty,
    }
}

/// Fails ALTER TABLE's `action` ("drop", "rename", ...) of `column` when a CHECK
/// constraint of `schema` names it, as DuckDB does for DROP and ALTER TYPE: the
/// check would no longer bind (or, for a new type, hold) as it was declared.
pub(super) fn refuse_checked(schema: &TableSchema, column: &str, action: &str) -> Result<()> {
    for check in &schema.checks {
        let e = crate::parser::parse_expr(&check.expr)?;
        let mut names = false;
        let _ = ast::visit_expressions(&e, |x| {
            let first = match x {
                ast::Expr::Identifier(i) => Some(i),
                ast::Expr::CompoundIdentifier(parts) => parts.first(),
                _ => None,
            };
            if first.is_some_and(|i| ident_name(i).eq_ignore_ascii_case(column)) {
                names = true;
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        });
        if names {
            return Err(Error::catalog(format!(
                "Cannot {action} column \"{column}\" of table \"{}\" because the CHECK constraint CHECK ({}) depends on it",
                schema.name, check.expr
            )));
        }
    }
    Ok(())
}

/// Makes `t.c` in a check of table `t` the bare `c`; a qualifier naming another table
/// is an error (`s.f` of a STRUCT column `s` stays).
fn bare_columns(e: &mut ast::Expr, table: &str, columns: &[ColumnSchema]) -> Result<()> {
    let mut bad = None;
    let is_column = |i: &ast::Ident| {
        let name = ident_name(i);
        columns.iter().any(|c| c.name.eq_ignore_ascii_case(&name))
    };
    let _ = ast::visit_expressions_mut(e, |x| {
        if let ast::Expr::CompoundIdentifier(parts) = x {
            match parts.as_slice() {
                [first, ..] if is_column(first) => {}
                [t, rest @ ..] if ident_name(t).eq_ignore_ascii_case(table) => {
                    *x = match rest {
                        [c] => ast::Expr::Identifier(c.clone()),
                        _ => ast::Expr::CompoundIdentifier(rest.to_vec()),
                    };
                }
                _ => {
                    bad = Some(x.to_string());
                    return ControlFlow::Break(());
                }
            }
        }
        ControlFlow::Continue(())
    });
    match bad {
        Some(name) => Err(Error::binder(format!(
            "a CHECK constraint may only name the columns of table \"{table}\", not {name}"
        ))),
        None => Ok(()),
    }
}
