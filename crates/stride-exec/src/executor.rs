//! The executor: turns a physical plan into pipelines and runs them. Pipeline breakers
//! (aggregates, sorts, limits, set operations, join build sides) run their input
//! pipeline to completion first and become a materialized source for the pipeline
//! above (a sort or window that spilled to disk becomes a source that makes its rows
//! as they are read instead, `stream_source.rs`; a spilled hash aggregate, one that
//! merges a partition per morsel, `aggregate_spill.rs`); filters, projections and join
//! probes are fused into the pipeline that feeds them. A join's rows that can only
//! come once its probe input has ended (a marking SEMI / ANTI join's rows, the
//! partitions a hash join spilled and their RIGHT / FULL unmatched build rows) are a
//! tail of the probe pipeline (`pipeline.rs`), so they too stream through the
//! operators above; a RIGHT or FULL join held in memory runs its probe pipeline to the
//! end instead and adds its unmatched build rows to that output.
//! A hash join's build side is collected by a `grace_join::BuildSink`, which spills
//! what does not fit under `memory_limit`. A shared CTE (`CteScan`) runs once per
//! query; every reference reads its rows from the query context.
//!
//! [`execute_stream`] runs a query on a driver thread (a pool worker) and hands result chunks to the
//! caller through a bounded channel as morsels finish, in input order, so the first
//! rows arrive before the last are computed and a slow reader throttles the workers.
//! Dropping the stream cancels the query. [`execute_ordered`] instead hands each
//! morsel's chunks, prepared on the worker that made them, to a writer in input order
//! as the query runs (`COPY … TO` a CSV file).

use crate::context::QueryContext;
use crate::expression::eval;
use crate::operators::grace_join::{BuildSink, HashJoin};
use crate::operators::hash_aggregate::HashAggregate;
use crate::operators::hash_join::JoinSpec;
use crate::operators::limit::LimitSink;
use crate::operators::materialize::{part_bytes, MakePart, MaterializeSink, Part};
use crate::operators::nested_loop_join::NestedLoopProbe;
use crate::operators::set_op;
use crate::operators::sort::SortSink;
use crate::operators::top_n::TopNSink;
use crate::operators::window_sink::WindowSink;
use crate::physical_plan::PhysicalPlan;
use crate::pipeline::{self, CollectSink, LateRows, Operator, Pipeline, Sink, Source};
use crate::profile::{NodeStats, Profile};
use std::collections::BTreeMap;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use stride_common::memory::MemoryTag;
use stride_common::{DataChunk, DataType, Error, Result, Vector};
use stride_sql::plan::{Expr, JoinKind, LogicalPlan, RegisteredRows};

