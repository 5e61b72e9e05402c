//! One table: row groups of columns (in memory, or stored in the database file and
//! read on first use, see [`crate::column`]) behind a lock, with the in-memory
//! indexes of its unique keys. Readers take a snapshot (a list of shared row groups)
//! and never block writers for long; a writer appending to a row group a reader still
//! holds copies it first. DELETE and UPDATE
//! rebuild the row groups they touch ([`Table::delete_rows`], [`Table::update_rows`],
//! checked, then [`Table::install`]); ALTER TABLE makes a new table with the same rows
//! ([`Table::altered`]); a transaction works on a [`Table::fork`]. Every row has an id
//! that outlives its position (`row_ids.rs`), and the table keeps the ids its recent
//! deletes and updates changed ([`Table::changed_since`]).

use crate::bulk_load::Piece;
use crate::column::Column;
use crate::row_ids::{RowIds, FORK_IDS};
use crate::zone_map::{Bounds, Key};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, RwLock};
use stride_common::{DataChunk, Error, Result, ScalarValue, TableSchema, Vector, MORSEL_SIZE};

/// Parts at least this long become row groups of their own when appended.
pub const MIN_OWN_GROUP: usize = MORSEL_SIZE / 4;

/// Up to [`MORSEL_SIZE`] rows of a table, column by column; a scan morsel.
#[derive(Clone, Debug)]
pub struct RowGroup {
    pub columns: Vec<Column>,
    pub len: usize,
}

impl RowGroup {
    /// A row group of in-memory columns.
    pub fn new(vectors: Vec<Vector>, len: usize) -> RowGroup {
        RowGroup {
            columns: vectors.into_iter().map(Column::memory).collect(),
            len,
        }
    }

    /// Column `c`'s values (read from the file if need be).
    pub fn vector(&self, c: usize) -> Result<Vector> {
        self.columns[c].vector()
    }

    /// Every column's values.
    pub fn vectors(&self) -> Result<Vec<Vector>> {
        self.columns.iter().map(|c| c.vector()).collect()
    }

    /// The values of columns `cols`, in that order.
    pub fn vectors_of(&self, cols: &[usize]) -> Result<Vec<Vector>> {
        cols.iter().map(|&c| self.vector(c)).collect()
    }

    /// Bytes the values take: in memory as [`crate::size`] counts them, or as stored
    /// for a column not read yet.
    pub fn bytes(&self, seen: &mut HashSet<*const u8>) -> usize {
        self.columns.iter().map(|c| c.bytes(seen)).sum()
    }

    /// Bytes the values hold in memory outside the buffer pool
    /// ([`Column::memory_bytes`]).
    pub fn memory_bytes(&self, seen: &mut HashSet<*const u8>) -> usize {
        self.columns.iter().map(|c| c.memory_bytes(seen)).sum()
    }
}

/// A uniqueness rule checked on every insert: a PRIMARY KEY or UNIQUE constraint, or a
/// UNIQUE index.
struct UniqueKey {
    columns: Vec<usize>,
    /// Encoded keys present in the table (keys with a NULL are never stored: NULLs are
    /// distinct from each other). `None` until first needed: a table read from a
    /// database file indexes its keys at its first change, not when the file opens.
    present: Option<Arc<HashSet<String>>>,
}

impl UniqueKey {
    fn present(&self) -> Result<&HashSet<String>> {
        self.present
            .as_deref()
            .ok_or_else(|| Error::internal("a unique key's index was used before it was built"))
    }
}

/// A secondary index declared with CREATE INDEX. Only the catalog entry exists yet:
/// scans do not use indexes, and UNIQUE indexes are enforced through [`UniqueKey`].
#[derive(Clone, Debug)]
pub struct IndexInfo {
    /// From [`crate::Catalog::new_object_id`].
    pub id: u64,
    pub name: String,
    pub columns: Vec<usize>,
    pub unique: bool,
}

/// Ids of rows changed that a table remembers at most: older changes are forgotten
/// (a transaction that began before them then conflicts with any change to the table).
const HISTORY_IDS: usize = 1 << 20;

#[derive(Default)]
struct TableData {
    row_groups: Vec<Arc<RowGroup>>,
    /// Each row group's row ids, in step with `row_groups`.
    ids: Vec<RowIds>,
    /// The id the next row appended takes.
    next_id: u64,
    /// Counts the deletes and updates installed.
    version: u64,
    /// The ids of the rows each recent delete or update changed, by version, oldest
    /// first (at most [`HISTORY_IDS`] ids in all).
    history: VecDeque<(u64, Arc<Vec<u64>>)>,
    unique: Vec<UniqueKey>,
    indexes: Vec<IndexInfo>,
}

impl TableData {
    /// Appends a row group of fresh rows.
    fn push(&mut self, group: Arc<RowGroup>) {
        self.ids.push(RowIds::span(self.next_id, group.len));
        self.next_id += group.len as u64;
        self.row_groups.push(group);
    }
}

pub struct Table {
    pub id: u64,
    pub schema: Arc<TableSchema>,
    data: RwLock<TableData>,
    /// Distinct-value estimates per column, with the row count they were made at.
    distinct: Mutex<HashMap<usize, (usize, f64)>>,
    /// A distinct count was made since the last checkpoint wrote them.
    counts_unsaved: std::sync::atomic::AtomicBool,
}

impl Table {
    pub fn new(id: u64, schema: TableSchema) -> Self {
        let unique = schema
            .unique_keys
            .iter()
            .map(|k| UniqueKey {
                columns: k.clone(),
                present: Some(Arc::new(HashSet::new())),
            })
            .collect();
        Table {
            id,
            schema: Arc::new(schema),
            data: RwLock::new(TableData {
                unique,
                ..TableData::default()
            }),
            distinct: Mutex::new(HashMap::new()),
            counts_unsaved: Default::default(),
        }
    }

