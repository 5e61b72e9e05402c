//! What the user asked of `read_csv` (DuckDB's option names) and the dialect the
//! reader finally uses. Options left unset are detected by the sniffer.

use stride_common::{DataType, Error, Result, ScalarValue};
use stride_functions::scalar::date::format::Format;

/// Longest line accepted unless `max_line_size` says otherwise (as DuckDB).
pub const DEFAULT_MAX_LINE_SIZE: usize = 2 << 20;
/// Rows the sniffer reads, spread over the whole file.
pub const DEFAULT_SAMPLE_SIZE: usize = 20_480;

/// Options of one `read_csv` call; `None` means "detect".
#[derive(Debug, Clone, Default)]
pub struct CsvOptions {
    pub delimiter: Option<u8>,
    /// `Some(None)`: no quoting at all (`quote = ''`).
    pub quote: Option<Option<u8>>,
    pub escape: Option<Option<u8>>,
    pub header: Option<bool>,
    /// `"\n"`, `"\r\n"` or `"\r"`.
    pub new_line: Option<u8>,
    pub skip: usize,
    /// Every column's name and type, in file order; switches type detection off.
    pub columns: Option<Vec<(String, DataType)>>,
    /// Column names overriding the header or the generated ones.
    pub names: Option<Vec<String>>,
    /// Types by position.
    pub types_by_position: Option<Vec<DataType>>,
    /// Types by column name.
    pub types_by_name: Option<Vec<(String, DataType)>>,
    /// Strings read as NULL (default: the empty string).
    pub nullstr: Option<Vec<String>>,
    pub dateformat: Option<String>,
    pub timestampformat: Option<String>,
    pub ignore_errors: bool,
    pub null_padding: bool,
    pub all_varchar: bool,
    pub auto_detect: Option<bool>,
    pub max_line_size: Option<usize>,
    pub sample_size: Option<usize>,
    /// Adds a `filename` column holding each row's file.
    pub filename: bool,
}

impl CsvOptions {
    /// Sets a scalar option by name (`delim = '|'`); errors name the option.
    pub fn set(&mut self, name: &str, value: &ScalarValue) -> Result<()> {
        let lname = name.to_ascii_lowercase();
        let text = || -> Result<String> {
            match value {
                ScalarValue::Varchar(s) => Ok(s.clone()),
                other => Err(Error::binder(format!(
                    "read_csv option {lname} takes a string, got {other}"
                ))),
            }
        };
        let flag = || -> Result<bool> {
            match value {
                ScalarValue::Boolean(b) => Ok(*b),
                ScalarValue::Varchar(s) => match s.to_ascii_lowercase().as_str() {
                    "true" | "1" | "on" => Ok(true),
                    "false" | "0" | "off" => Ok(false),
                    _ => Err(Error::binder(format!(
                        "read_csv option {lname} takes true or false, got '{s}'"
                    ))),
                },
                other => other.as_i64().map(|v| v != 0).ok_or_else(|| {
                    Error::binder(format!(
                        "read_csv option {lname} takes true or false, got {other}"
                    ))
                }),
            }
        };
        let count = || -> Result<i64> {
            value.as_i64().ok_or_else(|| {
                Error::binder(format!(
                    "read_csv option {lname} takes an integer, got {value}"
                ))
            })
        };
        match lname.as_str() {
            "delim" | "sep" | "delimiter" => {
                self.delimiter = Some(single_byte(&lname, &unescape_option(&text()?))?)
            }
            "quote" => self.quote = Some(optional_byte(&lname, &text()?)?),
            "escape" => self.escape = Some(optional_byte(&lname, &text()?)?),
            "header" => self.header = Some(flag()?),
            "new_line" | "newline" => {
                self.new_line = Some(match unescape_option(&text()?).as_str() {
                    "\n" | "\r\n" => b'\n',
                    "\r" => b'\r',
                    other => {
                        return Err(Error::binder(format!(
                            "read_csv option new_line must be '\\n', '\\r\\n' or '\\r', got '{}'",
                            other.escape_default()
                        )))
                    }
                })
            }
            "skip" => {
                self.skip = usize::try_from(count()?)
                    .map_err(|_| Error::binder("read_csv option skip must not be negative"))?
            }
            "nullstr" | "null" => self.nullstr = Some(vec![text()?]),
            "dateformat" | "date_format" => self.dateformat = Some(text()?),
            "timestampformat" | "timestamp_format" => self.timestampformat = Some(text()?),
            "ignore_errors" => self.ignore_errors = flag()?,
            "null_padding" => self.null_padding = flag()?,
            "all_varchar" => self.all_varchar = flag()?,
            "auto_detect" => self.auto_detect = Some(flag()?),
            "filename" => self.filename = flag()?,
            "max_line_size" | "maximum_line_size" => {
                let n = count()?;
                if n < 1 {
                    return Err(Error::binder(
                        "read_csv option max_line_size must be positive",
                    ));
                }
                self.max_line_size = Some(n as usize)
            }
            "sample_size" => {
                let n = count()?;
                self.sample_size = Some(if n < 0 { usize::MAX } else { n.max(1) as usize })
            }
            "compression" => match text()?.to_ascii_lowercase().as_str() {
                "auto" | "gzip" | "none" => {}
                other => {
                    return Err(Error::not_supported(format!(
                        "read_csv compression '{other}' is not supported; use gzip or none"
                    )))
                }
            },
            "format" => {
                let f = text()?;
                if !f.eq_ignore_ascii_case("csv") {
                    return Err(Error::not_supported(format!(
                        "format '{f}' is not supported; only csv is"
                    )));
                }
            }
            other => return Err(unknown_option(other)),
        }
        Ok(())
    }

