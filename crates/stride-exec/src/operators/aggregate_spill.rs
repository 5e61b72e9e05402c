//! Hash aggregation past `memory_limit`: a worker whose table of groups no longer fits
//! writes its groups to disk and starts an empty table (`HashAggregate::account`).
//!
//! A spilled group is its key values and its aggregates' partial states (the vectors
//! `GroupedState::partial` exports, which a merge folds back in), written to one of
//! [`PARTITIONS`] runs chosen by the top bits of the key's hash. The rows a DISTINCT
//! or ORDER BY aggregate buffers go to runs of their own, each row with its group's
//! key values. Every table spilled adds runs to each partition; when the input ends,
//! the tables still in memory are spilled too. The aggregate's output is then a [`LateRows`] source with one morsel per
//! partition: a worker reads a partition's runs, merges its groups into one table
//! sized for them up front (a group's key hashes the same wherever it was, so all its
//! partial states meet in one partition) and finalizes them. So at most one partition per thread is in
//! memory, and the output is never materialized whole.

use super::hash_aggregate::{append_cols, is_buffered, LocalTable, Merger};
use crate::context::QueryContext;
use crate::hash_table::{hash_key, hash_word, KeyTable};
use crate::pipeline::LateRows;
use crate::row_key::{self, Keys};
use crate::spill::{Run, SpillFile};
use std::sync::Arc;
use stride_common::memory::{MemoryTag, Reservation};
use stride_common::{DataChunk, Error, Result, Vector, VECTOR_SIZE};

/// Bits of the hash that choose a group's partition.
const BITS: u32 = 7;
/// Partitions of spilled groups: each is merged alone, so the merged groups of one
/// partition are about 1/128 of all groups.
pub const PARTITIONS: usize = 1 << BITS;

/// The groups written to disk, by partition.
pub struct SpilledGroups {
    file: SpillFile,
    /// Each partition's runs of groups, one per table written.
    runs: Vec<Vec<Run>>,
    /// Per buffering (DISTINCT or ORDER BY) aggregate, each partition's runs of
    /// buffered rows: key columns, then the rows' arguments and ORDER BY values.
    buffered: Vec<Vec<Vec<Run>>>,
    /// How many partial-state columns each aggregate wrote.
    widths: Vec<usize>,
}

impl SpilledGroups {
    pub fn create(ctx: &QueryContext) -> Result<SpilledGroups> {
        Ok(SpilledGroups {
            file: SpillFile::create(ctx, MemoryTag::HashAggregate)?,
            runs: vec![Vec::new(); PARTITIONS],
            buffered: Vec::new(),
            widths: Vec::new(),
        })
    }

    /// Writes the groups of `t` (key columns, then each aggregate's partial-state
    /// columns) and its buffered rows to their partitions' runs; `t` is left without
    /// states.
    pub fn write(&mut self, merger: &Merger, t: &mut LocalTable) -> Result<()> {
        let n = t.table.len();
        if n == 0 {
            return Ok(());
        }
        let keys = row_key::decode(&merger.group_types, (0..n).map(|g| t.table.key(g)));
        let mut columns = keys.clone();
        let mut widths = Vec::with_capacity(merger.aggs.len());
        let partials = t.take_partials()?;
        for (partial, agg) in partials.into_iter().zip(&merger.aggs) {
            // A buffering aggregate's state stays empty until the rows are folded.
            let partial = if is_buffered(agg) {
                Vec::new()
            } else {
                partial
            };
            widths.push(partial.len());
            columns.extend(partial);
        }
        if self.widths.is_empty() {
            self.widths = widths;
            self.buffered = vec![vec![Vec::new(); PARTITIONS]; merger.aggs.len()];
        } else if self.widths != widths {
            return Err(Error::internal(
                "aggregate states exported different partial columns",
            ));
        }
        let partitions: Vec<usize> = (0..n).map(|g| partition(t.table.hash(g))).collect();
        let groups: Vec<u32> = (0..n as u32).collect();
        write_partitioned(&mut self.file, &mut self.runs, &columns, &groups, |g| {
            partitions[g as usize]
        })?;
        for (i, b) in t.buffered.iter_mut().enumerate() {
            let Some(b) = b.take() else { continue };
            if b.gids.is_empty() {
                continue;
            }
            let len = b.gids.len();
            let mut columns: Vec<Vector> = keys.iter().map(|k| k.take(&b.gids)).collect();
            columns.extend(b.cols.into_iter().map(|c| c.flatten(len)));
            let rows: Vec<u32> = (0..len as u32).collect();
            write_partitioned(
                &mut self.file,
                &mut self.buffered[i],
                &columns,
                &rows,
                |r| partitions[b.gids[r as usize] as usize],
            )?;
        }
        Ok(())
    }
}

