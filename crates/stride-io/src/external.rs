//! Data held outside stride that can read only what a query needs: a pyarrow
//! Dataset (Parquet or CSV files), a polars LazyFrame. The embedding program
//! registers one on a connection (`RegisteredRelation` with external rows); the
//! physical planner hands its scan the columns the query reads and the simple
//! conditions of a filter directly above it that the source [`accepts`], and the
//! executor asks the source for those rows once, when the query runs.
//!
//! The filter above the scan still runs: a source may return rows that fail its
//! conditions, but it must never leave out a row that meets them, so a source
//! accepts only the conditions it evaluates exactly as stride does.
//!
//! [`accepts`]: ExternalSource::accepts

use std::fmt;
pub use stride_common::CompareOp;
use stride_common::{DataChunk, Result, ScalarValue};

/// What a [`SourceFilter`] checks of its column.
#[derive(Clone, Debug, PartialEq)]
pub enum SourceTest {
    Compare(CompareOp, ScalarValue),
    In(Vec<ScalarValue>),
    IsNull,
    IsNotNull,
}

/// A condition on one column of a source that every row of a query's answer meets.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceFilter {
    /// The column's position in the source's schema.
    pub column: usize,
    pub test: SourceTest,
}

impl SourceFilter {
    /// The condition as SQL, with the column named `name` (for EXPLAIN).
    pub fn describe(&self, name: &str) -> String {
        match &self.test {
            SourceTest::Compare(op, v) => format!("{name} {} {}", op.symbol(), literal(v)),
            SourceTest::In(list) => {
                let values: Vec<String> = list.iter().map(literal).collect();
                format!("{name} IN ({})", values.join(", "))
            }
            SourceTest::IsNull => format!("{name} IS NULL"),
            SourceTest::IsNotNull => format!("{name} IS NOT NULL"),
        }
    }
}

/// A constant as EXPLAIN shows it: text quoted, the rest as it prints.
fn literal(v: &ScalarValue) -> String {
    match v {
        ScalarValue::Varchar(s) => format!("'{}'", s.replace('\'', "''")),
        ScalarValue::Date(_) => format!("DATE '{v}'"),
        other => other.to_string(),
    }
}

/// Rows from outside stride, read when a query runs (see the module doc).
pub trait ExternalSource: Send + Sync {
    /// What the source is, as EXPLAIN names it ("pyarrow Dataset").
    fn kind(&self) -> String;
    /// Rows in the source, where it knows without reading them.
    fn estimated_rows(&self) -> Option<usize>;
    /// Whether the source evaluates `filter` exactly as stride does, so that it may
    /// be handed to [`ExternalSource::read`].
    fn accepts(&self, filter: &SourceFilter) -> bool;
    /// Reads `columns` (positions in the source's schema, in this order) of the rows
    /// that meet every condition of `filters` (each one the source accepts); rows
    /// that do not may come too.
    fn read(&self, columns: &[usize], filters: &[SourceFilter]) -> Result<Vec<DataChunk>>;
}

impl fmt::Debug for dyn ExternalSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ExternalSource({})", self.kind())
    }
}
