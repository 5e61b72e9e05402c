//! Column statistics for the optimizer: how many distinct values a column holds. The
//! join orderer divides by it (rows of a join = product of the inputs' rows over the
//! distinct key values), so it tells a key (`o_orderkey`: as many values as rows) from
//! a small domain (`c_nationkey`: 25).
//!
//! Counted with a HyperLogLog sketch over every value of the column (4096 registers,
//! about 2% error): one pass, no memory beyond the sketch. Samples would be cheaper
//! but cannot tell clustered duplicates (each `l_orderkey` four times in a row) from
//! distinct values. A segment the buffer pool holds compressed as a dictionary or as
//! runs adds only those values, which leaves the sketch as every row would.

use crate::column::Values;
use crate::table::RowGroup;
use std::sync::Arc;
use stride_common::{Vector, VectorData, VECTOR_SIZE};

const BITS: u32 = 12;
const REGISTERS: usize = 1 << BITS;

/// Estimated distinct non-NULL values of `column` in these row groups.
pub fn distinct_estimate(groups: &[Arc<RowGroup>], column: usize) -> f64 {
    let mut sketch = Sketch {
        registers: vec![0u8; REGISTERS],
    };
    for g in groups {
        // A column that cannot be read counts as empty here; the scan reports the error.
        let Some(Ok(values)) = g.columns.get(column).map(|c| c.values()) else {
            continue;
        };
        match values {
            Values::Vector(v) => sketch.add(&v, g.len),
            // A sketch only keeps the largest rank a register saw, so a value added
            // once or many times leaves it the same: a dictionary's or the runs' values
            // stand for every row.
            Values::Packed(p) => match p.distinct_candidates() {
                Some(v) => sketch.add(&v, v.data_len()),
                None => {
                    for offset in (0..g.len).step_by(VECTOR_SIZE) {
                        let n = VECTOR_SIZE.min(g.len - offset);
                        sketch.add(&p.window(offset, n), n);
                    }
                }
            },
        }
    }
    sketch.estimate()
}

/// A HyperLogLog sketch.
struct Sketch {
    registers: Vec<u8>,
}

impl Sketch {
    fn insert(&mut self, h: u64) {
        let slot = (h >> (64 - BITS)) as usize;
        let rank = ((h << BITS) | (1 << (BITS - 1))).leading_zeros() as u8 + 1;
        self.registers[slot] = self.registers[slot].max(rank);
    }

    /// Adds the non-NULL values of the first `len` rows of `v`.
    fn add(&mut self, v: &Vector, len: usize) {
        let len = if v.constant { len.min(1) } else { len };
        match &v.data {
            VectorData::Bool(x) => self.each(v, len, |i| mix(x[i] as u64)),
            VectorData::I8(x) => self.each(v, len, |i| mix(x[i] as u64)),
            VectorData::I16(x) => self.each(v, len, |i| mix(x[i] as u64)),
            VectorData::I32(x) => self.each(v, len, |i| mix(x[i] as u64)),
            VectorData::I64(x) => self.each(v, len, |i| mix(x[i] as u64)),
            VectorData::I128(x) => {
                self.each(v, len, |i| mix(x[i] as u64 ^ mix((x[i] >> 64) as u64)))
            }
            VectorData::F32(x) => self.each(v, len, |i| mix(x[i].to_bits() as u64)),
            VectorData::F64(x) => self.each(v, len, |i| mix(x[i].to_bits())),
            VectorData::Interval(x) => self.each(v, len, |i| {
                mix(x[i].micros as u64 ^ mix((x[i].months as u64) << 32 | x[i].days as u32 as u64))
            }),
            VectorData::Str(s) => self.each(v, len, |i| hash_of(s.get(i))),
            VectorData::List(_) => self.each(v, len, |i| hash_of(&v.get(i).to_string())),
        }
    }

    fn each(&mut self, v: &Vector, len: usize, hash: impl Fn(usize) -> u64) {
        if v.validity.has_nulls() {
            (0..len)
                .filter(|&i| v.validity.is_valid(i))
                .for_each(|i| self.insert(hash(i)));
        } else {
            (0..len).for_each(|i| self.insert(hash(i)));
        }
    }

    fn estimate(&self) -> f64 {
        let m = REGISTERS as f64;
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

/// The finalizer of SplitMix64: spreads the bits of a value over the whole word.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn hash_of(s: &str) -> u64 {
    use std::hash::BuildHasher;
    mix(foldhash::fast::FixedState::with_seed(0x5712_1de5).hash_one(s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use stride_common::DataType;

    fn group(values: Vec<i64>) -> Arc<RowGroup> {
        let len = values.len();
        Arc::new(RowGroup {
            columns: vec![crate::column::Column::memory(Vector::from_values(
                DataType::BigInt,
                values,
            ))],
            len,
        })
    }

    #[test]
    fn keys_and_small_domains() {
        let within = |e: f64, truth: f64| (e - truth).abs() <= truth * 0.05;
        let keys: Vec<Arc<RowGroup>> = (0..10)
            .map(|g| group((g * 100_000..(g + 1) * 100_000).collect()))
            .collect();
        let e = distinct_estimate(&keys, 0);
        assert!(within(e, 1_000_000.0), "{e}");
        let small: Vec<Arc<RowGroup>> = (0..10)
            .map(|g| group((g * 100_000..(g + 1) * 100_000).map(|i| i % 25).collect()))
            .collect();
        let e = distinct_estimate(&small, 0);
        assert!(within(e, 25.0), "{e}");
        // Each value four times in a row, like l_orderkey.
        let repeated: Vec<Arc<RowGroup>> = (0..10)
            .map(|g| group((g * 100_000..(g + 1) * 100_000).map(|i| i / 4).collect()))
            .collect();
        let e = distinct_estimate(&repeated, 0);
        assert!(within(e, 250_000.0), "{e}");
        assert!(within(
            distinct_estimate(&[group(vec![1, 2, 2, 3])], 0),
            3.0
        ));
        assert_eq!(distinct_estimate(&[], 0), 0.0);
    }
}
