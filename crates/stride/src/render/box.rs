//! The default output mode: a table drawn with Unicode box characters, as DuckDB's
//! shell draws it. Two header rows give the column names and their types; numbers are
//! right-aligned, everything else left-aligned. A result of more than 40 rows shows its
//! first and last 20 rows with a band of `·` between them and a footer counting the
//! rows. Only those 40 rows are kept in memory, however long the result. A value with
//! line breaks (an EXPLAIN plan) spans several lines of its row; other control
//! characters are shown escaped, and lines wider than 80 columns are cut with `…`.

use super::{display_width, escape_controls, type_label, Renderer};
use std::collections::VecDeque;
use std::io::{self, Write};
use stride_common::{DataType, ScalarValue};

/// Results with at most this many rows are shown whole.
const MAX_ROWS: usize = 40;
/// Longer results show this many rows at the top and as many at the bottom.
const HALF: usize = MAX_ROWS / 2;
/// Widest a cell may be, in terminal columns, before it is cut with `…`.
const MAX_CELL_WIDTH: usize = 80;
/// Rows of `·` standing for the rows left out.
const ELLIPSIS_ROWS: usize = 3;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Align {
    Left,
    Center,
    Right,
}

pub struct BoxRenderer {
    names: Vec<String>,
    types: Vec<String>,
    right_aligned: Vec<bool>,
    /// The first `MAX_ROWS` rows, as cell text.
    head: Vec<Vec<String>>,
    /// The last `HALF` rows after `head` filled up.
    tail: VecDeque<Vec<String>>,
    total: u64,
}

impl BoxRenderer {
    pub fn new(names: Vec<String>, types: Vec<DataType>) -> Self {
        BoxRenderer {
            names: names.iter().map(|n| cell_text(n, true)).collect(),
            right_aligned: types
                .iter()
                .map(|t| t.is_numeric() || *t == DataType::UHugeInt)
                .collect(),
            types: types.iter().map(type_label).collect(),
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
        }
    }

    /// The rows to draw: all of them, or the first and last `HALF` with `None` (the
    /// band of dots) between.
    fn shown_rows(&self) -> Vec<Option<&Vec<String>>> {
        if self.total as usize <= MAX_ROWS && self.tail.is_empty() {
            return self.head.iter().map(Some).collect();
        }
        let later: Vec<&Vec<String>> = self.head[HALF..].iter().chain(self.tail.iter()).collect();
        let mut rows: Vec<Option<&Vec<String>>> = self.head[..HALF].iter().map(Some).collect();
        rows.extend(std::iter::repeat_n(None, ELLIPSIS_ROWS));
        rows.extend(later[later.len() - HALF..].iter().map(|r| Some(*r)));
        rows
    }
}

impl Renderer for BoxRenderer {
    fn begin(&mut self, _out: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }

