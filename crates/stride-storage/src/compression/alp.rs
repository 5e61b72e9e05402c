//! Floating-point numbers that were decimals (prices, measurements: 3.25 held as the
//! double nearest to it): each value becomes an integer *n* with value = *n* / 10^*e*,
//! one exponent *e* per segment chosen from a sample, and the integers are bit-packed
//! ([`super::bitpacking`]). Values that do not come back exactly that way (1/3, NaN,
//! infinities, -0.0, huge ones) are kept whole as exceptions. This is the idea of ALP
//! (Afroozeh, Kuffó and Boncz, 2023), simplified to one exponent and no second factor.
//!
//! Layout: *e* (u8, 0 to 18); the integers bit-packed (exceptions and NULL rows hold
//! the minimum); the number of exceptions (u32); their row numbers (u32 each,
//! ascending); their IEEE 754 bits (u64 each; a REAL's in the low 32 bits).

use super::bitpacking;
use crate::serialize::{ByteReader, ByteWriter};
use stride_common::Result;

/// 10^0 to 10^18, each exact as an f64.
const POW10: [f64; 19] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18,
];

/// Rows looked at to choose the exponent.
const SAMPLE: usize = 256;

/// A float type's conversions to and from f64 and its bits.
pub trait Float: Copy {
    fn wide(self) -> f64;
    fn narrow(x: f64) -> Self;
    fn bits(self) -> u64;
    fn from_bits(b: u64) -> Self;
}

