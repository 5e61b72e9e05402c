//! Binding CSV access: the `read_csv` / `read_csv_auto` table functions, the
//! `FROM 'file.csv'` shorthand, `sniff_csv`, and `COPY … FROM / TO` (files, or the
//! client's STDIN / STDOUT). Options are folded to constants here; the files are
//! opened and sniffed at bind time so the query's columns and types are known before
//! planning. COPY FROM STDIN binds to a [`CopyFromStdin`] that reads the data once the
//! client has sent it.

use super::expr::ExprCtx;
use super::fold::fold_constant;
use super::scope::Scope;
use super::{convert_data_type, did_you_mean, Binder, BoundStatement};
use crate::plan::{CsvSource, Expr, Field, LogicalPlan, TableFunction};
use sqlparser::ast;
use std::sync::Arc;
use stride_common::{DataType, Error, Result, ScalarValue};
use stride_io::columnar::{ColumnarFormat, ColumnarWrite};
use stride_io::csv::options::{show_byte, unknown_option, OPTION_NAMES};
use stride_io::csv::{CsvOptions, CsvReader, CsvWriteOptions};
use stride_io::hive::{Overwrite, PartitionBy};
use stride_io::parquet::ParquetCompression;

impl Binder<'_> {
    /// `read_csv(path | [paths], option = value, ...)`.
    pub(super) fn bind_read_csv(&mut self, args: &[ast::FunctionArg]) -> Result<LogicalPlan> {
        self.settings.check_external_access("read_csv")?;
        let (paths, options) = self.file_function_args(args, "read_csv")?;
        let mut opts = CsvOptions::default();
        for (name, e) in options {
            self.csv_option(&mut opts, &name, e)?;
        }
        self.csv_scan(&paths, opts)
    }

    /// The arguments of a file-reading table function (`what`): its path or list of
    /// paths first, then `name = value` options (names as written).
    pub(super) fn file_function_args<'e>(
        &mut self,
        args: &'e [ast::FunctionArg],
        what: &str,
    ) -> Result<(Vec<String>, Vec<(String, &'e ast::Expr)>)> {
        let mut paths = None;
        let mut options = Vec::new();
        for a in args {
            match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) if paths.is_none() => {
                    paths = Some(self.file_paths(e, what)?);
                }
                ast::FunctionArg::Named {
                    name,
                    arg: ast::FunctionArgExpr::Expr(e),
                    ..
                }
                | ast::FunctionArg::ExprNamed {
                    name: ast::Expr::Identifier(name),
                    arg: ast::FunctionArgExpr::Expr(e),
                    ..
                } => options.push((name.value.clone(), e)),
                other => {
                    return Err(Error::binder(format!(
                        "{what} takes one path (or a list of paths) and name = value options, got {other}"
                    )))
                }
            }
        }
        let paths = paths.ok_or_else(|| {
            Error::binder(format!("{what} needs a file path as its first argument"))
        })?;
        Ok((paths, options))
    }

    /// `FROM 'file.csv'`: read_csv with every option detected (`FROM 'x.parquet'`:
    /// read_parquet, `FROM 'x.arrow'`: read_arrow).
    pub(super) fn bind_file_shorthand(&mut self, path: &str) -> Result<LogicalPlan> {
        if let Some(format) = ColumnarFormat::of_path(path) {
            return self.columnar_scan(format, &[path.to_string()], false, None);
        }
        if super::json::is_json_path(path) {
            return self.json_scan(
                &[path.to_string()],
                &stride_io::json::JsonOptions::default(),
                false,
                None,
            );
        }
        self.settings.check_external_access("reading files")?;
        self.csv_scan(&[path.to_string()], CsvOptions::default())
    }

    /// The files `paths` name (globs expanded), each checked against the allowed
    /// directories.
    pub(super) fn expand_paths(&mut self, paths: &[String]) -> Result<Vec<String>> {
        let mut files = Vec::new();
        for p in paths {
            for f in stride_io::file::expand(p)? {
                self.settings.check_path(&f, false)?;
                files.push(f);
            }
        }
        Ok(files)
    }

    fn csv_scan(&mut self, paths: &[String], opts: CsvOptions) -> Result<LogicalPlan> {
        let files = self.expand_paths(paths)?;
        let reader = CsvReader::bind(&files, opts)?;
        Ok(super::source_scan(reader.schema(), |columns| {
            TableFunction::ReadCsv {
                source: CsvSource(Arc::new(reader)),
                columns,
            }
        }))
    }

    /// `sniff_csv('file', ...)`: one row saying what the sniffer detected.
    pub(super) fn bind_sniff_csv(&mut self, args: &[ast::FunctionArg]) -> Result<LogicalPlan> {
        let LogicalPlan::TableFunction {
            func: TableFunction::ReadCsv { source, .. },
            ..
        } = self.bind_read_csv(args)?
        else {
            return Err(Error::internal("read_csv did not bind to a CSV scan"));
        };
        let r = &source.0;
        let columns = r
            .names
            .iter()
            .zip(&r.types)
            .map(|(n, t)| format!("'{}': '{}'", n.replace('\'', "''"), t))
            .collect::<Vec<_>>()
            .join(", ");
        let d = r.dialect;
        let prompt = format!(
            "FROM read_csv('{}', delim = '{}', quote = '{}', escape = '{}', header = {}, columns = {{{}}})",
            r.files[0].path.replace('\'', "''"),
            show_byte(Some(d.delimiter)),
            show_byte(d.quote),
            show_byte(d.escape),
            r.header,
            columns
        );
        let row: Vec<(&str, ScalarValue, DataType)> = vec![
            (
                "Delimiter",
                text(show_byte(Some(d.delimiter))),
                DataType::Varchar,
            ),
            ("Quote", text(show_byte(d.quote)), DataType::Varchar),
            ("Escape", text(show_byte(d.escape)), DataType::Varchar),
            (
                "NewLineDelimiter",
                text(if d.newline == b'\r' { "\\r" } else { "\\n" }),
                DataType::Varchar,
            ),
            (
                "SkipRows",
                ScalarValue::BigInt(r.options.skip as i64),
                DataType::BigInt,
            ),
            (
                "HasHeader",
                ScalarValue::Boolean(r.header),
                DataType::Boolean,
            ),
            ("Columns", text(format!("{{{columns}}}")), DataType::Varchar),
            (
                "SampleRows",
                ScalarValue::BigInt(r.sample_rows as i64),
                DataType::BigInt,
            ),
            ("Prompt", text(prompt), DataType::Varchar),
        ];
        Ok(LogicalPlan::Values {
            schema: row
                .iter()
                .map(|(n, _, t)| Field::new(*n, t.clone()))
                .collect(),
            rows: vec![row
                .into_iter()
                .map(|(_, value, ty)| Expr::Literal { value, ty })
                .collect()],
        })
    }

    /// The path or list of paths a file-reading function (`what`) was given.
    pub(super) fn file_paths(&mut self, e: &ast::Expr, what: &str) -> Result<Vec<String>> {
        let items: Vec<&ast::Expr> = match e {
            ast::Expr::Array(a) => a.elem.iter().collect(),
            other => vec![other],
        };
        items
            .into_iter()
            .map(|i| match self.constant(i, what)? {
                ScalarValue::Varchar(s) => Ok(s),
                other => Err(Error::binder(format!(
                    "{what} paths must be strings, got {other}"
                ))),
            })
            .collect()
    }

    pub(super) fn constant(&mut self, e: &ast::Expr, what: &str) -> Result<ScalarValue> {
        let scope = Scope::default();
        let mut ctx = ExprCtx::new(&scope, "table function arguments");
        let bound = self.bind_expr(e, &mut ctx)?;
        fold_constant(&bound)?
            .ok_or_else(|| Error::binder(format!("arguments of {what} must be constants")))
    }

    fn csv_option(&mut self, opts: &mut CsvOptions, name: &str, e: &ast::Expr) -> Result<()> {
        let lname = name.to_ascii_lowercase();
        match lname.as_str() {
            "columns" => {
                let ast::Expr::Dictionary(fields) = e else {
                    return Err(Error::binder(
                        "read_csv option columns takes a struct such as {'a': 'INTEGER', 'b': 'VARCHAR'}",
                    ));
                };
                let mut cols = Vec::with_capacity(fields.len());
                for f in fields {
                    cols.push((f.key.value.clone(), self.type_option(&f.value)?));
                }
                opts.columns = Some(cols);
            }
            "types" | "column_types" | "dtypes" => match e {
                ast::Expr::Dictionary(fields) => {
                    let mut v = Vec::with_capacity(fields.len());
                    for f in fields {
                        v.push((f.key.value.clone(), self.type_option(&f.value)?));
                    }
                    opts.types_by_name = Some(v);
                }
                ast::Expr::Array(a) => {
                    let mut v = Vec::with_capacity(a.elem.len());
                    for t in &a.elem {
                        v.push(self.type_option(t)?);
                    }
                    opts.types_by_position = Some(v);
                }
                _ => {
                    return Err(Error::binder(
                        "read_csv option types takes a list of types or a struct of name: type",
                    ))
                }
            },
            "names" | "column_names" => {
                let ast::Expr::Array(a) = e else {
                    return Err(Error::binder(
                        "read_csv option names takes a list such as ['a', 'b']",
                    ));
                };
                let mut v = Vec::with_capacity(a.elem.len());
                for n in &a.elem {
                    v.push(self.constant(n, "read_csv")?.to_string());
                }
                opts.names = Some(v);
            }
            "nullstr" | "null" if matches!(e, ast::Expr::Array(_)) => {
                let ast::Expr::Array(a) = e else {
                    unreachable!()
                };
                let mut v = Vec::with_capacity(a.elem.len());
                for n in &a.elem {
                    v.push(self.constant(n, "read_csv")?.to_string());
                }
                opts.nullstr = Some(v);
            }
            _ if !OPTION_NAMES.contains(&lname.as_str()) => {
                let mut e = unknown_option(name);
                if let Some(s) = did_you_mean(&lname, OPTION_NAMES.iter().copied()) {
                    e.message.push_str(&format!(" Did you mean \"{s}\"?"));
                }
                return Err(e);
            }
            _ => {
                let v = self.constant(e, "read_csv")?;
                opts.set(&lname, &v)?;
            }
        }
        Ok(())
    }

    /// A type given as a string ('DECIMAL(15,2)').
    pub(super) fn type_option(&mut self, e: &ast::Expr) -> Result<DataType> {
        let ScalarValue::Varchar(s) = self.constant(e, "read_csv")? else {
            return Err(Error::binder(format!(
                "read_csv types are given as strings such as 'BIGINT', got {e}"
            )));
        };
        self.type_from_text(&s)
    }

    /// A type name given as text, types created by CREATE TYPE included.
    pub(super) fn type_from_text(&self, s: &str) -> Result<DataType> {
        let dialect = sqlparser::dialect::DuckDbDialect {};
        let dt = sqlparser::parser::Parser::new(&dialect)
            .try_with_sql(s)
            .and_then(|mut p| p.parse_data_type())
            .map_err(|e| Error::binder(format!("\"{s}\" is not a type: {e}")))?;
        self.convert_type(&dt)
    }

    /// `COPY table FROM 'file' (options)` and `COPY table | (query) TO 'file' (options)`.
    pub(super) fn bind_copy(
        &mut self,
        source: &ast::CopySource,
        to: bool,
        target: &ast::CopyTarget,
        options: &[ast::CopyOption],
        legacy: &[ast::CopyLegacyOption],
    ) -> Result<BoundStatement> {
        // A file path, or None for the client's stream (STDIN / STDOUT).
        let path = match target {
            ast::CopyTarget::File { filename } => Some(filename.clone()),
            ast::CopyTarget::Stdin if !to => None,
            ast::CopyTarget::Stdout if to => None,
            other => {
                return Err(Error::not_supported(format!(
                    "COPY {} {other} is not supported; copy {} a file path or {}",
                    if to { "TO" } else { "FROM" },
                    if to { "to" } else { "from" },
                    if to { "STDOUT" } else { "STDIN" },
                )))
            }
        };
        if path.is_some() {
            self.settings.check_external_access("COPY")?;
        }
        let o = copy_options(options, legacy, path.is_none(), path.as_deref())?;
        if let Some(path) = &path {
            refuse_other_file_formats(path, to, options)?;
        }
        // A CSV file is written with a header and read with the sniffer deciding
        // whether it has one, as in DuckDB; streams and the text format have none.
        let csv_file = path.is_some() && !o.text;
        let mut write = CsvWriteOptions {
            delimiter: o.delimiter,
            null: o.null.clone(),
            header: o.header.unwrap_or(csv_file),
            text_format: o.text,
            ..Default::default()
        };
        // For text input the reader sees the CSV that `pg_text` makes of it.
        let mut read = CsvOptions {
            header: if csv_file {
                o.header
            } else {
                Some(o.header.unwrap_or(false))
            },
            ..Default::default()
        };
        if !o.text {
            read.delimiter = Some(o.delimiter);
            read.nullstr = Some(vec![o.null.clone()]);
            if let Some(q) = o.quote {
                write.quote = q;
                read.quote = Some(Some(q));
            }
            if let Some(e) = o.escape {
                write.escape = e;
                read.escape = Some(Some(e));
            }
            // A QUOTE without an ESCAPE escapes by doubling, in both directions.
            if let (Some(Some(q)), None) = (read.quote, read.escape) {
                read.escape = Some(Some(q));
                write.escape = q;
            }
        }
        if to {
            let plan = match source {
                ast::CopySource::Query(q) => self.bind_query(q)?,
                ast::CopySource::Table {
                    table_name,
                    columns,
                } => {
                    let cols = if columns.is_empty() {
                        "*".to_string()
                    } else {
                        columns
                            .iter()
                            .map(|c| c.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    let sql = format!("SELECT {cols} FROM {table_name}");
                    let stmts = crate::parser::parse(&sql)?;
                    match stmts.first() {
                        Some(ast::Statement::Query(q)) => self.bind_query(q)?,
                        _ => return Err(Error::internal("COPY TO did not parse as a query")),
                    }
                }
            };
            let Some(path) = path else {
                return Ok(BoundStatement::CopyToStdout {
                    plan,
                    options: write,
                });
            };
            self.settings.check_path(&path, true)?;
            let partition = match &o.partition_by {
                None => None,
                Some(names) => Some(partition_by(&plan, names, o.overwrite)?),
            };
            return Ok(BoundStatement::CopyTo {
                plan,
                path,
                options: write,
                columnar: o.columnar,
                partition,
            });
        }
        let ast::CopySource::Table {
            table_name,
            columns,
        } = source
        else {
            return Err(Error::binder("COPY FROM needs a table to copy into"));
        };
        let (catalog, name) = self.target(table_name)?;
        let (table_id, schema) = catalog
            .table(&name)
            .ok_or_else(|| Error::catalog(format!("Table with name {name} does not exist!")))?;
        // The data's columns: the listed ones, or all of the table's, in order.
        let listed: Vec<usize> = if columns.is_empty() {
            (0..schema.columns.len()).collect()
        } else {
            columns
                .iter()
                .map(|c| {
                    let n = c.value.to_ascii_lowercase();
                    schema
                        .columns
                        .iter()
                        .position(|col| col.name.eq_ignore_ascii_case(&n))
                        .ok_or_else(|| {
                            Error::binder(format!(
                                "table {} has no column named \"{}\"",
                                schema.name, c.value
                            ))
                        })
                })
                .collect::<Result<_>>()?
        };
        read.columns = Some(
            listed
                .iter()
                .map(|&i| (schema.columns[i].name.clone(), schema.columns[i].ty.clone()))
                .collect(),
        );
        if let (Some(path), Some(columnar)) = (&path, &o.columnar) {
            // The file's columns fill the listed ones by position.
            let scan = self.columnar_scan(
                columnar.format(),
                std::slice::from_ref(path),
                false,
                Some(false),
            )?;
            let found = scan.schema().len();
            if found != listed.len() {
                return Err(Error::binder(format!(
                    "COPY FROM \"{path}\": the file has {found} columns and {} are being filled",
                    listed.len()
                )));
            }
            let types: Vec<DataType> = listed
                .iter()
                .map(|&i| schema.columns[i].ty.clone())
                .collect();
            let scan = super::select::cast_columns(scan, &types)?;
            return Ok(BoundStatement::Insert {
                table_id,
                table: schema.name.clone(),
                source: self.insert_source(&schema.name, &schema, &listed, scan)?,
                returning: None,
                on_conflict: None,
            });
        }
        let Some(path) = path else {
            let fields: Vec<Field> = listed
                .iter()
                .map(|&i| Field::of_column(&schema.columns[i]))
                .collect();
            return Ok(BoundStatement::CopyFromStdin(CopyFromStdin {
                table_id,
                row: self.insert_row(&schema.name, &schema, &listed, &fields)?,
                checks: self.check_branches(&schema)?,
                table: schema,
                listed,
                options: read,
                text: o.text.then_some((o.delimiter, o.null)),
            }));
        };
        if o.text {
            return Err(Error::not_supported(
                "COPY FROM a file reads CSV; the text format is read from STDIN only",
            ));
        }
        let scan = self.csv_scan(&[path], read)?;
        Ok(BoundStatement::Insert {
            table_id,
            table: schema.name.clone(),
            source: self.insert_source(&schema.name, &schema, &listed, scan)?,
            returning: None,
            on_conflict: None,
        })
    }
}

/// A COPY FROM STDIN, bound: the data arrives afterwards (see
/// [`CopyFromStdin::plan`]).
#[derive(Debug, Clone)]
pub struct CopyFromStdin {
    pub table_id: u64,
    pub table: Arc<stride_common::TableSchema>,
    /// Positions in the table of the data's columns, in order.
    pub listed: Vec<usize>,
    /// A table row over a row of the data: its columns cast, DEFAULT for the others.
    pub row: Vec<Expr>,
    /// The table's CHECK constraints over a table row.
    pub checks: super::checks::CheckBranches,
    /// How the reader reads the data (text-format data after conversion to CSV).
    pub options: CsvOptions,
    /// PostgreSQL's text format: its delimiter and NULL marker.
    pub text: Option<(u8, String)>,
}

impl CopyFromStdin {
    /// The rows to insert, in the table's column order, read from `data`.
    pub fn plan(&self, data: Vec<u8>) -> Result<LogicalPlan> {
        let data = match &self.text {
            Some((delimiter, null)) => {
                stride_io::csv::pg_text::text_to_csv(&data, *delimiter, null.as_bytes())?
            }
            None => data,
        };
        let file = Arc::new(stride_io::file::FileData::from_bytes("STDIN", data));
        let reader = CsvReader::from_files(vec![file], self.options.clone())?;
        let schema: Vec<Field> = reader
            .schema()
            .into_iter()
            .map(|(n, t)| Field::new(n, t))
            .collect();
        let scan = LogicalPlan::TableFunction {
            func: TableFunction::ReadCsv {
                source: CsvSource(Arc::new(reader)),
                columns: (0..schema.len()).collect(),
            },
            schema,
        };
        let rows = LogicalPlan::Project {
            input: Box::new(scan),
            exprs: self.row.clone(),
            schema: self.table.columns.iter().map(Field::of_column).collect(),
        };
        Ok(super::checks::guarded_rows(rows, self.checks.clone()))
    }
}

/// A COPY whose file's extension names a format stride cannot read or write yet
/// (JSON) fails instead of treating the file as CSV, unless a FORMAT option says
/// which format is meant. DuckDB picks the format from the extension, so
/// `COPY t TO 'x.json'` must not quietly write CSV (a `.parquet` or `.arrow` file
/// is written as such, see `copy_options`).
fn refuse_other_file_formats(path: &str, to: bool, options: &[ast::CopyOption]) -> Result<()> {
    if options
        .iter()
        .any(|o| matches!(o, ast::CopyOption::Format(_)))
    {
        return Ok(());
    }
    let lower = path.to_ascii_lowercase();
    let lower = lower.strip_suffix(".gz").unwrap_or(&lower);
    let format = match lower.rsplit_once('.').map(|(_, ext)| ext) {
        Some("json" | "ndjson" | "jsonl") => "JSON",
        _ => return Ok(()),
    };
    Err(Error::not_supported(format!(
        "COPY {} \"{path}\": {format} files are not supported yet; add (FORMAT csv) to {} it as CSV",
        if to { "TO" } else { "FROM" },
        if to { "write" } else { "read" },
    )))
}

/// COPY's options, with the defaults of its format: CSV for files (`,`, NULL as ''),
/// PostgreSQL's text format for the client's stream (tab, NULL as `\N`).
struct CopyOptions {
    /// FORMAT parquet or arrow (or such a file's extension without FORMAT): how
    /// to write it.
    columnar: Option<ColumnarWrite>,
    /// PARTITION_BY's columns, by name, and what to do with a folder in the way.
    partition_by: Option<Vec<String>>,
    overwrite: Overwrite,
    text: bool,
    delimiter: u8,
    null: String,
    /// HEADER as given; not given, a file is read with the sniffer deciding and
    /// written with a header (DuckDB), a stream has none (PostgreSQL).
    header: Option<bool>,
    quote: Option<u8>,
    escape: Option<u8>,
}

fn copy_options(
    options: &[ast::CopyOption],
    legacy: &[ast::CopyLegacyOption],
    stream: bool,
    path: Option<&str>,
) -> Result<CopyOptions> {
    let mut format: Option<bool> = None;
    let mut columnar = path
        .and_then(ColumnarFormat::of_path)
        .map(ColumnarWrite::of);
    // DuckDB's options without syntax in the parser (see `parser.rs`).
    let mut duckdb: Vec<(String, String)> = Vec::new();
    let (mut delimiter, mut null, mut header, mut quote, mut escape) =
        (None, None, None, None, None);
    for o in options {
        match o {
            ast::CopyOption::Format(f) if f.value.contains('=') => {
                let (name, value) = f.value.split_once('=').expect("contains =");
                duckdb.push((name.to_string(), value.to_string()));
            }
            ast::CopyOption::Format(f) => {
                let named = ColumnarFormat::named(&f.value);
                format = Some(match f.value.to_ascii_lowercase().as_str() {
                    "csv" => false,
                    "text" => true,
                    _ if named.is_some() => false,
                    _ => {
                        return Err(Error::not_supported(format!(
                            "COPY format {f} is not supported; use csv, text, parquet or arrow"
                        )))
                    }
                });
                columnar = match (named, columnar.take()) {
                    (Some(n), Some(c)) if c.format() == n => Some(c),
                    (n, _) => n.map(ColumnarWrite::of),
                };
            }
            ast::CopyOption::Delimiter(c) => delimiter = Some(ascii(*c, "DELIMITER")?),
            ast::CopyOption::Null(s) => null = Some(s.clone()),
            ast::CopyOption::Header(h) => header = Some(*h),
            ast::CopyOption::Quote(c) => quote = Some(ascii(*c, "QUOTE")?),
            ast::CopyOption::Escape(c) => escape = Some(ascii(*c, "ESCAPE")?),
            ast::CopyOption::Encoding(e)
                if e.eq_ignore_ascii_case("utf8") || e.eq_ignore_ascii_case("utf-8") => {}
            other => {
                return Err(Error::not_supported(format!(
                    "COPY option {other} is not supported"
                )))
            }
        }
    }
    // The older syntax PostgreSQL still takes: `COPY t FROM STDIN CSV HEADER`.
    for l in legacy {
        match l {
            ast::CopyLegacyOption::Csv(csv) => {
                format = Some(false);
                for c in csv {
                    match c {
                        ast::CopyLegacyCsvOption::Header => header = Some(true),
                        ast::CopyLegacyCsvOption::Quote(q) => quote = Some(ascii(*q, "QUOTE")?),
                        ast::CopyLegacyCsvOption::Escape(e) => escape = Some(ascii(*e, "ESCAPE")?),
                        other => {
                            return Err(Error::not_supported(format!(
                                "COPY option {other} is not supported"
                            )))
                        }
                    }
                }
            }
            ast::CopyLegacyOption::Delimiter(c) => delimiter = Some(ascii(*c, "DELIMITER")?),
            ast::CopyLegacyOption::Null(s) => null = Some(s.clone()),
            ast::CopyLegacyOption::Header => header = Some(true),
            other => {
                return Err(Error::not_supported(format!(
                    "COPY option {other} is not supported; use (FORMAT csv, DELIMITER ',', HEADER, NULL '', QUOTE '\"', ESCAPE '\"')"
                )))
            }
        }
    }
    let (mut partition_by, mut overwrite) = (None, Overwrite::No);
    for (name, value) in &duckdb {
        match name.as_str() {
            "partition_by" => {
                partition_by = Some(value.split(',').map(str::to_string).collect());
                continue;
            }
            "overwrite" | "overwrite_or_ignore" => {
                let on = match value.to_ascii_lowercase().as_str() {
                    "true" | "1" | "on" => true,
                    "false" | "0" | "off" => false,
                    _ => {
                        return Err(Error::binder(format!(
                            "COPY option {} takes true or false, got {value}",
                            name.to_ascii_uppercase()
                        )))
                    }
                };
                if on {
                    overwrite = match name.as_str() {
                        "overwrite" => Overwrite::All,
                        _ => Overwrite::OrIgnore,
                    };
                }
                continue;
            }
            _ => {}
        }
        let Some(ColumnarWrite::Parquet(p)) = columnar.as_mut() else {
            return Err(Error::not_supported(format!(
                "COPY option {} applies to FORMAT parquet only",
                name.to_ascii_uppercase()
            )));
        };
        match name.as_str() {
            "compression" => p.compression = ParquetCompression::parse(value)?,
            "compression_level" => {
                p.compression_level = Some(value.parse().map_err(|_| {
                    Error::binder(format!("COMPRESSION_LEVEL takes a number, got {value}"))
                })?)
            }
            _ => {
                p.row_group_size =
                    value
                        .parse()
                        .ok()
                        .filter(|&n: &usize| n > 0)
                        .ok_or_else(|| {
                            Error::binder(format!(
                                "ROW_GROUP_SIZE takes a number of rows, got {value}"
                            ))
                        })?
            }
        }
    }
    if let Some(c) = &columnar {
        let name = c.format().name();
        if delimiter.is_some()
            || null.is_some()
            || header.is_some()
            || quote.is_some()
            || escape.is_some()
            || !legacy.is_empty()
        {
            return Err(Error::binder(format!(
                "COPY options DELIMITER, NULL, HEADER, QUOTE and ESCAPE apply to CSV, not to FORMAT {name}"
            )));
        }
        if stream {
            return Err(Error::not_supported(format!(
                "COPY with FORMAT {name} needs a file; STDIN and STDOUT carry CSV or text"
            )));
        }
    }
    let text = format.unwrap_or(stream);
    if text && (quote.is_some() || escape.is_some()) {
        return Err(Error::binder(
            "COPY QUOTE and ESCAPE are available only with FORMAT csv",
        ));
    }
    if stream && partition_by.is_some() {
        return Err(Error::not_supported(
            "COPY with PARTITION_BY needs a folder to write to, not STDOUT",
        ));
    }
    Ok(CopyOptions {
        partition_by,
        overwrite,
        columnar,
        text,
        delimiter: delimiter.unwrap_or(if text { b'\t' } else { b',' }),
        null: null.unwrap_or_else(|| if text { "\\N".into() } else { String::new() }),
        header,
        quote,
        escape,
    })
}

/// PARTITION_BY's column names as positions in the rows COPY writes.
fn partition_by(plan: &LogicalPlan, names: &[String], overwrite: Overwrite) -> Result<PartitionBy> {
    let schema = plan.schema();
    let keys = names
        .iter()
        .map(|n| {
            schema
                .iter()
                .position(|f| f.name.eq_ignore_ascii_case(n))
                .ok_or_else(|| {
                    Error::binder(format!(
                        "PARTITION_BY column \"{n}\" is not among the columns COPY writes ({})",
                        schema
                            .iter()
                            .map(|f| f.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })
        })
        .collect::<Result<Vec<usize>>>()?;
    if (0..schema.len()).all(|c| keys.contains(&c)) {
        return Err(Error::binder(
            "COPY with PARTITION_BY needs a column that is not a partition key: every column would be in the folder names and none in the files",
        ));
    }
    Ok(PartitionBy { keys, overwrite })
}

fn text(s: impl Into<String>) -> ScalarValue {
    ScalarValue::Varchar(s.into())
}

fn ascii(c: char, what: &str) -> Result<u8> {
    if c.is_ascii() {
        Ok(c as u8)
    } else {
        Err(Error::not_supported(format!(
            "COPY {what} must be a single ASCII character, got '{c}'"
        )))
    }
}

/// Parses a type name such as `DECIMAL(15,2)`.
pub fn parse_type(s: &str) -> Result<DataType> {
    let dialect = sqlparser::dialect::DuckDbDialect {};
    let dt = sqlparser::parser::Parser::new(&dialect)
        .try_with_sql(s)
        .and_then(|mut p| p.parse_data_type())
        .map_err(|e| Error::binder(format!("\"{s}\" is not a type: {e}")))?;
    convert_data_type(&dt)
}
