//! Hash aggregation (GROUP BY, DISTINCT, aggregates without GROUP BY), in parallel.
//!
//! Phase 1, per worker: each thread owns a [`KeyTable`] of groups and one state per
//! aggregate, and folds its morsels in without any lock. Where the worker's keys do
//! not recur from one stretch of its input to the next (keys close to unique, or
//! clustered), it hands each table to the merge once it holds 32,768 groups and
//! starts a fresh one, so that its table stays in cache (`flush_scattered`; a sketch
//! of the keys seen tells when they do recur). Phase 2, merge:
//! the groups of all tables are split into partitions by hash; each partition is merged by
//! one thread into a fresh table (states travel as partial-state vectors) and
//! finalized. When every thread found its keys through a direct-lookup array
//! ([`DenseIndex`]), the partitions are ranges of keys instead, and each group finds
//! its merged group by its key's offset in the range: no hashing, no probing. While a
//! thread table has only a few groups of short keys, their ids are found in a small
//! direct-mapped array ([`FewKeys`]) rather than in the hash table; keys of several
//! narrow integer columns find theirs in an array indexed by the packed key
//! ([`PackedGroups`]). Aggregates with
//! DISTINCT or ORDER BY buffer their input rows instead;
//! at the end the rows are sorted (and deduplicated) per group and folded in order.
//!
//! Before folding a chunk in, a worker reserves what its table may grow to
//! (`MemoryTag::HashAggregate`); when that does not fit under `memory_limit`, it
//! writes its groups to disk first (`aggregate_spill.rs`).

use crate::context::QueryContext;
use crate::dense_index::DenseIndex;
use crate::expression::{eval, eval_ref, select};
use crate::few_keys::FewKeys;
use crate::hash_table::{hash_key, inline_word, KeyTable};
use crate::operators::aggregate_spill::{SpilledAggregate, SpilledGroups};
use crate::packed_groups::PackedGroups;
use crate::parallel::map_tasks;
use crate::pipeline::{Sink, Source};
use crate::row_key::{self, Keys};
use crate::sort_key::{self, SortColumn};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use stride_common::memory::{MemoryTag, Reservation};
use stride_common::sketch::Sketch;
use stride_common::{DataChunk, DataType, Error, PhysicalType, Result, Vector, VECTOR_SIZE};
use stride_functions::aggregate::{new_state, BoundAggregate, GroupedState};
use stride_sql::plan::{AggregateExpr, Expr};

/// Input rows of an order- or duplicate-sensitive aggregate, kept until the end.
#[derive(Default)]
pub(super) struct Buffered {
    pub(super) gids: Vec<u32>,
    /// Arguments, then ORDER BY values.
    pub(super) cols: Vec<Vector>,
}

pub struct LocalTable {
    pub(super) table: KeyTable,
    /// Decided at the first chunk: a direct lookup for narrow single-column keys.
    dense: Option<Option<DenseIndex>>,
    /// Ids of the first few short keys, until the table has more groups.
    few: Option<FewKeys>,
    /// Decided at the first chunk: a direct lookup for keys of several narrow integer
    /// columns (then neither `dense` nor `few` is used).
    packed: Option<Option<PackedGroups>>,
    pub(super) states: Vec<Box<dyn GroupedState>>,
    /// The states as partial-state vectors, once a flushed table was put in
    /// partition order ([`LocalTable::in_partition_order`]; `states` hold nothing
    /// then).
    partials: Option<Vec<Vec<Vector>>>,
    pub(super) buffered: Vec<Option<Buffered>>,
    /// Bytes of the buffered rows.
    buffered_bytes: u64,
    /// Groups the last chunk added: as many may come with the next one.
    added: usize,
    flush: Flush,
    /// A worker's table: the memory it holds, reserved from the accountant.
    memory: Option<Reservation>,
    /// Group ids of an aggregate without groups (all 0), kept from chunk to chunk:
    /// zeroing a fresh one for every chunk was a twentieth of `sum(x)`'s time.
    zeros: Vec<u32>,
}

/// Bytes per group and aggregate counted for aggregate states (most are one or two
/// words; lists and strings are counted where they are buffered).
const STATE_BYTES: u64 = 16;

impl LocalTable {
    /// About how many bytes the table holds.
    pub(super) fn bytes(&self) -> u64 {
        self.bytes_ahead(0)
    }

