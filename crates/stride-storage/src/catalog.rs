//! The catalog of tables of one database: names (case-insensitive, as in DuckDB)
//! mapped to tables.

use crate::table::Table;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use stride_common::{Error, Result, TableSchema};

#[derive(Default)]
pub struct Catalog {
    tables: RwLock<BTreeMap<String, Arc<Table>>>,
    next_id: AtomicU64,
}

impl Catalog {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn table(&self, name: &str) -> Option<Arc<Table>> {
        self.tables
            .read()
            .ok()?
            .get(&name.to_ascii_lowercase())
            .cloned()
    }

    pub fn table_by_id(&self, id: u64) -> Option<Arc<Table>> {
        self.tables
            .read()
            .ok()?
            .values()
            .find(|t| t.id == id)
            .cloned()
    }

    pub fn table_names(&self) -> Vec<String> {
        self.tables
            .read()
            .map(|t| t.values().map(|t| t.schema.name.clone()).collect())
            .unwrap_or_default()
    }

    /// Creates a table; with `replace`, an existing one of that name is dropped first.
    pub fn create_table(&self, schema: TableSchema, replace: bool) -> Result<Arc<Table>> {
        let key = schema.name.to_ascii_lowercase();
        let mut tables = self
            .tables
            .write()
            .map_err(|_| Error::internal("catalog lock poisoned"))?;
        if tables.contains_key(&key) && !replace {
            return Err(Error::catalog(format!(
                "Table with name \"{}\" already exists!",
                schema.name
            )));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let table = Arc::new(Table::new(id, schema));
        tables.insert(key, table.clone());
        Ok(table)
    }

    /// The table holding the index `name`.
    pub fn index_table(&self, name: &str) -> Option<Arc<Table>> {
        let tables = self.tables.read().ok()?;
        tables
            .values()
            .find(|t| {
                t.indexes()
                    .iter()
                    .any(|i| i.name.eq_ignore_ascii_case(name))
            })
            .cloned()
    }

    /// Removes a table; `Ok(false)` when it did not exist.
    pub fn drop_table(&self, name: &str) -> Result<bool> {
        let mut tables = self
            .tables
            .write()
            .map_err(|_| Error::internal("catalog lock poisoned"))?;
        Ok(tables.remove(&name.to_ascii_lowercase()).is_some())
    }
}
