//! Parquet files, through the `parquet` crate of arrow-rs: reading
//! (`read_parquet`, `FROM 'x.parquet'`) and writing (`COPY ... TO 'x.parquet'`).
//!
//! Where it sits: binding reads each file's footer ([`ParquetReader::bind`]: the
//! schema, the row groups and their statistics), so opening costs no data. The
//! executor then asks for one morsel at a time, a row group of one file, and gets
//! the columns it needs as [`DataChunk`]s of up to `VECTOR_SIZE` rows
//! (the columns it does not need are never decoded). Row groups are read in parallel
//! like any morsels; arrow-rs decodes batches of a few vectors' rows, cut into
//! windows. The writer cuts a result's chunks into row groups, turns each into an
//! Arrow record batch ([`crate::arrow`]) and encodes the row groups on several
//! threads with arrow-rs's column writers, dictionary encoding only the columns whose
//! values repeat; the file is written beside its path and renamed into place.
//!
//! Errors name the file: a file that is not Parquet, a truncated footer, a corrupt
//! page, a type stride does not have.

use crate::arrow::{arrow_schema, record_batch, to_vector_with, StringLayout};
use crate::columnar::{emit_windows, file_column_statistics, table_columns, ColumnarReader};
use crate::hive::FileColumns;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::arrow_writer::compute_leaves;
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{Compression, GzipLevel, ZstdLevel};
use parquet::file::properties::WriterProperties;
use parquet::file::statistics::Statistics;
use std::fs::File;
use std::sync::Arc;
use stride_common::{
    DataChunk, DataType, Error, PhysicalType, Result, ScalarValue, Vector, VECTOR_SIZE,
};

/// One Parquet file, its footer read.
pub struct ParquetFile {
    pub path: String,
    metadata: ArrowReaderMetadata,
}

impl ParquetFile {
    /// Reads the footers of `paths`.
    pub fn open_all(paths: &[String]) -> Result<Vec<ParquetFile>> {
        if paths.is_empty() {
            return Err(Error::io("no Parquet files found"));
        }
        let mut files = Vec::with_capacity(paths.len());
        for path in paths {
            let f = File::open(path).map_err(|e| file_error(path, e))?;
            let plain = ArrowReaderMetadata::load(&f, ArrowReaderOptions::new())
                .map_err(|e| file_error(path, e))?;
            // Strings are decoded as views (pointing into the pages' dictionaries
            // and buffers), which is stride's own layout; short decimals as i64.
            let views = Arc::new(arrow_schema::Schema::new_with_metadata(
                plain
                    .schema()
                    .fields()
                    .iter()
                    .map(|f| match f.data_type() {
                        arrow_schema::DataType::Utf8 | arrow_schema::DataType::LargeUtf8 => {
                            Arc::new(
                                f.as_ref()
                                    .clone()
                                    .with_data_type(arrow_schema::DataType::Utf8View),
                            )
                        }
                        arrow_schema::DataType::Dictionary(_, v)
                            if matches!(
                                **v,
                                arrow_schema::DataType::Utf8 | arrow_schema::DataType::LargeUtf8
                            ) =>
                        {
                            Arc::new(
                                f.as_ref()
                                    .clone()
                                    .with_data_type(arrow_schema::DataType::Utf8View),
                            )
                        }
                        // Decimals of up to 18 digits as 64-bit values, stride's own
                        // width for them, instead of widening and narrowing again.
                        arrow_schema::DataType::Decimal128(p, s) if *p <= 18 => Arc::new(
                            f.as_ref()
                                .clone()
                                .with_data_type(arrow_schema::DataType::Decimal64(*p, *s)),
                        ),
                        _ => f.clone(),
                    })
                    .collect::<Vec<_>>(),
                plain.schema().metadata().clone(),
            ));
            let metadata = ArrowReaderMetadata::try_new(
                plain.metadata().clone(),
                ArrowReaderOptions::new().with_schema(views),
            )
            .map_err(|e| file_error(path, e))?;
            files.push(ParquetFile {
                path: path.clone(),
                metadata,
            });
        }
        Ok(files)
    }
}

/// Bytes of decoded values per batch arrow-rs hands over. Its work per batch is
/// fixed, so narrow scans pay less with batches of several vectors (stride's vectors
/// are windows of the batch); a wide scan keeps batches of one vector, so that the
/// operators above read the values while they are still in the core's cache (TPC-H
/// Q01 over Parquet, seven columns: 0.30 s with 2,048 rows, 0.40 s with 8,192; Q06,
/// four columns: 0.14 s against 0.11 s).
const DECODE_BYTES: usize = 256 * 1024;

/// Rows per decoded batch for columns of these types: a multiple of VECTOR_SIZE.
fn decode_rows<'a>(types: impl Iterator<Item = &'a DataType>) -> usize {
    let width: usize = types
        .map(|t| match t.physical() {
            PhysicalType::Bool | PhysicalType::I8 => 1,
            PhysicalType::I16 => 2,
            PhysicalType::I32 | PhysicalType::F32 => 4,
            PhysicalType::I64 | PhysicalType::F64 => 8,
            _ => 16,
        })
        .sum();
    VECTOR_SIZE * (DECODE_BYTES / (width.max(1) * VECTOR_SIZE)).clamp(1, 16)
}

