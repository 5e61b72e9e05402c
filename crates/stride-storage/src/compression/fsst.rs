//! FSST (Fast Static Symbol Table; Boncz, Neumann and Leis, VLDB 2020) for strings that
//! rarely repeat whole but share pieces, like TPC-H's comments: a table of up to 255
//! symbols of 1 to 8 bytes, each row's bytes written as one-byte codes of symbols,
//! with code 255 followed by a literal byte for what no symbol covers. Each string is
//! encoded on its own, so any row decodes without its neighbours.
//!
//! The table is built from a sample of the segment's strings in a few rounds: encode
//! the sample with the current table, count how often each symbol and each pair of
//! consecutive symbols was used, and keep the 255 candidates (symbols, and pairs
//! joined into one symbol of at most 8 bytes) that cover the most bytes.
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

/// A symbol table with an index for encoding: symbols of three or more bytes by their
/// first two bytes (longest first), then for every two bytes the code that covers
/// the most of them with a symbol of one or two bytes.
pub struct SymbolTable {
    symbols: Vec<Vec<u8>>,
    /// Each symbol's bytes as a little-endian word (zero-padded), and the mask of its
    /// bytes: a match is one masked comparison with the next 8 input bytes.
    words: Vec<(u64, u64, usize)>,
    /// For each first-two-bytes key, a range of `long_codes`: start and count (a
    /// table of 255 codes at most), two bytes an entry so the table stays in cache.
    long_ranges: Vec<(u8, u8)>,
    /// The codes of the symbols of three bytes or more, by first two bytes.
    long_codes: Vec<u8>,
    /// For each first-two-bytes key: the two-byte symbol of those bytes, else the
    /// one-byte symbol of the first, as its length << 8 | code; 0 when neither exists
    /// (the byte is escaped).
    short: Vec<u16>,
    single: [Option<u8>; 256],
}

impl SymbolTable {
    fn new(symbols: Vec<Vec<u8>>) -> SymbolTable {
        let mut single = [None; 256];
        let mut long_codes = Vec::new();
        for (code, s) in symbols.iter().enumerate() {
            match s.len() {
                1 => single[s[0] as usize] = Some(code as u8),
                2 => {}
                _ => long_codes.push(code as u8),
            }
        }
        let mut short = vec![0u16; 1 << 16];
        for (first, keys) in short.chunks_mut(256).enumerate() {
            if let Some(c) = single[first] {
                keys.fill(1 << 8 | c as u16);
            }
        }
        for (code, s) in symbols.iter().enumerate() {
            if s.len() == 2 {
                short[key(s)] = 2 << 8 | code as u16;
            }
        }
        // By first two bytes, longest first within each.
        long_codes.sort_by_key(|&c| {
            let s = &symbols[c as usize];
            (key(s), std::cmp::Reverse(s.len()), c)
        });
        let mut long_ranges = vec![(0u8, 0u8); 1 << 16];
        for (at, &c) in long_codes.iter().enumerate() {
            let range = &mut long_ranges[key(&symbols[c as usize])];
            if range.1 == 0 {
                range.0 = at as u8;
            }
            range.1 += 1;
        }
        let words = symbols
            .iter()
            .map(|s| {
                let mut b = [0u8; 8];
                b[..s.len()].copy_from_slice(s);
                let mask = if s.len() == 8 {
                    u64::MAX
                } else {
                    (1u64 << (8 * s.len())) - 1
                };
                (u64::from_le_bytes(b), mask, s.len())
            })
            .collect();
        SymbolTable {
            symbols,
            words,
            long_ranges,
            long_codes,
            short,
            single,
        }
    }