    /// About the most bytes the table holds while `more` groups are added
    /// ([`KeyTable::bytes_ahead`]): reserved before they are, so a table never grows
    /// into memory it has not reserved.
    fn bytes_ahead(&self, more: usize) -> u64 {
        let dense = match (&self.dense, &self.packed) {
            (Some(Some(d)), _) => d.bytes(),
            (_, Some(Some(p))) => p.bytes(),
            _ => 0,
        };
        let groups = self.table.len();
        // New keys as long as the keys so far on average.
        let key_bytes = match groups {
            0 => more * 8,
            n => self.table.key_bytes() / n * more,
        };
        self.table.bytes_ahead(more, key_bytes) as u64
            + dense as u64
            + (groups + more) as u64 * self.states.len() as u64 * STATE_BYTES
            + self.buffered_bytes
    }
}

/// Top bits of the hash a flushed table's groups are ordered by
/// ([`LocalTable::in_partition_order`]): at least as many as any partitioning of the
/// merge uses (`hash_merge`, `aggregate_spill::PARTITIONS`).
const ORDER_BITS: u32 = 10;

impl LocalTable {
    /// Each aggregate's states as partial-state vectors (taken: once per table).
    pub(super) fn take_partials(&mut self) -> Result<Vec<Vec<Vector>>> {
        if let Some(p) = self.partials.take() {
            return Ok(p);
        }
        let n = self.table.len();
        self.states
            .iter_mut()
            .map(|s| {
                s.resize(n);
                s.partial()
            })
            .collect()
    }

    /// The table with its groups renumbered in the order of their hashes' top
    /// [`ORDER_BITS`] bits, its states exported as partial-state vectors in that
    /// order: every partition of the merge then reads a run of consecutive groups
    /// of it, not every 64th group of a table far out of cache (which made a cache
    /// miss per group of the merge). Its hash table keeps no slots. Tables a direct
    /// lookup or the rows of a DISTINCT or ORDER BY aggregate refer to by group id
    /// are left as they are.
    fn in_partition_order(mut self) -> Result<LocalTable> {
        let direct = matches!(self.dense, Some(Some(_)))
            || matches!(self.packed, Some(Some(_)))
            || self.few.is_some();
        if direct || self.buffered.iter().any(Option::is_some) {
            return Ok(self);
        }
        let n = self.table.len();
        let bucket = |g: usize| (self.table.hash(g) >> (64 - ORDER_BITS)) as usize;
        let mut start = vec![0u32; (1 << ORDER_BITS) + 1];
        for g in 0..n {
            start[bucket(g) + 1] += 1;
        }
        for b in 1..start.len() {
            start[b] += start[b - 1];
        }
        let mut order = vec![0u32; n];
        for g in 0..n {
            let at = &mut start[bucket(g)];
            order[*at as usize] = g as u32;
            *at += 1;
        }
        let partials = self
            .take_partials()?
            .into_iter()
            .map(|cols| cols.iter().map(|c| c.take(&order)).collect())
            .collect::<Vec<Vec<Vector>>>();
        self.table = self.table.reordered(&order);
        self.states = Vec::new();
        // What the table holds now, without the slots it kept for lookups.
        let bytes = self.table.bytes() as u64
            + partials
                .iter()
                .map(|p| stride_storage::size::columns_bytes(p, &mut Default::default()) as u64)
                .sum::<u64>();
        self.partials = Some(partials);
        if let Some(m) = self.memory.as_mut() {
            m.shrink(m.size().saturating_sub(bytes));
        }
        Ok(self)
    }
}

/// What merging and finalizing groups needs, owned, so that the partitions of a
/// spilled aggregate can be merged after the sink is gone.
pub struct Merger {
    pub(super) aggs: Vec<AggregateExpr>,
    bound: Vec<BoundAggregate>,
    pub(super) group_types: Vec<DataType>,
}

pub struct HashAggregate<'a> {
    groups: &'a [Expr],
    merger: Arc<Merger>,
    ctx: &'a QueryContext,
    tables: Mutex<Vec<LocalTable>>,
    /// Groups written to disk by workers whose tables passed `memory_limit`.
    spilled: Mutex<Option<SpilledGroups>>,
}

/// Groups a worker's table holds before it may be flushed (`flush_scattered`).
const FLUSH_GROUPS: usize = 1 << 15;

/// Groups flushed tables must have handed over before the worker judges whether its
/// keys recur from one table to the next (`flush_scattered`).
const FLUSH_EVIDENCE: u64 = 4 * FLUSH_GROUPS as u64;

/// Whether a worker flushes its table of groups (`flush_scattered`).
enum Flush {
    /// Not flushed yet: the table is, once it holds [`FLUSH_GROUPS`] groups.
    Watching,
    /// Each table is flushed when full, while the groups the tables started since
    /// the first flush handed over (`handed`) stay about as many as the distinct
    /// keys of their rows (`keys`, a sketch of every row's key hash).
    Flushing {
        keys: Box<Sketch>,
        handed: u64,
    },
    Off,
}

