//! A snapshot of the catalog in PostgreSQL's terms: schemas (namespaces), relations
//! (tables, views, indexes, sequences and the system tables themselves) with their
//! OIDs and columns (and defaults, as PostgreSQL and as DuckDB print them), the
//! constraints of tables (keys, with the index PostgreSQL makes for each, and CHECK),
//! every database's objects for the DuckDB-style catalog functions, and the session's
//! settings. The binder takes one per statement, the
//! first time the statement names a system table or calls a catalog function, and
//! every system table of that statement is built from it, so they agree.
//!
//! OIDs: the fixed namespaces and the one role use PostgreSQL's well-known numbers
//! (pg_catalog 11, the bootstrap role 10), system tables are numbered from
//! [`SYSTEM_OID_BASE`] in the order they are defined, and user objects are
//! [`USER_OID_BASE`] plus their catalog id, which stays the same while they exist,
//! so an OID read by one query names the same object in the next; a key's index and a
//! CHECK constraint are numbered from their table's OID ([`KEY_INDEX_BASE`],
//! [`CHECK_CONSTRAINT_BASE`]).

use stride_common::{DataType, ScalarValue};

pub const PG_CATALOG_OID: i64 = 11;
/// The schema user objects live in (`main`, PostgreSQL's `public`).
pub const MAIN_NAMESPACE_OID: i64 = 2200;
pub const INFORMATION_SCHEMA_OID: i64 = 13000;
/// The role that owns everything (there are no other roles).
pub const OWNER_OID: i64 = 10;
pub const OWNER_NAME: &str = "stride";
pub const DATABASE_OID: i64 = 1;
/// Access methods: stride's tables, and the indexes CREATE INDEX declares.
pub const TABLE_AM_OID: i64 = 2;
pub const INDEX_AM_OID: i64 = 3;
/// Collations: every string compares by its UTF-8 bytes, which is the C collation;
/// `default` names it too.
pub const DEFAULT_COLLATION_OID: i64 = 100;
pub const C_COLLATION_OID: i64 = 950;
pub const SYSTEM_OID_BASE: i64 = 12000;
pub const USER_OID_BASE: i64 = 16384;
/// PRIMARY KEY / UNIQUE constraints and column defaults are numbered from these:
/// the base plus 1000 times the table's catalog id plus the key's position (the
/// column's number).
pub const CONSTRAINT_OID_BASE: i64 = 1 << 30;
pub const ATTRDEF_OID_BASE: i64 = 3 << 29;

pub fn constraint_oid(table_oid: i64, key: usize) -> i64 {
    // Wrapping: tables of an attached database have ids with its slot in the top bits.
    CONSTRAINT_OID_BASE.wrapping_add((table_oid - USER_OID_BASE).wrapping_mul(1000)) + key as i64
}

pub fn attrdef_oid(table_oid: i64, attnum: i16) -> i64 {
    ATTRDEF_OID_BASE.wrapping_add((table_oid - USER_OID_BASE).wrapping_mul(1000)) + attnum as i64
}

#[derive(Debug, Clone)]
pub struct Namespace {
    pub oid: i64,
    pub name: &'static str,
}

pub const NAMESPACES: &[Namespace] = &[
    Namespace {
        oid: PG_CATALOG_OID,
        name: "pg_catalog",
    },
    Namespace {
        oid: MAIN_NAMESPACE_OID,
        name: stride_functions::scalar::meta::SCHEMA_NAME,
    },
    Namespace {
        oid: INFORMATION_SCHEMA_OID,
        name: "information_schema",
    },
];

/// What kind of relation (`pg_class.relkind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelKind {
    Table,
    View,
    Index,
    Sequence,
}

