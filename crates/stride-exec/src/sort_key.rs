//! Normalized sort keys: the ORDER BY values of a row encoded so that comparing the
//! byte strings with `memcmp` gives the requested order, directions and NULL placement
//! included. Sorting then needs no type dispatch per comparison; keys of up to 16
//! bytes are packed into a `u128` and sorted as integers.
//!
//! Per key column: a marker byte (NULL before or after values, as requested) and, for
//! values, order-preserving bytes (big-endian with the sign bit flipped for integers,
//! the IEEE total-order trick for floats, escaped and terminated bytes for strings),
//! inverted for DESC. Keys are written a column at a time: fixed-width ones at fixed
//! offsets, variable-width ones (strings) at each row's cursor once the rows' widths
//! are summed. A window also learns where each key's PARTITION BY part ends
//! ([`encode_with_prefix`]).

use crate::row_key::KeyBuffer;
use stride_common::vector::NativeType;
use stride_common::{with_native, DataType, Interval, Result, Vector};

pub struct SortColumn<'a> {
    pub values: &'a Vector,
    pub asc: bool,
    pub nulls_first: bool,
}

/// Fixed-width values as unsigned integers whose order is the SQL order.
pub(crate) trait Ordered: NativeType {
    /// Bytes the value takes in a key.
    const WIDTH: usize;
    fn ordered(self) -> u128;
}

macro_rules! ordered_int {
    ($($t:ty => $u:ty),*) => {$(
        impl Ordered for $t {
            const WIDTH: usize = std::mem::size_of::<$t>();
            #[inline]
            fn ordered(self) -> u128 {
                ((self as $u) ^ (1 << (<$u>::BITS - 1))) as u128
            }
        }
    )*};
}
ordered_int!(i8 => u8, i16 => u16, i32 => u32, i64 => u64, i128 => u128);

impl Ordered for bool {
    const WIDTH: usize = 1;
    fn ordered(self) -> u128 {
        self as u128
    }
}

impl Ordered for f32 {
    const WIDTH: usize = 4;
    #[inline]
    fn ordered(self) -> u128 {
        // -0.0 sorts with 0.0 (adding 0.0 turns it into 0.0), every NaN after all
        // numbers (PostgreSQL); negative values flip every bit, others the sign bit.
        // Written without branches so column loops vectorize.
        let x = self + 0.0;
        let b = if x.is_nan() {
            f32::NAN.to_bits()
        } else {
            x.to_bits()
        };
        let flip = ((b as i32) >> 31) as u32 | (1 << 31);
        (b ^ flip) as u128
    }
}

impl Ordered for f64 {
    const WIDTH: usize = 8;
    #[inline]
    fn ordered(self) -> u128 {
        let x = self + 0.0;
        let b = if x.is_nan() {
            f64::NAN.to_bits()
        } else {
            x.to_bits()
        };
        let flip = ((b as i64) >> 63) as u64 | (1 << 63);
        (b ^ flip) as u128
    }
}

impl Ordered for Interval {
    const WIDTH: usize = 16;
    fn ordered(self) -> u128 {
        (self.normalized_micros() as u128) ^ (1 << 127)
    }
}

/// The value bits of row `j` for a key column, inverted for DESC.
#[inline]
fn bits<T: Ordered>(vals: &[T], j: usize, asc: bool) -> u128 {
    let x = vals[j].ordered();
    if asc {
        x
    } else {
        !x & (u128::MAX >> (128 - 8 * T::WIDTH as u32))
    }
}

fn null_marker(c: &SortColumn) -> u8 {
    if c.nulls_first {
        0
    } else {
        2
    }
}

/// The fixed key width of these types, if every one has a fixed width.
pub fn fixed_width(types: &[DataType]) -> Option<usize> {
    let mut w = 0;
    for t in types {
        w += 1 + value_width(t)?;
    }
    Some(w)
}

fn value_width(t: &DataType) -> Option<usize> {
    with_native!(t.physical(), T => Some(<T as Ordered>::WIDTH), _ => None)
}

/// Encodes the sort keys of `len` rows.
pub fn encode(cols: &[SortColumn], len: usize) -> Result<KeyBuffer> {
    Ok(encode_with_prefix(cols, len, 0).0)
}

/// How many bytes of each row's key its first columns take (a window's PARTITION BY
/// columns, ahead of its ORDER BY ones).
pub enum Prefix {
    /// The same for every row: fixed-width columns.
    Fixed(u32),
    PerRow(Vec<u32>),
}

