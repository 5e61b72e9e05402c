//! Reading JSON files: `read_json`, `read_json_auto`, `read_ndjson`,
//! `read_ndjson_auto` and `FROM 'x.json'` / `.ndjson` / `.jsonl`, bound by
//! `stride-sql/src/binder/json.rs`. The reader follows the CSV reader's shape:
//! [`JsonReader::bind`] opens the files (memory-mapped, `.gz` decompressed),
//! decides each file's format (an array of values, or values one after another,
//! newline-delimited when every sampled value sits on its own line), and sniffs
//! the columns from up to `sample_size` values: each object key a column, in order
//! of first appearance, typed from the values it holds (integers BIGINT, other
//! numbers DOUBLE, strings VARCHAR, or DATE / TIMESTAMP when every one reads as
//! such, booleans BOOLEAN, integers past BIGINT HUGEINT, arrays lists of their
//! elements' common type, objects STRUCTs of their keys' fields (those of every
//! sampled object), empty objects, objects of more than 200 keys and disagreeing
//! values JSON). Values that are not objects (or `records = false`) give one
//! column `json`.
//!
//! At execution it is a [`ColumnarReader`]: newline-delimited files are cut into
//! morsels of about 8 MB at line ends, which workers parse in parallel
//! ([`JsonReader::produce`]); other files are one morsel each. A malformed value
//! is an error naming the file, line and byte, or, with `ignore_errors`, a row
//! of NULLs.

use crate::columnar::{emit_windows, ColumnarReader};
use crate::file::{self, FileData};
use crate::hive::FileColumns;
use serde_json::Value;
use std::sync::Arc;
use stride_common::{DataChunk, DataType, Error, Result, ScalarValue, Vector};
use stride_functions::scalar::json::{convert, value};

/// Bytes per morsel of a newline-delimited file.
const MORSEL_BYTES: usize = 8 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum JsonFormat {
    #[default]
    Auto,
    NewlineDelimited,
    Array,
    /// Values one after another, possibly over several lines each.
    Unstructured,
}

impl JsonFormat {
    pub fn named(s: &str) -> Option<JsonFormat> {
        Some(match s.to_ascii_lowercase().as_str() {
            "auto" => JsonFormat::Auto,
            "newline_delimited" | "nd" => JsonFormat::NewlineDelimited,
            "array" => JsonFormat::Array,
            "unstructured" => JsonFormat::Unstructured,
            _ => return None,
        })
    }
}

/// The options of `read_json`.
#[derive(Clone, Debug)]
pub struct JsonOptions {
    pub format: JsonFormat,
    /// `records`: None is `auto` (objects become columns).
    pub records: Option<bool>,
    /// `columns = {name: 'TYPE', ...}`: no sniffing.
    pub columns: Option<Vec<(String, DataType)>>,
    pub sample_size: usize,
    pub ignore_errors: bool,
    pub maximum_object_size: usize,
    /// `read_json_objects`: one JSON column `json` with each value's text as
    /// written (no sniffing).
    pub objects: bool,
}

impl Default for JsonOptions {
    fn default() -> Self {
        JsonOptions {
            format: JsonFormat::Auto,
            records: None,
            columns: None,
            sample_size: 20480,
            ignore_errors: false,
            maximum_object_size: 16 << 20,
            objects: false,
        }
    }
}

struct Morsel {
    file: usize,
    start: usize,
    end: usize,
    /// Line number (1-based) of `start`.
    line: usize,
    format: JsonFormat,
    rows: usize,
}

pub struct JsonReader {
    files: Vec<Arc<FileData>>,
    morsels: Vec<Morsel>,
    names: Vec<String>,
    types: Vec<DataType>,
    /// Whether each value is an object whose keys are the columns (else the value
    /// itself is the one column).
    records: bool,
    data_columns: usize,
    ignore_errors: bool,
    maximum_object_size: usize,
    /// Values as their text (`JsonOptions::objects`).
    objects: bool,
    extra: FileColumns,
    paths: Vec<String>,
}

