//! `.mode line`: each row as one `name = value` line per column, the names
//! right-aligned to the longest, with a blank line between rows. Rows are written as
//! they arrive.

use super::{display_width, Renderer};
use std::io::{self, Write};
use stride_common::ScalarValue;

pub struct LineRenderer {
    /// The column names, already padded on the left to a common width.
    labels: Vec<String>,
    rows: u64,
}

impl LineRenderer {
    pub fn new(names: Vec<String>) -> Self {
        let width = names.iter().map(|n| display_width(n)).max().unwrap_or(0);
        let labels = names
            .iter()
            .map(|n| format!("{}{}", " ".repeat(width - display_width(n)), n))
            .collect();
        LineRenderer { labels, rows: 0 }
    }
}

impl Renderer for LineRenderer {
    fn begin(&mut self, _out: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }

    fn row(&mut self, out: &mut dyn Write, row: &[ScalarValue]) -> io::Result<()> {
        let mut s = String::new();
        if self.rows > 0 {
            s.push('\n');
        }
        self.rows += 1;
        for (label, v) in self.labels.iter().zip(row) {
            s.push_str(label);
            s.push_str(" = ");
            s.push_str(&v.to_string());
            s.push('\n');
        }
        out.write_all(s.as_bytes())
    }

    fn finish(&mut self, _out: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{render_to_string, Mode};
    use stride_common::{DataType, ScalarValue};

    #[test]
    fn names_right_aligned_rows_apart() {
        let out = render_to_string(
            Mode::Line,
            &["a", "long_name"],
            &[DataType::Integer, DataType::Varchar],
            &[
                vec![ScalarValue::Integer(1), ScalarValue::Varchar("x".into())],
                vec![ScalarValue::Integer(2), ScalarValue::Null],
            ],
        );
        assert_eq!(
            out,
            "        a = 1\nlong_name = x\n\n        a = 2\nlong_name = NULL\n"
        );
    }
}
