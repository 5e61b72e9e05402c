//! Finding records and fields. The hot loop classifies 64 bytes at a time into
//! bitmasks of delimiters, newlines and quotes (SSE2 on x86-64), blanks out the bytes
//! inside quotes with a prefix-XOR of the quote mask, and walks the remaining set bits:
//! no per-byte branches and no per-field allocation. Fields are reported as byte spans
//! of the input; unquoting and conversion happen later, one column at a time.
//!
//! Quote state carries from block to block ([`QuoteState`]). A quote opens a quoted
//! field only at the field's start (or right after a closing quote: `""` inside quotes);
//! elsewhere, as in `5" pipe`, it is text, as DuckDB and RFC 4180 read it. The
//! prefix-XOR is exact while every quote it opens is at such a place, which one mask
//! test checks per block; a block where it is not, and every block with an escape byte
//! other than the quote (`escape = '\'`, where an escaped quote does not toggle), is
//! walked byte by byte instead.

use super::options::Dialect;

/// A field's bytes in the input, quotes included; `start == MISSING` when the record
/// has fewer fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub const MISSING: Span = Span {
        start: usize::MAX,
        end: usize::MAX,
    };

    pub fn is_missing(&self) -> bool {
        self.start == usize::MAX
    }
}

/// Marks a file column nobody asked for.
pub const UNWANTED: u32 = u32::MAX;

/// Records found by the tokenizer: their start offsets, field counts and the spans of
/// the wanted fields, stored column by column (`spans[slot * cap + record]`) so that
/// converting one column reads its spans in order. A field is present when its
/// position in the record is below the record's field count; nothing is written for
/// absent ones.
#[derive(Debug, Default)]
pub struct Records {
    /// Whether every byte the last call looked at was ASCII (so text needs no UTF-8
    /// check).
    pub ascii: bool,
    pub starts: Vec<usize>,
    pub field_counts: Vec<u32>,
    spans: Vec<Span>,
    /// The file column each slot holds.
    slot_field: Vec<u32>,
    cap: usize,
}

impl Records {
    /// Records for the fields `want` selects (file column → slot or [`UNWANTED`]).
    pub fn new(want: &[u32]) -> Self {
        let slots = want.iter().filter(|&&s| s != UNWANTED).count();
        let mut slot_field = vec![0; slots];
        for (field, &slot) in want.iter().enumerate() {
            if slot != UNWANTED {
                slot_field[slot as usize] = field as u32;
            }
        }
        Records {
            slot_field,
            ..Default::default()
        }
    }

    pub fn slots(&self) -> usize {
        self.slot_field.len()
    }

    pub fn len(&self) -> usize {
        self.starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    pub fn clear(&mut self) {
        self.starts.clear();
        self.field_counts.clear();
    }

    #[inline]
    pub fn span(&self, record: usize, slot: usize) -> Span {
        if self.slot_field[slot] >= self.field_counts[record] {
            Span::MISSING
        } else {
            self.spans[slot * self.cap + record]
        }
    }

    /// The spans of one slot, one per record (valid where the record has the field),
    /// and the file column the slot holds.
    #[inline]
    pub fn column(&self, slot: usize) -> (&[Span], u32) {
        let n = self.len();
        (
            &self.spans[slot * self.cap..slot * self.cap + n],
            self.slot_field[slot],
        )
    }

    /// Room for record `r` in every slot.
    #[inline(always)]
    fn ensure(&mut self, r: usize) {
        if r >= self.cap {
            self.grow(r);
        }
    }

    #[cold]
    fn grow(&mut self, r: usize) {
        let slots = self.slots();
        let cap = (self.cap * 2).max(r + 1).max(VECTOR_SIZE_HINT);
        let mut spans = vec![Span::MISSING; slots * cap];
        for s in 0..slots {
            let old = &self.spans[s * self.cap..(s + 1) * self.cap];
            spans[s * cap..s * cap + self.cap].copy_from_slice(old);
        }
        self.spans = spans;
        self.cap = cap;
    }

    #[inline]
    fn set(&mut self, r: usize, slot: usize, span: Span) {
        self.spans[slot * self.cap + r] = span;
    }
}

/// Records per batch the reader asks for; the span store starts at this size.
const VECTOR_SIZE_HINT: usize = 2048;

/// Why tokenizing stopped early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenError {
    /// A record (starting at this offset) is longer than the limit.
    LineTooLong { record_start: usize },
    /// The input ended inside a quoted field that started in the record at this offset.
    UnterminatedQuote { record_start: usize },
}

