//! Comparisons used as filters: instead of a vector of booleans, the rows where the
//! comparison is TRUE, found 64 rows at a time. Each block of 64 comparisons becomes
//! one bit mask and only the set bits are visited, so a selective filter costs one
//! pass over its input and nothing per rejected row. Several comparisons of columns
//! with constants (a date range) AND their masks block by block
//! ([`comparison_masks`]), so no rows are gathered between them.

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

/// Rows `0..len` where every term holds, as a bit mask per 64 rows (row `64k + j` is
/// bit `j` of word `k`; [`mask_rows`] lists them), each term `(func, column,
/// constant)` a comparison of a flat column with a constant (`column func constant`);
/// `None` when a term is not such a comparison of fixed-width values. Each term turns
/// 64 rows at a time into a bit mask ANDed into the block's mask (blocks already empty
/// are skipped), so a conjunction such as a date range costs one pass per term over
/// the column and no gathering between terms, and callers can combine conjunctions
/// (`a OR b`) word by word.
pub fn comparison_masks(
    terms: &[(ScalarFunction, &Vector, &Vector)],
    len: usize,
) -> Option<Vec<u64>> {
    let mut masks = vec![u64::MAX; len.div_ceil(64)];
    if let (Some(last), tail @ 1..) = (masks.last_mut(), len % 64) {
        *last = (1u64 << tail) - 1;
    }
    for &(func, column, constant) in terms {
        let p = column.ty.physical();
        if column.constant || !constant.constant || p != constant.ty.physical() {
            return None;
        }
        if !constant.is_valid(0) {
            return Some(vec![0; len.div_ceil(64)]);
        }
        macro_rules! by_op {
            ($T:ty) => {{
                let (x, c) = (&column.values::<$T>()[..len], constant.values::<$T>()[0]);
                match func {
                    ScalarFunction::Eq => and_masks::<$T, EqOp>(x, c, &mut masks),
                    ScalarFunction::NotEq => and_masks::<$T, NeOp>(x, c, &mut masks),
                    ScalarFunction::Lt => and_masks::<$T, LtOp>(x, c, &mut masks),
                    ScalarFunction::LtEq => and_masks::<$T, LeOp>(x, c, &mut masks),
                    ScalarFunction::Gt => and_masks::<$T, GtOp>(x, c, &mut masks),
                    ScalarFunction::GtEq => and_masks::<$T, GeOp>(x, c, &mut masks),
                    _ => return None,
                }
            }};
        }
        stride_common::with_native!(p, T => by_op!(T), _ => return None);
        if column.validity.has_nulls() {
            for (k, m) in masks.iter_mut().enumerate() {
                let mut bits = *m;
                while bits != 0 {
                    let j = bits.trailing_zeros() as usize;
                    if !column.validity.is_valid(k * 64 + j) {
                        *m &= !(1u64 << j);
                    }
                    bits &= bits - 1;
                }
            }
        }
    }
    Some(masks)
}

/// The rows whose bits are set in `masks`, in order.
pub fn mask_rows(masks: &[u64]) -> Vec<u32> {
    let mut out = Vec::new();
    for (k, &m) in masks.iter().enumerate() {
        push_set_bits(&mut out, k, m);
    }
    out
}

/// ANDs into each block's mask the rows of `xs` where `x O c` holds. On x86-64 with
/// AVX2 the loop is compiled for it: the baseline (SSE2) has no 64-bit compare, so
/// BIGINT, DECIMAL and DOUBLE columns were compared one value at a time.
fn and_masks<T: NativeType + SqlOrd, O: CmpOp>(xs: &[T], c: T, masks: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { and_masks_avx2::<T, O>(xs, c, masks) };
    }
    and_masks_portable::<T, O>(xs, c, masks)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn and_masks_avx2<T: NativeType + SqlOrd, O: CmpOp>(xs: &[T], c: T, masks: &mut [u64]) {
    and_masks_portable::<T, O>(xs, c, masks)
}

#[inline(always)]
fn and_masks_portable<T: NativeType + SqlOrd, O: CmpOp>(xs: &[T], c: T, masks: &mut [u64]) {
    for (block, m) in xs.chunks(64).zip(masks.iter_mut()) {
        if *m == 0 {
            continue;
        }
        *m &= mask_of(block, |v| O::cmp(v, c));
    }
}

/// Appends to `out` the indices of the values of `xs` for which `pred` holds.
#[inline(always)]
fn blocks<T: Copy>(xs: &[T], out: &mut Vec<u32>, mut pred: impl FnMut(T) -> bool) {
    for (k, block) in xs.chunks(64).enumerate() {
        push_set_bits(out, k, mask_of(block, &mut pred));
    }
}

/// Bit `j` set where `pred` holds for `block[j]` (a block of at most 64 values).
#[inline(always)]
fn mask_of<T: Copy>(block: &[T], mut pred: impl FnMut(T) -> bool) -> u64 {
    let mut mask = 0u64;
    for (j, &v) in block.iter().enumerate() {
        mask |= (pred(v) as u64) << j;
    }
    mask
}

/// Appends the row of every set bit of block `k`'s mask.
#[inline(always)]
fn push_set_bits(out: &mut Vec<u32>, k: usize, mut mask: u64) {
    let base = (k * 64) as u32;
    while mask != 0 {
        out.push(base + mask.trailing_zeros());
        mask &= mask - 1;
    }
}
