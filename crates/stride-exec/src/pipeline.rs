//! Pipelines: a source, a chain of streaming operators and a sink. Worker threads (one
//! per core, `SET threads`: the calling thread and the rest from the process's pool,
//! `stride_common::workers`) pull morsels from the source through an atomic counter,
//! push each chunk through the operators and into their thread-local sink state; at
//! the end each thread combines its local state into the sink's global state. No lock
//! is taken per chunk. A join's small output chunks wait in the worker's coalescer
//! for that operator (`coalesce.rs`) until they fill a chunk or the morsel ends.
//! Under EXPLAIN ANALYZE the source and each operator carry their plan node's
//! counters (`profile.rs`), which the loop fills.
//!
//! A pipeline may have tails: sources of late rows ([`LateRows`]) that run once every
//! morsel before them is done, entering the pipeline above the operator that added
//! them (a marking join's rows, the partitions a join spilled). Each
//! runs like a source of its own, its morsels numbered after those before it, into
//! the same sink.
//!
//! A table scan reads a row group per morsel, after checking the conditions a filter
//! directly above passed down against its zone maps; where such a condition is on a
//! string column held compressed as a dictionary, it tests each dictionary value once
//! and decodes only the rows whose codes pass (`dictionary_tests`).

use crate::coalesce::Coalescer;
use crate::context::QueryContext;
use crate::expression;
use crate::operators::grace_join::GraceJoin;
use crate::operators::hash_join::JoinProbe;
use crate::operators::nested_loop_join::NestedLoopProbe;
use crate::profile::NodeStats;
use crate::stream_source::StreamSource;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use stride_common::memory::{MemoryAccountant, MemoryTag, Reservation};
use stride_common::{
    workers, DataChunk, DataType, Error, Result, Vector, MORSEL_SIZE, VECTOR_SIZE,
};
use stride_io::columnar::ColumnarReader;
use stride_io::csv::{CsvReader, Morsel, RowFilter};
use stride_sql::plan::Expr;
use stride_storage::column::Values;
use stride_storage::compression::packed::Packed;
use stride_storage::{Bounds, Key, RowGroup, ZoneFilter, ZoneMap, ZoneTest};

/// Chunks per morsel of a materialized source (≈ one row group).
const CHUNKS_PER_MORSEL: usize = MORSEL_SIZE / VECTOR_SIZE;

pub enum Source {
    /// A table snapshot's row groups; one morsel per row group. A column position
    /// one past the table's last column is the row id: the row's position in the
    /// table (DELETE and UPDATE find their rows by it); `starts` holds each group's
    /// first row id. A group whose zone maps show that no row meets `filters` yields
    /// nothing and is not read.
    Scan {
        row_groups: Vec<Arc<RowGroup>>,
        starts: Vec<u64>,
        columns: Vec<usize>,
        filters: Vec<ZoneFilter>,
    },
    /// CSV files; one morsel per byte range. `filter` (over `columns`) is applied
    /// while reading (see [`RowFilter`]), with the columns it reads.
    Csv {
        reader: Arc<CsvReader>,
        morsels: Vec<Morsel>,
        columns: Vec<usize>,
        filter: Option<(Expr, Vec<bool>)>,
    },
    /// Parquet or Arrow files; one morsel per row group or record batch. A morsel
    /// whose statistics show that no row meets `filters` yields nothing and is not
    /// read.
    Columnar {
        reader: Arc<dyn ColumnarReader>,
        columns: Vec<usize>,
        filters: Vec<ZoneFilter>,
    },
    /// `start + k * step` for k in 0..count.
    Range { start: i64, step: i64, count: u64 },
    /// Chunks computed by an earlier pipeline.
    Chunks(Arc<Vec<DataChunk>>),
    /// Rows computed as they are asked for, once the pipeline before them has ended.
    Late(Arc<dyn LateRows>),
    /// Chunks made as they are read (a spilled sort's merge, a spilled window's
    /// partitions); one morsel per `MORSEL_SIZE` rows.
    Stream(Arc<StreamSource>),
}

