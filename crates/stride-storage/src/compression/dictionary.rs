//! Dictionary encoding for strings: each distinct value stored once, rows as
//! bit-packed codes into that list. TPC-H's `l_shipmode` (7 values) takes 3 bits a
//! row instead of its characters.
//!
//! Layout: the number of distinct values (u32), their lengths (u32 each), their total
//! byte count (u64) and bytes, then the codes bit-packed (see `bitpacking`, minimum 0).

use super::bitpacking;
use crate::serialize::{ByteReader, ByteWriter};
use std::collections::HashMap;
use stride_common::{Result, StringVector};

/// The distinct values of the first `len` rows (in first-seen order) and each row's
/// code, when there are at most `limit` of them.
pub fn analyze(s: &StringVector, len: usize, limit: usize) -> Option<(Vec<&[u8]>, Vec<i64>)> {
    let mut index: HashMap<&[u8], i64> = HashMap::new();
    let mut values = Vec::new();
    let mut codes = Vec::with_capacity(len);
    for i in 0..len {
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
    let mut total = 0u64;
    for v in values {
        w.len_of(v.len());
        total += v.len() as u64;
    }
    w.u64(total);
    for v in values {
        w.raw(v);
    }
    let width = bitpacking::width_of(values.len().saturating_sub(1) as u64);
    bitpacking::pack(w, codes, 0, width);
}

pub fn decode(r: &mut ByteReader, len: usize) -> Result<StringVector> {
    let n = r.len_of(4)?;
    let lens = r.raw(n * 4)?;
    let total = r.u64()?;
    let bytes = r.raw(usize::try_from(total).unwrap_or(usize::MAX))?;
    let mut values: Vec<&str> = Vec::with_capacity(n);
    let mut at = 0usize;
    for c in lens.chunks_exact(4) {
        let k = u32::from_le_bytes(c.try_into().expect("4")) as usize;
        let piece = bytes
            .get(at..at + k)
            .ok_or_else(|| r.corrupt("dictionary lengths exceed its bytes"))?;
        values.push(std::str::from_utf8(piece).map_err(|_| r.corrupt("a string is not UTF-8"))?);
        at += k;
    }
    let codes = bitpacking::unpack(r, len)?;
    let mut s = StringVector::with_capacity(len);
    for c in codes {
        let v = values
            .get(usize::try_from(c).unwrap_or(usize::MAX))
            .ok_or_else(|| r.corrupt("a dictionary code past its end"))?;
        s.push(v);
    }
    Ok(s)
}
