//! File formats. Sits beside the SQL layer: the binder asks this crate what a file
//! holds (sniffing CSV dialect, header and column types) and the executor asks it for
//! the rows of one morsel of a file. Writers format query results back into files
//! for `COPY … TO`.
//!
//! Nothing here knows about plans or operators: a reader is told which columns to
//! produce and hands back [`stride_common::DataChunk`]s.

pub mod arrow;
pub mod csv;
pub mod file;
pub mod parquet;
