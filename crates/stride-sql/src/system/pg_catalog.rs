//! `pg_catalog`: PostgreSQL's system tables, with the columns clients read, filled
//! from a [`Snapshot`]. Tables for features stride lacks are empty (see the module
//! doc of `system`).

use super::snapshot::*;
use super::value::*;
use super::{Rows, SystemTable, Ty};
use stride_common::{DataType, ScalarValue};
use stride_functions::pg_types::{self, PG_TYPES};

use Ty::*;

macro_rules! table {
    ($name:literal, [$(($col:literal, $ty:expr)),* $(,)?], $rows:expr) => {
        SystemTable {
            namespace: PG_CATALOG_OID,
            name: $name,
            columns: &[$(($col, $ty)),*],
            rows: $rows,
        }
    };
}

pub const TABLES: &[SystemTable] = &[
    table!(
        "pg_namespace",
        [
            ("oid", Oid),
            ("nspname", Text),
            ("nspowner", Oid),
            ("nspacl", TextList)
        ],
        namespaces
    ),
    table!(
        "pg_class",
        [
            ("oid", Oid),
            ("relname", Text),
            ("relnamespace", Oid),
            ("reltype", Oid),
            ("reloftype", Oid),
            ("relowner", Oid),
            ("relam", Oid),
            ("relfilenode", Oid),
            ("reltablespace", Oid),
            ("relpages", Int4),
            ("reltuples", Float4),
            ("relallvisible", Int4),
            ("reltoastrelid", Oid),
            ("relhasindex", Bool),
            ("relisshared", Bool),
            ("relpersistence", Text),
            ("relkind", Text),
            ("relnatts", Int2),
            ("relchecks", Int2),
            ("relhasrules", Bool),
            ("relhastriggers", Bool),
            ("relhassubclass", Bool),
            ("relrowsecurity", Bool),
            ("relforcerowsecurity", Bool),
            ("relispopulated", Bool),
            ("relreplident", Text),
            ("relispartition", Bool),
            ("relrewrite", Oid),
            ("relacl", TextList),
            ("reloptions", TextList),
            ("relpartbound", Text),
        ],
        classes
    ),
    table!(
        "pg_attribute",
        [
            ("attrelid", Oid),
            ("attname", Text),
            ("atttypid", Oid),
            ("attstattarget", Int4),
            ("attlen", Int2),
            ("attnum", Int2),
            ("attndims", Int4),
            ("attcacheoff", Int4),
            ("atttypmod", Int4),
            ("attbyval", Bool),
            ("attalign", Text),
            ("attstorage", Text),
            ("attcompression", Text),
            ("attnotnull", Bool),
            ("atthasdef", Bool),
            ("atthasmissing", Bool),
            ("attidentity", Text),
            ("attgenerated", Text),
            ("attisdropped", Bool),
            ("attislocal", Bool),
            ("attinhcount", Int4),
            ("attcollation", Oid),
            ("attacl", TextList),
            ("attoptions", TextList),
            ("attfdwoptions", TextList),
        ],
        attributes
    ),
    table!(
        "pg_type",
        [
            ("oid", Oid),
            ("typname", Text),
            ("typnamespace", Oid),
            ("typowner", Oid),
            ("typlen", Int2),
            ("typbyval", Bool),
            ("typtype", Text),
            ("typcategory", Text),
            ("typispreferred", Bool),
            ("typisdefined", Bool),
            ("typdelim", Text),
            ("typrelid", Oid),
            ("typelem", Oid),
            ("typarray", Oid),
            ("typalign", Text),
            ("typstorage", Text),
            ("typnotnull", Bool),
            ("typbasetype", Oid),
            ("typtypmod", Int4),
            ("typndims", Int4),
            ("typcollation", Oid),
            ("typdefault", Text),
            ("typacl", TextList),
        ],
        types
    ),
    table!(
        "pg_database",
        [
            ("oid", Oid),
            ("datname", Text),
            ("datdba", Oid),
            ("encoding", Int4),
            ("datlocprovider", Text),
            ("datistemplate", Bool),
            ("datallowconn", Bool),
            ("datconnlimit", Int4),
            ("dattablespace", Oid),
            ("datcollate", Text),
            ("datctype", Text),
            ("daticulocale", Text),
            ("datcollversion", Text),
            ("datacl", TextList),
        ],
        databases
    ),
    table!(
        "pg_index",
        [
            ("indexrelid", Oid),
            ("indrelid", Oid),
            ("indnatts", Int2),
            ("indnkeyatts", Int2),
            ("indisunique", Bool),
            ("indnullsnotdistinct", Bool),
            ("indisprimary", Bool),
            ("indisexclusion", Bool),
            ("indimmediate", Bool),
            ("indisclustered", Bool),
            ("indisvalid", Bool),
            ("indcheckxmin", Bool),
            ("indisready", Bool),
            ("indislive", Bool),
            ("indisreplident", Bool),
            ("indkey", Int2List),
            ("indcollation", OidList),
            ("indclass", OidList),
            ("indoption", Int2List),
            ("indexprs", Text),
            ("indpred", Text),
        ],
        indexes
    ),
    table!(
        "pg_proc",
        [
            ("oid", Oid),
            ("proname", Text),
            ("pronamespace", Oid),
            ("proowner", Oid),
            ("prolang", Oid),
            ("procost", Float4),
            ("prorows", Float4),
            ("provariadic", Oid),
            ("prosupport", Oid),
            ("prokind", Text),
            ("prosecdef", Bool),
            ("proleakproof", Bool),
            ("proisstrict", Bool),
            ("proretset", Bool),
            ("provolatile", Text),
            ("proparallel", Text),
            ("pronargs", Int2),
            ("pronargdefaults", Int2),
            ("prorettype", Oid),
            ("proargtypes", OidList),
            ("proallargtypes", OidList),
            ("proargmodes", TextList),
            ("proargnames", TextList),
            ("proargdefaults", Text),
            ("protrftypes", OidList),
            ("prosrc", Text),
            ("probin", Text),
            ("prosqlbody", Text),
            ("proconfig", TextList),
            ("proacl", TextList),
        ],
        procs
    ),
    table!(
        "pg_language",
        [
            ("oid", Oid),
            ("lanname", Text),
            ("lanowner", Oid),
            ("lanispl", Bool),
            ("lanpltrusted", Bool),
            ("lanplcallfoid", Oid),
            ("laninline", Oid),
            ("lanvalidator", Oid),
            ("lanacl", TextList),
        ],
        languages
    ),
    table!(
        "pg_depend",
        [
            ("classid", Oid),
            ("objid", Oid),
            ("objsubid", Int4),
            ("refclassid", Oid),
            ("refobjid", Oid),
            ("refobjsubid", Int4),
            ("deptype", Text),
        ],
        dependencies
    ),
    table!(
        "pg_am",
        [("oid", Oid), ("amname", Text), ("amtype", Text)],
        access_methods
    ),
    table!(
        "pg_attrdef",
        [
            ("oid", Oid),
            ("adrelid", Oid),
            ("adnum", Int2),
            ("adbin", Text)
        ],
        defaults
    ),
    table!(
        "pg_collation",
        [
            ("oid", Oid),
            ("collname", Text),
            ("collnamespace", Oid),
            ("collowner", Oid),
            ("collprovider", Text),
            ("collisdeterministic", Bool),
            ("collencoding", Int4),
            ("collcollate", Text),
            ("collctype", Text),
            ("colliculocale", Text),
            ("collversion", Text),
        ],
        collations
    ),
    table!(
        "pg_constraint",
        [
            ("oid", Oid),
            ("conname", Text),
            ("connamespace", Oid),
            ("contype", Text),
            ("condeferrable", Bool),
            ("condeferred", Bool),
            ("convalidated", Bool),
            ("conrelid", Oid),
            ("contypid", Oid),
            ("conindid", Oid),
            ("conparentid", Oid),
            ("confrelid", Oid),
            ("confupdtype", Text),
            ("confdeltype", Text),
            ("confmatchtype", Text),
            ("conislocal", Bool),
            ("coninhcount", Int4),
            ("connoinherit", Bool),
            ("conkey", Int2List),
            ("confkey", Int2List),
            ("conbin", Text),
        ],
        constraints
    ),
    table!(
        "pg_settings",
        [
            ("name", Text),
            ("setting", Text),
            ("unit", Text),
            ("category", Text),
            ("short_desc", Text),
            ("context", Text),
            ("vartype", Text),
            ("source", Text),
            ("boot_val", Text),
            ("reset_val", Text),
            ("pending_restart", Bool),
        ],
        settings
    ),
    table!(
        "pg_roles",
        [
            ("oid", Oid),
            ("rolname", Text),
            ("rolsuper", Bool),
            ("rolinherit", Bool),
            ("rolcreaterole", Bool),
            ("rolcreatedb", Bool),
            ("rolcanlogin", Bool),
            ("rolreplication", Bool),
            ("rolconnlimit", Int4),
            ("rolpassword", Text),
            ("rolvaliduntil", Text),
            ("rolbypassrls", Bool),
            ("rolconfig", TextList),
        ],
        roles
    ),
    table!(
        "pg_user",
        [
            ("usename", Text),
            ("usesysid", Oid),
            ("usecreatedb", Bool),
            ("usesuper", Bool),
            ("userepl", Bool),
            ("usebypassrls", Bool),
            ("passwd", Text),
            ("valuntil", Text),
            ("useconfig", TextList),
        ],
        users
    ),
    table!(
        "pg_tables",
        [
            ("schemaname", Text),
            ("tablename", Text),
            ("tableowner", Text),
            ("tablespace", Text),
            ("hasindexes", Bool),
            ("hasrules", Bool),
            ("hastriggers", Bool),
            ("rowsecurity", Bool),
        ],
        pg_tables
    ),
    table!(
        "pg_views",
        [
            ("schemaname", Text),
            ("viewname", Text),
            ("viewowner", Text),
            ("definition", Text)
        ],
        pg_views
    ),
    table!(
        "pg_indexes",
        [
            ("schemaname", Text),
            ("tablename", Text),
            ("indexname", Text),
            ("tablespace", Text),
            ("indexdef", Text),
        ],
        pg_indexes
    ),
    // Features stride does not have (comments, inheritance, extended statistics,
    // publications, row-level security, role memberships, tablespaces, extensions):
    // nothing to list.
    table!(
        "pg_description",
        [
            ("objoid", Oid),
            ("classoid", Oid),
            ("objsubid", Int4),
            ("description", Text)
        ],
        nothing
    ),
    table!(
        "pg_shdescription",
        [("objoid", Oid), ("classoid", Oid), ("description", Text)],
        nothing
    ),
    table!(
        "pg_inherits",
        [
            ("inhrelid", Oid),
            ("inhparent", Oid),
            ("inhseqno", Int4),
            ("inhdetachpending", Bool)
        ],
        nothing
    ),
    table!(
        "pg_statistic_ext",
        [
            ("oid", Oid),
            ("stxrelid", Oid),
            ("stxname", Text),
            ("stxnamespace", Oid),
            ("stxowner", Oid),
            ("stxstattarget", Int4),
            ("stxkeys", Int2List),
            ("stxkind", TextList),
            ("stxexprs", Text),
        ],
        nothing
    ),
    table!(
        "pg_publication",
        [
            ("oid", Oid),
            ("pubname", Text),
            ("pubowner", Oid),
            ("puballtables", Bool),
            ("pubinsert", Bool),
            ("pubupdate", Bool),
            ("pubdelete", Bool),
            ("pubtruncate", Bool),
            ("pubviaroot", Bool),
        ],
        nothing
    ),
    table!(
        "pg_publication_rel",
        [
            ("oid", Oid),
            ("prpubid", Oid),
            ("prrelid", Oid),
            ("prqual", Text),
            ("prattrs", Int2List)
        ],
        nothing
    ),
    table!(
        "pg_publication_namespace",
        [("oid", Oid), ("pnpubid", Oid), ("pnnspid", Oid)],
        nothing
    ),
    table!(
        "pg_policy",
        [
            ("oid", Oid),
            ("polname", Text),
            ("polrelid", Oid),
            ("polcmd", Text),
            ("polpermissive", Bool),
            ("polroles", OidList),
            ("polqual", Text),
            ("polwithcheck", Text),
        ],
        nothing
    ),
    table!(
        "pg_auth_members",
        [
            ("oid", Oid),
            ("roleid", Oid),
            ("member", Oid),
            ("grantor", Oid),
            ("admin_option", Bool),
        ],
        nothing
    ),
    table!(
        "pg_tablespace",
        [
            ("oid", Oid),
            ("spcname", Text),
            ("spcowner", Oid),
            ("spcacl", TextList),
            ("spcoptions", TextList),
        ],
        nothing
    ),
    table!(
        "pg_extension",
        [
            ("oid", Oid),
            ("extname", Text),
            ("extowner", Oid),
            ("extnamespace", Oid),
            ("extrelocatable", Bool),
            ("extversion", Text),
        ],
        nothing
    ),
    table!(
        "pg_sequence",
        [
            ("seqrelid", Oid),
            ("seqtypid", Oid),
            ("seqstart", Int8),
            ("seqincrement", Int8),
            ("seqmax", Int8),
            ("seqmin", Int8),
            ("seqcache", Int8),
            ("seqcycle", Bool),
        ],
        sequences
    ),
    // Operator classes: stride's declared indexes name none (`pg_index.indclass`).
    table!(
        "pg_opclass",
        [
            ("oid", Oid),
            ("opcmethod", Oid),
            ("opcname", Text),
            ("opcnamespace", Oid),
            ("opcowner", Oid),
            ("opcfamily", Oid),
            ("opcintype", Oid),
            ("opcdefault", Bool),
            ("opckeytype", Oid),
        ],
        nothing
    ),
];

