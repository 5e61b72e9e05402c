//! `COPY … TO 'file.csv'`: formats result chunks as CSV. Chunks are formatted on
//! every core into separate buffers and written in order, so the file reads like the
//! query's result. Fields holding the delimiter, a quote, a newline or leading or
//! trailing spaces are quoted; NULL is written as the NULL string (empty by default).
//!
//! [`write_record`] writes one record from field texts, for callers that spell values
//! themselves (the server's `COPY … TO STDOUT` writes PostgreSQL's spellings). With
//! `text_format` records follow PostgreSQL's text COPY format instead of CSV.

use std::io::Write;
use stride_common::{workers, DataChunk, DataType, Error, Result, Vector, VectorData};

/// How `COPY … TO` writes its file.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvWriteOptions {
    pub delimiter: u8,
    pub quote: u8,
    pub escape: u8,
    pub header: bool,
    pub null: String,
    /// PostgreSQL's text format: fields are never quoted; backslash, newline, carriage
    /// return, tab and the delimiter are written as backslash escapes.
    pub text_format: bool,
}

impl Default for CsvWriteOptions {
    fn default() -> Self {
        CsvWriteOptions {
            delimiter: b',',
            quote: b'"',
            escape: b'"',
            header: false,
            null: String::new(),
            text_format: false,
        }
    }
}

impl CsvWriteOptions {
    /// PostgreSQL's text format defaults: tab-separated, NULL as `\N`.
    pub fn text() -> Self {
        CsvWriteOptions {
            delimiter: b'\t',
            null: "\\N".into(),
            text_format: true,
            ..Default::default()
        }
    }
}

/// Appends one record: each field's text (`None` for NULL), separated by the
/// delimiter, quoted or escaped as the format needs, then a newline.
pub fn write_record<'a>(
    fields: impl IntoIterator<Item = Option<&'a [u8]>>,
    opts: &CsvWriteOptions,
    buf: &mut Vec<u8>,
) {
    for (i, f) in fields.into_iter().enumerate() {
        if i > 0 {
            buf.push(opts.delimiter);
        }
        match f {
            None => buf.extend_from_slice(opts.null.as_bytes()),
            Some(text) => write_text(buf, text, opts),
        }
    }
    buf.push(b'\n');
}

/// A CSV file being written: the header when asked for, then formatted rows in
/// order ([`format_chunk`]); [`CsvFile::finish`] puts it in place of the path, and a
/// file dropped unfinished leaves the old one, or none.
pub struct CsvFile {
    path: String,
    new: crate::file::NewFile,
    out: std::io::BufWriter<std::fs::File>,
    rows: u64,
}

impl CsvFile {
    /// Starts `path`, writing a header of `names` when `opts` asks for one.
    pub fn create(path: &str, names: &[String], opts: &CsvWriteOptions) -> Result<CsvFile> {
        let (new, file) = crate::file::NewFile::create(path).map_err(|e| io_error(path, e))?;
        let mut f = CsvFile {
            path: path.to_string(),
            new,
            out: std::io::BufWriter::with_capacity(1 << 20, file),
            rows: 0,
        };
        if opts.header {
            let mut line = Vec::new();
            write_record(names.iter().map(|n| Some(n.as_bytes())), opts, &mut line);
            f.write(&line, 0)?;
        }
        Ok(f)
    }

    /// Appends `rows` rows formatted as `text`.
    pub fn write(&mut self, text: &[u8], rows: u64) -> Result<()> {
        self.out
            .write_all(text)
            .map_err(|e| io_error(&self.path, e))?;
        self.rows += rows;
        Ok(())
    }

    /// Flushes the file and puts it in place; returns the rows written.
    pub fn finish(self) -> Result<u64> {
        let CsvFile {
            path,
            new,
            out,
            rows,
        } = self;
        out.into_inner()
            .map_err(|e| io_error(&path, e.into_error()))?;
        new.commit().map_err(|e| io_error(&path, e))?;
        Ok(rows)
    }
}

fn io_error(path: &str, e: std::io::Error) -> Error {
    Error::io(format!("cannot write \"{path}\": {e}"))
}

/// Writes `chunks` with a header of `names` (when asked) to `path`; returns the rows
/// written.
pub fn write_file(
    path: &str,
    names: &[String],
    chunks: &[DataChunk],
    opts: &CsvWriteOptions,
    threads: usize,
) -> Result<u64> {
    let mut file = CsvFile::create(path, names, opts)?;
    // Format a batch of chunks in parallel, then write it in order.
    let threads = threads.max(1);
    for batch in chunks.chunks(threads * 8) {
        let per = batch.len().div_ceil(threads);
        let parts: Vec<&[DataChunk]> = batch.chunks(per.max(1)).collect();
        let buffers = workers::map(&parts, threads, |part| {
            let mut buf = Vec::new();
            for c in *part {
                format_chunk(c, opts, &mut buf);
            }
            (buf, part.iter().map(|c| c.len() as u64).sum())
        })?;
        for (b, rows) in buffers {
            file.write(&b, rows)?;
        }
    }
    file.finish()
}

/// Appends the rows of `chunk` as CSV lines.
pub fn format_chunk(chunk: &DataChunk, opts: &CsvWriteOptions, buf: &mut Vec<u8>) {
    let mut text = String::new();
    for r in 0..chunk.len() {
        // Through the selection, then to the one stored value of a constant column.
        let row = chunk
            .selection
            .as_ref()
            .map_or(r, |s| s.indices[r] as usize);
        for (c, v) in chunk.columns.iter().enumerate() {
            if c > 0 {
                buf.push(opts.delimiter);
            }
            let i = v.index(row);
            if !v.validity.is_valid(i) {
                buf.extend_from_slice(opts.null.as_bytes());
                continue;
            }
            format_value(v, i, opts, buf, &mut text);
        }
        buf.push(b'\n');
    }
}

