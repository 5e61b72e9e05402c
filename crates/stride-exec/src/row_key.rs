//! Row keys: the values of several columns of one row encoded as one byte string, so
//! hash tables hash and compare keys of any types with one code path. Two rows have
//! equal keys exactly when their values are equal with NULLs treated as equal (the
//! GROUP BY / DISTINCT rule); joins skip NULL keys ([`non_null_rows`]) before
//! encoding.
//!
//! Layout per column: a byte 0 (NULL) or 1 (value) followed, for values, by the
//! fixed-width little-endian value (an INTERVAL as the canonical interval of its
//! length, [`canonical_interval`], since `=` compares lengths). A string's first byte is 0 (NULL), 1 + its length
//! for strings shorter than `SHORT_STRING` bytes, or `LONG_STRING` followed by a
//! u32 length; then its bytes. A key of a single fixed-width column drops the marker
//! byte (a NULL is the empty key), so one BIGINT makes an 8-byte key that hash tables
//! keep inline. Keys of at most 8 bytes in every row of a chunk (two one-letter flags,
//! a short code) travel as words too.

use crate::hash_table::{hash_key, hash_word};
use stride_common::vector::NativeType;
use stride_common::{
    with_native, DataType, Interval, PhysicalType, Result, Validity, Vector, VectorData,
};

/// Encoded keys of a chunk: row i is `data[offsets[i]..offsets[i+1]]`.
#[derive(Default)]
pub struct KeyBuffer {
    pub data: Vec<u8>,
    pub offsets: Vec<u32>,
}

