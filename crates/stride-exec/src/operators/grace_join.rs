//! Grace hash join: the hash join whose build side does not fit under `memory_limit`.
//!
//! Where it sits in a query's life: the executor collects a hash join's build input
//! with a [`BuildSink`], which keeps the chunks with their bytes reserved
//! (`MemoryTag::HashJoin`) while they fit; from the first that does not, every chunk
//! is written to a spill file as it comes. [`HashJoin::new`] then indexes the rows in
//! memory (`hash_join.rs`) when they and their index fit. Otherwise the join becomes
//! a [`GraceJoin`], in three steps:
//!
//! 1. Build: the rows are split by a hash of their key into P partitions, P the power
//!    of two that makes one partition about a quarter of the memory free to the join.
//!    The first partitions stay in memory while they fit in about half of it, and are
//!    indexed together as one `JoinProbe`; the others are written to a spill file.
//! 2. Probe, inside the probe input's pipeline ([`GraceJoin::probe`]): a probe row
//!    whose key hashes to a partition in memory is probed at once; the others are
//!    written to their partition's runs. A NULL key goes where its hash sends it: it
//!    matches nothing in any partition.
//! 3. Late rows, once the probe input has ended (a tail of the pipeline, see
//!    `pipeline.rs`): those of the partitions in memory (RIGHT / FULL unmatched build
//!    rows, a marking join's rows), then each spilled partition in turn: its build
//!    rows are read back and indexed, its probe rows read back and probed, its late
//!    rows emitted. A partition whose index does not fit either is split again the
//!    same way, by a hash with another seed, into partitions that all go to disk;
//!    one whose build rows all share one key hash cannot be split, and the query
//!    fails with an Out of Memory Error.
//!
//! Every join kind, the marking SEMI / ANTI joins and residual filters included, is
//! right so: a probe row meets every build row of its key in its partition, and a
//! partition's late rows come once all its probe rows have been seen.

use super::chunk_bytes;
use super::hash_join::{BuildRows, JoinProbe, JoinSpec};
use crate::coalesce::concat_column;
use crate::context::QueryContext;
use crate::expression::eval_ref;
use crate::hash_table::{hash_word, KeyTable};
use crate::pipeline::{LateRows, Operator, Sink};
use crate::row_key;
use crate::spill::{Run, SpillFile};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use stride_common::memory::{MemoryTag, Reservation};
use stride_common::{DataChunk, Error, Result, SelectionVector, VECTOR_SIZE};
use stride_sql::plan::Expr;

/// About what indexing adds per build row (key table slots and entries, chains,
/// Bloom filter, encoded keys while it builds); `JoinProbe::new` reserves the exact
/// estimate.
const INDEX_BYTES_PER_ROW: u64 = 96;

/// At most 2^8 partitions per split; larger ones are split again.
const MAX_BITS: u32 = 8;

/// Splits deeper than this give up (each level hashes with a new seed, so rows of
/// different keys part long before).
const MAX_LEVEL: u32 = 12;

/// What the join may use: the limit less what other parts hold (the buffer pool's
/// cache gives way), counting `held` (the join's own reservation) as free.
fn free_memory(ctx: &QueryContext, held: u64) -> u64 {
    let m = &ctx.memory;
    let others = m
        .used()
        .saturating_sub(m.used_by(MemoryTag::BufferPool))
        .saturating_sub(held);
    m.limit().saturating_sub(others)
}

/// About what a build side of `rows` rows and `bytes` bytes needs, indexed (an
/// empty key table included).
fn build_need(rows: u64, bytes: u64) -> u64 {
    bytes + rows * INDEX_BYTES_PER_ROW + KeyTable::bytes_for(0, 0) as u64
}

/// Bits of the partition number that split `need` bytes into partitions of about
/// `target` bytes (at least 2 partitions, at most 2^MAX_BITS).
fn fanout_bits(need: u64, target: u64) -> u32 {
    let parts = need.div_ceil(target.max(1)).max(2).next_power_of_two();
    parts.trailing_zeros().min(MAX_BITS)
}

