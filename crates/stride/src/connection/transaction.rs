//! Transactions: BEGIN gives the connection a [`Transaction`], a fork of every
//! database's catalog (row groups are shared, so it costs a list of pointers per
//! table) that its statements read and change, with the log entries they would write.
//! A transaction changes one database only (as in DuckDB). COMMIT checks for
//! conflicts: a table it dropped, replaced or altered must be as it was at BEGIN, and
//! a row it deleted or updated must not have been deleted or updated by a commit since
//! (first committer wins; `stride_storage::rebase` moves its changes onto the rows'
//! positions now). Appends never conflict. COMMIT then tries the entries on a fresh
//! fork, logs them as one WAL record and applies them inside `Catalog::atomically`;
//! a COMMIT that fails rolls the transaction back. ROLLBACK drops the fork. AND CHAIN
//! begins the next transaction (same access mode) right after either. A READ ONLY
//! transaction refuses every change (`Connection::writer`). SAVEPOINT keeps a fork of
//! the transaction's catalogs and the length of its log, which ROLLBACK TO puts back.

use super::{checkpoint_if_due, Connection};
use crate::databases::Store;
use std::collections::HashMap;
use std::sync::Arc;
use stride_common::{Error, Result};
use stride_sql::binder::TransactionOp;
use stride_storage::{Catalogs, WalEntry};

/// An open transaction (BEGIN ... COMMIT): its statements read and change a copy of
/// the catalog taken at BEGIN (a snapshot: other connections' commits stay unseen),
/// and their changes wait in `entries` until COMMIT applies them to the database.
pub(crate) struct Transaction {
    /// Every database's catalog as of BEGIN, with this transaction's changes.
    pub(super) catalogs: Catalogs,
    /// Every database's catalog as of BEGIN, unchanged (to find conflicts, and to
    /// rebase the changes at COMMIT).
    base: Catalogs,
    /// The database the transaction changes (slot and name), once it changes one.
    written: Option<(u64, String)>,
    pub(super) entries: Vec<WalEntry>,
    /// Why a statement of the transaction failed: it can then only be rolled back.
    pub(super) failed: Option<String>,
    /// READ ONLY: every statement that would change the database fails.
    pub(super) read_only: bool,
    /// Since when no statement of the transaction has been running (None while one
    /// is), for `idle_in_transaction_session_timeout`.
    idle_since: Option<std::time::Instant>,
    /// When it began (microseconds since the epoch): what `now()` reads in it.
    pub(super) started: i64,
    /// Its number among the database's transactions (`txid_current()`).
    pub(super) id: u64,
    /// Its savepoints, oldest first (names may repeat: the newest one counts).
    savepoints: Vec<Savepoint>,
}

/// What SAVEPOINT keeps of a transaction for ROLLBACK TO to go back to: its catalogs
/// as they were (a fork, as BEGIN takes one: what changes them later leaves the fork
/// as it is, DDL included) and how many log entries it had. Sequences are shared with
/// the fork, so values taken from them stay taken, as in PostgreSQL.
struct Savepoint {
    name: String,
    catalogs: Catalogs,
    entries: usize,
    written: Option<(u64, String)>,
}

/// Tables `entries` change in any way (their rows, columns or existence).
fn named_tables(entries: &[WalEntry]) -> Vec<String> {
    let mut out: Vec<String> = rewritten_tables(entries);
    for e in entries {
        let name = match e {
            WalEntry::Insert { table, .. }
            | WalEntry::InsertStored { table, .. }
            | WalEntry::CreateIndex { table, .. } => table,
            _ => continue,
        };
        if !out.iter().any(|n| n.eq_ignore_ascii_case(name)) {
            out.push(name.clone());
        }
    }
    out
}

/// Tables whose existing rows `entries` change (appends do not conflict).
fn rewritten_tables(entries: &[WalEntry]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in entries {
        let name = match e {
            WalEntry::Delete { table, .. } | WalEntry::Update { table, .. } => table,
            _ => continue,
        };
        if !out.iter().any(|n| n.eq_ignore_ascii_case(name)) {
            out.push(name.clone());
        }
    }
    out.extend(replaced_tables(entries));
    out
}

