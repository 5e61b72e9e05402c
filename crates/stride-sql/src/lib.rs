//! The SQL front-end: text in, logical plan out.
//!
//! 1. [`parser`] turns SQL text into `sqlparser` statements (DuckDB dialect).
//! 2. [`binder`] resolves names against a [`Catalog`], checks and infers types, and
//!    produces a [`binder::BoundStatement`] holding [`plan::LogicalPlan`]s.
//! 3. [`optimizer`] rewrites logical plans, one named pass per file.
//!
//! This crate knows storage only through the [`Catalog`] trait it defines; the facade
//! implements it. Execution (stride-exec) consumes the logical plans.

pub mod binder;
pub mod catalog;
mod cte_materialized;
mod frame_exclude;
pub mod literal_insert;
mod map_types;
pub mod optimizer;
pub mod parser;
mod pivot_syntax;
pub mod plan;
mod prefix_alias;
mod sequence_syntax;
pub mod system;
mod type_syntax;
mod variable_syntax;

pub use catalog::Catalog;