/// Whether a function's result may change within a transaction (`provolatile`): the
/// clock reads are stable within a statement, everything else is immutable.
fn volatility(name: &str) -> &'static str {
    match name {
        "now" | "current_timestamp" | "current_date" | "today" => "s",
        _ => "i",
    }
}

fn procs(_: &Snapshot) -> Rows {
    use super::pg_proc::{self, ProcKind, INTERNAL_LANGUAGE_OID};
    pg_proc::procs()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let args: Vec<i64> = p.args.iter().map(|&a| a as i64).collect();
            // NULL in, NULL out: true of every kernel, not of the special forms
            // (COALESCE, ...), concat (which skips NULLs) or aggregates.
            let strict = p.kind == ProcKind::Function
                && !crate::binder::SPECIAL_FORMS.contains(&p.name.as_str())
                && !matches!(p.name.as_str(), "concat" | "concat_ws");
            vec![
                oid(pg_proc::proc_oid(i)),
                text(&p.name),
                oid(PG_CATALOG_OID),
                oid(OWNER_OID),
                oid(INTERNAL_LANGUAGE_OID),
                ScalarValue::Real(1.0),
                ScalarValue::Real(if p.retset { 1000.0 } else { 0.0 }),
                oid(p.variadic as i64),
                oid(0),
                text(p.kind.code()),
                boolean(false),
                boolean(false),
                boolean(strict),
                boolean(p.retset),
                text(volatility(&p.name)),
                text("s"),
                int2(args.len() as i16),
                int2(0),
                oid(p.ret as i64),
                oid_list(&args),
                null(),
                null(),
                null(),
                null(),
                null(),
                text(&p.name),
                null(),
                null(),
                null(),
                null(),
            ]
        })
        .collect()
}

