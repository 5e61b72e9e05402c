//! Validity masks: one bit per row, set when the value is not NULL. An absent mask
//! means "all valid", so NULL-free columns cost nothing.

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validity {
    bits: Option<Vec<u64>>,
}

impl Validity {
    pub fn all_valid() -> Self {
        Validity { bits: None }
    }

    pub fn all_invalid(len: usize) -> Self {
        Validity {
            bits: Some(vec![0; len.div_ceil(64).max(1)]),
        }
    }

    #[inline]
    pub fn is_valid(&self, i: usize) -> bool {
        match &self.bits {
            None => true,
            Some(b) => b.get(i / 64).is_none_or(|w| w & (1u64 << (i % 64)) != 0),
        }
    }

    pub fn has_nulls(&self) -> bool {
        self.bits.is_some()
    }

    fn materialize(&mut self, len: usize) -> &mut Vec<u64> {
        let words = len.div_ceil(64).max(1);
        let bits = self.bits.get_or_insert_with(|| vec![u64::MAX; words]);
        if bits.len() < words {
            bits.resize(words, u64::MAX);
        }
        bits
    }

    /// Marks row `i` NULL; `len` is the vector's length (for sizing the mask).
    #[inline]
    pub fn set_invalid(&mut self, i: usize, len: usize) {
        let bits = self.materialize(len.max(i + 1));
        bits[i / 64] &= !(1u64 << (i % 64));
    }

    #[inline]
    pub fn set(&mut self, i: usize, valid: bool, len: usize) {
        if valid {
            if let Some(b) = &mut self.bits {
                if i / 64 < b.len() {
                    b[i / 64] |= 1u64 << (i % 64);
                }
            }
        } else {
            self.set_invalid(i, len);
        }
    }

    pub fn count_valid(&self, len: usize) -> usize {
        match &self.bits {
            None => len,
            Some(_) => (0..len).filter(|&i| self.is_valid(i)).count(),
        }
    }

    /// Builds a mask from a per-row flag, dropping it when every row is valid.
    pub fn from_fn(len: usize, mut f: impl FnMut(usize) -> bool) -> Self {
        let mut bits = vec![u64::MAX; len.div_ceil(64).max(1)];
        let mut all = true;
        for (w, word) in bits.iter_mut().enumerate() {
            let first = w * 64;
            let mut valid = 0u64;
            for b in 0..64.min(len.saturating_sub(first)) {
                valid |= (f(first + b) as u64) << b;
            }
            // Bits past the last row stay set, as `set_invalid` leaves them.
            let past = if len - first.min(len) >= 64 {
                0
            } else {
                u64::MAX << (len - first.min(len))
            };
            *word = valid | past;
            all &= *word == u64::MAX;
        }
        if all {
            Validity::all_valid()
        } else {
            Validity { bits: Some(bits) }
        }
    }

    /// The mask of rows valid in both.
    pub fn and(&self, other: &Validity) -> Validity {
        match (&self.bits, &other.bits) {
            (None, None) => Validity::all_valid(),
            (Some(_), None) => self.clone(),
            (None, Some(_)) => other.clone(),
            (Some(a), Some(b)) => {
                let n = a.len().max(b.len());
                let bits = (0..n)
                    .map(|i| {
                        a.get(i).copied().unwrap_or(u64::MAX)
                            & b.get(i).copied().unwrap_or(u64::MAX)
                    })
                    .collect();
                Validity { bits: Some(bits) }
            }
        }
    }

    /// The mask of the rows named by `indices`, in that order.
    pub fn take(&self, indices: &[u32]) -> Validity {
        match &self.bits {
            None => Validity::all_valid(),
            Some(b) => Validity::from_fn(indices.len(), |i| {
                let j = indices[i] as usize;
                b.get(j / 64).is_none_or(|w| w >> (j % 64) & 1 != 0)
            }),
        }
    }

    /// The mask with only `rows` (ascending, each below `len`) valid.
    pub fn from_rows(len: usize, rows: &[u32]) -> Validity {
        if rows.len() == len {
            return Validity::all_valid();
        }
        let mut bits = vec![0u64; len.div_ceil(64).max(1)];
        for &r in rows {
            bits[r as usize / 64] |= 1u64 << (r % 64);
        }
        Validity { bits: Some(bits) }
    }

    pub fn slice(&self, offset: usize, len: usize) -> Validity {
        let Some(b) = &self.bits else {
            return Validity::all_valid();
        };
        // A word at a time: output word w is the 64 bits from offset + 64 w on.
        let word = |i: usize| b.get(i).copied().unwrap_or(u64::MAX);
        let (first, shift) = (offset / 64, offset % 64);
        let mut bits = vec![u64::MAX; len.div_ceil(64).max(1)];
        let mut all = true;
        for (w, out) in bits.iter_mut().enumerate() {
            let low = word(first + w) >> shift;
            let value = if shift == 0 {
                low
            } else {
                low | word(first + w + 1) << (64 - shift)
            };
            // Bits past the last row stay set, as `from_fn` leaves them.
            let rows = len.saturating_sub(w * 64);
            *out = if rows >= 64 {
                value
            } else {
                value | u64::MAX << rows
            };
            all &= *out == u64::MAX;
        }
        if all {
            Validity::all_valid()
        } else {
            Validity { bits: Some(bits) }
        }
    }