/// Splits `bytes[from..to]` into records. `from` must be a record start outside quotes.
pub struct Tokenizer<'a> {
    bytes: &'a [u8],
    dialect: Dialect,
    /// File column → output slot, or [`UNWANTED`].
    want: &'a [u32],
    max_line: usize,
    /// Records of no bytes at all are skipped (files with more than one column).
    skip_blank: bool,
    /// For each field position, the first wanted position at or after it, so the
    /// delimiters of fields nobody wants are consumed a block at a time.
    next_wanted: Vec<usize>,
    /// Whether some field is unwanted (otherwise no delimiter can be skipped).
    sparse: bool,
    pos: usize,
    to: usize,
}

impl<'a> Tokenizer<'a> {
    pub fn new(
        bytes: &'a [u8],
        dialect: Dialect,
        want: &'a [u32],
        from: usize,
        to: usize,
        max_line: usize,
        skip_blank: bool,
    ) -> Self {
        let mut next_wanted = vec![usize::MAX; want.len() + 1];
        for f in (0..want.len()).rev() {
            next_wanted[f] = if want[f] != UNWANTED {
                f
            } else {
                next_wanted[f + 1]
            };
        }
        Tokenizer {
            bytes,
            dialect,
            want,
            max_line,
            skip_blank,
            sparse: want.contains(&UNWANTED),
            next_wanted,
            pos: from,
            to: to.min(bytes.len()),
        }
    }