    /// A copy for a transaction: the same rows (row groups are shared, never changed
    /// in place), constraints and indexes; changes to either leave the other as is.
    pub fn fork(&self) -> Result<Table> {
        let data = self
            .data
            .read()
            .map_err(|_| Error::internal("table lock poisoned"))?;
        Ok(Table {
            id: self.id,
            schema: self.schema.clone(),
            data: RwLock::new(TableData {
                row_groups: data.row_groups.clone(),
                ids: data.ids.clone(),
                // Rows the copy appends are numbered apart from everyone else's.
                next_id: data.next_id.max(FORK_IDS),
                version: data.version,
                history: VecDeque::new(),
                unique: data
                    .unique
                    .iter()
                    .map(|k| UniqueKey {
                        columns: k.columns.clone(),
                        present: k.present.clone(),
                    })
                    .collect(),
                indexes: data.indexes.clone(),
            }),
            // The same rows: the same counts.
            distinct: Mutex::new(self.distinct.lock().map(|c| c.clone()).unwrap_or_default()),
            counts_unsaved: Default::default(),
        })
    }

    /// The row groups as of now; later appends do not change the snapshot.
    pub fn snapshot(&self) -> Vec<Arc<RowGroup>> {
        self.data
            .read()
            .map(|d| d.row_groups.clone())
            .unwrap_or_default()
    }

    pub fn row_count(&self) -> usize {
        self.snapshot().iter().map(|g| g.len).sum()
    }

    /// Bytes the stored values take (see [`crate::size`]).
    pub fn bytes(&self) -> usize {
        let mut seen = HashSet::new();
        self.snapshot().iter().map(|g| g.bytes(&mut seen)).sum()
    }

    /// Bytes the values hold in memory outside the buffer pool, for the accountant
    /// ([`RowGroup::memory_bytes`]); `seen` holds heap buffers already counted.
    pub fn memory_bytes(&self, seen: &mut HashSet<*const u8>) -> usize {
        self.snapshot().iter().map(|g| g.memory_bytes(seen)).sum()
    }

    /// Estimated distinct non-NULL values in `column` (see [`crate::stats`]). Counted
    /// again only when the table has changed size by more than a tenth since the last
    /// count, so a table that grows by small inserts does not pay a full pass per
    /// query; in between, a count that was as large as the table grows with it.
    pub fn distinct_estimate(&self, column: usize) -> f64 {
        let groups = self.snapshot();
        let rows: usize = groups.iter().map(|g| g.len).sum();
        if let Ok(cache) = self.distinct.lock() {
            if let Some(&(at, d)) = cache.get(&column) {
                if rows.abs_diff(at) * 10 <= at {
                    let unique = d >= 0.9 * at as f64;
                    return if unique {
                        d * rows as f64 / at.max(1) as f64
                    } else {
                        d
                    };
                }
            }
        }
        let d = crate::stats::distinct_estimate(&groups, column);
        if let Ok(mut cache) = self.distinct.lock() {
            cache.insert(column, (rows, d));
        }
        self.counts_unsaved
            .store(true, std::sync::atomic::Ordering::Relaxed);
        d
    }

    /// The fraction of `column`'s range of values (its smallest to its largest, from
    /// the row groups' zone maps) that lies between `lo` and `hi` (either open): the
    /// optimizer's guess of the rows a range condition keeps. `None` for text, or when
    /// a bound is not of the column's type.
    pub fn range_fraction(
        &self,
        column: usize,
        lo: Option<&ScalarValue>,
        hi: Option<&ScalarValue>,
    ) -> Option<f64> {
        let ty = &self.schema.columns.get(column)?.ty;
        // The column's smallest and largest value over its row groups, and whether
        // they are integers (a range of integers counts its ends).
        let (mut min, mut max, mut integers) = (f64::INFINITY, f64::NEG_INFINITY, true);
        for g in self.snapshot() {
            match &g.columns.get(column)?.zone(g.len).ok()?.bounds {
                Some(Bounds::Int(a, b)) => {
                    (min, max) = (min.min(*a as f64), max.max(*b as f64));
                }
                Some(Bounds::Float(a, b)) => {
                    (min, max, integers) = (min.min(*a), max.max(*b), false);
                }
                None => {}
                Some(Bounds::Str(..)) => return None,
            }
        }
        if min > max {
            return None;
        }
        let value = |v: Option<&ScalarValue>| -> Option<Option<f64>> {
            match v {
                None => Some(None),
                Some(v) => match Key::of(v, ty)? {
                    Key::Int(x) => Some(Some(x as f64)),
                    Key::Float(x) => Some(Some(x)),
                    Key::Str(_) => None,
                },
            }
        };
        let (lo, hi) = (value(lo)?, value(hi)?);
        let (from, to) = (lo.unwrap_or(min).max(min), hi.unwrap_or(max).min(max));
        let one = if integers { 1.0 } else { 0.0 };
        if to < from {
            return Some(0.0);
        }
        Some(((to - from + one) / (max - min + one).max(f64::MIN_POSITIVE)).min(1.0))
    }

    /// Whether distinct counts were made since a checkpoint last saved them; clears it.
    pub fn take_counts_unsaved(&self) -> bool {
        self.counts_unsaved
            .swap(false, std::sync::atomic::Ordering::Relaxed)
    }