impl RelKind {
    pub fn code(self) -> &'static str {
        match self {
            RelKind::Table => "r",
            RelKind::View => "v",
            RelKind::Index => "i",
            RelKind::Sequence => "S",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Column {
    pub name: String,
    pub ty: DataType,
    pub not_null: bool,
    /// The DEFAULT as SQL text, as PostgreSQL prints it (`'1.5'::double precision`).
    pub default: Option<String>,
    /// The DEFAULT as DuckDB prints it (`1.5`, [`duckdb_default`]).
    pub duckdb_default: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Relation {
    pub oid: i64,
    pub name: String,
    pub namespace: i64,
    pub kind: RelKind,
    pub columns: Vec<Column>,
    /// Rows stored (tables), for `reltuples`.
    pub rows: Option<usize>,
    /// Bytes the values take (tables), for `pg_table_size` and `relpages`.
    pub bytes: Option<usize>,
    /// A view's query.
    pub view_sql: Option<String>,
    /// An index's table and columns (1-based attribute numbers) and uniqueness.
    pub index: Option<IndexDef>,
    /// A table's PRIMARY KEY / UNIQUE keys, as 1-based attribute numbers.
    pub unique_keys: Vec<Vec<i16>>,
    /// Which of `unique_keys` is the PRIMARY KEY.
    pub primary_key: Option<usize>,
    /// A table's CHECK constraints: their names (as PostgreSQL would name them
    /// when CREATE TABLE gave none) and conditions.
    pub checks: Vec<CheckDef>,
    /// A sequence's settings.
    pub sequence: Option<crate::catalog::SequenceEntry>,
    /// The system table this is, if any.
    pub system: bool,
}

#[derive(Debug, Clone)]
pub struct CheckDef {
    pub name: String,
    pub expr: String,
}

#[derive(Debug, Clone)]
pub struct IndexDef {
    pub table: i64,
    pub columns: Vec<i16>,
    pub unique: bool,
    /// The index of a PRIMARY KEY or UNIQUE constraint (PostgreSQL makes one for
    /// each: `t_pkey`, `t_a_key`): the key's position in the table's `unique_keys`.
    /// None for an index CREATE INDEX made.
    pub key: Option<usize>,
    /// The index of the PRIMARY KEY.
    pub primary: bool,
}

/// Keys' constraints are numbered from 0 ([`constraint_oid`]), CHECK constraints
/// from here, and the indexes of keys from [`KEY_INDEX_BASE`].
pub const CHECK_CONSTRAINT_BASE: usize = 300;
pub const KEY_INDEX_BASE: usize = 600;

/// The OID of the index PostgreSQL makes for key `k` of a table.
pub fn key_index_oid(table_oid: i64, k: usize) -> i64 {
    constraint_oid(table_oid, KEY_INDEX_BASE + k)
}

/// A constraint of a table as `pg_constraint` lists it.
#[derive(Debug, Clone)]
pub struct ConstraintDef {
    pub oid: i64,
    pub name: String,
    /// `p` PRIMARY KEY, `u` UNIQUE, `c` CHECK.
    pub kind: &'static str,
    /// The key's columns (1-based); empty for CHECK.
    pub columns: Vec<i16>,
    /// The key's index (0 for CHECK).
    pub index: i64,
    /// As `pg_get_constraintdef` shows it: `PRIMARY KEY (a)`, `CHECK ((a > 0))`.
    pub definition: String,
}

/// PostgreSQL's name for a table's key or CHECK constraint over `columns` (1-based):
/// `t_pkey`, `t_a_b_key`, `t_a_check`.
fn default_constraint_name(table: &Relation, columns: &[i16], suffix: &str) -> String {
    let mut name = table.name.clone();
    for &a in columns {
        if let Some(c) = table.columns.get((a - 1) as usize) {
            name.push('_');
            name.push_str(&c.name);
        }
    }
    name.push('_');
    name.push_str(suffix);
    name
}

impl Column {
    /// A column that may be NULL and has no DEFAULT.
    pub fn new(name: impl Into<String>, ty: DataType) -> Column {
        Column {
            name: name.into(),
            ty,
            not_null: false,
            default: None,
            duckdb_default: None,
        }
    }
}

impl Relation {
    /// A relation of `kind` with `columns` and nothing else known (no rows counted,
    /// keys, index, view text or sequence); the other fields are set after it.
    pub fn new(
        oid: i64,
        name: String,
        namespace: i64,
        kind: RelKind,
        columns: Vec<Column>,
    ) -> Relation {
        Relation {
            oid,
            name,
            namespace,
            kind,
            columns,
            rows: None,
            bytes: None,
            view_sql: None,
            index: None,
            unique_keys: Vec::new(),
            primary_key: None,
            checks: Vec::new(),
            sequence: None,
            system: false,
        }
    }

    /// The table's constraints: its keys (the PRIMARY KEY as `p`, named `t_pkey`;
    /// UNIQUE ones as `u`), then its CHECK constraints.
    pub fn constraints(&self) -> Vec<ConstraintDef> {
        let mut out = Vec::new();
        for (k, key) in self.unique_keys.iter().enumerate() {
            let primary = self.primary_key == Some(k);
            let columns: Vec<String> = key
                .iter()
                .filter_map(|&a| self.columns.get((a - 1) as usize))
                .map(|c| quote_if_needed(&c.name))
                .collect();
            out.push(ConstraintDef {
                oid: constraint_oid(self.oid, k),
                name: if primary {
                    default_constraint_name(self, &[], "pkey")
                } else {
                    default_constraint_name(self, key, "key")
                },
                kind: if primary { "p" } else { "u" },
                columns: key.clone(),
                index: key_index_oid(self.oid, k),
                definition: format!(
                    "{} ({})",
                    if primary { "PRIMARY KEY" } else { "UNIQUE" },
                    columns.join(", ")
                ),
            });
        }
        for (j, check) in self.checks.iter().enumerate() {
            out.push(ConstraintDef {
                oid: constraint_oid(self.oid, CHECK_CONSTRAINT_BASE + j),
                name: check.name.clone(),
                kind: "c",
                columns: Vec::new(),
                index: 0,
                definition: format!("CHECK (({}))", check.expr),
            });
        }
        out
    }

    /// PostgreSQL's names for CHECK constraints CREATE TABLE left unnamed:
    /// `t_a_check` when the condition names one column, `t_check` otherwise,
    /// numbered on (`t_check1`) when taken.
    pub fn name_checks(&self, checks: &[(Option<String>, String)]) -> Vec<CheckDef> {
        let mut taken: Vec<String> = checks.iter().filter_map(|(n, _)| n.clone()).collect();
        checks
            .iter()
            .map(|(name, expr)| {
                let name = name.clone().unwrap_or_else(|| {
                    let words: Vec<String> = expr
                        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .map(|w| w.to_ascii_lowercase())
                        .collect();
                    let named: Vec<i16> = (1..)
                        .zip(&self.columns)
                        .filter(|(_, c)| words.contains(&c.name.to_ascii_lowercase()))
                        .map(|(a, _)| a)
                        .collect();
                    let columns = if named.len() == 1 { named } else { Vec::new() };
                    let base = default_constraint_name(self, &columns, "check");
                    let mut name = base.clone();
                    let mut n = 0;
                    while taken.contains(&name) {
                        n += 1;
                        name = format!("{base}{n}");
                    }
                    taken.push(name.clone());
                    name
                });
                CheckDef {
                    name,
                    expr: expr.clone(),
                }
            })
            .collect()
    }
}

impl Relation {
    pub fn is_user(&self) -> bool {
        !self.system
    }

    pub fn has_index(&self, snapshot: &Snapshot) -> bool {
        snapshot
            .relations
            .iter()
            .any(|r| r.index.as_ref().is_some_and(|i| i.table == self.oid))
    }
}

/// One setting as `pg_settings` lists it.
#[derive(Debug, Clone)]
pub struct SettingRow {
    pub name: String,
    pub value: String,
    pub default: String,
}

#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The session's database: `memory`, or the file's name without its extension
    /// (`current_database()`, `pg_database`, the catalog columns).
    pub database: String,
    pub relations: Vec<Relation>,
    pub settings: Vec<SettingRow>,
    /// Every database of the session with its tables, views and indexes (the current
    /// one's are also among `relations`): what DuckDB's `duckdb_tables()` and
    /// `information_schema.tables` list.
    pub databases: Vec<DatabaseObjects>,
}

/// One database of the session and its user objects.
#[derive(Debug, Clone, Default)]
pub struct DatabaseObjects {
    pub name: String,
    /// Its position among the session's databases (`duckdb_databases()`'s oid).
    pub oid: i64,
    /// Whether it is the connection's database of TEMP tables and views.
    pub temporary: bool,
    pub relations: Vec<Relation>,
}

impl Snapshot {
    pub fn namespace_name(&self, oid: i64) -> Option<&'static str> {
        NAMESPACES.iter().find(|n| n.oid == oid).map(|n| n.name)
    }

    pub fn relation(&self, oid: i64) -> Option<&Relation> {
        self.relations.iter().find(|r| r.oid == oid)
    }

    /// A relation by name as `'name'::regclass` reads it: optionally schema-qualified,
    /// double quotes keeping case; unqualified names look in `main`, then pg_catalog.
    pub fn relation_by_name(&self, text: &str) -> Option<&Relation> {
        let parts = split_qualified(text)?;
        let (schema, name) = match parts.as_slice() {
            [n] => (None, n.as_str()),
            [s, n] => (Some(s.as_str()), n.as_str()),
            [_, s, n] => (Some(s.as_str()), n.as_str()),
            _ => return None,
        };
        let in_schema = |ns: i64| {
            self.relations
                .iter()
                .find(|r| r.namespace == ns && r.name.eq_ignore_ascii_case(name))
        };
        match schema {
            Some(s) => {
                let ns = NAMESPACES.iter().find(|n| n.name.eq_ignore_ascii_case(s))?;
                in_schema(ns.oid)
            }
            None => in_schema(MAIN_NAMESPACE_OID).or_else(|| in_schema(PG_CATALOG_OID)),
        }
    }

    /// How `oid::regclass` prints a relation: its name, qualified when its schema is
    /// not searched (information_schema).
    pub fn regclass_name(&self, r: &Relation) -> String {
        let name = quote_if_needed(&r.name);
        if r.namespace == INFORMATION_SCHEMA_OID {
            format!("information_schema.{name}")
        } else {
            name
        }
    }
}

/// `a.b` / `"A"."b"` into its parts (quotes removed); None when malformed.
pub fn split_qualified(text: &str) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut chars = text.trim().chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            '"' => quoted = !quoted,
            '.' if !quoted => parts.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    if quoted {
        return None;
    }
    parts.push(cur);
    if parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    Some(parts)
}

