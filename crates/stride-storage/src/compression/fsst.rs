//! FSST (Fast Static Symbol Table; Boncz, Neumann and Leis, VLDB 2020) for strings that
//! rarely repeat whole but share pieces, like TPC-H's comments: a table of up to 255
//! symbols of 1 to 8 bytes, each row's bytes written as one-byte codes of symbols,
//! with code 255 followed by a literal byte for what no symbol covers. Each string is
//! encoded on its own, so any row decodes without its neighbours.
//!
//! The table is built from a sample of the segment's strings in a few rounds: encode
//! the sample with the current table, count how often each symbol and each pair of
//! consecutive symbols was used, and keep the 255 candidates (symbols, and pairs
//! joined into one symbol of at most 8 bytes) that cover the most bytes, skipping a
//! long symbol whose bucket in the encoder's index a better one took.
//!
//! Encoding looks up, at each position, a long symbol by a hash of the next three
//! bytes and a short one by the next two, and chooses without branching; the rows
//! of a segment are encoded as two halves in one loop, so that the lookups of one
//! step overlap those of the other half's (each step waits on its own).
//!
//! Layout: the symbol count (u8), each symbol's length (u8 each), their bytes; the
//! rows' encoded lengths bit-packed (see `bitpacking`, minimum 0); the total encoded
//! byte count (u64) and the encoded bytes.

use super::bitpacking;
use crate::serialize::{ByteReader, ByteWriter};
use stride_common::{Result, StringVector};

const ESCAPE: u8 = 255;
const MAX_SYMBOLS: usize = 255;
const MAX_LEN: usize = 8;
/// Bytes of strings the table is built from.
const SAMPLE_BYTES: usize = 32 * 1024;
const ROUNDS: usize = 5;

/// A symbol table with an index for encoding, after the FSST paper: the symbols of
/// three or more bytes in a small hash table by their first three bytes (one symbol
/// a bucket: a symbol whose bucket is taken by an earlier one, with more gain, is
/// not used), and for every two bytes the code that covers the most of them with a
/// symbol of one or two bytes (or the escape). Each step looks up both and takes
/// the long symbol where it matches, without a branch on the data.
pub struct SymbolTable {
    symbols: Vec<Vec<u8>>,
    /// By [`bucket`]: a symbol's bytes as a little-endian word (zero-padded), and its
    /// length << 8 | code (length 0: an empty bucket).
    long: Vec<(u64, u16)>,
    /// For each first-two-bytes key (first byte low): length << 8 | code of the
    /// two-byte symbol of those bytes, else of the one-byte symbol of the first, else
    /// 1 << 8 | ESCAPE.
    short: Vec<u16>,
    /// For each byte: 1 << 8 | code of its one-byte symbol, else 1 << 8 | ESCAPE.
    single: [u16; 256],
}

/// The mask of the first `len` bytes of a word (16 entries, so that an index masked
/// to four bits needs no bounds check).
static MASKS: [u64; 16] = {
    let mut m = [0u64; 16];
    let mut i = 1;
    while i < 9 {
        m[i] = u64::MAX >> (64 - 8 * i);
        i += 1;
    }
    m
};

impl SymbolTable {
    fn new(symbols: Vec<Vec<u8>>) -> SymbolTable {
        let escape = 1 << 8 | ESCAPE as u16;
        let mut single = [escape; 256];
        let mut long = vec![(0u64, 0u16); BUCKETS];
        for (code, s) in symbols.iter().enumerate() {
            match s.len() {
                1 => single[s[0] as usize] = 1 << 8 | code as u16,
                2 => {}
                len => {
                    let word = word_of(s);
                    let slot = &mut long[bucket(word)];
                    if slot.1 == 0 {
                        *slot = (word, (len as u16) << 8 | code as u16);
                    }
                }
            }
        }
        let mut short = vec![0u16; 1 << 16];
        for (key, v) in short.iter_mut().enumerate() {
            *v = single[key & 0xff];
        }
        for (code, s) in symbols.iter().enumerate() {
            if s.len() == 2 {
                short[s[0] as usize | (s[1] as usize) << 8] = 2 << 8 | code as u16;
            }
        }
        SymbolTable {
            symbols,
            long,
            short,
            single,
        }
    }

