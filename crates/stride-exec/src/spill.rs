//! Spill files: where an operator whose state passes `memory_limit` writes part of it,
//! to read it back later in the query (hash aggregation's partitions, a sort's runs).
//!
//! A spill file lives in `temp_directory` and is unlinked as soon as it is created, so
//! the system deletes it when the query drops it: at its end, on an error, after
//! Ctrl-C, and even when the process dies. Chunks are written in frames, each
//! compressed with LZ4 (fast enough not to slow a spill to disk speed): the frame's
//! compressed length (u32), then LZ4's block with its raw length in front. Where LZ4
//! saves less than an eighth, the frame is stored as it is, its length's top bit set,
//! and the next [`RAW_FRAMES`] frames of the file are stored without trying (sorted
//! runs of wide random keys compress little, and compressing them was a sixth of a
//! spilling sort's time). A frame's raw bytes are the column count (u32), the row count (u32) and each column's type
//! and values in the encodings of the database file ([`stride_storage::serialize`]).
//! A run is a sequence of frames written one after the other; it is read back a chunk
//! at a time, with positioned reads, so several runs of one file can be read at once.

use crate::context::QueryContext;
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use stride_common::memory::{MemoryAccountant, MemoryTag};
use stride_common::{DataChunk, Error, Result};
use stride_storage::serialize::{read_type, read_vector, write_type, write_vector};
use stride_storage::serialize::{ByteReader, ByteWriter};

/// Where one run of chunks lies in its file.
#[derive(Debug, Clone, Copy, Default)]
pub struct Run {
    pub offset: u64,
    pub bytes: u64,
    pub chunks: u64,
    pub rows: u64,
}

/// One spill file, written from one thread at a time and read from many.
pub struct SpillFile {
    file: File,
    dir: PathBuf,
    len: u64,
    accountant: Arc<MemoryAccountant>,
    /// Reused for each frame.
    scratch: ByteWriter,
    /// Frames still to store without trying to compress them.
    raw_frames: u32,
}

/// Frames stored without compressing after one that LZ4 did not shrink by an eighth.
const RAW_FRAMES: u32 = 32;
/// The top bit of a frame's length: its bytes are stored as they are.
const RAW: u32 = 1 << 31;

static NEXT_FILE: AtomicU64 = AtomicU64::new(0);

