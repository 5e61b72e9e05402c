//! `md5(s)`, `sha1(s)` and `sha256(s)`: the digest of the string's UTF-8 bytes, or
//! of a BLOB's bytes, as lower-case hexadecimal.

use crate::kernels::{map_rows_to_strings, StrSlot};
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
