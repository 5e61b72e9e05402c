//! The binder's view of storage: implements `stride_sql::Catalog` over the storage
//! catalogs of a session's databases, so the SQL layer never depends on storage.

use std::sync::Arc;
use stride_common::memory::MemoryAccountant;
use stride_common::{Error, Result, ScalarValue, TableSchema};
use stride_sql::catalog::{DatabaseEntry, IndexEntry, SequenceEntry, ViewEntry};
use stride_storage::catalogs::global_id;
use stride_storage::Catalog as StorageCatalog;

/// One database as a statement sees it: its name in qualified table names (`memory`,
/// a file's stem, or an ATTACH alias), the slot its table ids carry, and the catalog
/// to read (a transaction's own copy, or the database's).
pub struct DatabaseView {
    pub entry: DatabaseEntry,
    pub slot: u64,
    pub catalog: Arc<StorageCatalog>,
}

/// The databases of a session, looked at from one of them (`at`): unqualified names
/// are its tables.
#[derive(Clone)]
pub struct CatalogView {
    all: Arc<Vec<DatabaseView>>,
    at: usize,
    /// The accountant every database of the session counts its memory in.
    memory: Arc<MemoryAccountant>,
}

impl CatalogView {
    pub fn new(all: Vec<DatabaseView>, at: usize, memory: Arc<MemoryAccountant>) -> CatalogView {
        CatalogView {
            all: Arc::new(all),
            at,
            memory,
        }
    }

    fn catalog(&self) -> &StorageCatalog {
        &self.all[self.at].catalog
    }

    fn id(&self, local: u64) -> u64 {
        global_id(self.all[self.at].slot, local)
    }

    fn sequence_entry(&self, s: &stride_storage::Sequence) -> SequenceEntry {
        let o = s.options;
        SequenceEntry {
            id: self.id(s.id),
            name: s.name.clone(),
            start: o.start,
            increment: o.increment,
            min: o.min,
            max: o.max,
            cycle: o.cycle,
            last: s.state().last,
            next: s.state().next,
        }
    }

    /// The table of an id this database handed out.
    fn table_by_id(&self, id: u64) -> Option<Arc<stride_storage::Table>> {
        self.catalog()
            .table_by_id(stride_storage::catalogs::local_id(id))
    }
}

impl stride_sql::Catalog for CatalogView {
    fn database_name(&self) -> String {
        self.all[self.at].entry.name.clone()
    }

    fn database(&self, name: &str) -> Option<Arc<dyn stride_sql::Catalog>> {
        let at = self
            .all
            .iter()
            .position(|d| d.entry.name.eq_ignore_ascii_case(name))?;
        Some(Arc::new(CatalogView {
            all: self.all.clone(),
            at,
            memory: self.memory.clone(),
        }))
    }

    fn memory(&self) -> Option<Arc<MemoryAccountant>> {
        Some(self.memory.clone())
    }

    fn databases(&self) -> Vec<DatabaseEntry> {
        self.all.iter().map(|d| d.entry.clone()).collect()
    }

    fn table(&self, name: &str) -> Option<(u64, Arc<TableSchema>)> {
        self.catalog()
            .table(name)
            .map(|t| (self.id(t.id), t.schema.clone()))
    }

    fn table_names(&self) -> Vec<String> {
        self.catalog().table_names()
    }

    fn view(&self, name: &str) -> Option<(String, Vec<String>)> {
        self.catalog().view(name).map(|v| (v.sql, v.columns))
    }

    fn row_count(&self, table_id: u64) -> usize {
        self.table_by_id(table_id).map_or(0, |t| t.row_count())
    }

    fn table_bytes(&self, table_id: u64) -> usize {
        self.table_by_id(table_id).map_or(0, |t| t.bytes())
    }

    fn tables(&self) -> Vec<(u64, Arc<TableSchema>)> {
        self.catalog()
            .tables()
            .into_iter()
            .map(|t| (self.id(t.id), t.schema.clone()))
            .collect()
    }

    fn macro_sql(&self, name: &str) -> Option<String> {
        self.catalog().macro_named(name).map(|m| m.sql)
    }

    fn macros(&self) -> Vec<String> {
        self.catalog().macros().into_iter().map(|m| m.sql).collect()
    }

    fn user_type(&self, name: &str) -> Option<stride_common::DataType> {
        self.catalog().type_named(name).map(|t| t.ty)
    }

    fn user_types(&self) -> Vec<(u64, String, stride_common::DataType)> {
        self.catalog()
            .types()
            .into_iter()
            .map(|t| (self.id(t.id), t.name, t.ty))
            .collect()
    }

    fn sequence(&self, name: &str) -> Option<SequenceEntry> {
        self.catalog()
            .sequence(name)
            .map(|s| self.sequence_entry(&s))
    }

    fn sequences(&self) -> Vec<SequenceEntry> {
        self.catalog()
            .sequences()
            .iter()
            .map(|s| self.sequence_entry(s))
            .collect()
    }

    fn views(&self) -> Vec<ViewEntry> {
        self.catalog()
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
        stride_storage::inspect::integrity_check(self.catalog())
    }

    fn indexes(&self) -> Vec<IndexEntry> {
        self.catalog()
            .tables()
            .into_iter()
            .flat_map(|t| {
                let table_id = self.id(t.id);
                t.indexes().into_iter().map(move |i| IndexEntry {
                    id: i.id,
                    name: i.name,
                    table_id,
                    columns: i.columns,
                    unique: i.unique,
                })
            })
            .collect()
    }
}
