//! The streaming operator behind the LATERAL joins the `decorrelate` pass could not
//! turn into plain joins (`LogicalPlan::LateralJoin`: a LIMIT inside the subquery, a
//! correlation that is not a condition): the subquery runs once per distinct set of
//! left values it reads (cached for the query), and each left row goes out beside each
//! of its rows; an inner join drops a left row without rows, a LEFT join pads it with
//! NULLs.
//!
//! Where it sits: inside a pipeline, like a join probe. The subquery, instantiated
//! with the row's values as literals, runs in a child context (its nested subqueries
//! depend on that row), as correlated subqueries in expressions do.

use crate::context::{LateralRows, QueryContext};
use crate::expression::{instantiate, outer_refs};
use std::sync::Arc;
use stride_common::{DataChunk, DataType, Error, Result, ScalarValue, Vector, VECTOR_SIZE};
use stride_sql::plan::{JoinKind, Subquery};

pub struct LateralJoin {
    subquery: Subquery,
    /// Whether left rows without subquery rows are kept (LEFT) or dropped (INNER).
    keep_unmatched: bool,
    right_types: Vec<DataType>,
    /// The left columns the subquery reads.
    refs: Vec<usize>,
}

impl LateralJoin {
    pub fn new(subquery: Subquery, kind: JoinKind, right_types: Vec<DataType>) -> Self {
        let refs = outer_refs(&subquery);
        LateralJoin {
            subquery,
            keep_unmatched: kind == JoinKind::Left,
            right_types,
            refs,
        }
    }

    /// The subquery's rows for one set of left values, run once per query.
    fn rows(&self, outer: &[ScalarValue], ctx: &QueryContext) -> Result<Arc<LateralRows>> {
        let key = (self.subquery.id, format!("{outer:?}"));
        let cache = || {
            ctx.lateral_cache
                .lock()
                .map_err(|_| Error::internal("cache lock"))
        };
        if let Some(r) = cache()?.get(&key) {
            return Ok(r.clone());
        }
        let plan = instantiate(&self.subquery, &self.refs, outer);
        let chunks = crate::executor::execute_plan_collect(&plan, &ctx.child())?;
        let mut columns: Vec<Vector> = self.right_types.iter().map(Vector::empty).collect();
        let mut len = 0;
        for c in chunks {
            let (cols, n) = c.into_flat_columns();
            for (acc, col) in columns.iter_mut().zip(&cols) {
                acc.append(col, n);
            }
            len += n;
        }
        let rows = Arc::new(LateralRows { columns, len });
        cache()?.insert(key, rows.clone());
        Ok(rows)
    }

    /// Joins each row of `chunk` with its subquery rows, handing out chunks of at most
    /// [`VECTOR_SIZE`] rows: the left columns, then the subquery's.
    pub fn apply(
        &self,
        chunk: DataChunk,
        ctx: &QueryContext,
        out: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()> {
        let chunk = chunk.flatten();
        let mut batch = Batch::new(&self.right_types);
        for row in 0..chunk.len() {
            ctx.check()?;
            let outer: Vec<ScalarValue> = self
                .refs
                .iter()
                .map(|&c| chunk.columns[c].get(row))
                .collect();
            let rows = self.rows(&outer, ctx)?;
            if rows.len == 0 && self.keep_unmatched {
                batch.left.push(row as u32);
                for v in &mut batch.right {
                    v.push_null();
                }
                batch.flush_if_full(&chunk, out)?;
            }
            let mut offset = 0;
            while offset < rows.len {
                let n = (rows.len - offset).min(VECTOR_SIZE - batch.left.len());
                batch.left.extend(std::iter::repeat_n(row as u32, n));
                for (v, col) in batch.right.iter_mut().zip(&rows.columns) {
                    v.append(&col.slice(offset, n), n);
                }
                offset += n;
                batch.flush_if_full(&chunk, out)?;
            }
        }
        batch.flush(&chunk, out)
    }
}

/// Output rows gathered so far: the left row of each, and the subquery's columns.
struct Batch {
    left: Vec<u32>,
    right: Vec<Vector>,
    types: Vec<DataType>,
}

impl Batch {
    fn new(types: &[DataType]) -> Self {
        Batch {
            left: Vec::with_capacity(VECTOR_SIZE),
            right: types.iter().map(Vector::empty).collect(),
            types: types.to_vec(),
        }
    }

    fn flush_if_full(
        &mut self,
        chunk: &DataChunk,
        out: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()> {
        if self.left.len() >= VECTOR_SIZE {
            self.flush(chunk, out)?;
        }
        Ok(())
    }

    fn flush(
        &mut self,
        chunk: &DataChunk,
        out: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()> {
        let n = self.left.len();
        if n == 0 {
            return Ok(());
        }
        let mut columns: Vec<Vector> = chunk
            .columns
            .iter()
            .map(|c| c.take(&self.left).flatten(n))
            .collect();
        let fresh = self.types.iter().map(Vector::empty).collect();
        columns.extend(std::mem::replace(&mut self.right, fresh));
        self.left.clear();
        out(DataChunk::new(columns, n))
    }
}
