//! Turning field bytes into typed values, one column of a batch at a time. Numbers and
//! ISO dates take hand-written fast paths over bytes; other spellings fall back to the
//! engine's casts. Unquoting allocates only for fields that hold escaped quotes.

use stride_common::interval::MICROS_PER_DAY;
use stride_common::temporal::{make_date, parse_date, parse_timestamp};
use stride_common::{DataType, Validity, Vector, VectorData};
use stride_functions::cast;
use stride_functions::cast::decimal::{parse_decimal, pow10};
use stride_functions::scalar::date::format::Format;

use super::options::Dialect;
use super::tokenizer::{Records, Span};

/// How one column's text becomes values.
#[derive(Debug, Clone)]
pub enum Parser {
    Boolean,
    Int(DataType),
    /// `exact`: the type was detected, so a value with more decimals than the scale
    /// (or any spelling but plain digits and a point) does not fit and the column
    /// widens, where a declared DECIMAL rounds as a cast does.
    Decimal {
        precision: u8,
        scale: u8,
        exact: bool,
    },
    Real,
    Double,
    Varchar,
    Date(Option<Format>),
    Timestamp(Option<Format>),
    Time,
    Uuid,
    /// Read as text, then cast with the engine's cast rules.
    Cast(DataType),
}

impl Parser {
    /// The parser for a column of `ty`; `detected` when the sniffer chose the type.
    pub fn for_type(
        ty: &DataType,
        detected: bool,
        date: &Option<Format>,
        ts: &Option<Format>,
    ) -> Parser {
        match ty {
            DataType::Boolean => Parser::Boolean,
            t if t.is_integer() => Parser::Int(t.clone()),
            DataType::Decimal(p, s) => Parser::Decimal {
                precision: *p,
                scale: *s,
                exact: detected,
            },
            DataType::Real => Parser::Real,
            DataType::Double => Parser::Double,
            DataType::Varchar => Parser::Varchar,
            DataType::Date => Parser::Date(date.clone()),
            DataType::Timestamp => Parser::Timestamp(ts.clone()),
            DataType::Time => Parser::Time,
            DataType::Uuid => Parser::Uuid,
            other => Parser::Cast(other.clone()),
        }
    }
}

/// A field that did not convert: its record index in the batch.
pub struct BadValue {
    pub record: usize,
}

/// The field's text with surrounding quotes removed and escapes resolved.
#[inline(always)]
pub fn unquote<'a>(raw: &'a [u8], d: Dialect, scratch: &'a mut Vec<u8>) -> (&'a [u8], bool) {
    let Some(q) = d.quote else {
        return (raw, false);
    };
    if raw.len() < 2 || raw[0] != q || raw[raw.len() - 1] != q {
        return (raw, false);
    }
    let inner = &raw[1..raw.len() - 1];
    let esc = d.escape.unwrap_or(q);
    if memchr::memchr2(q, esc, inner).is_none() {
        return (inner, true);
    }
    scratch.clear();
    let mut i = 0;
    while i < inner.len() {
        let b = inner[i];
        if b == esc && i + 1 < inner.len() && (inner[i + 1] == q || inner[i + 1] == esc) {
            scratch.push(inner[i + 1]);
            i += 2;
        } else {
            scratch.push(b);
            i += 1;
        }
    }
    (scratch.as_slice(), true)
}

