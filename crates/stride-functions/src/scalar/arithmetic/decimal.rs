//! Exact DECIMAL arithmetic on scaled integers (i64 storage up to precision 18,
//! i128 above). + - and % see both operands at the result's type (the binder cast
//! them to one scale); * multiplies operands of their own scales, adding the scales.
//! A result needing more digits than the result precision is an Out of Range error.

use super::ScalarFunction;
use crate::cast::decimal::{decimal_to_string, pow10};
use crate::kernels::{try_binary, SqlInt};
use crate::scalar::BoundFunction;
use stride_common::{DataType, Error, PhysicalType, Result, Vector};

/// Runs `$body` with `$T` bound to the storage type of a DECIMAL physical type.
macro_rules! with_decimal {
    ($phys:expr, $T:ident => $body:expr) => {
        match $phys {
            PhysicalType::I64 => {
                type $T = i64;
                $body
            }
            PhysicalType::I128 => {
                type $T = i128;
                $body
            }
            other => Err(Error::internal(format!("decimal stored as {other:?}"))),
        }
    };
}

fn overflow(what: &str, x: i128, xs: u8, sym: &str, y: i128, ys: u8, ty: &DataType) -> Error {
    Error::out_of_range(format!(
        "Overflow in {what} of {ty} ({} {sym} {})",
        decimal_to_string(x, xs),
        decimal_to_string(y, ys)
    ))
}

fn decimal_props(t: &DataType) -> Result<(u8, u8)> {
    t.decimal_properties()
        .ok_or_else(|| Error::internal(format!("decimal arithmetic over {t}")))
}

pub(super) fn evaluate(f: &BoundFunction, a: &Vector, b: &Vector, len: usize) -> Result<Vector> {
    let ty = f.return_type.clone();
    let (p, s) = decimal_props(&ty)?;
    if f.func == ScalarFunction::Multiply {
        let (_, sa) = decimal_props(&f.arg_types[0])?;
        let (_, sb) = decimal_props(&f.arg_types[1])?;
        if [a.ty.physical(), b.ty.physical(), ty.physical()] == [PhysicalType::I64; 3] {
            return multiply_i64(a, b, len, &ty, p, sa, sb);
        }
        return with_decimal!(a.ty.physical(), A => with_decimal!(b.ty.physical(), B => {
            with_decimal!(ty.physical(), O => multiply::<A, B, O>(a, b, len, &ty, p, sa, sb))
        }));
    }
    with_decimal!(a.ty.physical(), T => same_scale::<T>(f.func, a, b, len, &ty, p, s))
}

fn same_scale<T: SqlInt>(
    op: ScalarFunction,
    a: &Vector,
    b: &Vector,
    len: usize,
    ty: &DataType,
    p: u8,
    s: u8,
) -> Result<Vector> {
    let limit = pow10(p).unsigned_abs();
    let fits = move |r: T| r.to_i128().unsigned_abs() < limit;
    let err = |what: &'static str, sym: &'static str| {
        move |x: T, y: T| overflow(what, x.to_i128(), s, sym, y.to_i128(), s, ty)
    };
    let out = ty.clone();
    match op {
        ScalarFunction::Add => try_binary(
            a,
            b,
            len,
            out,
            |x: T, y: T| x.checked_add(y).filter(|r| fits(*r)),
            err("addition", "+"),
        ),
        ScalarFunction::Subtract => try_binary(
            a,
            b,
            len,
            out,
            |x: T, y: T| x.checked_sub(y).filter(|r| fits(*r)),
            err("subtraction", "-"),
        ),
        ScalarFunction::Modulo => try_binary(
            a,
            b,
            len,
            out,
            |x: T, y: T| x.checked_rem(y),
            |_, _| Error::division_by_zero(),
        ),
        other => Err(Error::internal(format!(
            "{other:?} is not decimal arithmetic"
        ))),
    }
}

/// `multiply` for operands and a result all stored in 64 bits (precision up to 18, as
/// `price * (1 - discount)`): a 64-bit checked multiply instead of 128-bit arithmetic.
fn multiply_i64(
    a: &Vector,
    b: &Vector,
    len: usize,
    ty: &DataType,
    p: u8,
    sa: u8,
    sb: u8,
) -> Result<Vector> {
    let limit = pow10(p).unsigned_abs() as u64;
    try_binary(
        a,
        b,
        len,
        ty.clone(),
        |x: i64, y: i64| x.checked_mul(y).filter(|r| r.unsigned_abs() < limit),
        |x: i64, y: i64| multiply_overflow(x.into(), sa, y.into(), sb, ty, p),
    )
}

fn multiply<A: SqlInt, B: SqlInt, O: SqlInt>(
    a: &Vector,
    b: &Vector,
    len: usize,
    ty: &DataType,
    p: u8,
    sa: u8,
    sb: u8,
) -> Result<Vector> {
    let limit = pow10(p).unsigned_abs();
    // Two operands that fit 64 bits cannot overflow 128 bits: the checked multiply
    // (a call into the runtime library for i128) is only for wider ones.
    let fits_i64 = |v: i128| v as i64 as i128 == v;
    try_binary(
        a,
        b,
        len,
        ty.clone(),
        |x: A, y: B| {
            let (x, y) = (x.to_i128(), y.to_i128());
            let r = if fits_i64(x) && fits_i64(y) {
                x * y
            } else {
                x.checked_mul(y)?
            };
            if r.unsigned_abs() < limit {
                O::from_i128(r)
            } else {
                None
            }
        },
        |x: A, y: B| multiply_overflow(x.to_i128(), sa, y.to_i128(), sb, ty, p),
    )
}

/// The error of a product that needs more than precision `p`, with the way out when
/// a wider DECIMAL exists.
fn multiply_overflow(x: i128, sa: u8, y: i128, sb: u8, ty: &DataType, p: u8) -> Error {
    let mut e = overflow("multiplication", x, sa, "*", y, sb, ty);
    if p < 38 {
        e.message += "; cast an operand to a wider DECIMAL, such as DECIMAL(38, its scale)";
    }
    e
}