    /// Whether distinct counts were made since a checkpoint last saved them.
    pub fn counts_unsaved(&self) -> bool {
        self.counts_unsaved
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The distinct-value estimates counted so far: (column, rows then, estimate).
    pub fn distinct_counts(&self) -> Vec<(usize, usize, f64)> {
        let mut out: Vec<(usize, usize, f64)> = self
            .distinct
            .lock()
            .map(|c| c.iter().map(|(&col, &(rows, d))| (col, rows, d)).collect())
            .unwrap_or_default();
        out.sort_by_key(|e| e.0);
        out
    }

    /// Takes estimates counted earlier (read back from a database file, or a fork's
    /// source), so they are not counted again.
    pub fn restore_distinct_counts(&self, counts: &[(usize, usize, f64)]) {
        if let Ok(mut cache) = self.distinct.lock() {
            for &(col, rows, d) in counts {
                if col < self.schema.columns.len() {
                    cache.insert(col, (rows, d));
                }
            }
        }
    }

    /// Appends chunks whose columns match the schema (types already cast). Checks NOT
    /// NULL and unique constraints first, so a failing insert changes nothing.
    pub fn append(&self, chunks: &[DataChunk]) -> Result<usize> {
        let flat: Vec<(Vec<Vector>, usize)> = chunks
            .iter()
            .map(|c| c.clone().into_flat_columns())
            .collect();
        self.append_parts(flat)
    }

    /// Appends parts (flat columns and a row count each), with the checks of
    /// [`Table::append`]. A part of at least [`MIN_OWN_GROUP`] rows becomes a row
    /// group as it is, without copying.
    pub fn append_parts(&self, mut flat: Vec<(Vec<Vector>, usize)>) -> Result<usize> {
        // Rows read in place from a mapped file or a DataFrame become the table's own;
        // a part that becomes a row group keeps its strings in one buffer.
        for (cols, len) in &mut flat {
            cols.iter_mut().for_each(|c| c.data.make_owned());
            if (MIN_OWN_GROUP..=MORSEL_SIZE).contains(len) {
                cols.iter_mut().for_each(compact_strings);
            }
        }
        let mut data = self
            .data
            .write()
            .map_err(|_| Error::internal("table lock poisoned"))?;
        self.build_keys(&mut data)?;
        let new_keys = self.check(&data, flat.iter().map(|(c, n)| (c.as_slice(), *n)))?;
        add_keys(&mut data, new_keys);
        let mut total = 0;
        for (cols, len) in flat {
            if (MIN_OWN_GROUP..=MORSEL_SIZE).contains(&len) {
                data.push(Arc::new(RowGroup::new(cols, len)));
                total += len;
                continue;
            }
            let mut offset = 0;
            while offset < len {
                // The last group takes more rows if it has room and its ids run on.
                let next_id = data.next_id;
                let need_new = data.row_groups.last().is_none_or(|g| g.len >= MORSEL_SIZE)
                    || data.ids.last().is_none_or(|ids| ids.end() != next_id);
                if need_new {
                    let columns = self
                        .schema
                        .columns
                        .iter()
                        .map(|c| Vector::with_capacity(&c.ty, 0))
                        .collect();
                    data.push(Arc::new(RowGroup::new(columns, 0)));
                }
                let n =
                    (MORSEL_SIZE - data.row_groups.last().map_or(0, |g| g.len)).min(len - offset);
                data.ids.last_mut().expect("just ensured").grow(n);
                data.next_id += n as u64;
                let group = Arc::make_mut(data.row_groups.last_mut().expect("just ensured"));
                for (dst, src) in group.columns.iter_mut().zip(&cols) {
                    let dst = dst.vector_mut()?;
                    if offset == 0 && n == len {
                        dst.append(src, n);
                    } else {
                        dst.append(&src.slice(offset, n), n);
                    }
                }
                group.len += n;
                offset += n;
                if group.len == MORSEL_SIZE {
                    for c in group.columns.iter_mut() {
                        compact_strings(c.vector_mut()?);
                    }
                }
            }
            total += len;
        }
        Ok(total)
    }
}

impl Table {
    /// Keeps the values of the table's in-memory row groups compressed from now on
    /// ([`Column::compress`]; the buffer pool caches decoded copies under
    /// `memory_limit`), encoding row groups on all cores. The last row group stays as
    /// it is until it is full: appends would decode it again. Returns how many row
    /// groups were compressed.
    pub fn compress(&self, pool: &Arc<crate::BufferPool>) -> Result<usize> {
        let groups = self.snapshot();
        let last = groups.len().saturating_sub(1);
        let todo: Vec<&Arc<RowGroup>> = groups
            .iter()
            .enumerate()
            .filter(|&(g, group)| g < last || group.len >= MORSEL_SIZE)
            .map(|(_, group)| group)
            .filter(|group| group.columns.iter().any(|c| c.encoded().is_none()))
            .collect();
        let done = stride_common::workers::map(&todo, crate::cores(), |group| {
            group
                .columns
                .iter()
                .try_fold(false, |any, c| -> Result<bool> {
                    Ok(c.compress(pool, group.len)? || any)
                })
        })?;
        let mut compressed = 0;
        for d in done {
            compressed += d? as usize;
        }
        Ok(compressed)
    }
}

impl Table {
    /// Checks NOT NULL and unique constraints for appending `parts`, returning the
    /// unique keys they add (one set per key).
    fn check<'a>(
        &self,
        data: &TableData,
        parts: impl Iterator<Item = (&'a [Vector], usize)> + Clone,
    ) -> Result<Vec<HashSet<String>>> {
        for (cols, len) in parts.clone() {
            self.check_fits(cols.iter().map(|v| v.ty.clone()))?;
            for (v, col) in cols.iter().zip(&self.schema.columns) {
                if col.not_null && (0..len).any(|i| !v.is_valid(i)) {
                    return Err(self.null_in(col));
                }
            }
        }
        let mut new_keys: Vec<HashSet<String>> =
            data.unique.iter().map(|_| HashSet::new()).collect();
        for (ki, key) in data.unique.iter().enumerate() {
            for (cols, len) in parts.clone() {
                let values: Vec<Vector> = key.columns.iter().map(|&c| cols[c].clone()).collect();
                check_unique(
                    &self.schema,
                    &key.columns,
                    &values,
                    len,
                    key.present()?,
                    &mut new_keys[ki],
                )?;
            }
        }
        Ok(new_keys)
    }

    /// [`Table::check`] for whole row groups, reading only what the constraints need:
    /// NOT NULL columns' null counts from their zone maps, and the values of unique
    /// keys' columns (a bulk load's groups are stored already: nothing else is
    /// decoded).
    fn check_groups(
        &self,
        data: &TableData,
        groups: &[Arc<RowGroup>],
    ) -> Result<Vec<HashSet<String>>> {
        for g in groups {
            let types = g.columns.iter().map(|c| c.data_type());
            let nulls = g.columns.iter().map(|c| Ok(c.zone(g.len)?.nulls));
            self.check_encoded(
                types.collect::<Result<Vec<_>>>()?,
                nulls.collect::<Result<Vec<_>>>()?,
            )?;
        }
        let mut new_keys: Vec<HashSet<String>> =
            data.unique.iter().map(|_| HashSet::new()).collect();
        for (ki, key) in data.unique.iter().enumerate() {
            for g in groups {
                check_unique(
                    &self.schema,
                    &key.columns,
                    &g.vectors_of(&key.columns)?,
                    g.len,
                    key.present()?,
                    &mut new_keys[ki],
                )?;
            }
        }
        Ok(new_keys)
    }

