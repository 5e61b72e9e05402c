//! `md5(s)`, `sha1(s)` and `sha256(s)`: the digest of the string's UTF-8 bytes, or
//! of a BLOB's bytes, as lower-case hexadecimal. `md5_number(s)` is the MD5 digest as
//! a UHUGEINT (its 16 bytes read little-endian), `md5_number_upper` and
//! `md5_number_lower` its first and last 8 bytes as UBIGINTs, as DuckDB reads them.

use crate::kernels::{map_rows, map_rows_to_strings, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use sha2::Digest;
use stride_common::{DataType, Result, Vector};

/// Text or a BLOB: the digest of the bytes either way.
fn resolve(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    if let [DataType::Blob] = args {
        return crate::scalar::signature::bind(func, vec![DataType::Blob], DataType::Varchar);
    }
    fixed(func, args, &[DataType::Varchar], DataType::Varchar)
}

pub(crate) fn resolve_md5(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Md5, args)
}

/// Which number `md5_number*` makes of the digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Md5Part {
    /// all 16 bytes: `md5_number`
    Whole,
    /// bytes 0..8: `md5_number_upper`
    Upper,
    /// bytes 8..16: `md5_number_lower`
    Lower,
}

pub(crate) fn resolve_md5_number(part: Md5Part, args: &[DataType]) -> Option<BoundFunction> {
    let ret = match part {
        Md5Part::Whole => DataType::UHugeInt,
        _ => DataType::UBigInt,
    };
    let func = ScalarFunction::Md5Number(part);
    if let [DataType::Blob] = args {
        return crate::scalar::signature::bind(func, vec![DataType::Blob], ret);
    }
    fixed(func, args, &[DataType::Varchar], ret)
}

pub(super) fn evaluate_md5_number(part: Md5Part, args: &[Vector], len: usize) -> Result<Vector> {
    let s = StrSlot::new(&args[0]);
    let ty = match part {
        Md5Part::Whole => DataType::UHugeInt,
        _ => DataType::UBigInt,
    };
    map_rows(&[&args[0]], len, ty, |i| {
        let d: [u8; 16] = md5::Md5::digest(s.bytes(i)).into();
        let half = |from: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&d[from..from + 8]);
            u64::from_le_bytes(b) as i128
        };
        // a UHUGEINT is stored flipped, a UBIGINT as its value
        Ok(match part {
            Md5Part::Whole => stride_common::flip128::to_physical(u128::from_le_bytes(d)),
            Md5Part::Upper => half(0),
            Md5Part::Lower => half(8),
        })
    })
}

pub(crate) fn resolve_sha1(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Sha1, args)
}

pub(crate) fn resolve_sha256(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Sha256, args)
}

/// Appends `bytes` as lower-case hexadecimal.
pub(crate) fn push_hex(bytes: &[u8], out: &mut String) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 15) as usize] as char);
    }
}

fn digest_hex<D: Digest>(bytes: &[u8], out: &mut String) {
    push_hex(&D::digest(bytes), out);
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let s = StrSlot::new(&args[0]);
    let hash: fn(&[u8], &mut String) = match func {
        ScalarFunction::Md5 => digest_hex::<md5::Md5>,
        ScalarFunction::Sha1 => digest_hex::<sha1::Sha1>,
        _ => digest_hex::<sha2::Sha256>,
    };
    let mut buf = String::with_capacity(64);
    map_rows_to_strings(&[&args[0]], len, |i, out| {
        buf.clear();
        hash(s.bytes(i), &mut buf);
        out.push(&buf);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::*;

    #[test]
    fn digests() {
        assert_eq!(
            eval("md5", &[s("abc")]).unwrap(),
            s("900150983cd24fb0d6963f7d28e17f72")
        );
        assert_eq!(
            eval("md5", &[s("héllo")]).unwrap(),
            s("be50e8478cf24ff3595bc7307fb91b50")
        );
        assert_eq!(
            eval("sha1", &[s("abc")]).unwrap(),
            s("a9993e364706816aba3e25717850c26c9cd0d89d")
        );
        assert_eq!(
            eval("sha256", &[s("abc")]).unwrap(),
            s("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        );
        assert_eq!(eval("md5", &[Null]).unwrap(), Null);
    }
}
