//! stride values on the wire: each stride type has a PostgreSQL type OID, and every
//! value can be written in text format (what psql shows) or binary format (what
//! drivers such as tokio-postgres and JDBC ask for).

use bytes::{BufMut, BytesMut};
use pgwire::api::results::{FieldFormat, FieldInfo};
use pgwire::api::Type;
use pgwire::error::{PgWireError, PgWireResult};
use pgwire::messages::data::DataRow;
use pgwire::types::format::FormatOptions;
use pgwire::types::ToSqlText;
use postgres_types::{IsNull, ToSql};
use std::error::Error as StdError;
use stride::{temporal, DataChunk, DataType, ScalarValue, Vector};

/// Days from 1970-01-01 (stride's epoch) to 2000-01-01 (PostgreSQL's).
pub(crate) const PG_EPOCH_DAYS: i64 = 10_957;
pub(crate) const MICROS_PER_DAY: i64 = 86_400_000_000;

/// The PostgreSQL type a stride type travels as (the OIDs `pg_type` lists). A list
/// of values of a type PostgreSQL has an array type for travels as that array type
/// (`INTEGER[]` as int4[], 1007), as `pg_attribute` describes it; lists of lists,
/// structs, maps, unions and untyped NULLs travel as text.
pub fn pg_type(t: &DataType) -> Type {
    match t {
        DataType::Null => Type::TEXT,
        DataType::List(inner) | DataType::Array(inner, _) if !inner.is_nested() => {
            Type::from_oid(stride::pg_types::oid_of(t)).unwrap_or(Type::TEXT)
        }
        t if t.is_nested() => Type::TEXT,
        t => Type::from_oid(stride::pg_types::oid_of(t)).unwrap_or(Type::TEXT),
    }
}

pub fn fields(
    columns: &[(String, DataType)],
    format: &pgwire::api::portal::Format,
) -> Vec<FieldInfo> {
    columns
        .iter()
        .enumerate()
        .map(|(i, (name, ty))| {
            FieldInfo::new(name.clone(), None, None, pg_type(ty), format.format_for(i))
        })
        .collect()
}

/// The rows of a result chunk as DataRow messages, written column value by column
/// value into one buffer the rows then share (no allocation per row or per value).
pub fn data_rows(chunk: &DataChunk, fields: &[FieldInfo]) -> PgWireResult<Vec<DataRow>> {
    let len = chunk.len();
    let mut buf = BytesMut::with_capacity(len * (8 + 12 * fields.len()));
    let mut rows = Vec::with_capacity(len);
    for row in 0..len {
        for (column, field) in chunk.columns.iter().zip(fields) {
            let at = buf.len();
            buf.put_i32(-1);
            let cell = Cell { column, row };
            let written = match field.format() {
                FieldFormat::Text => {
                    cell.to_sql_text(field.datatype(), &mut buf, field.format_options())
                }
                FieldFormat::Binary => cell.to_sql(field.datatype(), &mut buf),
            }
            .map_err(PgWireError::ApiError)?;
            if let IsNull::No = written {
                let n = (buf.len() - at - 4) as i32;
                buf[at..at + 4].copy_from_slice(&n.to_be_bytes());
            }
        }
        rows.push(DataRow::new(buf.split(), fields.len() as i16));
    }
    Ok(rows)
}

/// Row `row` of a result column, written straight from the vector: the common types
/// (strings, integers, booleans) without building a [`ScalarValue`] or any string
/// first, the others through [`Value`].
#[derive(Debug)]
pub struct Cell<'a> {
    pub column: &'a Vector,
    pub row: usize,
}

