//! `RETURNING` of INSERT, UPDATE and DELETE: a select list over the rows the statement
//! changed, as PostgreSQL and DuckDB have it. It is bound against the target table's
//! columns (under the table's name or alias); the facade evaluates it over the changed
//! rows' images once the change is committed: the new rows of INSERT and UPDATE, the
//! old rows of DELETE.

use super::expr::{ident_name, ExprCtx};
use super::scope::Scope;
use super::Binder;
use crate::plan::{Expr, Field};
use sqlparser::ast;
use stride_common::{Error, Result};

/// A bound RETURNING list: expressions over the table's columns (positions 0..n).
#[derive(Debug, Clone)]
pub struct Returning {
    pub exprs: Vec<Expr>,
    pub schema: Vec<Field>,
}

impl Binder<'_> {
    /// Binds `items` over `columns`, the target table's columns in order.
    pub(super) fn bind_returning(
        &mut self,
        items: &[ast::SelectItem],
        columns: Vec<Field>,
    ) -> Result<Returning> {
        let scope = Scope::new(columns);
        let mut exprs = Vec::new();
        let mut schema = Vec::new();
        let all = |exprs: &mut Vec<Expr>, schema: &mut Vec<Field>| {
            for (i, f) in scope.fields.iter().enumerate() {
                exprs.push(scope.column(i));
                schema.push(Field::new(f.name.clone(), f.ty.clone()));
            }
        };
        for item in items {
            let (e, name) = match item {
                ast::SelectItem::Wildcard(_) => {
                    all(&mut exprs, &mut schema);
                    continue;
                }
                ast::SelectItem::QualifiedWildcard(kind, _) => {
                    let q = super::select::wildcard_qualifier(kind)?;
                    if !scope.has_qualifier(&q) {
                        return Err(Error::binder(format!(
                            "Referenced table \"{q}\" not found in RETURNING"
                        )));
                    }
                    all(&mut exprs, &mut schema);
                    continue;
                }
                ast::SelectItem::UnnamedExpr(e) => (e, None),
                ast::SelectItem::ExprWithAlias { expr, alias } => (expr, Some(ident_name(alias))),
                ast::SelectItem::ExprWithAliases { .. } => {
                    return Err(Error::not_supported("multiple aliases for one expression"))
                }
            };
            let mut ctx = ExprCtx::new(&scope, "RETURNING");
            let expr = self.bind_expr(e, &mut ctx)?;
            if expr.any(&mut |x| matches!(x, Expr::Subquery(_))) {
                return Err(Error::not_supported(
                    "subqueries in RETURNING are not supported yet; select from the table after the statement",
                ));
            }
            let name = name.unwrap_or_else(|| match (&expr, e) {
                (
                    Expr::Column { name, .. },
                    ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_),
                ) => name.clone(),
                _ => e.to_string(),
            });
            schema.push(Field::new(name, expr.data_type()));
            exprs.push(expr);
        }
        Ok(Returning { exprs, schema })
    }
}