/// Parquet files bound for reading; they must all have the first file's columns.
pub struct ParquetReader {
    pub files: Vec<ParquetFile>,
    pub names: Vec<String>,
    pub types: Vec<DataType>,
    /// Columns after the files' own: one value per file.
    pub extra: FileColumns,
    /// (file, row group) of each morsel.
    morsels: Vec<(usize, usize)>,
    /// Distinct values per column, estimated when first asked for (strings).
    distinct: Vec<std::sync::OnceLock<Option<f64>>>,
}

/// Row groups whose dictionaries a distinct-value estimate reads, at most.
const DICTIONARY_SAMPLES: usize = 3;

fn file_error(path: &str, e: impl std::fmt::Display) -> Error {
    Error::new(
        stride_common::ErrorKind::Io,
        format!("Parquet file \"{path}\" could not be read: {e}"),
    )
}

impl ParquetReader {
    /// Reads the footers of `paths` (already expanded from globs).
    pub fn bind(paths: &[String], extra: FileColumns) -> Result<ParquetReader> {
        let files = ParquetFile::open_all(paths)?;
        let schemas: Vec<(&str, &arrow_schema::Schema)> = files
            .iter()
            .map(|f| (f.path.as_str(), f.metadata.schema().as_ref()))
            .collect();
        let (names, types) = table_columns("Parquet", &schemas, &extra)?;
        let morsels = files
            .iter()
            .enumerate()
            .flat_map(|(i, f)| (0..f.metadata.metadata().num_row_groups()).map(move |g| (i, g)))
            .collect();
        Ok(ParquetReader {
            distinct: (0..names.len()).map(|_| Default::default()).collect(),
            files,
            names,
            types,
            extra,
            morsels,
        })
    }

    /// Distinct values of string column `c`, from the dictionary pages of up to
    /// [`DICTIONARY_SAMPLES`] row groups spread over the files (first, middle, last):
    /// the values of the sampled dictionaries, counted once, plus as many new
    /// values per row group not sampled as each sample added on average. A column
    /// chunk without a dictionary holds values that do not repeat enough for one:
    /// about one per row. A Hive partition key or file name: its values among the
    /// files. `None` where that cannot be read (nested schemas, a
    /// dictionary the writer gave up on, a damaged page: reading the rows reports
    /// those).
    fn dictionary_distinct(&self, c: usize) -> Option<f64> {
        // A column after the files' own (a Hive partition key, the file name) holds
        // one value per file.
        let own = self.files.first()?.metadata.schema().fields().len();
        if let Some(v) = c.checked_sub(own) {
            let values: std::collections::HashSet<String> = self
                .extra
                .values
                .iter()
                .filter_map(|file| file.get(v).map(|x| format!("{x:?}")))
                .collect();
            return Some(values.len().max(1) as f64);
        }
        let groups = self.morsels.len();
        let mut samples: Vec<usize> = (0..DICTIONARY_SAMPLES.min(groups))
            .map(|i| i * (groups - 1) / (DICTIONARY_SAMPLES - 1).max(1))
            .collect();
        samples.dedup();
        let mut seen = std::collections::HashSet::new();
        let (mut sampled, mut sizes) = (0, 0);
        for &m in &samples {
            let (f, g) = self.morsels[m];
            let file = &self.files[f];
            let metadata = file.metadata.metadata();
            let rg = metadata.row_group(g);
            if rg.num_columns() != file.metadata.schema().fields().len() || c >= rg.num_columns() {
                return None;
            }
            let column = rg.column(c);
            if column.column_type() != parquet::basic::Type::BYTE_ARRAY {
                return None;
            }
            match dictionary_values(&file.path, column, rg.num_rows())? {
                Some(values) => {
                    sampled += 1;
                    sizes += values.len();
                    seen.extend(values);
                }
                None => return Some(self.estimated_rows().max(1) as f64),
            }
        }
        if sampled == 0 {
            return None;
        }
        let found = seen.len() as f64;
        let per_sample = sizes as f64 / sampled as f64;
        // New values each further sample brought, on average (0 when every sample
        // held the same values, `per_sample` when none shared any).
        let fresh = if sampled > 1 {
            (found - per_sample) / (sampled - 1) as f64
        } else {
            0.0
        };
        let estimate = found + fresh * (groups - sampled) as f64;
        Some(estimate.clamp(1.0, self.estimated_rows().max(1) as f64))
    }
}