/// Tables `entries` drop, replace or alter: these must be as they were at BEGIN.
fn replaced_tables(entries: &[WalEntry]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in entries {
        let name = match e {
            WalEntry::DropTable { name } => name,
            WalEntry::AlterTable { table, .. } => table,
            WalEntry::CreateTable {
                schema,
                replace: true,
            } => &schema.name,
            _ => continue,
        };
        if !out.iter().any(|n| n.eq_ignore_ascii_case(name)) {
            out.push(name.clone());
        }
    }
    out
}

impl Transaction {
    /// Records that the transaction changes `store`: it may change one database only.
    pub(super) fn write_to(&mut self, store: &Store) -> Result<()> {
        if self.catalogs.catalog(store.slot).is_none() {
            return Err(Error::new(
                stride_common::ErrorKind::Transaction,
                format!("database \"{}\" was attached after this transaction began; change it in a new transaction", store.name),
            ));
        }
        match &self.written {
            Some((slot, name)) if *slot != store.slot => Err(Error::new(
                stride_common::ErrorKind::Transaction,
                format!("Attempting to write to database \"{}\" in a transaction that has already modified database \"{name}\": a transaction changes one database only; COMMIT it first", store.name),
            )),
            _ => {
                self.written = Some((store.slot, store.name.clone()));
                Ok(())
            }
        }
    }
}

/// SAVEPOINT, RELEASE and ROLLBACK TO on an open transaction, as PostgreSQL has
/// them: ROLLBACK TO puts back the catalogs and log the savepoint kept (undoing
/// rows and DDL alike), forgets the savepoints set after it and clears a failure, so
/// a transaction a statement failed in goes on; RELEASE forgets the savepoint and
/// those after it. A name no savepoint has is an error (3B001).
fn savepoint_op(t: &mut Transaction, op: TransactionOp) -> Result<()> {
    let find = |t: &Transaction, name: &str| {
        t.savepoints
            .iter()
            .rposition(|s| s.name == name)
            .ok_or_else(|| {
                Error::new(
                    stride_common::ErrorKind::Transaction,
                    format!("savepoint \"{name}\" does not exist"),
                )
                .with_sqlstate(stride_common::error::sqlstate::INVALID_SAVEPOINT)
            })
    };
    let aborted = |why: &str| {
        Error::new(
            stride_common::ErrorKind::Transaction,
            format!("Current transaction is aborted (please ROLLBACK): {why}"),
        )
    };
    match op {
        TransactionOp::Savepoint(name) => {
            if let Some(why) = &t.failed {
                return Err(aborted(why));
            }
            let catalogs = t.catalogs.fork()?;
            t.savepoints.push(Savepoint {
                name,
                catalogs,
                entries: t.entries.len(),
                written: t.written.clone(),
            });
        }
        TransactionOp::Release(name) => {
            if let Some(why) = &t.failed {
                return Err(aborted(why));
            }
            let at = find(t, &name)?;
            t.savepoints.truncate(at);
        }
        TransactionOp::RollbackTo(name) => {
            let at = find(t, &name)?;
            t.savepoints.truncate(at + 1);
            let s = &t.savepoints[at];
            // A fork again: the savepoint stays for another ROLLBACK TO.
            t.catalogs = s.catalogs.fork()?;
            t.entries.truncate(s.entries);
            t.written = s.written.clone();
            t.failed = None;
        }
        _ => return Err(Error::internal("not a savepoint operation")),
    }
    Ok(())
}

impl Connection {
    /// How long the open transaction may still stay idle before
    /// `idle_in_transaction_session_timeout` ends it; `None` when no limit applies
    /// (no transaction, no limit, or a statement running). `stride serve` ends the
    /// session when it runs out, as PostgreSQL does.
    pub fn idle_in_transaction_left(&self) -> Option<std::time::Duration> {
        let limit = self.settings().idle_in_transaction_session_timeout?;
        let t = self.transaction.lock().ok()?;
        let since = t.as_ref()?.idle_since?;
        Some(limit.saturating_sub(since.elapsed()))
    }

    /// Rolls back a transaction left idle past `idle_in_transaction_session_timeout`,
    /// failing the statement that comes too late; then marks the transaction busy.
    pub(super) fn end_idle_transaction(&self) -> Result<()> {
        if self.idle_in_transaction_left() == Some(std::time::Duration::ZERO) {
            let limit = self.settings().idle_in_transaction_session_timeout;
            self.set_transaction(None)?;
            return Err(Error::new(
                stride_common::ErrorKind::Transaction,
                format!(
                    "the transaction was rolled back: it stayed idle longer than idle_in_transaction_session_timeout ({} ms)",
                    limit.unwrap_or_default().as_millis()
                ),
            ));
        }
        if let Ok(mut t) = self.transaction.lock() {
            if let Some(t) = t.as_mut() {
                t.idle_since = None;
            }
        }
        Ok(())
    }

