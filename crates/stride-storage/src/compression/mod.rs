//! Column segment codecs: how a checkpoint stores one column of one row group, chosen
//! per segment by looking at its values. A segment is a codec byte, then:
//!
//! - 0, plain: the column's encoding from [`crate::serialize::write_vector`];
//! - 3, bit-packed ([`bitpacking`]): a validity, then integers (BOOLEAN, TINYINT to
//!   BIGINT, DATE, TIMESTAMP, DECIMAL whose values fit 64 bits) as differences from
//!   their minimum in as few bits as the largest needs; a column of one value takes 0
//!   bits a row;
//! - 4, dictionary ([`dictionary`]): a validity, then the distinct strings once and
//!   bit-packed codes, when a column repeats a few values;
//! - 5, FSST ([`fsst`]): a validity, then a table of up to 255 short symbols and each
//!   row's bytes as one-byte symbol codes, for strings that rarely repeat whole but
//!   share pieces (words, prefixes), when that is at least a tenth smaller;
//! - 6, run-length ([`rle`]): a validity, then integers as runs of one value, when
//!   that is smaller than bit-packing them (sorted and clustered columns);
//! - 7, decimal floats ([`alp`]): a validity, then REAL and DOUBLE values as integers
//!   over a power of ten, bit-packed, with the values that do not fit kept whole, when
//!   that is at least a tenth smaller.
//!
//! Intervals, lists and structs stay plain, as do integers that need their full width, strings
//! FSST cannot shrink and floats that are not decimals. A column of one value is
//! bit-packed in 0 bits a row. `docs/storage.md` has the bytes.
//!
//! Besides encoding and decoding whole segments: [`packed`] keeps the segments of the
//! codecs that decode by windows (bit-packed, run-length, dictionary) compressed in
//! memory for scans, and [`take`] cuts the rows a DELETE keeps out of a stored
//! segment's bytes.

pub mod alp;
pub mod bitpacking;
pub mod dictionary;
pub mod fsst;
pub mod packed;
pub mod rle;
pub mod take;

use crate::serialize::{
    read_validity, read_vector, write_validity, write_vector, ByteReader, ByteWriter,
};
use stride_common::{DataType, PhysicalType, Result, Vector, VectorData};

pub const PLAIN: u8 = 0;
pub const BITPACKED: u8 = 3;
pub const DICTIONARY: u8 = 4;
pub const FSST: u8 = 5;
pub const RLE: u8 = 6;
pub const ALP: u8 = 7;

/// The first `len` rows of `v` as a segment, in the codec that stores them smallest
/// of those that apply.
pub fn encode(v: &Vector, len: usize) -> Vec<u8> {
    let flat;
    let v = if v.constant {
        flat = v.clone().flatten(len);
        &flat
    } else {
        v
    };
    let mut w = ByteWriter::new();
    if let Some((values, min, width, bits)) = integers(v, len) {
        if rle::size(&values, width) < 9 + (len * width as usize).div_ceil(8) {
            w.u8(RLE);
            write_validity(&mut w, v, len);
            rle::encode(&mut w, &rle::runs(&values), min, width);
            return w.bytes;
        }
        if width < bits {
            w.u8(BITPACKED);
            write_validity(&mut w, v, len);
            bitpacking::pack(&mut w, &values, min, width);
            return w.bytes;
        }
    }
    let floats = match &v.data {
        VectorData::F64(d) => Some((alp::analyze(&d[..len], |i| v.validity.is_valid(i)), 8)),
        VectorData::F32(d) => Some((alp::analyze(&d[..len], |i| v.validity.is_valid(i)), 4)),
        _ => None,
    };
    if let Some((enc, width)) = floats {
        if enc.size() * 10 < len * width * 9 {
            w.u8(ALP);
            write_validity(&mut w, v, len);
            alp::encode(&mut w, &enc);
            return w.bytes;
        }
    }
    if let VectorData::Str(s) = &v.data {
        if let Some((values, codes)) = dictionary::analyze(s, len, len / 4 + 1) {
            w.u8(DICTIONARY);
            write_validity(&mut w, v, len);
            dictionary::encode(&mut w, &values, &codes);
            return w.bytes;
        }
        let strings: Vec<&[u8]> = (0..len)
            .map(|i| match v.validity.is_valid(i) {
                true => s.bytes_of(&s.views[i]),
                false => &[][..],
            })
            .collect();
        let plain: usize = strings.iter().map(|b| b.len() + 4).sum();
        let table = fsst::build(&strings);
        let mut f = ByteWriter::new();
        f.u8(FSST);
        write_validity(&mut f, v, len);
        fsst::encode(&mut f, &table, &strings);
        if f.bytes.len() * 10 < plain * 9 {
            return f.bytes;
        }
    }
    w.u8(PLAIN);
    write_vector(&mut w, v, len);
    w.bytes
}