fn languages(_: &Snapshot) -> Rows {
    use super::pg_proc::INTERNAL_LANGUAGE_OID;
    vec![vec![
        oid(INTERNAL_LANGUAGE_OID),
        text("internal"),
        oid(OWNER_OID),
        boolean(false),
        boolean(false),
        oid(0),
        oid(0),
        oid(0),
        null(),
    ]]
}

/// PostgreSQL's OID of pg_class, the catalog a relation's dependency is recorded in.
const PG_CLASS_CATALOG: i64 = 1259;

/// What depends on what: each index on its table (automatic: it goes when the table
/// goes).
fn dependencies(s: &Snapshot) -> Rows {
    s.relations
        .iter()
        .filter_map(|r| Some((r, r.index.as_ref()?)))
        .map(|(r, ix)| {
            vec![
                oid(PG_CLASS_CATALOG),
                oid(r.oid),
                int4(0),
                oid(PG_CLASS_CATALOG),
                oid(ix.table),
                int4(0),
                text("a"),
            ]
        })
        .collect()
}

fn nothing(_: &Snapshot) -> Rows {
    Vec::new()
}

fn namespaces(_: &Snapshot) -> Rows {
    NAMESPACES
        .iter()
        .map(|n| vec![oid(n.oid), text(n.name), oid(OWNER_OID), null()])
        .collect()
}

