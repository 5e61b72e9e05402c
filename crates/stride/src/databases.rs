//! The databases of one [`crate::Database`]: the one it was opened with, and those
//! ATTACHed beside it (`ATTACH 'other.stride' AS o`), shared by all its connections as
//! in DuckDB. Each is a [`Store`]: a catalog, and for a file its [`DatabaseFile`] with
//! the WAL and writer. Each has a slot that the ids of its tables carry
//! (`stride_storage::catalogs`), so one query may read tables of several databases.
//!
//! A statement changes one database: the one its target table names, or the
//! connection's current one (`USE`); a transaction too (as in DuckDB). A database is
//! closed when it is detached and the last statement using it ends.
//!
//! Each connection also has its own in-memory database `temp` for its TEMP tables and
//! views ([`Store::temp`]), which no other connection sees; it is not listed here.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, RwLock};
use stride_common::{Error, Result};
use stride_storage::fs::FileSystem;
use stride_storage::{BufferPool, Catalog, DatabaseFile, Recovery, Table};

/// The slot of every connection's `temp` database, never given to an ATTACHed one:
/// the largest that keeps ids (and the OIDs made from them) below `i64::MAX`.
pub(crate) const TEMP_SLOT: u64 = (1 << 15) - 1;

/// The name of a connection's database of TEMP tables and views.
pub(crate) use stride_sql::catalog::TEMP_DATABASE as TEMP_NAME;

/// One database.
pub(crate) struct Store {
    /// Its tables' ids carry this in their top bits; 0 for the database opened first.
    pub slot: u64,
    /// The name qualified table names use: the ATTACH alias, else `memory` or the
    /// file's stem.
    pub name: String,
    pub catalog: Arc<Catalog>,
    /// The database file and its WAL; `None` in memory.
    pub file: Option<Arc<DatabaseFile>>,
    /// Held by the statement changing an in-memory database (a file's writer plays
    /// this part for a database file).
    pub writes: Mutex<()>,
}

impl Store {
    pub fn new(
        slot: u64,
        name: String,
        catalog: Arc<Catalog>,
        file: Option<Arc<DatabaseFile>>,
    ) -> Store {
        Store {
            slot,
            name,
            catalog,
            file,
            writes: Mutex::new(()),
        }
    }

    /// A connection's own database of TEMP tables and views, named `temp` as in
    /// DuckDB. Every connection's has slot [`TEMP_SLOT`]: ids are only ever looked
    /// up among the catalogs of the connection that handed them out.
    pub fn temp() -> Store {
        Store::new(TEMP_SLOT, TEMP_NAME.into(), Arc::new(Catalog::new()), None)
    }

    pub fn read_only(&self) -> bool {
        self.file.as_ref().is_some_and(|f| f.read_only)
    }
}

/// What says a table's bytes in memory may have changed: its deletes and updates
/// (version), its row groups (how many, and the last one's identity and rows, which
/// appends change), and every column's move between memory and a file (a checkpoint).
#[derive(Clone, Copy, PartialEq, Eq)]
struct TableStamp {
    version: u64,
    groups: usize,
    last: Option<(usize, usize)>,
    moves: u64,
}

impl TableStamp {
    fn of(table: &Table) -> TableStamp {
        let groups = table.snapshot();
        TableStamp {
            version: table.version(),
            groups: groups.len(),
            last: groups.last().map(|g| (Arc::as_ptr(g) as usize, g.len)),
            moves: stride_storage::column::moves(),
        }
    }
}

/// A table (held, so its address is not reused), its stamp and its bytes in memory.
type Counted = (Arc<Table>, TableStamp, u64);

/// Every database of a [`crate::Database`], the one opened first at the front.
pub(crate) struct Databases {
    list: RwLock<Vec<Arc<Store>>>,
    /// Each table's bytes in memory when last counted (`memory_bytes`), by address.
    table_bytes: Mutex<HashMap<usize, Counted>>,
    /// In-memory tables as they were when last compressed (`compress_tables`), by
    /// address (held, so the address is not reused). Not empty once tables were
    /// compressed: from then on every statement compresses what it added (see
    /// `Connection::account_tables`).
    compressed: Mutex<HashMap<usize, (Arc<Table>, TableStamp)>>,
    /// The next ATTACH's slot (slots are not reused, so a plan's ids never name a
    /// database attached after it was bound).
    next_slot: Mutex<u64>,
    /// Numbers of connections and transactions (`connection/ids.rs`).
    pub(crate) ids: crate::connection::IdCounters,
}

impl Databases {
    pub fn new(main: Store) -> Databases {
        Databases {
            list: RwLock::new(vec![Arc::new(main)]),
            table_bytes: Mutex::new(HashMap::new()),
            compressed: Mutex::new(HashMap::new()),
            next_slot: Mutex::new(1),
            ids: Default::default(),
        }
    }

    pub fn all(&self) -> Vec<Arc<Store>> {
        self.list.read().map(|l| l.clone()).unwrap_or_default()
    }

