//! ORDER BY past `memory_limit`: the spilling half of `sort.rs`.
//!
//! A sort worker whose rows no longer fit sorts what it holds and writes it to its
//! spill file as a sorted run ([`spill_run`]), then starts a new run. A spilled chunk
//! holds its rows in sorted order followed by two columns: their sort keys (a HUGEINT
//! for packed keys, a list of TINYINT for byte keys) and their tags (morsel and row
//! within the worker), so nothing is evaluated again and ties keep input order.
//!
//! When the input is done, [`ExternalMerge`] merges the runs still in memory with the
//! spilled ones: a heap of cursors, one per run, ordered by their next (key, tag); a
//! spilled run is read a chunk at a time. The merge reserves one chunk per spilled run.
//! Where that does not fit beside the runs in memory, the largest of those are spilled
//! too; where it does not fit at all, spilled runs are first merged into longer ones
//! on disk, as many at a time as fit, until it does (and where not even two fit, the
//! query fails with an Out of Memory Error). The merged rows leave 2,048 at a time
//! through a [`StreamSource`](crate::stream_source::StreamSource), so the sorted result
//! is never held whole.

use super::chunk_bytes;
use super::sort::{ChunkKeys, Entries, Run, NARROW_SHIFT};
use crate::context::QueryContext;
use crate::row_key::KeyBuffer;
use crate::spill::{self, SpillFile};
use crate::stream_source::Produce;
use std::collections::VecDeque;
use stride_common::memory::{MemoryTag, Reservation};
use stride_common::vector::{ListData, VectorData};
use stride_common::{DataChunk, DataType, Error, Result, Validity, Vector, VECTOR_SIZE};

/// A row's sort key as the merge compares it. One query has one kind of key.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum KeyRef<'a> {
    Packed(u128),
    Bytes(&'a [u8]),
}

/// One worker's sorted runs on disk.
pub struct Spilled {
    file: SpillFile,
    runs: Vec<SpilledRun>,
}

/// A sorted run on disk: its chunks, each written as a spill run of its own so the
/// merge reads them one at a time.
#[derive(Default)]
struct SpilledRun {
    chunks: Vec<spill::Run>,
    rows: u64,
    /// The bytes its largest chunk takes in memory: what the merge reserves for it.
    chunk_bytes: u64,
}

impl SpilledRun {
    /// Appends `chunk` (rows, keys and tags), written to `file`.
    fn write(&mut self, chunk: DataChunk, file: &mut SpillFile) -> Result<()> {
        self.rows += chunk.len() as u64;
        self.chunk_bytes = self.chunk_bytes.max(chunk_bytes(&chunk));
        self.chunks.push(file.write_run([&chunk])?);
        Ok(())
    }
}

/// Sorted entry `i`: its key and tag.
fn entry(entries: &Entries, i: usize) -> (KeyRef<'_>, u64) {
    match entries {
        Entries::Packed(e) => (KeyRef::Packed(e[i].0), e[i].1),
        Entries::Narrow { top, entries } => {
            let (k, t) = entries[i];
            (KeyRef::Packed(top | (k as u128) << NARROW_SHIFT), t)
        }
        Entries::Bytes(e) => (KeyRef::Bytes(&e[i].0), e[i].1),
    }
}

fn entries_len(entries: &Entries) -> usize {
    match entries {
        Entries::Packed(e) => e.len(),
        Entries::Narrow { entries, .. } => entries.len(),
        Entries::Bytes(e) => e.len(),
    }
}

/// Row of a run whose first row has tag `first`, from a row's tag.
fn row_of(tag: u64, first: u32) -> u32 {
    (tag as u32).wrapping_sub(first)
}

