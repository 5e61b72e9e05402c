//! Table functions that produce rows from SQL or from constants, and over files:
//! `query(sql)` (the rows of a query given as a string), `query_table(name)` (every
//! row of a table or view named by a string), `repeat_row(v1, v2, ..., num_rows = n)`
//! (one row of the given values, n times), `glob(pattern)` (the files a pattern
//! names, one `file` per row), `read_text(path or pattern)` (each file's name,
//! content, size and modification time) and `read_blob` (the same, content as a
//! BLOB); `pragma_show(t)` and `pragma_collations()`,
//! the table forms of PRAGMA show and PRAGMA collations.
//!
//! Where it sits: binding FROM (`from.rs`). The string arguments must be constants;
//! the query or table is bound in place, so it is an ordinary plan; the files are
//! read while binding (the rows are constants, like `duckdb_tables()`), each checked
//! against `enable_external_access` and the allowed directories.

use super::expr::ExprCtx;
use super::fold::fold_constant;
use super::scope::Scope;
use super::Binder;
use crate::plan::{Field, LogicalPlan};
use sqlparser::ast;
use stride_common::{DataType, Error, Result, ScalarValue};

/// The names [`Binder::query_table_function`] binds.
pub(crate) const QUERY_TABLE_FUNCTIONS: &[&str] = &[
    "query",
    "query_table",
    "repeat_row",
    "glob",
    "read_text",
    "read_blob",
    "pragma_show",
    "pragma_collations",
    "pg_timezone_names",
];

