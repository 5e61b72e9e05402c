//! `$n` parameters of the extended protocol, decoded from the Bind message into
//! values. The client's declared type decides how the bytes read; without one, the
//! type the binder inferred from the parameter's context (`i >= $1` gives i's type),
//! which ParameterDescription also reported, and otherwise text. Text values bind
//! like string literals, so `id = $1` with '42' compares as a number, as in
//! PostgreSQL; those declared numeric, date or timestamp bind as values of that type
//! (`$1 + 1` with a numeric 1.5 is 2.5), and those declared arrays bind as lists.

use pgwire::api::portal::Portal;
use pgwire::api::Type;
use stride::{DataType, Error, Result, ScalarValue};

use crate::encode::{MICROS_PER_DAY, PG_EPOCH_DAYS};
use stride::blob::hex_digit;
use stride::temporal;

/// The type the client declared for parameter `i`, if it declared one.
pub fn declared(portal: &Portal<String>, i: usize) -> Option<Type> {
    portal
        .statement
        .parameter_types
        .get(i)
        .cloned()
        .flatten()
        .filter(|t| *t != Type::UNKNOWN)
}

/// Whether some parameter arrives in binary format without a declared type, so its
/// bytes can only be read with the inferred type.
pub fn needs_inferred_types(portal: &Portal<String>) -> bool {
    (0..portal.parameter_len())
        .any(|i| portal.parameter_format.is_binary(i) && declared(portal, i).is_none())
}

/// The values of the portal's parameters; `inferred` holds the binder's types for
/// parameters the client did not declare.
pub fn decode(portal: &Portal<String>, inferred: &[Option<Type>]) -> Result<Vec<ScalarValue>> {
    (0..portal.parameter_len())
        .map(|i| {
            let ty = declared(portal, i)
                .or_else(|| inferred.get(i).cloned().flatten())
                .unwrap_or(Type::UNKNOWN);
            match &portal.parameters[i] {
                None => Ok(ScalarValue::Null),
                Some(b) if portal.parameter_format.is_binary(i) => binary(&ty, b, i),
                Some(b) => text(&ty, b, i),
            }
        })
        .collect()
}

fn bad(i: usize, ty: &Type, why: &str) -> Error {
    Error::invalid_input(format!("parameter ${} ({}): {why}", i + 1, ty.name()))
}

fn text(ty: &Type, b: &[u8], i: usize) -> Result<ScalarValue> {
    let s = std::str::from_utf8(b).map_err(|_| bad(i, ty, "not valid UTF-8"))?;
    let int = || {
        s.trim()
            .parse::<i64>()
            .map_err(|_| bad(i, ty, "not an integer"))
    };
    let range = |_| bad(i, ty, "out of range for the type");
    Ok(match *ty {
        Type::INT2 => ScalarValue::SmallInt(i16::try_from(int()?).map_err(range)?),
        Type::INT4 => ScalarValue::Integer(i32::try_from(int()?).map_err(range)?),
        Type::INT8 => ScalarValue::BigInt(int()?),
        Type::FLOAT4 | Type::FLOAT8 => {
            ScalarValue::Double(s.trim().parse().map_err(|_| bad(i, ty, "not a number"))?)
        }
        Type::BOOL => ScalarValue::Boolean(match s.trim().to_ascii_lowercase().as_str() {
            "t" | "true" | "1" | "yes" | "y" | "on" => true,
            "f" | "false" | "0" | "no" | "n" | "off" => false,
            _ => return Err(bad(i, ty, "not a boolean")),
        }),
        Type::BYTEA => {
            ScalarValue::Blob(bytea_text(s).ok_or_else(|| bad(i, ty, "malformed bytea"))?)
        }
        // A number the client declared numeric (psycopg sends a Decimal so) is one:
        // `$1 + 1` adds, where a string would be cast to the other side's type.
        Type::NUMERIC => match numeric_text(s.trim()) {
            Some(v) => v,
            None => ScalarValue::Double(s.trim().parse().map_err(|_| bad(i, ty, "not a number"))?),
        },
        Type::DATE => temporal::parse_date(s.trim())
            .map_or_else(|| ScalarValue::Varchar(s.to_string()), ScalarValue::Date),
        Type::TIMESTAMP => temporal::parse_timestamp(s.trim()).map_or_else(
            || ScalarValue::Varchar(s.to_string()),
            ScalarValue::Timestamp,
        ),
        // An array the client declared (psycopg sends a Python list so, `{1,2,3}`)
        // is a list: `len($1)` counts its elements, not the text's characters.
        // A multidimensional array (`{{1,2},{3,4}}`) is a list of lists.
        _ => match array_element(ty) {
            Some(element) => {
                let dimensions = s.trim_start().bytes().take_while(|&c| c == b'{').count();
                let list = (0..dimensions.max(1)).fold(element, |t, _| DataType::List(Box::new(t)));
                // Nested arrays are split here into lists of strings, then cast.
                let (value, from) = if dimensions > 1 {
                    let mut at = 0;
                    let chars: Vec<char> = s.trim().chars().collect();
                    let v = text_array(&chars, &mut at)
                        .filter(|_| at == chars.len())
                        .ok_or_else(|| bad(i, ty, "malformed array"))?;
                    let from =
                        (0..dimensions).fold(DataType::Varchar, |t, _| DataType::List(Box::new(t)));
                    (v, from)
                } else {
                    (ScalarValue::Varchar(s.to_string()), DataType::Varchar)
                };
                stride::cast_typed_scalar(&value, &from, &list, false)
                    .map_err(|e| bad(i, ty, &e.message))?
            }
            None => ScalarValue::Varchar(s.to_string()),
        },
    })
}