/// Sorts `run`, writes it to the worker's spill file (`to`, created on first use) and
/// empties it, freeing its memory; its next rows' tags continue after its last.
pub fn spill_run(run: &mut Run, to: &mut Option<Spilled>, ctx: &QueryContext) -> Result<()> {
    let Some(mut entries) = run.entries.take() else {
        return Ok(());
    };
    entries.sort();
    let rows = concat(std::mem::take(&mut run.chunks));
    let first = run.first;
    run.first += run.rows;
    run.rows = 0;
    let spilled = match to {
        Some(s) => s,
        None => to.insert(Spilled {
            file: SpillFile::create(ctx, MemoryTag::Sort)?,
            runs: Vec::new(),
        }),
    };
    let n = entries_len(&entries);
    let mut out = SpilledRun::default();
    for start in (0..n).step_by(VECTOR_SIZE) {
        ctx.check()?;
        let heads: Vec<(KeyRef, u64)> = (start..(start + VECTOR_SIZE).min(n))
            .map(|i| entry(&entries, i))
            .collect();
        let positions: Vec<u32> = heads.iter().map(|h| row_of(h.1, first)).collect();
        let mut keys = Keys::default();
        heads.iter().for_each(|&(k, t)| keys.push(k, t));
        let mut columns = rows.gather(&positions);
        columns.extend(keys.columns());
        out.write(DataChunk::new(columns, heads.len()), &mut spilled.file)?;
    }
    spilled.runs.push(out);
    run.reservation.clear();
    Ok(())
}

/// Flat chunks of one run as one chunk, each dropped once copied.
fn concat(chunks: Vec<DataChunk>) -> DataChunk {
    let n = chunks.iter().map(|c| c.len()).sum();
    let mut columns: Vec<Vector> = match chunks.first() {
        Some(c) => c
            .types()
            .iter()
            .map(|t| Vector::with_capacity(t, n))
            .collect(),
        None => Vec::new(),
    };
    for c in chunks {
        for (dst, src) in columns.iter_mut().zip(&c.columns) {
            dst.append(src, c.len());
        }
    }
    DataChunk::new(columns, n)
}

/// Keys and tags of spilled rows, gathered for their columns.
#[derive(Default)]
struct Keys {
    packed: Vec<i128>,
    bytes: Vec<i8>,
    offsets: Vec<u32>,
    tags: Vec<i64>,
}

impl Keys {
    fn push(&mut self, key: KeyRef, tag: u64) {
        match key {
            KeyRef::Packed(p) => self.packed.push(p as i128),
            KeyRef::Bytes(b) => {
                if self.offsets.is_empty() {
                    self.offsets.push(0);
                }
                self.bytes.extend(b.iter().map(|&x| x as i8));
                self.offsets.push(self.bytes.len() as u32);
            }
        }
        self.tags.push(tag as i64);
    }

    /// The key column (packed keys as HUGEINT, byte keys as lists of TINYINT) and the
    /// tag column (BIGINT).
    fn columns(self) -> [Vector; 2] {
        let tags = Vector::from_values(DataType::BigInt, self.tags);
        if self.offsets.is_empty() {
            return [Vector::from_values(DataType::HugeInt, self.packed), tags];
        }
        let child = Vector::from_values(DataType::TinyInt, self.bytes);
        let keys = Vector::new(
            DataType::List(Box::new(DataType::TinyInt)),
            VectorData::List(ListData {
                offsets: self.offsets,
                child: Box::new(child),
            }),
            Validity::all_valid(),
        );
        [keys, tags]
    }
}

/// The keys [`Keys::columns`] wrote, read back.
fn read_keys(v: &Vector) -> Result<ChunkKeys> {
    match &v.data {
        VectorData::I128(p) => Ok(ChunkKeys::Packed(p.iter().map(|&k| k as u128).collect())),
        VectorData::List(l) => match &l.child.data {
            VectorData::I8(b) => Ok(ChunkKeys::Bytes(KeyBuffer {
                data: b.iter().map(|&x| x as u8).collect(),
                offsets: l.offsets.clone(),
            })),
            _ => Err(Error::internal("a spilled sort run's keys are damaged")),
        },
        _ => Err(Error::internal("a spilled sort run's keys are damaged")),
    }
}

/// The sorted keys and tags a cursor walks.
enum Heads {
    /// A run in memory: its sorted entries, and the tag of its first row.
    Memory(Entries, u32),
    /// A spilled chunk: its rows' keys and tags, in order.
    Spilled(ChunkKeys, Vec<u64>),
}

