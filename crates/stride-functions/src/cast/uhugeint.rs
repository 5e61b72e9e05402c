//! Casts between UHUGEINT and BOOLEAN, the other integers, DECIMAL and the floats.
//! A UHUGEINT is stored with its top bit flipped ([`stride_common::flip128`]), so
//! unlike the other integers its stored value is not its value: each cast reads the
//! value first. Out-of-range values are errors naming both types (or NULL under
//! TRY_CAST); floats round to the nearest integer, ties to even, as for the others.

use super::decimal::{decimal_to_string, fits_precision, pow10, rescale};
use super::numeric::is_numeric_or_bool;
use super::out_of_range;
use crate::kernels::{try_unary_or_null, unary, with_integer, SqlFloat, SqlInt};
use stride_common::flip128::{from_physical, to_physical};
use stride_common::{DataType, Error, PhysicalType, Result, Vector};

/// 2^128 as a float: the first value too large for a UHUGEINT.
const TWO_POW_128: f64 = 340282366920938463463374607431768211456.0;

pub(super) fn castable(from: &DataType, to: &DataType) -> bool {
    match (from, to) {
        (DataType::UHugeInt, t) | (t, DataType::UHugeInt) => is_numeric_or_bool(t),
        _ => false,
    }
}

pub(super) fn cast(v: &Vector, len: usize, to: &DataType, try_cast: bool) -> Result<Vector> {
    let internal = || Error::internal(format!("UHUGEINT cast {} -> {to}", v.ty));
    if v.ty == DataType::UHugeInt {
        let value = |x: i128| from_physical(x);
        let err = |x: i128| out_of_range(&v.ty, value(x), to);
        return match to {
            DataType::Boolean => Ok(unary(v, len, to.clone(), |x: i128| value(x) != 0)),
            DataType::Real => Ok(unary(v, len, to.clone(), |x: i128| value(x) as f32)),
            DataType::Double => Ok(unary(v, len, to.clone(), |x: i128| value(x) as f64)),
            DataType::Decimal(p, s) => {
                let (p, k) = (*p, pow10(*s));
                let convert = |x: i128| {
                    let r = i128::try_from(value(x)).ok()?.checked_mul(k)?;
                    fits_precision(r, p).then_some(r)
                };
                with_integer!(to.physical(), O => try_unary_or_null(v, len, to.clone(), try_cast,
                    |x: i128| O::from_i128(convert(x)?), err), _ => Err(internal()))
            }
            _ => {
                let (lo, hi) = to.integer_range().ok_or_else(internal)?;
                let convert = |x: i128| {
                    let r = i128::try_from(value(x)).ok()?;
                    (lo..=hi).contains(&r).then_some(r)
                };
                with_integer!(to.physical(), O => try_unary_or_null(v, len, to.clone(), try_cast,
                    |x: i128| O::from_i128(convert(x)?), err), _ => Err(internal()))
            }
        };
    }
    let from = &v.ty;
    match from.physical() {
        PhysicalType::Bool => Ok(unary(v, len, to.clone(), |b: bool| to_physical(b as u128))),
        PhysicalType::F32 => from_float::<f32>(v, len, try_cast),
        PhysicalType::F64 => from_float::<f64>(v, len, try_cast),
        p => {
            let scale = match from {
                DataType::Decimal(_, s) => *s,
                _ => 0,
            };
            with_integer!(p, I => try_unary_or_null(v, len, to.clone(), try_cast,
                |x: I| {
                    let r = rescale(x.to_i128(), scale, 0)?;
                    (r >= 0).then(|| to_physical(r as u128))
                },
                |x: I| out_of_range(from, decimal_to_string(x.to_i128(), scale), to)),
                _ => Err(internal()))
        }
    }
}

fn from_float<F: SqlFloat>(v: &Vector, len: usize, try_cast: bool) -> Result<Vector> {
    let convert = |x: F| {
        let r = x.to_f64().round_ties_even();
        // the range test also rejects NaN
        (0.0..TWO_POW_128)
            .contains(&r)
            .then(|| to_physical(r as u128))
    };
    let err = |x: F| out_of_range(&v.ty, x.display(), &DataType::UHugeInt);
    try_unary_or_null(v, len, DataType::UHugeInt, try_cast, convert, err)
}

/// A UHUGEINT's text: digits with an optional `+` (or a `-` before zeros only),
/// surrounding blanks ignored; `None` when it is not one or exceeds 2^128 - 1.
pub fn parse(s: &str) -> Option<u128> {
    let b = s.trim().as_bytes();
    let (negative, digits) = match b.first()? {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: u128 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((c - b'0') as u128)?;
    }
    (!negative || v == 0).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_whole_range() {
        assert_eq!(parse(" 12 "), Some(12));
        assert_eq!(parse("-0"), Some(0));
        assert_eq!(parse("-1"), None);
        assert_eq!(
            parse("340282366920938463463374607431768211455"),
            Some(u128::MAX)
        );
        assert_eq!(parse("340282366920938463463374607431768211456"), None);
        assert_eq!(parse("1e3"), None);
    }
}
