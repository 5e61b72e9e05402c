//! stride's embedded API: open a [`Database`], [`connect`](Database::connect), and run
//! SQL on the [`Connection`]. This crate wires the layers together; a statement's life
//! is, in order:
//!
//! 1. `stride_sql::parser` parses the text;
//! 2. `stride_sql::binder` binds it against the catalog (storage, seen through
//!    [`catalog_view::CatalogView`]);
//! 3. `stride_sql::optimizer` rewrites the logical plan;
//! 4. `stride_exec::planner` picks physical operators;
//! 5. `stride_exec::executor` runs pipelines on worker threads and streams chunks into
//!    a [`QueryResult`].
//!
//! ```no_run
//! let db = stride::Database::open_in_memory()?;
//! let conn = db.connect()?;
//! for row in conn.query("SELECT 42 AS answer")?.rows() {
//!     println!("{:?}", row?);
//! }
//! # Ok::<(), stride::Error>(())
//! ```

mod catalog_view;
mod connection;
pub mod copy;
mod databases;
pub mod render;
mod result;
mod split;

pub use connection::{Connection, Database, InterruptHandle, ProgressHandle};
pub use result::QueryResult;
pub use split::{split_statements, Scanner};
pub use stride_common::bit;
pub use stride_common::blob;
pub use stride_common::interval;
pub use stride_common::temporal;
pub use stride_common::time_tz;
pub use stride_common::time_unit;
pub use stride_common::{DataChunk, DataType, Error, ErrorKind, Result, ScalarValue, Vector};
pub use stride_exec::WouldBlock;
/// Casts a value to another type, as SQL's CAST does (the server's parameters).
pub use stride_functions::cast_typed_scalar;
/// PostgreSQL's type OIDs and names for stride's types (the server and `pg_type`).
pub use stride_functions::pg_types;
pub use stride_io::external::{CompareOp, ExternalSource, SourceFilter, SourceTest};
pub use stride_sql::plan::{RegisteredRelation, RegisteredRows};
/// The file-system layer database files are read and written through.
pub use stride_storage::fs;
pub use stride_storage::Recovery;