    /// The code of the longest symbol `s` starts with, and its length.
    #[inline]
    fn longest(&self, s: &[u8]) -> Option<(u8, usize)> {
        if s.len() >= 3 {
            let n = s.len().min(8);
            let word = match s.get(..8) {
                Some(head) => u64::from_le_bytes(head.try_into().expect("8")),
                None => {
                    let mut b = [0u8; 8];
                    b[..n].copy_from_slice(s);
                    u64::from_le_bytes(b)
                }
            };
            let (start, count) = self.long_ranges[key(s)];
            for &c in &self.long_codes[start as usize..start as usize + count as usize] {
                let (sym, mask, len) = self.words[c as usize];
                if len <= n && (word ^ sym) & mask == 0 {
                    return Some((c, len));
                }
            }
        }
        if s.len() >= 2 {
            return match self.short[key(s)] {
                0 => None,
                v => Some((v as u8, (v >> 8) as usize)),
            };
        }
        self.single[s[0] as usize].map(|c| (c, 1))
    }

    /// Appends the codes of `s` to `out`; calls `used` with each token (a code, or
    /// 256 + byte for an escaped byte).
    #[inline]
    fn encode_with(&self, mut s: &[u8], out: &mut Vec<u8>, mut used: impl FnMut(usize)) {
        // Codes go into the spare capacity (two bytes a byte of `s` at most) through a
        // count kept in a register; the vector's length is set once at the end.
        out.reserve(2 * s.len());
        let spare = out.spare_capacity_mut();
        let mut n = 0;
        while !s.is_empty() {
            match self.longest(s) {
                Some((c, len)) => {
                    spare[n].write(c);
                    n += 1;
                    used(c as usize);
                    s = &s[len..];
                }
                None => {
                    spare[n].write(ESCAPE);
                    spare[n + 1].write(s[0]);
                    n += 2;
                    used(256 + s[0] as usize);
                    s = &s[1..];
                }
            }
        }
        // SAFETY: the first `n` bytes of the spare capacity were written above.
        unsafe { out.set_len(out.len() + n) };
    }

    pub fn encode(&self, s: &[u8], out: &mut Vec<u8>) {
        self.encode_with(s, out, |_| {})
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

fn key(s: &[u8]) -> usize {
    (s[0] as usize) << 8 | s[1] as usize
}

/// A symbol table for `strings`, built from a sample of them.
pub fn build(strings: &[&[u8]]) -> SymbolTable {
    let total: usize = strings.iter().map(|s| s.len()).sum();
    let step = (total / SAMPLE_BYTES).max(1);
    let sample: Vec<&[u8]> = strings.iter().step_by(step).copied().collect();
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
        for s in &sample {
            let mut prev: Option<usize> = None;
            scratch.clear();
            table.encode_with(s, &mut scratch, |t| {
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
        // Candidates: every token used, and every pair used, joined (≤ 8 bytes).
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
        if candidates.len() > MAX_SYMBOLS {
            candidates.select_nth_unstable_by(MAX_SYMBOLS, order);
            candidates.truncate(MAX_SYMBOLS);
        }
        candidates.sort_unstable_by(order);
        let ranked: Vec<Vec<u8>> = candidates
            .iter()
            .map(|&(word, len, _)| word.to_be_bytes()[..len].to_vec())
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
    let mut bytes = Vec::with_capacity(strings.iter().map(|s| s.len()).sum());
    let mut lens = Vec::with_capacity(strings.len());
    for s in strings {
        let before = bytes.len();
        table.encode(s, &mut bytes);
        lens.push((bytes.len() - before) as i64);
    }
    let max = lens.iter().copied().max().unwrap_or(0);
    bitpacking::pack(w, &lens, 0, bitpacking::width_of(max as u64));
    w.u64(bytes.len() as u64);
    w.raw(&bytes);
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
    /// whole table does), with symbols of one, two and more bytes sharing first bytes.
    #[test]
    fn encoding_takes_the_longest_symbol_at_each_position() {
        let symbols: Vec<Vec<u8>> = [
            "a", "ab", "abc", "abcdefgh", "b", "bc", "bcd", "xy", "xyz1", "q",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
        let table = SymbolTable::new(symbols.clone());
        let reference = |mut s: &[u8]| {
            let mut out = Vec::new();
            while !s.is_empty() {
                let best = (0..symbols.len())
                    .filter(|&c| s.starts_with(&symbols[c]))
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
            table.encode(text.as_bytes(), &mut out);
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
