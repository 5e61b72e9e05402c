//! DuckDB's system table functions over the catalog and the session:
//! `duckdb_tables()`, `duckdb_columns()`, `duckdb_views()`, `duckdb_schemas()`,
//! `duckdb_indexes()`, `duckdb_types()`, `duckdb_settings()`, `duckdb_optimizers()`,
//! `duckdb_sequences()`, the always-empty `duckdb_extensions()`,
//! `duckdb_temporary_files()` and `duckdb_variables()` (stride has no extensions,
//! spill files listed there, or variables of that kind) and `duckdb_triggers()` (nor triggers),
//! `duckdb_dependencies()` (each index depends on its table, deptype 'a'),
//! `duckdb_memory()` (DuckDB's memory tags, filled in from the tables' bytes and the
//! memory accountant's parts: estimates, not the allocator's count),
//! `stride_memory()` (what each part of the memory accountant holds, and a total
//! with the bytes in spill files), and `pragma_version()`,
//! `pragma_platform()`, `pragma_user_agent()`.
//!
//! Where it sits: binding FROM (`from.rs` asks [`Binder::duckdb_table_function`]);
//! each binds to VALUES rows built from the statement's catalog snapshot
//! (`system/snapshot.rs`), like `duckdb_databases()`. Columns are DuckDB's, less
//! those of types stride lacks (the MAP `tags`, the VARIANT `typed_value`); objects
//! of the system schemas (pg_catalog, information_schema) are left out.

use super::Binder;
use crate::plan::{Field, LogicalPlan};
use crate::system::snapshot::{
    DatabaseObjects, RelKind, Relation, DATABASE_OID, MAIN_NAMESPACE_OID, NAMESPACES,
    PG_CATALOG_OID,
};
use stride_common::memory::MemoryTag;
use stride_common::time_unit::TimeUnit;
use stride_common::{DataType, Result, ScalarValue};
use stride_functions::scalar::meta::SCHEMA_NAME;

/// The names [`Binder::duckdb_table_function`] binds.
pub(crate) const DUCKDB_TABLE_FUNCTIONS: &[&str] = &[
    "duckdb_tables",
    "duckdb_columns",
    "duckdb_views",
    "duckdb_schemas",
    "duckdb_indexes",
    "duckdb_types",
    "duckdb_settings",
    "duckdb_optimizers",
    "duckdb_sequences",
    "duckdb_extensions",
    "duckdb_temporary_files",
    "duckdb_variables",
    "duckdb_triggers",
    "duckdb_dependencies",
    "duckdb_memory",
    "stride_memory",
    "pragma_version",
    "pragma_platform",
    "pragma_user_agent",
];

fn text(s: impl Into<String>) -> ScalarValue {
    ScalarValue::Varchar(s.into())
}

fn big(v: i64) -> ScalarValue {
    ScalarValue::BigInt(v)
}

fn list(v: Vec<String>) -> ScalarValue {
    ScalarValue::List(
        DataType::Varchar,
        v.into_iter().map(ScalarValue::Varchar).collect(),
    )
}

fn plan(columns: &[(&str, DataType)], rows: Vec<Vec<ScalarValue>>) -> LogicalPlan {
    let schema = columns
        .iter()
        .map(|(n, t)| Field::new(*n, t.clone()))
        .collect();
    super::constant_rows(schema, rows)
}

/// The database, schema and object columns every catalog row starts with.
fn object_prefix(database: &DatabaseObjects, r: &Relation) -> Vec<ScalarValue> {
    vec![
        text(database.name.clone()),
        big(database.oid),
        text(SCHEMA_NAME),
        big(MAIN_NAMESPACE_OID),
        text(r.name.clone()),
        big(r.oid),
    ]
}

