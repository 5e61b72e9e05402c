//! The engine's hash table: open addressing with linear probing over one array of
//! 16-byte slots. A slot packs a 12-bit tag (11 bits of the hash and a bit always set,
//! so no used slot reads as empty), a 4-bit length marker and a
//! 48-bit entry id, plus the key itself when it is at most 8 bytes long (one
//! fixed-width column), so such probes touch a single cache line. Every key is also
//! kept in one contiguous byte arena, where longer keys are compared. A key of at most
//! 8 bytes hashes as one integer word ([`hash_word`]), so callers holding keys as words
//! (`row_key::Keys::Words`) skip the bytes. Aggregation uses entry ids as group ids
//! (entries a `DenseIndex` finds itself are added unindexed); joins keep each entry's
//! build rows beside the table.

use std::hash::BuildHasher;

const EMPTY: u64 = 0;
const ID_BITS: u32 = 48;
const ID_MASK: u64 = (1 << ID_BITS) - 1;
/// Keys up to this long live in the slot.
const INLINE: usize = 8;

/// Byte-string equality tuned for short keys: two overlapping word loads instead of
/// a call to memcmp.
#[inline]
fn key_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes"));
    if (8..=16).contains(&n) {
        word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8)
    } else {
        a == b
    }
}

/// The hash of an encoded key. A key of at most 8 bytes hashes as its inline word,
/// so callers holding such keys as words ([`hash_word`]) get the same hash.
#[inline]
pub fn hash_key(key: &[u8]) -> u64 {
    if key.len() <= INLINE {
        hash_word(inline_word(key))
    } else {
        foldhash::quality::FixedState::with_seed(0x5712_1de0).hash_one(key)
    }
}

/// The hash of a key of at most 8 bytes given as its inline word.
#[inline]
pub fn hash_word(word: u64) -> u64 {
    foldhash::quality::FixedState::with_seed(0x5712_1de0).hash_one(word)
}

/// A short key as an integer (zero-padded; the length travels in the slot's marker).
#[inline]
pub fn inline_word(key: &[u8]) -> u64 {
    if let Ok(b) = <[u8; 8]>::try_from(key) {
        return u64::from_le_bytes(b);
    }
    // Byte by byte rather than a copy of variable length, which becomes a memcpy call.
    key.iter()
        .enumerate()
        .fold(0, |w, (i, &b)| w | (b as u64) << (8 * i))
}