    /// The strings read as NULL, as bytes (the empty string unless `nullstr` says).
    pub fn null_strings(&self) -> Vec<Vec<u8>> {
        match &self.nullstr {
            Some(v) => v.iter().map(|s| s.as_bytes().to_vec()).collect(),
            None => vec![Vec::new()],
        }
    }

    pub fn max_line_size(&self) -> usize {
        self.max_line_size.unwrap_or(DEFAULT_MAX_LINE_SIZE)
    }

    /// The compiled `dateformat` / `timestampformat`.
    pub fn formats(&self) -> Result<(Option<Format>, Option<Format>)> {
        let compile = |f: &Option<String>| f.as_deref().map(Format::parse).transpose();
        Ok((compile(&self.dateformat)?, compile(&self.timestampformat)?))
    }
}

pub const OPTION_NAMES: &[&str] = &[
    "delim",
    "delimiter",
    "sep",
    "quote",
    "escape",
    "header",
    "new_line",
    "newline",
    "skip",
    "columns",
    "names",
    "column_names",
    "types",
    "column_types",
    "dtypes",
    "nullstr",
    "null",
    "dateformat",
    "date_format",
    "timestampformat",
    "timestamp_format",
    "ignore_errors",
    "null_padding",
    "all_varchar",
    "auto_detect",
    "max_line_size",
    "maximum_line_size",
    "sample_size",
    "filename",
    "compression",
    "format",
];

/// An option `read_csv` does not have; the binder adds a suggestion.
pub fn unknown_option(name: &str) -> Error {
    Error::binder(format!("unknown read_csv option \"{name}\"."))
}

/// `'\t'` written as the two characters backslash and t means a tab.
fn unescape_option(s: &str) -> String {
    match s {
        "\\t" => "\t".into(),
        "\\n" => "\n".into(),
        "\\r" => "\r".into(),
        "\\r\\n" => "\r\n".into(),
        _ => s.to_string(),
    }
}

fn single_byte(name: &str, s: &str) -> Result<u8> {
    match s.as_bytes() {
        [b] if *b != b'\n' && *b != b'\r' => Ok(*b),
        [] => Err(Error::binder(format!(
            "read_csv option {name} must not be empty"
        ))),
        _ => Err(Error::not_supported(format!(
            "read_csv option {name} must be a single byte other than a newline, got '{}'",
            s.escape_default()
        ))),
    }
}

fn optional_byte(name: &str, s: &str) -> Result<Option<u8>> {
    if s.is_empty() {
        Ok(None)
    } else {
        single_byte(name, &unescape_option(s)).map(Some)
    }
}

/// The dialect a file is read with, after detection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dialect {
    pub delimiter: u8,
    pub quote: Option<u8>,
    /// The byte that escapes a quote inside a quoted field; equal to `quote` for the
    /// RFC 4180 convention of doubled quotes.
    pub escape: Option<u8>,
    /// Record terminator: `\n` (a `\r` before it is dropped) or `\r` alone.
    pub newline: u8,
}

impl Default for Dialect {
    fn default() -> Self {
        Dialect {
            delimiter: b',',
            quote: Some(b'"'),
            escape: Some(b'"'),
            newline: b'\n',
        }
    }
}

/// Shows a byte the way a user would type it in an option.
pub fn show_byte(b: Option<u8>) -> String {
    match b {
        None => String::new(),
        Some(b'\t') => "\\t".into(),
        Some(b'\n') => "\\n".into(),
        Some(b'\r') => "\\r".into(),
        Some(b) => (b as char).to_string(),
    }
}
