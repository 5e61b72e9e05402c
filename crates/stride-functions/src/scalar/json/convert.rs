//! Between stride's values and JSON: `to_json` / `json_quote` / `json_object` /
//! `json_array` / `array_to_json` and casts to JSON write a value as JSON text;
//! `json_transform` / `from_json` and casts from JSON read a JSON value as a
//! stride type (scalars, lists of them and STRUCTs; an object can also be read
//! as JSON or text).

use super::value::{self, write_double, write_string};
use crate::cast::cast_scalar;
use serde_json::Value;
use std::fmt::Write;
use stride_common::{DataType, Error, Result, ScalarValue};

/// Appends `v` (of type `ty`) as JSON: numbers as numbers (DECIMAL and REAL as
/// doubles, as DuckDB), text, dates and intervals as strings, lists as arrays,
/// JSON values as themselves (minified), NULL as `null`.
pub fn write_scalar(out: &mut String, v: &ScalarValue, ty: &DataType) {
    match v {
        ScalarValue::Null => out.push_str("null"),
        ScalarValue::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        // integers as their digits (ScalarValue's Display)
        v if v.is_integer() => {
            let _ = write!(out, "{v}");
        }
        ScalarValue::Real(x) => write_double(out, *x as f64),
        ScalarValue::Double(x) => write_double(out, *x),
        ScalarValue::Decimal(u, _, s) => write_double(out, *u as f64 / 10f64.powi(*s as i32)),
        ScalarValue::Varchar(s) if *ty == DataType::Json => match value::parse(s) {
            Ok(j) => value::write(out, &j),
            Err(_) => write_string(out, s),
        },
        ScalarValue::Varchar(s) => write_string(out, s),
        ScalarValue::List(t, items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_scalar(out, x, t);
            }
            out.push(']');
        }
        // an object of the entries, each key as its text
        ScalarValue::Map(_, vt, entries) => {
            out.push('{');
            for (i, (k, x)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, &k.to_string());
                out.push(':');
                write_scalar(out, x, vt);
            }
            out.push('}');
        }
        // an object, or an array when the fields are unnamed (DuckDB's `row(1, 2)`)
        ScalarValue::Struct(fields, values) => {
            let unnamed = fields.iter().all(|(n, _)| n.is_empty());
            out.push(if unnamed { '[' } else { '{' });
            for (i, ((name, t), x)) in fields.iter().zip(values).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if !unnamed {
                    write_string(out, name);
                    out.push(':');
                }
                write_scalar(out, x, t);
            }
            out.push(if unnamed { ']' } else { '}' });
        }
        // an object of one key, the member's name (DuckDB's JSON of a union)
        ScalarValue::Union(members, tag, x) => {
            let (name, t) = &members[*tag as usize];
            out.push('{');
            write_string(out, name);
            out.push(':');
            write_scalar(out, x, t);
            out.push('}');
        }
        other => write_string(out, &other.to_string()),
    }
}

/// The stride type a `json_transform` structure names: a JSON string holding a
/// type name (`"INTEGER"`), or an array of one structure (a list of it).
pub fn structure_type(structure: &str) -> Result<DataType> {
    let v = value::parse(structure)?;
    type_of_structure(&v)
}

fn type_of_structure(v: &Value) -> Result<DataType> {
    match v {
        Value::String(name) => type_by_name(name).ok_or_else(|| {
            Error::binder(format!(
                "unknown type \"{name}\" in a JSON structure; use a type name such as \"INTEGER\", \"DOUBLE\", \"VARCHAR\" or \"JSON\""
            ))
        }),
        Value::Array(items) if items.len() == 1 => {
            Ok(DataType::List(Box::new(type_of_structure(&items[0])?)))
        }
        Value::Array(_) => Err(Error::binder(
            "a JSON structure's array must hold exactly one element: the structure of every element",
        )),
        // an object: a STRUCT of its keys, each of its value's structure
        Value::Object(map) if !map.is_empty() => Ok(DataType::Struct(
            map.iter()
                .map(|(k, x)| Ok((k.clone(), type_of_structure(x)?)))
                .collect::<Result<_>>()?,
        )),
        Value::Object(_) => Err(Error::binder(
            "a JSON structure's object must have at least one key",
        )),
        other => Err(Error::binder(format!(
            "invalid JSON structure {}: expected a type name or an array",
            value::to_text(other)
        ))),
    }
}