/// [`encode`], and how much of each key the first `split` columns take.
pub fn encode_with_prefix(cols: &[SortColumn], len: usize, split: usize) -> (KeyBuffer, Prefix) {
    let types: Vec<DataType> = cols.iter().map(|c| c.values.ty.clone()).collect();
    if let Some(w) = fixed_width(&types) {
        let prefix = fixed_width(&types[..split]).unwrap_or(0);
        return (encode_fixed(cols, len, w), Prefix::Fixed(prefix as u32));
    }
    encode_variable(cols, len, split)
}

/// Keys with strings (or nested values): each row's length is summed a column at a
/// time, then each column is written into every row at that row's cursor, so the
/// type is dispatched once per column rather than once per value.
fn encode_variable(cols: &[SortColumn], len: usize, split: usize) -> (KeyBuffer, Prefix) {
    // Nested values are encoded element by element (nested_key.rs) up front.
    let nested: Vec<Option<Vec<Vec<u8>>>> = cols
        .iter()
        .map(|c| {
            let v = c.values;
            v.ty.is_nested().then(|| {
                (0..len)
                    .map(|i| {
                        let mut key = Vec::new();
                        if v.validity.is_valid(v.index(i)) {
                            crate::nested_key::write_ordered(&v.get(i), &mut key);
                        }
                        key
                    })
                    .collect()
            })
        })
        .collect();
    // Each row's width: a marker byte per column, plus the value's bytes.
    // `value(i, j)`: the bytes of row i's value (vector index j), when not NULL.
    fn add(widths: &mut [u32], v: &Vector, value: impl Fn(usize, usize) -> u32) {
        for (i, w) in widths.iter_mut().enumerate() {
            let j = v.index(i);
            if v.validity.is_valid(j) {
                *w += value(i, j);
            }
        }
    }
    let mut widths = vec![cols.len() as u32; len];
    for (c, nested) in cols.iter().zip(&nested) {
        let v = c.values;
        match nested {
            // less the nested key's own leading marker
            Some(keys) => add(&mut widths, v, |i, _| keys[i].len() as u32 - 1),
            None => with_native!(v.data.physical(), T => {
                add(&mut widths, v, |_, _| <T as Ordered>::WIDTH as u32)
            }, _ => {
                let s = v.strings();
                add(&mut widths, v, |_, j| {
                    let b = s.bytes_of(&s.views[j]);
                    // each 0x00 is escaped, then a 0x00 0x00 terminator
                    (b.len() + b.iter().filter(|&&x| x == 0).count() + 2) as u32
                })
            }),
        }
    }
    let mut offsets = Vec::with_capacity(len + 1);
    let mut at = 0u32;
    offsets.push(0);
    for w in &widths {
        at += w;
        offsets.push(at);
    }
    drop(widths);
    let mut data = vec![0u8; at as usize];
    let mut cursor: Vec<u32> = offsets[..len].to_vec();
    let mut prefix = Prefix::Fixed(0);
    for (k, (c, nested)) in cols.iter().zip(&nested).enumerate() {
        write_column(c, nested.as_deref(), &mut data, &mut cursor);
        if k + 1 == split {
            prefix = Prefix::PerRow(cursor.iter().zip(&offsets).map(|(c, o)| c - o).collect());
        }
    }
    (KeyBuffer { data, offsets }, prefix)
}

/// One column's part of every row's key, written at `cursor[row]`, which moves on.
fn write_column(c: &SortColumn, nested: Option<&[Vec<u8>]>, data: &mut [u8], cursor: &mut [u32]) {
    fn fixed<T: Ordered>(c: &SortColumn, data: &mut [u8], cursor: &mut [u32]) {
        let v = c.values;
        let vals = v.values::<T>();
        for (i, at) in cursor.iter_mut().enumerate() {
            let p = *at as usize;
            let j = v.index(i);
            if v.validity.is_valid(j) {
                data[p] = 1;
                let x = bits(vals, j, c.asc).to_be_bytes();
                data[p + 1..p + 1 + T::WIDTH].copy_from_slice(&x[16 - T::WIDTH..]);
                *at += 1 + T::WIDTH as u32;
            } else {
                data[p] = null_marker(c);
                *at += 1;
            }
        }
    }
    // Variable-width values: `value(i, j, out)` writes row i's bytes (vector index j)
    // at the start of `out` and says how many; DESC inverts them.
    fn variable(
        c: &SortColumn,
        data: &mut [u8],
        cursor: &mut [u32],
        value: impl Fn(usize, usize, &mut [u8]) -> usize,
    ) {
        let v = c.values;
        for (i, at) in cursor.iter_mut().enumerate() {
            let p = *at as usize;
            let j = v.index(i);
            if !v.validity.is_valid(j) {
                data[p] = null_marker(c);
                *at += 1;
                continue;
            }
            data[p] = 1;
            let n = value(i, j, &mut data[p + 1..]);
            if !c.asc {
                data[p + 1..p + 1 + n].iter_mut().for_each(|b| *b = !*b);
            }
            *at += 1 + n as u32;
        }
    }
    if let Some(keys) = nested {
        // less the nested key's own leading marker
        return variable(c, data, cursor, |i, _, out| {
            let key = &keys[i][1..];
            out[..key.len()].copy_from_slice(key);
            key.len()
        });
    }
    with_native!(c.values.data.physical(), T => fixed::<T>(c, data, cursor), _ => {
        let s = c.values.strings();
        // Strings: bytes with 0x00 escaped as 0x00 0xFF, then 0x00 0x00.
        variable(c, data, cursor, |_, j, out| {
            let b = s.bytes_of(&s.views[j]);
            let mut q = b.len();
            if b.contains(&0) {
                q = 0;
                for &x in b {
                    out[q] = x;
                    q += 1;
                    if x == 0 {
                        out[q] = 0xFF;
                        q += 1;
                    }
                }
            } else {
                out[..q].copy_from_slice(b);
            }
            out[q] = 0;
            out[q + 1] = 0;
            q + 2
        })
    });
}