/// Groups a partition of the merge holds at most, where there are enough groups for
/// more than 64 partitions (`hash_merge`): a table of them stays in a core's cache.
const MERGE_GROUPS: usize = 1 << 14;

/// Registers of the sketch of a flushing worker's keys: 2^10 bytes, within about 3%.
const KEY_SKETCH_BITS: u32 = 10;

/// Reservations grow by at least this much at a time.
const RESERVE_STEP: u64 = 4 << 20;

pub(super) fn is_buffered(a: &AggregateExpr) -> bool {
    a.distinct || !a.order_by.is_empty()
}

impl Merger {
    pub(super) fn new_table(&self) -> LocalTable {
        LocalTable {
            table: KeyTable::default(),
            dense: None,
            few: Some(FewKeys::default()),
            packed: None,
            states: self.bound.iter().map(new_state).collect(),
            partials: None,
            buffered: self
                .aggs
                .iter()
                .map(|a| is_buffered(a).then(Buffered::default))
                .collect(),
            buffered_bytes: 0,
            added: 0,
            flush: Flush::Watching,
            memory: None,
            zeros: Vec::new(),
        }
    }
}

impl<'a> HashAggregate<'a> {
    pub fn new(groups: &'a [Expr], aggs: &'a [AggregateExpr], ctx: &'a QueryContext) -> Self {
        let bound = aggs
            .iter()
            .map(|a| BoundAggregate {
                func: a.func,
                arg_types: a.args.iter().map(|e| e.data_type()).collect(),
                return_type: a.ty.clone(),
                constants: a.args.iter().map(Expr::literal_value).collect(),
            })
            .collect();
        let group_types = groups.iter().map(|g| g.data_type()).collect();
        HashAggregate {
            groups,
            merger: Arc::new(Merger {
                aggs: aggs.to_vec(),
                bound,
                group_types,
            }),
            ctx,
            tables: Mutex::new(Vec::new()),
            spilled: Mutex::new(None),
        }
    }

    /// Writes the tables handed over so far (by workers done, or flushed) to disk.
    fn spill_tables(&self, spilled: &mut SpilledGroups) -> Result<()> {
        let tables = std::mem::take(
            &mut *self
                .tables
                .lock()
                .map_err(|_| Error::internal("aggregate lock poisoned"))?,
        );
        for mut t in tables {
            spilled.write(&self.merger, &mut t)?;
        }
        Ok(())
    }

    /// A worker's table, with its reservation.
    fn new_table(&self) -> LocalTable {
        let mut t = self.merger.new_table();
        t.memory = Some(Reservation::new(&self.ctx.memory, MemoryTag::HashAggregate));
        t
    }

    /// Reserves what `t` holds once the next chunk is folded in; when that passes
    /// `memory_limit`, writes its groups to disk and starts it afresh, or fails where
    /// the aggregate cannot spill (without GROUP BY, where all rows are one group).
    fn account(&self, t: &mut LocalTable) -> Result<()> {
        // What the next chunk may grow the table to, if it adds as many groups as
        // the last one did, so that growing it is reserved.
        let bytes = t.bytes_ahead(t.added);
        let Some(memory) = t.memory.as_mut() else {
            return Ok(());
        };
        if bytes <= memory.size() {
            return Ok(());
        }
        // Reserved a few megabytes ahead, so most chunks touch no shared counter.
        let want = (bytes - memory.size()).max(RESERVE_STEP);
        if memory.try_grow(want) {
            return Ok(());
        }
        // Without GROUP BY there is one group, and nothing to split.
        if self.groups.is_empty() {
            return memory.grow(bytes - memory.size());
        }
        let mut spilled = self
            .spilled
            .lock()
            .map_err(|_| Error::internal("aggregate lock poisoned"))?;
        if spilled.is_none() {
            *spilled = Some(SpilledGroups::create(self.ctx)?);
        }
        let groups = spilled.as_mut().expect("created");
        groups.write(&self.merger, t)?;
        // Tables flushed whole (`flush_scattered`) hold memory too.
        self.spill_tables(groups)?;
        drop(spilled);
        *t = self.new_table();
        Ok(())
    }

