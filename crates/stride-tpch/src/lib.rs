//! TPC-H inside stride: `CALL dbgen(sf = N)` creates and fills the eight TPC-H tables
//! (data from the `tpchgen` crate, identical to the reference generator), and
//! `PRAGMA tpch(N)` runs query N with the specification's validation parameters.
//!
//! This crate sits beside the query pipeline, not in it: the facade (`stride`) calls
//! [`dbgen`] when it executes the bound CALL statement, and plans the text of
//! [`query`] like any other statement.

mod dbgen;
mod queries;

pub use dbgen::{dbgen, TABLES};
pub use queries::{query, QUERY_COUNT};
