//! INSERT INTO t [(columns)] VALUES ... | SELECT ...: the source query is bound, its
//! columns matched to the named target columns (or with DuckDB's `INSERT INTO t BY
//! NAME SELECT ...`, to the columns of their names; see `parser.rs` for how BY NAME
//! reaches here), omitted columns (and `DEFAULT` in a VALUES row, and `DEFAULT
//! VALUES`) filled with their DEFAULT (or NULL; a computed DEFAULT such as
//! `nextval('s')` is bound here from its SQL text), and every value cast to its column's type (a plain VALUES list
//! casts each value straight to its column's type, without unifying the list first). `ON CONFLICT [(key)]
//! DO NOTHING | DO UPDATE SET ... [WHERE ...]` (and DuckDB's and SQLite's `INSERT OR
//! IGNORE` / `INSERT OR REPLACE`) says what happens to a row whose unique key is
//! taken: bound here as an [`OnConflict`], carried out by the facade.

use super::expr::{bool_expr, cast_expr, ident_name, negate_literal, ExprCtx};
use super::scope::Scope;
use super::types::number_literal;
use super::{Binder, BoundStatement};
use crate::literal_insert::{Literal, LiteralInsert};
use crate::plan::{
    Expr, Field, LogicalPlan, RegisteredData, RegisteredRelation, RegisteredRows, TableFunction,
};
use sqlparser::ast;
use std::sync::Arc;
use stride_common::{
    ColumnSchema, DataChunk, DataType, Error, Result, ScalarValue, TableSchema, Vector,
};
use stride_functions::cast_typed_scalar;

/// `INSERT INTO t BY NAME query`: the table column each of the query's columns fills,
/// matched by name (case-insensitively).
fn by_name_targets(schema: &TableSchema, fields: &[Field]) -> Result<Vec<usize>> {
    let mut targets = Vec::with_capacity(fields.len());
    for f in fields {
        let idx = schema.column_index(&f.name).ok_or_else(|| {
            let mut msg = format!(
                "Table \"{}\" does not have a column with name \"{}\"",
                schema.name, f.name
            );
            if let Some(s) =
                super::did_you_mean(&f.name, schema.columns.iter().map(|c| c.name.as_str()))
            {
                msg.push_str(&format!(". Did you mean \"{s}\"?"));
            }
            Error::binder(msg)
        })?;
        if targets.contains(&idx) {
            return Err(Error::binder(format!(
                "Duplicate column name \"{}\" in INSERT",
                f.name
            )));
        }
        targets.push(idx);
    }
    Ok(targets)
}

/// A column's default as SQL for a VALUES row: its expression, its constant, or NULL.
fn default_ast(col: &ColumnSchema) -> Result<ast::Expr> {
    let sql = match (&col.default, &col.default_expr) {
        (Some(v), _) => crate::system::snapshot::sql_literal(v),
        (None, Some(e)) => e.clone(),
        (None, None) => "NULL".to_string(),
    };
    crate::parser::parse_expr(&sql)
}

fn is_default_keyword(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Identifier(id) if id.quote_style.is_none() && id.value.eq_ignore_ascii_case("default"))
}

/// `INSERT INTO t DEFAULT VALUES`: one row of the target columns' defaults.
fn default_values(schema: &TableSchema, targets: &[usize]) -> Result<ast::Query> {
    let row = targets
        .iter()
        .map(|&t| default_ast(&schema.columns[t]))
        .collect::<Result<Vec<_>>>()?;
    values_query(vec![row])
}

/// A VALUES source with `DEFAULT` in some rows, with each replaced by its column's
/// default; `None` when there is none.
fn defaults_in_values(
    q: &ast::Query,
    schema: &TableSchema,
    targets: &[usize],
) -> Result<Option<ast::Query>> {
    let ast::SetExpr::Values(v) = q.body.as_ref() else {
        return Ok(None);
    };
    if !v
        .rows
        .iter()
        .flat_map(|r| r.content.iter())
        .any(is_default_keyword)
    {
        return Ok(None);
    }
    let mut rows = v.rows.clone();
    for row in &mut rows {
        for (e, &t) in row.content.iter_mut().zip(targets) {
            if is_default_keyword(e) {
                *e = default_ast(&schema.columns[t])?;
            }
        }
    }
    let mut q = q.clone();
    q.body = Box::new(ast::SetExpr::Values(ast::Values { rows, ..v.clone() }));
    Ok(Some(q))
}

