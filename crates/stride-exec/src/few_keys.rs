//! Group ids of short keys while an aggregate has only a few groups (TPC-H Q1's four
//! pairs of one-letter flags). A key of at most 8 bytes comes as a word and a length
//! ([`Keys::Words`]); a small direct-mapped array, indexed by a multiplicative hash of
//! the word, finds its group with one multiplication and one comparison, cheaper than
//! the hash table's hashing and probing, which is left to keys not seen before. The
//! hash table owns every group; the array only remembers the ids it gave, so both
//! always agree. A key whose slot another key holds is not remembered; once the table
//! has groups the array does not know (such a key, or more than [`FewKeys::MAX`]
//! groups), the aggregate drops the array for good.
//!
//! [`Keys::Words`]: crate::row_key::Keys::Words

use crate::hash_table::{hash_word, KeyTable};

pub struct FewKeys {
    slots: Box<[Slot; SLOTS]>,
    /// Keys remembered.
    len: usize,
}

#[derive(Clone, Copy)]
struct Slot {
    word: u64,
    id: u32,
    /// The key's length; [`EMPTY`] in a free slot.
    len: u8,
}

/// Slots of the array: few keys seldom share one.
const SLOTS: usize = 256;
/// No key is longer than 8 bytes.
const EMPTY: u8 = u8::MAX;

impl Default for FewKeys {
    fn default() -> Self {
        let free = Slot {
            word: 0,
            id: 0,
            len: EMPTY,
        };
        FewKeys {
            slots: Box::new([free; SLOTS]),
            len: 0,
        }
    }
}

impl FewKeys {
    /// The most keys remembered.
    pub const MAX: usize = 16;

    /// The group id of every key (`words[i]`, `lens[i]` bytes long), inserting new
    /// groups into `table`; `None` (with nothing done) when `table` holds groups this
    /// does not know, which it can no longer keep up with.
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
            .map(|(&w, &l)| {
                let s = self.slots[slot_of(w)];
                if s.word == w && s.len == l {
                    s.id
                } else {
                    self.insert(table, w, l)
                }
            })
            .collect();
        Some(gids)
    }

    /// The group of a key not found here, remembered when its slot is free.
    #[cold]
    fn insert(&mut self, table: &mut KeyTable, w: u64, l: u8) -> u32 {
        let id = table.find_or_insert_inline(w, l as usize, hash_word(w)).0 as u32;
        let s = &mut self.slots[slot_of(w)];
        if s.len == EMPTY && self.len < Self::MAX {
            *s = Slot {
                word: w,
                id,
                len: l,
            };
            self.len += 1;
        }
        id
    }
}

/// The slot of a key's word: the top bits of its product with an odd constant
/// (2^64 / golden ratio), which every bit of the word moves.
#[inline]
fn slot_of(w: u64) -> usize {
    (w.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOTS.trailing_zeros())) as usize
}
