//! The vocabulary every layer of stride speaks: logical types ([`DataType`]), single
//! values ([`ScalarValue`]), columnar [`Vector`]s with validity masks, [`DataChunk`]s of
//! up to [`VECTOR_SIZE`] rows, the one typed [`Error`], and session [`Settings`].
//!
//! This crate sits at the bottom of the workspace: a query's values are born here (a
//! literal becomes a `ScalarValue`, a scan fills a `Vector`) and leave through here (a
//! result is a stream of `DataChunk`s). Everything above depends on it, so it stays
//! small and changes rarely.

pub mod bit;
pub mod blob;
pub mod buffer;
pub mod chunk;
pub mod collation;
pub mod compare;
pub mod enum_type;
pub mod error;
pub mod flip128;
pub mod interval;
pub mod memory;
pub mod process;
pub mod scalar;
pub mod schema;
pub mod selection;
pub mod settings;
pub mod sketch;
pub mod string_view;
pub mod temporal;
pub mod time_tz;
pub mod time_unit;
pub mod types;
pub mod union_type;
pub mod uuid;
pub mod validity;
pub mod vector;
pub mod workers;
pub mod zone;

pub use buffer::Buffer;
pub use chunk::DataChunk;
pub use collation::Collation;
pub use compare::CompareOp;
pub use enum_type::EnumType;
pub use error::{Error, ErrorKind, Result};
pub use interval::Interval;
pub use scalar::ScalarValue;
pub use schema::{CheckConstraint, ColumnSchema, TableAlteration, TableSchema};
pub use selection::SelectionVector;
pub use settings::Settings;
pub use string_view::{StringVector, StringView};
pub use types::{DataType, PhysicalType};
pub use validity::Validity;
pub use vector::{Vector, VectorData};

/// Rows per vector and per chunk: small enough to stay in L1/L2 cache, large enough to
/// amortise per-chunk overhead.
pub const VECTOR_SIZE: usize = 2048;

/// Rows per morsel (one row group): the unit of work a worker thread pulls.
pub const MORSEL_SIZE: usize = 122_880;