impl SpillFile {
    /// A new, empty spill file in the query's `temp_directory` for `tag`; fails with
    /// an Out of Memory Error when spilling is switched off (`temp_directory = ''`).
    pub fn create(ctx: &QueryContext, tag: MemoryTag) -> Result<SpillFile> {
        let Some(dir) = ctx.settings.spill_directory() else {
            let mut e = ctx.memory.out_of_memory(tag, 0);
            e.message.push_str(
                "; spilling to disk is off because temp_directory is empty: SET temp_directory = '/path' to let it spill",
            );
            return Err(e);
        };
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).map_err(|e| {
            Error::io(format!(
                "could not create the temp_directory \"{}\" for spilling the {}: {e}; SET temp_directory to a writable directory",
                dir.display(),
                tag.name()
            ))
        })?;
        let name = dir.join(format!(
            "stride_spill_{}_{}.tmp",
            std::process::id(),
            NEXT_FILE.fetch_add(1, Ordering::Relaxed)
        ));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&name)
            .map_err(|e| {
                Error::io(format!(
                    "could not create a spill file in \"{}\": {e}; SET temp_directory to a writable directory",
                    dir.display()
                ))
            })?;
        // Unlinked at once: the system deletes it when the query drops it, whatever
        // happens to the query or the process.
        let _ = std::fs::remove_file(&name);
        Ok(SpillFile {
            file,
            dir,
            len: 0,
            accountant: ctx.memory.clone(),
            scratch: ByteWriter::new(),
            raw_frames: 0,
        })
    }

    /// Bytes written.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `chunks` as one run.
    pub fn write_run<'a>(
        &mut self,
        chunks: impl IntoIterator<Item = &'a DataChunk>,
    ) -> Result<Run> {
        let mut run = Run {
            offset: self.len,
            ..Run::default()
        };
        let mut out = Vec::new();
        for chunk in chunks {
            if chunk.is_empty() {
                continue;
            }
            let chunk = chunk.clone().flatten();
            let w = &mut self.scratch;
            w.bytes.clear();
            w.u32(chunk.columns.len() as u32);
            w.u32(chunk.len() as u32);
            for c in &chunk.columns {
                write_type(w, &c.ty);
                write_vector(w, c, chunk.len());
            }
            if w.overflowed {
                return Err(Error::internal("a spilled chunk does not fit its frame"));
            }
            let compressed = match self.raw_frames {
                0 => Some(lz4_flex::block::compress_prepend_size(&w.bytes))
                    .filter(|f| f.len() < w.bytes.len() / 8 * 7),
                _ => None,
            };
            match compressed {
                Some(frame) => {
                    out.extend_from_slice(&(frame.len() as u32).to_le_bytes());
                    out.extend_from_slice(&frame);
                }
                None => {
                    self.raw_frames = match self.raw_frames {
                        0 => RAW_FRAMES,
                        n => n - 1,
                    };
                    if w.bytes.len() as u64 >= RAW as u64 {
                        return Err(Error::internal("a spilled chunk does not fit its frame"));
                    }
                    out.extend_from_slice(&(w.bytes.len() as u32 | RAW).to_le_bytes());
                    out.extend_from_slice(&w.bytes);
                }
            }
            run.chunks += 1;
            run.rows += chunk.len() as u64;
            // Written in pieces of about a megabyte.
            if out.len() >= 1 << 20 {
                self.write(&out)?;
                out.clear();
            }
        }
        self.write(&out)?;
        run.bytes = self.len - run.offset;
        Ok(run)
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.file.write_all(bytes).map_err(|e| {
            Error::io(format!(
                "could not write {} bytes to a spill file in \"{}\": {e}; free space there, or SET temp_directory to a disk with room",
                bytes.len(),
                self.dir.display()
            ))
        })?;
        self.len += bytes.len() as u64;
        self.accountant.add_spilled(bytes.len() as u64);
        Ok(())
    }

    /// The chunks of `run`, one at a time.
    pub fn read_run(&self, run: Run) -> RunReader<'_> {
        RunReader {
            file: self,
            at: run.offset,
            end: run.offset + run.bytes,
        }
    }

    /// Every chunk of `run`.
    pub fn read_all(&self, run: Run) -> Result<Vec<DataChunk>> {
        self.read_run(run).collect()
    }

    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let mut buf = vec![0u8; len];
        self.file.read_exact_at(&mut buf, offset).map_err(|e| {
            Error::io(format!(
                "could not read a spill file in \"{}\": {e}",
                self.dir.display()
            ))
        })?;
        Ok(buf)
    }
}

impl Drop for SpillFile {
    fn drop(&mut self) {
        self.accountant.sub_spilled(self.len);
    }
}

/// Reads a run's chunks in order.
pub struct RunReader<'a> {
    file: &'a SpillFile,
    at: u64,
    end: u64,
}

impl RunReader<'_> {
    fn next_chunk(&mut self) -> Result<DataChunk> {
        let head = self.file.read_at(self.at, 4)?;
        let head = u32::from_le_bytes(head[..4].try_into().expect("4 bytes"));
        let len = (head & !RAW) as usize;
        if self.at + 4 + len as u64 > self.end {
            return Err(Error::internal("a spill file's frame runs past its run"));
        }
        let frame = self.file.read_at(self.at + 4, len)?;
        self.at += 4 + len as u64;
        let raw = match head & RAW {
            0 => lz4_flex::block::decompress_size_prepended(&frame)
                .map_err(|e| Error::internal(format!("a spill file's frame is damaged: {e}")))?,
            _ => frame,
        };
        let mut r = ByteReader::new(&raw, "spill file");
        let columns = r.u32()? as usize;
        let rows = r.u32()? as usize;
        let mut vectors = Vec::with_capacity(columns);
        for _ in 0..columns {
            let ty = read_type(&mut r)?;
            vectors.push(read_vector(&mut r, &ty, rows)?);
        }
        Ok(DataChunk::new(vectors, rows))
    }
}

