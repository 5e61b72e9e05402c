//! The sink of CREATE TABLE AS and INSERT … SELECT: each worker concatenates the
//! chunks of a morsel into one set of columns (sized for the rows the source expects
//! per morsel), on its own thread, so the table receives one part per morsel in
//! input order. Parts of a quarter row group up to a full one become row groups
//! without another copy (`Table::append_parts`); others are copied into groups.
//! Each part can be made into something else on the worker that built it (a bulk
//! load into a database file encodes it as the file stores it, and drops the
//! values). The rows are counted in the memory accountant as they arrive, and then
//! as what their part became, so operators that can spill make room for them.

use super::chunk_bytes;
use crate::context::QueryContext;
use crate::pipeline::Sink;
use std::sync::{Arc, Mutex};
use stride_common::memory::{MemoryAccountant, MemoryTag, Reservation};
use stride_common::{DataChunk, DataType, Error, Result, Vector};

/// Columns and row count of one morsel's rows.
pub type Part = (Vec<Vector>, usize);

/// Bytes a part's rows hold, counted as [`chunk_bytes`] counts a chunk's.
pub fn part_bytes(columns: &[Vector], len: usize) -> u64 {
    chunk_bytes(&DataChunk::new(columns.to_vec(), len))
}

/// What a part becomes on its worker, and the bytes that holds.
pub type MakePart<'a, T> = dyn Fn(Part) -> Result<(T, u64)> + Sync + 'a;

pub struct MaterializeSink<'a, T> {
    types: Vec<DataType>,
    /// Rows a morsel is expected to hold: columns are sized for it up front, so they
    /// do not grow by doubling (each doubling is fresh memory the kernel must zero).
    rows_hint: usize,
    make: &'a MakePart<'a, T>,
    parts: Mutex<Vec<(usize, T)>>,
    memory: Arc<MemoryAccountant>,
    reserved: Mutex<Vec<Reservation>>,
}

pub struct Local<T> {
    morsel: usize,
    columns: Vec<Vector>,
    len: usize,
    /// Bytes of the part being built, counted until it is made into a `T`.
    building: u64,
    done: Vec<(usize, T)>,
    memory: Reservation,
}

impl<'a, T: Send> MaterializeSink<'a, T> {
    pub fn new(
        types: Vec<DataType>,
        rows_hint: usize,
        make: &'a MakePart<'a, T>,
        ctx: &QueryContext,
    ) -> Self {
        MaterializeSink {
            types,
            rows_hint,
            make,
            parts: Mutex::new(Vec::new()),
            memory: ctx.memory.clone(),
            reserved: Mutex::new(Vec::new()),
        }
    }

    /// The parts in input order.
    pub fn finish(self) -> Vec<T> {
        let mut parts = self.parts.into_inner().unwrap_or_default();
        parts.sort_by_key(|(m, _)| *m);
        parts.into_iter().map(|(_, p)| p).collect()
    }
}

impl<T: Send> Sink for MaterializeSink<'_, T> {
    type Local = Local<T>;

    fn local(&self) -> Local<T> {
        Local {
            morsel: usize::MAX,
            columns: Vec::new(),
            len: 0,
            building: 0,
            done: Vec::new(),
            memory: Reservation::new(&self.memory, MemoryTag::Materialized),
        }
    }

    fn consume(&self, local: &mut Local<T>, morsel: usize, chunk: DataChunk) -> Result<()> {
        let chunk = chunk.flatten();
        let bytes = chunk_bytes(&chunk);
        local.memory.track(bytes);
        local.building += bytes;
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

    fn morsel_done(&self, local: &mut Local<T>, _morsel: usize) -> Result<()> {
        if local.len > 0 {
            let columns = std::mem::take(&mut local.columns);
            let (part, bytes) = (self.make)((columns, local.len))?;
            local.memory.shrink(std::mem::take(&mut local.building));
            local.memory.track(bytes);
            local.done.push((local.morsel, part));
            local.len = 0;
        }
        Ok(())
    }

    fn combine(&self, local: Local<T>) -> Result<()> {
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
