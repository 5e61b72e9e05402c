//! Casts among BOOLEAN, the integers, DECIMAL, REAL and DOUBLE. Integers and decimals
//! share one path: both are scaled integers (an integer has scale 0), so every such
//! cast is "rescale, then check the target's range" and stays exact. Floats round to
//! the nearest integer (ties to even, like PostgreSQL's rint) when going to integers,
//! and half away from zero on their decimal representation when going to DECIMAL.

use super::decimal::{
    decimal_to_f64, decimal_to_string, f64_to_decimal, fits_precision, pow10, rescale,
};
use super::out_of_range;
use crate::kernels::{try_unary_or_null, unary, with_integer, SqlFloat, SqlInt};
use stride_common::{DataType, Error, PhysicalType, Result, Vector};

pub(super) fn is_numeric_or_bool(t: &DataType) -> bool {
    t.is_numeric() || *t == DataType::Boolean
}

fn is_int_like(t: &DataType) -> bool {
    t.is_integer() || matches!(t, DataType::Decimal(..))
}

fn scale_of(t: &DataType) -> u8 {
    match t {
        DataType::Decimal(_, s) => *s,
        _ => 0,
    }
}

fn decimal_precision(t: &DataType) -> Option<u8> {
    match t {
        DataType::Decimal(p, _) => Some(*p),
        _ => None,
    }
}

pub(super) fn cast(v: &Vector, len: usize, to: &DataType, try_cast: bool) -> Result<Vector> {
    let from = &v.ty;
    if *from == DataType::Boolean {
        // through TINYINT: every numeric type holds 0 and 1
        let as_int = unary(v, len, DataType::TinyInt, |b: bool| b as i8);
        return cast(&as_int, len, to, try_cast);
    }
    if *to == DataType::Boolean {
        return Ok(to_bool(v, len));
    }
    if holds_as_is(from, to) {
        // The stored integers are the target's: share them, relabelled.
        let mut out = if v.constant {
            v.clone()
        } else {
            v.slice(0, len)
        };
        out.ty = to.clone();
        return Ok(out);
    }
    let internal = || Error::internal(format!("numeric cast {from} -> {to}"));
    match (from.physical(), to.physical()) {
        (_, _) if is_int_like(from) && is_int_like(to) => {
            with_integer!(from.physical(), I => with_integer!(to.physical(), O => {
                int_to_int::<I, O>(v, len, to, try_cast)
            }, _ => Err(internal())), _ => Err(internal()))
        }
        (_, PhysicalType::F32) if is_int_like(from) => {
            with_integer!(from.physical(), I => Ok(int_to_float::<I, f32>(v, len, to)), _ => Err(internal()))
        }
        (_, PhysicalType::F64) if is_int_like(from) => {
            with_integer!(from.physical(), I => Ok(int_to_float::<I, f64>(v, len, to)), _ => Err(internal()))
        }
        (PhysicalType::F32, _) if is_int_like(to) => {
            with_integer!(to.physical(), O => float_to_int::<f32, O>(v, len, to, try_cast), _ => Err(internal()))
        }
        (PhysicalType::F64, _) if is_int_like(to) => {
            with_integer!(to.physical(), O => float_to_int::<f64, O>(v, len, to, try_cast), _ => Err(internal()))
        }
        (PhysicalType::F32, PhysicalType::F64) => Ok(unary(v, len, to.clone(), |x: f32| x as f64)),
        (PhysicalType::F64, PhysicalType::F32) => {
            let from = from.clone();
            try_unary_or_null(
                v,
                len,
                to.clone(),
                try_cast,
                |x: f64| {
                    let r = x as f32;
                    (r.is_finite() || !x.is_finite()).then_some(r)
                },
                |x| out_of_range(&from, SqlFloat::display(x), to),
            )
        }
        _ => Err(internal()),
    }
}

/// Whether every value of `from` is, stored as is, a value of `to`: a DECIMAL to one
/// of the same scale, storage and at least its precision (the casts the binder puts
/// on the operands of decimal arithmetic).
fn holds_as_is(from: &DataType, to: &DataType) -> bool {
    match (from, to) {
        (DataType::Decimal(p1, s1), DataType::Decimal(p2, s2)) => {
            s1 == s2 && p1 <= p2 && from.physical() == to.physical()
        }
        _ => false,
    }
}