/// `CREATE [TEMP] TABLE` text of a table, as DuckDB writes it: columns, types,
/// DEFAULT and NOT NULL, then each CHECK as `CHECK((expr))` (keys left out).
fn table_sql(r: &Relation, temporary: bool) -> String {
    let mut cols: Vec<String> = r
        .columns
        .iter()
        .map(|c| {
            let mut s = format!("{} {}", c.name, c.ty);
            if let Some(d) = &c.duckdb_default {
                s.push_str(&format!(" DEFAULT({d})"));
            }
            if c.not_null {
                s.push_str(" NOT NULL");
            }
            s
        })
        .collect();
    cols.extend(r.checks.iter().map(|c| format!("CHECK(({}))", c.expr)));
    format!(
        "CREATE {}TABLE {}({});",
        temp_word(temporary),
        r.name,
        cols.join(", ")
    )
}

/// `TEMP ` in the CREATE text of an object of the `temp` database.
fn temp_word(temporary: bool) -> &'static str {
    if temporary {
        "TEMP "
    } else {
        ""
    }
}

/// The platform as DuckDB names it (`linux_amd64`, `osx_arm64`, ...).
fn platform() -> String {
    let os = match std::env::consts::OS {
        "macos" => "osx",
        "windows" => "windows",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{os}_{arch}")
}

/// DuckDB's memory tags (`duckdb_memory()`).
const MEMORY_TAGS: &[&str] = &[
    "BASE_TABLE",
    "HASH_TABLE",
    "PARQUET_READER",
    "CSV_READER",
    "ORDER_BY",
    "ART_INDEX",
    "COLUMN_DATA",
    "METADATA",
    "OVERFLOW_STRINGS",
    "IN_MEMORY_TABLE",
    "ALLOCATOR",
    "EXTENSION",
    "TRANSACTION",
    "EXTERNAL_FILE_CACHE",
    "WINDOW",
    "OBJECT_CACHE",
];

/// DuckDB's type ids, names, sizes and categories of the types stride has.
const TYPES: &[(i64, &str, i64, &str, &str)] = &[
    (1, "NULL", 1, "NULL", ""),
    (10, "boolean", 1, "BOOLEAN", "BOOLEAN"),
    (11, "tinyint", 1, "TINYINT", "NUMERIC"),
    (12, "smallint", 2, "SMALLINT", "NUMERIC"),
    (13, "integer", 4, "INTEGER", "NUMERIC"),
    (14, "bigint", 8, "BIGINT", "NUMERIC"),
    (15, "date", 4, "DATE", "DATETIME"),
    (16, "time", 8, "TIME", "DATETIME"),
    (
        34,
        "time with time zone",
        8,
        "TIME WITH TIME ZONE",
        "DATETIME",
    ),
    (19, "timestamp", 8, "TIMESTAMP", "DATETIME"),
    (17, "timestamp_s", 8, "TIMESTAMP_S", "DATETIME"),
    (18, "timestamp_ms", 8, "TIMESTAMP_MS", "DATETIME"),
    (20, "timestamp_ns", 8, "TIMESTAMP_NS", "DATETIME"),
    (21, "decimal", 8, "DECIMAL", "NUMERIC"),
    (22, "float", 4, "FLOAT", "NUMERIC"),
    (23, "double", 8, "DOUBLE", "NUMERIC"),
    (25, "varchar", 16, "VARCHAR", "STRING"),
    (26, "blob", 16, "BLOB", ""),
    (36, "bit", 16, "BIT", ""),
    (27, "interval", 16, "INTERVAL", "DATETIME"),
    (28, "utinyint", 1, "UTINYINT", "NUMERIC"),
    (29, "usmallint", 2, "USMALLINT", "NUMERIC"),
    (30, "uinteger", 4, "UINTEGER", "NUMERIC"),
    (31, "ubigint", 8, "UBIGINT", "NUMERIC"),
    (
        32,
        "timestamp with time zone",
        8,
        "TIMESTAMP WITH TIME ZONE",
        "DATETIME",
    ),
    (50, "hugeint", 16, "HUGEINT", "NUMERIC"),
    (49, "uhugeint", 16, "UHUGEINT", "NUMERIC"),
    (54, "uuid", 16, "UUID", ""),
    (100, "struct", 0, "STRUCT", "COMPOSITE"),
    (101, "list", 16, "LIST", "COMPOSITE"),
    (102, "map", 16, "MAP", "COMPOSITE"),
    (108, "array", 0, "ARRAY", "COMPOSITE"),
    (107, "union", 0, "UNION", "COMPOSITE"),
];

impl Binder<'_> {
    /// Binds the table function `name()` if it is one of [`DUCKDB_TABLE_FUNCTIONS`].
    pub(super) fn duckdb_table_function(&mut self, name: &str) -> Option<Result<LogicalPlan>> {
        if !DUCKDB_TABLE_FUNCTIONS.contains(&name) {
            return None;
        }
        Some(self.duckdb_table_function_inner(name))
    }

    fn duckdb_table_function_inner(&mut self, name: &str) -> Result<LogicalPlan> {
        use DataType::{BigInt, Boolean, Integer, Varchar};
        let text_list = DataType::List(Box::new(Varchar));
        let snap = self.system_snapshot()?;
        // Every database's objects of a kind, with their database.
        let user = |kind: RelKind| {
            snap.databases.iter().flat_map(move |d| {
                d.relations
                    .iter()
                    .filter(move |r| r.namespace == MAIN_NAMESPACE_OID && r.kind == kind)
                    // DuckDB lists the indexes CREATE INDEX made, not those of keys.
                    .filter(|r| r.index.as_ref().is_none_or(|i| i.key.is_none()))
                    .map(move |r| (d, r))
            })
        };
        let prefix = |object: &'static str, oid: &'static str| {
            vec![
                ("database_name", Varchar),
                ("database_oid", BigInt),
                ("schema_name", Varchar),
                ("schema_oid", BigInt),
                (object, Varchar),
                (oid, BigInt),
            ]
        };
        Ok(match name {
            "duckdb_tables" => {
                let mut cols = prefix("table_name", "table_oid");
                cols.extend([
                    ("comment", Varchar),
                    ("internal", Boolean),
                    ("temporary", Boolean),
                    ("has_primary_key", Boolean),
                    ("estimated_size", BigInt),
                    ("column_count", BigInt),
                    ("index_count", BigInt),
                    ("check_constraint_count", BigInt),
                    ("sql", Varchar),
                ]);
                let rows = user(RelKind::Table)
                    .map(|(d, r)| {
                        let indexes = user(RelKind::Index)
                            .filter(|(_, i)| i.index.as_ref().is_some_and(|x| x.table == r.oid))
                            .count();
                        let mut row = object_prefix(d, r);
                        row.extend([
                            ScalarValue::Null,
                            ScalarValue::Boolean(false),
                            ScalarValue::Boolean(d.temporary),
                            ScalarValue::Boolean(r.primary_key.is_some()),
                            big(r.rows.unwrap_or(0) as i64),
                            big(r.columns.len() as i64),
                            big((indexes + r.unique_keys.len()) as i64),
                            big(r.checks.len() as i64),
                            text(table_sql(r, d.temporary)),
                        ]);
                        row
                    })
                    .collect();
                plan(&cols, rows)
            }
            "duckdb_columns" => {
                let mut cols = prefix("table_name", "table_oid");
                cols.extend([
                    ("column_name", Varchar),
                    ("column_index", Integer),
                    ("comment", Varchar),
                    ("internal", Boolean),
                    ("column_default", Varchar),
                    ("is_nullable", Boolean),
                    ("data_type", Varchar),
                    ("data_type_id", BigInt),
                    ("character_maximum_length", Integer),
                    ("numeric_precision", Integer),
                    ("numeric_precision_radix", Integer),
                    ("numeric_scale", Integer),
                    ("is_generated", Boolean),
                    ("generation_expression", Varchar),
                ]);
                let mut rows = Vec::new();
                for (d, r) in user(RelKind::Table).chain(user(RelKind::View)) {
                    for (k, c) in r.columns.iter().enumerate() {
                        let (precision, radix, scale) = numeric_shape(&c.ty);
                        let mut row = object_prefix(d, r);
                        row.extend([
                            text(c.name.clone()),
                            ScalarValue::Integer(k as i32 + 1),
                            ScalarValue::Null,
                            ScalarValue::Boolean(false),
                            c.duckdb_default
                                .clone()
                                .map_or(ScalarValue::Null, ScalarValue::Varchar),
                            ScalarValue::Boolean(!c.not_null),
                            text(c.ty.to_string()),
                            big(type_id(&c.ty)),
                            ScalarValue::Null,
                            precision,
                            radix,
                            scale,
                            ScalarValue::Boolean(false),
                            ScalarValue::Null,
                        ]);
                        rows.push(row);
                    }
                }
                plan(&cols, rows)
            }
            "duckdb_views" => {
                let mut cols = prefix("view_name", "view_oid");
                cols.extend([
                    ("comment", Varchar),
                    ("internal", Boolean),
                    ("temporary", Boolean),
                    ("column_count", BigInt),
                    ("sql", Varchar),
                ]);
                let rows = user(RelKind::View)
                    .map(|(d, r)| {
                        let mut row = object_prefix(d, r);
                        row.extend([
                            ScalarValue::Null,
                            ScalarValue::Boolean(false),
                            ScalarValue::Boolean(d.temporary),
                            big(r.columns.len() as i64),
                            r.view_sql.as_ref().map_or(ScalarValue::Null, |q| {
                                text(format!(
                                    "CREATE {}VIEW {} AS {};",
                                    temp_word(d.temporary),
                                    r.name,
                                    q.trim_end_matches(';')
                                ))
                            }),
                        ]);
                        row
                    })
                    .collect();
                plan(&cols, rows)
            }
            "duckdb_schemas" => {
                let cols = [
                    ("oid", BigInt),
                    ("database_name", Varchar),
                    ("database_oid", BigInt),
                    ("schema_name", Varchar),
                    ("comment", Varchar),
                    ("internal", Boolean),
                    ("sql", Varchar),
                ];
                let rows = NAMESPACES
                    .iter()
                    .map(|n| {
                        vec![
                            big(n.oid),
                            text(snap.database.clone()),
                            big(DATABASE_OID),
                            text(n.name),
                            ScalarValue::Null,
                            ScalarValue::Boolean(true),
                            ScalarValue::Null,
                        ]
                    })
                    .collect();
                plan(&cols, rows)
            }
            "duckdb_indexes" => {
                let mut cols = prefix("index_name", "index_oid");
                cols.extend([
                    ("table_name", Varchar),
                    ("table_oid", BigInt),
                    ("comment", Varchar),
                    ("is_unique", Boolean),
                    ("is_primary", Boolean),
                    ("expressions", Varchar),
                    ("sql", Varchar),
                ]);
                let rows = user(RelKind::Index)
                    .filter_map(|(d, r)| {
                        let def = r.index.as_ref()?;
                        let table = d.relations.iter().find(|t| t.oid == def.table)?;
                        let names: Vec<String> = def
                            .columns
                            .iter()
                            .filter_map(|&k| table.columns.get((k - 1) as usize))
                            .map(|c| c.name.clone())
                            .collect();
                        let mut row = object_prefix(d, r);
                        row.extend([
                            text(table.name.clone()),
                            big(table.oid),
                            ScalarValue::Null,
                            ScalarValue::Boolean(def.unique),
                            ScalarValue::Boolean(false),
                            text(format!("[{}]", names.join(", "))),
                            text(format!(
                                "CREATE {}INDEX {} ON {}({});",
                                if def.unique { "UNIQUE " } else { "" },
                                r.name,
                                table.name,
                                names.join(", ")
                            )),
                        ]);
                        Some(row)
                    })
                    .collect();
                plan(&cols, rows)
            }
            "duckdb_types" => {
                let cols = [
                    ("database_name", Varchar),
                    ("database_oid", BigInt),
                    ("schema_name", Varchar),
                    ("schema_oid", BigInt),
                    ("type_oid", BigInt),
                    ("type_name", Varchar),
                    ("type_size", BigInt),
                    ("logical_type", Varchar),
                    ("type_category", Varchar),
                    ("comment", Varchar),
                    ("internal", Boolean),
                    ("labels", text_list.clone()),
                ];
                let mut rows: Vec<Vec<ScalarValue>> = TYPES
                    .iter()
                    .map(|(oid, name, size, logical, category)| {
                        vec![
                            text(snap.database.clone()),
                            big(DATABASE_OID),
                            text("pg_catalog"),
                            big(PG_CATALOG_OID),
                            big(*oid),
                            text(*name),
                            big(*size),
                            text(*logical),
                            if category.is_empty() {
                                ScalarValue::Null
                            } else {
                                text(*category)
                            },
                            ScalarValue::Null,
                            ScalarValue::Boolean(true),
                            ScalarValue::Null,
                        ]
                    })
                    .collect();
                rows.extend(self.catalog.user_types().into_iter().map(|(id, name, ty)| {
                    user_type_row(&self.catalog.database_name(), id, name, &ty)
                }));
                plan(&cols, rows)
            }
            "duckdb_settings" => {
                let cols = [
                    ("name", Varchar),
                    ("value", Varchar),
                    ("description", Varchar),
                    ("input_type", Varchar),
                    ("scope", Varchar),
                    ("aliases", text_list),
                ];
                let rows = snap
                    .settings
                    .iter()
                    .map(|s| {
                        vec![
                            text(s.name.clone()),
                            text(s.value.clone()),
                            ScalarValue::Null,
                            text("VARCHAR"),
                            text("LOCAL"),
                            list(vec![]),
                        ]
                    })
                    .collect();
                plan(&cols, rows)
            }
            "duckdb_optimizers" => plan(
                &[("name", Varchar)],
                crate::optimizer::PASSES
                    .iter()
                    .map(|p| vec![text(*p)])
                    .collect(),
            ),
            "duckdb_sequences" => {
                let mut cols = prefix("sequence_name", "sequence_oid");
                cols.extend([
                    ("comment", Varchar),
                    ("temporary", Boolean),
                    ("start_value", BigInt),
                    ("min_value", BigInt),
                    ("max_value", BigInt),
                    ("increment_by", BigInt),
                    ("cycle", Boolean),
                    ("last_value", BigInt),
                    ("sql", Varchar),
                ]);
                let rows = self
                    .catalog
                    .sequences()
                    .into_iter()
                    .map(|s| {
                        let opt = |v: Option<i64>| v.map_or(ScalarValue::Null, big);
                        // as DuckDB writes it: START is where the sequence stands now
                        let sql = format!(
                            "CREATE SEQUENCE {} INCREMENT BY {} MINVALUE {} MAXVALUE {} START {}{};",
                            stride_common::types::quote_identifier(&s.name),
                            s.increment,
                            s.min,
                            s.max,
                            s.next.unwrap_or(s.start),
                            if s.cycle { " CYCLE" } else { " NO CYCLE" }
                        );
                        vec![
                            text(snap.database.clone()),
                            big(DATABASE_OID),
                            text(SCHEMA_NAME),
                            big(MAIN_NAMESPACE_OID),
                            text(s.name),
                            big(s.id as i64),
                            ScalarValue::Null,
                            ScalarValue::Boolean(false),
                            big(s.start),
                            big(s.min),
                            big(s.max),
                            big(s.increment),
                            ScalarValue::Boolean(s.cycle),
                            opt(s.last),
                            text(sql),
                        ]
                    })
                    .collect();
                plan(&cols, rows)
            }
            "duckdb_extensions" => plan(
                &[
                    ("extension_name", Varchar),
                    ("loaded", Boolean),
                    ("installed", Boolean),
                    ("install_path", Varchar),
                    ("description", Varchar),
                    ("aliases", text_list.clone()),
                    ("extension_version", Varchar),
                    ("install_mode", Varchar),
                    ("installed_from", Varchar),
                ],
                vec![],
            ),
            "duckdb_temporary_files" => plan(&[("path", Varchar), ("size", BigInt)], vec![]),
            "duckdb_variables" => plan(
                &[("name", Varchar), ("value", Varchar), ("type", Varchar)],
                vec![],
            ),
            "duckdb_triggers" => {
                let mut cols = prefix("trigger_name", "trigger_oid");
                cols.extend([
                    ("table_name", Varchar),
                    ("action_timing", Varchar),
                    ("event_manipulation", Varchar),
                    ("columns", text_list.clone()),
                    ("for_each", Varchar),
                    ("comment", Varchar),
                    ("temporary", Boolean),
                    ("sql", Varchar),
                ]);
                plan(&cols, vec![])
            }
            "duckdb_dependencies" => {
                let cols = [
                    ("classid", BigInt),
                    ("objid", BigInt),
                    ("objsubid", Integer),
                    ("refclassid", BigInt),
                    ("refobjid", BigInt),
                    ("refobjsubid", Integer),
                    ("deptype", Varchar),
                ];
                let rows = user(RelKind::Index)
                    .filter_map(|(_, r)| {
                        let table = r.index.as_ref()?.table;
                        Some(vec![
                            big(0),
                            big(table),
                            ScalarValue::Integer(0),
                            big(0),
                            big(r.oid),
                            ScalarValue::Integer(0),
                            text("a"),
                        ])
                    })
                    .collect();
                plan(&cols, rows)
            }
            "duckdb_memory" => {
                let memory = self.catalog.memory();
                let used = |tags: &[MemoryTag]| -> i64 {
                    memory.as_ref().map_or(0, |m| {
                        tags.iter().map(|t| m.used_by(*t)).sum::<u64>() as i64
                    })
                };
                let rows = MEMORY_TAGS
                    .iter()
                    .map(|tag| {
                        let (bytes, temporary) = match *tag {
                            // In-memory tables' values, and stored segments cached.
                            "BASE_TABLE" => {
                                (used(&[MemoryTag::InMemoryTables, MemoryTag::BufferPool]), 0)
                            }
                            "HASH_TABLE" => (
                                used(&[
                                    MemoryTag::HashAggregate,
                                    MemoryTag::HashJoin,
                                    MemoryTag::SetOperation,
                                ]),
                                memory.as_ref().map_or(0, |m| m.spilled() as i64),
                            ),
                            "ORDER_BY" => (used(&[MemoryTag::Sort]), 0),
                            "WINDOW" => (used(&[MemoryTag::Window]), 0),
                            "COLUMN_DATA" => (used(&[MemoryTag::Materialized]), 0),
                            _ => (0, 0),
                        };
                        vec![text(*tag), big(bytes), big(temporary)]
                    })
                    .collect();
                plan(
                    &[
                        ("tag", Varchar),
                        ("memory_usage_bytes", BigInt),
                        ("temporary_storage_bytes", BigInt),
                    ],
                    rows,
                )
            }
            "stride_memory" => {
                let memory = self.catalog.memory();
                let mut rows: Vec<Vec<ScalarValue>> = MemoryTag::ALL
                    .iter()
                    .map(|t| {
                        let used = memory.as_ref().map_or(0, |m| m.used_by(*t));
                        vec![text(t.name()), big(used as i64), ScalarValue::Null]
                    })
                    .collect();
                rows.push(vec![
                    text("total"),
                    big(memory.as_ref().map_or(0, |m| m.used()) as i64),
                    big(memory.as_ref().map_or(0, |m| m.spilled()) as i64),
                ]);
                plan(
                    &[
                        ("part", Varchar),
                        ("memory_usage_bytes", BigInt),
                        ("temporary_storage_bytes", BigInt),
                    ],
                    rows,
                )
            }
            "pragma_version" => plan(
                &[
                    ("library_version", Varchar),
                    ("source_id", Varchar),
                    ("codename", Varchar),
                ],
                vec![vec![
                    text(format!("v{}", env!("CARGO_PKG_VERSION"))),
                    text("stride"),
                    text("stride"),
                ]],
            ),
            "pragma_platform" => plan(&[("platform", Varchar)], vec![vec![text(platform())]]),
            _ => plan(
                &[("user_agent", Varchar)],
                vec![vec![text(format!(
                    "stride/v{}({})",
                    env!("CARGO_PKG_VERSION"),
                    platform()
                ))]],
            ),
        })
    }
}