    /// Offset of the next record not yet returned.
    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.to
    }

    /// Appends up to `max` records to `out`.
    pub fn next_records(&mut self, out: &mut Records, max: usize) -> Result<(), TokenError> {
        #[cfg(target_arch = "x86_64")]
        if modern_x86() {
            // SAFETY: the CPU has the features (checked at run time).
            return unsafe { self.next_records_modern(out, max) };
        }
        self.next_records_impl(out, max)
    }

    /// The same loop compiled for CPUs with POPCNT, BMI and AVX2, where counting
    /// and finding bits are single instructions.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,bmi1,bmi2,lzcnt,avx2")]
    unsafe fn next_records_modern(
        &mut self,
        out: &mut Records,
        max: usize,
    ) -> Result<(), TokenError> {
        self.next_records_impl(out, max)
    }

    #[inline(always)]
    fn next_records_impl(&mut self, out: &mut Records, max: usize) -> Result<(), TokenError> {
        let bytes = self.bytes;
        let to = self.to;
        let d = self.dialect;
        let mut record_start = self.pos;
        let mut field_start = self.pos;
        let mut field = 0usize;
        let mut quotes = QuoteState::RECORD_START;
        let mut block = self.pos;
        let mut taken = 0usize;
        let mut high = 0u64;
        out.ascii = false;
        let open_record = |out: &mut Records, start: usize| {
            out.ensure(out.starts.len());
            out.starts.push(start);
            out.field_counts.push(0);
        };
        if block < to {
            open_record(out, record_start);
        }
        while block < to {
            let len = (to - block).min(64);
            let m = masks(&bytes[block..block + len], d);
            high |= m.high;
            let inside = quoted(&bytes[block..block + len], &m, d, &mut quotes);
            let mut s = (m.delim | m.newline) & !inside;
            while s != 0 {
                let i = s.trailing_zeros() as usize;
                if self.sparse && (m.delim >> i) & 1 == 1 {
                    let wanted = self.next_wanted.get(field).copied().unwrap_or(usize::MAX);
                    if wanted > field {
                        // Delimiters of unwanted fields up to the next newline: count
                        // them and move on without visiting each.
                        let nl = s & m.newline;
                        let run = if nl == 0 {
                            s
                        } else {
                            s & ((nl & nl.wrapping_neg()) - 1)
                        };
                        let k = run.count_ones() as usize;
                        let take = if k <= wanted - field {
                            run
                        } else {
                            // Only up to the delimiter that starts the wanted field.
                            let mut r = run;
                            for _ in 1..wanted - field {
                                r &= r - 1;
                            }
                            let bit = r & r.wrapping_neg();
                            run & (bit | (bit - 1))
                        };
                        s &= !take;
                        field += take.count_ones() as usize;
                        field_start = block + (63 - take.leading_zeros() as usize) + 1;
                        continue;
                    }
                }
                s &= s - 1;
                let p = block + i;
                if (m.delim >> i) & 1 == 1 {
                    if let Some(&slot) = self.want.get(field) {
                        if slot != UNWANTED {
                            let r = out.starts.len() - 1;
                            out.set(
                                r,
                                slot as usize,
                                Span {
                                    start: field_start,
                                    end: p,
                                },
                            );
                        }
                    }
                    field += 1;
                    field_start = p + 1;
                    continue;
                }
                // End of a record.
                let mut end = p;
                if d.newline == b'\n' && end > field_start && bytes[end - 1] == b'\r' {
                    end -= 1;
                }
                if p - record_start > self.max_line {
                    return Err(TokenError::LineTooLong { record_start });
                }
                if self.skip_blank && field == 0 && end == record_start {
                    // A blank line: reuse the open record for the next one.
                    let r = out.starts.len() - 1;
                    out.starts[r] = p + 1;
                } else {
                    finish_field(out, self.want, field, field_start, end);
                    let r = out.starts.len() - 1;
                    out.field_counts[r] = field as u32 + 1;
                    taken += 1;
                    if taken == max || p + 1 >= to {
                        out.ascii = high == 0;
                        self.pos = p + 1;
                        if p + 1 < to && taken < max {
                            open_record(out, p + 1);
                        }
                        return Ok(());
                    }
                    open_record(out, p + 1);
                }
                record_start = p + 1;
                field_start = p + 1;
                field = 0;
            }
            if block + len - record_start > self.max_line && record_start < to {
                return Err(TokenError::LineTooLong { record_start });
            }
            block += len;
        }
        // The input ended without a newline after the last record.
        out.ascii = high == 0;
        self.pos = to;
        if quotes.in_quote {
            return Err(TokenError::UnterminatedQuote { record_start });
        }
        if record_start < to {
            let mut end = to;
            if d.newline == b'\n' && end > field_start && bytes[end - 1] == b'\r' {
                end -= 1;
            }
            if self.skip_blank && field == 0 && end == record_start {
                drop_open_record(out);
            } else {
                finish_field(out, self.want, field, field_start, end);
                let r = out.starts.len() - 1;
                out.field_counts[r] = field as u32 + 1;
            }
        } else if out.starts.last() == Some(&record_start) && record_start >= to {
            drop_open_record(out);
        }
        Ok(())
    }
}

fn drop_open_record(out: &mut Records) {
    out.starts.pop();
    out.field_counts.pop();
}

#[inline]
fn finish_field(out: &mut Records, want: &[u32], field: usize, start: usize, end: usize) {
    if let Some(&slot) = want.get(field) {
        if slot != UNWANTED {
            let r = out.starts.len() - 1;
            out.set(r, slot as usize, Span { start, end });
        }
    }
}

/// Whether the CPU has POPCNT, BMI1/2, LZCNT and AVX2 (checked once).
#[cfg(target_arch = "x86_64")]
#[inline]
fn modern_x86() -> bool {
    use std::sync::OnceLock;
    static MODERN: OnceLock<bool> = OnceLock::new();
    *MODERN.get_or_init(|| {
        std::arch::is_x86_feature_detected!("popcnt")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("lzcnt")
            && std::arch::is_x86_feature_detected!("avx2")
    })
}

