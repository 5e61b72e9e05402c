//! SET / RESET / SHOW settings, SHOW TABLES (and `PRAGMA show_tables`), DESCRIBE and
//! EXPLAIN. Informational
//! statements are bound to plain VALUES plans so they flow through execution and
//! every output mode like any query.

use super::expr::{ident_name, ExprCtx};
use super::fold::fold_constant;
use super::from::object_name;
use super::scope::Scope;
use super::{Binder, BoundStatement};
use crate::plan::{Expr, Field, LogicalPlan};
use sqlparser::ast;
use stride_common::{DataType, Error, Result, ScalarValue};

fn varchar_values(columns: &[&str], rows: Vec<Vec<ScalarValue>>) -> LogicalPlan {
    let schema = columns
        .iter()
        .map(|c| Field::new(*c, DataType::Varchar))
        .collect();
    let rows = rows
        .into_iter()
        .map(|r| {
            r.into_iter()
                .map(|v| Expr::Literal {
                    value: v,
                    ty: DataType::Varchar,
                })
                .collect()
        })
        .collect();
    LogicalPlan::Values { rows, schema }
}

fn text(s: impl Into<String>) -> ScalarValue {
    ScalarValue::Varchar(s.into())
}

/// The columns of DESCRIBE, as DuckDB names them.
const DESCRIBE_COLUMNS: [&str; 6] = [
    "column_name",
    "column_type",
    "null",
    "key",
    "default",
    "extra",
];

