//! Functions PostgreSQL clients call while describing a database (psql's `\d`,
//! drivers' type lookups), over values alone: `format_type(type_oid, typmod)` and
//! `to_regtype(name)` (both from [`crate::pg_types`]), `pg_encoding_to_char(n)`, and
//! `pg_get_expr(expr, relation [, pretty])`, `pg_size_pretty(bytes)`, and the list form of format_type behind
//! `oids::regtype[]`. stride keeps expressions stored in the
//! catalog (column defaults) as SQL text, so `pg_get_expr` returns that text. Functions
//! that need the catalog itself (`pg_table_is_visible`, `::regclass`, ...) are bound by
//! the binder's system catalog instead.

use super::signature::fixed;
use super::{BoundFunction, ScalarFunction};
use crate::kernels::map_values;
use crate::pg_types;
use stride_common::{DataType, Error, Result, ScalarValue, Vector};

pub(crate) fn resolve_format_type(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::FormatType,
        args,
        &[DataType::BigInt, DataType::Integer],
        DataType::Varchar,
    )
}

pub(crate) fn resolve_to_regtype(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::ToRegtype,
        args,
        &[DataType::Varchar],
        DataType::BigInt,
    )
}

pub(crate) fn resolve_encoding_to_char(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::PgEncodingToChar,
        args,
        &[DataType::Integer],
        DataType::Varchar,
    )
}

pub(crate) fn resolve_size_pretty(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::PgSizePretty,
        args,
        &[DataType::BigInt],
        DataType::Varchar,
    )
}

/// `pg_size_pretty(bytes)`: bytes below 10 kB, then kB, MB, GB, TB, PB, each unit
/// used below 20 thousand (rounding halves away from zero), as PostgreSQL prints them.
pub fn size_pretty(bytes: i64) -> String {
    const UNITS: [&str; 6] = ["bytes", "kB", "MB", "GB", "TB", "PB"];
    let half_rounded = |x: i64| (x + if x < 0 { -1 } else { 1 }) / 2;
    if bytes.unsigned_abs() < 10 * 1024 {
        return format!("{bytes} bytes");
    }
    // Kept in units of half the next unit, so the last step can round.
    let mut size = bytes / 512;
    for unit in &UNITS[1..UNITS.len() - 1] {
        if size.unsigned_abs() < 20 * 1024 - 1 {
            return format!("{} {unit}", half_rounded(size));
        }
        size /= 1024;
    }
    format!("{} {}", half_rounded(size), UNITS[UNITS.len() - 1])
}

pub(crate) fn resolve_get_expr(args: &[DataType]) -> Option<BoundFunction> {
    let params: &[DataType] = match args.len() {
        2 => &[DataType::Varchar, DataType::BigInt],
        3 => &[DataType::Varchar, DataType::BigInt, DataType::Boolean],
        _ => return None,
    };
    fixed(ScalarFunction::PgGetExpr, args, params, DataType::Varchar)
}

/// PostgreSQL's encoding numbers: stride stores and sends UTF-8 only, so that is the
/// one name besides SQL_ASCII (0) it reports; other numbers give '' as in PostgreSQL.
pub const UTF8_ENCODING: i32 = 6;

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let ty = &f.return_type;
    match f.func {
        ScalarFunction::FormatType => map_values(&refs, len, ty, false, |row| {
            let Some(oid) = row[0].as_i64() else {
                return Ok(ScalarValue::Null);
            };
            let typmod = row[1].as_i64().map(|m| m as i32);
            let oid = u32::try_from(oid).unwrap_or(0);
            Ok(ScalarValue::Varchar(pg_types::format_type(oid, typmod)))
        }),
        ScalarFunction::FormatTypes => map_values(&refs, len, ty, false, |row| {
            let ScalarValue::List(_, oids) = &row[0] else {
                return Ok(ScalarValue::Null);
            };
            let names = oids
                .iter()
                .map(|o| match o.as_i64() {
                    Some(o) => ScalarValue::Varchar(pg_types::format_type(
                        u32::try_from(o).unwrap_or(0),
                        None,
                    )),
                    None => ScalarValue::Null,
                })
                .collect();
            Ok(ScalarValue::List(DataType::Varchar, names))
        }),
        ScalarFunction::PgSizePretty => map_values(&refs, len, ty, true, |row| {
            Ok(row[0]
                .as_i64()
                .map_or(ScalarValue::Null, |b| ScalarValue::Varchar(size_pretty(b))))
        }),
        ScalarFunction::ToRegtype => map_values(&refs, len, ty, true, |row| {
            Ok(pg_types::oid_by_name(&row[0].to_string())
                .map_or(ScalarValue::Null, |o| ScalarValue::BigInt(o as i64)))
        }),
        ScalarFunction::PgEncodingToChar => map_values(&refs, len, ty, true, |row| {
            Ok(ScalarValue::Varchar(
                match row[0].as_i64() {
                    Some(0) => "SQL_ASCII",
                    Some(n) if n == UTF8_ENCODING as i64 => "UTF8",
                    _ => "",
                }
                .into(),
            ))
        }),
        ScalarFunction::PgGetExpr => map_values(&refs, len, ty, false, |row| {
            Ok(if row[1].is_null() {
                ScalarValue::Null
            } else {
                row[0].clone()
            })
        }),
        other => Err(Error::internal(format!("{other:?} is not a pg function"))),
    }
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::ScalarValue::*;

    #[test]
    fn client_functions() {
        assert_eq!(
            eval("format_type", &[BigInt(1700), Integer((10 << 16 | 2) + 4)]).unwrap(),
            Varchar("numeric(10,2)".into())
        );
        assert_eq!(
            eval("format_type", &[BigInt(23), Null]).unwrap(),
            Varchar("integer".into())
        );
        assert_eq!(eval("format_type", &[Null, Integer(-1)]).unwrap(), Null);
        assert_eq!(
            eval("to_regtype", &[Varchar("int".into())]).unwrap(),
            BigInt(23)
        );
        assert_eq!(eval("to_regtype", &[Varchar("nope".into())]).unwrap(), Null);
        assert_eq!(
            eval("pg_encoding_to_char", &[Integer(6)]).unwrap(),
            Varchar("UTF8".into())
        );
        assert_eq!(
            eval("pg_get_expr", &[Varchar("42".into()), BigInt(16384)]).unwrap(),
            Varchar("42".into())
        );
        use super::size_pretty;
        assert_eq!(size_pretty(10239), "10239 bytes");
        assert_eq!(size_pretty(10240), "10 kB");
        assert_eq!(size_pretty(10_485_247), "10239 kB");
        assert_eq!(size_pretty(10_485_248), "10 MB");
        assert_eq!(size_pretty(20 * 1024 * 1024), "20 MB");
        assert_eq!(size_pretty(1536 * 1024 * 1024), "1536 MB");
        assert_eq!(size_pretty(-10240), "-10 kB");
    }
}
