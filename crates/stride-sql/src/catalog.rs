//! What the binder needs to know about stored tables. Defined here, implemented by the
//! facade over storage, so the SQL layer never depends on storage.

use std::sync::Arc;
use stride_common::TableSchema;

pub trait Catalog {
    /// The table's id and schema, by case-insensitive name.
    fn table(&self, name: &str) -> Option<(u64, Arc<TableSchema>)>;
    /// Every table name, for "did you mean" suggestions and SHOW TABLES.
    fn table_names(&self) -> Vec<String>;
    /// A view's SQL text and column names, by case-insensitive name.
    fn view(&self, name: &str) -> Option<(String, Vec<String>)>;
    /// Rows the table holds now, for the optimizer's estimates.
    fn row_count(&self, table_id: u64) -> usize;
}
