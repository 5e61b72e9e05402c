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
use stride_common::sketch::Sketch;
use stride_common::VECTOR_SIZE;

/// 4096 registers: about 2% error.
const BITS: u32 = 12;

/// Estimated distinct non-NULL values of `column` in these row groups.
pub fn distinct_estimate(groups: &[Arc<RowGroup>], column: usize) -> f64 {
    let mut sketch = Sketch::new(BITS);
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

#[cfg(test)]
mod tests {
    use super::*;
    use stride_common::{DataType, Vector};

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