    /// Hands `t` to the merge as it is and starts the worker on a fresh table, once
    /// it holds [`FLUSH_GROUPS`] groups, while the worker's keys do not recur from
    /// one table's rows to the next (`Flush`): a table of all of its groups would
    /// grow as large as its input, with a cache miss per row, and the merge would
    /// insert every group again all the same. Tables kept this small stay in cache.
    /// Keys unique or clustered (`l_orderkey` in `lineitem`) do not recur. Where
    /// they do (2M part keys over 60M rows in random order, or TPC-DS Q39's weekly
    /// inventory rows of one month), the flushed tables hand the merge more groups
    /// than there are keys: once they hand over a quarter more, flushing stops and
    /// the table grows as it would have.
    fn flush_scattered(&self, t: &mut LocalTable) -> Result<()> {
        let groups = t.table.len() as u64;
        if groups < FLUSH_GROUPS as u64 {
            return Ok(());
        }
        let keys = match std::mem::replace(&mut t.flush, Flush::Off) {
            Flush::Off => return Ok(()),
            // Direct lookups find their keys without probing: nothing to gain while
            // they find most of them. Keys past their range go to the hash table,
            // and count once it holds `FLUSH_GROUPS` of them.
            Flush::Watching
                if (matches!(t.dense, Some(Some(_))) || matches!(t.packed, Some(Some(_))))
                    && t.table.indexed() < FLUSH_GROUPS =>
            {
                t.flush = Flush::Watching;
                return Ok(());
            }
            Flush::Watching => Flush::Flushing {
                keys: Box::new(Sketch::new(KEY_SKETCH_BITS)),
                handed: 0,
            },
            Flush::Flushing { keys, handed } => {
                let handed = handed + groups;
                if handed >= FLUSH_EVIDENCE && handed as f64 > 1.25 * keys.estimate() {
                    // Keys recur: `Off` keeps this table growing.
                    return Ok(());
                }
                Flush::Flushing { keys, handed }
            }
        };
        let mut fresh = self.new_table();
        // Straight to the hash table: the keys have shown they are many.
        fresh.table = KeyTable::with_capacity(FLUSH_GROUPS);
        fresh.dense = Some(None);
        fresh.few = None;
        fresh.packed = Some(None);
        fresh.flush = keys;
        let full = std::mem::replace(t, fresh);
        self.combine(Some(full.in_partition_order()?))
    }

    /// Group ids of the chunk's rows, inserting new groups.
    fn group_ids(&self, local: &mut LocalTable, chunk: &DataChunk) -> Result<Vec<u32>> {
        let len = chunk.len();
        if self.groups.is_empty() {
            if local.table.is_empty() {
                local.table.find_or_insert(&[], hash_key(&[]));
            }
            let mut zeros = std::mem::take(&mut local.zeros);
            zeros.resize(len, 0);
            return Ok(zeros);
        }
        let cols = self
            .groups
            .iter()
            .map(|g| eval_ref(g, chunk, self.ctx))
            .collect::<Result<Vec<_>>>()?;
        if cols.len() > 1 && !matches!(local.packed, Some(None)) {
            let refs: Vec<&Vector> = cols.iter().map(|c| &**c).collect();
            let packed = local
                .packed
                .get_or_insert_with(|| PackedGroups::fit(&refs, len));
            if let Some(p) = packed {
                // The other lookups would not know the groups this one inserts.
                local.dense = Some(None);
                local.few = None;
                match p.group_ids(&mut local.table, &refs, len)? {
                    Some(gids) => return Ok(gids),
                    None => local.packed = Some(None),
                }
            }
        }
        // Once a direct lookup is set up, a BIGINT key column without NULLs is looked
        // up straight from its values (its key word is the value's bits).
        if let (Some(Some(d)), [c]) = (&mut local.dense, cols.as_slice()) {
            if c.ty.physical() == PhysicalType::I64 && !c.constant && !c.validity.has_nulls() {
                let vals = &c.values::<i64>()[..len];
                return Ok(d.group_ids_of(&mut local.table, vals.iter().map(|&v| (v as u64, 8))));
            }
        }
        let keys = row_key::encode_keys(&cols, len)?;
        // The first chunk decides whether the worker keeps a direct index. From then
        // on every key of at most 8 bytes goes through it, whichever form its chunk's
        // keys took (a string column's keys are words in one chunk, bytes in the next),
        // so a key in its range is never also a group of the hash table.
        let dense = local.dense.get_or_insert_with(|| match &keys {
            Keys::Words { words, lens } => DenseIndex::fit(words, lens),
            Keys::Bytes(_) => None,
        });
        if let (Some(d), Keys::Words { words, lens }) = (dense.as_mut(), &keys) {
            return Ok(d.group_ids(&mut local.table, words, lens));
        }
        if let (Some(d), Keys::Bytes(b)) = (dense.as_mut(), &keys) {
            return Ok((0..len)
                .map(|i| match b.key(i) {
                    k if k.len() <= 8 && !k.is_empty() => {
                        d.group_id(&mut local.table, inline_word(k), k.len() as u8)
                    }
                    k => local.table.find_or_insert(k, hash_key(k)).0 as u32,
                })
                .collect());
        }
        if let (Some(few), Keys::Words { words, lens }) = (&mut local.few, &keys) {
            match few.group_ids(&mut local.table, words, lens) {
                Some(gids) => return Ok(gids),
                None => local.few = None,
            }
        }
        let hashes = keys.hashes();
        if let Flush::Flushing { keys, .. } = &mut local.flush {
            hashes.iter().for_each(|&h| keys.insert(h));
        }
        let table = &mut local.table;
        // Small tables stay in cache; larger ones overlap their misses by prefetching
        // the slot of the key `AHEAD` rows on.
        const AHEAD: usize = 16;
        let prefetch = table.len() >= 1 << 14;
        let mut gids = Vec::with_capacity(len);
        for i in 0..len {
            if prefetch {
                if let Some(&h) = hashes.get(i + AHEAD) {
                    table.prefetch(h);
                }
            }
            let id = match &keys {
                Keys::Words { words, lens } => {
                    table.find_or_insert_inline(words[i], lens[i] as usize, hashes[i])
                }
                Keys::Bytes(b) => table.find_or_insert(b.key(i), hashes[i]),
            };
            gids.push(id.0 as u32);
        }
        Ok(gids)
    }

