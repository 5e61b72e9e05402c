//! The rows of a window's input sorted for one (PARTITION BY, ORDER BY), which gives
//! its partitions and peer groups (rows equal in ORDER BY): step one of computing the
//! window functions (`window.rs`).
//!
//! The rows are first split into buckets that each hold whole partitions, by a hash
//! of the PARTITION BY values, so that the buckets are sorted and their functions
//! computed on all the query's threads at once. Without PARTITION BY there is one
//! partition; its rows are split by ranges of their keys instead, so the buckets,
//! sorted one per thread, are the whole input's order one after another.
//!
//! Keys of fixed-width columns whose ranges fit 64 bits together (`compact_key.rs`)
//! are sorted as integers by a radix sort; other keys as normalized keys
//! (`sort_key.rs`). Rows with equal keys keep their input order, so ties resolve the
//! same way on every run.

use crate::compact_key::CompactKeys;
use crate::context::QueryContext;
use crate::expression::eval;
use crate::hash_table::hash_key;
use crate::operators::sort::{chunk_keys, ChunkKeys};
use crate::parallel::map_tasks;
use std::cmp::Ordering;
use stride_common::{DataChunk, Result, Vector};
use stride_sql::plan::{Expr, SortExpr};

/// Rows in the input below which one bucket takes them all.
const PARALLEL_ROWS: usize = 1 << 15;

/// One bucket's rows in sorted order.
pub struct Sorted {
    /// The input row (counted over the whole input, in input order) at each position.
    pub order: Vec<u32>,
    /// Per position: the start and end of its partition and of its peer group
    /// (positions within the bucket).
    pub partition: Vec<(u32, u32)>,
    pub peers: Vec<(u32, u32)>,
}

impl Sorted {
    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Bounds from a sorted sequence: `same_partition(a, b)` and `same_peers(a, b)`
    /// compare neighbouring positions.
    fn bounds(
        order: Vec<u32>,
        same_partition: impl Fn(usize, usize) -> bool,
        same_peers: impl Fn(usize, usize) -> bool,
    ) -> Sorted {
        let n = order.len();
        let mut partition = vec![(0u32, 0u32); n];
        let mut peers = vec![(0u32, 0u32); n];
        let mut start = 0;
        while start < n {
            let mut end = start + 1;
            while end < n && same_partition(end - 1, end) {
                end += 1;
            }
            partition[start..end].fill((start as u32, end as u32));
            let mut g = start;
            while g < end {
                let mut h = g + 1;
                while h < end && same_peers(h - 1, h) {
                    h += 1;
                }
                peers[g..h].fill((g as u32, h as u32));
                g = h;
            }
            start = end;
        }
        Sorted {
            order,
            partition,
            peers,
        }
    }
}

/// The input (`chunks`) sorted by `partition_by` then `order_by`, in buckets of
/// whole partitions. Without PARTITION BY, the buckets in order are the sorted input.
pub fn sort_buckets(
    chunks: &[DataChunk],
    partition_by: &[Expr],
    order_by: &[SortExpr],
    ctx: &QueryContext,
) -> Result<Vec<Sorted>> {
    let n: usize = chunks.iter().map(|c| c.len()).sum();
    let part_keys: Vec<SortExpr> = partition_by
        .iter()
        .map(|e| SortExpr {
            expr: e.clone(),
            asc: true,
            nulls_first: true,
        })
        .collect();
    let all_keys: Vec<SortExpr> = part_keys.iter().chain(order_by).cloned().collect();
    if all_keys.is_empty() {
        let order: Vec<u32> = (0..n as u32).collect();
        return Ok(vec![Sorted::bounds(order, |_, _| true, |_, _| true)]);
    }
    // Buckets: a power of two, several per thread so that uneven ones balance.
    let buckets = if n >= PARALLEL_ROWS && ctx.threads() > 1 {
        (ctx.threads() * 8).next_power_of_two().min(1 << 12)
    } else {
        1
    };
    let lens: Vec<usize> = chunks.iter().map(|c| c.len()).collect();
    let values = all_keys
        .iter()
        .map(|k| chunks.iter().map(|c| eval(&k.expr, c, ctx)).collect())
        .collect::<Result<Vec<Vec<Vector>>>>()?;
    match CompactKeys::layout(&all_keys, part_keys.len(), &values, &lens) {
        Some(layout) => {
            let mut keys = Vec::with_capacity(n);
            for (k, &len) in lens.iter().enumerate() {
                let cols: Vec<Vector> = values.iter().map(|c| c[k].clone()).collect();
                layout.encode(&cols, len, &mut keys);
            }
            drop(values);
            let sorted = compact(keys, &layout, !part_keys.is_empty(), buckets, ctx)?;
            Ok(if part_keys.is_empty() {
                vec![concat(sorted)]
            } else {
                sorted
            })
        }
        None => {
            drop(values);
            generic(chunks, &part_keys, &all_keys, buckets, ctx)
        }
    }
}