/// Hashes of the values in the dictionary page of a string column chunk:
/// `Some(None)` when the chunk has no dictionary page, `None` when its data pages
/// are not all dictionary-encoded (the writer gave up on the dictionary) or the
/// page cannot be read.
fn dictionary_values(
    path: &str,
    column: &parquet::file::metadata::ColumnChunkMetaData,
    rows: i64,
) -> Option<Option<Vec<u64>>> {
    use parquet::basic::{Encoding, PageType};
    use parquet::column::page::{Page, PageReader};
    use parquet::file::serialized_reader::SerializedPageReader;
    use std::hash::BuildHasher;
    if column.dictionary_page_offset().is_none() {
        return Some(None);
    }
    let dictionary =
        |e: Encoding| matches!(e, Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY);
    if let Some(stats) = column.page_encoding_stats() {
        let data_pages = stats
            .iter()
            .filter(|s| matches!(s.page_type, PageType::DATA_PAGE | PageType::DATA_PAGE_V2));
        if !data_pages.into_iter().all(|s| dictionary(s.encoding)) {
            return None;
        }
    }
    let file = File::open(path).ok()?;
    let mut pages =
        SerializedPageReader::new(Arc::new(file), column, rows.max(0) as usize, None).ok()?;
    let Page::DictionaryPage {
        buf, num_values, ..
    } = pages.get_next_page().ok()??
    else {
        return Some(None);
    };
    // PLAIN byte arrays: a 4-byte little-endian length, then the bytes.
    let hasher = foldhash::quality::FixedState::with_seed(0);
    let mut values = Vec::with_capacity(num_values as usize);
    let mut rest: &[u8] = &buf;
    for _ in 0..num_values {
        let len = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
        let value = rest.get(4..4 + len)?;
        values.push(hasher.hash_one(value));
        rest = &rest[4 + len..];
    }
    Some(Some(values))
}

impl ColumnarReader for ParquetReader {
    fn function_name(&self) -> &'static str {
        "READ_PARQUET"
    }

    fn paths(&self) -> Vec<&str> {
        self.files.iter().map(|f| f.path.as_str()).collect()
    }

    fn names(&self) -> &[String] {
        &self.names
    }

    fn types(&self) -> &[DataType] {
        &self.types
    }

    fn estimated_rows(&self) -> usize {
        self.files
            .iter()
            .map(|f| f.metadata.metadata().file_metadata().num_rows().max(0) as usize)
            .sum()
    }

    fn morsels(&self) -> usize {
        self.morsels.len()
    }

    /// Rows of morsel `m` (a row group).
    fn rows(&self, m: usize) -> usize {
        let (f, g) = self.morsels[m];
        self.files[f]
            .metadata
            .metadata()
            .row_group(g)
            .num_rows()
            .max(0) as usize
    }

    /// What the footer says of column `c` in morsel `m`: (smallest value, largest
    /// value, NULLs, rows), as values of the column's type, when the row group has
    /// statistics stride can use (integers, dates, microsecond timestamps, floats,
    /// with a null count). Lets a scan skip row groups no row of which can pass.
    fn statistics(&self, m: usize, c: usize) -> Option<(ScalarValue, ScalarValue, u64, u64)> {
        use arrow_schema::{DataType as A, TimeUnit};
        let (f, g) = self.morsels[m];
        let schema = self.files[f].metadata.schema();
        if let Some(v) = c.checked_sub(schema.fields().len()) {
            return file_column_statistics(&self.extra.values[f][v], self.rows(m));
        }
        let field = schema.fields().get(c)?;
        let rg = self.files[f].metadata.metadata().row_group(g);
        // Statistics are by leaf column; only flat schemas map roots to leaves 1:1.
        if rg.num_columns() != schema.fields().len() {
            return None;
        }
        let stats = rg.column(c).statistics()?;
        let nulls = stats.null_count_opt()?;
        let rows = rg.num_rows().max(0) as u64;
        let (min, max) = match (stats, field.data_type()) {
            (Statistics::Int32(s), A::Int8) => (
                ScalarValue::TinyInt(*s.min_opt()? as i8),
                ScalarValue::TinyInt(*s.max_opt()? as i8),
            ),
            (Statistics::Int32(s), A::Int16) => (
                ScalarValue::SmallInt(*s.min_opt()? as i16),
                ScalarValue::SmallInt(*s.max_opt()? as i16),
            ),
            (Statistics::Int32(s), A::Int32) => (
                ScalarValue::Integer(*s.min_opt()?),
                ScalarValue::Integer(*s.max_opt()?),
            ),
            (Statistics::Int32(s), A::Date32) => (
                ScalarValue::Date(*s.min_opt()?),
                ScalarValue::Date(*s.max_opt()?),
            ),
            (Statistics::Int64(s), A::Int64) => (
                ScalarValue::BigInt(*s.min_opt()?),
                ScalarValue::BigInt(*s.max_opt()?),
            ),
            (Statistics::Int64(s), A::Timestamp(TimeUnit::Microsecond, None)) => (
                ScalarValue::Timestamp(*s.min_opt()?),
                ScalarValue::Timestamp(*s.max_opt()?),
            ),
            (Statistics::Int64(s), A::Timestamp(TimeUnit::Microsecond, Some(_))) => (
                ScalarValue::TimestampTz(*s.min_opt()?),
                ScalarValue::TimestampTz(*s.max_opt()?),
            ),
            (Statistics::Int64(s), A::Time64(TimeUnit::Microsecond)) => (
                ScalarValue::Time(*s.min_opt()?),
                ScalarValue::Time(*s.max_opt()?),
            ),
            (Statistics::Float(s), A::Float32) => (
                ScalarValue::Real(*s.min_opt()?),
                ScalarValue::Real(*s.max_opt()?),
            ),
            (Statistics::Double(s), A::Float64) => (
                ScalarValue::Double(*s.min_opt()?),
                ScalarValue::Double(*s.max_opt()?),
            ),
            _ => return None,
        };
        Some((min, max, nulls, rows))
    }

    /// The distinct values of column `c`: for integers and dates an upper bound from
    /// the files' statistics (the span between the smallest and largest value, at
    /// most the rows); for strings an estimate from the dictionaries of a few row
    /// groups ([`ParquetReader::dictionary_distinct`]). Join ordering and the
    /// selectivity of `x = constant` need it to tell a small domain (a nation key, an
    /// order status) from a unique key. `None` when the files do not tell.
    fn distinct_estimate(&self, c: usize) -> Option<f64> {
        if matches!(self.types.get(c), Some(DataType::Varchar)) {
            return *self.distinct[c].get_or_init(|| self.dictionary_distinct(c));
        }
        let (mut lo, mut hi) = (i128::MAX, i128::MIN);
        for m in 0..self.morsels() {
            let (min, max, _, _) = self.statistics(m, c)?;
            let int = |v: &ScalarValue| match v {
                ScalarValue::Date(d) => Some(*d as i128),
                ScalarValue::Timestamp(_)
                | ScalarValue::TimestampTz(_)
                | ScalarValue::Real(_)
                | ScalarValue::Double(_) => None,
                other => other.as_i64().map(|x| x as i128),
            };
            lo = lo.min(int(&min)?);
            hi = hi.max(int(&max)?);
        }
        if lo > hi {
            return None;
        }
        Some(((hi - lo + 1) as f64).min(self.estimated_rows().max(1) as f64))
    }

    /// Reads morsel `m` (a row group), producing `columns` (positions in
    /// [`ColumnarReader::names`]).
    fn produce(
        &self,
        m: usize,
        columns: &[usize],
        emit: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()> {
        let (f, g) = self.morsels[m];
        let file = &self.files[f];
        let data_columns = file.metadata.schema().fields().len();
        let path = &file.path;
        let handle = File::open(path).map_err(|e| file_error(path, e))?;
        let mut wanted: Vec<usize> = columns
            .iter()
            .copied()
            .filter(|&c| c < data_columns)
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        let mask = ProjectionMask::roots(file.metadata.parquet_schema(), wanted.iter().copied());
        let reader =
            ParquetRecordBatchReaderBuilder::new_with_metadata(handle, file.metadata.clone())
                .with_row_groups(vec![g])
                .with_projection(mask)
                .with_batch_size(decode_rows(wanted.iter().map(|&c| &self.types[c])))
                .build()
                .map_err(|e| file_error(path, e))?;
        let mut copied = crate::arrow::SharedHeaps::default();
        for batch in reader {
            let batch = batch.map_err(|e| file_error(path, e))?;
            let n = batch.num_rows();
            let mut out = Vec::with_capacity(columns.len());
            for &c in columns {
                if let Some(v) = c.checked_sub(data_columns) {
                    out.push(Vector::constant(&self.extra.values[f][v], &self.types[c])?);
                    continue;
                }
                let at = wanted.binary_search(&c).expect("projected");
                out.push(to_vector_with(
                    batch.column(at).as_ref(),
                    &self.types[c],
                    &mut copied,
                )?);
            }
            emit_windows(&out, n, emit)?;
        }
        Ok(())
    }
}