    /// Appends `other` (of length `other_len`) after the first `len` rows of `self`.
    pub fn append(&mut self, len: usize, other: &Validity, other_len: usize) {
        if !self.has_nulls() && !other.has_nulls() {
            return;
        }
        let bits = self.materialize(len + other_len);
        // Every bit is written, a word of `other` at a time: bits past the end of
        // `self` may be either value (a mask made by `all_invalid` has them clear).
        let mut done = 0;
        while done < other_len {
            let n = (other_len - done).min(64);
            let word = match &other.bits {
                None => u64::MAX,
                Some(b) => b.get(done / 64).copied().unwrap_or(u64::MAX),
            };
            write_bits(bits, len + done, word, n);
            done += n;
        }
    }
}

/// Writes the low `n` (1 to 64) bits of `word` into `dst` from bit `at` on.
fn write_bits(dst: &mut [u64], at: usize, word: u64, n: usize) {
    let mask = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    let value = word & mask;
    let (w, shift) = (at / 64, at % 64);
    dst[w] = dst[w] & !(mask << shift) | value << shift;
    if shift + n > 64 {
        let high = mask >> (64 - shift);
        dst[w + 1] = dst[w + 1] & !high | value >> (64 - shift);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_after_an_all_invalid_mask() {
        let mut v = Validity::all_invalid(3);
        v.append(3, &Validity::all_valid(), 2);
        assert!(!v.is_valid(2) && v.is_valid(3) && v.is_valid(4));
    }

    #[test]
    fn from_fn_matches_setting_row_by_row() {
        for len in [0, 1, 63, 64, 65, 128, 200] {
            for every in [1, 3, 64, 1000] {
                let invalid = |i: usize| i % every == every - 1;
                let mut slow = Validity::all_valid();
                for i in 0..len {
                    if invalid(i) {
                        slow.set_invalid(i, len);
                    }
                }
                let fast = Validity::from_fn(len, |i| !invalid(i));
                assert_eq!(fast.has_nulls(), slow.has_nulls(), "{len} {every}");
                for i in 0..len + 70 {
                    assert_eq!(fast.is_valid(i), slow.is_valid(i), "{len} {every} {i}");
                }
            }
        }
    }

    #[test]
    fn append_matches_setting_row_by_row() {
        for first in [0, 1, 5, 63, 64, 65, 130] {
            for second in [1, 2, 63, 64, 65, 200] {
                for (a_every, b_every) in [(3, 5), (0, 7), (4, 0), (1, 1)] {
                    let mask = |len: usize, every: usize| {
                        Validity::from_fn(len, |i| every == 0 || i % every != 0)
                    };
                    let (a, b) = (mask(first, a_every), mask(second, b_every));
                    for start in [a.clone(), Validity::all_invalid(first)] {
                        let mut got = start.clone();
                        got.append(first, &b, second);
                        for i in 0..first + second {
                            let want = if i < first {
                                start.is_valid(i)
                            } else {
                                b.is_valid(i - first)
                            };
                            assert_eq!(got.is_valid(i), want, "{first} {second} {i}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn slice_matches_reading_row_by_row() {
        let len = 300;
        for every in [2, 7, 64, 299] {
            let v = Validity::from_fn(len, |i| i % every != 1);
            for offset in [0, 1, 63, 64, 65, 128, 200] {
                for n in [0, 1, 63, 64, 65, 100] {
                    let s = v.slice(offset, n);
                    for i in 0..n + 70 {
                        let want = i >= n || v.is_valid(offset + i);
                        assert_eq!(s.is_valid(i), want, "{every} {offset} {n} {i}");
                    }
                    let nulls = (0..n).any(|i| !v.is_valid(offset + i));
                    assert_eq!(s.has_nulls(), nulls, "{every} {offset} {n}");
                }
            }
        }
    }

    #[test]
    fn from_rows_marks_only_those_rows() {
        let v = Validity::from_rows(130, &[0, 64, 129]);
        let valid: Vec<usize> = (0..130).filter(|&i| v.is_valid(i)).collect();
        assert_eq!(valid, vec![0, 64, 129]);
        assert!(!Validity::from_rows(3, &[0, 1, 2]).has_nulls());
    }

    #[test]
    fn set_and_take() {
        let mut v = Validity::all_valid();
        v.set_invalid(70, 100);
        assert!(!v.is_valid(70));
        assert!(v.is_valid(69));
        assert_eq!(v.count_valid(100), 99);
        let t = v.take(&[70, 1]);
        assert!(!t.is_valid(0) && t.is_valid(1));
        let mut a = Validity::all_valid();
        a.append(3, &t, 2);
        assert!(!a.is_valid(3) && a.is_valid(4));
    }
}