fn classes(s: &Snapshot) -> Rows {
    s.relations
        .iter()
        .map(|r| {
            let am = match r.kind {
                RelKind::Table => TABLE_AM_OID,
                RelKind::Index => INDEX_AM_OID,
                RelKind::View | RelKind::Sequence => 0,
            };
            let tuples = r.rows.map_or(-1.0, |n| n as f32);
            vec![
                oid(r.oid),
                text(&r.name),
                oid(r.namespace),
                oid(0),
                oid(0),
                oid(OWNER_OID),
                oid(am),
                oid(0),
                oid(0),
                // Pages of 8 kB the values would fill.
                int4(
                    r.bytes
                        .map_or(0, |b| b.div_ceil(8192).min(i32::MAX as usize) as i32),
                ),
                ScalarValue::Real(tuples),
                int4(0),
                oid(0),
                boolean(r.has_index(s)),
                boolean(false),
                text("p"),
                text(r.kind.code()),
                int2(r.columns.len().min(i16::MAX as usize) as i16),
                int2(r.checks.len().min(i16::MAX as usize) as i16),
                boolean(false),
                boolean(false),
                boolean(false),
                boolean(false),
                boolean(false),
                boolean(true),
                // Replica identity: none for the catalog, the default for the rest.
                text(if r.system { "n" } else { "d" }),
                boolean(false),
                oid(0),
                null(),
                null(),
                null(),
            ]
        })
        .collect()
}