impl ToSqlText for Cell<'_> {
    fn to_sql_text(
        &self,
        ty: &Type,
        out: &mut BytesMut,
        options: &FormatOptions,
    ) -> Result<IsNull, Box<dyn StdError + Sync + Send>> {
        use std::fmt::Write;
        let (v, i) = (self.column, self.row);
        if !v.is_valid(i) {
            return Ok(IsNull::Yes);
        }
        let at = v.index(i);
        match &v.ty {
            DataType::Varchar => out.put_slice(v.strings().get(at).as_bytes()),
            DataType::Boolean => out.put_slice(if v.values::<bool>()[at] { b"t" } else { b"f" }),
            DataType::BigInt => write!(out, "{}", v.values::<i64>()[at])?,
            DataType::Integer => write!(out, "{}", v.values::<i32>()[at])?,
            DataType::SmallInt => write!(out, "{}", v.values::<i16>()[at])?,
            DataType::Double if v.values::<f64>()[at].is_finite() => {
                write!(out, "{}", ScalarValue::Double(v.values::<f64>()[at]))?
            }
            DataType::Date if v.values::<i32>()[at] >= FIRST_AD_DAY => {
                write!(out, "{}", ScalarValue::Date(v.values::<i32>()[at]))?
            }
            DataType::Timestamp
                if v.values::<i64>()[at] >= FIRST_AD_DAY as i64 * MICROS_PER_DAY =>
            {
                write!(out, "{}", ScalarValue::Timestamp(v.values::<i64>()[at]))?
            }
            _ => return Value(&v.get(i)).to_sql_text(ty, out, options),
        }
        Ok(IsNull::No)
    }
}

impl ToSql for Cell<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn StdError + Sync + Send>> {
        let (v, i) = (self.column, self.row);
        if !v.is_valid(i) {
            return Ok(IsNull::Yes);
        }
        let at = v.index(i);
        match &v.ty {
            DataType::Varchar => out.put_slice(v.strings().get(at).as_bytes()),
            DataType::BigInt => out.put_i64(v.values::<i64>()[at]),
            DataType::Integer => out.put_i32(v.values::<i32>()[at]),
            DataType::Double => out.put_f64(v.values::<f64>()[at]),
            _ => return Value(&v.get(i)).to_sql(ty, out),
        }
        Ok(IsNull::No)
    }

    fn accepts(_ty: &Type) -> bool {
        true
    }

    postgres_types::to_sql_checked!();
}

/// One value, ready to be written as the type of its column.
#[derive(Debug)]
pub struct Value<'a>(pub &'a ScalarValue);

impl ToSqlText for Value<'_> {
    fn to_sql_text(
        &self,
        _ty: &Type,
        out: &mut BytesMut,
        _options: &FormatOptions,
    ) -> Result<IsNull, Box<dyn StdError + Sync + Send>> {
        let text = match self.0 {
            ScalarValue::Null => return Ok(IsNull::Yes),
            ScalarValue::Boolean(b) => (if *b { "t" } else { "f" }).to_string(),
            ScalarValue::Real(v) => float_text(*v as f64, &self.0.to_string()),
            ScalarValue::Double(v) => float_text(*v, &self.0.to_string()),
            ScalarValue::Interval(i) => interval_text(i.months, i.days, i.micros),
            ScalarValue::Varchar(s) => {
                out.put_slice(s.as_bytes());
                return Ok(IsNull::No);
            }
            // PostgreSQL's bytea hex format, which psql shows and drivers decode
            ScalarValue::Blob(b) => {
                use std::fmt::Write;
                let mut text = String::with_capacity(2 + 2 * b.len());
                text.push_str("\\x");
                for byte in b {
                    let _ = write!(text, "{byte:02x}");
                }
                text
            }
            ScalarValue::List(_, items) => array_text(items),
            ScalarValue::Date(_) | ScalarValue::Timestamp(_) | ScalarValue::TimestampTz(_) => {
                postgres_era(self.0.to_string())
            }
            // as the TIMESTAMP it rounds to, as in binary (PostgreSQL's timestamps hold
            // microseconds, and clients reject nine fractional digits)
            ScalarValue::TimestampUnit(u, t) => match stride::time_unit::to_micros(*t, *u) {
                Some(micros) => postgres_era(ScalarValue::Timestamp(micros).to_string()),
                None => return Err("a timestamp outside TIMESTAMP's range".into()),
            },
            other => other.to_string(),
        };
        out.put_slice(text.as_bytes());
        Ok(IsNull::No)
    }
}

