//! ORDER BY: a parallel sort. Each worker collects its chunks with normalized sort
//! keys (packed into a `u128` when they fit) and sorts them when it finishes, in
//! parallel with the others; the sorted runs are then merged. Ties keep input order:
//! every entry carries its morsel and its row within the worker's rows, and a morsel
//! is always processed whole by one worker.
//!
//! Each worker reserves the memory its chunks and keys take (`MemoryTag::Sort`), and
//! the vector its entries move to before they grow. When a reservation fails, the
//! worker sorts what it holds, writes it to disk as a sorted run and starts again
//! with the chunk at hand; if any worker did, the runs are merged from disk and memory
//! as the result is read (`external_sort.rs`). Otherwise nothing changes.

use super::chunk_bytes;
use super::external_sort::{spill_run, ExternalMerge, Spilled};
use crate::context::QueryContext;
use crate::expression::eval_ref;
use crate::pipeline::{Sink, Source};
use crate::sort_key::{self, SortColumn};
use crate::stream_source::StreamSource;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Arc, Mutex};
use stride_common::memory::{MemoryTag, Reservation};
use stride_common::{DataChunk, DataType, Error, Result, Vector, VECTOR_SIZE};
use stride_sql::plan::SortExpr;

/// Sort keys of one row: packed when every key has a fixed width of ≤ 16 bytes.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Key {
    Packed(u128),
    Bytes(Box<[u8]>),
}

/// The sort keys of one chunk's rows.
pub enum ChunkKeys {
    Packed(Vec<u128>),
    Bytes(crate::row_key::KeyBuffer),
}

impl ChunkKeys {
    /// Row `i`'s key compared with `other`, without materializing it.
    #[inline]
    pub fn cmp_with(&self, i: usize, other: &Key) -> std::cmp::Ordering {
        match (self, other) {
            (ChunkKeys::Packed(p), Key::Packed(o)) => p[i].cmp(o),
            (ChunkKeys::Bytes(b), Key::Bytes(o)) => b.key(i).cmp(o),
            // One query always produces one kind of key.
            (ChunkKeys::Packed(_), Key::Bytes(_)) => std::cmp::Ordering::Less,
            (ChunkKeys::Bytes(_), Key::Packed(_)) => std::cmp::Ordering::Greater,
        }
    }

    pub fn key(&self, i: usize) -> Key {
        match self {
            ChunkKeys::Packed(p) => Key::Packed(p[i]),
            ChunkKeys::Bytes(b) => Key::Bytes(b.key(i).into()),
        }
    }

    /// Bytes these keys take once boxed one by one (byte keys).
    fn boxed_bytes(&self) -> u64 {
        match self {
            ChunkKeys::Packed(_) => 0,
            ChunkKeys::Bytes(b) => b.data.len() as u64,
        }
    }
}

/// Computes the keys of a chunk's rows.
pub fn chunk_keys(keys: &[SortExpr], chunk: &DataChunk, ctx: &QueryContext) -> Result<ChunkKeys> {
    Ok(chunk_keys_with_prefix(keys, 0, chunk, ctx)?.0)
}

/// [`chunk_keys`], and how many bytes of each key its first `split` keys take.
pub fn chunk_keys_with_prefix(
    keys: &[SortExpr],
    split: usize,
    chunk: &DataChunk,
    ctx: &QueryContext,
) -> Result<(ChunkKeys, sort_key::Prefix)> {
    let values = keys
        .iter()
        .map(|k| eval_ref(&k.expr, chunk, ctx))
        .collect::<Result<Vec<_>>>()?;
    let cols: Vec<SortColumn> = keys
        .iter()
        .zip(&values)
        .map(|(k, v)| SortColumn {
            values: v,
            asc: k.asc,
            nulls_first: k.nulls_first,
        })
        .collect();
    if let Some(p) = sort_key::encode_packed(&cols, chunk.len()) {
        let types: Vec<DataType> = cols[..split].iter().map(|c| c.values.ty.clone()).collect();
        let prefix = sort_key::fixed_width(&types).unwrap_or(0) as u32;
        return Ok((ChunkKeys::Packed(p), sort_key::Prefix::Fixed(prefix)));
    }
    let (keys, prefix) = sort_key::encode_with_prefix(&cols, chunk.len(), split);
    Ok((ChunkKeys::Bytes(keys), prefix))
}

