//! Normalized sort keys: the ORDER BY values of a row encoded so that comparing the
//! byte strings with `memcmp` gives the requested order, directions and NULL placement
//! included. Sorting then needs no type dispatch per comparison; keys of up to 16
//! bytes are packed into a `u128` and sorted as integers.
//!
//! Per key column: a marker byte (NULL before or after values, as requested) and, for
//! values, order-preserving bytes (big-endian with the sign bit flipped for integers,
//! the IEEE total-order trick for floats, escaped and terminated bytes for strings),
//! inverted for DESC.

use crate::row_key::KeyBuffer;
use stride_common::{DataType, Error, Interval, PhysicalType, Result, Vector};

pub struct SortColumn<'a> {
    pub values: &'a Vector,
    pub asc: bool,
    pub nulls_first: bool,
}

fn push_ordered(out: &mut Vec<u8>, bytes: &[u8], asc: bool) {
    if asc {
        out.extend_from_slice(bytes);
    } else {
        out.extend(bytes.iter().map(|b| !b));
    }
}

/// The fixed key width of these types, if every one has a fixed width.
pub fn fixed_width(types: &[DataType]) -> Option<usize> {
    let mut w = 0;
    for t in types {
        w += 1 + match t.physical() {
            PhysicalType::Bool | PhysicalType::I8 => 1,
            PhysicalType::I16 => 2,
            PhysicalType::I32 | PhysicalType::F32 => 4,
            PhysicalType::I64 | PhysicalType::F64 => 8,
            PhysicalType::I128 | PhysicalType::Interval => 16,
            PhysicalType::Str | PhysicalType::List => return None,
        };
    }
    Some(w)
}

/// Encodes the sort keys of `len` rows. With fixed-width types every NULL is padded
/// to the full width so all keys have equal length.
pub fn encode(cols: &[SortColumn], len: usize) -> Result<KeyBuffer> {
    let types: Vec<DataType> = cols.iter().map(|c| c.values.ty.clone()).collect();
    let fixed = fixed_width(&types);
    if let Some(w) = fixed {
        return Ok(encode_fixed(cols, len, w));
    }
    let mut data = Vec::with_capacity(len * fixed.unwrap_or(16));
    let mut offsets = Vec::with_capacity(len + 1);
    offsets.push(0u32);
    let mut buf = [0u8; 16];
    for i in 0..len {
        for c in cols {
            let v = c.values;
            let j = v.index(i);
            if !v.validity.is_valid(j) {
                data.push(if c.nulls_first { 0 } else { 2 });
                if let Some(w) = fixed.and(value_width(&v.ty)) {
                    data.extend(std::iter::repeat_n(0u8, w));
                }
                continue;
            }
            data.push(1);
            let bytes: &[u8] = match &v.ty.physical() {
                PhysicalType::Bool => {
                    buf[0] = v.values::<bool>()[j] as u8;
                    &buf[..1]
                }
                PhysicalType::I8 => {
                    buf[0] = (v.values::<i8>()[j] as u8) ^ 0x80;
                    &buf[..1]
                }
                PhysicalType::I16 => {
                    buf[..2]
                        .copy_from_slice(&((v.values::<i16>()[j] as u16) ^ 0x8000).to_be_bytes());
                    &buf[..2]
                }
                PhysicalType::I32 => {
                    buf[..4].copy_from_slice(
                        &((v.values::<i32>()[j] as u32) ^ (1 << 31)).to_be_bytes(),
                    );
                    &buf[..4]
                }
                PhysicalType::I64 => {
                    buf[..8].copy_from_slice(
                        &((v.values::<i64>()[j] as u64) ^ (1 << 63)).to_be_bytes(),
                    );
                    &buf[..8]
                }
                PhysicalType::I128 => {
                    buf.copy_from_slice(
                        &((v.values::<i128>()[j] as u128) ^ (1 << 127)).to_be_bytes(),
                    );
                    &buf[..16]
                }
                PhysicalType::F32 => {
                    let x = v.values::<f32>()[j];
                    let x = if x == 0.0 {
                        0.0
                    } else if x.is_nan() {
                        f32::NAN
                    } else {
                        x
                    };
                    let b = x.to_bits();
                    let b = if b >> 31 == 1 { !b } else { b | (1 << 31) };
                    buf[..4].copy_from_slice(&b.to_be_bytes());
                    &buf[..4]
                }
                PhysicalType::F64 => {
                    let x = v.values::<f64>()[j];
                    let x = if x == 0.0 {
                        0.0
                    } else if x.is_nan() {
                        f64::NAN
                    } else {
                        x
                    };
                    let b = x.to_bits();
                    let b = if b >> 63 == 1 { !b } else { b | (1 << 63) };
                    buf[..8].copy_from_slice(&b.to_be_bytes());
                    &buf[..8]
                }
                PhysicalType::Interval => {
                    let iv: Interval = v.values::<Interval>()[j];
                    buf.copy_from_slice(
                        &((iv.normalized_micros() as u128) ^ (1 << 127)).to_be_bytes(),
                    );
                    &buf[..16]
                }
                PhysicalType::Str => {
                    let s = v.strings();
                    let b = s.bytes_of(&s.views[j]);
                    let mut tmp = Vec::with_capacity(b.len() + 2);
                    for &x in b {
                        tmp.push(x);
                        if x == 0 {
                            tmp.push(0xFF);
                        }
                    }
                    tmp.extend_from_slice(&[0, 0]);
                    push_ordered(&mut data, &tmp, c.asc);
                    continue;
                }
                PhysicalType::List => {
                    return Err(Error::not_supported(
                        "ORDER BY on LIST values is not supported yet",
                    ))
                }
            };
            push_ordered(&mut data, bytes, c.asc);
        }
        offsets.push(data.len() as u32);
    }
    Ok(KeyBuffer { data, offsets })
}

