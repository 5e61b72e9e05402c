//! One-input loops over fixed-width values. The fallible forms compute every row in a
//! branch-light pass that only records *whether* something failed; the rare failure
//! path then looks for the first valid failing row, so NULL rows never raise errors.

use super::{first_failure, make_vector};
use stride_common::vector::NativeType;
use stride_common::{DataType, Error, Result, Vector};

/// `f` applied to every row; NULLs stay NULL.
pub fn unary<I: NativeType, O: NativeType>(
    input: &Vector,
    len: usize,
    ty: DataType,
    f: impl Fn(I) -> O,
) -> Vector {
    let rows = if input.constant { 1 } else { len };
    let values = input.values::<I>()[..rows].iter().map(|&x| f(x)).collect();
    make_vector(ty, values, input.validity.clone(), input.constant)
}

/// `f` applied to every row; `None` from a valid row is an error built by `err`.
pub fn try_unary<I: NativeType, O: NativeType>(
    input: &Vector,
    len: usize,
    ty: DataType,
    f: impl Fn(I) -> Option<O>,
    err: impl Fn(I) -> Error,
) -> Result<Vector> {
    try_unary_or_null(input, len, ty, false, f, err)
}

/// Like [`try_unary`], but with `null_on_failure` a failing row becomes NULL instead
/// of an error (TRY_CAST).
pub fn try_unary_or_null<I: NativeType, O: NativeType>(
    input: &Vector,
    len: usize,
    ty: DataType,
    null_on_failure: bool,
    f: impl Fn(I) -> Option<O>,
    err: impl Fn(I) -> Error,
) -> Result<Vector> {
    let rows = if input.constant { 1 } else { len };
    let src = &input.values::<I>()[..rows];
    let mut failed = false;
    let values: Vec<O> = src
        .iter()
        .map(|&x| {
            let r = f(x);
            failed |= r.is_none();
            r.unwrap_or_default()
        })
        .collect();
    let mut validity = input.validity.clone();
    if failed {
        if null_on_failure {
            for (i, &x) in src.iter().enumerate() {
                if f(x).is_none() {
                    validity.set_invalid(i, rows);
                }
            }
        } else if let Some(i) = first_failure(rows, &input.validity, |i| f(src[i]).is_none()) {
            return Err(err(src[i]));
        }
    }
    Ok(make_vector(ty, values, validity, input.constant))
}
