//! Dictionary encoding for strings: each distinct value stored once, rows as
//! bit-packed codes into that list. TPC-H's `l_shipmode` (7 values) takes 3 bits a
//! row instead of its characters.
//!
//! Layout: the number of distinct values (u32), their lengths (u32 each), their total
//! byte count (u64) and bytes, then the codes bit-packed (see `bitpacking`, minimum 0).

use super::bitpacking;
use crate::serialize::{read_strings, write_strings, ByteReader, ByteWriter};
use std::collections::HashMap;
use stride_common::{Result, StringVector};

/// Rows looked at before giving up on a column that is mostly distinct.
const PROBE: usize = 2048;

/// The distinct values of the first `len` rows (in first-seen order) and each row's
/// code, when there are at most `limit` of them. A column whose first [`PROBE`] rows
/// are mostly distinct is given up on early.
pub fn analyze(s: &StringVector, len: usize, limit: usize) -> Option<(Vec<&[u8]>, Vec<i64>)> {
    let mut index: HashMap<&[u8], i64, foldhash::fast::RandomState> = HashMap::default();
    let mut values = Vec::new();
    let mut codes = Vec::with_capacity(len);
    for i in 0..len {
        if i == PROBE && values.len() > PROBE / 2 {
            return None;
        }
        let b = s.bytes_of(&s.views[i]);
        let next = values.len() as i64;
        let code = *index.entry(b).or_insert_with(|| {
            values.push(b);
            next
        });
        if values.len() > limit {
            return None;
        }
        codes.push(code);
    }
    Some((values, codes))
}

pub fn encode(w: &mut ByteWriter, values: &[&[u8]], codes: &[i64]) {
    w.len_of(values.len());
    write_strings(w, values);
    let width = bitpacking::width_of(values.len().saturating_sub(1) as u64);
    bitpacking::pack(w, codes, 0, width);
}

pub fn decode(r: &mut ByteReader, len: usize) -> Result<StringVector> {
    let n = r.len_of(4)?;
    let values = read_strings(r, n)?;
    let codes = bitpacking::unpack_as(r, len, |c| u32::try_from(c).unwrap_or(u32::MAX))?;
    if codes.iter().any(|&c| c as usize >= n) {
        return Err(r.corrupt("a dictionary code past its end"));
    }
    let mut dictionary = StringVector::with_capacity(n);
    for v in values {
        dictionary.push(v);
    }
    // Each row's view is a copy of its value's; long values stay in one shared buffer.
    Ok(dictionary.take(&codes))
}