impl JsonReader {
    pub fn bind(paths: &[String], options: &JsonOptions, extra: FileColumns) -> Result<JsonReader> {
        let mut files = Vec::with_capacity(paths.len());
        let mut morsels = Vec::new();
        for (f, p) in paths.iter().enumerate() {
            let data = Arc::new(file::open(p)?);
            let bytes = data.bytes();
            let format = detect_format(bytes, options.format);
            cut_morsels(f, bytes, format, &mut morsels);
            files.push(data);
        }
        // Sample values in file order (none when they are read as text).
        let mut sample: Vec<Value> = Vec::new();
        for m in morsels.iter().filter(|_| !options.objects) {
            if sample.len() >= options.sample_size {
                break;
            }
            let bytes = &files[m.file].bytes()[m.start..m.end];
            let mut errors = |e: Error| -> Result<()> {
                if options.ignore_errors {
                    Ok(())
                } else {
                    Err(e)
                }
            };
            for_each_value(
                bytes,
                m.format,
                &paths[m.file],
                m.line,
                &mut |v| {
                    if sample.len() < options.sample_size {
                        sample.push(v);
                    }
                    Ok(sample.len() < options.sample_size)
                },
                &mut errors,
            )?;
        }
        let records = match options.records {
            _ if options.objects => false,
            Some(r) => r,
            None => {
                options.columns.is_some()
                    || sample.iter().all(|v| v.is_object() || v.is_null()) && !sample.is_empty()
            }
        };
        let (names, types) = match &options.columns {
            _ if options.objects => (vec!["json".to_string()], vec![DataType::Json]),
            Some(cols) => cols.iter().cloned().unzip(),
            None if records => sniff_columns(&sample),
            None => {
                let mut t = DataType::Null;
                for v in &sample {
                    t = merge(t, type_of(v));
                }
                (vec!["json".to_string()], vec![finish(t)])
            }
        };
        if records && names.is_empty() {
            return Err(Error::invalid_input(format!(
                "no columns found in the JSON file{} \"{}\": give them with columns = {{name: 'TYPE', ...}}",
                if paths.len() > 1 { "s" } else { "" },
                paths.join("\", \"")
            )));
        }
        let data_columns = names.len();
        let mut all_names = names;
        let mut all_types = types;
        all_names.extend(extra.names.iter().cloned());
        all_types.extend(extra.types.iter().cloned());
        Ok(JsonReader {
            files,
            morsels,
            names: all_names,
            types: all_types,
            records,
            data_columns,
            ignore_errors: options.ignore_errors,
            maximum_object_size: options.maximum_object_size,
            objects: options.objects,
            extra,
            paths: paths.to_vec(),
        })
    }
}

fn detect_format(bytes: &[u8], asked: JsonFormat) -> JsonFormat {
    if asked != JsonFormat::Auto {
        return asked;
    }
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') {
        // An array of values, unless the file is lines of arrays.
        let line_end = memchr::memchr(b'\n', bytes).unwrap_or(bytes.len());
        let line = &bytes[..line_end];
        let rest_blank = bytes[line_end..].iter().all(|b| b.is_ascii_whitespace());
        if rest_blank || !value::is_valid_bytes(line) {
            return JsonFormat::Array;
        }
    }
    // Newline-delimited when the first values each sit on one line.
    let mut at = 0;
    for _ in 0..100 {
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        if at >= bytes.len() {
            break;
        }
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |p| at + p);
        if !value::is_valid_bytes(&bytes[at..end]) {
            return JsonFormat::Unstructured;
        }
        at = end;
    }
    JsonFormat::NewlineDelimited
}

fn cut_morsels(file: usize, bytes: &[u8], format: JsonFormat, out: &mut Vec<Morsel>) {
    if format != JsonFormat::NewlineDelimited {
        out.push(Morsel {
            file,
            start: 0,
            end: bytes.len(),
            line: 1,
            format,
            rows: bytes.len() / 64 + 1,
        });
        return;
    }
    let (mut start, mut line) = (0, 1);
    while start < bytes.len() {
        let mut end = (start + MORSEL_BYTES).min(bytes.len());
        if end < bytes.len() {
            end = memchr::memchr(b'\n', &bytes[end..]).map_or(bytes.len(), |p| end + p + 1);
        }
        let lines = memchr::memchr_iter(b'\n', &bytes[start..end]).count();
        out.push(Morsel {
            file,
            start,
            end,
            line,
            format,
            rows: lines.max(1),
        });
        line += lines;
        start = end;
    }
}

/// The error for a malformed value of the file at `path` (`line_offset`: the
/// line the parsed text starts on, less one).
pub(crate) fn malformed(path: &str, e: &serde_json::Error, line_offset: usize) -> Error {
    let mut what = e.to_string();
    if let Some(at) = what.rfind(" at line ") {
        what.truncate(at);
    }
    Error::invalid_input(format!(
        "Malformed JSON in file \"{path}\", at byte {} in line {}: {what}. Check the file, or read it with ignore_errors = true to skip malformed values",
        e.column(),
        e.line() + line_offset
    ))
}