    /// Fails unless rows of `types` fit the table's columns.
    fn check_fits(
        &self,
        types: impl ExactSizeIterator<Item = stride_common::DataType>,
    ) -> Result<()> {
        let n = types.len();
        let mut types = types.zip(&self.schema.columns);
        if n != self.schema.columns.len() || !types.all(|(t, c)| t == c.ty) {
            return Err(Error::new(
                stride_common::ErrorKind::Transaction,
                format!(
                    "Transaction conflict: the rows do not fit table \"{}\" as it is now (its columns changed); run the statement again",
                    self.schema.name
                ),
            ));
        }
        Ok(())
    }

    /// Fails unless encoded rows of `types`, with `nulls` NULLs in each column, fit
    /// the table's columns and their NOT NULL constraints.
    fn check_encoded(&self, types: Vec<stride_common::DataType>, nulls: Vec<u64>) -> Result<()> {
        self.check_fits(types.into_iter())?;
        for (n, col) in nulls.into_iter().zip(&self.schema.columns) {
            if col.not_null && n > 0 {
                return Err(self.null_in(col));
            }
        }
        Ok(())
    }

    fn null_in(&self, col: &stride_common::ColumnSchema) -> Error {
        Error::constraint(format!(
            "NOT NULL constraint failed: {}.{}",
            self.schema.name, col.name
        ))
    }

    /// [`Table::check_append`] for a bulk load's pieces: those encoded already are
    /// checked by their types and their zone maps' null counts (a load is encoded
    /// only into a table without unique keys).
    pub fn check_pieces(&self, pieces: &[Piece]) -> Result<()> {
        let mut rows = Vec::new();
        for p in pieces {
            match p {
                Piece::Rows(columns, len) => rows.push((columns.clone(), *len)),
                Piece::Encoded(g) => {
                    if self.has_unique_keys() {
                        return Err(Error::internal(
                            "rows encoded for a table with unique keys to check",
                        ));
                    }
                    let nulls = g.zones().iter().map(|z| z.nulls).collect();
                    self.check_encoded(g.types().to_vec(), nulls)?;
                }
            }
        }
        self.check_append(&rows)
    }

    /// Whether appended rows are checked against unique keys (PRIMARY KEY, UNIQUE,
    /// unique indexes).
    pub fn has_unique_keys(&self) -> bool {
        self.data.read().map_or(true, |d| !d.unique.is_empty())
    }

    /// Whether appending `parts` would pass the table's constraints (checked before
    /// the append is logged; the append checks again).
    pub fn check_append(&self, parts: &[(Vec<Vector>, usize)]) -> Result<()> {
        {
            let mut data = self
                .data
                .write()
                .map_err(|_| Error::internal("table lock poisoned"))?;
            self.build_keys(&mut data)?;
        }
        let data = self
            .data
            .read()
            .map_err(|_| Error::internal("table lock poisoned"))?;
        self.check(&data, parts.iter().map(|(c, n)| (c.as_slice(), *n)))
            .map(|_| ())
    }

    /// Appends whole row groups as they are (a bulk load, or a WAL replay of one),
    /// with the checks of [`Table::append`].
    pub fn append_groups(&self, groups: Vec<Arc<RowGroup>>) -> Result<usize> {
        let mut data = self
            .data
            .write()
            .map_err(|_| Error::internal("table lock poisoned"))?;
        self.build_keys(&mut data)?;
        let new_keys = self.check_groups(&data, &groups)?;
        add_keys(&mut data, new_keys);
        let n = groups.iter().map(|g| g.len).sum();
        for g in groups {
            data.push(g);
        }
        Ok(n)
    }

    /// Appends row groups whose rows passed the table's constraints when they were
    /// committed (a table read from its file, a WAL replay of a bulk load): nothing is
    /// read; an index of unique keys not built yet is built from all rows when first
    /// needed, one already built takes the new rows' keys.
    pub fn append_checked_groups(&self, groups: Vec<Arc<RowGroup>>) -> Result<()> {
        let mut data = self
            .data
            .write()
            .map_err(|_| Error::internal("table lock poisoned"))?;
        for key in &mut data.unique {
            let Some(present) = &mut key.present else {
                continue;
            };
            let mut new = HashSet::new();
            for g in &groups {
                check_unique(
                    &self.schema,
                    &key.columns,
                    &g.vectors_of(&key.columns)?,
                    g.len,
                    present,
                    &mut new,
                )?;
            }
            Arc::make_mut(present).extend(new);
        }
        for g in groups {
            data.push(g);
        }
        Ok(())
    }

    /// Builds the indexes of unique keys not built yet, from the rows.
    fn build_keys(&self, data: &mut TableData) -> Result<()> {
        for k in 0..data.unique.len() {
            if data.unique[k].present.is_some() {
                continue;
            }
            let columns = data.unique[k].columns.clone();
            let present = key_set(&self.schema, &columns, &data.row_groups)?;
            data.unique[k].present = Some(Arc::new(present));
        }
        Ok(())
    }

    /// Checks that each unique key's index holds exactly the keys of the rows, and
    /// that the rows hold no duplicate key.
    pub fn check_unique_keys(&self) -> Result<()> {
        let data = self
            .data
            .read()
            .map_err(|_| Error::internal("table lock poisoned"))?;
        for key in &data.unique {
            let keys = key_set(&self.schema, &key.columns, &data.row_groups)?;
            let Some(present) = key.present.as_deref() else {
                continue; // not built yet: nothing to disagree with the rows
            };
            if keys != *present {
                let names: Vec<&str> = key
                    .columns
                    .iter()
                    .map(|&c| self.schema.columns[c].name.as_str())
                    .collect();
                return Err(Error::internal(format!(
                    "the index of unique key ({}) holds {} keys, the rows {}",
                    names.join(", "),
                    present.len(),
                    keys.len()
                )));
            }
        }
        Ok(())
    }

