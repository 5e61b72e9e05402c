//! Detecting what a CSV file holds: the dialect (delimiter, quote, newline), whether
//! the first record is a header, the column count (a delimiter ending every line adds
//! no column) and each column's type.
//!
//! Types are decided from rows sampled over the **whole** file, not only its head: a
//! small file is read entirely; a large one in evenly spaced runs of records, so a
//! column whose values change character late in the file is still seen. A column's
//! type is the narrowest of BOOLEAN, BIGINT, DECIMAL, DOUBLE, DATE, TIMESTAMP, TIME,
//! TIMESTAMP WITH TIME ZONE and VARCHAR that every sampled value reads as. A column of plain decimals (digits and
//! a point, at most six decimals) is DECIMAL(18, s), s being the most decimals seen;
//! a value the sample missed that needs more widens it (see [`widen_for`]). Each run
//! starts at a record start found by following the quotes from where the previous
//! run ended, never inside a quoted field.
//!
//! The header is the first record after a byte order mark, `skip` lines and blank
//! lines; `file_header_names` reads another file's the same way (a glob's files must
//! name the same columns).

use super::options::{CsvOptions, Dialect};
use super::tokenizer::{next_record_start, quotes_after, QuoteState, Records, Tokenizer};
use super::values::{decimal_shape, fits, parse_i128, unquote};
use stride_common::DataType;
use stride_functions::scalar::date::format::Format;

/// Files up to this size are sampled in full.
const SAMPLE_WHOLE_FILE: usize = 8 << 20;
/// Runs of records a large file is sampled in.
const SAMPLE_RUNS: usize = 32;
/// Columns the sniffer looks at.
const MAX_COLUMNS: usize = 4096;
/// Bytes at the head of the file used to choose the dialect.
const DIALECT_BYTES: usize = 1 << 16;

/// For each candidate, the wider candidates every value of it also reads as (an
/// integer is a double, a date is a timestamp), which need no separate test.
const IMPLIES: [u32; 9] = [0, 1 << 2 | 1 << 4, 1 << 4, 0, 0, 1 << 6, 0, 0, 0];

/// Candidates in order of preference: a column gets the first that fits every value.
/// The decimal's scale is the most decimals a sampled value has. Integers beyond
/// BIGINT are HUGEINT, times of day TIME and timestamps with a UTC offset or zone
/// TIMESTAMP WITH TIME ZONE, as DuckDB detects them.
const TYPE_CANDIDATES: [DataType; 9] = [
    DataType::Boolean,
    DataType::BigInt,
    DataType::HugeInt,
    DataType::Decimal(DETECTED_PRECISION, 0),
    DataType::Double,
    DataType::Date,
    DataType::Timestamp,
    DataType::Time,
    DataType::TimestampTz,
];
const DECIMAL: usize = 3;

/// Decimals detected fit 64 bits: DECIMAL(18, s).
const DETECTED_PRECISION: u8 = 18;
/// Values with more decimals than this read as DOUBLE: they are measurements, not
/// amounts.
const MAX_DETECTED_SCALE: usize = 6;

#[derive(Debug, Clone)]
pub struct Sniffed {
    pub dialect: Dialect,
    pub header: bool,
    /// Columns per record (a trailing delimiter adds none).
    pub columns: usize,
    pub names: Vec<String>,
    pub types: Vec<DataType>,
    /// Records the types were decided from.
    pub sample_rows: usize,
    /// Average bytes per sampled record (for row estimates).
    pub row_bytes: f64,
}

/// Offset after a UTF-8 byte order mark and the first `skip` lines.
pub fn skip_lines(bytes: &[u8], newline: u8, skip: usize) -> usize {
    // A UTF-8 byte order mark is no part of the first line.
    let mut pos = if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    for _ in 0..skip {
        match memchr::memchr(newline, &bytes[pos..]) {
            Some(i) => pos += i + 1,
            None => return bytes.len(),
        }
    }
    pos
}

/// Past the empty lines at `pos`, a line start: where the header is, as the sniffer
/// reads the first record (blank lines before it skipped).
pub fn skip_blank_lines(bytes: &[u8], newline: u8, mut pos: usize) -> usize {
    loop {
        match bytes.get(pos..) {
            Some([b'\r', b'\n', ..]) if newline == b'\n' => pos += 2,
            Some([c, ..]) if *c == newline => pos += 1,
            _ => return pos,
        }
    }
}

