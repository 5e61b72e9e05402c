//! Window functions (`LogicalPlan::Window`): a pipeline breaker. Its input is
//! collected whole (`window_sink.rs`; past `memory_limit`, it is split by PARTITION BY
//! on disk and each part comes here alone); for each distinct (PARTITION BY, ORDER BY)
//! the rows are sorted once, in buckets of whole partitions (`window_sort.rs`), which
//! gives the partitions and the peer groups (rows equal in ORDER BY); each bucket's
//! functions are computed on a worker thread along its sorted rows, and the values go
//! back in input order (where sorted order is input order, they are there already),
//! one column appended per function. A RANGE frame with an offset finds its edges
//! by binary search on the ORDER BY key, in exact integers of the key's units
//! (`RangeKeys`; an offset finer than them rounds toward the frame's inside) or in
//! floats for REAL and DOUBLE keys or offsets.
//!
//! Ranking and offset functions take one pass. Aggregates over frames that start at
//! the partition's start (running frames, whole partitions) take a segmented scan of
//! the aggregate's own states (`GroupedState`), about four merges per row. Other
//! frames use a segment tree of those states: level 0 holds one row each, every
//! level above merges pairs, and each row's frame is the merge of at most two nodes
//! per level, taken left to right (so every aggregate sees the frame in order:
//! string_agg's order, any_value's first value, the first of tied rows for arg_min
//! or mode). That costs O(n log n) for any frame. sum, avg, count and
//! count(*) over integers and decimals take neither: any frame is a
//! difference of running totals (`window_sums.rs`). Both build their
//! states and the frames' results in blocks of positions; when a window has fewer
//! buckets than threads (one partition), the blocks of a bucket go to the threads
//! too. FILTER
//! leaves the states of the rows it drops empty; DISTINCT keeps only the first row
//! of each value from the frame's start where overlapping frames share their start
//! (whole partitions, running frames), and otherwise gathers each frame's distinct
//! rows one frame at a time.

use super::window_sort::{sort_buckets, Sorted};
use super::window_sums::Totals;
use crate::context::QueryContext;
use crate::expression::eval;
use crate::parallel::map_tasks;
use std::cmp::Ordering;
use stride_common::{DataChunk, DataType, Error, Result, ScalarValue, Vector};
use stride_functions::aggregate::{new_state, BoundAggregate};
use stride_sql::plan::{Expr, FrameBound, FrameExclude, FrameUnits, WindowExpr, WindowFunction};

/// Appends one column per function to `chunks` (the window's whole input, flat).
pub fn compute(
    chunks: Vec<DataChunk>,
    functions: &[WindowExpr],
    ctx: &QueryContext,
) -> Result<Vec<DataChunk>> {
    let n: usize = chunks.iter().map(|c| c.len()).sum();
    if n >= u32::MAX as usize {
        return Err(Error::not_supported(
            "window functions over more than 4 billion rows",
        ));
    }
    let mut columns: Vec<Option<Vector>> = vec![None; functions.len()];
    for (i, f) in functions.iter().enumerate() {
        if columns[i].is_some() {
            continue;
        }
        ctx.check()?;
        // Every function with the same window shares the sort.
        let group: Vec<usize> = (i..functions.len())
            .filter(|&j| {
                functions[j].partition_by == f.partition_by && functions[j].order_by == f.order_by
            })
            .collect();
        let inputs = group
            .iter()
            .map(|&j| Inputs::new(&functions[j], &chunks, n, ctx))
            .collect::<Result<Vec<_>>>()?;
        let buckets = sort_buckets(&chunks, &f.partition_by, &f.order_by, ctx)?;
        // Fewer buckets than threads (one partition, or a few): each bucket's frames
        // are also split over the threads.
        let within = buckets.len() < ctx.threads();
        // values[bucket][function of the group], each bucket on a thread of its own.
        let values = map_tasks(ctx, buckets.len(), |b| {
            group
                .iter()
                .zip(&inputs)
                .map(|(&j, input)| evaluate(&functions[j], &buckets[b], input, within, ctx))
                .collect::<Result<Vec<_>>>()
        })?;
        drop(inputs);
        // Sorted order is input order (ORDER BY the column the rows came sorted by):
        // the values are already where they go.
        let in_order = buckets.len() == 1
            && buckets[0]
                .order
                .iter()
                .enumerate()
                .all(|(i, &row)| row as usize == i);
        // Otherwise each sorted position's input row, inverted: values go back in
        // input order.
        let mut inverse = Vec::new();
        if !in_order {
            inverse = vec![0u32; n];
            let mut p = 0u32;
            for b in &buckets {
                for &row in &b.order {
                    inverse[row as usize] = p;
                    p += 1;
                }
            }
        }
        let lens: Vec<usize> = buckets.iter().map(Sorted::len).collect();
        drop(buckets);
        for (g, &j) in group.iter().enumerate() {
            if in_order {
                columns[j] = Some(values[0][g].clone().flatten(n));
                continue;
            }
            let mut all = Vector::with_capacity(&functions[j].ty, n);
            for (v, b) in values.iter().zip(&lens) {
                all.append(&v[g], *b);
            }
            columns[j] = Some(all.take(&inverse));
        }
    }
    let columns: Vec<Vector> = columns
        .into_iter()
        .map(|c| c.expect("every function computed"))
        .collect();
    let mut out = Vec::with_capacity(chunks.len());
    let mut at = 0;
    for chunk in chunks {
        let len = chunk.len();
        let (mut cols, _) = chunk.into_flat_columns();
        cols.extend(columns.iter().map(|c| c.slice(at, len)));
        at += len;
        out.push(DataChunk::new(cols, len));
    }
    Ok(out)
}