    /// A table read back from a database file, with its row groups (checked when they
    /// were written: only the columns of unique keys are read, to index their values).
    pub fn restore(id: u64, schema: TableSchema, groups: Vec<Arc<RowGroup>>) -> Result<Table> {
        let table = Table::new(id, schema);
        if let Ok(mut data) = table.data.write() {
            for key in &mut data.unique {
                key.present = None;
            }
        }
        table.append_checked_groups(groups)?;
        Ok(table)
    }
}

/// Row groups of at most [`MORSEL_SIZE`] rows holding `parts` (flat columns and row
/// counts), for a bulk load that stores whole groups.
/// Gathers a string column's long strings into one buffer (see
/// [`stride_common::StringVector::compact_to`]).
fn compact_strings(v: &mut Vector) {
    if let stride_common::VectorData::Str(s) = &mut v.data {
        s.compact_to(1);
    }
}

pub(crate) fn row_groups_of(
    types: &[stride_common::DataType],
    parts: Vec<(Vec<Vector>, usize)>,
) -> Vec<Arc<RowGroup>> {
    let mut out: Vec<(Vec<Vector>, usize)> = Vec::new();
    for (mut cols, len) in parts {
        cols.iter_mut().for_each(|c| c.data.make_owned());
        if (MIN_OWN_GROUP..=MORSEL_SIZE).contains(&len) {
            out.push((cols, len));
            continue;
        }
        let mut offset = 0;
        while offset < len {
            if out.last().is_none_or(|g| g.1 >= MORSEL_SIZE) {
                let columns = types.iter().map(|t| Vector::with_capacity(t, 0)).collect();
                out.push((columns, 0));
            }
            let group = out.last_mut().expect("just ensured");
            let n = (MORSEL_SIZE - group.1).min(len - offset);
            for (dst, src) in group.0.iter_mut().zip(&cols) {
                dst.append(&src.slice(offset, n), n);
            }
            group.1 += n;
            offset += n;
        }
    }
    out.into_iter()
        .map(|(cols, len)| Arc::new(RowGroup::new(cols, len)))
        .collect()
}

/// The keys of `groups`' rows under the unique key `key` (failing on a duplicate).
fn key_set<'a>(
    schema: &TableSchema,
    key: &[usize],
    groups: impl IntoIterator<Item = &'a Arc<RowGroup>>,
) -> Result<HashSet<String>> {
    let mut keys = HashSet::new();
    for g in groups {
        check_unique(
            schema,
            key,
            &g.vectors_of(key)?,
            g.len,
            &HashSet::new(),
            &mut keys,
        )?;
    }
    Ok(keys)
}

/// Adds the keys an append brought (one set per unique key, all built).
fn add_keys(data: &mut TableData, new: Vec<HashSet<String>>) {
    for (key, new) in data.unique.iter_mut().zip(new) {
        if let Some(present) = &mut key.present {
            Arc::make_mut(present).extend(new);
        }
    }
}

/// Row `i` of a unique key's columns (`cols`, in key order) as the key's index holds
/// it; `None` when a value is NULL (NULLs are distinct: such rows never conflict).
pub fn key_of(cols: &[Vector], i: usize) -> Option<String> {
    let values: Vec<ScalarValue> = cols.iter().map(|c| c.get(i)).collect();
    if values.iter().any(|v| v.is_null()) {
        return None;
    }
    Some(format!("{values:?}"))
}

impl Table {
    /// The row ids (positions in `base`) of the rows whose `key` columns hold one of
    /// the keys `wanted` (as [`key_of`] writes them).
    pub fn rows_with_keys(
        &self,
        base: &[Arc<RowGroup>],
        key: &[usize],
        wanted: &HashSet<String>,
    ) -> Result<HashMap<String, u64>> {
        let mut out = HashMap::new();
        let mut start = 0u64;
        for g in base {
            let cols = g.vectors_of(key)?;
            for i in 0..g.len {
                if let Some(k) = key_of(&cols, i).filter(|k| wanted.contains(k)) {
                    out.insert(k, start + i as u64);
                }
            }
            start += g.len as u64;
        }
        Ok(out)
    }

    /// Every column's values at the rows `rowids` (positions in `base`, ascending).
    pub fn rows_at(&self, base: &[Arc<RowGroup>], rowids: &[u64]) -> Result<Vec<Vector>> {
        let mut out: Vec<Vector> = self
            .schema
            .columns
            .iter()
            .map(|c| Vector::with_capacity(&c.ty, rowids.len()))
            .collect();
        for (g, rows) in rows_by_group(base, rowids)? {
            let idx: Vec<u32> = rows.iter().map(|&r| r as u32).collect();
            for (c, o) in out.iter_mut().enumerate() {
                o.append(&base[g].vector(c)?.take(&idx), idx.len());
            }
        }
        Ok(out)
    }
}

/// Checks `len` rows of the key columns `key` (their values `cols`, in key order)
/// against the keys already present and those seen in this insert, recording new keys
/// in `new`.
fn check_unique(
    schema: &TableSchema,
    key: &[usize],
    cols: &[Vector],
    len: usize,
    present: &HashSet<String>,
    new: &mut HashSet<String>,
) -> Result<()> {
    for i in 0..len {
        let Some(enc) = key_of(cols, i) else {
            continue;
        };
        if present.contains(&enc) || !new.insert(enc) {
            let values: Vec<ScalarValue> = cols.iter().map(|c| c.get(i)).collect();
            let names: Vec<&str> = key
                .iter()
                .map(|&c| schema.columns[c].name.as_str())
                .collect();
            let shown: Vec<String> = values.iter().map(|v| v.to_string()).collect();
            return Err(Error::constraint(format!(
                "Duplicate key \"{}: {}\" violates unique constraint of table \"{}\"",
                names.join(", "),
                shown.join(", "),
                schema.name
            )));
        }
    }
    Ok(())
}

impl Table {
    pub fn indexes(&self) -> Vec<IndexInfo> {
        self.data
            .read()
            .map(|d| d.indexes.clone())
            .unwrap_or_default()
    }

