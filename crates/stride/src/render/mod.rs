//! Turning query results into text, for the shell and for `show()` in the Python package. Each output mode (`.mode box|csv|json|markdown|
//! line|list`) lives in its own file and implements [`Renderer`]: the shell hands it
//! the column names and types once, then every row as it arrives, then asks it to
//! finish. Streaming modes write each row at once; box and markdown keep what they need
//! to lay out aligned columns and write everything in [`Renderer::finish`].

#[path = "box.rs"]
mod boxed;
mod csv;
mod json;
mod line;
mod list;
mod markdown;

use std::fmt;
use std::io::{self, Write};
use stride_common::{DataType, ScalarValue};

/// An output mode, as named by `.mode` and the command-line flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Box,
    Csv,
    Json,
    Markdown,
    Line,
    List,
}

impl Mode {
    pub const ALL: [Mode; 6] = [
        Mode::Box,
        Mode::Csv,
        Mode::Json,
        Mode::Markdown,
        Mode::Line,
        Mode::List,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Mode::Box => "box",
            Mode::Csv => "csv",
            Mode::Json => "json",
            Mode::Markdown => "markdown",
            Mode::Line => "line",
            Mode::List => "list",
        }
    }

    pub fn parse(name: &str) -> Option<Mode> {
        Mode::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(name))
    }

    /// A renderer for one result with these columns.
    pub fn renderer(self, names: &[String], types: &[DataType]) -> Box<dyn Renderer> {
        let names = names.to_vec();
        let types = types.to_vec();
        match self {
            Mode::Box => Box::new(boxed::BoxRenderer::new(names, types)),
            Mode::Csv => Box::new(csv::CsvRenderer::new(names)),
            Mode::Json => Box::new(json::JsonRenderer::new(names)),
            Mode::Markdown => Box::new(markdown::MarkdownRenderer::new(names, types)),
            Mode::Line => Box::new(line::LineRenderer::new(names)),
            Mode::List => Box::new(list::ListRenderer::new(names)),
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Writes one result. Calls come in the order `begin`, `row`*, `finish`.
pub trait Renderer {
    /// Writes whatever precedes the rows (a header line, for the streaming modes).
    fn begin(&mut self, out: &mut dyn Write) -> io::Result<()>;
    /// Takes one row: writes it, or keeps it for `finish`.
    fn row(&mut self, out: &mut dyn Write, row: &[ScalarValue]) -> io::Result<()>;
    /// Writes whatever is left once every row has been given.
    fn finish(&mut self, out: &mut dyn Write) -> io::Result<()>;
}

/// How wide `s` is on a terminal, in columns: East Asian wide characters and most
/// emoji take two, combining marks none, everything else one.
pub fn display_width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

pub fn char_width(c: char) -> usize {
    let cp = c as u32;
    match cp {
        0x0300..=0x036F | 0x200B..=0x200F | 0x20D0..=0x20FF | 0xFE00..=0xFE0F => 0,
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF
        | 0x20000..=0x3FFFD => 2,
        _ => 1,
    }
}

/// `s` with control characters written as escapes (`\n`, `\t`, `\u{1b}`), so that a
/// value always stays on one line of an aligned table.
pub fn escape_controls(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The lowercase SQL name of a type, as the box header shows it ("decimal(15,2)").
pub fn type_label(ty: &DataType) -> String {
    ty.to_string().to_lowercase()
}

/// Renders rows in `mode` into a string; for tests.
#[cfg(test)]
pub fn render_to_string(
    mode: Mode,
    names: &[&str],
    types: &[DataType],
    rows: &[Vec<ScalarValue>],
) -> String {
    let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    let mut r = mode.renderer(&names, types);
    let mut out = Vec::new();
    r.begin(&mut out).unwrap();
    for row in rows {
        r.row(&mut out, row).unwrap();
    }
    r.finish(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_round_trip_by_name() {
        for m in Mode::ALL {
            assert_eq!(Mode::parse(m.name()), Some(m));
        }
        assert_eq!(Mode::parse("CSV"), Some(Mode::Csv));
        assert_eq!(Mode::parse("table"), None);
    }

    #[test]
    fn widths_and_escapes() {
        assert_eq!(display_width("abc"), 3);
        assert_eq!(display_width("日本"), 4);
        assert_eq!(display_width("e\u{301}"), 1);
        assert_eq!(escape_controls("a\nb\tc"), "a\\nb\\tc");
        assert_eq!(type_label(&DataType::Decimal(15, 2)), "decimal(15,2)");
    }
}