/// Writes the rows `rows` of `columns` to `file`, one run per partition that
/// `partition_of` gives some row, appended to `runs[partition]`.
fn write_partitioned(
    file: &mut SpillFile,
    runs: &mut [Vec<Run>],
    columns: &[Vector],
    rows: &[u32],
    partition_of: impl Fn(u32) -> usize,
) -> Result<()> {
    let mut members = vec![Vec::new(); PARTITIONS];
    for &r in rows {
        members[partition_of(r)].push(r);
    }
    for (p, rows) in members.iter().enumerate() {
        if rows.is_empty() {
            continue;
        }
        let chunks: Vec<DataChunk> = rows
            .chunks(VECTOR_SIZE)
            .map(|batch| {
                DataChunk::new(columns.iter().map(|c| c.take(batch)).collect(), batch.len())
            })
            .collect();
        runs[p].push(file.write_run(&chunks)?);
    }
    Ok(())
}

/// Grows the reservation of a partition being merged to `bytes`. The partition must
/// be held to go on, so while it stays under half the limit it is held even when
/// other operators (which spill at their next reservation) hold the rest; past that,
/// it fails with the Out of Memory Error.
fn hold(memory: &mut Reservation, bytes: u64) -> Result<()> {
    if bytes <= memory.size() {
        return Ok(());
    }
    let more = bytes - memory.size();
    if memory.try_grow(more) {
        return Ok(());
    }
    if bytes <= memory.accountant().limit() / 2 {
        memory.force_grow(more);
        return Ok(());
    }
    memory.grow(more)
}

fn partition(hash: u64) -> usize {
    (hash >> (64 - BITS)) as usize
}

/// The output of a spilled aggregate: merges and finalizes one partition per morsel.
pub struct SpilledAggregate {
    merger: Arc<Merger>,
    groups: SpilledGroups,
}

impl SpilledAggregate {
    pub fn new(merger: Arc<Merger>, groups: SpilledGroups) -> Self {
        SpilledAggregate { merger, groups }
    }

    /// The groups of `out` that a chunk's rows belong to (their key columns come
    /// first), inserting new ones.
    fn group_ids(&self, out: &mut LocalTable, chunk: &DataChunk) -> Result<Vec<u32>> {
        let len = chunk.len();
        let keys = &chunk.columns[..self.merger.group_types.len()];
        let keys = row_key::encode_keys(keys, len)?;
        let hashes: Vec<u64> = match &keys {
            Keys::Words { words, .. } => words.iter().map(|&w| hash_word(w)).collect(),
            Keys::Bytes(b) => (0..len).map(|i| hash_key(b.key(i))).collect(),
        };
        // Spilled groups seldom repeat within a chunk: each lookup misses the cache,
        // so the slot of the key `AHEAD` rows on is loaded meanwhile.
        const AHEAD: usize = 16;
        let mut ids = Vec::with_capacity(len);
        for (i, &h) in hashes.iter().enumerate() {
            if let Some(&next) = hashes.get(i + AHEAD) {
                out.table.prefetch(next);
            }
            let id = match &keys {
                Keys::Words { words, lens } => {
                    out.table
                        .find_or_insert_inline(words[i], lens[i] as usize, h)
                }
                Keys::Bytes(b) => out.table.find_or_insert(b.key(i), h),
            };
            ids.push(id.0 as u32);
        }
        let groups = out.table.len();
        for s in out.states.iter_mut() {
            s.resize(groups);
        }
        Ok(ids)
    }