/// The partition, of `bits` bits at split `level`, of every row of `chunk` by the
/// hash of its key `keys`, and the hashes. Each level hashes the key's hash again
/// with its own seed, so rows that shared a partition at one level spread at the
/// next.
fn partitions_of(
    keys: &[Expr],
    chunk: &DataChunk,
    level: u32,
    bits: u32,
    ctx: &QueryContext,
) -> Result<(Vec<u32>, Vec<u64>)> {
    let cols = keys
        .iter()
        .map(|k| eval_ref(k, chunk, ctx))
        .collect::<Result<Vec<_>>>()?;
    let hashes = row_key::encode_keys(&cols, chunk.len())?.hashes();
    let seed = (level as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let parts = hashes
        .iter()
        .map(|&h| (hash_word(h ^ seed) >> (64 - bits)) as u32)
        .collect();
    Ok((parts, hashes))
}

/// The rows of each of `count` partitions, given each row's partition.
fn group(parts: &[u32], count: usize) -> Vec<Vec<u32>> {
    let mut rows = vec![Vec::new(); count];
    for (i, &p) in parts.iter().enumerate() {
        if let Some(r) = rows.get_mut(p as usize) {
            r.push(i as u32);
        }
    }
    rows
}

/// Rows `rows` of `chunk` as a chunk of their own.
fn piece(chunk: &DataChunk, rows: &[u32]) -> DataChunk {
    DataChunk::new(chunk.gather(rows), rows.len())
}

fn lock<T>(m: &Mutex<T>) -> Result<MutexGuard<'_, T>> {
    m.lock()
        .map_err(|_| Error::internal("a spilled hash join's lock is poisoned"))
}

/// Collects a hash join's build input: chunks are kept, their bytes reserved, while
/// they fit; from the first that does not, every chunk goes to a spill file (each
/// worker's own) as it comes.
pub struct BuildSink<'a> {
    ctx: &'a QueryContext,
    overflowing: AtomicBool,
    locals: Mutex<Vec<BuildLocal>>,
}

pub struct BuildLocal {
    /// Chunks kept, by morsel.
    kept: Vec<(usize, Vec<DataChunk>)>,
    reservation: Reservation,
    overflow: Option<Overflow>,
}

/// Build rows one worker wrote to its spill file, a run per chunk.
pub struct Overflow {
    file: SpillFile,
    runs: Vec<Run>,
    rows: u64,
    bytes: u64,
}

/// A hash join's build input: the rows kept in memory, in input order, and those
/// that did not fit.
pub struct BuildInput {
    rows: BuildRows,
    overflow: Vec<Overflow>,
}

impl<'a> BuildSink<'a> {
    pub fn new(ctx: &'a QueryContext) -> Self {
        BuildSink {
            ctx,
            overflowing: AtomicBool::new(false),
            locals: Mutex::new(Vec::new()),
        }
    }

    pub fn finish(self) -> BuildInput {
        let locals = self.locals.into_inner().unwrap_or_default();
        let mut reservation = Reservation::new(&self.ctx.memory, MemoryTag::HashJoin);
        let mut kept = Vec::new();
        let mut overflow = Vec::new();
        for l in locals {
            reservation.absorb(l.reservation);
            kept.extend(l.kept);
            overflow.extend(l.overflow);
        }
        kept.sort_by_key(|(m, _)| *m);
        BuildInput {
            rows: BuildRows {
                chunks: kept.into_iter().flat_map(|(_, c)| c).collect(),
                reservation,
            },
            overflow,
        }
    }
}

impl Sink for BuildSink<'_> {
    type Local = BuildLocal;

    fn local(&self) -> BuildLocal {
        BuildLocal {
            kept: Vec::new(),
            reservation: Reservation::new(&self.ctx.memory, MemoryTag::HashJoin),
            overflow: None,
        }
    }

    fn consume(&self, local: &mut BuildLocal, morsel: usize, chunk: DataChunk) -> Result<()> {
        let chunk = chunk.flatten();
        let bytes = chunk_bytes(&chunk);
        if !self.overflowing.load(Ordering::Relaxed) {
            if local.reservation.try_grow(bytes) {
                match local.kept.last_mut() {
                    Some((m, chunks)) if *m == morsel => chunks.push(chunk),
                    _ => local.kept.push((morsel, vec![chunk])),
                }
                return Ok(());
            }
            self.overflowing.store(true, Ordering::Relaxed);
        }
        let o = match &mut local.overflow {
            Some(o) => o,
            None => local.overflow.insert(Overflow {
                file: SpillFile::create(self.ctx, MemoryTag::HashJoin)?,
                runs: Vec::new(),
                rows: 0,
                bytes: 0,
            }),
        };
        o.runs.push(o.file.write_run([&chunk])?);
        o.rows += chunk.len() as u64;
        o.bytes += bytes;
        Ok(())
    }

    fn combine(&self, local: BuildLocal) -> Result<()> {
        lock(&self.locals)?.push(local);
        Ok(())
    }
}

