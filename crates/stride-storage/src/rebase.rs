//! Rebasing a transaction's changes, at COMMIT, onto the commits made since it began.
//! The transaction recorded its deletes and updates by row position in its own copy of
//! the tables; other commits may since have deleted rows of the same tables, which
//! moves positions, or changed the very rows it changed. Replaying its changes on a
//! copy of the tables as they were at BEGIN (`mine`) gives each change's row ids
//! (`row_ids.rs`). A change to a row another commit changed since BEGIN is a conflict
//! (first committer wins); the others are expressed again by the rows' positions in the
//! tables as they are now (`theirs`), which is what the WAL then records.

use crate::catalog::Catalog;
use crate::database_file::apply_entry;
use crate::row_ids::FORK_IDS;
use crate::table::Table;
use crate::wal::WalEntry;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use stride_common::{Error, Result};

/// Applies `entries` to `mine` as they are and to `theirs` rebased, and returns them
/// rebased. `changed`: for each table to rebase (by lower-case name), the ids of the
/// rows other commits deleted or updated since the transaction began.
pub fn rebase(
    mine: &Catalog,
    theirs: &Catalog,
    entries: Vec<WalEntry>,
    changed: &HashMap<String, HashSet<u64>>,
) -> Result<Vec<WalEntry>> {
    // Rows the transaction appended, per table: runs of (first id in mine, first id in
    // theirs, rows).
    let mut appended: HashMap<String, Vec<(u64, u64, u64)>> = HashMap::new();
    let mut out = Vec::with_capacity(entries.len());
    for e in entries {
        let name = match &e {
            WalEntry::Insert { table, .. }
            | WalEntry::Delete { table, .. }
            | WalEntry::Update { table, .. } => table.to_ascii_lowercase(),
            _ => String::new(),
        };
        let Some(others) = changed.get(&name) else {
            apply_entry(mine, e.clone())?;
            apply_entry(theirs, e.clone())?;
            out.push(e);
            continue;
        };
        let (m, t) = (table(mine, &name)?, table(theirs, &name)?);
        let rebased = match e.clone() {
            WalEntry::Insert { table, parts } => {
                let (m0, t0) = (m.next_row_id(), t.next_row_id());
                apply_entry(mine, WalEntry::Insert { table, parts })?;
                let n = m.next_row_id() - m0;
                appended.entry(name).or_default().push((m0, t0, n));
                e
            }
            WalEntry::Delete { table, rowids } => {
                let rowids = positions_now(&m, &t, &rowids, others, &appended, &name)?;
                apply_entry(mine, e)?;
                WalEntry::Delete { table, rowids }
            }
            WalEntry::Update {
                table,
                columns,
                rowids,
                values,
            } => {
                let rowids = positions_now(&m, &t, &rowids, others, &appended, &name)?;
                apply_entry(mine, e)?;
                WalEntry::Update {
                    table,
                    columns,
                    rowids,
                    values,
                }
            }
            other => other,
        };
        apply_entry(theirs, rebased.clone())?;
        out.push(rebased);
    }
    Ok(out)
}

fn table(catalog: &Catalog, name: &str) -> Result<Arc<Table>> {
    catalog.table(name).ok_or_else(|| {
        Error::internal(format!(
            "table \"{name}\" vanished while a commit was rebased"
        ))
    })
}

/// The positions in `theirs` of the rows at `rowids` in `mine`, failing with a
/// conflict when another commit changed one of them.
fn positions_now(
    mine: &Table,
    theirs: &Table,
    rowids: &[u64],
    others: &HashSet<u64>,
    appended: &HashMap<String, Vec<(u64, u64, u64)>>,
    name: &str,
) -> Result<Vec<u64>> {
    let runs = appended.get(name).map(Vec::as_slice).unwrap_or_default();
    let ids = mine
        .ids_at(rowids)?
        .into_iter()
        .map(|id| {
            if id < FORK_IDS {
                if others.contains(&id) {
                    return Err(conflict(&mine.schema.name));
                }
                return Ok(id);
            }
            // A row this transaction appended: its id where the append was replayed.
            runs.iter()
                .find(|&&(m0, _, n)| id >= m0 && id < m0 + n)
                .map(|&(m0, t0, _)| t0 + (id - m0))
                .ok_or_else(|| Error::internal("a row the transaction appended was not replayed"))
        })
        .collect::<Result<Vec<u64>>>()?;
    theirs
        .positions_of(&ids)?
        .into_iter()
        .map(|p| p.ok_or_else(|| conflict(&mine.schema.name)))
        .collect()
}

fn conflict(table: &str) -> Error {
    Error::new(
        stride_common::ErrorKind::Transaction,
        format!("Transaction conflict: a row of table \"{table}\" that this transaction changed was changed by another transaction since this one began; the transaction was rolled back"),
    )
}