/// Parses slot `slot` of every record, or of the records `rows` names (ascending),
/// into a vector; missing fields are NULL. Values that do not convert are NULL and
/// reported in `bad` by their record index. A quoted field is never NULL (as in
/// PostgreSQL), so `""` is the empty string and what COPY TO writes reads back
/// unchanged.
#[allow(clippy::too_many_arguments)]
pub fn convert(
    parser: &Parser,
    bytes: &[u8],
    records: &Records,
    slot: usize,
    rows: Option<&[u32]>,
    d: Dialect,
    nullstr: &[Vec<u8>],
    bad: &mut Vec<BadValue>,
) -> Vector {
    let (column, field) = records.column(slot);
    // A field is present when its position is below the record's field count.
    let span_of = |r: usize| {
        if field < records.field_counts[r] {
            column[r]
        } else {
            Span::MISSING
        }
    };
    match rows {
        None => convert_spans(
            parser,
            bytes,
            records,
            (0..records.len()).map(|r| (r, span_of(r))),
            records.len(),
            d,
            nullstr,
            bad,
        ),
        Some(rows) => convert_spans(
            parser,
            bytes,
            records,
            rows.iter().map(|&r| (r as usize, span_of(r as usize))),
            rows.len(),
            d,
            nullstr,
            bad,
        ),
    }
}

/// [`convert`] over `n` (record, span) pairs.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn convert_spans(
    parser: &Parser,
    bytes: &[u8],
    records: &Records,
    spans: impl Iterator<Item = (usize, Span)> + Clone,
    n: usize,
    d: Dialect,
    nullstr: &[Vec<u8>],
    bad: &mut Vec<BadValue>,
) -> Vector {
    let empty_is_null = nullstr.len() == 1 && nullstr[0].is_empty();
    let is_null = |text: &[u8], quoted: bool| {
        !quoted
            && if empty_is_null {
                text.is_empty()
            } else {
                nullstr.iter().any(|n| n.as_slice() == text)
            }
    };
    let mut validity = Validity::all_valid();
    let mut scratch = Vec::new();
    macro_rules! fixed {
        ($ty:expr, $variant:ident, $default:expr, |$s:ident| $parse:expr) => {{
            let mut out = Vec::with_capacity(n);
            for (r, (record, span)) in spans.enumerate() {
                let v = if span.is_missing() {
                    None
                } else {
                    let raw = bytes.get(span.start..span.end).unwrap_or_default();
                    let (text, quoted) = unquote(raw, d, &mut scratch);
                    if is_null(text, quoted) {
                        None
                    } else {
                        let $s = text;
                        match $parse {
                            Some(v) => Some(v),
                            None => {
                                bad.push(BadValue { record });
                                None
                            }
                        }
                    }
                };
                match v {
                    Some(v) => out.push(v),
                    None => {
                        validity.set_invalid(r, n);
                        out.push($default);
                    }
                }
            }
            Vector::new($ty, VectorData::$variant(out.into()), validity)
        }};
    }
    match parser {
        Parser::Boolean => fixed!(DataType::Boolean, Bool, false, |s| parse_bool(s)),
        Parser::Int(ty) => match ty {
            DataType::TinyInt => fixed!(ty.clone(), I8, 0, |s| parse_i64(s)
                .and_then(|v| i8::try_from(v).ok())),
            DataType::SmallInt => fixed!(ty.clone(), I16, 0, |s| parse_i64(s)
                .and_then(|v| i16::try_from(v).ok())),
            DataType::Integer => fixed!(ty.clone(), I32, 0, |s| parse_i64(s)
                .and_then(|v| i32::try_from(v).ok())),
            DataType::HugeInt => fixed!(DataType::HugeInt, I128, 0, |s| parse_i128(s)),
            // the unsigned types, in their wider storage
            DataType::UTinyInt => fixed!(ty.clone(), I16, 0, |s| parse_i64(s)
                .and_then(|v| u8::try_from(v).ok())
                .map(i16::from)),
            DataType::USmallInt => fixed!(ty.clone(), I32, 0, |s| parse_i64(s)
                .and_then(|v| u16::try_from(v).ok())
                .map(i32::from)),
            DataType::UInteger => fixed!(ty.clone(), I64, 0, |s| parse_i64(s)
                .and_then(|v| u32::try_from(v).ok())
                .map(i64::from)),
            DataType::UBigInt => fixed!(ty.clone(), I128, 0, |s| parse_i128(s)
                .and_then(|v| u64::try_from(v).ok())
                .map(i128::from)),
            _ => fixed!(DataType::BigInt, I64, 0, |s| parse_i64(s)),
        },
        Parser::Time => fixed!(DataType::Time, I64, 0, |s| parse_time_bytes(s)),
        Parser::Uuid => fixed!(DataType::Uuid, I128, 0, |s| std::str::from_utf8(s)
            .ok()
            .and_then(|s| stride_common::uuid::parse(s.trim()))
            .map(stride_common::uuid::to_physical)),
        &Parser::Decimal {
            precision: p,
            scale: sc,
            exact,
        } => {
            let ty = DataType::Decimal(p, sc);
            match (p <= 18, exact) {
                (true, false) => fixed!(ty, I64, 0, |s| parse_decimal_fast(s, p, sc)
                    .map(|v| v as i64)),
                (true, true) => fixed!(ty, I64, 0, |s| parse_decimal_exact(s, p, sc)
                    .map(|v| v as i64)),
                (false, false) => fixed!(ty, I128, 0, |s| parse_decimal_fast(s, p, sc)),
                (false, true) => fixed!(ty, I128, 0, |s| parse_decimal_exact(s, p, sc)),
            }
        }
        Parser::Real => fixed!(DataType::Real, F32, 0.0, |s| parse_f64(s).map(|v| v as f32)),
        Parser::Double => fixed!(DataType::Double, F64, 0.0, |s| parse_f64(s)),
        Parser::Date(fmt) => fixed!(DataType::Date, I32, 0, |s| parse_date_bytes(s, fmt)),
        Parser::Timestamp(fmt) => {
            fixed!(DataType::Timestamp, I64, 0, |s| parse_timestamp_bytes(
                s, fmt
            ))
        }
        Parser::Varchar | Parser::Cast(_) => {
            let mut out = stride_common::string_view::StringVector::with_capacity(n);
            let heap: usize = spans
                .clone()
                .filter(|(_, s)| !s.is_missing() && s.end - s.start > 12)
                .map(|(_, s)| s.end - s.start)
                .sum();
            out.reserve_heap(heap);
            for (r, (record, span)) in spans.enumerate() {
                let text = if span.is_missing() {
                    None
                } else {
                    let (text, quoted) = unquote(&bytes[span.start..span.end], d, &mut scratch);
                    if is_null(text, quoted) {
                        None
                    } else if records.ascii || std::str::from_utf8(text).is_ok() {
                        Some(text)
                    } else {
                        bad.push(BadValue { record });
                        None
                    }
                };
                match text {
                    // SAFETY: ASCII, or checked just above.
                    Some(s) => unsafe { out.push_bytes_unchecked(s) },
                    None => {
                        validity.set_invalid(r, n);
                        out.push("");
                    }
                }
            }
            Vector::new(DataType::Varchar, VectorData::Str(out), validity)
        }
    }
}

