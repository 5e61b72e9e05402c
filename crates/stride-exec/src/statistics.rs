//! The optimizer's view of stored data ([`stride_sql::optimizer::Statistics`]),
//! answered from the storage catalog: distinct-value estimates of table columns.

use stride_sql::optimizer::Statistics;
use stride_storage::Catalogs;

pub struct TableStatistics<'a>(pub &'a Catalogs);

impl Statistics for TableStatistics<'_> {
    fn distinct_values(&self, table_id: u64, column: usize) -> Option<f64> {
        self.0
            .table_by_id(table_id)
            .filter(|t| column < t.schema.columns.len())
            .map(|t| t.distinct_estimate(column))
    }
}
