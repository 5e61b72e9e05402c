//! A bound CSV scan: the files, the dialect and the columns `read_csv` resolved to at
//! bind time, and the parallel read at execution time.
//!
//! Parallel reading cuts each file into byte ranges of [`MORSEL_BYTES`]. A range owns
//! the records that *start* in it, so the only question is where its first record
//! starts. Without quotes that is just after the first newline. With quotes it
//! depends on whether the range begins inside a quoted field, which the parity of the
//! quote bytes before it decides: [`CsvReader::plan`] counts quotes per range on every
//! core first, so a quoted field holding newlines and delimiters is parsed correctly
//! wherever a cut falls. With an escape byte other than the quote (`\"`), parity
//! cannot decide, and the cuts are found by one sequential pass over the quotes.
//!
//! A filter planned into the scan ([`RowFilter`]) is evaluated on its own columns
//! first; the other columns are converted only for the rows it keeps.

use super::learned::{self, FileKey};
use super::options::{show_byte, CsvOptions, Dialect};
use super::sniffer::widen_for;
use super::sniffer::{file_header_names, skip_blank_lines, skip_lines, sniff, Sniffed};
use super::tokenizer::{
    next_record_start, quotes_after, record_start_at_or_after, QuoteState, Records, TokenError,
    Tokenizer, UNWANTED,
};
use super::values::{convert, unquote, BadValue, Parser};
use crate::file::{self, FileData};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use stride_common::{
    workers, DataChunk, DataType, Error, Result, ScalarValue, SelectionVector, Vector, VECTOR_SIZE,
};

/// Bytes per morsel of a CSV file.
pub const MORSEL_BYTES: usize = 8 << 20;

/// One `read_csv` call, bound.
#[derive(Debug)]
pub struct CsvReader {
    pub files: Vec<Arc<FileData>>,
    pub dialect: Dialect,
    pub header: bool,
    /// Offset of each file's first data record.
    data_start: Vec<usize>,
    /// Per file, where each column is among its fields, when its header names the
    /// first file's columns in another order (None: in the same order).
    field_orders: Vec<Option<Vec<usize>>>,
    /// Columns per record in the files.
    pub file_columns: usize,
    pub names: Vec<String>,
    pub types: Vec<DataType>,
    /// Whether each type came from the sniffer rather than the user.
    pub detected: Vec<bool>,
    pub sample_rows: usize,
    row_bytes: f64,
    parsers: Vec<Parser>,
    nullstr: Vec<Vec<u8>>,
    pub options: CsvOptions,
    /// Rows skipped by `ignore_errors`, over every scan of this reader.
    pub rejected: AtomicU64,
    /// Bytes per morsel ([`MORSEL_BYTES`]; tests cut finer).
    pub morsel_bytes: usize,
    /// What this read learned, when a detected type turned out too narrow.
    widened: std::sync::Mutex<Option<String>>,
}

/// A byte range of one file whose records one worker reads.
#[derive(Debug, Clone, Copy)]
pub struct Morsel {
    pub file: usize,
    pub start: usize,
    pub end: usize,
}

/// A filter applied while reading. Its columns are converted for every record, the
/// other columns only for the records it keeps, so a selective filter skips most of
/// the conversion work (values in the rows it drops are never read, nor checked).
pub struct RowFilter<'a> {
    /// Which of the produced columns (by position) the filter reads.
    pub reads: &'a [bool],
    /// The rows of a chunk that pass; the chunk holds the columns in `reads`, the
    /// others are NULL placeholders.
    pub select: &'a dyn Fn(&DataChunk) -> Result<SelectionVector>,
}

impl CsvReader {
    /// Opens the named files (globs already expanded, see [`file::expand`]) and works
    /// out their columns.
    pub fn bind(names: &[String], options: CsvOptions) -> Result<CsvReader> {
        if names.is_empty() {
            return Err(Error::io("read_csv needs at least one file"));
        }
        let files = names
            .iter()
            .map(|p| file::open(p).map(Arc::new))
            .collect::<Result<Vec<_>>>()?;
        Self::from_files(files, options)
    }

