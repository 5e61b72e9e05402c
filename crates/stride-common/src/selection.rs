//! Selection vectors: the row indices of a chunk that survive a filter. Filters produce
//! them instead of copying columns; the rows are gathered only when a later step needs
//! a flat column.

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SelectionVector {
    pub indices: Vec<u32>,
}

impl SelectionVector {
    pub fn new(indices: Vec<u32>) -> Self {
        SelectionVector { indices }
    }

    pub fn len(&self) -> usize {
        self.indices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    #[inline]
    pub fn get(&self, i: usize) -> usize {
        self.indices[i] as usize
    }

    /// `self` applied after `inner`: row i of the result is `inner[self[i]]`.
    pub fn compose(&self, inner: &SelectionVector) -> SelectionVector {
        SelectionVector {
            indices: self
                .indices
                .iter()
                .map(|&i| inner.indices[i as usize])
                .collect(),
        }
    }
}