/// A hash join ready to probe: in memory, or spilled.
pub enum HashJoin {
    InMemory(Arc<JoinProbe>),
    Grace(Arc<GraceJoin>),
}

impl HashJoin {
    /// Indexes the build input in memory when it fits there, or partitions it.
    pub fn new(spec: Arc<JoinSpec>, input: BuildInput, ctx: &QueryContext) -> Result<HashJoin> {
        let BuildInput { mut rows, overflow } = input;
        if overflow.is_empty() {
            if let Some(probe) = JoinProbe::new(spec.clone(), &mut rows, ctx)? {
                return Ok(HashJoin::InMemory(Arc::new(probe)));
            }
        }
        let grace = GraceJoin::new(spec, rows, overflow, ctx)?;
        Ok(HashJoin::Grace(Arc::new(grace)))
    }

    /// The probe, for the probe input's pipeline.
    pub fn operator(&self) -> Operator {
        match self {
            HashJoin::InMemory(p) => Operator::HashProbe(p.clone()),
            HashJoin::Grace(g) => Operator::GraceProbe(g.clone()),
        }
    }

    /// The rows that come once the probe input has ended, if any can.
    pub fn late_rows(&self) -> Option<Arc<dyn LateRows>> {
        match self {
            HashJoin::InMemory(p) => p
                .spec
                .has_late_rows()
                .then(|| p.clone() as Arc<dyn LateRows>),
            HashJoin::Grace(g) => Some(g.clone() as Arc<dyn LateRows>),
        }
    }
}

/// One partition's rows on their way to a spill file: pieces wait, their bytes
/// reserved, until they make a full chunk or memory runs short, then go out as one
/// run.
struct Spilling {
    pending: Vec<DataChunk>,
    pending_rows: usize,
    reservation: Reservation,
    /// Runs written, and every row and byte taken (written or pending).
    runs: Vec<Run>,
    rows: u64,
    bytes: u64,
}

impl Spilling {
    fn new(ctx: &QueryContext) -> Self {
        Spilling {
            pending: Vec::new(),
            pending_rows: 0,
            reservation: Reservation::new(&ctx.memory, MemoryTag::HashJoin),
            runs: Vec::new(),
            rows: 0,
            bytes: 0,
        }
    }

    fn push(&mut self, piece: DataChunk, file: &Mutex<SpillFile>) -> Result<()> {
        let bytes = chunk_bytes(&piece);
        self.rows += piece.len() as u64;
        self.bytes += bytes;
        self.pending_rows += piece.len();
        self.pending.push(piece);
        if self.pending_rows >= VECTOR_SIZE || !self.reservation.try_grow(bytes) {
            self.flush(file)?;
        }
        Ok(())
    }

    fn flush(&mut self, file: &Mutex<SpillFile>) -> Result<()> {
        let chunks = std::mem::take(&mut self.pending);
        let rows = std::mem::replace(&mut self.pending_rows, 0);
        let Some(first) = chunks.first() else {
            return Ok(());
        };
        let types = first.types();
        let cols = (0..types.len())
            .map(|k| concat_column(&chunks, k, &types[k], rows))
            .collect();
        drop(chunks);
        let run = lock(file)?.write_run([&DataChunk::new(cols, rows)])?;
        self.runs.push(run);
        self.reservation.clear();
        Ok(())
    }

    /// Writes out what is pending; the runs and counts.
    fn finish(mut self, file: &Mutex<SpillFile>) -> Result<Spilled> {
        self.flush(file)?;
        Ok(Spilled {
            runs: self.runs,
            rows: self.rows,
            bytes: self.bytes,
        })
    }
}

/// Rows written to a spill file: its runs, rows and bytes (in memory).
#[derive(Clone, Default)]
struct Spilled {
    runs: Vec<Run>,
    rows: u64,
    bytes: u64,
}

