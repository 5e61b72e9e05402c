//! Casts between BIT and the integers, floats, BOOLEAN and BLOB, as DuckDB does them:
//! a number becomes the bits of its storage, most significant first (an INTEGER is
//! 32 bits, a UTINYINT 8, a DOUBLE its 64 IEEE bits); a BIT becomes the number its
//! bits spell in the target's width (two's complement when they fill it; more bits
//! than the width are an error, NULL under TRY_CAST), and a BLOB's bytes are bits
//! and back. Text casts are in `from_varchar`/`to_varchar`.

use crate::kernels::{map_rows, map_rows_to_strings, with_integer, SqlInt, StrSlot};
use stride_common::{bit, DataType, Error, PhysicalType, Result, Vector};

/// The bits of an integer or float type's values.
fn width_of(t: &DataType) -> Option<usize> {
    Some(match t {
        DataType::TinyInt | DataType::UTinyInt | DataType::Boolean => 8,
        DataType::SmallInt | DataType::USmallInt => 16,
        DataType::Integer | DataType::UInteger | DataType::Real => 32,
        DataType::BigInt | DataType::UBigInt | DataType::Double => 64,
        DataType::HugeInt => 128,
        _ => return None,
    })
}

/// Whether BIT casts to and from `t` exist.
pub(super) fn castable(t: &DataType) -> bool {
    width_of(t).is_some() || *t == DataType::Blob
}

fn out_of_bits(what: &DataType) -> Error {
    Error::conversion(format!("Bitstring doesn't fit inside of {what}"))
}

/// `v` (a number or BLOB) as BIT.
pub(super) fn to_bit(v: &Vector, len: usize) -> Result<Vector> {
    let from = v.ty.clone();
    let mut out = match from.physical() {
        PhysicalType::Str => {
            let s = StrSlot::new(v);
            map_rows_to_strings(&[v], len, |i, out| {
                out.push_blob(&bit::from_bytes(s.bytes(i)));
                Ok(())
            })?
        }
        PhysicalType::F32 => each_as_bits(v, len, |x: f32| x.to_bits().to_be_bytes().to_vec())?,
        PhysicalType::F64 => each_as_bits(v, len, |x: f64| x.to_bits().to_be_bytes().to_vec())?,
        PhysicalType::Bool => each_as_bits(v, len, |x: bool| vec![x as u8])?,
        p => {
            let bytes = width_of(&from).ok_or_else(|| unsupported(&from, &DataType::Bit))? / 8;
            with_integer!(p, T => each_as_bits(v, len, |x: T| {
                x.to_i128().to_be_bytes()[16 - bytes..].to_vec()
            })?, _ => return Err(unsupported(&from, &DataType::Bit)))
        }
    };
    out.ty = DataType::Bit;
    Ok(out)
}

/// Each value's bytes (`bytes_of`, most significant first) as its bits.
fn each_as_bits<T: stride_common::vector::NativeType>(
    v: &Vector,
    len: usize,
    bytes_of: impl Fn(T) -> Vec<u8>,
) -> Result<Vector> {
    let x = crate::kernels::Slot::<T>::new(v);
    map_rows_to_strings(&[v], len, |i, out| {
        out.push_blob(&bit::from_bytes(&bytes_of(x.get(i))));
        Ok(())
    })
}

fn unsupported(from: &DataType, to: &DataType) -> Error {
    Error::conversion(format!("Unimplemented type for cast ({from} -> {to})"))
}

/// `v` (a BIT) as `to`: a number, BOOLEAN or BLOB. Bits longer than the target's
/// width are an error, or NULL under TRY_CAST.
pub(super) fn from_bit(v: &Vector, len: usize, to: &DataType, try_cast: bool) -> Result<Vector> {
    if *to == DataType::Blob {
        let s = StrSlot::new(v);
        let mut out = map_rows_to_strings(&[v], len, |i, out| {
            out.push_blob(&bit::data_bytes(s.bytes(i)));
            Ok(())
        })?;
        out.ty = DataType::Blob;
        return Ok(out);
    }
    let width = width_of(to).ok_or_else(|| unsupported(&DataType::Bit, to))?;
    let input = match try_cast {
        true => too_long_as_null(v, len, width),
        false => v.clone(),
    };
    let v = &input;
    let s = StrSlot::new(v);
    // the bits as an unsigned number of at most `width` bits
    let unsigned = |i: usize| -> Result<u128> {
        let b = s.bytes(i);
        if bit::len(b) > width {
            return Err(out_of_bits(to));
        }
        Ok(bit::data_bytes(b)
            .iter()
            .fold(0u128, |acc, &byte| (acc << 8) | byte as u128))
    };
    let full = |i: usize| bit::len(s.bytes(i)) == width;
    match to.physical() {
        PhysicalType::Bool => map_rows(&[v], len, to.clone(), |i| Ok(unsigned(i)? != 0)),
        PhysicalType::F32 => map_rows(&[v], len, to.clone(), |i| {
            Ok(f32::from_bits(unsigned(i)? as u32))
        }),
        PhysicalType::F64 => map_rows(&[v], len, to.clone(), |i| {
            Ok(f64::from_bits(unsigned(i)? as u64))
        }),
        p => with_integer!(p, T => map_rows(&[v], len, to.clone(), |i| {
            let u = unsigned(i)?;
            // bits that fill a signed type are its two's complement
            let value = if full(i) && !to.is_unsigned() && width < 128 && u >> (width - 1) == 1 {
                u as i128 - (1i128 << width)
            } else {
                u as i128
            };
            T::from_i128(value).ok_or_else(|| out_of_bits(to))
        }), _ => Err(unsupported(&DataType::Bit, to))),
    }
}

/// `v` (a BIT) with the rows of more than `width` bits NULL.
fn too_long_as_null(v: &Vector, len: usize, width: usize) -> Vector {
    let rows = if v.constant { 1 } else { len };
    let s = StrSlot::new(v);
    let mut out = v.clone();
    for i in (0..rows).filter(|&i| v.is_valid(i) && bit::len(s.bytes(i)) > width) {
        out.validity.set_invalid(i, rows);
    }
    out
}
