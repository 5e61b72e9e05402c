//! Sort keys packed by range: the PARTITION BY and ORDER BY values of a window's
//! input (`operators/window_sort.rs`) as one `u64` per row, when every key column has
//! fixed-width values whose range over the whole input is narrow enough.
//!
//! Each column takes only the bits its range of values needs: a value is stored as
//! its distance from the column's minimum (from its maximum for DESC), one more when
//! the column has NULLs, which take 0 (NULLS FIRST) or the value past the largest.
//! The columns are concatenated, first column highest, so comparing the integers
//! compares the rows in the requested order, exactly as the normalized keys of
//! `sort_key.rs` would. Typical keys (a few thousand partitions, an ORDER BY over
//! millions of values) fit in 30 to 40 bits, which a radix sort orders in a few passes.

use crate::sort_key::Ordered;
use stride_common::{with_native, Vector};
use stride_sql::plan::SortExpr;

/// How each key column is packed.
pub struct CompactKeys {
    columns: Vec<Packing>,
    /// Bits of the whole key.
    pub bits: u32,
    /// Bits of the columns after the first `leading` ones given to [`CompactKeys::layout`]
    /// (the ORDER BY columns): a key shifted right by them is the partition's.
    pub trailing_bits: u32,
}

struct Packing {
    /// The smallest and largest ordered value.
    min: u128,
    max: u128,
    nulls: bool,
    asc: bool,
    nulls_first: bool,
    bits: u32,
}

/// Bits that hold every integer up to `x`.
fn bits_for(x: u128) -> u32 {
    128 - x.leading_zeros()
}

impl CompactKeys {
    /// The packing of `sorts`, whose values are `values[column][chunk]` (chunks of
    /// `lens[chunk]` rows); `None` when a column is not fixed-width or the key needs
    /// more than 64 bits. The first `leading` columns are the partition's.
    pub fn layout(
        sorts: &[SortExpr],
        leading: usize,
        values: &[Vec<Vector>],
        lens: &[usize],
    ) -> Option<CompactKeys> {
        let mut columns = Vec::with_capacity(sorts.len());
        for (sort, chunks) in sorts.iter().zip(values) {
            let mut range: Option<(u128, u128)> = None;
            let mut nulls = false;
            for (v, &len) in chunks.iter().zip(lens) {
                let (r, n) = with_native!(v.data.physical(), T => column_range::<T>(v, len), _ => return None)?;
                nulls |= n;
                range = match (range, r) {
                    (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
                    (x, y) => x.or(y),
                };
            }
            let (min, max) = range.unwrap_or((0, 0));
            let span = max - min;
            let bits = if nulls {
                bits_for(span.checked_add(2)?)
            } else {
                bits_for(span)
            };
            columns.push(Packing {
                min,
                max,
                nulls,
                asc: sort.asc,
                nulls_first: sort.nulls_first,
                bits,
            });
        }
        let bits: u32 = columns.iter().map(|c| c.bits).sum();
        if bits > 64 {
            return None;
        }
        let trailing_bits = columns[leading.min(columns.len())..]
            .iter()
            .map(|c| c.bits)
            .sum();
        Some(CompactKeys {
            columns,
            bits,
            trailing_bits,
        })
    }

    /// The keys of one chunk's `len` rows (`values[column]`), appended to `out`.
    pub fn encode(&self, values: &[Vector], len: usize, out: &mut Vec<u64>) {
        let start = out.len();
        out.resize(start + len, 0);
        let keys = &mut out[start..];
        for (p, v) in self.columns.iter().zip(values) {
            with_native!(v.data.physical(), T => pack::<T>(p, v, keys), _ => unreachable!("checked by layout"));
        }
    }
}

/// The smallest and largest ordered value of a column's `len` rows (`None` when all
/// are NULL) and whether any is NULL; `None` for types without an order of bits.
fn column_range<T: Ordered>(v: &Vector, len: usize) -> Option<(Option<(u128, u128)>, bool)> {
    let vals = v.values::<T>();
    let mut range: Option<(u128, u128)> = None;
    let mut nulls = false;
    if v.constant {
        if len > 0 {
            if v.validity.is_valid(0) {
                let o = vals[0].ordered();
                range = Some((o, o));
            } else {
                nulls = true;
            }
        }
    } else if !v.validity.has_nulls() {
        let (mut lo, mut hi) = (u128::MAX, 0);
        for &x in &vals[..len] {
            let o = x.ordered();
            lo = lo.min(o);
            hi = hi.max(o);
        }
        if len > 0 {
            range = Some((lo, hi));
        }
    } else {
        let (mut lo, mut hi) = (u128::MAX, 0);
        for (i, &x) in vals[..len].iter().enumerate() {
            if v.validity.is_valid(i) {
                let o = x.ordered();
                lo = lo.min(o);
                hi = hi.max(o);
                range = Some((lo, hi));
            } else {
                nulls = true;
            }
        }
    }
    Some((range, nulls))
}

/// `k << s`, 0 when every bit is shifted out.
#[inline]
fn shl(k: u64, s: u32) -> u64 {
    k.checked_shl(s).unwrap_or(0)
}

/// Shifts column `p`'s bits into `keys`.
fn pack<T: Ordered>(p: &Packing, v: &Vector, keys: &mut [u64]) {
    let vals = v.values::<T>();
    let code = |o: u128| -> u64 { (if p.asc { o - p.min } else { p.max - o }) as u64 };
    // NULL's code, and what valid values add, when the column has NULLs.
    let (null, lift) = if p.nulls_first {
        (0, 1)
    } else {
        ((p.max - p.min) as u64 + 2, 0)
    };
    let shift = p.bits;
    if p.bits == 0 {
        return;
    }
    if v.constant {
        let c = if v.validity.is_valid(0) {
            code(vals[0].ordered()) + if p.nulls { lift } else { 0 }
        } else {
            null
        };
        keys.iter_mut().for_each(|k| *k = shl(*k, shift) | c);
    } else if !p.nulls || !v.validity.has_nulls() {
        let lift = if p.nulls { lift } else { 0 };
        for (k, &x) in keys.iter_mut().zip(&vals[..]) {
            *k = shl(*k, shift) | (code(x.ordered()) + lift);
        }
    } else {
        for (i, (k, &x)) in keys.iter_mut().zip(&vals[..]).enumerate() {
            let c = if v.validity.is_valid(i) {
                code(x.ordered()) + lift
            } else {
                null
            };
            *k = shl(*k, shift) | c;
        }
    }
}