    /// The aggregate's output: its chunks, or, when groups were spilled, a source
    /// that merges one partition of them per morsel.
    pub fn finish(&self) -> Result<Source> {
        let spilled = self
            .spilled
            .lock()
            .map_err(|_| Error::internal("aggregate lock poisoned"))?
            .take();
        let Some(mut spilled) = spilled else {
            return Ok(Source::Chunks(Arc::new(self.finish_in_memory()?)));
        };
        // The groups still in memory join those on disk, so every partition is
        // merged the same way, one at a time.
        self.spill_tables(&mut spilled)?;
        Ok(Source::Late(Arc::new(SpilledAggregate::new(
            self.merger.clone(),
            spilled,
        ))))
    }

    fn finish_in_memory(&self) -> Result<Vec<DataChunk>> {
        let mut tables = std::mem::take(
            &mut *self
                .tables
                .lock()
                .map_err(|_| Error::internal("aggregate lock poisoned"))?,
        );
        if tables.is_empty() {
            tables.push(self.merger.new_table());
        }
        if self.groups.is_empty() {
            // One output row even without input rows (count(*) of nothing is 0).
            let t = &mut tables[0];
            if t.table.is_empty() {
                t.table.find_or_insert(&[], hash_key(&[]));
            }
        }
        let total: usize = tables.iter().map(|t| t.table.len()).sum();
        if tables.len() == 1 || total < 4096 {
            let merged = if tables.len() == 1 {
                tables.pop().expect("one table")
            } else {
                let partials = export_partials(&mut tables)?;
                let all: Vec<Vec<u32>> = tables
                    .iter()
                    .map(|t| (0..t.table.len() as u32).collect())
                    .collect();
                let members: Vec<&[u32]> = all.iter().map(|m| m.as_slice()).collect();
                self.merger
                    .merge_partition(&tables, &partials, &members, &mut Assign::Hash)?
            };
            return self.merger.finalize(merged);
        }
        let partials = export_partials(&mut tables[..])?;
        match RangeSplit::of(&tables) {
            Some(split) => {
                // Keys in the direct-lookup range merge by key range; the others
                // (NULL, keys beyond it) by hash.
                let mut out = self.range_merge(&tables, &partials, &split)?;
                out.extend(self.hash_merge(&tables, &partials, &split.rest)?);
                Ok(out)
            }
            None => {
                let all: Vec<Vec<u32>> = tables
                    .iter()
                    .map(|t| (0..t.table.len() as u32).collect())
                    .collect();
                self.hash_merge(&tables, &partials, &all)
            }
        }
    }

    /// Merges the groups `groups[t]` of every table `t`, split into partitions by
    /// hash, in parallel.
    fn hash_merge(
        &self,
        tables: &[LocalTable],
        partials: &[Vec<Vec<Vector>>],
        groups: &[Vec<u32>],
    ) -> Result<Vec<DataChunk>> {
        if groups.iter().all(Vec::is_empty) {
            return Ok(Vec::new());
        }
        // Partitions of at most about MERGE_GROUPS groups (counted before merging,
        // so fewer after), whose merged table stays in cache.
        let total: usize = groups.iter().map(Vec::len).sum();
        let bits = (total
            .div_ceil(MERGE_GROUPS)
            .next_power_of_two()
            .trailing_zeros())
        .clamp(6, ORDER_BITS);
        let parts = 1usize << bits;
        // Each table's groups, bucketed by partition once.
        let buckets: Vec<Vec<Vec<u32>>> = tables
            .iter()
            .zip(groups)
            .map(|(t, groups)| {
                let mut b = vec![Vec::new(); parts];
                for &g in groups {
                    b[(t.table.hash(g as usize) >> (64 - bits)) as usize].push(g);
                }
                b
            })
            .collect();
        let results = map_tasks(self.ctx, parts, |p| {
            let members: Vec<&[u32]> = buckets.iter().map(|b| b[p].as_slice()).collect();
            let merged =
                self.merger
                    .merge_partition(tables, partials, &members, &mut Assign::Hash)?;
            self.merger.finalize(merged)
        })?;
        Ok(results.into_iter().flatten().collect())
    }