/// Reads a segment of `len` rows of type `ty` written by [`encode`].
pub fn decode(bytes: &[u8], ty: &DataType, len: usize) -> Result<Vector> {
    if let Some(packed) = packed::Packed::read(bytes, ty, len)? {
        return Ok(packed.window(0, len));
    }
    let mut r = ByteReader::new(bytes, "a column segment");
    let v = match r.u8()? {
        PLAIN => read_vector(&mut r, ty, len)?,
        ALP if ty.physical() == PhysicalType::F64 => {
            let validity = read_validity(&mut r, len)?;
            let data = VectorData::F64(alp::decode::<f64>(&mut r, len)?.into());
            Vector::new(ty.clone(), data, validity)
        }
        ALP if ty.physical() == PhysicalType::F32 => {
            let validity = read_validity(&mut r, len)?;
            let data = VectorData::F32(alp::decode::<f32>(&mut r, len)?.into());
            Vector::new(ty.clone(), data, validity)
        }
        FSST if ty.physical() == PhysicalType::Str => {
            let validity = read_validity(&mut r, len)?;
            Vector::new(
                ty.clone(),
                VectorData::Str(fsst::decode(&mut r, len, crate::serialize::is_text(ty))?),
                validity,
            )
        }
        c => return Err(r.corrupt(&format!("unknown codec {c} for type {ty}"))),
    };
    if !r.is_at_end() {
        return Err(r.corrupt("bytes follow the segment's values"));
    }
    Ok(v)
}

/// An integer column's values as i64 (NULL rows take the minimum, so they do not
/// widen the range), the minimum, the bits the range needs and the bits a value
/// takes unpacked; `None` for other columns and for DECIMALs beyond 64 bits.
fn integers(v: &Vector, len: usize) -> Option<(Vec<i64>, i64, u8, u8)> {
    fn collect<T: Copy>(d: &[T], len: usize, to: impl Fn(T) -> Option<i64>) -> Option<Vec<i64>> {
        d[..len].iter().map(|&x| to(x)).collect()
    }
    let (raw, bits): (Vec<i64>, u8) = match &v.data {
        VectorData::Bool(d) => (collect(d, len, |x| Some(x as i64))?, 8),
        VectorData::I8(d) => (collect(d, len, |x| Some(x as i64))?, 8),
        VectorData::I16(d) => (collect(d, len, |x| Some(x as i64))?, 16),
        VectorData::I32(d) => (collect(d, len, |x| Some(x as i64))?, 32),
        VectorData::I64(d) => (collect(d, len, Some)?, 64),
        VectorData::I128(d) => {
            // Values of NULL rows may be anything: only valid ones must fit.
            let vals = (0..len)
                .map(|i| match v.validity.is_valid(i) {
                    true => i64::try_from(d[i]).ok(),
                    false => Some(0),
                })
                .collect::<Option<Vec<i64>>>()?;
            (vals, 128)
        }
        _ => return None,
    };
    let valid = |i: usize| v.validity.is_valid(i);
    let (mut min, mut max) = (i64::MAX, i64::MIN);
    for (i, &x) in raw.iter().enumerate() {
        if valid(i) {
            min = min.min(x);
            max = max.max(x);
        }
    }
    if min > max {
        (min, max) = (0, 0); // every row NULL
    }
    let values: Vec<i64> = if v.validity.has_nulls() {
        raw.iter()
            .enumerate()
            .map(|(i, &x)| if valid(i) { x } else { min })
            .collect()
    } else {
        raw
    };
    let width = bitpacking::width_of(max.wrapping_sub(min) as u64);
    Some((values, min, width, bits))
}