/// Fixed-width keys, written a column at a time into rows of `width` bytes.
fn encode_fixed(cols: &[SortColumn], len: usize, width: usize) -> KeyBuffer {
    let mut data = vec![0u8; len * width];
    let mut off = 0;
    for c in cols {
        let v = c.values;
        let vw = value_width(&v.ty).expect("fixed width");
        let null_marker = if c.nulls_first { 0u8 } else { 2 };
        macro_rules! write {
            ($t:ty, $conv:expr) => {{
                let vals = v.values::<$t>();
                for i in 0..len {
                    let row = &mut data[i * width + off..i * width + off + 1 + vw];
                    let j = v.index(i);
                    if v.validity.is_valid(j) {
                        let x: u128 = $conv(vals[j]);
                        let x = if c.asc { x } else { !x };
                        row[0] = 1;
                        row[1..].copy_from_slice(&x.to_be_bytes()[16 - vw..]);
                    } else {
                        row[0] = null_marker;
                    }
                }
            }};
        }
        match v.ty.physical() {
            PhysicalType::Bool => write!(bool, |x: bool| x as u128),
            PhysicalType::I8 => write!(i8, |x: i8| ((x as u8) ^ 0x80) as u128),
            PhysicalType::I16 => write!(i16, |x: i16| ((x as u16) ^ 0x8000) as u128),
            PhysicalType::I32 => write!(i32, |x: i32| ((x as u32) ^ (1 << 31)) as u128),
            PhysicalType::I64 => write!(i64, |x: i64| ((x as u64) ^ (1 << 63)) as u128),
            PhysicalType::I128 => write!(i128, |x: i128| (x as u128) ^ (1 << 127)),
            PhysicalType::F32 => write!(f32, |x: f32| {
                let x = if x == 0.0 {
                    0.0
                } else if x.is_nan() {
                    f32::NAN
                } else {
                    x
                };
                let b = x.to_bits();
                (if b >> 31 == 1 { !b } else { b | (1 << 31) }) as u128
            }),
            PhysicalType::F64 => write!(f64, |x: f64| {
                let x = if x == 0.0 {
                    0.0
                } else if x.is_nan() {
                    f64::NAN
                } else {
                    x
                };
                let b = x.to_bits();
                (if b >> 63 == 1 { !b } else { b | (1 << 63) }) as u128
            }),
            PhysicalType::Interval => {
                write!(Interval, |x: Interval| (x.normalized_micros() as u128)
                    ^ (1 << 127))
            }
            PhysicalType::Str | PhysicalType::List => unreachable!("not fixed width"),
        }
        off += 1 + vw;
    }
    let offsets = (0..=len).map(|i| (i * width) as u32).collect();
    KeyBuffer { data, offsets }
}

