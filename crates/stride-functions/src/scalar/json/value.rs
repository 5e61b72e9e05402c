//! JSON text in and out: parsing with `serde_json` (objects keep their key order,
//! numbers keep their text), the errors that name the problem and its byte, and
//! the writers that print a document as DuckDB does: minified, numbers normalized
//! (integers as written, doubles in their shortest form with `.0` on whole values,
//! numbers too large for a double or a 64-bit integer kept as written), or indented
//! by `json_pretty`.
//!
//! Every JSON function parses a row's document with [`parse`] and prints the values
//! it picks with [`write`]; one `String` buffer per chunk is reused for the output.

use serde_json::{Number, Value};
use std::fmt::Write;
use stride_common::{Error, Result};

/// Parses one document; a failure says where and what, as DuckDB does:
/// `Malformed JSON at byte 6 of input: unexpected end of data.  Input: "{"a":1"`.
pub fn parse(text: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|e| malformed(text, &e))
}

/// Whether the text is one JSON document (no allocation of a tree).
pub fn is_valid(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// Whether the bytes are one JSON document.
pub fn is_valid_bytes(bytes: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok()
}

/// The error for malformed text, with the byte where parsing stopped.
pub fn malformed(text: &str, e: &serde_json::Error) -> Error {
    if text.is_empty() {
        return Error::invalid_input(
            "Malformed JSON at byte 0 of input: input length is 0.  Input: \"\"".to_string(),
        );
    }
    let byte = byte_of(text, e.line(), e.column(), e.is_eof());
    let mut what = e.to_string();
    if let Some(at) = what.rfind(" at line ") {
        what.truncate(at);
    }
    let shown: String = if text.len() > 50 {
        let mut end = 50;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}...", &text[..end])
    } else {
        text.to_string()
    };
    Error::invalid_input(format!(
        "Malformed JSON at byte {byte} of input: {what}.  Input: \"{shown}\""
    ))
}

fn byte_of(text: &str, line: usize, column: usize, eof: bool) -> usize {
    if eof {
        return text.len();
    }
    let mut start = 0;
    for _ in 1..line {
        match text[start..].find('\n') {
            Some(p) => start += p + 1,
            None => break,
        }
    }
    (start + column.saturating_sub(1)).min(text.len())
}

/// DuckDB's name for the type of a JSON value (`json_type`, `json_structure`).
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "NULL",
        Value::Bool(_) => "BOOLEAN",
        Value::String(_) => "VARCHAR",
        Value::Array(_) => "ARRAY",
        Value::Object(_) => "OBJECT",
        Value::Number(n) => number_type(n),
    }
}

fn number_type(n: &Number) -> &'static str {
    let s = n.as_str();
    if s.contains(['.', 'e', 'E']) {
        "DOUBLE"
    } else if s.parse::<u64>().is_ok() {
        "UBIGINT"
    } else if s.parse::<i64>().is_ok() {
        "BIGINT"
    } else {
        "DOUBLE"
    }
}

/// Appends the minified text of `v`.
pub fn write(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n.as_str()),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(out, x);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, x)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write(out, x);
            }
            out.push('}');
        }
    }
}

/// The minified text of `v` as a new string.
pub fn to_text(v: &Value) -> String {
    let mut s = String::new();
    write(&mut s, v);
    s
}

/// Appends `v` indented by four spaces per level, as `json_pretty` prints it.
pub fn write_pretty(out: &mut String, v: &Value, depth: usize) {
    let pad = |out: &mut String, d: usize| {
        for _ in 0..d {
            out.push_str("    ");
        }
    };
    match v {
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                pad(out, depth + 1);
                write_pretty(out, x, depth + 1);
            }
            out.push('\n');
            pad(out, depth);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            out.push_str("{\n");
            for (i, (k, x)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                pad(out, depth + 1);
                write_string(out, k);
                out.push_str(": ");
                write_pretty(out, x, depth + 1);
            }
            out.push('\n');
            pad(out, depth);
            out.push('}');
        }
        other => write(out, other),
    }
}

