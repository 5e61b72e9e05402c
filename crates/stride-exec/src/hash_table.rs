//! The engine's hash table: open addressing with linear probing over one array of
//! 8-byte slots. A slot packs a 16-bit tag of the hash (to skip most key comparisons)
//! with a 48-bit entry id; keys live in one contiguous byte arena. Aggregation uses
//! entry ids as group ids; joins chain build rows per entry.

use std::hash::BuildHasher;

const EMPTY: u64 = 0;
const ID_BITS: u32 = 48;
const ID_MASK: u64 = (1 << ID_BITS) - 1;

#[inline]
pub fn hash_key(key: &[u8]) -> u64 {
    foldhash::quality::FixedState::with_seed(0x5712_1de0).hash_one(key)
}

pub struct KeyTable {
    slots: Vec<u64>,
    mask: usize,
    arena: Vec<u8>,
    /// Entry i's key is `arena[offsets[i]..offsets[i+1]]`.
    offsets: Vec<usize>,
    hashes: Vec<u64>,
}

impl Default for KeyTable {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl KeyTable {
    pub fn with_capacity(entries: usize) -> Self {
        let cap = (entries * 2).next_power_of_two().max(64);
        KeyTable {
            slots: vec![EMPTY; cap],
            mask: cap - 1,
            arena: Vec::new(),
            offsets: vec![0],
            hashes: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.hashes.len()
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

    #[inline]
    fn tag(hash: u64) -> u64 {
        (hash >> ID_BITS) | 1
    }

    /// The entry id of `key`, if present.
    #[inline]
    pub fn find(&self, key: &[u8], hash: u64) -> Option<usize> {
        let tag = Self::tag(hash) << ID_BITS;
        let mut pos = hash as usize & self.mask;
        loop {
            let s = self.slots[pos];
            if s == EMPTY {
                return None;
            }
            if s & !ID_MASK == tag {
                let id = (s & ID_MASK) as usize;
                if self.key(id) == key {
                    return Some(id);
                }
            }
            pos = (pos + 1) & self.mask;
        }
    }

    /// The entry id of `key`, inserting it when absent; the flag says it was new.
    #[inline]
    pub fn find_or_insert(&mut self, key: &[u8], hash: u64) -> (usize, bool) {
        if (self.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let tag = Self::tag(hash) << ID_BITS;
        let mut pos = hash as usize & self.mask;
        loop {
            let s = self.slots[pos];
            if s == EMPTY {
                let id = self.len();
                self.arena.extend_from_slice(key);
                self.offsets.push(self.arena.len());
                self.hashes.push(hash);
                self.slots[pos] = tag | id as u64;
                return (id, true);
            }
            if s & !ID_MASK == tag {
                let id = (s & ID_MASK) as usize;
                if self.key(id) == key {
                    return (id, false);
                }
            }
            pos = (pos + 1) & self.mask;
        }
    }

    fn grow(&mut self) {
        let cap = self.slots.len() * 2;
        self.slots = vec![EMPTY; cap];
        self.mask = cap - 1;
        for (id, &h) in self.hashes.iter().enumerate() {
            let mut pos = h as usize & self.mask;
            while self.slots[pos] != EMPTY {
                pos = (pos + 1) & self.mask;
            }
            self.slots[pos] = (Self::tag(h) << ID_BITS) | id as u64;
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
}