/// Columns of `len` rows that the encoder stores in each codec (NULLs in some), for
/// the codecs' tests: (values, the codec they get).
#[cfg(test)]
pub(crate) fn samples(len: usize) -> Vec<(Vector, u8)> {
    use stride_common::ScalarValue::*;
    use stride_common::{DataType, ScalarValue};
    let comment = |i: i64| format!("carefully final deposits {} sleep", i * 7919 % 100_000);
    let cases: Vec<(DataType, Box<dyn Fn(i64) -> ScalarValue>, u8)> = vec![
        (
            DataType::Decimal(15, 2),
            Box::new(|i| Decimal((i % 50 + 1) as i128 * 100, 15, 2)),
            BITPACKED,
        ),
        (
            DataType::Integer,
            Box::new(|i| {
                if i % 7 == 0 {
                    Null
                } else {
                    Integer(i as i32 * 3)
                }
            }),
            BITPACKED,
        ),
        (
            DataType::Boolean,
            Box::new(|i| {
                if i % 9 == 0 {
                    Null
                } else {
                    Boolean(i % 3 == 0)
                }
            }),
            BITPACKED,
        ),
        (
            DataType::BigInt,
            Box::new(|i| BigInt(1_000_000 + i / 5)),
            RLE,
        ),
        (
            DataType::Varchar,
            Box::new(|i| match i % 5 {
                0 => Null,
                1 => Varchar("a value longer than twelve bytes".into()),
                k => Varchar(format!("v{k}")),
            }),
            DICTIONARY,
        ),
        (
            DataType::Varchar,
            Box::new(move |i| {
                if i % 13 == 0 {
                    Null
                } else {
                    Varchar(comment(i))
                }
            }),
            FSST,
        ),
        (
            DataType::Double,
            Box::new(|i| Double((i * 7 % 1000) as f64 / 100.0)),
            ALP,
        ),
        (
            DataType::Double,
            Box::new(|i| Double(i as f64 / 3.0)),
            PLAIN,
        ),
    ];
    cases
        .into_iter()
        .map(|(ty, value, codec)| {
            let mut v = Vector::empty(&ty);
            (0..len).for_each(|i| v.push(&value(i as i64)).unwrap());
            (v, codec)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use stride_common::ScalarValue;

    fn round_trip(ty: DataType, values: &[ScalarValue], codec: u8) {
        let mut v = Vector::empty(&ty);
        for x in values {
            v.push(x).unwrap();
        }
        let bytes = encode(&v, values.len());
        assert_eq!(bytes[0], codec, "{ty} {values:?}");
        let back = decode(&bytes, &ty, values.len()).unwrap();
        let got: Vec<ScalarValue> = (0..values.len()).map(|i| back.get(i)).collect();
        assert_eq!(got, values);
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut], &ty, values.len()).is_err());
        }
    }

    #[test]
    fn each_codec_round_trips() {
        use ScalarValue::*;
        let many = |f: &dyn Fn(i64) -> ScalarValue| (0..1000).map(f).collect::<Vec<_>>();
        round_trip(
            DataType::Integer,
            &many(&|i| Integer((i % 7) as i32 - 3)),
            BITPACKED,
        );
        round_trip(
            DataType::BigInt,
            &many(&|i| {
                if i % 5 == 0 {
                    Null
                } else {
                    BigInt((1 << 40) + i)
                }
            }),
            BITPACKED,
        );
        round_trip(
            DataType::BigInt,
            &[BigInt(i64::MIN), BigInt(i64::MAX), Null],
            PLAIN,
        );
        round_trip(
            DataType::BigInt,
            &[BigInt(i64::MIN), BigInt(i64::MAX - 1)],
            PLAIN,
        );
        round_trip(
            DataType::Integer,
            &[Integer(i32::MIN), Integer(i32::MAX)],
            PLAIN,
        );
        round_trip(DataType::SmallInt, &[SmallInt(-5), SmallInt(5)], BITPACKED);
        round_trip(
            DataType::Boolean,
            &many(&|i| Boolean(i % 3 == 0)),
            BITPACKED,
        );
        round_trip(
            DataType::Date,
            &many(&|i| Date(8000 + i as i32 * 3)),
            BITPACKED,
        );
        round_trip(
            DataType::Decimal(15, 2),
            &many(&|i| Decimal(i as i128 * 101, 15, 2)),
            BITPACKED,
        );
        round_trip(
            DataType::Decimal(38, 0),
            &[Decimal(i128::MAX, 38, 0), Decimal(0, 38, 0)],
            PLAIN,
        );
        round_trip(
            DataType::Decimal(38, 0),
            &[Decimal(5, 38, 0), Null, Decimal(-5, 38, 0)],
            BITPACKED,
        );
        round_trip(DataType::Integer, &[Null, Null, Null], BITPACKED);
        round_trip(DataType::Integer, &many(&|_| Integer(42)), BITPACKED);
        let modes = ["MAIL", "SHIP", "a string longer than twelve bytes", ""];
        round_trip(
            DataType::Varchar,
            &many(&|i| {
                if i % 9 == 0 {
                    Null
                } else {
                    Varchar(modes[i as usize % 4].into())
                }
            }),
            DICTIONARY,
        );
        round_trip(
            DataType::Varchar,
            &many(&|i| {
                if i % 11 == 0 {
                    Null
                } else {
                    Varchar(format!("unique row number {i} of many"))
                }
            }),
            FSST,
        );
        // Too few bytes for a symbol table to pay off.
        round_trip(
            DataType::Varchar,
            &[Varchar("abcde".into()), Varchar("fghij".into()), Null],
            PLAIN,
        );
        round_trip(DataType::Double, &many(&|i| Double(i as f64 / 3.0)), PLAIN);
        round_trip(
            DataType::Double,
            &many(&|i| {
                if i % 13 == 0 {
                    Null
                } else {
                    Double((i * 7 % 1000) as f64 / 100.0)
                }
            }),
            ALP,
        );
        round_trip(DataType::Real, &many(&|i| Real(i as f32 * 0.5)), ALP);
        // Sorted keys repeated a few times each: runs.
        round_trip(DataType::BigInt, &many(&|i| BigInt(1_000_000 + i / 4)), RLE);
        round_trip(
            DataType::Integer,
            &many(&|i| {
                if i < 600 {
                    Null
                } else {
                    Integer((i / 100) as i32)
                }
            }),
            RLE,
        );
    }
}
