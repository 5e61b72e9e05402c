//! Physical operators, one per file. Streaming operators (filter, projection, join
//! probes) run inside pipelines; sinks (aggregate, sort, top-N, limit, join build)
//! end a pipeline and produce the chunks the next pipeline reads; a window collects
//! its whole input. Hash aggregates, hash joins, sorts and windows spill to disk past
//! `memory_limit` (`aggregate_spill.rs`, `grace_join.rs`, `external_sort.rs`,
//! `window_sink.rs`).

use std::collections::HashSet;
use stride_common::DataChunk;

pub mod aggregate_spill;
pub mod external_sort;
pub mod grace_join;
pub mod hash_aggregate;
pub mod hash_join;
pub mod lateral_join;
pub mod limit;
pub mod materialize;
pub mod nested_loop_join;
pub mod recursive_cte;
pub mod set_op;
pub mod sort;
pub mod top_n;
pub mod unnest;
pub mod window;
pub mod window_sink;
pub mod window_sort;
mod window_sums;

/// Bytes `chunk`'s vectors take: what an operator reserves for holding it.
pub fn chunk_bytes(chunk: &DataChunk) -> u64 {
    stride_storage::size::columns_bytes(&chunk.columns, &mut HashSet::new()) as u64
}
