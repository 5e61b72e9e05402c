//! BLOB text: how a byte string is written as text and read back, as DuckDB does.
//! Printable ASCII stays as it is, every other byte (and `\`, `"` and `'`) becomes
//! `\xHH`. Used by casts between VARCHAR and BLOB, by result rendering, CSV and the
//! PostgreSQL wire protocol's text form.

use std::fmt::Write;

/// Appends the text form of `bytes` (`\xAA` escapes) to `out`.
pub fn format_escaped(bytes: &[u8], out: &mut String) {
    for &b in bytes {
        if (0x20..=0x7e).contains(&b) && !matches!(b, b'\\' | b'"' | b'\'') {
            out.push(b as char);
        } else {
            let _ = write!(out, "\\x{b:02X}");
        }
    }
}

/// The text form of `bytes`.
pub fn to_escaped(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    format_escaped(bytes, &mut s);
    s
}

/// Reads the text form back: ASCII characters stand for themselves, `\xHH` (either
/// case) for one byte. Errors are DuckDB's conversion messages.
pub fn parse_escaped(text: &str, out: &mut Vec<u8>) -> Result<(), String> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\\' {
            if i + 4 > bytes.len() {
                return Err(format!(
                    "Invalid hex escape code encountered in string -> blob conversion of string \"{text}\": unterminated escape code at end of blob"
                ));
            }
            let code = String::from_utf8_lossy(&bytes[i..i + 4]);
            match (bytes[i + 1], hex_digit(bytes[i + 2]), hex_digit(bytes[i + 3])) {
                (b'x' | b'X', Some(h), Some(l)) => out.push(h << 4 | l),
                _ => {
                    return Err(format!(
                        "Invalid hex escape code encountered in string -> blob conversion of string \"{text}\": {code}"
                    ))
                }
            }
            i += 4;
        } else if b >= 0x80 {
            return Err(format!(
                "Invalid byte encountered in STRING -> BLOB conversion of string \"{text}\". All non-ascii characters must be escaped with hex codes (e.g. \\xAA)"
            ));
        } else {
            out.push(b);
            i += 1;
        }
    }
    Ok(())
}

/// The value of one hexadecimal digit, either case.
pub fn hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Vec<u8>, String> {
        let mut v = Vec::new();
        parse_escaped(s, &mut v).map(|_| v)
    }

    #[test]
    fn round_trip() {
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(parse(&to_escaped(&all)).unwrap(), all);
        assert_eq!(
            to_escaped(b"a\\\"' ~\x7f\x80"),
            "a\\x5C\\x22\\x27 ~\\x7F\\x80"
        );
        assert_eq!(parse("\\xaa\\xAAb").unwrap(), vec![0xaa, 0xaa, b'b']);
    }

    #[test]
    fn errors() {
        assert!(parse("\\x4")
            .unwrap_err()
            .contains("unterminated escape code"));
        assert!(parse("\\")
            .unwrap_err()
            .contains("unterminated escape code"));
        assert!(parse("\\xZZ").unwrap_err().ends_with(": \\xZZ"));
        assert!(parse("é").unwrap_err().contains("must be escaped"));
        assert!(parse("\\é").unwrap_err().contains("\\é"));
    }
}