    /// Whether the encoder can use a symbol of these bytes: one of one or two bytes,
    /// or a long one whose bucket no earlier symbol of `taken` holds (which it then
    /// takes).
    fn usable(bytes: &[u8], taken: &mut [bool]) -> bool {
        if bytes.len() < 3 {
            return true;
        }
        let b = bucket(word_of(bytes));
        !std::mem::replace(&mut taken[b], true)
    }

    /// The code for the bytes at `at` of `padded` (8 readable), of which `left` are
    /// the string's, and how many bytes it covers: the longest symbol there, or the
    /// escape for one byte.
    #[inline(always)]
    fn step(&self, padded: &[u8], at: usize, left: usize) -> (u8, usize) {
        let word = u64::from_le_bytes(padded[at..at + 8].try_into().expect("8 bytes"));
        let (sym, long) = self.long[bucket(word)];
        let len = (long >> 8) as usize;
        let short = if left >= 2 {
            self.short[word as u16 as usize]
        } else {
            self.single[word as u8 as usize]
        };
        // An empty bucket has length 0: `len - 1` wraps and fails the first test.
        // Both tests and the choice are arithmetic: whether a long symbol matches is
        // as good as random, and a branch on it mispredicts half the time.
        let hit = (len.wrapping_sub(1) < left) & ((word ^ sym) & MASKS[len & 15] == 0);
        let pick = (hit as u16).wrapping_neg();
        let chosen = (long & pick) | (short & !pick);
        (chosen as u8, (chosen >> 8) as usize)
    }

    /// Appends the codes of the string `range` of `padded` to `out`; calls `used`
    /// with each token (a code, or 256 + byte for an escaped byte).
    #[inline]
    fn encode_with(
        &self,
        padded: &Padded,
        range: std::ops::Range<usize>,
        out: &mut Vec<u8>,
        mut used: impl FnMut(usize),
    ) {
        // Codes go into the spare capacity (two bytes a byte of the string at most,
        // and one more: each step writes two) through a count kept in a register; the
        // vector's length is set once at the end.
        let bytes = &padded.bytes;
        let (mut at, end) = (range.start, range.end);
        out.reserve(2 * (end - at) + 1);
        let spare = out.spare_capacity_mut();
        let mut n = 0;
        while at < end {
            let (code, step) = self.step(bytes, at, end - at);
            spare[n].write(code);
            spare[n + 1].write(bytes[at]);
            let escaped = code == ESCAPE;
            n += 1 + escaped as usize;
            used(if escaped {
                256 + bytes[at] as usize
            } else {
                code as usize
            });
            at += step;
        }
        // SAFETY: the first `n` bytes of the spare capacity were written above.
        unsafe { out.set_len(out.len() + n) };
    }

    /// The bytes of the token `t` (a code, or 256 + byte).
    fn token(&self, t: usize) -> &[u8] {
        if t < 256 {
            &self.symbols[t]
        } else {
            std::slice::from_ref(&BYTES[t - 256])
        }
    }
}

/// Every byte value, to borrow one-byte slices from.
static BYTES: [u8; 256] = {
    let mut b = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        b[i] = i as u8;
        i += 1;
    }
    b
};

/// Strings laid end to end with 8 zero bytes after the last, so that a word can be
/// read at any position of any of them.
struct Padded {
    bytes: Vec<u8>,
    /// Where each string ends.
    ends: Vec<usize>,
}

impl Padded {
    fn new(strings: &[&[u8]]) -> Padded {
        let total = strings.iter().map(|s| s.len()).sum::<usize>();
        let mut bytes = Vec::with_capacity(total + 8);
        let mut ends = Vec::with_capacity(strings.len());
        for s in strings {
            bytes.extend_from_slice(s);
            ends.push(bytes.len());
        }
        bytes.extend_from_slice(&[0; 8]);
        Padded { bytes, ends }
    }

    /// The strings' positions in `bytes`.
    fn ranges(&self) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(s, &e)| s..e)
    }
}

/// Buckets of the index of long symbols.
const BUCKETS: usize = 1024;

/// The bucket of the symbols starting with the three low bytes of `word`.
#[inline]
fn bucket(word: u64) -> usize {
    ((word & 0xff_ffff).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 54) as usize
}

