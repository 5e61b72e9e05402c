//! `.mode csv`: a header line of column names, then one line per row, fields separated
//! by commas and quoted as RFC 4180 says (a field holding a comma, a quote or a line
//! break is put in double quotes, with its quotes doubled). NULL is an empty field.
//! Rows are written as they arrive.

use super::Renderer;
use std::io::{self, Write};
use stride_common::ScalarValue;

pub struct CsvRenderer {
    names: Vec<String>,
    /// A value's text, reused from field to field.
    text: String,
}

impl CsvRenderer {
    pub fn new(names: Vec<String>) -> Self {
        CsvRenderer {
            names,
            text: String::new(),
        }
    }
}

impl Renderer for CsvRenderer {
    fn begin(&mut self, out: &mut dyn Write) -> io::Result<()> {
        for (i, name) in self.names.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            write_field(out, name)?;
        }
        out.write_all(b"\n")
    }

    /// Each field is written straight to `out` (a string as it is, other values
    /// through one reused buffer): a result of many rows formats without a string
    /// allocated per field.
    fn row(&mut self, out: &mut dyn Write, row: &[ScalarValue]) -> io::Result<()> {
        use std::fmt::Write as _;
        for (i, v) in row.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            let text = match v {
                ScalarValue::Null => continue,
                ScalarValue::Varchar(s) => s.as_str(),
                v => {
                    self.text.clear();
                    let _ = write!(self.text, "{v}");
                    self.text.as_str()
                }
            };
            write_field(out, text)?;
        }
        out.write_all(b"\n")
    }

    fn finish(&mut self, _out: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }
}

/// Writes `field` as a CSV field: unchanged, or quoted when it holds a comma, a quote
/// or a line break (its quotes doubled).
fn write_field(out: &mut dyn Write, field: &str) -> io::Result<()> {
    if !field.contains([',', '"', '\n', '\r']) {
        return out.write_all(field.as_bytes());
    }
    out.write_all(b"\"")?;
    for (i, part) in field.split('"').enumerate() {
        if i > 0 {
            out.write_all(b"\"\"")?;
        }
        out.write_all(part.as_bytes())?;
    }
    out.write_all(b"\"")
}

#[cfg(test)]
mod tests {
    use super::super::{render_to_string, Mode};
    use stride_common::{DataType, ScalarValue};

    /// `field` as [`super::write_field`] writes it.
    fn quote(field: &str) -> String {
        let mut out = Vec::new();
        super::write_field(&mut out, field).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn quoting() {
        assert_eq!(quote("plain"), "plain");
        assert_eq!(quote("a,b"), "\"a,b\"");
        assert_eq!(quote("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(quote("two\nlines"), "\"two\nlines\"");
        assert_eq!(quote(""), "");
    }

    #[test]
    fn header_rows_and_nulls() {
        let out = render_to_string(
            Mode::Csv,
            &["id", "name,full"],
            &[DataType::Integer, DataType::Varchar],
            &[
                vec![ScalarValue::Integer(1), ScalarValue::Varchar("x,y".into())],
                vec![ScalarValue::Integer(2), ScalarValue::Null],
                vec![ScalarValue::Null, ScalarValue::Varchar("q\"".into())],
            ],
        );
        assert_eq!(out, "id,\"name,full\"\n1,\"x,y\"\n2,\n,\"q\"\"\"\n");
    }

    #[test]
    fn values_other_than_strings_are_quoted_by_their_text() {
        let list = ScalarValue::List(
            DataType::Integer,
            vec![ScalarValue::Integer(1), ScalarValue::Integer(2)],
        );
        let out = render_to_string(
            Mode::Csv,
            &["l", "d"],
            &[
                DataType::List(Box::new(DataType::Integer)),
                DataType::Double,
            ],
            &[vec![list, ScalarValue::Double(2.5)]],
        );
        assert_eq!(out, "l,d\n\"[1, 2]\",2.5\n");
    }
}