/// Calls `f` with each value of `bytes` (a whole array file, or values one after
/// another) until it returns false; a malformed value goes to `on_error` (which
/// fails the read or skips it) and, for newline-delimited text, the reading goes on
/// at the next line.
fn for_each_value(
    bytes: &[u8],
    format: JsonFormat,
    path: &str,
    first_line: usize,
    f: &mut dyn FnMut(Value) -> Result<bool>,
    on_error: &mut dyn FnMut(Error) -> Result<()>,
) -> Result<()> {
    let located = |e: &serde_json::Error, line_offset: usize| malformed(path, e, line_offset);
    match format {
        JsonFormat::Array => {
            let v: Value = match serde_json::from_slice(bytes) {
                Ok(v) => v,
                Err(e) => return on_error(located(&e, first_line - 1)),
            };
            match v {
                Value::Array(items) => {
                    for x in items {
                        if !f(x)? {
                            break;
                        }
                    }
                }
                other => {
                    f(other)?;
                }
            }
            Ok(())
        }
        JsonFormat::NewlineDelimited => {
            for (this, l) in (first_line..).zip(bytes.split(|b| *b == b'\n')) {
                if l.iter().all(|b| b.is_ascii_whitespace()) {
                    continue;
                }
                match serde_json::from_slice::<Value>(l) {
                    Ok(v) => {
                        if !f(v)? {
                            break;
                        }
                    }
                    Err(e) => {
                        on_error(located(&e, this - 1))?;
                        if !f(Value::Null)? {
                            break;
                        }
                    }
                }
            }
            Ok(())
        }
        _ => {
            let mut stream = serde_json::Deserializer::from_slice(bytes).into_iter::<Value>();
            for v in stream.by_ref() {
                match v {
                    Ok(v) => {
                        if !f(v)? {
                            break;
                        }
                    }
                    Err(e) => {
                        // the rest cannot be read: one row of NULLs for it
                        on_error(located(&e, first_line - 1))?;
                        f(Value::Null)?;
                        break;
                    }
                }
            }
            Ok(())
        }
    }
}

/// The sniffed type of one value (before [`finish`]).
fn type_of(v: &Value) -> DataType {
    match v {
        Value::Null => DataType::Null,
        Value::Bool(_) => DataType::Boolean,
        Value::Number(n) => {
            let text = n.as_str();
            if text.contains(['.', 'e', 'E']) {
                DataType::Double
            } else if n.as_i64().is_some() {
                DataType::BigInt
            } else if text.parse::<i128>().is_ok() {
                // past BIGINT, kept whole, as DuckDB
                DataType::HugeInt
            } else {
                DataType::Double
            }
        }
        Value::String(s) => string_type(s),
        Value::Array(items) => {
            let mut t = DataType::Null;
            for x in items {
                t = merge(t, type_of(x));
            }
            DataType::List(Box::new(t))
        }
        // `{}` has no fields to make a STRUCT of
        Value::Object(m) if m.is_empty() => DataType::Json,
        Value::Object(m) => {
            DataType::Struct(m.iter().map(|(k, x)| (k.clone(), type_of(x))).collect())
        }
    }
}

fn string_type(s: &str) -> DataType {
    let b = s.as_bytes();
    if b.len() >= 8 && b[0].is_ascii_digit() && s.contains('-') {
        let text = ScalarValue::Varchar(s.to_string());
        if b.len() <= 10 && stride_functions::cast_scalar(&text, &DataType::Date, false).is_ok() {
            return DataType::Date;
        }
        if stride_functions::cast_scalar(&text, &DataType::Timestamp, false).is_ok() {
            return DataType::Timestamp;
        }
    }
    DataType::Varchar
}

/// The type two sniffed types share: integers widen to HUGEINT, numbers to DOUBLE,
/// a date to a timestamp, dates and text to text, lists element-wise, objects
/// field by field (the fields of both, in order of first appearance); anything
/// else is JSON.
fn merge(a: DataType, b: DataType) -> DataType {
    use DataType::*;
    match (a, b) {
        (a, b) if a == b => a,
        (Null, t) | (t, Null) => t,
        (BigInt, HugeInt) | (HugeInt, BigInt) => HugeInt,
        (BigInt | HugeInt, Double) | (Double, BigInt | HugeInt) => Double,
        (Date, Timestamp) | (Timestamp, Date) => Timestamp,
        (Date | Timestamp | Varchar, Date | Timestamp | Varchar) => Varchar,
        (List(x), List(y)) => List(Box::new(merge(*x, *y))),
        (Struct(mut fields), Struct(more)) => {
            for (name, t) in more {
                match fields.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, have)) => *have = merge(std::mem::replace(have, Null), t),
                    None => fields.push((name, t)),
                }
            }
            Struct(fields)
        }
        _ => Json,
    }
}

