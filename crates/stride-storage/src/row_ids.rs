//! Row identities. A row's position in its table (the `rowid` DELETE and UPDATE work
//! with) changes when rows before it are deleted; its id does not, while the process
//! runs. Ids are handed out in table order as rows are appended, so they ascend along
//! the table. A transaction that commits after others changed the same table finds the
//! rows it changed by their ids (`crate::rebase`), and each table remembers which ids
//! its recent deletes and updates changed, so only a change to the same row conflicts.
//! Ids are not stored in the database file: a table read back numbers its rows anew.

use std::sync::Arc;

/// Where a transaction's copy of a table numbers the rows it appends: apart from every
/// committed row's id.
pub const FORK_IDS: u64 = 1 << 62;

/// The ids of one row group's rows: a span numbered when they were appended, less the
/// rows deleted since.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RowIds {
    first: u64,
    span: u64,
    /// The offsets in the span whose rows were deleted (a bit each), if any.
    gone: Option<Arc<Vec<u64>>>,
}

impl RowIds {
    /// Rows numbered `first`, `first + 1`, ... (`len` of them).
    pub fn span(first: u64, len: usize) -> RowIds {
        RowIds {
            first,
            span: len as u64,
            gone: None,
        }
    }

    /// The id a row appended to this group would take to keep the span whole.
    pub fn end(&self) -> u64 {
        self.first + self.span
    }

    /// `n` rows appended, numbered from [`RowIds::end`].
    pub fn grow(&mut self, n: usize) {
        self.span += n as u64;
    }

    fn is_gone(&self, offset: u64) -> bool {
        self.gone.as_ref().is_some_and(|g| {
            g.get((offset / 64) as usize)
                .is_some_and(|w| w >> (offset % 64) & 1 == 1)
        })
    }

    /// The offsets in the span of the rows present, in order.
    fn offsets(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.span).filter(move |&o| !self.is_gone(o))
    }

    /// The ids of the rows at `positions` (ascending positions in the group).
    pub fn ids_at(&self, positions: &[usize]) -> Vec<u64> {
        if self.gone.is_none() {
            return positions.iter().map(|&p| self.first + p as u64).collect();
        }
        let mut out = Vec::with_capacity(positions.len());
        let mut wanted = positions.iter().peekable();
        for (p, o) in self.offsets().enumerate() {
            while wanted.next_if(|&&w| w == p).is_some() {
                out.push(self.first + o);
            }
            if wanted.peek().is_none() {
                break;
            }
        }
        out
    }

    /// The group's ids without the rows at `positions` (ascending).
    pub fn without(&self, positions: &[usize]) -> RowIds {
        let mut gone: Vec<u64> = self.gone.as_deref().cloned().unwrap_or_default();
        gone.resize(self.span.div_ceil(64) as usize, 0);
        let mut wanted = positions.iter().peekable();
        for (p, o) in self.offsets().enumerate() {
            if wanted.next_if(|&&w| w == p).is_some() {
                gone[(o / 64) as usize] |= 1 << (o % 64);
            }
            if wanted.peek().is_none() {
                break;
            }
        }
        RowIds {
            first: self.first,
            span: self.span,
            gone: Some(Arc::new(gone)),
        }
    }

    /// Whether `id` falls in this group's span (present or deleted).
    pub fn covers(&self, id: u64) -> bool {
        id >= self.first && id < self.end()
    }

    /// The position in the group of each of `ids` (ascending, all covered by the
    /// span), or `None` for a row deleted since.
    pub fn positions_of(&self, ids: &[u64]) -> Vec<Option<usize>> {
        let Some(gone) = &self.gone else {
            return ids
                .iter()
                .map(|&id| Some((id - self.first) as usize))
                .collect();
        };
        // Rank of an offset: the offsets before it less those deleted.
        let mut out = Vec::with_capacity(ids.len());
        let mut deleted_before = 0u64;
        let mut word = 0usize;
        for &id in ids {
            let o = id - self.first;
            let w = (o / 64) as usize;
            while word < w {
                deleted_before += gone.get(word).map_or(0, |x| x.count_ones() as u64);
                word += 1;
            }
            let bits = gone.get(w).copied().unwrap_or(0);
            if bits >> (o % 64) & 1 == 1 {
                out.push(None);
                continue;
            }
            let below = (bits & ((1u64 << (o % 64)) - 1)).count_ones() as u64;
            out.push(Some((o - deleted_before - below) as usize));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_rows_through_deletes() {
        let ids = RowIds::span(100, 200);
        assert_eq!(ids.ids_at(&[0, 5, 199]), vec![100, 105, 299]);
        // Delete positions 1, 70 and 130; then positions shift, ids do not.
        let after = ids.without(&[1, 70, 130]);
        assert_eq!(
            after.ids_at(&[0, 1, 68, 69, 70, 127, 128]),
            vec![100, 102, 169, 171, 172, 229, 231]
        );
        assert_eq!(
            after.positions_of(&[100, 101, 102, 170, 171, 172, 299]),
            vec![Some(0), None, Some(1), None, Some(69), Some(70), Some(196)]
        );
        // A second delete counts positions among the rows left.
        let again = after.without(&[0, 196]);
        assert_eq!(
            again.positions_of(&[100, 102, 299]),
            vec![None, Some(0), None]
        );
        assert_eq!(again.ids_at(&[0]), vec![102]);
    }

    #[test]
    fn a_span_grows_at_its_end() {
        let mut ids = RowIds::span(0, 10).without(&[9]);
        assert_eq!(ids.end(), 10);
        ids.grow(5);
        assert!(ids.covers(14) && !ids.covers(15));
        assert_eq!(
            ids.positions_of(&[8, 9, 10, 14]),
            vec![Some(8), None, Some(9), Some(13)]
        );
    }
}
