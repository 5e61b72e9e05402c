//! Casts from VARCHAR: every type parses its own text, surrounding whitespace
//! ignored. Integers accept only integer syntax ('1.5' is an error, as in
//! PostgreSQL); DECIMAL parses exactly; DOUBLE accepts exponents, 'inf' and 'nan';
//! BOOLEAN accepts true/false/t/f/yes/no/y/n/on/off/1/0 in any case.

use super::decimal::parse_decimal;
use super::interval::parse_interval;
use super::{bad_string, unimplemented_cast};
use crate::kernels::{make_vector, with_integer, SqlInt};
use stride_common::interval::MICROS_PER_DAY;
use stride_common::vector::NativeType;
use stride_common::{blob, temporal, DataType, Error, Result, StringVector, Vector, VectorData};

pub(super) fn cast(v: &Vector, len: usize, to: &DataType, try_cast: bool) -> Result<Vector> {
    match to {
        DataType::TinyInt
        | DataType::SmallInt
        | DataType::Integer
        | DataType::BigInt
        | DataType::HugeInt
        | DataType::UTinyInt
        | DataType::USmallInt
        | DataType::UInteger
        | DataType::UBigInt => {
            let (lo, hi) = to.integer_range().expect("an integer type");
            with_integer!(to.physical(), O => parse_each(v, len, to, try_cast, |s| {
                let x = parse_integer(s).or_else(|| parse_integer_cast(s))?;
                if x < lo || x > hi {
                    return None;
                }
                O::from_i128(x)
            }), _ => Err(Error::internal("integer storage")))
        }
        DataType::Decimal(p, sc) => {
            let (p, sc) = (*p, *sc);
            with_integer!(to.physical(), O => parse_each(v, len, to, try_cast, |s| {
                O::from_i128(parse_decimal(s, p, sc)?)
            }), _ => Err(Error::internal("decimal storage")))
        }
        DataType::Real => parse_each(v, len, to, try_cast, parse_float::<f32>),
        DataType::Double => parse_each(v, len, to, try_cast, parse_float::<f64>),
        DataType::Boolean => parse_each(v, len, to, try_cast, parse_bool),
        DataType::Date => parse_each(v, len, to, try_cast, parse_date),
        DataType::Timestamp => parse_each(v, len, to, try_cast, temporal::parse_timestamp),
        DataType::TimestampUnit(u) => {
            let u = *u;
            parse_each(v, len, to, try_cast, |s| {
                stride_common::time_unit::parse(s, u)
            })
        }
        DataType::Interval => parse_each(v, len, to, try_cast, parse_interval),
        DataType::Time => parse_each_time(v, len, try_cast),
        DataType::TimeTz => {
            // text without an offset takes the session zone's, read once per vector
            let offset = stride_common::zone::current_offset();
            parse_each(v, len, to, try_cast, |s| {
                stride_common::time_tz::parse(s, offset)
            })
        }
        DataType::TimestampTz => parse_each_instant(v, len, try_cast),
        DataType::UHugeInt => parse_each(v, len, to, try_cast, |s| {
            super::uhugeint::parse(s).map(stride_common::flip128::to_physical)
        }),
        DataType::Uuid => parse_each(v, len, to, try_cast, |s| {
            stride_common::uuid::parse(s).map(stride_common::uuid::to_physical)
        }),
        DataType::Blob => parse_bytes(v, len, DataType::Blob, try_cast, |s, out| {
            blob::parse_escaped(s, out)
        }),
        DataType::Bit => parse_bytes(v, len, DataType::Bit, try_cast, |s, out| {
            *out = stride_common::bit::parse(s)?;
            Ok(())
        }),
        DataType::Varchar
        | DataType::Json
        | DataType::Null
        | DataType::List(_)
        | DataType::Struct(_)
        | DataType::Union(_)
        | DataType::Map(..)
        | DataType::Array(..)
        | DataType::Enum(_) => Err(unimplemented_cast(&v.ty, to)),
    }
}