/// A `duckdb_types()` row of a type made by CREATE TYPE (schema main, not internal):
/// its logical type and category as DuckDB gives them for the type it stands for, an
/// ENUM's labels.
fn user_type_row(database: &str, id: u64, name: String, ty: &DataType) -> Vec<ScalarValue> {
    use stride_common::PhysicalType as P;
    let size = match (ty, ty.physical()) {
        (DataType::Array(..), _) | (_, P::Struct) => 0,
        (_, P::Bool | P::I8) => 1,
        (_, P::I16) => 2,
        (_, P::I32 | P::F32) => 4,
        (_, P::I64 | P::F64) => 8,
        (_, P::I128 | P::Str | P::Interval | P::List) => 16,
    };
    let id_of = type_id(ty);
    let (logical, category) = match ty {
        DataType::Enum(_) => ("ENUM".to_string(), ScalarValue::Null),
        _ => match TYPES.iter().find(|t| t.0 == id_of) {
            Some((_, _, _, logical, category)) => (
                logical.to_string(),
                if category.is_empty() {
                    ScalarValue::Null
                } else {
                    ScalarValue::Varchar(category.to_string())
                },
            ),
            None => (ty.to_string(), ScalarValue::Null),
        },
    };
    let labels = match ty {
        DataType::Enum(e) => ScalarValue::List(
            DataType::Varchar,
            e.labels()
                .iter()
                .map(|l| ScalarValue::Varchar(l.clone()))
                .collect(),
        ),
        _ => ScalarValue::Null,
    };
    vec![
        ScalarValue::Varchar(database.to_string()),
        ScalarValue::BigInt(DATABASE_OID),
        ScalarValue::Varchar("main".into()),
        ScalarValue::BigInt(MAIN_NAMESPACE_OID),
        ScalarValue::BigInt(id as i64),
        ScalarValue::Varchar(name),
        ScalarValue::BigInt(size),
        ScalarValue::Varchar(logical),
        category,
        ScalarValue::Null,
        ScalarValue::Boolean(false),
        labels,
    ]
}