/// Rows a node can produce only once its input has ended, a morsel at a time.
pub trait LateRows: Send + Sync {
    /// Asked when the rows are about to be produced, not before.
    fn morsels(&self) -> usize;
    /// Units of work (rows) in morsel `m`, for progress, where known before.
    fn work(&self, _m: usize) -> u64 {
        0
    }
    fn produce(
        &self,
        morsel: usize,
        ctx: &QueryContext,
        emit: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()>;
}

impl Source {
    pub fn morsels(&self) -> usize {
        match self {
            Source::Scan { row_groups, .. } => row_groups.len(),
            Source::Csv { morsels, .. } => morsels.len(),
            Source::Columnar { reader, .. } => reader.morsels(),
            Source::Range { count, .. } => count.div_ceil(MORSEL_SIZE as u64) as usize,
            Source::Chunks(c) => c.len().div_ceil(CHUNKS_PER_MORSEL),
            Source::Late(l) => l.morsels(),
            Source::Stream(s) => s.morsels(),
        }
    }

    /// Units of work in all morsels together; for a range, without visiting its
    /// (possibly billions of) morsels.
    pub fn total_work(&self) -> u64 {
        match self {
            Source::Range { count, .. } => *count,
            _ => (0..self.morsels()).map(|m| self.work(m)).sum(),
        }
    }

    /// Units of work in morsel `m` (bytes of a CSV morsel, rows otherwise).
    pub fn work(&self, m: usize) -> u64 {
        match self {
            Source::Scan { row_groups, .. } => row_groups[m].len as u64,
            Source::Csv { morsels, .. } => (morsels[m].end - morsels[m].start) as u64,
            Source::Columnar { reader, .. } => reader.rows(m) as u64,
            Source::Range { count, .. } => {
                let first = m as u64 * MORSEL_SIZE as u64;
                (*count - first).min(MORSEL_SIZE as u64)
            }
            Source::Chunks(chunks) => {
                let a = m * CHUNKS_PER_MORSEL;
                chunks[a..(a + CHUNKS_PER_MORSEL).min(chunks.len())]
                    .iter()
                    .map(|c| c.len() as u64)
                    .sum()
            }
            Source::Late(l) => l.work(m),
            Source::Stream(s) => s.rows_in(m),
        }
    }

    /// About how many rows one morsel yields (an upper estimate for sizing buffers;
    /// filters above the source may pass fewer).
    pub fn rows_per_morsel(&self) -> usize {
        match self {
            Source::Scan { row_groups, .. } => row_groups.iter().map(|g| g.len).max().unwrap_or(0),
            Source::Csv {
                reader, morsels, ..
            } => {
                let bytes = morsels.iter().map(|m| m.end - m.start).max().unwrap_or(0);
                reader.rows_in_bytes(bytes)
            }
            Source::Columnar { reader, .. } => (0..reader.morsels())
                .map(|m| reader.rows(m))
                .max()
                .unwrap_or(0),
            Source::Range { .. } | Source::Chunks(_) | Source::Late(_) | Source::Stream(_) => {
                MORSEL_SIZE
            }
        }
    }

