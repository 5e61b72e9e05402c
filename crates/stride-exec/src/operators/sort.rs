//! ORDER BY: a parallel sort. Each worker collects its chunks with normalized sort
//! keys and sorts them when it finishes (in parallel with the others); the sorted runs
//! are then merged. Ties keep input order: every row carries its position (morsel,
//! row within morsel) as the last key.

use crate::context::QueryContext;
use crate::expression::eval_ref;
use crate::pipeline::Sink;
use crate::row_key::KeyBuffer;
use crate::sort_key::{self, pack, SortColumn};
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Mutex;
use stride_common::{DataChunk, DataType, Error, Result, Vector, VECTOR_SIZE};
use stride_sql::plan::SortExpr;

/// Sort keys of one row: packed when every key has a fixed width of ≤ 16 bytes.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Key {
    Packed(u128),
    Bytes(Box<[u8]>),
}

/// A row's place in the input: (morsel, row within morsel).
type Tag = (u32, u32);

pub struct Run {
    chunks: Vec<DataChunk>,
    /// (key, tag, row within this run's concatenation)
    entries: Vec<(Key, Tag, u32)>,
}

pub struct LocalRun {
    run: Run,
    rows: u32,
    morsel: usize,
    morsel_row: u32,
}

pub struct SortSink<'a> {
    keys: &'a [SortExpr],
    packed: bool,
    ctx: &'a QueryContext,
    runs: Mutex<Vec<Run>>,
}

/// Computes the keys of a chunk's rows.
pub fn chunk_keys(keys: &[SortExpr], chunk: &DataChunk, ctx: &QueryContext) -> Result<KeyBuffer> {
    let values = keys
        .iter()
        .map(|k| eval_ref(&k.expr, chunk, ctx))
        .collect::<Result<Vec<_>>>()?;
    let cols: Vec<SortColumn> = keys
        .iter()
        .zip(&values)
        .map(|(k, v)| SortColumn {
            values: v,
            asc: k.asc,
            nulls_first: k.nulls_first,
        })
        .collect();
    sort_key::encode(&cols, chunk.len())
}

pub fn packable(keys: &[SortExpr]) -> bool {
    let types: Vec<DataType> = keys.iter().map(|k| k.expr.data_type()).collect();
    sort_key::fixed_width(&types).is_some_and(|w| w <= 16)
}

pub fn make_key(packed: bool, k: &[u8]) -> Key {
    if packed {
        Key::Packed(pack(k))
    } else {
        Key::Bytes(k.into())
    }
}

impl<'a> SortSink<'a> {
    pub fn new(keys: &'a [SortExpr], ctx: &'a QueryContext) -> Self {
        SortSink {
            keys,
            packed: packable(keys),
            ctx,
            runs: Mutex::new(Vec::new()),
        }
    }

    pub fn finish(self, types: &[DataType]) -> Result<Vec<DataChunk>> {
        let runs = self
            .runs
            .into_inner()
            .map_err(|_| Error::internal("sort lock poisoned"))?;
        // Concatenate the payload of all runs, remembering where each starts.
        let mut columns: Vec<Vector> = types.iter().map(|t| Vector::with_capacity(t, 0)).collect();
        let mut bases = Vec::with_capacity(runs.len());
        let mut total = 0usize;
        for r in &runs {
            bases.push(total as u32);
            for c in &r.chunks {
                for (dst, src) in columns.iter_mut().zip(&c.columns) {
                    dst.append(src, c.len());
                }
                total += c.len();
            }
        }
        // k-way merge of the sorted runs.
        let mut order: Vec<u32> = Vec::with_capacity(total);
        let mut heap = BinaryHeap::new();
        for (ri, r) in runs.iter().enumerate() {
            if !r.entries.is_empty() {
                heap.push(Head(&r.entries[0], ri, 0));
            }
        }
        while let Some(Head(e, ri, pos)) = heap.pop() {
            order.push(bases[ri] + e.2);
            let next = pos + 1;
            if let Some(n) = runs[ri].entries.get(next) {
                heap.push(Head(n, ri, next));
            }
        }
        let mut out = Vec::with_capacity(total.div_ceil(VECTOR_SIZE));
        for batch in order.chunks(VECTOR_SIZE) {
            out.push(DataChunk::new(
                columns.iter().map(|c| c.take(batch)).collect(),
                batch.len(),
            ));
        }
        Ok(out)
    }
}

/// Min-heap entry over run heads.
struct Head<'r>(&'r (Key, Tag, u32), usize, usize);

impl PartialEq for Head<'_> {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Head<'_> {}
impl PartialOrd for Head<'_> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Head<'_> {
    fn cmp(&self, o: &Self) -> Ordering {
        (&o.0 .0, o.0 .1).cmp(&(&self.0 .0, self.0 .1))
    }
}

impl Sink for SortSink<'_> {
    type Local = LocalRun;

    fn local(&self) -> LocalRun {
        LocalRun {
            run: Run {
                chunks: Vec::new(),
                entries: Vec::new(),
            },
            rows: 0,
            morsel: usize::MAX,
            morsel_row: 0,
        }
    }

    fn consume(&self, local: &mut LocalRun, morsel: usize, chunk: DataChunk) -> Result<()> {
        let chunk = chunk.flatten();
        let keys = chunk_keys(self.keys, &chunk, self.ctx)?;
        if local.morsel != morsel {
            local.morsel = morsel;
            local.morsel_row = 0;
        }
        for i in 0..chunk.len() {
            let tag = (morsel as u32, local.morsel_row);
            local
                .run
                .entries
                .push((make_key(self.packed, keys.key(i)), tag, local.rows));
            local.rows += 1;
            local.morsel_row += 1;
        }
        local.run.chunks.push(chunk);
        Ok(())
    }

    fn combine(&self, mut local: LocalRun) -> Result<()> {
        local
            .run
            .entries
            .sort_unstable_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
        self.runs
            .lock()
            .map_err(|_| Error::internal("sort lock poisoned"))?
            .push(local.run);
        Ok(())
    }
}