    /// A reader over files already in memory (also what the fuzzer drives).
    pub fn from_files(files: Vec<Arc<FileData>>, options: CsvOptions) -> Result<CsvReader> {
        if files.is_empty() {
            return Err(Error::io("read_csv needs at least one file"));
        }
        let first = files[0].bytes();
        let sniffed: Sniffed = sniff(first, &options);
        let (date_fmt, ts_fmt) = options.formats()?;
        let mut file_columns = sniffed.columns;
        let mut col_names = sniffed.names.clone();
        let mut types = sniffed.types.clone();
        let auto = options.auto_detect.unwrap_or(options.columns.is_none());
        let mut detected = vec![auto; types.len()];
        if !auto {
            types = vec![DataType::Varchar; types.len()];
        }
        if let Some(cols) = &options.columns {
            file_columns = cols.len();
            col_names = cols.iter().map(|(n, _)| n.clone()).collect();
            types = cols.iter().map(|(_, t)| t.clone()).collect();
            detected = vec![false; cols.len()];
        }
        if let Some(given) = &options.names {
            if given.len() > col_names.len() {
                return Err(Error::binder(format!(
                    "read_csv: {} names given but the file has {} columns",
                    given.len(),
                    col_names.len()
                )));
            }
            for (n, g) in col_names.iter_mut().zip(given) {
                *n = g.clone();
            }
        }
        if let Some(by_pos) = &options.types_by_position {
            if by_pos.len() > types.len() {
                return Err(Error::binder(format!(
                    "read_csv: {} types given but the file has {} columns",
                    by_pos.len(),
                    types.len()
                )));
            }
            for (i, t) in by_pos.iter().enumerate() {
                types[i] = t.clone();
                detected[i] = false;
            }
        }
        if let Some(by_name) = &options.types_by_name {
            for (n, t) in by_name {
                let i = col_names
                    .iter()
                    .position(|c| c.eq_ignore_ascii_case(n))
                    .ok_or_else(|| {
                        Error::binder(format!(
                            "read_csv: types names column \"{n}\", which the file does not have; its columns are {}",
                            col_names.join(", ")
                        ))
                    })?;
                types[i] = t.clone();
                detected[i] = false;
            }
        }
        if file_columns == 0 {
            // An empty file: one text column, no rows.
            file_columns = 1;
            col_names = vec!["column0".into()];
            types = vec![DataType::Varchar];
            detected = vec![true];
        }
        // Types widened by earlier reads of this file (see `learned`).
        if auto && options.columns.is_none() {
            if let Some(key) = FileKey::of(&files[0].path) {
                for (c, ty) in learned::widened(&key) {
                    if c < types.len() && detected[c] {
                        types[c] = ty;
                    }
                }
            }
        }
        let dialect = sniffed.dialect;
        let data_start = files
            .iter()
            .map(|f| {
                let b = f.bytes();
                let s = skip_lines(b, dialect.newline, options.skip);
                if sniffed.header {
                    let s = skip_blank_lines(b, dialect.newline, s);
                    next_record_start(b, dialect, s, QuoteState::RECORD_START)
                } else {
                    s
                }
            })
            .collect();
        let field_orders = match sniffed.header {
            true => header_orders(&files, &sniffed.names, dialect, &options)?,
            false => vec![None; files.len()],
        };
        let parsers = types
            .iter()
            .zip(&detected)
            .map(|(t, &d)| Parser::for_type(t, d, &date_fmt, &ts_fmt))
            .collect();
        let nullstr = options.null_strings();
        Ok(CsvReader {
            files,
            dialect,
            header: sniffed.header,
            data_start,
            field_orders,
            file_columns,
            names: col_names,
            types,
            detected,
            sample_rows: sniffed.sample_rows,
            row_bytes: sniffed.row_bytes,
            parsers,
            nullstr,
            options,
            rejected: AtomicU64::new(0),
            morsel_bytes: MORSEL_BYTES,
            widened: std::sync::Mutex::new(None),
        })
    }

