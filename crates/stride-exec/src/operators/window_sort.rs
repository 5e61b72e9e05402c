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
//! (`sort_key.rs`), encoded once per row with the PARTITION BY part as their prefix,
//! which picks the bucket and, compared between sorted neighbours, the partitions.
//! Rows with equal keys keep their input order, so ties resolve the same way on every
//! run.

use crate::compact_key::CompactKeys;
use crate::context::QueryContext;
use crate::expression::eval;
use crate::hash_table::hash_key;
use crate::operators::sort::{chunk_keys_with_prefix, ChunkKeys};
use crate::parallel::map_tasks;
use crate::sort_key::Prefix;
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
        if c.contains(&n) {
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

/// Sorting normalized keys, per chunk, for keys `compact` cannot take. Each row's
/// key is encoded once: its PARTITION BY part is the key's prefix, which picks the
/// row's bucket and, after the sort, tells partitions apart.
fn generic(
    chunks: &[DataChunk],
    part_keys: &[SortExpr],
    all_keys: &[SortExpr],
    buckets: usize,
    ctx: &QueryContext,
) -> Result<Vec<Sorted>> {
    let keys: Vec<(ChunkKeys, Prefix)> = chunks
        .iter()
        .map(|c| chunk_keys_with_prefix(all_keys, part_keys.len(), c, ctx))
        .collect::<Result<_>>()?;
    // Without PARTITION BY the input is one partition: one bucket.
    let buckets = if part_keys.is_empty() { 1 } else { buckets };
    // (chunk, row in chunk) of every input row, by bucket, in input order.
    let mut rows: Vec<Vec<(u32, u32)>> = vec![Vec::new(); buckets];
    for (i, (k, prefix)) in keys.iter().enumerate() {
        for r in 0..chunks[i].len() {
            let b = if buckets == 1 {
                0
            } else {
                let h = match k {
                    ChunkKeys::Packed(p) => {
                        hash_key(&leading(p[r], prefix_at(prefix, r)).to_le_bytes())
                    }
                    ChunkKeys::Bytes(b) => hash_key(&b.key(r)[..prefix_at(prefix, r) as usize]),
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
        sort_bucket(&rows, &keys, &firsts)
    })
}

/// Bytes of row `r`'s key its PARTITION BY part takes.
fn prefix_at(prefix: &Prefix, r: usize) -> u32 {
    match prefix {
        Prefix::Fixed(w) => *w,
        Prefix::PerRow(w) => w[r],
    }
}

/// The first `bytes` bytes of a packed (left-aligned) key.
fn leading(key: u128, bytes: u32) -> u128 {
    key.checked_shr(128 - 8 * bytes).unwrap_or(0)
}

/// One bucket's `rows` ((chunk, row) pairs in input order) sorted by their keys,
/// peers in input order, with the partitions and peer groups read off neighbouring
/// keys.
fn sort_bucket(
    rows: &[(u32, u32)],
    keys: &[(ChunkKeys, Prefix)],
    firsts: &[u32],
) -> Result<Sorted> {
    let input_row = |c: u32, r: u32| firsts[c as usize] + r;
    let mismatch = || stride_common::Error::internal("window keys of two kinds in one sort");
    if keys.iter().all(|k| matches!(k.0, ChunkKeys::Packed(_))) {
        let mut keyed: Vec<(u128, u32, u32)> = Vec::with_capacity(rows.len());
        for &(c, r) in rows {
            let (ChunkKeys::Packed(p), prefix) = &keys[c as usize] else {
                return Err(mismatch());
            };
            let key = p[r as usize];
            keyed.push((key, input_row(c, r), prefix_at(prefix, r as usize)));
        }
        keyed.sort_unstable();
        let order = keyed.iter().map(|e| e.1).collect();
        return Ok(Sorted::bounds(
            order,
            |a, b| leading(keyed[a].0, keyed[a].2) == leading(keyed[b].0, keyed[b].2),
            |a, b| keyed[a].0 == keyed[b].0,
        ));
    }
    // The first 16 bytes as an integer decide most comparisons without memcmp; the
    // input row breaks ties, and the prefix length comes along.
    let mut keyed: Vec<(u128, &[u8], u32, u32)> = Vec::with_capacity(rows.len());
    for &(c, r) in rows {
        let (ChunkKeys::Bytes(b), prefix) = &keys[c as usize] else {
            return Err(mismatch());
        };
        let k = b.key(r as usize);
        let packed = crate::sort_key::pack(&k[..k.len().min(16)]);
        keyed.push((packed, k, input_row(c, r), prefix_at(prefix, r as usize)));
    }
    keyed.sort_unstable();
    let order = keyed.iter().map(|e| e.2).collect();
    let part = |i: usize| &keyed[i].1[..keyed[i].3 as usize];
    Ok(Sorted::bounds(
        order,
        |a, b| part(a) == part(b),
        |a, b| keyed[a].0 == keyed[b].0 && keyed[a].1 == keyed[b].1,
    ))
}
