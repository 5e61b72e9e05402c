//! Join keys packed into one word. When every key column of a hash join is an integer
//! (or a DATE, or a DECIMAL stored in 64 bits), the build side's range of each column
//! is known once the build side is complete: each column then needs only the bits of
//! `max - min`, and the keys of a join on `(l_orderkey, l_suppkey)` (TPC-H Q5, Q9)
//! become single integers that the hash table hashes and compares inline instead of
//! byte strings.
//!
//! A probe value outside its column's build range cannot match any build row; such
//! a row is dropped before hashing, so the ranges also filter. Where the build side
//! holds few of a column's values in a wide range (TPC-DS Q25's 1,900 returned items
//! among 18,000, Q84's 204 demographics among 1.9 million), a bitmap of the values it
//! holds filters too: a probe row whose value is not in it is dropped with one load,
//! before any hashing.

use crate::row_key::{non_null_rows, Keys};
use stride_common::{PhysicalType, Vector};

/// One key column's place in the word.
#[derive(Debug, Clone)]
struct Field {
    min: i64,
    max: i64,
    shift: u32,
    /// Bits of the word the column takes (0 for a column of one value).
    bits: u32,
    /// Bit `x - min` is set when the build side holds the value `x`.
    members: Option<Vec<u64>>,
}

/// The widest range of values a bitmap of members covers (1 MiB of bits).
const MEMBER_SPAN: u64 = 1 << 23;

#[derive(Debug, Clone)]
pub struct KeyPacking {
    fields: Vec<Field>,
}

/// The smallest and largest non-NULL value of the first `len` rows of an integer-like
/// column (None for other types); `Some(None)` when every value is NULL.
pub fn value_range(v: &Vector, len: usize) -> Option<Option<(i64, i64)>> {
    let mut range: Option<(i64, i64)> = None;
    let mut add = |x: i64| {
        range = Some(match range {
            None => (x, x),
            Some((lo, hi)) => (lo.min(x), hi.max(x)),
        })
    };
    let rows = if v.constant { len.min(1) } else { len };
    macro_rules! scan {
        ($t:ty) => {{
            let vals = &v.values::<$t>()[..rows];
            if v.validity.has_nulls() {
                for (i, &x) in vals.iter().enumerate() {
                    if v.validity.is_valid(i) {
                        add(x as i64);
                    }
                }
            } else if let (Some(&lo), Some(&hi)) = (vals.iter().min(), vals.iter().max()) {
                add(lo as i64);
                add(hi as i64);
            }
        }};
    }
    match v.ty.physical() {
        PhysicalType::I8 => scan!(i8),
        PhysicalType::I16 => scan!(i16),
        PhysicalType::I32 => scan!(i32),
        PhysicalType::I64 => scan!(i64),
        _ => return None,
    }
    Some(range)
}

/// Widens `a` to also cover `b`.
pub fn merge_ranges(a: Option<(i64, i64)>, b: Option<(i64, i64)>) -> Option<(i64, i64)> {
    match (a, b) {
        (Some((l1, h1)), Some((l2, h2))) => Some((l1.min(l2), h1.max(h2))),
        (x, None) | (None, x) => x,
    }
}

impl KeyPacking {
    /// A packing for key columns whose build values span `ranges` (None: a column
    /// that is not integer-like), when they fit one word together.
    pub fn fit(ranges: &[Option<Option<(i64, i64)>>]) -> Option<KeyPacking> {
        let mut fields = Vec::with_capacity(ranges.len());
        let mut shift = 0u32;
        for r in ranges {
            // A column with no values at all: nothing can match; any range will do.
            let (min, max) = (*r)?.unwrap_or((0, 0));
            let span = (max as i128 - min as i128) as u64;
            let bits = 64 - span.leading_zeros();
            if shift + bits > 64 {
                return None;
            }
            // A column of one value adds no bits (and no shift past the word).
            let at = if bits == 0 { 0 } else { shift };
            fields.push(Field {
                min,
                max,
                shift: at,
                bits,
                members: None,
            });
            shift += bits;
        }
        Some(KeyPacking { fields })
    }