/// Objects with more distinct keys than this stay JSON (keys that are data, not
/// fields; DuckDB makes them a MAP).
const MAX_STRUCT_FIELDS: usize = 200;

/// A column type from its merged sniffed type: a column, field or list element that
/// held only NULLs is JSON.
fn finish(t: DataType) -> DataType {
    match t {
        DataType::Null => DataType::Json,
        DataType::Struct(fields) if fields.len() > MAX_STRUCT_FIELDS => DataType::Json,
        DataType::Struct(fields) => DataType::Struct(
            fields
                .into_iter()
                .map(|(name, t)| (name, finish(t)))
                .collect(),
        ),
        DataType::List(e) => match finish(*e) {
            // a list whose elements disagree is JSON as a whole
            DataType::Json => DataType::Json,
            e => DataType::List(Box::new(e)),
        },
        t => t,
    }
}

/// Column names (first appearance) and types from a sample of objects.
fn sniff_columns(sample: &[Value]) -> (Vec<String>, Vec<DataType>) {
    let mut names: Vec<String> = Vec::new();
    let mut types: Vec<DataType> = Vec::new();
    let mut index = std::collections::HashMap::new();
    for v in sample {
        let Value::Object(m) = v else { continue };
        for (k, x) in m {
            let i = *index.entry(k.clone()).or_insert_with(|| {
                names.push(k.clone());
                types.push(DataType::Null);
                names.len() - 1
            });
            types[i] = merge(std::mem::replace(&mut types[i], DataType::Null), type_of(x));
        }
    }
    // A list whose elements were all empty lists or NULLs keeps a JSON element type.
    (
        names,
        types
            .into_iter()
            .map(|t| match t {
                DataType::List(e) if *e == DataType::Null => {
                    DataType::List(Box::new(DataType::Json))
                }
                t => finish(t),
            })
            .collect(),
    )
}