/// Fixed-width keys, written a column at a time into rows of `width` bytes.
fn encode_fixed(cols: &[SortColumn], len: usize, width: usize) -> KeyBuffer {
    fn write<T: Ordered>(c: &SortColumn, len: usize, width: usize, off: usize, data: &mut [u8]) {
        let v = c.values;
        let vals = v.values::<T>();
        for i in 0..len {
            let row = &mut data[i * width + off..i * width + off + 1 + T::WIDTH];
            let j = v.index(i);
            if v.validity.is_valid(j) {
                row[0] = 1;
                row[1..].copy_from_slice(&bits(vals, j, c.asc).to_be_bytes()[16 - T::WIDTH..]);
            } else {
                row[0] = null_marker(c);
            }
        }
    }
    let mut data = vec![0u8; len * width];
    let mut off = 0;
    for c in cols {
        with_native!(c.values.data.physical(), T => {
            write::<T>(c, len, width, off, &mut data);
            off += 1 + <T as Ordered>::WIDTH;
        }, _ => unreachable!("fixed-width keys only"));
    }
    let offsets = (0..=len).map(|i| (i * width) as u32).collect();
    KeyBuffer { data, offsets }
}

/// The keys of `len` rows packed into integers, column at a time, when every key
/// column has a fixed width and the whole key fits in 16 bytes (marker bytes
/// included); `None` otherwise. The order of the integers is the order of the rows,
/// exactly as with [`encode`].
pub fn encode_packed(cols: &[SortColumn], len: usize) -> Option<Vec<u128>> {
    fn fold<T: Ordered>(c: &SortColumn, acc: &mut [u128]) {
        let v = c.values;
        let vals = v.values::<T>();
        let shift = 8 * T::WIDTH as u32;
        if !v.constant && !v.validity.has_nulls() {
            let marker = 1u128 << shift;
            let invert = if c.asc { 0 } else { u128::MAX >> (128 - shift) };
            let n = acc.len();
            for (a, &x) in acc.iter_mut().zip(&vals[..n]) {
                *a = (*a << (8 + shift)) | marker | (x.ordered() ^ invert);
            }
            return;
        }
        for (i, a) in acc.iter_mut().enumerate() {
            let j = v.index(i);
            let (marker, x) = if v.validity.is_valid(j) {
                (1u128, bits(vals, j, c.asc))
            } else {
                (null_marker(c) as u128, 0)
            };
            *a = (*a << (8 + shift)) | (marker << shift) | x;
        }
    }
    let types: Vec<DataType> = cols.iter().map(|c| c.values.ty.clone()).collect();
    let width = fixed_width(&types).filter(|&w| w <= 16)?;
    let mut acc = vec![0u128; len];
    for c in cols {
        with_native!(c.values.data.physical(), T => fold::<T>(c, &mut acc), _ => return None);
    }
    // Left-align, as `pack` does with byte keys.
    let shift = 8 * (16 - width) as u32;
    if shift > 0 {
        acc.iter_mut().for_each(|a| *a <<= shift);
    }
    Some(acc)
}