    /// Adds a bitmap of the values the build side holds for each key column whose
    /// range is at least four times the build side's `rows` (so most of its values
    /// are absent) and at most [`MEMBER_SPAN`] wide: `chunks` holds each build chunk's
    /// key columns and length.
    pub fn add_members(&mut self, rows: usize, chunks: &[(Vec<&Vector>, usize)]) {
        for (k, f) in self.fields.iter_mut().enumerate() {
            let span = ((f.max as i128 - f.min as i128) as u64).saturating_add(1);
            if span > MEMBER_SPAN || span < rows as u64 * 4 {
                continue;
            }
            let mut bits = vec![0u64; span.div_ceil(64) as usize];
            let min = f.min;
            for (cols, len) in chunks {
                let c = cols[k];
                let rows = if c.constant { (*len).min(1) } else { *len };
                macro_rules! mark {
                    ($t:ty) => {{
                        let vals = &c.values::<$t>()[..rows];
                        for (i, &x) in vals.iter().enumerate() {
                            if c.is_valid(i) {
                                let o = (x as i64).wrapping_sub(min) as u64;
                                bits[(o >> 6) as usize] |= 1 << (o & 63);
                            }
                        }
                    }};
                }
                match c.ty.physical() {
                    PhysicalType::I8 => mark!(i8),
                    PhysicalType::I16 => mark!(i16),
                    PhysicalType::I32 => mark!(i32),
                    PhysicalType::I64 => mark!(i64),
                    // `fit` admits only the types above.
                    _ => return,
                }
            }
            f.members = Some(bits);
        }
    }

    /// Bytes of the bitmaps of members.
    pub fn member_bytes(&self) -> usize {
        self.fields
            .iter()
            .filter_map(|f| f.members.as_ref())
            .map(|m| m.len() * 8)
            .sum()
    }

    /// How many distinct words the packing can produce: one past the largest.
    pub fn domain(&self) -> u128 {
        self.fields
            .iter()
            .map(|f| ((f.max as i128 - f.min as i128) as u128) << f.shift)
            .sum::<u128>()
            + 1
    }

    /// The packed keys of `valid.len()` rows of `cols`: the first ones, or those
    /// `rows` names. A row with a value outside its column's range matches nothing:
    /// `valid` is cleared for it.
    pub fn encode(&self, cols: &[&Vector], rows: Option<&[u32]>, valid: &mut [bool]) -> Keys {
        let len = valid.len();
        let mut words = vec![0u64; len];
        for (f, c) in self.fields.iter().zip(cols) {
            let (min, max, shift) = (f.min, f.max, f.shift);
            macro_rules! pack {
                ($t:ty) => {{
                    let vals = c.values::<$t>();
                    let put = |x: i64, w: &mut u64, ok: &mut bool| {
                        *ok &= x >= min && x <= max;
                        *w |= (x.wrapping_sub(min) as u64) << shift;
                    };
                    if c.constant {
                        let x = vals[0] as i64;
                        for (w, ok) in words.iter_mut().zip(valid.iter_mut()) {
                            put(x, w, ok);
                        }
                    } else if let Some(rows) = rows {
                        for ((w, ok), &r) in words.iter_mut().zip(valid.iter_mut()).zip(rows) {
                            put(vals[r as usize] as i64, w, ok);
                        }
                    } else {
                        for ((w, ok), &x) in
                            words.iter_mut().zip(valid.iter_mut()).zip(&vals[..len])
                        {
                            put(x as i64, w, ok);
                        }
                    }
                }};
            }
            match c.ty.physical() {
                PhysicalType::I8 => pack!(i8),
                PhysicalType::I16 => pack!(i16),
                PhysicalType::I32 => pack!(i32),
                PhysicalType::I64 => pack!(i64),
                // `fit` admits only the types above, and both sides of a join key
                // have one type.
                _ => valid.iter_mut().for_each(|v| *v = false),
            }
        }
        Keys::Words {
            words,
            lens: vec![8; len],
        }
    }

    /// Whether every column of packed key `w` with a bitmap of members holds its
    /// value there.
    fn holds(&self, w: u64) -> bool {
        self.fields.iter().all(|f| {
            let Some(m) = &f.members else { return true };
            // A column of one value takes no bits of the word.
            let o = match f.bits {
                0 => 0,
                b => (w >> f.shift) & (u64::MAX >> (64 - b)),
            };
            m.get((o >> 6) as usize)
                .is_some_and(|b| b >> (o & 63) & 1 == 1)
        })
    }

