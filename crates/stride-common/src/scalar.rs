//! Single SQL values. Used for literals, settings, results handed to callers and slow
//! paths; never inside a hot loop (kernels work on [`crate::Vector`]s).

use crate::enum_type::EnumType;
use crate::interval::Interval;
use crate::temporal;
use crate::types::DataType;
use std::cmp::Ordering;
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum ScalarValue {
    Null,
    Boolean(bool),
    TinyInt(i8),
    SmallInt(i16),
    Integer(i32),
    BigInt(i64),
    HugeInt(i128),
    UTinyInt(u8),
    USmallInt(u16),
    UInteger(u32),
    UBigInt(u64),
    UHugeInt(u128),
    Real(f32),
    Double(f64),
    /// Unscaled value, precision, scale.
    Decimal(i128, u8, u8),
    Varchar(String),
    Blob(Vec<u8>),
    /// A BIT value in its stored layout ([`crate::bit`]).
    Bit(Vec<u8>),
    Date(i32),
    Timestamp(i64),
    /// An instant: microseconds since 1970-01-01 00:00:00 UTC.
    TimestampTz(i64),
    /// A TIMESTAMP_S, _MS or _NS value in its unit ([`crate::time_unit`]).
    TimestampUnit(crate::time_unit::TimeUnit, i64),
    /// Microseconds since midnight.
    Time(i64),
    /// A TIME WITH TIME ZONE in its stored form ([`crate::time_tz`]).
    TimeTz(i64),
    Interval(Interval),
    /// The UUID's 128 bits (not the stored form, see [`crate::uuid`]).
    Uuid(u128),
    List(DataType, Vec<ScalarValue>),
    /// The struct's fields (names and types) and one value per field.
    Struct(Vec<(String, DataType)>, Vec<ScalarValue>),
    /// The key type, the value type, and the entries in order.
    Map(DataType, DataType, Vec<(ScalarValue, ScalarValue)>),
    /// A value of an ENUM type: its label's position (always within the labels).
    Enum(EnumType, u32),
    /// A UNION value: the union's members, the tag (the member's position) and the
    /// member's value (NULL for a tagged NULL). A NULL union is [`ScalarValue::Null`].
    Union(Vec<(String, DataType)>, u8, Box<ScalarValue>),
}

impl ScalarValue {
    pub fn is_null(&self) -> bool {
        matches!(self, ScalarValue::Null)
    }

    /// The type of this value; `Null` for an untyped NULL.
    pub fn data_type(&self) -> DataType {
        match self {
            ScalarValue::Null => DataType::Null,
            ScalarValue::Boolean(_) => DataType::Boolean,
            ScalarValue::TinyInt(_) => DataType::TinyInt,
            ScalarValue::SmallInt(_) => DataType::SmallInt,
            ScalarValue::Integer(_) => DataType::Integer,
            ScalarValue::BigInt(_) => DataType::BigInt,
            ScalarValue::HugeInt(_) => DataType::HugeInt,
            ScalarValue::UTinyInt(_) => DataType::UTinyInt,
            ScalarValue::USmallInt(_) => DataType::USmallInt,
            ScalarValue::UInteger(_) => DataType::UInteger,
            ScalarValue::UBigInt(_) => DataType::UBigInt,
            ScalarValue::UHugeInt(_) => DataType::UHugeInt,
            ScalarValue::Real(_) => DataType::Real,
            ScalarValue::Double(_) => DataType::Double,
            ScalarValue::Decimal(_, p, s) => DataType::Decimal(*p, *s),
            ScalarValue::Varchar(_) => DataType::Varchar,
            ScalarValue::Blob(_) => DataType::Blob,
            ScalarValue::Bit(_) => DataType::Bit,
            ScalarValue::Date(_) => DataType::Date,
            ScalarValue::Timestamp(_) => DataType::Timestamp,
            ScalarValue::TimeTz(_) => DataType::TimeTz,
            ScalarValue::TimestampUnit(u, _) => DataType::TimestampUnit(*u),
            ScalarValue::TimestampTz(_) => DataType::TimestampTz,
            ScalarValue::Time(_) => DataType::Time,
            ScalarValue::Interval(_) => DataType::Interval,
            ScalarValue::Uuid(_) => DataType::Uuid,
            ScalarValue::List(t, _) => DataType::List(Box::new(t.clone())),
            ScalarValue::Struct(fields, _) => DataType::Struct(fields.clone()),
            ScalarValue::Map(k, v, _) => DataType::Map(Box::new(k.clone()), Box::new(v.clone())),
            ScalarValue::Enum(e, _) => DataType::Enum(e.clone()),
            ScalarValue::Union(m, ..) => DataType::Union(m.clone()),
        }
    }

