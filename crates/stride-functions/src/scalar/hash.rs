//! `hash(value, ...)`: DuckDB's (non-cryptographic) 64-bit hash of its arguments.
//! DuckDB returns a UBIGINT; stride has no unsigned types, so the same 64 bits come
//! back as a BIGINT (values of 2^63 and above are negative). Integers, booleans,
//! dates, timestamps, doubles, strings and NULL hash to DuckDB's values; other types
//! (decimals, intervals, lists) hash their text form, which DuckDB does not.

use super::{BoundFunction, ScalarFunction};
use crate::kernels::make_vector;
use stride_common::{DataType, PhysicalType, Result, ScalarValue, Validity, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    if args.is_empty() {
        return None;
    }
    Some(BoundFunction::new(
        ScalarFunction::Hash,
        args.to_vec(),
        DataType::BigInt,
    ))
}

const MUL: u64 = 0xd6e8_feb8_6659_fd93;
/// DuckDB's hash of NULL (of any type).
const NULL_HASH: u64 = 13_787_848_793_156_543_929;

fn murmur(mut x: u64) -> u64 {
    x ^= x >> 32;
    x = x.wrapping_mul(MUL);
    x ^= x >> 32;
    x = x.wrapping_mul(MUL);
    x ^ (x >> 32)
}

fn hash_bytes(b: &[u8]) -> u64 {
    let mut h = 0xe17a_1465u64 ^ (b.len() as u64).wrapping_mul(0xc6a4_a793_5bd1_e995);
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        h ^= u64::from_le_bytes(c.try_into().unwrap_or_default());
        h = h.wrapping_mul(MUL);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut buf = [0u8; 8];
        buf[..rest.len()].copy_from_slice(rest);
        h ^= u64::from_le_bytes(buf);
        h = h.wrapping_mul(MUL);
    }
    murmur(h)
}

/// DuckDB's way of folding one more column's hash into a row's.
fn combine(a: u64, b: u64) -> u64 {
    let a = (a ^ (a >> 32)).wrapping_mul(MUL);
    a ^ b
}

fn hash_value(v: &ScalarValue, ty: &DataType) -> u64 {
    use ScalarValue as S;
    match v {
        S::Null => NULL_HASH,
        S::Boolean(b) => murmur(*b as u64),
        S::Varchar(s) => hash_bytes(s.as_bytes()),
        S::Date(d) => murmur(*d as u32 as u64),
        S::Timestamp(t) => murmur(*t as u64),
        S::Double(d) => {
            // -0.0 hashes as 0.0, every NaN alike
            let d = if *d == 0.0 {
                0.0
            } else if d.is_nan() {
                f64::NAN
            } else {
                *d
            };
            murmur(d.to_bits())
        }
        _ => match (ty.physical(), v.as_i64()) {
            (PhysicalType::I8 | PhysicalType::I16 | PhysicalType::I32, Some(x)) => {
                murmur(x as i32 as u32 as u64)
            }
            (PhysicalType::I64, Some(x)) if !matches!(ty, DataType::Decimal(..)) => {
                murmur(x as u64)
            }
            _ => hash_bytes(v.to_string().as_bytes()),
        },
    }
}

pub(crate) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let constant = args.iter().all(|a| a.constant);
    let rows = if constant { 1 } else { len };
    let mut out = Vec::with_capacity(rows);
    for i in 0..rows {
        let mut h = 0u64;
        for (k, (a, t)) in args.iter().zip(&f.arg_types).enumerate() {
            let x = hash_value(&a.get(if a.constant { 0 } else { i }), t);
            h = if k == 0 { x } else { combine(h, x) };
        }
        out.push(h as i64);
    }
    Ok(make_vector(
        DataType::BigInt,
        out,
        Validity::all_valid(),
        constant,
    ))
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::ScalarValue::*;

    #[test]
    fn duckdb_values() {
        let h = |v: u64| BigInt(v as i64);
        assert_eq!(eval("hash", &[Integer(1)]).unwrap(), h(4717996019076358352));
        assert_eq!(eval("hash", &[BigInt(-1)]).unwrap(), h(4939931809569846361));
        assert_eq!(
            eval("hash", &[Integer(-1)]).unwrap(),
            h(4739667815145166545)
        );
        assert_eq!(
            eval("hash", &[Varchar("hello world!!".into())]).unwrap(),
            h(11070444456169785602)
        );
        assert_eq!(
            eval("hash", &[Double(1.5)]).unwrap(),
            h(1706605666616485939)
        );
        assert_eq!(
            eval("hash", &[Integer(1), Integer(2)]).unwrap(),
            h(6530802887144669425)
        );
        assert_eq!(eval("hash", &[Null]).unwrap(), h(13787848793156543929));
    }
}
