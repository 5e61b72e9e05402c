//! Strings in vectors as 16-byte views (Umbra/Arrow style): a length, a 4-byte prefix,
//! and either the remaining bytes inline (strings of at most 12 bytes) or a buffer index
//! and offset into shared heap buffers. Comparisons and hashing touch the heap only when
//! prefixes agree and the string is long.
//!
//! Invariants: every view of a text vector (VARCHAR, JSON) holds valid UTF-8 (its
//! producers append `&str`); a BLOB vector's views hold any bytes (appended with
//! [`StringVector::push_blob`]) and are read with [`StringVector::get_bytes`], never
//! [`StringVector::get`]. Code that handles every string-shaped type alike (hashing,
//! comparing, sorting, storing) works on bytes. The unused bytes of an inline view
//! are zero, so two inline views are equal exactly when their strings are.

use crate::Buffer;

pub const INLINE_LEN: usize = 12;

/// The bytes of a string of at most [`INLINE_LEN`] bytes as two little-endian words
/// (bytes 0..8 and 8..12), zero-padded. Read as at most two overlapping fixed-size
/// words and put together in registers: a `memcpy` call, or small copies into a stack
/// array read back whole (a load the CPU cannot forward from the stores), dominated
/// pushing short strings.
#[inline(always)]
fn inline_words(b: &[u8]) -> (u64, u64) {
    let n = b.len();
    debug_assert!(n <= INLINE_LEN);
    let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]) as u64;
    if n >= 8 {
        let lo = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
        // bytes n-4..n, of which the last n-8 are bytes 8..n
        (lo, u32_at(n - 4) >> (8 * (12 - n)))
    } else if n >= 4 {
        // bytes 0..4 and n-4..n overlap where they agree
        (u32_at(0) | u32_at(n - 4) << (8 * (n - 4)), 0)
    } else if n > 0 {
        let at = |i: usize| (b[i] as u64) << (8 * i);
        (at(0) | at(n / 2) | at(n - 1), 0)
    } else {
        (0, 0)
    }
}

/// The inline view of `bytes` as the two words of its memory (length, then data).
#[inline(always)]
fn inline_view_words(bytes: &[u8]) -> [u64; 2] {
    let (lo, hi) = inline_words(bytes);
    [bytes.len() as u64 | lo << 32, lo >> 32 | hi << 32]
}

/// Heap buffers start small and double up to this size, so small vectors stay small.
const BUFFER_MAX: usize = 256 * 1024;
const BUFFER_MIN: usize = 4 * 1024;
/// When the strings of the rows a `take` selects span more buffers than this, it
/// copies them into a fresh buffer instead of sharing (and cloning) a long buffer list
/// for every result. Cloning 64 `Arc`s costs far less than copying 2048 strings.
const SHARE_LIMIT: usize = 64;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(8))]
pub struct StringView {
    len: u32,
    /// Inline: the bytes themselves. Long: [prefix(4), buffer index(4), offset(4)].
    data: [u8; 12],
}

impl StringView {
    /// The view of a string of at most [`INLINE_LEN`] bytes, built in registers.
    #[inline(always)]
    fn inline(bytes: &[u8]) -> StringView {
        StringView::of_words(inline_view_words(bytes))
    }