    /// Whether this is a value of an integer type (signed or unsigned, any width).
    pub fn is_integer(&self) -> bool {
        use ScalarValue::*;
        matches!(
            self,
            TinyInt(_)
                | SmallInt(_)
                | Integer(_)
                | BigInt(_)
                | HugeInt(_)
                | UTinyInt(_)
                | USmallInt(_)
                | UInteger(_)
                | UBigInt(_)
                | UHugeInt(_)
        )
    }

    /// Integer value of any integer type, for settings and table-function arguments.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            ScalarValue::TinyInt(v) => Some(*v as i64),
            ScalarValue::SmallInt(v) => Some(*v as i64),
            ScalarValue::Integer(v) => Some(*v as i64),
            ScalarValue::BigInt(v) => Some(*v),
            ScalarValue::HugeInt(v) => i64::try_from(*v).ok(),
            ScalarValue::UTinyInt(v) => Some(*v as i64),
            ScalarValue::USmallInt(v) => Some(*v as i64),
            ScalarValue::UInteger(v) => Some(*v as i64),
            ScalarValue::UBigInt(v) => i64::try_from(*v).ok(),
            ScalarValue::UHugeInt(v) => i64::try_from(*v).ok(),
            ScalarValue::Decimal(v, _, 0) => i64::try_from(*v).ok(),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ScalarValue::Real(v) => Some(*v as f64),
            ScalarValue::Double(v) => Some(*v),
            ScalarValue::Decimal(v, _, s) => Some(*v as f64 / 10f64.powi(*s as i32)),
            ScalarValue::HugeInt(v) => Some(*v as f64),
            ScalarValue::UBigInt(v) => Some(*v as f64),
            ScalarValue::UHugeInt(v) => Some(*v as f64),
            other => other.as_i64().map(|v| v as f64),
        }
    }

    /// Total order among values of one type, as SQL compares them: NULL sorts last,
    /// NaN after numbers, -0.0 equals 0.0 ([`sql_cmp_f64`]).
    pub fn total_cmp(&self, other: &ScalarValue) -> Ordering {
        use ScalarValue::*;
        match (self, other) {
            (Null, Null) => Ordering::Equal,
            (Null, _) => Ordering::Greater,
            (_, Null) => Ordering::Less,
            (Boolean(a), Boolean(b)) => a.cmp(b),
            (Varchar(a), Varchar(b)) => a.cmp(b),
            (Blob(a), Blob(b)) | (Bit(a), Bit(b)) => a.cmp(b),
            (Date(a), Date(b)) => a.cmp(b),
            (Timestamp(a), Timestamp(b)) | (TimestampTz(a), TimestampTz(b)) => a.cmp(b),
            (TimestampUnit(_, a), TimestampUnit(_, b)) => a.cmp(b),
            (Time(a), Time(b)) | (TimeTz(a), TimeTz(b)) => a.cmp(b),
            (Uuid(a), Uuid(b)) => a.cmp(b),
            (Enum(_, a), Enum(_, b)) => a.cmp(b),
            (HugeInt(a), HugeInt(b)) => a.cmp(b),
            (UTinyInt(a), UTinyInt(b)) => a.cmp(b),
            (USmallInt(a), USmallInt(b)) => a.cmp(b),
            (UInteger(a), UInteger(b)) => a.cmp(b),
            (UBigInt(a), UBigInt(b)) => a.cmp(b),
            (UHugeInt(a), UHugeInt(b)) => a.cmp(b),
            (Interval(a), Interval(b)) => a.cmp(b),
            // by tag (the members' order), then by value
            (Union(_, t1, a), Union(_, t2, b)) => t1.cmp(t2).then_with(|| a.total_cmp(b)),
            (Decimal(a, _, s1), Decimal(b, _, s2)) if s1 == s2 => a.cmp(b),
            (Map(_, _, a), Map(_, _, b)) => {
                for ((k1, v1), (k2, v2)) in a.iter().zip(b) {
                    let c = k1.total_cmp(k2).then_with(|| v1.total_cmp(v2));
                    if c != Ordering::Equal {
                        return c;
                    }
                }
                a.len().cmp(&b.len())
            }
            (List(_, a), List(_, b)) | (Struct(_, a), Struct(_, b)) => {
                for (x, y) in a.iter().zip(b) {
                    let c = x.total_cmp(y);
                    if c != Ordering::Equal {
                        return c;
                    }
                }
                a.len().cmp(&b.len())
            }
            (a, b) => match (a.as_i64(), b.as_i64()) {
                (Some(x), Some(y)) if !matches!(a, Decimal(..)) && !matches!(b, Decimal(..)) => {
                    x.cmp(&y)
                }
                _ => sql_cmp_f64(
                    a.as_f64().unwrap_or(f64::NAN),
                    b.as_f64().unwrap_or(f64::NAN),
                ),
            },
        }
    }
}