/// Builds the pipeline that produces `plan`'s output, running every breaker below it.
fn build(plan: &PhysicalPlan, ctx: &QueryContext) -> Result<Pipeline> {
    ctx.check()?;
    // EXPLAIN ANALYZE: this node's counters.
    let stats = ctx.profile.as_ref().map(|p| p.node(plan));
    let counted = |source: Source| Pipeline::counted(source, stats.clone());
    Ok(match plan {
        PhysicalPlan::Scan {
            table,
            columns,
            filters,
            ..
        } => {
            let row_groups = table.snapshot();
            let starts = row_groups
                .iter()
                .scan(0u64, |at, g| {
                    let start = *at;
                    *at += g.len as u64;
                    Some(start)
                })
                .collect();
            counted(Source::Scan {
                row_groups,
                starts,
                columns: columns.clone(),
                filters: filters.clone(),
            })
        }
        PhysicalPlan::CsvScan {
            reader,
            columns,
            filter,
            ..
        } => counted(Source::Csv {
            morsels: reader.plan(ctx.threads())?,
            reader: reader.clone(),
            columns: columns.clone(),
            filter: filter.as_ref().map(|pred| {
                let mut used = Vec::new();
                pred.collect_columns(&mut used);
                let reads = (0..columns.len()).map(|i| used.contains(&i)).collect();
                (pred.clone(), reads)
            }),
        }),
        PhysicalPlan::Registered {
            data,
            columns,
            filters,
            ..
        } => {
            let chunks = match &data.rows {
                // The columns read, as chunks sharing the registered vectors.
                RegisteredRows::Chunks(chunks) => chunks
                    .iter()
                    .map(|c| {
                        let c = c.clone().flatten();
                        let len = c.len();
                        DataChunk::new(columns.iter().map(|&i| c.columns[i].clone()).collect(), len)
                    })
                    .collect(),
                // Read now, once; EXPLAIN ANALYZE counts the read as the scan's time.
                RegisteredRows::External(source) => match &stats {
                    Some(s) => s.time(|| source.read(columns, filters))?,
                    None => source.read(columns, filters)?,
                },
            };
            counted(Source::Chunks(Arc::new(chunks)))
        }
        PhysicalPlan::ColumnarScan {
            reader,
            columns,
            filters,
            ..
        } => counted(Source::Columnar {
            reader: reader.clone(),
            columns: columns.clone(),
            filters: filters.clone(),
        }),
        PhysicalPlan::Range {
            start,
            stop,
            step,
            inclusive,
        } => {
            let (a, b, s) = (*start as i128, *stop as i128, *step as i128);
            let count = if s > 0 {
                if *inclusive {
                    (b - a) / s + 1
                } else {
                    (b - a + s - 1) / s
                }
            } else if *inclusive {
                (a - b) / -s + 1
            } else {
                (a - b + -s - 1) / -s
            };
            counted(Source::Range {
                start: *start,
                step: *step,
                count: count.max(0) as u64,
            })
        }
        PhysicalPlan::CteScan { id, input } => {
            let rows = ctx.cte_rows(*id, || {
                run_collect(
                    &build(input, ctx)?,
                    MemoryTag::Materialized,
                    stats.as_deref(),
                    ctx,
                )
            })?;
            counted(Source::Chunks(rows))
        }
        PhysicalPlan::Values { rows, types } => {
            let empty = DataChunk::new(vec![], 1);
            let mut cols: Vec<Vector> = types
                .iter()
                .map(|t| Vector::with_capacity(t, rows.len()))
                .collect();
            for row in rows {
                for (c, e) in cols.iter_mut().zip(row) {
                    let v = eval(e, &empty, ctx)?;
                    c.append(&v, 1);
                }
            }
            let chunk = DataChunk::new(cols, rows.len());
            counted(Source::Chunks(Arc::new(if rows.is_empty() {
                vec![]
            } else {
                vec![chunk]
            })))
        }
        PhysicalPlan::Filter { input, predicate } => {
            let mut p = build(input, ctx)?;
            p.add(Operator::Filter(predicate.clone()), stats);
            p
        }
        PhysicalPlan::Unnest {
            input,
            passed,
            functions,
            ..
        } => {
            let mut p = build(input, ctx)?;
            p.add(Operator::Unnest(passed.clone(), functions.clone()), stats);
            p
        }
        PhysicalPlan::LateralJoin {
            input,
            subquery,
            kind,
            types,
        } => {
            let mut p = build(input, ctx)?;
            let right_types = types[input.types().len()..].to_vec();
            let op = crate::operators::lateral_join::LateralJoin::new(
                subquery.clone(),
                *kind,
                right_types,
            );
            p.add(Operator::Lateral(Arc::new(op)), stats);
            p
        }
        PhysicalPlan::Project { input, exprs, .. } => {
            let mut p = build(input, ctx)?;
            let columns: Option<Vec<usize>> = exprs
                .iter()
                .map(|e| match e {
                    Expr::Column { index, .. } => Some(*index),
                    _ => None,
                })
                .collect();
            match columns {
                // Renaming only: nothing to do at run time.
                Some(c)
                    if c.len() == input.types().len()
                        && c.iter().enumerate().all(|(i, &x)| i == x) =>
                {
                    // No work of its own: EXPLAIN ANALYZE shows its input's rows.
                    if let Some(profile) = &ctx.profile {
                        profile.forget(plan);
                    }
                }
                Some(c) => p.add(Operator::columns(&c), stats),
                None => p.add(Operator::Project(exprs.clone()), stats),
            }
            p
        }
        PhysicalPlan::HashJoin {
            left,
            right,
            kind,
            left_keys,
            right_keys,
            filter,
            build_left,
            ..
        } => {
            // A SEMI or ANTI join built on its preserved (left) input marks build rows
            // as the right input streams by; they all come out once it has ended.
            let (build_side, probe_side, build_keys, probe_keys) = match build_left {
                true => (left, right, left_keys, right_keys),
                false => (right, left, right_keys, left_keys),
            };
            let spec = Arc::new(JoinSpec {
                kind: *kind,
                marking: *build_left,
                build_types: build_side.types(),
                build_keys: build_keys.clone(),
                probe_types: probe_side.types(),
                probe_keys: probe_keys.clone(),
                filter: filter.clone(),
            });
            let make = || -> Result<HashJoin> {
                let p = build(build_side, ctx)?;
                let sink = BuildSink::new(ctx);
                pipeline::run_counted(&p, &sink, stats.as_deref(), ctx)?;
                let input = timed(&stats, || sink.finish());
                timed(&stats, || HashJoin::new(spec.clone(), input, ctx))
            };
            // In a recursive CTE's step, a build input that is the same in every
            // round is built once (in memory, without rows kept for the end).
            let join = if ctx.in_recursion() && !build_left && build_side.round_invariant() {
                let key = &**build_side as *const PhysicalPlan as usize;
                ctx.kept_build(key, make, |j| j.late_rows().is_none())?
            } else {
                make()?
            };
            let mut p = build(probe_side, ctx)?;
            // Probe rows without a match are dropped: the build keys' range bounds
            // what the probe side's scan needs to read.
            if let HashJoin::InMemory(probe) = &join {
                if !build_left && matches!(kind, JoinKind::Inner | JoinKind::Semi | JoinKind::Right)
                {
                    crate::join_filters::add(&mut p, left_keys, &probe.build, right_keys, ctx)?;
                }
            }
            p.add(join.operator(), stats.clone());
            match (join.late_rows(), &join) {
                // Held in memory: as fast as before memory was bounded.
                (Some(late), HashJoin::InMemory(_)) if !build_left => {
                    finish_join(p, late, &stats, ctx)?
                }
                (Some(late), _) => {
                    p.then(late, stats);
                    p
                }
                (None, _) => p,
            }
        }
        PhysicalPlan::NestedLoopJoin {
            left,
            right,
            kind,
            filter,
            ..
        } => {
            let build_chunks = collect(right, ctx)?;
            let probe = Arc::new(timed(&stats, || {
                NestedLoopProbe::new(
                    *kind,
                    build_chunks,
                    right.types(),
                    left.types(),
                    filter.clone(),
                    ctx,
                )
            })?);
            let mut p = build(left, ctx)?;
            p.add(Operator::NestedLoop(probe.clone()), stats.clone());
            if !matches!(kind, JoinKind::Right | JoinKind::Full) {
                return Ok(p);
            }
            finish_join(p, probe, &stats, ctx)?
        }
        PhysicalPlan::HashAggregate {
            input,
            groups,
            aggregates,
            ..
        } => {
            let p = build(input, ctx)?;
            let sink = HashAggregate::new(groups, aggregates, ctx);
            pipeline::run_counted(&p, &sink, stats.as_deref(), ctx)?;
            counted(timed(&stats, || sink.finish())?)
        }
        PhysicalPlan::Sort { input, keys } => {
            let p = build(input, ctx)?;
            let sink = SortSink::new(keys, ctx);
            pipeline::run_counted(&p, &sink, stats.as_deref(), ctx)?;
            counted(timed(&stats, || sink.finish(&input.types()))?)
        }
        PhysicalPlan::TopN {
            input,
            keys,
            limit,
            offset,
        } => {
            let p = build(input, ctx)?;
            let sink = TopNSink::new(keys, *limit, *offset, ctx);
            pipeline::run_counted(&p, &sink, stats.as_deref(), ctx)?;
            counted(Source::Chunks(Arc::new(timed(&stats, || {
                sink.finish(&input.types(), *offset)
            })?)))
        }
        PhysicalPlan::Limit {
            input,
            limit,
            offset,
        } => {
            let p = build(input, ctx)?;
            let sink = LimitSink::new(*limit, *offset);
            pipeline::run_counted(&p, &sink, stats.as_deref(), ctx)?;
            counted(Source::Chunks(Arc::new(sink.finish(*limit, *offset)?)))
        }
        PhysicalPlan::RecursiveCte {
            id,
            base,
            step,
            all,
        } => {
            let rows = crate::operators::recursive_cte::run(*id, base, step, *all, ctx, &collect)?;
            counted(Source::Chunks(Arc::new(rows)))
        }
        PhysicalPlan::RecursiveScan { id, .. } => counted(Source::Chunks(ctx.round(*id)?)),
        PhysicalPlan::Window {
            input, functions, ..
        } => {
            let p = build(input, ctx)?;
            let sink = WindowSink::new(functions, p.source.morsels(), ctx);
            pipeline::run_counted(&p, &sink, stats.as_deref(), ctx)?;
            counted(timed(&stats, || sink.finish())?)
        }
        PhysicalPlan::SetOp {
            left,
            right,
            kind,
            all,
        } => {
            // The inputs' rows are the set operation's state.
            let l = run_collect(
                &build(left, ctx)?,
                MemoryTag::SetOperation,
                stats.as_deref(),
                ctx,
            )?;
            let r = run_collect(
                &build(right, ctx)?,
                MemoryTag::SetOperation,
                stats.as_deref(),
                ctx,
            )?;
            let rows = timed(&stats, || set_op::run(*kind, *all, l, r, &left.types()))?;
            counted(Source::Chunks(Arc::new(rows)))
        }
    })
}