/// A PostgreSQL array's text (`{{1,NULL},{"a b","c\"d"}}`) from `chars[*at]` as
/// lists of strings (NULL for an unquoted NULL), or None when malformed.
fn text_array(chars: &[char], at: &mut usize) -> Option<ScalarValue> {
    if chars.get(*at) != Some(&'{') {
        return None;
    }
    *at += 1;
    let mut items = Vec::new();
    let mut inner = DataType::Varchar;
    if chars.get(*at) == Some(&'}') {
        *at += 1;
        return Some(ScalarValue::List(inner, items));
    }
    loop {
        while chars.get(*at).is_some_and(|c| c.is_whitespace()) {
            *at += 1;
        }
        let item = match chars.get(*at)? {
            '{' => {
                let v = text_array(chars, at)?;
                inner = v.data_type();
                v
            }
            '"' => {
                *at += 1;
                let mut text = String::new();
                loop {
                    match chars.get(*at)? {
                        '"' => break,
                        '\\' => {
                            *at += 1;
                            text.push(*chars.get(*at)?);
                        }
                        c => text.push(*c),
                    }
                    *at += 1;
                }
                *at += 1;
                ScalarValue::Varchar(text)
            }
            _ => {
                let start = *at;
                while !matches!(chars.get(*at)?, ',' | '}') {
                    *at += 1;
                }
                let text: String = chars[start..*at]
                    .iter()
                    .collect::<String>()
                    .trim()
                    .to_string();
                if text.eq_ignore_ascii_case("null") {
                    ScalarValue::Null
                } else {
                    ScalarValue::Varchar(text)
                }
            }
        };
        items.push(item);
        while chars.get(*at).is_some_and(|c| c.is_whitespace()) {
            *at += 1;
        }
        match chars.get(*at)? {
            ',' => *at += 1,
            '}' => {
                *at += 1;
                return Some(ScalarValue::List(inner, items));
            }
            _ => return None,
        }
    }
}

/// The element type of a PostgreSQL array type a text parameter can be read as.
fn array_element(ty: &Type) -> Option<DataType> {
    use stride::pg_types as pg;
    let element = pg::by_oid(ty.oid()).filter(|t| t.category == 'A')?.elem;
    Some(match element {
        pg::BOOL => DataType::Boolean,
        pg::INT2 => DataType::SmallInt,
        pg::INT4 => DataType::Integer,
        pg::INT8 => DataType::BigInt,
        pg::FLOAT4 => DataType::Real,
        pg::FLOAT8 => DataType::Double,
        pg::TEXT | pg::VARCHAR => DataType::Varchar,
        pg::DATE => DataType::Date,
        pg::TIMESTAMP => DataType::Timestamp,
        pg::TIMESTAMPTZ => DataType::TimestampTz,
        pg::UUID => DataType::Uuid,
        _ => return None,
    })
}

