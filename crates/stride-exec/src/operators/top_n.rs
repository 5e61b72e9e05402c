//! ORDER BY ... LIMIT n: each worker keeps only its best `limit + offset` rows in a
//! heap; the heaps are merged at the end. Work and memory stay proportional to n.

use super::sort::{chunk_keys, Key};
use crate::context::QueryContext;
use crate::expression::eval_ref;
use crate::pipeline::Sink;
use crate::sort_key::{self, SortColumn};
use std::collections::BinaryHeap;
use std::sync::Mutex;
use stride_common::SelectionVector;
use stride_common::{DataChunk, DataType, Error, Result, ScalarValue, Vector};
use stride_sql::plan::SortExpr;

/// A candidate row, ordered by its sort key and input position only.
struct Entry(Key, (u32, u32), Vec<ScalarValue>);

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        (&self.0, self.1) == (&o.0, o.1)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (&self.0, self.1).cmp(&(&o.0, o.1))
    }
}

pub struct TopNSink<'a> {
    keys: &'a [SortExpr],
    keep: usize,
    ctx: &'a QueryContext,
    global: Mutex<BinaryHeap<Entry>>,
}

pub struct Local {
    heap: BinaryHeap<Entry>,
    morsel: usize,
    row: u32,
}

impl<'a> TopNSink<'a> {
    pub fn new(keys: &'a [SortExpr], limit: u64, offset: u64, ctx: &'a QueryContext) -> Self {
        let keep = (limit.saturating_add(offset)).min(usize::MAX as u64 / 2) as usize;
        TopNSink {
            keys,
            keep,
            ctx,
            global: Mutex::new(BinaryHeap::new()),
        }
    }

    pub fn finish(self, types: &[DataType], offset: u64) -> Result<Vec<DataChunk>> {
        let heap = self
            .global
            .into_inner()
            .map_err(|_| Error::internal("top-n lock poisoned"))?;
        let rows = heap.into_sorted_vec();
        let mut cols: Vec<Vector> = types
            .iter()
            .map(|t| Vector::with_capacity(t, rows.len()))
            .collect();
        let mut n = 0;
        for Entry(_, _, row) in rows.into_iter().skip(offset as usize) {
            for (c, v) in cols.iter_mut().zip(&row) {
                c.push(v)?;
            }
            n += 1;
        }
        Ok(if n == 0 {
            vec![]
        } else {
            vec![DataChunk::new(cols, n)]
        })
    }

    fn offer(&self, heap: &mut BinaryHeap<Entry>, e: Entry) {
        if heap.len() < self.keep {
            heap.push(e);
        } else if let Some(top) = heap.peek() {
            if (&e.0, e.1) < (&top.0, top.1) {
                heap.pop();
                heap.push(e);
            }
        }
    }
}

impl TopNSink<'_> {
    /// Once the heap is full, drops the rows whose first sort column already ranks
    /// after the worst kept row, so only the survivors get full keys. Returns the
    /// remaining chunk and the original positions of its rows.
    fn prefilter(
        &self,
        heap: &BinaryHeap<Entry>,
        chunk: DataChunk,
    ) -> Result<(DataChunk, Vec<u32>)> {
        let len = chunk.len();
        let all = || (0..len as u32).collect::<Vec<u32>>();
        let Some(top) = heap.peek().filter(|_| heap.len() >= self.keep) else {
            return Ok((chunk, all()));
        };
        let first = &self.keys[0];
        let v = eval_ref(&first.expr, &chunk, self.ctx)?;
        let col = [SortColumn {
            values: &v,
            asc: first.asc,
            nulls_first: first.nulls_first,
        }];
        let Some(w) = sort_key::fixed_width(std::slice::from_ref(&v.ty)).filter(|&w| w <= 16)
        else {
            return Ok((chunk, all()));
        };
        // The worst kept key's first column, aligned like packed keys.
        let bound = match &top.0 {
            Key::Packed(k) => k & (u128::MAX << (128 - 8 * w as u32)),
            Key::Bytes(b) => sort_key::pack(&b[..w.min(b.len())]),
        };
        let rows = match sort_key::rows_at_most(&col[0], len, bound) {
            Some(rows) => rows,
            None => {
                let Some(prefix) = sort_key::encode_packed(&col, len) else {
                    return Ok((chunk, all()));
                };
                (0..len as u32)
                    .filter(|&i| prefix[i as usize] <= bound)
                    .collect()
            }
        };
        drop(v);
        if rows.len() == len {
            return Ok((chunk, rows));
        }
        let mut c = chunk;
        c.select(SelectionVector::new(rows.clone()));
        Ok((c, rows))
    }
}

impl Sink for TopNSink<'_> {
    type Local = Local;

    fn local(&self) -> Local {
        Local {
            heap: BinaryHeap::new(),
            morsel: usize::MAX,
            row: 0,
        }
    }

    fn consume(&self, local: &mut Local, morsel: usize, chunk: DataChunk) -> Result<()> {
        if self.keep == 0 {
            return Ok(());
        }
        if local.morsel != morsel {
            local.morsel = morsel;
            local.row = 0;
        }
        let first_row = local.row;
        local.row += chunk.len() as u32;
        let (chunk, rows) = self.prefilter(&local.heap, chunk)?;
        let keys = chunk_keys(self.keys, &chunk, self.ctx)?;
        for (i, &orig) in rows.iter().enumerate() {
            let tag = (morsel as u32, first_row + orig);
            // Most rows lose against the current worst kept row: compare in place.
            let admit = local.heap.len() < self.keep
                || local
                    .heap
                    .peek()
                    .is_some_and(|t| keys.cmp_with(i, &t.0).then(tag.cmp(&t.1)).is_lt());
            if admit {
                self.offer(&mut local.heap, Entry(keys.key(i), tag, chunk.row(i)));
            }
        }
        Ok(())
    }

    fn combine(&self, local: Local) -> Result<()> {
        let mut g = self
            .global
            .lock()
            .map_err(|_| Error::internal("top-n lock poisoned"))?;
        for e in local.heap {
            self.offer(&mut g, e);
        }
        Ok(())
    }
}