/// The rows of one sort column whose key part ranks at or before `bound`'s first
/// column (`bound` a packed, left-aligned key as [`encode_packed`] and [`pack`] make).
/// `None` when the column is not a fixed-width column without NULLs, or `bound`'s
/// first column is NULL: the caller then compares whole packed keys.
pub fn rows_at_most(c: &SortColumn, len: usize, bound: u128) -> Option<Vec<u32>> {
    fn select<T: Ordered>(c: &SortColumn, len: usize, bound: u128) -> Option<Vec<u32>> {
        let shift = 8 * T::WIDTH as u32;
        let first = bound >> (128 - 8 - shift);
        let value_mask = u128::MAX >> (128 - shift);
        if first >> shift != 1 {
            return None;
        }
        let limit = first & value_mask;
        let invert = if c.asc { 0 } else { value_mask };
        let vals = &c.values.values::<T>()[..len];
        // Branch-free: write every index, advance past the survivors only.
        let mut out = vec![0u32; len];
        let mut n = 0;
        for (i, &x) in vals.iter().enumerate() {
            out[n] = i as u32;
            n += ((x.ordered() ^ invert) <= limit) as usize;
        }
        out.truncate(n);
        Some(out)
    }
    let v = c.values;
    if v.constant || v.validity.has_nulls() {
        return None;
    }
    with_native!(v.data.physical(), T => select::<T>(c, len, bound), _ => None)
}

/// A key of at most 16 bytes as an integer with the same order.
#[inline]
pub fn pack(key: &[u8]) -> u128 {
    let mut b = [0u8; 16];
    b[..key.len()].copy_from_slice(key);
    u128::from_be_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use stride_common::ScalarValue;

    fn keys(vals: &[ScalarValue], ty: DataType, asc: bool, nulls_first: bool) -> Vec<Vec<u8>> {
        let mut v = Vector::empty(&ty);
        for x in vals {
            v.push(x).unwrap();
        }
        let kb = encode(
            &[SortColumn {
                values: &v,
                asc,
                nulls_first,
            }],
            vals.len(),
        )
        .unwrap();
        (0..vals.len()).map(|i| kb.key(i).to_vec()).collect()
    }

    #[test]
    fn order_is_preserved() {
        use ScalarValue::*;
        let k = keys(
            &[BigInt(-5), BigInt(3), Null, BigInt(-1)],
            DataType::BigInt,
            true,
            false,
        );
        assert!(k[0] < k[3] && k[3] < k[1] && k[1] < k[2]);
        let k = keys(
            &[Double(-1.5), Double(2.0), Double(f64::NAN), Double(-0.0)],
            DataType::Double,
            false,
            true,
        );
        assert!(k[2] < k[1] && k[1] < k[3] && k[3] < k[0]);
        let k = keys(
            &[
                Varchar("b".into()),
                Varchar("ab".into()),
                Varchar("a".into()),
                Null,
            ],
            DataType::Varchar,
            true,
            true,
        );
        assert!(k[3] < k[2] && k[2] < k[1] && k[1] < k[0]);
        let k = keys(
            &[
                Varchar("b".into()),
                Varchar("ab".into()),
                Varchar("a".into()),
            ],
            DataType::Varchar,
            false,
            true,
        );
        assert!(k[0] < k[1] && k[1] < k[2]);
    }
}

#[cfg(test)]
mod packed_tests {
    use super::*;
    use stride_common::ScalarValue;

    #[test]
    fn packed_matches_bytes() {
        use ScalarValue::*;
        let mut a = Vector::empty(&DataType::BigInt);
        let mut b = Vector::empty(&DataType::Double);
        for (x, y) in [
            (BigInt(3), Double(1.5)),
            (Null, Double(-2.0)),
            (BigInt(-7), Null),
            (BigInt(3), Double(-0.0)),
        ] {
            a.push(&x).unwrap();
            b.push(&y).unwrap();
        }
        for (asc, nf) in [(true, false), (false, true), (true, true), (false, false)] {
            let cols = [
                SortColumn {
                    values: &a,
                    asc,
                    nulls_first: nf,
                },
                SortColumn {
                    values: &b,
                    asc: !asc,
                    nulls_first: nf,
                },
            ];
            // 1+8 + 1+8 = 18 bytes: too wide to pack; one column packs.
            assert!(encode_packed(&cols, 4).is_none());
            let one = &cols[..1];
            let packed = encode_packed(one, 4).unwrap();
            let bytes = encode(one, 4).unwrap();
            for i in 0..4 {
                for j in 0..4 {
                    assert_eq!(
                        packed[i].cmp(&packed[j]),
                        bytes.key(i).cmp(bytes.key(j)),
                        "{i} {j} asc={asc} nf={nf}"
                    );
                }
            }
        }
    }
}