/// Storage properties of a type as pg_attribute and pg_type report them.
struct Layout {
    len: i16,
    byval: bool,
    align: &'static str,
    storage: &'static str,
}

fn layout(type_oid: u32) -> Layout {
    let len = pg_types::by_oid(type_oid).map_or(-1, |t| t.len);
    Layout {
        len,
        byval: (1..=8).contains(&len),
        align: match len {
            1 => "c",
            2 => "s",
            4 | -1 => "i",
            _ => "d",
        },
        storage: if len == -1 { "x" } else { "p" },
    }
}

/// The collation of values of a type: strings compare by the default collation.
fn collation_of(ty: &DataType) -> i64 {
    match ty {
        DataType::Varchar => DEFAULT_COLLATION_OID,
        DataType::List(inner) => collation_of(inner),
        _ => 0,
    }
}

fn attributes(s: &Snapshot) -> Rows {
    let mut rows = Vec::new();
    for r in &s.relations {
        for (i, c) in r.columns.iter().enumerate() {
            let type_oid = pg_types::oid_of(&c.ty);
            let l = layout(type_oid);
            rows.push(vec![
                oid(r.oid),
                text(&c.name),
                oid(type_oid as i64),
                int4(-1),
                int2(l.len),
                int2(i as i16 + 1),
                int4(matches!(c.ty, DataType::List(_)) as i32),
                int4(-1),
                int4(pg_types::typmod_of(&c.ty)),
                boolean(l.byval),
                text(l.align),
                text(l.storage),
                text(""),
                boolean(c.not_null),
                boolean(c.default.is_some()),
                boolean(false),
                text(""),
                text(""),
                boolean(false),
                boolean(true),
                int4(0),
                oid(collation_of(&c.ty)),
                null(),
                null(),
                null(),
            ]);
        }
    }
    rows
}