/// Up to 8 bytes as a little-endian word, zero-padded.
fn word_of(s: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = s.len().min(8);
    b[..n].copy_from_slice(&s[..n]);
    u64::from_le_bytes(b)
}

/// A symbol table for `strings`, built from a sample of them.
pub fn build(strings: &[&[u8]]) -> SymbolTable {
    let total: usize = strings.iter().map(|s| s.len()).sum();
    let step = (total / SAMPLE_BYTES).max(1);
    let sample: Vec<&[u8]> = strings.iter().step_by(step).copied().collect();
    let sample = Padded::new(&sample);
    let mut table = SymbolTable::new(Vec::new());
    let mut scratch = Vec::new();
    // Pair counts, and which pairs were seen: a small sample sees few of the 512²
    // pairs, and visiting (and zeroing) them all made a small column's build cost more
    // than the single-row inserts that filled it.
    let mut count2 = vec![0u32; 512 * 512];
    let mut seen: Vec<usize> = Vec::new();
    for _ in 0..ROUNDS {
        let mut count1 = vec![0u32; 512];
        for &i in &seen {
            count2[i] = 0;
        }
        seen.clear();
        for s in sample.ranges() {
            let mut prev: Option<usize> = None;
            scratch.clear();
            table.encode_with(&sample, s, &mut scratch, |t| {
                count1[t] += 1;
                if let Some(p) = prev {
                    let i = p * 512 + t;
                    if count2[i] == 0 {
                        seen.push(i);
                    }
                    count2[i] += 1;
                }
                prev = Some(t);
            });
        }
        // Candidates: every token used, and every pair used, joined (≤ 8 bytes), each
        // as its bytes in a big-endian word (so words order as the bytes do) and its
        // length; the same symbol from several pairs adds up its gains.
        let mut candidates: Vec<(u64, usize, u64)> = Vec::with_capacity(seen.len() + 512);
        let mut add = |parts: [&[u8]; 2], n: u32| {
            let mut b = [0u8; MAX_LEN];
            let len = parts[0].len() + parts[1].len();
            b[..parts[0].len()].copy_from_slice(parts[0]);
            b[parts[0].len()..len].copy_from_slice(parts[1]);
            candidates.push((u64::from_be_bytes(b), len, n as u64 * len as u64));
        };
        for (t, &n) in count1.iter().enumerate() {
            if n > 0 {
                add([table.token(t), &[]], n);
            }
        }
        for &i in &seen {
            let (a, b) = (table.token(i / 512), table.token(i % 512));
            if a.len() + b.len() <= MAX_LEN {
                add([a, b], count2[i]);
            }
        }
        candidates.sort_unstable_by_key(|&(word, len, _)| (word, len));
        candidates.dedup_by(|later, first| {
            let same = (later.0, later.1) == (first.0, first.1);
            if same {
                first.2 += later.2;
            }
            same
        });
        // The most gain first, ties by bytes: the first MAX_SYMBOLS, in that order.
        let order = |x: &(u64, usize, u64), y: &(u64, usize, u64)| {
            y.2.cmp(&x.2).then((x.0, x.1).cmp(&(y.0, y.1)))
        };
        candidates.sort_unstable_by(order);
        let mut taken = vec![false; BUCKETS];
        let ranked: Vec<Vec<u8>> = candidates
            .iter()
            .map(|&(word, len, _)| word.to_be_bytes()[..len].to_vec())
            .filter(|bytes| SymbolTable::usable(bytes, &mut taken))
            .take(MAX_SYMBOLS)
            .collect();
        table = SymbolTable::new(ranked);
    }
    table
}

