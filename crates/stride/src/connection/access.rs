//! Which databases a statement reads and changes, and the right to change one: the
//! connection's current database (`USE`), the database a statement's target names,
//! every database's catalog as the statement sees it (a transaction's copies, or the
//! live ones), and the write lock (`WriteLock`: the file's writer or the in-memory
//! lock, waited for at most `lock_timeout`; inside a transaction, the transaction
//! itself, which may change one database). `log` writes a change to the WAL or into
//! the open transaction.

use super::transaction::Transaction;
use super::Connection;
use crate::catalog_view::{CatalogView, DatabaseView};
use crate::databases::Store;
use std::sync::{Arc, Mutex};
use stride_common::{Error, Result};
use stride_storage::{Catalog, Catalogs, WalEntry, Writer};

impl Connection {
    /// The right to change `store`, held from a changing statement's checks until it
    /// is logged and applied; for a database file, with its writer. Inside a
    /// transaction, the changes wait in it, and it may change one database only.
    pub(super) fn writer<'a>(&'a self, store: &'a Store) -> Result<WriteLock<'a>> {
        if let Some(f) = &store.file {
            if f.read_only {
                f.writer()?; // the read-only error
            }
        }
        let mut guard = self
            .transaction
            .lock()
            .map_err(|_| Error::internal("transaction lock"))?;
        let Some(t) = guard.as_mut() else {
            drop(guard);
            return self.shared_writer(store);
        };
        if t.read_only {
            return Err(Error::new(
                stride_common::ErrorKind::Transaction,
                "cannot change the database in a read-only transaction; COMMIT it and change it outside, or BEGIN TRANSACTION READ WRITE",
            ));
        }
        t.write_to(store)?;
        Ok(WriteLock {
            file: None,
            _memory: None,
            transaction: Some(&self.transaction),
            sync: true,
        })
    }