fn value_width(t: &DataType) -> Option<usize> {
    fixed_width(std::slice::from_ref(t)).map(|w| w - 1)
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

/// The keys of `len` rows packed into integers, column at a time, when every key
/// column has a fixed width and the whole key fits in 16 bytes (marker bytes
/// included); `None` otherwise. The order of the integers is the order of the rows,
/// exactly as with [`encode`].
pub fn encode_packed(cols: &[SortColumn], len: usize) -> Option<Vec<u128>> {
    let types: Vec<DataType> = cols.iter().map(|c| c.values.ty.clone()).collect();
    let width = fixed_width(&types)?;
    if width > 16 {
        return None;
    }
    let mut acc = vec![0u128; len];
    for c in cols {
        let vw = value_width(&c.values.ty)?;
        let bits = 8 * vw as u32;
        let v = c.values;
        let null_marker: u128 = if c.nulls_first { 0 } else { 2 };
        // Ordered bits of one value, `vw` bytes wide.
        macro_rules! fold {
            ($t:ty, $conv:expr) => {{
                let vals = v.values::<$t>();
                let mask: u128 = if bits == 128 {
                    u128::MAX
                } else {
                    (1u128 << bits) - 1
                };
                for (i, a) in acc.iter_mut().enumerate() {
                    let j = v.index(i);
                    let (marker, x) = if v.validity.is_valid(j) {
                        let x: u128 = $conv(vals[j]);
                        (1u128, if c.asc { x } else { !x & mask })
                    } else {
                        (null_marker, 0)
                    };
                    *a = (*a << (8 + bits)) | (marker << bits) | x;
                }
            }};
        }
        match v.ty.physical() {
            PhysicalType::Bool => fold!(bool, |x: bool| x as u128),
            PhysicalType::I8 => fold!(i8, |x: i8| ((x as u8) ^ 0x80) as u128),
            PhysicalType::I16 => fold!(i16, |x: i16| ((x as u16) ^ 0x8000) as u128),
            PhysicalType::I32 => fold!(i32, |x: i32| ((x as u32) ^ (1 << 31)) as u128),
            PhysicalType::I64 => fold!(i64, |x: i64| ((x as u64) ^ (1 << 63)) as u128),
            PhysicalType::F32 => fold!(f32, |x: f32| {
                let x = if x == 0.0 {
                    0.0
                } else if x.is_nan() {
                    f32::NAN
                } else {
                    x
                };
                let b = x.to_bits();
                (if b >> 31 == 1 { !b } else { b | (1 << 31) }) as u128
            }),
            PhysicalType::F64 => fold!(f64, |x: f64| {
                let x = if x == 0.0 {
                    0.0
                } else if x.is_nan() {
                    f64::NAN
                } else {
                    x
                };
                let b = x.to_bits();
                (if b >> 63 == 1 { !b } else { b | (1 << 63) }) as u128
            }),
            _ => return None,
        }
    }
    let shift = 8 * (16 - width) as u32;
    if shift > 0 && shift < 128 {
        for a in acc.iter_mut() {
            *a <<= shift;
        }
    }
    Some(acc)
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