/// BLOB from its text form (`\xAA` escapes, [`stride_common::blob`]) or BIT from
/// its bits ([`stride_common::bit`]): `parse` fills the bytes of one row.
fn parse_bytes(
    v: &Vector,
    len: usize,
    ty: DataType,
    try_cast: bool,
    parse: impl Fn(&str, &mut Vec<u8>) -> std::result::Result<(), String>,
) -> Result<Vector> {
    let rows = if v.constant { 1 } else { len };
    let strings = v.strings();
    let mut validity = v.validity.clone();
    let mut out = StringVector::with_capacity(rows);
    let mut bytes = Vec::new();
    for i in 0..rows {
        bytes.clear();
        if v.validity.is_valid(i) {
            if let Err(e) = parse(strings.get(i), &mut bytes) {
                if !try_cast {
                    return Err(Error::conversion(e));
                }
                validity.set_invalid(i, rows);
                bytes.clear();
            }
        }
        out.push_blob(&bytes);
    }
    Ok(Vector {
        ty,
        data: VectorData::Str(out),
        validity,
        constant: v.constant,
    })
}

/// Parses every valid row with `f`; a failure is a Conversion error naming the text,
/// or NULL under TRY_CAST.
fn parse_each<O: NativeType>(
    v: &Vector,
    len: usize,
    to: &DataType,
    try_cast: bool,
    f: impl Fn(&str) -> Option<O>,
) -> Result<Vector> {
    let rows = if v.constant { 1 } else { len };
    let strings = v.strings();
    let mut validity = v.validity.clone();
    let mut out = Vec::with_capacity(rows);
    for i in 0..rows {
        let s = strings.get(i);
        match f(s) {
            Some(x) => out.push(x),
            None => {
                out.push(O::default());
                if v.validity.is_valid(i) {
                    if !try_cast {
                        return Err(bad_string(s, to));
                    }
                    validity.set_invalid(i, rows);
                }
            }
        }
    }
    Ok(make_vector(to.clone(), out, validity, v.constant))
}

/// TIME text, with DuckDB's message naming the expected format.
fn parse_each_time(v: &Vector, len: usize, try_cast: bool) -> Result<Vector> {
    parse_each(v, len, &DataType::Time, true, temporal::parse_time_of_day).and_then(|out| {
        if try_cast {
            return Ok(out);
        }
        let rows = if v.constant { 1 } else { len };
        match (0..rows).find(|&i| v.validity.is_valid(i) && !out.validity.is_valid(i)) {
            Some(i) => Err(Error::conversion(format!(
                "time field value out of range: \"{}\", expected format is ([YYYY-MM-DD ]HH:MM:SS[.MS])",
                v.strings().get(i)
            ))),
            None => Ok(out),
        }
    })
}

/// TIMESTAMP WITH TIME ZONE text, local times read in the session's zone; an unknown
/// zone name is an error even under TRY_CAST (DuckDB).
fn parse_each_instant(v: &Vector, len: usize, try_cast: bool) -> Result<Vector> {
    let zone = stride_common::zone::current();
    let rows = if v.constant { 1 } else { len };
    let strings = v.strings();
    let mut validity = v.validity.clone();
    let mut out = Vec::with_capacity(rows);
    for i in 0..rows {
        if !v.validity.is_valid(i) {
            out.push(0);
            continue;
        }
        let s = strings.get(i);
        // TRY_CAST: an unknown zone name is NULL too
        match crate::timezone::parse(s, &zone) {
            Ok(Some(t)) => out.push(t),
            Ok(None) | Err(_) if try_cast => {
                out.push(0);
                validity.set_invalid(i, rows);
            }
            Ok(None) => return Err(crate::timezone::bad_text(s)),
            Err(e) => return Err(e),
        }
    }
    Ok(make_vector(
        DataType::TimestampTz,
        out,
        validity,
        v.constant,
    ))
}

/// `[+-]digits` with surrounding whitespace; `None` past i128 (the caller narrows).
pub fn parse_integer(s: &str) -> Option<i128> {
    let b = s.trim().as_bytes();
    let (neg, digits) = match b.first()? {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i128 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        // accumulate negatively so that the most negative value parses too
        v = v.checked_mul(10)?.checked_sub((c - b'0') as i128)?;
    }
    if neg {
        Some(v)
    } else {
        v.checked_neg()
    }
}