/// A decimal's text (`-12.50`, or with an exponent as Python writes some:
/// `1.25E+5`, `5E-7`) as a DECIMAL of its digits and scale; None for other forms
/// (NaN, Infinity, more than 38 digits).
fn numeric_text(s: &str) -> Option<ScalarValue> {
    let (negative, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (mantissa, exponent) = match body.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().ok()?),
        None => (body, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit())
    {
        return None;
    }
    // The digits, and the power of ten they are scaled by.
    let digits = format!("{int}{frac}");
    let digits = digits.trim_start_matches('0');
    let power = exponent.checked_sub(i32::try_from(frac.len()).ok()?)?;
    let (digits, scale) = if power >= 0 {
        (
            format!("0{digits}{}", "0".repeat(power.min(39) as usize)),
            0,
        )
    } else {
        (format!("0{digits}"), power.unsigned_abs() as usize)
    };
    if digits.len() > 39 || scale > 38 {
        return None;
    }
    let v: i128 = digits.parse().ok()?;
    Some(decimal(if negative { -v } else { v }, scale))
}

/// PostgreSQL's bytea text: hex (`\x` then two hex digits per byte) or the escape
/// format (bytes as they are, `\\` for a backslash, `\nnn` in octal).
fn bytea_text(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if let Some(hex) = s.strip_prefix("\\x") {
        let digits: Vec<u8> = hex.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
        if digits.len() % 2 != 0 {
            return None;
        }
        return digits
            .chunks(2)
            .map(|p| Some(hex_digit(p[0])? << 4 | hex_digit(p[1])?))
            .collect();
    }
    let mut out = Vec::with_capacity(b.len());
    let mut k = 0;
    while k < b.len() {
        match (b[k], b.get(k + 1)) {
            (b'\\', Some(b'\\')) => {
                out.push(b'\\');
                k += 2;
            }
            (b'\\', _) => {
                let octal = b.get(k + 1..k + 4)?;
                if !octal.iter().all(|d| (b'0'..=b'7').contains(d)) || octal[0] > b'3' {
                    return None;
                }
                out.push(octal.iter().fold(0u8, |acc, d| acc << 3 | (d - b'0')));
                k += 4;
            }
            (c, _) => {
                out.push(c);
                k += 1;
            }
        }
    }
    Some(out)
}

/// Whether a binary value of `ty` can be read ([`binary`]): an inferred parameter type
/// is reported to clients only then (else TEXT), so a driver never sends a binary
/// value the server must refuse.
pub fn decodable(ty: &Type) -> bool {
    if let postgres_types::Kind::Array(element) = ty.kind() {
        return array_element(ty).is_some() && decodable(element);
    }
    matches!(
        *ty,
        Type::BOOL
            | Type::INT2
            | Type::INT4
            | Type::INT8
            | Type::FLOAT4
            | Type::FLOAT8
            | Type::DATE
            | Type::TIMESTAMP
            | Type::TIMESTAMPTZ
            | Type::TIME
            | Type::UUID
            | Type::BYTEA
            | Type::NUMERIC
            | Type::INTERVAL
            | Type::TEXT
            | Type::VARCHAR
            | Type::BPCHAR
            | Type::NAME
            | Type::UNKNOWN
    )
}