    /// The rows of the `len` rows of `cols` (the first ones, or those `rows` names)
    /// that can match a build row, counted from 0 among the `len`, and their packed
    /// keys: rows whose key columns are all non-NULL and within the build side's
    /// ranges. With one key column this is a single branch-free pass.
    pub fn candidates(
        &self,
        cols: &[&Vector],
        rows: Option<&[u32]>,
        len: usize,
    ) -> (Vec<u32>, Vec<u64>) {
        let mut at = vec![0u32; len];
        let mut out = vec![0u64; len];
        let mut n = 0;
        let (Some(c), [field]) = (cols.first(), &self.fields[..]) else {
            let mut valid = non_null_rows(cols, rows, len);
            let Keys::Words { words, .. } = self.encode(cols, rows, &mut valid) else {
                unreachable!("packed keys are words")
            };
            let members = self.fields.iter().any(|f| f.members.is_some());
            for (i, (&w, ok)) in words.iter().zip(valid).enumerate() {
                at[n] = i as u32;
                out[n] = w;
                n += (ok && (!members || self.holds(w))) as usize;
            }
            at.truncate(n);
            out.truncate(n);
            return (at, out);
        };
        let (min, span) = (field.min, field.max.wrapping_sub(field.min) as u64);
        // One loop for each case, so the common one (no bitmap) stays branch-free.
        n = match field.members.as_deref() {
            None => scan_column(c, rows, len, min, span, |_| true, &mut at, &mut out),
            Some(m) => {
                let held = |w: u64| {
                    m.get((w >> 6) as usize)
                        .is_some_and(|b| b >> (w & 63) & 1 == 1)
                };
                scan_column(c, rows, len, min, span, held, &mut at, &mut out)
            }
        };
        at.truncate(n);
        out.truncate(n);
        (at, out)
    }
}

