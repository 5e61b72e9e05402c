//! Group ids of multi-column integer keys by direct lookup. A GROUP BY of several
//! integer, DATE or short DECIMAL columns (`GROUP BY d_year, d_moy, i_brand_id`, the
//! finest set of a ROLLUP) has byte-encoded keys, which cost a layout, a hash and a
//! byte comparison per row. When each column's values fall in a narrow range, the
//! columns pack into one small integer instead ([`KeyPacking`]: each column takes the
//! bits of its range), and an array indexed by that integer remembers the group id of
//! every key seen: a row finds its group with a few subtractions, shifts and one load.
//!
//! The array is only a cache in front of a worker's hash table, which keeps owning
//! every group under its byte key: a row the array cannot answer (a key not seen yet,
//! a NULL, a value outside the ranges) is encoded and looked up in the table as before,
//! and its id is remembered when it has a slot. So merging, spilling and decoding the
//! groups are unchanged, and the ranges can be chosen per worker from its first chunk
//! with room to spare, and widened when later chunks fall outside them.

use crate::hash_table::{hash_key, KeyTable};
use crate::key_packing::{merge_ranges, value_range, KeyPacking};
use crate::row_key::{self, non_null_rows, Keys};
use stride_common::{Result, Vector};

/// The most slots an array has (4 MiB of ids; pages never written are never touched).
const MAX_SLOTS: u128 = 1 << 20;

/// How often a worker may widen its ranges before it gives the array up.
const MAX_REFITS: u32 = 8;

pub struct PackedGroups {
    /// Per column, the range of values the array covers.
    ranges: Vec<(i64, i64)>,
    packing: KeyPacking,
    /// `ids[packed key]` is the group id plus one, or 0 when not seen yet.
    ids: Vec<u32>,
    refits: u32,
}

impl PackedGroups {
    /// Bytes of the lookup array.
    pub fn bytes(&self) -> usize {
        self.ids.capacity() * std::mem::size_of::<u32>()
    }

    /// An array for keys like the first `len` rows of `cols`, when there are at least
    /// two key columns, all integer-like, whose ranges (with room around them) pack
    /// into [`MAX_SLOTS`] slots.
    pub fn fit(cols: &[&Vector], len: usize) -> Option<PackedGroups> {
        if cols.len() < 2 {
            return None;
        }
        let ranges = cols
            .iter()
            .map(|c| value_range(c, len).map(|r| r.unwrap_or((0, 0))))
            .collect::<Option<Vec<_>>>()?;
        Self::with_ranges(ranges.iter().map(|&r| widen(r)).collect(), 0)
    }

    fn with_ranges(ranges: Vec<(i64, i64)>, refits: u32) -> Option<PackedGroups> {
        let packing = KeyPacking::fit(&ranges.iter().map(|&r| Some(Some(r))).collect::<Vec<_>>())?;
        let slots = packing.domain();
        if slots > MAX_SLOTS {
            return None;
        }
        Some(PackedGroups {
            ranges,
            packing,
            ids: vec![0; slots as usize],
            refits,
        })
    }

    /// The group id of each of the first `len` rows of `cols`, inserting new groups
    /// into `table`; `None` when the keys have outgrown what an array can cover and
    /// the caller should look keys up in the table alone from now on.
    pub fn group_ids(
        &mut self,
        table: &mut KeyTable,
        cols: &[&Vector],
        len: usize,
    ) -> Result<Option<Vec<u32>>> {
        let non_null = non_null_rows(cols, None, len);
        let mut in_range = non_null.clone();
        let Keys::Words { words, .. } = self.packing.encode(cols, None, &mut in_range) else {
            unreachable!("packed keys are words")
        };
        let mut gids = vec![0u32; len];
        let mut misses = Vec::new();
        for (i, (&w, &ok)) in words.iter().zip(&in_range).enumerate() {
            match if ok { self.ids[w as usize] } else { 0 } {
                0 => misses.push(i as u32),
                id => gids[i] = id - 1,
            }
        }
        if misses.is_empty() {
            return Ok(Some(gids));
        }
        let taken: Vec<Vector> = cols.iter().map(|c| c.take(&misses)).collect();
        let keys = row_key::encode(&taken, misses.len())?;
        let mut outside = 0;
        for (j, &r) in misses.iter().enumerate() {
            let (r, key) = (r as usize, keys.key(j));
            let id = table.find_or_insert(key, hash_key(key)).0 as u32;
            gids[r] = id;
            if in_range[r] {
                self.ids[words[r] as usize] = id + 1;
            } else {
                outside += non_null[r] as usize;
            }
        }
        // Many keys beyond the ranges (a sorted column climbing past the first
        // chunk's values): widen the ranges to cover this chunk too, and start the
        // array afresh; the table still has every group.
        if outside * 8 > len {
            if self.refits == MAX_REFITS {
                return Ok(None);
            }
            let ranges = self
                .ranges
                .iter()
                .zip(cols)
                .map(|(&r, c)| {
                    let seen = value_range(c, len).flatten();
                    merge_ranges(Some(r), seen.map(widen)).expect("a range")
                })
                .collect();
            match Self::with_ranges(ranges, self.refits + 1) {
                Some(wider) => *self = wider,
                None => return Ok(None),
            }
        }
        Ok(Some(gids))
    }
}