fn binary(ty: &Type, b: &[u8], i: usize) -> Result<ScalarValue> {
    let fixed = |n: usize| -> Result<&[u8]> {
        if b.len() == n {
            Ok(b)
        } else {
            Err(bad(i, ty, &format!("expected {n} bytes, got {}", b.len())))
        }
    };
    Ok(match *ty {
        Type::BOOL => ScalarValue::Boolean(fixed(1)?[0] != 0),
        Type::INT2 => ScalarValue::SmallInt(i16::from_be_bytes(fixed(2)?.try_into().unwrap_or_default())),
        Type::INT4 => ScalarValue::Integer(i32::from_be_bytes(fixed(4)?.try_into().unwrap_or_default())),
        Type::INT8 => ScalarValue::BigInt(i64::from_be_bytes(fixed(8)?.try_into().unwrap_or_default())),
        Type::FLOAT4 => {
            ScalarValue::Real(f32::from_be_bytes(fixed(4)?.try_into().unwrap_or_default()))
        }
        Type::FLOAT8 => {
            ScalarValue::Double(f64::from_be_bytes(fixed(8)?.try_into().unwrap_or_default()))
        }
        Type::DATE => {
            let d = i32::from_be_bytes(fixed(4)?.try_into().unwrap_or_default());
            ScalarValue::Date(match d {
                i32::MAX => temporal::DATE_INFINITY,
                i32::MIN => temporal::DATE_NEG_INFINITY,
                d => i32::try_from(d as i64 + PG_EPOCH_DAYS).unwrap_or(temporal::DATE_INFINITY),
            })
        }
        Type::TIMESTAMP => {
            let t = i64::from_be_bytes(fixed(8)?.try_into().unwrap_or_default());
            ScalarValue::Timestamp(from_pg_timestamp(t))
        }
        Type::TIMESTAMPTZ => {
            let t = i64::from_be_bytes(fixed(8)?.try_into().unwrap_or_default());
            ScalarValue::TimestampTz(from_pg_timestamp(t))
        }
        Type::TIME => {
            let t = i64::from_be_bytes(fixed(8)?.try_into().unwrap_or_default());
            if !(0..=MICROS_PER_DAY).contains(&t) {
                return Err(bad(i, ty, "out of range for the type"));
            }
            ScalarValue::Time(t)
        }
        Type::UUID => ScalarValue::Uuid(u128::from_be_bytes(
            fixed(16)?.try_into().unwrap_or_default(),
        )),
        Type::NUMERIC => numeric(b).ok_or_else(|| bad(i, ty, "malformed numeric"))?,
        // microseconds, days, months (psycopg sends a timedelta so)
        Type::INTERVAL => {
            let b = fixed(16)?;
            let word = |k: usize, n: usize| b[k..k + n].iter().fold(0u64, |w, &x| w << 8 | x as u64);
            ScalarValue::Interval(stride::interval::Interval {
                months: word(12, 4) as u32 as i32,
                days: word(8, 4) as u32 as i32,
                micros: word(0, 8) as i64,
            })
        }
        Type::BYTEA => ScalarValue::Blob(b.to_vec()),
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => {
            ScalarValue::Varchar(
                std::str::from_utf8(b)
                    .map_err(|_| bad(i, ty, "not valid UTF-8"))?
                    .to_string(),
            )
        }
        _ if decodable(ty) && array_element(ty).is_some() => array_binary(ty, b, i)?,
        _ => {
            return Err(Error::not_supported(format!(
                "parameter ${} has type {}, which stride does not take in binary format; send it as text",
                i + 1,
                ty.name()
            )))
        }
    })
}

/// PostgreSQL's binary array (see `encode::array_binary`; any number of dimensions,
/// as lists of lists) of an element type [`binary`] reads.
fn array_binary(ty: &Type, b: &[u8], i: usize) -> Result<ScalarValue> {
    let postgres_types::Kind::Array(element_type) = ty.kind() else {
        return Err(bad(i, ty, "not an array type"));
    };
    let element = array_element(ty).ok_or_else(|| bad(i, ty, "not an array type"))?;
    let malformed = || bad(i, ty, "malformed binary array");
    let mut at = 0usize;
    let word = |at: &mut usize| -> Result<i32> {
        let w = b.get(*at..*at + 4).ok_or_else(malformed)?;
        *at += 4;
        Ok(i32::from_be_bytes([w[0], w[1], w[2], w[3]]))
    };
    let dimensions = word(&mut at)?;
    let _has_nulls = word(&mut at)?;
    let _element_oid = word(&mut at)?;
    if !(0..=6).contains(&dimensions) {
        return Err(malformed());
    }
    let mut lengths = Vec::new();
    for _ in 0..dimensions {
        lengths.push(usize::try_from(word(&mut at)?).map_err(|_| malformed())?);
        word(&mut at)?; // lower bound
    }
    let count = lengths
        .iter()
        .try_fold(1usize, |n, &l| n.checked_mul(l))
        .filter(|&n| n <= b.len())
        .ok_or_else(malformed)?;
    let mut values = Vec::with_capacity(if dimensions == 0 { 0 } else { count });
    for _ in 0..if dimensions == 0 { 0 } else { count } {
        let n = word(&mut at)?;
        values.push(if n < 0 {
            ScalarValue::Null
        } else {
            let bytes = b.get(at..at + n as usize).ok_or_else(malformed)?;
            at += n as usize;
            binary(element_type, bytes, i)?
        });
    }
    if at != b.len() {
        return Err(malformed());
    }
    // Nest the flat elements by dimension, innermost first.
    let mut ty_now = element;
    for &len in lengths.iter().skip(1).rev() {
        let chunks: Vec<ScalarValue> = values
            .chunks(len.max(1))
            .map(|c| ScalarValue::List(ty_now.clone(), c.to_vec()))
            .collect();
        values = if len == 0 { Vec::new() } else { chunks };
        ty_now = DataType::List(Box::new(ty_now));
    }
    Ok(ScalarValue::List(ty_now, values))
}

