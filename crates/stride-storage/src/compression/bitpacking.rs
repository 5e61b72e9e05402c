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
    if width == 0 {
        return;
    }
    let mut out = vec![0u8; total + PADDING];
    // Whole groups of eight values through the packer specialized for the width (a
    // group fills `width` bytes), the rest one by one.
    let grouped = match width {
        1..=56 => values.len() / 8 * 8,
        _ => 0,
    };
    pack_groups(&values[..grouped], min, width as usize, &mut out);
    let m = mask(width) as u128;
    for (i, &v) in values.iter().enumerate().skip(grouped) {
        let bit = i * width as usize;
        let at = bit / 8;
        let mut word = u128::from_le_bytes(out[at..at + 16].try_into().expect("16"));
        word |= ((v.wrapping_sub(min) as u64) as u128 & m) << (bit % 8);
        out[at..at + 16].copy_from_slice(&word.to_le_bytes());
    }
    w.raw(&out[..total]);
}

/// Packs `values` (whole groups of eight) of `width` bits (1 to 56) above `min` into
/// the first `values.len() / 8 * width` bytes of `out`.
fn pack_groups(values: &[i64], min: i64, width: usize, out: &mut [u8]) {
    macro_rules! widths {
        ($($w:literal)*) => {
            match width {
                $($w => pack_groups_of::<$w>(values, min, out),)*
                _ => debug_assert!(values.is_empty(), "{width} bits a value"),
            }
        };
    }
    widths!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28
        29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56)
}

/// [`pack_groups`] for one width, a constant: each value's word and shift within its
/// group's (at most seven) words are constants, so a group is built in registers.
#[inline(never)]
fn pack_groups_of<const W: usize>(values: &[i64], min: i64, out: &mut [u8]) {
    let m = mask(W as u8);
    for (group, bytes) in values.chunks_exact(8).zip(out.chunks_exact_mut(W)) {
        let mut words = [0u64; 8];
        for (j, &v) in group.iter().enumerate() {
            let d = v.wrapping_sub(min) as u64 & m;
            let (k, s) = (j * W / 64, j * W % 64);
            words[k] |= d << s;
            if s + W > 64 {
                words[k + 1] |= d >> (64 - s);
            }
        }
        let mut packed = [0u8; 64];
        for (k, word) in words.iter().enumerate() {
            packed[k * 8..k * 8 + 8].copy_from_slice(&word.to_le_bytes());
        }
        bytes.copy_from_slice(&packed[..W]);
    }
}

/// Unpacks `len` values written by [`pack`].
pub fn unpack(r: &mut ByteReader, len: usize) -> Result<Vec<i64>> {
    unpack_as(r, len, |x| x)
}

/// Unpacks `len` values written by [`pack`], each converted by `to` (into the column's
/// own width, without an intermediate `Vec<i64>`).
pub fn unpack_as<T>(r: &mut ByteReader, len: usize, to: impl Fn(i64) -> T) -> Result<Vec<T>> {
    let packed = BitPacked::read(r, len)?;
    let mut out = Vec::with_capacity(len);
    packed.unpack_into(0, len, to, &mut out);
    Ok(out)
}

/// Bytes of zeros after the packed bits, so that any value's bits can be read with
/// one unaligned load of 8 (or, past 56 bits a value, 16) bytes, and any group of
/// eight values with one 64-byte slice ([`unpack_groups`]).
const PADDING: usize = 64;

/// Values unpacked per batch by [`BitPacked::unpack_into`] before they are converted.
const BATCH: usize = 256;

/// Values written by [`pack`], kept packed: the buffer pool may hold a segment this
/// way, and scans unpack a window of rows at a time ([`super::packed`]).
pub struct BitPacked {
    min: i64,
    width: u8,
    /// The packed bits, then [`PADDING`] zero bytes.
    bytes: Vec<u8>,
}

impl BitPacked {
    /// Bytes held.
    pub fn size(&self) -> usize {
        self.bytes.len()
    }

