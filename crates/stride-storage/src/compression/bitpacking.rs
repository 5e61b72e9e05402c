//! Bit-packing with a frame of reference: integers stored as their difference from
//! the segment's minimum, each in as many bits as the largest difference needs.
//! TPC-H's `l_linenumber` takes 3 bits a value instead of 64; a column of dates spread
//! over seven years, 12 bits instead of 32.
//!
//! Layout: the minimum (i64), the width in bits (u8, 0 to 64), then the packed
//! differences, value i at bit i × width (least significant bit first), in
//! ⌈len × width / 8⌉ bytes.

use crate::serialize::{ByteReader, ByteWriter};
use stride_common::Result;

/// Bits needed for `range` (0 for 0).
pub fn width_of(range: u64) -> u8 {
    (64 - range.leading_zeros()) as u8
}

fn mask(width: u8) -> u64 {
    if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Packs `values` (their minimum is `min`) into `w`.
pub fn pack(w: &mut ByteWriter, values: &[i64], min: i64, width: u8) {
    w.u64(min as u64);
    w.u8(width);
    let total = (values.len() * width as usize).div_ceil(8);
    let mut out = Vec::with_capacity(total + 8);
    if width > 0 {
        let m = mask(width) as u128;
        let (mut acc, mut n) = (0u128, 0u32);
        for &v in values {
            acc |= ((v.wrapping_sub(min) as u64) as u128 & m) << n;
            n += width as u32;
            if n >= 64 {
                out.extend_from_slice(&(acc as u64).to_le_bytes());
                acc >>= 64;
                n -= 64;
            }
        }
        out.extend_from_slice(&(acc as u64).to_le_bytes()[..n.div_ceil(8) as usize]);
    }
    debug_assert_eq!(out.len(), total);
    w.raw(&out);
}

/// Unpacks `len` values written by [`pack`].
pub fn unpack(r: &mut ByteReader, len: usize) -> Result<Vec<i64>> {
    unpack_as(r, len, |x| x)
}

/// Unpacks `len` values written by [`pack`], each converted by `to` (into the column's
/// own width, without an intermediate `Vec<i64>`).
pub fn unpack_as<T>(r: &mut ByteReader, len: usize, to: impl Fn(i64) -> T) -> Result<Vec<T>> {
    let min = r.u64()? as i64;
    let width = r.u8()?;
    if width > 64 {
        return Err(r.corrupt(&format!("a bit width of {width}")));
    }
    let bits = len
        .checked_mul(width as usize)
        .ok_or_else(|| r.corrupt(&format!("{len} values of {width} bits")))?;
    let bytes = r.raw(bits.div_ceil(8))?;
    let mut out = Vec::with_capacity(len);
    if width == 0 {
        out.extend((0..len).map(|_| to(min)));
        return Ok(out);
    }
    let m = mask(width);
    if width <= 56 {
        // Value i's bits start in byte i·width/8 and span at most 8 bytes from there:
        // one unaligned load each (the last ones from a copy padded with zeros).
        let at = |bytes: &[u8], i: usize| {
            let bit = i * width as usize;
            let word = u64::from_le_bytes(bytes[bit / 8..bit / 8 + 8].try_into().expect("8"));
            min.wrapping_add(((word >> (bit % 8)) & m) as i64)
        };
        let safe = if bytes.len() >= 8 {
            ((bytes.len() - 8) * 8 / width as usize).min(len)
        } else {
            0
        };
        out.extend((0..safe).map(|i| to(at(bytes, i))));
        let first = safe * width as usize / 8;
        let mut tail = bytes[first..].to_vec();
        tail.resize(tail.len() + 8, 0);
        let shift = first * 8;
        out.extend((safe..len).map(|i| {
            let bit = i * width as usize - shift;
            let word = u64::from_le_bytes(tail[bit / 8..bit / 8 + 8].try_into().expect("8"));
            to(min.wrapping_add(((word >> (bit % 8)) & m) as i64))
        }));
        return Ok(out);
    }
    let mut words = bytes.chunks(8).map(|c| {
        let mut b = [0u8; 8];
        b[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(b)
    });
    let (mut acc, mut n) = (0u128, 0u32);
    for _ in 0..len {
        if n < width as u32 {
            acc |= (words.next().unwrap_or(0) as u128) << n;
            n += 64;
        }
        out.push(to(min.wrapping_add((acc as u64 & m) as i64)));
        acc >>= width;
        n -= width as u32;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_width_round_trips() {
        let mut seed = 12345u64;
        for width in 0..=64u8 {
            for len in [0usize, 1, 7, 8, 63, 64, 65, 1000] {
                let min = -(width as i64) * 1000;
                let values: Vec<i64> = (0..len)
                    .map(|_| {
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                        min.wrapping_add((seed & mask(width.max(1))) as i64 * (width > 0) as i64)
                    })
                    .collect();
                let mut w = ByteWriter::new();
                pack(&mut w, &values, min, width);
                assert_eq!(w.bytes.len(), 9 + (len * width as usize).div_ceil(8));
                let mut r = ByteReader::new(&w.bytes, "test");
                assert_eq!(
                    unpack(&mut r, len).unwrap(),
                    values,
                    "width {width} len {len}"
                );
                assert!(r.is_at_end());
            }
        }
    }
}
