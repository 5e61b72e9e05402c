//! Some rows of a stored segment as a segment of their own, cut from its bytes: what a
//! DELETE leaves of a column it did not otherwise touch. A DELETE of rows spread over
//! a whole table changes every row group; decoding every column to keep the other rows
//! and encoding them all again at the next checkpoint (analysis, FSST symbol tables)
//! would cost more than loading the table. Here bit-packed integers keep their frame
//! and width, dictionaries the values still used, and FSST strings the symbol table
//! and each kept row's codes; the other codecs (run-length, decimal floats, plain) are
//! decoded and encoded again.

use super::{bitpacking, decode, encode, BITPACKED, DICTIONARY, FSST};
use crate::serialize::{read_strings, read_validity, write_strings, write_validity_of};
use crate::serialize::{ByteReader, ByteWriter};
use crate::zone_map::ZoneMap;
use stride_common::{DataType, Error, PhysicalType, Result};

/// The segment of rows `keep` (increasing, each below `len`) of the segment `bytes`,
/// which holds `len` rows of type `ty` and has the zone map `zone`; with its zone map:
/// exact where the values were decoded, else the exact rows and NULLs and the bounds of
/// `zone`, which hold every kept value ([`ZoneMap::holds`]).
pub fn take(
    bytes: &[u8],
    ty: &DataType,
    len: usize,
    keep: &[u32],
    zone: &ZoneMap,
) -> Result<(Vec<u8>, ZoneMap)> {
    use PhysicalType::*;
    if keep.last().is_some_and(|&k| k as usize >= len) {
        return Err(Error::internal("rows to keep past the segment's end"));
    }
    let mut r = ByteReader::new(bytes, "a column segment");
    let codec = r.u8()?;
    let integer = matches!(ty.physical(), Bool | I8 | I16 | I32 | I64 | I128);
    let cut = match codec {
        BITPACKED => integer,
        DICTIONARY | FSST => ty.physical() == Str,
        _ => false,
    };
    if !cut {
        let values = decode(bytes, ty, len)?.take(keep);
        return Ok((
            encode(&values, keep.len()),
            ZoneMap::of(&values, keep.len()),
        ));
    }
    let validity = read_validity(&mut r, len)?.take(keep);
    let rows = keep.len() as u64;
    let nulls = rows - validity.count_valid(keep.len()) as u64;
    let zone = ZoneMap {
        rows,
        nulls,
        bounds: zone.bounds.clone().filter(|_| nulls < rows),
    };
    let mut w = ByteWriter::new();
    w.u8(codec);
    write_validity_of(&mut w, &validity, keep.len());
    let pick = |values: &[i64]| -> Vec<i64> { keep.iter().map(|&k| values[k as usize]).collect() };
    match codec {
        BITPACKED => {
            let frame = r.position();
            let values = bitpacking::unpack(&mut r, len)?;
            let min = i64::from_le_bytes(bytes[frame..frame + 8].try_into().expect("8"));
            bitpacking::pack(&mut w, &pick(&values), min, bytes[frame + 8]);
        }
        DICTIONARY => {
            let n = r.len_of(4)?;
            let strings = read_strings(&mut r, n, crate::serialize::is_text(ty))?;
            let codes = bitpacking::unpack(&mut r, len)?;
            if codes.iter().any(|&c| c < 0 || c as usize >= n) {
                return Err(r.corrupt("a dictionary code past its end"));
            }
            // Only the values kept rows use, in their order, so that the dictionary
            // still holds exactly the column's values.
            let mut renumber = vec![-1i64; n];
            let mut used = Vec::new();
            let kept: Vec<i64> = pick(&codes)
                .into_iter()
                .map(|c| {
                    let slot = &mut renumber[c as usize];
                    if *slot < 0 {
                        *slot = used.len() as i64;
                        used.push(strings[c as usize]);
                    }
                    *slot
                })
                .collect();
            w.len_of(used.len());
            write_strings(&mut w, &used);
            let width = bitpacking::width_of(used.len().saturating_sub(1) as u64);
            bitpacking::pack(&mut w, &kept, 0, width);
        }
        _ => {
            let table = r.position();
            let n = r.u8()? as usize;
            let symbol_bytes: usize = r.raw(n)?.iter().map(|&l| l as usize).sum();
            r.raw(symbol_bytes)?;
            w.raw(&bytes[table..r.position()]);
            let lens = bitpacking::unpack(&mut r, len)?;
            let total = usize::try_from(r.u64()?).unwrap_or(usize::MAX);
            let encoded = r.raw(total)?;
            let mut starts = Vec::with_capacity(len + 1);
            let mut at = 0usize;
            for &l in &lens {
                starts.push(at);
                at = at.saturating_add(usize::try_from(l).unwrap_or(usize::MAX));
            }
            if at != total {
                return Err(r.corrupt("FSST row lengths that do not add up to the encoded bytes"));
            }
            let kept = pick(&lens);
            let mut out = Vec::with_capacity(kept.iter().sum::<i64>() as usize);
            for (&k, &l) in keep.iter().zip(&kept) {
                let s = starts[k as usize];
                out.extend_from_slice(&encoded[s..s + l as usize]);
            }
            let longest = kept.iter().copied().max().unwrap_or(0);
            bitpacking::pack(&mut w, &kept, 0, bitpacking::width_of(longest as u64));
            w.u64(out.len() as u64);
            w.raw(&out);
        }
    }
    if !r.is_at_end() {
        return Err(r.corrupt("bytes follow the segment's values"));
    }
    Ok((w.bytes, zone))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every codec: the cut segment decodes to the kept rows, and is what the codec
    /// would write for them where it keeps its choices.
    #[test]
    fn cut_segments_hold_the_kept_rows() {
        let len = 3000;
        let keeps: Vec<Vec<u32>> = vec![
            (0..len as u32).filter(|i| i % 10 != 7).collect(),
            (0..len as u32).filter(|i| i % 5 == 1).collect(),
            vec![len as u32 - 1],
            vec![],
        ];
        for (v, codec) in crate::compression::samples(len) {
            let ty = v.ty.clone();
            let bytes = encode(&v, len);
            assert_eq!(bytes[0], codec, "{ty}");
            let zone = ZoneMap::of(&v, len);
            for keep in &keeps {
                let (cut, cut_zone) = take(&bytes, &ty, len, keep, &zone).unwrap();
                let back = decode(&cut, &ty, keep.len()).unwrap();
                assert!(cut_zone.holds(&back, keep.len()), "{ty}: {cut_zone:?}");
                for (j, &k) in keep.iter().enumerate() {
                    assert_eq!(back.get(j), v.get(k as usize), "{ty} codec {codec} row {k}");
                }
                if codec == DICTIONARY && keep.len() == len / 5 {
                    // Rows i % 5 == 1 all hold one value, and no NULL: the cut
                    // dictionary keeps that value alone.
                    let packed = crate::compression::packed::Packed::read(&cut, &ty, keep.len());
                    let values = packed.unwrap().unwrap().distinct_candidates().unwrap();
                    assert_eq!(values.data_len(), 1);
                }
            }
        }
        // A damaged segment is an error, never a panic.
        let (v, codec) = crate::compression::samples(100).swap_remove(5);
        assert_eq!(codec, FSST);
        let bytes = encode(&v, 100);
        let keep: Vec<u32> = (0..100).step_by(3).collect();
        let zone = ZoneMap::of(&v, 100);
        for cut in 0..bytes.len() {
            assert!(take(&bytes[..cut], &DataType::Varchar, 100, &keep, &zone).is_err());
        }
        assert!(take(&bytes, &DataType::Varchar, 100, &[100], &zone).is_err());
    }
}
