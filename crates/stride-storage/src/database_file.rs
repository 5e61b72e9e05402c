//! A database kept in a file: the block file with its last checkpoint, the WAL with
//! the commits since, and the catalog they make up in memory.
//!
//! Opening reads the WAL's header first (its copy of the current header slot stands
//! in for a damaged slot), then the checkpoint, then replays the WAL. Statements that change data go
//! through a [`Writer`], one at a time: the statement checks what it will do, logs it
//! ([`Writer::log`], synced before it returns), and only then applies it to the
//! catalog, so a commit is acknowledged only once its WAL record is on disk and a
//! failed write changes nothing. A bulk load writes its row groups into free blocks
//! first and logs only where they are. When the WAL passes `checkpoint_threshold`, at
//! `CHECKPOINT` and when the database closes, a checkpoint writes what changed and
//! empties the WAL.
//!
//! A failed sync leaves the file's state unknown: the database stops accepting writes
//! (every later change fails with the original error) rather than retry and pretend.

use crate::block_file::BlockFile;
use crate::buffer::BufferPool;
use crate::bulk_load::EncodedGroup;
use crate::catalog::Catalog;
use crate::checkpoint::{self, StoredColumn};
use crate::fs::FileSystem;
use crate::table::{IndexInfo, RowGroup};
use crate::wal::{self, Recovery, Wal, WalEntry};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use stride_common::{Error, Result};

/// Default WAL size that triggers a checkpoint after a commit (DuckDB's default).
pub const DEFAULT_CHECKPOINT_THRESHOLD: u64 = 16 << 20;

/// Database files this process has open, so that a second open fails cleanly (the
/// file lock only keeps other processes out).
static OPEN_FILES: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

pub struct DatabaseFile {
    pub path: String,
    pub read_only: bool,
    key: PathBuf,
    catalog: Arc<Catalog>,
    state: Mutex<State>,
    pub checkpoint_threshold: AtomicU64,
    /// The cache of the file's segments, under `memory_limit`.
    pub pool: Arc<BufferPool>,
}

struct State {
    blocks: BlockFile,
    /// `None` when read-only.
    wal: Option<Wal>,
    /// Set by a failed sync: why writes are refused from then on.
    failed: Option<String>,
}

impl DatabaseFile {
    /// Opens (or creates) the database file at `path` and its WAL, returning the
    /// catalog they hold and what WAL recovery found. The file's buffer pool counts
    /// its bytes in `memory`, the database's accountant.
    pub fn open(
        fs: &dyn FileSystem,
        path: &str,
        read_only: bool,
        memory: &Arc<stride_common::memory::MemoryAccountant>,
    ) -> Result<(Arc<DatabaseFile>, Arc<Catalog>, Recovery)> {
        let p = Path::new(path);
        if read_only && !fs.exists(p) {
            return Err(Error::io(format!(
                "cannot open \"{path}\" read-only: the file does not exist"
            )));
        }
        let created = !fs.exists(p);
        let file = fs
            .open(p, !read_only)
            .map_err(|e| Error::io(format!("cannot open \"{path}\": {e}")))?;
        let key = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        {
            let mut open = OPEN_FILES
                .lock()
                .map_err(|_| Error::internal("open files"))?;
            let set = open.get_or_insert_with(HashSet::new);
            if !set.insert(key.clone()) {
                return Err(Error::io(format!(
                    "database file \"{path}\" is already open in this process; connect through the database already opened"
                )));
            }
        }
        let result = Self::open_locked(fs, path, file, read_only, created, key.clone(), memory);
        if result.is_err() {
            forget(&key);
        }
        result
    }