/// Writes `strings` (the rows, NULL rows as empty strings) encoded with `table`.
pub fn encode(w: &mut ByteWriter, table: &SymbolTable, strings: &[&[u8]]) {
    w.u8(table.symbols.len() as u8);
    for s in &table.symbols {
        w.u8(s.len() as u8);
    }
    for s in &table.symbols {
        w.raw(s);
    }
    let padded = Padded::new(strings);
    // Two halves of the rows at once: each step waits on its lookups, and the two
    // halves' steps do not wait on each other.
    let half = strings.len() / 2;
    let mut a = Cursor::new(&padded, 0..half);
    let mut b = Cursor::new(&padded, half..strings.len());
    while a.live() && b.live() {
        a.step(table, &padded.bytes);
        b.step(table, &padded.bytes);
    }
    while a.live() {
        a.step(table, &padded.bytes);
    }
    while b.live() {
        b.step(table, &padded.bytes);
    }
    let (a_bytes, mut lens) = a.finish();
    let (b_bytes, b_lens) = b.finish();
    lens.extend_from_slice(&b_lens);
    let max = lens.iter().copied().max().unwrap_or(0);
    let width = bitpacking::width_of(max as u64);
    // Room for all of it at once: growing by doubling copies, into fresh pages.
    let packed = (lens.len() * width as usize).div_ceil(8);
    w.bytes.reserve(packed + 64 + a_bytes.len() + b_bytes.len());
    bitpacking::pack(w, &lens, 0, width);
    w.u64((a_bytes.len() + b_bytes.len()) as u64);
    w.raw(&a_bytes);
    w.raw(&b_bytes);
}

/// A walk through consecutive strings of a [`Padded`], encoding them into one
/// buffer with each one's encoded length.
struct Cursor<'a> {
    ends: &'a [usize],
    /// The string being encoded.
    next: usize,
    at: usize,
    out: Vec<u8>,
    /// Bytes written to `out` (its length is set at the end).
    n: usize,
    /// `n` where the current string began.
    began: usize,
    lens: Vec<i64>,
}