fn trim(s: &[u8]) -> &[u8] {
    let a = s
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(s.len());
    let b = s
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(a, |i| i + 1);
    &s[a..b]
}

pub fn parse_bool(s: &[u8]) -> Option<bool> {
    cast::parse_bool(std::str::from_utf8(s).ok()?)
}

#[inline(always)]
pub fn parse_i64(s: &[u8]) -> Option<i64> {
    let (neg, digits) = match s.first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || digits.len() > 19 {
        return parse_i64_slow(s);
    }
    // Nineteen digits always fit a u64.
    let mut v: u64 = 0;
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return parse_i64_slow(s);
        }
        v = v * 10 + d as u64;
    }
    if neg {
        (v <= i64::MIN.unsigned_abs()).then(|| (v as i64).wrapping_neg())
    } else {
        i64::try_from(v).ok()
    }
}

/// Surrounding blanks and leading zeros beyond nineteen digits: the engine's parser.
#[cold]
#[inline(never)]
pub fn parse_i128(s: &[u8]) -> Option<i128> {
    match parse_i64(s) {
        Some(v) => Some(v as i128),
        None => cast::parse_integer(std::str::from_utf8(s).ok()?),
    }
}

/// A TIME as DuckDB reads one (`10:00:00`, `1:02`, `10:00:00.5`).
pub fn parse_time_bytes(s: &[u8]) -> Option<i64> {
    stride_common::temporal::parse_time_of_day(std::str::from_utf8(s).ok()?)
}

