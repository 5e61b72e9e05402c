//! Functions over BLOB values (DuckDB's blob family): text encodings of bytes
//! (`to_base64`/`base64`, `from_base64`, `from_hex`/`unhex`, `from_binary`/`unbin`),
//! `encode` (text to its UTF-8 bytes) and `decode` (back, checked), `repeat` and the
//! `||` of two BLOBs. `octet_length`, `hex`, `md5`, `sha1` and `sha256` take a BLOB
//! through their text resolvers, as they read bytes either way.

use super::signature::{bind, castable};
use super::{BoundFunction, ScalarFunction};
use crate::kernels::{map_rows_to_strings, Slot, StrSlot};
use stride_common::blob::hex_digit;
use stride_common::{DataType, Error, Result, StringVector, Vector};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlobFunction {
    ToBase64,
    FromBase64,
    FromHex,
    FromBinary,
    Encode,
    Decode,
    Repeat,
    /// `blob || blob`
    Concat,
}

impl BlobFunction {
    /// The SQL name (EXPLAIN, column names).
    pub fn name(self) -> &'static str {
        match self {
            BlobFunction::ToBase64 => "to_base64",
            BlobFunction::FromBase64 => "from_base64",
            BlobFunction::FromHex => "from_hex",
            BlobFunction::FromBinary => "from_binary",
            BlobFunction::Encode => "encode",
            BlobFunction::Decode => "decode",
            BlobFunction::Repeat => "repeat",
            BlobFunction::Concat => "||",
        }
    }
}

/// Whether an argument may be passed for a BLOB parameter: a BLOB, NULL, or text
/// (a string literal is read as the BLOB's text form).
pub(crate) fn is_blob_arg(t: &DataType) -> bool {
    castable(t, &DataType::Blob)
}

pub(crate) fn resolve(f: BlobFunction, args: &[DataType]) -> Option<BoundFunction> {
    use BlobFunction as B;
    use DataType::{BigInt, Blob, Varchar};
    let func = ScalarFunction::Blob(f);
    match (f, args) {
        (B::ToBase64 | B::Decode, [t]) if is_blob_arg(t) => bind(func, vec![Blob], Varchar),
        (B::FromBase64 | B::FromHex | B::FromBinary | B::Encode, [t]) if castable(t, &Varchar) => {
            bind(func, vec![Varchar], Blob)
        }
        (B::Repeat, [Blob, n]) if castable(n, &BigInt) => bind(func, vec![Blob, BigInt], Blob),
        (B::Concat, [Blob, Blob | DataType::Null] | [DataType::Null, Blob]) => {
            bind(func, vec![Blob, Blob], Blob)
        }
        _ => None,
    }
}

/// The vector of BLOBs `f` pushes into, one row per input row.
fn to_blobs(
    args: &[&Vector],
    len: usize,
    f: impl FnMut(usize, &mut StringVector) -> Result<()>,
) -> Result<Vector> {
    let mut out = map_rows_to_strings(args, len, f)?;
    out.ty = DataType::Blob;
    Ok(out)
}