/// Runs `f`, counting its time in `stats` when the query is profiled.
fn timed<T>(stats: &Option<Arc<NodeStats>>, f: impl FnOnce() -> T) -> T {
    match stats {
        Some(s) => s.time(f),
        None => f(),
    }
}

/// The pipeline after a RIGHT or FULL join held in memory: its probe pipeline runs to
/// the end, then the build rows no probe row matched join its output, which the
/// pipeline above reads from memory. (Streaming the output into the operators above
/// instead, as a spilled join does, is slower: they then share the cache with the
/// join's table: TPC-H Q13 took about 40% longer at SF 1.)
fn finish_join(
    p: Pipeline,
    late: Arc<dyn LateRows>,
    stats: &Option<Arc<NodeStats>>,
    ctx: &QueryContext,
) -> Result<Pipeline> {
    let mut chunks = run_collect(&p, MemoryTag::HashJoin, stats.as_deref(), ctx)?;
    let mut unmatched = Vec::new();
    timed(stats, || {
        (0..late.morsels()).try_for_each(|m| {
            late.produce(m, ctx, &mut |c| {
                unmatched.push(c);
                Ok(())
            })
        })
    })?;
    if let Some(s) = stats {
        s.add_rows(unmatched.iter().map(|c| c.len()).sum());
    }
    chunks.extend(unmatched);
    Ok(Pipeline::new(Source::Chunks(Arc::new(chunks))))
}