    /// Says which column this read widened (and why), if it did; the statement that
    /// bound the reader is then planned again (see `learned`).
    pub fn widened_note(&self) -> Option<String> {
        self.widened.lock().ok()?.clone()
    }

    /// Output columns: the file's, then `filename` when asked for.
    pub fn schema(&self) -> Vec<(String, DataType)> {
        let mut s: Vec<(String, DataType)> = self
            .names
            .iter()
            .cloned()
            .zip(self.types.iter().cloned())
            .collect();
        if self.options.filename {
            s.push(("filename".into(), DataType::Varchar));
        }
        s
    }

    /// Bytes of data in every file together (an estimate of the work).
    pub fn total_bytes(&self) -> usize {
        self.files.iter().map(|f| f.bytes().len()).sum()
    }

    /// Rows the files hold, estimated from the sniffer's sample.
    pub fn estimated_rows(&self) -> usize {
        (self.total_bytes() as f64 / self.row_bytes.max(1.0)) as usize
    }

    /// Rows expected in `bytes` of the files, with 10% to spare.
    pub fn rows_in_bytes(&self, bytes: usize) -> usize {
        (bytes as f64 / self.row_bytes.max(1.0) * 1.1) as usize + 16
    }

    /// Cuts the files into morsels whose boundaries are exact record starts.
    pub fn plan(&self, threads: usize) -> Result<Vec<Morsel>> {
        let d = self.dialect;
        let mut cuts: Vec<(usize, usize, usize)> = Vec::new(); // (file, nominal start, nominal end)
        for (f, file) in self.files.iter().enumerate() {
            let len = file.bytes().len();
            let mut s = self.data_start[f];
            while s < len {
                let e = (s + self.morsel_bytes.max(1)).min(len);
                cuts.push((f, s, e));
                s = e;
            }
        }
        let mut starts = Vec::with_capacity(cuts.len());
        // Cuts start at each file's first record, then at nominal offsets.
        let first = |f: usize, s: usize| s == self.data_start[f];
        if d.escape.is_some() && d.escape != d.quote {
            // An escaped quote does not toggle, and a cut may fall just after an escape
            // byte: follow the quotes from the start.
            for (i, &(f, s, _)) in cuts.iter().enumerate() {
                starts.push(match first(f, s) {
                    true => s,
                    false => record_start_at_or_after(self.files[f].bytes(), d, starts[i - 1], s),
                });
            }
        } else {
            // The quote state after each cut when it starts outside quoted fields (as
            // most do), found on every core; then the exact state followed from each
            // file's start, walking again a cut that starts in another one (inside a
            // quoted field, or right after a closing quote).
            let outside = |f: usize, s: usize| match first(f, s) {
                true => QuoteState::RECORD_START,
                false => QuoteState::at(self.files[f].bytes(), d, s, false),
            };
            let after: Vec<QuoteState> = workers::map(&cuts, threads, |&(f, s, e)| {
                quotes_after(self.files[f].bytes(), d, s, e, outside(f, s))
            })?;
            let mut state = QuoteState::RECORD_START;
            for (i, &(f, s, e)) in cuts.iter().enumerate() {
                let b = self.files[f].bytes();
                if first(f, s) {
                    state = QuoteState::RECORD_START;
                }
                starts.push(
                    match first(f, s) || (!state.in_quote && b[s - 1] == d.newline) {
                        true => s,
                        false => next_record_start(b, d, s, state),
                    },
                );
                state = match state == outside(f, s) {
                    true => after[i],
                    false => quotes_after(b, d, s, e, state),
                };
            }
        }
        let mut morsels = Vec::with_capacity(cuts.len());
        for (i, &(f, _, e)) in cuts.iter().enumerate() {
            let last_of_file = i + 1 == cuts.len() || cuts[i + 1].0 != f;
            let end = if last_of_file { e } else { starts[i + 1] };
            if starts[i] < end {
                morsels.push(Morsel {
                    file: f,
                    start: starts[i],
                    end,
                });
            }
        }
        Ok(morsels)
    }