/// What a function reads, over every input row in input order: its arguments, the
/// ORDER BY key of a RANGE frame with an offset, and which rows its FILTER keeps.
struct Inputs {
    args: Vec<Vector>,
    range_key: Option<Vector>,
    filter: Option<Vec<bool>>,
}

impl Inputs {
    fn new(w: &WindowExpr, chunks: &[DataChunk], n: usize, ctx: &QueryContext) -> Result<Inputs> {
        let offset =
            |b: &FrameBound| matches!(b, FrameBound::Preceding(_) | FrameBound::Following(_));
        let ranged = w.frame.units == FrameUnits::Range
            && (offset(&w.frame.start) || offset(&w.frame.end))
            && matches!(
                w.func,
                WindowFunction::Aggregate(_)
                    | WindowFunction::FirstValue
                    | WindowFunction::LastValue
                    | WindowFunction::NthValue
            );
        Ok(Inputs {
            args: w
                .args
                .iter()
                .map(|a| column(a, chunks, n, ctx))
                .collect::<Result<_>>()?,
            range_key: match ranged {
                true => Some(column(&w.order_by[0].expr, chunks, n, ctx)?),
                false => None,
            },
            filter: match &w.filter {
                Some(f) => Some(filter_rows(f, chunks, n, ctx)?),
                None => None,
            },
        })
    }
}

/// `e` evaluated over every input row, as one vector in input order.
fn column(
    e: &stride_sql::plan::Expr,
    chunks: &[DataChunk],
    n: usize,
    ctx: &QueryContext,
) -> Result<Vector> {
    let mut out = Vector::with_capacity(&e.data_type(), n);
    for c in chunks {
        let v = eval(e, c, ctx)?.flatten(c.len());
        out.append(&v, c.len());
    }
    Ok(out)
}