/// Runs `p`, keeping its output, counted in the accountant under `tag`; `stats`, the
/// node whose state those rows are, when profiled.
fn run_collect(
    p: &Pipeline,
    tag: MemoryTag,
    stats: Option<&NodeStats>,
    ctx: &QueryContext,
) -> Result<Vec<DataChunk>> {
    let sink = CollectSink::new(ctx, tag);
    pipeline::run_counted(p, &sink, stats, ctx)?;
    Ok(sink.finish())
}

/// A query run with every node counted: its rows, and what each node did.
pub struct Profiled {
    pub chunks: Vec<DataChunk>,
    pub profile: Arc<Profile>,
    pub totals: crate::explain::Totals,
}

impl Profiled {
    /// The plan with its counters: as text, or as JSON when `json`.
    pub fn render(&self, plan: &PhysicalPlan, json: bool) -> String {
        if json {
            crate::explain::json(plan, Some(&self.profile), Some(&self.totals))
        } else {
            crate::explain::text(plan, Some(&self.profile), Some(&self.totals))
        }
    }
}

/// Runs `plan` to the end with every node counted (EXPLAIN ANALYZE, and every query
/// under `SET enable_profiling`).
pub fn run_profiled(plan: &PhysicalPlan, ctx: &QueryContext) -> Result<Profiled> {
    let profile = Arc::new(Profile::default());
    let mut counted = ctx.child();
    counted.profile = Some(profile.clone());
    counted.progress = ctx.progress.clone();
    let start = std::time::Instant::now();
    let (user, system) = stride_common::process::cpu_times();
    let chunks = collect(plan, &counted)?;
    let (user_after, system_after) = stride_common::process::cpu_times();
    let totals = crate::explain::Totals {
        wall: start.elapsed(),
        cpu: std::time::Duration::from_secs_f64(
            (user_after + system_after - user - system).max(0.0),
        ),
        rows: chunks.iter().map(|c| c.len() as u64).sum(),
        threads: ctx.threads(),
    };
    Ok(Profiled {
        chunks,
        profile,
        totals,
    })
}