/// The start of the first record after `from` (the byte after the first newline
/// outside quotes), where `quotes` is the quote state at `from`.
pub fn next_record_start(bytes: &[u8], dialect: Dialect, from: usize, quotes: QuoteState) -> usize {
    let mut quotes = quotes;
    let mut block = from;
    while block < bytes.len() {
        let len = (bytes.len() - block).min(64);
        let m = masks(&bytes[block..block + len], dialect);
        let nl = m.newline & !quoted(&bytes[block..block + len], &m, dialect, &mut quotes);
        if nl != 0 {
            return block + nl.trailing_zeros() as usize + 1;
        }
        block += len;
    }
    bytes.len()
}

/// The first record start at or after `target`, scanning from `from`, a record start.
pub fn record_start_at_or_after(
    bytes: &[u8],
    dialect: Dialect,
    from: usize,
    target: usize,
) -> usize {
    if target <= from {
        return from;
    }
    let mut quotes = QuoteState::RECORD_START;
    let mut block = from;
    while block < bytes.len() {
        let len = (bytes.len() - block).min(64);
        let m = masks(&bytes[block..block + len], dialect);
        let mut nl = m.newline & !quoted(&bytes[block..block + len], &m, dialect, &mut quotes);
        while nl != 0 {
            let p = block + nl.trailing_zeros() as usize + 1;
            nl &= nl - 1;
            if p >= target {
                return p;
            }
        }
        block += len;
    }
    bytes.len()
}

/// The quote state after `bytes[from..to]`, starting in state `quotes`.
pub fn quotes_after(
    bytes: &[u8],
    dialect: Dialect,
    from: usize,
    to: usize,
    quotes: QuoteState,
) -> QuoteState {
    let mut quotes = quotes;
    let Some(q) = dialect.quote else {
        return quotes;
    };
    if dialect.escape.is_none() || dialect.escape == dialect.quote {
        // Only the quotes change the state, each by the byte before it: as fast as
        // finding them.
        let (d, nl) = (dialect.delimiter, dialect.newline);
        let mut closed_at = usize::MAX;
        for p in memchr::memchr_iter(q, &bytes[from..to]).map(|i| from + i) {
            if quotes.in_quote {
                quotes.in_quote = false;
                closed_at = p;
            } else if match p == from {
                true => quotes.field_start || quotes.after_close,
                false => bytes[p - 1] == d || bytes[p - 1] == nl || closed_at == p - 1,
            } {
                quotes.in_quote = true;
            }
        }
        if to > from {
            let last = bytes[to - 1];
            quotes.after_close = closed_at == to - 1;
            quotes.field_start = !quotes.in_quote && (last == d || last == nl);
        }
        return quotes;
    }
    let mut block = from;
    while block < to {
        let len = (to - block).min(64);
        let b = &bytes[block..block + len];
        quoted(b, &masks(b, dialect), dialect, &mut quotes);
        block += len;
    }
    quotes
}

/// Where the quotes of the bytes read so far leave the next byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuoteState {
    /// Inside a quoted field.
    pub in_quote: bool,
    /// Inside one, after an escape byte (the next byte is taken as it is).
    escaped: bool,
    /// Outside one, at a field's start: a quote here opens a quoted field.
    field_start: bool,
    /// Right after a closing quote: a quote here is the second of a `""`.
    after_close: bool,
}

impl QuoteState {
    pub const RECORD_START: QuoteState = QuoteState {
        in_quote: false,
        escaped: false,
        field_start: true,
        after_close: false,
    };

    /// The state at byte `pos`, inside a quoted field (`in_quote`) or not; outside
    /// one, the byte before says whether a field starts there (a quote before it is
    /// taken as text, not as a closing one: callers that know better follow the quotes
    /// there with [`quotes_after`]).
    pub fn at(bytes: &[u8], d: Dialect, pos: usize, in_quote: bool) -> QuoteState {
        QuoteState {
            in_quote,
            escaped: false,
            field_start: !in_quote
                && (pos == 0 || bytes[pos - 1] == d.delimiter || bytes[pos - 1] == d.newline),
            after_close: false,
        }
    }
}

