//! Two-input loops over fixed-width values, with a dedicated path for each of
//! flat/flat, flat/constant, constant/flat and constant/constant so the hot loops
//! index plain slices. A NULL constant short-circuits to an all-NULL result.

use super::{first_failure, has_null_constant, make_vector, null_vector, strict_validity};
use stride_common::vector::NativeType;
use stride_common::{DataType, Error, Result, Vector};

/// Applies `f` to each pair, dispatching on which side is constant.
#[inline(always)]
fn run<A: NativeType, B: NativeType, O: NativeType>(
    a: &Vector,
    b: &Vector,
    len: usize,
    mut f: impl FnMut(A, B) -> O,
) -> Vec<O> {
    let (x, y) = (a.values::<A>(), b.values::<B>());
    match (a.constant, b.constant) {
        (false, false) => x[..len]
            .iter()
            .zip(&y[..len])
            .map(|(&p, &q)| f(p, q))
            .collect(),
        (false, true) => {
            let q = y[0];
            x[..len].iter().map(|&p| f(p, q)).collect()
        }
        (true, false) => {
            let p = x[0];
            y[..len].iter().map(|&q| f(p, q)).collect()
        }
        (true, true) => vec![f(x[0], y[0])],
    }
}

/// `f` applied to every pair of rows; NULL in either input gives NULL.
pub fn binary<A: NativeType, B: NativeType, O: NativeType>(
    a: &Vector,
    b: &Vector,
    len: usize,
    ty: DataType,
    f: impl Fn(A, B) -> O,
) -> Vector {
    let constant = a.constant && b.constant;
    if has_null_constant(&[a, b]) {
        return null_vector(&ty, len, constant);
    }
    let rows = if constant { 1 } else { len };
    let validity = strict_validity(&[a, b], rows);
    make_vector(ty, run(a, b, len, f), validity, constant)
}

/// `f` applied to every pair; `None` from a row where both inputs are valid is an
/// error built by `err`.
pub fn try_binary<A: NativeType, B: NativeType, O: NativeType>(
    a: &Vector,
    b: &Vector,
    len: usize,
    ty: DataType,
    f: impl Fn(A, B) -> Option<O>,
    err: impl Fn(A, B) -> Error,
) -> Result<Vector> {
    let constant = a.constant && b.constant;
    if has_null_constant(&[a, b]) {
        return Ok(null_vector(&ty, len, constant));
    }
    let rows = if constant { 1 } else { len };
    let validity = strict_validity(&[a, b], rows);
    let mut failed = false;
    // branch-free: record failure with an OR and substitute a default, so the loop
    // stays vectorizable; the rare failure path re-checks valid rows below
    let values = run(a, b, len, |p, q| {
        let r = f(p, q);
        failed |= r.is_none();
        r.unwrap_or_default()
    });
    if failed {
        let (x, y) = (a.values::<A>(), b.values::<B>());
        let at = |i: usize| (x[a.index(i)], y[b.index(i)]);
        if let Some(i) = first_failure(rows, &validity, |i| {
            let (p, q) = at(i);
            f(p, q).is_none()
        }) {
            let (p, q) = at(i);
            return Err(err(p, q));
        }
    }
    Ok(make_vector(ty, values, validity, constant))
}