fn types(_: &Snapshot) -> Rows {
    PG_TYPES
        .iter()
        .map(|t| {
            let l = layout(t.oid);
            let collation = if t.category == 'S'
                || pg_types::by_oid(t.elem).is_some_and(|e| e.category == 'S')
            {
                DEFAULT_COLLATION_OID
            } else {
                0
            };
            vec![
                oid(t.oid as i64),
                text(t.name),
                oid(PG_CATALOG_OID),
                oid(OWNER_OID),
                int2(l.len),
                boolean(l.byval),
                text(if t.category == 'P' { "p" } else { "b" }),
                text(t.category.to_string()),
                boolean(matches!(
                    t.name,
                    "bool" | "float8" | "text" | "timestamp" | "interval"
                )),
                boolean(true),
                text(","),
                oid(0),
                oid(t.elem as i64),
                oid(t.array as i64),
                text(l.align),
                text(l.storage),
                boolean(false),
                oid(0),
                int4(-1),
                int4(0),
                oid(collation),
                null(),
                null(),
            ]
        })
        .collect()
}

fn databases(s: &Snapshot) -> Rows {
    vec![vec![
        oid(DATABASE_OID),
        text(&s.database),
        oid(OWNER_OID),
        int4(stride_functions::scalar::UTF8_ENCODING),
        text("c"),
        boolean(false),
        boolean(true),
        int4(-1),
        oid(0),
        text("C"),
        text("C"),
        null(),
        null(),
        null(),
    ]]
}

fn indexes(s: &Snapshot) -> Rows {
    s.relations
        .iter()
        .filter_map(|r| Some((r, r.index.as_ref()?)))
        .map(|(r, ix)| {
            let n = ix.columns.len() as i16;
            let collations: Vec<i64> = r.columns.iter().map(|c| collation_of(&c.ty)).collect();
            vec![
                oid(r.oid),
                oid(ix.table),
                int2(n),
                int2(n),
                boolean(ix.unique),
                boolean(false),
                boolean(ix.primary),
                boolean(false),
                boolean(true),
                boolean(false),
                boolean(true),
                boolean(false),
                boolean(true),
                boolean(true),
                boolean(false),
                int2_list(&ix.columns),
                oid_list(&collations),
                oid_list(&vec![0; n as usize]),
                int2_list(&vec![0; n as usize]),
                null(),
                null(),
            ]
        })
        .collect()
}

pub const TABLE_AM_NAME: &str = "columnar";
/// Indexes are declared in the catalog (UNIQUE ones are enforced); scans do not use
/// them yet.
pub const INDEX_AM_NAME: &str = "declared";

fn access_methods(_: &Snapshot) -> Rows {
    vec![
        vec![oid(TABLE_AM_OID), text(TABLE_AM_NAME), text("t")],
        vec![oid(INDEX_AM_OID), text(INDEX_AM_NAME), text("i")],
    ]
}

fn defaults(s: &Snapshot) -> Rows {
    let mut rows = Vec::new();
    for r in s.relations.iter().filter(|r| r.kind == RelKind::Table) {
        for (i, c) in r.columns.iter().enumerate() {
            if let Some(d) = &c.default {
                let attnum = i as i16 + 1;
                rows.push(vec![
                    oid(attrdef_oid(r.oid, attnum)),
                    oid(r.oid),
                    int2(attnum),
                    text(d),
                ]);
            }
        }
    }
    rows
}

fn collations(_: &Snapshot) -> Rows {
    [
        (DEFAULT_COLLATION_OID, "default", "d"),
        (C_COLLATION_OID, "C", "c"),
        (C_COLLATION_OID + 1, "POSIX", "c"),
    ]
    .into_iter()
    .map(|(o, name, provider)| {
        vec![
            oid(o),
            text(name),
            oid(PG_CATALOG_OID),
            oid(OWNER_OID),
            text(provider),
            boolean(true),
            int4(-1),
            if provider == "d" { null() } else { text(name) },
            if provider == "d" { null() } else { text(name) },
            null(),
            null(),
        ]
    })
    .collect()
}

fn constraints(s: &Snapshot) -> Rows {
    let mut rows = Vec::new();
    for r in &s.relations {
        for c in r.constraints() {
            rows.push(vec![
                oid(c.oid),
                text(c.name),
                oid(r.namespace),
                text(c.kind),
                boolean(false),
                boolean(false),
                boolean(true),
                oid(r.oid),
                oid(0),
                oid(c.index),
                oid(0),
                oid(0),
                text(" "),
                text(" "),
                text(" "),
                boolean(true),
                int4(0),
                boolean(c.kind != "c"),
                if c.columns.is_empty() {
                    null()
                } else {
                    int2_list(&c.columns)
                },
                null(),
                if c.kind == "c" {
                    text(c.definition)
                } else {
                    null()
                },
            ]);
        }
    }
    rows
}

