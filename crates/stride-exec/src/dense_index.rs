//! Group ids of keys from a narrow range, by direct lookup. When the keys of the first
//! chunk a worker aggregates come as [`Keys::Words`] (one fixed-width column, or keys
//! of at most 8 bytes such as short strings) and span fewer than about four million
//! values, the worker keeps an array indexed by `key - base` in
//! front of its hash table, grown on demand for keys up to 8 million past the base
//! (sorted keys such as `l_orderkey` climb steadily): a key seen before finds its group with one subtraction and
//! one load, no hashing and no probing. The hash table still owns every group (its
//! id, key and hash, which the merge needs), but the slots never index keys in the
//! range: those are found only here. Keys outside the range, and NULL, are looked up
//! in the hash table as usual. A key is always in or always out of the fixed range, so
//! no key gets two groups, provided every key of at most 8 bytes is looked up here
//! first, also when a later chunk's keys come as bytes (a string column with a longer
//! value in that chunk).
//!
//! [`Keys::Words`]: crate::row_key::Keys::Words

use crate::hash_table::{hash_word, KeyTable};

/// The widest range of keys an index covers (32 MiB of ids at most; the array grows
/// as keys arrive, and pages never written are never touched).
const MAX_SPAN: u64 = 1 << 23;

/// The widest range of keys of the first chunk that sets up an index: beyond it the
/// keys look spread out rather than dense. 2,048 keys drawn from 1.5M customer keys
/// span nearly all of them (TPC-H Q13 at SF 10, grouped by `c_custkey` in the
/// orders' order: 1.04-1.22 s with the hash table, 0.81-0.93 s with an index).
const FIRST_SPAN: u64 = 1 << 22;

pub struct DenseIndex {
    base: u64,
    /// `ids[key - base]` is the group id plus one, or 0 when not seen yet (so the
    /// array starts as zeroed memory the system hands out lazily).
    ids: Vec<u32>,
}

impl DenseIndex {
    /// Bytes of the lookup array.
    pub fn bytes(&self) -> usize {
        self.ids.capacity() * std::mem::size_of::<u32>()
    }

    /// An index for keys like these, or `None` when they are too spread out.
    pub fn fit(words: &[u64], lens: &[u8]) -> Option<DenseIndex> {
        let mut valid = words
            .iter()
            .zip(lens)
            .filter(|(_, &l)| l != 0)
            .map(|(&w, _)| w);
        let first = valid.next()?;
        let (lo, hi) = valid.fold((first, first), |(lo, hi), w| (lo.min(w), hi.max(w)));
        if hi - lo >= FIRST_SPAN || lo.checked_add(MAX_SPAN).is_none() {
            // Spread out, or so close to the top of the word range (negative
            // numbers) that the array's range would wrap.
            return None;
        }
        let span = hi - lo + 1;
        // Room for later keys somewhat beyond the first chunk's; more comes on demand.
        let size = (span * 4).clamp(1024, MAX_SPAN);
        Some(DenseIndex {
            base: lo,
            ids: vec![0; size as usize],
        })
    }

    /// The group id of every key, inserting new groups into `table`.
    pub fn group_ids(&mut self, table: &mut KeyTable, words: &[u64], lens: &[u8]) -> Vec<u32> {
        self.group_ids_of(table, words.iter().copied().zip(lens.iter().copied()))
    }

    /// [`DenseIndex::group_ids`] for keys given as (word, length) pairs, so callers
    /// can read them straight from a column.
    #[inline]
    pub fn group_ids_of(
        &mut self,
        table: &mut KeyTable,
        keys: impl ExactSizeIterator<Item = (u64, u8)>,
    ) -> Vec<u32> {
        keys.map(|(w, l)| self.group_id(table, w, l)).collect()
    }

    /// The group id of one key (`w`: its bytes as a word, `l`: its length, 0 for
    /// the empty key), inserting a new group into `table`.
    #[inline]
    pub fn group_id(&mut self, table: &mut KeyTable, w: u64, l: u8) -> u32 {
        let slot = w.wrapping_sub(self.base) as usize;
        if l != 0 {
            match self.ids.get(slot) {
                Some(&known) if known != 0 => return known - 1,
                Some(_) => {}
                None if (slot as u64) < MAX_SPAN => self.grow(slot),
                None => {}
            }
            if let Some(known) = self.ids.get_mut(slot) {
                // A new key in the range: a group only this index finds.
                let id = table.push_unindexed(&w.to_le_bytes()[..l as usize], hash_word(w));
                *known = id as u32 + 1;
                return id as u32;
            }
        }
        table.find_or_insert_inline(w, l as usize, hash_word(w)).0 as u32
    }
}

impl DenseIndex {
    /// The keys the index can hold: `[base, base + len)`.
    pub fn range(&self) -> (u64, u64) {
        (self.base, self.base + self.ids.len() as u64)
    }

    /// Calls `f(group)` for every key in `[lo, hi)` the index holds, in key order.
    pub fn for_each_in(&self, lo: u64, hi: u64, mut f: impl FnMut(u32)) {
        let a = lo.max(self.base) - self.base;
        let b = hi
            .min(self.base + self.ids.len() as u64)
            .saturating_sub(self.base);
        if a < b {
            for &id in &self.ids[a as usize..b as usize] {
                if id != 0 {
                    f(id - 1);
                }
            }
        }
    }

    /// Makes room for `slot`: a fresh zeroed array (pages the system hands out
    /// lazily) with the known ids copied over.
    #[cold]
    fn grow(&mut self, slot: usize) {
        let len = (slot + 1).next_power_of_two().min(MAX_SPAN as usize);
        let mut ids = vec![0u32; len];
        ids[..self.ids.len()].copy_from_slice(&self.ids);
        self.ids = ids;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_ids_as_the_table() {
        let words: Vec<u64> = (0..3000u64).map(|i| (i * 7) % 500 + 100).collect();
        let mut lens = vec![8u8; words.len()];
        lens[5] = 0;
        let mut words_null = words.clone();
        words_null[5] = 0;
        let mut index = DenseIndex::fit(&words_null[..100], &lens[..100]).unwrap();
        let mut table = KeyTable::default();
        let ids = index.group_ids(&mut table, &words_null, &lens);
        // Far outside the range: the hash table alone.
        let far = index.group_ids(&mut table, &[1 << 40, 100, 1 << 40], &[8, 8, 8]);
        // Numbered in order of first appearance, like the hash table alone would.
        let mut check = KeyTable::default();
        for (i, (&w, &l)) in words_null.iter().zip(&lens).enumerate() {
            let id = check.find_or_insert_inline(w, l as usize, hash_word(w)).0 as u32;
            assert_eq!(ids[i], id, "row {i}");
            assert_eq!(table.key(id as usize), &w.to_le_bytes()[..l as usize]);
        }
        assert_eq!(far[1], ids[0]);
        assert_eq!(far[0] as usize, table.len() - 1);
        assert_eq!(far[2], far[0]);
    }
}
