//! Columnar files as scan sources: what the planner and the executor need of a set
//! of Parquet or Arrow files, whatever the format.
//!
//! Where it sits: the binder opens the files (footers only) and puts the reader in
//! the logical plan; join ordering asks it for row and distinct-value estimates; the
//! executor runs one morsel (a Parquet row group, an Arrow record batch) per task,
//! skipping morsels whose statistics rule out a filter's rows. Also here: what the
//! formats share (which format a path or a COPY option names, the columns of files
//! read as one table, cutting decoded batches into vectors) and how COPY writes them
//! ([`ColumnarWrite`]).

use crate::arrow::stride_type;
use crate::hive::FileColumns;
use stride_common::{DataChunk, DataType, Result, ScalarValue};

pub trait ColumnarReader: Send + Sync {
    /// The table function that reads this format, as EXPLAIN names it (`READ_PARQUET`).
    fn function_name(&self) -> &'static str;
    /// The files, in the order their morsels are numbered.
    fn paths(&self) -> Vec<&str>;
    /// Column names and types: the files' own, then the [`FileColumns`] (hive
    /// partition keys, the file name).
    fn names(&self) -> &[String];
    fn types(&self) -> &[DataType];
    /// Rows in every file, from the footers.
    fn estimated_rows(&self) -> usize;
    /// Units of parallel work: row groups, record batches.
    fn morsels(&self) -> usize;
    /// Rows of morsel `m`.
    fn rows(&self, m: usize) -> usize;
    /// (smallest value, largest value, NULLs, rows) of column `c` in morsel `m`,
    /// where the file keeps statistics stride can use; lets a scan skip morsels no
    /// row of which can pass a filter.
    fn statistics(&self, _m: usize, _c: usize) -> Option<(ScalarValue, ScalarValue, u64, u64)> {
        None
    }
    /// An upper bound on the distinct values of column `c`, from statistics.
    fn distinct_estimate(&self, _c: usize) -> Option<f64> {
        None
    }
    /// Reads morsel `m`, producing `columns` (positions in [`ColumnarReader::names`]).
    fn produce(
        &self,
        m: usize,
        columns: &[usize],
        emit: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()>;

    fn schema(&self) -> Vec<(String, DataType)> {
        self.names()
            .iter()
            .cloned()
            .zip(self.types().iter().cloned())
            .collect()
    }
}

/// Hands out `rows` rows of `columns` (flat or constant vectors) as chunks of up to
/// `VECTOR_SIZE` rows: windows of the vectors, not copies.
pub fn emit_windows(
    columns: &[stride_common::Vector],
    rows: usize,
    emit: &mut dyn FnMut(DataChunk) -> Result<()>,
) -> Result<()> {
    let mut offset = 0;
    while offset < rows {
        let len = stride_common::VECTOR_SIZE.min(rows - offset);
        emit(DataChunk::new(
            columns.iter().map(|v| v.slice(offset, len)).collect(),
            len,
        ))?;
        offset += len;
    }
    Ok(())
}

/// What the footers cannot say of a column that holds one value per file: that
/// value as the column's smallest and largest, for every row of morsel `m`.
pub fn file_column_statistics(
    value: &ScalarValue,
    rows: usize,
) -> Option<(ScalarValue, ScalarValue, u64, u64)> {
    let nulls = if value.is_null() { rows as u64 } else { 0 };
    Some((value.clone(), value.clone(), nulls, rows as u64))
}

/// The columns of files read as one table: the first file's, as stride types, then
/// the per-file columns of `extra`. Every file must have the first one's columns
/// (see [`same_columns`]); `files` pairs each path with its Arrow schema, and
/// `format` names the format in errors ("Parquet").
pub fn table_columns(
    format: &str,
    files: &[(&str, &arrow_schema::Schema)],
    extra: &FileColumns,
) -> Result<(Vec<String>, Vec<DataType>)> {
    let Some(&(first, schema)) = files.first() else {
        return Err(stride_common::Error::io(format!("no {format} files found")));
    };
    let mut names = Vec::with_capacity(schema.fields().len() + extra.len());
    let mut types = Vec::with_capacity(schema.fields().len() + extra.len());
    for field in schema.fields() {
        names.push(field.name().clone());
        types.push(stride_type(field.name(), field.data_type()).map_err(|e| {
            stride_common::Error::new(e.kind, format!("{} (in \"{first}\")", e.message))
        })?);
    }
    for &(path, other) in &files[1..] {
        if !same_columns(other, schema) {
            return Err(stride_common::Error::invalid_input(format!(
                "{format} file \"{path}\" has other columns than \"{first}\": read them separately"
            )));
        }
    }
    names.extend(extra.names.iter().cloned());
    types.extend(extra.types.iter().cloned());
    Ok((names, types))
}

/// Whether files with these Arrow schemas can be read as one table: the same column
/// names, read as the same stride types (a dictionary-encoded string column and a
/// plain one can, an INTEGER and a BIGINT cannot).
fn same_columns(a: &arrow_schema::Schema, b: &arrow_schema::Schema) -> bool {
    a.fields().len() == b.fields().len()
        && a.fields().iter().zip(b.fields()).all(|(x, y)| {
            x.name() == y.name()
                && stride_type(x.name(), x.data_type()).ok()
                    == stride_type(y.name(), y.data_type()).ok()
        })
}

/// The columnar file formats stride reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnarFormat {
    Parquet,
    /// Arrow IPC files (Feather v2).
    Arrow,
}