    /// The view whose memory is these two words.
    #[inline(always)]
    fn of_words(words: [u64; 2]) -> StringView {
        #[cfg(target_endian = "little")]
        // SAFETY: `repr(C)` puts `len` in bytes 0..4 and `data` in 4..16, which on a
        // little-endian machine are the two words' bytes in order; every bit
        // pattern is a valid `u32` and `[u8; 12]`.
        unsafe {
            std::mem::transmute::<[u64; 2], StringView>(words)
        }
        #[cfg(not(target_endian = "little"))]
        {
            let (a, b) = (words[0].to_le_bytes(), words[1].to_le_bytes());
            StringView {
                len: words[0] as u32,
                data: [
                    a[4], a[5], a[6], a[7], b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                ],
            }
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn is_inline(&self) -> bool {
        self.len as usize <= INLINE_LEN
    }

    #[inline]
    pub fn prefix(&self) -> [u8; 4] {
        [self.data[0], self.data[1], self.data[2], self.data[3]]
    }

    #[inline]
    fn buffer_and_offset(&self) -> (usize, usize) {
        let b = u32::from_le_bytes([self.data[4], self.data[5], self.data[6], self.data[7]]);
        let o = u32::from_le_bytes([self.data[8], self.data[9], self.data[10], self.data[11]]);
        (b as usize, o as usize)
    }

    /// The first 8 bytes of an inline string, zero-padded, as a little-endian word
    /// (the whole string when it is at most 8 bytes long).
    #[inline]
    pub fn inline_head(&self) -> u64 {
        let d = &self.data;
        u64::from_le_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
    }

    /// The view of `bytes`, inlined when at most 12 bytes long, else pointing at
    /// `offset` in heap buffer `buffer` (where the caller has put or found them).
    ///
    /// # Safety
    /// `bytes` must be valid UTF-8 unless the view goes into a BLOB vector (the module
    /// invariant) and, when longer than 12 bytes, be the bytes at `offset` of the heap
    /// buffer `buffer` of the vector the view goes into.
    #[inline]
    pub unsafe fn of_heap(bytes: &[u8], buffer: u32, offset: u32) -> StringView {
        if bytes.len() <= INLINE_LEN {
            return StringView::inline(bytes);
        }
        let mut data = [0u8; 12];
        data[..4].copy_from_slice(&bytes[..4]);
        data[4..8].copy_from_slice(&buffer.to_le_bytes());
        data[8..12].copy_from_slice(&offset.to_le_bytes());
        StringView {
            len: bytes.len() as u32,
            data,
        }
    }

    /// The first 8 bytes (length and prefix) as one word, for fast inequality checks.
    #[inline]
    pub fn head(&self) -> u64 {
        (self.len as u64) | (u32::from_le_bytes(self.prefix()) as u64) << 32
    }

    /// The whole view as two words: [`StringView::head`] and the other 8 bytes. Two
    /// inline views are equal exactly when both words are.
    #[inline]
    pub fn words(&self) -> [u64; 2] {
        let d = &self.data;
        let rest = u64::from_le_bytes([d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11]]);
        [self.head(), rest]
    }
}

/// The string column of a vector: views plus the heap buffers long strings live in.
/// The views are a shared [`Buffer`], so cloning or slicing a string vector (a scan
/// cutting a stored row group into chunks) copies no views.
#[derive(Clone, Debug, Default)]
pub struct StringVector {
    pub views: Buffer<StringView>,
    /// The heap: owned, or read in place from foreign memory (an Arrow array's
    /// data buffers).
    pub buffers: Vec<Buffer<u8>>,
}

impl StringVector {
    pub fn with_capacity(n: usize) -> Self {
        StringVector {
            views: Vec::with_capacity(n).into(),
            buffers: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.views.len()
    }

    pub fn is_empty(&self) -> bool {
        self.views.is_empty()
    }

    #[inline]
    pub fn bytes_of<'a>(&'a self, v: &'a StringView) -> &'a [u8] {
        if v.is_inline() {
            &v.data[..v.len()]
        } else {
            let (b, o) = v.buffer_and_offset();
            &self.buffers[b][o..o + v.len()]
        }
    }

    /// Row `i` of a text vector (not of a BLOB vector: see the module's invariants).
    #[inline]
    pub fn get(&self, i: usize) -> &str {
        let b = self.bytes_of(&self.views[i]);
        // SAFETY: every view of a text vector was built from a `&str` (module invariant).
        unsafe { std::str::from_utf8_unchecked(b) }
    }

    /// Row `i`'s bytes, for vectors of every string-shaped type.
    #[inline]
    pub fn get_bytes(&self, i: usize) -> &[u8] {
        self.bytes_of(&self.views[i])
    }

    /// Appends a BLOB value (any bytes; see the module's invariants).
    pub fn push_blob(&mut self, bytes: &[u8]) {
        // SAFETY: a BLOB vector may hold any bytes (the module invariant)
        unsafe { self.push_bytes_unchecked(bytes) }
    }

    /// Makes a view for `s`, copying long strings into this vector's heap.
    #[inline]
    pub fn make_view(&mut self, s: &str) -> StringView {
        self.make_view_of_bytes(s.as_bytes())
    }

    #[inline]
    fn make_view_of_bytes(&mut self, bytes: &[u8]) -> StringView {
        if bytes.len() <= INLINE_LEN {
            return StringView::inline(bytes);
        }
        self.heap_view(bytes)
    }

    /// The view of a long string, copied to the end of the heap.
    fn heap_view(&mut self, bytes: &[u8]) -> StringView {
        let (need_new, last_cap) = match self.buffers.last_mut() {
            Some(last) => match last.get_mut() {
                Some(buf) => (buf.len() + bytes.len() > buf.capacity(), buf.capacity()),
                None => (true, last.len()),
            },
            None => (true, 0),
        };
        if need_new {
            let cap = (last_cap * 2)
                .clamp(BUFFER_MIN, BUFFER_MAX)
                .max(bytes.len());
            self.buffers.push(Vec::with_capacity(cap).into());
        }
        let bi = self.buffers.len() - 1;
        let buf = self.buffers[bi].get_mut().expect("fresh buffer is unique");
        let off = buf.len();
        buf.extend_from_slice(bytes);
        // SAFETY: the bytes were just put at `off` of buffer `bi`
        unsafe { StringView::of_heap(bytes, bi as u32, off as u32) }
    }

    #[inline]
    pub fn push(&mut self, s: &str) {
        if s.len() <= INLINE_LEN {
            self.push_inline(s.as_bytes());
        } else {
            let v = self.heap_view(s.as_bytes());
            self.views.make_mut().push(v);
        }
    }

    /// Appends a string of at most [`INLINE_LEN`] bytes, writing its view's two words
    /// straight into the views (a view put together on the stack and copied as one
    /// 16-byte move stalls on the stores that built it).
    #[inline(always)]
    fn push_inline(&mut self, bytes: &[u8]) {
        let words = inline_view_words(bytes);
        let views = self.views.make_mut();
        views.reserve(1);
        let n = views.len();
        #[cfg(target_endian = "little")]
        // SAFETY: there is room for one more view (reserved above); a view is two
        // 8-aligned words, laid out as `of_words` says; `set_len` covers exactly the
        // view written.
        unsafe {
            let at = views.as_mut_ptr().add(n) as *mut u64;
            at.write(words[0]);
            at.add(1).write(words[1]);
            views.set_len(n + 1);
        }
        #[cfg(not(target_endian = "little"))]
        views.push(StringView::of_words(words));
    }

    /// Starts a heap buffer with room for `bytes` more bytes, unless the current one
    /// has it; bulk producers call this once per batch so pushes never reallocate.
    pub fn reserve_heap(&mut self, bytes: usize) {
        let room = self
            .buffers
            .last_mut()
            .and_then(Buffer::get_mut)
            .is_some_and(|b| b.capacity() - b.len() >= bytes);
        if !room && bytes > 0 {
            self.buffers.push(Vec::with_capacity(bytes).into());
        }
    }

    /// Appends a string given as bytes, without checking them.
    ///
    /// # Safety
    /// `bytes` must be valid UTF-8 unless this is a BLOB vector (the module invariant).
    #[inline]
    pub unsafe fn push_bytes_unchecked(&mut self, bytes: &[u8]) {
        if bytes.len() <= INLINE_LEN {
            self.push_inline(bytes);
            return;
        }
        let bi = self.buffers.len().wrapping_sub(1);
        let fits = self
            .buffers
            .last_mut()
            .and_then(Buffer::get_mut)
            .is_some_and(|b| b.capacity() - b.len() >= bytes.len());
        let v = if fits {
            let buf = self.buffers[bi].get_mut().expect("checked unique");
            let off = buf.len();
            buf.extend_from_slice(bytes);
            // SAFETY: the bytes were just put at `off` of buffer `bi`
            unsafe { StringView::of_heap(bytes, bi as u32, off as u32) }
        } else {
            self.heap_view(bytes)
        };
        self.views.make_mut().push(v);
    }

    /// Copies a view from another string vector into this one, sharing its buffer.
    pub fn push_from(&mut self, other: &StringVector, i: usize) {
        let v = other.views[i];
        if v.is_inline() {
            self.views.make_mut().push(v);
        } else {
            let v = self.make_view_of_bytes(other.get_bytes(i));
            self.views.make_mut().push(v);
        }
    }

    /// The rows named by `indices`. Long strings keep pointing into shared buffers
    /// when the rows' strings lie in a few neighbouring ones (rows near each other,
    /// like a chunk cut from a stored row group, were written into the same buffer);
    /// otherwise they are copied into a fresh buffer.
    pub fn take(&self, indices: &[u32]) -> StringVector {
        if self.buffers.is_empty() {
            // Every view is inline (a long one points into a buffer): a plain gather.
            return StringVector {
                views: crate::selection::gather(&self.views, indices).into(),
                buffers: Vec::new(),
            };
        }
        let (mut lo, mut hi) = (usize::MAX, 0);
        for &i in indices {
            let v = &self.views[i as usize];
            if !v.is_inline() {
                let b = v.buffer_and_offset().0;
                lo = lo.min(b);
                hi = hi.max(b);
            }
        }
        if lo == usize::MAX || (lo == 0 && hi < SHARE_LIMIT) {
            // No long string, or their buffers keep their numbers: the views as they are.
            return StringVector {
                views: crate::selection::gather(&self.views, indices).into(),
                buffers: match lo {
                    0 => self.buffers[..=hi].to_vec(),
                    _ => Vec::new(),
                },
            };
        }
        if hi - lo < SHARE_LIMIT {
            let views: Vec<StringView> = indices
                .iter()
                .map(|&i| {
                    let mut v = self.views[i as usize];
                    if !v.is_inline() {
                        let b = (v.buffer_and_offset().0 - lo) as u32;
                        v.data[4..8].copy_from_slice(&b.to_le_bytes());
                    }
                    v
                })
                .collect();
            return StringVector {
                views: views.into(),
                buffers: self.buffers[lo..=hi].to_vec(),
            };
        }
        let mut out = StringVector::with_capacity(indices.len());
        for &i in indices {
            out.push_from(self, i as usize);
        }
        out
    }

    /// Gathers the long strings into one buffer when they are spread over more than a
    /// few, so that later takes share it instead of copying strings: worth it for a
    /// vector many takes read, like a hash join's build side.
    pub fn compact(&mut self) {
        self.compact_to(SHARE_LIMIT);
    }

    /// Gathers the long strings into one buffer when they are spread over more than
    /// `max` buffers. A table's row group is compacted to one: every scan of it clones
    /// and drops its buffer list once per chunk and column.
    pub fn compact_to(&mut self, max: usize) {
        if self.buffers.len() <= max {
            return;
        }
        let long: usize = self
            .views
            .iter()
            .filter(|v| !v.is_inline())
            .map(|v| v.len())
            .sum();
        let mut out = StringVector::with_capacity(self.len());
        out.buffers.push(Vec::with_capacity(long.max(1)).into());
        for i in 0..self.len() {
            out.push_from(self, i);
        }
        *self = out;
    }

    pub fn slice(&self, offset: usize, len: usize) -> StringVector {
        StringVector {
            views: self.views.slice(offset, len),
            buffers: self.buffers.clone(),
        }
    }

    /// Appends all rows of `other`, re-basing its buffer indices.
    pub fn append(&mut self, other: &StringVector) {
        // Chunks cut from one source share its buffers: a buffer already among the
        // last ones added here is referred to again rather than added once per chunk,
        // so the list stays short and `take` can keep sharing it.
        let recent = self
            .buffers
            .len()
            .saturating_sub(SHARE_LIMIT.max(other.buffers.len()));
        let remap: Vec<u32> = other
            .buffers
            .iter()
            .map(|b| {
                let known = self.buffers[recent..].iter().position(|x| x.ptr_eq(b));
                match known {
                    Some(k) => (recent + k) as u32,
                    None => {
                        self.buffers.push(b.clone());
                        (self.buffers.len() - 1) as u32
                    }
                }
            })
            .collect();
        self.views.make_mut().extend(other.views.iter().map(|v| {
            if v.is_inline() {
                *v
            } else {
                let mut nv = *v;
                let (b, _) = v.buffer_and_offset();
                nv.data[4..8].copy_from_slice(&remap[b].to_le_bytes());
                nv
            }
        }));
    }

    /// For each of the first `rows` strings, whether it equals `s`. Every row's
    /// length and prefix are compared without a branch; only the rows that agree on
    /// those read their bytes (a branch per row mispredicts whenever matches are
    /// neither rare nor common).
    pub fn equal_to(&self, rows: usize, s: &[u8]) -> Vec<bool> {
        let views = &self.views[..rows];
        let c = StringVector::default().make_view_of_bytes(s);
        if c.is_inline() {
            let [c0, c1] = c.words();
            return views
                .iter()
                .map(|v| {
                    let [v0, v1] = v.words();
                    (v0 ^ c0) | (v1 ^ c1) == 0
                })
                .collect();
        }
        let head = c.head();
        let mut candidates = vec![0u32; rows];
        let mut n = 0;
        for (i, v) in views.iter().enumerate() {
            candidates[n] = i as u32;
            n += (v.head() == head) as usize;
        }
        let mut out = vec![false; rows];
        for &i in &candidates[..n] {
            out[i as usize] = same_tail(self.bytes_of(&views[i as usize]), s);
        }
        out
    }

    /// [`StringVector::equal_to`] for the rows `rows`, in that order: a filter's later
    /// terms compare only the rows the earlier ones kept, where they are.
    pub fn equal_at(&self, rows: &[u32], s: &[u8]) -> Vec<bool> {
        let c = StringVector::default().make_view_of_bytes(s);
        if c.is_inline() {
            let [c0, c1] = c.words();
            return rows
                .iter()
                .map(|&i| {
                    let [v0, v1] = self.views[i as usize].words();
                    (v0 ^ c0) | (v1 ^ c1) == 0
                })
                .collect();
        }
        let head = c.head();
        rows.iter()
            .map(|&i| {
                let v = &self.views[i as usize];
                v.head() == head && same_tail(self.bytes_of(v), s)
            })
            .collect()
    }

    /// Equality of row `i` here and row `j` in `other`, prefix first.
    #[inline]
    pub fn eq_at(&self, i: usize, other: &StringVector, j: usize) -> bool {
        self.view_eq(&self.views[i], other, &other.views[j])
    }

    /// Equality of view `v` of this vector and view `w` of `other`. Inline views are
    /// equal exactly when their strings are (see the module invariants); longer ones
    /// compare length and prefix before bytes.
    #[inline]
    pub fn view_eq(&self, v: &StringView, other: &StringVector, w: &StringView) -> bool {
        if w.is_inline() {
            return v == w;
        }
        v.head() == w.head() && same_tail(self.bytes_of(v), other.bytes_of(w))
    }
}

/// Whether two strings of the same length, longer than [`INLINE_LEN`], whose first 4
/// bytes are known to agree, are equal: 8 bytes at a time up to 36 bytes (a call to
/// `memcmp` costs more than the comparison for strings this short).
#[inline]
fn same_tail(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() || !(INLINE_LEN..=36).contains(&n) {
        return a == b;
    }
    let word = |x: &[u8], i: usize| u64::from_le_bytes(x[i..i + 8].try_into().unwrap_or([0; 8]));
    let mut i = 4;
    while i + 8 < n {
        if word(a, i) != word(b, i) {
            return false;
        }
        i += 8;
    }
    // The last 8 bytes, overlapping what was compared already.
    word(a, n - 8) == word(b, n - 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vector of `parts`' strings, each part appended from a vector of its own (and
    /// so a heap buffer of its own).
    fn appended(parts: impl Iterator<Item = Vec<String>>) -> StringVector {
        let mut all = StringVector::default();
        for strings in parts {
            let mut part = StringVector::default();
            for s in &strings {
                part.push(s);
            }
            all.append(&part);
        }
        all
    }

    #[test]
    fn inline_strings_of_every_length_round_trip_zero_padded() {
        let text = "abcdefghijklm";
        let mut v = StringVector::default();
        for n in 0..=text.len() {
            v.push(&text[..n]);
        }
        for n in 0..=INLINE_LEN {
            assert_eq!(v.get(n), &text[..n]);
            assert!(v.views[n].data[n..].iter().all(|&b| b == 0), "length {n}");
        }
        assert_eq!(v.get(13), text);
    }

    #[test]
    fn equal_to_agrees_with_string_equality() {
        let long = "DELIVER IN PERSON, and then some more bytes";
        let mut strings = vec![
            String::new(),
            "AIR".into(),
            "AIR REG".into(),
            "twelve bytes".into(),
            "thirteen byte".into(),
        ];
        // Every length up to past 36 bytes, and strings differing in one byte only.
        for n in 1..long.len() {
            strings.push(long[..n].to_string());
            let mut other = long[..n].to_string().into_bytes();
            other[n - 1] = b'#';
            strings.push(String::from_utf8(other).unwrap());
        }
        let mut sv = StringVector::default();
        for s in &strings {
            sv.push(s);
        }
        for probe in &strings {
            let got = sv.equal_to(strings.len(), probe.as_bytes());
            let want: Vec<bool> = strings.iter().map(|s| s == probe).collect();
            assert_eq!(got, want, "{probe:?}");
            // The same for chosen rows, in any order.
            let rows: Vec<u32> = (0..strings.len() as u32).rev().step_by(3).collect();
            let at: Vec<bool> = rows.iter().map(|&r| want[r as usize]).collect();
            assert_eq!(sv.equal_at(&rows, probe.as_bytes()), at, "{probe:?}");
            let j = strings.iter().position(|s| s == probe).unwrap();
            for (i, s) in strings.iter().enumerate() {
                assert_eq!(sv.eq_at(i, &sv, j), s == probe, "{s:?} = {probe:?}");
            }
        }
    }

    /// Strings appended from many vectors keep their values when compacted into one
    /// buffer.
    #[test]
    fn compacting_gathers_long_strings_into_one_buffer() {
        let mut sv = appended((0..10).map(|k| {
            vec![
                format!("part {k}, a string longer than twelve bytes"),
                "short".into(),
            ]
        }));
        assert_eq!(sv.buffers.len(), 10);
        let before: Vec<String> = (0..sv.len()).map(|i| sv.get(i).to_string()).collect();
        sv.compact_to(10);
        assert_eq!(sv.buffers.len(), 10);
        sv.compact_to(1);
        assert_eq!(sv.buffers.len(), 1);
        let after: Vec<String> = (0..sv.len()).map(|i| sv.get(i).to_string()).collect();
        assert_eq!(after, before);
    }

    #[test]
    fn inline_and_heap() {
        let mut sv = StringVector::default();
        sv.push("short");
        sv.push("a string longer than twelve bytes");
        sv.push("");
        assert_eq!(sv.get(0), "short");
        assert_eq!(sv.get(1), "a string longer than twelve bytes");
        assert_eq!(sv.get(2), "");
        let t = sv.take(&[1, 0]);
        assert_eq!(t.get(0), "a string longer than twelve bytes");
        let mut a = StringVector::default();
        a.push("another long string value!!");
        a.append(&t);
        assert_eq!(a.get(1), "a string longer than twelve bytes");
        assert!(a.eq_at(1, &sv, 1));
        assert!(!a.eq_at(0, &sv, 1));
    }

    #[test]
    fn appending_chunks_of_one_source_shares_its_buffers() {
        let mut source = StringVector::default();
        for i in 0..100 {
            source.push(&format!("a long string number {i:04}"));
        }
        let mut all = StringVector::default();
        for k in 0..50 {
            all.append(&source.slice(2 * k, 2));
        }
        assert_eq!(all.buffers.len(), source.buffers.len());
        assert_eq!(all.get(99), "a long string number 0099");
        let t = all.take(&[99, 0]);
        assert!(
            t.buffers[0].ptr_eq(&source.buffers[0]),
            "shared, not copied"
        );
        assert_eq!(
            (t.get(0), t.get(1)),
            ("a long string number 0099", "a long string number 0000")
        );
    }

    #[test]
    fn take_compacts_many_buffers() {
        let all = appended((0..100).map(|i| vec![format!("a long string number {i:04}")]));
        assert!(all.buffers.len() > SHARE_LIMIT);
        let mut one = all.clone();
        one.compact();
        assert_eq!(one.buffers.len(), 1);
        assert!((0..100).all(|i| one.get(i) == all.get(i)));
        let t = all.take(&[99, 3]);
        assert_eq!(t.buffers.len(), 1);
        assert_eq!(t.get(0), "a long string number 0099");
        assert_eq!(t.get(1), "a long string number 0003");
        // Rows whose strings lie in neighbouring buffers share just those.
        let near = all.take(&[6, 5, 6]);
        assert_eq!(near.buffers.len(), 2);
        assert!(near.buffers[0].ptr_eq(&all.buffers[5]));
        let got: Vec<&str> = (0..3).map(|i| near.get(i)).collect();
        assert_eq!(
            got,
            [
                "a long string number 0006",
                "a long string number 0005",
                "a long string number 0006"
            ]
        );
        let mut short = StringVector::default();
        short.push("tiny");
        assert!(short.take(&[0, 0]).buffers.is_empty());
    }
}
