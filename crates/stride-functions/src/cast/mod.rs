//! CAST between stride's types. [`cast_vector`] is the vectorized entry point the
//! executor uses for every implicit and explicit cast; [`cast_scalar`] serves the
//! binder and optimizer (literals, constant folding) through the same code, so both
//! agree on every edge case.
//!
//! Failures are Conversion errors (malformed text) or Out of Range errors (a value
//! that does not fit the target); with `try_cast` the failing rows become NULL, and
//! so does every row of a pair of types that has no cast (DuckDB's TRY_CAST).
//! Constant inputs give constant outputs.

mod array;
mod bits;
pub mod decimal;
mod enums;
mod from_varchar;
pub mod interval;
mod json;
mod list;
mod maps;
mod numeric;
mod structs;
mod temporal;
mod time_tz;
mod time_unit;
mod to_varchar;
mod uhugeint;
mod unions;

pub use from_varchar::{parse_bool, parse_float, parse_integer};

use crate::kernels::null_vector;
use std::fmt::Display;
use stride_common::{DataType, Error, Result, ScalarValue, Vector};

/// CAST(v AS to) over `len` rows.
pub fn cast_vector(v: &Vector, len: usize, to: &DataType, try_cast: bool) -> Result<Vector> {
    let from = &v.ty;
    if from == to {
        return Ok(v.clone());
    }
    match (from, to) {
        (DataType::Null, _) => Ok(null_vector(to, len, v.constant)),
        (DataType::Union(a), DataType::Union(b)) => unions::between(v, len, a, b, to, try_cast),
        (_, DataType::Union(members)) => unions::into_union(v, len, members, to, try_cast),
        (DataType::Varchar, DataType::Enum(e)) => enums::from_text(v, len, to, e, try_cast),
        (DataType::Enum(a), DataType::Enum(b)) => enums::to_enum(v, len, a, to, b, try_cast),
        (DataType::Enum(e), DataType::Varchar) => enums::to_text(v, len, e),
        // a JSON string of the label
        (DataType::Enum(_), DataType::Json) => json::from_value(v, len),
        (DataType::Enum(e), _) => cast_vector(&enums::to_text(v, len, e)?, len, to, try_cast),
        (DataType::Varchar, DataType::Json) => json::from_text(v, len, try_cast),
        (_, DataType::Json) => json::from_value(v, len),
        (DataType::Json, DataType::Varchar) => to_varchar::cast(v, len),
        (DataType::Json, _) => json::to_type(v, len, to, try_cast),
        (_, DataType::Varchar) => to_varchar::cast(v, len),
        (DataType::Varchar, DataType::List(_)) => list::from_text(v, len, to, try_cast),
        (DataType::Varchar, DataType::Array(elem, _)) => {
            let as_list = list::from_text(v, len, &DataType::List(elem.clone()), try_cast)?;
            array::to_array(&as_list, len, to, try_cast)
        }
        (DataType::Varchar, DataType::Struct(_)) => structs::from_text(v, len, to, try_cast),
        (DataType::Varchar, DataType::Map(..)) => maps::from_text(v, len, to, try_cast),
        (DataType::Varchar, _) => from_varchar::cast(v, len, to, try_cast),
        (DataType::Bit, t) if bits::castable(t) => bits::from_bit(v, len, to, try_cast),
        (f, DataType::Bit) if bits::castable(f) => bits::to_bit(v, len),
        (f, t) if numeric::is_numeric_or_bool(f) && numeric::is_numeric_or_bool(t) => {
            numeric::cast(v, len, to, try_cast)
        }
        (f, t) if uhugeint::castable(f, t) => uhugeint::cast(v, len, to, try_cast),
        (f, t) if time_unit::castable(f, t) => time_unit::cast(v, len, to, try_cast),
        (f, t) if time_tz::castable(f, t) => time_tz::cast(v, len, to, try_cast),
        (DataType::Date, DataType::Timestamp)
        | (DataType::Timestamp, DataType::Date | DataType::Time)
        | (DataType::Date | DataType::Timestamp, DataType::TimestampTz)
        | (DataType::TimestampTz, DataType::Date | DataType::Timestamp) => {
            temporal::cast(v, len, to, try_cast)
        }
        (DataType::List(_), DataType::List(_)) | (DataType::Array(..), DataType::List(_)) => {
            list::cast(v, len, to, try_cast)
        }
        (DataType::List(_) | DataType::Array(..), DataType::Array(..)) => {
            array::to_array(v, len, to, try_cast)
        }
        (DataType::Struct(_), DataType::Struct(_)) => structs::cast(v, to, try_cast),
        (DataType::Map(..), DataType::Map(..)) => list::cast(v, len, to, try_cast),
        // NULL casts to NULL of any type (a VALUES column of NULLs is INTEGER).
        _ if (0..if v.constant { 1 } else { len }).all(|i| !v.is_valid(i)) => {
            Ok(null_vector(to, len, v.constant))
        }
        // a pair with no cast: an error for the rows CAST sees, NULLs for TRY_CAST
        // (DuckDB's behaviour)
        _ if try_cast => Ok(null_vector(to, len, v.constant)),
        _ => Err(unimplemented_cast(from, to)),
    }
}