/// The function's values at each sorted position; aggregates split their work over
/// the threads when `parallel`.
fn evaluate(
    w: &WindowExpr,
    s: &Sorted,
    input: &Inputs,
    parallel: bool,
    ctx: &QueryContext,
) -> Result<Vector> {
    use WindowFunction as F;
    let n = s.len();
    // The arguments, in sorted order.
    let args: Vec<Vector> = input.args.iter().map(|a| a.take(&s.order)).collect();
    let ints =
        |f: &dyn Fn(usize) -> i64| Vector::from_values(DataType::BigInt, (0..n).map(f).collect());
    let size = |p: usize| (s.partition[p].1 - s.partition[p].0) as usize;
    Ok(match w.func {
        F::RowNumber => ints(&|p| (p - s.partition[p].0 as usize + 1) as i64),
        F::Rank => ints(&|p| (s.peers[p].0 - s.partition[p].0 + 1) as i64),
        F::DenseRank => {
            let mut out = Vec::with_capacity(n);
            let mut rank = 0i64;
            for p in 0..n {
                if p == s.partition[p].0 as usize {
                    rank = 0;
                }
                if p == s.peers[p].0 as usize {
                    rank += 1;
                }
                out.push(rank);
            }
            Vector::from_values(DataType::BigInt, out)
        }
        F::PercentRank => Vector::from_values(
            DataType::Double,
            (0..n)
                .map(|p| match size(p) {
                    1 => 0.0,
                    m => (s.peers[p].0 - s.partition[p].0) as f64 / (m - 1) as f64,
                })
                .collect(),
        ),
        F::CumeDist => Vector::from_values(
            DataType::Double,
            (0..n)
                .map(|p| (s.peers[p].1 - s.partition[p].0) as f64 / size(p) as f64)
                .collect(),
        ),
        F::Ntile => {
            let mut out = Vector::with_capacity(&DataType::BigInt, n);
            for p in 0..n {
                // The number of buckets is read on each row, as in DuckDB.
                match args[0].get(p).as_i64() {
                    None => out.push(&ScalarValue::Null)?,
                    Some(b) if b <= 0 => {
                        return Err(Error::invalid_input(format!(
                            "ntile: the number of buckets must be positive, got {b}"
                        )))
                    }
                    Some(b) => {
                        let (m, i) = (size(p) as i64, p as i64 - s.partition[p].0 as i64);
                        // The first m % b buckets take one row more.
                        let (small, big) = (m / b, m % b);
                        let bucket = if i < big * (small + 1) {
                            i / (small + 1)
                        } else {
                            big + (i - big * (small + 1)) / small.max(1)
                        };
                        out.push(&ScalarValue::BigInt(bucket + 1))?;
                    }
                }
            }
            out
        }
        F::Lag | F::Lead => {
            let forward = w.func == F::Lead;
            // Where each position's value comes from: a row of the first argument, or
            // (past `n`) of the default; NULL at the positions in `nulls`.
            let mut from = Vec::with_capacity(n);
            let mut nulls = Vec::new();
            let constant = w.args[1].literal_value().map(|k| k.as_i64());
            for p in 0..n {
                let k = match &constant {
                    Some(k) => *k,
                    None => args[1].get(p).as_i64(),
                };
                let Some(k) = k else {
                    from.push(0);
                    nulls.push(p);
                    continue;
                };
                let (ps, pe) = (s.partition[p].0 as i64, s.partition[p].1 as i64);
                let step: i64 = if forward == (k >= 0) { 1 } else { -1 };
                let target = if !w.ignore_nulls {
                    let q = (p as i64).saturating_add(step.saturating_mul(k.saturating_abs()));
                    (ps..pe).contains(&q).then_some(q)
                } else {
                    let mut left = k.unsigned_abs();
                    let mut q = p as i64;
                    loop {
                        if left == 0 {
                            break Some(q);
                        }
                        q += step;
                        if q < ps || q >= pe {
                            break None;
                        }
                        if args[0].is_valid(q as usize) {
                            left -= 1;
                        }
                    }
                };
                match target {
                    Some(q) => from.push(q as u32),
                    None if args.len() > 2 => from.push((n + p) as u32),
                    None => {
                        from.push(0);
                        nulls.push(p);
                    }
                }
            }
            let mut values = args[0].clone().flatten(n);
            if args.len() > 2 {
                values.append(&args[2], n);
            }
            let mut out = values.take(&from);
            for p in nulls {
                out.validity.set_invalid(p, n);
            }
            out
        }
        F::FirstValue | F::LastValue | F::NthValue => {
            let mut out = Vector::with_capacity(&w.ty, n);
            let key = args_key(w, input, s);
            for p in 0..n {
                let parts = pieces(w, s, frame(w, s, &key, p)?, p);
                let rows = || parts.iter().flat_map(|&(a, b)| a as usize..b as usize);
                let valid = |q: usize| !w.ignore_nulls || args[0].is_valid(q);
                let pick = match w.func {
                    F::FirstValue => rows().find(|&q| valid(q)),
                    F::LastValue => rows().filter(|&q| valid(q)).last(),
                    _ => match args[1].get(p).as_i64() {
                        Some(k) if k >= 1 => rows().filter(|&q| valid(q)).nth(k as usize - 1),
                        Some(k) => {
                            return Err(Error::invalid_input(format!(
                                "nth_value: the position must be at least 1, got {k}"
                            )))
                        }
                        None => None,
                    },
                };
                match pick {
                    Some(q) => out.append(&args[0].slice(q, 1), 1),
                    None => out.push(&ScalarValue::Null)?,
                }
            }
            out
        }
        F::Aggregate(func) => {
            let key = args_key(w, input, s);
            let agg = BoundAggregate {
                func,
                arg_types: w.args.iter().map(|a| a.data_type()).collect(),
                return_type: w.ty.clone(),
                constants: w.args.iter().map(Expr::literal_value).collect(),
            };
            let mut keep: Option<Vec<bool>> = input
                .filter
                .as_ref()
                .map(|f| s.order.iter().map(|&row| f[row as usize]).collect());
            // Sums, counts and averages of exact numbers: differences of running totals.
            if !w.distinct {
                if let Some(totals) = Totals::new(&agg, &args, n, keep.as_deref()) {
                    let frame = |p| Ok(pieces(w, s, frame(w, s, &key, p)?, p));
                    return totals.over(n, frame, parallel, ctx);
                }
            }
            // Frames from the partition's start: each is a prefix of it.
            let running = matches!(w.frame.start, FrameBound::UnboundedPreceding)
                && w.frame.exclude == FrameExclude::NoOthers;
            if running && !w.distinct {
                let mut ends = Vec::with_capacity(n);
                for p in 0..n {
                    ends.push(frame(w, s, &key, p)?.1 as u32);
                }
                return prefixes(&agg, &args, s, &ends, keep.as_deref(), parallel, ctx);
            }
            let mut frames = Vec::with_capacity(n);
            for p in 0..n {
                frames.push(pieces(w, s, frame(w, s, &key, p)?, p));
            }
            if w.distinct {
                let keys = distinct_keys(&args, n);
                let whole: Option<Vec<(usize, usize)>> = frames
                    .iter()
                    .map(|f| {
                        (f[1].0 == f[1].1 && f[2].0 == f[2].1)
                            .then_some((f[0].0 as usize, f[0].1 as usize))
                    })
                    .collect();
                let first = whole.and_then(|w| first_occurrences(&keys, &w, keep.as_deref()));
                match first {
                    Some(first) if running => {
                        let ends: Vec<u32> = frames.iter().map(|f| f[0].1 as u32).collect();
                        return prefixes(&agg, &args, s, &ends, Some(&first), parallel, ctx);
                    }
                    Some(first) => keep = Some(first),
                    None => {
                        return distinct_per_frame(
                            &agg,
                            &args,
                            &frames,
                            &keys,
                            keep.as_deref(),
                            ctx,
                        )
                    }
                }
            }
            segment_tree(&agg, &args, &frames, keep.as_deref(), parallel, ctx)?
        }
    })
}

/// The single ORDER BY key of a RANGE frame with an offset, in sorted order (NULL as
/// `None`): exact integers in the key's units where it has them (integers, DECIMAL
/// unscaled, DATE in days, TIMESTAMP in microseconds), so that a frame's edge falls
/// exactly where the values say (in floating point `31.389 + 1.5` missed `32.889`);
/// floats for REAL and DOUBLE keys, and for any key with a REAL or DOUBLE offset
/// (which compare as DOUBLE, as DuckDB does).
enum RangeKeys {
    Exact(Vec<Option<i128>>),
    Float(Vec<Option<f64>>),
}