impl ToSql for Value<'_> {
    fn to_sql(
        &self,
        _ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn StdError + Sync + Send>> {
        match self.0 {
            ScalarValue::Null => return Ok(IsNull::Yes),
            ScalarValue::Boolean(b) => out.put_u8(*b as u8),
            ScalarValue::TinyInt(v) => out.put_i16(*v as i16),
            ScalarValue::SmallInt(v) => out.put_i16(*v),
            ScalarValue::Integer(v) => out.put_i32(*v),
            ScalarValue::BigInt(v) => out.put_i64(*v),
            ScalarValue::Real(v) => out.put_f32(*v),
            ScalarValue::Double(v) => out.put_f64(*v),
            ScalarValue::Decimal(v, _, s) => numeric_binary(*v, *s, out),
            ScalarValue::HugeInt(v) => numeric_binary(*v, 0, out),
            // as the signed types that hold them (`pg_types::oid_of`)
            ScalarValue::UTinyInt(v) => out.put_i16(*v as i16),
            ScalarValue::USmallInt(v) => out.put_i32(*v as i32),
            ScalarValue::UInteger(v) => out.put_i64(*v as i64),
            ScalarValue::UBigInt(v) => numeric_binary(*v as i128, 0, out),
            ScalarValue::UHugeInt(v) => numeric_binary_parts(false, *v, 0, out),
            ScalarValue::Time(t) => out.put_i64(*t),
            // timetz's binary form: the local time, then the offset in seconds west of
            // UTC (PostgreSQL's sign)
            ScalarValue::TimeTz(x) => {
                let (micros, offset) = stride::time_tz::decode(*x);
                out.put_i64(micros);
                out.put_i32(-offset);
            }
            ScalarValue::Uuid(u) => out.put_u128(*u),
            ScalarValue::Varchar(s) => out.put_slice(s.as_bytes()),
            ScalarValue::Blob(b) => out.put_slice(b),
            // varbit's binary form: the bit count, then the bits left-aligned
            ScalarValue::Bit(b) => {
                let n = stride::bit::len(b);
                out.put_i32(n as i32);
                let mut bytes = vec![0u8; n.div_ceil(8)];
                for i in (0..n).filter(|&i| stride::bit::get(b, i)) {
                    bytes[i / 8] |= 0x80 >> (i % 8);
                }
                out.put_slice(&bytes);
            }
            // an enum travels as its label (VARCHAR's OID, `pg_types::oid_of`)
            ScalarValue::Enum(..) => out.put_slice(self.0.to_string().as_bytes()),
            // PostgreSQL's infinite dates and timestamps are the extreme values
            ScalarValue::Date(temporal::DATE_INFINITY) => out.put_i32(i32::MAX),
            ScalarValue::Date(temporal::DATE_NEG_INFINITY) => out.put_i32(i32::MIN),
            ScalarValue::Date(d) => out.put_i32((*d as i64 - PG_EPOCH_DAYS) as i32),
            ScalarValue::Timestamp(temporal::TIMESTAMP_INFINITY)
            | ScalarValue::TimestampTz(temporal::TIMESTAMP_INFINITY) => out.put_i64(i64::MAX),
            ScalarValue::Timestamp(temporal::TIMESTAMP_NEG_INFINITY)
            | ScalarValue::TimestampTz(temporal::TIMESTAMP_NEG_INFINITY) => out.put_i64(i64::MIN),
            ScalarValue::Timestamp(t) | ScalarValue::TimestampTz(t) => {
                out.put_i64(t - PG_EPOCH_DAYS * MICROS_PER_DAY)
            }
            // as the TIMESTAMP it rounds to (PostgreSQL's timestamps hold microseconds)
            ScalarValue::TimestampUnit(u, t) => {
                let micros = stride::time_unit::to_micros(*t, *u)
                    .ok_or("a timestamp outside TIMESTAMP's range")?;
                return Value(&ScalarValue::Timestamp(micros)).to_sql(_ty, out);
            }
            ScalarValue::Interval(i) => {
                out.put_i64(i.micros);
                out.put_i32(i.days);
                out.put_i32(i.months);
            }
            // A list of an array type: PostgreSQL's binary array (see `array_binary`);
            // other lists travel as text, in PostgreSQL's array syntax.
            ScalarValue::List(_, items) => match _ty.kind() {
                postgres_types::Kind::Array(element) => array_binary(items, element, out)?,
                _ => out.put_slice(array_text(items).as_bytes()),
            },
            // Structs, maps and unions travel as text (`pg_types::oid_of`).
            ScalarValue::Struct(..) | ScalarValue::Map(..) | ScalarValue::Union(..) => {
                out.put_slice(self.0.to_string().as_bytes())
            }
        }
        Ok(IsNull::No)
    }

    fn accepts(_ty: &Type) -> bool {
        true
    }

    postgres_types::to_sql_checked!();
}