    /// Produces morsel `morsel`'s chunks; `stats` counts a scan's row groups read and
    /// skipped.
    pub fn produce(
        &self,
        morsel: usize,
        ctx: &QueryContext,
        stats: Option<&NodeStats>,
        emit: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()> {
        match self {
            Source::Scan {
                row_groups,
                starts,
                columns,
                filters,
            } => {
                let g = &row_groups[morsel];
                for f in filters {
                    // (A filter on the row id, one past the columns, has no zone map.)
                    let Some(col) = g.columns.get(f.column) else {
                        continue;
                    };
                    if !col.zone(g.len)?.may_match(&f.test) {
                        if let Some(s) = stats {
                            s.groups_skipped.fetch_add(1, Ordering::Relaxed);
                        }
                        return Ok(());
                    }
                }
                if let Some(s) = stats {
                    s.groups_read.fetch_add(1, Ordering::Relaxed);
                }
                let vectors = columns
                    .iter()
                    .map(|&c| g.columns.get(c).map(|col| col.values()).transpose())
                    .collect::<Result<Vec<_>>>()?;
                let by_code = dictionary_tests(filters, columns, &vectors);
                let mut codes = Vec::new();
                let mut offset = 0;
                while offset < g.len {
                    let n = VECTOR_SIZE.min(g.len - offset);
                    let rows = passing_rows(&by_code, offset, n, &mut codes);
                    let len = rows.as_ref().map_or(n, Vec::len);
                    if len == 0 {
                        offset += n;
                        continue;
                    }
                    let cols = vectors
                        .iter()
                        .map(|v| match (v, &rows) {
                            (Some(col), None) => col.window(offset, n),
                            (Some(col), Some(rows)) => col.take(offset, rows),
                            (None, _) => {
                                let first = (starts[morsel] + offset as u64) as i64;
                                Vector::from_values(
                                    DataType::BigInt,
                                    match &rows {
                                        None => (first..first + n as i64).collect(),
                                        Some(rows) => {
                                            rows.iter().map(|&r| first + r as i64).collect()
                                        }
                                    },
                                )
                            }
                        })
                        .collect();
                    emit(DataChunk::new(cols, len))?;
                    offset += n;
                }
            }
            Source::Csv {
                reader,
                morsels,
                columns,
                filter,
            } => match filter {
                None => reader.produce(&morsels[morsel], columns, None, emit)?,
                Some((pred, reads)) => {
                    let filter = RowFilter {
                        reads,
                        select: &|chunk| expression::select(pred, chunk, ctx),
                    };
                    reader.produce(&morsels[morsel], columns, Some(&filter), emit)?
                }
            },
            Source::Columnar {
                reader,
                columns,
                filters,
            } => {
                for f in filters {
                    let Some((min, max, nulls, rows)) = reader.statistics(morsel, f.column) else {
                        continue;
                    };
                    let ty = &reader.types()[f.column];
                    let bounds = match (Key::of(&min, ty), Key::of(&max, ty)) {
                        (Some(Key::Int(a)), Some(Key::Int(b))) => Some(Bounds::Int(a, b)),
                        (Some(Key::Float(a)), Some(Key::Float(b))) => Some(Bounds::Float(a, b)),
                        _ => None,
                    };
                    let zone = ZoneMap {
                        rows,
                        nulls,
                        bounds,
                    };
                    if !zone.may_match(&f.test) {
                        if let Some(s) = stats {
                            s.groups_skipped.fetch_add(1, Ordering::Relaxed);
                        }
                        return Ok(());
                    }
                }
                if let Some(s) = stats {
                    s.groups_read.fetch_add(1, Ordering::Relaxed);
                }
                reader.produce(morsel, columns, emit)?;
            }
            Source::Range { start, step, count } => {
                let first = morsel as u64 * MORSEL_SIZE as u64;
                let end = (first + MORSEL_SIZE as u64).min(*count);
                let mut k = first;
                while k < end {
                    let n = (VECTOR_SIZE as u64).min(end - k);
                    let base = *start as i128 + k as i128 * *step as i128;
                    let vals: Vec<i64> = (0..n as i128)
                        .map(|j| (base + j * *step as i128) as i64)
                        .collect();
                    emit(DataChunk::new(
                        vec![Vector::from_values(DataType::BigInt, vals)],
                        n as usize,
                    ))?;
                    k += n;
                }
            }
            Source::Chunks(chunks) => {
                let a = morsel * CHUNKS_PER_MORSEL;
                for c in &chunks[a..(a + CHUNKS_PER_MORSEL).min(chunks.len())] {
                    emit(c.clone())?;
                }
            }
            Source::Late(l) => l.produce(morsel, ctx, emit)?,
            Source::Stream(s) => {
                for c in s.morsel(morsel)? {
                    emit(c)?;
                }
            }
        }
        Ok(())
    }
}

pub enum Operator {
    Filter(Expr),
    Project(Vec<Expr>),
    /// A projection of plain columns: moves them and keeps the chunk's selection,
    /// evaluating nothing. Each entry is an input column and whether this is its last
    /// use (moved) or not (cloned).
    Columns(Vec<(usize, bool)>),
    HashProbe(Arc<JoinProbe>),
    /// The probe of a hash join whose build side did not fit in memory.
    GraceProbe(Arc<GraceJoin>),
    NestedLoop(Arc<NestedLoopProbe>),
    /// Set-returning functions of a select list: rows repeat per list element.
    /// Input columns passed through, and the set-returning functions.
    Unnest(Vec<usize>, Vec<stride_sql::plan::SetFunction>),
    /// A LATERAL join run per left row.
    Lateral(Arc<crate::operators::lateral_join::LateralJoin>),
}

impl Operator {
    /// The projection of plain input columns `indices`, in that order.
    pub fn columns(indices: &[usize]) -> Operator {
        let picks = indices
            .iter()
            .enumerate()
            .map(|(k, &i)| (i, !indices[k + 1..].contains(&i)))
            .collect();
        Operator::Columns(picks)
    }