    /// Reads the packing of `len` values written by [`pack`].
    pub fn read(r: &mut ByteReader, len: usize) -> Result<BitPacked> {
        let min = r.u64()? as i64;
        let width = r.u8()?;
        if width > 64 {
            return Err(r.corrupt(&format!("a bit width of {width}")));
        }
        let bits = len
            .checked_mul(width as usize)
            .ok_or_else(|| r.corrupt(&format!("{len} values of {width} bits")))?;
        let packed = r.raw(bits.div_ceil(8))?;
        let mut bytes = Vec::with_capacity(packed.len() + PADDING);
        bytes.extend_from_slice(packed);
        bytes.resize(packed.len() + PADDING, 0);
        Ok(BitPacked { min, width, bytes })
    }

    /// Appends values `offset..offset + n` (which the packing holds), each converted by
    /// `to`, to `out`.
    pub fn unpack_into<T>(&self, offset: usize, n: usize, to: impl Fn(i64) -> T, out: &mut Vec<T>) {
        let (min, width) = (self.min, self.width as usize);
        debug_assert!(((offset + n) * width).div_ceil(8) + PADDING <= self.bytes.len());
        out.reserve(n);
        if width == 0 {
            out.extend((0..n).map(|_| to(min)));
            return;
        }
        // Whole groups of eight values (they start on a byte) go through the unpacker
        // specialized for the width, the values before and after them one by one.
        let end = offset + n;
        let first_group = offset.div_ceil(8);
        let last_group = end / 8;
        if width > 56 || first_group >= last_group {
            out.extend((offset..end).map(|i| to(min.wrapping_add(self.one(i) as i64))));
            return;
        }
        out.extend((offset..first_group * 8).map(|i| to(min.wrapping_add(self.one(i) as i64))));
        let mut batch = [0u64; BATCH];
        let mut g = first_group;
        while g < last_group {
            let groups = (last_group - g).min(BATCH / 8);
            unpack_groups(&self.bytes, width, g, &mut batch[..groups * 8]);
            out.extend(
                batch[..groups * 8]
                    .iter()
                    .map(|&d| to(min.wrapping_add(d as i64))),
            );
            g += groups;
        }
        out.extend((last_group * 8..end).map(|i| to(min.wrapping_add(self.one(i) as i64))));
    }

    /// Value `i`'s difference from the minimum.
    fn one(&self, i: usize) -> u64 {
        let width = self.width as usize;
        let bit = i * width;
        let at = bit / 8;
        let word = u128::from_le_bytes(self.bytes[at..at + 16].try_into().expect("16"));
        (word >> (bit % 8)) as u64 & mask(self.width)
    }
}

/// Unpacks `out.len() / 8` groups of eight values of `width` bits (1 to 56), starting
/// at group `first` of `bytes`, into `out`.
fn unpack_groups(bytes: &[u8], width: usize, first: usize, out: &mut [u64]) {
    macro_rules! widths {
        ($($w:literal)*) => {
            match width {
                $($w => unpack_groups_of::<$w>(bytes, first, out),)*
                _ => unreachable!("{width} bits a value"),
            }
        };
    }
    widths!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28
        29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56)
}

/// [`unpack_groups`] for one width, a constant: eight values take `W` bytes, and each
/// value's byte and shift within its group are constants, so the loop is loads, shifts
/// and masks without checks.
#[inline(never)]
fn unpack_groups_of<const W: usize>(bytes: &[u8], first: usize, out: &mut [u64]) {
    let m = mask(W as u8);
    for (g, values) in out.chunks_exact_mut(8).enumerate() {
        let at = (first + g) * W;
        let group: &[u8; 64] = bytes[at..at + 64].try_into().expect("padded");
        for (j, v) in values.iter_mut().enumerate() {
            let bit = j * W;
            let word = u64::from_le_bytes(group[bit / 8..bit / 8 + 8].try_into().expect("8"));
            *v = (word >> (bit % 8)) & m;
        }
    }
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
                // Windows at every alignment, as scans of a cached segment read them.
                let packed = BitPacked::read(&mut ByteReader::new(&w.bytes, "test"), len).unwrap();
                for (offset, n) in [(0, len), (3, 70), (8, 64), (13, 200), (len / 2, len / 3)] {
                    if offset + n > len {
                        continue;
                    }
                    let mut out = vec![7i64];
                    packed.unpack_into(offset, n, |x| x, &mut out);
                    assert_eq!(
                        out[1..],
                        values[offset..offset + n],
                        "width {width} {offset}+{n}"
                    );
                }
            }
        }
    }
}
