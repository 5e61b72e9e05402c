//! Segments kept compressed in memory. A bit-packed, run-length or dictionary segment
//! is read into this form, and a table scan ([`crate::column::Values`]) decodes one
//! vector's window of rows at a time, just before the operators above it read them.
//! The buffer pool ([`crate::buffer`]) caches segments this way when first scanned: a
//! scan of columns not in memory yet then writes no decoded copy of them (for TPC-H
//! Q1, 400 MB of fresh pages the kernel would have to zero), and the pool holds several
//! times more of a database than decoded.
//!
//! Decoding these codecs whole ([`super::decode`]) is the window of all the rows.

use super::bitpacking::BitPacked;
use super::dictionary::Dictionary;
use super::rle::Runs;
use super::{BITPACKED, DICTIONARY, RLE};
use crate::serialize::{is_text, read_validity, ByteReader};
use stride_common::{DataType, PhysicalType, Result, Validity, Vector, VectorData};

/// One segment's values, compressed.
pub struct Packed {
    ty: DataType,
    len: usize,
    validity: Validity,
    form: Form,
}

enum Form {
    Bits(BitPacked),
    Runs(Runs),
    Dictionary(Dictionary),
}

impl Packed {
    /// The `len` rows of type `ty` in segment `bytes`, when its codec decodes by
    /// windows (bit-packed or run-length integers, dictionary strings); `None` for the
    /// other codecs. A damaged segment is an error.
    pub fn read(bytes: &[u8], ty: &DataType, len: usize) -> Result<Option<Packed>> {
        use PhysicalType::*;
        let mut r = ByteReader::new(bytes, "a column segment");
        let codec = r.u8()?;
        let integer = matches!(ty.physical(), Bool | I8 | I16 | I32 | I64 | I128);
        let readable = match codec {
            BITPACKED | RLE => integer,
            DICTIONARY => ty.physical() == Str,
            _ => false,
        };
        if !readable {
            return Ok(None);
        }
        let validity = read_validity(&mut r, len)?;
        let form = match codec {
            BITPACKED => Form::Bits(BitPacked::read(&mut r, len)?),
            RLE => Form::Runs(Runs::read(&mut r, len)?),
            _ => Form::Dictionary(Dictionary::read(&mut r, len, is_text(ty))?),
        };
        if !r.is_at_end() {
            return Err(r.corrupt("bytes follow the segment's values"));
        }
        Ok(Some(Packed {
            ty: ty.clone(),
            len,
            validity,
            form,
        }))
    }

    /// Bytes held (what the buffer pool counts).
    pub fn size(&self) -> usize {
        let form = match &self.form {
            Form::Bits(b) => b.size(),
            Form::Runs(r) => r.size(),
            Form::Dictionary(d) => d.size(),
        };
        let validity = match self.validity.has_nulls() {
            true => self.len.div_ceil(8),
            false => 0,
        };
        form + validity
    }

    /// Rows `offset..offset + n`, decoded.
    pub fn window(&self, offset: usize, n: usize) -> Vector {
        let data = match self.ty.physical() {
            PhysicalType::Bool => VectorData::Bool(self.integers(offset, n, |x| x != 0).into()),
            PhysicalType::I8 => VectorData::I8(self.integers(offset, n, |x| x as i8).into()),
            PhysicalType::I16 => VectorData::I16(self.integers(offset, n, |x| x as i16).into()),
            PhysicalType::I32 => VectorData::I32(self.integers(offset, n, |x| x as i32).into()),
            PhysicalType::I64 => VectorData::I64(self.integers(offset, n, |x| x).into()),
            PhysicalType::I128 => VectorData::I128(self.integers(offset, n, |x| x as i128).into()),
            _ => match &self.form {
                Form::Dictionary(d) => VectorData::Str(d.window(offset, n)),
                _ => unreachable!("integer codecs are read only for integer types"),
            },
        };
        let validity = match (offset, n) {
            (0, n) if n == self.len => self.validity.clone(),
            _ => self.validity.slice(offset, n),
        };
        Vector::new(self.ty.clone(), data, validity)
    }

    /// A dictionary segment's distinct values; `None` for the other codecs.
    pub fn dictionary(&self) -> Option<&stride_common::StringVector> {
        match &self.form {
            Form::Dictionary(d) => Some(d.values()),
            _ => None,
        }
    }

    /// A dictionary segment's codes of rows `offset..offset + n` (each row's position
    /// among [`Packed::dictionary`]'s values; any for a NULL row) into `out`.
    pub fn codes(&self, offset: usize, n: usize, out: &mut Vec<u32>) {
        out.clear();
        if let Form::Dictionary(d) = &self.form {
            d.codes(offset, n, out);
        }
    }

    /// Whether row `row` is not NULL.
    pub fn is_valid(&self, row: usize) -> bool {
        self.validity.is_valid(row)
    }

