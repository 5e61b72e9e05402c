//! DuckDB's built-in macros: functions DuckDB defines as SQL expressions over other
//! functions (its `duckdb_functions()` lists them with `function_type = 'macro'`).
//! Each is the same expression here, written in SQL with the parameters `$1`, `$2`,
//! ...; a call parses the body once, puts the call's argument expressions (as
//! written) in place of the parameters and binds the result in the call's scope, so
//! an argument may be any expression and an aggregate macro (`weighted_avg`) adds
//! its aggregates to the query as if they had been written out.
//!
//! Most are PostgreSQL compatibility functions with constant answers (stride has
//! one user, who may do everything, and no temporary schemas), as in DuckDB.

use super::expr::ExprCtx;
use super::Binder;
use crate::plan::Expr;
use sqlparser::ast;
use std::ops::ControlFlow;
use stride_common::{Error, Result};

/// A macro: its name, the numbers of arguments it takes and its body.
struct Macro {
    name: &'static str,
    arities: &'static [usize],
    body: &'static str,
}

const fn m(name: &'static str, arities: &'static [usize], body: &'static str) -> Macro {
    Macro {
        name,
        arities,
        body,
    }
}

/// PostgreSQL's `pg_typeof` names types in lower case; DuckDB's format_pg_type maps
/// its type names to PostgreSQL's.
const FORMAT_PG_TYPE: &str = "CASE WHEN upper($1) = 'FLOAT' THEN 'float4' \
    WHEN upper($1) = 'DOUBLE' THEN 'float8' WHEN upper($1) = 'DECIMAL' THEN 'numeric' \
    WHEN upper($1) = 'ENUM' THEN lower($2) WHEN upper($1) = 'VARCHAR' THEN 'varchar' \
    WHEN upper($1) = 'BLOB' THEN 'bytea' WHEN upper($1) = 'TIMESTAMP' THEN 'timestamp' \
    WHEN upper($1) = 'TIME' THEN 'time' \
    WHEN upper($1) = 'TIMESTAMP WITH TIME ZONE' THEN 'timestamptz' \
    WHEN upper($1) = 'TIME WITH TIME ZONE' THEN 'timetz' \
    WHEN upper($1) = 'SMALLINT' THEN 'int2' WHEN upper($1) = 'INTEGER' THEN 'int4' \
    WHEN upper($1) = 'BIGINT' THEN 'int8' WHEN upper($1) = 'BOOLEAN' THEN 'bool' \
    ELSE lower($1) END";

const MAP_TO_PG_OID: &str = "CASE WHEN $1 = 'bool' THEN 16 WHEN $1 = 'int16' THEN 21 \
    WHEN $1 = 'int' THEN 23 WHEN $1 = 'bigint' THEN 20 WHEN $1 = 'date' THEN 1082 \
    WHEN $1 = 'time' THEN 1083 WHEN $1 = 'datetime' THEN 1114 WHEN $1 = 'dec' THEN 1700 \
    WHEN $1 = 'float' THEN 700 WHEN $1 = 'double' THEN 701 WHEN $1 = 'bpchar' THEN 1043 \
    WHEN $1 = 'binary' THEN 17 WHEN $1 = 'interval' THEN 1186 \
    WHEN $1 = 'timestamptz' THEN 1184 WHEN $1 = 'timestamp with time zone' THEN 1184 \
    WHEN $1 = 'timetz' THEN 1266 WHEN $1 = 'time with time zone' THEN 1266 \
    WHEN $1 = 'bit' THEN 1560 WHEN $1 = 'guid' THEN 2950 ELSE NULL END";

const MAP_TYPE_ID_TO_PG_OID: &str = "CASE WHEN $1 = 10 THEN 16 WHEN $1 = 12 THEN 21 \
    WHEN $1 = 13 THEN 23 WHEN $1 = 14 THEN 20 WHEN $1 = 15 THEN 1082 \
    WHEN $1 = 16 THEN 1083 WHEN $1 = 19 THEN 1114 WHEN $1 = 21 THEN 1700 \
    WHEN $1 = 22 THEN 700 WHEN $1 = 23 THEN 701 WHEN $1 = 25 THEN 1043 \
    WHEN $1 = 26 THEN 17 WHEN $1 = 27 THEN 1186 WHEN $1 = 32 THEN 1184 \
    WHEN $1 = 34 THEN 1266 WHEN $1 = 36 THEN 1560 WHEN $1 = 54 THEN 2950 ELSE NULL END";

