//! VARCHAR comparison over string views. Equality first compares the 8-byte head
//! (length and prefix); ordering compares the big-endian 4-byte prefixes, which
//! decides most pairs without reading string bodies. Short strings are zero-padded
//! in the prefix, which still orders correctly: where a padding byte differs from a
//! real byte, the shorter string is a prefix of the longer and sorts first.

use super::ops::CmpOp;
use crate::kernels::{has_null_constant, make_vector, null_vector, strict_validity};
use std::cmp::Ordering;
use stride_common::{DataType, StringVector, Vector};

#[inline]
fn order(a: &StringVector, i: usize, b: &StringVector, j: usize) -> Ordering {
    let (va, vb) = (&a.views[i], &b.views[j]);
    let (pa, pb) = (
        u32::from_be_bytes(va.prefix()),
        u32::from_be_bytes(vb.prefix()),
    );
    if pa != pb {
        return pa.cmp(&pb);
    }
    a.bytes_of(va).cmp(b.bytes_of(vb))
}

#[inline]
fn apply<O: CmpOp>(a: &StringVector, i: usize, b: &StringVector, j: usize) -> bool {
    match O::EQUALITY {
        Some(when_equal) => a.eq_at(i, b, j) == when_equal,
        None => O::ord(order(a, i, b, j)),
    }
}

/// One loop per constness combination, fixed at compile time.
fn run<O: CmpOp, const AC: bool, const BC: bool>(
    a: &StringVector,
    b: &StringVector,
    rows: usize,
) -> Vec<bool> {
    (0..rows)
        .map(|i| apply::<O>(a, if AC { 0 } else { i }, b, if BC { 0 } else { i }))
        .collect()
}

/// Equality with a constant (row 0 of `c`). Of at most 12 bytes: whole views compare
/// equal exactly when the strings do (inline bytes are zero-padded; a longer
/// string's length differs), so no row's bytes are read. Longer: the length and
/// prefix decide most rows, and only the rest compare bytes.
fn equals_constant(a: &StringVector, c: &StringVector, rows: usize, when_equal: bool) -> Vec<bool> {
    let mut equal = a.equal_to(rows, c.get_bytes(0));
    if !when_equal {
        equal.iter_mut().for_each(|e| *e = !*e);
    }
    equal
}

pub(super) fn compare<O: CmpOp>(a: &Vector, b: &Vector, len: usize) -> Vector {
    let constant = a.constant && b.constant;
    if has_null_constant(&[a, b]) {
        return null_vector(&DataType::Boolean, len, constant);
    }
    let rows = if constant { 1 } else { len };
    let (sa, sb) = (a.strings(), b.strings());
    let values = match (a.constant, b.constant) {
        (false, true) if O::EQUALITY.is_some() => {
            equals_constant(sa, sb, rows, O::EQUALITY == Some(true))
        }
        (true, false) if O::EQUALITY.is_some() => {
            equals_constant(sb, sa, rows, O::EQUALITY == Some(true))
        }
        (false, false) => run::<O, false, false>(sa, sb, rows),
        (false, true) => run::<O, false, true>(sa, sb, rows),
        (true, false) => run::<O, true, false>(sa, sb, rows),
        (true, true) => run::<O, true, true>(sa, sb, rows),
    };
    make_vector(
        DataType::Boolean,
        values,
        strict_validity(&[a, b], rows),
        constant,
    )
}