    /// Merges the groups whose keys fall in `split`'s range, one range of keys per
    /// task: each table's groups of a range come in key order from its direct-lookup
    /// array, and find their merged group by the key's offset, with no hashing.
    fn range_merge(
        &self,
        tables: &[LocalTable],
        partials: &[Vec<Vec<Vector>>],
        split: &RangeSplit,
    ) -> Result<Vec<DataChunk>> {
        let results = map_tasks(self.ctx, split.parts, |p| {
            let (lo, hi) = split.part(p);
            let lists: Vec<Vec<u32>> = tables
                .iter()
                .zip(&split.strays)
                .map(|(t, strays)| {
                    let mut list = Vec::new();
                    if let Some(Some(d)) = &t.dense {
                        d.for_each_in(lo, hi, |g| list.push(g));
                    }
                    list.extend_from_slice(&strays[p]);
                    list
                })
                .collect();
            let members: Vec<&[u32]> = lists.iter().map(|m| m.as_slice()).collect();
            let mut assign = Assign::Range {
                lo,
                slots: vec![0; (hi - lo) as usize],
            };
            let merged = self
                .merger
                .merge_partition(tables, partials, &members, &mut assign)?;
            self.merger.finalize(merged)
        })?;
        Ok(results.into_iter().flatten().collect())
    }
}

impl Merger {
    /// Merges the groups `members[t]` of every table `t` into one table, finding each
    /// group's new id as `assign` says.
    fn merge_partition(
        &self,
        tables: &[LocalTable],
        partials: &[Vec<Vec<Vector>>],
        members: &[&[u32]],
        assign: &mut Assign,
    ) -> Result<LocalTable> {
        let mut out = self.new_table();
        let groups: usize = members.iter().map(|m| m.len()).sum();
        // At most this many groups and key bytes: no growing on the way.
        out.table = match assign {
            Assign::Hash => {
                let bytes = tables
                    .iter()
                    .zip(members)
                    .map(|(t, m)| {
                        m.iter()
                            .map(|&g| t.table.key_len(g as usize))
                            .sum::<usize>()
                    })
                    .sum();
                KeyTable::with_capacity_bytes(groups, bytes)
            }
            Assign::Range { .. } => KeyTable::default(),
        };
        let any_buffered = self.aggs.iter().any(is_buffered);
        for ((t, parts), &members) in tables.iter().zip(partials).zip(members) {
            let n = t.table.len();
            // Only buffered aggregates need the old → new id map of every group.
            let mut mapping = if any_buffered {
                vec![u32::MAX; n]
            } else {
                Vec::new()
            };
            let mut new_ids = Vec::with_capacity(members.len());
            for (k, &g) in members.iter().enumerate() {
                let key = t.table.key(g as usize);
                let hash = t.table.hash(g as usize);
                let id = match assign {
                    Assign::Hash => {
                        if let Some(&ahead) = members.get(k + 16) {
                            out.table.prefetch(t.table.hash(ahead as usize));
                        }
                        out.table.find_or_insert(key, hash).0 as u32
                    }
                    Assign::Range { lo, slots } => {
                        let slot = &mut slots[(inline_word(key) - *lo) as usize];
                        if *slot == 0 {
                            *slot = out.table.push_unindexed(key, hash) as u32 + 1;
                        }
                        *slot - 1
                    }
                };
                if any_buffered {
                    mapping[g as usize] = id;
                }
                new_ids.push(id);
            }
            for s in out.states.iter_mut() {
                s.resize(out.table.len());
            }
            for (i, s) in out.states.iter_mut().enumerate() {
                if self.aggs[i].distinct || !self.aggs[i].order_by.is_empty() {
                    continue;
                }
                let part: Vec<Vector> = parts[i].iter().map(|v| v.take(members)).collect();
                s.merge(&new_ids, &part, members.len())?;
            }
            for (i, b) in t.buffered.iter().enumerate() {
                let Some(b) = b else { continue };
                let keep: Vec<u32> = (0..b.gids.len() as u32)
                    .filter(|&r| mapping[b.gids[r as usize] as usize] != u32::MAX)
                    .collect();
                let dst = out.buffered[i].as_mut().expect("buffered in both");
                dst.gids
                    .extend(keep.iter().map(|&r| mapping[b.gids[r as usize] as usize]));
                let taken: Vec<Vector> = b.cols.iter().map(|c| c.take(&keep)).collect();
                append_cols(&mut dst.cols, taken, keep.len());
            }
        }
        Ok(out)
    }

