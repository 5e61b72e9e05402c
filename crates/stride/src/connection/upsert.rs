//! INSERT ... ON CONFLICT: the proposed rows are split into those that take a free key
//! (inserted), those whose key a row of the table holds (skipped, or with DO UPDATE
//! that row changed), and those whose key an earlier row of the same statement took
//! (skipped with DO NOTHING; an error with DO UPDATE, as in PostgreSQL, since a row
//! would change twice). The update and the insert commit together: one WAL record,
//! the update first (its row ids are those before the insert), checked together on a
//! fork of the table before anything is logged.

use super::writes::{changed_meanwhile, Load};
use super::{checkpoint_if_due, log, Connection};
use crate::databases::Store;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use stride_common::{DataChunk, Error, Result, Vector, VECTOR_SIZE};
use stride_exec::QueryContext;
use stride_sql::binder::OnConflict;
use stride_storage::bulk_load::Piece;
use stride_storage::{key_of, Table, WalEntry};

/// Parts of flat vectors and their row counts.
type Parts = Vec<(Vec<Vector>, usize)>;

enum Conflict {
    /// A row of the table, by row id.
    Stored(u64),
    /// A row this statement inserts.
    Proposed,
}

impl Connection {
    /// Inserts `parts` into `table` under `on`; returns the rows inserted or updated,
    /// and their images (the table's columns) when `images` is asked for.
    pub(crate) fn upsert(
        &self,
        store: &Store,
        table: &Arc<Table>,
        parts: Parts,
        on: &OnConflict,
        images: bool,
        ctx: &QueryContext,
    ) -> Result<(usize, Option<Parts>)> {
        let mut writer = self.writer(store)?;
        let current = self.catalog_of(store).table_by_id(table.id);
        if !current.is_some_and(|c| Arc::ptr_eq(&c, table)) {
            return Err(changed_meanwhile(&table.schema.name));
        }
        let base = table.snapshot();
        // Each proposed row's key under each unique key checked.
        let keys: Vec<Vec<Vec<Option<String>>>> = on
            .keys
            .iter()
            .map(|k| {
                parts
                    .iter()
                    .map(|(cols, len)| {
                        let kc: Vec<Vector> = k.iter().map(|&c| cols[c].clone()).collect();
                        (0..*len).map(|i| key_of(&kc, i)).collect()
                    })
                    .collect()
            })
            .collect();
        let stored: Vec<HashMap<String, u64>> = on
            .keys
            .iter()
            .zip(&keys)
            .map(|(k, per_part)| {
                let wanted: HashSet<String> =
                    per_part.iter().flatten().flatten().cloned().collect();
                table.rows_with_keys(&base, k, &wanted)
            })
            .collect::<Result<_>>()?;
        let mut taken: Vec<HashSet<String>> = on.keys.iter().map(|_| HashSet::new()).collect();
        let mut inserts: Vec<Vec<u32>> = parts.iter().map(|_| Vec::new()).collect();
        // (row id, part, row) of each stored row to update.
        let mut updates: Vec<(u64, usize, usize)> = Vec::new();
        for (p, (_, len)) in parts.iter().enumerate() {
            for i in 0..*len {
                let conflict = (0..on.keys.len()).find_map(|k| {
                    let key = keys[k][p][i].as_ref()?;
                    if let Some(&r) = stored[k].get(key) {
                        Some(Conflict::Stored(r))
                    } else {
                        taken[k].contains(key).then_some(Conflict::Proposed)
                    }
                });
                match (conflict, &on.update) {
                    (None, _) => {
                        for k in 0..on.keys.len() {
                            if let Some(key) = &keys[k][p][i] {
                                taken[k].insert(key.clone());
                            }
                        }
                        inserts[p].push(i as u32);
                    }
                    (Some(_), None) => {}
                    (Some(Conflict::Stored(r)), Some(_)) => updates.push((r, p, i)),
                    (Some(Conflict::Proposed), Some(_)) => return Err(twice()),
                }
            }
        }
        updates.sort_by_key(|u| u.0);
        if updates.windows(2).any(|w| w[0].0 == w[1].0) {
            return Err(twice());
        }
        // DO UPDATE: new values from the stored rows and the proposed ones.
        let mut update = None;
        let mut updated_images = Vec::new();
        if let (Some(u), false) = (&on.update, updates.is_empty()) {
            let rowids: Vec<u64> = updates.iter().map(|x| x.0).collect();
            let old = table.rows_at(&base, &rowids)?;
            let proposed: Vec<Vector> = (0..table.schema.columns.len())
                .map(|c| {
                    let mut v = Vector::with_capacity(&table.schema.columns[c].ty, updates.len());
                    for &(_, p, i) in &updates {
                        v.append(&parts[p].0[c].slice(i, 1), 1);
                    }
                    v
                })
                .collect();
            let mut kept_ids = Vec::new();
            let mut values: Vec<Vector> = u
                .columns
                .iter()
                .map(|&c| Vector::with_capacity(&table.schema.columns[c].ty, rowids.len()))
                .collect();
            let mut new_rows: Vec<Vector> = old
                .iter()
                .map(|v| Vector::with_capacity(&v.ty, rowids.len()))
                .collect();
            let mut offset = 0;
            while offset < rowids.len() {
                let n = VECTOR_SIZE.min(rowids.len() - offset);
                let cols = old
                    .iter()
                    .chain(&proposed)
                    .map(|v| v.slice(offset, n))
                    .collect();
                let chunk = DataChunk::new(cols, n);
                let keep: Vec<u32> = match &u.filter {
                    Some(f) => stride_exec::expression::select(f, &chunk, ctx)?.indices,
                    None => (0..n as u32).collect(),
                };
                let set = u
                    .values
                    .iter()
                    .map(|e| stride_exec::expression::eval(e, &chunk, ctx))
                    .collect::<Result<Vec<_>>>()?;
                for (dst, v) in values.iter_mut().zip(&set) {
                    dst.append(&v.take(&keep), keep.len());
                }
                for (c, dst) in new_rows.iter_mut().enumerate() {
                    let src = match u.columns.iter().position(|&x| x == c) {
                        Some(k) => set[k].take(&keep),
                        None => old[c].slice(offset, n).take(&keep),
                    };
                    dst.append(&src, keep.len());
                }
                kept_ids.extend(keep.iter().map(|&k| rowids[offset + k as usize]));
                offset += n;
            }
            if let Some(check) = &u.check {
                let mut offset = 0;
                while offset < kept_ids.len() {
                    let n = VECTOR_SIZE.min(kept_ids.len() - offset);
                    let cols = new_rows.iter().map(|v| v.slice(offset, n)).collect();
                    stride_exec::expression::eval(check, &DataChunk::new(cols, n), ctx)?;
                    offset += n;
                }
            }
            if !kept_ids.is_empty() {
                updated_images.push((new_rows, kept_ids.len()));
                update = Some((kept_ids, u.columns.clone(), values));
            }
        }
        let new_parts: Parts = parts
            .iter()
            .zip(&inserts)
            .filter(|(_, rows)| !rows.is_empty())
            .map(|((cols, _), rows)| (cols.iter().map(|c| c.take(rows)).collect(), rows.len()))
            .collect();
        let inserted: usize = new_parts.iter().map(|(_, n)| n).sum();
        let updated = update.as_ref().map_or(0, |(ids, _, _)| ids.len());
        // Checked together on a fork before anything is logged.
        let trial = table.fork()?;
        if let Some((ids, cols, values)) = &update {
            trial.install(trial.update_rows(&base, ids, cols, values)?)?;
        }
        trial.check_append(&new_parts)?;
        let prepared = match &update {
            Some((ids, cols, values)) => Some(table.update_rows(&base, ids, cols, values)?),
            None => None,
        };
        let mut out_images = images.then(|| {
            let mut all = new_parts.clone();
            all.extend(updated_images);
            all
        });
        let mut entries = Vec::new();
        if let Some((rowids, columns, values)) = update {
            entries.push(WalEntry::Update {
                table: table.schema.name.clone(),
                columns,
                rowids,
                values,
            });
        }
        let load = if inserted > 0 {
            let load = Load::new(
                &mut writer,
                &table.schema.name,
                &table.schema.types(),
                new_parts
                    .into_iter()
                    .map(|(c, n)| Piece::Rows(c, n))
                    .collect(),
            )?;
            entries.push(load.entry());
            Some(load)
        } else {
            None
        };
        if entries.is_empty() {
            return Ok((0, out_images.take()));
        }
        log(&mut writer, &entries)?;
        if let Some(p) = prepared {
            table.install(p)?;
        }
        if let Some(load) = load {
            load.apply(table)?;
        }
        checkpoint_if_due(&mut writer);
        Ok((inserted + updated, out_images))
    }
}

fn twice() -> Error {
    Error::constraint(
        "ON CONFLICT DO UPDATE command cannot affect row a second time: two proposed rows have the same key; make the keys of the inserted rows distinct",
    )
}
