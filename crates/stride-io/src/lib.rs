//! File formats and Arrow interchange. Sits beside the SQL layer: the binder asks
//! this crate what a file holds (sniffing CSV dialect, header and column types;
//! reading a Parquet footer) and the executor asks it for the rows of one morsel of a
//! file (a CSV byte range, a Parquet row group). Writers format query results back
//! into files for `COPY … TO` (CSV, Parquet). `arrow.rs` converts chunks to Arrow
//! record batches and back, for Parquet and for the Python package.
//!
//! Nothing here knows about plans or operators: a reader is told which columns to
//! produce and hands back [`stride_common::DataChunk`]s.

pub mod arrow;
pub mod arrow_file;
pub mod columnar;
pub mod csv;
pub mod file;
pub mod hive;
pub mod parquet;