    /// A statement ended: an open transaction is idle from now.
    pub(super) fn mark_transaction_idle(&self) {
        if let Ok(mut t) = self.transaction.lock() {
            if let Some(t) = t.as_mut() {
                t.idle_since = Some(std::time::Instant::now());
            }
        }
    }

    /// BEGIN, COMMIT, ROLLBACK, SET TRANSACTION and savepoints. COMMIT AND CHAIN and
    /// ROLLBACK AND CHAIN begin a transaction with the same access mode right after
    /// (a COMMIT that fails leaves none open, as it is rolled back).
    pub(super) fn transaction_op(&self, op: TransactionOp) -> Result<()> {
        let open = self
            .transaction
            .lock()
            .map_err(|_| Error::internal("transaction lock"))?
            .take();
        match (op, open) {
            (
                op @ (TransactionOp::Savepoint(_)
                | TransactionOp::Release(_)
                | TransactionOp::RollbackTo(_)),
                Some(mut t),
            ) => {
                let done = savepoint_op(&mut t, op);
                self.set_transaction(Some(t))?;
                return done;
            }
            (
                op @ (TransactionOp::Savepoint(_)
                | TransactionOp::Release(_)
                | TransactionOp::RollbackTo(_)),
                None,
            ) => {
                let what = match op {
                    TransactionOp::Savepoint(_) => "SAVEPOINT",
                    TransactionOp::Release(_) => "RELEASE SAVEPOINT",
                    _ => "ROLLBACK TO SAVEPOINT",
                };
                return Err(Error::new(
                    stride_common::ErrorKind::Transaction,
                    format!("{what} can only be used in transaction blocks; start one with BEGIN"),
                )
                .with_sqlstate(stride_common::error::sqlstate::NO_ACTIVE_SQL_TRANSACTION));
            }
            (TransactionOp::Begin { .. }, Some(t)) => {
                self.set_transaction(Some(t))?;
                return Err(Error::new(
                    stride_common::ErrorKind::Transaction,
                    "there is already a transaction in progress; COMMIT or ROLLBACK it first",
                ));
            }
            (TransactionOp::Begin { read_only }, None) => self.begin(read_only)?,
            (TransactionOp::Commit { chain }, Some(t)) => {
                let read_only = t.read_only;
                self.commit(t)?;
                if chain {
                    self.begin(read_only)?;
                }
            }
            (TransactionOp::Rollback { chain }, Some(t)) => {
                if chain {
                    self.begin(t.read_only)?;
                }
            }
            (TransactionOp::SetReadOnly(read_only), Some(mut t)) => {
                t.read_only = read_only;
                self.set_transaction(Some(t))?;
            }
            (TransactionOp::SetReadOnly(_), None) => {
                return Err(Error::new(
                    stride_common::ErrorKind::Transaction,
                    "SET TRANSACTION applies only inside a transaction; start one with BEGIN TRANSACTION READ ONLY, or run SET TRANSACTION after BEGIN",
                ));
            }
            (
                TransactionOp::Commit { chain: true } | TransactionOp::Rollback { chain: true },
                None,
            ) => {
                return Err(Error::new(
                    stride_common::ErrorKind::Transaction,
                    "COMMIT AND CHAIN and ROLLBACK AND CHAIN can only be used in transaction blocks; start one with BEGIN",
                ));
            }
            // Outside a transaction, COMMIT and ROLLBACK have nothing to do.
            (TransactionOp::Commit { .. } | TransactionOp::Rollback { .. }, None) => {}
        }
        Ok(())
    }

    /// BEGIN: the transaction reads and changes a copy of every database's catalog.
    fn begin(&self, read_only: bool) -> Result<()> {
        let base = self.catalogs().fork()?;
        // A copy of the copy: a commit landing meanwhile is in both or in neither.
        let catalogs = base.fork()?;
        self.set_transaction(Some(Transaction {
            catalogs,
            base,
            written: None,
            entries: Vec::new(),
            failed: None,
            read_only,
            idle_since: None,
            started: stride_functions::scalar::clock_micros(),
            id: self.databases.ids.next_transaction(),
            savepoints: Vec::new(),
        }))
    }