/// The columns of `parquet_schema()`, as DuckDB names them.
pub const SCHEMA_COLUMNS: [(&str, DataType); 11] = [
    ("file_name", DataType::Varchar),
    ("name", DataType::Varchar),
    ("type", DataType::Varchar),
    ("type_length", DataType::Varchar),
    ("repetition_type", DataType::Varchar),
    ("num_children", DataType::BigInt),
    ("converted_type", DataType::Varchar),
    ("scale", DataType::BigInt),
    ("precision", DataType::BigInt),
    ("field_id", DataType::BigInt),
    ("logical_type", DataType::Varchar),
];

/// The columns of `parquet_metadata()`, as DuckDB names them (a subset of its).
pub const METADATA_COLUMNS: [(&str, DataType); 17] = [
    ("file_name", DataType::Varchar),
    ("row_group_id", DataType::BigInt),
    ("row_group_num_rows", DataType::BigInt),
    ("row_group_num_columns", DataType::BigInt),
    ("row_group_bytes", DataType::BigInt),
    ("column_id", DataType::BigInt),
    ("file_offset", DataType::BigInt),
    ("num_values", DataType::BigInt),
    ("path_in_schema", DataType::Varchar),
    ("type", DataType::Varchar),
    ("stats_min", DataType::Varchar),
    ("stats_max", DataType::Varchar),
    ("stats_null_count", DataType::BigInt),
    ("stats_distinct_count", DataType::BigInt),
    ("compression", DataType::Varchar),
    ("total_compressed_size", DataType::BigInt),
    ("total_uncompressed_size", DataType::BigInt),
];