pub(crate) fn evaluate(f: BlobFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let s = StrSlot::new(&args[0]);
    let mut bytes = Vec::new();
    let mut text = String::new();
    match f {
        BlobFunction::ToBase64 => map_rows_to_strings(&refs, len, |i, out| {
            text.clear();
            encode_base64(s.bytes(i), &mut text);
            out.push(&text);
            Ok(())
        }),
        BlobFunction::FromBase64 => to_blobs(&refs, len, |i, out| {
            bytes.clear();
            decode_base64(s.get(i), &mut bytes)?;
            out.push_blob(&bytes);
            Ok(())
        }),
        BlobFunction::FromHex => to_blobs(&refs, len, |i, out| {
            bytes.clear();
            from_digits(s.get(i), 4, &mut bytes)?;
            out.push_blob(&bytes);
            Ok(())
        }),
        BlobFunction::FromBinary => to_blobs(&refs, len, |i, out| {
            bytes.clear();
            from_digits(s.get(i), 1, &mut bytes)?;
            out.push_blob(&bytes);
            Ok(())
        }),
        BlobFunction::Encode => to_blobs(&refs, len, |i, out| {
            out.push_blob(s.bytes(i));
            Ok(())
        }),
        BlobFunction::Decode => map_rows_to_strings(&refs, len, |i, out| {
            let text = std::str::from_utf8(s.bytes(i)).map_err(|_| {
                Error::conversion(
                    "Failure in decode: could not convert blob to UTF8 string, the blob contained invalid UTF8 characters",
                )
            })?;
            out.push(text);
            Ok(())
        }),
        BlobFunction::Repeat => {
            let n = Slot::<i64>::new(&args[1]);
            to_blobs(&refs, len, |i, out| {
                let (b, n) = (s.bytes(i), n.get(i).max(0) as u64);
                if n.saturating_mul(b.len() as u64) > super::string::MAX_STRING_BYTES as u64 {
                    return Err(super::string::too_long());
                }
                bytes.clear();
                (0..n).for_each(|_| bytes.extend_from_slice(b));
                out.push_blob(&bytes);
                Ok(())
            })
        }
        BlobFunction::Concat => {
            let t = StrSlot::new(&args[1]);
            to_blobs(&refs, len, |i, out| {
                bytes.clear();
                bytes.extend_from_slice(s.bytes(i));
                bytes.extend_from_slice(t.bytes(i));
                out.push_blob(&bytes);
                Ok(())
            })
        }
    }
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with `=` padding.
fn encode_base64(bytes: &[u8], out: &mut String) {
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(BASE64[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
}

fn base64_value(c: u8) -> Option<u32> {
    match c {
        b'A'..=b'Z' => Some((c - b'A') as u32),
        b'a'..=b'z' => Some((c - b'a' + 26) as u32),
        b'0'..=b'9' => Some((c - b'0' + 52) as u32),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// Decodes standard padded base64, with DuckDB's error messages.
fn decode_base64(text: &str, out: &mut Vec<u8>) -> Result<()> {
    let fail = |why: String| {
        Error::conversion(format!(
            "Could not decode string \"{text}\" as base64: {why}"
        ))
    };
    let b = text.as_bytes();
    if b.len() % 4 != 0 {
        return Err(fail("length must be a multiple of 4".into()));
    }
    for (q, quad) in b.chunks(4).enumerate() {
        let last = (q + 1) * 4 == b.len();
        let mut n = 0u32;
        let mut pad = 0;
        for (k, &c) in quad.iter().enumerate() {
            let at = q * 4 + k;
            if c == b'=' && last && k >= 2 {
                pad += 1;
                n <<= 6;
                continue;
            }
            if pad > 0 {
                return Err(fail(format!("data after the padding at position {at}")));
            }
            let v = base64_value(c)
                .ok_or_else(|| fail(format!("invalid byte value '{c}' at position {at}")))?;
            n = n << 6 | v;
        }
        let decoded = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&decoded[..3 - pad]);
    }
    Ok(())
}

/// Bytes from hexadecimal (`bits` 4) or binary (`bits` 1) digits; an incomplete
/// leading byte is padded with zeros on the left, as DuckDB does.
fn from_digits(text: &str, bits: u32, out: &mut Vec<u8>) -> Result<()> {
    let per_byte = (8 / bits) as usize;
    let digits = text.as_bytes();
    let head = digits.len() % per_byte;
    let mut acc = 0u8;
    for (k, &c) in digits.iter().enumerate() {
        let d = if bits == 4 {
            hex_digit(c).ok_or_else(|| {
                Error::invalid_input(format!("Invalid input for hex digit: {}", c as char))
            })?
        } else {
            match c {
                b'0' | b'1' => c - b'0',
                _ => {
                    return Err(Error::invalid_input(format!(
                        "Invalid input for binary digit: {}",
                        c as char
                    )))
                }
            }
        };
        acc = acc << bits | d;
        let done = if k < head {
            k + 1 == head
        } else {
            (k + 1 - head) % per_byte == 0
        };
        if done {
            out.push(acc);
            acc = 0;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(bytes: &[u8]) -> String {
        let mut s = String::new();
        encode_base64(bytes, &mut s);
        s
    }

    fn un64(s: &str) -> Result<Vec<u8>> {
        let mut v = Vec::new();
        decode_base64(s, &mut v).map(|_| v)
    }

    fn digits(s: &str, bits: u32) -> Result<Vec<u8>> {
        let mut v = Vec::new();
        from_digits(s, bits, &mut v).map(|_| v)
    }

    #[test]
    fn base64_both_ways() {
        assert_eq!(b64(b""), "");
        assert_eq!(b64(b"A"), "QQ==");
        assert_eq!(b64(b"AB"), "QUI=");
        assert_eq!(b64(b"ABC"), "QUJD");
        assert_eq!(b64(&[0, 0xff, 0x10]), "AP8Q");
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(un64(&b64(&all)).unwrap(), all);
        assert_eq!(un64("QUI=").unwrap(), b"AB");
        assert!(un64("Q").unwrap_err().to_string().contains("multiple of 4"));
        assert!(un64("Q!==")
            .unwrap_err()
            .to_string()
            .contains("'33' at position 1"));
        assert!(un64("QQ=a")
            .unwrap_err()
            .to_string()
            .contains("after the padding at position 3"));
    }

    #[test]
    fn hex_and_binary_digits() {
        assert_eq!(digits("4", 4).unwrap(), vec![4]);
        assert_eq!(digits("abc", 4).unwrap(), vec![0x0a, 0xbc]);
        assert_eq!(digits("0a0B", 4).unwrap(), vec![0x0a, 0x0b]);
        assert_eq!(digits("", 4).unwrap(), Vec::<u8>::new());
        assert_eq!(digits("101", 1).unwrap(), vec![5]);
        assert_eq!(digits("100000001", 1).unwrap(), vec![1, 1]);
        assert!(digits("4g", 4)
            .unwrap_err()
            .to_string()
            .contains("hex digit: g"));
        assert!(digits("0102", 1)
            .unwrap_err()
            .to_string()
            .contains("binary digit: 2"));
    }
}
