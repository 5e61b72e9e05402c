//! Arrow IPC files (Feather v2): reading (`read_arrow`, `FROM 'x.arrow'`) and writing
//! (`COPY ... TO 'x.arrow' (FORMAT arrow)`).
//!
//! Where it sits: like Parquet files (see [`crate::columnar`]). Binding maps each
//! file into memory and reads its footer: the schema and where each record batch
//! lies. A morsel is a range of up to [`MORSEL_ROWS`] rows of one record batch. Its
//! columns are decoded in place: the Arrow arrays point into the mapping, and the
//! stride vectors made from them ([`crate::arrow::to_vector`]) point into the same
//! memory, so nothing is copied and a file in the page cache (or in /dev/shm) is
//! shared with every other process that maps it: another stride, or pyarrow's
//! `memory_map`. Each column of each batch is decoded and checked (offsets in range,
//! UTF-8) once, when a query first needs it.
//!
//! Errors name the file: not an Arrow file, a footer or batch that points outside
//! the file, a column that does not check, a type stride does not have.

use crate::arrow::{arrow_schema, record_batch, to_vector, StringLayout};
use crate::columnar::{emit_windows, file_column_statistics, table_columns, ColumnarReader};
use crate::hive::FileColumns;
use arrow_array::ArrayRef;
use arrow_buffer::Buffer as ArrowBuffer;
use arrow_ipc::reader::FileDecoder;
use arrow_ipc::{Block, MetadataVersion};
use arrow_schema::SchemaRef;
use std::fs::File;
use std::ptr::NonNull;
use std::sync::{Arc, OnceLock};
use stride_common::{DataChunk, DataType, Error, Result, ScalarValue, Vector};

/// Rows per morsel: large record batches are cut so threads share them.
pub const MORSEL_ROWS: usize = 122_880;

/// One Arrow IPC file, mapped, its footer read.
pub struct ArrowFile {
    pub path: String,
    /// The whole file, memory-mapped (or empty).
    data: ArrowBuffer,
    schema: SchemaRef,
    version: MetadataVersion,
    dictionaries: Vec<Block>,
    batches: Vec<Block>,
    /// Rows of each record batch, from its message header.
    rows: Vec<usize>,
    /// Each batch's columns, decoded on first use.
    decoded: Vec<Vec<OnceLock<std::result::Result<ArrayRef, String>>>>,
}

fn file_error(path: &str, e: impl std::fmt::Display) -> Error {
    Error::new(
        stride_common::ErrorKind::Io,
        format!("Arrow file \"{path}\" could not be read: {e}"),
    )
}

/// The arrow-rs decoder may panic on a malformed file where it does not check a
/// length; such a panic becomes an error naming the file.
fn guarded<T>(path: &str, f: impl FnOnce() -> std::result::Result<T, String>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(file_error(path, e)),
        Err(_) => Err(file_error(path, "the file is malformed")),
    }
}