    /// Adds an index; a UNIQUE one first checks the rows already stored.
    pub fn add_index(&self, index: IndexInfo) -> Result<()> {
        let mut data = self
            .data
            .write()
            .map_err(|_| Error::internal("table lock poisoned"))?;
        if index.unique {
            let present = key_set(&self.schema, &index.columns, &data.row_groups)?;
            data.unique.push(UniqueKey {
                columns: index.columns.clone(),
                present: Some(Arc::new(present)),
            });
        }
        data.indexes.push(index);
        Ok(())
    }

    /// Removes an index by name; `false` when the table has none of that name.
    pub fn drop_index(&self, name: &str) -> Result<bool> {
        let mut data = self
            .data
            .write()
            .map_err(|_| Error::internal("table lock poisoned"))?;
        let Some(pos) = data
            .indexes
            .iter()
            .position(|i| i.name.eq_ignore_ascii_case(name))
        else {
            return Ok(false);
        };
        let index = data.indexes.remove(pos);
        if index.unique {
            // Schema constraints come first; the index's rule is the matching later one.
            let fixed = self.schema.unique_keys.len();
            if let Some(p) = data
                .unique
                .iter()
                .skip(fixed)
                .position(|k| k.columns == index.columns)
            {
                data.unique.remove(fixed + p);
            }
        }
        Ok(true)
    }
}

/// The groups of `base` holding the row ids `rowids` (sorted, distinct): for each such
/// group, its position and the positions of those rows in it.
/// What is left of `group` without the rows at offsets `rows`: `None` when nothing.
/// A stored column is cut from its segment's bytes ([`crate::compression::take`]).
fn remaining_rows(group: &RowGroup, rows: &[usize]) -> Result<Option<RowGroup>> {
    let mut gone = vec![false; group.len];
    for &r in rows {
        gone[r] = true;
    }
    let keep: Vec<u32> = (0..group.len as u32)
        .filter(|&i| !gone[i as usize])
        .collect();
    if keep.is_empty() {
        return Ok(None);
    }
    let columns = group
        .columns
        .iter()
        .map(|c| c.take(&keep, group.len))
        .collect::<Result<Vec<_>>>()?;
    Ok(Some(RowGroup {
        columns,
        len: keep.len(),
    }))
}

fn rows_by_group(base: &[Arc<RowGroup>], rowids: &[u64]) -> Result<Vec<(usize, Vec<usize>)>> {
    let mut out: Vec<(usize, Vec<usize>)> = Vec::new();
    let (mut g, mut start) = (0usize, 0u64);
    for (i, &r) in rowids.iter().enumerate() {
        if i > 0 && r <= rowids[i - 1] {
            return Err(Error::internal("row ids to change are not ascending"));
        }
        while g < base.len() && r >= start + base[g].len as u64 {
            start += base[g].len as u64;
            g += 1;
        }
        if g == base.len() {
            return Err(Error::internal(format!(
                "row id {r} is past the table's end"
            )));
        }
        match out.last_mut() {
            Some((last, rows)) if *last == g => rows.push((r - start) as usize),
            _ => out.push((g, vec![(r - start) as usize])),
        }
    }
    Ok(out)
}

impl Table {
    /// Prepares deleting the rows with the given row ids (positions in `base`, the
    /// snapshot the ids were found in; sorted and distinct); [`Table::install`] makes
    /// it take effect.
    pub fn delete_rows(&self, base: &[Arc<RowGroup>], rowids: &[u64]) -> Result<Replacement> {
        // Each group's remaining rows are made on all cores: cutting stored columns
        // reads and re-packs every column of the group.
        let groups = rows_by_group(base, rowids)?;
        let threads = crate::cores();
        let remaining = stride_common::workers::map(&groups, threads, |(g, rows)| {
            remaining_rows(&base[*g], rows)
        })?;
        let mut changes = Vec::with_capacity(groups.len());
        for ((g, rows), new) in groups.into_iter().zip(remaining) {
            changes.push((g, rows, new?));
        }
        self.replace_groups(base, changes, None)
    }

    /// Prepares setting `columns` of the rows with the given row ids (sorted and
    /// distinct) to `values` (one vector per column, row i for row id i), checking the
    /// table's constraints; [`Table::install`] makes it take effect.
    pub fn update_rows(
        &self,
        base: &[Arc<RowGroup>],
        rowids: &[u64],
        columns: &[usize],
        values: &[Vector],
    ) -> Result<Replacement> {
        // New values read in place from a file or a DataFrame become the table's own.
        let values: Vec<Vector> = values
            .iter()
            .map(|v| {
                let mut v = v.clone();
                v.data.make_owned();
                v
            })
            .collect();
        // Each group's new columns are made on all cores; `at` is where its rows'
        // new values start.
        let mut groups = Vec::new();
        let mut at = 0usize;
        for (g, rows) in rows_by_group(base, rowids)? {
            let n = rows.len();
            groups.push((g, rows, at));
            at += n;
        }
        let threads = crate::cores();
        let updated = stride_common::workers::map(&groups, threads, |(g, rows, at)| {
            let group = &base[*g];
            let mut new = RowGroup::clone(group);
            let picked: Vec<u32> = (*at as u32..(at + rows.len()) as u32).collect();
            for (&c, v) in columns.iter().zip(&values) {
                // The group's column followed by this group's new values; a row taken
                // from the second part where it changes.
                let mut both = group.vector(c)?;
                both.append(&v.take(&picked), rows.len());
                let mut index: Vec<u32> = (0..group.len as u32).collect();
                for (k, &r) in rows.iter().enumerate() {
                    index[r] = (group.len + k) as u32;
                }
                new.columns[c] = Column::memory(both.take(&index));
            }
            Ok::<_, Error>(new)
        })?;
        let mut changes = Vec::with_capacity(groups.len());
        for ((g, rows, _), new) in groups.into_iter().zip(updated) {
            changes.push((g, rows, Some(new?)));
        }
        self.replace_groups(base, changes, Some(columns))
    }

