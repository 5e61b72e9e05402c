//! Table storage. For now every table lives in memory as a list of row groups of up to
//! [`stride_common::MORSEL_SIZE`] rows, each a set of column vectors; a scan morsel is
//! one row group. Persistent single-file storage (segments, compression, WAL) will
//! replace the inside of [`Table`] without changing its interface.
//!
//! Where it sits: the binder learns schemas from the [`Catalog`] (through a trait the
//! SQL layer defines); the executor's scan reads row-group snapshots; INSERT and CREATE
//! TABLE AS append here. [`Table::distinct_estimate`] gives the optimizer column
//! statistics.

pub mod block_file;
mod catalog;
pub mod checkpoint;
pub mod compression;
pub mod database_file;
pub mod fs;
pub mod serialize;
pub mod size;
mod stats;
mod table;
pub mod wal;

pub use catalog::{Catalog, View};
pub use database_file::{apply_entry, DatabaseFile, Writer};
pub use table::{row_groups_of, IndexInfo, RowGroup, Table};
pub use wal::{Recovery, WalEntry};