    fn row(&mut self, _out: &mut dyn Write, row: &[ScalarValue]) -> io::Result<()> {
        let cells: Vec<String> = row
            .iter()
            .map(|v| cell_text(&v.to_string(), false))
            .collect();
        self.total += 1;
        if self.head.len() < MAX_ROWS {
            self.head.push(cells);
        } else {
            self.tail.push_back(cells);
            if self.tail.len() > HALF {
                self.tail.pop_front();
            }
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let rows = self.shown_rows();
        let ncols = self.names.len();
        if ncols == 0 {
            return Ok(());
        }
        let mut widths: Vec<usize> = (0..ncols)
            .map(|c| display_width(&self.names[c]).max(display_width(&self.types[c])))
            .collect();
        for row in rows.iter().flatten() {
            for (w, cell) in widths.iter_mut().zip(row.iter()) {
                *w = (*w).max(cell_width(cell));
            }
        }
        let shown = rows.iter().filter(|r| r.is_some()).count();
        let footer = if self.total == 0 {
            Some("0 rows".to_string())
        } else if self.total as usize > shown {
            Some(format!("{} rows ({} shown)", self.total, shown))
        } else {
            None
        };
        // Inside width between the outer borders: cells with their padding, and the
        // inner borders.
        let mut inner: usize = widths.iter().map(|w| w + 2).sum::<usize>() + ncols - 1;
        if let Some(f) = &footer {
            let need = display_width(f) + 2;
            if need > inner {
                widths[ncols - 1] += need - inner;
                inner = need;
            }
        }

        let mut s = String::new();
        border(&mut s, &widths, '┌', '┬', '┐');
        let centered = vec![false; ncols];
        cells_line(&mut s, &widths, &self.names, &centered, Align::Center);
        cells_line(&mut s, &widths, &self.types, &centered, Align::Center);
        if !rows.is_empty() {
            border(&mut s, &widths, '├', '┼', '┤');
            let dots = vec!["·".to_string(); ncols];
            for row in &rows {
                match row {
                    Some(cells) => {
                        cells_line(&mut s, &widths, cells, &self.right_aligned, Align::Left)
                    }
                    None => cells_line(&mut s, &widths, &dots, &centered, Align::Center),
                }
            }
        }
        match &footer {
            Some(f) => {
                border(&mut s, &widths, '├', '┴', '┤');
                s.push('│');
                s.push_str(&pad(f, inner, Align::Center));
                s.push_str("│\n");
                border(&mut s, &[inner - 2], '└', '─', '┘');
            }
            None => border(&mut s, &widths, '└', '┴', '┘'),
        }
        out.write_all(s.as_bytes())
    }
}

/// A value as a box cell: each line cut to `MAX_CELL_WIDTH` columns, other control
/// characters escaped. Line breaks stay (a multi-line value, an EXPLAIN plan, takes
/// several lines of the table; a final line break is dropped) unless `one_line`, where
/// they are escaped too.
fn cell_text(s: &str, one_line: bool) -> String {
    if one_line {
        return cut(&escape_controls(s));
    }
    let s = s.strip_suffix('\n').unwrap_or(s);
    let lines: Vec<String> = s
        .split('\n')
        .map(|l| cut(&escape_controls(l.strip_suffix('\r').unwrap_or(l))))
        .collect();
    lines.join("\n")
}

/// `s` cut to `MAX_CELL_WIDTH` columns, ending with `…` where something was left out.
fn cut(s: &str) -> String {
    if display_width(s) <= MAX_CELL_WIDTH {
        return s.to_string();
    }
    let mut cut = String::new();
    let mut width = 0;
    for c in s.chars() {
        let w = super::char_width(c);
        if width + w > MAX_CELL_WIDTH - 1 {
            break;
        }
        width += w;
        cut.push(c);
    }
    cut.push('…');
    cut
}

/// How wide a cell is: its widest line.
fn cell_width(cell: &str) -> usize {
    cell.split('\n').map(display_width).max().unwrap_or(0)
}

/// A horizontal rule: `left`, then each column's width (plus padding) of `─` joined by
/// `join`, then `right`.
fn border(s: &mut String, widths: &[usize], left: char, join: char, right: char) {
    s.push(left);
    for (i, w) in widths.iter().enumerate() {
        if i > 0 {
            s.push(join);
        }
        s.extend(std::iter::repeat_n('─', w + 2));
    }
    s.push(right);
    s.push('\n');
}

/// One row of cells (several lines of text where a cell has line breaks); a column
/// with `right[i]` set is right-aligned, the others take `align`.
fn cells_line(s: &mut String, widths: &[usize], cells: &[String], right: &[bool], align: Align) {
    let height = cells
        .iter()
        .map(|c| c.split('\n').count())
        .max()
        .unwrap_or(1);
    for line in 0..height {
        s.push('│');
        for (i, w) in widths.iter().enumerate() {
            let cell = cells
                .get(i)
                .and_then(|c| c.split('\n').nth(line))
                .unwrap_or("");
            let a = if right.get(i).copied().unwrap_or(false) {
                Align::Right
            } else {
                align
            };
            s.push(' ');
            s.push_str(&pad(cell, *w, a));
            s.push(' ');
            s.push('│');
        }
        s.push('\n');
    }
}

/// `text` padded with spaces to `width` columns.
fn pad(text: &str, width: usize, align: Align) -> String {
    let gap = width.saturating_sub(display_width(text));
    let (left, right) = match align {
        Align::Left => (0, gap),
        Align::Right => (gap, 0),
        Align::Center => (gap / 2, gap - gap / 2),
    };
    format!("{}{}{}", " ".repeat(left), text, " ".repeat(right))
}

#[cfg(test)]
mod tests {
    use super::super::{display_width, render_to_string, Mode};
    use stride_common::{DataType, ScalarValue};

    fn render(names: &[&str], types: &[DataType], rows: &[Vec<ScalarValue>]) -> String {
        render_to_string(Mode::Box, names, types, rows)
    }