pub fn sniff(bytes: &[u8], opts: &CsvOptions) -> Sniffed {
    let newline = opts.new_line.unwrap_or_else(|| detect_newline(bytes));
    let start = skip_lines(bytes, newline, opts.skip);
    let (dialect, head_columns) = detect_dialect(&bytes[start..], newline, opts);
    let slots = head_columns.clamp(1, MAX_COLUMNS);
    let nullstr = opts.null_strings();
    let (date_fmt, ts_fmt) = opts.formats().unwrap_or((None, None));

    // The first record, read in full.
    let want: Vec<u32> = (0..slots as u32).collect();
    let (first, after_first) = first_record(bytes, dialect, start, &want, opts.max_line_size());
    let first_count = first.field_counts.first().copied().unwrap_or(0) as usize;

    // With every column's type given, only the head is needed (for the column count).
    let given = opts
        .columns
        .as_ref()
        .map(|c| c.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>());
    let (sample, sampled_bytes) = if given.is_some() || opts.all_varchar {
        let head = CsvOptions {
            sample_size: Some(1024.min(opts.sample_size.unwrap_or(1024))),
            ..opts.clone()
        };
        sample_records(
            &bytes[..bytes.len().min(after_first + (1 << 20))],
            dialect,
            after_first,
            &head,
            &want,
        )
    } else {
        sample_records(bytes, dialect, after_first, opts, &want)
    };
    let mut counts = std::collections::HashMap::new();
    for &c in &sample.field_counts {
        *counts.entry(c as usize).or_insert(0usize) += 1;
    }
    let modal = counts
        .iter()
        .max_by_key(|(c, n)| (**n, **c))
        .map_or(first_count, |(c, _)| *c)
        .min(slots);
    let ncols = if sample.is_empty() {
        first_count.min(slots)
    } else {
        modal
    };

    // Candidate types per column, as bitmasks over TYPE_CANDIDATES.
    let all = (1u32 << TYPE_CANDIDATES.len()) - 1;
    let mut possible = vec![if given.is_some() { 0 } else { all }; ncols];
    // Most digits before and after the point over the column's values.
    let mut digits = vec![(0usize, 0usize); ncols];
    let mut seen = vec![false; ncols];
    let mut scratch = Vec::new();
    let mut rows = 0;
    for r in 0..sample.len() {
        if sample.field_counts[r] as usize != ncols {
            continue;
        }
        rows += 1;
        for c in 0..ncols {
            let span = sample.span(r, c);
            if span.is_missing() || possible[c] == 0 {
                continue;
            }
            let (text, _) = unquote(&bytes[span.start..span.end], dialect, &mut scratch);
            if nullstr.iter().any(|n| n.as_slice() == text) {
                continue;
            }
            seen[c] = true;
            let mut implied = 0u32;
            for (k, ty) in TYPE_CANDIDATES.iter().enumerate() {
                let bit = 1 << k;
                if possible[c] & bit == 0 || implied & bit != 0 {
                    continue;
                }
                if k == DECIMAL {
                    let fit = decimal_shape(text).and_then(|(int, frac)| {
                        let (i, f) = (digits[c].0.max(int), digits[c].1.max(frac));
                        (f <= MAX_DETECTED_SCALE && i + f <= DETECTED_PRECISION as usize)
                            .then_some((i, f))
                    });
                    match fit {
                        Some(d) => digits[c] = d,
                        None => possible[c] &= !bit,
                    }
                } else if fits(ty, text, &date_fmt, &ts_fmt) {
                    implied |= IMPLIES[k];
                } else {
                    possible[c] &= !bit;
                }
            }
        }
    }
    let detected: Vec<DataType> = (0..ncols)
        .map(|c| {
            if !seen[c] || possible[c] == 0 {
                DataType::Varchar
            } else {
                match possible[c].trailing_zeros() as usize {
                    DECIMAL => DataType::Decimal(DETECTED_PRECISION, digits[c].1 as u8),
                    k => TYPE_CANDIDATES[k].clone(),
                }
            }
        })
        .collect();

    let first_values = record_values(&first, first_count.min(slots), bytes, dialect);
    let header = opts.header.unwrap_or_else(|| {
        let types = given.as_ref().unwrap_or(&detected);
        detect_header(&first_values, types, &nullstr, rows, &date_fmt, &ts_fmt)
    });

    // A delimiter at the end of every line makes an empty last field, not a column.
    let mut columns = ncols;
    let last_empty = |recs: &Records, r: usize, n: usize| {
        n > 1 && {
            let s = recs.span(r, n - 1);
            s.is_missing() || s.start == s.end
        }
    };
    let trailing = columns > 1
        && (0..sample.len())
            .filter(|&r| sample.field_counts[r] as usize == ncols)
            .all(|r| last_empty(&sample, r, ncols))
        && (first.is_empty() || first_count != ncols || last_empty(&first, 0, ncols))
        && (rows > 0 || !first.is_empty());
    if trailing {
        columns -= 1;
    }
    let names = match header {
        true => header_names(&first_values, columns),
        false => (0..columns).map(|c| generated_name(c, columns)).collect(),
    };
    // all_varchar reads every column as text, but the types the values would have
    // still tell a header from data (above).
    let mut types: Vec<DataType> = match opts.all_varchar {
        true => vec![DataType::Varchar; columns],
        false => detected.into_iter().take(columns).collect(),
    };
    if !header && !opts.all_varchar {
        // The first record is data: its values must fit too.
        for (c, ty) in types.iter_mut().enumerate() {
            if let Some(v) = first_values.get(c) {
                if nullstr.iter().any(|n| n == v) || fits(ty, v, &date_fmt, &ts_fmt) {
                    continue;
                }
                // A decimal counts its digits with the sample's.
                let digits =
                    decimal_shape(v).map(|(i, f)| (digits[c].0.max(i), digits[c].1.max(f)));
                *ty = match (&*ty, digits) {
                    (DataType::Decimal(..), Some((i, f)))
                        if f <= MAX_DETECTED_SCALE && i + f <= DETECTED_PRECISION as usize =>
                    {
                        DataType::Decimal(DETECTED_PRECISION, f as u8)
                    }
                    _ => widen_for(ty, v, &date_fmt, &ts_fmt),
                };
            }
        }
    }
    Sniffed {
        dialect,
        header,
        columns,
        names,
        types,
        sample_rows: rows + (!header && !first.is_empty()) as usize,
        row_bytes: if sample.is_empty() {
            (after_first - start).max(1) as f64
        } else {
            sampled_bytes as f64 / sample.len() as f64
        },
    }
}