/// DuckDB's LogicalTypeId of a type (`data_type_id`).
fn type_id(t: &DataType) -> i64 {
    match t {
        DataType::Null => 1,
        DataType::Boolean => 10,
        DataType::TinyInt => 11,
        DataType::SmallInt => 12,
        DataType::Integer => 13,
        DataType::BigInt => 14,
        DataType::Date => 15,
        DataType::Timestamp => 19,
        DataType::TimestampTz => 32,
        DataType::TimestampUnit(TimeUnit::Second) => 17,
        DataType::TimestampUnit(TimeUnit::Millisecond) => 18,
        DataType::TimestampUnit(TimeUnit::Nanosecond) => 20,
        DataType::Decimal(..) => 21,
        DataType::Real => 22,
        DataType::Double => 23,
        // JSON is VARCHAR with an alias, as in DuckDB
        DataType::Varchar | DataType::Json => 25,
        DataType::Interval => 27,
        DataType::Blob => 26,
        DataType::Bit => 36,
        DataType::Time => 16,
        DataType::TimeTz => 34,
        DataType::HugeInt => 50,
        DataType::UHugeInt => 49,
        DataType::UTinyInt => 28,
        DataType::USmallInt => 29,
        DataType::UInteger => 30,
        DataType::UBigInt => 31,
        DataType::Uuid => 54,
        DataType::Struct(_) => 100,
        DataType::List(_) => 101,
        DataType::Map(..) => 102,
        DataType::Array(..) => 108,
        DataType::Union(_) => 107,
        DataType::Enum(_) => 104,
    }
}

/// numeric_precision, numeric_precision_radix and numeric_scale, as DuckDB fills
/// them (bits for integers and floats, digits for decimals).
fn numeric_shape(t: &DataType) -> (ScalarValue, ScalarValue, ScalarValue) {
    let i = ScalarValue::Integer;
    match t {
        DataType::TinyInt => (i(8), i(2), i(0)),
        DataType::SmallInt => (i(16), i(2), i(0)),
        DataType::Integer => (i(32), i(2), i(0)),
        DataType::BigInt => (i(64), i(2), i(0)),
        DataType::HugeInt => (i(128), i(2), i(0)),
        DataType::Real => (i(24), i(2), i(0)),
        DataType::Double => (i(53), i(2), i(0)),
        DataType::Decimal(p, s) => (i(*p as i32), i(10), i(*s as i32)),
        _ => (ScalarValue::Null, ScalarValue::Null, ScalarValue::Null),
    }
}
