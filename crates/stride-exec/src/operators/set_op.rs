//! UNION ALL, INTERSECT and EXCEPT (each with or without ALL) over materialized
//! inputs, with rows compared by their encoded keys (NULLs equal, as SQL set
//! operations require). Output keeps the order in which rows first appear. UNION
//! without ALL is planned as a hash aggregate (DISTINCT) over UNION ALL
//! (`planner.rs`), which runs on every thread.

use crate::hash_table::{hash_key, KeyTable};
use crate::row_key;
use stride_common::{DataChunk, DataType, Error, Result, Vector, VECTOR_SIZE};
use stride_sql::plan::SetOpKind;

pub fn run(
    kind: SetOpKind,
    all: bool,
    left: Vec<DataChunk>,
    right: Vec<DataChunk>,
    types: &[DataType],
) -> Result<Vec<DataChunk>> {
    if kind == SetOpKind::Union && all {
        return Ok(left.into_iter().chain(right).collect());
    }
    // Count occurrences per distinct row on each side.
    let mut table = KeyTable::default();
    let mut counts: Vec<(u64, u64)> = Vec::new();
    // Each distinct row's first occurrence, numbered across all input chunks.
    let mut first: Vec<u32> = Vec::new();
    let mut total = 0u32;
    let sides = [&left, &right];
    let mut all_chunks: Vec<&DataChunk> = Vec::new();
    for (s, chunks) in sides.iter().enumerate() {
        for c in chunks.iter() {
            let at = total;
            total = u32::try_from(c.len())
                .ok()
                .and_then(|n| total.checked_add(n))
                .ok_or_else(|| {
                    Error::not_supported("INTERSECT and EXCEPT over more than 4 billion rows")
                })?;
            all_chunks.push(c);
            let cols = &c.columns;
            let keys = row_key::encode(cols, c.len())?;
            for i in 0..c.len() {
                let k = keys.key(i);
                let (id, new) = table.find_or_insert(k, hash_key(k));
                if new {
                    counts.push((0, 0));
                    first.push(at + i as u32);
                }
                if s == 0 {
                    counts[id].0 += 1;
                } else {
                    counts[id].1 += 1;
                }
            }
        }
    }
    let mut out_rows: Vec<u32> = Vec::new();
    for (id, &(l, r)) in counts.iter().enumerate() {
        let times = match (kind, all) {
            (SetOpKind::Union, _) => 1,
            (SetOpKind::Intersect, false) => u64::from(l > 0 && r > 0),
            (SetOpKind::Intersect, true) => l.min(r),
            (SetOpKind::Except, false) => u64::from(l > 0 && r == 0),
            (SetOpKind::Except, true) => l.saturating_sub(r),
        };
        for _ in 0..times {
            out_rows.push(first[id]);
        }
    }
    // The inputs as one column each, from which the output rows are taken.
    let mut cols: Vec<Vector> = types
        .iter()
        .map(|t| Vector::with_capacity(t, total as usize))
        .collect();
    for c in &all_chunks {
        for (col, v) in cols.iter_mut().zip(&c.columns) {
            col.append(v, c.len());
        }
    }
    Ok(out_rows
        .chunks(VECTOR_SIZE)
        .map(|batch| DataChunk::new(cols.iter().map(|c| c.take(batch)).collect(), batch.len()))
        .collect())
}