/// The bytes of a block (at most 64) inside quotes, from an opening quote up to (not
/// including) its closing quote, advancing `st` past the block.
#[inline(always)]
fn quoted(block: &[u8], m: &Masks, d: Dialect, st: &mut QuoteState) -> u64 {
    let Some(q) = d.quote else { return 0 };
    let len = block.len();
    let last = |x: u64| (x >> (len - 1)) & 1 == 1;
    if d.escape.is_none() || d.escape == d.quote {
        if m.quote == 0 && !st.in_quote {
            st.field_start = last(m.delim | m.newline);
            st.after_close = false;
            return 0;
        }
        let mut x = prefix_xor(m.quote);
        if st.in_quote {
            x = !x;
        }
        let ends = (m.delim | m.newline) & !x;
        let closing = m.quote & !x;
        let allowed = (ends << 1) | (closing << 1) | (st.field_start || st.after_close) as u64;
        if m.quote & x & !allowed == 0 {
            st.in_quote = last(x);
            st.field_start = last(ends);
            st.after_close = last(closing);
            return x;
        }
    }
    walk_quotes(block, q, d.escape.unwrap_or(q), d, st)
}

/// [`quoted`] a byte at a time: for a quote inside an unquoted field, and for an escape
/// byte other than the quote.
#[cold]
fn walk_quotes(block: &[u8], quote: u8, escape: u8, d: Dialect, st: &mut QuoteState) -> u64 {
    let mut inside = 0u64;
    for (i, &b) in block.iter().enumerate() {
        if st.in_quote {
            if st.escaped {
                st.escaped = false;
            } else if b == escape && escape != quote {
                st.escaped = true;
            } else if b == quote {
                st.in_quote = false;
                st.after_close = true;
                continue;
            }
            inside |= 1 << i;
        } else if b == quote && (st.field_start || st.after_close) {
            st.in_quote = true;
            st.field_start = false;
            st.after_close = false;
            inside |= 1 << i;
        } else {
            st.field_start = b == d.delimiter || b == d.newline;
            st.after_close = false;
        }
    }
    inside
}

struct Masks {
    delim: u64,
    newline: u64,
    quote: u64,
    /// Bytes with the high bit set (not ASCII).
    high: u64,
}

