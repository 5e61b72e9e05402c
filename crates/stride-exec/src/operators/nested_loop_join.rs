//! Nested-loop join for conditions without equalities (and cross products): every
//! probe row is paired with every build row, in blocks, and the condition filters the
//! pairs. Supports the same join kinds as the hash join; a RIGHT or FULL join's
//! unmatched build rows are its late rows ([`LateRows`]), as the hash join's.

use super::hash_join::{emit_pairs, BuildSide};
use crate::context::QueryContext;
use crate::pipeline::LateRows;
use stride_common::{DataChunk, DataType, Result, VECTOR_SIZE};
use stride_sql::plan::{Expr, JoinKind};

pub struct NestedLoopProbe {
    pub kind: JoinKind,
    pub build: BuildSide,
    filter: Option<Expr>,
    /// The probe side's columns, NULL beside unmatched build rows.
    probe_types: Vec<DataType>,
}

impl NestedLoopProbe {
    pub fn new(
        kind: JoinKind,
        chunks: Vec<DataChunk>,
        types: Vec<DataType>,
        probe_types: Vec<DataType>,
        filter: Option<Expr>,
        ctx: &QueryContext,
    ) -> Result<Self> {
        let build = BuildSide::new(
            chunks,
            types,
            matches!(kind, JoinKind::Right | JoinKind::Full),
            ctx,
        )?;
        Ok(NestedLoopProbe {
            kind,
            build,
            filter,
            probe_types,
        })
    }

    pub fn probe(
        &self,
        chunk: DataChunk,
        ctx: &QueryContext,
        out: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()> {
        let len = chunk.len();
        let n = self.build.len;
        // Probe rows per block so one block holds about a vector's worth of pairs.
        let per_block = (VECTOR_SIZE / n.max(1)).max(1);
        let mut start = 0;
        let mut emitted_any = false;
        while start < len || (!emitted_any && len == 0) {
            ctx.check()?;
            let end = (start + per_block).min(len);
            let mut pi = Vec::with_capacity((end - start) * n);
            let mut bi = Vec::with_capacity((end - start) * n);
            for p in start..end {
                for b in 0..n {
                    pi.push((p - start) as u32);
                    bi.push(b as u32);
                }
            }
            let rows: Vec<u32> = (start as u32..end as u32).collect();
            let mut block = chunk.clone();
            block.select(stride_common::SelectionVector::new(rows));
            emit_pairs(
                self.kind,
                &block,
                &self.build,
                (pi, bi),
                self.filter.as_ref(),
                ctx,
                out,
            )?;
            emitted_any = true;
            start = end;
            if start >= len {
                break;
            }
        }
        Ok(())
    }
}

impl LateRows for NestedLoopProbe {
    fn morsels(&self) -> usize {
        match self.kind {
            JoinKind::Right | JoinKind::Full => self.build.late_morsels(),
            _ => 0,
        }
    }

    fn produce(
        &self,
        morsel: usize,
        _ctx: &QueryContext,
        out: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()> {
        let rows = self.build.morsel_rows(morsel);
        self.build
            .emit_marked(rows, false, Some(&self.probe_types), out)
    }
}