    fn open_locked(
        fs: &dyn FileSystem,
        path: &str,
        file: Arc<dyn crate::fs::StorageFile>,
        read_only: bool,
        created: bool,
        key: PathBuf,
        memory: &Arc<stride_common::memory::MemoryAccountant>,
    ) -> Result<(Arc<DatabaseFile>, Arc<Catalog>, Recovery)> {
        match file.try_lock(!read_only) {
            Ok(Ok(())) => {}
            Ok(Err(holder)) => {
                let who = holder.map_or("another process".to_string(), |pid| {
                    format!("process {pid}")
                });
                return Err(Error::io(format!(
                    "could not set lock on file \"{path}\": conflicting lock is held by {who}; close the database there, or open it with -readonly while no one writes it"
                )));
            }
            Err(e) => return Err(Error::io(format!("could not lock \"{path}\": {e}"))),
        }
        let wal_path = format!("{path}.wal");
        let wal_exists = fs.exists(Path::new(&wal_path));
        let wal_file = if read_only && !wal_exists {
            None
        } else {
            Some(
                fs.open(Path::new(&wal_path), !read_only)
                    .map_err(|e| Error::io(format!("cannot open \"{wal_path}\": {e}")))?,
            )
        };
        // The log's header holds a copy of the header slot it continues: the fallback
        // when that slot is damaged.
        let copy = match &wal_file {
            Some(f) => wal::checkpoint_copy(f.as_ref(), &wal_path)?,
            None => None,
        };
        let (mut blocks, restored) = BlockFile::open(path, file, !read_only, copy)?;
        if created {
            sync_parent(fs, path);
        }
        let catalog = Arc::new(Catalog::new());
        let pool = BufferPool::new(memory);
        checkpoint::load(&mut blocks, &catalog, &pool)?;
        if restored && !read_only {
            blocks.write_back_header()?;
        }
        let (wal, commits, mut recovery) = match wal_file {
            None => (None, Vec::new(), Recovery::default()),
            Some(wal_file) => {
                let (wal, commits, recovery) =
                    Wal::open(fs, &wal_path, wal_file, &blocks.header, !read_only)?;
                if !wal_exists {
                    sync_parent(fs, &wal_path);
                }
                (Some(wal).filter(|_| !read_only), commits, recovery)
            }
        };
        recovery.restored_header = restored;
        for entries in commits {
            for e in entries {
                replay(&catalog, &mut blocks, &pool, e)?;
            }
        }
        let db = Arc::new(DatabaseFile {
            path: path.to_string(),
            read_only,
            key,
            catalog: catalog.clone(),
            state: Mutex::new(State {
                blocks,
                wal,
                failed: None,
            }),
            checkpoint_threshold: AtomicU64::new(DEFAULT_CHECKPOINT_THRESHOLD),
            pool,
        });
        Ok((db, catalog, recovery))
    }

    /// The writer, once every statement before it has committed. Fails for a read-only
    /// database and after a failed sync.
    pub fn writer(&self) -> Result<Writer<'_>> {
        self.check_writable()?;
        let state = self
            .state
            .lock()
            .map_err(|_| Error::internal("database file lock poisoned"))?;
        self.writer_with(state)
    }

    /// The writer if no one else holds it; `None` when another statement does.
    pub fn try_writer(&self) -> Result<Option<Writer<'_>>> {
        self.check_writable()?;
        match self.state.try_lock() {
            Ok(state) => self.writer_with(state).map(Some),
            Err(std::sync::TryLockError::WouldBlock) => Ok(None),
            Err(std::sync::TryLockError::Poisoned(_)) => {
                Err(Error::internal("database file lock poisoned"))
            }
        }
    }

    fn check_writable(&self) -> Result<()> {
        if self.read_only {
            return Err(Error::invalid_input(format!(
                "cannot change \"{}\": the database is open read-only",
                self.path
            )));
        }
        Ok(())
    }

    fn writer_with<'a>(&'a self, state: std::sync::MutexGuard<'a, State>) -> Result<Writer<'a>> {
        if let Some(why) = &state.failed {
            return Err(Error::io(format!(
                "\"{}\" takes no more writes after an earlier failure ({why}); reopen the database",
                self.path
            )));
        }
        Ok(Writer { db: self, state })
    }

    /// Blocks in the file, those in use, and the WAL's bytes (`PRAGMA database_size`).
    pub fn usage(&self) -> (u64, usize, u64) {
        self.state
            .lock()
            .map(|s| {
                (
                    s.blocks.block_count(),
                    s.blocks.used_blocks(),
                    s.wal.as_ref().map_or(0, |w| w.len()),
                )
            })
            .unwrap_or((0, 0, 0))
    }

    /// Checkpoints on close, so that the next open needs no WAL replay.
    fn close(&self) -> Result<()> {
        if self.read_only {
            return Ok(());
        }
        let mut w = self.writer()?;
        let counts = self.catalog.tables().iter().any(|t| t.counts_unsaved());
        if counts || w.state.wal.as_ref().is_some_and(|w| !w.is_empty()) {
            w.checkpoint()?;
        }
        Ok(())
    }
}

impl Drop for DatabaseFile {
    fn drop(&mut self) {
        if let Err(e) = self.close() {
            eprintln!("warning: closing \"{}\": {e}; the WAL keeps every commit and is replayed at the next open", self.path);
        }
        forget(&self.key);
    }
}