/// Splits a build side into partitions at level 0: those still `resident` keep
/// their pieces in memory, reserved with an allowance for their index, while they
/// fit; the others go to the spill file.
struct BuildSplit<'a> {
    spec: &'a JoinSpec,
    ctx: &'a QueryContext,
    bits: u32,
    file: &'a Mutex<SpillFile>,
    /// Per partition: its pieces while it stays in memory.
    resident: Vec<Option<Vec<DataChunk>>>,
    /// Per partition: the bytes of its pieces, and the allowance for their index.
    reserved: Vec<(u64, u64)>,
    reservation: Reservation,
    spilling: Vec<Spilling>,
}

impl BuildSplit<'_> {
    fn add(&mut self, chunk: DataChunk) -> Result<()> {
        let (parts, _) = partitions_of(&self.spec.build_keys, &chunk, 0, self.bits, self.ctx)?;
        for (p, rows) in group(&parts, self.resident.len()).iter().enumerate() {
            if !rows.is_empty() {
                self.place(p, piece(&chunk, rows))?;
            }
        }
        Ok(())
    }

    fn place(&mut self, p: usize, piece: DataChunk) -> Result<()> {
        if let Some(kept) = &mut self.resident[p] {
            let bytes = chunk_bytes(&piece);
            let index = piece.len() as u64 * INDEX_BYTES_PER_ROW;
            if self.reservation.try_grow(bytes + index) {
                self.reserved[p].0 += bytes;
                self.reserved[p].1 += index;
                kept.push(piece);
                return Ok(());
            }
            self.demote(p)?;
        }
        self.spilling[p].push(piece, self.file)
    }

    /// Sends partition `p`, kept in memory so far, to disk.
    fn demote(&mut self, p: usize) -> Result<()> {
        let (bytes, index) = std::mem::take(&mut self.reserved[p]);
        self.reservation.shrink(bytes + index);
        for piece in self.resident[p].take().unwrap_or_default() {
            self.spilling[p].push(piece, self.file)?;
        }
        Ok(())
    }
}

/// A hash join whose build side is partly on disk (see the module docs).
pub struct GraceJoin {
    spec: Arc<JoinSpec>,
    /// Bits of a row's partition number at level 0.
    bits: u32,
    /// The partitions kept in memory, indexed together (none when none fit).
    resident: Option<JoinProbe>,
    /// Per partition: its rows on disk (none for those in memory).
    spilled: Vec<Option<SpilledPartition>>,
    /// The spilled partitions, in the order their late rows come.
    order: Vec<usize>,
    /// Where spilled partitions' rows go. A spilled partition holds its lock while
    /// it is joined, so only one is in memory at a time.
    file: Mutex<SpillFile>,
}

struct SpilledPartition {
    build: Spilled,
    probe: Mutex<Spilling>,
}

/// A spilled partition's rows: its build rows and its probe rows.
struct PartitionRows {
    build: Spilled,
    probe: Spilled,
}