    /// Reads the records of one morsel, producing `columns` (positions in
    /// [`CsvReader::schema`]) in chunks of up to [`VECTOR_SIZE`] rows; with a
    /// `filter`, only the rows it keeps.
    pub fn produce(
        &self,
        morsel: &Morsel,
        columns: &[usize],
        filter: Option<&RowFilter>,
        emit: &mut dyn FnMut(DataChunk) -> Result<()>,
    ) -> Result<()> {
        let file = &self.files[morsel.file];
        let bytes = file.bytes();
        // Slots: the projected file columns, then the field after the last column
        // (which must be empty when present: a trailing delimiter).
        let mut want = vec![UNWANTED; self.file_columns + 1];
        let mut slot_of = Vec::with_capacity(columns.len());
        let mut slots = 0u32;
        let order = self.field_orders[morsel.file].as_deref();
        for &c in columns {
            if c < self.file_columns {
                let f = order.map_or(c, |o| o[c]);
                if want[f] == UNWANTED {
                    want[f] = slots;
                    slots += 1;
                }
                slot_of.push(Some(want[f] as usize));
            } else {
                slot_of.push(None);
            }
        }
        let extra = slots as usize;
        want[self.file_columns] = slots;
        let mut t = Tokenizer::new(
            bytes,
            self.dialect,
            &want,
            morsel.start,
            morsel.end,
            self.options.max_line_size(),
            self.file_columns > 1,
        );
        let mut records = Records::new(&want);
        let mut bad = Vec::new();
        let mut reject = Vec::new();
        while !t.at_end() {
            records.clear();
            if let Err(e) = t.next_records(&mut records, VECTOR_SIZE) {
                return Err(self.token_error(morsel.file, e));
            }
            let n = records.len();
            if n == 0 {
                continue;
            }
            reject.clear();
            for r in 0..n {
                let fc = records.field_counts[r] as usize;
                let ok = fc == self.file_columns
                    || (fc < self.file_columns && self.options.null_padding)
                    || (fc == self.file_columns + 1 && {
                        let s = records.span(r, extra);
                        s.start == s.end
                    });
                if !ok {
                    if self.options.ignore_errors {
                        reject.push(r);
                    } else {
                        return Err(self.count_error(morsel.file, records.starts[r], fc));
                    }
                }
            }
            // The filter's columns first, for every record; the others only for the
            // records it keeps.
            let reads = |i: usize| filter.is_none_or(|f| f.reads[i]);
            let mut cols: Vec<Option<Vector>> = vec![None; columns.len()];
            for i in (0..columns.len()).filter(|&i| reads(i)) {
                cols[i] = Some(self.column(
                    morsel,
                    &records,
                    columns[i],
                    slot_of[i],
                    None,
                    &mut bad,
                    &mut reject,
                )?);
            }
            let mut rows = None;
            if let Some(f) = filter {
                let input = columns
                    .iter()
                    .zip(&cols)
                    .map(|(&c, v)| match v {
                        Some(v) => Ok(v.clone()),
                        None => Vector::constant(&ScalarValue::Null, &self.schema_type(c)),
                    })
                    .collect::<Result<Vec<_>>>()?;
                let mut chunk = DataChunk::new(input, n);
                // Rows already rejected never reach the filter (it could fail on
                // them, as the filter above an unfiltered read would not).
                let survivors = (!reject.is_empty()).then(|| {
                    reject.sort_unstable();
                    reject.dedup();
                    self.rejected
                        .fetch_add(reject.len() as u64, Ordering::Relaxed);
                    let s: Vec<u32> = (0..n as u32)
                        .filter(|r| reject.binary_search(&(*r as usize)).is_err())
                        .collect();
                    reject.clear();
                    SelectionVector::new(s)
                });
                if let Some(s) = &survivors {
                    if s.is_empty() {
                        continue;
                    }
                    chunk.select(s.clone());
                    chunk = chunk.flatten();
                }
                let sel = (f.select)(&chunk)?;
                let keep = match &survivors {
                    Some(s) => sel.compose(s).indices,
                    None => sel.indices,
                };
                if keep.is_empty() {
                    continue;
                }
                if keep.len() < n {
                    for v in cols.iter_mut().flatten() {
                        *v = v.take(&keep);
                    }
                    rows = Some(keep);
                }
            }
            for i in (0..columns.len()).filter(|&i| !reads(i)) {
                cols[i] = Some(self.column(
                    morsel,
                    &records,
                    columns[i],
                    slot_of[i],
                    rows.as_deref(),
                    &mut bad,
                    &mut reject,
                )?);
            }
            let cols: Vec<Vector> = cols.into_iter().flatten().collect();
            let len = rows.as_ref().map_or(n, Vec::len);
            let mut chunk = DataChunk::new(cols, len);
            if !reject.is_empty() {
                reject.sort_unstable();
                reject.dedup();
                self.rejected
                    .fetch_add(reject.len() as u64, Ordering::Relaxed);
                // Positions in the chunk of the records kept.
                let keep: Vec<u32> = (0..len as u32)
                    .filter(|&p| {
                        let record = rows.as_ref().map_or(p, |r| r[p as usize]) as usize;
                        reject.binary_search(&record).is_err()
                    })
                    .collect();
                if keep.is_empty() {
                    continue;
                }
                chunk.select(stride_common::SelectionVector::new(keep));
                chunk = chunk.flatten();
            }
            emit(chunk)?;
        }
        Ok(())
    }

