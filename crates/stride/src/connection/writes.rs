//! Statements that change a table's rows, as the connection runs them: DELETE and
//! UPDATE (`Connection::modify`: the plan yields row ids and new values, which are
//! logged and then applied), INSERT (`Connection::insert`), and [`Load`], the rows on
//! their way into a table (parts for the WAL, or row groups a bulk load already wrote
//! into the file's blocks). RETURNING's rows are built here too.
//!
//! Where it sits: the facade (step 1 and 7 of a query's life), after binding; the
//! statement dispatch in connection.rs calls these.

use super::access::{checkpoint_if_due, log, WriteLock};
use super::Connection;
use crate::databases::Store;
use crate::result::QueryResult;
use std::sync::Arc;
use stride_common::{DataChunk, DataType, Error, Result, TableSchema, Vector};
use stride_exec::operators::materialize::part_bytes;
use stride_exec::QueryContext;
use stride_sql::binder::Returning;
use stride_storage::bulk_load::{encoded_groups, Piece};
use stride_storage::catalogs::local_id;
use stride_storage::checkpoint::StoredColumn;
use stride_storage::{RowGroup, Table, WalEntry};

impl Connection {
    /// DELETE (`columns` empty) and UPDATE: runs `plan` for the row ids (and new
    /// values), logs the change and applies it. Returns the rows changed.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn modify(
        &self,
        store: &Store,
        table_id: u64,
        name: &str,
        columns: &[usize],
        plan: &stride_sql::plan::LogicalPlan,
        returning: Option<&Returning>,
        ctx: &Arc<QueryContext>,
    ) -> Result<QueryResult> {
        let mut writer = self.writer(store)?;
        let t = self
            .catalog_of(store)
            .table_by_id(local_id(table_id))
            .ok_or_else(|| Error::catalog(format!("Table with name {name} does not exist!")))?;
        if !bound_schema(plan, table_id).is_some_and(|b| Arc::ptr_eq(&b, &t.schema)) {
            return Err(changed_meanwhile(name));
        }
        // The query below reads this same snapshot: nothing else writes meanwhile.
        let base = t.snapshot();
        let parts = self.materialize(plan, ctx)?;
        // Row ids with the position of their first row of new values.
        let mut ids: Vec<(u64, usize, usize)> = Vec::new();
        for (p, (cols, len)) in parts.iter().enumerate() {
            let rowids = cols[0].values::<i64>();
            for i in 0..*len {
                ids.push((rowids[cols[0].index(i)] as u64, p, i));
            }
        }
        ids.sort_by_key(|&(r, _, _)| r);
        ids.dedup_by_key(|&mut (r, _, _)| r);
        let rowids: Vec<u64> = ids.iter().map(|&(r, _, _)| r).collect();
        let (entry, prepared) = if columns.is_empty() {
            let prepared = t.delete_rows(&base, &rowids)?;
            (
                WalEntry::Delete {
                    table: t.schema.name.clone(),
                    rowids,
                },
                prepared,
            )
        } else {
            let values: Vec<Vector> = (0..columns.len())
                .map(|c| {
                    let ty = &t.schema.columns[columns[c]].ty;
                    let mut v = Vector::with_capacity(ty, ids.len());
                    for &(_, p, i) in &ids {
                        v.append(&parts[p].0[c + 1].slice(i, 1), 1);
                    }
                    v
                })
                .collect();
            let prepared = t.update_rows(&base, &rowids, columns, &values)?;
            (
                WalEntry::Update {
                    table: t.schema.name.clone(),
                    columns: columns.to_vec(),
                    rowids,
                    values,
                },
                prepared,
            )
        };
        // RETURNING's row images follow the row id and the new values.
        let images = returning.map(|_| {
            let first = 1 + columns.len();
            let images: Vec<Vector> = t
                .schema
                .columns
                .iter()
                .enumerate()
                .map(|(c, col)| {
                    let mut v = Vector::with_capacity(&col.ty, ids.len());
                    for &(_, p, i) in &ids {
                        v.append(&parts[p].0[first + c].slice(i, 1), 1);
                    }
                    v
                })
                .collect();
            (images, ids.len())
        });
        log(&mut writer, std::slice::from_ref(&entry))?;
        t.install(prepared)?;
        checkpoint_if_due(&mut writer);
        let mut r = match (returning, images) {
            (Some(ret), Some(images)) => returning_result(ret, &[images], ctx)?,
            _ => QueryResult::done(None),
        };
        r.changes = Some(ids.len() as u64);
        Ok(r)
    }

    /// Runs `plan` for rows to append to a table in `store` (with unique keys to
    /// check: `unique`). When they go straight into the database file
    /// (autocommit, no unique key), each morsel's rows are encoded on the worker that
    /// read them ([`Piece::of`]).
    pub(crate) fn materialize_pieces(
        &self,
        store: &Store,
        unique: bool,
        plan: &stride_sql::plan::LogicalPlan,
        ctx: &QueryContext,
    ) -> Result<Vec<Piece>> {
        let autocommit = self.transaction.lock().is_ok_and(|t| t.is_none());
        let to_file = store.file.as_ref().is_some_and(|f| !f.read_only);
        if unique || !autocommit || !to_file {
            let parts = self.materialize(plan, ctx)?;
            return Ok(parts.into_iter().map(|(c, n)| Piece::Rows(c, n)).collect());
        }
        let make = |(columns, len): (Vec<Vector>, usize)| -> Result<(Piece, u64)> {
            let piece = Piece::of(columns, len);
            let bytes = match &piece {
                Piece::Encoded(g) => g.size() as u64,
                Piece::Rows(c, n) => part_bytes(c, *n),
            };
            Ok((piece, bytes))
        };
        stride_exec::execute_materialize_into(&self.physical(plan, ctx)?, ctx, &make)
    }

    /// Appends rows to `table` (INSERT, COPY): checked, logged, then applied.
    pub(crate) fn insert(
        &self,
        store: &Store,
        table: &Arc<Table>,
        pieces: Vec<Piece>,
    ) -> Result<usize> {
        let mut writer = self.writer(store)?;
        // The table may have been altered or replaced while the rows were computed.
        let current = self.catalog_of(store).table_by_id(table.id);
        if !current.is_some_and(|c| Arc::ptr_eq(&c, table)) {
            return Err(changed_meanwhile(&table.schema.name));
        }
        if writer.file.is_none() && writer.transaction.is_none() {
            let parts = pieces.into_iter().map(Piece::into_rows);
            return table.append_parts(parts.collect::<Result<_>>()?);
        }
        table.check_pieces(&pieces)?;
        let load = Load::new(
            &mut writer,
            &table.schema.name,
            &table.schema.types(),
            pieces,
        )?;
        log(&mut writer, &[load.entry()])?;
        let n = load.apply(table)?;
        checkpoint_if_due(&mut writer);
        Ok(n)
    }
}