impl ColumnarFormat {
    /// The format a path's extension names (globs included), if columnar.
    pub fn of_path(path: &str) -> Option<ColumnarFormat> {
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".parquet") {
            Some(ColumnarFormat::Parquet)
        } else if [".arrow", ".feather", ".ipc"]
            .iter()
            .any(|e| lower.ends_with(e))
        {
            Some(ColumnarFormat::Arrow)
        } else {
            None
        }
    }

    /// The format a COPY `FORMAT` option names.
    pub fn named(name: &str) -> Option<ColumnarFormat> {
        match name.to_ascii_lowercase().as_str() {
            "parquet" => Some(ColumnarFormat::Parquet),
            "arrow" | "feather" | "ipc" => Some(ColumnarFormat::Arrow),
            _ => None,
        }
    }

    /// Its name in SQL, as FORMAT and the read function say it.
    pub fn name(self) -> &'static str {
        match self {
            ColumnarFormat::Parquet => "parquet",
            ColumnarFormat::Arrow => "arrow",
        }
    }

    /// Binds `paths` (globs already expanded) for reading.
    pub fn bind(
        self,
        paths: &[String],
        extra: FileColumns,
    ) -> Result<std::sync::Arc<dyn ColumnarReader>> {
        Ok(match self {
            ColumnarFormat::Parquet => {
                std::sync::Arc::new(crate::parquet::ParquetReader::bind(paths, extra)?)
            }
            ColumnarFormat::Arrow => {
                std::sync::Arc::new(crate::arrow_file::ArrowReader::bind(paths, extra)?)
            }
        })
    }
}

/// How `COPY ... TO` writes a columnar file.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnarWrite {
    Parquet(crate::parquet::ParquetWriteOptions),
    Arrow,
}

impl ColumnarWrite {
    pub fn format(&self) -> ColumnarFormat {
        match self {
            ColumnarWrite::Parquet(_) => ColumnarFormat::Parquet,
            ColumnarWrite::Arrow => ColumnarFormat::Arrow,
        }
    }

    /// With the format's default options.
    pub fn of(format: ColumnarFormat) -> ColumnarWrite {
        match format {
            ColumnarFormat::Parquet => ColumnarWrite::Parquet(Default::default()),
            ColumnarFormat::Arrow => ColumnarWrite::Arrow,
        }
    }

    /// Writes `chunks` (a result with these columns) to a new file at `path`, on up
    /// to `threads` threads; returns the rows written.
    pub fn write_file(
        &self,
        path: &str,
        names: &[String],
        types: &[DataType],
        chunks: &[DataChunk],
        threads: usize,
    ) -> Result<u64> {
        match self {
            ColumnarWrite::Parquet(o) => {
                crate::parquet::write_file(path, names, types, chunks, o, threads)
            }
            ColumnarWrite::Arrow => crate::arrow_file::write_file(path, names, types, chunks),
        }
    }
}
