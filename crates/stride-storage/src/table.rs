//! One in-memory table: row groups of column vectors behind a lock. Readers take a
//! snapshot (a list of shared row groups) and never block writers for long; a writer
//! appending to a row group a reader still holds copies it first.

use std::collections::HashSet;
use std::sync::{Arc, RwLock};
use stride_common::{DataChunk, Error, Result, ScalarValue, TableSchema, Vector, MORSEL_SIZE};

#[derive(Clone, Debug)]
pub struct RowGroup {
    pub columns: Vec<Vector>,
    pub len: usize,
}

#[derive(Default)]
struct TableData {
    row_groups: Vec<Arc<RowGroup>>,
    /// Encoded keys present for each unique constraint of the schema.
    unique_keys: Vec<HashSet<String>>,
}

pub struct Table {
    pub id: u64,
    pub schema: Arc<TableSchema>,
    data: RwLock<TableData>,
}

impl Table {
    pub fn new(id: u64, schema: TableSchema) -> Self {
        let unique_keys = schema.unique_keys.iter().map(|_| HashSet::new()).collect();
        Table { id, schema: Arc::new(schema), data: RwLock::new(TableData { row_groups: Vec::new(), unique_keys }) }
    }

    /// The row groups as of now; later appends do not change the snapshot.
    pub fn snapshot(&self) -> Vec<Arc<RowGroup>> {
        self.data.read().map(|d| d.row_groups.clone()).unwrap_or_default()
    }

    pub fn row_count(&self) -> usize {
        self.snapshot().iter().map(|g| g.len).sum()
    }

    /// Appends chunks whose columns match the schema (types already cast). Checks NOT
    /// NULL and unique constraints first, so a failing insert changes nothing.
    pub fn append(&self, chunks: &[DataChunk]) -> Result<usize> {
        let mut data = self.data.write().map_err(|_| Error::internal("table lock poisoned"))?;
        let flat: Vec<(Vec<Vector>, usize)> = chunks.iter().map(|c| c.clone().into_flat_columns()).collect();
        for (cols, len) in &flat {
            for (ci, col) in self.schema.columns.iter().enumerate() {
                if col.not_null && (0..*len).any(|i| !cols[ci].is_valid(i)) {
                    return Err(Error::constraint(format!(
                        "NOT NULL constraint failed: {}.{}",
                        self.schema.name, col.name
                    )));
                }
            }
        }
        let mut new_keys: Vec<HashSet<String>> = self.schema.unique_keys.iter().map(|_| HashSet::new()).collect();
        for (ki, key) in self.schema.unique_keys.iter().enumerate() {
            for (cols, len) in &flat {
                for i in 0..*len {
                    let values: Vec<ScalarValue> = key.iter().map(|&c| cols[c].get(i)).collect();
                    let enc = format!("{values:?}");
                    if data.unique_keys[ki].contains(&enc) || !new_keys[ki].insert(enc) {
                        let names: Vec<&str> = key.iter().map(|&c| self.schema.columns[c].name.as_str()).collect();
                        let shown: Vec<String> = values.iter().map(|v| v.to_string()).collect();
                        return Err(Error::constraint(format!(
                            "Duplicate key \"{}: {}\" violates primary key constraint of table \"{}\"",
                            names.join(", "),
                            shown.join(", "),
                            self.schema.name
                        )));
                    }
                }
            }
        }
        for (ki, keys) in new_keys.into_iter().enumerate() {
            data.unique_keys[ki].extend(keys);
        }
        let mut total = 0;
        for (cols, len) in flat {
            let mut offset = 0;
            while offset < len {
                let need_new = data.row_groups.last().is_none_or(|g| g.len >= MORSEL_SIZE);
                if need_new {
                    let columns = self.schema.columns.iter().map(|c| Vector::with_capacity(&c.ty, 0)).collect();
                    data.row_groups.push(Arc::new(RowGroup { columns, len: 0 }));
                }
                let group = Arc::make_mut(data.row_groups.last_mut().expect("just ensured"));
                let n = (MORSEL_SIZE - group.len).min(len - offset);
                for (dst, src) in group.columns.iter_mut().zip(&cols) {
                    if offset == 0 && n == len {
                        dst.append(src, n);
                    } else {
                        dst.append(&src.slice(offset, n), n);
                    }
                }
                group.len += n;
                offset += n;
            }
            total += len;
        }
        Ok(total)
    }
}
