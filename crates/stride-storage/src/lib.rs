//! Table storage. Every table is a list of row groups of up to
//! [`stride_common::MORSEL_SIZE`] rows, each a set of [`Column`]s: values in memory, or
//! a segment of the database file read on first use through the [`BufferPool`], with
//! a zone map ([`ZoneMap`]) that lets scans skip the group. A scan morsel is one row
//! group. Row groups are shared and their values never changed in place once shared,
//! so a snapshot is a list of pointers (readers, transactions' catalog forks,
//! checkpoints). A database file ([`DatabaseFile`]) keeps the catalog durable: a block
//! file with its last checkpoint (`block_file`, `checkpoint`, `compression`), the WAL
//! of commits since (`wal`), all through the file-system layer `fs`;
//! `docs/storage.md` has the bytes.
//!
//! [`Catalogs`] gathers the catalogs of every ATTACHed database for one statement.
//!
//! Where it sits: the binder learns schemas from the [`Catalog`] (through a trait the
//! SQL layer defines); the executor's scan reads row-group snapshots; INSERT and CREATE
//! TABLE AS append here. [`Table::distinct_estimate`] gives the optimizer column
//! statistics.

/// The cores checkpoints, bulk loads, DELETEs and UPDATEs spread row groups over.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

pub mod block_file;
pub mod buffer;
pub mod bulk_load;
mod catalog;
pub mod catalogs;
pub mod checkpoint;
pub mod column;
pub mod compression;
pub mod database_file;
pub mod fs;
pub mod inspect;
pub mod rebase;
pub mod row_ids;
pub mod sequence;
pub mod serialize;
pub mod size;
mod stats;
mod table;
pub mod wal;
pub mod zone_map;

pub use buffer::BufferPool;
pub use catalog::{Catalog, Macro, UserType, View};
pub use catalogs::Catalogs;
pub use column::Column;
pub use database_file::{apply_entry, DatabaseFile, Writer};
pub use sequence::{Sequence, SequenceOptions, SequenceState};
pub use table::{key_of, IndexInfo, RowGroup, Table};
pub use wal::{Recovery, WalEntry};
pub use zone_map::{Bounds, Key, ZoneFilter, ZoneMap, ZoneTest};
