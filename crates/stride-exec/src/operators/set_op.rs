//! UNION, INTERSECT and EXCEPT (each with or without ALL) over materialized inputs,
//! with rows compared by their encoded keys (NULLs equal, as SQL set operations
//! require). Output keeps the order in which rows first appear.

use crate::hash_table::{hash_key, KeyTable};
use crate::row_key;
use stride_common::{DataChunk, DataType, Result, Vector, VECTOR_SIZE};
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
    let mut first: Vec<(usize, u32)> = Vec::new();
    let sides = [&left, &right];
    let mut all_chunks: Vec<&DataChunk> = Vec::new();
    for (s, chunks) in sides.iter().enumerate() {
        for c in chunks.iter() {
            let ci = all_chunks.len();
            all_chunks.push(c);
            let cols = &c.columns;
            let keys = row_key::encode(cols, c.len())?;
            for i in 0..c.len() {
                let k = keys.key(i);
                let (id, new) = table.find_or_insert(k, hash_key(k));
                if new {
                    counts.push((0, 0));
                    first.push((ci, i as u32));
                }
                if s == 0 {
                    counts[id].0 += 1;
                } else {
                    counts[id].1 += 1;
                }
            }
        }
    }
    let mut out_rows: Vec<(usize, u32)> = Vec::new();
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
    let mut out = Vec::new();
    for batch in out_rows.chunks(VECTOR_SIZE) {
        let mut cols: Vec<Vector> = types
            .iter()
            .map(|t| Vector::with_capacity(t, batch.len()))
            .collect();
        for &(ci, r) in batch {
            let c = all_chunks[ci];
            for (k, col) in cols.iter_mut().enumerate() {
                col.push(&c.columns[k].get(r as usize))?;
            }
        }
        out.push(DataChunk::new(cols, batch.len()));
    }
    Ok(out)
}