/// CAST of one value; NULL casts to NULL of any type.
pub fn cast_scalar(v: &ScalarValue, to: &DataType, try_cast: bool) -> Result<ScalarValue> {
    if v.is_null() {
        return Ok(ScalarValue::Null);
    }
    let from = v.data_type();
    if &from == to {
        return Ok(v.clone());
    }
    let input = Vector::constant(v, &from)?;
    Ok(cast_vector(&input, 1, to, try_cast)?.get(0))
}

/// CAST of one value whose type is `from`: the same as [`cast_scalar`] except for
/// values whose type their [`ScalarValue`] does not tell (JSON is held as text), and
/// a typed NULL cast into a union, which is a NULL of the member of its type (a tagged
/// NULL, as in DuckDB), not a NULL union.
pub fn cast_typed_scalar(
    v: &ScalarValue,
    from: &DataType,
    to: &DataType,
    try_cast: bool,
) -> Result<ScalarValue> {
    if v.is_null() && matches!(to, DataType::Union(_)) && *from != DataType::Null {
        let input = null_vector(from, 1, true);
        return Ok(cast_vector(&input, 1, to, try_cast)?.get(0));
    }
    if v.is_null() || *from != DataType::Json || from == to {
        return cast_scalar(v, to, try_cast);
    }
    let input = Vector::constant(v, from)?;
    Ok(cast_vector(&input, 1, to, try_cast)?.get(0))
}

/// Whether a cast between the two types exists at all (the binder reports the error
/// early instead of at execution).
pub fn can_cast(from: &DataType, to: &DataType) -> bool {
    match (from, to) {
        _ if from == to => true,
        (DataType::Null, _) | (_, DataType::Varchar) | (_, DataType::Json) => true,
        (f, DataType::Union(members)) => unions::can_cast(f, members),
        (DataType::Enum(_), DataType::Enum(_)) => true,
        (DataType::Bit, t) | (t, DataType::Bit) if bits::castable(t) => true,
        (DataType::Enum(_), t) => can_cast(&DataType::Varchar, t),
        (DataType::Json, t) => !matches!(t, DataType::Interval),
        (DataType::Varchar, t) => match t {
            DataType::List(e) | DataType::Array(e, _) => !e.is_nested(),
            _ => true,
        },
        (f, t) if numeric::is_numeric_or_bool(f) && numeric::is_numeric_or_bool(t) => true,
        (f, t) if uhugeint::castable(f, t) => true,
        (f, t) if time_unit::castable(f, t) || time_tz::castable(f, t) => true,
        (DataType::Date, DataType::Timestamp)
        | (DataType::Timestamp, DataType::Date | DataType::Time)
        | (DataType::Date | DataType::Timestamp, DataType::TimestampTz)
        | (DataType::TimestampTz, DataType::Date | DataType::Timestamp) => true,
        (DataType::List(a) | DataType::Array(a, _), DataType::List(b) | DataType::Array(b, _)) => {
            can_cast(a, b)
        }
        (DataType::Struct(a), DataType::Struct(b)) => structs::can_cast(a, b),
        (DataType::Map(k1, v1), DataType::Map(k2, v2)) => can_cast(k1, k2) && can_cast(v1, v2),
        _ => false,
    }
}

