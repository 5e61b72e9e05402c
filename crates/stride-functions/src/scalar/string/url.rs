//! `url_encode(s)`: percent-encoding of every byte but the unreserved characters
//! (ASCII letters, digits, `-`, `_`, `.`, `~`), in upper-case hexadecimal; and
//! `url_decode(s)`: the reverse, where `%` not followed by two hexadecimal digits
//! stays as it is and `+` is not a space. A decoded result that is not valid UTF-8
//! is an error (DuckDB's message).

use crate::kernels::{map_rows_to_strings, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::blob::hex_digit;
use stride_common::{DataType, Error, Result, Vector};

fn resolve(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    fixed(func, args, &[DataType::Varchar], DataType::Varchar)
}

pub(crate) fn resolve_encode(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::UrlEncode, args)
}

pub(crate) fn resolve_decode(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::UrlDecode, args)
}

fn encode(s: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(HEX[(b >> 4) as usize] as char);
            out.push(HEX[(b & 15) as usize] as char);
        }
    }
}

fn decode(s: &str, out: &mut Vec<u8>) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if let (Some(h), Some(l)) = (
                b.get(i + 1).copied().and_then(hex_digit),
                b.get(i + 2).copied().and_then(hex_digit),
            ) {
                out.push(h << 4 | l);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let s = StrSlot::new(&args[0]);
    if func == ScalarFunction::UrlEncode {
        return super::map_strings(&args[0], len, encode);
    }
    let mut buf = Vec::new();
    map_rows_to_strings(&[&args[0]], len, |i, out| {
        buf.clear();
        let text = s.get(i);
        decode(text, &mut buf);
        let decoded = std::str::from_utf8(&buf).map_err(|_| {
            Error::invalid_input(format!(
                "Failed to decode string \"{text}\" using URL decoding - decoded value is invalid UTF8"
            ))
        })?;
        out.push(decoded);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::*;

    #[test]
    fn round_trip() {
        assert_eq!(
            eval("url_encode", &[s("a b&c=d/é?~-_.")]).unwrap(),
            s("a%20b%26c%3Dd%2F%C3%A9%3F~-_.")
        );
        assert_eq!(
            eval("url_decode", &[s("a%20b%26c+d%C3%A9")]).unwrap(),
            s("a b&c+dé")
        );
        assert_eq!(eval("url_decode", &[s("%zz%")]).unwrap(), s("%zz%"));
        assert_eq!(eval("url_decode", &[s("%4")]).unwrap(), s("%4"));
        assert!(eval("url_decode", &[s("%E9")]).is_err());
        assert_eq!(eval("url_encode", &[Null]).unwrap(), Null);
    }
}