/// Where the merge is in one run.
struct Cursor {
    /// The rows `heads` points into: a whole run in memory, or one spilled chunk.
    rows: DataChunk,
    heads: Heads,
    pos: usize,
    /// A spilled run's file and chunks not read yet.
    file: usize,
    unread: VecDeque<spill::Run>,
    /// `rows`' index among the sources of the batch being gathered, once it has one.
    in_batch: Option<u32>,
}

impl Cursor {
    /// A cursor over spilled `run` of file `file`, before its first chunk is read.
    fn spilled(file: usize, run: SpilledRun) -> Cursor {
        Cursor {
            rows: DataChunk::new(Vec::new(), 0),
            heads: Heads::Spilled(ChunkKeys::Packed(Vec::new()), Vec::new()),
            pos: 0,
            file,
            unread: run.chunks.into(),
            in_batch: None,
        }
    }

    fn len(&self) -> usize {
        match &self.heads {
            Heads::Memory(e, _) => entries_len(e),
            Heads::Spilled(_, tags) => tags.len(),
        }
    }

    fn head(&self) -> (KeyRef<'_>, u64) {
        let i = self.pos;
        match &self.heads {
            Heads::Memory(e, _) => entry(e, i),
            Heads::Spilled(ChunkKeys::Packed(p), tags) => (KeyRef::Packed(p[i]), tags[i]),
            Heads::Spilled(ChunkKeys::Bytes(b), tags) => (KeyRef::Bytes(b.key(i)), tags[i]),
        }
    }

    /// The head's row in `rows`.
    fn row(&self) -> u32 {
        match &self.heads {
            Heads::Memory(_, first) => row_of(self.head().1, *first),
            Heads::Spilled(..) => self.pos as u32,
        }
    }

    /// Moves to the next row; false at the run's end.
    fn advance(&mut self, files: &[SpillFile]) -> Result<bool> {
        self.pos += 1;
        self.fill(files)
    }

    /// Reads the run's next chunk while the current one is done; false at the run's
    /// end.
    fn fill(&mut self, files: &[SpillFile]) -> Result<bool> {
        while self.pos >= self.len() {
            let Some(run) = self.unread.pop_front() else {
                return Ok(false);
            };
            let file = files
                .get(self.file)
                .ok_or_else(|| Error::internal("a sort run's spill file is missing"))?;
            // Each spill run holds one chunk.
            let mut chunks = file.read_all(run)?;
            let (Some(chunk), true) = (chunks.pop(), chunks.is_empty()) else {
                return Err(Error::internal("a spilled sort chunk is damaged"));
            };
            (self.rows, self.heads) = split_spilled(chunk)?;
            self.pos = 0;
            self.in_batch = None;
        }
        Ok(true)
    }
}

/// A spilled chunk's rows, and its keys and tags.
fn split_spilled(mut chunk: DataChunk) -> Result<(DataChunk, Heads)> {
    let (Some(tags), Some(keys)) = (chunk.columns.pop(), chunk.columns.pop()) else {
        return Err(Error::internal("a spilled sort run's chunk lacks its keys"));
    };
    let tags = tags.values::<i64>().iter().map(|&t| t as u64).collect();
    Ok((chunk, Heads::Spilled(read_keys(&keys)?, tags)))
}

/// Output rows being gathered: the chunks they come from, and each row's (chunk, row).
#[derive(Default)]
struct Batch {
    sources: Vec<DataChunk>,
    picks: Vec<(u32, u32)>,
}

