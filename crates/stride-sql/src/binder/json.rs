//! JSON files: `read_json(path | [paths], option = value, ...)`, `read_json_auto`,
//! `read_ndjson`, `read_ndjson_auto` and `FROM 'x.json'` / `.ndjson` / `.jsonl`;
//! `read_json_objects`, `read_json_objects_auto` and `read_ndjson_objects` read the
//! same files as one JSON column `json` of each value's text.
//! Binding expands globs, checks the allowed directories, and has
//! `stride_io::json::JsonReader` sniff the files' columns, so the query is typed
//! like one over a table; the plan node is the columnar scan
//! (`TableFunction::ReadColumnar`), which reads morsels of the files in parallel.

use super::Binder;
use crate::plan::{ColumnarSource, LogicalPlan, TableFunction};
use sqlparser::ast;
use stride_common::{Error, Result, ScalarValue};
use stride_io::hive::FileColumns;
use stride_io::json::{JsonFormat, JsonOptions, JsonReader};

const OPTIONS: &[&str] = &[
    "format",
    "records",
    "columns",
    "sample_size",
    "ignore_errors",
    "maximum_object_size",
    "filename",
    "hive_partitioning",
    "auto_detect",
    "compression",
];

/// Whether `FROM 'path'` names a JSON file.
pub(super) fn is_json_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let lower = lower.strip_suffix(".gz").unwrap_or(&lower);
    [".json", ".ndjson", ".jsonl"]
        .iter()
        .any(|e| lower.ends_with(e))
}

impl Binder<'_> {
    pub(super) fn bind_read_json(
        &mut self,
        args: &[ast::FunctionArg],
        function: &str,
        ndjson: bool,
    ) -> Result<LogicalPlan> {
        self.settings.check_external_access(function)?;
        let (paths, options) = self.file_function_args(args, function)?;
        let mut opts = JsonOptions::default();
        if ndjson {
            opts.format = JsonFormat::NewlineDelimited;
        }
        opts.objects = function.contains("_objects");
        let (mut filename, mut hive) = (false, None);
        for (name, e) in options {
            let name = name.to_ascii_lowercase();
            if opts.objects && matches!(name.as_str(), "columns" | "records" | "sample_size") {
                return Err(Error::binder(format!(
                    "{function} has no option {name}: it reads each value whole, as JSON"
                )));
            }
            if name == "columns" {
                let ast::Expr::Dictionary(fields) = e else {
                    return Err(Error::binder(format!(
                        "{function} option columns takes a struct such as {{a: 'INTEGER', b: 'VARCHAR'}}"
                    )));
                };
                let mut cols = Vec::with_capacity(fields.len());
                for f in fields {
                    cols.push((f.key.value.clone(), self.type_option(&f.value)?));
                }
                opts.columns = Some(cols);
                continue;
            }
            let value = self.constant(e, function)?;
            let bool_value = |v: &ScalarValue| match v {
                ScalarValue::Boolean(b) => Ok(*b),
                other => Err(Error::binder(format!(
                    "{function} option {name} takes true or false, got {other}"
                ))),
            };
            let count = |v: &ScalarValue| {
                v.as_i64().filter(|n| *n > 0).ok_or_else(|| {
                    Error::binder(format!(
                        "{function} option {name} takes a positive number, got {v}"
                    ))
                })
            };
            match name.as_str() {
                "format" => {
                    let text = value.to_string();
                    opts.format = JsonFormat::named(&text).ok_or_else(|| {
                        Error::binder(format!(
                            "{function} option format takes 'auto', 'newline_delimited' or 'array', got '{text}'"
                        ))
                    })?;
                }
                "records" => {
                    opts.records = match &value {
                        ScalarValue::Varchar(s) if s.eq_ignore_ascii_case("auto") => None,
                        ScalarValue::Varchar(s) if s.eq_ignore_ascii_case("true") => Some(true),
                        ScalarValue::Varchar(s) if s.eq_ignore_ascii_case("false") => Some(false),
                        other => Some(bool_value(other)?),
                    }
                }
                "sample_size" => {
                    opts.sample_size = match value.as_i64() {
                        Some(-1) => usize::MAX,
                        _ => count(&value)? as usize,
                    }
                }
                "ignore_errors" => opts.ignore_errors = bool_value(&value)?,
                "maximum_object_size" => opts.maximum_object_size = count(&value)? as usize,
                "filename" => filename = bool_value(&value)?,
                "hive_partitioning" => hive = Some(bool_value(&value)?),
                "auto_detect" => {
                    bool_value(&value)?;
                }
                "compression" => {}
                other => {
                    return Err(Error::binder(format!(
                        "{function} has no option {other}; its options are {}",
                        OPTIONS.join(", ")
                    )))
                }
            }
        }
        self.json_scan(&paths, &opts, filename, hive)
    }

    pub(super) fn json_scan(
        &mut self,
        paths: &[String],
        options: &JsonOptions,
        filename: bool,
        hive: Option<bool>,
    ) -> Result<LogicalPlan> {
        self.settings.check_external_access("reading files")?;
        let files = self.expand_paths(paths)?;
        let extra = FileColumns::new(&files, filename, hive)?;
        let reader: std::sync::Arc<dyn stride_io::columnar::ColumnarReader> =
            std::sync::Arc::new(JsonReader::bind(&files, options, extra)?);
        Ok(super::source_scan(reader.schema(), |columns| {
            TableFunction::ReadColumnar {
                source: ColumnarSource(reader),
                columns,
            }
        }))
    }
}