/// Makes a newly created file's directory entry durable (best effort: a failure
/// leaves a file that may vanish in a crash, which is then created again).
fn sync_parent(fs: &dyn FileSystem, path: &str) {
    if let Some(dir) = Path::new(path).parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let _ = fs.sync_dir(dir);
    }
}

fn forget(key: &Path) {
    if let Ok(mut open) = OPEN_FILES.lock() {
        if let Some(set) = open.as_mut() {
            set.remove(key);
        }
    }
}

/// The one statement changing the database right now.
pub struct Writer<'a> {
    db: &'a DatabaseFile,
    state: MutexGuard<'a, State>,
}

impl Writer<'_> {
    /// Logs `entries` as one commit, durable when this returns if `sync` (`SET
    /// synchronous = full`; otherwise the operating system writes it when it will, and
    /// the next synced commit or checkpoint makes it durable). A failure here means the
    /// commit did not happen; the caller must not apply it.
    pub fn log(&mut self, entries: &[WalEntry], sync: bool) -> Result<()> {
        let state = &mut *self.state;
        let wal = state
            .wal
            .as_mut()
            .ok_or_else(|| Error::internal("no WAL"))?;
        let result = wal.append(entries, sync);
        if let Err(e) = &result {
            if e.message.contains("cannot sync") {
                state.failed = Some(e.message.clone());
            }
        }
        result
    }

    /// Writes the row groups of a bulk load, encoded already ([`EncodedGroup`]), into
    /// free blocks and syncs them, returning the row groups of stored columns they
    /// make and where each column is (checkpoints do not write them again). They
    /// become part of the database once an `InsertStored` entry naming them is
    /// logged; if that fails, their blocks are free again at the next checkpoint.
    pub fn write_encoded(
        &mut self,
        groups: Vec<EncodedGroup>,
    ) -> Result<(Vec<Arc<RowGroup>>, Vec<Vec<StoredColumn>>)> {
        let pool = self.db.pool.clone();
        let mut w = self.state.blocks.writer();
        let mut out = (
            Vec::with_capacity(groups.len()),
            Vec::with_capacity(groups.len()),
        );
        for g in groups {
            let (group, columns) = g.write(&mut w, &pool)?;
            out.0.push(group);
            out.1.push(columns);
        }
        let result = w.commit_blocks();
        if let Err(e) = &result {
            if e.message.contains("cannot sync") {
                self.state.failed = Some(e.message.clone());
            }
        }
        result?;
        Ok(out)
    }

    /// Writes a checkpoint and empties the WAL.
    pub fn checkpoint(&mut self) -> Result<()> {
        self.checkpoint_moving(false)
    }

    /// VACUUM: a checkpoint frees the blocks of what was deleted; a second one moves
    /// every segment into the lowest free blocks; a third, with the old copies no
    /// longer held, cuts the free end off the file. (Blocks that a running query or
    /// an open transaction still reads stay until a later checkpoint.)
    pub fn vacuum(&mut self) -> Result<()> {
        self.checkpoint_moving(false)?;
        self.checkpoint_moving(true)?;
        self.checkpoint_moving(false)
    }

    fn checkpoint_moving(&mut self, move_stored: bool) -> Result<()> {
        let state = &mut *self.state;
        let before = state.blocks.header.iteration;
        let result = checkpoint::checkpoint(
            &mut state.blocks,
            &self.db.catalog,
            &self.db.pool,
            move_stored,
        )
        .and_then(|_| match state.wal.as_mut() {
            Some(wal) => wal.reset(&state.blocks.header),
            None => Ok(()),
        });
        if let Err(e) = &result {
            // After the header switch the log must be reset before any commit is
            // appended to it (a log naming the old checkpoint is ignored at open).
            let switched = state.blocks.header.iteration != before;
            if switched || e.message.contains("cannot sync") {
                state.failed = Some(e.message.clone());
            }
        }
        result
    }

    /// Refuses every later write: a change was logged but could not be applied, so
    /// memory and the log may disagree until the database is reopened.
    pub fn poison(&mut self, why: &str) {
        self.state.failed.get_or_insert_with(|| why.to_string());
    }

    /// Checkpoints when the WAL has grown past the threshold.
    pub fn checkpoint_if_due(&mut self) -> Result<()> {
        let threshold = self.db.checkpoint_threshold.load(Ordering::Relaxed);
        if self.state.wal.as_ref().is_some_and(|w| w.len() > threshold) {
            self.checkpoint()?;
        }
        Ok(())
    }
}

