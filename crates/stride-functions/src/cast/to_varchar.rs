//! Casts to VARCHAR, printing each type exactly as stride displays it (the formats of
//! stride-common's `Display` impls): decimals with their full scale ("1.50"),
//! doubles as shortest round-trip text, dates as ISO text. Values are written into one
//! reused buffer, so the hot types allocate nothing per row.

use super::decimal::write_decimal;
use crate::kernels::{make_string_vector, with_integer};
use std::fmt::Write;
use stride_common::interval::MICROS_PER_DAY;
use stride_common::scalar::{format_f32, format_f64};
use stride_common::vector::NativeType;
use stride_common::{temporal, DataType, Interval, Result, StringVector, Vector};

pub(super) fn cast(v: &Vector, len: usize) -> Result<Vector> {
    Ok(match &v.ty {
        DataType::Boolean => each(v, len, |b: bool, out| {
            out.push_str(if b { "true" } else { "false" })
        }),
        DataType::Decimal(_, s) => {
            let s = *s;
            with_integer!(v.ty.physical(), I => each(v, len, |x: I, out| {
                write_decimal(out, crate::kernels::SqlInt::to_i128(x), s)
            }), _ => unreachable!("decimal storage is an integer"))
        }
        DataType::TinyInt
        | DataType::SmallInt
        | DataType::Integer
        | DataType::BigInt
        | DataType::HugeInt
        | DataType::UTinyInt
        | DataType::USmallInt
        | DataType::UInteger
        | DataType::UBigInt => {
            with_integer!(v.ty.physical(), I => each(v, len, |x: I, out| {
                let _ = write!(out, "{x}");
            }), _ => unreachable!("integer storage"))
        }
        DataType::Real => each(v, len, |x: f32, out| out.push_str(&format_f32(x))),
        DataType::Double => each(v, len, |x: f64, out| out.push_str(&format_f64(x))),
        DataType::Date => each(v, len, |d: i32, out| write_date(out, d)),
        DataType::Timestamp => each(v, len, |t: i64, out| write_timestamp(out, t)),
        DataType::TimestampUnit(u) => {
            let u = *u;
            each(v, len, |t: i64, out| {
                stride_common::time_unit::write(out, t, u)
            })
        }
        DataType::TimestampTz => {
            let zone = stride_common::zone::current();
            each(v, len, |t: i64, out| match zone.local_of(t) {
                Some(_) if !temporal::is_finite_timestamp(t) => write_timestamp(out, t),
                Some(local) => {
                    write_timestamp(out, local);
                    stride_common::zone::write_offset(out, zone.offset_at(t));
                }
                None => out.push_str(&stride_common::zone::format_in(&zone, t)),
            })
        }
        DataType::Time => each(v, len, |t: i64, out| temporal::write_time(out, t)),
        DataType::TimeTz => each(v, len, |t: i64, out| stride_common::time_tz::write(out, t)),
        DataType::UHugeInt => each(v, len, |x: i128, out| {
            let _ = write!(out, "{}", stride_common::flip128::from_physical(x));
        }),
        DataType::Uuid => each(v, len, |u: i128, out| {
            stride_common::uuid::write(out, stride_common::uuid::from_physical(u))
        }),
        DataType::Interval => each(v, len, |iv: Interval, out| {
            let _ = write!(out, "{iv}");
        }),
        DataType::Blob | DataType::Bit => {
            let rows = if v.constant { 1 } else { len };
            let (strings, mut out) = (v.strings(), StringVector::with_capacity(rows));
            let mut buf = String::new();
            let write = match v.ty {
                DataType::Bit => stride_common::bit::write_text,
                _ => stride_common::blob::format_escaped,
            };
            for i in 0..rows {
                buf.clear();
                if v.validity.is_valid(i) {
                    write(strings.get_bytes(i), &mut buf);
                }
                out.push(&buf);
            }
            make_string_vector(out, v.validity.clone(), v.constant)
        }
        DataType::Json => {
            let mut out = v.clone();
            out.ty = DataType::Varchar;
            out
        }
        DataType::Enum(e) => super::enums::to_text(v, len, e)?,
        DataType::List(_)
        | DataType::Struct(_)
        | DataType::Union(_)
        | DataType::Map(..)
        | DataType::Array(..)
        | DataType::Null
        | DataType::Varchar => slow(v, len),
    })
}

/// Formats every valid row with `f`; NULL rows stay NULL.
fn each<T: NativeType>(v: &Vector, len: usize, mut f: impl FnMut(T, &mut String)) -> Vector {
    let rows = if v.constant { 1 } else { len };
    let vals = v.values::<T>();
    let mut out = StringVector::with_capacity(rows);
    let mut buf = String::with_capacity(32);
    for (i, &x) in vals[..rows].iter().enumerate() {
        if v.validity.is_valid(i) {
            buf.clear();
            f(x, &mut buf);
            out.push(&buf);
        } else {
            out.push("");
        }
    }
    make_string_vector(out, v.validity.clone(), v.constant)
}

/// Through `ScalarValue`'s Display: lists are rare enough not to need a fast path.
fn slow(v: &Vector, len: usize) -> Vector {
    let rows = if v.constant { 1 } else { len };
    let mut out = StringVector::with_capacity(rows);
    for i in 0..rows {
        out.push(&v.get(i).to_string());
    }
    make_string_vector(out, v.validity.clone(), v.constant)
}

/// Appends a date as `YYYY-MM-DD` (stride-common's format, BC and infinite dates
/// included).
pub(crate) fn write_date(out: &mut String, days: i32) {
    temporal::write_date(out, days)
}

/// Appends a timestamp as `YYYY-MM-DD HH:MM:SS[.ffffff]`, trailing zeros of the
/// fraction dropped; the infinite ones as their names.
pub(crate) fn write_timestamp(out: &mut String, micros: i64) {
    if !temporal::is_finite_timestamp(micros) {
        out.push_str(&temporal::format_timestamp(micros));
        return;
    }
    let days = micros.div_euclid(MICROS_PER_DAY);
    let rem = micros.rem_euclid(MICROS_PER_DAY);
    write_date(out, days as i32);
    let secs = rem / 1_000_000;
    let frac = rem % 1_000_000;
    let _ = write!(
        out,
        " {:02}:{:02}:{:02}",
        secs / 3600,
        (secs / 60) % 60,
        secs % 60
    );
    if frac != 0 {
        let mut digits = frac;
        let mut width = 6;
        while digits % 10 == 0 {
            digits /= 10;
            width -= 1;
        }
        let _ = write!(out, ".{digits:0width$}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_match_common_format() {
        for t in [
            0i64,
            -1,
            694_321_445_500_000,
            1_000,
            123_456,
            -86_400_000_001,
        ] {
            let mut s = String::new();
            write_timestamp(&mut s, t);
            assert_eq!(s, temporal::format_timestamp(t));
        }
        let mut s = String::new();
        write_date(&mut s, -800_000);
        assert_eq!(s, temporal::format_date(-800_000));
    }
}