/// The RANGE frame key of `w`'s `input`, in sorted order; `None` when not needed.
fn args_key(w: &WindowExpr, input: &Inputs, s: &Sorted) -> Option<RangeKeys> {
    let v = input.range_key.as_ref()?.take(&s.order);
    let float = |b: &FrameBound| {
        matches!(
            b,
            FrameBound::Preceding(ScalarValue::Real(_) | ScalarValue::Double(_))
                | FrameBound::Following(ScalarValue::Real(_) | ScalarValue::Double(_))
        )
    };
    let exact = |x: ScalarValue| -> Option<i128> {
        Some(match x {
            ScalarValue::Decimal(u, _, _) => u,
            ScalarValue::Date(d) => d as i128,
            ScalarValue::Timestamp(t) | ScalarValue::TimestampTz(t) => t as i128,
            ScalarValue::HugeInt(u) => u,
            ScalarValue::UHugeInt(u) => i128::try_from(u).unwrap_or(i128::MAX),
            ScalarValue::UBigInt(u) => u as i128,
            other if other.is_integer() => other.as_i64()? as i128,
            _ => return None,
        })
    };
    Some(match v.ty {
        _ if v.ty.is_float() || float(&w.frame.start) || float(&w.frame.end) => {
            RangeKeys::Float((0..s.len()).map(|p| v.get(p).as_f64()).collect())
        }
        _ => RangeKeys::Exact((0..s.len()).map(|p| exact(v.get(p))).collect()),
    })
}

/// The bound's key for an INTERVAL offset that is not a fixed length: months (a
/// TIMESTAMP, TIMESTAMPTZ or DATE key), or days of a TIMESTAMPTZ key, which are 23 or
/// 25 hours across a daylight-saving change. The key `v` moved `forward` (or back) as
/// `v + INTERVAL` computes it; `None` for offsets [`exact_offset`] handles.
fn calendar_target(
    v: &ScalarValue,
    key_ty: &DataType,
    key: i128,
    forward: bool,
) -> Result<Option<i128>> {
    let ScalarValue::Interval(iv) = v else {
        return Ok(None);
    };
    let calendar = iv.months != 0 || (iv.days != 0 && *key_ty == DataType::TimestampTz);
    if !calendar {
        return Ok(None);
    }
    let iv = match forward {
        true => *iv,
        false => stride_common::Interval::new(
            iv.months.saturating_neg(),
            iv.days.saturating_neg(),
            iv.micros.saturating_neg(),
        ),
    };
    let moved = match key_ty {
        DataType::Timestamp => stride_common::temporal::timestamp_add_interval(key as i64, iv),
        DataType::TimestampTz => {
            let zone = stride_common::zone::current();
            stride_functions::timezone::add_interval(&zone, key as i64, iv)
        }
        DataType::Date if iv.micros == 0 => {
            stride_common::temporal::add_months_to_days(key as i64, iv.months as i64)
                .and_then(|d| d.checked_add(iv.days as i64))
        }
        _ => {
            return Err(Error::not_supported(format!(
                "a RANGE offset of {v} over {key_ty} keys is not supported yet; use whole days"
            )))
        }
    };
    // Past the type's range, the bound is past every key.
    Ok(Some(moved.map_or(
        if forward { i128::MAX } else { i128::MIN },
        |m| m as i128,
    )))
}

/// A RANGE offset (an integer, DECIMAL or INTERVAL; a float one makes the keys
/// floats) in the units of an exact key of type `key_ty`, rounded down and up (an
/// offset finer than the key's units: `0.25` on a DECIMAL(10,1) key).
fn exact_offset(v: &ScalarValue, key_ty: &DataType) -> Result<(i128, i128)> {
    let scale = match key_ty {
        DataType::Decimal(_, s) => *s as u32,
        _ => 0,
    };
    let too_large = || Error::invalid_input(format!("the RANGE offset {v} is too large"));
    match v {
        ScalarValue::Interval(i) => {
            if i.months != 0 {
                return Err(Error::not_supported(
                    "RANGE offsets of months or years are not supported yet; use days",
                ));
            }
            let micros = i.days as i128 * 86_400_000_000 + i.micros as i128;
            match key_ty {
                DataType::Date => Ok(divided(micros, 86_400_000_000)),
                _ => Ok((micros, micros)),
            }
        }
        ScalarValue::Decimal(u, _, s) => {
            let s = *s as u32;
            if s <= scale {
                let m = 10i128.checked_pow(scale - s).ok_or_else(too_large)?;
                let x = u.checked_mul(m).ok_or_else(too_large)?;
                Ok((x, x))
            } else {
                let d = 10i128.checked_pow(s - scale).ok_or_else(too_large)?;
                Ok(divided(*u, d))
            }
        }
        other => {
            let u = match other {
                ScalarValue::HugeInt(u) => *u,
                _ => other
                    .as_i64()
                    .ok_or_else(|| Error::internal(format!("a RANGE offset of {other}")))?
                    as i128,
            };
            let x = u
                .checked_mul(10i128.checked_pow(scale).ok_or_else(too_large)?)
                .ok_or_else(too_large)?;
            Ok((x, x))
        }
    }
}

/// A RANGE offset for a REAL or DOUBLE key: a number (the binder refuses an
/// INTERVAL there).
fn float_offset(v: &ScalarValue) -> Result<f64> {
    v.as_f64()
        .ok_or_else(|| Error::internal(format!("a RANGE offset of {v} for a float key")))
}

/// `u / d`, rounded down and up.
fn divided(u: i128, d: i128) -> (i128, i128) {
    (u.div_euclid(d), -(-u).div_euclid(d))
}