/// Bit i set when byte i (of at most 64) is a delimiter / newline / quote.
#[inline(always)]
fn masks(block: &[u8], d: Dialect) -> Masks {
    #[cfg(target_arch = "x86_64")]
    if block.len() == 64 {
        // SAFETY: SSE2 is part of the x86-64 baseline and the block has 64 bytes.
        return unsafe { masks_sse2(block.as_ptr(), d) };
    }
    let q = d.quote.unwrap_or(d.delimiter);
    let mut m = Masks {
        delim: 0,
        newline: 0,
        quote: 0,
        high: 0,
    };
    for (i, &b) in block.iter().enumerate() {
        m.high |= ((b >= 0x80) as u64) << i;
        m.delim |= ((b == d.delimiter) as u64) << i;
        m.newline |= ((b == d.newline) as u64) << i;
        m.quote |= ((b == q && d.quote.is_some()) as u64) << i;
    }
    m
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn masks_sse2(p: *const u8, d: Dialect) -> Masks {
    use std::arch::x86_64::*;
    let vd = _mm_set1_epi8(d.delimiter as i8);
    let vn = _mm_set1_epi8(d.newline as i8);
    let has_quote = d.quote.is_some();
    let vq = _mm_set1_epi8(d.quote.unwrap_or(0) as i8);
    let mut m = Masks {
        delim: 0,
        newline: 0,
        quote: 0,
        high: 0,
    };
    for k in 0..4 {
        let v = _mm_loadu_si128(p.add(16 * k) as *const __m128i);
        let shift = 16 * k;
        m.high |= (_mm_movemask_epi8(v) as u16 as u64) << shift;
        m.delim |= (_mm_movemask_epi8(_mm_cmpeq_epi8(v, vd)) as u16 as u64) << shift;
        m.newline |= (_mm_movemask_epi8(_mm_cmpeq_epi8(v, vn)) as u16 as u64) << shift;
        if has_quote {
            m.quote |= (_mm_movemask_epi8(_mm_cmpeq_epi8(v, vq)) as u16 as u64) << shift;
        }
    }
    m
}

/// Bit i set when an odd number of bits at or below i are set: the bytes from an
/// opening quote up to (not including) its closing quote.
#[inline]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(text: &str, d: Dialect, ncols: usize) -> Vec<Vec<String>> {
        let want: Vec<u32> = (0..ncols as u32).collect();
        let bytes = text.as_bytes();
        let mut t = Tokenizer::new(bytes, d, &want, 0, bytes.len(), 1 << 20, ncols > 1);
        let mut out = Records::new(&want);
        while !t.at_end() {
            t.next_records(&mut out, 3).unwrap();
        }
        (0..out.len())
            .map(|r| {
                (0..ncols)
                    .map(|c| {
                        let s = out.span(r, c);
                        if s.is_missing() {
                            "<missing>".into()
                        } else {
                            text[s.start..s.end].to_string()
                        }
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn splits_records_and_fields() {
        let d = Dialect::default();
        let long = "x".repeat(100);
        let text = format!("a,b\n1,\"x,\ny\"\r\n\n{long},3\n4");
        let f = fields(&text, d, 2);
        assert_eq!(
            f,
            vec![
                vec!["a", "b"],
                vec!["1", "\"x,\ny\""],
                vec![long.as_str(), "3"],
                vec!["4", "<missing>"],
            ]
        );
    }

    #[test]
    fn escapes_and_errors() {
        let d = Dialect {
            escape: Some(b'\\'),
            ..Dialect::default()
        };
        let f = fields("\"a\\\",b\",c\n", d, 2);
        assert_eq!(f, vec![vec!["\"a\\\",b\"", "c"]]);
        let want = [0u32];
        let text = b"a\n\"open";
        let mut t = Tokenizer::new(text, Dialect::default(), &want, 0, text.len(), 100, false);
        let mut out = Records::new(&want);
        let mut r = Ok(());
        while !t.at_end() && r.is_ok() {
            r = t.next_records(&mut out, 10);
        }
        assert_eq!(r, Err(TokenError::UnterminatedQuote { record_start: 2 }));
    }

    #[test]
    fn finds_record_starts() {
        let d = Dialect::default();
        let text = b"a,\"b\nc\"\nd\n";
        let at = |pos, inside| QuoteState::at(text, d, pos, inside);
        assert_eq!(next_record_start(text, d, 0, at(0, false)), 8);
        assert_eq!(next_record_start(text, d, 5, at(5, true)), 8);
        // from outside quotes, the quote after `c` is text
        assert_eq!(next_record_start(text, d, 5, at(5, false)), 8);
        assert_eq!(next_record_start(text, d, 2, at(2, false)), 8);
        let plain = Dialect { quote: None, ..d };
        assert!(!quotes_after(text, plain, 0, 3, QuoteState::RECORD_START).in_quote);
        assert!(quotes_after(text, d, 0, 4, QuoteState::RECORD_START).in_quote);
    }

    /// A quote inside an unquoted field is text (records stay apart); at a field's
    /// start, or doubled inside quotes, it quotes. The same with a 64-byte block
    /// boundary at every position, and for the byte-by-byte walk.
    #[test]
    fn quotes_only_open_at_a_field_start() {
        let d = Dialect::default();
        let rows = "a,b\n1,5\"\n2,7\"\n3,\"x\"\"y,z\"\n4,\"p,\nq\"\n5,ab\"c\n";
        let want = vec![
            vec!["a", "b"],
            vec!["1", "5\""],
            vec!["2", "7\""],
            vec!["3", "\"x\"\"y,z\""],
            vec!["4", "\"p,\nq\""],
            vec!["5", "ab\"c"],
        ];
        for pad in 0..70 {
            let text = format!("{}{rows}", "\n".repeat(pad));
            assert_eq!(fields(&text, d, 2), want, "after {pad} blank lines");
            let escaped = Dialect {
                escape: Some(b'\\'),
                ..d
            };
            assert_eq!(fields(&text, escaped, 2), want, "escape, after {pad}");
        }
    }
}
