//! `information_schema`: the SQL standard's catalog views (`schemata`, `tables`,
//! `columns`, `views`), filled from a [`Snapshot`] with PostgreSQL's spellings of
//! types (`integer`, `character varying`, `numeric`).

use super::snapshot::*;
use super::value::*;
use super::{Rows, SystemTable, Ty};
use stride_common::DataType;
use stride_functions::pg_types;

use Ty::*;

macro_rules! table {
    ($name:literal, [$(($col:literal, $ty:expr)),* $(,)?], $rows:expr) => {
        SystemTable {
            namespace: INFORMATION_SCHEMA_OID,
            name: $name,
            columns: &[$(($col, $ty)),*],
            rows: $rows,
        }
    };
}

pub const TABLES: &[SystemTable] = &[
    table!(
        "schemata",
        [
            ("catalog_name", Text),
            ("schema_name", Text),
            ("schema_owner", Text),
            ("default_character_set_catalog", Text),
            ("default_character_set_schema", Text),
            ("default_character_set_name", Text),
            ("sql_path", Text),
        ],
        schemata
    ),
    table!(
        "tables",
        [
            ("table_catalog", Text),
            ("table_schema", Text),
            ("table_name", Text),
            ("table_type", Text),
            ("self_referencing_column_name", Text),
            ("reference_generation", Text),
            ("user_defined_type_catalog", Text),
            ("user_defined_type_schema", Text),
            ("user_defined_type_name", Text),
            ("is_insertable_into", Text),
            ("is_typed", Text),
            ("commit_action", Text),
        ],
        tables
    ),
    table!(
        "columns",
        [
            ("table_catalog", Text),
            ("table_schema", Text),
            ("table_name", Text),
            ("column_name", Text),
            ("ordinal_position", Int4),
            ("column_default", Text),
            ("is_nullable", Text),
            ("data_type", Text),
            ("character_maximum_length", Int4),
            ("character_octet_length", Int4),
            ("numeric_precision", Int4),
            ("numeric_precision_radix", Int4),
            ("numeric_scale", Int4),
            ("datetime_precision", Int4),
            ("interval_type", Text),
            ("interval_precision", Int4),
            ("udt_catalog", Text),
            ("udt_schema", Text),
            ("udt_name", Text),
            ("is_identity", Text),
            ("is_generated", Text),
            ("is_updatable", Text),
        ],
        columns
    ),
    table!(
        "views",
        [
            ("table_catalog", Text),
            ("table_schema", Text),
            ("table_name", Text),
            ("view_definition", Text),
            ("check_option", Text),
            ("is_updatable", Text),
            ("is_insertable_into", Text),
            ("is_trigger_updatable", Text),
            ("is_trigger_deletable", Text),
            ("is_trigger_insertable_into", Text),
        ],
        views
    ),
];

fn yes_no(b: bool) -> &'static str {
    if b {
        "YES"
    } else {
        "NO"
    }
}

fn schemata(s: &Snapshot) -> Rows {
    NAMESPACES
        .iter()
        .map(|n| {
            vec![
                text(&s.database),
                text(n.name),
                text(OWNER_NAME),
                null(),
                null(),
                null(),
                null(),
            ]
        })
        .collect()
}

/// Tables and views (not indexes), as information_schema lists relations.
fn listed(s: &Snapshot) -> impl Iterator<Item = &Relation> {
    s.relations.iter().filter(|r| r.kind != RelKind::Index)
}

/// The system tables (in the current database), then every database's tables and
/// views, as DuckDB lists them: a TEMP table's type is `LOCAL TEMPORARY`.
fn tables(s: &Snapshot) -> Rows {
    let system = listed(s)
        .filter(|r| r.system)
        .map(|r| (&s.database, false, r));
    let user = s.databases.iter().flat_map(|d| {
        d.relations
            .iter()
            .filter(|r| r.kind != RelKind::Index)
            .map(move |r| (&d.name, d.temporary, r))
    });
    system
        .chain(user)
        .map(|(database, temporary, r)| {
            let table = r.kind == RelKind::Table;
            let kind = match (table, temporary) {
                (false, _) => "VIEW",
                (true, false) => "BASE TABLE",
                (true, true) => "LOCAL TEMPORARY",
            };
            vec![
                text(database),
                text(s.namespace_name(r.namespace).unwrap_or("")),
                text(&r.name),
                text(kind),
                null(),
                null(),
                null(),
                null(),
                null(),
                text(yes_no(table && r.is_user())),
                text("NO"),
                null(),
            ]
        })
        .collect()
}

/// `data_type` as the standard names it: arrays are ARRAY.
fn data_type_name(ty: &DataType) -> String {
    match ty {
        DataType::List(_) => "ARRAY".into(),
        // PostgreSQL's enums are user types named by their own names; DuckDB's label
        DataType::Enum(_) => ty.to_string(),
        t => pg_types::format_type(pg_types::oid_of(t), None),
    }
}

fn columns(s: &Snapshot) -> Rows {
    let mut rows = Vec::new();
    for r in listed(s) {
        let schema = s.namespace_name(r.namespace).unwrap_or("");
        for (i, c) in r.columns.iter().enumerate() {
            let int = |v: Option<i32>| v.map_or(null(), int4);
            let (precision, radix, scale) = match &c.ty {
                DataType::TinyInt | DataType::SmallInt => (Some(16), Some(2), Some(0)),
                DataType::Integer => (Some(32), Some(2), Some(0)),
                DataType::BigInt => (Some(64), Some(2), Some(0)),
                DataType::HugeInt => (Some(128), Some(2), Some(0)),
                DataType::Real => (Some(24), Some(2), None),
                DataType::Double => (Some(53), Some(2), None),
                DataType::Decimal(p, s) => (Some(*p as i32), Some(10), Some(*s as i32)),
                _ => (None, None, None),
            };
            let datetime = match &c.ty {
                DataType::Date => Some(0),
                DataType::Timestamp
                | DataType::TimestampTz
                | DataType::Time
                | DataType::Interval => Some(6),
                _ => None,
            };
            let udt = pg_types::by_oid(pg_types::oid_of(&c.ty)).map_or("", |t| t.name);
            rows.push(vec![
                text(&s.database),
                text(schema),
                text(&r.name),
                text(&c.name),
                int4(i as i32 + 1),
                c.duckdb_default.as_deref().map_or(null(), text),
                text(yes_no(!c.not_null)),
                text(data_type_name(&c.ty)),
                null(),
                if c.ty == DataType::Varchar {
                    int4(1 << 30)
                } else {
                    null()
                },
                int(precision),
                int(radix),
                int(scale),
                int(datetime),
                null(),
                null(),
                text(&s.database),
                text("pg_catalog"),
                text(udt),
                text("NO"),
                text("NEVER"),
                text(yes_no(r.kind == RelKind::Table && r.is_user())),
            ]);
        }
    }
    rows
}

fn views(s: &Snapshot) -> Rows {
    s.relations
        .iter()
        .filter(|r| r.kind == RelKind::View)
        .map(|r| {
            vec![
                text(&s.database),
                text(s.namespace_name(r.namespace).unwrap_or("")),
                text(&r.name),
                r.view_sql.as_deref().map_or(null(), text),
                text("NONE"),
                text("NO"),
                text("NO"),
                text("NO"),
                text("NO"),
                text("NO"),
            ]
        })
        .collect()
}