    /// COMMIT: checks for conflicts with the commits made since BEGIN, tries the
    /// changes on a copy of the database (rebased onto those commits; a constraint
    /// they now break fails the commit cleanly), logs them as one commit and applies
    /// them.
    fn commit(&self, mut t: Transaction) -> Result<()> {
        if let Some(why) = t.failed {
            return Err(Error::new(
                stride_common::ErrorKind::Transaction,
                format!(
                    "the transaction was rolled back: a statement in it failed earlier ({why})"
                ),
            ));
        }
        let Some(slot) = t
            .written
            .as_ref()
            .map(|w| w.0)
            .filter(|_| !t.entries.is_empty())
        else {
            return Ok(());
        };
        // A sequence the transaction created carries the values it handed out: COMMIT
        // re-creates it from the log, which would start it over.
        if let Some(mine) = t.catalogs.catalog(slot) {
            let created: Vec<String> = t
                .entries
                .iter()
                .filter_map(|e| match e {
                    WalEntry::CreateSequence { name, .. } => Some(name.clone()),
                    _ => None,
                })
                .collect();
            for name in created {
                if let Some(s) = mine.sequence(&name) {
                    t.entries.push(WalEntry::SequenceValue {
                        name,
                        state: s.state(),
                    });
                }
            }
        }
        let store = self.store_in_slot(slot).ok_or_else(|| {
            Error::new(
                stride_common::ErrorKind::Transaction,
                "the database this transaction changed was detached; the transaction was rolled back",
            )
        })?;
        let catalog = &store.catalog;
        let mut writer = self.shared_writer(&store)?;
        let base = t
            .base
            .catalog(slot)
            .ok_or_else(|| Error::internal("a transaction without its database's base"))?;
        let rewritten = rewritten_tables(&t.entries);
        let replaced = replaced_tables(&t.entries);
        let is_in = |list: &[String], name: &str| list.iter().any(|r| r.eq_ignore_ascii_case(name));
        let conflict = |name: &str| {
            Error::new(
                stride_common::ErrorKind::Transaction,
                format!("Transaction conflict: table \"{name}\" was changed by another transaction since this one began; the transaction was rolled back"),
            )
        };
        // Tables whose rows others changed meanwhile, with the ids of those rows.
        let mut moved = HashMap::new();
        for name in named_tables(&t.entries) {
            let Some(then) = base.table(&name) else {
                continue; // created by this transaction: the trial below checks the name
            };
            let Some(now) = catalog.table(&name) else {
                return Err(conflict(&name));
            };
            // Rows may be appended to a table another transaction also appends to,
            // as long as its columns are the same.
            if !Arc::ptr_eq(&now.schema, &then.schema) {
                return Err(conflict(&name));
            }
            // The same row groups (the base holds them, so none grew in place): the
            // same rows at the same positions.
            let (a, b) = (now.snapshot(), then.snapshot());
            let same = a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| Arc::ptr_eq(x, y));
            if !is_in(&rewritten, &name) || same {
                continue;
            }
            if is_in(&replaced, &name) {
                return Err(conflict(&name));
            }
            match now.changed_since(then.version()) {
                Some(ids) => {
                    moved.insert(name.to_ascii_lowercase(), ids);
                }
                None => return Err(conflict(&name)),
            }
        }
        let trial = catalog.fork()?;
        let entries = if moved.is_empty() {
            for e in t.entries.iter().cloned() {
                stride_storage::apply_entry(&trial, e)?;
            }
            t.entries
        } else {
            let mine = base.fork()?;
            stride_storage::rebase::rebase(&mine, &trial, t.entries, &moved)?
        };
        let sync = self.settings().synchronous;
        if let Some(w) = writer.file.as_mut() {
            w.log(&entries, sync)?;
        }
        let applied = catalog.atomically(|| {
            for e in entries {
                stride_storage::apply_entry(catalog, e)?;
            }
            Ok(())
        });
        if let Err(e) = applied {
            // Logged but not (wholly) applied: memory and the log disagree.
            if let Some(w) = writer.file.as_mut() {
                w.poison(&e.message);
            }
            return Err(e);
        }
        checkpoint_if_due(&mut writer);
        Ok(())
    }
}