/// Sorting packed integer keys (`keys[row]`).
fn compact(
    keys: Vec<u64>,
    layout: &CompactKeys,
    partitioned: bool,
    buckets: usize,
    ctx: &QueryContext,
) -> Result<Vec<Sorted>> {
    let partition_of = |k: u64| k.checked_shr(layout.trailing_bits).unwrap_or(0);
    let log = buckets.trailing_zeros();
    let bucket_of = |k: u64| -> usize {
        if log == 0 {
            0
        } else if partitioned {
            // Fibonacci hashing spreads neighbouring partition values.
            (partition_of(k).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - log)) as usize
        } else {
            // Ranges of the key: bucket order is key order.
            k.checked_shr(layout.bits.saturating_sub(log)).unwrap_or(0) as usize & (buckets - 1)
        }
    };
    // Each row's bucket, found once, then the buckets filled at their sizes.
    let of: Vec<u16> = keys.iter().map(|&k| bucket_of(k) as u16).collect();
    let mut counts = vec![0usize; buckets];
    for &b in &of {
        counts[b as usize] += 1;
    }
    let mut parts: Vec<Vec<(u64, u32)>> = counts.iter().map(|&c| Vec::with_capacity(c)).collect();
    for (row, (&k, &b)) in keys.iter().zip(&of).enumerate() {
        parts[b as usize].push((k, row as u32));
    }
    drop(keys);
    let parts: Vec<std::sync::Mutex<Vec<(u64, u32)>>> =
        parts.into_iter().map(std::sync::Mutex::new).collect();
    map_tasks(ctx, parts.len(), |b| {
        let mut entries = std::mem::take(
            &mut *parts[b]
                .lock()
                .map_err(|_| stride_common::Error::internal("window bucket lock poisoned"))?,
        );
        radix_sort(&mut entries, layout.bits);
        let sorted_keys: Vec<u64> = entries.iter().map(|e| e.0).collect();
        let order: Vec<u32> = entries.into_iter().map(|e| e.1).collect();
        Ok(Sorted::bounds(
            order,
            |a, b| partition_of(sorted_keys[a]) == partition_of(sorted_keys[b]),
            |a, b| sorted_keys[a] == sorted_keys[b],
        ))
    })
}

/// Buckets of one partition, split by ranges of their keys, as one: peers never
/// span two buckets (equal keys share one).
fn concat(parts: Vec<Sorted>) -> Sorted {
    let n: usize = parts.iter().map(Sorted::len).sum();
    let mut out = Sorted {
        order: Vec::with_capacity(n),
        partition: vec![(0, n as u32); n],
        peers: Vec::with_capacity(n),
    };
    for p in parts {
        let at = out.order.len() as u32;
        out.order.extend(p.order);
        out.peers
            .extend(p.peers.iter().map(|&(a, b)| (a + at, b + at)));
    }
    out
}

/// Sorts `entries` by the low `bits` bits of their keys, keeping the order of equal
/// keys (least significant byte first, skipping bytes every key shares).
fn radix_sort(entries: &mut Vec<(u64, u32)>, bits: u32) {
    let n = entries.len();
    // Input already in key order (a window ordered by the column the table is sorted
    // on): the rows ascend too, so it is what a stable sort would give.
    if entries.windows(2).all(|w| w[0].0 <= w[1].0) {
        return;
    }
    if n < 256 {
        // The rows ascend in the input, so they break ties as a stable sort would.
        entries.sort_unstable();
        return;
    }
    let passes = bits.div_ceil(8) as usize;
    let mut counts = vec![[0usize; 256]; passes];
    for &(k, _) in entries.iter() {
        for (p, c) in counts.iter_mut().enumerate() {
            c[((k >> (8 * p)) & 255) as usize] += 1;
        }
    }
    let mut buf = vec![(0u64, 0u32); n];
    for (p, c) in counts.iter().enumerate() {
        if c.iter().any(|&x| x == n) {
            continue;
        }
        let mut offsets = [0usize; 256];
        let mut at = 0;
        for (o, &x) in offsets.iter_mut().zip(c) {
            *o = at;
            at += x;
        }
        for &e in entries.iter() {
            let d = ((e.0 >> (8 * p)) & 255) as usize;
            buf[offsets[d]] = e;
            offsets[d] += 1;
        }
        std::mem::swap(entries, &mut buf);
    }
}