/// The frame of sorted position `p`: positions `start..end`.
fn frame(w: &WindowExpr, s: &Sorted, key: &Option<RangeKeys>, p: usize) -> Result<(usize, usize)> {
    let (ps, pe) = (s.partition[p].0 as usize, s.partition[p].1 as usize);
    let (gs, ge) = (s.peers[p].0 as usize, s.peers[p].1 as usize);
    let rows = |k: &ScalarValue| k.as_i64().unwrap_or(0).max(0) as usize;
    let bound = |b: &FrameBound, is_start: bool| -> Result<usize> {
        Ok(match (b, w.frame.units) {
            (FrameBound::UnboundedPreceding, _) => ps,
            (FrameBound::UnboundedFollowing, _) => pe,
            (FrameBound::CurrentRow, FrameUnits::Rows) => p + !is_start as usize,
            (FrameBound::CurrentRow, _) => {
                if is_start {
                    gs
                } else {
                    ge
                }
            }
            (FrameBound::Preceding(k), FrameUnits::Rows) => {
                (p + !is_start as usize).saturating_sub(rows(k)).max(ps)
            }
            (FrameBound::Following(k), FrameUnits::Rows) => {
                (p + !is_start as usize + rows(k)).min(pe)
            }
            (FrameBound::Preceding(k) | FrameBound::Following(k), FrameUnits::Groups) => {
                let forward = matches!(b, FrameBound::Following(_));
                let mut left = rows(k);
                let (mut a, mut z) = (gs, ge);
                while left > 0 {
                    if forward {
                        if z >= pe {
                            break;
                        }
                        let next = s.peers[z];
                        (a, z) = (next.0 as usize, next.1 as usize);
                    } else {
                        if a <= ps {
                            break;
                        }
                        let prev = s.peers[a - 1];
                        (a, z) = (prev.0 as usize, prev.1 as usize);
                    }
                    left -= 1;
                }
                if left > 0 {
                    // Past the partition's edge.
                    return Ok(if forward { pe } else { ps });
                }
                if is_start {
                    a
                } else {
                    z
                }
            }
            (FrameBound::Preceding(k) | FrameBound::Following(k), FrameUnits::Range) => {
                let keys = key
                    .as_ref()
                    .ok_or_else(|| Error::internal("RANGE frame without its key"))?;
                let sort = &w.order_by[0];
                let following = matches!(b, FrameBound::Following(_));
                // Where row q's key is against the bound's key value `target`:
                // before it in sort order, or equal (`ties`: whether equal counts as
                // before). NULLs sort apart; NaN after every number.
                let place = |o: Option<Ordering>, ties: bool| match o {
                    None => sort.nulls_first,
                    Some(Ordering::Less) => sort.asc,
                    Some(Ordering::Greater) => !sort.asc,
                    Some(Ordering::Equal) => ties,
                };
                // The frame of a NULL (or NaN) key is its peers.
                let peers = Ok(if is_start { gs } else { ge });
                // start: the first row not before the target; end: past the last
                // row not after it.
                match keys {
                    RangeKeys::Exact(keys) => {
                        let Some(v) = keys[p] else { return peers };
                        let key_ty = sort.expr.data_type();
                        if let Some(target) = calendar_target(k, &key_ty, v, following == sort.asc)?
                        {
                            return Ok(first_not(ps, pe, |q| {
                                place(keys[q].map(|x| x.cmp(&target)), !is_start)
                            }));
                        }
                        let (down, up) = exact_offset(k, &key_ty)?;
                        // In sort direction: a start bound takes the keys at or past
                        // the offset, so it rounds toward the current row; an end
                        // bound rounds away from it.
                        let step = match (following, is_start) {
                            (true, true) => up,
                            (true, false) => down,
                            (false, true) => -down,
                            (false, false) => -up,
                        };
                        let target = if sort.asc {
                            v.saturating_add(step)
                        } else {
                            v.saturating_sub(step)
                        };
                        first_not(ps, pe, |q| {
                            place(keys[q].map(|x| x.cmp(&target)), !is_start)
                        })
                    }
                    RangeKeys::Float(keys) => {
                        let v = match keys[p] {
                            Some(v) if !v.is_nan() => v,
                            _ => return peers,
                        };
                        let off = float_offset(k)?;
                        let target = if following == sort.asc {
                            v + off
                        } else {
                            v - off
                        };
                        first_not(ps, pe, |q| {
                            let o = keys[q].map(|x| match x.partial_cmp(&target) {
                                Some(o) => o,
                                None => Ordering::Greater,
                            });
                            place(o, !is_start)
                        })
                    }
                }
            }
        })
    };
    let start = bound(&w.frame.start, true)?;
    let end = bound(&w.frame.end, false)?;
    Ok((start, end.max(start)))
}

/// A frame less the rows its EXCLUDE clause leaves out: up to three ranges of
/// positions, in order (empty ones as `(x, x)`).
pub(super) type Pieces = [(u32, u32); 3];

/// The pieces of position `p`'s frame `(fs, fe)`.
fn pieces(w: &WindowExpr, s: &Sorted, (fs, fe): (usize, usize), p: usize) -> Pieces {
    let (gs, ge) = (s.peers[p].0 as usize, s.peers[p].1 as usize);
    // `a..b` within the frame (empty when it falls outside)
    let clip = |a: usize, b: usize| {
        let (a, b) = (a.clamp(fs, fe), b.clamp(fs, fe));
        (a, b.max(a))
    };
    const NONE: (usize, usize) = (0, 0);
    let pieces = match w.frame.exclude {
        FrameExclude::NoOthers => [(fs, fe), NONE, NONE],
        FrameExclude::CurrentRow => [clip(fs, p), clip(p + 1, fe), NONE],
        FrameExclude::Group => [clip(fs, gs), clip(ge, fe), NONE],
        FrameExclude::Ties => [clip(fs, gs), clip(p, p + 1), clip(ge, fe)],
    };
    pieces.map(|(a, b)| (a as u32, b as u32))
}

