//! The system catalog: the `pg_catalog` and `information_schema` tables PostgreSQL
//! clients read to learn what a database holds (psql's `\d`, drivers, ORMs, GUI
//! tools), and that SQL users can query like any table.
//!
//! Where it sits in a query's life: binding (step 3). When FROM names one of these
//! tables (`pg_catalog.pg_class`, or just `pg_class` when no table of the user has that
//! name; `information_schema.*` only qualified), the binder takes a [`Snapshot`] of the
//! catalog (once per statement) and binds the table as VALUES rows built from it, so
//! joins, filters and subqueries over it are ordinary plans. Functions that need the
//! catalog (`pg_table_is_visible`, `pg_get_viewdef`, `'t'::regclass`, ...) are bound
//! from the same snapshot (`binder/system.rs`).
//!
//! Every table reflects the real catalog: the user's tables, views, columns and
//! indexes, the system tables themselves, and stride's types and settings. Tables for
//! features stride does not have (inheritance, publications, extended statistics,
//! comments) exist so client queries run, and are empty because there is nothing to
//! list. Columns are those clients read; oid columns are BIGINT, names VARCHAR, arrays
//! LISTs.

pub mod duckdb_functions;
mod information_schema;
pub mod pg_catalog;
pub mod pg_proc;
pub mod snapshot;

pub use snapshot::Snapshot;

use snapshot::{INFORMATION_SCHEMA_OID, PG_CATALOG_OID, SYSTEM_OID_BASE};
use stride_common::{DataType, ScalarValue};

/// Column types of system tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    Bool,
    Int2,
    Int4,
    Int8,
    /// Object identifiers (PostgreSQL's `oid`).
    Oid,
    Float4,
    Text,
    TextList,
    Int2List,
    OidList,
}

impl Ty {
    pub fn data_type(self) -> DataType {
        match self {
            Ty::Bool => DataType::Boolean,
            Ty::Int2 => DataType::SmallInt,
            Ty::Int4 => DataType::Integer,
            Ty::Int8 => DataType::BigInt,
            Ty::Oid => DataType::BigInt,
            Ty::Float4 => DataType::Real,
            Ty::Text => DataType::Varchar,
            Ty::TextList => DataType::List(Box::new(DataType::Varchar)),
            Ty::Int2List => DataType::List(Box::new(DataType::SmallInt)),
            Ty::OidList => DataType::List(Box::new(DataType::BigInt)),
        }
    }
}

pub type Rows = Vec<Vec<ScalarValue>>;

/// One system table: where it lives, its columns, and how its rows come from a
/// snapshot.
pub struct SystemTable {
    pub namespace: i64,
    pub name: &'static str,
    pub columns: &'static [(&'static str, Ty)],
    pub rows: fn(&Snapshot) -> Rows,
}

impl SystemTable {
    pub fn schema_name(&self) -> &'static str {
        if self.namespace == INFORMATION_SCHEMA_OID {
            "information_schema"
        } else {
            "pg_catalog"
        }
    }
}

/// Every system table: pg_catalog's, then information_schema's. Their OIDs follow
/// this order.
pub fn tables() -> impl Iterator<Item = &'static SystemTable> {
    pg_catalog::TABLES
        .iter()
        .chain(information_schema::TABLES.iter())
}

/// The OID of a system table.
pub fn table_oid(t: &SystemTable) -> i64 {
    let pos = tables()
        .position(|x| std::ptr::eq(x, t))
        .expect("a system table is listed");
    SYSTEM_OID_BASE + pos as i64
}

/// The system table `schema.name` names: with a schema, pg_catalog's or
/// information_schema's; without one, pg_catalog's (as PostgreSQL searches it first).
pub fn find(schema: Option<&str>, name: &str) -> Option<&'static SystemTable> {
    let ns = match schema.map(|s| s.to_ascii_lowercase()) {
        None => PG_CATALOG_OID,
        Some(s) if s == "pg_catalog" => PG_CATALOG_OID,
        Some(s) if s == "information_schema" => INFORMATION_SCHEMA_OID,
        Some(_) => return None,
    };
    tables().find(|t| t.namespace == ns && t.name.eq_ignore_ascii_case(name))
}

/// Whether `schema` is one of the system schemas.
pub fn is_system_schema(schema: &str) -> bool {
    schema.eq_ignore_ascii_case("pg_catalog") || schema.eq_ignore_ascii_case("information_schema")
}

/// Values for rows, by column type.
pub(crate) mod value {
    use stride_common::{DataType, ScalarValue};

    pub fn oid(v: i64) -> ScalarValue {
        ScalarValue::BigInt(v)
    }

    pub fn text(s: impl Into<String>) -> ScalarValue {
        ScalarValue::Varchar(s.into())
    }

    pub fn boolean(b: bool) -> ScalarValue {
        ScalarValue::Boolean(b)
    }

    pub fn int2(v: i16) -> ScalarValue {
        ScalarValue::SmallInt(v)
    }

    pub fn int8(v: i64) -> ScalarValue {
        ScalarValue::BigInt(v)
    }

    pub fn int4(v: i32) -> ScalarValue {
        ScalarValue::Integer(v)
    }

    pub fn null() -> ScalarValue {
        ScalarValue::Null
    }

    pub fn int2_list(v: &[i16]) -> ScalarValue {
        ScalarValue::List(
            DataType::SmallInt,
            v.iter().map(|&x| ScalarValue::SmallInt(x)).collect(),
        )
    }

    pub fn oid_list(v: &[i64]) -> ScalarValue {
        ScalarValue::List(
            DataType::BigInt,
            v.iter().map(|&x| ScalarValue::BigInt(x)).collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every table's rows match its columns, over a snapshot with one of everything.
    #[test]
    fn rows_match_columns() {
        let snap = snapshot::tests::sample();
        for t in tables() {
            let rows = (t.rows)(&snap);
            for r in &rows {
                assert_eq!(r.len(), t.columns.len(), "{}", t.name);
                for (v, (c, ty)) in r.iter().zip(t.columns) {
                    if !v.is_null() {
                        assert_eq!(v.data_type(), ty.data_type(), "{}.{c}", t.name);
                    }
                }
            }
        }
        assert!(find(None, "pg_class").is_some());
        assert!(find(Some("information_schema"), "tables").is_some());
        assert!(find(None, "tables").is_none());
        let oids: std::collections::HashSet<i64> = tables().map(table_oid).collect();
        assert_eq!(oids.len(), tables().count());
    }
}