impl Batch {
    /// The gathered rows as a chunk: each source's rows taken at once, then put in
    /// output order.
    fn take(&mut self) -> DataChunk {
        let sources = std::mem::take(&mut self.sources);
        let picks = std::mem::take(&mut self.picks);
        let n = picks.len();
        let mut rows_of = vec![Vec::new(); sources.len()];
        for &(s, r) in &picks {
            rows_of[s as usize].push(r);
        }
        let mut parts: Vec<Vec<Vector>> = sources
            .iter()
            .zip(&rows_of)
            .map(|(c, rows)| c.gather(rows))
            .collect();
        if parts.len() == 1 {
            return DataChunk::new(parts.pop().unwrap_or_default(), n);
        }
        // Each source's rows follow the previous source's: row k of output is at
        // `order[k]` of the parts put one after the other.
        let mut next: Vec<u32> = rows_of
            .iter()
            .scan(0u32, |at, rows| {
                let start = *at;
                *at += rows.len() as u32;
                Some(start)
            })
            .collect();
        let order: Vec<u32> = picks
            .iter()
            .map(|&(s, _)| {
                next[s as usize] += 1;
                next[s as usize] - 1
            })
            .collect();
        let width = parts.first().map_or(0, |p| p.len());
        let columns = (0..width)
            .map(|k| {
                let mut column = Vector::with_capacity(&parts[0][k].ty, n);
                for (part, rows) in parts.iter().zip(&rows_of) {
                    column.append(&part[k], rows.len());
                }
                column.take(&order)
            })
            .collect();
        DataChunk::new(columns, n)
    }
}

/// Runs merged by (key, tag): a heap of cursors, one per run.
struct Merger {
    cursors: Vec<Cursor>,
    /// Cursors with rows left, as a binary heap: the smallest head first.
    heap: Vec<usize>,
    batch: Batch,
}

impl Merger {
    fn new(mut cursors: Vec<Cursor>, files: &[SpillFile]) -> Result<Merger> {
        let mut heap = Vec::with_capacity(cursors.len());
        for (i, c) in cursors.iter_mut().enumerate() {
            if c.fill(files)? {
                heap.push(i);
            }
        }
        for i in (0..heap.len() / 2).rev() {
            sift_down(&mut heap, i, &cursors);
        }
        Ok(Merger {
            cursors,
            heap,
            batch: Batch::default(),
        })
    }

    /// The next rows in order, up to a chunk; with `keys`, followed by their key and
    /// tag columns, as spilled runs hold them.
    fn next(&mut self, files: &[SpillFile], mut keys: Option<Keys>) -> Result<Option<DataChunk>> {
        while self.batch.picks.len() < VECTOR_SIZE {
            let Some(&top) = self.heap.first() else {
                break;
            };
            let c = &mut self.cursors[top];
            let source = match c.in_batch {
                Some(s) => s,
                None => {
                    self.batch.sources.push(c.rows.clone());
                    let s = self.batch.sources.len() as u32 - 1;
                    c.in_batch = Some(s);
                    s
                }
            };
            self.batch.picks.push((source, c.row()));
            if let Some(k) = &mut keys {
                let (key, tag) = c.head();
                k.push(key, tag);
            }
            if !c.advance(files)? {
                self.heap.swap_remove(0);
            }
            sift_down(&mut self.heap, 0, &self.cursors);
        }
        if self.batch.picks.is_empty() {
            return Ok(None);
        }
        for c in &mut self.cursors {
            c.in_batch = None;
        }
        let mut chunk = self.batch.take();
        if let Some(k) = keys {
            chunk.columns.extend(k.columns());
        }
        Ok(Some(chunk))
    }
}

/// The k-way merge of a sort's runs, in memory and spilled.
pub struct ExternalMerge {
    files: Vec<SpillFile>,
    merger: Merger,
    rows: u64,
    /// The runs in memory (their own reservations) and the read buffers.
    _memory: Vec<Reservation>,
    _buffers: Reservation,
}

/// Spilled runs, each with the index of its file.
type OnDisk = Vec<(usize, SpilledRun)>;

/// Adds `spilled`'s runs to `on_disk` and its file to `files`.
fn add_spilled(spilled: Spilled, files: &mut Vec<SpillFile>, on_disk: &mut OnDisk) {
    on_disk.extend(spilled.runs.into_iter().map(|r| (files.len(), r)));
    files.push(spilled.file);
}

/// What reading a chunk of each run at once takes.
fn read_buffers(runs: &[(usize, SpilledRun)]) -> u64 {
    runs.iter().map(|r| r.1.chunk_bytes).sum()
}