/// Rows on their way into a table: as parts for the WAL, or, for a bulk load into a
/// database file (a row group or more, or rows encoded as they were read), as row
/// groups already written to its blocks.
pub(super) enum Load {
    Logged {
        table: String,
        parts: Vec<(Vec<Vector>, usize)>,
    },
    Stored {
        table: String,
        groups: Vec<Arc<RowGroup>>,
        columns: Vec<Vec<StoredColumn>>,
    },
}

impl Load {
    pub(super) fn new(
        writer: &mut WriteLock<'_>,
        table: &str,
        types: &[DataType],
        pieces: Vec<Piece>,
    ) -> Result<Load> {
        let rows: usize = pieces.iter().map(Piece::len).sum();
        let encoded = pieces.iter().any(|p| matches!(p, Piece::Encoded(_)));
        let table = table.to_string();
        match &mut writer.file {
            Some(w) if rows >= stride_common::MORSEL_SIZE || encoded => {
                let (groups, columns) = w.write_encoded(encoded_groups(types, pieces)?)?;
                Ok(Load::Stored {
                    table,
                    groups,
                    columns,
                })
            }
            _ => {
                let parts = pieces.into_iter().map(Piece::into_rows);
                Ok(Load::Logged {
                    table,
                    parts: parts.collect::<Result<_>>()?,
                })
            }
        }
    }

    pub(super) fn entry(&self) -> WalEntry {
        match self {
            Load::Logged { table, parts } => WalEntry::Insert {
                table: table.clone(),
                parts: parts.clone(),
            },
            Load::Stored {
                table,
                groups,
                columns,
            } => WalEntry::InsertStored {
                table: table.clone(),
                groups: groups
                    .iter()
                    .zip(columns)
                    .map(|(g, cols)| {
                        let cols = cols.iter().map(|(e, z)| (e.clone(), Some(z.clone())));
                        (g.len, cols.collect())
                    })
                    .collect(),
            },
        }
    }

    pub(super) fn apply(self, table: &Table) -> Result<usize> {
        match self {
            Load::Logged { parts, .. } => table.append_parts(parts),
            Load::Stored { groups, .. } => table.append_groups(groups),
        }
    }
}

pub(super) fn changed_meanwhile(table: &str) -> Error {
    Error::new(
        stride_common::ErrorKind::Transaction,
        format!("Transaction conflict: table \"{table}\" was altered or replaced while the statement ran; run it again"),
    )
}

/// The schema a plan's scan of table `table_id` was bound against.
pub(super) fn bound_schema(
    plan: &stride_sql::plan::LogicalPlan,
    table_id: u64,
) -> Option<Arc<TableSchema>> {
    if let stride_sql::plan::LogicalPlan::Scan {
        table,
        table_id: id,
        ..
    } = plan
    {
        if *id == table_id {
            return Some(table.clone());
        }
    }
    plan.children()
        .into_iter()
        .find_map(|c| bound_schema(c, table_id))
}

/// The rows of RETURNING `ret` evaluated over the changed rows' images (the table's
/// columns, in parts of flat vectors and row counts).
pub(super) fn returning_result(
    ret: &Returning,
    images: &[(Vec<Vector>, usize)],
    ctx: &QueryContext,
) -> Result<QueryResult> {
    let mut chunks = Vec::new();
    for (cols, len) in images {
        let mut offset = 0;
        while offset < *len {
            let n = stride_common::VECTOR_SIZE.min(len - offset);
            let chunk = DataChunk::new(cols.iter().map(|c| c.slice(offset, n)).collect(), n);
            let out = ret
                .exprs
                .iter()
                .map(|e| stride_exec::expression::eval(e, &chunk, ctx))
                .collect::<Result<Vec<_>>>()?;
            chunks.push(DataChunk::new(out, n));
            offset += n;
        }
    }
    Ok(QueryResult::chunks(
        ret.schema.iter().map(|f| f.name.clone()).collect(),
        ret.schema.iter().map(|f| f.ty.clone()).collect(),
        chunks,
    ))
}
