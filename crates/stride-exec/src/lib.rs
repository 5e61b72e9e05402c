//! Step 4 of a query's life: execution. The [`planner`] turns a logical plan into a
//! [`PhysicalPlan`]; the [`executor`] cuts it into pipelines at pipeline breakers
//! (aggregates, sorts, join builds) and runs each pipeline on worker threads that pull
//! morsels from its source, push chunks through its operators and into its sink.
//!
//! Where things are:
//! - [`expression`]: vectorized evaluation of bound expressions over chunks;
//! - [`pipeline`]: sources, operators, sinks and the morsel-driven worker loop;
//!   [`parallel`]: independent tasks on the worker threads, for phases that are not
//!   pipelines;
//! - [`operators`]: one file per operator;
//! - [`row_key`], [`sort_key`]: the byte encodings hash tables and sorts use;
//! - [`hash_table`]: the group hash table of aggregation and joins, and
//!   [`dense_index`], the direct lookup aggregation puts in front of it for narrow keys,
//!   and [`few_keys`], the small array it asks first while it has few short keys;
//! - [`spill`]: the files operators write their state to when it passes
//!   `memory_limit` (the accountant is `stride_common::memory`), and
//!   [`stream_source`], the source that reads a spilled operator's output as it is
//!   made;
//! - [`profile`], [`estimate`], [`explain`]: EXPLAIN ANALYZE's counters per plan node
//!   (rows, time, peak memory), each node's estimated rows, and the plan rendered
//!   with them.

pub mod bloom;
pub mod coalesce;
pub mod compact_key;
pub mod context;
pub mod dense_index;
pub mod estimate;
pub mod executor;
pub mod explain;
pub mod expression;
pub mod few_keys;
pub mod hash_table;
pub mod in_set;
pub mod join_filters;
pub mod key_packing;
pub mod lambda;
pub mod nested_key;
pub mod operators;
pub mod packed_groups;
pub mod parallel;
pub mod physical_plan;
pub mod pipeline;
pub mod planner;
pub mod profile;
pub mod progress;
pub mod row_key;
pub mod sort_key;
pub mod spill;
pub mod statistics;
pub mod stream_source;
pub mod zone_filters;

pub use context::QueryContext;
pub use executor::{
    execute_collect, execute_materialize, execute_materialize_into, execute_ordered,
    execute_stream, ResultStream, WouldBlock,
};
pub use physical_plan::PhysicalPlan;
pub use progress::Progress;
pub use statistics::TableStatistics;