/// PostgreSQL's binary NUMERIC into a DECIMAL of its scale (up to 38 digits).
/// A binary TIMESTAMP parameter (microseconds since 2000-01-01): PostgreSQL's
/// extreme values are its infinite timestamps.
fn from_pg_timestamp(t: i64) -> i64 {
    match t {
        i64::MAX => temporal::TIMESTAMP_INFINITY,
        i64::MIN => temporal::TIMESTAMP_NEG_INFINITY,
        t => t
            .saturating_add(PG_EPOCH_DAYS * MICROS_PER_DAY)
            .min(temporal::TIMESTAMP_INFINITY - 1),
    }
}

fn numeric(b: &[u8]) -> Option<ScalarValue> {
    let word = |k: usize| b.get(k..k + 2).map(|w| i16::from_be_bytes([w[0], w[1]]));
    let ndigits = word(0)? as u16 as usize;
    let weight = word(2)? as i32;
    let sign = word(4)? as u16;
    let scale = word(6)? as u16;
    // Only positive and negative numbers (not NaN or the infinities).
    if !matches!(sign, 0x0000 | 0x4000) || scale > 38 || b.len() != 8 + 2 * ndigits {
        return None;
    }
    // value = sum(digit_k * 10000^(weight - k)); scaled by 10^scale.
    let mut v: i128 = 0;
    for k in 0..ndigits {
        let d = word(8 + 2 * k)? as i128;
        if !(0..10_000).contains(&d) {
            return None;
        }
        let exp = (weight - k as i32) * 4 + scale as i32;
        let term = if exp >= 0 {
            d.checked_mul(10i128.checked_pow(exp as u32)?)?
        } else {
            d / 10i128.checked_pow((-exp) as u32)?
        };
        v = v.checked_add(term)?;
    }
    if sign == 0x4000 {
        v = -v;
    }
    if v.unsigned_abs() >= 10u128.pow(38) {
        return None;
    }
    Some(decimal(v, scale as usize))
}

/// `v` at `scale` as a DECIMAL of just the precision it needs.
fn decimal(v: i128, scale: usize) -> ScalarValue {
    let digits = v.unsigned_abs().to_string().len().max(scale + 1).min(38);
    ScalarValue::Decimal(v, digits as u8, scale as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_text_reads_plain_and_exponent_forms_exactly() {
        let d = |v: i128, p: u8, s: u8| Some(ScalarValue::Decimal(v, p, s));
        assert_eq!(numeric_text("-12.50"), d(-1250, 4, 2));
        assert_eq!(
            numeric_text("1.2345678901234567890123E+25"),
            d(12345678901234567890123000, 26, 0)
        );
        assert_eq!(numeric_text("1E+5"), d(100000, 6, 0));
        assert_eq!(numeric_text("5E-7"), d(5, 8, 7));
        assert_eq!(numeric_text("-1.5e-1"), d(-15, 3, 2));
        assert_eq!(numeric_text("0E+3"), d(0, 1, 0));
        assert_eq!(numeric_text("NaN"), None);
        assert_eq!(numeric_text("1E+40"), None);
        assert_eq!(numeric_text("1E-39"), None);
        assert_eq!(numeric_text("1e"), None);
    }
}