impl GraceJoin {
    fn new(
        spec: Arc<JoinSpec>,
        rows: BuildRows,
        overflow: Vec<Overflow>,
        ctx: &QueryContext,
    ) -> Result<GraceJoin> {
        let BuildRows {
            chunks,
            reservation: mut kept,
        } = rows;
        let total_rows = chunks.iter().map(|c| c.len() as u64).sum::<u64>()
            + overflow.iter().map(|o| o.rows).sum::<u64>();
        let total_bytes = kept.size() + overflow.iter().map(|o| o.bytes).sum::<u64>();
        let free = free_memory(ctx, kept.size());
        let need = build_need(total_rows, total_bytes);
        let bits = fanout_bits(need, free / 4);
        let parts = 1usize << bits;
        // The first partitions stay in memory while they fit in half of it.
        let share = (need >> bits).max(1);
        let resident_parts = ((free / 2) / share).min(parts as u64) as usize;
        let file = Mutex::new(SpillFile::create(ctx, MemoryTag::HashJoin)?);
        let mut split = BuildSplit {
            spec: &spec,
            ctx,
            bits,
            file: &file,
            resident: (0..parts)
                .map(|p| (p < resident_parts).then(Vec::new))
                .collect(),
            reserved: vec![(0, 0); parts],
            reservation: Reservation::new(&ctx.memory, MemoryTag::HashJoin),
            spilling: (0..parts).map(|_| Spilling::new(ctx)).collect(),
        };
        for chunk in chunks {
            let bytes = chunk_bytes(&chunk);
            split.add(chunk)?;
            kept.shrink(bytes);
        }
        drop(kept);
        for o in &overflow {
            for &run in &o.runs {
                for chunk in o.file.read_run(run) {
                    split.add(chunk?)?;
                }
            }
        }
        drop(overflow);
        // Index the partitions kept in memory, trading their allowance for what the
        // index reserves itself; if even so it does not fit, they go to disk too.
        let allowance: u64 = split.reserved.iter().map(|r| r.1).sum();
        split.reservation.shrink(allowance);
        let in_memory: Vec<bool> = split.resident.iter().map(Option::is_some).collect();
        let mut resident = BuildRows {
            chunks: split
                .resident
                .iter_mut()
                .flat_map(|r| r.take())
                .flatten()
                .collect(),
            reservation: std::mem::replace(
                &mut split.reservation,
                Reservation::new(&ctx.memory, MemoryTag::HashJoin),
            ),
        };
        let index = match in_memory.contains(&true) {
            true => JoinProbe::new(spec.clone(), &mut resident, ctx)?,
            false => None,
        };
        if index.is_none() {
            for chunk in std::mem::take(&mut resident.chunks) {
                split.add(chunk)?;
            }
        }
        drop(resident);
        let mut spilled = Vec::with_capacity(parts);
        let mut order = Vec::new();
        for (p, s) in std::mem::take(&mut split.spilling).into_iter().enumerate() {
            spilled.push(if index.is_some() && in_memory[p] {
                None
            } else {
                order.push(p);
                Some(SpilledPartition {
                    build: s.finish(&file)?,
                    probe: Mutex::new(Spilling::new(ctx)),
                })
            });
        }
        Ok(GraceJoin {
            spec,
            bits,
            resident: index,
            spilled,
            order,
            file,
        })
    }
}

