//! `.mode markdown`: a GitHub-flavoured Markdown table, `| a | b |`, then the alignment
//! row (`---:` for numeric columns, which are right-aligned), then the rows, padded so
//! the columns line up. Pipes inside values are escaped. The rows are kept until the
//! end, since the widths depend on all of them.

use super::{display_width, escape_controls, Renderer};
use std::io::{self, Write};
use stride_common::{DataType, ScalarValue};

pub struct MarkdownRenderer {
    names: Vec<String>,
    right_aligned: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl MarkdownRenderer {
    pub fn new(names: Vec<String>, types: Vec<DataType>) -> Self {
        MarkdownRenderer {
            names: names.iter().map(|n| cell_text(n)).collect(),
            right_aligned: types.iter().map(DataType::is_numeric).collect(),
            rows: Vec::new(),
        }
    }
}

impl Renderer for MarkdownRenderer {
    fn begin(&mut self, _out: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }

    fn row(&mut self, _out: &mut dyn Write, row: &[ScalarValue]) -> io::Result<()> {
        self.rows
            .push(row.iter().map(|v| cell_text(&v.to_string())).collect());
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let mut widths: Vec<usize> = self.names.iter().map(|n| display_width(n).max(3)).collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(display_width(cell));
            }
        }
        let mut s = String::new();
        self.line(&mut s, &widths, &self.names);
        s.push('|');
        for (w, right) in widths.iter().zip(&self.right_aligned) {
            if *right {
                s.push_str(&"-".repeat(w + 1));
                s.push(':');
            } else {
                s.push_str(&"-".repeat(w + 2));
            }
            s.push('|');
        }
        s.push('\n');
        for row in &self.rows {
            self.line(&mut s, &widths, row);
        }
        out.write_all(s.as_bytes())
    }
}

impl MarkdownRenderer {
    fn line(&self, s: &mut String, widths: &[usize], cells: &[String]) {
        s.push('|');
        for (i, w) in widths.iter().enumerate() {
            let cell = cells.get(i).map_or("", String::as_str);
            let gap = " ".repeat(w.saturating_sub(display_width(cell)));
            s.push(' ');
            if self.right_aligned[i] {
                s.push_str(&gap);
                s.push_str(cell);
            } else {
                s.push_str(cell);
                s.push_str(&gap);
            }
            s.push_str(" |");
        }
        s.push('\n');
    }
}

/// A value as a Markdown cell: on one line, with `|` escaped.
fn cell_text(s: &str) -> String {
    escape_controls(s).replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::super::{render_to_string, Mode};
    use stride_common::{DataType, ScalarValue};

    #[test]
    fn aligned_table() {
        let out = render_to_string(
            Mode::Markdown,
            &["n", "name"],
            &[DataType::BigInt, DataType::Varchar],
            &[
                vec![ScalarValue::BigInt(1), ScalarValue::Varchar("a|b".into())],
                vec![ScalarValue::BigInt(1234), ScalarValue::Null],
            ],
        );
        let expected = "\
|    n | name |
|-----:|------|
|    1 | a\\|b |
| 1234 | NULL |
";
        assert_eq!(out, expected);
    }
}