/// Sorting normalized keys, per chunk, for keys `compact` cannot take.
fn generic(
    chunks: &[DataChunk],
    part_keys: &[SortExpr],
    all_keys: &[SortExpr],
    buckets: usize,
    ctx: &QueryContext,
) -> Result<Vec<Sorted>> {
    let keys_of = |keys: &[SortExpr]| -> Result<Vec<ChunkKeys>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        chunks.iter().map(|c| chunk_keys(keys, c, ctx)).collect()
    };
    let part = keys_of(part_keys)?;
    let full = keys_of(all_keys)?;
    // Without PARTITION BY the input is one partition: one bucket.
    let buckets = if part.is_empty() { 1 } else { buckets };
    // (chunk, row in chunk) of every input row, by bucket, in input order.
    let mut rows: Vec<Vec<(u32, u32)>> = vec![Vec::new(); buckets];
    for (i, c) in chunks.iter().enumerate() {
        for r in 0..c.len() {
            let b = if buckets == 1 {
                0
            } else {
                let h = match &part[i] {
                    ChunkKeys::Packed(p) => {
                        let k = p[r];
                        hash_key(&k.to_le_bytes())
                    }
                    ChunkKeys::Bytes(b) => hash_key(b.key(r)),
                };
                (h >> (64 - buckets.trailing_zeros())) as usize
            };
            rows[b].push((i as u32, r as u32));
        }
    }
    let firsts: Vec<u32> = chunks
        .iter()
        .scan(0u32, |at, c| {
            let f = *at;
            *at += c.len() as u32;
            Some(f)
        })
        .collect();
    let rows: Vec<std::sync::Mutex<Vec<(u32, u32)>>> =
        rows.into_iter().map(std::sync::Mutex::new).collect();
    map_tasks(ctx, rows.len(), |b| {
        let rows = std::mem::take(
            &mut *rows[b]
                .lock()
                .map_err(|_| stride_common::Error::internal("window bucket lock poisoned"))?,
        );
        let rows = sort_generic(rows, &full);
        let cmp = |keys: &[ChunkKeys], a: (u32, u32), b: (u32, u32)| -> Ordering {
            if keys.is_empty() {
                return Ordering::Equal;
            }
            match (&keys[a.0 as usize], &keys[b.0 as usize]) {
                (ChunkKeys::Packed(x), ChunkKeys::Packed(y)) => {
                    x[a.1 as usize].cmp(&y[b.1 as usize])
                }
                (ChunkKeys::Bytes(x), ChunkKeys::Bytes(y)) => {
                    x.key(a.1 as usize).cmp(y.key(b.1 as usize))
                }
                (x, y) => x.key(a.1 as usize).cmp(&y.key(b.1 as usize)),
            }
        };
        let order = rows.iter().map(|&(c, r)| firsts[c as usize] + r).collect();
        Ok(Sorted::bounds(
            order,
            |a, b| cmp(&part, rows[a], rows[b]) == Ordering::Equal,
            |a, b| cmp(&full, rows[a], rows[b]) == Ordering::Equal,
        ))
    })
}

/// `rows` ((chunk, row) pairs in input order) sorted by their keys in `full`; peers
/// keep input order.
fn sort_generic(mut rows: Vec<(u32, u32)>, full: &[ChunkKeys]) -> Vec<(u32, u32)> {
    if full.iter().all(|k| matches!(k, ChunkKeys::Packed(_))) {
        let mut keyed: Vec<(u128, u32)> = rows
            .iter()
            .enumerate()
            .map(|(i, &(c, r))| match &full[c as usize] {
                ChunkKeys::Packed(p) => (p[r as usize], i as u32),
                ChunkKeys::Bytes(_) => unreachable!("checked above"),
            })
            .collect();
        keyed.sort_unstable();
        return keyed.into_iter().map(|(_, i)| rows[i as usize]).collect();
    }
    if full.iter().all(|k| matches!(k, ChunkKeys::Bytes(_))) {
        // The first 16 bytes as an integer decide most comparisons without memcmp.
        let mut keyed: Vec<(u128, &[u8], u32)> = rows
            .iter()
            .enumerate()
            .map(|(i, &(c, r))| match &full[c as usize] {
                ChunkKeys::Bytes(b) => {
                    let k = b.key(r as usize);
                    (crate::sort_key::pack(&k[..k.len().min(16)]), k, i as u32)
                }
                ChunkKeys::Packed(_) => unreachable!("checked above"),
            })
            .collect();
        keyed.sort_unstable();
        return keyed
            .into_iter()
            .map(|(_, _, i)| rows[i as usize])
            .collect();
    }
    rows.sort_by(|&a, &b| {
        full[a.0 as usize]
            .key(a.1 as usize)
            .cmp(&full[b.0 as usize].key(b.1 as usize))
            .then(a.cmp(&b))
    });
    rows
}
