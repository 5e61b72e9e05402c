//! Columnar files as scan sources: what the planner and the executor need of a set
//! of Parquet or Arrow files, whatever the format.
//!
//! Where it sits: the binder opens the files (footers only) and puts the reader in
//! the logical plan; join ordering asks it for row and distinct-value estimates; the
//! executor runs one morsel (a Parquet row group, an Arrow record batch) per task,
//! skipping morsels whose statistics rule out a filter's rows.

use stride_common::{DataChunk, DataType, Result, ScalarValue};

pub trait ColumnarReader: Send + Sync {
    /// The table function that reads this format, as EXPLAIN names it (`READ_PARQUET`).
    fn function_name(&self) -> &'static str;
    /// The files, in the order their morsels are numbered.
    fn paths(&self) -> Vec<&str>;
    /// Column names and types (a `filename` column last when asked for).
    fn names(&self) -> &[String];
    fn types(&self) -> &[DataType];
    /// Rows in every file, from the footers.
    fn estimated_rows(&self) -> usize;
    /// Units of parallel work: row groups, record batches.
    fn morsels(&self) -> usize;
    /// Rows of morsel `m`.
    fn rows(&self, m: usize) -> usize;
    /// (smallest value, largest value, NULLs, rows) of column `c` in morsel `m`,
    /// where the file keeps statistics stride can use; lets a scan skip morsels no
    /// row of which can pass a filter.
    fn statistics(&self, _m: usize, _c: usize) -> Option<(ScalarValue, ScalarValue, u64, u64)> {
        None
    }
    /// An upper bound on the distinct values of column `c`, from statistics.
    fn distinct_estimate(&self, _c: usize) -> Option<f64> {
        None
    }
    /// Reads morsel `m`, producing `columns` (positions in [`ColumnarReader::names`]).
    fn produce(
        &self,
        m: usize,
        columns: &[usize],
        emit: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()>;

    fn schema(&self) -> Vec<(String, DataType)> {
        self.names()
            .iter()
            .cloned()
            .zip(self.types().iter().cloned())
            .collect()
    }
}