impl<'a> Cursor<'a> {
    fn new(padded: &'a Padded, rows: std::ops::Range<usize>) -> Cursor<'a> {
        let start = if rows.start == 0 {
            0
        } else {
            padded.ends[rows.start - 1]
        };
        let ends = &padded.ends[rows];
        let bytes = ends.last().map_or(0, |&e| e - start);
        let mut c = Cursor {
            ends,
            next: 0,
            at: start,
            // two bytes a byte at most, and each step writes two
            out: Vec::with_capacity(2 * bytes + 1),
            n: 0,
            began: 0,
            lens: Vec::with_capacity(ends.len()),
        };
        c.close_finished();
        c
    }

    fn live(&self) -> bool {
        self.next < self.ends.len()
    }

    /// Records the strings that end where the cursor is.
    #[inline(always)]
    fn close_finished(&mut self) {
        while self.next < self.ends.len() && self.at == self.ends[self.next] {
            self.lens.push((self.n - self.began) as i64);
            self.began = self.n;
            self.next += 1;
        }
    }

    #[inline(always)]
    fn step(&mut self, table: &SymbolTable, padded: &[u8]) {
        let (code, step) = table.step(padded, self.at, self.ends[self.next] - self.at);
        let spare = self.out.spare_capacity_mut();
        spare[self.n].write(code);
        spare[self.n + 1].write(padded[self.at]);
        self.n += 1 + (code == ESCAPE) as usize;
        self.at += step;
        self.close_finished();
    }

    fn finish(mut self) -> (Vec<u8>, Vec<i64>) {
        // SAFETY: the first `n` bytes of the spare capacity were written by `step`.
        unsafe { self.out.set_len(self.n) };
        (self.out, self.lens)
    }
}

/// Reads `len` strings written by [`encode`].
/// `text`: every row must be UTF-8 (not a BLOB column).
pub fn decode(r: &mut ByteReader, len: usize, text: bool) -> Result<StringVector> {
    let n = r.u8()? as usize;
    let lens = r.raw(n)?.to_vec();
    if lens.iter().any(|&l| l == 0 || l as usize > MAX_LEN) {
        return Err(r.corrupt("an FSST symbol of a length outside 1 to 8"));
    }
    let mut symbols = [[0u8; MAX_LEN]; 256];
    for (i, &l) in lens.iter().enumerate() {
        symbols[i][..l as usize].copy_from_slice(r.raw(l as usize)?);
    }
    let mut sym_len = [0u8; 256];
    sym_len[..n].copy_from_slice(&lens);
    let encoded = bitpacking::unpack(r, len)?;
    let total = usize::try_from(r.u64()?).unwrap_or(usize::MAX);
    let bytes = r.raw(total)?;
    if encoded
        .iter()
        .try_fold(0u64, |a, &l| a.checked_add(l as u64))
        != Some(total as u64)
    {
        return Err(r.corrupt("FSST row lengths that do not add up to the encoded bytes"));
    }
    let mut out = StringVector::with_capacity(len);
    let mut row = Vec::new();
    let mut at = 0usize;
    for l in encoded {
        let codes = &bytes[at..at + l as usize];
        at += l as usize;
        row.clear();
        let mut i = 0;
        while i < codes.len() {
            let c = codes[i] as usize;
            if c == ESCAPE as usize {
                let b = *codes
                    .get(i + 1)
                    .ok_or_else(|| r.corrupt("an FSST escape at the end of a row"))?;
                row.push(b);
                i += 2;
            } else {
                if c >= n {
                    return Err(r.corrupt("an FSST code past the symbol table"));
                }
                row.extend_from_slice(&symbols[c][..sym_len[c] as usize]);
                i += 1;
            }
        }
        if text && std::str::from_utf8(&row).is_err() {
            return Err(r.corrupt("an FSST row is not UTF-8"));
        }
        out.push_blob(&row);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index finds, at every position, the longest symbol there (as a scan of the
    /// whole table does) among those it keeps, with symbols of one, two and more bytes
    /// sharing first bytes. Of two long symbols with the same first three bytes only
    /// the first is kept.
    #[test]
    fn encoding_takes_the_longest_symbol_at_each_position() {
        let symbols: Vec<Vec<u8>> = [
            "a", "ab", "abc", "abcdefgh", "b", "bc", "bcd", "xy", "xyz1", "q", "bcdefg",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
        let table = SymbolTable::new(symbols.clone());
        let mut taken = vec![false; BUCKETS];
        let kept: Vec<bool> = symbols
            .iter()
            .map(|s| SymbolTable::usable(s, &mut taken))
            .collect();
        assert_eq!(
            kept.iter().filter(|k| !**k).count(),
            2,
            "abcdefgh and bcdefg"
        );
        let reference = |mut s: &[u8]| {
            let mut out = Vec::new();
            while !s.is_empty() {
                let best = (0..symbols.len())
                    .filter(|&c| kept[c] && s.starts_with(&symbols[c]))
                    .max_by_key(|&c| symbols[c].len());
                match best {
                    Some(c) => {
                        out.push(c as u8);
                        s = &s[symbols[c].len()..];
                    }
                    None => {
                        out.extend([ESCAPE, s[0]]);
                        s = &s[1..];
                    }
                }
            }
            out
        };
        for text in [
            "abcdefghabc",
            "ab",
            "a",
            "b",
            "bcdx",
            "xyz",
            "xyz1xy",
            "zzabq",
            "abcdefg",
            "",
            "xqbcbcd",
        ] {
            let mut out = Vec::new();
            let padded = Padded::new(&[text.as_bytes()]);
            table.encode_with(&padded, 0..text.len(), &mut out, |_| {});
            assert_eq!(out, reference(text.as_bytes()), "{text}");
        }
    }

    #[test]
    fn round_trips_and_compresses_repetitive_text() {
        let words = [
            "carefully",
            "final",
            "deposits",
            "sleep",
            "quickly",
            "among",
            "the",
            "ironic",
            "packages",
        ];
        let rows: Vec<String> = (0..5000)
            .map(|i| {
                (0..(i % 7 + 2))
                    .map(|k| words[(i * 31 + k * 7) % words.len()])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .chain(
                ["", "ünïcødé ✓", "\u{0}\u{ff}"]
                    .iter()
                    .map(|s| s.to_string()),
            )
            .collect();
        let strings: Vec<&[u8]> = rows.iter().map(|s| s.as_bytes()).collect();
        let table = build(&strings);
        let mut w = ByteWriter::new();
        encode(&mut w, &table, &strings);
        let plain: usize = strings.iter().map(|s| s.len()).sum();
        assert!(w.bytes.len() * 2 < plain, "{} of {plain}", w.bytes.len());
        let mut r = ByteReader::new(&w.bytes, "test");
        let back = decode(&mut r, strings.len(), true).unwrap();
        assert!(r.is_at_end());
        for (i, s) in rows.iter().enumerate() {
            assert_eq!(back.get(i), s);
        }
        for cut in [0, 1, w.bytes.len() / 2, w.bytes.len() - 1] {
            let mut r = ByteReader::new(&w.bytes[..cut], "test");
            assert!(decode(&mut r, strings.len(), true).is_err());
        }
    }
}