/// SQL's order of floating-point numbers: -0.0 equals 0.0, and every NaN (whatever
/// its sign or payload) equals every other and sorts after all numbers.
pub fn sql_cmp_f64(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// Formats an unscaled decimal with `scale` fractional digits.
pub fn format_decimal(v: i128, scale: u8) -> String {
    if scale == 0 {
        return v.to_string();
    }
    let neg = v < 0;
    let digits = v.unsigned_abs().to_string();
    let s = scale as usize;
    let padded = if digits.len() <= s {
        format!("{}{}", "0".repeat(s + 1 - digits.len()), digits)
    } else {
        digits
    };
    let (int, frac) = padded.split_at(padded.len() - s);
    format!("{}{}.{}", if neg { "-" } else { "" }, int, frac)
}

/// Formats a double the way DuckDB prints one: shortest round-trip digits.
pub fn format_f64(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else if v == v.trunc() && v.abs() < 1e15 {
        // Exact as an integer: cheaper than `{:.1}`, which formats digit by digit.
        let sign = if v == 0.0 && v.is_sign_negative() {
            "-"
        } else {
            ""
        };
        format!("{sign}{}.0", v as i64)
    } else {
        with_exponent_digits(format!("{v:?}"))
    }
}

/// A REAL as text: its shortest digits, as DuckDB prints them (123456789::FLOAT is
/// 123456790.0, not the 123456792 it holds exactly).
pub fn format_f32(v: f32) -> String {
    if v.is_finite() {
        with_exponent_digits(format!("{v:?}"))
    } else {
        format_f64(v as f64)
    }
}

/// Rust's shortest form with the exponent written as C's `%e` and DuckDB write it:
/// signed and at least two digits (1e+16, 1e-07).
fn with_exponent_digits(s: String) -> String {
    match s.split_once('e') {
        Some((m, e)) => {
            let (sign, digits) = match e.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', e),
            };
            format!("{m}e{sign}{digits:0>2}")
        }
        None => s,
    }
}

