//! The optimizer's view of stored data ([`stride_sql::optimizer::Statistics`]),
//! answered from the storage catalog: distinct-value estimates of table columns, and
//! their ranges of values from the row groups' zone maps.

use stride_common::ScalarValue;
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

    fn range_fraction(
        &self,
        table_id: u64,
        column: usize,
        lo: Option<&ScalarValue>,
        hi: Option<&ScalarValue>,
    ) -> Option<f64> {
        self.0.table_by_id(table_id)?.range_fraction(column, lo, hi)
    }
}