/// Appends a JSON string literal: quotes, backslashes and control characters
/// escaped, everything else (including non-ASCII) as it is.
pub fn write_string(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            let _ = write!(out, "\\u{:04x}", b);
        } else {
            out.push_str(esc);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Appends a number as DuckDB prints it: integers that fit 64 bits in their plain
/// form, other integers and doubles out of range as written, doubles shortest.
pub fn write_number(out: &mut String, text: &str) {
    if !text.contains(['.', 'e', 'E']) {
        if let Ok(i) = text.parse::<i64>() {
            let _ = write!(out, "{i}");
        } else if let Ok(u) = text.parse::<u64>() {
            let _ = write!(out, "{u}");
        } else {
            out.push_str(text);
        }
        return;
    }
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() => write_double(out, x),
        _ => out.push_str(&text.replace("e+", "e").replace("E+", "E")),
    }
}

/// A double in the shortest text that reads back the same, laid out as JavaScript
/// does (`1e21`, `1.5e-7`, `0.0001`), with `.0` on whole numbers as DuckDB adds.
pub fn write_double(out: &mut String, x: f64) {
    if !x.is_finite() {
        out.push_str(if x.is_nan() {
            "NaN"
        } else if x > 0.0 {
            "Infinity"
        } else {
            "-Infinity"
        });
        return;
    }
    if x == 0.0 {
        out.push_str(if x.is_sign_negative() { "-0.0" } else { "0.0" });
        return;
    }
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if x < 0.0 {
        out.push('-');
    }
    let n = digits.len() as i32;
    if (-6..21).contains(&exp) {
        if exp >= 0 {
            if n <= exp + 1 {
                out.push_str(&digits);
                for _ in 0..(exp + 1 - n) {
                    out.push('0');
                }
                out.push_str(".0");
            } else {
                out.push_str(&digits[..(exp + 1) as usize]);
                out.push('.');
                out.push_str(&digits[(exp + 1) as usize..]);
            }
        } else {
            out.push_str("0.");
            for _ in 0..(-exp - 1) {
                out.push('0');
            }
            out.push_str(&digits);
        }
    } else {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{exp}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn minify(s: &str) -> String {
        to_text(&parse(s).unwrap())
    }

    #[test]
    fn numbers_print_as_duckdb() {
        assert_eq!(
            minify("[1e300, 1.5e-7, 123456789.125, 1e16, 0.1, 1E2, -0, 18446744073709551615, 18446744073709551616, 3.0, 2.5e20, 1e21, 0.0001, 0.00001, 1.7976931348623157e309]"),
            "[1e300,1.5e-7,123456789.125,10000000000000000.0,0.1,100.0,0,18446744073709551615,18446744073709551616,3.0,250000000000000000000.0,1e21,0.0001,0.00001,1.7976931348623157e309]"
        );
    }

    #[test]
    fn keys_keep_their_order_and_strings_escape() {
        assert_eq!(
            minify(r#"{ "b" : 1, "a" : ["\/", "\u0001", "é\n"] }"#),
            r#"{"b":1,"a":["/","\u0001","é\n"]}"#
        );
    }

    #[test]
    fn errors_name_the_byte() {
        let e = parse(r#"{"a":1"#).unwrap_err();
        assert!(
            e.message
                .starts_with("Malformed JSON at byte 6 of input: EOF while parsing an object"),
            "{}",
            e.message
        );
        let e = parse("abc").unwrap_err();
        assert!(
            e.message.starts_with("Malformed JSON at byte 0 of input"),
            "{}",
            e.message
        );
        assert!(parse("").unwrap_err().message.contains("input length is 0"));
    }

    #[test]
    fn pretty() {
        let mut s = String::new();
        write_pretty(
            &mut s,
            &parse(r#"{"a":[1,{"b":2}],"c":{},"d":[]}"#).unwrap(),
            0,
        );
        assert_eq!(s, "{\n    \"a\": [\n        1,\n        {\n            \"b\": 2\n        }\n    ],\n    \"c\": {},\n    \"d\": []\n}");
    }
}