impl Float for f64 {
    fn wide(self) -> f64 {
        self
    }
    fn narrow(x: f64) -> f64 {
        x
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn from_bits(b: u64) -> f64 {
        f64::from_bits(b)
    }
}

impl Float for f32 {
    fn wide(self) -> f64 {
        self as f64
    }
    fn narrow(x: f64) -> f32 {
        x as f32
    }
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn from_bits(b: u64) -> f32 {
        f32::from_bits(b as u32)
    }
}

/// The integer standing for `x` under exponent `e`, if dividing it by 10^e gives `x`
/// back exactly (bit for bit).
fn encode_one<T: Float>(x: T, e: usize) -> Option<i64> {
    let n = (x.wide() * POW10[e]).round();
    if !(n.abs() < (1u64 << 53) as f64) {
        return None; // too large to be exact as an f64, or not a number
    }
    // Checked the way `decode_one` will compute it (so -0.0, which would come back
    // as 0.0, is an exception).
    let n = n as i64;
    (decode_one::<T>(n, e as u8).bits() == x.bits()).then_some(n)
}

fn decode_one<T: Float>(n: i64, e: u8) -> T {
    T::narrow(n as f64 / POW10[e as usize])
}

/// A segment encoded: the exponent, the integers (with their minimum and width) and
/// the exceptions (row, bits).
pub struct Encoded {
    exponent: u8,
    ints: Vec<i64>,
    min: i64,
    width: u8,
    exceptions: Vec<(u32, u64)>,
}

impl Encoded {
    /// Bytes [`encode`] writes.
    pub fn size(&self) -> usize {
        1 + 9 + (self.ints.len() * self.width as usize).div_ceil(8) + 4 + 12 * self.exceptions.len()
    }
}

/// The values of the rows `valid` says are not NULL, encoded with the exponent that
/// most of a sample of them round-trip under.
pub fn analyze<T: Float>(values: &[T], valid: impl Fn(usize) -> bool) -> Encoded {
    let step = (values.len() / SAMPLE).max(1);
    let sample: Vec<T> = (0..values.len())
        .step_by(step)
        .filter(|&i| valid(i))
        .map(|i| values[i])
        .collect();
    let mut best = (0usize, 0usize);
    for e in 0..POW10.len() {
        let hits = sample
            .iter()
            .filter(|&&x| encode_one(x, e).is_some())
            .count();
        if hits > best.1 {
            best = (e, hits);
        }
        if hits == sample.len() {
            break; // the smallest exponent that fits all: the smallest integers
        }
    }
    let e = best.0;
    let mut ints = Vec::with_capacity(values.len());
    let mut exceptions = Vec::new();
    let (mut min, mut max) = (i64::MAX, i64::MIN);
    for (i, &x) in values.iter().enumerate() {
        let n = if valid(i) { encode_one(x, e) } else { None };
        match n {
            Some(n) => {
                min = min.min(n);
                max = max.max(n);
                ints.push(n);
            }
            None => {
                if valid(i) {
                    exceptions.push((i as u32, x.bits()));
                }
                ints.push(i64::MIN); // the minimum, set below
            }
        }
    }
    if min > max {
        (min, max) = (0, 0);
    }
    for n in &mut ints {
        if *n == i64::MIN {
            *n = min;
        }
    }
    Encoded {
        exponent: e as u8,
        width: bitpacking::width_of(max.wrapping_sub(min) as u64),
        ints,
        min,
        exceptions,
    }
}

pub fn encode(w: &mut ByteWriter, enc: &Encoded) {
    w.u8(enc.exponent);
    bitpacking::pack(w, &enc.ints, enc.min, enc.width);
    w.u32(enc.exceptions.len() as u32);
    for &(row, _) in &enc.exceptions {
        w.u32(row);
    }
    for &(_, bits) in &enc.exceptions {
        w.u64(bits);
    }
}

/// Reads `len` values written by [`encode`].
pub fn decode<T: Float>(r: &mut ByteReader, len: usize) -> Result<Vec<T>> {
    let e = r.u8()?;
    if e as usize >= POW10.len() {
        return Err(r.corrupt(&format!("a decimal exponent of {e}")));
    }
    let mut out = bitpacking::unpack_as(r, len, |n| decode_one::<T>(n, e))?;
    let n = r.u32()? as usize;
    if n > len {
        return Err(r.corrupt(&format!("{n} exceptions in {len} rows")));
    }
    let rows = (0..n).map(|_| r.u32()).collect::<Result<Vec<u32>>>()?;
    for row in rows {
        let bits = r.u64()?;
        let slot = out
            .get_mut(row as usize)
            .ok_or_else(|| r.corrupt(&format!("an exception at row {row} of {len}")))?;
        *slot = T::from_bits(bits);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Float + std::fmt::Debug>(values: &[T]) -> usize {
        let enc = analyze(values, |_| true);
        let mut w = ByteWriter::new();
        encode(&mut w, &enc);
        assert_eq!(w.bytes.len(), enc.size());
        let mut r = ByteReader::new(&w.bytes, "test");
        let back: Vec<T> = decode(&mut r, values.len()).unwrap();
        assert!(r.is_at_end());
        let same = values.iter().zip(&back).all(|(a, b)| a.bits() == b.bits());
        assert!(same, "{values:?} came back as {back:?}");
        enc.exceptions.len()
    }

    #[test]
    fn decimals_round_trip_and_the_rest_are_exceptions() {
        let prices: Vec<f64> = (0..1000).map(|i| (i * 37 % 10000) as f64 / 100.0).collect();
        assert_eq!(round_trip(&prices), 0);
        let enc = analyze(&prices, |_| true);
        assert_eq!(enc.exponent, 2);
        assert!(enc.size() < prices.len() * 8 / 3);
        let mut odd = prices.clone();
        for (i, x) in [
            f64::NAN,
            f64::INFINITY,
            -0.0,
            1.0 / 3.0,
            1e300,
            f64::MIN_POSITIVE,
        ]
        .into_iter()
        .enumerate()
        {
            odd[i * 100] = x;
        }
        assert_eq!(round_trip(&odd), 6);
        let reals: Vec<f32> = (0..500).map(|i| (i as f32) * 0.25 - 20.0).collect();
        assert_eq!(round_trip(&reals), 0);
        assert_eq!(round_trip::<f64>(&[]), 0);
    }
}