fn parse_i64_slow(s: &[u8]) -> Option<i64> {
    i64::try_from(cast::parse_integer(std::str::from_utf8(s).ok()?)?).ok()
}

/// `[-]digits[.digits]` with at most `scale` decimals takes the fast path; anything
/// else (exponents, rounding of extra decimals) goes through the engine's parser.
#[inline(always)]
pub fn parse_decimal_fast(s: &[u8], precision: u8, scale: u8) -> Option<i128> {
    let (neg, body) = match s.first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if !body.is_empty() && body.len() <= 19 {
        let mut v: u64 = 0;
        let mut dot = usize::MAX;
        let mut ok = true;
        for (i, &c) in body.iter().enumerate() {
            let d = c.wrapping_sub(b'0');
            if d <= 9 {
                v = v * 10 + d as u64;
            } else if c == b'.' && dot == usize::MAX {
                dot = i;
            } else {
                ok = false;
                break;
            }
        }
        let frac = if dot == usize::MAX {
            0
        } else {
            body.len() - dot - 1
        };
        if ok && body.len() > (dot != usize::MAX) as usize && frac <= scale as usize {
            let scaled = (v as i128).checked_mul(pow10(scale - frac as u8))?;
            if scaled < pow10(precision) {
                return Some(if neg { -scaled } else { scaled });
            }
            return None;
        }
    }
    parse_decimal_slow(s, precision, scale)
}

/// A plain decimal (sign, digits, at most one point) that `DECIMAL(precision, scale)`
/// holds without rounding: the reading of a detected decimal column.
#[inline(always)]
pub fn parse_decimal_exact(s: &[u8], precision: u8, scale: u8) -> Option<i128> {
    let (int, frac) = decimal_shape(s)?;
    if frac > scale as usize || int + scale as usize > precision as usize {
        return None;
    }
    parse_decimal_fast(s, precision, scale)
}

/// The digits before and after the point of a plain decimal (an optional sign,
/// digits, at most one point, at least one digit; no blanks or exponent), or None.
/// Leading zeros before other digits ("007.5") mark codes, which are no number.
#[inline(always)]
pub fn decimal_shape(s: &[u8]) -> Option<(usize, usize)> {
    let body = match s.first()? {
        b'-' | b'+' => &s[1..],
        _ => s,
    };
    let int = body.iter().take_while(|c| c.is_ascii_digit()).count();
    let rest = &body[int..];
    let frac = match rest.split_first() {
        None => 0,
        Some((b'.', digits)) if digits.iter().all(u8::is_ascii_digit) => digits.len(),
        Some(_) => return None,
    };
    let code = int > 1 && body[0] == b'0';
    (int + frac > 0 && !code).then_some((int, frac))
}

/// Exponents, rounding of extra decimals and other spellings.
#[cold]
#[inline(never)]
fn parse_decimal_slow(s: &[u8], precision: u8, scale: u8) -> Option<i128> {
    parse_decimal(std::str::from_utf8(s).ok()?, precision, scale)
}

pub fn parse_f64(s: &[u8]) -> Option<f64> {
    cast::parse_float::<f64>(std::str::from_utf8(s).ok()?)
}

