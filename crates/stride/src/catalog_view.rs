//! The binder's view of storage: implements `stride_sql::Catalog` over the storage
//! catalog, so the SQL layer never depends on storage.

use std::sync::Arc;
use stride_common::{Error, Result, ScalarValue, TableSchema};
use stride_sql::catalog::{IndexEntry, ViewEntry};
use stride_storage::Catalog as StorageCatalog;

/// The catalog, and the database's name (`memory`, or a file's name without its
/// extension, as DuckDB names them) that qualified names may start with.
pub struct CatalogView<'a>(pub &'a StorageCatalog, pub &'a str);

impl stride_sql::Catalog for CatalogView<'_> {
    fn database_name(&self) -> String {
        self.1.to_string()
    }

    fn table(&self, name: &str) -> Option<(u64, Arc<TableSchema>)> {
        self.0.table(name).map(|t| (t.id, t.schema.clone()))
    }

    fn table_names(&self) -> Vec<String> {
        self.0.table_names()
    }

    fn view(&self, name: &str) -> Option<(String, Vec<String>)> {
        self.0.view(name).map(|v| (v.sql, v.columns))
    }

    fn row_count(&self, table_id: u64) -> usize {
        self.0.table_by_id(table_id).map_or(0, |t| t.row_count())
    }

    fn table_bytes(&self, table_id: u64) -> usize {
        self.0.table_by_id(table_id).map_or(0, |t| t.bytes())
    }

    fn tables(&self) -> Vec<(u64, Arc<TableSchema>)> {
        self.0
            .tables()
            .into_iter()
            .map(|t| (t.id, t.schema.clone()))
            .collect()
    }

    fn views(&self) -> Vec<ViewEntry> {
        self.0
            .views()
            .into_iter()
            .map(|v| ViewEntry {
                id: v.id,
                name: v.name,
                sql: v.sql,
                columns: v.columns,
            })
            .collect()
    }

    fn storage_info(&self, table_id: u64) -> Result<Vec<Vec<ScalarValue>>> {
        let t = self
            .0
            .table_by_id(table_id)
            .ok_or_else(|| Error::catalog("the table was dropped"))?;
        let int = |v: u64| ScalarValue::BigInt(v as i64);
        Ok(stride_storage::inspect::storage_info(&t)?
            .into_iter()
            .map(|s| {
                let column = &t.schema.columns[s.column];
                vec![
                    int(s.row_group as u64),
                    ScalarValue::Varchar(column.name.clone()),
                    int(s.column as u64),
                    ScalarValue::Varchar(column.ty.to_string()),
                    int(s.start),
                    int(s.count),
                    ScalarValue::Varchar(s.compression.into()),
                    ScalarValue::Varchar(s.stats),
                    ScalarValue::Boolean(s.persistent),
                    s.block.map_or(ScalarValue::Null, |(b, _)| int(b)),
                    s.block.map_or(ScalarValue::Null, |(_, o)| int(o as u64)),
                    int(s.size),
                ]
            })
            .collect())
    }

    fn integrity_check(&self) -> Vec<String> {
        stride_storage::inspect::integrity_check(self.0)
    }

    fn indexes(&self) -> Vec<IndexEntry> {
        self.0
            .tables()
            .into_iter()
            .flat_map(|t| {
                t.indexes().into_iter().map(move |i| IndexEntry {
                    id: i.id,
                    name: i.name,
                    table_id: t.id,
                    columns: i.columns,
                    unique: i.unique,
                })
            })
            .collect()
    }
}