/// The narrowest candidate after `ty` that also reads `v`.
pub(crate) fn widen_for(
    ty: &DataType,
    v: &[u8],
    date: &Option<Format>,
    ts: &Option<Format>,
) -> DataType {
    if let Some(wider) = wider_decimal(ty, v) {
        return wider;
    }
    let after = TYPE_CANDIDATES
        .iter()
        .position(|t| std::mem::discriminant(t) == std::mem::discriminant(ty))
        .map_or(0, |i| i + 1);
    TYPE_CANDIDATES[after..]
        .iter()
        .filter(|t| !matches!(t, DataType::Decimal(..)))
        .find(|t| fits(t, v, date, ts) && compatible(ty, t))
        .cloned()
        .unwrap_or(DataType::Varchar)
}

/// The decimal that holds both the values of `ty` (BOOLEAN, BIGINT or DECIMAL) and
/// `v`, if `v` is a plain decimal. A widened DECIMAL keeps every integer digit the old
/// one allowed; a BIGINT's digits are not known, so one with more than 18 - s digits
/// widens once more (to 38 digits). Beyond 38 digits there is no decimal.
fn wider_decimal(ty: &DataType, v: &[u8]) -> Option<DataType> {
    let (int, frac) = decimal_shape(v)?;
    let (have_int, have_scale) = match ty {
        DataType::Boolean | DataType::BigInt => (0, 0),
        DataType::Decimal(p, s) => ((p - s) as usize, *s as usize),
        _ => return None,
    };
    let scale = have_scale.max(frac);
    let digits = have_int.max(int) + scale;
    if frac > MAX_DETECTED_SCALE.max(have_scale) || digits > 38 {
        return None;
    }
    let precision = if digits <= DETECTED_PRECISION as usize {
        DETECTED_PRECISION
    } else {
        38
    };
    Some(DataType::Decimal(precision, scale as u8))
}

/// Whether values of `from` also read as `to` (numbers widen to numbers, dates to
/// timestamps).
fn compatible(from: &DataType, to: &DataType) -> bool {
    matches!(
        (from, to),
        (DataType::Boolean, _)
            | (DataType::BigInt, DataType::HugeInt)
            | (
                DataType::BigInt | DataType::HugeInt | DataType::Decimal(..),
                DataType::Double
            )
            | (DataType::Date, DataType::Timestamp)
    )
}