    /// Whether small output chunks are gathered into full ones before the next
    /// operator (see `coalesce.rs`): joins, whose output can be a few rows per chunk.
    fn coalesces(&self) -> bool {
        matches!(
            self,
            Operator::HashProbe(_)
                | Operator::GraceProbe(_)
                | Operator::NestedLoop(_)
                | Operator::Lateral(_)
        )
    }

    fn apply(
        &self,
        chunk: DataChunk,
        ctx: &QueryContext,
        out: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()> {
        match self {
            Operator::Filter(pred) => {
                let sel = expression::select(pred, &chunk, ctx)?;
                if sel.is_empty() {
                    return Ok(());
                }
                let mut c = chunk;
                if sel.len() != c.len() {
                    c.select(sel);
                }
                out(c)
            }
            Operator::Project(exprs) => {
                let len = chunk.len();
                let chunk = gather_shared_columns(chunk, exprs);
                let cols = exprs
                    .iter()
                    .map(|e| expression::eval(e, &chunk, ctx))
                    .collect::<Result<Vec<_>>>()?;
                out(DataChunk::new(
                    cols.into_iter().map(|v| v.flatten(len)).collect(),
                    len,
                ))
            }
            Operator::Columns(picks) => {
                let mut chunk = chunk;
                let mut input: Vec<Option<Vector>> = std::mem::take(&mut chunk.columns)
                    .into_iter()
                    .map(Some)
                    .collect();
                let mut cols = Vec::with_capacity(picks.len());
                for &(i, last) in picks {
                    let v = if last {
                        input[i].take()
                    } else {
                        input[i].clone()
                    };
                    cols.push(v.ok_or_else(|| Error::internal("projected column missing"))?);
                }
                chunk.columns = cols;
                out(chunk)
            }
            Operator::HashProbe(p) => p.probe(chunk, ctx, out),
            Operator::GraceProbe(p) => p.probe(chunk, ctx, out),
            Operator::NestedLoop(p) => p.probe(chunk, ctx, out),
            Operator::Unnest(passed, functions) => {
                crate::operators::unnest::apply(passed, functions, chunk, ctx, out)
            }
            Operator::Lateral(l) => l.apply(chunk, ctx, out),
        }
    }
}

/// A chunk with a selection whose columns several of `exprs` read (a column passed
/// on and also computed with, as below TPC-H Q1's aggregate): the columns any of them
/// reads, gathered through the selection once, instead of once per reading
/// expression. Other chunks are returned as they are.
fn gather_shared_columns(chunk: DataChunk, exprs: &[Expr]) -> DataChunk {
    let Some(sel) = &chunk.selection else {
        return chunk;
    };
    let mut reads = vec![0usize; chunk.columns.len()];
    let mut cols = Vec::new();
    for e in exprs {
        cols.clear();
        e.collect_columns(&mut cols);
        for &c in &cols {
            if let Some(n) = reads.get_mut(c) {
                *n += 1;
            }
        }
    }
    if reads.iter().all(|&n| n < 2) {
        return chunk;
    }
    let columns = chunk
        .columns
        .iter()
        .zip(&reads)
        .map(|(c, &n)| match n {
            0 => Vector::null_constant(&c.ty),
            _ => c.take(&sel.indices),
        })
        .collect();
    DataChunk::new(columns, sel.len())
}

pub struct Pipeline {
    pub source: Source,
    pub operators: Vec<Operator>,
    /// EXPLAIN ANALYZE: the counters of the node the source reads for.
    pub source_stats: Option<Arc<NodeStats>>,
    /// EXPLAIN ANALYZE: each operator's node's counters.
    pub operator_stats: Vec<Option<Arc<NodeStats>>>,
    /// Late rows, run in order after the source.
    pub tails: Vec<Tail>,
}

/// Late rows of a pipeline: `source`'s chunks enter at operator `from`; `stats`
/// counts them for the node that adds them.
pub struct Tail {
    pub source: Source,
    pub from: usize,
    pub stats: Option<Arc<NodeStats>>,
}

impl Pipeline {
    pub fn new(source: Source) -> Self {
        Pipeline {
            source,
            operators: Vec::new(),
            source_stats: None,
            operator_stats: Vec::new(),
            tails: Vec::new(),
        }
    }

