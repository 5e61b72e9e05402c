//! DELETE and UPDATE. Each is bound as a query over the target table that yields the
//! row ids of the rows to change (and, for UPDATE, their new values): the scan of the
//! target reads one more column than the table has, the row id, as a column `rowid`
//! of the target. `DELETE ... USING` and `UPDATE ... FROM` join further tables; WHERE
//! filters; subqueries work as anywhere else. The facade runs the query and changes
//! the rows ([`BoundStatement::Delete`], [`BoundStatement::Update`]).

use super::expr::{bool_expr, cast_expr, ident_name, ExprCtx};
use super::from::{apply_alias, cross};
use super::scope::Scope;
use super::{Binder, BoundStatement};
use crate::plan::{Expr, Field, LogicalPlan};
use sqlparser::ast;
use stride_common::{DataType, Error, Result};

impl Binder<'_> {
    pub(super) fn bind_delete(&mut self, d: &ast::Delete) -> Result<BoundStatement> {
        if !d.tables.is_empty() || !d.order_by.is_empty() || d.limit.is_some() {
            return Err(Error::not_supported(
                "DELETE with ORDER BY, LIMIT or several target tables is not supported yet",
            ));
        }
        let from = match &d.from {
            ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => f,
        };
        let [target] = from.as_slice() else {
            return Err(Error::not_supported(
                "DELETE FROM takes one table; name the others in USING",
            ));
        };
        let (table_id, schema, plan, n) = self.bind_target(target, "DELETE FROM")?;
        let name = schema.name.clone();
        let target: Vec<Field> = plan.schema()[..n].to_vec();
        let (plan, _scope) =
            self.join_and_filter(plan, d.using.as_deref(), d.selection.as_ref())?;
        let mut exprs = vec![Expr::column(n, DataType::BigInt, "rowid")];
        let mut fields = vec![Field::new("rowid", DataType::BigInt)];
        let returning = match &d.returning {
            Some(items) => {
                for (i, f) in target.iter().enumerate() {
                    exprs.push(Expr::column(i, f.ty.clone(), f.name.clone()));
                    fields.push(Field::new(f.name.clone(), f.ty.clone()));
                }
                Some(self.bind_returning(items, target)?)
            }
            None => None,
        };
        let plan = LogicalPlan::Project {
            input: Box::new(plan),
            exprs,
            schema: fields,
        };
        Ok(BoundStatement::Delete {
            table_id,
            table: name,
            plan,
            returning,
        })
    }

    /// `TRUNCATE [TABLE] t`: every row deleted, as `DELETE FROM t` (so it is logged,
    /// transactional and can be rolled back, as in PostgreSQL).
    pub(super) fn bind_truncate(&mut self, t: &ast::Truncate) -> Result<BoundStatement> {
        let [target] = t.table_names.as_slice() else {
            return Err(Error::not_supported(
                "TRUNCATE of several tables at once; truncate one at a time",
            ));
        };
        if t.if_exists || t.partitions.is_some() {
            return Err(Error::not_supported(
                "TRUNCATE IF EXISTS and TRUNCATE ... PARTITION are not supported",
            ));
        }
        let delete = crate::parser::parse(&format!("DELETE FROM {}", target.name))?;
        match delete.as_slice() {
            [ast::Statement::Delete(d)] => self.bind_delete(d),
            _ => Err(Error::internal("TRUNCATE did not become one DELETE")),
        }
    }

    pub(super) fn bind_update(&mut self, u: &ast::Update) -> Result<BoundStatement> {
        if u.or.is_some() || !u.order_by.is_empty() || u.limit.is_some() {
            return Err(Error::not_supported(
                "UPDATE with OR, ORDER BY or LIMIT is not supported yet",
            ));
        }
        let (table_id, schema, plan, n) = self.bind_target(&u.table, "UPDATE")?;
        let name = schema.name.clone();
        let target: Vec<Field> = plan.schema()[..n].to_vec();
        let from = match &u.from {
            Some(
                ast::UpdateTableFromKind::BeforeSet(f) | ast::UpdateTableFromKind::AfterSet(f),
            ) => Some(f.as_slice()),
            None => None,
        };
        let (plan, scope) = self.join_and_filter(plan, from, u.selection.as_ref())?;
        let mut columns = Vec::new();
        let mut exprs = vec![Expr::column(n, DataType::BigInt, "rowid")];
        let mut fields = vec![Field::new("rowid", DataType::BigInt)];
        for a in &u.assignments {
            let ast::AssignmentTarget::ColumnName(target) = &a.target else {
                return Err(Error::not_supported(
                    "UPDATE SET (a, b) = ... is not supported yet; assign each column",
                ));
            };
            let cname = match target.0.last() {
                Some(ast::ObjectNamePart::Identifier(id)) => ident_name(id),
                _ => return Err(Error::binder(format!("invalid column name {target}"))),
            };
            let idx = schema.column_index(&cname).ok_or_else(|| {
                Error::binder(format!(
                    "Table \"{name}\" does not have a column with name \"{cname}\""
                ))
            })?;
            if columns.contains(&idx) {
                return Err(Error::binder(format!(
                    "column \"{cname}\" is assigned more than once"
                )));
            }
            let column = &schema.columns[idx];
            let value = match &a.value {
                ast::Expr::Identifier(id)
                    if id.quote_style.is_none() && id.value.eq_ignore_ascii_case("default") =>
                {
                    self.column_default(column)?
                }
                e => {
                    let mut ctx = ExprCtx::new(&scope, "UPDATE SET");
                    self.bind_expr(e, &mut ctx)?
                }
            };
            exprs.push(cast_expr(value, &column.ty)?);
            fields.push(Field::new(column.name.clone(), column.ty.clone()));
            columns.push(idx);
        }
        let returning = match &u.returning {
            Some(items) => {
                // Each row as it will be: assigned columns their new values.
                let assigned = exprs[1..].to_vec();
                for (i, f) in target.iter().enumerate() {
                    exprs.push(match columns.iter().position(|&c| c == i) {
                        Some(k) => assigned[k].clone(),
                        None => Expr::column(i, f.ty.clone(), f.name.clone()),
                    });
                    fields.push(Field::new(f.name.clone(), f.ty.clone()));
                }
                Some(self.bind_returning(items, target)?)
            }
            None => None,
        };
        let plan = if schema.checks.is_empty() {
            LogicalPlan::Project {
                input: Box::new(plan),
                exprs,
                schema: fields,
            }
        } else {
            self.checked_update(&schema, plan, exprs, fields, &columns)?
        };
        Ok(BoundStatement::Update {
            table_id,
            table: name,
            columns,
            plan,
            returning,
        })
    }

    /// UPDATE's projection (`exprs`: the row id, the assigned values, then any
    /// RETURNING image) over `input` (the target's `n` columns first), with the table's
    /// CHECK constraints guarding the first assigned value: they read each row as it
    /// will be, its assigned `columns` new, computed once below them.
    fn checked_update(
        &mut self,
        schema: &stride_common::TableSchema,
        input: LogicalPlan,
        mut exprs: Vec<Expr>,
        fields: Vec<Field>,
        columns: &[usize],
    ) -> Result<LogicalPlan> {
        let width = exprs.len();
        let mut inner_fields = fields.clone();
        // The old values of the columns not assigned, after what the statement yields.
        for (i, c) in schema.columns.iter().enumerate() {
            exprs.push(Expr::column(i, c.ty.clone(), c.name.clone()));
            inner_fields.push(Field::new(c.name.clone(), c.ty.clone()));
        }
        let inner = LogicalPlan::Project {
            input: Box::new(input),
            exprs,
            schema: inner_fields,
        };
        let mut branches = self.check_branches(schema)?;
        let new_value = |i: usize| match columns.iter().position(|&c| c == i) {
            Some(k) => 1 + k,
            None => width + i,
        };
        for (cond, _) in &mut branches {
            cond.remap_columns(&new_value);
        }
        let mut out: Vec<Expr> = fields
            .iter()
            .enumerate()
            .map(|(i, f)| Expr::column(i, f.ty.clone(), f.name.clone()))
            .collect();
        out[1] = super::checks::guard(branches, out[1].clone());
        Ok(LogicalPlan::Project {
            input: Box::new(inner),
            exprs: out,
            schema: fields,
        })
    }

    /// The scan of the table a DELETE or UPDATE changes, with its row id as a last
    /// column `rowid`: (table id, schema, plan, position of the row id).
    fn bind_target(
        &mut self,
        target: &ast::TableWithJoins,
        statement: &str,
    ) -> Result<(
        u64,
        std::sync::Arc<stride_common::TableSchema>,
        LogicalPlan,
        usize,
    )> {
        let ast::TableFactor::Table {
            name,
            alias,
            args: None,
            ..
        } = &target.relation
        else {
            return Err(Error::not_supported(format!(
                "{statement} takes a table name, not {}",
                target.relation
            )));
        };
        if !target.joins.is_empty() {
            return Err(Error::not_supported(format!(
                "{statement} takes one table; join the others in {}",
                if statement == "UPDATE" {
                    "FROM"
                } else {
                    "USING"
                }
            )));
        }
        let (catalog, tname) = self.target(name)?;
        let Some((table_id, schema)) = catalog.table(&tname) else {
            if catalog.view(&tname).is_some() {
                return Err(Error::binder(format!(
                    "\"{tname}\" is a view; {statement} changes tables only"
                )));
            }
            return Err(Error::catalog(format!(
                "Table with name {tname} does not exist!"
            )));
        };
        let n = schema.columns.len();
        if schema.column_index("rowid").is_some() {
            return Err(Error::not_supported(format!(
                "{statement} on a table with a column named rowid is not supported yet"
            )));
        }
        let mut fields: Vec<Field> = schema.columns.iter().map(Field::of_column).collect();
        fields.push(Field::new("rowid", DataType::BigInt));
        let plan = LogicalPlan::Scan {
            columns: (0..=n).collect(),
            table: schema.clone(),
            table_id,
            schema: fields,
            rows: catalog.row_count(table_id),
        };
        let qual = alias
            .as_ref()
            .map_or(schema.name.clone(), |a| ident_name(&a.name));
        let (plan, _) = apply_alias(plan, &qual, alias.as_ref())?;
        Ok((table_id, schema, plan, n))
    }

    /// The target joined with the tables of USING / FROM, filtered by WHERE.
    fn join_and_filter(
        &mut self,
        target: LogicalPlan,
        others: Option<&[ast::TableWithJoins]>,
        selection: Option<&ast::Expr>,
    ) -> Result<(LogicalPlan, Scope)> {
        let scope = Scope::new(target.schema().to_vec());
        let (mut plan, scope) = match others {
            Some(list) if !list.is_empty() => {
                let more = self.bind_from(list)?;
                cross((target, scope), more)
            }
            _ => (target, scope),
        };
        if let Some(w) = selection {
            let mut ctx = ExprCtx::new(&scope, "WHERE");
            let predicate = bool_expr(self.bind_expr(w, &mut ctx)?, "WHERE clause")?;
            plan = LogicalPlan::Filter {
                input: Box::new(plan),
                predicate,
            };
        }
        Ok((plan, scope))
    }
}
