//! The input of window functions (`LogicalPlan::Window`), collected under
//! `memory_limit`: the sink of the pipeline below the window.
//!
//! The rows are kept in memory, in morsel order, while their reservation fits; then
//! `window.rs` computes every function over them at once. A row reserves its own
//! bytes and an estimate of what computing the functions over it takes (sorted
//! positions, partition and peer bounds, keys, arguments, aggregate states: well over
//! a hundred bytes a row). When they do not fit and every function has the same
//! PARTITION BY, the input is split by a hash of those values into partitions (16 to
//! 256, from the input's estimated size against the limit), each worker writing its
//! share to its spill file as the memory it holds fills up. The partitions are then
//! read back one at a time, each computed by `window.rs` as if it were the whole input
//! (no window partition spans two of them) and its rows handed on through a
//! [`StreamSource`] before the next is read; the output comes partition by partition,
//! an order SQL leaves open. A partition larger than the limit fails with an Out of
//! Memory Error, as does a window whose functions have no PARTITION BY or different
//! ones, whose input cannot be split. (A partition that fits the limit but not beside
//! what other operators hold is read anyway: those that can spill, such as a sort
//! above the window, make room at their next reservation.)

use super::chunk_bytes;
use super::sort::{chunk_keys, ChunkKeys};
use super::window::compute;
use crate::coalesce::Coalescer;
use crate::context::QueryContext;
use crate::hash_table::hash_key;
use crate::pipeline::{Sink, Source};
use crate::spill::{self, SpillFile};
use crate::stream_source::{Produce, StreamSource};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock};
use stride_common::memory::{MemoryTag, Reservation};
use stride_common::{DataChunk, Error, Result};
use stride_sql::plan::{SortExpr, WindowExpr};

/// Bounds on how many partitions a spilled input is split into.
const MIN_PARTITIONS: usize = 16;
const MAX_PARTITIONS: usize = 256;

/// Bytes computing the functions takes per row beyond the row itself: about 140
/// for one function and 30 more for each other one, as measured.
const WORK_PER_ROW: u64 = 110;
const WORK_PER_FUNCTION: u64 = 30;

pub struct WindowSink<'a> {
    functions: &'a [WindowExpr],
    ctx: &'a QueryContext,
    /// The PARTITION BY every function shares, as the sort keys whose equality makes
    /// a window partition; `None` when a function has none or they differ.
    split_by: Option<Vec<SortExpr>>,
    /// The input's morsels, to estimate its size when it first spills.
    morsels: usize,
    /// How many partitions the input is split into, once it is.
    partitions: OnceLock<usize>,
    done: Mutex<Done>,
}

/// What the workers handed over.
#[derive(Default)]
struct Done {
    chunks: Vec<(usize, Vec<DataChunk>)>,
    reservations: Vec<Reservation>,
    splits: Vec<Split>,
}

/// One worker's rows: in memory by morsel, or split on disk.
pub struct Collected {
    chunks: Vec<(usize, Vec<DataChunk>)>,
    reservation: Reservation,
    split: Option<Split>,
}

/// One worker's rows split into partitions: waiting in memory, then in its file.
struct Split {
    file: SpillFile,
    /// Per partition: rows gathered into full chunks, and the chunks ready to write.
    waiting: Vec<(Coalescer, Vec<DataChunk>)>,
    runs: Vec<Vec<spill::Run>>,
}

impl Split {
    fn new(ctx: &QueryContext, partitions: usize) -> Result<Split> {
        Ok(Split {
            file: SpillFile::create(ctx, MemoryTag::Window)?,
            waiting: (0..partitions).map(|_| Default::default()).collect(),
            runs: vec![Vec::new(); partitions],
        })
    }

    /// Writes every waiting row, one run per partition.
    fn flush(&mut self) -> Result<()> {
        for ((coalescer, ready), runs) in self.waiting.iter_mut().zip(&mut self.runs) {
            ready.extend(coalescer.take());
            if !ready.is_empty() {
                runs.push(self.file.write_run(ready.iter())?);
                ready.clear();
            }
        }
        Ok(())
    }
}