/// Sorted entries of one worker: (key, morsel << 32 | row within the run).
pub enum Entries {
    Packed(Vec<(u128, u64)>),
    /// Packed keys that all share their first byte (the NULL marker: a run without
    /// NULLs) and use at most 8 more: the key is `top | narrow << 56`. Half the size,
    /// and sorted much faster (an 8-byte sort column, such as a BIGINT or a DOUBLE).
    /// A run starts narrow and widens to `Packed` at the first key that does not fit.
    Narrow {
        top: u128,
        entries: Vec<(u64, u64)>,
    },
    Bytes(Vec<(Box<[u8]>, u64)>),
}

impl Entries {
    /// Bytes the entries' vector has allocated.
    fn capacity_bytes(&self) -> u64 {
        (match self {
            Entries::Packed(e) => e.capacity() * std::mem::size_of::<(u128, u64)>(),
            Entries::Narrow { entries, .. } => {
                entries.capacity() * std::mem::size_of::<(u64, u64)>()
            }
            Entries::Bytes(e) => e.capacity() * std::mem::size_of::<(Box<[u8]>, u64)>(),
        }) as u64
    }

    /// Bytes of the vector the entries move to if `more` entries do not fit the
    /// one they have (0 when they fit), as `Vec` grows: to twice its capacity, or
    /// to what they need.
    fn growth_bytes(&self, more: usize) -> u64 {
        fn grown<T>(v: &Vec<T>, more: usize) -> u64 {
            match v.len() + more > v.capacity() {
                true => ((v.len() + more).max(2 * v.capacity()) * std::mem::size_of::<T>()) as u64,
                false => 0,
            }
        }
        match self {
            Entries::Packed(e) => grown(e, more),
            Entries::Narrow { entries, .. } => grown(entries, more),
            Entries::Bytes(e) => grown(e, more),
        }
    }

    pub fn sort(&mut self) {
        match self {
            Entries::Packed(e) => e.sort_unstable(),
            Entries::Narrow { entries, .. } => entries.sort_unstable(),
            Entries::Bytes(e) => e.sort_unstable(),
        }
    }
}

/// Bits below the first byte and the 8 bytes after it.
pub const NARROW_SHIFT: u32 = 56;

/// Whether packed key `k` fits a narrow run whose keys start with `top`.
#[inline]
fn fits_narrow(k: u128, top: u128) -> bool {
    k & (0xFF << 120) == top && k & ((1 << NARROW_SHIFT) - 1) == 0
}

/// Adds a chunk's packed keys to a run's entries, keeping them narrow while they fit.
fn push_packed(entries: &mut Option<Entries>, keys: Vec<u128>, tag: impl Fn(usize) -> u64) {
    if entries.is_none() {
        let top = keys.first().map_or(0, |k| k & (0xFF << 120));
        *entries = Some(Entries::Narrow {
            top,
            entries: Vec::new(),
        });
    }
    if let Some(Entries::Narrow { top, entries: e }) = entries {
        if keys.iter().all(|&k| fits_narrow(k, *top)) {
            e.extend(
                keys.iter()
                    .enumerate()
                    .map(|(i, &k)| ((k >> NARROW_SHIFT) as u64, tag(i))),
            );
            return;
        }
        let top = *top;
        let wide = e
            .iter()
            .map(|&(k, t)| (top | (k as u128) << NARROW_SHIFT, t))
            .collect();
        *entries = Some(Entries::Packed(wide));
    }
    if let Some(Entries::Packed(e)) = entries {
        e.extend(keys.into_iter().enumerate().map(|(i, k)| (k, tag(i))));
    }
}

/// A worker's rows in memory, with their entries.
pub struct Run {
    pub(super) chunks: Vec<DataChunk>,
    pub(super) entries: Option<Entries>,
    pub(super) rows: u32,
    /// The row number (in the tags) of its first row: the rows its worker spilled
    /// before, so that tags go on rising across a worker's runs.
    pub(super) first: u32,
    /// The memory its chunks and entries take.
    pub(super) reservation: Reservation,
}

/// A sort worker's state: its rows in memory, and the runs it spilled.
pub struct Worker {
    run: Run,
    spilled: Option<Spilled>,
}

pub struct SortSink<'a> {
    keys: &'a [SortExpr],
    ctx: &'a QueryContext,
    runs: Mutex<Vec<Run>>,
    spilled: Mutex<Vec<Spilled>>,
}