/// A cast from text that reads each row's value with `parse` (nested types, row by
/// row); a failure is the cast's error, or NULL under TRY_CAST.
fn from_text_rows(
    v: &Vector,
    len: usize,
    to: &DataType,
    try_cast: bool,
    parse: impl Fn(&str) -> Result<ScalarValue>,
) -> Result<Vector> {
    let rows = if v.constant { 1 } else { len };
    let mut out = Vector::with_capacity(to, rows);
    for i in 0..rows {
        if !v.is_valid(i) {
            out.push_null();
            continue;
        }
        match parse(v.strings().get(v.index(i))) {
            Ok(value) => out.push(&value)?,
            Err(_) if try_cast => out.push_null(),
            Err(e) => return Err(e),
        }
    }
    out.constant = v.constant;
    Ok(out)
}

pub(crate) fn unimplemented_cast(from: &DataType, to: &DataType) -> Error {
    Error::conversion(format!("Unimplemented type for cast ({from} -> {to})"))
}

pub(crate) fn out_of_range(from: &DataType, value: impl Display, to: &DataType) -> Error {
    let (from, to) = (error_name(from), error_name(to));
    Error::out_of_range(format!(
        "Type {from} with value {value} can't be cast because the value is out of range for the destination type {to}"
    ))
}

pub(crate) fn bad_string(s: &str, to: &DataType) -> Error {
    let to = error_name(to);
    Error::conversion(format!("Could not convert string '{s}' to {to}"))
}