fn detect_newline(bytes: &[u8]) -> u8 {
    let head = &bytes[..bytes.len().min(DIALECT_BYTES)];
    match (memchr::memchr(b'\n', head), memchr::memchr(b'\r', head)) {
        (None, Some(_)) => b'\r',
        (Some(n), Some(r))
            if r + 1 != n && r < n && memchr::memchr(b'\n', &head[r..]).is_none() =>
        {
            b'\r'
        }
        _ => b'\n',
    }
}

/// The dialect whose records agree best on a field count, and that count.
fn detect_dialect(bytes: &[u8], newline: u8, opts: &CsvOptions) -> (Dialect, usize) {
    let head = &bytes[..bytes.len().min(DIALECT_BYTES)];
    let delims: Vec<u8> = match opts.delimiter {
        Some(d) => vec![d],
        None => vec![b',', b'|', b';', b'\t'],
    };
    // Double quotes unless the head has none and single quotes work better.
    let quotes: Vec<Option<u8>> = match opts.quote {
        Some(q) => vec![q],
        None if memchr::memchr(b'"', head).is_some() => vec![Some(b'"')],
        None => vec![Some(b'"'), Some(b'\'')],
    };
    let want: Vec<u32> = Vec::new();
    // (score, dialect, columns) of the best candidate so far; a higher score wins.
    type Scored = ((usize, usize, usize, usize), Dialect, usize);
    let mut best: Option<Scored> = None;
    for (qi, &quote) in quotes.iter().enumerate() {
        for (di, &delimiter) in delims.iter().enumerate() {
            let escape = match opts.escape {
                Some(e) => e,
                None => quote,
            };
            let d = Dialect {
                delimiter,
                quote,
                escape,
                newline,
            };
            let mut recs = Records::new(&want);
            let mut t = Tokenizer::new(head, d, &want, 0, head.len(), usize::MAX, true);
            // A malformed record (an unclosed quote) ends the head early; the
            // records before it still count.
            let complete = t.next_records(&mut recs, 64).is_ok();
            let mut counts: Vec<u32> = recs
                .field_counts
                .iter()
                .copied()
                .filter(|&c| c > 0)
                .collect();
            // The head may cut the last record short.
            if complete && head.len() < bytes.len() && counts.len() > 1 {
                counts.pop();
            }
            if counts.is_empty() {
                continue;
            }
            let mut freq = std::collections::HashMap::new();
            for &c in &counts {
                *freq.entry(c).or_insert(0usize) += 1;
            }
            let (&modal, &n) = freq
                .iter()
                .max_by_key(|(c, n)| (**n, **c))
                .expect("non-empty");
            // Several columns in most rows first, then consistent rows, then more
            // columns, then the earlier candidate.
            let consistency = n * 1000 / counts.len();
            let score = (
                (modal > 1 && consistency >= 500) as usize,
                consistency,
                modal as usize,
                usize::MAX - (qi * delims.len() + di),
            );
            if best.as_ref().is_none_or(|(s, _, _)| score > *s) {
                best = Some((score, d, modal as usize));
            }
        }
    }
    best.map(|(_, d, n)| (d, n)).unwrap_or((
        Dialect {
            delimiter: opts.delimiter.unwrap_or(b','),
            quote: opts.quote.unwrap_or(Some(b'"')),
            escape: opts.escape.unwrap_or(opts.quote.unwrap_or(Some(b'"'))),
            newline,
        },
        1,
    ))
}

/// Records from the whole of a small file, or runs of records spread evenly over a
/// large one.
fn sample_records(
    bytes: &[u8],
    d: Dialect,
    start: usize,
    opts: &CsvOptions,
    want: &[u32],
) -> (Records, usize) {
    let sample_size = opts
        .sample_size
        .unwrap_or(super::options::DEFAULT_SAMPLE_SIZE);
    let mut out = Records::new(want);
    let whole = bytes.len() - start <= SAMPLE_WHOLE_FILE || sample_size == usize::MAX;
    let runs = if whole { 1 } else { SAMPLE_RUNS };
    let per_run = if whole && bytes.len() - start <= SAMPLE_WHOLE_FILE {
        usize::MAX
    } else {
        (sample_size / runs).max(1)
    };
    let span = bytes.len() - start;
    let mut sampled = 0;
    // A record start the runs so far reached, from which the quotes are followed to
    // the next run's start: a run starting inside a quoted field (one with newlines)
    // would read garbage records, and those with the right field count would spoil
    // the types.
    let mut known = start;
    for k in 0..runs {
        let guess = start + span / runs * k;
        let from = if guess <= known {
            known
        } else {
            let quotes = quotes_after(bytes, d, known, guess, QuoteState::RECORD_START);
            next_record_start(bytes, d, guess, quotes)
        };
        let mut t = Tokenizer::new(bytes, d, want, from, bytes.len(), usize::MAX, true);
        let mut taken = 0;
        let mut whole_records = true;
        while taken < per_run && !t.at_end() {
            let before = out.len();
            if t.next_records(&mut out, (per_run - taken).min(4096))
                .is_err()
            {
                whole_records = false;
                break;
            }
            taken += out.len() - before;
        }
        sampled += t.position() - from;
        if whole_records {
            known = t.position();
        }
    }
    (out, sampled)
}

