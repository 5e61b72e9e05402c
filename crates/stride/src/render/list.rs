//! `.mode list`: a header line, then one line per row, values separated by `|` and
//! written as they are (NULL as `NULL`). Rows are written as they arrive.

use super::Renderer;
use std::io::{self, Write};
use stride_common::ScalarValue;

pub struct ListRenderer {
    names: Vec<String>,
}

impl ListRenderer {
    pub fn new(names: Vec<String>) -> Self {
        ListRenderer { names }
    }
}

impl Renderer for ListRenderer {
    fn begin(&mut self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{}", self.names.join("|"))
    }

    fn row(&mut self, out: &mut dyn Write, row: &[ScalarValue]) -> io::Result<()> {
        let fields: Vec<String> = row.iter().map(ScalarValue::to_string).collect();
        writeln!(out, "{}", fields.join("|"))
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
    fn pipes_between_values() {
        let out = render_to_string(
            Mode::List,
            &["a", "b"],
            &[DataType::Integer, DataType::Varchar],
            &[
                vec![ScalarValue::Integer(1), ScalarValue::Varchar("x".into())],
                vec![ScalarValue::Null, ScalarValue::Varchar("".into())],
            ],
        );
        assert_eq!(out, "a|b\n1|x\nNULL|\n");
    }
}
