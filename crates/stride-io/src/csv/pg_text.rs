//! PostgreSQL's text COPY format (what `COPY t FROM STDIN` reads without `FORMAT
//! csv`, and what psql's `\copy` and psycopg's `copy()` send by default), turned into
//! CSV for [`super::CsvReader`], so reading, type conversion and error reporting stay
//! the CSV reader's.
//!
//! One pass over the lines: fields split at unescaped delimiters, backslash escapes
//! (`\t`, `\n`, `\\`, `\N`, octal `\123`, hex `\x41`, ...) decoded, the NULL marker
//! (compared before decoding, as PostgreSQL does) written as an unquoted empty field
//! and every other field quoted (the reader never reads a quoted field as NULL). A line
//! holding only `\.` ends the data.

use stride_common::{Error, Result};

/// Converts text-format `data` into CSV (`,` delimiter, `"` quotes, NULL as an
/// unquoted empty field).
pub fn text_to_csv(data: &[u8], delimiter: u8, null: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len() + data.len() / 4);
    let mut rest = data;
    let mut line_no = 0usize;
    while !rest.is_empty() {
        line_no += 1;
        let (mut line, next) = match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        rest = next;
        if line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        if line == b"\\." {
            break;
        }
        convert_line(line, delimiter, null, &mut out)
            .map_err(|why| Error::conversion(format!("COPY data, line {line_no}: {why}")))?;
        out.push(b'\n');
    }
    Ok(out)
}

fn convert_line(
    line: &[u8],
    delimiter: u8,
    null: &[u8],
    out: &mut Vec<u8>,
) -> std::result::Result<(), String> {
    let mut start = 0;
    let mut first = true;
    loop {
        // The field runs to the next delimiter not escaped by a backslash.
        let mut end = start;
        while end < line.len() && line[end] != delimiter {
            end += if line[end] == b'\\' { 2 } else { 1 };
        }
        let end = end.min(line.len());
        if !first {
            out.push(b',');
        }
        first = false;
        let raw = &line[start..end];
        if raw != null {
            out.push(b'"');
            decode(raw, out)?;
            out.push(b'"');
        }
        if end >= line.len() {
            return Ok(());
        }
        start = end + 1;
    }
}

/// Appends the field's bytes with escapes decoded and quotes doubled.
fn decode(raw: &[u8], out: &mut Vec<u8>) -> std::result::Result<(), String> {
    let mut i = 0;
    let push = |b: u8, out: &mut Vec<u8>| {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    };
    while i < raw.len() {
        let b = raw[i];
        i += 1;
        if b != b'\\' {
            push(b, out);
            continue;
        }
        let Some(&e) = raw.get(i) else {
            return Err("a backslash ends the line; write \\\\ for a backslash".into());
        };
        i += 1;
        let decoded = match e {
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 0x0b,
            b'0'..=b'7' => {
                let mut v = (e - b'0') as u32;
                for _ in 0..2 {
                    match raw.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + (d - b'0') as u32;
                            i += 1;
                        }
                        _ => break,
                    }
                }
                (v & 0xff) as u8
            }
            b'x' if raw.get(i).is_some_and(|d| d.is_ascii_hexdigit()) => {
                let mut v = 0u32;
                for _ in 0..2 {
                    match raw.get(i) {
                        Some(d) if d.is_ascii_hexdigit() => {
                            v = v * 16 + (*d as char).to_digit(16).unwrap_or(0);
                            i += 1;
                        }
                        _ => break,
                    }
                }
                v as u8
            }
            other => other,
        };
        push(decoded, out);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(text: &str) -> String {
        String::from_utf8(text_to_csv(text.as_bytes(), b'\t', b"\\N").unwrap()).unwrap()
    }

    #[test]
    fn fields_escapes_and_nulls() {
        assert_eq!(csv("1\ta\n2\t\\N\n"), "\"1\",\"a\"\n\"2\",\n");
        assert_eq!(csv("x\\ty\\\\z\t\\101\\x42\r\n"), "\"x\ty\\z\",\"AB\"\n");
        assert_eq!(csv("say \"hi\"\t\n"), "\"say \"\"hi\"\"\",\"\"\n");
        assert_eq!(csv("a\\\tb\n\\.\nignored\n"), "\"a\tb\"\n");
        assert_eq!(csv("last"), "\"last\"\n");
        assert_eq!(csv(""), "");
        assert!(text_to_csv(b"bad\\", b'\t', b"\\N").is_err());
        let with_comma = text_to_csv(b"1,\\N,,x", b',', b"").unwrap();
        assert_eq!(
            String::from_utf8(with_comma).unwrap(),
            "\"1\",\"N\",,\"x\"\n"
        );
    }
}
