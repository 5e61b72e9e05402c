//! Checked integer arithmetic over one integer width: overflow is an Out of Range
//! error naming the operation and operands, `/` truncates toward zero and `%` takes
//! the dividend's sign (PostgreSQL); a zero divisor is a division-by-zero error.
//! An unsigned type is computed in its wider storage and its results checked against
//! its own range, so `1::UTINYINT - 2::UTINYINT` overflows as in DuckDB. A UHUGEINT
//! has no wider storage: it is computed in `u128` from its flipped stored form
//! ([`stride_common::flip128`]).

use super::ScalarFunction;
use crate::kernels::{try_binary, SqlInt};
use stride_common::flip128::{from_physical as value, to_physical as stored};
use stride_common::{DataType, Error, Result, Vector};

pub(super) fn overflow<T: SqlInt>(what: &str, name: &str, x: T, sym: &str, y: T) -> Error {
    Error::out_of_range(format!("Overflow in {what} of {name} ({x} {sym} {y})"))
}

/// `op` over two integers of the return type `ty`, stored as `T`. An unsigned type
/// is stored wider than its range, so its results are checked against the range.
pub(super) fn evaluate<T: SqlInt>(
    op: ScalarFunction,
    a: &Vector,
    b: &Vector,
    len: usize,
    ty: DataType,
) -> Result<Vector> {
    let name = ty.physical_integer_name().unwrap_or(T::NAME);
    match ty.integer_range().filter(|_| ty.is_unsigned()) {
        Some((lo, hi)) => {
            let (lo, hi) = (T::from_i128(lo), T::from_i128(hi));
            let (lo, hi) = lo
                .zip(hi)
                .ok_or_else(|| Error::internal("unsigned storage"))?;
            evaluate_within(op, a, b, len, ty, name, move |r: T| r >= lo && r <= hi)
        }
        None => evaluate_within(op, a, b, len, ty, name, |_: T| true),
    }
}

fn evaluate_within<T: SqlInt>(
    op: ScalarFunction,
    a: &Vector,
    b: &Vector,
    len: usize,
    ty: DataType,
    name: &str,
    fits: impl Fn(T) -> bool + Copy,
) -> Result<Vector> {
    let checked = |r: Option<T>| r.filter(|r| fits(*r));
    match op {
        ScalarFunction::Add => try_binary(
            a,
            b,
            len,
            ty,
            |x, y| checked(T::checked_add(x, y)),
            |x, y| overflow("addition", name, x, "+", y),
        ),
        ScalarFunction::Subtract => try_binary(
            a,
            b,
            len,
            ty,
            |x, y| checked(T::checked_sub(x, y)),
            |x, y| overflow("subtraction", name, x, "-", y),
        ),
        ScalarFunction::Multiply => try_binary(
            a,
            b,
            len,
            ty,
            |x, y| checked(T::checked_mul(x, y)),
            |x, y| overflow("multiplication", name, x, "*", y),
        ),
        // the quotient and remainder of values in range are in range
        ScalarFunction::Divide => try_binary(a, b, len, ty, T::checked_div, |x, y: T| {
            if y == T::ZERO {
                Error::division_by_zero()
            } else {
                overflow("division", name, x, "/", y)
            }
        }),
        ScalarFunction::Modulo => try_binary(a, b, len, ty, T::checked_rem, |_, _| {
            Error::division_by_zero()
        }),
        other => Err(Error::internal(format!(
            "{other:?} is not integer arithmetic"
        ))),
    }
}

/// `op` over two UHUGEINTs: the values are read from their stored form, computed
/// checked in `u128` and stored back.
pub(super) fn evaluate_uhugeint(
    op: ScalarFunction,
    a: &Vector,
    b: &Vector,
    len: usize,
) -> Result<Vector> {
    let ty = DataType::UHugeInt;
    let overflow = |what: &'static str, sym: &'static str| {
        move |x: i128, y: i128| {
            Error::out_of_range(format!(
                "Overflow in {what} of UINT128 ({} {sym} {})",
                value(x),
                value(y)
            ))
        }
    };
    let apply = |f: fn(u128, u128) -> Option<u128>| {
        move |x: i128, y: i128| f(value(x), value(y)).map(stored)
    };
    match op {
        ScalarFunction::Add => try_binary(
            a,
            b,
            len,
            ty,
            apply(u128::checked_add),
            overflow("addition", "+"),
        ),
        ScalarFunction::Subtract => try_binary(
            a,
            b,
            len,
            ty,
            apply(u128::checked_sub),
            overflow("subtraction", "-"),
        ),
        ScalarFunction::Multiply => try_binary(
            a,
            b,
            len,
            ty,
            apply(u128::checked_mul),
            overflow("multiplication", "*"),
        ),
        ScalarFunction::Divide => try_binary(a, b, len, ty, apply(u128::checked_div), |_, _| {
            Error::division_by_zero()
        }),
        ScalarFunction::Modulo => try_binary(a, b, len, ty, apply(u128::checked_rem), |_, _| {
            Error::division_by_zero()
        }),
        other => Err(Error::internal(format!(
            "{other:?} is not integer arithmetic"
        ))),
    }
}