impl<'a> SortSink<'a> {
    pub fn new(keys: &'a [SortExpr], ctx: &'a QueryContext) -> Self {
        SortSink {
            keys,
            ctx,
            runs: Mutex::new(Vec::new()),
            spilled: Mutex::new(Vec::new()),
        }
    }

    /// The sorted rows: merged in memory, or merged as they are read when some were
    /// spilled.
    pub fn finish(self, types: &[DataType]) -> Result<Source> {
        let lock = || Error::internal("sort lock poisoned");
        let runs = self.runs.into_inner().map_err(|_| lock())?;
        let spilled = self.spilled.into_inner().map_err(|_| lock())?;
        if spilled.is_empty() {
            return Ok(Source::Chunks(Arc::new(merge_in_memory(runs, types))));
        }
        let merge = ExternalMerge::new(runs, spilled, self.ctx)?;
        Ok(Source::Stream(Arc::new(StreamSource::new(
            merge.rows(),
            Box::new(merge),
        ))))
    }
}

/// The rows of `runs` (their entries sorted) in order.
fn merge_in_memory(runs: Vec<Run>, types: &[DataType]) -> Vec<DataChunk> {
    // Concatenate the payload of all runs, remembering where each starts.
    let mut columns: Vec<Vector> = types.iter().map(|t| Vector::with_capacity(t, 0)).collect();
    let mut bases = Vec::with_capacity(runs.len());
    let mut total = 0usize;
    for r in &runs {
        bases.push(total as u32);
        for c in &r.chunks {
            for (dst, src) in columns.iter_mut().zip(&c.columns) {
                dst.append(src, c.len());
            }
            total += c.len();
        }
    }
    // Narrow runs merge as they are when they share their first key byte;
    // otherwise they are widened back to packed keys first.
    let tops: Vec<u128> = runs
        .iter()
        .filter_map(|r| match &r.entries {
            Some(Entries::Narrow { top, .. }) => Some(*top),
            _ => None,
        })
        .collect();
    let all_narrow = runs
        .iter()
        .all(|r| matches!(r.entries, Some(Entries::Narrow { .. }) | None))
        && tops.windows(2).all(|w| w[0] == w[1]);
    let widened: Vec<Option<Vec<(u128, u64)>>> = runs
        .iter()
        .map(|r| match &r.entries {
            Some(Entries::Narrow { top, entries }) if !all_narrow => Some(
                entries
                    .iter()
                    .map(|&(k, t)| (top | (k as u128) << NARROW_SHIFT, t))
                    .collect(),
            ),
            _ => None,
        })
        .collect();
    let mut packed = Vec::new();
    let mut narrow_runs = Vec::new();
    let mut bytes = Vec::new();
    for ((r, base), wide) in runs.iter().zip(&bases).zip(&widened) {
        match (&r.entries, wide) {
            (_, Some(w)) => packed.push((w.as_slice(), *base)),
            (Some(Entries::Packed(e)), None) => packed.push((e.as_slice(), *base)),
            (Some(Entries::Narrow { entries, .. }), None) => {
                narrow_runs.push((entries.as_slice(), *base))
            }
            (Some(Entries::Bytes(e)), None) => bytes.push((e.as_slice(), *base)),
            (None, None) => {}
        }
    }
    let order = if !bytes.is_empty() {
        merge(&bytes, total)
    } else if !narrow_runs.is_empty() {
        merge(&narrow_runs, total)
    } else {
        merge(&packed, total)
    };
    order
        .chunks(VECTOR_SIZE)
        .map(|batch| DataChunk::new(columns.iter().map(|c| c.take(batch)).collect(), batch.len()))
        .collect()
}

/// Merges sorted runs (entries, first global row of the run) into global row
/// positions: directly for one run, two cursors for two, a heap beyond.
fn merge<K: Ord>(runs: &[(&[(K, u64)], u32)], total: usize) -> Vec<u32> {
    let row = |e: &(K, u64), base: u32| base + (e.1 & 0xFFFF_FFFF) as u32;
    let mut order = Vec::with_capacity(total);
    match runs {
        [] => {}
        [(a, base)] => order.extend(a.iter().map(|e| row(e, *base))),
        [(a, ba), (b, bb)] => {
            let (mut i, mut j) = (0, 0);
            while i < a.len() && j < b.len() {
                if a[i] <= b[j] {
                    order.push(row(&a[i], *ba));
                    i += 1;
                } else {
                    order.push(row(&b[j], *bb));
                    j += 1;
                }
            }
            order.extend(a[i..].iter().map(|e| row(e, *ba)));
            order.extend(b[j..].iter().map(|e| row(e, *bb)));
        }
        _ => {
            // (smallest head entry, run, position in the run)
            type Head<'e, K> = (Reverse<&'e (K, u64)>, usize, usize);
            let mut heap: BinaryHeap<Head<K>> = BinaryHeap::with_capacity(runs.len());
            for (ri, (r, _)) in runs.iter().enumerate() {
                if let Some(e) = r.first() {
                    heap.push((Reverse(e), ri, 0));
                }
            }
            while let Some((Reverse(e), ri, pos)) = heap.pop() {
                order.push(row(e, runs[ri].1));
                if let Some(n) = runs[ri].0.get(pos + 1) {
                    heap.push((Reverse(n), ri, pos + 1));
                }
            }
        }
    }
    order
}