/// Starts loading `items[i]` into the cache (no effect when `i` is out of range or
/// the CPU has no prefetch instruction).
#[inline]
pub fn prefetch<T>(items: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let p = items.as_ptr().wrapping_add(i);
        // SAFETY: prefetching has no architectural effect, whatever the address.
        unsafe { std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (items, i);
}

#[derive(Clone, Copy)]
struct Slot {
    /// tag (12 bits) | length marker (4 bits: 0 = long key, n + 1 = inline of n bytes) | id (48 bits)
    head: u64,
    inline: u64,
}

const EMPTY_SLOT: Slot = Slot {
    head: EMPTY,
    inline: 0,
};

pub struct KeyTable {
    slots: Vec<Slot>,
    mask: usize,
    arena: Vec<u8>,
    /// Entry i's key is `arena[offsets[i]..offsets[i+1]]`.
    offsets: Vec<usize>,
    hashes: Vec<u64>,
    /// Entries the slots point to (all but those added by [`KeyTable::push_unindexed`]).
    indexed: usize,
}

impl Default for KeyTable {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl KeyTable {
    pub fn with_capacity(entries: usize) -> Self {
        Self::with_capacity_bytes(entries, 0)
    }

    /// A table for `entries` keys of `key_bytes` bytes in all, that neither grows nor
    /// copies its keys on the way there.
    pub fn with_capacity_bytes(entries: usize, key_bytes: usize) -> Self {
        let cap = (entries * 2).next_power_of_two().max(64);
        let mut offsets = Vec::with_capacity(entries + 1);
        offsets.push(0);
        KeyTable {
            slots: vec![EMPTY_SLOT; cap],
            mask: cap - 1,
            arena: Vec::with_capacity(key_bytes),
            offsets,
            hashes: Vec::with_capacity(entries),
            indexed: 0,
        }
    }

    /// Bytes of entry `id`'s key.
    pub fn key_len(&self, id: usize) -> usize {
        self.offsets[id + 1] - self.offsets[id]
    }

    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// Bytes the table holds.
    pub fn bytes(&self) -> usize {
        self.bytes_ahead(0, 0)
    }

    /// Entries the slots point to: all but those a caller's own index finds
    /// ([`KeyTable::push_unindexed`]).
    pub fn indexed(&self) -> usize {
        self.indexed
    }

    /// Bytes of all keys.
    pub fn key_bytes(&self) -> usize {
        self.arena.len()
    }

    /// The most bytes the table holds while `more` keys of at most `key_bytes` bytes
    /// in all are added: the arrays that must grow for them at their new capacity,
    /// with the old one alive while its entries move over. A caller reserves this
    /// before adding, so that growing never takes memory not yet reserved.
    pub fn bytes_ahead(&self, more: usize, key_bytes: usize) -> usize {
        fn grown(cap: usize, need: usize, unit: usize) -> usize {
            if need <= cap {
                cap * unit
            } else {
                (cap + need.max(2 * cap)) * unit
            }
        }
        let mut slots = self.slots.len();
        while (self.indexed + more) * 2 > slots {
            slots *= 2;
        }
        if slots > self.slots.len() {
            // The last array replaced, half the size, lives while its slots move.
            slots += slots / 2;
        }
        slots * std::mem::size_of::<Slot>()
            + grown(self.arena.capacity(), self.arena.len() + key_bytes, 1)
            + grown(self.offsets.capacity(), self.offsets.len() + more, 8)
            + grown(self.hashes.capacity(), self.hashes.len() + more, 8)
    }

    /// About the bytes a table made [`KeyTable::with_capacity`]`(entries)` holds once
    /// it has `entries` keys of `key_bytes` bytes in all.
    pub fn bytes_for(entries: usize, key_bytes: usize) -> usize {
        let slots = (entries * 2).next_power_of_two().max(64);
        slots * std::mem::size_of::<Slot>() + key_bytes + (2 * entries + 1) * 8
    }

    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    #[inline]
    pub fn key(&self, id: usize) -> &[u8] {
        &self.arena[self.offsets[id]..self.offsets[id + 1]]
    }

    pub fn hash(&self, id: usize) -> u64 {
        self.hashes[id]
    }

    /// The slot head bits (all but the id) that a key with this hash must carry.
    #[inline]
    fn head_of(len: usize, hash: u64) -> u64 {
        // 11 bits of the hash and a bit always set: never zero, so that a used slot
        // is never EMPTY, even for entry 0 of a long key; with the marker it fills
        // the 16 bits above the id.
        let tag = (hash >> 53) | 1 << 11;
        let marker = if len <= INLINE { len as u64 + 1 } else { 0 };
        ((tag << 4) | marker) << ID_BITS
    }

    /// The entry id in slot `s` when it holds the long (> 8 bytes) `key`.
    #[inline]
    fn matches(&self, s: Slot, head: u64, key: &[u8]) -> Option<usize> {
        if s.head & !ID_MASK != head {
            return None;
        }
        let id = (s.head & ID_MASK) as usize;
        key_eq(self.key(id), key).then_some(id)
    }

    /// Starts loading the slot a key with this hash probes first, so that a batch of
    /// probes overlaps its cache misses instead of taking them one after another.
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        prefetch(&self.slots, hash as usize & self.mask);
    }

    /// The entry id of `key`, if present.
    #[inline]
    pub fn find(&self, key: &[u8], hash: u64) -> Option<usize> {
        if key.len() <= INLINE {
            return self.find_inline(inline_word(key), key.len(), hash);
        }
        let head = Self::head_of(key.len(), hash);
        let mut pos = hash as usize & self.mask;
        loop {
            let s = self.slots[pos];
            if s.head == EMPTY {
                return None;
            }
            if let Some(id) = self.matches(s, head, key) {
                return Some(id);
            }
            pos = (pos + 1) & self.mask;
        }
    }

    /// [`KeyTable::find`] for a key of `len` ≤ 8 bytes given as its inline word.
    #[inline]
    pub fn find_inline(&self, word: u64, len: usize, hash: u64) -> Option<usize> {
        let head = Self::head_of(len, hash);
        let mut pos = hash as usize & self.mask;
        loop {
            let s = self.slots[pos];
            if s.head == EMPTY {
                return None;
            }
            if s.head & !ID_MASK == head && s.inline == word {
                return Some((s.head & ID_MASK) as usize);
            }
            pos = (pos + 1) & self.mask;
        }
    }

    /// The entry id of `key`, inserting it when absent; the flag says it was new.
    #[inline]
    pub fn find_or_insert(&mut self, key: &[u8], hash: u64) -> (usize, bool) {
        if key.len() <= INLINE {
            return self.find_or_insert_inline(inline_word(key), key.len(), hash);
        }
        if (self.indexed + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let head = Self::head_of(key.len(), hash);
        let mut pos = hash as usize & self.mask;
        loop {
            let s = self.slots[pos];
            if s.head == EMPTY {
                let id = self.push_entry(key, hash);
                self.indexed += 1;
                self.slots[pos] = Slot {
                    head: head | id as u64,
                    inline: 0,
                };
                return (id, true);
            }
            if let Some(id) = self.matches(s, head, key) {
                return (id, false);
            }
            pos = (pos + 1) & self.mask;
        }
    }

    /// [`KeyTable::find_or_insert`] for a key of `len` ≤ 8 bytes given as its inline
    /// word.
    #[inline]
    pub fn find_or_insert_inline(&mut self, word: u64, len: usize, hash: u64) -> (usize, bool) {
        if (self.indexed + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let head = Self::head_of(len, hash);
        let mut pos = hash as usize & self.mask;
        loop {
            let s = self.slots[pos];
            if s.head == EMPTY {
                let id = self.push_entry(&word.to_le_bytes()[..len], hash);
                self.indexed += 1;
                self.slots[pos] = Slot {
                    head: head | id as u64,
                    inline: word,
                };
                return (id, true);
            }
            if s.head & !ID_MASK == head && s.inline == word {
                return ((s.head & ID_MASK) as usize, false);
            }
            pos = (pos + 1) & self.mask;
        }
    }

    /// Adds an entry (a key known to be absent) that lookups will not find: for a
    /// caller that keeps its own index of these keys and never looks them up here.
    pub fn push_unindexed(&mut self, key: &[u8], hash: u64) -> usize {
        self.push_entry(key, hash)
    }

    /// The entries `order` (ids), numbered from 0 in that order, in a table that
    /// finds none of them (no slots point to them): for a caller that reads entries
    /// only by id from then on.
    pub fn reordered(&self, order: &[u32]) -> KeyTable {
        let bytes = order.iter().map(|&i| self.key_len(i as usize)).sum();
        let mut t = KeyTable::with_capacity_bytes(0, bytes);
        t.offsets.reserve(order.len());
        t.hashes.reserve(order.len());
        for &i in order {
            t.push_entry(self.key(i as usize), self.hashes[i as usize]);
        }
        t
    }

    fn push_entry(&mut self, key: &[u8], hash: u64) -> usize {
        let id = self.len();
        self.arena.extend_from_slice(key);
        self.offsets.push(self.arena.len());
        self.hashes.push(hash);
        id
    }

    fn grow(&mut self) {
        let cap = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![EMPTY_SLOT; cap]);
        self.mask = cap - 1;
        for s in old.into_iter().filter(|s| s.head != EMPTY) {
            let mut pos = self.hashes[(s.head & ID_MASK) as usize] as usize & self.mask;
            while self.slots[pos].head != EMPTY {
                pos = (pos + 1) & self.mask;
            }
            self.slots[pos] = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_find_grow() {
        let mut t = KeyTable::default();
        for i in 0u32..10_000 {
            let k = i.to_le_bytes();
            let (id, new) = t.find_or_insert(&k, hash_key(&k));
            assert!(new);
            assert_eq!(id, i as usize);
        }
        for i in 0u32..10_000 {
            let k = i.to_le_bytes();
            assert_eq!(t.find(&k, hash_key(&k)), Some(i as usize));
            assert_eq!(t.find_or_insert(&k, hash_key(&k)), (i as usize, false));
        }
        let k = 20_000u32.to_le_bytes();
        assert_eq!(t.find(&k, hash_key(&k)), None);
    }

    /// Every hash marks its slot as used: a long key whose hash has its top bits
    /// clear, inserted first (entry 0), was left in a slot that read as empty, so
    /// it was inserted again (DISTINCT gave it twice) and never found (a join lost
    /// its matches). It took one key in 4,096.
    #[test]
    fn keys_of_every_hash_are_found_again() {
        for hash in [0, 1, 0x000f_ffff_ffff_ffff, 0x0010_0000_0000_0000, u64::MAX] {
            for len in [1, 8, 9, 24] {
                let key = vec![7u8; len];
                let mut t = KeyTable::default();
                assert_eq!(t.find(&key, hash), None);
                assert_eq!(t.find_or_insert(&key, hash), (0, true), "{hash:x} {len}");
                assert_eq!(t.find_or_insert(&key, hash), (0, false), "{hash:x} {len}");
                assert_eq!(t.find(&key, hash), Some(0), "{hash:x} {len}");
            }
        }
    }

    #[test]
    fn bytes_ahead_covers_the_growth_of_the_next_keys() {
        // Keys of 4 and of 12 bytes, 1,000 at a time: what a chunk grows the table to
        // was announced before it, including the slots it leaves behind when it grows.
        let mut t = KeyTable::default();
        let mut next = 0u32;
        for round in 0..300 {
            let ahead = t.bytes_ahead(1000, 1000 * 12);
            let slots = t.slots.len();
            for _ in 0..1000 {
                let k = [next.to_le_bytes().as_slice(), &[7; 8]].concat();
                let k = if round % 2 == 0 { &k[..4] } else { &k[..] };
                t.find_or_insert(k, hash_key(k));
                next += 1;
            }
            let transient = if t.slots.len() > slots {
                t.slots.len() / 2 * 16
            } else {
                0
            };
            assert!(t.bytes() + transient <= ahead, "round {round}");
        }
        assert_eq!(t.bytes(), t.bytes_ahead(0, 0));
    }
}