    /// Rows `offset + rows[i]`, decoded: only those, where the codec allows.
    pub fn take(&self, offset: usize, rows: &[u32]) -> Vector {
        let Some(&last) = rows.last() else {
            return Vector::empty(&self.ty);
        };
        match &self.form {
            Form::Dictionary(d) => {
                let mut codes = Vec::with_capacity(last as usize + 1);
                d.codes(offset, last as usize + 1, &mut codes);
                let picked: Vec<u32> = rows.iter().map(|&r| codes[r as usize]).collect();
                let at: Vec<u32> = rows.iter().map(|&r| offset as u32 + r).collect();
                Vector::new(
                    self.ty.clone(),
                    VectorData::Str(d.values().take(&picked)),
                    self.validity.take(&at),
                )
            }
            _ => self.window(offset, last as usize + 1).take(rows),
        }
    }

    /// When no row is NULL: every distinct value of the segment, each at least once
    /// and few times (a dictionary's values, the runs' values); `None` for other
    /// segments. A distinct count over these equals one over every row.
    pub fn distinct_candidates(&self) -> Option<Vector> {
        if self.validity.has_nulls() {
            return None;
        }
        let data = match &self.form {
            Form::Dictionary(d) => VectorData::Str(d.values().clone()),
            Form::Runs(r) => {
                let v = r.values();
                match self.ty.physical() {
                    PhysicalType::Bool => {
                        VectorData::Bool(v.iter().map(|&x| x != 0).collect::<Vec<_>>().into())
                    }
                    PhysicalType::I8 => {
                        VectorData::I8(v.iter().map(|&x| x as i8).collect::<Vec<_>>().into())
                    }
                    PhysicalType::I16 => {
                        VectorData::I16(v.iter().map(|&x| x as i16).collect::<Vec<_>>().into())
                    }
                    PhysicalType::I32 => {
                        VectorData::I32(v.iter().map(|&x| x as i32).collect::<Vec<_>>().into())
                    }
                    PhysicalType::I64 => VectorData::I64(v.to_vec().into()),
                    _ => VectorData::I128(v.iter().map(|&x| x as i128).collect::<Vec<_>>().into()),
                }
            }
            Form::Bits(_) => return None,
        };
        Some(Vector::new(self.ty.clone(), data, Validity::all_valid()))
    }

    fn integers<T: Copy>(&self, offset: usize, n: usize, to: impl Fn(i64) -> T) -> Vec<T> {
        let mut out = Vec::with_capacity(n);
        match &self.form {
            Form::Bits(b) => b.unpack_into(offset, n, to, &mut out),
            Form::Runs(r) => r.unpack_into(offset, n, to, &mut out),
            Form::Dictionary(_) => unreachable!("dictionaries are read only for strings"),
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compression::encode;
    use stride_common::ScalarValue;

    /// Every window of a packed segment equals the same rows of the whole decode; only
    /// bit-packed, run-length and dictionary segments are read packed.
    #[test]
    fn windows_match_the_whole_values() {
        use ScalarValue::*;
        let len = 5000;
        for (v, codec) in crate::compression::samples(len) {
            let ty = v.ty.clone();
            let bytes = encode(&v, len);
            assert_eq!(bytes[0], codec, "{ty}");
            let Some(packed) = Packed::read(&bytes, &ty, len).unwrap() else {
                assert!(![BITPACKED, RLE, DICTIONARY].contains(&codec), "{ty}");
                continue;
            };
            for (offset, n) in [(0, len), (0, 2048), (2048, 2048), (4096, 904), (13, 999)] {
                let w = packed.window(offset, n);
                for i in 0..n {
                    assert_eq!(w.get(i), v.get(offset + i), "{ty} row {}", offset + i);
                }
            }
        }
        // The distinct candidates of NULL-free runs and dictionaries are the values.
        for (ty, values) in [
            (
                DataType::BigInt,
                (0..5000).map(|i| BigInt(7 + i / 3)).collect::<Vec<_>>(),
            ),
            (
                DataType::Varchar,
                (0..5000).map(|i| Varchar(format!("x{}", i % 11))).collect(),
            ),
        ] {
            let mut v = Vector::empty(&ty);
            values.iter().for_each(|x| v.push(x).unwrap());
            let packed = Packed::read(&encode(&v, len), &ty, len)
                .unwrap()
                .expect("packed");
            let c = packed.distinct_candidates().expect("candidates");
            let mut got: Vec<String> = (0..c.data_len()).map(|i| c.get(i).to_string()).collect();
            let mut want: Vec<String> = values.iter().map(|x| x.to_string()).collect();
            for list in [&mut got, &mut want] {
                list.sort();
                list.dedup();
            }
            assert_eq!(got, want, "{ty}");
        }
    }
}
