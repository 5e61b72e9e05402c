//! The functions `pg_catalog.pg_proc` lists: every scalar function, special form,
//! aggregate and table function stride binds, with the argument and result types it
//! binds them to. psql's `\df` and pgcli's completion read them from here.
//!
//! Where it sits: the system catalog (binding, step 3). Scalar functions are resolved
//! by code (`stride_functions::scalar::catalogue`), not declared, so their signatures
//! are learned by asking the binder how it would bind each name over a set of probe
//! types: every signature listed is one a call can really bind to. A name that binds
//! for many types at some position is listed once with a polymorphic type there
//! (`anyelement`, `anyarray`), and a name that takes any number of arguments is
//! listed once as VARIADIC. Operators are not functions in PostgreSQL's catalog and
//! are left out. The list is computed once per process; OIDs follow its order, which
//! is sorted by name and signature, so they stay the same between statements.

use crate::binder::{catalog_function_signatures, probe_call, SPECIAL_FORMS};
use std::collections::BTreeSet;
use std::sync::OnceLock;
use stride_common::DataType;
use stride_functions::aggregate::{aggregate_names, resolve_aggregate};
use stride_functions::pg_types::{self, ANY, ANYARRAY, ANYELEMENT, RECORD};

/// OIDs of functions start here: above the system tables and schemas, below the
/// first user object (`USER_OID_BASE`).
pub const PROC_OID_BASE: i64 = 13100;
/// The one language functions are written in (`pg_language`): built into the server.
pub const INTERNAL_LANGUAGE_OID: i64 = 12;

/// `prokind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ProcKind {
    Function,
    Aggregate,
}

impl ProcKind {
    pub fn code(self) -> &'static str {
        match self {
            ProcKind::Function => "f",
            ProcKind::Aggregate => "a",
        }
    }
}

/// One row of pg_proc.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Proc {
    pub name: String,
    /// Argument type OIDs; a VARIADIC last argument is its array type.
    pub args: Vec<u32>,
    pub kind: ProcKind,
    pub ret: u32,
    /// Returns a set of rows (table functions).
    pub retset: bool,
    /// The element type of a VARIADIC last argument, 0 when there is none.
    pub variadic: u32,
}

