//! Group ids of short keys while an aggregate has only a few groups (TPC-H Q1's four
//! pairs of one-letter flags). A key of at most 8 bytes comes as a word and a length
//! ([`Keys::Words`]); comparing it with the few known keys costs less than hashing it
//! and probing the hash table, which is left to keys not seen before. The hash table
//! owns every group; this only remembers the ids it gave, so both always agree. Once
//! the table holds more than [`FewKeys::MAX`] groups the comparisons stop paying and
//! the aggregate drops this for good.
//!
//! [`Keys::Words`]: crate::row_key::Keys::Words

use crate::hash_table::{hash_word, KeyTable};

#[derive(Default)]
pub struct FewKeys {
    /// The known keys: their words, lengths and group ids; `len` of each in use.
    words: [u64; FewKeys::MAX],
    lens: [u8; FewKeys::MAX],
    ids: [u32; FewKeys::MAX],
    len: usize,
}

impl FewKeys {
    /// The most keys compared one by one.
    pub const MAX: usize = 8;

    /// The group id of every key (`words[i]`, `lens[i]` bytes long), inserting new
    /// groups into `table`; `None` (with nothing done) when `table` holds more groups
    /// than this knows, which it can no longer keep up with.
    pub fn group_ids(
        &mut self,
        table: &mut KeyTable,
        words: &[u64],
        lens: &[u8],
    ) -> Option<Vec<u32>> {
        if table.len() > self.len {
            return None;
        }
        let gids = words
            .iter()
            .zip(lens)
            .map(|(&w, &l)| match self.find(w, l) {
                Some(id) => id,
                None => self.insert(table, w, l),
            })
            .collect();
        Some(gids)
    }

    /// The group of a key not seen here before, remembered while there is room.
    #[cold]
    fn insert(&mut self, table: &mut KeyTable, w: u64, l: u8) -> u32 {
        let id = table.find_or_insert_inline(w, l as usize, hash_word(w)).0 as u32;
        if self.len < Self::MAX {
            self.words[self.len] = w;
            self.lens[self.len] = l;
            self.ids[self.len] = id;
            self.len += 1;
        }
        id
    }

    /// The id of a known key: every entry is compared (no early exit, whose branch
    /// would be mispredicted on rows of mixed groups).
    #[inline]
    fn find(&self, w: u64, l: u8) -> Option<u32> {
        let mut found = None;
        for k in 0..self.len {
            if self.words[k] == w && self.lens[k] == l {
                found = Some(self.ids[k]);
            }
        }
        found
    }
}