/// The columns of `parquet_file_metadata()`, as DuckDB names them (its UBIGINT
/// sizes as BIGINT).
pub fn file_metadata_columns() -> Vec<(&'static str, DataType)> {
    vec![
        ("file_name", DataType::Varchar),
        ("created_by", DataType::Varchar),
        ("num_rows", DataType::BigInt),
        ("num_row_groups", DataType::BigInt),
        ("format_version", DataType::BigInt),
        ("encryption_algorithm", DataType::Varchar),
        ("footer_signing_key_metadata", DataType::Varchar),
        ("file_size_bytes", DataType::BigInt),
        ("footer_size", DataType::BigInt),
        ("column_orders", DataType::List(Box::new(DataType::Varchar))),
    ]
}

fn text(s: impl Into<String>) -> ScalarValue {
    ScalarValue::Varchar(s.into())
}

fn opt_int(v: Option<i64>) -> ScalarValue {
    v.map_or(ScalarValue::Null, ScalarValue::BigInt)
}

impl ParquetFile {
    /// One row per schema element of every file (`parquet_schema()`): the root, then
    /// its fields depth first.
    pub fn schema_rows(files: &[ParquetFile]) -> Vec<Vec<ScalarValue>> {
        use parquet::schema::types::Type;
        fn walk(file: &str, t: &Type, out: &mut Vec<Vec<ScalarValue>>) {
            let info = t.get_basic_info();
            let group = t.is_group();
            let (ty, length, scale, precision) = if group {
                (
                    ScalarValue::Null,
                    ScalarValue::Null,
                    ScalarValue::Null,
                    ScalarValue::Null,
                )
            } else {
                (
                    text(t.get_physical_type().to_string()),
                    match t {
                        Type::PrimitiveType { type_length, .. } if *type_length > 0 => {
                            text(type_length.to_string())
                        }
                        _ => ScalarValue::Null,
                    },
                    opt_int(
                        Some(t.get_scale() as i64).filter(|&s| s >= 0 && t.get_precision() > 0),
                    ),
                    opt_int(Some(t.get_precision() as i64).filter(|&p| p > 0)),
                )
            };
            out.push(vec![
                text(file),
                text(t.name()),
                ty,
                length,
                if info.has_repetition() {
                    text(info.repetition().to_string())
                } else {
                    ScalarValue::Null
                },
                if group {
                    ScalarValue::BigInt(t.get_fields().len() as i64)
                } else {
                    ScalarValue::Null
                },
                match info.converted_type() {
                    parquet::basic::ConvertedType::NONE => ScalarValue::Null,
                    c => text(c.to_string()),
                },
                scale,
                precision,
                if info.has_id() {
                    ScalarValue::BigInt(info.id() as i64)
                } else {
                    ScalarValue::Null
                },
                info.logical_type_ref()
                    .map_or(ScalarValue::Null, |l| text(format!("{l:?}"))),
            ]);
            if group {
                for f in t.get_fields() {
                    walk(file, f, out);
                }
            }
        }
        let mut out = Vec::new();
        for f in files {
            walk(&f.path, f.metadata.parquet_schema().root_schema(), &mut out);
        }
        out
    }