pub use stride_common::types::quote_identifier as quote_if_needed;

/// A constant as SQL text (how a column DEFAULT reads in `pg_attrdef`).
pub fn sql_literal(v: &ScalarValue) -> String {
    match v {
        ScalarValue::Null => "NULL".into(),
        ScalarValue::Boolean(_) | ScalarValue::Decimal(..) => v.to_string(),
        v if v.is_integer() => v.to_string(),
        ScalarValue::Varchar(s) => format!("'{}'", s.replace('\'', "''")),
        other => format!(
            "'{}'::{}",
            other.to_string().replace('\'', "''"),
            stride_functions::pg_types::format_type(
                stride_functions::pg_types::oid_of(&other.data_type()),
                None
            )
        ),
    }
}

/// A column's DEFAULT as DuckDB prints it (`duckdb_columns()`, DESCRIBE, PRAGMA
/// table_info, information_schema.columns): an expression as written, a constant
/// by [`duckdb_literal`].
pub fn duckdb_default(c: &stride_common::ColumnSchema) -> Option<String> {
    match (&c.default, &c.default_expr) {
        (Some(v), _) => Some(duckdb_literal(v)),
        (None, e) => e.clone(),
    }
}

/// A constant as DuckDB prints a literal: numbers and booleans as they are, strings
/// quoted, values of other types as a CAST of their text (`CAST('2020-01-01' AS
/// DATE)`, as DuckDB prints `DATE '2020-01-01'`).
pub fn duckdb_literal(v: &ScalarValue) -> String {
    match v {
        ScalarValue::Null => "NULL".into(),
        ScalarValue::Boolean(_)
        | ScalarValue::Decimal(..)
        | ScalarValue::Real(_)
        | ScalarValue::Double(_) => v.to_string(),
        v if v.is_integer() => v.to_string(),
        ScalarValue::Varchar(s) => format!("'{}'", s.replace('\'', "''")),
        other => format!(
            "CAST('{}' AS {})",
            other.to_string().replace('\'', "''"),
            other.data_type()
        ),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A table with a key and a default, a view and an index.
    pub fn sample() -> Snapshot {
        let col = Column::new;
        let mut id = col("id", DataType::Integer);
        id.not_null = true;
        let mut note = col("note", DataType::Varchar);
        note.default = Some("'none'".into());
        let table = Relation {
            rows: Some(3),
            bytes: Some(96),
            unique_keys: vec![vec![1]],
            ..Relation::new(
                USER_OID_BASE,
                "t".into(),
                MAIN_NAMESPACE_OID,
                RelKind::Table,
                vec![id, note, col("price", DataType::Decimal(10, 2))],
            )
        };
        let view = Relation {
            oid: USER_OID_BASE + 1,
            name: "v".into(),
            kind: RelKind::View,
            columns: vec![col("id", DataType::Integer)],
            rows: None,
            bytes: None,
            view_sql: Some("SELECT id FROM t".into()),
            unique_keys: vec![],
            ..table.clone()
        };
        let index = Relation {
            oid: USER_OID_BASE + 2,
            name: "t_note".into(),
            kind: RelKind::Index,
            columns: vec![col("note", DataType::Varchar)],
            rows: None,
            bytes: None,
            index: Some(IndexDef {
                table: USER_OID_BASE,
                columns: vec![2],
                unique: false,
                key: None,
                primary: false,
            }),
            unique_keys: vec![],
            ..table.clone()
        };
        Snapshot {
            database: "memory".into(),
            databases: vec![DatabaseObjects {
                name: "memory".into(),
                oid: 0,
                temporary: false,
                relations: vec![table.clone(), view.clone(), index.clone()],
            }],
            relations: vec![table, view, index],
            settings: vec![SettingRow {
                name: "threads".into(),
                value: "4".into(),
                default: "4".into(),
            }],
        }
    }

    #[test]
    fn names() {
        assert_eq!(
            split_qualified("pg_catalog.pg_class").unwrap(),
            vec!["pg_catalog", "pg_class"]
        );
        assert_eq!(split_qualified("\"A.b\"").unwrap(), vec!["A.b"]);
        assert!(split_qualified("a.").is_none());
        assert_eq!(quote_if_needed("Sales"), "\"Sales\"");
        assert_eq!(quote_if_needed("sales_2"), "sales_2");
        assert_eq!(sql_literal(&ScalarValue::Varchar("it's".into())), "'it''s'");
        assert_eq!(sql_literal(&ScalarValue::Date(0)), "'1970-01-01'::date");
        assert_eq!(duckdb_literal(&ScalarValue::Double(1.5)), "1.5");
        assert_eq!(
            duckdb_literal(&ScalarValue::Varchar("it's".into())),
            "'it''s'"
        );
        assert_eq!(
            duckdb_literal(&ScalarValue::Date(0)),
            "CAST('1970-01-01' AS DATE)"
        );
    }
}