const MACROS: &[Macro] = &[
    // privileges: the one user may do everything
    m("has_any_column_privilege", &[2, 3], "true"),
    m("has_column_privilege", &[3, 4], "true"),
    m("has_database_privilege", &[2, 3], "true"),
    m("has_foreign_data_wrapper_privilege", &[2, 3], "true"),
    m("has_function_privilege", &[2, 3], "true"),
    m("has_language_privilege", &[2, 3], "true"),
    m("has_schema_privilege", &[2, 3], "true"),
    m("has_sequence_privilege", &[2, 3], "true"),
    m("has_server_privilege", &[2, 3], "true"),
    m("has_table_privilege", &[2, 3], "true"),
    m("has_tablespace_privilege", &[2, 3], "true"),
    m("pg_has_role", &[2, 3], "true"),
    // visibility: everything is on the search path
    m("pg_collation_is_visible", &[1], "true"),
    m("pg_conversion_is_visible", &[1], "true"),
    m("pg_opclass_is_visible", &[1], "true"),
    m("pg_operator_is_visible", &[1], "true"),
    m("pg_opfamily_is_visible", &[1], "true"),
    m("pg_ts_config_is_visible", &[1], "true"),
    m("pg_ts_dict_is_visible", &[1], "true"),
    m("pg_ts_parser_is_visible", &[1], "true"),
    m("pg_ts_template_is_visible", &[1], "true"),
    // no temporary schemas, no network peer
    m("pg_is_other_temp_schema", &[1], "false"),
    m("pg_my_temp_schema", &[0], "0"),
    m("inet_client_addr", &[0], "NULL"),
    m("inet_client_port", &[0], "NULL"),
    m("inet_server_addr", &[0], "NULL"),
    m("inet_server_port", &[0], "NULL"),
    m("pg_postmaster_start_time", &[0], "current_timestamp"),
    m("pg_conf_load_time", &[0], "current_timestamp"),
    m("pg_typeof", &[1], "lower(typeof($1))"),
    m("pg_sleep", &[1], "sleep_ms(CAST(($1 * 1000) AS BIGINT))"),
    m("format_pg_type", &[2], FORMAT_PG_TYPE),
    m("map_to_pg_oid", &[1], MAP_TO_PG_OID),
    m("map_type_id_to_pg_oid", &[1], MAP_TYPE_ID_TO_PG_OID),
    m(
        "in_search_path",
        &[2],
        "CASE WHEN $1 IS NULL OR $2 IS NULL THEN NULL \
         ELSE $2 = 'main' AND $1 IN (current_database(), 'system', 'temp') END",
    ),
    // dates
    m("days_in_month", &[1], "day(last_day($1))"),
    m("ago", &[1], "(current_timestamp - CAST($1 AS INTERVAL))"),
    // lists
    m("array_pop_back", &[1], "$1[:(len($1) - 1)]"),
    m("array_pop_front", &[1], "$1[2:]"),
    m("list_histogram", &[1], "list_aggr($1, 'histogram')"),
    m(
        "array_to_string_comma_default",
        &[2],
        "CASE WHEN len(CAST($1 AS VARCHAR[])) = 0 THEN '' \
         ELSE list_aggr(CAST($1 AS VARCHAR[]), 'string_agg', $2) END",
    ),
    // errors
    m(
        "assert_true",
        &[1, 2],
        "CASE WHEN $1 THEN NULL ELSE error(COALESCE('Assertion: ' || $2, 'Assertion failed')) END",
    ),
    // aggregates
    m(
        "weighted_avg",
        &[2],
        "(sum($1 * $2) / CAST(sum(CASE WHEN $1 IS NOT NULL THEN $2 ELSE 0 END) AS DOUBLE))",
    ),
    m(
        "json_group_structure",
        &[1],
        "json_extract(json_structure(json_group_array($1)), 0)",
    ),
    m(
        "wavg",
        &[2],
        "(sum($1 * $2) / CAST(sum(CASE WHEN $1 IS NOT NULL THEN $2 ELSE 0 END) AS DOUBLE))",
    ),
];

/// The names of the built-in macros (duckdb_functions lists them).
pub fn builtin_macro_names() -> impl Iterator<Item = &'static str> {
    MACROS.iter().map(|m| m.name)
}

/// Whether `name` is a built-in macro.
pub(super) fn is_builtin_macro(name: &str) -> bool {
    MACROS.iter().any(|m| m.name == name)
}

/// `$n` in a body: the argument's position.
fn parameter(e: &ast::Expr) -> Option<usize> {
    match e {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Placeholder(p) => p.strip_prefix('$')?.parse::<usize>().ok(),
            _ => None,
        },
        _ => None,
    }
}

impl Binder<'_> {
    /// Binds a call of the built-in macro `name`.
    pub(super) fn bind_builtin_macro(
        &mut self,
        name: &str,
        args: &[ast::FunctionArg],
        ctx: &mut ExprCtx,
    ) -> Result<Expr> {
        let mac = MACROS
            .iter()
            .find(|m| m.name == name)
            .ok_or_else(|| Error::internal(format!("{name} is not a macro")))?;
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            match super::function::positional(a) {
                Some(e) => values.push(e.into_owned()),
                None => {
                    return Err(Error::binder(format!(
                        "unsupported argument {a} in call to {name}"
                    )))
                }
            }
        }
        if !mac.arities.contains(&values.len()) {
            return Err(Error::binder(format!(
                "Macro {name}() does not support the supplied arguments. You might need to add explicit type casts."
            )));
        }
        // `assert_true(c)` has no message: its `$2` is NULL.
        let mut body = crate::parser::parse_expr(mac.body)?;
        let _ = ast::visit_expressions_mut(&mut body, |e| {
            if let Some(k) = parameter(e) {
                *e = match values.get(k - 1) {
                    Some(v) => ast::Expr::Nested(Box::new(v.clone())),
                    None => ast::Expr::Value(ast::Value::Null.into()),
                };
            }
            ControlFlow::<()>::Continue(())
        });
        self.bind_expr(&body, ctx)
    }
}