impl<'a> WindowSink<'a> {
    /// A sink for the input of `functions`, read from a source of `morsels` morsels.
    pub fn new(functions: &'a [WindowExpr], morsels: usize, ctx: &'a QueryContext) -> Self {
        let first = functions.first().map(|f| &f.partition_by);
        let shared = functions.iter().all(|f| Some(&f.partition_by) == first);
        let split_by = match first {
            Some(p) if shared && !p.is_empty() => Some(
                p.iter()
                    .map(|e| SortExpr {
                        expr: e.clone(),
                        asc: true,
                        nulls_first: true,
                    })
                    .collect(),
            ),
            _ => None,
        };
        WindowSink {
            functions,
            ctx,
            split_by,
            morsels,
            partitions: OnceLock::new(),
            done: Mutex::new(Done::default()),
        }
    }

    /// Bytes computing the functions takes per row, beyond the row.
    fn work_per_row(&self) -> u64 {
        WORK_PER_ROW + WORK_PER_FUNCTION * self.functions.len() as u64
    }

    /// Partitions for an input whose first `morsel + 1` morsels take what the window
    /// holds now: enough that each takes about half the limit.
    fn partitions_for(&self, morsel: usize) -> usize {
        let held = self.ctx.memory.used_by(MemoryTag::Window) as f64;
        let morsels = self.morsels.max(1);
        let input = held * morsels as f64 / (morsel + 1).min(morsels) as f64;
        let target = (self.ctx.memory.limit() / 2).max(1) as f64;
        ((input / target).ceil() as usize).clamp(MIN_PARTITIONS, MAX_PARTITIONS)
    }

    /// Moves the rows `local` holds in memory to its partitions.
    fn start_split(&self, local: &mut Collected) -> Result<()> {
        let partitions = *self
            .partitions
            .get()
            .ok_or_else(|| Error::internal("a window split without partitions"))?;
        local.split = Some(Split::new(self.ctx, partitions)?);
        // The rows are counted again as they are split.
        local.reservation.clear();
        for (_, chunks) in std::mem::take(&mut local.chunks) {
            for chunk in chunks {
                self.split(local, chunk)?;
            }
        }
        Ok(())
    }

    /// Adds `chunk`'s rows to their partitions, writing them all out when they do
    /// not fit.
    fn split(&self, local: &mut Collected, chunk: DataChunk) -> Result<()> {
        let (Some(split), Some(split_by)) = (&mut local.split, &self.split_by) else {
            return Err(Error::internal("a window split without its keys"));
        };
        let parts = split.waiting.len();
        let keys = chunk_keys(split_by, &chunk, self.ctx)?;
        let mut rows = vec![Vec::new(); parts];
        for i in 0..chunk.len() {
            let hash = match &keys {
                ChunkKeys::Packed(p) => hash_key(&p[i].to_le_bytes()),
                ChunkKeys::Bytes(b) => hash_key(b.key(i)),
            };
            rows[((hash as u128 * parts as u128) >> 64) as usize].push(i as u32);
        }
        for ((coalescer, ready), rows) in split.waiting.iter_mut().zip(&rows) {
            if !rows.is_empty() {
                let part = DataChunk::new(chunk.gather(rows), rows.len());
                ready.extend(coalescer.add(part));
            }
        }
        if !local.reservation.try_grow(chunk_bytes(&chunk)) {
            split.flush()?;
            local.reservation.clear();
        }
        Ok(())
    }

    /// The window's output: computed at once from the rows in memory, or partition
    /// by partition from the split ones.
    pub fn finish(self) -> Result<Source> {
        let mut done = std::mem::take(
            &mut *self
                .done
                .lock()
                .map_err(|_| Error::internal("window lock poisoned"))?,
        );
        done.chunks.sort_by_key(|(m, _)| *m);
        let chunks = done.chunks.into_iter().flat_map(|(_, c)| c);
        if self.partitions.get().is_none() {
            let out = compute(chunks.collect(), self.functions, self.ctx)?;
            return Ok(Source::Chunks(Arc::new(out)));
        }
        // Rows handed over before another worker began to split go to the partitions
        // too.
        let mut splits = done.splits;
        let rest: Vec<DataChunk> = chunks.collect();
        if !rest.is_empty() {
            let mut rest = Collected {
                chunks: vec![(0, rest)],
                reservation: Reservation::new(&self.ctx.memory, MemoryTag::Window),
                split: None,
            };
            drop(done.reservations);
            self.start_split(&mut rest)?;
            splits.extend(rest.split);
        }
        for s in &mut splits {
            s.flush()?;
        }
        let rows = splits
            .iter()
            .flat_map(|s| s.runs.iter().flatten())
            .map(|r| r.rows)
            .sum();
        // The partitions are computed as they are read, after this call: in a context
        // of their own with this query's settings, cancellation and memory.
        let mut ctx = self.ctx.child();
        ctx.progress = self.ctx.progress.clone();
        ctx.profile = self.ctx.profile.clone();
        let partitions = Partitions {
            work: self.work_per_row(),
            functions: self.functions.to_vec(),
            ctx,
            splits,
            next: 0,
            out: VecDeque::new(),
            reservation: Reservation::new(&self.ctx.memory, MemoryTag::Window),
        };
        Ok(Source::Stream(Arc::new(StreamSource::new(
            rows,
            Box::new(partitions),
        ))))
    }
}