    #[test]
    fn small_table_with_alignment() {
        let out = render(
            &["a", "b"],
            &[DataType::Integer, DataType::Varchar],
            &[
                vec![
                    ScalarValue::Integer(42),
                    ScalarValue::Varchar("hello".into()),
                ],
                vec![ScalarValue::Integer(7), ScalarValue::Null],
            ],
        );
        let expected = "\
┌─────────┬─────────┐
│    a    │    b    │
│ integer │ varchar │
├─────────┼─────────┤
│      42 │ hello   │
│       7 │ NULL    │
└─────────┴─────────┘
";
        assert_eq!(out, expected);
    }

    #[test]
    fn decimal_type_label_and_numbers_right() {
        let out = render(
            &["price"],
            &[DataType::Decimal(15, 2)],
            &[vec![ScalarValue::Decimal(12345, 15, 2)]],
        );
        assert!(out.contains("│ decimal(15,2) │"), "{out}");
        assert!(out.contains("│        123.45 │"), "{out}");
    }

    #[test]
    fn long_results_elide_the_middle() {
        let rows: Vec<Vec<ScalarValue>> = (0..1000).map(|i| vec![ScalarValue::BigInt(i)]).collect();
        let out = render(&["i"], &[DataType::BigInt], &rows);
        let lines: Vec<&str> = out.lines().collect();
        // top border, 2 header rows, separator, 20 rows, 3 dot rows, 20 rows, separator,
        // footer, bottom border.
        assert_eq!(lines.len(), 4 + 20 + 3 + 20 + 3, "{out}");
        assert!(
            lines[4].trim_matches(|c: char| c == '│' || c == ' ') == "0",
            "{out}"
        );
        assert!(lines[23].ends_with(" 19 │"), "{out}");
        assert!(lines[24].contains('·'), "{out}");
        assert!(lines[27].ends_with(" 980 │"), "{out}");
        assert!(lines[46].ends_with(" 999 │"), "{out}");
        assert!(!out.contains(" 500 │"), "{out}");
        let footer = lines[48];
        assert!(footer.starts_with('│') && footer.ends_with('│'), "{out}");
        assert!(footer.contains("1000 rows (40 shown)"), "{out}");
        // Every line has the same width, including the widened footer.
        let w = display_width(lines[0]);
        assert!(lines.iter().all(|l| display_width(l) == w), "{out}");
        assert!(
            lines[49].starts_with('└') && !lines[49].contains('┴'),
            "{out}"
        );
    }

    #[test]
    fn just_over_the_limit_keeps_the_right_tail() {
        let rows: Vec<Vec<ScalarValue>> = (0..45).map(|i| vec![ScalarValue::Integer(i)]).collect();
        let out = render(&["n"], &[DataType::Integer], &rows);
        let values: Vec<i64> = out
            .lines()
            .filter_map(|l| l.trim_matches(|c: char| c == '│' || c == ' ').parse().ok())
            .collect();
        let expected: Vec<i64> = (0..20).chain(25..45).collect();
        assert_eq!(values, expected, "{out}");
        assert!(out.contains("45 rows (40 shown)"), "{out}");
    }

    #[test]
    fn forty_rows_show_whole() {
        let rows: Vec<Vec<ScalarValue>> = (0..40).map(|i| vec![ScalarValue::Integer(i)]).collect();
        let out = render(&["n"], &[DataType::Integer], &rows);
        assert!(!out.contains('·'));
        assert!(!out.contains("rows"));
        assert_eq!(out.lines().count(), 4 + 40 + 1);
    }

    #[test]
    fn multi_line_cells_take_several_lines() {
        let out = render(
            &["plan", "n"],
            &[DataType::Varchar, DataType::Integer],
            &[vec![
                ScalarValue::Varchar("PROJECTION\n  SCAN t".into()),
                ScalarValue::Integer(1),
            ]],
        );
        let expected = "\
┌────────────┬─────────┐
│    plan    │    n    │
│  varchar   │ integer │
├────────────┼─────────┤
│ PROJECTION │       1 │
│   SCAN t   │         │
└────────────┴─────────┘
";
        assert_eq!(out, expected);
    }

    #[test]
    fn empty_result_and_wide_cells() {
        let out = render(&["x"], &[DataType::Varchar], &[]);
        assert!(out.contains("0 rows"), "{out}");
        let long = "x".repeat(200);
        let out = render(
            &["s"],
            &[DataType::Varchar],
            &[vec![ScalarValue::Varchar(long)]],
        );
        let row = out.lines().nth(4).unwrap();
        assert!(row.contains('…'), "{out}");
        assert_eq!(display_width(row), 80 + 4);
        let out = render(
            &["s"],
            &[DataType::Varchar],
            &[vec![ScalarValue::Varchar("a\tb".into())]],
        );
        assert!(out.contains("│ a\\tb    │"), "{out}");
    }
}
