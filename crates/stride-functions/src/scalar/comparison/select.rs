//! Comparisons used as filters: instead of a vector of booleans, the rows where the
//! comparison is TRUE, found 64 rows at a time. Each block of 64 comparisons becomes
//! one bit mask and only the set bits are visited, so a selective filter costs one
//! pass over its input and nothing per rejected row.

use super::ops::{CmpOp, EqOp, GeOp, GtOp, LeOp, LtOp, NeOp};
use super::BoundFunction;
use crate::kernels::SqlOrd;
use crate::scalar::ScalarFunction;
use stride_common::vector::NativeType;
use stride_common::Vector;

/// Rows `0..len` where comparison `f` of `a` and `b` is TRUE (NULLs are not), or
/// `None` when `f` is not a comparison of fixed-width values (the caller then
/// evaluates it as a boolean vector).
pub fn select_comparison(
    f: &BoundFunction,
    a: &Vector,
    b: &Vector,
    len: usize,
) -> Option<Vec<u32>> {
    let p = a.ty.physical();
    if p != b.ty.physical() {
        return None;
    }
    macro_rules! by_op {
        ($T:ty) => {
            match f.func {
                ScalarFunction::Eq => Some(select::<$T, EqOp>(a, b, len)),
                ScalarFunction::NotEq => Some(select::<$T, NeOp>(a, b, len)),
                ScalarFunction::Lt => Some(select::<$T, LtOp>(a, b, len)),
                ScalarFunction::LtEq => Some(select::<$T, LeOp>(a, b, len)),
                ScalarFunction::Gt => Some(select::<$T, GtOp>(a, b, len)),
                ScalarFunction::GtEq => Some(select::<$T, GeOp>(a, b, len)),
                _ => None,
            }
        };
    }
    stride_common::with_native!(p, T => by_op!(T), _ => None)
}

fn select<T: NativeType + SqlOrd, O: CmpOp>(a: &Vector, b: &Vector, len: usize) -> Vec<u32> {
    let (x, y) = (a.values::<T>(), b.values::<T>());
    let mut out = Vec::new();
    match (a.constant, b.constant) {
        (true, true) => {
            if a.is_valid(0) && b.is_valid(0) && O::cmp(x[0], y[0]) {
                out.extend(0..len as u32);
            }
        }
        (false, true) => {
            if b.is_valid(0) {
                let q = y[0];
                blocks(&x[..len], &mut out, |p| O::cmp(p, q));
            }
        }
        (true, false) => {
            if a.is_valid(0) {
                let p = x[0];
                blocks(&y[..len], &mut out, |q| O::cmp(p, q));
            }
        }
        (false, false) => {
            let y = &y[..len];
            let mut i = 0;
            blocks(&x[..len], &mut out, |p| {
                let r = O::cmp(p, y[i]);
                i += 1;
                r
            });
        }
    }
    let nulls = !a.constant && a.validity.has_nulls() || !b.constant && b.validity.has_nulls();
    if nulls {
        out.retain(|&r| a.is_valid(r as usize) && b.is_valid(r as usize));
    }
    out
}

/// Appends to `out` the indices of the values of `xs` for which `pred` holds.
#[inline(always)]
fn blocks<T: Copy>(xs: &[T], out: &mut Vec<u32>, mut pred: impl FnMut(T) -> bool) {
    for (k, block) in xs.chunks(64).enumerate() {
        let mut mask = 0u64;
        for (j, &v) in block.iter().enumerate() {
            mask |= (pred(v) as u64) << j;
        }
        let base = (k * 64) as u32;
        while mask != 0 {
            out.push(base + mask.trailing_zeros());
            mask &= mask - 1;
        }
    }
}