/// The first position in `lo..hi` where `pred` is false, for a `pred` that holds on
/// a prefix of the range (a binary search, as `slice::partition_point`).
fn first_not(mut lo: usize, mut hi: usize, pred: impl Fn(usize) -> bool) -> usize {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Whether each input row passes a `FILTER (WHERE f)`.
fn filter_rows(
    f: &stride_sql::plan::Expr,
    chunks: &[DataChunk],
    n: usize,
    ctx: &QueryContext,
) -> Result<Vec<bool>> {
    let mut passes = Vec::with_capacity(n);
    for c in chunks {
        let start = passes.len();
        passes.resize(start + c.len(), false);
        for i in crate::expression::select(f, c, ctx)?.indices.iter() {
            passes[start + *i as usize] = true;
        }
    }
    Ok(passes)
}

/// Each sorted position's argument values, as a key that is equal for equal values.
fn distinct_keys(args: &[Vector], n: usize) -> Vec<String> {
    (0..n)
        .map(|p| format!("{:?}", args.iter().map(|a| a.get(p)).collect::<Vec<_>>()))
        .collect()
}

/// For DISTINCT where frames that overlap all start at the same row (whole
/// partitions, running frames): whether each position holds the first occurrence
/// of its value from its frame's start, among the rows `keep` keeps. The aggregate
/// over those rows of any such frame is the aggregate over its distinct values.
/// `None` where frames starting at different rows overlap (sliding frames).
fn first_occurrences(
    keys: &[String],
    frames: &[(usize, usize)],
    keep: Option<&[bool]>,
) -> Option<Vec<bool>> {
    // The farthest end of the frames starting at each row.
    let mut ends: std::collections::BTreeMap<usize, usize> = Default::default();
    for &(lo, hi) in frames.iter().filter(|f| f.0 < f.1) {
        let e = ends.entry(lo).or_insert(hi);
        *e = (*e).max(hi);
    }
    let mut first = vec![false; keys.len()];
    let mut covered = 0;
    for (&lo, &hi) in &ends {
        if lo < covered {
            return None;
        }
        let mut seen = std::collections::HashSet::new();
        for q in lo..hi {
            if keep.is_none_or(|k| k[q]) && seen.insert(&keys[q]) {
                first[q] = true;
            }
        }
        covered = hi;
    }
    Some(first)
}

/// DISTINCT aggregates over frames that overlap with different starts: each frame's
/// distinct rows gathered one frame at a time (O(frame) per row).
fn distinct_per_frame(
    agg: &BoundAggregate,
    args: &[Vector],
    frames: &[Pieces],
    keys: &[String],
    keep: Option<&[bool]>,
    ctx: &QueryContext,
) -> Result<Vector> {
    let mut state = new_state(agg);
    state.resize(frames.len());
    let (mut groups, mut rows) = (Vec::new(), Vec::new());
    let flush = |state: &mut Box<dyn stride_functions::aggregate::GroupedState>,
                 groups: &mut Vec<u32>,
                 rows: &mut Vec<u32>|
     -> Result<()> {
        let taken: Vec<Vector> = args.iter().map(|a| a.take(rows)).collect();
        let refs: Vec<&Vector> = taken.iter().collect();
        state.update(groups, &refs, groups.len())?;
        groups.clear();
        rows.clear();
        Ok(())
    };
    for (p, parts) in frames.iter().enumerate() {
        ctx.check()?;
        let mut seen = std::collections::HashSet::new();
        for q in parts.iter().flat_map(|&(lo, hi)| lo as usize..hi as usize) {
            if keep.is_none_or(|k| k[q]) && seen.insert(&keys[q]) {
                groups.push(p as u32);
                rows.push(q as u32);
            }
        }
        if groups.len() >= 1 << 16 {
            flush(&mut state, &mut groups, &mut rows)?;
        }
    }
    flush(&mut state, &mut groups, &mut rows)?;
    state.finalize()
}

/// Groups per block when the states of a level or the frames' results are built:
/// blocks go to the threads one at a time, and keep each allocation small enough for
/// the allocator to reuse rather than take fresh pages from the system.
const BLOCK: usize = 1 << 16;

type State = Box<dyn stride_functions::aggregate::GroupedState>;

/// The states of `width` groups, built block by block (on the threads when
/// `parallel`): `fill(state, lo, hi)` fills a fresh state whose group `g` stands for
/// group `lo + g`. Returns the states as partial-state vectors, or, with `finalize`,
/// as the aggregate's values (one vector).
pub(super) fn in_blocks(
    agg: &BoundAggregate,
    width: usize,
    finalize: bool,
    parallel: bool,
    ctx: &QueryContext,
    fill: impl Fn(&mut State, usize, usize) -> Result<()> + Sync,
) -> Result<Vec<Vector>> {
    let blocks = width.div_ceil(BLOCK).max(1);
    let one = |b: usize| -> Result<(Vec<Vector>, usize)> {
        ctx.check()?;
        let (lo, hi) = (b * BLOCK, ((b + 1) * BLOCK).min(width));
        let mut state = new_state(agg);
        state.resize(hi - lo);
        fill(&mut state, lo, hi)?;
        let out = match finalize {
            true => vec![state.finalize()?],
            false => state.partial()?,
        };
        Ok((out, hi - lo))
    };
    let mut parts = match parallel && blocks > 1 {
        true => map_tasks(ctx, blocks, one)?,
        false => (0..blocks).map(one).collect::<Result<Vec<_>>>()?,
    };
    if parts.len() == 1 {
        return Ok(parts.pop().expect("one block").0);
    }
    let mut out: Vec<Vector> = parts[0]
        .0
        .iter()
        .map(|v| Vector::with_capacity(&v.ty, width))
        .collect();
    for (vectors, len) in parts {
        for (o, v) in out.iter_mut().zip(&vectors) {
            o.append(v, len);
        }
    }
    Ok(out)
}

/// A merge of the partial states `from[i]` of `level` into the groups `groups[i]`
/// (in ascending order).
struct Merge<'a> {
    level: &'a [Vector],
    groups: Vec<u32>,
    from: Vec<u32>,
}