impl ExternalMerge {
    /// Merges `runs` (in memory, their entries sorted) with the `spilled` ones.
    pub fn new(
        mut runs: Vec<Run>,
        spilled: Vec<Spilled>,
        ctx: &QueryContext,
    ) -> Result<ExternalMerge> {
        let (mut files, mut on_disk) = (Vec::new(), Vec::new());
        for s in spilled {
            add_spilled(s, &mut files, &mut on_disk);
        }
        let mut buffers = Reservation::new(&ctx.memory, MemoryTag::Sort);
        runs.sort_by_key(|r| r.reservation.size());
        while !buffers.try_grow(read_buffers(&on_disk)) {
            // Runs in memory make room first, largest first.
            if let Some(mut largest) = runs.pop() {
                let mut to = None;
                spill_run(&mut largest, &mut to, ctx)?;
                if let Some(s) = to {
                    add_spilled(s, &mut files, &mut on_disk);
                }
                continue;
            }
            if on_disk.len() < 2 {
                // A single run's chunk does not fit: an Out of Memory Error (or it
                // fits by now).
                buffers.grow(read_buffers(&on_disk))?;
                break;
            }
            merge_some(&mut on_disk, &mut files, ctx)?;
        }
        let mut cursors = Vec::new();
        let mut memory = Vec::new();
        for run in runs {
            let Some(entries) = run.entries else { continue };
            cursors.push(Cursor {
                rows: concat(run.chunks),
                heads: Heads::Memory(entries, run.first),
                pos: 0,
                file: 0,
                unread: VecDeque::new(),
                in_batch: None,
            });
            memory.push(run.reservation);
        }
        let mut rows = cursors.iter().map(|c| c.len() as u64).sum();
        for (file, run) in on_disk {
            rows += run.rows;
            cursors.push(Cursor::spilled(file, run));
        }
        Ok(ExternalMerge {
            merger: Merger::new(cursors, &files)?,
            files,
            rows,
            _memory: memory,
            _buffers: buffers,
        })
    }

    /// Rows the merge yields.
    pub fn rows(&self) -> u64 {
        self.rows
    }
}

/// Merges as many of the (two or more) spilled runs as fit in memory at once, those
/// with the smallest chunks first, into one written to a new file; fails with an Out
/// of Memory Error where not even two fit. (The merged runs' disk space is given back
/// with their files, when the sort ends.)
fn merge_some(on_disk: &mut OnDisk, files: &mut Vec<SpillFile>, ctx: &QueryContext) -> Result<()> {
    on_disk.sort_by_key(|r| r.1.chunk_bytes);
    let free = ctx.memory.limit().saturating_sub(ctx.memory.used());
    let mut fit = 0;
    while fit < on_disk.len() && read_buffers(&on_disk[..=fit]) <= free {
        fit += 1;
    }
    let group = fit.clamp(2, on_disk.len());
    let mut buffers = Reservation::new(&ctx.memory, MemoryTag::Sort);
    buffers.grow(read_buffers(&on_disk[..group]))?;
    let cursors = on_disk
        .drain(..group)
        .map(|(file, run)| Cursor::spilled(file, run))
        .collect();
    let mut merger = Merger::new(cursors, files)?;
    let mut file = SpillFile::create(ctx, MemoryTag::Sort)?;
    let mut merged = SpilledRun::default();
    while let Some(chunk) = merger.next(files, Some(Keys::default()))? {
        ctx.check()?;
        merged.write(chunk, &mut file)?;
    }
    on_disk.push((files.len(), merged));
    files.push(file);
    Ok(())
}

/// Restores the heap below position `i`: moves its cursor down past every child
/// with a smaller head.
fn sift_down(heap: &mut [usize], mut i: usize, cursors: &[Cursor]) {
    let Some(&moving) = heap.get(i) else {
        return;
    };
    let head = cursors[moving].head();
    loop {
        let left = 2 * i + 1;
        let Some(&l) = heap.get(left) else {
            break;
        };
        let (mut child, mut least) = (left, cursors[l].head());
        if let Some(&r) = heap.get(left + 1) {
            let right = cursors[r].head();
            if right < least {
                (child, least) = (left + 1, right);
            }
        }
        if head < least {
            break;
        }
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = moving;
}

impl Produce for ExternalMerge {
    fn next_chunk(&mut self) -> Result<Option<DataChunk>> {
        self.merger.next(&self.files, None)
    }
}