/// `(lo, hi)` with as much room again on either side: keys a little beyond the first
/// chunk's fall in the array too.
fn widen((lo, hi): (i64, i64)) -> (i64, i64) {
    let room = ((hi as i128 - lo as i128) / 2 + 1) as i64;
    (lo.saturating_sub(room), hi.saturating_add(room))
}

#[cfg(test)]
mod tests {
    use super::*;
    use stride_common::DataType;

    fn ids(p: &mut PackedGroups, t: &mut KeyTable, a: Vec<i64>, b: Vec<i32>) -> Vec<u32> {
        let n = a.len();
        let a = Vector::from_values(DataType::BigInt, a);
        let b = Vector::from_values(DataType::Integer, b);
        p.group_ids(t, &[&a, &b], n).unwrap().unwrap()
    }

    #[test]
    fn finds_groups_and_agrees_with_the_table() {
        let a = Vector::from_values(DataType::BigInt, vec![1i64, 2, 1]);
        let b = Vector::from_values(DataType::Integer, vec![5i32, 5, 5]);
        let mut p = PackedGroups::fit(&[&a, &b], 3).unwrap();
        let mut t = KeyTable::default();
        assert_eq!(
            ids(&mut p, &mut t, vec![1, 2, 1], vec![5, 5, 5]),
            vec![0, 1, 0]
        );
        // Far outside the ranges: found in the table, and the ranges widen.
        assert_eq!(ids(&mut p, &mut t, vec![1000, 2], vec![5, 5]), vec![2, 1]);
        assert_eq!(p.refits, 1);
        assert_eq!(
            ids(&mut p, &mut t, vec![1000, 1, 3], vec![5, 5, 6]),
            vec![2, 0, 3]
        );
        assert_eq!(t.len(), 4);
    }

    #[test]
    fn nulls_are_groups_of_their_own() {
        let mut t = KeyTable::default();
        let a = Vector::from_values(DataType::BigInt, vec![1i64, 1]);
        let mut b = Vector::from_values(DataType::Integer, vec![0i32, 0]);
        b.validity.set_invalid(1, 2);
        let mut p = PackedGroups::fit(&[&a, &b], 2).unwrap();
        let first = p.group_ids(&mut t, &[&a, &b], 2).unwrap().unwrap();
        let again = p.group_ids(&mut t, &[&a, &b], 2).unwrap().unwrap();
        assert_eq!(first, vec![0, 1]);
        assert_eq!(again, first);
    }

    #[test]
    fn refuses_wide_or_single_keys() {
        let a = Vector::from_values(DataType::BigInt, vec![0i64, 1 << 40]);
        let b = Vector::from_values(DataType::Integer, vec![0i32, 1]);
        assert!(PackedGroups::fit(&[&a, &b], 2).is_none());
        assert!(PackedGroups::fit(&[&b], 2).is_none());
        let s = Vector::constant(
            &stride_common::ScalarValue::Varchar("x".into()),
            &DataType::Varchar,
        )
        .unwrap();
        assert!(PackedGroups::fit(&[&b, &s], 2).is_none());
    }
}
