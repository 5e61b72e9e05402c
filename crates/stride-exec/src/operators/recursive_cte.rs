//! WITH RECURSIVE: the base part's rows, then the recursive part run round after
//! round, each round reading the rows the one before added (`RecursiveScan`, through
//! the query context), until a round adds none. UNION (without ALL) keeps each
//! distinct row once, so a walk over a graph with cycles ends; UNION ALL keeps
//! everything, and a recursion that never ends runs until it is cancelled or its
//! statement_timeout passes (each round checks). A hash join in the step whose build
//! input is the same in every round keeps its table from the first round
//! (`QueryContext::kept_build`, dropped here when the outermost recursion ends).

use crate::context::QueryContext;
use crate::physical_plan::PhysicalPlan;
use std::collections::HashSet;
use std::sync::Arc;
use stride_common::{DataChunk, Result};

type Collect = dyn Fn(&PhysicalPlan, &QueryContext) -> Result<Vec<DataChunk>>;

/// Every row of the recursion, round after round.
pub fn run(
    id: u64,
    base: &PhysicalPlan,
    step: &PhysicalPlan,
    all: bool,
    ctx: &QueryContext,
    collect: &Collect,
) -> Result<Vec<DataChunk>> {
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut round = fresh(collect(base, ctx)?, all, &mut seen)?;
    let mut out: Vec<DataChunk> = round.clone();
    let rounds = || -> Result<()> {
        while round.iter().any(|c| c.len() > 0) {
            ctx.check()?;
            ctx.set_round(id, Arc::new(round))?;
            round = fresh(collect(step, ctx)?, all, &mut seen)?;
            out.extend(round.iter().cloned());
        }
        Ok(())
    };
    let done = rounds();
    ctx.end_rounds(id)?;
    done.map(|()| out)
}

/// The rows of `chunks` to keep: all of them (UNION ALL), or those not seen before.
fn fresh(chunks: Vec<DataChunk>, all: bool, seen: &mut HashSet<Vec<u8>>) -> Result<Vec<DataChunk>> {
    if all {
        return Ok(chunks.into_iter().filter(|c| c.len() > 0).collect());
    }
    let mut out = Vec::new();
    for chunk in chunks {
        let chunk = chunk.flatten();
        let keys = crate::row_key::encode(&chunk.columns, chunk.len())?;
        let keep: Vec<u32> = (0..chunk.len())
            .filter(|&i| seen.insert(keys.key(i).to_vec()))
            .map(|i| i as u32)
            .collect();
        if keep.is_empty() {
            continue;
        }
        let len = keep.len();
        let columns = chunk.columns.iter().map(|c| c.take(&keep)).collect();
        out.push(DataChunk::new(columns, len));
    }
    Ok(out)
}
