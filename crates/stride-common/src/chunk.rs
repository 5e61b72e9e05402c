//! DataChunks: the unit that flows between operators — a set of equally long column
//! vectors plus an optional selection vector. With a selection, logical row `i` is
//! physical row `sel[i]` of every column; filters narrow the selection instead of
//! copying, and [`DataChunk::flatten`] gathers when a flat chunk is needed.

use crate::scalar::ScalarValue;
use crate::selection::SelectionVector;
use crate::types::DataType;
use crate::vector::Vector;

#[derive(Clone, Debug)]
pub struct DataChunk {
    pub columns: Vec<Vector>,
    /// Physical rows in each (non-constant) column.
    len: usize,
    pub selection: Option<SelectionVector>,
}

impl DataChunk {
    pub fn new(columns: Vec<Vector>, len: usize) -> Self {
        DataChunk {
            columns,
            len,
            selection: None,
        }
    }

    pub fn empty(types: &[DataType]) -> Self {
        DataChunk::new(types.iter().map(Vector::empty).collect(), 0)
    }

    /// Logical rows: the selection's length when there is one.
    pub fn len(&self) -> usize {
        self.selection.as_ref().map_or(self.len, |s| s.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn physical_len(&self) -> usize {
        self.len
    }

    pub fn types(&self) -> Vec<DataType> {
        self.columns.iter().map(|c| c.ty.clone()).collect()
    }

    /// Narrows the chunk to `sel`, given in logical rows.
    pub fn select(&mut self, sel: SelectionVector) {
        self.selection = Some(match &self.selection {
            None => sel,
            Some(inner) => sel.compose(inner),
        });
    }

    /// Column `i` with the selection applied, as a flat (or constant) vector.
    pub fn column(&self, i: usize) -> Vector {
        match &self.selection {
            None => self.columns[i].clone(),
            Some(sel) => self.columns[i].take(&sel.indices),
        }
    }

    /// The columns at logical rows `rows` (through the selection), gathered flat:
    /// only those rows are copied, however many the chunk holds.
    pub fn gather(&self, rows: &[u32]) -> Vec<Vector> {
        self.gather_where(rows, |_| true)
    }

    /// Like [`DataChunk::gather`], for the columns `wanted` names only; each other
    /// column is a NULL constant, for readers that never look at it.
    pub fn gather_where(&self, rows: &[u32], wanted: impl Fn(usize) -> bool) -> Vec<Vector> {
        let physical: Vec<u32>;
        let at = match &self.selection {
            None => rows,
            Some(sel) => {
                physical = rows.iter().map(|&r| sel.indices[r as usize]).collect();
                &physical
            }
        };
        self.columns
            .iter()
            .enumerate()
            .map(|(i, c)| match wanted(i) {
                true => c.take(at).flatten(rows.len()),
                false => Vector::null_constant(&c.ty),
            })
            .collect()
    }

    /// Applies the selection to every column.
    pub fn flatten(self) -> DataChunk {
        match &self.selection {
            None => self,
            Some(sel) => {
                let len = sel.len();
                let columns = self.columns.iter().map(|c| c.take(&sel.indices)).collect();
                DataChunk::new(columns, len)
            }
        }
    }

    /// Every column flat, with no selection and no constant vectors.
    pub fn into_flat_columns(self) -> (Vec<Vector>, usize) {
        let c = self.flatten();
        let len = c.len;
        (c.columns.into_iter().map(|v| v.flatten(len)).collect(), len)
    }

    pub fn slice(&self, offset: usize, len: usize) -> DataChunk {
        let flat = self.clone().flatten();
        DataChunk::new(
            flat.columns.iter().map(|c| c.slice(offset, len)).collect(),
            len,
        )
    }

    /// Row `i` as scalars (slow path: results, tests).
    pub fn row(&self, i: usize) -> Vec<ScalarValue> {
        let p = self.selection.as_ref().map_or(i, |s| s.get(i));
        self.columns.iter().map(|c| c.get(p)).collect()
    }
}