/// Applies a logged change (other than a bulk load's stored row groups) to `catalog`:
/// how a transaction's changes reach the database at commit.
pub fn apply_entry(catalog: &Catalog, entry: WalEntry) -> Result<()> {
    if let WalEntry::InsertStored { .. } = entry {
        return Err(Error::internal(
            "stored row groups are applied only by WAL replay",
        ));
    }
    replay_entry(catalog, None, entry)
}

/// Applies one logged change to the catalog during WAL replay.
fn replay(
    catalog: &Catalog,
    blocks: &mut BlockFile,
    pool: &Arc<BufferPool>,
    entry: WalEntry,
) -> Result<()> {
    replay_entry(catalog, Some((blocks, pool)), entry)
}

fn replay_entry(
    catalog: &Catalog,
    file: Option<(&mut BlockFile, &Arc<BufferPool>)>,
    entry: WalEntry,
) -> Result<()> {
    let table = |name: &str| {
        catalog.table(name).ok_or_else(|| {
            Error::io(format!(
                "the WAL names a table \"{name}\" that does not exist"
            ))
        })
    };
    match entry {
        WalEntry::CreateTable { schema, replace } => {
            catalog.create_table(schema, replace)?;
        }
        WalEntry::DropTable { name } => {
            catalog.drop_table(&name)?;
        }
        WalEntry::CreateView { view, replace } => catalog.create_view(view, replace)?,
        WalEntry::DropView { name } => {
            catalog.drop_view(&name)?;
        }
        WalEntry::CreateMacro { r#macro, replace } => catalog.create_macro(r#macro, replace)?,
        WalEntry::DropMacro { name } => {
            catalog.drop_macro(&name)?;
        }
        WalEntry::CreateSequence {
            name,
            options,
            replace,
        } => {
            catalog.create_sequence(&name, options, replace)?;
        }
        WalEntry::DropSequence { name } => {
            catalog.drop_sequence(&name)?;
        }
        WalEntry::CreateType { user_type, replace } => catalog.create_type(user_type, replace)?,
        WalEntry::DropType { name } => {
            catalog.drop_type(&name)?;
        }
        WalEntry::SequenceValue { name, state } => match catalog.sequence(&name) {
            Some(s) => s.set_state(state)?,
            None => {
                return Err(Error::io(format!(
                    "the WAL names a sequence \"{name}\" that does not exist"
                )))
            }
        },
        WalEntry::CreateIndex {
            table: t,
            name,
            columns,
            unique,
        } => table(&t)?.add_index(IndexInfo {
            id: catalog.new_object_id(),
            name,
            columns,
            unique,
        })?,
        WalEntry::DropIndex { name } => {
            if let Some(t) = catalog.index_table(&name) {
                t.drop_index(&name)?;
            }
        }
        WalEntry::Insert { table: t, parts } => {
            table(&t)?.append_parts(parts)?;
        }
        WalEntry::AlterTable { table: t, change } => {
            let altered = table(&t)?.altered(&change)?;
            catalog.replace_table(&t, altered)?;
        }
        WalEntry::Delete { table: t, rowids } => {
            let t = table(&t)?;
            t.install(t.delete_rows(&t.snapshot(), &rowids)?)?;
        }
        WalEntry::Update {
            table: t,
            columns,
            rowids,
            values,
        } => {
            let t = table(&t)?;
            let fits = columns.len() == values.len()
                && columns
                    .iter()
                    .zip(&values)
                    .all(|(&c, v)| t.schema.columns.get(c).is_some_and(|col| col.ty == v.ty));
            if !fits {
                return Err(Error::io(format!(
                    "the WAL updates a column table \"{}\" lacks",
                    t.schema.name
                )));
            }
            t.install(t.update_rows(&t.snapshot(), &rowids, &columns, &values)?)?;
        }
        WalEntry::InsertStored { table: t, groups } => {
            let (blocks, pool) = file.ok_or_else(|| Error::internal("no database file"))?;
            let t = table(&t)?;
            let types = t.schema.types();
            let mut read = Vec::with_capacity(groups.len());
            for (len, columns) in groups {
                if len > stride_common::MORSEL_SIZE || columns.len() != types.len() {
                    return Err(Error::io(
                        "the WAL names a row group that does not fit its table",
                    ));
                }
                for (e, _) in &columns {
                    blocks.mark_used(&e.blocks);
                }
                read.push(Arc::new(checkpoint::stored_group(
                    blocks, pool, &types, len, columns,
                )));
            }
            t.append_checked_groups(read)?;
        }
    }
    Ok(())
}