impl KeyBuffer {
    #[inline]
    pub fn key(&self, i: usize) -> &[u8] {
        &self.data[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Encoded keys of a chunk in the cheapest form that fits: a single fixed-width column
/// of at most 8 bytes keeps each key as one integer (the key's bytes, zero-padded),
/// which hash tables hash and compare without touching bytes; anything else is bytes.
pub enum Keys {
    /// `lens[i]` is the key's byte length: the column's width, or 0 for NULL.
    Words {
        words: Vec<u64>,
        lens: Vec<u8>,
    },
    Bytes(KeyBuffer),
}

impl Keys {
    pub fn len(&self) -> usize {
        match self {
            Keys::Words { words, .. } => words.len(),
            Keys::Bytes(b) => b.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Key `i`'s hash, equal to [`hash_key`] of its bytes.
    pub fn hash(&self, i: usize) -> u64 {
        match self {
            Keys::Words { words, .. } => hash_word(words[i]),
            Keys::Bytes(b) => hash_key(b.key(i)),
        }
    }

    /// Every key's hash, equal to [`hash_key`] of its bytes.
    pub fn hashes(&self) -> Vec<u64> {
        match self {
            Keys::Words { words, .. } => words.iter().map(|&w| hash_word(w)).collect(),
            Keys::Bytes(b) => (0..b.len()).map(|i| hash_key(b.key(i))).collect(),
        }
    }
}

/// Rows whose key columns are all non-NULL (NULL keys never match in a join): the
/// first `len` rows, or those `rows` names.
pub fn non_null_rows(
    keys: &[impl std::ops::Deref<Target = Vector>],
    rows: Option<&[u32]>,
    len: usize,
) -> Vec<bool> {
    let mut valid = vec![true; len];
    for k in keys {
        if k.validity.has_nulls() || k.constant {
            for (i, v) in valid.iter_mut().enumerate() {
                *v &= k.is_valid(rows.map_or(i, |r| r[i] as usize));
            }
        }
    }
    valid
}

/// Strings shorter than this have their length in their marker byte.
const SHORT_STRING: usize = 250;
/// The marker of a longer string, whose u32 length follows.
const LONG_STRING: u8 = 255;

/// Encodes `len` rows of `cols` as [`Keys`].
pub fn encode_keys<V: std::borrow::Borrow<Vector>>(cols: &[V], len: usize) -> Result<Keys> {
    if let [c] = cols {
        let c = c.borrow();
        let words = with_native!(c.data.physical(), T => (<T as KeyBytes>::WIDTH <= 8)
            .then(|| encode_words::<T>(c, len)), _ => None);
        if let Some(w) = words {
            return Ok(w);
        }
    }
    let cols: Vec<&Vector> = cols.iter().map(|c| c.borrow()).collect();
    if let Some(words) = short_words(&cols, len) {
        return Ok(words);
    }
    encode(&cols, len).map(Keys::Bytes)
}

/// The keys as words when no row's key can be longer than 8 bytes: each word is the
/// key's bytes (as [`encode`] lays them out) zero-padded, as hash tables keep short
/// keys inline. Built column by column without laying out the bytes.
fn short_words(cols: &[&Vector], len: usize) -> Option<Keys> {
    let mut widest = 0;
    for c in cols {
        widest += 1 + match fixed_width(c.data.physical()) {
            Some(w) => w,
            None if matches!(c.data, VectorData::Str(_)) => {
                c.strings().views.iter().map(|v| v.len()).max().unwrap_or(0)
            }
            None => return None,
        };
        if widest > 8 {
            return None;
        }
    }
    let mut words = vec![0u64; len];
    let mut lens = vec![0u8; len];
    for c in cols {
        let mut put = |i: usize, part: Option<(u64, u8)>| {
            let (bits, n) = part.unwrap_or((0, 1));
            words[i] |= bits << (8 * lens[i] as u32);
            lens[i] += n;
        };
        match &c.data {
            // The common case on its own: no per-row NULL or constant checks.
            VectorData::Str(sv) if !c.constant && !c.validity.has_nulls() => {
                for ((w, n), v) in words.iter_mut().zip(&mut lens).zip(&sv.views[..len]) {
                    let bits = (1 + v.len() as u64) | (v.inline_head() << 8);
                    *w |= bits << (8 * *n as u32);
                    *n += 1 + v.len() as u8;
                }
            }
            VectorData::Str(sv) => {
                for i in 0..len {
                    let j = c.index(i);
                    put(
                        i,
                        c.validity.is_valid(j).then(|| {
                            let v = &sv.views[j];
                            (
                                (1 + v.len() as u64) | (v.inline_head() << 8),
                                1 + v.len() as u8,
                            )
                        }),
                    );
                }
            }
            d => with_native!(d.physical(), T => {
                let vals = T::slice(d);
                let w = <T as KeyBytes>::WIDTH as u8;
                for i in 0..len {
                    let j = c.index(i);
                    put(i, c.validity.is_valid(j).then(|| (1 | vals[j].word() << 8, 1 + w)));
                }
            }, _ => return None),
        }
    }
    Some(Keys::Words { words, lens })
}

fn encode_words<T: KeyBytes>(c: &Vector, len: usize) -> Keys {
    let vals = c.values::<T>();
    let mut words: Vec<u64> = if c.constant {
        vec![vals[0].word(); len]
    } else {
        vals[..len].iter().map(|v| v.word()).collect()
    };
    if !c.validity.has_nulls() {
        return Keys::Words {
            words,
            lens: vec![T::WIDTH as u8; len],
        };
    }
    let mut lens = vec![T::WIDTH as u8; len];
    for i in 0..len {
        if !c.is_valid(i) {
            words[i] = 0;
            lens[i] = 0;
        }
    }
    Keys::Words { words, lens }
}

trait KeyBytes: NativeType {
    const WIDTH: usize;
    fn write(self, out: &mut [u8]);
    fn read(b: &[u8]) -> Self;

    /// The key bytes of a value of at most 8 bytes as one zero-padded integer.
    #[inline]
    fn word(self) -> u64 {
        let mut b = [0u8; 8];
        self.write(&mut b[..Self::WIDTH]);
        u64::from_le_bytes(b)
    }
}

macro_rules! key_int {
    ($($t:ty),*) => {$(
        impl KeyBytes for $t {
            const WIDTH: usize = std::mem::size_of::<$t>();
            #[inline]
            fn write(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn read(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().expect("key width"))
            }
        }
    )*};
}
key_int!(i8, i16, i32, i64, i128);

impl KeyBytes for f32 {
    const WIDTH: usize = 4;
    fn write(self, out: &mut [u8]) {
        // -0.0 and 0.0 group together, as do all NaNs.
        let v = if self == 0.0 {
            0.0f32
        } else if self.is_nan() {
            f32::NAN
        } else {
            self
        };
        out.copy_from_slice(&v.to_le_bytes());
    }
    fn read(b: &[u8]) -> Self {
        f32::from_le_bytes(b.try_into().expect("key width"))
    }
}

impl KeyBytes for f64 {
    const WIDTH: usize = 8;
    fn write(self, out: &mut [u8]) {
        let v = if self == 0.0 {
            0.0f64
        } else if self.is_nan() {
            f64::NAN
        } else {
            self
        };
        out.copy_from_slice(&v.to_le_bytes());
    }
    fn read(b: &[u8]) -> Self {
        f64::from_le_bytes(b.try_into().expect("key width"))
    }
}

impl KeyBytes for bool {
    const WIDTH: usize = 1;
    fn write(self, out: &mut [u8]) {
        out[0] = self as u8;
    }
    fn read(b: &[u8]) -> Self {
        b[0] != 0
    }
}

/// The interval that every interval equal to `i` (30-day months, 24-hour days, as
/// `=` compares them) is keyed as: as many whole months as fit, then whole days, then
/// microseconds, each with the sign of the whole (months and days clamped to their
/// fields, which leaves the rest in the microseconds). '1 month', '30 days' and '720
/// hours' are one group, one join key, one DISTINCT value.
pub fn canonical_interval(i: Interval) -> Interval {
    const DAY: i128 = stride_common::interval::MICROS_PER_DAY as i128;
    const MONTH: i128 = 30 * DAY;
    let n = i.normalized_micros();
    let months = (n / MONTH).clamp(i32::MIN as i128, i32::MAX as i128);
    let rest = n - months * MONTH;
    let days = (rest / DAY).clamp(i32::MIN as i128, i32::MAX as i128);
    let micros = rest - days * DAY;
    Interval::new(months as i32, days as i32, micros as i64)
}

impl KeyBytes for Interval {
    const WIDTH: usize = 16;
    fn write(self, out: &mut [u8]) {
        let i = canonical_interval(self);
        out[..4].copy_from_slice(&i.months.to_le_bytes());
        out[4..8].copy_from_slice(&i.days.to_le_bytes());
        out[8..].copy_from_slice(&i.micros.to_le_bytes());
    }
    fn read(b: &[u8]) -> Self {
        Interval::new(
            i32::from_le_bytes(b[..4].try_into().expect("4")),
            i32::from_le_bytes(b[4..8].try_into().expect("4")),
            i64::from_le_bytes(b[8..].try_into().expect("8")),
        )
    }
}

fn fixed_width(p: PhysicalType) -> Option<usize> {
    with_native!(p, T => Some(<T as KeyBytes>::WIDTH), _ => None)
}

/// Encodes the keys of `len` rows of `cols` (flat or constant vectors).
pub fn encode<V: std::borrow::Borrow<Vector>>(cols: &[V], len: usize) -> Result<KeyBuffer> {
    let cols: Vec<&Vector> = cols.iter().map(|c| c.borrow()).collect();
    // LIST columns: each row's value encoded up front (nested_key.rs).
    let lists: Vec<Option<Vec<Vec<u8>>>> = cols
        .iter()
        .map(|c| {
            c.ty.is_nested().then(|| {
                (0..len)
                    .map(|i| {
                        let mut b = Vec::new();
                        if c.is_valid(i) {
                            crate::nested_key::write_equal(&c.get(i), &mut b);
                        }
                        b
                    })
                    .collect()
            })
        })
        .collect();
    if let [c] = cols.as_slice() {
        if fixed_width(c.data.physical()).is_some() {
            return Ok(
                with_native!(c.data.physical(), T => encode_single::<T>(c, len), _ => unreachable!()),
            );
        }
    }
    // Row sizes first, then one pass per column writing at each row's cursor.
    let mut sizes = vec![0u32; len];
    for (&c, list) in cols.iter().zip(&lists) {
        if let Some(list) = list {
            for (s, b) in sizes.iter_mut().zip(list) {
                *s += 1 + if b.is_empty() { 0 } else { 4 + b.len() as u32 };
            }
            continue;
        }
        match fixed_width(c.data.physical()) {
            Some(w) => {
                for (i, s) in sizes.iter_mut().enumerate() {
                    *s += 1 + if c.is_valid(i) { w as u32 } else { 0 };
                }
            }
            None => {
                let sv = c.strings();
                for (i, s) in sizes.iter_mut().enumerate() {
                    *s += 1 + if c.is_valid(i) {
                        let l = sv.views[c.index(i)].len();
                        l as u32 + if l < SHORT_STRING { 0 } else { 4 }
                    } else {
                        0
                    };
                }
            }
        }
    }
    let mut offsets = Vec::with_capacity(len + 1);
    offsets.push(0u32);
    let mut total = 0u32;
    for s in &sizes {
        total += s;
        offsets.push(total);
    }
    let mut data = vec![0u8; total as usize];
    let mut cursor: Vec<u32> = offsets[..len].to_vec();
    for (&c, list) in cols.iter().zip(&lists) {
        if let Some(list) = list {
            for (cur, b) in cursor.iter_mut().zip(list) {
                let at = *cur as usize;
                if b.is_empty() {
                    data[at] = 0;
                    *cur += 1;
                } else {
                    data[at] = 1;
                    data[at + 1..at + 5].copy_from_slice(&(b.len() as u32).to_le_bytes());
                    data[at + 5..at + 5 + b.len()].copy_from_slice(b);
                    *cur += 5 + b.len() as u32;
                }
            }
            continue;
        }
        with_native!(c.data.physical(), T => write_fixed::<T>(c, len, &mut data, &mut cursor), _ => {
            let sv = c.strings();
            for (i, cur) in cursor.iter_mut().enumerate() {
                let at = *cur as usize;
                if c.is_valid(i) {
                    let b = sv.bytes_of(&sv.views[c.index(i)]);
                    let mut at = at + 1;
                    if b.len() < SHORT_STRING {
                        data[at - 1] = 1 + b.len() as u8;
                    } else {
                        data[at - 1] = LONG_STRING;
                        data[at..at + 4].copy_from_slice(&(b.len() as u32).to_le_bytes());
                        at += 4;
                    }
                    data[at..at + b.len()].copy_from_slice(b);
                    *cur = (at + b.len()) as u32;
                } else {
                    *cur += 1;
                }
            }
        });
    }
    Ok(KeyBuffer { data, offsets })
}

/// One fixed-width column: the value bytes alone, the empty key for NULL.
fn encode_single<T: KeyBytes>(c: &Vector, len: usize) -> KeyBuffer {
    let vals = c.values::<T>();
    let w = T::WIDTH;
    let mut data = vec![0u8; len * w];
    let mut offsets = Vec::with_capacity(len + 1);
    offsets.push(0u32);
    let mut at = 0usize;
    for i in 0..len {
        let j = c.index(i);
        if c.validity.is_valid(j) {
            vals[j].write(&mut data[at..at + w]);
            at += w;
        }
        offsets.push(at as u32);
    }
    data.truncate(at);
    KeyBuffer { data, offsets }
}

fn write_fixed<T: KeyBytes>(c: &Vector, len: usize, data: &mut [u8], cursor: &mut [u32]) {
    let vals = c.values::<T>();
    let w = T::WIDTH;
    for (i, cur) in cursor.iter_mut().enumerate().take(len) {
        let at = *cur as usize;
        let j = c.index(i);
        if c.validity.is_valid(j) {
            data[at] = 1;
            vals[j].write(&mut data[at + 1..at + 1 + w]);
            *cur += 1 + w as u32;
        } else {
            *cur += 1;
        }
    }
}

/// Decodes keys back into one vector per column.
pub fn decode<'a>(
    types: &[DataType],
    keys: impl ExactSizeIterator<Item = &'a [u8]>,
) -> Vec<Vector> {
    let n = keys.len();
    if let [t] = types {
        if fixed_width(t.physical()).is_some() {
            return vec![
                with_native!(t.physical(), T => decode_single::<T>(t, keys, n), _ => unreachable!()),
            ];
        }
    }
    let mut cols: Vec<Vector> = types.iter().map(|t| Vector::with_capacity(t, n)).collect();
    let mut validities: Vec<Validity> = types.iter().map(|_| Validity::all_valid()).collect();
    for (row, key) in keys.enumerate() {
        let mut at = 0;
        for (ci, col) in cols.iter_mut().enumerate() {
            let marker = key[at];
            let valid = marker != 0;
            at += 1;
            if !valid {
                validities[ci].set_invalid(row, n);
            }
            if col.ty.is_nested() {
                if valid {
                    let l = u32::from_le_bytes(key[at..at + 4].try_into().expect("4")) as usize;
                    at += 4;
                    let ty = col.ty.clone();
                    let v = crate::nested_key::read_equal(&key[at..at + l], &ty);
                    at += l;
                    if col.push(&v).is_err() {
                        col.push_null();
                    }
                } else {
                    col.push_null();
                }
                continue;
            }
            match &mut col.data {
                VectorData::Str(sv) => {
                    if valid {
                        let l = if marker == LONG_STRING {
                            at += 4;
                            u32::from_le_bytes(key[at - 4..at].try_into().expect("4")) as usize
                        } else {
                            marker as usize - 1
                        };
                        // The key's bytes are the column's own: UTF-8 unless a BLOB.
                        sv.push_blob(&key[at..at + l]);
                        at += l;
                    } else {
                        sv.push("");
                    }
                }
                d => with_native!(d.physical(), T => {
                    let v = T::vec_mut(d);
                    if valid {
                        v.push(<T as KeyBytes>::read(&key[at..at + <T as KeyBytes>::WIDTH]));
                        at += <T as KeyBytes>::WIDTH;
                    } else {
                        v.push(T::default());
                    }
                }, _ => unreachable!("lists are decoded above")),
            }
        }
    }
    for (c, v) in cols.iter_mut().zip(validities) {
        c.validity = v;
    }
    cols
}

fn decode_single<'a, T: KeyBytes>(
    ty: &DataType,
    keys: impl Iterator<Item = &'a [u8]>,
    n: usize,
) -> Vector {
    let mut vals = Vec::with_capacity(n);
    let mut validity = Validity::all_valid();
    for (row, key) in keys.enumerate() {
        if key.is_empty() {
            validity.set_invalid(row, n);
            vals.push(T::default());
        } else {
            vals.push(T::read(key));
        }
    }
    Vector::new(ty.clone(), T::wrap(vals), validity)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash_table::inline_word;
    use std::collections::HashSet;
    use stride_common::ScalarValue;

    #[test]
    fn single_column_roundtrip() {
        let mut a = Vector::empty(&DataType::BigInt);
        for x in [Some(5i64), None, Some(-1)] {
            a.push(&x.map_or(ScalarValue::Null, ScalarValue::BigInt))
                .unwrap();
        }
        let k = encode(&[&a], 3).unwrap();
        assert_eq!(k.key(0).len(), 8);
        assert!(k.key(1).is_empty());
        let cols = decode(&[DataType::BigInt], (0..3).map(|i| k.key(i)));
        for i in 0..3 {
            assert_eq!(cols[0].get(i), a.get(i));
        }
    }

    #[test]
    fn roundtrip() {
        let mut a = Vector::empty(&DataType::Integer);
        let mut b = Vector::empty(&DataType::Varchar);
        for (x, y) in [
            (Some(1), Some("x")),
            (None, Some("a longer string!")),
            (Some(3), None),
        ] {
            a.push(&x.map_or(ScalarValue::Null, ScalarValue::Integer))
                .unwrap();
            b.push(&y.map_or(ScalarValue::Null, |s| ScalarValue::Varchar(s.into())))
                .unwrap();
        }
        let k = encode(&[&a, &b], 3).unwrap();
        assert_ne!(k.key(0), k.key(1));
        let cols = decode(
            &[DataType::Integer, DataType::Varchar],
            (0..3).map(|i| k.key(i)),
        );
        for i in 0..3 {
            assert_eq!(cols[0].get(i), a.get(i));
            assert_eq!(cols[1].get(i), b.get(i));
        }
    }

    /// The canonical interval keeps the length, at the extremes of every field too.
    #[test]
    fn canonical_intervals_keep_their_length() {
        let day = stride_common::interval::MICROS_PER_DAY;
        for i in [
            Interval::new(1, 0, 0),
            Interval::new(0, 30, 0),
            Interval::new(0, 0, 30 * day),
            Interval::new(1, -29, -1),
            Interval::new(0, -1, 0),
            Interval::new(i32::MAX, i32::MAX, i64::MAX),
            Interval::new(i32::MIN, i32::MIN, i64::MIN),
            Interval::new(i32::MIN, i32::MAX, i64::MIN),
        ] {
            let c = canonical_interval(i);
            assert_eq!(
                c.normalized_micros(),
                i.normalized_micros(),
                "{i:?} -> {c:?}"
            );
            assert_eq!(canonical_interval(c), c);
        }
        assert_eq!(
            canonical_interval(Interval::new(0, 0, 30 * day)),
            Interval::new(1, 0, 0)
        );
        assert_eq!(
            canonical_interval(Interval::new(0, -1, 0)),
            Interval::new(0, -1, 0)
        );
    }

    #[test]
    fn strings_of_every_length_class_roundtrip_and_stay_distinct() {
        let values: Vec<Option<String>> = vec![
            None,
            Some(String::new()),
            Some("\0".into()),
            Some("A".into()),
            Some("AF".into()),
            Some("x".repeat(SHORT_STRING - 1)),
            Some("x".repeat(SHORT_STRING)),
            Some("é".repeat(400)),
        ];
        let mut a = Vector::empty(&DataType::Varchar);
        let mut b = Vector::empty(&DataType::Varchar);
        for (i, v) in values.iter().enumerate() {
            let s = |v: &Option<String>| v.clone().map_or(ScalarValue::Null, ScalarValue::Varchar);
            a.push(&s(v)).unwrap();
            b.push(&s(&values[(i + 1) % values.len()])).unwrap();
        }
        let n = values.len();
        let k = encode(&[&a, &b], n).unwrap();
        let keys: HashSet<&[u8]> = (0..n).map(|i| k.key(i)).collect();
        assert_eq!(keys.len(), n);
        let cols = decode(
            &[DataType::Varchar, DataType::Varchar],
            (0..n).map(|i| k.key(i)),
        );
        for i in 0..n {
            assert_eq!(cols[0].get(i), a.get(i));
            assert_eq!(cols[1].get(i), b.get(i));
        }
        // Two one-letter flags make a 4-byte key: words, equal to the bytes' inline word.
        let flags = |x: &str| {
            let mut v = Vector::empty(&DataType::Varchar);
            v.push(&ScalarValue::Varchar(x.into())).unwrap();
            v
        };
        let (r, l) = (flags("R"), flags("F"));
        let Keys::Words { words, lens } = encode_keys(&[&r, &l], 1).unwrap() else {
            panic!("short keys are words");
        };
        let bytes = encode(&[&r, &l], 1).unwrap();
        assert_eq!((lens[0] as usize, words[0]), (4, inline_word(bytes.key(0))));
        // With NULLs and a fixed-width column: still exactly the bytes' words.
        let mut n = Vector::empty(&DataType::SmallInt);
        let mut t = Vector::empty(&DataType::Varchar);
        for (x, y) in [
            (Some(7), Some("ab")),
            (None, Some("")),
            (Some(-1), None),
            (None, None),
        ] {
            n.push(&x.map_or(ScalarValue::Null, ScalarValue::SmallInt))
                .unwrap();
            t.push(&y.map_or(ScalarValue::Null, |s| ScalarValue::Varchar(s.into())))
                .unwrap();
        }
        let Keys::Words { words, lens } = encode_keys(&[&n, &t], 4).unwrap() else {
            panic!("short keys are words");
        };
        let bytes = encode(&[&n, &t], 4).unwrap();
        for i in 0..4 {
            assert_eq!(
                (lens[i] as usize, words[i]),
                (bytes.key(i).len(), inline_word(bytes.key(i)))
            );
        }
    }
}
