//! TPC-H and TPC-DS inside stride: `CALL dbgen(sf = N)` creates and fills the eight
//! TPC-H tables (data from the `tpchgen` crate, identical to the reference
//! generator), `CALL dsdgen(sf = N)` the 24 TPC-DS tables (from the `tpcdsgen`
//! crate), and `PRAGMA tpch(N)` / `PRAGMA tpcds(N)` run query N with fixed
//! substitution parameters.
//!
//! This crate sits beside the query pipeline, not in it: the facade (`stride`) calls
//! [`dbgen`] or [`dsdgen`] when it executes the bound CALL statement, and plans the
//! text of [`query`] or [`tpcds_query`] like any other statement.

mod dbgen;
mod dsdgen;
mod fill;
mod queries;

pub use dbgen::{dbgen, TABLES};
pub use dsdgen::{dsdgen, tables as tpcds_tables};
pub use queries::{query, tpcds_query, QUERY_COUNT, TPCDS_QUERY_COUNT};
