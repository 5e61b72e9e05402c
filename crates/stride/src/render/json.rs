//! `.mode json`: the result as a JSON array with one object per row, one row per line,
//! as DuckDB's shell writes it (`[{"a":1,"b":"x"},` ... `{"a":2,"b":"y"}]`). Numbers
//! (integers, decimals, floating point) are JSON numbers, except NaN and infinities,
//! which are strings; NULL is `null`, booleans are `true`/`false`, lists are arrays and
//! every other value is a string. Rows are written as they arrive.

use super::Renderer;
use std::io::{self, Write};
use stride_common::ScalarValue;

pub struct JsonRenderer {
    /// The column names as JSON strings followed by `:`, ready to write.
    keys: Vec<String>,
    rows: u64,
}

impl JsonRenderer {
    pub fn new(names: Vec<String>) -> Self {
        let keys = names
            .iter()
            .map(|n| {
                let mut k = String::new();
                push_string(&mut k, n);
                k.push(':');
                k
            })
            .collect();
        JsonRenderer { keys, rows: 0 }
    }
}

impl Renderer for JsonRenderer {
    fn begin(&mut self, _out: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }

    fn row(&mut self, out: &mut dyn Write, row: &[ScalarValue]) -> io::Result<()> {
        let mut s = String::from(if self.rows == 0 { "[{" } else { ",\n{" });
        self.rows += 1;
        for (i, (key, v)) in self.keys.iter().zip(row).enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str(key);
            push_value(&mut s, v);
        }
        s.push('}');
        out.write_all(s.as_bytes())
    }

    fn finish(&mut self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(if self.rows == 0 { b"[]\n" } else { b"]\n" })
    }
}

/// Appends `v` as a JSON value.
fn push_value(s: &mut String, v: &ScalarValue) {
    match v {
        ScalarValue::Null => s.push_str("null"),
        ScalarValue::Boolean(b) => s.push_str(if *b { "true" } else { "false" }),
        ScalarValue::Decimal(..) => s.push_str(&v.to_string()),
        v if v.is_integer() => s.push_str(&v.to_string()),
        ScalarValue::Real(f) if f.is_finite() => s.push_str(&v.to_string()),
        ScalarValue::Double(f) if f.is_finite() => s.push_str(&v.to_string()),
        ScalarValue::List(_, items) => {
            s.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                push_value(s, item);
            }
            s.push(']');
        }
        other => push_string(s, &other.to_string()),
    }
}

/// Appends `text` as a JSON string, escaping quotes, backslashes and control
/// characters.
pub fn push_string(s: &mut String, text: &str) {
    s.push('"');
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            '\u{8}' => s.push_str("\\b"),
            '\u{c}' => s.push_str("\\f"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => s.push_str(&format!("\\u{:04x}", c as u32)),
            c => s.push(c),
        }
    }
    s.push('"');
}

#[cfg(test)]
mod tests {
    use super::super::{render_to_string, Mode};
    use super::push_string;
    use stride_common::{DataType, ScalarValue};

    fn escaped(text: &str) -> String {
        let mut s = String::new();
        push_string(&mut s, text);
        s
    }

    #[test]
    fn string_escaping() {
        assert_eq!(escaped("plain"), "\"plain\"");
        assert_eq!(escaped("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(escaped("l1\nl2\tx\r"), "\"l1\\nl2\\tx\\r\"");
        assert_eq!(escaped("\u{1}\u{1f}"), "\"\\u0001\\u001f\"");
        assert_eq!(escaped("héllo ✓"), "\"héllo ✓\"");
    }

    #[test]
    fn rows_as_objects() {
        let out = render_to_string(
            Mode::Json,
            &["a", "b", "c"],
            &[
                DataType::Integer,
                DataType::Varchar,
                DataType::Decimal(15, 2),
            ],
            &[
                vec![
                    ScalarValue::Integer(1),
                    ScalarValue::Varchar("x\"y".into()),
                    ScalarValue::Decimal(-5, 15, 2),
                ],
                vec![
                    ScalarValue::Null,
                    ScalarValue::Boolean(true),
                    ScalarValue::Null,
                ],
            ],
        );
        assert_eq!(
            out,
            "[{\"a\":1,\"b\":\"x\\\"y\",\"c\":-0.05},\n{\"a\":null,\"b\":true,\"c\":null}]\n"
        );
    }

    #[test]
    fn floats_and_special_values() {
        let out = render_to_string(
            Mode::Json,
            &["d"],
            &[DataType::Double],
            &[
                vec![ScalarValue::Double(1.5)],
                vec![ScalarValue::Double(f64::NAN)],
                vec![ScalarValue::Double(f64::INFINITY)],
            ],
        );
        assert_eq!(out, "[{\"d\":1.5},\n{\"d\":\"nan\"},\n{\"d\":\"inf\"}]\n");
        assert_eq!(
            render_to_string(Mode::Json, &["d"], &[DataType::Double], &[]),
            "[]\n"
        );
        let out = render_to_string(
            Mode::Json,
            &["l"],
            &[DataType::List(Box::new(DataType::Integer))],
            &[vec![ScalarValue::List(
                DataType::Integer,
                vec![ScalarValue::Integer(1), ScalarValue::Null],
            )]],
        );
        assert_eq!(out, "[{\"l\":[1,null]}]\n");
    }
}
