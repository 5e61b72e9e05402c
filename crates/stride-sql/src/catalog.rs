//! What the binder needs to know about stored tables. Defined here, implemented by the
//! facade over storage, so the SQL layer never depends on storage.

use std::sync::Arc;
use stride_common::{DataType, Result, ScalarValue, TableSchema};

/// The columns of `PRAGMA storage_info('t')` (DuckDB's names, and `segment_size`): one
/// row per segment, as [`Catalog::storage_info`] gives them.
pub const STORAGE_INFO_COLUMNS: &[(&str, DataType)] = &[
    ("row_group_id", DataType::BigInt),
    ("column_name", DataType::Varchar),
    ("column_id", DataType::BigInt),
    ("segment_type", DataType::Varchar),
    ("start", DataType::BigInt),
    ("count", DataType::BigInt),
    ("compression", DataType::Varchar),
    ("stats", DataType::Varchar),
    ("persistent", DataType::Boolean),
    ("block_id", DataType::BigInt),
    ("block_offset", DataType::BigInt),
    ("segment_size", DataType::BigInt),
];

/// A view as the catalog lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewEntry {
    /// Unique among the catalog's tables, views and indexes; stable while it exists.
    pub id: u64,
    pub name: String,
    pub sql: String,
    /// Names given to the query's columns (`CREATE VIEW v(a, b)`), if any.
    pub columns: Vec<String>,
}

/// A sequence as the catalog lists it (`duckdb_sequences()`), and as `nextval`
/// binds to it.
#[derive(Debug, Clone, PartialEq)]
pub struct SequenceEntry {
    /// Global: carries the database's slot, as table ids do.
    pub id: u64,
    pub name: String,
    pub start: i64,
    pub increment: i64,
    pub min: i64,
    pub max: i64,
    pub cycle: bool,
    /// The value the last `nextval` returned, if any.
    pub last: Option<i64>,
    /// The value the next `nextval` returns; `None` when the sequence is used up.
    pub next: Option<i64>,
}

/// The name of the connection's own in-memory database of TEMP tables and views
/// (DuckDB's `temp` catalog): searched before the current database for unqualified
/// names, and never written to a file.
pub const TEMP_DATABASE: &str = "temp";

/// Names no database opened or attached may take: they name schemas and the
/// connection's TEMP database.
pub const RESERVED_DATABASE_NAMES: &[&str] = &[
    "main",
    "pg_catalog",
    "information_schema",
    TEMP_DATABASE,
    "system",
];

/// The name of a database file's database, as DuckDB gives it: the file's name
/// without its extension, with `_db` after a reserved name (`temp.db` is `temp_db`,
/// not the TEMP database).
pub fn file_database_name(path: &str) -> String {
    let stem = std::path::Path::new(path)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    match RESERVED_DATABASE_NAMES
        .iter()
        .any(|r| r.eq_ignore_ascii_case(stem))
    {
        true => format!("{stem}_db"),
        false => stem.to_string(),
    }
}

/// A database the session can read: the one it was opened with, one ATTACHed, or the
/// connection's [`TEMP_DATABASE`].
#[derive(Debug, Clone, PartialEq)]
pub struct DatabaseEntry {
    pub name: String,
    /// The file's path; `None` for an in-memory database.
    pub path: Option<String>,
    pub read_only: bool,
    /// Whether this is the connection's database of TEMP tables and views.
    pub temporary: bool,
}

/// An index declared with CREATE INDEX.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexEntry {
    pub id: u64,
    pub name: String,
    pub table_id: u64,
    /// Positions of the indexed columns in the table.
    pub columns: Vec<usize>,
    pub unique: bool,
}

/// Runs a bound query to its rows while a statement is being bound: how binding learns
/// what only the data holds (the columns `PIVOT ... ON k` makes are k's distinct
/// values). The facade provides it; without one, such statements are refused.
pub trait PlanRunner {
    fn rows(&self, plan: crate::plan::LogicalPlan) -> Result<Vec<Vec<ScalarValue>>>;
}

pub trait Catalog {
    /// The database's name, which a qualified table name may start with
    /// (`memory.main.t`).
    fn database_name(&self) -> String;
    /// Another database of the session (ATTACH), by case-insensitive name; its table
    /// ids carry its own slot, so plans may mix tables of both.
    fn database(&self, name: &str) -> Option<Arc<dyn Catalog>>;
    /// Every database of the session: the one opened first, those ATTACHed, and last
    /// the connection's [`TEMP_DATABASE`] when it has one.
    fn databases(&self) -> Vec<DatabaseEntry>;
    /// The table's id and schema, by case-insensitive name.
    fn table(&self, name: &str) -> Option<(u64, Arc<TableSchema>)>;
    /// Every table name, for "did you mean" suggestions and SHOW TABLES.
    fn table_names(&self) -> Vec<String>;
    /// A view's SQL text and column names, by case-insensitive name.
    fn view(&self, name: &str) -> Option<(String, Vec<String>)>;
    /// Rows the table holds now, for the optimizer's estimates.
    fn row_count(&self, table_id: u64) -> usize;
    /// Bytes the table's stored values take (`pg_table_size`, psql's `\dt+`).
    fn table_bytes(&self, table_id: u64) -> usize;
    /// Every table with its id (for the system catalog: pg_class, information_schema).
    fn tables(&self) -> Vec<(u64, Arc<TableSchema>)>;
    /// Every view.
    fn views(&self) -> Vec<ViewEntry>;
    /// A macro's stored text (its CREATE MACRO statement), by case-insensitive name.
    fn macro_sql(&self, _name: &str) -> Option<String> {
        None
    }
    /// Every macro's stored text.
    fn macros(&self) -> Vec<String> {
        Vec::new()
    }
    /// A sequence, by case-insensitive name.
    fn sequence(&self, _name: &str) -> Option<SequenceEntry> {
        None
    }
    /// Every sequence.
    fn sequences(&self) -> Vec<SequenceEntry> {
        Vec::new()
    }
    /// A type created by `CREATE TYPE`, by case-insensitive name: an ENUM carrying
    /// the name, or the type an alias stands for.
    fn user_type(&self, _name: &str) -> Option<DataType> {
        None
    }
    /// Every type created by `CREATE TYPE`: its id, its name as created and the
    /// type, in name order.
    fn user_types(&self) -> Vec<(u64, String, DataType)> {
        Vec::new()
    }
    /// The database's memory accountant (`stride_memory()`, `duckdb_memory()`).
    fn memory(&self) -> Option<Arc<stride_common::memory::MemoryAccountant>> {
        None
    }
    /// Every index.
    fn indexes(&self) -> Vec<IndexEntry>;
    /// The table's segments, one row of [`STORAGE_INFO_COLUMNS`] each.
    fn storage_info(&self, table_id: u64) -> Result<Vec<Vec<ScalarValue>>>;
    /// What is wrong with the stored data (`PRAGMA integrity_check`); empty when all
    /// is well.
    fn integrity_check(&self) -> Vec<String>;
}