    /// One row per column chunk of every row group of every file
    /// (`parquet_metadata()`).
    /// One row per file for `parquet_file_metadata()`: the footer's file-level
    /// fields, the file's size and the footer's (read from the file's last 8 bytes).
    pub fn file_metadata_rows(files: &[ParquetFile]) -> Result<Vec<Vec<ScalarValue>>> {
        use parquet::basic::ColumnOrder;
        let mut out = Vec::new();
        for f in files {
            let meta = f.metadata.metadata().file_metadata();
            let size = std::fs::metadata(&f.path)
                .map_err(|e| Error::io(format!("{}: {e}", f.path)))?
                .len();
            let footer = {
                use std::io::{Read, Seek, SeekFrom};
                let mut file =
                    File::open(&f.path).map_err(|e| Error::io(format!("{}: {e}", f.path)))?;
                let mut tail = [0u8; 8];
                file.seek(SeekFrom::End(-8))
                    .and_then(|_| file.read_exact(&mut tail))
                    .map_err(|e| Error::io(format!("{}: {e}", f.path)))?;
                u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]) as i64
            };
            let orders = meta.column_orders().map_or(ScalarValue::Null, |orders| {
                ScalarValue::List(
                    DataType::Varchar,
                    orders
                        .iter()
                        .map(|o| {
                            text(match o {
                                ColumnOrder::TYPE_DEFINED_ORDER(_) => {
                                    "ColumnOrder(TYPE_ORDER=TypeDefinedOrder())".to_string()
                                }
                                other => format!("ColumnOrder({other:?})"),
                            })
                        })
                        .collect(),
                )
            });
            out.push(vec![
                text(f.path.clone()),
                meta.created_by().map_or(ScalarValue::Null, text),
                ScalarValue::BigInt(meta.num_rows()),
                ScalarValue::BigInt(f.metadata.metadata().num_row_groups() as i64),
                ScalarValue::BigInt(meta.version() as i64),
                ScalarValue::Null,
                ScalarValue::Null,
                ScalarValue::BigInt(size as i64),
                ScalarValue::BigInt(footer),
                orders,
            ]);
        }
        Ok(out)
    }

    pub fn metadata_rows(files: &[ParquetFile]) -> Vec<Vec<ScalarValue>> {
        let mut out = Vec::new();
        for f in files {
            let meta = f.metadata.metadata();
            for (g, rg) in meta.row_groups().iter().enumerate() {
                for (c, col) in rg.columns().iter().enumerate() {
                    let stats = col.statistics();
                    let shown = |b: Option<&[u8]>, s: &Statistics| -> ScalarValue {
                        let Some(b) = b else { return ScalarValue::Null };
                        text(match s {
                            Statistics::Boolean(_) => (b.first() == Some(&1)).to_string(),
                            Statistics::Int32(_) if b.len() == 4 => {
                                i32::from_le_bytes([b[0], b[1], b[2], b[3]]).to_string()
                            }
                            Statistics::Int64(_) if b.len() == 8 => {
                                i64::from_le_bytes(b.try_into().expect("8 bytes")).to_string()
                            }
                            Statistics::Float(_) if b.len() == 4 => {
                                f32::from_le_bytes([b[0], b[1], b[2], b[3]]).to_string()
                            }
                            Statistics::Double(_) if b.len() == 8 => {
                                f64::from_le_bytes(b.try_into().expect("8 bytes")).to_string()
                            }
                            _ => String::from_utf8_lossy(b).into_owned(),
                        })
                    };
                    let (min, max, nulls, distinct) = match stats {
                        Some(s) => (
                            shown(s.min_bytes_opt(), s),
                            shown(s.max_bytes_opt(), s),
                            opt_int(s.null_count_opt().map(|n| n as i64)),
                            opt_int(s.distinct_count_opt().map(|n| n as i64)),
                        ),
                        None => (
                            ScalarValue::Null,
                            ScalarValue::Null,
                            ScalarValue::Null,
                            ScalarValue::Null,
                        ),
                    };
                    out.push(vec![
                        text(f.path.clone()),
                        ScalarValue::BigInt(g as i64),
                        ScalarValue::BigInt(rg.num_rows()),
                        ScalarValue::BigInt(rg.num_columns() as i64),
                        ScalarValue::BigInt(rg.total_byte_size()),
                        ScalarValue::BigInt(c as i64),
                        ScalarValue::BigInt(col.file_offset()),
                        ScalarValue::BigInt(col.num_values()),
                        text(col.column_path().string()),
                        text(col.column_type().to_string()),
                        min,
                        max,
                        nulls,
                        distinct,
                        text(col.compression().to_string()),
                        ScalarValue::BigInt(col.compressed_size()),
                        ScalarValue::BigInt(col.uncompressed_size()),
                    ]);
                }
            }
        }
        out
    }
}

/// Whether a column's values repeat enough for a dictionary to pay: at most one
/// distinct value in five rows of the sample (the first row group). NULLs are not
/// values.
fn repeats<'a>(column: impl Iterator<Item = (&'a Vector, usize)>) -> bool {
    use std::hash::BuildHasher;
    use stride_common::VectorData as D;
    let state = std::collections::hash_map::RandomState::new();
    let mut seen = std::collections::HashSet::new();
    let mut rows = 0usize;
    for (v, n) in column {
        for i in (0..n).filter(|&i| v.is_valid(i)) {
            rows += 1;
            seen.insert(match &v.data {
                D::Bool(b) => b[i] as u64,
                D::I8(b) => b[i] as u64,
                D::I16(b) => b[i] as u64,
                D::I32(b) => b[i] as u64,
                D::I64(b) => b[i] as u64,
                D::I128(b) => state.hash_one(b[i]),
                D::F32(b) => b[i].to_bits() as u64,
                D::F64(b) => b[i].to_bits(),
                D::Interval(b) => state.hash_one((b[i].months, b[i].days, b[i].micros)),
                D::Str(s) => state.hash_one(s.get(i)),
                D::List(_) | D::Struct(_) => return true,
            });
        }
    }
    seen.len() * 5 <= rows
}

/// How `COPY ... TO 'x.parquet'` writes.
#[derive(Clone, Debug, PartialEq)]
pub struct ParquetWriteOptions {
    pub compression: ParquetCompression,
    /// `COMPRESSION_LEVEL`, for zstd (1 to 22) and gzip (0 to 9); `None`: the
    /// default ([`ZSTD_LEVEL`], gzip's 6).
    pub compression_level: Option<i32>,
    /// Rows per row group (DuckDB's default, 122,880).
    pub row_group_size: usize,
}

/// The zstd level written when none is given.
pub const ZSTD_LEVEL: i32 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParquetCompression {
    Uncompressed,
    Snappy,
    Zstd,
    Gzip,
    Lz4,
}

impl ParquetCompression {
    pub fn parse(name: &str) -> Result<ParquetCompression> {
        Ok(match name.to_ascii_lowercase().as_str() {
            "uncompressed" | "none" => ParquetCompression::Uncompressed,
            "snappy" => ParquetCompression::Snappy,
            "zstd" => ParquetCompression::Zstd,
            "gzip" => ParquetCompression::Gzip,
            "lz4" | "lz4_raw" => ParquetCompression::Lz4,
            other => {
                return Err(Error::invalid_input(format!(
                    "Parquet compression {other} is not supported; use uncompressed, snappy, zstd, gzip or lz4"
                )))
            }
        })
    }
}