impl ArrowFile {
    /// Maps `path` and reads its footer.
    pub fn open(path: &str) -> Result<ArrowFile> {
        let file = File::open(path).map_err(|e| file_error(path, e))?;
        let magic = b"ARROW1";
        if file.metadata().map_err(|e| file_error(path, e))?.len() < 2 * magic.len() as u64 + 4 {
            return Err(file_error(path, "it is too short to be an Arrow IPC file"));
        }
        // SAFETY: the map is read-only; a file truncated by another process while
        // mapped is outside what any reader can defend against (as in every mmap reader;
        // stride's own writers replace files by renaming, never truncate them).
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| file_error(path, e))?;
        let len = map.len();
        if len < 2 * magic.len() + 4 {
            return Err(file_error(path, "it is too short to be an Arrow IPC file"));
        }
        let bytes: &[u8] = &map;
        if &bytes[..magic.len()] != magic || &bytes[len - magic.len()..] != magic {
            return Err(file_error(
                path,
                "it is not an Arrow IPC file (no ARROW1 magic); Arrow streams and Feather v1 files are not supported",
            ));
        }
        let ptr = NonNull::new(map.as_ptr() as *mut u8).expect("a mapping is never null");
        // SAFETY: the mapping lives as long as the Arrow buffer that owns it, and is
        // read-only.
        let data = unsafe { ArrowBuffer::from_custom_allocation(ptr, len, Arc::new(map)) };
        guarded(path, || Self::read_footer(path, data))
    }

    fn read_footer(path: &str, data: ArrowBuffer) -> std::result::Result<ArrowFile, String> {
        let len = data.len();
        let mut tail = [0u8; 10];
        tail.copy_from_slice(&data[len - 10..]);
        let footer_len = arrow_ipc::reader::read_footer_length(tail).map_err(|e| e.to_string())?;
        if footer_len + 10 > len {
            return Err("its footer is longer than the file".into());
        }
        let footer = arrow_ipc::root_as_footer(&data[len - 10 - footer_len..len - 10])
            .map_err(|e| format!("its footer is corrupt ({e})"))?;
        let fb_schema = footer.schema().ok_or("its footer has no schema")?;
        if !fb_schema.endianness().equals_to_target_endianness() {
            return Err("it was written on a machine of the other byte order".into());
        }
        let schema =
            Arc::new(arrow_ipc::convert::try_fb_to_schema(fb_schema).map_err(|e| e.to_string())?);
        let body_end = len - 10 - footer_len;
        let check = |b: &Block| -> std::result::Result<Block, String> {
            let end = (b.offset() as i128) + b.metaDataLength() as i128 + b.bodyLength() as i128;
            if b.offset() < 0
                || b.metaDataLength() < 8
                || b.bodyLength() < 0
                || end > body_end as i128
            {
                return Err("a block in its footer lies outside the file".into());
            }
            Ok(*b)
        };
        let batches: Vec<Block> = footer
            .recordBatches()
            .map(|v| v.iter().map(|b| check(b)).collect())
            .transpose()?
            .unwrap_or_default();
        let dictionaries: Vec<Block> = footer
            .dictionaries()
            .map(|v| v.iter().map(|b| check(b)).collect())
            .transpose()?
            .unwrap_or_default();
        let only_nulls = schema
            .fields()
            .iter()
            .all(|f| f.data_type() == &arrow_schema::DataType::Null);
        let mut rows = Vec::with_capacity(batches.len());
        let mut total = 0usize;
        for b in &batches {
            let meta =
                &data[b.offset() as usize..(b.offset() + b.metaDataLength() as i64) as usize];
            // A message starts with the continuation marker and its length (or, in
            // files older than Arrow 0.15, with the length alone).
            let flat = match meta[..4] == [0xff; 4] {
                true => &meta[8..],
                false => &meta[4..],
            };
            let message = arrow_ipc::root_as_message(flat)
                .map_err(|e| format!("a record batch is corrupt ({e})"))?;
            let batch = message
                .header_as_record_batch()
                .ok_or("a block in its footer is not a record batch")?;
            // Every column but a NULL-typed one holds at least a bit per row, so a
            // length beyond that is corrupt (and must not size anything).
            let n = usize::try_from(batch.length())
                .map_err(|_| "a record batch has a negative length")?;
            let limit = match only_nulls {
                true => u32::MAX as usize,
                false => b.bodyLength() as usize * 8 + 64,
            };
            total += n;
            if n > limit || (only_nulls && total > u32::MAX as usize) {
                return Err("a record batch claims more rows than it holds".into());
            }
            rows.push(n);
        }
        let columns = schema.fields().len();
        let version = footer.version();
        Ok(ArrowFile {
            path: path.to_string(),
            decoded: rows
                .iter()
                .map(|_| (0..columns).map(|_| OnceLock::new()).collect())
                .collect(),
            data,
            schema,
            version,
            dictionaries,
            batches,
            rows,
        })
    }

    /// Column `c` of record batch `b`, decoded (and checked) the first time it is asked for.
    fn column(&self, b: usize, c: usize) -> Result<ArrayRef> {
        let slot = self.decoded[b][c].get_or_init(|| {
            guarded(&self.path, || {
                let mut decoder =
                    FileDecoder::new(self.schema.clone(), self.version).with_projection(vec![c]);
                for d in &self.dictionaries {
                    decoder
                        .read_dictionary(d, &self.block(d))
                        .map_err(|e| e.to_string())?;
                }
                let block = &self.batches[b];
                let batch = decoder
                    .read_record_batch(block, &self.block(block))
                    .map_err(|e| e.to_string())?
                    .ok_or("a record batch is empty")?;
                Ok(batch.column(0).clone())
            })
            .map_err(|e| e.message)
        });
        slot.clone()
            .map_err(|e| Error::new(stride_common::ErrorKind::Io, e))
    }

    fn block(&self, b: &Block) -> ArrowBuffer {
        self.data.slice_with_length(
            b.offset() as usize,
            b.metaDataLength() as usize + b.bodyLength() as usize,
        )
    }
}

