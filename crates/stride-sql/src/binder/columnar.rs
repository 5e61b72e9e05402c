//! Columnar files: `read_parquet(path | [paths], filename = true)`, `read_arrow(...)`
//! and `FROM 'x.parquet'` / `FROM 'x.arrow'`, and Parquet footers as rows
//! (`parquet_schema`, `parquet_metadata`): binding reads the files' footers
//! (`stride_io::parquet`, `stride_io::arrow_file`) for their columns, so a query
//! over files is typed like one over a table. Globs (`'dir/*.parquet'`) expand here;
//! `enable_external_access` and the allowed directories apply as for CSV files.

use super::Binder;
use crate::plan::{ColumnarSource, Expr, Field, LogicalPlan, TableFunction};
use sqlparser::ast;
use stride_common::{Error, Result, ScalarValue};
use stride_io::columnar::ColumnarFormat;
use stride_io::hive::FileColumns;
use stride_io::parquet::{self, ParquetFile};

const OPTIONS: [&str; 2] = ["filename", "hive_partitioning"];

impl Binder<'_> {
    /// `read_parquet(path | [paths], option = value, ...)` and `read_arrow(...)`.
    pub(super) fn bind_read_columnar(
        &mut self,
        args: &[ast::FunctionArg],
        format: ColumnarFormat,
    ) -> Result<LogicalPlan> {
        let function = format!("read_{}", format.name());
        self.settings.check_external_access(&function)?;
        let (paths, options) = self.file_function_args(args, &function)?;
        let (mut filename, mut hive) = (false, None);
        for (name, e) in options {
            let name = name.to_ascii_lowercase();
            let value = self.constant(e, &function)?;
            let on = match value {
                ScalarValue::Boolean(b) => b,
                other => {
                    return Err(Error::binder(format!(
                        "{function} option {name} takes true or false, got {other}"
                    )))
                }
            };
            match name.as_str() {
                "filename" => filename = on,
                "hive_partitioning" => hive = Some(on),
                other => {
                    return Err(Error::binder(format!(
                        "{function} has no option {other}; its options are {}",
                        OPTIONS.join(", ")
                    )))
                }
            }
        }
        self.columnar_scan(format, &paths, filename, hive)
    }

    /// A scan of Parquet or Arrow files (`FROM 'x.parquet'` too), with a
    /// `filename` column when asked and hive partition columns when asked or, with
    /// `hive` not given, when every file lies in `key=value` folders.
    pub(super) fn columnar_scan(
        &mut self,
        format: ColumnarFormat,
        paths: &[String],
        filename: bool,
        hive: Option<bool>,
    ) -> Result<LogicalPlan> {
        self.settings.check_external_access("reading files")?;
        let files = self.expand_paths(paths)?;
        let extra = FileColumns::new(&files, filename, hive)?;
        let reader = format.bind(&files, extra)?;
        Ok(super::source_scan(reader.schema(), |columns| {
            TableFunction::ReadColumnar {
                source: ColumnarSource(reader),
                columns,
            }
        }))
    }
}

impl Binder<'_> {
    /// `parquet_schema(path)` (`metadata` false) and `parquet_metadata(path)`: what
    /// the files' footers say, a row per schema element or per column chunk.
    /// `parquet_file_metadata(path)`: one row of file-level footer fields per file.
    pub(super) fn bind_parquet_file_metadata(
        &mut self,
        args: &[ast::FunctionArg],
    ) -> Result<LogicalPlan> {
        let what = "parquet_file_metadata";
        self.settings.check_external_access(what)?;
        let [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e))] = args else {
            return Err(Error::binder(format!(
                "{what} takes one path (or a list of paths)"
            )));
        };
        let paths = self.file_paths(e, what)?;
        let files = ParquetFile::open_all(&self.expand_paths(&paths)?)?;
        let columns = parquet::file_metadata_columns();
        Ok(super::constant_rows(
            columns.into_iter().map(|(n, t)| Field::new(n, t)).collect(),
            ParquetFile::file_metadata_rows(&files)?,
        ))
    }

    pub(super) fn bind_parquet_footer(
        &mut self,
        args: &[ast::FunctionArg],
        metadata: bool,
    ) -> Result<LogicalPlan> {
        let what = if metadata {
            "parquet_metadata"
        } else {
            "parquet_schema"
        };
        self.settings.check_external_access(what)?;
        let [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e))] = args else {
            return Err(Error::binder(format!(
                "{what} takes one path (or a list of paths)"
            )));
        };
        let paths = self.file_paths(e, what)?;
        let files = ParquetFile::open_all(&self.expand_paths(&paths)?)?;
        let (columns, rows) = if metadata {
            (
                &parquet::METADATA_COLUMNS[..],
                ParquetFile::metadata_rows(&files),
            )
        } else {
            (
                &parquet::SCHEMA_COLUMNS[..],
                ParquetFile::schema_rows(&files),
            )
        };
        Ok(LogicalPlan::Values {
            schema: columns
                .iter()
                .map(|(n, t)| Field::new(*n, t.clone()))
                .collect(),
            rows: rows
                .into_iter()
                .map(|row| {
                    row.into_iter()
                        .zip(columns)
                        .map(|(value, (_, ty))| Expr::Literal {
                            value,
                            ty: ty.clone(),
                        })
                        .collect()
                })
                .collect(),
        })
    }
}
