//! Several databases in one session: `ATTACH 'file.stride' [AS name] [(READ_ONLY)]`,
//! `DETACH name`, `USE name`, and the lists of databases (`SHOW DATABASES`,
//! `duckdb_databases()`, `PRAGMA database_list`). The facade opens and closes the
//! files; names qualified by a database are resolved in `from.rs` (`Binder::resolve`).
//! A database takes its file's name without the extension (`file_database_name`),
//! never one of `RESERVED_DATABASE_NAMES`.

use super::{constant_rows, Binder, BoundStatement};
use crate::catalog::DatabaseEntry;
use crate::plan::{Field, LogicalPlan};
use sqlparser::ast;
use stride_common::{DataType, Error, Result, ScalarValue};

impl Binder<'_> {
    pub(super) fn bind_attach(
        &mut self,
        path: &str,
        alias: Option<&ast::Ident>,
        options: &[ast::AttachDuckDBDatabaseOption],
        if_not_exists: bool,
    ) -> Result<BoundStatement> {
        self.settings.check_external_access("ATTACH")?;
        let mut read_only = false;
        for o in options {
            match o {
                ast::AttachDuckDBDatabaseOption::ReadOnly(v) => read_only = v.unwrap_or(true),
                ast::AttachDuckDBDatabaseOption::Type(t) => {
                    if !t.value.eq_ignore_ascii_case("stride") {
                        return Err(Error::not_supported(format!(
                            "ATTACH of TYPE {} is not supported; stride attaches its own database files",
                            t.value
                        )));
                    }
                }
            }
        }
        let name = match alias {
            Some(a) => super::expr::ident_name(a),
            None if path.is_empty() || path == ":memory:" => {
                return Err(Error::binder(
                    "an in-memory database needs a name: ATTACH ':memory:' AS name",
                ))
            }
            // As the first database is named.
            None => crate::catalog::file_database_name(path),
        };
        let reserved = crate::catalog::RESERVED_DATABASE_NAMES;
        if name.is_empty() || reserved.iter().any(|r| r.eq_ignore_ascii_case(&name)) {
            return Err(Error::binder(format!(
                "\"{name}\" cannot name an attached database; give it another with ATTACH '{path}' AS name"
            )));
        }
        if !(path.is_empty() || path == ":memory:") {
            self.settings.check_path(path, !read_only)?;
        }
        Ok(BoundStatement::Attach {
            path: path.to_string(),
            name,
            read_only,
            if_not_exists,
        })
    }

    pub(super) fn bind_use(&mut self, name: &ast::ObjectName) -> Result<BoundStatement> {
        let parts: Vec<String> = name
            .0
            .iter()
            .map(|p| match p {
                ast::ObjectNamePart::Identifier(id) => Ok(super::expr::ident_name(id)),
                _ => Err(Error::binder(format!("invalid name {name}"))),
            })
            .collect::<Result<_>>()?;
        let database = match parts.as_slice() {
            [d] | [d, _] => d.clone(),
            _ => {
                return Err(Error::binder(format!(
                    "USE takes a database name, not {name}"
                )))
            }
        };
        if let [_, s] = parts.as_slice() {
            if !s.eq_ignore_ascii_case("main") {
                return Err(Error::catalog(format!(
                    "Schema \"{s}\" does not exist; every database has the schema main"
                )));
            }
        }
        if database.eq_ignore_ascii_case(crate::catalog::TEMP_DATABASE) {
            return Err(Error::catalog(format!(
                "SET schema cannot be set to internal schema \"{database}\": its TEMP tables and views are found without USE (t, or {database}.t)"
            )));
        }
        let known = self.catalog.databases();
        match known
            .iter()
            .find(|d| d.name.eq_ignore_ascii_case(&database))
        {
            Some(d) => Ok(BoundStatement::Use {
                database: d.name.clone(),
            }),
            // `USE main` names the schema of the current database.
            None if database.eq_ignore_ascii_case("main") => Ok(BoundStatement::Use {
                database: self.catalog.database_name(),
            }),
            None => Err(Error::catalog(format!(
                "Catalog \"{database}\" does not exist; the databases are {}",
                database_list(&known)
            ))),
        }
    }

    /// One row per database of the session, with `columns` made by `row` (its
    /// position and entry); the connection's `temp` database only where `internal`
    /// (as DuckDB lists it in `duckdb_databases()` but not in SHOW DATABASES).
    fn databases_as(
        &self,
        columns: &[(&str, DataType)],
        internal: bool,
        row: impl Fn(i64, DatabaseEntry) -> Vec<ScalarValue>,
    ) -> LogicalPlan {
        let schema = columns
            .iter()
            .map(|(n, ty)| Field::new(*n, ty.clone()))
            .collect();
        let rows = self
            .catalog
            .databases()
            .into_iter()
            .enumerate()
            .filter(|(_, d)| internal || !d.temporary)
            .map(|(i, d)| row(i as i64, d))
            .collect();
        constant_rows(schema, rows)
    }

    /// The session's databases, as DuckDB's `duckdb_databases()` lists them.
    pub(super) fn bind_databases(&self) -> LogicalPlan {
        use DataType::{BigInt, Boolean, Varchar};
        let columns = [
            ("database_name", Varchar),
            ("database_oid", BigInt),
            ("path", Varchar),
            ("internal", Boolean),
            ("type", Varchar),
            ("readonly", Boolean),
        ];
        self.databases_as(&columns, true, |i, d| {
            vec![
                ScalarValue::Varchar(d.name),
                ScalarValue::BigInt(i),
                d.path.map_or(ScalarValue::Null, ScalarValue::Varchar),
                ScalarValue::Boolean(d.temporary),
                ScalarValue::Varchar("stride".into()),
                ScalarValue::Boolean(d.read_only),
            ]
        })
    }

    /// `SHOW DATABASES`: the names, as DuckDB shows them.
    pub(super) fn show_databases(&self) -> LogicalPlan {
        self.databases_as(&[("database_name", DataType::Varchar)], false, |_, d| {
            vec![ScalarValue::Varchar(d.name)]
        })
    }

    /// `PRAGMA database_list`: sequence number, name and file, as SQLite and DuckDB
    /// list them.
    pub(super) fn database_list(&self) -> LogicalPlan {
        let columns = [
            ("seq", DataType::BigInt),
            ("name", DataType::Varchar),
            ("file", DataType::Varchar),
        ];
        self.databases_as(&columns, false, |i, d| {
            vec![
                ScalarValue::BigInt(i),
                ScalarValue::Varchar(d.name),
                d.path.map_or(ScalarValue::Null, ScalarValue::Varchar),
            ]
        })
    }
}

fn database_list(known: &[DatabaseEntry]) -> String {
    known
        .iter()
        .map(|d| format!("\"{}\"", d.name))
        .collect::<Vec<_>>()
        .join(", ")
}