/// Arrow IPC files bound for reading; they must all have the first file's columns.
pub struct ArrowReader {
    pub files: Vec<ArrowFile>,
    names: Vec<String>,
    types: Vec<DataType>,
    /// Columns after the files' own: one value per file.
    extra: FileColumns,
    /// (file, record batch, first row, rows) of each morsel.
    morsels: Vec<(usize, usize, usize, usize)>,
}

impl ArrowReader {
    /// Maps `paths` (already expanded from globs) and reads their footers.
    pub fn bind(paths: &[String], extra: FileColumns) -> Result<ArrowReader> {
        if paths.is_empty() {
            return Err(Error::io("no Arrow files found"));
        }
        let files = paths
            .iter()
            .map(|p| ArrowFile::open(p))
            .collect::<Result<Vec<_>>>()?;
        let schemas: Vec<(&str, &arrow_schema::Schema)> = files
            .iter()
            .map(|f| (f.path.as_str(), f.schema.as_ref()))
            .collect();
        let (names, types) = table_columns("Arrow", &schemas, &extra)?;
        let mut morsels = Vec::new();
        for (fi, f) in files.iter().enumerate() {
            for (bi, &rows) in f.rows.iter().enumerate() {
                let mut start = 0;
                while start < rows {
                    let n = MORSEL_ROWS.min(rows - start);
                    morsels.push((fi, bi, start, n));
                    start += n;
                }
            }
        }
        Ok(ArrowReader {
            files,
            names,
            types,
            extra,
            morsels,
        })
    }
}

impl ColumnarReader for ArrowReader {
    fn function_name(&self) -> &'static str {
        "READ_ARROW"
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
        self.files.iter().flat_map(|f| &f.rows).sum()
    }

    fn morsels(&self) -> usize {
        self.morsels.len()
    }

    fn rows(&self, m: usize) -> usize {
        self.morsels[m].3
    }

    fn statistics(&self, m: usize, c: usize) -> Option<(ScalarValue, ScalarValue, u64, u64)> {
        let (f, _, _, rows) = self.morsels[m];
        let v = c.checked_sub(self.files[f].schema.fields().len())?;
        file_column_statistics(&self.extra.values[f][v], rows)
    }

    fn produce(
        &self,
        m: usize,
        columns: &[usize],
        emit: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()> {
        let (f, b, start, rows) = self.morsels[m];
        let file = &self.files[f];
        let data_columns = file.schema.fields().len();
        let mut vectors = Vec::with_capacity(columns.len());
        for &c in columns {
            vectors.push(match c.checked_sub(data_columns) {
                None => to_vector(
                    file.column(b, c)?.slice(start, rows).as_ref(),
                    &self.types[c],
                )?,
                // A column of one value per file (a Hive key, the file name).
                Some(k) => Vector::constant(&self.extra.values[f][k], &self.types[c])?,
            });
        }
        emit_windows(&vectors, rows, emit)
    }
}

