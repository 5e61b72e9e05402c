//! `duckdb_functions()`: every function stride binds, one row per signature, with
//! DuckDB's columns, so a DuckDB user (or a tool written for DuckDB) can look up what
//! exists. Scalar functions, aggregates and table functions come with the signatures
//! pg_proc learned from the binder; operators, lambda functions and window functions
//! are listed by name. Descriptions and examples come from the function reference
//! (`stride_functions::reference`).
//!
//! Where it sits: the system catalog (binding, step 3); `duckdb_functions()` in FROM
//! binds to these rows as constant VALUES (binder/from.rs).

use super::pg_proc::{procs, ProcKind};
use stride_common::{DataType, ScalarValue};
use stride_functions::pg_types;

/// The columns, as DuckDB names them (those stride can fill).
pub fn columns() -> Vec<(&'static str, DataType)> {
    use DataType::{BigInt, Boolean, Varchar};
    let text_list = DataType::List(Box::new(Varchar));
    vec![
        ("database_name", Varchar),
        ("database_oid", BigInt),
        ("schema_name", Varchar),
        ("function_name", Varchar),
        ("alias_of", Varchar),
        ("function_type", Varchar),
        ("description", Varchar),
        ("comment", Varchar),
        ("return_type", Varchar),
        ("parameters", text_list.clone()),
        ("parameter_types", text_list.clone()),
        ("varargs", Varchar),
        ("macro_definition", Varchar),
        ("has_side_effects", Boolean),
        ("internal", Boolean),
        ("function_oid", BigInt),
        ("examples", text_list),
        ("stability", Varchar),
    ]
}

/// DuckDB's name of the type a pg_proc OID stands for.
fn type_name(oid: u32) -> String {
    use pg_types::*;
    match oid {
        BOOL => "BOOLEAN".into(),
        INT2 => "SMALLINT".into(),
        INT4 => "INTEGER".into(),
        INT8 => "BIGINT".into(),
        FLOAT4 => "FLOAT".into(),
        FLOAT8 => "DOUBLE".into(),
        NUMERIC => "DECIMAL".into(),
        VARCHAR | TEXT => "VARCHAR".into(),
        DATE => "DATE".into(),
        TIMESTAMP => "TIMESTAMP".into(),
        INTERVAL => "INTERVAL".into(),
        BYTEA => "BLOB".into(),
        ANYARRAY => "ANY[]".into(),
        ANY | ANYELEMENT => "ANY".into(),
        RECORD => "TABLE".into(),
        other => match by_oid(other) {
            Some(t) if t.elem != 0 => format!("{}[]", type_name(t.elem)),
            Some(t) => t.name.to_ascii_uppercase(),
            None => "ANY".into(),
        },
    }
}

/// One row: a function's name, kind and (when known) signature.
fn row(
    oid: i64,
    name: &str,
    kind: &str,
    signature: Option<(&[u32], u32, u32)>,
) -> Vec<ScalarValue> {
    let text = |s: &str| ScalarValue::Varchar(s.to_string());
    let list = |v: Vec<String>| {
        ScalarValue::List(
            DataType::Varchar,
            v.into_iter().map(ScalarValue::Varchar).collect(),
        )
    };
    let (params, types, ret, varargs) = match signature {
        Some((args, ret, variadic)) => {
            let fixed = if variadic != 0 {
                &args[..args.len() - 1]
            } else {
                args
            };
            (
                list((0..fixed.len()).map(|i| format!("col{i}")).collect()),
                list(fixed.iter().map(|&a| type_name(a)).collect()),
                if kind == "table" {
                    ScalarValue::Null
                } else {
                    text(&type_name(ret))
                },
                if variadic != 0 {
                    text(&type_name(variadic))
                } else {
                    ScalarValue::Null
                },
            )
        }
        None => (
            ScalarValue::Null,
            ScalarValue::Null,
            ScalarValue::Null,
            ScalarValue::Null,
        ),
    };
    let probes: [&[DataType]; 4] = [
        &[],
        &[DataType::Double],
        &[DataType::Varchar],
        &[DataType::BigInt],
    ];
    let volatile = stride_functions::scalar::catalogue::lookup(name).is_some_and(|r| {
        probes
            .iter()
            .any(|a| r(a).is_some_and(|b| b.func.is_volatile()))
    }) || matches!(
        name,
        "current_date"
            | "today"
            | "current_timestamp"
            | "now"
            | "get_current_timestamp"
            | "transaction_timestamp"
            | "current_localtimestamp"
    );
    let doc = stride_functions::reference::doc(name);
    vec![
        text("system"),
        ScalarValue::BigInt(0),
        text("main"),
        text(name),
        ScalarValue::Null,
        text(kind),
        doc.map_or(ScalarValue::Null, |d| text(&d.description)),
        ScalarValue::Null,
        ret,
        params,
        types,
        varargs,
        ScalarValue::Null,
        ScalarValue::Boolean(false),
        ScalarValue::Boolean(true),
        ScalarValue::BigInt(oid),
        doc.map_or(ScalarValue::Null, |d| {
            list(d.examples.iter().map(|e| e.to_string()).collect())
        }),
        text(if volatile { "VOLATILE" } else { "CONSISTENT" }),
    ]
}

/// Every row of `duckdb_functions()`.
pub fn rows() -> Vec<Vec<ScalarValue>> {
    let mut out = Vec::new();
    let mut listed = std::collections::BTreeSet::new();
    for (i, p) in procs().iter().enumerate() {
        let kind = match (p.kind, p.retset) {
            (ProcKind::Aggregate, _) => "aggregate",
            (_, true) => "table",
            _ => "scalar",
        };
        listed.insert(p.name.clone());
        out.push(row(
            super::pg_proc::proc_oid(i),
            &p.name,
            kind,
            Some((&p.args, p.ret, p.variadic)),
        ));
    }
    let mut next = super::pg_proc::proc_oid(procs().len());
    let mut named = |name: &str, kind: &str, out: &mut Vec<Vec<ScalarValue>>| {
        out.push(row(next, name, kind, None));
        next += 1;
    };
    for name in stride_functions::scalar::catalogue::function_names() {
        if !listed.contains(name) {
            named(name, "scalar", &mut out);
        }
    }
    for name in
        crate::binder::builtin_macro_names().chain(["generate_subscripts", "regexp_split_to_table"])
    {
        if !listed.contains(name) {
            named(name, "macro", &mut out);
        }
    }
    // `PRAGMA name`, bound in binder/procedure.rs
    for name in crate::binder::PRAGMAS {
        named(name, "pragma", &mut out);
    }
    // bound by the binder itself (function.rs)
    for name in [
        "current_setting",
        "alias",
        "current_query",
        "getvariable",
        "IS DISTINCT FROM",
        "IS NOT DISTINCT FROM",
    ]
    .into_iter()
    .chain(crate::binder::STRUCT_FUNCTIONS.iter().copied())
    .chain(crate::binder::SESSION_ID_FUNCTIONS)
    {
        named(name, "scalar", &mut out);
    }
    for name in crate::binder::LAMBDA_FUNCTIONS {
        named(name, "scalar", &mut out);
    }
    for name in crate::binder::MACRO_FUNCTIONS {
        named(name, "macro", &mut out);
    }
    for name in crate::binder::WINDOW_FUNCTIONS {
        named(name, "window", &mut out);
    }
    out
}