impl Binder<'_> {
    /// A constant argument's value.
    fn constant_argument(&mut self, name: &str, e: &ast::Expr) -> Result<ScalarValue> {
        let scope = Scope::default();
        let mut ctx = ExprCtx::new(&scope, "table function arguments");
        let bound = self.bind_expr(e, &mut ctx)?;
        fold_constant(&bound)?
            .ok_or_else(|| Error::binder(format!("arguments of {name} must be constants")))
    }

    /// The one string argument of `name(...)`.
    fn string_argument(&mut self, name: &str, args: &[ast::FunctionArg]) -> Result<String> {
        let e = match args {
            [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e))] => e,
            _ => {
                return Err(Error::binder(format!(
                    "{name} takes one string argument, got {} arguments",
                    args.len()
                )))
            }
        };
        match self.constant_argument(name, e)? {
            ScalarValue::Varchar(s) => Ok(s),
            other => Err(Error::binder(format!(
                "{name} takes a string argument, got {}",
                other.data_type()
            ))),
        }
    }

    /// Binds `name(args)` when it is one of [`QUERY_TABLE_FUNCTIONS`].
    pub(super) fn query_table_function(
        &mut self,
        name: &str,
        args: &[ast::FunctionArg],
    ) -> Option<Result<LogicalPlan>> {
        if !QUERY_TABLE_FUNCTIONS.contains(&name) {
            return None;
        }
        Some(match name {
            "query" => self.bind_query_string(args),
            "query_table" => self.string_argument(name, args).and_then(|t| {
                let quoted = t.replace('"', "\"\"");
                self.bind_sql_query(&format!("SELECT * FROM \"{quoted}\""))
            }),
            "repeat_row" => self.bind_repeat_row(args),
            "glob" => self.bind_glob(args),
            // PRAGMA show('t') and PRAGMA collations as table functions
            "pragma_show" => self.string_argument(name, args).and_then(|t| {
                let table = ast::ObjectName::from(vec![ast::Ident::new(t)]);
                match self.describe_table(&table)? {
                    super::BoundStatement::Query(plan) => Ok(plan),
                    _ => Err(Error::internal("DESCRIBE is a query")),
                }
            }),
            "pragma_collations" if args.is_empty() => Ok(self.collations()),
            "pg_timezone_names" if args.is_empty() => Ok(timezone_names()),
            "pg_timezone_names" => Err(Error::binder("pg_timezone_names takes no arguments")),
            "pragma_collations" => Err(Error::binder("pragma_collations takes no arguments")),
            _ => self.bind_read_file(name, args),
        })
    }

    fn bind_query_string(&mut self, args: &[ast::FunctionArg]) -> Result<LogicalPlan> {
        let sql = self.string_argument("query", args)?;
        self.bind_sql_query(&sql)
    }

    /// Parses and binds `sql`, which must be one query.
    pub(super) fn bind_sql_query(&mut self, sql: &str) -> Result<LogicalPlan> {
        let mut statements = crate::parser::parse(sql)?;
        match (statements.pop(), statements.is_empty()) {
            (Some(ast::Statement::Query(q)), true) => self.bind_query(&q),
            _ => Err(Error::parse(
                "query() takes exactly one query, as in query('SELECT 1')",
            )),
        }
    }

    fn bind_repeat_row(&mut self, args: &[ast::FunctionArg]) -> Result<LogicalPlan> {
        let mut values = Vec::new();
        let mut num_rows = None;
        for a in args {
            match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => {
                    values.push(self.constant_argument("repeat_row", e)?)
                }
                ast::FunctionArg::Named {
                    name,
                    arg: ast::FunctionArgExpr::Expr(e),
                    ..
                } if name.value.eq_ignore_ascii_case("num_rows") => {
                    let v = self.constant_argument("repeat_row", e)?;
                    num_rows = Some(
                        stride_functions::cast_scalar(&v, &DataType::BigInt, false)?
                            .as_i64()
                            .unwrap_or(0),
                    );
                }
                other => {
                    return Err(Error::binder(format!(
                        "unsupported argument {other} to repeat_row"
                    )))
                }
            }
        }
        let n = num_rows
            .ok_or_else(|| Error::binder("repeat_row requires num_rows to be specified"))?;
        if values.is_empty() {
            return Err(Error::binder(
                "repeat_row requires at least one column to be specified",
            ));
        }
        if n < 0 {
            return Err(Error::binder("repeat_row: num_rows must not be negative"));
        }
        const MAX_ROWS: i64 = 1 << 24;
        if n > MAX_ROWS {
            return Err(Error::binder(format!(
                "repeat_row: num_rows may be at most {MAX_ROWS}; use a join with range() for more"
            )));
        }
        let schema: Vec<Field> = values
            .iter()
            .enumerate()
            .map(|(k, v)| {
                Field::new(
                    format!("column{k}"),
                    match v.data_type() {
                        DataType::Null => DataType::Integer,
                        t => t,
                    },
                )
            })
            .collect();
        let rows = (0..n).map(|_| values.clone()).collect();
        Ok(super::constant_rows(schema, rows))
    }

    /// The files `pattern` names that exist, sorted (none when a wildcard matches
    /// nothing, as in DuckDB).
    fn glob_files(&mut self, what: &str, pattern: &str) -> Result<Vec<String>> {
        self.settings.check_external_access(what)?;
        let mut files = Vec::new();
        let named = if pattern.contains(['*', '?']) {
            stride_io::file::matches(pattern)
        } else {
            vec![pattern.to_string()]
        };
        for f in named {
            if std::path::Path::new(&f).is_file() {
                self.settings.check_path(&f, false)?;
                files.push(f);
            }
        }
        Ok(files)
    }

    fn bind_glob(&mut self, args: &[ast::FunctionArg]) -> Result<LogicalPlan> {
        let pattern = self.string_argument("glob", args)?;
        let files = self.glob_files("glob", &pattern)?;
        Ok(super::constant_rows(
            vec![Field::new("file", DataType::Varchar)],
            files
                .into_iter()
                .map(|f| vec![ScalarValue::Varchar(f)])
                .collect(),
        ))
    }

    /// `read_text` (content as VARCHAR, which must be UTF-8) or `read_blob` (as BLOB).
    fn bind_read_file(&mut self, name: &str, args: &[ast::FunctionArg]) -> Result<LogicalPlan> {
        let blob = name == "read_blob";
        // a path or pattern, or a list of them; what matches nothing adds no rows (as
        // in DuckDB)
        let patterns = match args {
            [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e))] => {
                match self.constant_argument(name, e)? {
                    ScalarValue::Varchar(s) => vec![s],
                    ScalarValue::List(_, items) => items
                        .into_iter()
                        .map(|v| match v {
                            ScalarValue::Varchar(s) => Ok(s),
                            other => Err(Error::binder(format!(
                                "{name} takes file names, got {}",
                                other.data_type()
                            ))),
                        })
                        .collect::<Result<Vec<_>>>()?,
                    other => {
                        return Err(Error::binder(format!(
                            "{name} takes a file name or a list of them, got {}",
                            other.data_type()
                        )))
                    }
                }
            }
            _ => {
                return Err(Error::binder(format!(
                    "{name} takes one argument, a file name or a list of them"
                )))
            }
        };
        let mut files = Vec::new();
        for p in &patterns {
            files.extend(self.glob_files(name, p)?);
        }
        let mut rows = Vec::with_capacity(files.len());
        for f in files {
            let bytes = std::fs::read(&f).map_err(|e| Error::io(format!("{f}: {e}")))?;
            let size = bytes.len() as i64;
            let content = if blob {
                ScalarValue::Blob(bytes)
            } else {
                ScalarValue::Varchar(String::from_utf8(bytes).map_err(|_| {
                    Error::invalid_input(format!(
                        "read_text: could not read content of file '{f}' as valid UTF-8 encoded text. You may try read_blob instead."
                    ))
                })?)
            };
            let modified = std::fs::metadata(&f)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(ScalarValue::Null, |d| {
                    ScalarValue::TimestampTz(d.as_micros() as i64)
                });
            rows.push(vec![
                ScalarValue::Varchar(f),
                content,
                ScalarValue::BigInt(size),
                modified,
            ]);
        }
        Ok(super::constant_rows(
            vec![
                Field::new("filename", DataType::Varchar),
                Field::new(
                    "content",
                    if blob {
                        DataType::Blob
                    } else {
                        DataType::Varchar
                    },
                ),
                Field::new("size", DataType::BigInt),
                Field::new("last_modified", DataType::TimestampTz),
            ],
            rows,
        ))
    }
}

/// `pg_timezone_names()`: every time zone TimeZone accepts, with its abbreviation,
/// UTC offset and daylight saving time now (PostgreSQL's and DuckDB's columns).
fn timezone_names() -> LogicalPlan {
    let now = stride_functions::scalar::clock_micros();
    super::constant_rows(
        vec![
            Field::new("name", DataType::Varchar),
            Field::new("abbrev", DataType::Varchar),
            Field::new("utc_offset", DataType::Interval),
            Field::new("is_dst", DataType::Boolean),
        ],
        stride_functions::timezone::zone_table(now)
            .into_iter()
            .map(|(name, abbrev, offset, dst)| {
                vec![
                    ScalarValue::Varchar(name),
                    ScalarValue::Varchar(abbrev),
                    ScalarValue::Interval(stride_common::Interval::new(
                        0,
                        0,
                        offset as i64 * 1_000_000,
                    )),
                    ScalarValue::Boolean(dst),
                ]
            })
            .collect(),
    )
}