    /// Folds a chunk of spilled groups into `out`.
    fn merge_groups(&self, out: &mut LocalTable, chunk: &DataChunk) -> Result<()> {
        let ids = self.group_ids(out, chunk)?;
        let mut at = self.merger.group_types.len();
        for (s, &width) in out.states.iter_mut().zip(&self.groups.widths) {
            if width == 0 {
                continue;
            }
            let partial = chunk.columns.get(at..at + width).ok_or_else(|| {
                Error::internal("a spilled aggregate chunk has fewer columns than its states")
            })?;
            s.merge(&ids, partial, chunk.len())?;
            at += width;
        }
        Ok(())
    }

    /// Adds a chunk of aggregate `i`'s spilled rows to `out`'s buffered rows.
    fn merge_buffered(&self, out: &mut LocalTable, i: usize, chunk: &DataChunk) -> Result<()> {
        let ids = self.group_ids(out, chunk)?;
        let b = out.buffered[i]
            .as_mut()
            .ok_or_else(|| Error::internal("spilled rows of an aggregate that buffers none"))?;
        b.gids.extend_from_slice(&ids);
        let cols = chunk.columns[self.merger.group_types.len()..].to_vec();
        append_cols(&mut b.cols, cols, chunk.len());
        Ok(())
    }
}

impl LateRows for SpilledAggregate {
    fn morsels(&self) -> usize {
        PARTITIONS
    }

    fn work(&self, m: usize) -> u64 {
        let buffered = self.groups.buffered.iter().flat_map(|runs| &runs[m]);
        self.groups.runs[m]
            .iter()
            .chain(buffered)
            .map(|r| r.rows)
            .sum()
    }

    fn produce(
        &self,
        morsel: usize,
        ctx: &QueryContext,
        emit: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()> {
        let mut out = self.merger.new_table();
        // The merged partition must fit; it is about 1/PARTITIONS of the groups.
        let mut memory = Reservation::new(&ctx.memory, MemoryTag::HashAggregate);
        // Sized for the partition's groups up front: growing the table doubles it
        // several times, each a copy out of cache. All its spilled groups may be
        // distinct (as many as its runs hold), but at least one run's are; the
        // first, when it fits a thread's share of the limit.
        let runs = &self.groups.runs[morsel];
        let most = runs.iter().map(|r| r.rows as usize).sum::<usize>();
        let least = runs.iter().map(|r| r.rows as usize).max().unwrap_or(0);
        let share = ctx.memory.limit() / (2 * ctx.threads().max(1)) as u64;
        let entries = match KeyTable::bytes_for(most, most * 8) as u64 <= share {
            true => most,
            false => least,
        };
        out.table = KeyTable::with_capacity(entries);
        hold(&mut memory, out.bytes())?;
        for &run in runs {
            for chunk in self.groups.file.read_run(run) {
                ctx.check()?;
                self.merge_groups(&mut out, &chunk?)?;
                hold(&mut memory, out.bytes())?;
            }
        }
        let mut buffered_bytes = 0;
        for (i, runs) in self.groups.buffered.iter().enumerate() {
            for &run in &runs[morsel] {
                for chunk in self.groups.file.read_run(run) {
                    ctx.check()?;
                    let chunk = chunk?;
                    buffered_bytes += super::chunk_bytes(&chunk);
                    self.merge_buffered(&mut out, i, &chunk)?;
                    hold(&mut memory, out.bytes() + buffered_bytes)?;
                }
            }
        }
        if out.table.is_empty() {
            return Ok(());
        }
        for chunk in self.merger.finalize(out)? {
            emit(chunk)?;
        }
        Ok(())
    }
}
