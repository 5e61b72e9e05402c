//! `information_schema`: the SQL standard's catalog views (`schemata`, `tables`,
//! `columns`, `views`, `sequences`, `table_constraints`, `key_column_usage`), filled from a [`Snapshot`] with PostgreSQL's spellings of
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
    table!(
        "sequences",
        [
            ("sequence_catalog", Text),
            ("sequence_schema", Text),
            ("sequence_name", Text),
            ("data_type", Text),
            ("numeric_precision", Int4),
            ("numeric_precision_radix", Int4),
            ("numeric_scale", Int4),
            ("start_value", Text),
            ("minimum_value", Text),
            ("maximum_value", Text),
            ("increment", Text),
            ("cycle_option", Text),
        ],
        sequences
    ),
    table!(
        "table_constraints",
        [
            ("constraint_catalog", Text),
            ("constraint_schema", Text),
            ("constraint_name", Text),
            ("table_catalog", Text),
            ("table_schema", Text),
            ("table_name", Text),
            ("constraint_type", Text),
            ("is_deferrable", Text),
            ("initially_deferred", Text),
            ("enforced", Text),
            ("nulls_distinct", Text),
        ],
        table_constraints
    ),
    table!(
        "key_column_usage",
        [
            ("constraint_catalog", Text),
            ("constraint_schema", Text),
            ("constraint_name", Text),
            ("table_catalog", Text),
            ("table_schema", Text),
            ("table_name", Text),
            ("column_name", Text),
            ("ordinal_position", Int4),
            ("position_in_unique_constraint", Int4),
        ],
        key_column_usage
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

/// Tables and views (not indexes or sequences), as information_schema lists
/// relations.
fn listed(s: &Snapshot) -> impl Iterator<Item = &Relation> {
    s.relations
        .iter()
        .filter(|r| matches!(r.kind, RelKind::Table | RelKind::View))
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
            .filter(|r| matches!(r.kind, RelKind::Table | RelKind::View))
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

/// Sequences, as 64-bit integers counting by their increment.
fn sequences(s: &Snapshot) -> Rows {
    s.relations
        .iter()
        .filter_map(|r| Some((r, r.sequence.as_ref()?)))
        .map(|(r, q)| {
            vec![
                text(&s.database),
                text(s.namespace_name(r.namespace).unwrap_or("")),
                text(&r.name),
                text("bigint"),
                int4(64),
                int4(2),
                int4(0),
                text(q.start.to_string()),
                text(q.min.to_string()),
                text(q.max.to_string()),
                text(q.increment.to_string()),
                text(yes_no(q.cycle)),
            ]
        })
        .collect()
}

/// The tables' PRIMARY KEY, UNIQUE and CHECK constraints (PostgreSQL also lists
/// each NOT NULL column as a CHECK constraint; stride does not).
fn table_constraints(s: &Snapshot) -> Rows {
    let mut rows = Vec::new();
    for r in s.relations.iter().filter(|r| r.kind == RelKind::Table) {
        let schema = s.namespace_name(r.namespace).unwrap_or("");
        for c in r.constraints() {
            let kind = match c.kind {
                "p" => "PRIMARY KEY",
                "u" => "UNIQUE",
                _ => "CHECK",
            };
            rows.push(vec![
                text(&s.database),
                text(schema),
                text(c.name),
                text(&s.database),
                text(schema),
                text(&r.name),
                text(kind),
                text("NO"),
                text("NO"),
                text("YES"),
                if c.kind == "c" { null() } else { text("YES") },
            ]);
        }
    }
    rows
}

/// The columns of the tables' PRIMARY KEY and UNIQUE constraints, in key order.
fn key_column_usage(s: &Snapshot) -> Rows {
    let mut rows = Vec::new();
    for r in s.relations.iter().filter(|r| r.kind == RelKind::Table) {
        let schema = s.namespace_name(r.namespace).unwrap_or("");
        for c in r.constraints() {
            for (k, &a) in c.columns.iter().enumerate() {
                let Some(column) = r.columns.get((a - 1) as usize) else {
                    continue;
                };
                rows.push(vec![
                    text(&s.database),
                    text(schema),
                    text(&c.name),
                    text(&s.database),
                    text(schema),
                    text(&r.name),
                    text(&column.name),
                    int4(k as i32 + 1),
                    null(),
                ]);
            }
        }
    }
    rows
}