fn detect_header(
    first: &[Vec<u8>],
    types: &[DataType],
    nullstr: &[Vec<u8>],
    data_rows: usize,
    date: &Option<Format>,
    ts: &Option<Format>,
) -> bool {
    if first.is_empty() {
        return false;
    }
    if data_rows == 0 {
        // A file of one record: a header when no value reads as a number, date or
        // other typed value (a header-only export), as DuckDB decides.
        return first.iter().all(|v| {
            nullstr.contains(v)
                || !TYPE_CANDIDATES
                    .iter()
                    .enumerate()
                    .any(|(k, t)| k != DECIMAL && fits(t, v, date, ts))
        });
    }
    let typed = types.iter().any(|t| *t != DataType::Varchar);
    if typed {
        // A header cell does not read as its column's type. Any number is data in a
        // DECIMAL column: one with more decimals than the sample widens the column.
        // Given types (COPY FROM into a table, `columns = {...}`) need not be the
        // sniffer's candidates: any integer width reads as an integer, any number as
        // a DOUBLE.
        return first.iter().zip(types).any(|(v, t)| {
            let data = match t {
                DataType::Varchar => true,
                t if t.is_integer() => parse_i128(v).is_some(),
                DataType::Decimal(..) | DataType::Real | DataType::Double => {
                    fits(&DataType::Double, v, date, ts)
                }
                t => fits(t, v, date, ts),
            };
            !data && !nullstr.contains(v)
        });
    }
    // All text: a header has a distinct, non-empty name per column.
    let mut names: Vec<&Vec<u8>> = first.iter().collect();
    let all_named = names.iter().all(|v| !v.is_empty());
    names.sort();
    names.dedup();
    all_named && names.len() == first.len()
}

/// The column names a header record gives `columns` columns: its values, a generated
/// name where one is empty or missing, and a suffix on repeats.
fn header_names(values: &[Vec<u8>], columns: usize) -> Vec<String> {
    let names = (0..columns)
        .map(|c| {
            values
                .get(c)
                .map(|v| String::from_utf8_lossy(v).into_owned())
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| generated_name(c, columns))
        })
        .collect();
    dedup_names(names)
}

/// The names in the header of another file read with `dialect` (one of a glob's after
/// the first, whose header the sniffer read, with `columns` columns); None for a file
/// without records. An empty field after the last column (a trailing delimiter) is no
/// column, as in the first file.
pub fn file_header_names(
    bytes: &[u8],
    dialect: Dialect,
    skip: usize,
    columns: usize,
    max_line: usize,
) -> Option<Vec<String>> {
    let start = skip_blank_lines(
        bytes,
        dialect.newline,
        skip_lines(bytes, dialect.newline, skip),
    );
    let want: Vec<u32> = (0..MAX_COLUMNS as u32).collect();
    let (first, _) = first_record(bytes, dialect, start, &want, max_line);
    let count = *first.field_counts.first()? as usize;
    let mut values = record_values(&first, count.min(MAX_COLUMNS), bytes, dialect);
    if values.len() == columns + 1 && values.last().is_some_and(|v| v.is_empty()) {
        values.pop();
    }
    Some(header_names(&values, values.len()))
}

/// The record at `start` (blank lines before it skipped), its fields as `want`
/// selects them, and where the next one starts.
fn first_record(
    bytes: &[u8],
    dialect: Dialect,
    start: usize,
    want: &[u32],
    max_line: usize,
) -> (Records, usize) {
    let mut first = Records::new(want);
    let mut t = Tokenizer::new(bytes, dialect, want, start, bytes.len(), max_line, true);
    let _ = t.next_records(&mut first, 1);
    (first, t.position())
}