/// Scaled integer -> scaled integer: rescale with rounding, then range-check against
/// the target's precision (DECIMAL) or storage (integers).
fn int_to_int<I: SqlInt, O: SqlInt>(
    v: &Vector,
    len: usize,
    to: &DataType,
    try_cast: bool,
) -> Result<Vector> {
    let from = &v.ty;
    let (fs, ts) = (scale_of(from), scale_of(to));
    let precision = decimal_precision(to);
    let err = |x: I| out_of_range(from, decimal_to_string(x.to_i128(), fs), to);
    if to.is_unsigned() {
        // stored wider than its range: check the range itself
        let (lo, hi) = to.integer_range().expect("an integer type");
        let convert = |x: I| {
            let r = rescale(x.to_i128(), fs, 0)?;
            if r < lo || r > hi {
                return None;
            }
            O::from_i128(r)
        };
        return try_unary_or_null(v, len, to.clone(), try_cast, convert, err);
    }
    if fs == ts && precision.is_none() {
        return try_unary_or_null(
            v,
            len,
            to.clone(),
            try_cast,
            |x: I| O::from_i128(x.to_i128()),
            err,
        );
    }
    // Widening (no fewer integer or fractional digits, as DECIMAL(15,2) to
    // DECIMAL(19,2) for arithmetic): every value fits, so no checked multiply. Not
    // from HUGEINT: its values have up to 39 digits, one more than the DECIMAL(38,0)
    // it counts as in arithmetic.
    let widening = match (from.decimal_properties(), to.decimal_properties()) {
        _ if *from == DataType::HugeInt => false,
        (Some((fp, _)), Some((tp, _))) => ts >= fs && tp - ts >= fp - fs,
        _ => false,
    };
    if widening {
        let k = pow10(ts - fs);
        return try_unary_or_null(
            v,
            len,
            to.clone(),
            try_cast,
            |x: I| O::from_i128(x.to_i128() * k),
            err,
        );
    }
    let convert = |x: I| {
        let r = rescale(x.to_i128(), fs, ts)?;
        if let Some(p) = precision {
            if !fits_precision(r, p) {
                return None;
            }
        }
        O::from_i128(r)
    };
    try_unary_or_null(v, len, to.clone(), try_cast, convert, err)
}

fn int_to_float<I: SqlInt, F: SqlFloat>(v: &Vector, len: usize, to: &DataType) -> Vector {
    let fs = scale_of(&v.ty);
    if fs == 0 {
        unary(v, len, to.clone(), |x: I| F::from_f64(x.to_f64()))
    } else {
        unary(v, len, to.clone(), |x: I| {
            F::from_f64(decimal_to_f64(x.to_i128(), fs))
        })
    }
}

fn float_to_int<F: SqlFloat, O: SqlInt>(
    v: &Vector,
    len: usize,
    to: &DataType,
    try_cast: bool,
) -> Result<Vector> {
    let from = &v.ty;
    let err = |x: F| out_of_range(from, x.display(), to);
    match to {
        DataType::Decimal(p, s) => {
            let (p, s) = (*p, *s);
            let convert = |x: F| O::from_i128(f64_to_decimal(x.to_f64(), p, s)?);
            try_unary_or_null(v, len, to.clone(), try_cast, convert, err)
        }
        _ => {
            let (lo, hi) = to.integer_range().unwrap_or((i128::MIN, i128::MAX));
            let convert = |x: F| {
                let r = x.to_f64().round_ties_even();
                // the range test also rejects NaN
                if (-1.7e38..=1.7e38).contains(&r) && (lo..=hi).contains(&(r as i128)) {
                    O::from_i128(r as i128)
                } else {
                    None
                }
            };
            try_unary_or_null(v, len, to.clone(), try_cast, convert, err)
        }
    }
}

fn to_bool(v: &Vector, len: usize) -> Vector {
    let ty = DataType::Boolean;
    match v.ty.physical() {
        PhysicalType::F32 => unary(v, len, ty, |x: f32| x != 0.0),
        PhysicalType::F64 => unary(v, len, ty, |x: f64| x != 0.0),
        p => with_integer!(p, I => unary(v, len, ty, |x: I| x != I::ZERO),
            _ => unreachable!("numeric type with physical {p:?}")),
    }
}