/// Writes `chunks` (a result with these columns) to a new Arrow IPC file at `path`,
/// in record batches of about [`MORSEL_ROWS`] rows with strings as views; returns
/// the rows written.
pub fn write_file(
    path: &str,
    names: &[String],
    types: &[DataType],
    chunks: &[DataChunk],
) -> Result<u64> {
    let schema = arrow_schema(names, types, StringLayout::View);
    let write_error = |e: &dyn std::fmt::Display| {
        Error::new(
            stride_common::ErrorKind::Io,
            format!("could not write Arrow file \"{path}\": {e}"),
        )
    };
    let (new, file) = crate::file::NewFile::create(path).map_err(|e| write_error(&e))?;
    let mut writer = arrow_ipc::writer::FileWriter::try_new(std::io::BufWriter::new(file), &schema)
        .map_err(|e| write_error(&e))?;
    let mut rows = 0u64;
    let mut pending: Vec<(Vec<Vector>, usize)> = Vec::new();
    let mut pending_rows = 0;
    for (i, c) in chunks.iter().enumerate() {
        let (cols, n) = c.clone().into_flat_columns();
        if n > 0 {
            rows += n as u64;
            pending_rows += n;
            pending.push((cols, n));
        }
        if !pending.is_empty() && (pending_rows >= MORSEL_ROWS || i + 1 == chunks.len()) {
            let batch = record_batch(&schema, types, &pending)?;
            writer.write(&batch).map_err(|e| write_error(&e))?;
            pending.clear();
            pending_rows = 0;
        }
    }
    writer.finish().map_err(|e| write_error(&e))?;
    let mut out = writer.into_inner().map_err(|e| write_error(&e))?;
    std::io::Write::flush(&mut out).map_err(|e| write_error(&e))?;
    drop(out);
    new.commit().map_err(|e| write_error(&e))?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> String {
        let dir = std::env::temp_dir().join(format!("stride-arrow-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name).to_string_lossy().into_owned()
    }

    #[test]
    fn writes_and_reads_back_in_place() {
        let n = MORSEL_ROWS + 5000;
        let ints = Vector::from_values(DataType::BigInt, (0..n as i64).collect::<Vec<_>>());
        let mut strs = Vector::with_capacity(&DataType::Varchar, n);
        for i in 0..n {
            strs.push(&ScalarValue::Varchar(format!("string number {i:08}")))
                .unwrap();
        }
        let chunk = DataChunk::new(vec![ints, strs], n);
        let path = temp("t.arrow");
        let names = ["i".to_string(), "s".to_string()];
        let types = [DataType::BigInt, DataType::Varchar];
        assert_eq!(
            write_file(&path, &names, &types, &[chunk]).unwrap(),
            n as u64
        );
        let paths = std::slice::from_ref(&path);
        let reader =
            ArrowReader::bind(paths, FileColumns::new(paths, true, None).unwrap()).unwrap();
        assert_eq!(reader.names(), ["i", "s", "filename"]);
        assert_eq!(reader.estimated_rows(), n);
        assert_eq!(reader.morsels(), 2, "a large batch is cut into morsels");
        let mut seen = 0;
        for m in 0..reader.morsels() {
            reader
                .produce(m, &[1, 0, 2], &mut |c| {
                    let i = c.columns[1].values::<i64>()[0] as usize;
                    assert_eq!(i, seen);
                    assert_eq!(c.columns[0].strings().get(0), format!("string number {i:08}"));
                    assert!(c.columns[0].strings().views.is_foreign(), "read in place");
                    assert!(matches!(&c.columns[1].data, stride_common::VectorData::I64(b) if b.is_foreign()));
                    seen += c.len();
                    Ok(())
                })
                .unwrap();
        }
        assert_eq!(seen, n);
    }

    #[test]
    fn files_that_are_not_arrow_are_errors_naming_them() {
        let path = temp("bad.arrow");
        std::fs::write(&path, b"ARROW1 but then nothing that makes sense ARROW1").unwrap();
        let e = ArrowReader::bind(std::slice::from_ref(&path), FileColumns::default())
            .err()
            .unwrap();
        assert!(e.message.contains(&path), "{}", e.message);
        std::fs::write(&path, b"a,b\n1,2\n3,4\n5,6\n").unwrap();
        let e = ArrowReader::bind(std::slice::from_ref(&path), FileColumns::default())
            .err()
            .unwrap();
        assert!(e.message.contains("not an Arrow IPC file"), "{}", e.message);
        // A real file cut short, and one with a byte flipped in every position of
        // its footer: errors, never a panic.
        let good = temp("good.arrow");
        let v = Vector::from_values(DataType::Integer, vec![1i32, 2, 3]);
        write_file(
            &good,
            &["x".into()],
            &[DataType::Integer],
            &[DataChunk::new(vec![v], 3)],
        )
        .unwrap();
        let bytes = std::fs::read(&good).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        assert!(ArrowReader::bind(std::slice::from_ref(&path), FileColumns::default()).is_err());
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x5a;
            std::fs::write(&path, &b).unwrap();
            if let Ok(r) = ArrowReader::bind(std::slice::from_ref(&path), FileColumns::default()) {
                for m in 0..r.morsels() {
                    let _ = r.produce(m, &[0], &mut |_| Ok(()));
                }
            }
        }
    }
}