impl fmt::Display for ScalarValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarValue::Null => write!(f, "NULL"),
            ScalarValue::Boolean(b) => write!(f, "{}", if *b { "true" } else { "false" }),
            ScalarValue::TinyInt(v) => write!(f, "{v}"),
            ScalarValue::SmallInt(v) => write!(f, "{v}"),
            ScalarValue::Integer(v) => write!(f, "{v}"),
            ScalarValue::BigInt(v) => write!(f, "{v}"),
            ScalarValue::HugeInt(v) => write!(f, "{v}"),
            ScalarValue::UTinyInt(v) => write!(f, "{v}"),
            ScalarValue::USmallInt(v) => write!(f, "{v}"),
            ScalarValue::UInteger(v) => write!(f, "{v}"),
            ScalarValue::UBigInt(v) => write!(f, "{v}"),
            ScalarValue::UHugeInt(v) => write!(f, "{v}"),
            ScalarValue::Real(v) => write!(f, "{}", format_f32(*v)),
            ScalarValue::Double(v) => write!(f, "{}", format_f64(*v)),
            ScalarValue::Decimal(v, _, s) => write!(f, "{}", format_decimal(*v, *s)),
            ScalarValue::Varchar(s) => write!(f, "{s}"),
            ScalarValue::Blob(b) => write!(f, "{}", crate::blob::to_escaped(b)),
            ScalarValue::Bit(b) => write!(f, "{}", crate::bit::to_text(b)),
            ScalarValue::Date(d) => write!(f, "{}", temporal::format_date(*d)),
            ScalarValue::Timestamp(t) => write!(f, "{}", temporal::format_timestamp(*t)),
            ScalarValue::TimestampUnit(u, t) => write!(f, "{}", crate::time_unit::format(*t, *u)),
            ScalarValue::TimestampTz(t) => {
                write!(f, "{}", crate::zone::format_in(&crate::zone::current(), *t))
            }
            ScalarValue::Time(t) => write!(f, "{}", temporal::format_time(*t)),
            ScalarValue::TimeTz(t) => write!(f, "{}", crate::time_tz::format(*t)),
            ScalarValue::Interval(i) => write!(f, "{i}"),
            ScalarValue::Uuid(u) => write!(f, "{}", crate::uuid::format(*u)),
            ScalarValue::Enum(e, i) => write!(f, "{}", e.label(*i as usize).unwrap_or_default()),
            // the member's value alone (DuckDB's text of a union)
            ScalarValue::Union(_, _, v) => write!(f, "{v}"),
            ScalarValue::List(t, items) => {
                write!(f, "[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write_element(f, v, t)?;
                }
                write!(f, "]")
            }
            // DuckDB's text: {a=1, b=2}
            ScalarValue::Map(kt, vt, entries) => {
                write!(f, "{{")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write_element(f, k, kt)?;
                    write!(f, "=")?;
                    write_element(f, v, vt)?;
                }
                write!(f, "}}")
            }
            ScalarValue::Struct(fields, values) => {
                // DuckDB's text: {'a': 1, 'b': x}, or (1, x) for unnamed fields
                let unnamed = fields.iter().all(|(n, _)| n.is_empty());
                write!(f, "{}", if unnamed { "(" } else { "{" })?;
                for (i, ((name, t), v)) in fields.iter().zip(values).enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    if !name.is_empty() {
                        write!(f, "'{}': ", name.replace('\'', "\\'"))?;
                    }
                    write_element(f, v, t)?;
                }
                write!(f, "{}", if unnamed { ")" } else { "}" })
            }
        }
    }
}

/// A value (of type `ty`) inside a list, map or struct's text. Its text, of any type
/// (a string, a TIMESTAMP's `2024-01-01 00:00:00`, a TIME's `12:00:00`, ...), is
/// quoted, as DuckDB quotes it, when it could be read back otherwise: empty, NULL in
/// any case, blank at either end, or holding a character of the nested syntax (`'`
/// and `\\` escaped). JSON is written as it is, nested values and NULL as their own
/// text, a union's value as its member's.
fn write_element(f: &mut fmt::Formatter<'_>, v: &ScalarValue, ty: &DataType) -> fmt::Result {
    let s = match v {
        ScalarValue::Null
        | ScalarValue::List(..)
        | ScalarValue::Struct(..)
        | ScalarValue::Map(..) => return write!(f, "{v}"),
        ScalarValue::Union(members, tag, member) => {
            let member_ty = members.get(*tag as usize).map_or(ty, |(_, t)| t);
            return write_element(f, member, member_ty);
        }
        ScalarValue::Varchar(s) => std::borrow::Cow::Borrowed(s.as_str()),
        v => std::borrow::Cow::Owned(v.to_string()),
    };
    if *ty == DataType::Json {
        return write!(f, "{s}");
    }
    let special = |c: char| {
        matches!(
            c,
            ',' | '\'' | '"' | '[' | ']' | '{' | '}' | '=' | ':' | '\\' | '(' | ')'
        )
    };
    let quote = s.is_empty()
        || s.eq_ignore_ascii_case("null")
        || s.starts_with(char::is_whitespace)
        || s.ends_with(char::is_whitespace)
        || s.contains(special);
    if !quote {
        return write!(f, "{s}");
    }
    write!(f, "'")?;
    for c in s.chars() {
        match c {
            '\'' | '\\' => write!(f, "\\{c}")?,
            c => write!(f, "{c}")?,
        }
    }
    write!(f, "'")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_and_floats() {
        assert_eq!(format_decimal(12345, 2), "123.45");
        assert_eq!(format_decimal(-5, 2), "-0.05");
        assert_eq!(format_decimal(7, 0), "7");
        assert_eq!(format_f64(5.0), "5.0");
        assert_eq!(format_f64(-0.0), "-0.0");
        assert_eq!(format_f64(-123456789012345.0), "-123456789012345.0");
        assert_eq!(format_f64(1e15), "1000000000000000.0");
        assert_eq!(format_f64(0.1), "0.1");
        assert_eq!(format_f64(1e20), "1e+20");
    }
}