impl Default for ParquetWriteOptions {
    fn default() -> Self {
        ParquetWriteOptions {
            compression: ParquetCompression::Snappy,
            compression_level: None,
            row_group_size: 122_880,
        }
    }
}

/// Writes `chunks` (a result with these columns) to a new Parquet file at `path`;
/// returns the rows written. Row groups are encoded and compressed on up to `threads`
/// threads at once (the costly part), then appended to the file in order.
pub fn write_file(
    path: &str,
    names: &[String],
    types: &[DataType],
    chunks: &[DataChunk],
    options: &ParquetWriteOptions,
    threads: usize,
) -> Result<u64> {
    let schema = arrow_schema(names, types, StringLayout::Offsets);
    let level_error =
        |e: parquet::errors::ParquetError| Error::invalid_input(format!("COMPRESSION_LEVEL: {e}"));
    let compression = match (options.compression, options.compression_level) {
        (ParquetCompression::Zstd, level) => {
            Compression::ZSTD(ZstdLevel::try_new(level.unwrap_or(ZSTD_LEVEL)).map_err(level_error)?)
        }
        (ParquetCompression::Gzip, None) => Compression::GZIP(Default::default()),
        (ParquetCompression::Gzip, Some(l)) => Compression::GZIP(
            GzipLevel::try_new(u32::try_from(l).unwrap_or(u32::MAX)).map_err(level_error)?,
        ),
        (other, Some(_)) => {
            return Err(Error::invalid_input(format!(
                "COMPRESSION_LEVEL applies to zstd and gzip, not to {other:?}"
            )))
        }
        (ParquetCompression::Uncompressed, None) => Compression::UNCOMPRESSED,
        (ParquetCompression::Snappy, None) => Compression::SNAPPY,
        (ParquetCompression::Lz4, None) => Compression::LZ4_RAW,
    };
    // Row groups of `row_group_size` rows, cut from the chunks (windows, not copies).
    let size = options.row_group_size.max(1);
    let mut groups: Vec<Vec<(Vec<Vector>, usize)>> = Vec::new();
    let (mut group, mut group_rows, mut rows) = (Vec::new(), 0, 0u64);
    for c in chunks {
        let (cols, n) = c.clone().into_flat_columns();
        rows += n as u64;
        let mut at = 0;
        while at < n {
            let take = (n - at).min(size - group_rows);
            let part = match (at, take) {
                (0, t) if t == n => cols.clone(),
                _ => cols.iter().map(|v| v.slice(at, take)).collect(),
            };
            group.push((part, take));
            (at, group_rows) = (at + take, group_rows + take);
            if group_rows == size {
                groups.push(std::mem::take(&mut group));
                group_rows = 0;
            }
        }
    }
    if !group.is_empty() {
        groups.push(group);
    }
    let mut props = WriterProperties::builder()
        .set_compression(compression)
        .set_max_row_group_row_count(Some(options.row_group_size.max(1)));
    // Dictionary encoding only where values repeat: for near-unique columns (keys,
    // prices, comments) the dictionary's indexes compress worse than the plain values
    // (lineitem's l_orderkey: 9.7 MB against 1.9 MB with zstd), and cost time.
    if let Some(first) = groups.first() {
        for (c, name) in names.iter().enumerate() {
            let ty = &types[c];
            if ty.is_nested() {
                continue;
            }
            let column = first.iter().map(|(cols, n)| (&cols[c], *n));
            props = props.set_column_dictionary_enabled(
                parquet::schema::types::ColumnPath::from(name.as_str()),
                repeats(column),
            );
        }
    }
    let props = props.build();
    let write_error = |e: &dyn std::fmt::Display| {
        Error::new(
            stride_common::ErrorKind::Io,
            format!("could not write Parquet file \"{path}\": {e}"),
        )
    };
    let (new, file) = crate::file::NewFile::create(path).map_err(|e| write_error(&e))?;
    let (mut writer, factory) = ArrowWriter::try_new(file, schema.clone(), Some(props))
        .and_then(ArrowWriter::into_serialized_writer)
        .map_err(|e| write_error(&e))?;
    let threads = threads.max(1);
    let indexed: Vec<(usize, &[(Vec<Vector>, usize)])> =
        groups.iter().map(Vec::as_slice).enumerate().collect();
    // Several row groups per thread at a time (so threads rarely wait for the
    // slowest of a batch), not all at once (so encoded ones do not pile up).
    for batch in indexed.chunks(threads * 8) {
        let encoded = stride_common::workers::map(batch, threads, |(index, parts)| {
            let batch = record_batch(&schema, types, parts)?;
            let mut writers = factory
                .create_column_writers(*index)
                .map_err(|e| write_error(&e))?
                .into_iter();
            let mut done = Vec::new();
            for (field, array) in schema.fields().iter().zip(batch.columns()) {
                for leaf in compute_leaves(field, array).map_err(|e| write_error(&e))? {
                    let mut w = writers
                        .next()
                        .ok_or_else(|| Error::internal("a Parquet leaf column without a writer"))?;
                    w.write(&leaf).map_err(|e| write_error(&e))?;
                    done.push(w.close().map_err(|e| write_error(&e))?);
                }
            }
            Ok::<_, Error>(done)
        })?;
        for chunks in encoded {
            let mut group = writer.next_row_group().map_err(|e| write_error(&e))?;
            for chunk in chunks? {
                chunk
                    .append_to_row_group(&mut group)
                    .map_err(|e| write_error(&e))?;
            }
            group.close().map_err(|e| write_error(&e))?;
        }
    }
    writer.close().map_err(|e| write_error(&e))?;
    new.commit().map_err(|e| write_error(&e))?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_distinct_values_from_dictionaries() {
        let dir = std::env::temp_dir().join(format!("stride-parquet-ndv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.parquet").to_string_lossy().into_owned();
        // 10 row groups of 500 rows: `status` has 5 values in every group; `batch`
        // has 10 values per group, none shared between groups (100 in all).
        let rows = 5000;
        let mut status = Vector::with_capacity(&DataType::Varchar, rows);
        let mut batch = Vector::with_capacity(&DataType::Varchar, rows);
        for i in 0..rows {
            status
                .push(&ScalarValue::Varchar(format!("status {}", i % 5)))
                .unwrap();
            batch
                .push(&ScalarValue::Varchar(format!("batch {}", i / 50)))
                .unwrap();
        }
        let names = vec!["status".to_string(), "batch".to_string()];
        let types = vec![DataType::Varchar, DataType::Varchar];
        let options = ParquetWriteOptions {
            compression: ParquetCompression::Zstd,
            compression_level: None,
            row_group_size: 500,
        };
        let chunk = DataChunk::new(vec![status, batch], rows);
        write_file(&path, &names, &types, &[chunk], &options, 2).unwrap();
        let paths = [path];
        let reader =
            ParquetReader::bind(&paths, FileColumns::new(&paths, true, None).unwrap()).unwrap();
        assert_eq!(reader.morsels(), 10);
        assert_eq!(reader.distinct_estimate(0), Some(5.0));
        // Three groups sampled, each adding 10 new values: 30 + 10 per other group.
        assert_eq!(reader.distinct_estimate(1), Some(100.0));
        // `filename`, after the file's own columns: one value per file.
        assert_eq!(reader.distinct_estimate(2), Some(1.0));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn writes_and_reads_back() {
        let dir = std::env::temp_dir().join(format!("stride-parquet-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.parquet").to_string_lossy().into_owned();
        let ints = Vector::from_values(DataType::BigInt, (0..5000i64).collect());
        let mut strs = Vector::with_capacity(&DataType::Varchar, 5000);
        for i in 0..5000 {
            if i % 7 == 0 {
                strs.push_null();
            } else {
                strs.push(&ScalarValue::Varchar(format!("value {i}")))
                    .unwrap();
            }
        }
        let chunk = DataChunk::new(vec![ints, strs], 5000);
        let names = vec!["i".to_string(), "s".to_string()];
        let types = vec![DataType::BigInt, DataType::Varchar];
        let options = ParquetWriteOptions {
            compression: ParquetCompression::Zstd,
            compression_level: Some(5),
            row_group_size: 2000,
        };
        assert_eq!(
            write_file(&path, &names, &types, &[chunk], &options, 2).unwrap(),
            5000
        );
        let paths = [path.clone()];
        let reader =
            ParquetReader::bind(&paths, FileColumns::new(&paths, true, None).unwrap()).unwrap();
        assert_eq!(
            reader.types,
            vec![DataType::BigInt, DataType::Varchar, DataType::Varchar]
        );
        assert_eq!(reader.morsels(), 3);
        assert_eq!(reader.distinct_estimate(0), Some(5000.0));
        // Strings that do not repeat are written without a dictionary: one per row.
        assert_eq!(reader.distinct_estimate(1), Some(5000.0));
        assert_eq!(reader.estimated_rows(), 5000);
        assert_eq!(
            reader.statistics(1, 0),
            Some((
                ScalarValue::BigInt(2000),
                ScalarValue::BigInt(3999),
                0,
                2000
            ))
        );
        let mut rows = Vec::new();
        for m in 0..reader.morsels() {
            reader
                .produce(m, &[1, 0, 2], &mut |c| {
                    for i in 0..c.len() {
                        rows.push(c.row(i));
                    }
                    Ok(())
                })
                .unwrap();
        }
        assert_eq!(rows.len(), 5000);
        assert_eq!(rows[1][0], ScalarValue::Varchar("value 1".into()));
        assert_eq!(rows[7][0], ScalarValue::Null);
        assert_eq!(rows[4999][1], ScalarValue::BigInt(4999));
        assert_eq!(rows[0][2], ScalarValue::Varchar(path.clone()));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_that_is_not_parquet_is_an_error_naming_it() {
        let dir = std::env::temp_dir().join(format!("stride-parquet-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.parquet").to_string_lossy().into_owned();
        std::fs::write(&path, b"a,b\n1,2\n").unwrap();
        let e = ParquetReader::bind(&[path.clone()], FileColumns::default())
            .err()
            .unwrap();
        assert!(e.message.contains(&path), "{e}");
        assert!(e.message.starts_with("Parquet file"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