/// A one-dimensional array in PostgreSQL's binary format: the number of dimensions
/// (1, or 0 when empty), whether an element is NULL, the element type's OID, the
/// length and lower bound (1) of the dimension, then each element as its length
/// (-1 for NULL) and its binary value.
fn array_binary(
    items: &[ScalarValue],
    element: &Type,
    out: &mut BytesMut,
) -> Result<(), Box<dyn StdError + Sync + Send>> {
    let dimensions = !items.is_empty() as i32;
    out.put_i32(dimensions);
    out.put_i32(items.iter().any(ScalarValue::is_null) as i32);
    out.put_u32(element.oid());
    if dimensions == 1 {
        out.put_i32(i32::try_from(items.len()).map_err(|_| "an array too long for PostgreSQL")?);
        out.put_i32(1);
    }
    for v in items {
        let at = out.len();
        out.put_i32(-1);
        if let IsNull::No = Value(v).to_sql(element, out)? {
            let n = (out.len() - at - 4) as i32;
            out[at..at + 4].copy_from_slice(&n.to_be_bytes());
        }
    }
    Ok(())
}

/// A list in PostgreSQL's array text syntax: `{1,2,NULL}`, `{"a b","c\"d"}`; elements
/// are spelled as in text results, quoted when they would not read back.
fn array_text(items: &[ScalarValue]) -> String {
    let mut out = String::from("{");
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if v.is_null() {
            out.push_str("NULL");
            continue;
        }
        let mut buf = BytesMut::new();
        let text = match Value(v).to_sql_text(&Type::TEXT, &mut buf, &FormatOptions::default()) {
            Ok(_) => String::from_utf8_lossy(&buf).into_owned(),
            Err(_) => v.to_string(),
        };
        let nested = matches!(v, ScalarValue::List(..));
        let quote = !nested
            && (text.is_empty()
                || text.eq_ignore_ascii_case("null")
                || text
                    .chars()
                    .any(|c| matches!(c, '{' | '}' | ',' | '"' | '\\') || c.is_whitespace()));
        if quote {
            out.push('"');
            for c in text.chars() {
                if c == '"' || c == '\\' {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
        } else {
            out.push_str(&text);
        }
    }
    out.push('}');
    out
}

fn float_text(v: f64, shown: &str) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v == f64::INFINITY {
        "Infinity".into()
    } else if v == f64::NEG_INFINITY {
        "-Infinity".into()
    } else {
        shown.to_string()
    }
}