/// The other integer text a CAST takes (DuckDB): `1_000` (underscores between
/// digits), `0x1F` and `0b101`, and decimal text rounded half away from zero (`2.5`
/// is 3, `1e3` is 1000). Not for CSV reading, where `2.5` must not look like an
/// integer.
fn parse_integer_cast(s: &str) -> Option<i128> {
    let t = s.trim();
    let (neg, body) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let radix = match body.get(..2) {
        Some("0x" | "0X") => Some(16),
        Some("0b" | "0B") => Some(2),
        _ => None,
    };
    if let Some(radix) = radix {
        let digits = &body[2..];
        if digits.is_empty() || neg {
            return None;
        }
        return i128::from_str_radix(digits, radix).ok();
    }
    // Underscores only between two digits.
    let b = body.as_bytes();
    let joined = b.iter().enumerate().all(|(i, &c)| {
        c != b'_'
            || (i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit))
    });
    if !joined {
        return None;
    }
    let plain: String = t.chars().filter(|&c| c != '_').collect();
    if plain != t {
        if let Some(v) = parse_integer(&plain) {
            return Some(v);
        }
    }
    // Decimal text: at most 38 digits before the point.
    parse_decimal(&plain, 38, 0)
}

/// A float in Rust's syntax (exponents, 'inf', 'nan'); a finite literal too large for
/// the type is an error rather than infinity, as in PostgreSQL.
pub fn parse_float<F: std::str::FromStr + crate::kernels::SqlFloat>(s: &str) -> Option<F> {
    let s = s.trim();
    let v: F = s.parse().ok()?;
    if !v.is_finite() && !v.is_nan() && !s.to_ascii_lowercase().contains("inf") {
        return None;
    }
    Some(v)
}

/// true/t/yes/y/on/1 and false/f/no/n/off/0, any case, surrounding blanks ignored.
pub fn parse_bool(s: &str) -> Option<bool> {
    let s = s.trim();
    const TRUE: [&str; 6] = ["true", "t", "yes", "y", "on", "1"];
    const FALSE: [&str; 6] = ["false", "f", "no", "n", "off", "0"];
    if TRUE.iter().any(|t| s.eq_ignore_ascii_case(t)) {
        Some(true)
    } else if FALSE.iter().any(|t| s.eq_ignore_ascii_case(t)) {
        Some(false)
    } else {
        None
    }
}

/// A date, or a timestamp's date part ('2024-01-01 10:00' is 2024-01-01): the date
/// as written, also before 24:00:00 (DuckDB), which as a timestamp is the next day.
fn parse_date(s: &str) -> Option<i32> {
    temporal::parse_date(s).or_else(|| {
        let ts = temporal::parse_timestamp(s)?;
        let day = i32::try_from(ts.div_euclid(MICROS_PER_DAY)).ok()?;
        let written = s
            .trim()
            .split([' ', 'T'])
            .next()
            .and_then(temporal::parse_date);
        match written {
            Some(d) if d as i64 == day as i64 - 1 && ts.rem_euclid(MICROS_PER_DAY) == 0 => Some(d),
            _ => Some(day),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(parse_integer(" 42 "), Some(42));
        assert_eq!(
            parse_integer("-9223372036854775808"),
            Some(i64::MIN as i128)
        );
        assert_eq!(parse_integer("+0"), Some(0));
        assert_eq!(parse_integer("-"), None);
        assert_eq!(parse_integer(""), None);
        assert_eq!(parse_integer("1 2"), None);
        assert_eq!(
            parse_integer("99999999999999999999999999999999999999999"),
            None
        );
        assert_eq!(
            parse_date("2024-01-01 10:00"),
            temporal::parse_date("2024-01-01")
        );
        assert_eq!(parse_bool(" On "), Some(true));
        assert_eq!(parse_float::<f64>(" 1e3 "), Some(1000.0));
        assert_eq!(parse_float::<f64>("-Infinity"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_float::<f64>("1e400"), None);
        assert_eq!(parse_float::<f32>("1e39"), None);
        assert!(parse_float::<f64>("NaN").is_some_and(f64::is_nan));
    }
}
