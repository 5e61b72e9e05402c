//! The facade's integration tests, one module per concern, linked into one test
//! binary (`cargo test -p stride --test integration`; name a module to run part of it:
//! `... --test integration tpcds::`). The sqllogictest runner is the `slt` target.

mod common;

mod buffer_pool;
mod csv;
mod decorrelate;
mod explain;
mod external;
mod function_reference;
mod fuzz;
mod memory;
mod persistence;
mod robustness;
mod spill_join;
mod spill_sort;
mod stored_values;
mod streaming;
mod tpcds;
mod tpch;
mod transactions;