fn type_by_name(name: &str) -> Option<DataType> {
    let n = name.trim().to_ascii_uppercase();
    Some(match n.as_str() {
        "BOOLEAN" | "BOOL" => DataType::Boolean,
        "TINYINT" => DataType::TinyInt,
        "SMALLINT" => DataType::SmallInt,
        "INTEGER" | "INT" | "INT4" => DataType::Integer,
        "BIGINT" | "INT8" => DataType::BigInt,
        "HUGEINT" => DataType::HugeInt,
        "UTINYINT" => DataType::UTinyInt,
        "USMALLINT" => DataType::USmallInt,
        "UINTEGER" => DataType::UInteger,
        "UBIGINT" => DataType::UBigInt,
        "UHUGEINT" => DataType::UHugeInt,
        "FLOAT" | "REAL" => DataType::Real,
        "DOUBLE" => DataType::Double,
        "VARCHAR" | "TEXT" | "STRING" => DataType::Varchar,
        "DATE" => DataType::Date,
        "TIMESTAMP" => DataType::Timestamp,
        "TIMESTAMP WITH TIME ZONE" | "TIMESTAMPTZ" => DataType::TimestampTz,
        "INTERVAL" => DataType::Interval,
        "JSON" => DataType::Json,
        _ => {
            let inner = n.strip_prefix("DECIMAL(")?.strip_suffix(')')?;
            let (p, s) = inner.split_once(',')?;
            DataType::Decimal(p.trim().parse().ok()?, s.trim().parse().ok()?)
        }
    })
}

/// How [`transform`] reads a value that does not convert, and strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `json_transform`: NULL; a string as a cast from VARCHAR reads it
    /// (`"1"` is true as a BOOLEAN)
    Lenient,
    /// casts and `json_transform_strict`: an error; a string as BOOLEAN only
    /// as true, false, t, f, yes or no (as DuckDB)
    Strict,
    /// TRY_CAST: what `Strict` refuses is NULL
    Try,
}