    /// The type of output column `c` (see [`CsvReader::schema`]).
    fn schema_type(&self, c: usize) -> DataType {
        self.types.get(c).cloned().unwrap_or(DataType::Varchar)
    }

    /// Output column `c` of the batch (`slot` holds its fields; None for `filename`),
    /// for every record or the ones `rows` names. A value that does not convert
    /// widens a detected type, is rejected under `ignore_errors`, or fails the read.
    #[allow(clippy::too_many_arguments)]
    fn column(
        &self,
        morsel: &Morsel,
        records: &Records,
        c: usize,
        slot: Option<usize>,
        rows: Option<&[u32]>,
        bad: &mut Vec<BadValue>,
        reject: &mut Vec<usize>,
    ) -> Result<Vector> {
        let Some(slot) = slot else {
            return Vector::constant(
                &ScalarValue::Varchar(self.files[morsel.file].path.clone()),
                &DataType::Varchar,
            );
        };
        let bytes = self.files[morsel.file].bytes();
        bad.clear();
        let v = convert(
            &self.parsers[c],
            bytes,
            records,
            slot,
            rows,
            self.dialect,
            &self.nullstr,
            bad,
        );
        if let Some(b) = bad.first() {
            if self.detected[c] && self.types[c] != DataType::Varchar {
                return Err(self.widen(morsel.file, records, slot, c, b));
            }
        }
        for b in bad.iter() {
            if self.options.ignore_errors {
                reject.push(b.record);
            } else if !reject.contains(&b.record) {
                return Err(self.value_error(morsel.file, records, slot, c, b));
            }
        }
        match &self.parsers[c] {
            Parser::Cast(ty) => self.cast_column(v, ty, morsel.file, records, slot, c, rows),
            _ => Ok(v),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn cast_column(
        &self,
        v: Vector,
        ty: &DataType,
        file: usize,
        records: &Records,
        slot: usize,
        column: usize,
        rows: Option<&[u32]>,
    ) -> Result<Vector> {
        let n = rows.map_or(records.len(), <[u32]>::len);
        match stride_functions::cast_vector(&v, n, ty, false) {
            Ok(out) => Ok(out),
            Err(_) => {
                // Name the first value that fails.
                for r in 0..n {
                    if v.is_valid(r) && stride_functions::cast_scalar(&v.get(r), ty, false).is_err()
                    {
                        return Err(self.value_error(
                            file,
                            records,
                            slot,
                            column,
                            &BadValue {
                                record: rows.map_or(r, |rows| rows[r] as usize),
                            },
                        ));
                    }
                }
                stride_functions::cast_vector(&v, n, ty, false)
            }
        }
    }

    /// A field that did not convert: its unquoted bytes, how an error shows them (at
    /// most 100 bytes) and its line.
    fn bad_field(
        &self,
        file: usize,
        records: &Records,
        slot: usize,
        bad: &BadValue,
    ) -> (Vec<u8>, String, usize) {
        let span = records.span(bad.record, slot);
        let bytes = self.files[file].bytes();
        let mut scratch = Vec::new();
        let (text, _) = unquote(&bytes[span.start..span.end], self.dialect, &mut scratch);
        let shown = String::from_utf8_lossy(&text[..text.len().min(100)]).into_owned();
        (
            text.to_vec(),
            shown,
            self.line_of(file, records.starts[bad.record]),
        )
    }

    /// A detected type met a value it cannot hold: records a wider type for the file
    /// (so the statement, planned again, reads the column with it) and fails this scan.
    fn widen(
        &self,
        file: usize,
        records: &Records,
        slot: usize,
        column: usize,
        bad: &BadValue,
    ) -> Error {
        let (text, shown, line) = self.bad_field(file, records, slot, bad);
        let text = &text[..];
        let (date_fmt, ts_fmt) = self.options.formats().unwrap_or((None, None));
        let ty = &self.types[column];
        let wider = widen_for(ty, text, &date_fmt, &ts_fmt);
        let name = &self.names[column];
        let path = &self.files[0].path;
        let note = format!(
            "column \"{name}\" of \"{path}\" is read as {wider}: \"{shown}\" on line {line} of \"{}\" is not a {ty} (the type detected from a sample)",
            self.files[file].path
        );
        if let Some(key) = FileKey::of(path) {
            learned::widen(&key, column, wider.clone());
            if let Ok(mut w) = self.widened.lock() {
                *w = Some(note);
            }
        }
        Error::conversion(format!(
            "CSV error in \"{}\" on line {line}, column \"{name}\": \"{shown}\" is not a {ty}, the type detected from a sample of {} rows. The column is now read as {wider}: run the statement again (or give the type: types = {{'{name}': '{wider}'}})",
            self.files[file].path, self.sample_rows
        ))
    }

    /// 1-based line of the byte at `offset`.
    fn line_of(&self, file: usize, offset: usize) -> usize {
        let b = &self.files[file].bytes()[..offset.min(self.files[file].bytes().len())];
        memchr::memchr_iter(self.dialect.newline, b).count() + 1
    }

    fn token_error(&self, file: usize, e: TokenError) -> Error {
        let path = &self.files[file].path;
        match e {
            TokenError::LineTooLong { record_start } => Error::invalid_input(format!(
                "CSV error in \"{path}\" on line {}: the line is longer than max_line_size = {} bytes. Raise max_line_size if the file really has such long lines, or check the quote character ('{}')",
                self.line_of(file, record_start),
                self.options.max_line_size(),
                show_byte(self.dialect.quote)
            )),
            TokenError::UnterminatedQuote { record_start } => Error::invalid_input(format!(
                "CSV error in \"{path}\" on line {}: a quoted field is never closed (quote character '{}'). Fix the file, or read it with quote = '' if quotes are ordinary characters in it",
                self.line_of(file, record_start),
                show_byte(self.dialect.quote)
            )),
        }
    }

    fn count_error(&self, file: usize, record_start: usize, found: usize) -> Error {
        let hint = if found < self.file_columns {
            "Use null_padding = true to read missing columns as NULL, or ignore_errors = true to skip such rows"
        } else {
            "Use ignore_errors = true to skip such rows, or check the delimiter"
        };
        Error::invalid_input(format!(
            "CSV error in \"{}\" on line {}: expected {} columns but found {} (delimiter '{}'). {hint}",
            self.files[file].path,
            self.line_of(file, record_start),
            self.file_columns,
            found,
            show_byte(Some(self.dialect.delimiter)),
        ))
    }

    fn value_error(
        &self,
        file: usize,
        records: &Records,
        slot: usize,
        column: usize,
        bad: &BadValue,
    ) -> Error {
        let (text, shown, line) = self.bad_field(file, records, slot, bad);
        let text = &text[..];
        let name = &self.names[column];
        let ty = &self.types[column];
        let path = &self.files[file].path;
        if std::str::from_utf8(text).is_err() && *ty == DataType::Varchar {
            return Error::conversion(format!(
                "CSV error in \"{path}\" on line {line}, column \"{name}\": the value is not valid UTF-8. Convert the file to UTF-8, or use ignore_errors = true to skip such rows"
            ));
        }
        let fix = format!(
            "give the column a type that fits, e.g. types = {{'{name}': 'VARCHAR'}}, or use ignore_errors = true to skip such rows"
        );
        let hint = if self.detected[column] {
            format!(
                "The type {ty} was detected from a sample of {} rows: raise sample_size (-1 reads every row), {fix}",
                self.sample_rows
            )
        } else {
            let mut h = fix;
            h[..1].make_ascii_uppercase();
            h
        };
        Error::conversion(format!(
            "CSV error in \"{path}\" on line {line}, column \"{name}\": could not convert \"{shown}\" to {ty}. {hint}"
        ))
    }
}

/// For files that start with a header: per file after the first, where each of the
/// first file's columns (`names`) is among its fields, when its header names the same
/// columns in another order, as DuckDB matches them. A file whose header names other
/// columns (or none: data where a header should be) is an error, not rows read under
/// the wrong names.
fn header_orders(
    files: &[Arc<FileData>],
    names: &[String],
    dialect: Dialect,
    options: &CsvOptions,
) -> Result<Vec<Option<Vec<usize>>>> {
    let mut orders = vec![None; files.len()];
    for (f, file) in files.iter().enumerate().skip(1) {
        let Some(theirs) = file_header_names(
            file.bytes(),
            dialect,
            options.skip,
            names.len(),
            options.max_line_size(),
        ) else {
            continue;
        };
        if theirs == names {
            continue;
        }
        let order: Option<Vec<usize>> = match theirs.len() == names.len() {
            true => names
                .iter()
                .map(|n| theirs.iter().position(|t| t == n))
                .collect(),
            false => None,
        };
        match order {
            Some(o) => orders[f] = Some(o),
            None => {
                return Err(Error::binder(format!(
                    "read_csv: the files do not have the same columns: {} has ({}) but {} has ({}); read them separately, or give the columns with columns = {{...}} and header = false",
                    files[0].path,
                    names.join(", "),
                    file.path,
                    theirs.join(", ")
                )))
            }
        }
    }
    Ok(orders)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(r: &CsvReader) -> Vec<String> {
        read_or_error(r).unwrap()
    }

    /// Reading `r`'s file (of `len` bytes) cut into morsels of every size gives `whole`.
    fn reads_the_same_at_every_cut(r: &mut CsvReader, len: usize, whole: &[String]) {
        for size in 1..len {
            r.morsel_bytes = size;
            assert_eq!(read_all(r), whole, "morsels of {size} bytes");
        }
    }

    /// Rows, or the first error, of reading every morsel of `r` in order.
    fn read_or_error(r: &CsvReader) -> std::result::Result<Vec<String>, String> {
        let cols: Vec<usize> = (0..r.schema().len()).collect();
        let mut rows = Vec::new();
        for m in r.plan(3).map_err(|e| e.to_string())? {
            r.produce(&m, &cols, None, &mut |c| {
                for i in 0..c.len() {
                    rows.push(format!("{:?}", c.row(i)));
                }
                Ok(())
            })
            .map_err(|e| e.to_string())?;
        }
        Ok(rows)
    }

    /// Random files of quotes, delimiters, newlines and text, well formed or not:
    /// cutting them into morsels anywhere reads what reading them whole reads.
    #[test]
    fn random_quoting_reads_the_same_at_every_cut() {
        let path = std::env::temp_dir().join(format!("stride-rcuts-{}.csv", std::process::id()));
        let p = path.to_str().unwrap().to_string();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        // Fields: plain, with quotes inside, quoted with a delimiter, newline or
        // doubled quote inside, empty; now and then a lone quote.
        let pieces: [&[u8]; 10] = [
            b"ab",
            b"5\" x",
            b"a\"b\"",
            b"\"p,q\"",
            b"\"l\nm\"",
            b"\"r\"\"s\"",
            b"\"u\"\"\nv\"",
            b"",
            b"\"\"",
            b"\"",
        ];
        for _ in 0..150 {
            let mut text: Vec<u8> = b"c1,c2\n".to_vec();
            for _ in 0..(3 + next() % 8) {
                for field in 0..2 {
                    if field == 1 {
                        text.push(b',');
                    }
                    // the last piece (a lone quote) only rarely
                    let k = (next() % 40) as usize;
                    text.extend_from_slice(pieces[if k < 39 { k % 9 } else { 9 }]);
                }
                text.push(b'\n');
            }
            std::fs::write(&path, &text).unwrap();
            let opts = CsvOptions {
                header: Some(true),
                columns: Some(vec![
                    ("c1".into(), DataType::Varchar),
                    ("c2".into(), DataType::Varchar),
                ]),
                ignore_errors: true,
                ..Default::default()
            };
            let Ok(mut r) = CsvReader::bind(&[p.clone()], opts) else {
                continue;
            };
            let whole = read_or_error(&r);
            for size in 1..text.len() {
                r.morsel_bytes = size;
                assert_eq!(
                    read_or_error(&r),
                    whole,
                    "morsels of {size} bytes of {:?}",
                    String::from_utf8_lossy(&text)
                );
            }
        }
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn every_cut_finds_the_same_records() {
        let text =
            "id,note\n1,\"a\nb,c\"\n2,plain\n3,\"x\"\"y\"\"\"\n\"z\",\"\"\n4,\"\"\n5,\"\n\n\"\n";
        let path = std::env::temp_dir().join(format!("stride-cuts-{}.csv", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let p = path.to_str().unwrap().to_string();
        let mut r = CsvReader::bind(&[p.clone()], CsvOptions::default()).unwrap();
        let whole = read_all(&r);
        assert_eq!(whole.len(), 6, "{whole:?}");
        reads_the_same_at_every_cut(&mut r, text.len(), &whole);
        // Quotes inside unquoted fields are text, next to quoted fields, doubled
        // quotes and quoted newlines: every cut, also between the two quotes of a
        // `""`, finds the same five records.
        let text = "a,b\n1,5\"\n2,\"x\"\"\n\"\"y\"\n3,7\" pipe\n4,\"\"\"\"\n5,ab\"c\"d\n";
        std::fs::write(&path, text).unwrap();
        let mut r = CsvReader::bind(&[p.clone()], CsvOptions::default()).unwrap();
        let whole = read_all(&r);
        assert_eq!(whole.len(), 5, "{whole:?}");
        assert!(whole[0].contains("5\\\""), "{whole:?}");
        reads_the_same_at_every_cut(&mut r, text.len(), &whole);
        // With a backslash escape, escaped quotes do not toggle.
        let text = "id,note\n1,\"a\\\"\nb\"\n2,\"\\\\\"\n3,\"x,\\\"y\"\n";
        std::fs::write(&path, text).unwrap();
        let opts = CsvOptions {
            escape: Some(Some(b'\\')),
            ..Default::default()
        };
        let mut r = CsvReader::bind(&[path.to_str().unwrap().to_string()], opts).unwrap();
        let whole = read_all(&r);
        assert_eq!(whole.len(), 3, "{whole:?}");
        assert!(whole[0].contains("a\\\"\\nb"), "{whole:?}");
        reads_the_same_at_every_cut(&mut r, text.len(), &whole);
        let _ = std::fs::remove_file(&path);
    }
}
