//! SQL type names and literals: `sqlparser` data types to [`DataType`], and number
//! literals to the narrowest fitting type (INTEGER, BIGINT, HUGEINT, DECIMAL or DOUBLE), as
//! DuckDB types them.
//!
//! A name the parser does not know may be a type created by `CREATE TYPE`: the
//! binder passes a lookup over its catalog ([`convert_data_type_in`]); without one
//! ([`convert_data_type`]) such names are unknown types.

use sqlparser::ast;
use stride_common::types::DECIMAL_MAX_PRECISION;
use stride_common::{DataType, EnumType, Error, Result, ScalarValue};

/// Finds a type created by `CREATE TYPE` by its (lower-case) name.
pub type UserTypes<'a> = &'a dyn Fn(&str) -> Option<DataType>;

/// A type name as a [`DataType`], knowing only the built-in types.
pub fn convert_data_type(t: &ast::DataType) -> Result<DataType> {
    convert_data_type_in(t, &|_| None)
}

/// `ENUM('a', 'b', ...)`: string labels, each once.
fn enum_type(members: &[ast::EnumMember], bits: &Option<u8>) -> Result<DataType> {
    if bits.is_some() {
        return Err(Error::not_supported(
            "ENUM8 and ENUM16 are not supported; write ENUM('a', 'b', ...)",
        ));
    }
    let labels = members
        .iter()
        .map(|m| match m {
            ast::EnumMember::Name(n) => Ok(n.clone()),
            ast::EnumMember::NamedValue(n, _) => Err(Error::binder(format!(
                "an ENUM's values are strings without numbers: write '{n}', not '{n}' = ..."
            ))),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(DataType::Enum(EnumType::new(None, labels)?))
}

/// A type name as a [`DataType`]; `user` finds the types created by CREATE TYPE.
pub fn convert_data_type_in(t: &ast::DataType, user: UserTypes) -> Result<DataType> {
    use ast::DataType as A;
    let convert_data_type = |t: &ast::DataType| convert_data_type_in(t, user);
    let parse_type_text = |text: &str, full: &ast::ObjectName| parse_type_text(text, full, user);
    Ok(match t {
        A::Enum(members, bits) => enum_type(members, bits)?,
        A::Boolean | A::Bool => DataType::Boolean,
        A::TinyInt(_) => DataType::TinyInt,
        A::SmallInt(_) | A::Int2(_) | A::Int16 => DataType::SmallInt,
        A::Int(_) | A::Integer(_) | A::Int4(_) | A::Int32 => DataType::Integer,
        A::BigInt(_) | A::Int8(_) | A::Int64 => DataType::BigInt,
        A::HugeInt | A::Int128 => DataType::HugeInt,
        A::UTinyInt | A::UInt8 | A::TinyIntUnsigned(_) => DataType::UTinyInt,
        A::USmallInt | A::UInt16 | A::SmallIntUnsigned(_) | A::Int2Unsigned(_) => {
            DataType::USmallInt
        }
        A::UInt32
        | A::IntUnsigned(_)
        | A::IntegerUnsigned(_)
        | A::Int4Unsigned(_)
        | A::Unsigned
        | A::UnsignedInteger => DataType::UInteger,
        A::UBigInt | A::UInt64 | A::BigIntUnsigned(_) | A::Int8Unsigned(_) => DataType::UBigInt,
        A::UHugeInt | A::UInt128 => DataType::UHugeInt,
        A::Real | A::Float4 | A::Float32 => DataType::Real,
        // FLOAT is 4 bytes, as in DuckDB (PostgreSQL makes it DOUBLE); FLOAT(p)
        // with more than 24 bits of precision is DOUBLE in both
        A::Float(info) => match info {
            ast::ExactNumberInfo::Precision(p) if *p > 24 => DataType::Double,
            _ => DataType::Real,
        },
        A::Double(_) | A::DoublePrecision | A::Float8 | A::Float64 => DataType::Double,
        A::Decimal(info) | A::Numeric(info) | A::Dec(info) => {
            let (p, s) = match info {
                ast::ExactNumberInfo::None => (18, 3),
                ast::ExactNumberInfo::Precision(p) => (*p, 0),
                ast::ExactNumberInfo::PrecisionAndScale(p, s) => (*p, (*s).max(0) as u64),
            };
            if p == 0 || p > DECIMAL_MAX_PRECISION as u64 || s > p {
                return Err(Error::binder(format!(
                    "invalid DECIMAL({p},{s}): precision must be between 1 and 38 and scale between 0 and the precision"
                )));
            }
            DataType::Decimal(p as u8, s as u8)
        }
        A::Varchar(_)
        | A::Nvarchar(_)
        | A::CharacterVarying(_)
        | A::CharVarying(_)
        | A::Character(_)
        | A::Char(_)
        | A::Text
        | A::String(_) => DataType::Varchar,
        A::Date => DataType::Date,
        A::Timestamp(_, tz) => {
            if matches!(tz, ast::TimezoneInfo::WithTimeZone | ast::TimezoneInfo::Tz) {
                DataType::TimestampTz
            } else {
                DataType::Timestamp
            }
        }
        A::TimestampNtz(_) | A::Datetime(_) => DataType::Timestamp,
        A::Time(_, tz) => {
            if matches!(tz, ast::TimezoneInfo::WithTimeZone | ast::TimezoneInfo::Tz) {
                DataType::TimeTz
            } else {
                DataType::Time
            }
        }
        A::Uuid => DataType::Uuid,
        A::Interval { .. } => DataType::Interval,
        // `T[n]` is an ARRAY of n elements, `T[]` a LIST
        A::Array(ast::ArrayElemTypeDef::SquareBracket(inner, Some(n))) => {
            if *n == 0 || *n > 100_000 {
                return Err(Error::binder(format!(
                    "an ARRAY's size must be between 1 and 100000, not {n}"
                )));
            }
            DataType::Array(Box::new(convert_data_type(inner)?), *n as u32)
        }
        A::Array(
            ast::ArrayElemTypeDef::SquareBracket(inner, None)
            | ast::ArrayElemTypeDef::AngleBracket(inner),
        ) => DataType::List(Box::new(convert_data_type(inner)?)),
        A::JSON => DataType::Json,
        // DuckDB's BLOB and its aliases (BYTEA, BINARY, VARBINARY)
        A::Blob(_)
        | A::TinyBlob
        | A::MediumBlob
        | A::LongBlob
        | A::Bytea
        | A::Binary(_)
        | A::Varbinary(_) => DataType::Blob,
        // DuckDB's BIT is a bit string of any length (PostgreSQL's BIT VARYING)
        A::Bit(_) | A::BitVarying(_) | A::VarBit(_) => DataType::Bit,
        A::Map(k, v, _) => DataType::Map(
            Box::new(convert_data_type(k)?),
            Box::new(convert_data_type(v)?),
        ),
        A::Struct(fields, _) => {
            if fields.is_empty() {
                return Err(Error::binder("a STRUCT type needs at least one field"));
            }
            let mut out: Vec<(String, DataType)> = Vec::with_capacity(fields.len());
            for f in fields {
                let name = f
                    .field_name
                    .as_ref()
                    .map_or(String::new(), |n| n.value.clone());
                if !name.is_empty() && out.iter().any(|(m, _)| m.eq_ignore_ascii_case(&name)) {
                    return Err(Error::binder(format!(
                        "Duplicate struct entry name \"{name}\""
                    )));
                }
                out.push((name, convert_data_type(&f.field_type)?));
            }
            DataType::Struct(out)
        }
        A::Union(fields) => {
            let members = fields
                .iter()
                .map(|f| {
                    Ok((
                        f.field_name.value.clone(),
                        convert_data_type(&f.field_type)?,
                    ))
                })
                .collect::<Result<Vec<_>>>()?;
            stride_common::union_type::check(&members)?;
            DataType::Union(members)
        }
        A::Custom(name, args) => {
            let parts: Vec<String> = name
                .0
                .iter()
                .map(|p| match p {
                    ast::ObjectNamePart::Identifier(id) => id.value.to_ascii_lowercase(),
                    other => other.to_string().to_ascii_lowercase(),
                })
                .collect();
            match parts.as_slice() {
                // `pg_catalog.int4`: PostgreSQL's types live in pg_catalog.
                [schema, inner] if schema == "pg_catalog" => {
                    let mut text = inner.clone();
                    if !args.is_empty() {
                        text = format!("{text}({})", args.join(", "));
                    }
                    return pg_catalog_type(&text, name);
                }
                // `map(VARCHAR, INTEGER)` in lower case reaches here as a custom type
                [n] if n == "map" && args.len() == 2 => DataType::Map(
                    Box::new(parse_type_text(&args[0], name)?),
                    Box::new(parse_type_text(&args[1], name)?),
                ),
                [n] if args.is_empty() && user(n).is_some() => user(n).unwrap_or(DataType::Null),
                [n] => match n.as_str() {
                    "int1" => DataType::TinyInt,
                    "long" => DataType::BigInt,
                    "hugeint" | "int128" => DataType::HugeInt,
                    "bitstring" => DataType::Bit,
                    "timestamp_us" => DataType::Timestamp,
                    "timetz" => DataType::TimeTz,
                    "timestamp_s" | "timestamp_ms" | "timestamp_ns" => DataType::TimestampUnit(
                        stride_common::time_unit::TimeUnit::of_type_name(n).expect("a unit's name"),
                    ),
                    "utinyint" | "uint8" => DataType::UTinyInt,
                    "usmallint" | "uint16" => DataType::USmallInt,
                    "uinteger" | "uint32" | "uint" => DataType::UInteger,
                    "ubigint" | "uint64" => DataType::UBigInt,
                    "uhugeint" | "uint128" => DataType::UHugeInt,
                    // PostgreSQL's internal string types: `name`, `"char"`.
                    "string" | "bpchar" | "name" | "char" => DataType::Varchar,
                    "float2" => DataType::Real,
                    "oid" => DataType::BigInt,
                    "serial" | "serial4" | "bigserial" | "serial8" | "smallserial" | "serial2" => {
                        return Err(Error::not_supported(format!(
                            "type {n} is not supported yet; create a sequence and give the column a default from it: CREATE SEQUENCE t_id_seq; CREATE TABLE t (id INTEGER NOT NULL DEFAULT nextval('t_id_seq'))"
                        )))
                    }
                    "regclass" | "regtype" | "regnamespace" | "regrole" => {
                        return Err(Error::not_supported(format!(
                            "type {n} is only supported in casts (expr::{n})"
                        )))
                    }
                    _ => {
                        return Err(Error::catalog(format!(
                            "Type with name {n} does not exist!"
                        ))
                        .with_sqlstate(stride_common::error::sqlstate::UNDEFINED_OBJECT));
                    }
                },
                _ => {
                    return Err(Error::not_supported(format!(
                        "type {name} is not supported"
                    )))
                }
            }
        }
        other => {
            return Err(Error::not_supported(format!(
                "type {other} is not supported"
            )))
        }
    })
}

/// A type given as text inside another type's arguments (`map(varchar, int)`).
fn parse_type_text(text: &str, full: &ast::ObjectName, user: UserTypes) -> Result<DataType> {
    crate::parser::parse_data_type(text)
        .map_err(|_| Error::not_supported(format!("type {full} is not supported")))
        .and_then(|t| convert_data_type_in(&t, user))
}

/// A type named with its schema (`pg_catalog.int2`): the name read as a type on its
/// own.
fn pg_catalog_type(text: &str, full: &ast::ObjectName) -> Result<DataType> {
    let dialect = sqlparser::dialect::DuckDbDialect {};
    let parsed = sqlparser::parser::Parser::new(&dialect)
        .try_with_sql(text)
        .and_then(|mut p| p.parse_data_type());
    match parsed {
        Ok(ast::DataType::Custom(n, _)) if n.0.len() > 1 => Err(Error::not_supported(format!(
            "type {full} is not supported"
        ))),
        Ok(t) => convert_data_type(&t),
        Err(_) => Err(Error::not_supported(format!(
            "type {full} is not supported"
        ))),
    }
}

/// Types a numeric literal: integers as INTEGER/BIGINT/HUGEINT/UHUGEINT (DOUBLE beyond), decimals as
/// DECIMAL(p,s) with p the digits written (DOUBLE beyond 38), exponents as DOUBLE.
pub fn number_literal(text: &str) -> Result<ScalarValue> {
    let t: String = text.chars().filter(|c| *c != '_').collect();
    let bad = || Error::parse(format!("invalid number literal \"{text}\""));
    if t.contains(['e', 'E']) {
        return t.parse::<f64>().map(ScalarValue::Double).map_err(|_| bad());
    }
    if let Some((int, frac)) = t.split_once('.') {
        let digits = format!("{int}{frac}");
        if !digits.chars().all(|c| c.is_ascii_digit()) {
            return Err(bad());
        }
        let scale = frac.len();
        // Every digit written counts, leading zeros too, as in DuckDB (and
        // PostgreSQL): 0.5 is DECIMAL(2,1), .5 DECIMAL(1,1).
        let precision = digits.len().max(1);
        let digits = digits.trim_start_matches('0');
        if precision > DECIMAL_MAX_PRECISION as usize {
            return t.parse::<f64>().map(ScalarValue::Double).map_err(|_| bad());
        }
        let v: i128 = if digits.is_empty() {
            0
        } else {
            digits.parse().map_err(|_| bad())?
        };
        return Ok(ScalarValue::Decimal(v, precision as u8, scale as u8));
    }
    if !t.chars().all(|c| c.is_ascii_digit()) || t.is_empty() {
        return Err(bad());
    }
    if let Ok(v) = t.parse::<i32>() {
        return Ok(ScalarValue::Integer(v));
    }
    if let Ok(v) = t.parse::<i64>() {
        return Ok(ScalarValue::BigInt(v));
    }
    if let Ok(v) = t.parse::<i128>() {
        return Ok(ScalarValue::HugeInt(v));
    }
    if let Ok(v) = t.parse::<u128>() {
        return Ok(ScalarValue::UHugeInt(v));
    }
    t.parse::<f64>().map(ScalarValue::Double).map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        assert_eq!(number_literal("42").unwrap(), ScalarValue::Integer(42));
        assert_eq!(
            number_literal("3000000000").unwrap(),
            ScalarValue::BigInt(3_000_000_000)
        );
        assert_eq!(
            number_literal("1.50").unwrap(),
            ScalarValue::Decimal(150, 3, 2)
        );
        assert_eq!(number_literal(".5").unwrap(), ScalarValue::Decimal(5, 1, 1));
        assert_eq!(
            number_literal("0.5").unwrap(),
            ScalarValue::Decimal(5, 2, 1)
        );
        assert_eq!(
            number_literal("00.50").unwrap(),
            ScalarValue::Decimal(50, 4, 2)
        );
        assert_eq!(number_literal("5.").unwrap(), ScalarValue::Decimal(5, 1, 0));
        assert_eq!(number_literal("1e8").unwrap(), ScalarValue::Double(1e8));
        assert_eq!(number_literal("1_000").unwrap(), ScalarValue::Integer(1000));
        assert_eq!(
            number_literal("170141183460469231731687303715884105727").unwrap(),
            ScalarValue::HugeInt(i128::MAX)
        );
        assert_eq!(
            number_literal("170141183460469231731687303715884105728").unwrap(),
            ScalarValue::UHugeInt(1 << 127)
        );
        assert_eq!(
            number_literal("340282366920938463463374607431768211456").unwrap(),
            ScalarValue::Double(3.402823669209385e38)
        );
    }
}
