//! File formats and Arrow interchange. Sits beside the SQL layer: the binder asks
//! this crate what a file holds (sniffing CSV dialect, header and column types;
//! reading a Parquet or Arrow file's footer) and the executor asks it for the rows of
//! one morsel of a file (a CSV byte range, a Parquet row group, an Arrow record
//! batch). Writers format query results back into files for `COPY … TO` (CSV,
//! Parquet, Arrow; Hive partition folders). `arrow.rs` converts chunks to Arrow
//! record batches and back, for the columnar files and for the Python package.
//!
//! Nothing here knows about plans or operators: a reader is told which columns to
//! produce and hands back [`stride_common::DataChunk`]s.

pub mod arrow;
pub mod arrow_file;
pub mod columnar;
pub mod csv;
pub mod external;
pub mod file;
pub mod hive;
pub mod json;
pub mod json_objects;
pub mod parquet;