    pub(super) fn finalize(&self, mut t: LocalTable) -> Result<Vec<DataChunk>> {
        let n = t.table.len();
        for (i, b) in t.buffered.iter_mut().enumerate() {
            if let Some(b) = b.take() {
                self.fold_buffered(i, b, t.states[i].as_mut(), n)?;
            }
        }
        let mut cols = row_key::decode(&self.group_types, (0..n).map(|g| t.table.key(g)));
        for s in t.states.iter_mut() {
            s.resize(n);
            cols.push(s.finalize()?);
        }
        let mut chunks = Vec::new();
        let mut offset = 0;
        while offset < n {
            let len = VECTOR_SIZE.min(n - offset);
            chunks.push(DataChunk::new(
                cols.iter().map(|c| c.slice(offset, len)).collect(),
                len,
            ));
            offset += len;
        }
        Ok(chunks)
    }

    /// Sorts buffered rows by group and ORDER BY keys, drops duplicates for DISTINCT,
    /// and folds them into the state in that order.
    fn fold_buffered(
        &self,
        i: usize,
        b: Buffered,
        state: &mut dyn GroupedState,
        groups: usize,
    ) -> Result<()> {
        let agg = &self.aggs[i];
        let rows = b.gids.len();
        state.resize(groups);
        if rows == 0 {
            return Ok(());
        }
        let nargs = agg.args.len();
        let gid_vec = Vector::from_values(
            DataType::Integer,
            b.gids.iter().map(|&g| g as i32).collect::<Vec<i32>>(),
        );
        let mut sort_cols = vec![SortColumn {
            values: &gid_vec,
            asc: true,
            nulls_first: false,
        }];
        for (k, o) in agg.order_by.iter().enumerate() {
            sort_cols.push(SortColumn {
                values: &b.cols[nargs + k],
                asc: o.asc,
                nulls_first: o.nulls_first,
            });
        }
        let keys = sort_key::encode(&sort_cols, rows)?;
        let mut order: Vec<u32> = (0..rows as u32).collect();
        order.sort_by(|&x, &y| {
            keys.key(x as usize)
                .cmp(keys.key(y as usize))
                .then(x.cmp(&y))
        });
        if agg.distinct {
            let arg_cols: Vec<Vector> = b.cols[..nargs].to_vec();
            let arg_keys = row_key::encode(&arg_cols, rows)?;
            let mut seen: HashSet<(u32, &[u8])> = HashSet::new();
            order.retain(|&r| seen.insert((b.gids[r as usize], arg_keys.key(r as usize))));
        }
        for batch in order.chunks(VECTOR_SIZE) {
            let gids: Vec<u32> = batch.iter().map(|&r| b.gids[r as usize]).collect();
            let args: Vec<Vector> = b.cols[..nargs].iter().map(|c| c.take(batch)).collect();
            state.update(&gids, &args.iter().collect::<Vec<_>>(), batch.len())?;
        }
        Ok(())
    }
}

/// How a merge finds the merged group of a thread table's group.
enum Assign {
    /// By looking its key up in the merged table.
    Hash,
    /// By the key's offset from `lo` (keys of one range; `slots` holds new id + 1).
    Range { lo: u64, slots: Vec<u32> },
}

/// The split of the thread tables' groups for a merge by key range, when every table
/// found its keys through a direct-lookup array ([`DenseIndex`]).
struct RangeSplit {
    /// The keys `[lo, lo + parts * width)` are merged by range.
    lo: u64,
    width: u64,
    parts: usize,
    /// Per table and part: groups with keys in the part that the table's array does
    /// not hold (the table found them by hash).
    strays: Vec<Vec<Vec<u32>>>,
    /// Per table: groups outside the range (and NULL), merged by hash.
    rest: Vec<Vec<u32>>,
}

impl RangeSplit {
    /// Ranges per merge: tasks balance over the threads.
    const PARTS: u64 = 64;
    /// The widest range merged this way (the slots of all parts together: 256 MiB).
    const MAX_KEYS: u64 = 1 << 26;