    /// Adds `late` rows, produced once everything before them is done, to go through
    /// the operators added from now on; `stats` counts them.
    pub fn then(&mut self, late: Arc<dyn LateRows>, stats: Option<Arc<NodeStats>>) {
        self.tails.push(Tail {
            source: Source::Late(late),
            from: self.operators.len(),
            stats,
        });
    }

    /// A pipeline reading `source` for the node `stats` counts.
    pub fn counted(source: Source, stats: Option<Arc<NodeStats>>) -> Self {
        Pipeline {
            source_stats: stats,
            ..Pipeline::new(source)
        }
    }

    /// Appends an operator, counted in `stats`.
    pub fn add(&mut self, op: Operator, stats: Option<Arc<NodeStats>>) {
        self.operators.push(op);
        self.operator_stats.push(stats);
    }
}

/// Where a pipeline's chunks end up. `Local` is one worker's private state.
/// A scan's conditions on dictionary-compressed string columns, each tested once
/// per dictionary value (a one-value zone map tests a value exactly): the column's
/// values, and whether each code passes.
fn dictionary_tests<'v>(
    filters: &[ZoneFilter],
    columns: &[usize],
    vectors: &'v [Option<Values>],
) -> Vec<(&'v Packed, Vec<bool>)> {
    filters
        .iter()
        .filter(|f| match &f.test {
            ZoneTest::Compare(_, Key::Str(_)) => true,
            ZoneTest::In(keys) => keys.iter().all(|k| matches!(k, Key::Str(_))),
            _ => false,
        })
        .filter_map(|f| {
            let at = columns.iter().position(|&c| c == f.column)?;
            let Some(Values::Packed(p)) = &vectors[at] else {
                return None;
            };
            let values = p.dictionary()?;
            let pass = (0..values.len())
                .map(|i| {
                    let v = values.get_bytes(i).to_vec();
                    let one = ZoneMap {
                        rows: 1,
                        nulls: 0,
                        bounds: Some(Bounds::Str(v.clone(), Some(v))),
                    };
                    one.may_match(&f.test)
                })
                .collect();
            Some((&**p, pass))
        })
        .collect()
}

/// The rows of `offset..offset + n` (counted from `offset`) that pass every test of
/// `by_code`; `None` when there are no tests, or when half the rows or more pass: then
/// the window is read whole (decoded columns are shared slices, not copies) and the
/// filter above sorts the rows out.
fn passing_rows(
    by_code: &[(&Packed, Vec<bool>)],
    offset: usize,
    n: usize,
    codes: &mut Vec<u32>,
) -> Option<Vec<u32>> {
    let ((first, pass), rest) = by_code.split_first()?;
    first.codes(offset, n, codes);
    let mut rows: Vec<u32> = (0..n as u32)
        .filter(|&r| pass[codes[r as usize] as usize] && first.is_valid(offset + r as usize))
        .collect();
    for (p, pass) in rest {
        p.codes(offset, n, codes);
        rows.retain(|&r| pass[codes[r as usize] as usize] && p.is_valid(offset + r as usize));
    }
    (rows.len() * 2 < n).then_some(rows)
}

pub trait Sink: Sync {
    type Local: Send;
    fn local(&self) -> Self::Local;
    fn consume(&self, local: &mut Self::Local, morsel: usize, chunk: DataChunk) -> Result<()>;
    /// Called after the last chunk of each morsel a worker processed.
    fn morsel_done(&self, _local: &mut Self::Local, _morsel: usize) -> Result<()> {
        Ok(())
    }
    fn combine(&self, local: Self::Local) -> Result<()>;
    /// True once the sink needs no more input (LIMIT reached).
    fn is_done(&self) -> bool {
        false
    }
}

/// Pushes `chunk` through `ops` into `sink`; `waiting` holds each operator's small
/// output chunks (used only by operators that coalesce); `stats`, each operator's
/// counters when profiled.
fn push(
    ops: &[Operator],
    stats: &[Option<Arc<NodeStats>>],
    waiting: &mut [Coalescer],
    chunk: DataChunk,
    ctx: &QueryContext,
    sink: &mut dyn FnMut(DataChunk) -> Result<()>,
) -> Result<()> {
    if chunk.is_empty() {
        return Ok(());
    }
    let (Some((op, rest)), Some((mine, later))) = (ops.split_first(), waiting.split_first_mut())
    else {
        return sink(chunk);
    };
    let (counters, rest_stats) = match stats.split_first() {
        Some((c, r)) => (c.as_deref(), r),
        None => (None, stats),
    };
    let Some(counters) = counters else {
        if !op.coalesces() {
            return op.apply(chunk, ctx, &mut |c| {
                push(rest, rest_stats, later, c, ctx, sink)
            });
        }
        return op.apply(chunk, ctx, &mut |c| {
            for ready in mine.add(c) {
                push(rest, rest_stats, later, ready, ctx, sink)?;
            }
            Ok(())
        });
    };
    // Profiled: the operator's own time is its call less the time spent downstream.
    let start = std::time::Instant::now();
    let mut downstream = std::time::Duration::ZERO;
    let coalesces = op.coalesces();
    let r = counters.holding(|| {
        op.apply(chunk, ctx, &mut |c| {
            counters.add_rows(c.len());
            let t = std::time::Instant::now();
            let r = if coalesces {
                mine.add(c)
                    .into_iter()
                    .try_for_each(|ready| push(rest, rest_stats, later, ready, ctx, sink))
            } else {
                push(rest, rest_stats, later, c, ctx, sink)
            };
            downstream += t.elapsed();
            r
        })
    });
    counters.add_time(start.elapsed().saturating_sub(downstream));
    r
}

/// Sends on every chunk still waiting in `waiting`, first to last operator (what an
/// earlier one sends may wait again in a later one until its own turn).
fn flush(
    ops: &[Operator],
    stats: &[Option<Arc<NodeStats>>],
    waiting: &mut [Coalescer],
    ctx: &QueryContext,
    sink: &mut dyn FnMut(DataChunk) -> Result<()>,
) -> Result<()> {
    for k in 0..waiting.len() {
        if let Some(c) = waiting[k].take() {
            let later = stats.get(k + 1..).unwrap_or_default();
            push(&ops[k + 1..], later, &mut waiting[k + 1..], c, ctx, sink)?;
        }
    }
    Ok(())
}

/// Runs the pipeline to completion on `ctx.threads()` workers.
pub fn run<S: Sink>(p: &Pipeline, sink: &S, ctx: &QueryContext) -> Result<()> {
    run_counted(p, sink, None, ctx)
}

/// [`run`], counting the time the sink takes in `sink_stats` (the node the sink
/// builds: an aggregate, a sort, a join's build side). The source runs first, then
/// each tail in turn.
pub fn run_counted<S: Sink>(
    p: &Pipeline,
    sink: &S,
    sink_stats: Option<&NodeStats>,
    ctx: &QueryContext,
) -> Result<()> {
    let mut phase = Phase {
        source: &p.source,
        operators: &p.operators,
        stats: &p.operator_stats,
        source_stats: p.source_stats.as_deref(),
        first_morsel: 0,
    };
    let mut first_morsel = run_phase(&phase, sink, sink_stats, ctx)?;
    for tail in &p.tails {
        if sink.is_done() {
            break;
        }
        phase = Phase {
            source: &tail.source,
            operators: p.operators.get(tail.from..).unwrap_or_default(),
            stats: p.operator_stats.get(tail.from..).unwrap_or_default(),
            source_stats: tail.stats.as_deref(),
            first_morsel,
        };
        first_morsel += run_phase(&phase, sink, sink_stats, ctx)?;
    }
    Ok(())
}

/// One source of a pipeline and the operators its chunks go through; the sink sees
/// its morsels numbered from `first_morsel`.
struct Phase<'a> {
    source: &'a Source,
    operators: &'a [Operator],
    stats: &'a [Option<Arc<NodeStats>>],
    source_stats: Option<&'a NodeStats>,
    first_morsel: usize,
}

/// Runs every morsel of `phase` on `ctx.threads()` workers; returns how many there
/// were.
fn run_phase<S: Sink>(
    phase: &Phase<'_>,
    sink: &S,
    sink_stats: Option<&NodeStats>,
    ctx: &QueryContext,
) -> Result<usize> {
    let source = phase.source;
    let n = source.morsels();
    ctx.progress.add_total(source.total_work());
    let threads = ctx.threads().min(n).max(1);
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let work = || -> Result<()> {
        let mut local = match sink_stats {
            Some(s) => s.holding(|| sink.local()),
            None => sink.local(),
        };
        let mut waiting: Vec<Coalescer> = phase
            .operators
            .iter()
            .map(|_| Coalescer::default())
            .collect();
        loop {
            let m = next.fetch_add(1, Ordering::Relaxed);
            if m >= n || failed.load(Ordering::Relaxed) || sink.is_done() {
                break;
            }
            ctx.check()?;
            let sink_morsel = phase.first_morsel + m;
            let mut consume = |c: DataChunk| match sink_stats {
                Some(s) => s.time(|| sink.consume(&mut local, sink_morsel, c)),
                None => sink.consume(&mut local, sink_morsel, c),
            };
            let ops = (phase.operators, phase.stats);
            match phase.source_stats {
                None => source.produce(m, ctx, None, &mut |chunk| {
                    ctx.check()?;
                    push(ops.0, ops.1, &mut waiting, chunk, ctx, &mut consume)
                })?,
                Some(stats) => {
                    // The source's own time: the morsel's less what its chunks took
                    // downstream.
                    let start = std::time::Instant::now();
                    let mut downstream = std::time::Duration::ZERO;
                    stats.holding(|| {
                        source.produce(m, ctx, Some(stats), &mut |chunk| {
                            ctx.check()?;
                            stats.add_rows(chunk.len());
                            let t = std::time::Instant::now();
                            let r = push(ops.0, ops.1, &mut waiting, chunk, ctx, &mut consume);
                            downstream += t.elapsed();
                            r
                        })
                    })?;
                    stats.add_time(start.elapsed().saturating_sub(downstream));
                }
            }
            flush(ops.0, ops.1, &mut waiting, ctx, &mut consume)?;
            sink.morsel_done(&mut local, sink_morsel)?;
            ctx.progress.add_done(source.work(m));
        }
        match sink_stats {
            Some(s) => s.time(|| sink.combine(local)),
            None => sink.combine(local),
        }
    };
    let results = workers::parallel(threads - 1, &|| {
        let r = work();
        if r.is_err() {
            failed.store(true, Ordering::Relaxed);
        }
        r
    });
    let mut first_err = None;
    for r in results {
        if let Err(e) = r {
            // Prefer the root cause over follow-on interruptions.
            if first_err
                .as_ref()
                .is_none_or(|f: &Error| f.kind == stride_common::ErrorKind::Interrupted)
            {
                first_err = Some(e);
            }
        }
    }
    first_err.map_or(Ok(n), Err)
}

/// A sink that keeps every chunk, in morsel order. What it keeps is counted in the
/// memory accountant (as materialized rows) while it collects, so that operators
/// which can spill make room for it.
pub struct CollectSink {
    parts: std::sync::Mutex<Vec<(usize, Vec<DataChunk>)>>,
    memory: Arc<MemoryAccountant>,
    /// Whose rows they are (a set operation's inputs, materialized rows).
    tag: MemoryTag,
    reserved: std::sync::Mutex<Vec<Reservation>>,
}

impl CollectSink {
    pub fn new(ctx: &QueryContext, tag: MemoryTag) -> Self {
        CollectSink {
            parts: std::sync::Mutex::new(Vec::new()),
            memory: ctx.memory.clone(),
            tag,
            reserved: std::sync::Mutex::new(Vec::new()),
        }
    }

    pub fn finish(self) -> Vec<DataChunk> {
        let mut parts = self.parts.into_inner().unwrap_or_default();
        parts.sort_by_key(|(m, _)| *m);
        parts.into_iter().flat_map(|(_, c)| c).collect()
    }
}

impl Sink for CollectSink {
    type Local = (Vec<(usize, Vec<DataChunk>)>, Reservation);

    fn local(&self) -> Self::Local {
        (Vec::new(), Reservation::new(&self.memory, self.tag))
    }

    fn consume(&self, local: &mut Self::Local, morsel: usize, chunk: DataChunk) -> Result<()> {
        let chunk = chunk.flatten();
        local.1.track(crate::operators::chunk_bytes(&chunk));
        match local.0.last_mut() {
            Some((m, chunks)) if *m == morsel => chunks.push(chunk),
            _ => local.0.push((morsel, vec![chunk])),
        }
        Ok(())
    }

    fn combine(&self, local: Self::Local) -> Result<()> {
        self.parts
            .lock()
            .map_err(|_| Error::internal("collect lock poisoned"))?
            .extend(local.0);
        self.reserved
            .lock()
            .map_err(|_| Error::internal("collect lock poisoned"))?
            .push(local.1);
        Ok(())
    }
}