/// EXPLAIN ANALYZE: runs `plan` with every node counted and renders the plan with its
/// counters, as text or as JSON when `json`.
pub fn analyze(plan: &PhysicalPlan, ctx: &QueryContext, json: bool) -> Result<String> {
    Ok(run_profiled(plan, ctx)?.render(plan, json))
}

/// Runs a physical plan to completion and returns its output chunks (flat).
pub fn collect(plan: &PhysicalPlan, ctx: &QueryContext) -> Result<Vec<DataChunk>> {
    let p = build(plan, ctx)?;
    run_collect(&p, MemoryTag::Materialized, None, ctx)
}

/// Optimizes, plans and runs a logical plan (used for subqueries).
pub fn execute_plan_collect(plan: &LogicalPlan, ctx: &QueryContext) -> Result<Vec<DataChunk>> {
    let optimized = stride_sql::optimizer::optimize(
        plan.clone(),
        &ctx.settings,
        &crate::statistics::TableStatistics(&ctx.catalog),
    )?;
    let physical = crate::planner::plan(&optimized, &ctx.catalog)?;
    collect(&physical, ctx)
}

pub fn execute_collect(plan: &PhysicalPlan, ctx: &QueryContext) -> Result<Vec<DataChunk>> {
    collect(plan, ctx)
}

/// Runs a plan to completion into table-ready parts: one set of columns per morsel,
/// in input order (for CREATE TABLE AS and INSERT).
pub fn execute_materialize(plan: &PhysicalPlan, ctx: &QueryContext) -> Result<Vec<Part>> {
    let keep = |part: Part| {
        let bytes = part_bytes(&part.0, part.1);
        Ok((part, bytes))
    };
    execute_materialize_into(plan, ctx, &keep)
}

/// [`execute_materialize`], each morsel's part made into a `T` by `make` on the worker
/// that built it (a bulk load into a file encodes it there); in input order.
pub fn execute_materialize_into<T: Send>(
    plan: &PhysicalPlan,
    ctx: &QueryContext,
    make: &MakePart<'_, T>,
) -> Result<Vec<T>> {
    let p = build(plan, ctx)?;
    let sink = MaterializeSink::new(plan.types(), p.source.rows_per_morsel(), make, ctx);
    pipeline::run(&p, &sink, ctx)?;
    Ok(sink.finish())
}