    /// Bytes the tables of every database hold in memory outside the buffer pool,
    /// which the accountant counts as in-memory tables. A table is counted again
    /// only when it may have changed (see [`TableStamp`]); counting every column of
    /// a large database after each statement made a single-row INSERT cost
    /// milliseconds. Heap buffers shared within a table count once.
    pub fn memory_bytes(&self) -> u64 {
        let mut counted = self.table_bytes.lock().unwrap_or_else(|e| e.into_inner());
        let mut next = HashMap::new();
        let mut total = 0;
        for table in self.all().iter().flat_map(|s| s.catalog.tables()) {
            let stamp = TableStamp::of(&table);
            let key = Arc::as_ptr(&table) as usize;
            let bytes = match counted.remove(&key) {
                Some((_, s, bytes)) if s == stamp => bytes,
                _ => table.memory_bytes(&mut HashSet::new()) as u64,
            };
            total += bytes;
            // The table is held so that its address is not reused while listed.
            next.insert(key, (table, stamp, bytes));
        }
        *counted = next;
        total
    }

    /// Keeps the row groups of every in-memory database's tables compressed
    /// ([`Table::compress`]), skipping tables unchanged since they last were (a
    /// checkpoint does this for a file's tables). Returns how many row groups were
    /// compressed.
    pub fn compress_tables(&self, pool: &Arc<BufferPool>) -> Result<usize> {
        let mut done = self.compressed.lock().unwrap_or_else(|e| e.into_inner());
        let mut next = HashMap::new();
        let mut compressed = 0;
        let stores = self.all();
        for table in stores
            .iter()
            .filter(|s| s.file.is_none())
            .flat_map(|s| s.catalog.tables())
        {
            let key = Arc::as_ptr(&table) as usize;
            // Columns moving elsewhere do not change what is left to compress.
            let stamp = TableStamp {
                moves: 0,
                ..TableStamp::of(&table)
            };
            if done.get(&key).is_none_or(|(_, s)| *s != stamp) {
                compressed += table.compress(pool)?;
            }
            next.insert(key, (table, stamp));
        }
        *done = next;
        Ok(compressed)
    }

    /// Whether in-memory tables were compressed before and still exist
    /// ([`Databases::compress_tables`]).
    pub fn compressing(&self) -> bool {
        !self
            .compressed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_empty()
    }

    /// The database opened first.
    pub fn main(&self) -> Arc<Store> {
        self.all().swap_remove(0)
    }

    pub fn named(&self, name: &str) -> Option<Arc<Store>> {
        self.all()
            .into_iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
    }

    /// ATTACH: opens the database file at `path` (an in-memory database for
    /// `:memory:`) as `name`. Returns what recovering the file's log found, or `None`
    /// when `if_not_exists` found the name taken.
    pub fn attach(
        &self,
        fs: &dyn FileSystem,
        path: &str,
        name: &str,
        read_only: bool,
        if_not_exists: bool,
        pool: &BufferPool,
    ) -> Result<Option<Recovery>> {
        if let Some(s) = self.named(name) {
            if if_not_exists {
                return Ok(None);
            }
            return Err(Error::binder(format!(
                "Database \"{}\" is already attached; DETACH it first, or attach the file under another name (ATTACH '{path}' AS other)",
                s.name
            )));
        }
        let (catalog, file, recovery) = if path.is_empty() || path == ":memory:" {
            (Arc::new(Catalog::new()), None, Recovery::default())
        } else {
            // One accountant, so one memory limit, for every database (each file
            // keeps its own cache).
            let (file, catalog, recovery) =
                DatabaseFile::open(fs, path, read_only, pool.accountant())?;
            (catalog, Some(file), recovery)
        };
        let mut next = self
            .next_slot
            .lock()
            .map_err(|_| Error::internal("databases lock"))?;
        let mut list = self
            .list
            .write()
            .map_err(|_| Error::internal("databases lock"))?;
        if list.iter().any(|s| s.name.eq_ignore_ascii_case(name)) {
            return Err(Error::binder(format!(
                "Database \"{name}\" was attached meanwhile by another connection"
            )));
        }
        if *next >= TEMP_SLOT {
            return Err(Error::not_supported(
                "too many databases were attached in this process; restart it to attach more",
            ));
        }
        list.push(Arc::new(Store::new(*next, name.to_string(), catalog, file)));
        *next += 1;
        Ok(Some(recovery))
    }

    /// DETACH: forgets the database `name`; its file closes when no statement uses
    /// it any more. Returns false when `if_exists` found no such database.
    pub fn detach(&self, name: &str, if_exists: bool) -> Result<bool> {
        let mut list = self
            .list
            .write()
            .map_err(|_| Error::internal("databases lock"))?;
        match list.iter().position(|s| s.name.eq_ignore_ascii_case(name)) {
            Some(0) => Err(Error::binder(format!(
                "Cannot detach database \"{}\": it is the database stride was opened with",
                list[0].name
            ))),
            Some(i) => {
                list.remove(i);
                Ok(true)
            }
            None if if_exists => Ok(false),
            None => Err(Error::binder(format!(
                "Failed to detach database with name \"{name}\": database not found"
            ))),
        }
    }
}
