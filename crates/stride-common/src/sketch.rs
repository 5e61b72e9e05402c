//! A HyperLogLog sketch: estimates how many distinct values a stream holds in a fixed
//! amount of memory (2^bits one-byte registers; the error is about 1.04 / sqrt(2^bits),
//! 2% with 4096 registers). Two users: the storage layer's distinct counts for the
//! optimizer (stride-storage's stats.rs) and `approx_count_distinct`
//! (stride-functions). Hashing is fixed (no per-process seed), so an estimate is the
//! same in every run and sketches made apart can be merged.

use crate::{Vector, VectorData};

#[derive(Debug, Clone, PartialEq)]
pub struct Sketch {
    bits: u32,
    registers: Vec<u8>,
}

impl Sketch {
    /// An empty sketch of 2^bits registers (`bits` from 4 to 16).
    pub fn new(bits: u32) -> Sketch {
        let bits = bits.clamp(4, 16);
        Sketch {
            bits,
            registers: vec![0; 1 << bits],
        }
    }

    /// A sketch from registers another sketch exported ([`Sketch::registers`]); `None`
    /// when their count is not a power of two a sketch can have.
    pub fn from_registers(registers: Vec<u8>) -> Option<Sketch> {
        let n = registers.len();
        if !n.is_power_of_two() || !(16..=1 << 16).contains(&n) {
            return None;
        }
        Some(Sketch {
            bits: n.trailing_zeros(),
            registers,
        })
    }

    pub fn registers(&self) -> &[u8] {
        &self.registers
    }

    /// Counts one value by its hash (of [`hash_rows`] or [`mix`]).
    #[inline]
    pub fn insert(&mut self, h: u64) {
        let bits = self.bits;
        let slot = (h >> (64 - bits)) as usize;
        let rank = ((h << bits) | (1 << (bits - 1))).leading_zeros() as u8 + 1;
        self.registers[slot] = self.registers[slot].max(rank);
    }

    /// Adds the non-NULL values of the first `len` rows of `v`.
    pub fn add(&mut self, v: &Vector, len: usize) {
        let len = if v.constant { len.min(1) } else { len };
        hash_rows(v, len, |_, h| self.insert(h));
    }

    /// Adds every value `other` counted (both must have as many registers).
    pub fn merge(&mut self, other: &Sketch) {
        for (a, b) in self.registers.iter_mut().zip(&other.registers) {
            *a = (*a).max(*b);
        }
    }

    /// The estimated number of distinct values added.
    pub fn estimate(&self) -> f64 {
        let m = self.registers.len() as f64;
        let sum: f64 = self.registers.iter().map(|&r| 2f64.powi(-(r as i32))).sum();
        let raw = 0.7213 / (1.0 + 1.079 / m) * m * m / sum;
        let zeros = self.registers.iter().filter(|&&r| r == 0).count();
        if raw <= 2.5 * m && zeros > 0 {
            // Few values: linear counting is the better estimate.
            m * (m / zeros as f64).ln()
        } else {
            raw
        }
    }
}

/// Calls `f(row, hash)` for every non-NULL row among the first `len` rows of `v`
/// (`v` flat, or constant with `len` 1).
pub fn hash_rows(v: &Vector, len: usize, mut f: impl FnMut(usize, u64)) {
    let f = &mut f;
    match &v.data {
        VectorData::Bool(x) => each_valid(v, len, f, |i| mix(x[i] as u64)),
        VectorData::I8(x) => each_valid(v, len, f, |i| mix(x[i] as u64)),
        VectorData::I16(x) => each_valid(v, len, f, |i| mix(x[i] as u64)),
        VectorData::I32(x) => each_valid(v, len, f, |i| mix(x[i] as u64)),
        VectorData::I64(x) => each_valid(v, len, f, |i| mix(x[i] as u64)),
        VectorData::I128(x) => {
            each_valid(v, len, f, |i| mix(x[i] as u64 ^ mix((x[i] >> 64) as u64)))
        }
        // Values that `=` finds equal hash alike: -0.0 and 0.0, every NaN, and
        // intervals of one length ('1 month', '30 days').
        VectorData::F32(x) => each_valid(v, len, f, |i| mix(float_bits(x[i] as f64))),
        VectorData::F64(x) => each_valid(v, len, f, |i| mix(float_bits(x[i]))),
        VectorData::Interval(x) => each_valid(v, len, f, |i| {
            let n = x[i].normalized_micros();
            mix(n as u64 ^ mix((n >> 64) as u64))
        }),
        VectorData::Str(s) => each_valid(v, len, f, |i| hash_bytes(s.get_bytes(i))),
        VectorData::List(_) | VectorData::Struct(_) => {
            each_valid(v, len, f, |i| hash_bytes(v.get(i).to_string().as_bytes()))
        }
    }
}

/// `f(row, hash(row))` for the valid rows among the first `len`; generic over the
/// hash, so each type's loop is compiled with its hash inline (a `dyn` call per row
/// was most of `approx_count_distinct`'s time).
#[inline(always)]
fn each_valid(v: &Vector, len: usize, f: &mut impl FnMut(usize, u64), hash: impl Fn(usize) -> u64) {
    if v.validity.has_nulls() {
        (0..len)
            .filter(|&i| v.validity.is_valid(i))
            .for_each(|i| f(i, hash(i)));
    } else {
        (0..len).for_each(|i| f(i, hash(i)));
    }
}

/// A float's bits with -0.0 as 0.0 and one NaN for all.
#[inline]
fn float_bits(x: f64) -> u64 {
    if x == 0.0 {
        0
    } else if x.is_nan() {
        f64::NAN.to_bits()
    } else {
        x.to_bits()
    }
}

/// The finalizer of SplitMix64: spreads the bits of a value over the whole word.
#[inline]
pub fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A hash of bytes: eight at a time, each word mixed into the running value.
pub fn hash_bytes(b: &[u8]) -> u64 {
    let mut h = 0x5712_1de5_u64 ^ b.len() as u64;
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        h = mix(h ^ u64::from_le_bytes(w.try_into().expect("8 bytes")));
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        h = mix(h ^ u64::from_le_bytes(last) ^ 0xff);
    }
    mix(h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DataType;

    #[test]
    fn estimates_within_a_few_percent() {
        let mut s = Sketch::new(12);
        let v = Vector::from_values(DataType::BigInt, (0..200_000i64).collect());
        s.add(&v, 200_000);
        let e = s.estimate();
        assert!((e - 200_000.0).abs() < 200_000.0 * 0.05, "{e}");
        let mut t = Sketch::new(12);
        t.add(&v, 1000);
        let mut u = Sketch::from_registers(t.registers().to_vec()).unwrap();
        u.merge(&s);
        assert_eq!(u, s);
        let mut words = Sketch::new(10);
        for i in 0..500 {
            words.insert(hash_bytes(format!("word{i}").as_bytes()));
        }
        assert!((words.estimate() - 500.0).abs() < 25.0);
        assert!(Sketch::from_registers(vec![0; 100]).is_none());
    }
}