/// Runs a plan to completion, handing its result to `write` in order while it runs,
/// so that a result larger than memory is never held whole (`COPY … TO`). Each chunk
/// is first made into a `T` by `prepare` on the worker that produced it (formatting
/// runs on every core); `write` takes a morsel's values once every morsel before it
/// has been written.
pub fn execute_ordered<T: Send>(
    plan: &PhysicalPlan,
    ctx: &QueryContext,
    prepare: impl Fn(&DataChunk) -> T + Sync,
    write: impl FnMut(T) -> Result<()> + Send,
) -> Result<()> {
    let p = build(plan, ctx)?;
    let sink = OrderedSink {
        prepare,
        state: std::sync::Mutex::new(InOrder {
            next: 0,
            pending: BTreeMap::new(),
            write,
        }),
    };
    pipeline::run(&p, &sink, ctx)?;
    let mut state = sink
        .state
        .into_inner()
        .map_err(|_| Error::internal("result lock poisoned"))?;
    // Morsels are numbered densely; whatever is left goes in order.
    for values in std::mem::take(&mut state.pending).into_values() {
        values.into_iter().try_for_each(&mut state.write)?;
    }
    Ok(())
}

/// The sink of [`execute_ordered`].
struct OrderedSink<P, W, T> {
    prepare: P,
    state: std::sync::Mutex<InOrder<W, T>>,
}

/// Finished morsels not yet written, and the next one to write.
struct InOrder<W, T> {
    next: usize,
    pending: BTreeMap<usize, Vec<T>>,
    write: W,
}

impl<T, P, W> Sink for OrderedSink<P, W, T>
where
    T: Send,
    P: Fn(&DataChunk) -> T + Sync,
    W: FnMut(T) -> Result<()> + Send,
{
    type Local = Vec<T>;

    fn local(&self) -> Self::Local {
        Vec::new()
    }

    fn consume(&self, local: &mut Self::Local, _morsel: usize, chunk: DataChunk) -> Result<()> {
        if !chunk.is_empty() {
            local.push((self.prepare)(&chunk));
        }
        Ok(())
    }

    fn morsel_done(&self, local: &mut Self::Local, morsel: usize) -> Result<()> {
        let values = std::mem::take(local);
        let mut guard = self
            .state
            .lock()
            .map_err(|_| Error::internal("result lock poisoned"))?;
        let state = &mut *guard;
        state.pending.insert(morsel, values);
        while let Some(values) = state.pending.remove(&state.next) {
            state.next += 1;
            values.into_iter().try_for_each(&mut state.write)?;
        }
        Ok(())
    }

    fn combine(&self, _local: Self::Local) -> Result<()> {
        Ok(())
    }
}

enum Message {
    Morsel(usize, Vec<DataChunk>),
    Done,
    Failed(Error),
}

/// The result sink of a streamed query: each finished morsel goes to the channel.
struct ChannelSink {
    tx: SyncSender<Message>,
}

impl Sink for ChannelSink {
    type Local = (usize, Vec<DataChunk>);

    fn local(&self) -> Self::Local {
        (usize::MAX, Vec::new())
    }

    fn consume(&self, local: &mut Self::Local, morsel: usize, chunk: DataChunk) -> Result<()> {
        local.0 = morsel;
        local.1.push(chunk.flatten());
        Ok(())
    }

    fn morsel_done(&self, local: &mut Self::Local, morsel: usize) -> Result<()> {
        let chunks = std::mem::take(&mut local.1);
        self.tx
            .send(Message::Morsel(morsel, chunks))
            .map_err(|_| Error::interrupted())
    }