/// Reads a JSON value as `ty`. A number converts to any numeric type, rounded
/// to the nearest integer (ties to even) for an integer type (`3.0`, `1e2`),
/// and to BOOLEAN as whether it is not zero.
pub fn transform(v: &Value, ty: &DataType, mode: Mode) -> Result<ScalarValue> {
    match (v, ty) {
        (Value::Null, _) => Ok(ScalarValue::Null),
        (_, DataType::Json) => Ok(ScalarValue::Varchar(value::to_text(v))),
        (Value::String(s), DataType::Varchar) => Ok(ScalarValue::Varchar(s.clone())),
        (_, DataType::Varchar) => Ok(ScalarValue::Varchar(value::to_text(v))),
        (Value::Array(items), DataType::List(t)) => Ok(ScalarValue::List(
            (**t).clone(),
            items
                .iter()
                .map(|x| transform(x, t, mode))
                .collect::<Result<_>>()?,
        )),
        // an object's keys are matched with the fields by name; a missing key is NULL
        (Value::Object(map), DataType::Struct(fields)) => Ok(ScalarValue::Struct(
            fields.clone(),
            fields
                .iter()
                .map(|(name, t)| match map.get(name) {
                    Some(x) => transform(x, t, mode),
                    None => Ok(ScalarValue::Null),
                })
                .collect::<Result<_>>()?,
        )),
        // another value: a STRUCT of NULLs, as DuckDB (strict: an error)
        (_, DataType::Struct(fields)) if mode != Mode::Strict => Ok(ScalarValue::Struct(
            fields.clone(),
            vec![ScalarValue::Null; fields.len()],
        )),
        (Value::Bool(b), DataType::Boolean) => Ok(ScalarValue::Boolean(*b)),
        (Value::Bool(b), t) if t.is_numeric() => {
            cast_scalar(&ScalarValue::Boolean(*b), t, mode != Mode::Strict)
                .or_else(|e| fail(e, v, mode))
        }
        (Value::Number(n), DataType::Boolean) => {
            Ok(ScalarValue::Boolean(n.as_f64().is_some_and(|x| x != 0.0)))
        }
        // a fraction or an exponent: rounded, then read as the integer's digits
        (Value::Number(n), t)
            if (t.is_integer() || *t == DataType::UHugeInt)
                && n.as_str().contains(['.', 'e', 'E']) =>
        {
            let x = n.as_f64().unwrap_or(f64::NAN).round_ties_even() + 0.0;
            let digits = if x.is_finite() {
                format!("{x:.0}")
            } else {
                value::to_text(v)
            };
            match cast_scalar(&ScalarValue::Varchar(digits), t, mode != Mode::Strict) {
                Ok(ScalarValue::Null) if mode == Mode::Strict => Err(cannot(v, t)),
                Ok(x) => Ok(x),
                Err(e) => fail(e, v, mode),
            }
        }
        (Value::String(s), DataType::Boolean) if mode != Mode::Lenient => {
            match s.to_ascii_lowercase().as_str() {
                "true" | "t" | "yes" => Ok(ScalarValue::Boolean(true)),
                "false" | "f" | "no" => Ok(ScalarValue::Boolean(false)),
                _ => fail(cannot(v, ty), v, mode),
            }
        }
        (Value::Number(_) | Value::String(_) | Value::Bool(_), t) if !t.is_nested() => {
            let text = match v {
                Value::String(s) => s.clone(),
                other => value::to_text(other),
            };
            match cast_scalar(&ScalarValue::Varchar(text), t, mode != Mode::Strict) {
                Ok(ScalarValue::Null) if mode == Mode::Strict => Err(cannot(v, t)),
                Ok(x) => Ok(x),
                Err(e) => fail(e, v, mode),
            }
        }
        _ if mode == Mode::Strict => Err(cannot(v, ty)),
        _ => Ok(ScalarValue::Null),
    }
}

fn fail(_e: Error, v: &Value, mode: Mode) -> Result<ScalarValue> {
    if mode == Mode::Strict {
        Err(Error::conversion(format!(
            "Failed to cast value to numerical: {}",
            value::to_text(v)
        )))
    } else {
        Ok(ScalarValue::Null)
    }
}

fn cannot(v: &Value, ty: &DataType) -> Error {
    Error::conversion(format!(
        "Failed to cast JSON value {} to {ty}",
        value::to_text(v)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transforms() {
        let v = value::parse(r#"[1,2,"3"]"#).unwrap();
        let ints = structure_type(r#"["INTEGER"]"#).unwrap();
        assert_eq!(
            transform(&v, &ints, Mode::Lenient).unwrap(),
            ScalarValue::List(
                DataType::Integer,
                vec![
                    ScalarValue::Integer(1),
                    ScalarValue::Integer(2),
                    ScalarValue::Integer(3)
                ]
            )
        );
        let x = value::parse(r#""x""#).unwrap();
        assert_eq!(
            transform(&x, &DataType::Integer, Mode::Lenient).unwrap(),
            ScalarValue::Null
        );
        assert!(transform(&x, &DataType::Integer, Mode::Strict).is_err());
        assert_eq!(
            structure_type(r#"{"a":"INTEGER"}"#).unwrap(),
            DataType::Struct(vec![("a".into(), DataType::Integer)])
        );
        assert!(structure_type("{}").is_err());
    }

    #[test]
    fn writes_values() {
        let mut s = String::new();
        write_scalar(
            &mut s,
            &ScalarValue::List(
                DataType::Varchar,
                vec![ScalarValue::Varchar("a\"".into()), ScalarValue::Null],
            ),
            &DataType::List(Box::new(DataType::Varchar)),
        );
        assert_eq!(s, r#"["a\"",null]"#);
    }
}