    /// The table's row groups with `changes` (group position in `base`, the positions
    /// of the rows changed in it, its new contents or `None` to remove it) in place,
    /// with the table's constraints checked over the result. The groups changed must
    /// still be those of `base`; rows appended since stay. `updated`: the columns an
    /// UPDATE gave new values (NOT NULL is checked on them); `None` for a DELETE, whose
    /// rows are gone.
    fn replace_groups(
        &self,
        base: &[Arc<RowGroup>],
        changes: Vec<(usize, Vec<usize>, Option<RowGroup>)>,
        updated: Option<&[usize]>,
    ) -> Result<Replacement> {
        let deleting = updated.is_none();
        let data = self
            .data
            .read()
            .map_err(|_| Error::internal("table lock poisoned"))?;
        for (g, _, _) in &changes {
            if !data
                .row_groups
                .get(*g)
                .is_some_and(|cur| Arc::ptr_eq(cur, &base[*g]))
            {
                return Err(Error::new(
                    stride_common::ErrorKind::Transaction,
                    format!(
                        "Transaction conflict: rows of table \"{}\" changed since they were read; run the statement again",
                        self.schema.name
                    ),
                ));
            }
        }
        let mut groups: Vec<Option<(Arc<RowGroup>, RowIds)>> = data
            .row_groups
            .iter()
            .cloned()
            .zip(data.ids.iter().cloned())
            .map(Some)
            .collect();
        let mut touched = Vec::new();
        for (g, rows, new) in changes {
            touched.extend(data.ids[g].ids_at(&rows));
            let ids = if deleting {
                data.ids[g].without(&rows)
            } else {
                data.ids[g].clone()
            };
            if let (Some(new), Some(updated)) = (&new, updated) {
                // Only the columns given new values can have gained a NULL.
                for &ci in updated {
                    let col = &self.schema.columns[ci];
                    if !col.not_null {
                        continue;
                    }
                    let v = new.vector(ci)?;
                    if (0..new.len).any(|i| !v.is_valid(i)) {
                        return Err(Error::constraint(format!(
                            "NOT NULL constraint failed: {}.{}",
                            self.schema.name, col.name
                        )));
                    }
                }
            }
            groups[g] = new.map(|n| (Arc::new(n), ids));
        }
        let (groups, ids): (Vec<Arc<RowGroup>>, Vec<RowIds>) = groups.into_iter().flatten().unzip();
        let mut present = Vec::with_capacity(data.unique.len());
        for key in &data.unique {
            let set = key_set(&self.schema, &key.columns, &groups)?;
            present.push(set);
        }
        Ok(Replacement {
            before: data.row_groups.clone(),
            groups,
            ids,
            touched,
            present,
        })
    }

    /// Makes a prepared DELETE or UPDATE take effect; fails (changing nothing) when
    /// the table changed since it was prepared.
    pub fn install(&self, r: Replacement) -> Result<()> {
        let mut data = self
            .data
            .write()
            .map_err(|_| Error::internal("table lock poisoned"))?;
        let same = data.row_groups.len() == r.before.len()
            && data
                .row_groups
                .iter()
                .zip(&r.before)
                .all(|(a, b)| Arc::ptr_eq(a, b));
        if !same {
            return Err(Error::new(
                stride_common::ErrorKind::Transaction,
                format!(
                    "Transaction conflict: table \"{}\" changed while the statement ran; run it again",
                    self.schema.name
                ),
            ));
        }
        for (key, set) in data.unique.iter_mut().zip(r.present) {
            key.present = Some(Arc::new(set));
        }
        data.row_groups = r.groups;
        data.ids = r.ids;
        data.version += 1;
        let version = data.version;
        data.history.push_back((version, Arc::new(r.touched)));
        let mut kept: usize = data.history.iter().map(|(_, t)| t.len()).sum();
        while kept > HISTORY_IDS && data.history.len() > 1 {
            kept -= data.history.pop_front().map_or(0, |(_, t)| t.len());
        }
        Ok(())
    }
}

impl Table {
    /// Counts the deletes and updates installed (see [`Table::changed_since`]).
    pub fn version(&self) -> u64 {
        self.data.read().map_or(0, |d| d.version)
    }

    /// The id the next appended row takes.
    pub fn next_row_id(&self) -> u64 {
        self.data.read().map_or(0, |d| d.next_id)
    }

    /// The ids of the rows the deletes and updates installed after `version` changed;
    /// `None` when the table no longer remembers all of them.
    pub fn changed_since(&self, version: u64) -> Option<HashSet<u64>> {
        let data = self.data.read().ok()?;
        if data.version == version {
            return Some(HashSet::new());
        }
        let first = data.history.front()?.0;
        if first > version + 1 {
            return None;
        }
        Some(
            data.history
                .iter()
                .filter(|(v, _)| *v > version)
                .flat_map(|(_, ids)| ids.iter().copied())
                .collect(),
        )
    }

    /// The ids of the rows at positions `rowids` (ascending) as the table is now.
    pub fn ids_at(&self, rowids: &[u64]) -> Result<Vec<u64>> {
        let data = self
            .data
            .read()
            .map_err(|_| Error::internal("table lock poisoned"))?;
        let mut out = Vec::with_capacity(rowids.len());
        for (g, rows) in rows_by_group(&data.row_groups, rowids)? {
            out.extend(data.ids[g].ids_at(&rows));
        }
        Ok(out)
    }

    /// The positions of the rows with ids `ids` (ascending) as the table is now, or
    /// `None` for a row no longer there.
    pub fn positions_of(&self, ids: &[u64]) -> Result<Vec<Option<u64>>> {
        let data = self
            .data
            .read()
            .map_err(|_| Error::internal("table lock poisoned"))?;
        let mut out = Vec::with_capacity(ids.len());
        let (mut g, mut start, mut i) = (0usize, 0u64, 0usize);
        while i < ids.len() {
            // Ids ascend along the table: skip the groups before this one's.
            while g < data.ids.len() && !data.ids[g].covers(ids[i]) && data.ids[g].end() <= ids[i] {
                start += data.row_groups[g].len as u64;
                g += 1;
            }
            if g == data.ids.len() || !data.ids[g].covers(ids[i]) {
                out.push(None);
                i += 1;
                continue;
            }
            let n = ids[i..]
                .iter()
                .take_while(|&&id| data.ids[g].covers(id))
                .count();
            out.extend(
                data.ids[g]
                    .positions_of(&ids[i..i + n])
                    .into_iter()
                    .map(|p| p.map(|p| start + p as u64)),
            );
            i += n;
        }
        Ok(out)
    }
}