    fn combine(&self, _local: Self::Local) -> Result<()> {
        Ok(())
    }
}

/// Result chunks of a running query, in order.
pub struct ResultStream {
    pub types: Vec<DataType>,
    rx: Receiver<Message>,
    pending: BTreeMap<usize, Vec<DataChunk>>,
    next_morsel: usize,
    ready: std::collections::VecDeque<DataChunk>,
    ctx: Arc<QueryContext>,
    finished: bool,
}

impl ResultStream {
    pub fn cancel(&self) {
        self.ctx.cancel();
    }

    /// The next chunk (`None` at the end) if it can be had without waiting for the
    /// query; `Err(WouldBlock)` if it cannot.
    pub fn try_next(&mut self) -> std::result::Result<Option<Result<DataChunk>>, WouldBlock> {
        self.poll(false)
    }

    fn poll(&mut self, wait: bool) -> std::result::Result<Option<Result<DataChunk>>, WouldBlock> {
        loop {
            if let Some(c) = self.ready.pop_front() {
                return Ok(Some(Ok(c)));
            }
            if let Some(chunks) = self.pending.remove(&self.next_morsel) {
                self.next_morsel += 1;
                self.ready
                    .extend(chunks.into_iter().filter(|c| !c.is_empty()));
                continue;
            }
            if self.finished {
                return Ok(None);
            }
            let message = if wait {
                self.rx.recv().map_err(|_| ())
            } else {
                match self.rx.try_recv() {
                    Ok(m) => Ok(m),
                    Err(std::sync::mpsc::TryRecvError::Empty) => return Err(WouldBlock),
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => Err(()),
                }
            };
            match message {
                Ok(Message::Morsel(m, chunks)) => {
                    self.pending.insert(m, chunks);
                }
                Ok(Message::Done) => {
                    self.finished = true;
                    // Morsels are numbered densely; emit whatever is left in order.
                    let rest = std::mem::take(&mut self.pending);
                    self.ready
                        .extend(rest.into_values().flatten().filter(|c| !c.is_empty()));
                }
                Ok(Message::Failed(e)) => {
                    self.finished = true;
                    self.pending.clear();
                    return Ok(Some(Err(e)));
                }
                Err(()) => {
                    self.finished = true;
                    return Ok(Some(Err(Error::internal(
                        "query driver stopped unexpectedly",
                    ))));
                }
            }
        }
    }
}

/// A result's next chunk is not there yet: reading it would wait for the query.
#[derive(Debug)]
pub struct WouldBlock;

impl Iterator for ResultStream {
    type Item = Result<DataChunk>;

    fn next(&mut self) -> Option<Self::Item> {
        self.poll(true).unwrap_or(None)
    }
}

impl Drop for ResultStream {
    fn drop(&mut self) {
        if !self.finished {
            self.ctx.cancel();
        }
    }
}

/// Starts `plan` on a driver thread and returns its result stream.
pub fn execute_stream(plan: PhysicalPlan, ctx: Arc<QueryContext>) -> Result<ResultStream> {
    let types = plan.types();
    let bound = (ctx.threads() * 2).max(2);
    let (tx, rx) = sync_channel(bound);
    let driver_ctx = ctx.clone();
    stride_common::workers::spawn(move || {
        let ctx = driver_ctx;
        let result = build(&plan, &ctx)
            .and_then(|p| pipeline::run(&p, &ChannelSink { tx: tx.clone() }, &ctx));
        // What the query holds (its plan, and through it the tables and database files
        // it read) goes before the end is announced: a caller that then closes the
        // database closes its file, and its lock, at once.
        drop(plan);
        drop(ctx);
        let _ = tx.send(match result {
            Ok(()) => Message::Done,
            Err(e) => Message::Failed(e),
        });
    })?;
    Ok(ResultStream {
        types,
        rx,
        pending: BTreeMap::new(),
        next_morsel: 0,
        ready: Default::default(),
        ctx,
        finished: false,
    })
}