/// `pg_sequence`: each sequence's settings (stride's sequences are BIGINT).
fn sequences(s: &Snapshot) -> Rows {
    s.relations
        .iter()
        .filter_map(|r| Some((r, r.sequence.as_ref()?)))
        .map(|(r, q)| {
            vec![
                oid(r.oid),
                oid(pg_types::INT8 as i64),
                int8(q.start),
                int8(q.increment),
                int8(q.max),
                int8(q.min),
                int8(1),
                boolean(q.cycle),
            ]
        })
        .collect()
}

fn settings(s: &Snapshot) -> Rows {
    s.settings
        .iter()
        .map(|x| {
            vec![
                text(&x.name),
                text(&x.value),
                null(),
                text("stride"),
                null(),
                text("user"),
                text("string"),
                text(if x.value == x.default {
                    "default"
                } else {
                    "session"
                }),
                text(&x.default),
                text(&x.default),
                boolean(false),
            ]
        })
        .collect()
}

fn roles(_: &Snapshot) -> Rows {
    vec![vec![
        oid(OWNER_OID),
        text(OWNER_NAME),
        boolean(true),
        boolean(true),
        boolean(true),
        boolean(true),
        boolean(true),
        boolean(false),
        int4(-1),
        text("********"),
        null(),
        boolean(true),
        null(),
    ]]
}

fn users(_: &Snapshot) -> Rows {
    vec![vec![
        text(OWNER_NAME),
        oid(OWNER_OID),
        boolean(true),
        boolean(true),
        boolean(false),
        boolean(true),
        text("********"),
        null(),
        null(),
    ]]
}

fn schema_of(s: &Snapshot, r: &Relation) -> ScalarValue {
    text(s.namespace_name(r.namespace).unwrap_or(""))
}

fn pg_tables(s: &Snapshot) -> Rows {
    s.relations
        .iter()
        .filter(|r| r.kind == RelKind::Table)
        .map(|r| {
            vec![
                schema_of(s, r),
                text(&r.name),
                text(OWNER_NAME),
                null(),
                boolean(r.has_index(s)),
                boolean(false),
                boolean(false),
                boolean(false),
            ]
        })
        .collect()
}

fn pg_views(s: &Snapshot) -> Rows {
    s.relations
        .iter()
        .filter(|r| r.kind == RelKind::View)
        .map(|r| {
            vec![
                schema_of(s, r),
                text(&r.name),
                text(OWNER_NAME),
                r.view_sql.as_deref().map_or(null(), text),
            ]
        })
        .collect()
}

fn pg_indexes(s: &Snapshot) -> Rows {
    s.relations
        .iter()
        .filter_map(|r| Some((r, r.index.as_ref()?)))
        .filter_map(|(r, ix)| {
            let table = s.relation(ix.table)?;
            Some(vec![
                schema_of(s, table),
                text(&table.name),
                text(&r.name),
                null(),
                text(index_definition(s, r)?),
            ])
        })
        .collect()
}

/// `CREATE [UNIQUE] INDEX name ON schema.table USING declared (a, b)`, as
/// `pg_get_indexdef` and `pg_indexes.indexdef` show it.
pub fn index_definition(s: &Snapshot, index: &Relation) -> Option<String> {
    let ix = index.index.as_ref()?;
    let table = s.relation(ix.table)?;
    let columns: Vec<String> = ix
        .columns
        .iter()
        .filter_map(|&a| table.columns.get((a - 1) as usize))
        .map(|c| quote_if_needed(&c.name))
        .collect();
    Some(format!(
        "CREATE {}INDEX {} ON {}.{} USING {INDEX_AM_NAME} ({})",
        if ix.unique { "UNIQUE " } else { "" },
        quote_if_needed(&index.name),
        s.namespace_name(table.namespace).unwrap_or(""),
        quote_if_needed(&table.name),
        columns.join(", ")
    ))
}
