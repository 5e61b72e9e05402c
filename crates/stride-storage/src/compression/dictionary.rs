//! Dictionary encoding for strings: each distinct value stored once, rows as
//! bit-packed codes into that list. TPC-H's `l_shipmode` (7 values) takes 3 bits a
//! row instead of its characters.
//!
//! Layout: the number of distinct values (u32), their lengths (u32 each), their total
//! byte count (u64) and bytes, then the codes bit-packed (see `bitpacking`, minimum 0).

use super::bitpacking::{self, BitPacked};
use crate::serialize::{read_strings, write_strings, ByteReader, ByteWriter};
use std::collections::HashMap;
use stride_common::{Result, StringVector, VECTOR_SIZE};

/// Rows looked at before giving up on a column that is mostly distinct.
const PROBE: usize = 2048;

/// The distinct values of the first `len` rows (in first-seen order) and each row's
/// code, when there are at most `limit` of them. A column whose first [`PROBE`] rows
/// are mostly distinct is given up on early.
pub fn analyze(s: &StringVector, len: usize, limit: usize) -> Option<(Vec<&[u8]>, Vec<i64>)> {
    // Strings short enough to sit in their views are looked up by the view's two
    // words (equal exactly when the strings are), longer ones by their bytes.
    let mut inline: HashMap<[u64; 2], i64, foldhash::fast::RandomState> = HashMap::default();
    let mut index: HashMap<&[u8], i64, foldhash::fast::RandomState> = HashMap::default();
    let mut values = Vec::new();
    let mut codes = Vec::with_capacity(len);
    for i in 0..len {
        if i == PROBE && values.len() > PROBE / 2 {
            return None;
        }
        let view = &s.views[i];
        let next = values.len() as i64;
        let code = if view.is_inline() {
            *inline.entry(view.words()).or_insert_with(|| {
                values.push(s.bytes_of(view));
                next
            })
        } else {
            let b = s.bytes_of(view);
            *index.entry(b).or_insert_with(|| {
                values.push(b);
                next
            })
        };
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

/// A dictionary segment kept encoded: the buffer pool may hold a segment this way, and
/// scans decode a window of rows at a time ([`super::packed`]), each row's view a copy
/// of its value's (long values stay in the dictionary's one buffer).
pub struct Dictionary {
    values: StringVector,
    codes: BitPacked,
}

impl Dictionary {
    /// Reads the dictionary and the codes of `len` rows, checking every code.
    /// `text`: the values must be UTF-8 (not a BLOB column).
    pub fn read(r: &mut ByteReader, len: usize, text: bool) -> Result<Dictionary> {
        let n = r.len_of(4)?;
        let strings = read_strings(r, n, text)?;
        let codes = BitPacked::read(r, len)?;
        let mut chunk = Vec::with_capacity(VECTOR_SIZE);
        for at in (0..len).step_by(VECTOR_SIZE) {
            chunk.clear();
            codes.unpack_into(at, VECTOR_SIZE.min(len - at), |c| c as u64, &mut chunk);
            if chunk.iter().any(|&c| c >= n as u64) {
                return Err(r.corrupt("a dictionary code past its end"));
            }
        }
        let mut values = StringVector::with_capacity(n);
        for v in strings {
            // checked to be UTF-8 by `read_strings` unless a BLOB
            values.push_blob(v);
        }
        Ok(Dictionary { values, codes })
    }

    /// Bytes held.
    pub fn size(&self) -> usize {
        let heap: usize = self.values.buffers.iter().map(|b| b.len()).sum();
        self.values.len() * 16 + heap + self.codes.size()
    }

    /// The distinct strings.
    pub fn values(&self) -> &StringVector {
        &self.values
    }

    /// The strings of rows `offset..offset + n`.
    pub fn window(&self, offset: usize, n: usize) -> StringVector {
        let mut codes = Vec::with_capacity(n);
        self.codes(offset, n, &mut codes);
        self.values.take(&codes)
    }

    /// The codes of rows `offset..offset + n`, appended to `out`.
    pub fn codes(&self, offset: usize, n: usize, out: &mut Vec<u32>) {
        self.codes.unpack_into(offset, n, |c| c as u32, out);
    }
}