/// The partial states of `width` groups after `merges`, applied in order.
fn merged(
    agg: &BoundAggregate,
    width: usize,
    merges: &[Merge],
    parallel: bool,
    ctx: &QueryContext,
) -> Result<Vec<Vector>> {
    in_blocks(agg, width, false, parallel, ctx, |state, lo, hi| {
        merge_block(state, merges, lo, hi)
    })
}

/// The part of `merges` into groups `lo..hi`, into `state` (whose group 0 is `lo`).
fn merge_block(state: &mut State, merges: &[Merge], lo: usize, hi: usize) -> Result<()> {
    for m in merges {
        let a = m.groups.partition_point(|&g| (g as usize) < lo);
        let b = m.groups.partition_point(|&g| (g as usize) < hi);
        if a == b {
            continue;
        }
        let groups: Vec<u32> = m.groups[a..b].iter().map(|&g| g - lo as u32).collect();
        let rows: Vec<Vector> = m.level.iter().map(|v| v.take(&m.from[a..b])).collect();
        state.merge(&groups, &rows, b - a)?;
    }
    Ok(())
}

/// Each position's aggregate over its frame's pieces, through a segment tree of
/// states; with `keep`, only the rows it keeps count.
fn segment_tree(
    agg: &BoundAggregate,
    args: &[Vector],
    frames: &[Pieces],
    keep: Option<&[bool]>,
    parallel: bool,
    ctx: &QueryContext,
) -> Result<Vector> {
    let n = frames.len();
    // Level 0: one state per row (left empty for rows not kept); each level above
    // merges pairs.
    let mut levels: Vec<Vec<Vector>> = vec![leaf_states(agg, args, n, keep, parallel, ctx)?];
    let mut width = n;
    while width > 1 {
        let up = width.div_ceil(2);
        let pairs = Merge {
            level: levels.last().expect("a level"),
            groups: (0..width as u32).map(|i| i / 2).collect(),
            from: (0..width as u32).collect(),
        };
        let level = merged(agg, up, &[pairs], parallel, ctx)?;
        levels.push(level);
        width = up;
    }
    let values = in_blocks(agg, n, true, parallel, ctx, |state, lo, hi| {
        // The pieces one after another, so an order-sensitive aggregate sees the rows
        // in frame order.
        for k in 0..3 {
            let ranges: Vec<(u32, u32)> = frames[lo..hi].iter().map(|f| f[k]).collect();
            if k > 0 && ranges.iter().all(|r| r.0 >= r.1) {
                continue;
            }
            merge_ranges(&levels, state, &ranges, ctx)?;
        }
        Ok(())
    })?;
    Ok(values.into_iter().next().expect("one vector of values"))
}

/// One state per row of the `n` rows of `args` (partial states, as vectors), left
/// empty for the rows `keep` drops.
fn leaf_states(
    agg: &BoundAggregate,
    args: &[Vector],
    n: usize,
    keep: Option<&[bool]>,
    parallel: bool,
    ctx: &QueryContext,
) -> Result<Vec<Vector>> {
    in_blocks(agg, n, false, parallel, ctx, |leaves, lo, hi| {
        let ids: Vec<u32> = match keep {
            None => (0..(hi - lo) as u32).collect(),
            Some(keep) => (0..(hi - lo) as u32)
                .filter(|&p| keep[lo + p as usize])
                .collect(),
        };
        let rows: Vec<u32> = ids.iter().map(|&p| lo as u32 + p).collect();
        let taken: Vec<Vector> = args.iter().map(|a| a.take(&rows)).collect();
        let arg_refs: Vec<&Vector> = taken.iter().collect();
        leaves.update(&ids, &arg_refs, ids.len())
    })
}

