//! Physical operators, one per file. Streaming operators (filter, projection, join
//! probes) run inside pipelines; sinks (aggregate, sort, top-N, limit, join build)
//! end a pipeline and produce the chunks the next pipeline reads; a window collects
//! its whole input.

pub mod aggregate_spill;
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
