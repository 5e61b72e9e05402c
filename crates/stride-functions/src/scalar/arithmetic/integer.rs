//! Checked integer arithmetic over one integer width: overflow is an Out of Range
//! error naming the operation and operands, `/` truncates toward zero and `%` takes
//! the dividend's sign (PostgreSQL); a zero divisor is a division-by-zero error.

use super::ScalarFunction;
use crate::kernels::{try_binary, SqlInt};
use stride_common::{DataType, Error, Result, Vector};

pub(super) fn overflow<T: SqlInt>(what: &str, x: T, sym: &str, y: T) -> Error {
    Error::out_of_range(format!("Overflow in {what} of {} ({x} {sym} {y})", T::NAME))
}

pub(super) fn evaluate<T: SqlInt>(
    op: ScalarFunction,
    a: &Vector,
    b: &Vector,
    len: usize,
    ty: DataType,
) -> Result<Vector> {
    match op {
        ScalarFunction::Add => try_binary(a, b, len, ty, T::checked_add, |x, y| {
            overflow("addition", x, "+", y)
        }),
        ScalarFunction::Subtract => try_binary(a, b, len, ty, T::checked_sub, |x, y| {
            overflow("subtraction", x, "-", y)
        }),
        ScalarFunction::Multiply => try_binary(a, b, len, ty, T::checked_mul, |x, y| {
            overflow("multiplication", x, "*", y)
        }),
        ScalarFunction::Divide => try_binary(a, b, len, ty, T::checked_div, |x, y: T| {
            if y == T::ZERO {
                Error::division_by_zero()
            } else {
                overflow("division", x, "/", y)
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