/// The first `n` fields of `records`' first record, unquoted.
fn record_values(records: &Records, n: usize, bytes: &[u8], dialect: Dialect) -> Vec<Vec<u8>> {
    let mut scratch = Vec::new();
    (0..n)
        .map(|c| {
            let s = records.span(0, c);
            unquote(&bytes[s.start..s.end], dialect, &mut scratch)
                .0
                .to_vec()
        })
        .collect()
}

/// `column0`… for ten or fewer columns, `column00`… for up to a hundred (as DuckDB).
pub fn generated_name(i: usize, n: usize) -> String {
    let width = (n.max(1) - 1).to_string().len();
    format!("column{i:0width$}")
}

fn dedup_names(names: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    for n in names {
        let mut candidate = n.clone();
        let mut k = 1;
        while out.iter().any(|o| o.eq_ignore_ascii_case(&candidate)) {
            candidate = format!("{n}_{k}");
            k += 1;
        }
        out.push(candidate);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sniff_text(t: &str) -> Sniffed {
        sniff(t.as_bytes(), &CsvOptions::default())
    }

    #[test]
    fn detects_dialect_header_and_types() {
        let s = sniff_text("id,name,price,day\n1,a,1.5,2024-01-01\n2,\"b,c\",2,2024-01-02\n");
        assert_eq!(s.dialect.delimiter, b',');
        assert!(s.header);
        assert_eq!(s.names, vec!["id", "name", "price", "day"]);
        assert_eq!(
            s.types,
            vec![
                DataType::BigInt,
                DataType::Varchar,
                DataType::Decimal(18, 1),
                DataType::Date
            ]
        );
        let s = sniff_text("1|x|\n2|y|\n");
        assert_eq!(s.dialect.delimiter, b'|');
        assert!(!s.header);
        assert_eq!(s.columns, 2);
        assert_eq!(s.names, vec!["column0", "column1"]);
        let s = sniff_text("a;b\r\ntrue;x\r\nfalse;y\r\n");
        assert_eq!(s.dialect.delimiter, b';');
        assert_eq!(s.types, vec![DataType::Boolean, DataType::Varchar]);
    }

    #[test]
    fn decimals() {
        let types = |t: &str| sniff_text(t).types;
        // The scale is the most decimals any value has.
        assert_eq!(types("x\n1.5\n-22.125\n3\n")[0], DataType::Decimal(18, 3));
        // Exponents, more than six decimals or more than 18 digits read as DOUBLE.
        assert_eq!(types("x\n1.5\n2e3\n")[0], DataType::Double);
        assert_eq!(types("x\n0.1234567\n")[0], DataType::Double);
        assert_eq!(types("x\n1234567890123456.789\n")[0], DataType::Double);
        // Codes with leading zeros stay text.
        assert_eq!(types("x\n007.5\n1.5\n")[0], DataType::Varchar);
        // Without a header, a first value with more decimals than the sample is data
        // (the column widens for it), not a header.
        let s = sniff_text("1.125,a\n2.5,b\n3.75,c\n");
        assert!(!s.header);
        assert_eq!(s.types[0], DataType::Decimal(18, 3));

        let none = &None;
        let widen = |ty: DataType, v: &str| widen_for(&ty, v.as_bytes(), none, none);
        assert_eq!(widen(DataType::BigInt, "1.25"), DataType::Decimal(18, 2));
        assert_eq!(widen(DataType::BigInt, "1e3"), DataType::Double);
        // A wider scale keeps the integer digits the old type allowed.
        assert_eq!(
            widen(DataType::Decimal(18, 2), "1.5"),
            DataType::Decimal(18, 2)
        );
        assert_eq!(
            widen(DataType::Decimal(18, 2), "1.125"),
            DataType::Decimal(38, 3)
        );
        assert_eq!(
            widen(DataType::Decimal(18, 2), "123456789012345678"),
            DataType::Decimal(38, 2)
        );
        assert_eq!(
            widen(DataType::Decimal(18, 2), "0.12345678"),
            DataType::Double
        );
        assert_eq!(widen(DataType::Decimal(18, 2), "n/a"), DataType::Varchar);
    }

    #[test]
    fn names() {
        assert_eq!(generated_name(4, 16), "column04");
        assert_eq!(generated_name(4, 10), "column4");
        assert_eq!(dedup_names(vec!["a".into(), "a".into()]), vec!["a", "a_1"]);
    }
}