fn format_value(
    v: &Vector,
    r: usize,
    opts: &CsvWriteOptions,
    buf: &mut Vec<u8>,
    text: &mut String,
) {
    use std::fmt::Write as _;
    match (&v.ty, &v.data) {
        (DataType::BigInt, VectorData::I64(x)) => {
            let _ = write!(text_clear(text), "{}", x[r]);
        }
        (DataType::Integer, VectorData::I32(x)) => {
            let _ = write!(text_clear(text), "{}", x[r]);
        }
        // a BLOB as its text form (`\xAA` escapes), which reads back as the bytes
        (DataType::Blob, VectorData::Str(s)) => {
            stride_common::blob::format_escaped(s.get_bytes(r), text_clear(text));
            write_text(buf, text.as_bytes(), opts);
            return;
        }
        (DataType::Bit, VectorData::Str(s)) => {
            stride_common::bit::write_text(s.get_bytes(r), text_clear(text));
            write_text(buf, text.as_bytes(), opts);
            return;
        }
        (_, VectorData::Str(s)) => {
            write_text(buf, s.get_bytes(r), opts);
            return;
        }
        // Other types (DOUBLE included) as the engine prints them, so they read back.
        _ => {
            let _ = write!(text_clear(text), "{}", v.get(r));
        }
    }
    // lists and structs print with commas and quotes inside
    if matches!(v.ty, DataType::Varchar) || v.ty.is_nested() {
        write_text(buf, text.as_bytes(), opts);
    } else {
        buf.extend_from_slice(text.as_bytes());
    }
}

fn text_clear(t: &mut String) -> &mut String {
    t.clear();
    t
}

/// Writes a text field, quoted when it would otherwise read back differently.
fn write_text(buf: &mut Vec<u8>, s: &[u8], opts: &CsvWriteOptions) {
    if opts.text_format {
        write_escaped(buf, s, opts.delimiter);
        return;
    }
    let needs_quotes = s.iter().any(|&b| {
        b == opts.delimiter || b == opts.quote || b == b'\n' || b == b'\r' || b == opts.escape
    }) || s.first() == Some(&b' ')
        || s.last() == Some(&b' ')
        || (s.is_empty() && opts.null.is_empty())
        || (!opts.null.is_empty() && s == opts.null.as_bytes());
    if !needs_quotes {
        buf.extend_from_slice(s);
        return;
    }
    buf.push(opts.quote);
    for &b in s {
        if b == opts.quote || (b == opts.escape && opts.escape != opts.quote) {
            buf.push(opts.escape);
        }
        buf.push(b);
    }
    buf.push(opts.quote);
}

/// PostgreSQL's text format: special bytes as backslash escapes.
fn write_escaped(buf: &mut Vec<u8>, s: &[u8], delimiter: u8) {
    for &b in s {
        match b {
            b'\\' => buf.extend_from_slice(b"\\\\"),
            b'\n' => buf.extend_from_slice(b"\\n"),
            b'\r' => buf.extend_from_slice(b"\\r"),
            b'\t' => buf.extend_from_slice(b"\\t"),
            0x08 => buf.extend_from_slice(b"\\b"),
            0x0c => buf.extend_from_slice(b"\\f"),
            0x0b => buf.extend_from_slice(b"\\v"),
            d if d == delimiter => {
                buf.push(b'\\');
                buf.push(d);
            }
            other => buf.push(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stride_common::ScalarValue;

    #[test]
    fn records_in_both_formats() {
        let fields = [
            Some(&b"a\tb\\c"[..]),
            None,
            Some(&b"x,y"[..]),
            Some(&b""[..]),
        ];
        let mut buf = Vec::new();
        write_record(fields, &CsvWriteOptions::text(), &mut buf);
        assert_eq!(buf, b"a\\tb\\\\c\t\\N\tx,y\t\n");
        let mut buf = Vec::new();
        write_record(fields, &CsvWriteOptions::default(), &mut buf);
        assert_eq!(buf, b"a\tb\\c,,\"x,y\",\"\"\n");
    }

    #[test]
    fn quotes_what_needs_it() {
        let mut v = Vector::empty(&DataType::Varchar);
        for s in ["plain", "a,b", "say \"hi\"", ""] {
            v.push(&ScalarValue::Varchar(s.into())).unwrap();
        }
        v.push_null();
        let chunk = DataChunk::new(vec![v], 5);
        let mut buf = Vec::new();
        format_chunk(&chunk, &CsvWriteOptions::default(), &mut buf);
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            "plain\n\"a,b\"\n\"say \"\"hi\"\"\"\n\"\"\n\n"
        );
    }

    #[test]
    fn constants_selections_and_doubles() {
        let c =
            Vector::constant(&ScalarValue::Varchar("f.csv".into()), &DataType::Varchar).unwrap();
        let d = Vector::from_values(DataType::Double, vec![1.0f64, 2.5, 1e300]);
        let mut chunk = DataChunk::new(vec![c, d], 3);
        chunk.select(stride_common::SelectionVector::new(vec![0, 2]));
        let mut buf = Vec::new();
        format_chunk(&chunk, &CsvWriteOptions::default(), &mut buf);
        assert_eq!(String::from_utf8(buf).unwrap(), "f.csv,1.0\nf.csv,1e+300\n");
    }
}