/// The single-column case of [`KeyPacking::candidates`]: writes each row's position
/// and key (its value minus `min`) to `at` and `out`, advancing past the rows whose
/// key is non-NULL, at most `span` and `held`; returns how many it kept.
#[allow(clippy::too_many_arguments)]
fn scan_column(
    c: &Vector,
    rows: Option<&[u32]>,
    len: usize,
    min: i64,
    span: u64,
    held: impl Fn(u64) -> bool,
    at: &mut [u32],
    out: &mut [u64],
) -> usize {
    let nulls = c.validity.has_nulls();
    let mut n = 0;
    // Each row is written and the cursor passes only rows that can match.
    let mut keep = |i: usize, w: u64, valid: bool| {
        at[n] = i as u32;
        out[n] = w;
        n += (w <= span && valid && held(w)) as usize;
    };
    macro_rules! scan {
        ($t:ty) => {{
            let vals = c.values::<$t>();
            // The key minus the minimum: in range exactly when at most the span
            // (in wrapping arithmetic).
            let word = |x: $t| (x as i64).wrapping_sub(min) as u64;
            if c.constant {
                let (w, valid) = (word(vals[0]), c.is_valid(0));
                (0..len).for_each(|i| keep(i, w, valid));
            } else if let Some(rows) = rows {
                for (i, &r) in rows[..len].iter().enumerate() {
                    keep(i, word(vals[r as usize]), !nulls || c.is_valid(r as usize));
                }
            } else {
                for (i, &x) in vals[..len].iter().enumerate() {
                    keep(i, word(x), !nulls || c.is_valid(i));
                }
            }
        }};
    }
    match c.ty.physical() {
        PhysicalType::I8 => scan!(i8),
        PhysicalType::I16 => scan!(i16),
        PhysicalType::I32 => scan!(i32),
        PhysicalType::I64 => scan!(i64),
        // `fit` admits only the types above: nothing else can match.
        _ => {}
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use stride_common::DataType;

    #[test]
    fn members_filter_candidates() {
        // Build: 3 rows, values 0, 50 and 99 of a range of 100 in `a`; `b` one value.
        let a = Vector::from_values(DataType::BigInt, vec![0i64, 50, 99]);
        let b = Vector::from_values(DataType::Integer, vec![7i32, 7, 7]);
        let mut one = KeyPacking::fit(&[value_range(&a, 3)]).unwrap();
        one.add_members(3, &[(vec![&a], 3)]);
        let probe = Vector::from_values(DataType::BigInt, vec![50i64, 51, 99, 100, 0]);
        let (rows, _) = one.candidates(&[&probe], None, 5);
        assert_eq!(rows, vec![0, 2, 4]);
        let mut two = KeyPacking::fit(&[value_range(&a, 3), value_range(&b, 3)]).unwrap();
        two.add_members(3, &[(vec![&a, &b], 3)]);
        let pb = Vector::from_values(DataType::Integer, vec![7i32, 7, 7, 7, 8]);
        let (rows, _) = two.candidates(&[&probe, &pb], None, 5);
        assert_eq!(rows, vec![0, 2]);
    }

    #[test]
    fn packs_and_filters() {
        let a = Vector::from_values(DataType::BigInt, vec![10i64, 12, 11]);
        let b = Vector::from_values(DataType::Integer, vec![-3i32, 4, 0]);
        let ranges = [value_range(&a, 3), value_range(&b, 3)];
        let p = KeyPacking::fit(&ranges).unwrap();
        let mut valid = vec![true; 3];
        let Keys::Words { words, .. } = p.encode(&[&a, &b], None, &mut valid) else {
            panic!("words")
        };
        // a takes 2 bits (span 2), b the next 3 (span 7).
        assert_eq!(words, vec![0, 2 | 7 << 2, 1 | 3 << 2]);
        assert_eq!(valid, vec![true; 3]);
        let probe_a = Vector::from_values(DataType::BigInt, vec![13i64, 10]);
        let probe_b = Vector::from_values(DataType::Integer, vec![0i32, -4]);
        let mut valid = vec![true; 2];
        p.encode(&[&probe_a, &probe_b], None, &mut valid);
        assert_eq!(valid, vec![false, false]);
        // Through a selection: rows 2 and 0, in that order.
        let mut valid = vec![true; 2];
        let Keys::Words { words, .. } = p.encode(&[&a, &b], Some(&[2, 0]), &mut valid) else {
            panic!("words")
        };
        assert_eq!(words, vec![1 | 3 << 2, 0]);
        assert_eq!(valid, vec![true; 2]);
        // Too wide together: no packing.
        let wide = [Some(Some((i64::MIN, i64::MAX))), Some(Some((0, 1)))];
        assert!(KeyPacking::fit(&wide).is_none());
        assert!(KeyPacking::fit(&[None]).is_none());
        // A full-width column and a constant one still fit.
        let p = KeyPacking::fit(&[Some(Some((i64::MIN, i64::MAX))), Some(Some((5, 5)))]).unwrap();
        let x = Vector::from_values(DataType::BigInt, vec![i64::MAX]);
        let y = Vector::from_values(DataType::BigInt, vec![5i64]);
        let mut valid = vec![true];
        let Keys::Words { words, .. } = p.encode(&[&x, &y], None, &mut valid) else {
            panic!("words")
        };
        assert_eq!((words[0], valid[0]), (u64::MAX, true));
    }

    #[test]
    fn candidates_skip_nulls_and_values_out_of_range() {
        let build = Vector::from_values(DataType::Integer, vec![5i32, 9]);
        let p = KeyPacking::fit(&[value_range(&build, 2)]).unwrap();
        let mut probe = Vector::from_values(DataType::Integer, vec![4i32, 5, 7, 9, 10, i32::MIN]);
        probe.validity.set_invalid(2, 3);
        // Row 2 is NULL; 4, 10 and i32::MIN lie outside 5..=9.
        let (rows, words) = p.candidates(&[&probe], None, 6);
        assert_eq!((rows, words), (vec![1, 3], vec![0, 4]));
        // Through a selection, counted among the selected rows.
        let (rows, words) = p.candidates(&[&probe], Some(&[3, 2, 1]), 3);
        assert_eq!((rows, words), (vec![0, 2], vec![4, 0]));
        // Two columns: the same rows as `encode` leaves valid.
        let other = Vector::from_values(DataType::BigInt, vec![1i64, 2]);
        let p = KeyPacking::fit(&[value_range(&build, 2), value_range(&other, 2)]).unwrap();
        let second = Vector::from_values(DataType::BigInt, vec![1i64, 2, 1, 3, 1, 1]);
        let (rows, words) = p.candidates(&[&probe, &second], None, 6);
        assert_eq!((rows, words), (vec![1], vec![1 << 3]));
    }
}