impl Iterator for RunReader<'_> {
    type Item = Result<DataChunk>;

    fn next(&mut self) -> Option<Result<DataChunk>> {
        if self.at >= self.end {
            return None;
        }
        let r = self.next_chunk();
        if r.is_err() {
            self.at = self.end;
        }
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use stride_common::{DataType, ScalarValue, Settings, Vector};

    fn ctx(dir: &str) -> QueryContext {
        let settings = Settings {
            temp_directory: Some(dir.to_string()),
            ..Settings::default()
        };
        QueryContext::new(
            Arc::new(stride_storage::Catalogs::default()),
            settings,
            Arc::new(AtomicBool::new(false)),
        )
    }

    #[test]
    fn runs_come_back_as_written_and_the_file_is_gone() {
        let dir = std::env::temp_dir().join(format!("stride_spill_test_{}", std::process::id()));
        let ctx = ctx(dir.to_str().unwrap());
        let mut file = SpillFile::create(&ctx, MemoryTag::Sort).unwrap();
        // No file stays in the directory: it was unlinked when created.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        let chunk = |base: i64| {
            let mut ints = Vector::with_capacity(&DataType::BigInt, 3);
            let mut strs = Vector::with_capacity(&DataType::Varchar, 3);
            let mut lists = Vector::with_capacity(&DataType::List(Box::new(DataType::Integer)), 3);
            for i in 0..3 {
                ints.push(&ScalarValue::BigInt(base + i)).unwrap();
                strs.push(&ScalarValue::Varchar(format!("s{}", base + i)))
                    .unwrap();
                lists
                    .push(&ScalarValue::List(
                        DataType::Integer,
                        vec![ScalarValue::Integer(i as i32)],
                    ))
                    .unwrap();
            }
            strs.push_null();
            ints.push_null();
            lists.push_null();
            DataChunk::new(vec![ints, strs, lists], 4)
        };
        let a = file.write_run(&[chunk(0), chunk(10)]).unwrap();
        let b = file.write_run(&[chunk(100)]).unwrap();
        assert_eq!((a.chunks, a.rows, b.rows), (2, 8, 4));
        assert_eq!(ctx.memory.spilled(), file.len());
        let back_b = file.read_all(b).unwrap();
        let back_a = file.read_all(a).unwrap();
        assert_eq!(back_b[0].row(3), chunk(100).row(3));
        assert_eq!(back_a[1].row(2), chunk(10).row(2));
        assert_eq!(back_a[0].row(0), chunk(0).row(0));
        drop(file);
        assert_eq!(ctx.memory.spilled(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn frames_lz4_cannot_shrink_are_stored_as_they_are() {
        let dir = std::env::temp_dir().join(format!("stride_spill_raw_{}", std::process::id()));
        let ctx = ctx(dir.to_str().unwrap());
        let mut file = SpillFile::create(&ctx, MemoryTag::Sort).unwrap();
        // Pseudo-random values (no repeats for LZ4 to find), then a constant run that
        // compresses well: the first frames go raw, and the file tries again later.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let random: Vec<DataChunk> = (0..40)
            .map(|_| {
                let values: Vec<i64> = (0..1000)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        x as i64
                    })
                    .collect();
                DataChunk::new(vec![Vector::from_values(DataType::BigInt, values)], 1000)
            })
            .collect();
        let same = DataChunk::new(
            vec![Vector::from_values(DataType::BigInt, vec![7i64; 1000])],
            1000,
        );
        let a = file.write_run(&random).unwrap();
        let raw_bytes = a.bytes;
        assert!(raw_bytes > 40 * 8000, "stored raw: {raw_bytes} bytes");
        let b = file.write_run(std::iter::repeat_n(&same, 40)).unwrap();
        // Raw until the file tries again (at most RAW_FRAMES frames), then compressed.
        assert!(
            b.bytes < 40 * 8000 * 3 / 4,
            "compressed again: {} bytes",
            b.bytes
        );
        let back = file.read_all(a).unwrap();
        for (got, want) in back.iter().zip(&random) {
            assert_eq!(got.row(999), want.row(999));
            assert_eq!(got.row(0), want.row(0));
        }
        assert!(file
            .read_all(b)
            .unwrap()
            .iter()
            .all(|c| c.row(500) == same.row(500)));
        drop(file);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_empty_temp_directory_refuses_to_spill() {
        let e = match SpillFile::create(&ctx(""), MemoryTag::HashAggregate) {
            Err(e) => e,
            Ok(_) => panic!("spilled with temp_directory = ''"),
        };
        assert_eq!(e.kind, stride_common::ErrorKind::OutOfMemory);
        assert!(
            e.message.contains("temp_directory is empty"),
            "{}",
            e.message
        );
    }
}
