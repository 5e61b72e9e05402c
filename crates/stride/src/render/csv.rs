//! `.mode csv`: a header line of column names, then one line per row, fields separated
//! by commas and quoted as RFC 4180 says (a field holding a comma, a quote or a line
//! break is put in double quotes, with its quotes doubled). NULL is an empty field.
//! Rows are written as they arrive.

use super::Renderer;
use std::io::{self, Write};
use stride_common::ScalarValue;

pub struct CsvRenderer {
    names: Vec<String>,
}

impl CsvRenderer {
    pub fn new(names: Vec<String>) -> Self {
        CsvRenderer { names }
    }
}

impl Renderer for CsvRenderer {
    fn begin(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let fields: Vec<String> = self.names.iter().map(|n| quote(n)).collect();
        writeln!(out, "{}", fields.join(","))
    }

    fn row(&mut self, out: &mut dyn Write, row: &[ScalarValue]) -> io::Result<()> {
        let fields: Vec<String> = row
            .iter()
            .map(|v| {
                if v.is_null() {
                    String::new()
                } else {
                    quote(&v.to_string())
                }
            })
            .collect();
        writeln!(out, "{}", fields.join(","))
    }

    fn finish(&mut self, _out: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }
}

/// `field` as a CSV field: unchanged, or quoted when it holds a comma, a quote or a line
/// break.
pub fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{render_to_string, Mode};
    use super::quote;
    use stride_common::{DataType, ScalarValue};

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
}