    /// The right to change `store` itself (the file's writer, or the in-memory write
    /// lock), waited for while another statement holds it: at most `lock_timeout`,
    /// and no longer than `statement_timeout` or until the statement is cancelled.
    pub(super) fn shared_writer<'a>(&'a self, store: &'a Store) -> Result<WriteLock<'a>> {
        let settings = self.settings();
        let sync = settings.synchronous;
        let start = std::time::Instant::now();
        let mut pause = std::time::Duration::from_micros(20);
        loop {
            let lock = match &store.file {
                Some(f) => f.try_writer()?.map(|w| WriteLock {
                    file: Some(w),
                    _memory: None,
                    transaction: None,
                    sync,
                }),
                None => match store.writes.try_lock() {
                    Ok(g) => Some(WriteLock {
                        file: None,
                        _memory: Some(g),
                        transaction: None,
                        sync: true,
                    }),
                    Err(std::sync::TryLockError::WouldBlock) => None,
                    Err(std::sync::TryLockError::Poisoned(_)) => {
                        return Err(Error::internal("write lock poisoned"))
                    }
                },
            };
            if let Some(lock) = lock {
                return Ok(lock);
            }
            let waited = start.elapsed();
            if let Some(limit) = settings.lock_timeout.filter(|l| waited >= *l) {
                return Err(Error::new(
                    stride_common::ErrorKind::Timeout,
                    format!(
                        "canceling statement due to lock timeout: another statement held the write lock of database \"{}\" for {} ms (lock_timeout); try again, or SET lock_timeout higher",
                        store.name,
                        limit.as_millis()
                    ),
                ));
            }
            if settings.statement_timeout.is_some_and(|l| waited >= l) {
                return Err(Error::new(
                    stride_common::ErrorKind::Timeout,
                    "canceling statement due to statement timeout (waiting for the write lock)",
                ));
            }
            if self.interrupt.is_set() {
                return Err(Error::interrupted());
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(std::time::Duration::from_millis(5));
        }
    }

    /// Whether a transaction opened by BEGIN is open (not yet committed or rolled back).
    pub fn in_transaction(&self) -> bool {
        self.transaction.lock().is_ok_and(|t| t.is_some())
    }

    /// Whether the open transaction had a statement fail, so that it can only be
    /// rolled back.
    pub fn transaction_failed(&self) -> bool {
        self.transaction
            .lock()
            .is_ok_and(|t| t.as_ref().is_some_and(|t| t.failed.is_some()))
    }

    /// Refuses `what` (ATTACH, DETACH) inside a transaction.
    pub(super) fn outside_transaction(&self, what: &str) -> Result<()> {
        if self.in_transaction() {
            return Err(Error::new(
                stride_common::ErrorKind::Transaction,
                format!("{what} cannot run inside a transaction; COMMIT or ROLLBACK first"),
            ));
        }
        Ok(())
    }

    /// Every database this connection reads: the shared ones (the one opened first
    /// and those ATTACHed), then its own `temp`.
    pub(super) fn stores(&self) -> Vec<Arc<Store>> {
        let mut all = self.databases.all();
        all.push(self.temp.clone());
        all
    }

    /// The database of this connection in `slot` (its `temp` included).
    pub(super) fn store_in_slot(&self, slot: u64) -> Option<Arc<Store>> {
        self.stores().into_iter().find(|s| s.slot == slot)
    }

    /// The database of this connection named `name` (its `temp` included).
    pub(super) fn store_by_name(&self, name: &str) -> Option<Arc<Store>> {
        self.stores()
            .into_iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
    }

    /// The connection's current database (`USE`), which unqualified names refer to.
    pub(super) fn current(&self) -> Result<Arc<Store>> {
        let slot = *self
            .current
            .lock()
            .map_err(|_| Error::internal("current database lock"))?;
        self.store_in_slot(slot).ok_or_else(|| {
            Error::catalog(format!(
                "the current database was detached; USE another (USE {})",
                self.databases.main().name
            ))
        })
    }

    /// The database a statement changes: the one its target was qualified by, else
    /// the current one.
    pub(super) fn store_named(&self, name: Option<&str>) -> Result<Arc<Store>> {
        match name {
            None => self.current(),
            Some(n) => self.store_by_name(n).ok_or_else(|| {
                Error::catalog(format!(
                    "Catalog \"{n}\" was detached while the statement was bound"
                ))
            }),
        }
    }

    /// The database whose tables have ids like `table_id`.
    pub(crate) fn store_of(&self, table_id: u64) -> Result<Arc<Store>> {
        let slot = stride_storage::catalogs::slot_of(table_id);
        self.store_in_slot(slot).ok_or_else(|| {
            Error::catalog("the table's database was detached while the statement ran")
        })
    }

    /// The catalog statements read and change in `store`: the open transaction's copy,
    /// else the database's.
    pub(crate) fn catalog_of(&self, store: &Store) -> Arc<Catalog> {
        if let Ok(t) = self.transaction.lock() {
            if let Some(c) = t.as_ref().and_then(|t| t.catalogs.catalog(store.slot)) {
                return c.clone();
            }
        }
        store.catalog.clone()
    }

    /// The current database's catalog as statements see it.
    pub(crate) fn catalog(&self) -> Arc<Catalog> {
        match self.current() {
            Ok(store) => self.catalog_of(&store),
            Err(_) => Arc::new(Catalog::new()),
        }
    }

    /// Every database's catalog as statements read them (plans find tables of any
    /// database through it).
    pub(super) fn catalogs(&self) -> Catalogs {
        Catalogs::new(
            self.stores()
                .iter()
                .map(|s| (s.slot, self.catalog_of(s)))
                .collect(),
        )
    }

    /// The binder's view: every database, looked at from the current one.
    pub(super) fn catalog_view(&self) -> Result<CatalogView> {
        let current = self.current()?;
        let all = self.stores();
        let at = all.iter().position(|s| s.slot == current.slot).unwrap_or(0);
        let views = all
            .iter()
            .map(|s| DatabaseView {
                entry: stride_sql::catalog::DatabaseEntry {
                    name: s.name.clone(),
                    path: s.file.as_ref().map(|f| f.path.clone()),
                    read_only: s.read_only(),
                    temporary: s.slot == crate::databases::TEMP_SLOT,
                },
                slot: s.slot,
                catalog: self.catalog_of(s),
            })
            .collect();
        Ok(CatalogView::new(views, at, self.pool.accountant().clone()))
    }
}

/// The right to change the database (see [`Connection::writer`]): the database
/// file's writer (`None` in memory or inside a transaction).
pub(super) struct WriteLock<'a> {
    pub(super) file: Option<Writer<'a>>,
    pub(super) _memory: Option<std::sync::MutexGuard<'a, ()>>,
    /// Inside BEGIN ... COMMIT: changes go to the transaction's own catalog and their
    /// log entries wait in the transaction.
    pub(super) transaction: Option<&'a Mutex<Option<Transaction>>>,
    /// Whether a commit waits for its WAL record to reach the disk (`synchronous`).
    pub(super) sync: bool,
}

/// Logs a change: into the open transaction (which logs it at COMMIT), else as a
/// commit of its own to the database file's WAL (nothing in memory).
pub(super) fn log(writer: &mut WriteLock<'_>, entries: &[WalEntry]) -> Result<()> {
    if let Some(t) = writer.transaction {
        let mut t = t.lock().map_err(|_| Error::internal("transaction lock"))?;
        if let Some(t) = t.as_mut() {
            t.entries.extend(entries.iter().cloned());
        }
        return Ok(());
    }
    match &mut writer.file {
        Some(w) => w.log(entries, writer.sync),
        None => Ok(()),
    }
}

/// Checkpoints when the WAL has grown past its threshold. The statement has committed
/// either way (its WAL record is on disk), so a failure here is reported as a warning.
pub(super) fn checkpoint_if_due(writer: &mut WriteLock<'_>) {
    if let Some(w) = &mut writer.file {
        if let Err(e) = w.checkpoint_if_due() {
            eprintln!("warning: automatic checkpoint failed: {e}; the WAL keeps every commit");
        }
    }
}