impl Binder<'_> {
    /// The value of `SET name = value`: a constant expression, or a bare word, which
    /// names a value rather than a column.
    fn set_value(&mut self, value: &ast::Expr, name: &str) -> Result<ScalarValue> {
        match value {
            ast::Expr::Identifier(id) => Ok(ScalarValue::Varchar(id.value.clone())),
            e => {
                let scope = Scope::default();
                let mut ctx = ExprCtx::new(&scope, "SET");
                let bound = self.bind_expr(e, &mut ctx)?;
                fold_constant(&bound)?.ok_or_else(|| {
                    Error::binder(format!("SET {name}: the value must be a constant"))
                })
            }
        }
    }

    /// Refuses a `search_path` naming a schema that does not exist, as DuckDB does.
    /// Each comma-separated entry is a schema (main, pg_catalog, information_schema,
    /// and PostgreSQL's `public` and `"$user"`, which clients send), the current
    /// database, or `database.schema` of it: the schemas names are looked up in
    /// anyway (TEMP objects, then the current database's main, then the system
    /// schemas). A path naming another database is refused, since lookups would not
    /// follow it; USE changes the current database.
    fn check_search_path(&self, path: &str) -> Result<()> {
        const SCHEMAS: &[&str] = &[
            "main",
            "pg_catalog",
            "information_schema",
            "public",
            "$user",
        ];
        let databases = self.catalog.databases();
        let is_schema = |s: &str| SCHEMAS.iter().any(|x| x.eq_ignore_ascii_case(s));
        let is_database = |d: &str| databases.iter().any(|x| x.name.eq_ignore_ascii_case(d));
        let current = self.catalog.database_name();
        // TEMP objects are searched first whatever the path.
        let is_current = |d: &str| {
            d.eq_ignore_ascii_case(&current)
                || d.eq_ignore_ascii_case(crate::catalog::TEMP_DATABASE)
        };
        for entry in path.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let parts: Vec<String> = entry
                .split('.')
                .map(|p| p.trim().trim_matches('"').to_string())
                .collect();
            let (known, other_database) = match parts.as_slice() {
                [s] => (is_schema(s) || is_current(s), is_database(s)),
                [d, s] => (
                    is_current(d) && is_schema(s),
                    is_database(d) && is_schema(s),
                ),
                _ => (false, false),
            };
            if !known && other_database {
                return Err(Error::not_supported(format!(
                    "SET search_path: \"{entry}\" is in another database than the current one ({current}), which name lookups do not search; switch databases with USE {}, or qualify names ({}.t)",
                    parts[0], parts[0]
                )));
            }
            if !known {
                return Err(Error::catalog(format!(
                    "SET search_path: No catalog + schema named \"{entry}\" found; each entry is a schema (main, pg_catalog, information_schema), a database ({}) or database.schema",
                    databases.iter().map(|d| d.name.as_str()).collect::<Vec<_>>().join(", ")
                )));
            }
        }
        Ok(())
    }

    pub(super) fn bind_set(&mut self, set: &ast::Set) -> Result<BoundStatement> {
        if let Some((name, value)) = crate::variable_syntax::variable_assignment(set) {
            return self.bind_variable(name, value);
        }
        match set {
            ast::Set::SingleAssignment {
                variable, values, ..
            } => {
                let name = object_name(variable)?;
                let [value] = values.as_slice() else {
                    return Err(Error::binder(format!("SET {name} takes one value")));
                };
                let value = self.set_value(value, &name)?;
                if name.eq_ignore_ascii_case("search_path") {
                    self.check_search_path(&value.to_string())?;
                }
                Ok(BoundStatement::Set { name, value })
            }
            // PostgreSQL's spelling of `SET timezone = ...` (pgcli sends it at start).
            ast::Set::SetTimeZone { value, .. } => {
                let value = self.set_value(value, "TIME ZONE")?;
                Ok(BoundStatement::Set {
                    name: "timezone".into(),
                    value,
                })
            }
            ast::Set::SetTransaction {
                modes,
                snapshot: None,
                session: false,
            } => match super::transaction_modes(modes)? {
                Some(read_only) => Ok(BoundStatement::Transaction(
                    super::TransactionOp::SetReadOnly(read_only),
                )),
                // Only an isolation level stride already provides: nothing to change.
                None => Ok(BoundStatement::Transaction(
                    super::TransactionOp::SetReadOnly(false),
                )),
            },
            other => Err(Error::not_supported(format!("{other} is not supported"))),
        }
    }

    pub(super) fn bind_reset(&mut self, r: &ast::ResetStatement) -> Result<BoundStatement> {
        match &r.reset {
            ast::Reset::ALL => Ok(BoundStatement::Reset { name: "all".into() }),
            ast::Reset::ConfigurationParameter(n) => Ok(BoundStatement::Reset {
                name: object_name(n)?,
            }),
            ast::Reset::SessionAuthorization => {
                Err(Error::not_supported("RESET SESSION AUTHORIZATION"))
            }
        }
    }

    pub(super) fn bind_show(&mut self, variable: &[ast::Ident]) -> Result<BoundStatement> {
        let name = variable
            .iter()
            .map(ident_name)
            .collect::<Vec<_>>()
            .join(" ");
        if name == "tables" {
            return self.show_tables(None);
        }
        // PostgreSQL's spellings of `SHOW timezone` and `SHOW transaction_isolation`.
        let name = match name.as_str() {
            "time zone" => "timezone".to_string(),
            "transaction isolation level" => "transaction_isolation".to_string(),
            _ => name,
        };
        if name == "all" {
            let rows = stride_common::settings::SETTING_NAMES
                .iter()
                .map(|n| Ok(vec![text(*n), text(self.settings.get(n)?.to_string())]))
                .collect::<Result<Vec<_>>>()?;
            return Ok(BoundStatement::Query(varchar_values(
                &["name", "value"],
                rows,
            )));
        }
        let value = self.settings.get(&name)?;
        let ty = value.data_type();
        Ok(BoundStatement::Query(LogicalPlan::Values {
            rows: vec![vec![Expr::Literal {
                value,
                ty: ty.clone(),
            }]],
            schema: vec![Field::new(name, ty)],
        }))
    }

    /// SHOW TABLES, or SHOW TABLES FROM database (`database.main` too): the tables
    /// and views of that database, by name.
    pub(super) fn show_tables(
        &mut self,
        options: Option<&ast::ShowStatementOptions>,
    ) -> Result<BoundStatement> {
        let Some(options) = options else {
            return Ok(BoundStatement::Query(self.show_tables_plan()));
        };
        let usage = "write SHOW TABLES, or SHOW TABLES FROM database";
        if options.starts_with.is_some()
            || options.limit.is_some()
            || options.limit_from.is_some()
            || options.filter_position.is_some()
        {
            return Err(Error::not_supported(format!(
                "SHOW TABLES with LIKE, STARTS WITH or LIMIT is not supported; {usage}, or query duckdb_tables()"
            )));
        }
        let Some(parent) = options
            .show_in
            .as_ref()
            .and_then(|i| i.parent_name.as_ref())
        else {
            return Ok(BoundStatement::Query(self.show_tables_plan()));
        };
        let parts = super::name_parts(parent);
        let database = match parts.as_slice() {
            [d] | [d, _] if parts.len() == 1 || parts[1].eq_ignore_ascii_case("main") => d,
            _ => {
                return Err(Error::catalog(format!(
                    "SHOW TABLES FROM {parent}: no database or schema of that name; {usage}"
                )))
            }
        };
        let catalog = self.catalog.database(database).ok_or_else(|| {
            Error::catalog(format!(
                "SHOW TABLES FROM {parent}: no database named \"{database}\" is attached"
            ))
        })?;
        let mut names = catalog.table_names();
        names.extend(catalog.views().into_iter().map(|v| v.name));
        names.sort();
        names.dedup();
        let rows = names.into_iter().map(|n| vec![text(n)]).collect();
        Ok(BoundStatement::Query(varchar_values(&["name"], rows)))
    }

    /// SHOW TABLES, `PRAGMA show_tables`: the tables and views unqualified names
    /// find (the current database's and the connection's TEMP ones), by name.
    pub(super) fn show_tables_plan(&self) -> LogicalPlan {
        let mut names = Vec::new();
        let current = self.catalog.database_name();
        let temp = self.temp_catalog().filter(|t| t.database_name() != current);
        for catalog in std::iter::once(self.catalog.clone()).chain(temp) {
            names.extend(catalog.table_names());
            names.extend(catalog.views().into_iter().map(|v| v.name));
        }
        names.sort();
        names.dedup();
        let rows = names.into_iter().map(|n| vec![text(n)]).collect();
        varchar_values(&["name"], rows)
    }

    /// DESCRIBE of a table or view, with DuckDB's columns: name, type, whether it
    /// may be NULL, its key (PRI, UNI), its DEFAULT as DuckDB prints it and `extra`.
    pub(super) fn describe_table(&mut self, name: &ast::ObjectName) -> Result<BoundStatement> {
        let (catalog, tname) = self.relation(name)?;
        let Some((_, schema)) = catalog.table(&tname) else {
            if catalog.view(&tname).is_some() {
                let q = crate::parser::parse(&format!("SELECT * FROM {name}"))?;
                return self.describe_statement(&q[0]);
            }
            return Err(Error::catalog(format!(
                "Table with name {tname} does not exist!"
            )));
        };
        let rows = schema
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                // The PRIMARY KEY's columns, else those of a UNIQUE key.
                let pk = schema.primary_key.and_then(|k| schema.unique_keys.get(k));
                let key = if pk.is_some_and(|k| k.contains(&i)) {
                    text("PRI")
                } else if schema.unique_keys.iter().any(|k| k.contains(&i)) {
                    text("UNI")
                } else {
                    ScalarValue::Null
                };
                vec![
                    text(c.name.clone()),
                    text(c.ty.to_string()),
                    text(if c.not_null { "NO" } else { "YES" }),
                    key,
                    crate::system::snapshot::duckdb_default(c).map_or(ScalarValue::Null, text),
                    ScalarValue::Null,
                ]
            })
            .collect();
        Ok(BoundStatement::Query(varchar_values(
            &DESCRIBE_COLUMNS,
            rows,
        )))
    }

    /// DESCRIBE of a query: its columns' names and types, with DuckDB's columns.
    pub(super) fn describe_statement(&mut self, stmt: &ast::Statement) -> Result<BoundStatement> {
        let ast::Statement::Query(q) = stmt else {
            return Err(Error::binder("DESCRIBE takes a table name or a query"));
        };
        let plan = self.bind_query(q)?;
        let rows = plan
            .schema()
            .iter()
            .map(|f| {
                vec![
                    text(f.name.clone()),
                    text(f.ty.to_string()),
                    text("YES"),
                    ScalarValue::Null,
                    ScalarValue::Null,
                    ScalarValue::Null,
                ]
            })
            .collect();
        Ok(BoundStatement::Query(varchar_values(
            &DESCRIBE_COLUMNS,
            rows,
        )))
    }

    pub(super) fn bind_explain(
        &mut self,
        stmt: &ast::Statement,
        mut analyze: bool,
        format: Option<&ast::AnalyzeFormatKind>,
        options: Option<&[ast::UtilityOption]>,
    ) -> Result<BoundStatement> {
        let format_of = |f: &ast::AnalyzeFormat| match f {
            ast::AnalyzeFormat::TEXT => Ok(false),
            ast::AnalyzeFormat::JSON => Ok(true),
            other => Err(Error::not_supported(format!(
                "EXPLAIN FORMAT {other}; the formats are TEXT and JSON"
            ))),
        };
        let mut json = match format {
            Some(ast::AnalyzeFormatKind::Keyword(f) | ast::AnalyzeFormatKind::Assignment(f)) => {
                format_of(f)?
            }
            None => false,
        };
        // PostgreSQL's form: EXPLAIN (ANALYZE [true|false], FORMAT json|text).
        for o in options.unwrap_or_default() {
            let arg = o.arg.as_ref().map(|a| a.to_string().to_ascii_lowercase());
            match (o.name.value.to_ascii_lowercase().as_str(), arg.as_deref()) {
                ("analyze", None | Some("true" | "on" | "1")) => analyze = true,
                ("analyze", Some("false" | "off" | "0")) => analyze = false,
                ("format", Some("json")) => json = true,
                ("format", Some("text")) => json = false,
                (name, _) => {
                    return Err(Error::not_supported(format!(
                        "EXPLAIN option {} is not supported; the options are ANALYZE and FORMAT (text or json)",
                        name.to_ascii_uppercase()
                    )))
                }
            }
        }
        match self.bind_statement(stmt)? {
            BoundStatement::Query(plan) => Ok(BoundStatement::Explain {
                plan,
                analyze,
                json,
            }),
            _ => Err(Error::not_supported(
                "EXPLAIN of statements other than queries",
            )),
        }
    }
}
