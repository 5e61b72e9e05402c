//! The sink of CREATE TABLE AS and INSERT … SELECT: each worker concatenates the
//! chunks of a morsel into one set of columns (sized for the rows the source expects
//! per morsel), on its own thread, so the table receives one part per morsel in
//! input order. Parts of a quarter row group up to a full one become row groups
//! without another copy (`Table::append_parts`); others are copied into groups.
//! The rows are counted in the memory accountant as they arrive, so operators that
//! can spill make room for them.

use super::chunk_bytes;
use crate::context::QueryContext;
use crate::pipeline::Sink;
use std::sync::{Arc, Mutex};
use stride_common::memory::{MemoryAccountant, MemoryTag, Reservation};
use stride_common::{DataChunk, DataType, Error, Result, Vector};

/// Columns and row count of one morsel's rows.
pub type Part = (Vec<Vector>, usize);

pub struct MaterializeSink {
    types: Vec<DataType>,
    /// Rows a morsel is expected to hold: columns are sized for it up front, so they
    /// do not grow by doubling (each doubling is fresh memory the kernel must zero).
    rows_hint: usize,
    parts: Mutex<Vec<(usize, Part)>>,
    memory: Arc<MemoryAccountant>,
    reserved: Mutex<Vec<Reservation>>,
}

pub struct Local {
    morsel: usize,
    columns: Vec<Vector>,
    len: usize,
    done: Vec<(usize, Part)>,
    memory: Reservation,
}

impl MaterializeSink {
    pub fn new(types: Vec<DataType>, rows_hint: usize, ctx: &QueryContext) -> Self {
        MaterializeSink {
            types,
            rows_hint,
            parts: Mutex::new(Vec::new()),
            memory: ctx.memory.clone(),
            reserved: Mutex::new(Vec::new()),
        }
    }

    /// The parts in input order.
    pub fn finish(self) -> Vec<Part> {
        let mut parts = self.parts.into_inner().unwrap_or_default();
        parts.sort_by_key(|(m, _)| *m);
        parts.into_iter().map(|(_, p)| p).collect()
    }
}

impl Sink for MaterializeSink {
    type Local = Local;

    fn local(&self) -> Local {
        Local {
            morsel: usize::MAX,
            columns: Vec::new(),
            len: 0,
            done: Vec::new(),
            memory: Reservation::new(&self.memory, MemoryTag::Materialized),
        }
    }

    fn consume(&self, local: &mut Local, morsel: usize, chunk: DataChunk) -> Result<()> {
        let chunk = chunk.flatten();
        local.memory.track(chunk_bytes(&chunk));
        if local.len == 0 {
            local.morsel = morsel;
            let n = self.rows_hint.max(chunk.len());
            local.columns = self
                .types
                .iter()
                .map(|t| Vector::with_capacity(t, n))
                .collect();
        }
        for (dst, src) in local.columns.iter_mut().zip(&chunk.columns) {
            dst.append(src, chunk.len());
        }
        local.len += chunk.len();
        Ok(())
    }

    fn morsel_done(&self, local: &mut Local, _morsel: usize) -> Result<()> {
        if local.len > 0 {
            let columns = std::mem::take(&mut local.columns);
            local.done.push((local.morsel, (columns, local.len)));
            local.len = 0;
        }
        Ok(())
    }

    fn combine(&self, local: Local) -> Result<()> {
        self.parts
            .lock()
            .map_err(|_| Error::internal("materialize lock poisoned"))?
            .extend(local.done);
        self.reserved
            .lock()
            .map_err(|_| Error::internal("materialize lock poisoned"))?
            .push(local.memory);
        Ok(())
    }
}