/// A type as cast errors name it: integers by their storage, as DuckDB does
/// ("INT32", "UINT8"), everything else by its SQL name.
fn error_name(t: &DataType) -> String {
    match t.physical_integer_name() {
        Some(name) => name.to_string(),
        None => t.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::test_util::text as s;
    use stride_common::{ErrorKind, Interval};
    use ScalarValue::*;

    fn cast(v: ScalarValue, to: DataType) -> Result<ScalarValue> {
        cast_scalar(&v, &to, false)
    }

    #[test]
    fn text_to_lists() {
        let ints = DataType::List(Box::new(DataType::Integer));
        assert_eq!(
            cast(s("{1, 2,NULL}"), ints.clone()).unwrap(),
            List(DataType::Integer, vec![Integer(1), Integer(2), Null])
        );
        assert_eq!(
            cast(s("[3]"), ints.clone()).unwrap(),
            List(DataType::Integer, vec![Integer(3)])
        );
        assert_eq!(
            cast(s("{}"), ints.clone()).unwrap(),
            List(DataType::Integer, vec![])
        );
        let text = DataType::List(Box::new(DataType::Varchar));
        assert_eq!(
            cast(s(r#"{"a b","c\"d",NULL,"NULL"}"#), text).unwrap(),
            List(
                DataType::Varchar,
                vec![s("a b"), s("c\"d"), Null, s("NULL")]
            )
        );
        assert!(cast(s("{1,x}"), ints.clone()).is_err());
        assert!(cast(s("1,2"), ints.clone()).is_err());
        assert_eq!(cast_scalar(&s("{x}"), &ints, true).unwrap(), Null);
    }

    #[test]
    fn string_to_every_type_and_back() {
        use DataType as T;
        let cases: Vec<(&str, DataType, ScalarValue, &str)> = vec![
            ("  42 ", T::Integer, Integer(42), "42"),
            ("-7", T::TinyInt, TinyInt(-7), "-7"),
            ("+300", T::SmallInt, SmallInt(300), "300"),
            (
                "9223372036854775807",
                T::BigInt,
                BigInt(i64::MAX),
                "9223372036854775807",
            ),
            ("1e3", T::Double, Double(1000.0), "1000.0"),
            ("0.1", T::Double, Double(0.1), "0.1"),
            ("1.5", T::Real, Real(1.5), "1.5"),
            ("1.5", T::Decimal(4, 2), Decimal(150, 4, 2), "1.50"),
            ("-0.05", T::Decimal(4, 2), Decimal(-5, 4, 2), "-0.05"),
            ("YES", T::Boolean, Boolean(true), "true"),
            ("f", T::Boolean, Boolean(false), "false"),
            ("0", T::Boolean, Boolean(false), "false"),
            ("1992-01-02", T::Date, Date(8036), "1992-01-02"),
            (
                "1992-01-02 03:04:05.5",
                T::Timestamp,
                Timestamp(694_321_445_500_000),
                "1992-01-02 03:04:05.5",
            ),
            (
                "1 day",
                T::Interval,
                Interval(Interval::new(0, 1, 0)),
                "1 day",
            ),
            (
                "2 years 3 months",
                T::Interval,
                Interval(Interval::new(27, 0, 0)),
                "2 years 3 months",
            ),
        ];
        for (text, ty, expected, back) in cases {
            let got = cast(s(text), ty.clone()).unwrap();
            assert_eq!(got, expected, "{text} as {ty}");
            assert_eq!(
                cast(got, T::Varchar).unwrap(),
                s(back),
                "{text} as {ty} and back"
            );
        }
    }

    #[test]
    fn string_errors_and_try_cast() {
        let e = cast(s("abc"), DataType::Integer).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Conversion);
        assert_eq!(e.message, "Could not convert string 'abc' to INT32");
        assert!(cast(s("300"), DataType::TinyInt).is_err());
        // Decimal text rounds to an integer (DuckDB); a number that does not fit fails.
        assert_eq!(cast(s("1.5"), DataType::Integer).unwrap(), Integer(2));
        assert!(cast(s("1.5e10"), DataType::Integer).is_err());
        assert!(cast(s("1.5.1"), DataType::Integer).is_err());
        assert!(cast(s("2021-02-30"), DataType::Date).is_err());
        assert!(cast(s("maybe"), DataType::Boolean).is_err());
        assert!(cast(s("123.456"), DataType::Decimal(4, 2)).is_err());
        assert_eq!(
            cast_scalar(&s("abc"), &DataType::Integer, true).unwrap(),
            Null
        );
        assert_eq!(cast_scalar(&s("x"), &DataType::Date, true).unwrap(), Null);
    }

    #[test]
    fn numeric_casts() {
        let e = cast(BigInt(300), DataType::TinyInt).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfRange);
        assert_eq!(
            e.message,
            "Type INT64 with value 300 can't be cast because the value is out of range for the destination type INT8"
        );
        assert_eq!(
            cast_scalar(&BigInt(300), &DataType::TinyInt, true).unwrap(),
            Null
        );
        assert_eq!(cast(Integer(-5), DataType::BigInt).unwrap(), BigInt(-5));
        assert_eq!(cast(Double(2.5), DataType::Integer).unwrap(), Integer(2));
        assert_eq!(cast(Double(3.5), DataType::Integer).unwrap(), Integer(4));
        assert_eq!(cast(Double(-1.7), DataType::BigInt).unwrap(), BigInt(-2));
        assert!(cast(Double(1e20), DataType::Integer).is_err());
        assert!(cast(Double(f64::NAN), DataType::Integer).is_err());
        assert_eq!(
            cast(Decimal(125, 5, 2), DataType::Integer).unwrap(),
            Integer(1)
        );
        assert_eq!(
            cast(Decimal(150, 5, 2), DataType::Integer).unwrap(),
            Integer(2)
        );
        assert_eq!(
            cast(Decimal(-150, 5, 2), DataType::Integer).unwrap(),
            Integer(-2)
        );
        assert_eq!(
            cast(Decimal(12345, 5, 2), DataType::Decimal(4, 1)).unwrap(),
            Decimal(1235, 4, 1)
        );
        assert_eq!(
            cast(Decimal(-12345, 5, 2), DataType::Decimal(4, 1)).unwrap(),
            Decimal(-1235, 4, 1)
        );
        assert_eq!(
            cast(Decimal(12345, 5, 2), DataType::Decimal(20, 4)).unwrap(),
            Decimal(1234500, 20, 4)
        );
        let e = cast(Decimal(12345, 5, 2), DataType::Decimal(4, 2)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfRange);
        assert!(e.message.contains("123.45"), "{}", e.message);
        assert_eq!(
            cast(Integer(7), DataType::Decimal(5, 2)).unwrap(),
            Decimal(700, 5, 2)
        );
        assert!(cast(Integer(1000), DataType::Decimal(5, 2)).is_err());
        assert_eq!(
            cast(Double(0.285), DataType::Decimal(5, 2)).unwrap(),
            Decimal(29, 5, 2)
        );
        assert_eq!(
            cast(Double(-1.005), DataType::Decimal(5, 1)).unwrap(),
            Decimal(-10, 5, 1)
        );
        assert_eq!(
            cast(Decimal(150, 5, 2), DataType::Double).unwrap(),
            Double(1.5)
        );
        assert_eq!(cast(Integer(3), DataType::Real).unwrap(), Real(3.0));
        assert!(cast(Double(1e300), DataType::Real).is_err());
        assert_eq!(cast(Boolean(true), DataType::Integer).unwrap(), Integer(1));
        assert_eq!(cast(Integer(0), DataType::Boolean).unwrap(), Boolean(false));
        assert_eq!(
            cast(Decimal(1, 5, 2), DataType::Boolean).unwrap(),
            Boolean(true)
        );
        assert_eq!(
            cast(Boolean(true), DataType::Decimal(3, 1)).unwrap(),
            Decimal(10, 3, 1)
        );
        let wide = cast(Decimal(i64::MAX as i128, 18, 0), DataType::Decimal(38, 10)).unwrap();
        assert_eq!(wide, Decimal(i64::MAX as i128 * 10_000_000_000, 38, 10));
    }

    #[test]
    fn to_varchar() {
        assert_eq!(cast(Double(1.0), DataType::Varchar).unwrap(), s("1.0"));
        assert_eq!(cast(Double(1e20), DataType::Varchar).unwrap(), s("1e+20"));
        assert_eq!(
            cast(Decimal(150, 10, 2), DataType::Varchar).unwrap(),
            s("1.50")
        );
        assert_eq!(cast(Date(-1), DataType::Varchar).unwrap(), s("1969-12-31"));
        assert_eq!(cast(Boolean(true), DataType::Varchar).unwrap(), s("true"));
        let l = List(DataType::Integer, vec![Integer(1), Null]);
        assert_eq!(cast(l, DataType::Varchar).unwrap(), s("[1, NULL]"));
    }

    #[test]
    fn temporal_and_null_casts() {
        assert_eq!(
            cast(Date(1), DataType::Timestamp).unwrap(),
            Timestamp(86_400_000_000)
        );
        assert_eq!(cast(Timestamp(-1), DataType::Date).unwrap(), Date(-1));
        assert_eq!(cast(Null, DataType::Date).unwrap(), Null);
        let v = Vector::null_constant(&DataType::Null);
        let r = cast_vector(&v, 5, &DataType::Varchar, false).unwrap();
        assert!(r.constant);
        assert_eq!(r.get(3), Null);
        let e = cast(Date(1), DataType::Integer).unwrap_err();
        assert_eq!(e.message, "Unimplemented type for cast (DATE -> INTEGER)");
    }

    #[test]
    fn list_casts() {
        let l = List(DataType::Varchar, vec![s("1"), Null, s("3")]);
        let to = DataType::List(Box::new(DataType::Integer));
        assert_eq!(
            cast(l, to).unwrap(),
            List(DataType::Integer, vec![Integer(1), Null, Integer(3)])
        );
    }

    #[test]
    fn vector_cast_keeps_nulls_and_skips_their_errors() {
        let mut v = Vector::empty(&DataType::BigInt);
        v.push(&BigInt(1)).unwrap();
        v.push(&Null).unwrap();
        v.push(&BigInt(3)).unwrap();
        let r = cast_vector(&v, 3, &DataType::TinyInt, false).unwrap();
        assert_eq!(r.get(1), Null);
        assert_eq!(r.get(2), TinyInt(3));
        let mut v = Vector::empty(&DataType::Varchar);
        v.push(&s("1")).unwrap();
        v.push(&s("oops")).unwrap();
        let r = cast_vector(&v, 2, &DataType::Integer, true).unwrap();
        assert_eq!(r.get(0), Integer(1));
        assert_eq!(r.get(1), Null);
    }
}
