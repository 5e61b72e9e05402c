//! REAL and DOUBLE arithmetic. Like PostgreSQL and DuckDB, a finite computation that
//! overflows to infinity is an Out of Range error, and dividing by zero is an error
//! rather than infinity; NaN and infinite inputs propagate as IEEE says.

use super::ScalarFunction;
use crate::kernels::{try_binary, SqlFloat};
use stride_common::{DataType, Error, Result, Vector};

#[inline]
fn finite_or_inf_input<F: SqlFloat>(r: F, x: F, y: F) -> Option<F> {
    // bitwise ors: no branches in the hot loop
    (r.is_finite() | !x.is_finite() | !y.is_finite()).then_some(r)
}

fn overflow<F: SqlFloat>(what: &str, x: F, sym: &str, y: F) -> Error {
    Error::out_of_range(format!(
        "Overflow in {what} of {} ({} {sym} {})",
        F::NAME,
        x.display(),
        y.display()
    ))
}

pub(super) fn evaluate<F: SqlFloat>(
    op: ScalarFunction,
    a: &Vector,
    b: &Vector,
    len: usize,
    ty: DataType,
) -> Result<Vector> {
    match op {
        ScalarFunction::Add => try_binary(
            a,
            b,
            len,
            ty,
            |x: F, y: F| finite_or_inf_input(x + y, x, y),
            |x, y| overflow("addition", x, "+", y),
        ),
        ScalarFunction::Subtract => try_binary(
            a,
            b,
            len,
            ty,
            |x: F, y: F| finite_or_inf_input(x - y, x, y),
            |x, y| overflow("subtraction", x, "-", y),
        ),
        ScalarFunction::Multiply => try_binary(
            a,
            b,
            len,
            ty,
            |x: F, y: F| finite_or_inf_input(x * y, x, y),
            |x, y| overflow("multiplication", x, "*", y),
        ),
        ScalarFunction::Divide => try_binary(
            a,
            b,
            len,
            ty,
            |x: F, y: F| {
                if y == F::ZERO {
                    None
                } else {
                    finite_or_inf_input(x / y, x, y)
                }
            },
            |x, y| {
                if y == F::ZERO {
                    Error::division_by_zero()
                } else {
                    overflow("division", x, "/", y)
                }
            },
        ),
        ScalarFunction::Modulo => try_binary(
            a,
            b,
            len,
            ty,
            |x: F, y: F| (y != F::ZERO).then(|| x % y),
            |_, _| Error::division_by_zero(),
        ),
        other => Err(Error::internal(format!(
            "{other:?} is not float arithmetic"
        ))),
    }
}