#[inline(always)]
pub fn parse_date_bytes(s: &[u8], fmt: &Option<Format>) -> Option<i32> {
    if let Some(f) = fmt {
        return parse_date_with_format(s, f);
    }
    if let Ok(b) = <&[u8; 10]>::try_from(s) {
        if b[4] == b'-' && b[7] == b'-' {
            let g = |i: usize| b[i].wrapping_sub(b'0');
            let digits = [g(0), g(1), g(2), g(3), g(5), g(6), g(8), g(9)];
            if digits.iter().all(|&d| d <= 9) {
                let [y0, y1, y2, y3, m0, m1, d0, d1] = digits.map(|d| d as i64);
                return civil_days(
                    y0 * 1000 + y1 * 100 + y2 * 10 + y3,
                    m0 * 10 + m1,
                    d0 * 10 + d1,
                );
            }
            return None;
        }
    }
    parse_date_slow(s)
}

#[cold]
#[inline(never)]
fn parse_date_slow(s: &[u8]) -> Option<i32> {
    parse_date(std::str::from_utf8(s).ok()?)
}

#[inline(never)]
fn parse_date_with_format(s: &[u8], f: &Format) -> Option<i32> {
    let text = std::str::from_utf8(s).ok()?;
    f.parse_timestamp(text)
        .map(|us| us.div_euclid(MICROS_PER_DAY) as i32)
}

const FIRST_TABLE_YEAR: i64 = 1900;

/// Days from 1970-01-01 to January 1st of each year from 1900 to 2155.
const YEAR_START: [i32; 256] = {
    let mut t = [0i32; 256];
    let mut i = 0;
    while i < 256 {
        let y1 = FIRST_TABLE_YEAR + i as i64 - 1;
        t[i] = (y1 * 365 + y1 / 4 - y1 / 100 + y1 / 400 - 719_162) as i32;
        i += 1;
    }
    t
};

