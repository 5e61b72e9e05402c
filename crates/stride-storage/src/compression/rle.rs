//! Run-length encoding: integers stored as runs of one value, each value and run
//! length bit-packed with a frame of reference ([`super::bitpacking`]). It wins over
//! plain bit-packing on sorted and clustered columns: TPC-H's `l_orderkey` repeats
//! each key for its 1 to 7 line items, so its 6 million values are 1.5 million runs.
//!
//! Layout: the number of runs (u32), the runs' values bit-packed, then their lengths
//! bit-packed (each at least 1; they add up to the row count).

use super::bitpacking;
use crate::serialize::{ByteReader, ByteWriter};
use stride_common::Result;

/// The values and lengths of the runs in `values`.
pub fn runs(values: &[i64]) -> (Vec<i64>, Vec<i64>) {
    let (mut vals, mut lens) = (Vec::new(), Vec::new());
    for &v in values {
        match vals.last() {
            Some(&last) if last == v => *lens.last_mut().expect("a run") += 1,
            _ => {
                vals.push(v);
                lens.push(1i64);
            }
        }
    }
    (vals, lens)
}

/// Bytes [`encode`] would write for the runs of `values` (which fit `value_width`
/// bits above their minimum), counted without building the runs: most columns are not
/// worth it, and building their runs cost more than the test.
pub fn size(values: &[i64], value_width: u8) -> usize {
    let (mut n, mut longest, mut current) = (0usize, 1usize, 0usize);
    for (i, &v) in values.iter().enumerate() {
        if i == 0 || values[i - 1] != v {
            n += 1;
            current = 0;
        }
        current += 1;
        longest = longest.max(current);
    }
    let len_width = bitpacking::width_of((longest - 1) as u64);
    4 + 2 * 9 + (n * value_width as usize).div_ceil(8) + (n * len_width as usize).div_ceil(8)
}

/// Writes the runs; their values' minimum is `min` and they fit `width` bits above it.
pub fn encode(w: &mut ByteWriter, runs: &(Vec<i64>, Vec<i64>), min: i64, width: u8) {
    let (vals, lens) = runs;
    w.u32(vals.len() as u32);
    bitpacking::pack(w, vals, min, width);
    let longest = lens.iter().copied().max().unwrap_or(1);
    bitpacking::pack(w, lens, 1, bitpacking::width_of((longest - 1) as u64));
}

/// Runs written by [`encode`], kept as runs: the buffer pool may hold a segment this
/// way, and scans expand a window of rows at a time ([`super::packed`]).
pub struct Runs {
    values: Vec<i64>,
    /// The row after each run's last: increasing, the last one is the row count.
    ends: Vec<u32>,
}

impl Runs {
    /// Reads and checks the runs of `len` rows.
    pub fn read(r: &mut ByteReader, len: usize) -> Result<Runs> {
        let n = r.u32()? as usize;
        if n > len {
            return Err(r.corrupt(&format!("{n} runs in {len} rows")));
        }
        let values = bitpacking::unpack(r, n)?;
        let lens = bitpacking::unpack(r, n)?;
        let mut ends = Vec::with_capacity(n);
        let mut end = 0usize;
        for &l in &lens {
            if l < 1 || l as usize > len - end {
                return Err(r.corrupt(&format!("a run of {l} rows")));
            }
            end += l as usize;
            ends.push(end as u32);
        }
        if end != len {
            return Err(r.corrupt(&format!("runs of {end} rows in {len}")));
        }
        Ok(Runs { values, ends })
    }

    /// Bytes held.
    pub fn size(&self) -> usize {
        self.values.len() * 12
    }

    /// Each run's value.
    pub fn values(&self) -> &[i64] {
        &self.values
    }

    /// Appends rows `offset..offset + n`, each converted by `to`, to `out`.
    pub fn unpack_into<T: Copy>(
        &self,
        offset: usize,
        n: usize,
        to: impl Fn(i64) -> T,
        out: &mut Vec<T>,
    ) {
        let end = offset + n;
        let mut row = offset;
        let mut k = self.ends.partition_point(|&e| e as usize <= offset);
        while row < end {
            let stop = (self.ends[k] as usize).min(end);
            out.extend(std::iter::repeat_n(to(self.values[k]), stop - row));
            row = stop;
            k += 1;
        }
    }
}