/// PostgreSQL's default interval style: `1 year 2 mons 3 days 04:05:06.5`.
fn interval_text(months: i32, days: i32, micros: i64) -> String {
    let mut parts = Vec::new();
    let (y, m) = (months / 12, months % 12);
    let unit = |n: i64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    if y != 0 {
        parts.push(unit(y as i64, "year", "years"));
    }
    if m != 0 {
        parts.push(unit(m as i64, "mon", "mons"));
    }
    if days != 0 {
        parts.push(unit(days as i64, "day", "days"));
    }
    if micros != 0 || parts.is_empty() {
        let sign = if micros < 0 { "-" } else { "" };
        let us = micros.unsigned_abs();
        let (h, rem) = (us / 3_600_000_000, us % 3_600_000_000);
        let (min, rem) = (rem / 60_000_000, rem % 60_000_000);
        let (s, frac) = (rem / 1_000_000, rem % 1_000_000);
        let mut t = format!("{sign}{h:02}:{min:02}:{s:02}");
        if frac != 0 {
            let f = format!("{frac:06}");
            t.push('.');
            t.push_str(f.trim_end_matches('0'));
        }
        parts.push(t);
    }
    parts.join(" ")
}

/// PostgreSQL's binary NUMERIC: base-10000 digits with a weight, sign and scale.
fn numeric_binary(v: i128, scale: u8, out: &mut BytesMut) {
    numeric_binary_parts(v < 0, v.unsigned_abs(), scale, out)
}

/// Days from 1970-01-01 to 0001-01-01: earlier dates are BC.
const FIRST_AD_DAY: i32 = -719_162;

/// A date or timestamp's text with its era as PostgreSQL writes it: `0001-12-31 BC`
/// and `0001-12-31 23:00:00+00 BC`, where stride (as DuckDB) writes `(BC)` after the
/// date.
fn postgres_era(text: String) -> String {
    match text.split_once(" (BC)") {
        Some((date, rest)) => format!("{date}{rest} BC"),
        None => text,
    }
}