fn values_query(rows: Vec<Vec<ast::Expr>>) -> Result<ast::Query> {
    let sql = format!(
        "VALUES {}",
        rows.iter()
            .map(|r| format!(
                "({})",
                r.iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .collect::<Vec<_>>()
            .join(", ")
    );
    match crate::parser::parse(&sql)?.pop() {
        Some(ast::Statement::Query(q)) => Ok(*q),
        _ => Err(Error::internal("VALUES did not parse as a query")),
    }
}

/// The table columns an INSERT's values fill: the `columns` it names, or all of
/// them in order.
fn insert_targets(
    name: &str,
    schema: &TableSchema,
    columns: &[ast::ObjectName],
) -> Result<Vec<usize>> {
    if columns.is_empty() {
        return Ok((0..schema.columns.len()).collect());
    }
    let mut t = Vec::with_capacity(columns.len());
    for c in columns {
        let cname = match c.0.last() {
            Some(ast::ObjectNamePart::Identifier(id)) => ident_name(id),
            _ => return Err(Error::binder(format!("invalid column name {c}"))),
        };
        let idx = schema.column_index(&cname).ok_or_else(|| {
            let mut msg = format!("Table \"{name}\" does not have a column with name \"{cname}\"");
            if let Some(s) =
                super::did_you_mean(&cname, schema.columns.iter().map(|c| c.name.as_str()))
            {
                msg.push_str(&format!(". Did you mean \"{s}\"?"));
            }
            Error::binder(msg)
        })?;
        if t.contains(&idx) {
            return Err(Error::binder(format!(
                "column \"{cname}\" specified more than once"
            )));
        }
        t.push(idx);
    }
    Ok(t)
}

impl Binder<'_> {
    pub(super) fn bind_insert(&mut self, ins: &ast::Insert) -> Result<BoundStatement> {
        let (catalog, name) = match &ins.table {
            ast::TableObject::TableName(n) => self.target(n)?,
            other => {
                return Err(Error::not_supported(format!(
                    "INSERT INTO {other} is not supported"
                )))
            }
        };
        let (table_id, schema) = catalog
            .table(&name)
            .ok_or_else(|| Error::catalog(format!("Table with name {name} does not exist!")))?;
        let by_name = crate::parser::is_insert_by_name(ins);
        let targets = if by_name {
            (0..schema.columns.len()).collect()
        } else {
            insert_targets(&name, &schema, &ins.columns)?
        };
        // `DEFAULT VALUES`, and `DEFAULT` in a VALUES row: the column's default.
        let owned;
        let source = match &ins.source {
            None => {
                owned = default_values(&schema, &targets)?;
                &owned
            }
            Some(q) => match defaults_in_values(q, &schema, &targets)? {
                Some(q) => {
                    owned = q;
                    &owned
                }
                None => q.as_ref(),
            },
        };
        // `VALUES ($1, $2)`: each parameter has its target column's type.
        if let ast::SetExpr::Values(v) = source.body.as_ref() {
            for row in &v.rows {
                for (e, &t) in row.iter().zip(&targets) {
                    self.hint_parameter(e, &schema.columns[t].ty);
                }
            }
        }
        let plan = match source.body.as_ref() {
            ast::SetExpr::Values(_) if by_name => {
                return Err(Error::binder(
                    "INSERT BY NAME can only be used when inserting from a SELECT statement",
                ))
            }
            ast::SetExpr::Values(v)
                if source.with.is_none()
                    && source.order_by.is_none()
                    && source.limit_clause.is_none()
                    && source.fetch.is_none() =>
            {
                let types: Vec<DataType> = targets
                    .iter()
                    .map(|&t| schema.columns[t].ty.clone())
                    .collect();
                super::select::bind_values(self, v, Some(&types))?
            }
            _ => self.bind_query(source)?,
        };
        // BY NAME: the source's columns fill the table's columns of their names.
        let targets = if by_name {
            by_name_targets(&schema, plan.schema())?
        } else {
            targets
        };
        let source = self.insert_source(&name, &schema, &targets, plan)?;
        let returning = match &ins.returning {
            Some(items) => {
                let qual = ins
                    .table_alias
                    .as_ref()
                    .map_or(schema.name.clone(), |a| ident_name(&a.alias));
                let columns = schema
                    .columns
                    .iter()
                    .map(|c| Field::of_column(c).with_qualifier(Some(qual.clone())))
                    .collect();
                Some(self.bind_returning(items, columns)?)
            }
            None => None,
        };
        let on_conflict = self.bind_on_conflict(ins, &*catalog, table_id, &schema)?;
        Ok(BoundStatement::Insert {
            table_id,
            table: schema.name.clone(),
            source,
            returning,
            on_conflict,
        })
    }

    /// `INSERT INTO t [(columns)] VALUES` rows of plain literals, recognized by
    /// [`crate::literal_insert`]: each target column's vector is filled straight from
    /// its cells, typed as the general path types literals ([`super::expr::value_literal`],
    /// [`number_literal`]) and cast as it casts them ([`cast_typed_scalar`]), so the
    /// rows are the ones `bind_insert` would make. The caller takes the general path
    /// on an error, to report it as that path does.
    pub fn bind_literal_insert(&mut self, ins: &LiteralInsert) -> Result<BoundStatement> {
        let (catalog, name) = self.target(&ins.table)?;
        let (table_id, schema) = catalog
            .table(&name)
            .ok_or_else(|| Error::catalog(format!("Table with name {name} does not exist!")))?;
        let targets = insert_targets(&name, &schema, &ins.columns)?;
        if ins.width != targets.len() {
            return Err(Error::binder(format!(
                "table {name} has {} columns but {} values were supplied",
                targets.len(),
                ins.width
            )));
        }
        let rows = ins.rows();
        let mut columns = Vec::with_capacity(ins.width);
        let mut fields = Vec::with_capacity(ins.width);
        for (c, &t) in targets.iter().enumerate() {
            let ty = &schema.columns[t].ty;
            let mut column = Vector::with_capacity(ty, rows);
            for cell in ins.cells[c..].iter().step_by(ins.width) {
                let value = match cell {
                    Literal::Null => ScalarValue::Null,
                    Literal::Bool(b) => ScalarValue::Boolean(*b),
                    Literal::String(s) => ScalarValue::Varchar(s.to_string()),
                    Literal::Number { text, negative } => {
                        let v = number_literal(text)?;
                        if *negative {
                            negate_literal(v)?
                        } else {
                            v
                        }
                    }
                };
                let from = value.data_type();
                if from == *ty || from == DataType::Null {
                    column.push(&value)?;
                } else {
                    column.push(&cast_typed_scalar(&value, &from, ty, false)?)?;
                }
            }
            columns.push(column);
            fields.push(Field::new(format!("col{c}"), ty.clone()));
        }
        let relation = RegisteredRelation {
            names: fields.iter().map(|f| f.name.clone()).collect(),
            types: fields.iter().map(|f| f.ty.clone()).collect(),
            rows: RegisteredRows::Chunks(vec![DataChunk::new(columns, rows)]),
        };
        let plan = LogicalPlan::TableFunction {
            func: TableFunction::Registered {
                data: RegisteredData(Arc::new(relation)),
                columns: (0..ins.width).collect(),
            },
            schema: fields,
        };
        let source = self.insert_source(&name, &schema, &targets, plan)?;
        Ok(BoundStatement::Insert {
            table_id,
            table: schema.name.clone(),
            source,
            returning: None,
            on_conflict: None,
        })
    }

    /// The rows an INSERT (or COPY FROM) appends: the source `plan`'s columns cast to
    /// the `targets` columns' types, every other column its DEFAULT, guarded by the
    /// table's CHECK constraints.
    pub(super) fn insert_source(
        &mut self,
        name: &str,
        schema: &TableSchema,
        targets: &[usize],
        plan: LogicalPlan,
    ) -> Result<LogicalPlan> {
        let row = self.insert_row(name, schema, targets, plan.schema())?;
        let plan = LogicalPlan::Project {
            input: Box::new(plan),
            exprs: row,
            schema: schema.columns.iter().map(Field::of_column).collect(),
        };
        let checks = self.check_branches(schema)?;
        Ok(super::checks::guarded_rows(plan, checks))
    }

    /// A table row over input rows of `input_fields` that fill the `targets`
    /// columns: each input column cast to its column's type, every other column its
    /// DEFAULT.
    pub(super) fn insert_row(
        &mut self,
        name: &str,
        schema: &TableSchema,
        targets: &[usize],
        input_fields: &[Field],
    ) -> Result<Vec<Expr>> {
        let got = input_fields.len();
        if got != targets.len() {
            return Err(Error::binder(format!(
                "table {name} has {} columns but {got} values were supplied",
                targets.len()
            )));
        }
        let mut exprs = Vec::with_capacity(schema.columns.len());
        for (ci, col) in schema.columns.iter().enumerate() {
            let e = match targets.iter().position(|&t| t == ci) {
                Some(src) => {
                    let f = &input_fields[src];
                    let e = Expr::column(src, f.ty.clone(), f.name.clone());
                    if f.ty == col.ty {
                        e
                    } else {
                        Expr::Cast {
                            expr: Box::new(e),
                            to: col.ty.clone(),
                            try_cast: false,
                        }
                    }
                }
                None => self.column_default(col)?,
            };
            exprs.push(e);
        }
        Ok(exprs)
    }

    /// [`ConflictUpdate::check`] of a table.
    fn conflict_check(&mut self, schema: &TableSchema) -> Result<Option<Expr>> {
        if schema.checks.is_empty() {
            return Ok(None);
        }
        let pass = Expr::literal(ScalarValue::Boolean(true));
        Ok(Some(super::checks::guard(
            self.check_branches(schema)?,
            pass,
        )))
    }

    fn bind_on_conflict(
        &mut self,
        ins: &ast::Insert,
        catalog: &dyn crate::catalog::Catalog,
        table_id: u64,
        schema: &TableSchema,
    ) -> Result<Option<OnConflict>> {
        let mut keys: Vec<Vec<usize>> = schema.unique_keys.clone();
        for i in catalog.indexes() {
            if i.table_id == table_id && i.unique && !keys.contains(&i.columns) {
                keys.push(i.columns);
            }
        }
        let none_error = || {
            Error::binder(format!(
                "there is no unique or primary key constraint on table \"{}\" matching the ON CONFLICT specification",
                schema.name
            ))
        };
        let qual = ins
            .table_alias
            .as_ref()
            .map_or(schema.name.clone(), |a| ident_name(&a.alias));
        let (target, action) = match (&ins.or, &ins.on) {
            (None, None) => return Ok(None),
            (Some(ast::SqliteOnConflict::Ignore), None) => (None, None),
            (Some(ast::SqliteOnConflict::Replace), None) => {
                // Every column not in the key takes the new row's value.
                let [key] = keys.as_slice() else {
                    return Err(if keys.is_empty() {
                        none_error()
                    } else {
                        Error::binder("INSERT OR REPLACE needs a table with exactly one unique key; use ON CONFLICT (columns) DO UPDATE")
                    });
                };
                let n = schema.columns.len();
                let columns: Vec<usize> = (0..n).filter(|c| !key.contains(c)).collect();
                let values = columns
                    .iter()
                    .map(|&c| Expr::column(n + c, schema.columns[c].ty.clone(), schema.columns[c].name.clone()))
                    .collect();
                return Ok(Some(OnConflict {
                    keys: vec![key.clone()],
                    update: Some(ConflictUpdate {
                        columns,
                        values,
                        filter: None,
                        check: self.conflict_check(schema)?,
                    }),
                }));
            }
            (Some(other), _) => {
                return Err(Error::not_supported(format!(
                    "INSERT OR {other} is not supported; stride has INSERT OR IGNORE and INSERT OR REPLACE"
                )))
            }
            (None, Some(ast::OnInsert::OnConflict(oc))) => (oc.conflict_target.as_ref(), Some(&oc.action)),
            (None, Some(other)) => {
                return Err(Error::not_supported(format!("{other} is not supported; use ON CONFLICT")))
            }
        };
        let chosen: Vec<Vec<usize>> = match target {
            None => keys.clone(),
            Some(ast::ConflictTarget::Columns(ids)) => {
                let mut cols = Vec::new();
                for id in ids {
                    let name = ident_name(id);
                    cols.push(schema.column_index(&name).ok_or_else(|| {
                        Error::binder(format!(
                            "Table \"{}\" does not have a column with name \"{name}\"",
                            schema.name
                        ))
                    })?);
                }
                let mut sorted = cols.clone();
                sorted.sort_unstable();
                let key = keys
                    .iter()
                    .find(|k| {
                        let mut k = (*k).clone();
                        k.sort_unstable();
                        k == sorted
                    })
                    .ok_or_else(none_error)?;
                vec![key.clone()]
            }
            Some(ast::ConflictTarget::OnConstraint(name)) => {
                return Err(Error::not_supported(format!(
                    "ON CONFLICT ON CONSTRAINT {name} is not supported; name the key's columns: ON CONFLICT (a, b)"
                )))
            }
        };
        if chosen.is_empty() {
            return Err(none_error());
        }
        let update = match action {
            None | Some(ast::OnConflictAction::DoNothing) => None,
            Some(ast::OnConflictAction::DoUpdate(u)) => {
                if chosen.len() > 1 {
                    return Err(Error::binder(
                        "ON CONFLICT DO UPDATE needs a conflict target when the table has several unique keys: ON CONFLICT (columns) DO UPDATE",
                    ));
                }
                // The existing row's columns, then the proposed row's as `excluded`
                // (reachable only qualified).
                let n = schema.columns.len();
                let mut fields: Vec<Field> = Vec::with_capacity(2 * n);
                for q in [qual.as_str(), "excluded"] {
                    for c in &schema.columns {
                        fields.push(Field::of_column(c).with_qualifier(Some(q.to_string())));
                    }
                }
                let mut scope = Scope::new(fields);
                for v in &mut scope.visibility[n..] {
                    *v = super::scope::Visibility::Qualified;
                }
                let mut columns = Vec::new();
                let mut values = Vec::new();
                for a in &u.assignments {
                    let ast::AssignmentTarget::ColumnName(target) = &a.target else {
                        return Err(Error::not_supported(
                            "DO UPDATE SET (a, b) = ... is not supported; assign each column",
                        ));
                    };
                    let cname = match target.0.last() {
                        Some(ast::ObjectNamePart::Identifier(id)) => ident_name(id),
                        _ => return Err(Error::binder(format!("invalid column name {target}"))),
                    };
                    let idx = schema.column_index(&cname).ok_or_else(|| {
                        Error::binder(format!(
                            "Table \"{}\" does not have a column with name \"{cname}\"",
                            schema.name
                        ))
                    })?;
                    if columns.contains(&idx) {
                        return Err(Error::binder(format!(
                            "column \"{cname}\" is assigned more than once"
                        )));
                    }
                    let mut ctx = ExprCtx::new(&scope, "ON CONFLICT DO UPDATE");
                    let v = self.bind_expr(&a.value, &mut ctx)?;
                    values.push(cast_expr(v, &schema.columns[idx].ty)?);
                    columns.push(idx);
                }
                let filter = match &u.selection {
                    Some(w) => {
                        let mut ctx = ExprCtx::new(&scope, "ON CONFLICT DO UPDATE WHERE");
                        Some(bool_expr(
                            self.bind_expr(w, &mut ctx)?,
                            "ON CONFLICT DO UPDATE WHERE",
                        )?)
                    }
                    None => None,
                };
                let subquery = values
                    .iter()
                    .chain(&filter)
                    .any(|e| e.any(&mut |x| matches!(x, Expr::Subquery(_))));
                if subquery {
                    return Err(Error::not_supported(
                        "subqueries in ON CONFLICT DO UPDATE are not supported yet",
                    ));
                }
                Some(ConflictUpdate {
                    columns,
                    values,
                    filter,
                    check: self.conflict_check(schema)?,
                })
            }
        };
        Ok(Some(OnConflict {
            keys: chosen,
            update,
        }))
    }
}

/// What INSERT does with a row whose unique key a row of the table (or an earlier row
/// of the same INSERT) already holds.
#[derive(Debug, Clone)]
pub struct OnConflict {
    /// The unique keys checked (column positions in the table).
    pub keys: Vec<Vec<usize>>,
    /// `None`: DO NOTHING, the row is skipped.
    pub update: Option<ConflictUpdate>,
}

/// ON CONFLICT DO UPDATE: the existing row is changed instead.
#[derive(Debug, Clone)]
pub struct ConflictUpdate {
    /// The columns set (positions in the table)...
    pub columns: Vec<usize>,
    /// ...to these values, over the existing row's columns followed by the proposed
    /// row's (`excluded.*`).
    pub values: Vec<Expr>,
    /// DO UPDATE ... WHERE, over the same columns: a row it rejects stays as it is.
    pub filter: Option<Expr>,
    /// The table's CHECK constraints over an updated row's columns: evaluated on
    /// each row as it will be, it raises the error of the first check the row fails.
    pub check: Option<Expr>,
}