impl Sink for SortSink<'_> {
    type Local = Worker;

    fn local(&self) -> Worker {
        Worker {
            run: Run {
                chunks: Vec::new(),
                entries: None,
                rows: 0,
                first: 0,
                reservation: Reservation::new(&self.ctx.memory, MemoryTag::Sort),
            },
            spilled: None,
        }
    }

    fn consume(&self, worker: &mut Worker, morsel: usize, chunk: DataChunk) -> Result<()> {
        let local = &mut worker.run;
        let chunk = chunk.flatten();
        let first = local.first + local.rows;
        if first as u64 + chunk.len() as u64 > u32::MAX as u64 {
            return Err(Error::not_supported(
                "ORDER BY of more than 4 billion rows on one thread",
            ));
        }
        let keys = chunk_keys(self.keys, &chunk, self.ctx)?;
        // What the chunk and its keys add, and the vector the entries move to if they
        // must grow for them (the old one lives until they have moved): reserved
        // before it is allocated, and when that does not fit, the run is spilled
        // first and the chunk starts the next one.
        let n = chunk.len();
        let added = chunk_bytes(&chunk) + keys.boxed_bytes();
        let ahead = |entries: &Option<Entries>| match entries {
            Some(e) => e.growth_bytes(n),
            // A first vector holds the chunk's entries, at most the widest kind's.
            None => (n * std::mem::size_of::<(u128, u64)>()) as u64,
        };
        let mut growth = ahead(&local.entries);
        if !local.reservation.try_grow(added + growth) {
            spill_run(local, &mut worker.spilled, self.ctx)?;
            growth = ahead(&local.entries);
            // One chunk is held whatever the limit; operators that can spill make
            // room at their next reservation.
            local.reservation.track(added + growth);
        }
        // Spilling moved the run's first row on.
        let first = local.first + local.rows;
        let allocated = local.entries.as_ref().map_or(0, Entries::capacity_bytes);
        let tag = |i: usize| ((morsel as u64) << 32) | (first as u64 + i as u64);
        match (&mut local.entries, keys) {
            (None | Some(Entries::Packed(_) | Entries::Narrow { .. }), ChunkKeys::Packed(p)) => {
                push_packed(&mut local.entries, p, tag)
            }
            (None, ChunkKeys::Bytes(b)) => {
                local.entries = Some(Entries::Bytes(
                    (0..chunk.len())
                        .map(|i| (b.key(i).into(), tag(i)))
                        .collect(),
                ))
            }
            (Some(Entries::Bytes(e)), ChunkKeys::Bytes(b)) => {
                e.extend((0..chunk.len()).map(|i| (b.key(i).into(), tag(i))))
            }
            _ => {
                return Err(Error::internal(
                    "sort keys changed representation between chunks",
                ))
            }
        }
        local.rows += chunk.len() as u32;
        local.chunks.push(chunk);
        // The old vector is gone if the entries moved: the reservation keeps what
        // the run holds.
        let held = local.entries.as_ref().map_or(0, Entries::capacity_bytes);
        let now = held.saturating_sub(allocated);
        if now > growth {
            local.reservation.track(now - growth);
        } else {
            local.reservation.shrink(growth - now);
        }
        Ok(())
    }

    fn combine(&self, mut worker: Worker) -> Result<()> {
        if let Some(e) = &mut worker.run.entries {
            e.sort();
        }
        let lock = || Error::internal("sort lock poisoned");
        self.runs.lock().map_err(|_| lock())?.push(worker.run);
        if let Some(s) = worker.spilled {
            self.spilled.lock().map_err(|_| lock())?.push(s);
        }
        Ok(())
    }
}