    fn of(tables: &[LocalTable]) -> Option<RangeSplit> {
        let mut lo = u64::MAX;
        let mut hi = 0;
        for t in tables.iter().filter(|t| !t.table.is_empty()) {
            let Some(Some(d)) = &t.dense else {
                return None;
            };
            let (a, b) = d.range();
            lo = lo.min(a);
            hi = hi.max(b);
        }
        if lo >= hi || hi - lo > Self::MAX_KEYS {
            return None;
        }
        let width = (hi - lo).div_ceil(Self::PARTS);
        let parts = (hi - lo).div_ceil(width) as usize;
        let mut strays = Vec::with_capacity(tables.len());
        let mut rest = Vec::with_capacity(tables.len());
        for t in tables {
            // Groups the array holds; every other group is a stray or the rest.
            let mut held = vec![false; t.table.len()];
            if let Some(Some(d)) = &t.dense {
                d.for_each_in(lo, hi, |g| held[g as usize] = true);
            }
            let mut s = vec![Vec::new(); parts];
            let mut r = Vec::new();
            for g in (0..t.table.len()).filter(|&g| !held[g]) {
                let key = t.table.key(g);
                let w = inline_word(key);
                // Keys longer than a word are never in a direct index's range.
                if !key.is_empty() && key.len() <= 8 && (lo..hi).contains(&w) {
                    s[((w - lo) / width) as usize].push(g as u32);
                } else {
                    r.push(g as u32);
                }
            }
            strays.push(s);
            rest.push(r);
        }
        Some(RangeSplit {
            lo,
            width,
            parts,
            strays,
            rest,
        })
    }

    /// The keys of part `p`.
    fn part(&self, p: usize) -> (u64, u64) {
        let a = self.lo + p as u64 * self.width;
        (a, a + self.width)
    }
}

/// Every table's aggregate states as partial-state vectors, ready to merge.
fn export_partials(tables: &mut [LocalTable]) -> Result<Vec<Vec<Vec<Vector>>>> {
    tables.iter_mut().map(LocalTable::take_partials).collect()
}

pub(super) fn append_cols(dst: &mut Vec<Vector>, src: Vec<Vector>, len: usize) {
    if dst.is_empty() {
        *dst = src.into_iter().map(|v| v.flatten(len)).collect();
    } else {
        for (d, s) in dst.iter_mut().zip(&src) {
            d.append(s, len);
        }
    }
}

impl Sink for HashAggregate<'_> {
    type Local = Option<LocalTable>;

    fn local(&self) -> Self::Local {
        None
    }

    fn consume(&self, local: &mut Self::Local, _morsel: usize, chunk: DataChunk) -> Result<()> {
        let t = local.get_or_insert_with(|| self.new_table());
        let before = t.table.len();
        let gids = self.group_ids(t, &chunk)?;
        t.added = t.table.len() - before;
        let ngroups = t.table.len();
        for (i, agg) in self.merger.aggs.iter().enumerate() {
            let (sub, sub_gids);
            let (c, g): (&DataChunk, &[u32]) = match &agg.filter {
                None => (&chunk, &gids),
                Some(f) => {
                    let sel = select(f, &chunk, self.ctx)?;
                    if sel.is_empty() {
                        t.states[i].resize(ngroups);
                        continue;
                    }
                    sub_gids = sel
                        .indices
                        .iter()
                        .map(|&r| gids[r as usize])
                        .collect::<Vec<u32>>();
                    let mut s = chunk.clone();
                    s.select(sel);
                    sub = s;
                    (&sub, &sub_gids)
                }
            };
            let args = agg
                .args
                .iter()
                .map(|a| eval_ref(a, c, self.ctx))
                .collect::<Result<Vec<_>>>()?;
            let n = c.len();
            match &mut t.buffered[i] {
                Some(b) => {
                    let mut cols: Vec<Vector> = args.into_iter().map(|a| a.into_owned()).collect();
                    for o in &agg.order_by {
                        cols.push(eval(&o.expr, c, self.ctx)?);
                    }
                    b.gids.extend_from_slice(g);
                    t.buffered_bytes += 4 * n as u64
                        + stride_storage::size::columns_bytes(&cols, &mut Default::default())
                            as u64;
                    append_cols(&mut b.cols, cols, n);
                }
                None => {
                    t.states[i].resize(ngroups);
                    let refs: Vec<&Vector> = args.iter().map(|a| &**a).collect();
                    t.states[i].update(g, &refs, n)?;
                }
            }
        }
        if self.groups.is_empty() {
            // never written to: still all 0
            t.zeros = gids;
        }
        self.account(t)?;
        self.flush_scattered(t)
    }

    fn combine(&self, local: Self::Local) -> Result<()> {
        if let Some(mut t) = local {
            let n = t.table.len();
            for s in t.states.iter_mut() {
                s.resize(n);
            }
            self.tables
                .lock()
                .map_err(|_| Error::internal("aggregate lock poisoned"))?
                .push(t);
        }
        Ok(())
    }
}