/// Each position's aggregate over its frame when every frame starts at its
/// partition's start and ends at `ends[p]`: a segmented scan (Blelloch's) of the
/// rows' states, with about four merges per row whatever the frames' lengths.
///
/// Going up, each tree node holds the rows from the last partition start within it
/// to its end (all of them when none starts within it). Going down, each node gets
/// the rows from its first row's partition start up to that row (a left child its
/// parent's; a right child its parent's and its left sibling's, or only its
/// sibling's when a partition starts there). A row's frame is then what its leaf got
/// down (unless the row starts a partition) and the row itself, merged in that order,
/// so order-sensitive aggregates see the rows in order.
fn prefixes(
    agg: &BoundAggregate,
    args: &[Vector],
    s: &Sorted,
    ends: &[u32],
    keep: Option<&[bool]>,
    parallel: bool,
    ctx: &QueryContext,
) -> Result<Vector> {
    let n = s.len();
    // Up: the states of each level, and which nodes hold a partition start.
    let mut up: Vec<Vec<Vector>> = vec![leaf_states(agg, args, n, keep, parallel, ctx)?];
    let mut starts: Vec<Vec<bool>> = vec![(0..n).map(|p| s.partition[p].0 as usize == p).collect()];
    while let Some(below) = starts.last().filter(|f| f.len() > 1) {
        let width = below.len();
        let above = width.div_ceil(2);
        let level = up.last().expect("a level");
        // A left child counts unless its right sibling holds a start.
        let lefts: Vec<u32> = (0..width as u32)
            .step_by(2)
            .filter(|&a| !below.get(a as usize + 1).copied().unwrap_or(false))
            .collect();
        let rights: Vec<u32> = (1..width as u32).step_by(2).collect();
        let pairs = [
            Merge {
                level,
                groups: lefts.iter().map(|a| a / 2).collect(),
                from: lefts,
            },
            Merge {
                level,
                groups: rights.iter().map(|b| b / 2).collect(),
                from: rights,
            },
        ];
        let states = merged(agg, above, &pairs, parallel, ctx)?;
        let flags = (0..above)
            .map(|j| below[2 * j] || below.get(2 * j + 1).copied().unwrap_or(false))
            .collect();
        up.push(states);
        starts.push(flags);
    }
    // Down: from the root, which gets nothing.
    let mut down = merged(agg, 1, &[], false, ctx)?;
    for level in (0..up.len() - 1).rev() {
        let flags = &starts[level];
        let width = flags.len();
        let inherit: Vec<u32> = (0..width as u32)
            .filter(|&i| i % 2 == 0 || !flags[i as usize - 1])
            .collect();
        let rights: Vec<u32> = (1..width as u32).step_by(2).collect();
        let steps = [
            Merge {
                level: &down,
                from: inherit.iter().map(|i| i / 2).collect(),
                groups: inherit,
            },
            Merge {
                level: &up[level],
                from: rights.iter().map(|b| b - 1).collect(),
                groups: rights,
            },
        ];
        let states = merged(agg, width, &steps, parallel, ctx)?;
        down = states;
    }
    // Each row's prefix of its partition, itself included; one more empty group for
    // empty frames.
    let inner: Vec<u32> = (0..n as u32).filter(|&p| !starts[0][p as usize]).collect();
    let rows = [
        Merge {
            level: &down,
            groups: inner.clone(),
            from: inner,
        },
        Merge {
            level: &up[0],
            groups: (0..n as u32).collect(),
            from: (0..n as u32).collect(),
        },
    ];
    let values = in_blocks(agg, n + 1, true, parallel, ctx, |state, lo, hi| {
        merge_block(state, &rows, lo, hi)
    })?;
    let values = values.into_iter().next().expect("one vector of values");
    let pick: Vec<u32> = (0..n)
        .map(|p| {
            if ends[p] > s.partition[p].0 {
                ends[p] - 1
            } else {
                n as u32
            }
        })
        .collect();
    Ok(values.take(&pick))
}

/// Merges into `result[p]` the tree nodes that cover `ranges[p]`, left to right.
fn merge_ranges(
    levels: &[Vec<Vector>],
    result: &mut State,
    frames: &[(u32, u32)],
    ctx: &QueryContext,
) -> Result<()> {
    let n = frames.len();
    // Each frame is the merge of at most two nodes per level: walking up from the
    // leaves, `lo` takes a left node when odd, `hi` a right node when odd. Left nodes
    // come in left-to-right order going up, right nodes going down: the left nodes
    // are merged level by level, the right ones kept and merged from the top level
    // down, so every aggregate sees the frame in order (string_agg's order,
    // any_value's first value, arg_min's first of tied rows).
    let mut lo: Vec<u32> = frames.iter().map(|f| f.0 as u32).collect();
    let mut hi: Vec<u32> = frames.iter().map(|f| f.1 as u32).collect();
    let merge = |result: &mut State, level: usize, picks: Vec<(u32, u32)>| -> Result<()> {
        if picks.is_empty() {
            return Ok(());
        }
        let groups: Vec<u32> = picks.iter().map(|p| p.0).collect();
        let take: Vec<u32> = picks.iter().map(|p| p.1).collect();
        let rows: Vec<Vector> = levels[level].iter().map(|v| v.take(&take)).collect();
        result.merge(&groups, &rows, groups.len())
    };
    // Positions whose frames still have nodes to merge: short frames are done after a
    // few levels, long before the root.
    let mut active: Vec<u32> = (0..n as u32)
        .filter(|&p| lo[p as usize] < hi[p as usize])
        .collect();
    let mut rights = Vec::new();
    for level in 0..levels.len() {
        if active.is_empty() {
            break;
        }
        ctx.check()?;
        let (mut left, mut right) = (
            Vec::with_capacity(active.len()),
            Vec::with_capacity(active.len()),
        );
        for &p in &active {
            let p = p as usize;
            let (l, h) = (lo[p], hi[p]);
            let (mut l2, mut h2) = (l, h);
            if l % 2 == 1 {
                left.push((p as u32, l));
                l2 += 1;
            }
            if h % 2 == 1 && l2 < h {
                h2 -= 1;
                right.push((p as u32, h2));
            }
            lo[p] = l2.div_ceil(2);
            hi[p] = h2 / 2;
            if lo[p] > hi[p] {
                lo[p] = hi[p];
            }
        }
        active.retain(|&p| lo[p as usize] < hi[p as usize]);
        merge(result, level, left)?;
        rights.push(right);
    }
    for (level, right) in rights.into_iter().enumerate().rev() {
        ctx.check()?;
        merge(result, level, right)?;
    }
    Ok(())
}