impl Proc {
    /// `pg_get_function_arguments`: the argument types as SQL spells them, the last
    /// one marked VARIADIC when it is.
    pub fn arguments_text(&self) -> String {
        let n = self.args.len();
        self.args
            .iter()
            .enumerate()
            .map(|(k, &a)| {
                let name = pg_types::format_type(a, None);
                if k + 1 == n && self.variadic != 0 {
                    format!("VARIADIC {name}")
                } else {
                    name
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `pg_get_function_result`: the result type, `SETOF` for a table function.
    pub fn result_text(&self) -> String {
        let name = pg_types::format_type(self.ret, None);
        if self.retset {
            format!("SETOF {name}")
        } else {
            name
        }
    }
}

/// The OID of `procs()[i]`.
pub fn proc_oid(i: usize) -> i64 {
    PROC_OID_BASE + i as i64
}

/// Every function, sorted; the OID of `procs()[i]` is `PROC_OID_BASE + i`.
pub fn procs() -> &'static [Proc] {
    static PROCS: OnceLock<Vec<Proc>> = OnceLock::new();
    PROCS.get_or_init(build)
}

/// Types each argument position is probed with. Arity 3 and longer calls are probed
/// with fewer, as the combinations multiply.
fn probe_types(arity: usize) -> Vec<DataType> {
    use DataType as T;
    let list = |t: T| T::List(Box::new(t));
    match arity {
        0..=2 => vec![
            T::Boolean,
            T::Integer,
            T::BigInt,
            T::Double,
            T::Decimal(18, 3),
            T::Varchar,
            T::Date,
            T::Timestamp,
            T::Interval,
            list(T::Integer),
            list(T::Varchar),
        ],
        3 => vec![
            T::Integer,
            T::BigInt,
            T::Double,
            T::Varchar,
            T::Date,
            T::Timestamp,
        ],
        _ => vec![T::BigInt, T::Varchar],
    }
}

const MAX_ARITY: usize = 6;
/// More signatures than this at one arity are listed as one polymorphic signature.
const MAX_OVERLOADS: usize = 8;

/// Every argument-type combination of `arity` probe types.
fn combinations(arity: usize) -> Vec<Vec<DataType>> {
    let types = probe_types(arity);
    let mut out = vec![Vec::new()];
    for _ in 0..arity {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                types.iter().map(move |t| {
                    let mut v = prefix.clone();
                    v.push(t.clone());
                    v
                })
            })
            .collect();
    }
    out
}

/// A type's OID; lists of lists, which PostgreSQL has no type for, are `anyarray`,
/// and structs (sent to clients as text) are `any`.
fn oid(t: &DataType) -> u32 {
    match (pg_types::oid_of(t), t) {
        (_, DataType::Struct(_)) => ANY,
        // a list of structs travels as text in pgwire, but is no text[]
        (_, DataType::List(e)) if matches!(**e, DataType::Struct(_)) => ANYARRAY,
        (0, DataType::List(_)) => ANYARRAY,
        (0, _) => ANY,
        (o, _) => o,
    }
}

fn is_array(o: u32) -> bool {
    pg_types::by_oid(o).is_some_and(|t| t.elem != 0) || o == ANYARRAY
}

/// One polymorphic signature standing for many: a position whose type varies becomes
/// `anyarray` when it is always an array, `anyelement` otherwise.
fn collapse(sigs: &BTreeSet<(Vec<u32>, u32)>) -> (Vec<u32>, u32) {
    let first = sigs.iter().next().cloned().unwrap_or_default();
    let general = |values: Vec<u32>| -> u32 {
        if values.iter().all(|&v| v == values[0]) {
            values[0]
        } else if values.iter().all(|&v| is_array(v)) {
            ANYARRAY
        } else {
            ANYELEMENT
        }
    };
    let args = (0..first.0.len())
        .map(|k| general(sigs.iter().map(|(a, _)| a[k]).collect()))
        .collect();
    let ret = general(sigs.iter().map(|(_, r)| *r).collect());
    (args, ret)
}

/// How a name binds a call: the argument types it casts to and its result type.
type Binds<'a> = &'a dyn Fn(&[DataType]) -> Option<(Vec<DataType>, DataType)>;

/// The signatures a name binds to, by arity.
fn signatures(bind: Binds) -> Vec<BTreeSet<(Vec<u32>, u32)>> {
    (0..=MAX_ARITY)
        .map(|arity| {
            combinations(arity)
                .iter()
                .filter_map(|args| bind(args))
                .map(|(args, ret)| (args.iter().map(oid).collect(), oid(&ret)))
                .collect()
        })
        .collect()
}

/// The rows of one name: each arity's signatures (collapsed when too many); a name
/// that binds at every arity from some point on is listed once, VARIADIC.
fn rows_for(name: &str, kind: ProcKind, by_arity: Vec<BTreeSet<(Vec<u32>, u32)>>) -> Vec<Proc> {
    let accepts = |n: usize| by_arity.get(n).is_some_and(|s| !s.is_empty());
    let variadic_from = if accepts(MAX_ARITY - 1) && accepts(MAX_ARITY) {
        (1..=MAX_ARITY).rev().take_while(|&n| accepts(n)).last()
    } else {
        None
    };
    let mut rows = Vec::new();
    for (arity, sigs) in by_arity.iter().enumerate() {
        if sigs.is_empty() || variadic_from.is_some_and(|v| arity > v) {
            continue;
        }
        let list: Vec<(Vec<u32>, u32)> =
            if sigs.len() > MAX_OVERLOADS || variadic_from == Some(arity) {
                vec![collapse(sigs)]
            } else {
                sigs.iter().cloned().collect()
            };
        for (mut args, ret) in list {
            let mut variadic = 0;
            if variadic_from == Some(arity) {
                if let Some(last) = args.last_mut() {
                    variadic = *last;
                    *last = match pg_types::by_oid(*last) {
                        Some(t) if t.array != 0 => t.array,
                        _ => ANYARRAY,
                    };
                }
            }
            rows.push(Proc {
                name: name.to_string(),
                args,
                kind,
                ret,
                retset: false,
                variadic,
            });
        }
    }
    rows
}

/// Table functions (FROM items), bound in `binder/from.rs` and `binder/csv.rs`.
fn table_functions() -> Vec<Proc> {
    use pg_types::{INT8, TEXT};
    let f = |name: &str, args: &[u32], ret: u32| Proc {
        name: name.into(),
        args: args.to_vec(),
        kind: ProcKind::Function,
        ret,
        retset: true,
        variadic: 0,
    };
    let mut rows = Vec::new();
    for name in ["range", "generate_series"] {
        rows.push(f(name, &[INT8], INT8));
        rows.push(f(name, &[INT8, INT8], INT8));
        rows.push(f(name, &[INT8, INT8, INT8], INT8));
    }
    rows.push(f("unnest", &[ANYARRAY], ANYELEMENT));
    for name in ["json_each", "json_tree"] {
        rows.push(f(name, &[TEXT], RECORD));
        rows.push(f(name, &[TEXT, TEXT], RECORD));
    }
    for name in [
        "read_csv",
        "read_csv_auto",
        "sniff_csv",
        "pragma_storage_info",
        "pragma_table_info",
        "read_parquet",
        "parquet_scan",
        "read_arrow",
        "parquet_schema",
        "parquet_metadata",
        "parquet_file_metadata",
        "read_json",
        "read_json_auto",
        "read_ndjson",
        "read_ndjson_auto",
        "read_json_objects",
        "read_json_objects_auto",
        "read_ndjson_objects",
    ] {
        rows.push(f(name, &[TEXT], RECORD));
    }
    rows.push(f("duckdb_databases", &[], RECORD));
    for name in crate::binder::DUCKDB_TABLE_FUNCTIONS {
        rows.push(f(name, &[], RECORD));
    }
    rows.push(f("pragma_collations", &[], RECORD));
    rows.push(f("pg_timezone_names", &[], RECORD));
    for name in [
        "query",
        "query_table",
        "glob",
        "read_text",
        "read_blob",
        "pragma_show",
    ] {
        rows.push(f(name, &[TEXT], RECORD));
    }
    rows.push(Proc {
        variadic: ANYELEMENT,
        ..f("repeat_row", &[ANYARRAY], RECORD)
    });
    rows.push(f("duckdb_functions", &[], RECORD));
    rows
}

fn build() -> Vec<Proc> {
    let mut rows: BTreeSet<Proc> = BTreeSet::new();
    let plain = |n: &&str| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let scalar: BTreeSet<&str> = stride_functions::scalar::catalogue::function_names()
        .chain(SPECIAL_FORMS.iter().copied())
        .filter(plain)
        .collect();
    for name in scalar {
        let sigs = signatures(&|args| probe_call(name, args));
        rows.extend(rows_for(name, ProcKind::Function, sigs));
    }
    for name in aggregate_names() {
        let sigs = signatures(&|args| {
            let b = resolve_aggregate(name, args).ok()??;
            Some((b.arg_types, b.return_type))
        });
        rows.extend(rows_for(name, ProcKind::Aggregate, sigs));
    }
    // count(*) is count() without arguments.
    rows.insert(Proc {
        name: "count".into(),
        args: vec![],
        kind: ProcKind::Aggregate,
        ret: pg_types::INT8,
        retset: false,
        variadic: 0,
    });
    for (name, args, ret) in catalog_function_signatures() {
        rows.insert(Proc {
            name: name.to_string(),
            args: args.to_vec(),
            kind: ProcKind::Function,
            ret: *ret,
            retset: false,
            variadic: 0,
        });
    }
    rows.extend(table_functions());
    rows.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pg_types::*;

    fn find<'a>(name: &str) -> Vec<&'a Proc> {
        procs().iter().filter(|p| p.name == name).collect()
    }

    #[test]
    fn signatures_come_from_the_binder() {
        let sums = find("sum");
        assert!(sums.iter().all(|p| p.kind == ProcKind::Aggregate));
        assert!(sums.iter().any(|p| p.args == [INT4] && p.ret == NUMERIC));
        assert!(sums.iter().any(|p| p.args == [FLOAT8] && p.ret == FLOAT8));
        assert!(find("count").iter().any(|p| p.args.is_empty()));
        let lower = find("lower");
        assert_eq!(lower.len(), 1, "{lower:?}");
        assert_eq!(
            (lower[0].args.as_slice(), lower[0].ret),
            ([VARCHAR].as_slice(), VARCHAR)
        );
        let concat = find("concat");
        assert!(concat.iter().any(|p| p.variadic != 0), "{concat:?}");
        assert!(find("make_timestamp").iter().any(|p| p.args.len() == 6));
        assert!(find("unnest").iter().all(|p| p.retset));
        assert!(find("coalesce").iter().any(|p| p.variadic == ANYELEMENT));
        assert!(find("pg_table_is_visible").iter().any(|p| p.ret == BOOL));
        // Operators are not functions.
        assert!(find("+").is_empty());
        assert_eq!(concat[0].arguments_text(), "VARIADIC character varying[]");
        let series = find("generate_series");
        assert_eq!(series[0].result_text(), "SETOF bigint");
        let ifs = find("if");
        assert!(
            ifs.iter()
                .all(|p| p.args[0] == BOOL && p.args[1] == p.args[2] && p.ret == p.args[1]),
            "{ifs:?}"
        );
        let n = procs().len() as i64;
        assert!(
            PROC_OID_BASE + n < super::super::snapshot::USER_OID_BASE,
            "{n}"
        );
    }
}