impl GraceJoin {
    /// Probes the rows of partitions in memory at once; writes the others to their
    /// partitions' runs.
    pub fn probe(
        &self,
        chunk: DataChunk,
        ctx: &QueryContext,
        out: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()> {
        let (parts, _) = partitions_of(&self.spec.probe_keys, &chunk, 0, self.bits, ctx)?;
        let mut here = Vec::with_capacity(chunk.len());
        let mut away = vec![Vec::new(); self.spilled.len()];
        for (i, &p) in parts.iter().enumerate() {
            match self.spilled.get(p as usize) {
                Some(Some(_)) => away[p as usize].push(i as u32),
                _ => here.push(i as u32),
            }
        }
        for (rows, part) in away.iter().zip(&self.spilled) {
            if let (false, Some(part)) = (rows.is_empty(), part) {
                lock(&part.probe)?.push(piece(&chunk, rows), &self.file)?;
            }
        }
        let Some(index) = &self.resident else {
            return Ok(());
        };
        if here.is_empty() {
            return Ok(());
        }
        let mut chunk = chunk;
        if here.len() < chunk.len() {
            chunk.select(SelectionVector::new(here));
        }
        index.probe(chunk, ctx, out)
    }

    /// Joins spilled partition `p` (after the probe input has ended).
    fn join_spilled(
        &self,
        p: usize,
        ctx: &QueryContext,
        out: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()> {
        // Probe rows still pending in any partition go out first (the first partition
        // joined does it), so what they hold is free for the join.
        for part in self.spilled.iter().flatten() {
            lock(&part.probe)?.flush(&self.file)?;
        }
        let Some(part) = self.spilled.get(p).and_then(Option::as_ref) else {
            return Ok(());
        };
        let probe = {
            let probe = lock(&part.probe)?;
            Spilled {
                runs: probe.runs.clone(),
                rows: probe.rows,
                bytes: probe.bytes,
            }
        };
        let file = lock(&self.file)?;
        let rows = PartitionRows {
            build: part.build.clone(),
            probe,
        };
        self.join_partition(&file, rows, 1, ctx, out)
    }

    /// Joins one spilled partition: indexes its build rows and probes them with its
    /// probe rows when the index fits; otherwise splits it at `level` and joins the
    /// parts in turn.
    fn join_partition(
        &self,
        file: &SpillFile,
        part: PartitionRows,
        level: u32,
        ctx: &QueryContext,
        out: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()> {
        if part.probe.rows == 0 && !self.spec.has_late_rows() {
            return Ok(());
        }
        let mut rows = BuildRows {
            chunks: Vec::new(),
            reservation: Reservation::new(&ctx.memory, MemoryTag::HashJoin),
        };
        if rows.reservation.try_grow(part.build.bytes) {
            for &run in &part.build.runs {
                rows.chunks.extend(file.read_all(run)?);
            }
            if let Some(index) = JoinProbe::new(self.spec.clone(), &mut rows, ctx)? {
                for &run in &part.probe.runs {
                    for chunk in file.read_run(run) {
                        ctx.check()?;
                        index.probe(chunk?, ctx, out)?;
                    }
                }
                return index.emit_late(0..index.build.len, out);
            }
        }
        drop(rows);
        self.split_partition(file, part, level, ctx, out)
    }

    /// Splits a partition whose index does not fit into smaller ones, all written to
    /// a new spill file, and joins them in turn.
    fn split_partition(
        &self,
        file: &SpillFile,
        part: PartitionRows,
        level: u32,
        ctx: &QueryContext,
        out: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()> {
        let need = build_need(part.build.rows, part.build.bytes);
        let bits = fanout_bits(need, free_memory(ctx, 0) / 4);
        let parts = 1usize << bits;
        let sub_file = Mutex::new(SpillFile::create(ctx, MemoryTag::HashJoin)?);
        let spill = |keys: &[Expr],
                     chunks: &mut dyn Iterator<Item = Result<DataChunk>>,
                     hashes: &mut HashSet<u64>|
         -> Result<Vec<Spilled>> {
            let mut to = (0..parts).map(|_| Spilling::new(ctx)).collect::<Vec<_>>();
            for chunk in chunks {
                let chunk = chunk?;
                ctx.check()?;
                let (of, h) = partitions_of(keys, &chunk, level, bits, ctx)?;
                // Two key hashes are enough to know the rows can be split.
                for h in h {
                    if hashes.len() > 1 {
                        break;
                    }
                    hashes.insert(h);
                }
                for (p, rows) in group(&of, parts).iter().enumerate() {
                    if !rows.is_empty() {
                        to[p].push(piece(&chunk, rows), &sub_file)?;
                    }
                }
            }
            to.into_iter().map(|s| s.finish(&sub_file)).collect()
        };
        let mut build_hashes = HashSet::new();
        let build = spill(
            &self.spec.build_keys,
            &mut part.build.runs.iter().flat_map(|&r| file.read_run(r)),
            &mut build_hashes,
        )?;
        if build_hashes.len() < 2 || level >= MAX_LEVEL {
            let mut e = ctx.memory.out_of_memory(MemoryTag::HashJoin, need);
            e.message.push_str(
                "; the join's build rows of one key do not fit, and spilling cannot split them",
            );
            return Err(e);
        }
        let probe = spill(
            &self.spec.probe_keys,
            &mut part.probe.runs.iter().flat_map(|&r| file.read_run(r)),
            &mut HashSet::new(),
        )?;
        let sub_file = sub_file
            .into_inner()
            .map_err(|_| Error::internal("a spilled hash join's lock is poisoned"))?;
        for (build, probe) in build.into_iter().zip(probe) {
            let rows = PartitionRows { build, probe };
            self.join_partition(&sub_file, rows, level + 1, ctx, out)?;
        }
        Ok(())
    }

    /// Late-row morsels of the partitions in memory.
    fn resident_morsels(&self) -> usize {
        self.resident.as_ref().map_or(0, |r| r.morsels())
    }
}

impl LateRows for GraceJoin {
    /// The late rows of the partitions in memory, then a morsel per spilled
    /// partition.
    fn morsels(&self) -> usize {
        self.resident_morsels() + self.order.len()
    }

    fn produce(
        &self,
        morsel: usize,
        ctx: &QueryContext,
        out: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()> {
        let resident = self.resident_morsels();
        match &self.resident {
            Some(r) if morsel < resident => r.produce(morsel, ctx, out),
            _ => match self.order.get(morsel - resident) {
                Some(&p) => self.join_spilled(p, ctx, out),
                None => Ok(()),
            },
        }
    }
}