impl Sink for WindowSink<'_> {
    type Local = Collected;

    fn local(&self) -> Collected {
        Collected {
            chunks: Vec::new(),
            reservation: Reservation::new(&self.ctx.memory, MemoryTag::Window),
            split: None,
        }
    }

    fn consume(&self, local: &mut Collected, morsel: usize, chunk: DataChunk) -> Result<()> {
        let chunk = chunk.flatten();
        if local.split.is_none() {
            if self.partitions.get().is_none() {
                let bytes = chunk_bytes(&chunk) + self.work_per_row() * chunk.len() as u64;
                match local.chunks.last_mut() {
                    Some((m, chunks)) if *m == morsel => chunks.push(chunk),
                    _ => local.chunks.push((morsel, vec![chunk])),
                }
                if local.reservation.try_grow(bytes) {
                    return Ok(());
                }
                if self.split_by.is_none() {
                    // Nothing to split by: kept only if it fits after all.
                    return local.reservation.grow(bytes).map_err(|mut e| {
                        e.message.push_str(
                            "; window functions spill only when they all have the same PARTITION BY",
                        );
                        e
                    });
                }
                self.partitions.get_or_init(|| self.partitions_for(morsel));
                return self.start_split(local);
            }
            // Another worker began to split the input.
            self.start_split(local)?;
        }
        self.split(local, chunk)
    }

    fn combine(&self, local: Collected) -> Result<()> {
        let mut done = self
            .done
            .lock()
            .map_err(|_| Error::internal("window lock poisoned"))?;
        done.chunks.extend(local.chunks);
        done.reservations.push(local.reservation);
        done.splits.extend(local.split);
        Ok(())
    }
}

/// The partitions of a split input, computed one at a time.
struct Partitions {
    functions: Vec<WindowExpr>,
    /// Bytes computing them takes per row, beyond the row.
    work: u64,
    ctx: QueryContext,
    splits: Vec<Split>,
    /// The next partition to read.
    next: usize,
    /// The output of the partition read last, not yet handed on.
    out: VecDeque<DataChunk>,
    /// The memory the partition read last takes.
    reservation: Reservation,
}

impl Produce for Partitions {
    fn next_chunk(&mut self) -> Result<Option<DataChunk>> {
        loop {
            if let Some(chunk) = self.out.pop_front() {
                return Ok(Some(chunk));
            }
            let p = self.next;
            if self.splits.first().is_none_or(|s| p >= s.runs.len()) {
                return Ok(None);
            }
            self.next += 1;
            self.reservation.clear();
            let mut rows = Vec::new();
            let mut bytes = 0;
            for s in &self.splits {
                for run in &s.runs[p] {
                    for chunk in s.file.read_run(*run) {
                        let chunk = chunk?;
                        bytes += chunk_bytes(&chunk) + self.work * chunk.len() as u64;
                        rows.push(chunk);
                    }
                }
            }
            if !self.reservation.try_grow(bytes) {
                let memory = &self.ctx.memory;
                if bytes > memory.limit() {
                    let mut e = memory.out_of_memory(MemoryTag::Window, bytes);
                    e.message.push_str(
                        "; that is what the rows of a few PARTITION BY values need at once, which a window cannot spill",
                    );
                    return Err(e);
                }
                self.reservation.force_grow(bytes);
            }
            if !rows.is_empty() {
                self.out = compute(rows, &self.functions, &self.ctx)?.into();
            }
        }
    }
}