impl ColumnarReader for JsonReader {
    fn function_name(&self) -> &'static str {
        if self.objects {
            "READ_JSON_OBJECTS"
        } else {
            "READ_JSON"
        }
    }

    fn paths(&self) -> Vec<&str> {
        self.paths.iter().map(|p| p.as_str()).collect()
    }

    fn names(&self) -> &[String] {
        &self.names
    }

    fn types(&self) -> &[DataType] {
        &self.types
    }

    fn estimated_rows(&self) -> usize {
        self.morsels.iter().map(|m| m.rows).sum()
    }

    fn morsels(&self) -> usize {
        self.morsels.len()
    }

    fn rows(&self, m: usize) -> usize {
        self.morsels[m].rows
    }

    fn produce(
        &self,
        m: usize,
        columns: &[usize],
        emit: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()> {
        let morsel = &self.morsels[m];
        let path = &self.paths[morsel.file];
        let bytes = &self.files[morsel.file].bytes()[morsel.start..morsel.end];
        let mut vectors: Vec<Vector> = columns
            .iter()
            .map(|&c| Vector::with_capacity(&self.types[c], 2048))
            .collect();
        let mut rows = 0usize;
        let mut line = morsel.line;
        let ignore = self.ignore_errors;
        let max = self.maximum_object_size;
        if morsel.format == JsonFormat::NewlineDelimited {
            if let Some(long) = bytes.split(|b| *b == b'\n').position(|l| l.len() > max) {
                return Err(Error::invalid_input(format!(
                    "a value in file \"{path}\" at line {} is longer than maximum_object_size ({max} bytes); raise it with maximum_object_size = N",
                    morsel.line + long
                )));
            }
        }
        let mut flush = |vectors: &mut Vec<Vector>, rows: &mut usize| -> Result<()> {
            if *rows == 0 {
                return Ok(());
            }
            let mut out: Vec<Vector> = Vec::with_capacity(columns.len());
            for (v, &c) in vectors.iter_mut().zip(columns) {
                let full = std::mem::replace(v, Vector::with_capacity(&self.types[c], 2048));
                out.push(match c.checked_sub(self.data_columns) {
                    None => full,
                    Some(k) => {
                        Vector::constant(&self.extra.values[morsel.file][k], &self.types[c])?
                    }
                });
            }
            let n = *rows;
            *rows = 0;
            emit_windows(&out, n, emit)
        };
        if self.objects {
            let mut on_error = |e: Error| if ignore { Ok(()) } else { Err(e) };
            crate::json_objects::for_each_raw(
                bytes,
                morsel.format,
                path,
                morsel.line,
                &mut |text| {
                    for (vec, &c) in vectors.iter_mut().zip(columns) {
                        if c >= self.data_columns {
                            continue;
                        }
                        match text {
                            Some(t) => vec.push(&ScalarValue::Varchar(
                                String::from_utf8_lossy(t).into_owned(),
                            ))?,
                            None => vec.push_null(),
                        }
                    }
                    rows += 1;
                    if rows == 2048 {
                        flush(&mut vectors, &mut rows)?;
                    }
                    Ok(true)
                },
                &mut on_error,
            )?;
            return flush(&mut vectors, &mut rows);
        }
        let mut failure: Option<Error> = None;
        let mut on_error = |e: Error| -> Result<()> {
            if ignore {
                Ok(())
            } else {
                Err(e)
            }
        };
        for_each_value(
            bytes,
            morsel.format,
            path,
            morsel.line,
            &mut |v| {
                for (vec, &c) in vectors.iter_mut().zip(columns) {
                    if c >= self.data_columns {
                        continue;
                    }
                    let x = if self.records {
                        match &v {
                            Value::Object(m) => {
                                m.get(self.names[c].as_str()).unwrap_or(&Value::Null)
                            }
                            _ => &Value::Null,
                        }
                    } else {
                        &v
                    };
                    let s = match convert::transform(x, &self.types[c], convert::Mode::Strict) {
                        Ok(s) => s,
                        Err(_) if ignore => ScalarValue::Null,
                        Err(_) => {
                            failure = Some(Error::invalid_input(format!(
                            "could not read {} as {} for column \"{}\" in file \"{path}\" near line {line}: the column's type was detected from the first values; give it with columns = {{...}} or raise sample_size",
                            value::to_text(x),
                            self.types[c],
                            self.names[c],
                        )));
                            return Ok(false);
                        }
                    };
                    vec.push(&s)?;
                }
                rows += 1;
                line += 1;
                if rows == 2048 {
                    flush(&mut vectors, &mut rows)?;
                }
                Ok(true)
            },
            &mut on_error,
        )?;
        if let Some(e) = failure {
            return Err(e);
        }
        flush(&mut vectors, &mut rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A newline-delimited file past one morsel is cut at line ends, and every
    /// morsel's rows add up to the file's.
    #[test]
    fn large_files_are_cut_into_morsels_at_line_ends() {
        let dir = std::env::temp_dir().join(format!("stride-json-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("big.ndjson").to_string_lossy().into_owned();
        let mut text = String::new();
        let mut n = 0usize;
        while text.len() < MORSEL_BYTES * 2 + 1000 {
            text.push_str(&format!(
                "{{\"id\":{n},\"name\":\"row number {n} with some padding text\"}}\n"
            ));
            n += 1;
        }
        std::fs::write(&path, &text).unwrap();
        let reader = JsonReader::bind(
            std::slice::from_ref(&path),
            &JsonOptions::default(),
            FileColumns::default(),
        )
        .unwrap();
        assert_eq!(reader.types, vec![DataType::BigInt, DataType::Varchar]);
        assert!(reader.morsels() >= 2);
        let mut rows = 0;
        let mut sum = 0i64;
        for m in 0..reader.morsels() {
            reader
                .produce(m, &[0], &mut |c| {
                    rows += c.len();
                    let v = c.columns[0].clone().flatten(c.len());
                    sum += v.values::<i64>()[..c.len()].iter().sum::<i64>();
                    Ok(())
                })
                .unwrap();
        }
        assert_eq!(rows, n);
        assert_eq!(sum, (n as i64 - 1) * n as i64 / 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sniffed_types_merge() {
        assert_eq!(merge(DataType::BigInt, DataType::Double), DataType::Double);
        assert_eq!(merge(DataType::Date, DataType::Varchar), DataType::Varchar);
        assert_eq!(merge(DataType::BigInt, DataType::Varchar), DataType::Json);
        assert_eq!(finish(DataType::Null), DataType::Json);
        assert_eq!(string_type("2020-01-02"), DataType::Date);
        assert_eq!(string_type("2020-01-02 10:00:00"), DataType::Timestamp);
        assert_eq!(string_type("hello"), DataType::Varchar);
    }
}