/// A DELETE or UPDATE prepared and checked, not yet in effect.
pub struct Replacement {
    /// The table's row groups it was prepared over.
    before: Vec<Arc<RowGroup>>,
    groups: Vec<Arc<RowGroup>>,
    ids: Vec<RowIds>,
    /// The ids of the rows deleted or updated.
    touched: Vec<u64>,
    /// Each unique key's values over `groups`.
    present: Vec<HashSet<String>>,
}

impl Table {
    /// The table after ALTER TABLE `change`: a new table with the same id and rows
    /// (row groups shared where the change leaves them as they are).
    pub fn altered(&self, change: &stride_common::TableAlteration) -> Result<Table> {
        use stride_common::TableAlteration as A;
        let data = self
            .data
            .read()
            .map_err(|_| Error::internal("table lock poisoned"))?;
        let mut schema = TableSchema::clone(&self.schema);
        let mut groups = data.row_groups.clone();
        let mut unique: Vec<UniqueKey> = data
            .unique
            .iter()
            .map(|k| UniqueKey {
                columns: k.columns.clone(),
                present: k.present.clone(),
            })
            .collect();
        let mut indexes = data.indexes.clone();
        let position = |name: &str| {
            self.schema.column_index(name).ok_or_else(|| {
                Error::binder(format!(
                    "Table \"{}\" does not have a column with name \"{name}\"",
                    self.schema.name
                ))
            })
        };
        match change {
            A::AddColumn(col) => {
                let value = col.default.clone().unwrap_or(ScalarValue::Null);
                if col.not_null && value.is_null() && groups.iter().any(|g| g.len > 0) {
                    return Err(Error::constraint(format!(
                        "NOT NULL constraint failed: {}.{} (the table has rows, and the new column has no DEFAULT)",
                        schema.name, col.name
                    )));
                }
                for g in &mut groups {
                    let mut new = RowGroup::clone(g);
                    new.columns.push(Column::memory(
                        Vector::constant(&value, &col.ty)?.flatten(g.len),
                    ));
                    *g = Arc::new(new);
                }
                schema.columns.push(col.clone());
            }
            A::DropColumn(name) => {
                let c = position(name)?;
                if schema.columns.len() == 1 {
                    return Err(Error::catalog(format!(
                        "cannot drop column \"{name}\": it is the only column of table \"{}\"; drop the table instead",
                        schema.name
                    )));
                }
                let used = unique.iter().any(|k| k.columns.contains(&c))
                    || indexes.iter().any(|i| i.columns.contains(&c));
                if used {
                    return Err(Error::catalog(format!(
                        "cannot drop column \"{name}\": a key or index of table \"{}\" uses it; drop that first",
                        schema.name
                    )));
                }
                let shift = |p: &mut usize| {
                    if *p > c {
                        *p -= 1
                    }
                };
                unique
                    .iter_mut()
                    .for_each(|k| k.columns.iter_mut().for_each(shift));
                schema
                    .unique_keys
                    .iter_mut()
                    .for_each(|k| k.iter_mut().for_each(shift));
                indexes
                    .iter_mut()
                    .for_each(|i| i.columns.iter_mut().for_each(shift));
                for g in &mut groups {
                    let mut new = RowGroup::clone(g);
                    new.columns.remove(c);
                    *g = Arc::new(new);
                }
                schema.columns.remove(c);
            }
            A::RenameColumn { old, new } => {
                let c = position(old)?;
                schema.columns[c].name = new.clone();
            }
            A::RenameTable(new) => schema.name = new.clone(),
            A::SetDefault { column, default } => {
                // a constant default (or none) replaces an expression one too
                let c = position(column)?;
                schema.columns[c].default = default.clone();
                schema.columns[c].default_expr = None;
            }
            A::SetNotNull { column, not_null } => {
                let c = position(column)?;
                if *not_null {
                    for g in &groups {
                        let v = g.vector(c)?;
                        if (0..g.len).any(|i| !v.is_valid(i)) {
                            return Err(Error::constraint(format!(
                                "NOT NULL constraint failed: {}.{} (the column holds NULLs; set them first)",
                                schema.name, schema.columns[c].name
                            )));
                        }
                    }
                }
                schema.columns[c].not_null = *not_null;
            }
            A::SetType { column, ty, values } => {
                let c = position(column)?;
                let fits = values.len() == groups.len()
                    && values.iter().all(|v| &v.ty == ty)
                    && values
                        .iter()
                        .zip(&groups)
                        .all(|(v, g)| v.data_len() >= g.len);
                if !fits {
                    return Err(Error::internal(format!(
                        "ALTER COLUMN {column} TYPE {ty}: the converted values do not fit the table's row groups"
                    )));
                }
                for (g, v) in groups.iter_mut().zip(values) {
                    let mut new = RowGroup::clone(g);
                    new.columns[c] = Column::memory(v.clone());
                    *g = Arc::new(new);
                }
                schema.columns[c].ty = ty.clone();
                // A new type comes without a collation, as in DuckDB and PostgreSQL.
                schema.columns[c].collation = stride_common::Collation::BINARY;
                if let Some(d) = &schema.columns[c].default {
                    if d.data_type() != *ty {
                        // The old default no longer has the column's type; the
                        // facade follows with a SetDefault of it converted (storage
                        // has no casts), logged after this change.
                        schema.columns[c].default = None;
                    }
                }
                // Keys over the column hold values of the old type.
                for key in &mut unique {
                    if key.columns.contains(&c) {
                        let present = key_set(&schema, &key.columns, &groups)?;
                        key.present = Some(Arc::new(present));
                    }
                }
            }
        }
        Ok(Table {
            id: self.id,
            schema: Arc::new(schema),
            data: RwLock::new(TableData {
                row_groups: groups,
                ids: data.ids.clone(),
                next_id: data.next_id,
                version: data.version,
                history: VecDeque::new(),
                unique,
                indexes,
            }),
            distinct: Mutex::new(HashMap::new()),
            counts_unsaved: Default::default(),
        })
    }
}