/// Days since 1970-01-01 of a date in years 1 to 9999, checking the fields; the
/// same as `make_date` without its general-purpose divisions.
#[inline]
fn civil_days(y: i64, m: i64, d: i64) -> Option<i32> {
    const BEFORE: [i64; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    const LENGTH: [i64; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1..=9999).contains(&y) || !(1..=12).contains(&m) || d < 1 {
        return make_date(y, m, d);
    }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let extra = (m == 2 && leap) as i64;
    if d > LENGTH[m as usize - 1] + extra {
        return None;
    }
    let year_start = match YEAR_START.get((y - FIRST_TABLE_YEAR) as usize) {
        Some(&days) if y >= FIRST_TABLE_YEAR => days as i64,
        _ => {
            let y1 = y - 1;
            y1 * 365 + y1 / 4 - y1 / 100 + y1 / 400 - 719_162
        }
    };
    let days = year_start + BEFORE[m as usize - 1] + (m > 2 && leap) as i64 + d - 1;
    Some(days as i32)
}

pub fn parse_timestamp_bytes(s: &[u8], fmt: &Option<Format>) -> Option<i64> {
    let text = std::str::from_utf8(s).ok()?;
    match fmt {
        Some(f) => f.parse_timestamp(text),
        None => parse_timestamp(text),
    }
}

fn leading_zero(s: &[u8]) -> bool {
    let t = trim(s);
    let digits = t.strip_prefix(b"-").unwrap_or(t);
    digits.len() > 1 && digits[0] == b'0' && digits[1].is_ascii_digit()
}

/// Whether `s` reads as a value of `ty` (the sniffer's test).
pub fn fits(ty: &DataType, s: &[u8], date: &Option<Format>, ts: &Option<Format>) -> bool {
    match ty {
        DataType::Boolean => {
            let t = trim(s);
            t.eq_ignore_ascii_case(b"true") || t.eq_ignore_ascii_case(b"false")
        }
        // Leading zeros ("007") mark codes, which stay text.
        DataType::BigInt => !leading_zero(s) && parse_i64(s).is_some(),
        DataType::HugeInt => !leading_zero(s) && parse_i128(s).is_some(),
        // At least hours and minutes with their colon, and nothing else: "10:00",
        // "23:59:59.5" (not a date, not "10" alone).
        DataType::Time => {
            let t = trim(s);
            t.len() >= 4
                && t.len() <= 18
                && t.contains(&b':')
                && t.iter()
                    .all(|c| c.is_ascii_digit() || matches!(c, b':' | b'.'))
                && parse_time_bytes(t).is_some()
        }
        DataType::Decimal(p, sc) => decimal_shape(s)
            .is_some_and(|(int, frac)| frac <= *sc as usize && int + *sc as usize <= *p as usize),
        DataType::Double => {
            !leading_zero(s) && parse_f64(s).is_some() && trim(s).iter().any(u8::is_ascii_digit)
        }
        DataType::Date => {
            if date.is_none() && !(s.len() >= 8 && s.len() <= 11) {
                return false;
            }
            parse_date_bytes(s, date).is_some()
        }
        DataType::Timestamp => {
            if ts.is_none() && s.len() < 12 {
                return false;
            }
            parse_timestamp_bytes(s, ts).is_some()
        }
        // a timestamp with an offset or zone (a plain one is a TIMESTAMP first)
        DataType::TimestampTz => {
            ts.is_none()
                && s.len() >= 12
                && std::str::from_utf8(s).is_ok_and(|t| {
                    let t = t.trim();
                    t.contains(':')
                        && matches!(
                            stride_functions::timezone::parse(t, &Default::default()),
                            Ok(Some(_))
                        )
                })
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(parse_i64(b"-42"), Some(-42));
        assert_eq!(parse_i64(b" 7 "), Some(7));
        assert_eq!(parse_i64(b"9223372036854775808"), None);
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_i64(b"1.5"), None);
        assert_eq!(parse_i64(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_i64(b"00000000000000000000042"), Some(42));
        assert_eq!(parse_i64(b"-"), None);
        assert_eq!(parse_i64(b""), None);
        assert_eq!(parse_decimal_fast(b"17.00", 15, 2), Some(1700));
        assert_eq!(parse_decimal_fast(b"-0.5", 15, 2), Some(-50));
        assert_eq!(parse_decimal_fast(b"1e2", 15, 2), Some(10000));
        assert_eq!(parse_decimal_fast(b"12345", 4, 0), None);
        assert_eq!(parse_decimal_fast(b"abc", 15, 2), None);
        assert_eq!(parse_decimal_fast(b".", 15, 2), None);
        assert_eq!(parse_decimal_fast(b"5.", 15, 2), Some(500));
        assert_eq!(
            parse_decimal_fast(b"9999999999999999999", 38, 0),
            Some(9999999999999999999)
        );
        assert_eq!(parse_decimal_fast(b"1.234", 15, 2), Some(123));
        // Nineteen digits at scale 30 overflow i128 before the precision check.
        assert_eq!(parse_decimal_fast(b"9999999999999999999", 38, 30), None);
        assert_eq!(parse_f64(b"2.5e3"), Some(2500.0));
    }

    #[test]
    fn dates_and_quotes() {
        assert_eq!(parse_date_bytes(b"1970-01-02", &None), Some(1));
        assert_eq!(parse_date_bytes(b"1970-02-30", &None), None);
        for (y, m, d) in [
            (1, 1, 1),
            (1899, 12, 31),
            (1900, 2, 28),
            (1970, 1, 1),
            (2000, 2, 29),
            (2024, 12, 31),
            (2155, 12, 31),
            (2156, 3, 1),
            (9999, 12, 31),
        ] {
            assert_eq!(civil_days(y, m, d), make_date(y, m, d), "{y}-{m}-{d}");
        }
        assert_eq!(civil_days(1900, 2, 29), None);
        let d = Dialect::default();
        let mut s = Vec::new();
        assert_eq!(unquote(b"\"a\"\"b\"", d, &mut s).0, b"a\"b");
        let mut s = Vec::new();
        assert_eq!(unquote(b"plain", d, &mut s).0, b"plain");
        assert!(fits(&DataType::BigInt, b"12", &None, &None));
        assert!(!fits(&DataType::Double, b"007", &None, &None));
        assert!(fits(&DataType::Date, b"2024-02-29", &None, &None));
    }
}