/// numeric's binary form of a sign and a magnitude (a UHUGEINT needs all 128 bits).
fn numeric_binary_parts(negative: bool, mag: u128, scale: u8, out: &mut BytesMut) {
    // Base-10000 digits of the integer part, then of the fraction padded with zeros to
    // whole digits. The padding goes into the last digit alone: the whole padded
    // fraction of a DECIMAL(38, 37) would not fit 128 bits.
    let unit = 10u128.pow(scale as u32);
    let (mut int, mut frac) = (mag / unit, mag % unit);
    let mut groups = Vec::new();
    while int > 0 {
        groups.push((int % 10_000) as i16);
        int /= 10_000;
    }
    groups.reverse();
    let mut weight = groups.len() as i32 - 1;
    let pad = (4 - scale as u32 % 4) % 4;
    let frac_groups = (scale as u32 + pad) / 4;
    let mut fraction = Vec::with_capacity(frac_groups as usize);
    for k in 0..frac_groups {
        // the last digit holds 4 - pad of the fraction's digits, the others 4
        let width = if k == 0 { 4 - pad } else { 4 };
        let d = 10u128.pow(width);
        fraction.push(((frac % d) * 10u128.pow(4 - width)) as i16);
        frac /= d;
    }
    groups.extend(fraction.into_iter().rev());
    // Leading and trailing zero groups carry no information.
    let lead = groups.iter().take_while(|&&g| g == 0).count();
    groups.drain(..lead);
    weight -= lead as i32;
    while groups.last() == Some(&0) {
        groups.pop();
    }
    out.put_i16(groups.len() as i16);
    out.put_i16(if groups.is_empty() { 0 } else { weight as i16 });
    out.put_u16(if negative && !groups.is_empty() {
        0x4000
    } else {
        0
    });
    out.put_u16(scale as u16);
    for g in groups {
        out.put_i16(g);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_and_numerics() {
        assert_eq!(
            interval_text(14, 3, 14_706_500_000),
            "1 year 2 mons 3 days 04:05:06.5"
        );
        assert_eq!(interval_text(0, 0, 0), "00:00:00");
        let s = |x: &str| ScalarValue::Varchar(x.into());
        assert_eq!(
            array_text(&[
                s("a"),
                s("b c"),
                s(""),
                s("x\"y"),
                ScalarValue::Null,
                s("null")
            ]),
            "{a,\"b c\",\"\",\"x\\\"y\",NULL,\"null\"}"
        );
        assert_eq!(
            array_text(&[ScalarValue::Boolean(true), ScalarValue::Double(1.5)]),
            "{t,1.5}"
        );
        let mut b = BytesMut::new();
        numeric_binary(-1234567, 2, &mut b);
        // 12345.67 = 1 2345 . 6700 → 3 digits, weight 1, negative, scale 2
        assert_eq!(
            &b[..],
            &[0, 3, 0, 1, 0x40, 0, 0, 2, 0, 1, 0x09, 0x29, 0x1a, 0x2c]
        );
    }

    /// Dates and timestamps BC in PostgreSQL's spelling; AD ones as they are.
    #[test]
    fn eras_as_postgres_writes_them() {
        let text = |v: ScalarValue| {
            let mut b = BytesMut::new();
            Value(&v)
                .to_sql_text(&Type::TEXT, &mut b, &FormatOptions::default())
                .unwrap();
            String::from_utf8(b.to_vec()).unwrap()
        };
        assert_eq!(text(ScalarValue::Date(FIRST_AD_DAY - 1)), "0001-12-31 BC");
        assert_eq!(text(ScalarValue::Date(FIRST_AD_DAY)), "0001-01-01");
        let hour = 3_600_000_000;
        let first = FIRST_AD_DAY as i64 * MICROS_PER_DAY;
        assert_eq!(
            text(ScalarValue::Timestamp(first - hour)),
            "0001-12-31 23:00:00 BC"
        );
        assert_eq!(text(ScalarValue::Timestamp(first)), "0001-01-01 00:00:00");
    }

    /// The value a numeric's binary form stands for, as PostgreSQL reads it.
    fn numeric_value(b: &[u8]) -> String {
        let word = |i: usize| i16::from_be_bytes([b[2 * i], b[2 * i + 1]]);
        let (n, weight, sign, scale) = (word(0) as usize, word(1) as i32, word(2), word(3));
        let mut digits = String::new();
        for k in 0..n {
            digits.push_str(&format!("{:04}", word(4 + k)));
        }
        // digits stand for digit groups weight, weight - 1, ...: place the point
        let int_groups = weight + 1;
        let (int, frac) = if int_groups <= 0 {
            let zeros = "0000".repeat(-int_groups as usize);
            (String::from("0"), zeros + &digits)
        } else {
            let cut = (int_groups as usize * 4).min(digits.len());
            let int = format!(
                "{:0<width$}",
                &digits[..cut],
                width = int_groups as usize * 4
            );
            (int, digits[cut..].to_string())
        };
        let int = int.trim_start_matches('0');
        let frac = format!("{frac:0<width$}", width = scale as usize);
        let text = match scale {
            0 => format!("{}", if int.is_empty() { "0" } else { int }),
            _ => format!(
                "{}.{}",
                if int.is_empty() { "0" } else { int },
                &frac[..scale as usize]
            ),
        };
        match sign {
            0x4000 => format!("-{text}"),
            _ => text,
        }
    }

    /// Every scale of DECIMAL(38) at its largest values, and values with zero groups
    /// inside, come back as they are (a scale that is not a multiple of four used to
    /// overflow when padded to one).
    #[test]
    fn numerics_of_every_scale_round_trip() {
        let max = 10i128.pow(38) - 1;
        for scale in 0..=38u8 {
            for v in [max, -max, 1, -1, 10i128.pow(scale as u32), 100_000_001, 0] {
                let mut b = BytesMut::new();
                numeric_binary(v, scale, &mut b);
                assert_eq!(
                    numeric_value(&b),
                    ScalarValue::Decimal(v, 38, scale).to_string(),
                    "{v} at scale {scale}"
                );
            }
        }
        let mut b = BytesMut::new();
        numeric_binary_parts(false, u128::MAX, 0, &mut b);
        assert_eq!(numeric_value(&b), u128::MAX.to_string());
    }
}
