//! The write-ahead log (`<database>.wal`): every commit since the last checkpoint, as
//! one checksummed, length-prefixed record, synced before the commit is acknowledged.
//!
//! Opening replays the records in order; the database always opens. A record cut
//! short or failing its checksum ends the log, and the log is cut back to the last
//! good record. When that record's length covers every byte after it, it is a crash
//! in the middle of an append (never acknowledged); otherwise the log was damaged
//! before its end, and acknowledged commits are lost with it: the log is first copied,
//! as found, to `<log>.damaged`. [`Recovery`] says what was found, and
//! [`Recovery::warning`] how to tell the user.
//!
//! The log's header names, and copies, the header slot of the checkpoint it continues
//! (with a checksum): a log left over from before a newer checkpoint (a crash after
//! the header switch, before the log was reset) is recognised and dropped, and a slot
//! damaged after it was written is restored from the copy ([`checkpoint_copy`]).
//!
//! The file is grown ahead of the log a mebibyte at a time, with zeros written and
//! synced, so that a commit's sync writes only its own bytes: a sync that also grew the
//! file wrote the file's size as a second, separate I/O (159 against 101 µs a commit
//! here). A zero length ends the log.

use crate::block_file::{Extent, Header};
use crate::catalog::{Macro, UserType, View};
use crate::checkpoint::{read_extent, write_extent};
use crate::fs::{FileSystem, StorageFile};
use crate::sequence::{SequenceOptions, SequenceState};
use crate::serialize::{
    read_positions, read_scalar, read_schema, read_type, read_vector, write_positions,
    write_scalar, write_schema, write_type, write_vector, ByteReader, ByteWriter,
};
use crate::zone_map::ZoneMap;
use std::sync::Arc;
use stride_common::{Error, Result, TableSchema, Vector};

const MAGIC: &[u8; 8] = b"STRIDEWL";
/// Bytes of the header this build writes (version 2), and of version 1's.
const HEADER_LEN: usize = 52;
const V1_HEADER_LEN: usize = 24;
const VERSION: u32 = 2;
/// The file grows ahead of the log in steps of this many bytes.
const GROW: u64 = 1 << 20;

/// One change of a commit.
#[derive(Clone, Debug)]
pub enum WalEntry {
    CreateTable {
        schema: TableSchema,
        replace: bool,
    },
    DropTable {
        name: String,
    },
    CreateView {
        view: View,
        replace: bool,
    },
    DropView {
        name: String,
    },
    /// A macro created (its id is given when the entry is applied).
    CreateMacro {
        r#macro: Macro,
        replace: bool,
    },
    DropMacro {
        name: String,
    },
    /// A sequence created at its start (format 9).
    CreateSequence {
        name: String,
        options: SequenceOptions,
        replace: bool,
    },
    DropSequence {
        name: String,
    },
    /// Where a sequence's counter stands after `nextval` moved it.
    SequenceValue {
        name: String,
        state: SequenceState,
    },
    /// A type made by CREATE TYPE (its id is given when the entry is applied).
    CreateType {
        user_type: UserType,
        replace: bool,
    },
    DropType {
        name: String,
    },
    CreateIndex {
        table: String,
        name: String,
        columns: Vec<usize>,
        unique: bool,
    },
    DropIndex {
        name: String,
    },
    /// Rows appended to a table: parts of flat columns and their row counts.
    Insert {
        table: String,
        parts: Vec<(Vec<Vector>, usize)>,
    },
    /// Row groups of a bulk load, already written into the database file's blocks
    /// (row count and column segments of each).
    InsertStored {
        table: String,
        /// Each group's row count and its columns' segments with their zone maps
        /// (absent in records of format 1).
        groups: Vec<(usize, Vec<(Extent, Option<ZoneMap>)>)>,
    },
    AlterTable {
        table: String,
        change: stride_common::TableAlteration,
    },
    /// Rows deleted, by row id (sorted, distinct) as of the replay's state at this
    /// point: the layout of row groups is the same at replay as when it was logged.
    Delete {
        table: String,
        rowids: Vec<u64>,
    },
    /// Rows updated: their row ids (sorted, distinct), the columns set, and one vector
    /// of new values per column.
    Update {
        table: String,
        columns: Vec<usize>,
        rowids: Vec<u64>,
        values: Vec<Vector>,
    },
}

/// What opening found in the log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recovery {
    /// Commits replayed.
    pub replayed: usize,
    /// Bytes of a damaged or incomplete tail cut off (0 when the log ended cleanly).
    pub cut_bytes: u64,
    /// Commits cut off with them: the incomplete last one of a torn append, or the
    /// damaged one and every intact one found after it.
    pub dropped: usize,
    /// Why commits were dropped when that was not a torn append: damage before the
    /// log's end, or a log that does not continue the database file's checkpoint.
    pub damage: Option<String>,
    /// Where a copy of such a log, as found, was kept before it was cut back (none
    /// when opened read-only, which cuts nothing).
    pub kept: Option<String>,
    /// The newest header slot of the database file was damaged; its copy in the log's
    /// header was used (and written back to the slot, unless opened read-only).
    pub restored_header: bool,
    /// The log's own header was damaged; its records were replayed (they name the
    /// database's current checkpoint) and the header was written again.
    pub rewrote_log_header: bool,
}

impl Recovery {
    /// What a user should be told after opening the database at `path`, if anything.
    pub fn warning(&self, path: &str) -> Option<String> {
        let mut parts = Vec::new();
        if self.restored_header {
            parts.push(format!(
                "the newest header slot of \"{path}\" was damaged (checksum mismatch) and was restored from the copy in its write-ahead log"
            ));
        }
        if self.rewrote_log_header {
            parts.push(format!(
                "the header of \"{path}.wal\" was damaged and was written again"
            ));
        }
        if self.cut_bytes > 0 {
            parts.push(match &self.damage {
                None => format!(
                    "the write-ahead log of \"{path}\" ended in an incomplete commit ({} bytes, never acknowledged), which was dropped; {} commit(s) were recovered",
                    self.cut_bytes, self.replayed
                ),
                Some(damage) => format!(
                    "the write-ahead log of \"{path}\" could not be replayed to its end ({damage}): {} commit(s) were recovered and {} commit(s) ({} bytes) were dropped{}",
                    self.replayed,
                    self.dropped,
                    self.cut_bytes,
                    match &self.kept {
                        Some(kept) => format!("; a copy of the log as found is in \"{kept}\""),
                        None => String::new(),
                    }
                ),
            });
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// The checkpoint a log continues, as its header names it.
enum LogHead {
    /// No log yet, or zeros (a crash while it was created or reset).
    Empty,
    /// A header whose checksum holds (version 1 had none): the checkpoint's iteration
    /// and, from version 2, a copy of its header slot.
    Valid {
        iteration: u64,
        checkpoint: Option<Header>,
        len: usize,
    },
    /// A header that fails its checksum, with the iteration it appears to name.
    Damaged { iteration: u64 },
}

fn read_head(bytes: &[u8], path: &str) -> Result<LogHead> {
    if bytes.iter().all(|&b| b == 0) {
        return Ok(LogHead::Empty);
    }
    let u32_at = |i: usize| {
        bytes
            .get(i..i + 4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4")))
    };
    let u64_at = |i: usize| {
        bytes
            .get(i..i + 8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8")))
    };
    let iteration = u64_at(16).unwrap_or(0);
    let magic = bytes.get(..8) == Some(&MAGIC[..]);
    match u32_at(8) {
        Some(1) if magic && bytes.len() >= V1_HEADER_LEN => Ok(LogHead::Valid {
            iteration,
            checkpoint: None,
            len: V1_HEADER_LEN,
        }),
        Some(VERSION)
            if magic
                && bytes.len() >= HEADER_LEN
                && u32_at(HEADER_LEN - 4) == Some(crc32fast::hash(&bytes[..HEADER_LEN - 4])) =>
        {
            Ok(LogHead::Valid {
                iteration,
                checkpoint: Some(Header {
                    version: u32_at(12).expect("4"),
                    iteration,
                    metadata_block: u64_at(24).expect("8"),
                    metadata_len: u64_at(32).expect("8"),
                    block_count: u64_at(40).expect("8"),
                }),
                len: HEADER_LEN,
            })
        }
        Some(v) if magic && v > VERSION && v < 1 << 16 => Err(Error::io(format!(
            "\"{path}\" was written by a newer stride (log version {v}; this build reads 1 to {VERSION}); upgrade stride to open the database"
        ))),
        _ => Ok(LogHead::Damaged { iteration }),
    }
}

/// The copy of the current checkpoint's header slot that the log at `path` holds in
/// its header, if it has a valid one: the database file's fallback when that slot is
/// damaged.
pub fn checkpoint_copy(file: &dyn StorageFile, path: &str) -> Result<Option<Header>> {
    let size = file
        .size()
        .map_err(|e| Error::io(format!("cannot read \"{path}\": {e}")))?;
    let mut bytes = vec![0u8; size.min(HEADER_LEN as u64) as usize];
    file.read_at(&mut bytes, 0)
        .map_err(|e| Error::io(format!("cannot read \"{path}\": {e}")))?;
    Ok(match read_head(&bytes, path)? {
        LogHead::Valid { checkpoint, .. } => checkpoint,
        _ => None,
    })
}

/// The records of `bytes` from `at`: each intact one's payload range, until a zero
/// length, a record cut short or one failing its checksum.
fn intact_records(bytes: &[u8], mut at: usize) -> (Vec<(usize, usize)>, usize) {
    let mut records = Vec::new();
    while bytes.len().saturating_sub(at) >= 8 {
        let n = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4")) as usize;
        let crc = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().expect("4"));
        // A zero length: the zeros written ahead of the log (no commit is empty).
        let Some(payload) = bytes.get(at + 8..at + 8 + n).filter(|_| n > 0) else {
            break;
        };
        if crc32fast::hash(payload) != crc {
            break;
        }
        records.push((at + 8, at + 8 + n));
        at += 8 + n;
    }
    (records, at)
}

pub struct Wal {
    path: String,
    file: Arc<dyn StorageFile>,
    /// Bytes of the header (records start here).
    start: u64,
    /// Bytes in the log (the next record's offset).
    len: u64,
    /// Bytes in the file: the log, then zeros written ahead of it.
    allocated: u64,
}

impl Wal {
    /// Reads the log at `path` (opened as `file`) that continues `checkpoint`: the
    /// commits to replay, and what was found. With `writable`, a damaged tail is cut
    /// off (a log damaged before its end is first copied aside, through `fs`) and a
    /// stale or missing log is started afresh.
    pub fn open(
        fs: &dyn FileSystem,
        path: &str,
        file: Arc<dyn StorageFile>,
        checkpoint: &Header,
        writable: bool,
    ) -> Result<(Wal, Vec<Vec<WalEntry>>, Recovery)> {
        let io = |e: std::io::Error| Error::io(format!("cannot read \"{path}\": {e}"));
        let size = file.size().map_err(io)?;
        let mut bytes = vec![0u8; size as usize];
        file.read_at(&mut bytes, 0).map_err(io)?;
        let mut wal = Wal {
            path: path.to_string(),
            file,
            start: HEADER_LEN as u64,
            len: size,
            allocated: size,
        };
        let mut recovery = Recovery::default();
        let start = match read_head(&bytes, path)? {
            LogHead::Valid { iteration, len, .. } if iteration == checkpoint.iteration => len,
            // Damaged, yet naming the current checkpoint: the records carry their own
            // checksums, so they are replayed and the header written again.
            LogHead::Damaged { iteration }
                if iteration == checkpoint.iteration
                    && !intact_records(&bytes, HEADER_LEN).0.is_empty() =>
            {
                recovery.rewrote_log_header = true;
                if writable {
                    wal.write_header(checkpoint)?;
                }
                HEADER_LEN
            }
            head => {
                // Stale (left by a crash after a checkpoint, before the log was reset:
                // its commits are in the checkpoint) or empty: started again. Damaged
                // beyond use, or naming a checkpoint newer than the database file's
                // (the file is older than its log): the commits in it cannot be
                // replayed, and a log holding any is kept aside first.
                let records_from = match head {
                    LogHead::Damaged { .. } => Some((HEADER_LEN, "its header is damaged".to_string())),
                    LogHead::Valid { iteration, len, .. } if iteration > checkpoint.iteration => {
                        Some((len, format!(
                            "it continues checkpoint {iteration}, newer than the database file's {}: the file is older than its log",
                            checkpoint.iteration
                        )))
                    }
                    _ => None,
                };
                let written = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
                if let Some((from, damage)) = records_from.filter(|(from, _)| written > *from) {
                    recovery.damage = Some(damage);
                    recovery.cut_bytes = (written - from) as u64;
                    recovery.dropped = intact_records(&bytes, from).0.len().max(1);
                    if writable {
                        recovery.kept = Some(keep_copy(fs, path, &bytes)?);
                    }
                }
                if writable {
                    wal.reset(checkpoint)?;
                }
                return Ok((wal, Vec::new(), recovery));
            }
        };
        wal.start = start as u64;
        let (records, at) = intact_records(&bytes, start);
        let mut commits = Vec::with_capacity(records.len());
        for &(from, to) in &records {
            // A record whose checksum holds was written whole: failing to read it is
            // not a torn write (a newer stride wrote it, or a bug) and cuts nothing.
            let entries = decode_commit(&bytes[from..to]).map_err(|e| {
                Error::io(format!(
                    "\"{path}\": commit {} of the write-ahead log cannot be read ({}); was it written by a newer stride?",
                    commits.len() + 1,
                    e.message
                ))
            })?;
            commits.push(entries);
        }
        // What follows the last good record is either the zeros written ahead of the
        // log, kept for the commits to come, or a damaged tail, cut off.
        let written = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        recovery.replayed = commits.len();
        recovery.cut_bytes = written.saturating_sub(at) as u64;
        if recovery.cut_bytes > 0 {
            // A crash in the middle of an append leaves one incomplete record: its
            // length (when written) covers every non-zero byte after it. Anything
            // else, above all intact records after a damaged one, is damage to
            // acknowledged commits: they cannot be replayed past the gap, but the log
            // is kept as found.
            let n = bytes
                .get(at..at + 4)
                .map_or(0, |b| u32::from_le_bytes(b.try_into().expect("4")) as usize);
            let torn = n > 0 && at + 8 + n >= written;
            recovery.dropped = 1;
            if !torn {
                let later = bytes
                    .get(at + 8 + n..)
                    .map_or(0, |_| intact_records(&bytes, at + 8 + n).0.len());
                recovery.dropped += later;
                let k = commits.len() + 1;
                recovery.damage = Some(match (n, later) {
                    (0, _) => format!("zeros where commit {k} would begin, with data after them"),
                    (_, 0) => format!("commit {k} fails its checksum, with data after it"),
                    (_, later) => {
                        format!(
                            "commit {k} fails its checksum and {later} intact commit(s) follow it"
                        )
                    }
                });
                if writable {
                    recovery.kept = Some(keep_copy(fs, path, &bytes)?);
                }
            }
        }
        if recovery.cut_bytes > 0 && writable {
            wal.file
                .set_len(at as u64)
                .map_err(|e| wal.io_error("truncate", e))?;
            wal.sync()?;
            wal.allocated = at as u64;
        }
        wal.len = at as u64;
        Ok((wal, commits, recovery))
    }

    fn io_error(&self, what: &str, e: std::io::Error) -> Error {
        Error::io(format!("cannot {what} \"{}\": {e}", self.path))
    }

    fn sync(&self) -> Result<()> {
        self.file.sync().map_err(|e| self.io_error("sync", e))
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len <= self.start
    }

    /// Appends `entries` as one commit record; with `sync`, it is on disk when this
    /// returns.
    pub fn append(&mut self, entries: &[WalEntry], sync: bool) -> Result<()> {
        let mut w = ByteWriter::new();
        w.u32(0);
        w.u32(0);
        encode_commit(&mut w, entries);
        let n = match u32::try_from(w.bytes.len() - 8) {
            Ok(n) if !w.overflowed => n,
            _ => {
                return Err(Error::invalid_input(format!(
                    "this commit is too large for the write-ahead log ({} bytes; the most is 4 GiB); commit in smaller transactions",
                    w.bytes.len()
                )))
            }
        };
        let crc = crc32fast::hash(&w.bytes[8..]);
        w.bytes[0..4].copy_from_slice(&n.to_le_bytes());
        w.bytes[4..8].copy_from_slice(&crc.to_le_bytes());
        let end = self.len + w.bytes.len() as u64;
        if end > self.allocated {
            // Zeros past the record, up to the next step; the sync below makes both
            // durable, and the new size with them.
            let grown = end.div_ceil(GROW) * GROW;
            self.file
                .write_at(&vec![0u8; (grown - end) as usize], end)
                .map_err(|e| self.io_error("write to", e))?;
            self.allocated = grown;
        }
        self.file
            .write_at(&w.bytes, self.len)
            .map_err(|e| self.io_error("write to", e))?;
        if sync {
            self.sync()?;
        }
        self.len = end;
        Ok(())
    }

    /// Empties the log, which now continues `checkpoint`.
    pub fn reset(&mut self, checkpoint: &Header) -> Result<()> {
        // Cut back to the old header first: whichever header a crash leaves, the log
        // is then empty (the old one names an older checkpoint, so it is dropped) and
        // never holds old records under the new header.
        self.file
            .set_len(self.start)
            .map_err(|e| self.io_error("truncate", e))?;
        // The cut must be on disk before the new header can be.
        self.sync()?;
        self.write_header(checkpoint)?;
        self.start = HEADER_LEN as u64;
        self.len = HEADER_LEN as u64;
        self.allocated = HEADER_LEN as u64;
        Ok(())
    }

    /// Writes and syncs the header naming `checkpoint`, with a copy of its header
    /// slot (the database file's fallback should that slot be damaged).
    fn write_header(&mut self, checkpoint: &Header) -> Result<()> {
        let mut w = ByteWriter::new();
        w.raw(MAGIC);
        w.u32(VERSION);
        w.u32(checkpoint.version);
        w.u64(checkpoint.iteration);
        w.u64(checkpoint.metadata_block);
        w.u64(checkpoint.metadata_len);
        w.u64(checkpoint.block_count);
        let crc = crc32fast::hash(&w.bytes);
        w.u32(crc);
        debug_assert_eq!(w.bytes.len(), HEADER_LEN);
        self.file
            .write_at(&w.bytes, 0)
            .map_err(|e| self.io_error("write to", e))?;
        self.sync()
    }
}

/// Copies a damaged log, as found, beside it (`<log>.damaged`, or `.damaged-2`, ...)
/// and syncs the copy; returns its path.
fn keep_copy(fs: &dyn FileSystem, path: &str, bytes: &[u8]) -> Result<String> {
    let mut n = 1;
    let kept = loop {
        let p = match n {
            1 => format!("{path}.damaged"),
            _ => format!("{path}.damaged-{n}"),
        };
        if !fs.exists(std::path::Path::new(&p)) {
            break p;
        }
        n += 1;
    };
    let io = |e: std::io::Error| {
        Error::io(format!(
            "the write-ahead log \"{path}\" is damaged, and a copy of it could not be kept as \"{kept}\" ({e}); free space there, or open the database read-only"
        ))
    };
    let file = fs.open(std::path::Path::new(&kept), true).map_err(io)?;
    file.write_at(bytes, 0).map_err(io)?;
    file.sync().map_err(io)?;
    if let Some(dir) = std::path::Path::new(&kept).parent() {
        let _ = fs.sync_dir(dir);
    }
    Ok(kept)
}

/// A sequence's options: start, increment, min, max (i64 each), cycle (u8).
pub(crate) fn write_sequence_options(w: &mut ByteWriter, o: &SequenceOptions) {
    for v in [o.start, o.increment, o.min, o.max] {
        w.u64(v as u64);
    }
    w.u8(o.cycle as u8);
}

pub(crate) fn read_sequence_options(r: &mut ByteReader) -> Result<SequenceOptions> {
    let mut v = [0i64; 4];
    for x in &mut v {
        *x = r.u64()? as i64;
    }
    let [start, increment, min, max] = v;
    SequenceOptions::new(increment, Some(min), Some(max), Some(start), r.bool()?)
        .map_err(|e| r.corrupt(&format!("a sequence's options: {}", e.message)))
}

/// A sequence's counter: the next value and the last one handed out, each a u8 flag
/// (0: none) followed, when 1, by the value (i64).
pub(crate) fn write_sequence_state(w: &mut ByteWriter, s: &SequenceState) {
    for v in [s.next, s.last] {
        match v {
            Some(x) => {
                w.u8(1);
                w.u64(x as u64);
            }
            None => w.u8(0),
        }
    }
}

pub(crate) fn read_sequence_state(r: &mut ByteReader) -> Result<SequenceState> {
    let mut value = || -> Result<Option<i64>> {
        Ok(if r.bool()? {
            Some(r.u64()? as i64)
        } else {
            None
        })
    };
    Ok(SequenceState {
        next: value()?,
        last: value()?,
    })
}

fn encode_commit(w: &mut ByteWriter, entries: &[WalEntry]) {
    w.len_of(entries.len());
    for e in entries {
        match e {
            WalEntry::CreateTable { schema, replace } => {
                w.u8(1);
                write_schema(w, schema);
                w.u8(*replace as u8);
            }
            WalEntry::DropTable { name } => {
                w.u8(2);
                w.str(name);
            }
            WalEntry::CreateView { view, replace } => {
                w.u8(3);
                w.str(&view.name);
                w.str(&view.sql);
                w.len_of(view.columns.len());
                for c in &view.columns {
                    w.str(c);
                }
                w.u8(*replace as u8);
            }
            WalEntry::DropView { name } => {
                w.u8(4);
                w.str(name);
            }
            WalEntry::CreateMacro { r#macro, replace } => {
                w.u8(13);
                w.str(&r#macro.name);
                w.str(&r#macro.sql);
                w.u8(*replace as u8);
            }
            WalEntry::DropMacro { name } => {
                w.u8(14);
                w.str(name);
            }
            WalEntry::CreateSequence {
                name,
                options,
                replace,
            } => {
                w.u8(15);
                w.str(name);
                write_sequence_options(w, options);
                w.u8(*replace as u8);
            }
            WalEntry::DropSequence { name } => {
                w.u8(16);
                w.str(name);
            }
            WalEntry::CreateType { user_type, replace } => {
                w.u8(18);
                w.str(&user_type.name);
                write_type(w, &user_type.ty);
                w.u8(*replace as u8);
            }
            WalEntry::DropType { name } => {
                w.u8(19);
                w.str(name);
            }
            WalEntry::SequenceValue { name, state } => {
                w.u8(17);
                w.str(name);
                write_sequence_state(w, state);
            }
            WalEntry::CreateIndex {
                table,
                name,
                columns,
                unique,
            } => {
                w.u8(5);
                w.str(table);
                w.str(name);
                write_positions(w, columns);
                w.u8(*unique as u8);
            }
            WalEntry::DropIndex { name } => {
                w.u8(6);
                w.str(name);
            }
            WalEntry::Insert { table, parts } => {
                w.u8(7);
                w.str(table);
                let types: Vec<_> = parts
                    .first()
                    .map(|(cols, _)| cols.iter().map(|c| c.ty.clone()).collect())
                    .unwrap_or_default();
                w.len_of(types.len());
                for t in &types {
                    write_type(w, t);
                }
                w.len_of(parts.len());
                for (cols, len) in parts {
                    w.u64(*len as u64);
                    for c in cols {
                        write_vector(w, c, *len);
                    }
                }
            }
            WalEntry::AlterTable { table, change } => {
                use stride_common::TableAlteration as A;
                w.u8(11);
                w.str(table);
                match change {
                    A::AddColumn(c) => {
                        w.u8(1);
                        // A one-column schema carries the column's definition.
                        write_schema(
                            w,
                            &TableSchema {
                                name: String::new(),
                                columns: vec![c.clone()],
                                unique_keys: vec![],
                                primary_key: None,
                                checks: vec![],
                            },
                        );
                    }
                    A::DropColumn(c) => {
                        w.u8(2);
                        w.str(c);
                    }
                    A::RenameColumn { old, new } => {
                        w.u8(3);
                        w.str(old);
                        w.str(new);
                    }
                    A::RenameTable(new) => {
                        w.u8(4);
                        w.str(new);
                    }
                    A::SetDefault { column, default } => {
                        w.u8(5);
                        w.str(column);
                        match default {
                            None => w.u8(0),
                            Some(v) => {
                                w.u8(1);
                                let ty = v.data_type();
                                write_type(w, &ty);
                                write_scalar(w, v, &ty);
                            }
                        }
                    }
                    A::SetNotNull { column, not_null } => {
                        w.u8(6);
                        w.str(column);
                        w.u8(*not_null as u8);
                    }
                    A::SetType { column, ty, values } => {
                        w.u8(7);
                        w.str(column);
                        write_type(w, ty);
                        w.len_of(values.len());
                        for v in values {
                            let len = v.data_len();
                            w.u64(len as u64);
                            write_vector(w, v, len);
                        }
                    }
                }
            }
            WalEntry::Delete { table, rowids } => {
                w.u8(9);
                w.str(table);
                w.len_of(rowids.len());
                for &r in rowids {
                    w.u64(r);
                }
            }
            WalEntry::Update {
                table,
                columns,
                rowids,
                values,
            } => {
                w.u8(10);
                w.str(table);
                write_positions(w, columns);
                w.len_of(rowids.len());
                for &r in rowids {
                    w.u64(r);
                }
                for v in values {
                    write_type(w, &v.ty);
                    write_vector(w, v, rowids.len());
                }
            }
            WalEntry::InsertStored { table, groups } => {
                w.u8(12);
                w.str(table);
                w.len_of(groups.len());
                for (len, columns) in groups {
                    w.u64(*len as u64);
                    w.len_of(columns.len());
                    for (e, zone) in columns {
                        write_extent(w, e);
                        match zone {
                            Some(z) => {
                                w.u8(1);
                                z.write(w);
                            }
                            None => w.u8(0),
                        }
                    }
                }
            }
        }
    }
}

fn decode_commit(payload: &[u8]) -> Result<Vec<WalEntry>> {
    let mut r = ByteReader::new(payload, "a WAL record");
    let n = r.len_of(1)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(match r.u8()? {
            1 => WalEntry::CreateTable {
                schema: read_schema(&mut r)?,
                replace: r.bool()?,
            },
            2 => WalEntry::DropTable { name: r.str()? },
            3 => {
                let name = r.str()?;
                let sql = r.str()?;
                let columns = (0..r.len_of(4)?)
                    .map(|_| r.str())
                    .collect::<Result<Vec<_>>>()?;
                WalEntry::CreateView {
                    view: View {
                        id: 0,
                        name,
                        sql,
                        columns,
                    },
                    replace: r.bool()?,
                }
            }
            4 => WalEntry::DropView { name: r.str()? },
            13 => WalEntry::CreateMacro {
                r#macro: Macro {
                    id: 0,
                    name: r.str()?,
                    sql: r.str()?,
                },
                replace: r.bool()?,
            },
            14 => WalEntry::DropMacro { name: r.str()? },
            15 => WalEntry::CreateSequence {
                name: r.str()?,
                options: read_sequence_options(&mut r)?,
                replace: r.bool()?,
            },
            16 => WalEntry::DropSequence { name: r.str()? },
            18 => WalEntry::CreateType {
                user_type: UserType {
                    id: 0,
                    name: r.str()?,
                    ty: read_type(&mut r)?,
                },
                replace: r.bool()?,
            },
            19 => WalEntry::DropType { name: r.str()? },
            17 => WalEntry::SequenceValue {
                name: r.str()?,
                state: read_sequence_state(&mut r)?,
            },
            5 => WalEntry::CreateIndex {
                table: r.str()?,
                name: r.str()?,
                columns: read_positions(&mut r)?,
                unique: r.bool()?,
            },
            6 => WalEntry::DropIndex { name: r.str()? },
            7 => {
                let table = r.str()?;
                let types = (0..r.len_of(1)?)
                    .map(|_| read_type(&mut r))
                    .collect::<Result<Vec<_>>>()?;
                let mut parts = Vec::new();
                for _ in 0..r.len_of(9)? {
                    let len = usize::try_from(r.u64()?).map_err(|_| r.corrupt("row count"))?;
                    let cols = types
                        .iter()
                        .map(|t| read_vector(&mut r, t, len))
                        .collect::<Result<Vec<_>>>()?;
                    parts.push((cols, len));
                }
                WalEntry::Insert { table, parts }
            }
            kind @ (8 | 12) => {
                let table = r.str()?;
                let mut groups = Vec::new();
                for _ in 0..r.len_of(9)? {
                    let len = r.u64()? as usize;
                    let mut columns = Vec::new();
                    for _ in 0..r.len_of(12)? {
                        let e = read_extent(&mut r)?;
                        let zone = match kind == 12 && r.bool()? {
                            true => Some(ZoneMap::read(&mut r, len as u64)?),
                            false => None,
                        };
                        columns.push((e, zone));
                    }
                    groups.push((len, columns));
                }
                WalEntry::InsertStored { table, groups }
            }
            11 => {
                use stride_common::TableAlteration as A;
                let table = r.str()?;
                let change = match r.u8()? {
                    1 => {
                        let s = read_schema(&mut r)?;
                        let [c] = <[_; 1]>::try_from(s.columns)
                            .map_err(|_| r.corrupt("ADD COLUMN names one column"))?;
                        A::AddColumn(c)
                    }
                    2 => A::DropColumn(r.str()?),
                    3 => A::RenameColumn {
                        old: r.str()?,
                        new: r.str()?,
                    },
                    4 => A::RenameTable(r.str()?),
                    5 => {
                        let column = r.str()?;
                        let default = match r.bool()? {
                            false => None,
                            true => {
                                let ty = read_type(&mut r)?;
                                Some(read_scalar(&mut r, &ty)?)
                            }
                        };
                        A::SetDefault { column, default }
                    }
                    6 => A::SetNotNull {
                        column: r.str()?,
                        not_null: r.bool()?,
                    },
                    7 => {
                        let column = r.str()?;
                        let ty = read_type(&mut r)?;
                        let mut values = Vec::new();
                        for _ in 0..r.len_of(9)? {
                            let len = usize::try_from(r.u64()?)
                                .ok()
                                .filter(|&n| n <= stride_common::MORSEL_SIZE)
                                .ok_or_else(|| r.corrupt("a row group's row count"))?;
                            values.push(read_vector(&mut r, &ty, len)?);
                        }
                        A::SetType { column, ty, values }
                    }
                    k => return Err(r.corrupt(&format!("unknown ALTER TABLE change {k}"))),
                };
                WalEntry::AlterTable { table, change }
            }
            9 => {
                let table = r.str()?;
                let rowids = (0..r.len_of(8)?)
                    .map(|_| r.u64())
                    .collect::<Result<Vec<_>>>()?;
                WalEntry::Delete { table, rowids }
            }
            10 => {
                let table = r.str()?;
                let columns = read_positions(&mut r)?;
                let rowids = (0..r.len_of(8)?)
                    .map(|_| r.u64())
                    .collect::<Result<Vec<_>>>()?;
                let mut values = Vec::with_capacity(columns.len());
                for _ in &columns {
                    let ty = read_type(&mut r)?;
                    values.push(read_vector(&mut r, &ty, rowids.len())?);
                }
                WalEntry::Update {
                    table,
                    columns,
                    rowids,
                    values,
                }
            }
            k => return Err(r.corrupt(&format!("unknown entry kind {k}"))),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::{FileSystem, OsFileSystem};

    fn drop_table(name: &str) -> Vec<WalEntry> {
        vec![WalEntry::DropTable { name: name.into() }]
    }

    fn names(commits: &[Vec<WalEntry>]) -> Vec<String> {
        commits
            .iter()
            .flatten()
            .map(|e| match e {
                WalEntry::DropTable { name } => name.clone(),
                other => panic!("unexpected entry {other:?}"),
            })
            .collect()
    }

    fn checkpoint(iteration: u64) -> Header {
        Header {
            version: crate::block_file::FORMAT_VERSION,
            iteration,
            metadata_block: 3,
            metadata_len: 100,
            block_count: 9,
        }
    }

    fn open_at(
        path: &std::path::Path,
        iteration: u64,
    ) -> Result<(Wal, Vec<Vec<WalEntry>>, Recovery)> {
        let file = OsFileSystem.open(path, true).unwrap();
        Wal::open(
            &OsFileSystem,
            path.to_str().unwrap(),
            file,
            &checkpoint(iteration),
            true,
        )
    }

    fn open(path: &std::path::Path) -> (Wal, Vec<Vec<WalEntry>>, Recovery) {
        open_at(path, 7).unwrap()
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("stride-wal-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("t.wal")
    }

    /// A log of commits dropping tables "a", "b", ... and the offset of each record.
    fn log_of(path: &std::path::Path, tables: &[&str]) -> Vec<u64> {
        let (mut wal, _, _) = open(path);
        tables
            .iter()
            .map(|t| {
                let at = wal.len();
                wal.append(&drop_table(t), true).unwrap();
                at
            })
            .collect()
    }

    fn flip(path: &std::path::Path, at: u64) {
        let mut bytes = std::fs::read(path).unwrap();
        bytes[at as usize] ^= 0x20;
        std::fs::write(path, bytes).unwrap();
    }

    #[test]
    fn damage_before_the_end_keeps_a_copy_and_counts_the_commits_dropped() {
        let path = scratch("middle");
        let at = log_of(&path, &["a", "b", "c", "d"]);
        flip(&path, at[1] + 10);
        let found = std::fs::read(&path).unwrap();
        let (mut wal, commits, recovery) = open(&path);
        assert_eq!(names(&commits), ["a"]);
        assert_eq!(
            (recovery.replayed, recovery.dropped),
            (1, 3),
            "{recovery:?}"
        );
        let kept = recovery.kept.clone().expect("a copy is kept");
        assert_eq!(
            std::fs::read(&kept).unwrap(),
            found,
            "the copy is the log as found"
        );
        let warning = recovery.warning("db").unwrap();
        assert!(
            warning.contains("commit 2 fails its checksum and 2 intact commit(s) follow it")
                && warning.contains(&kept),
            "{warning}"
        );
        // The log goes on after the last good commit; a second damage keeps a second copy.
        wal.append(&drop_table("e"), true).unwrap();
        let (_, commits, recovery) = open(&path);
        assert_eq!(
            (names(&commits), recovery.cut_bytes),
            (vec!["a".into(), "e".into()], 0)
        );
        let at = log_of(&path, &["f", "g"]);
        flip(&path, at[0] + 9);
        let (_, _, recovery) = open(&path);
        assert!(recovery.kept.unwrap().ends_with(".damaged-2"));

        // Read-only, the damage is reported the same way and nothing is cut or kept.
        let path = scratch("middle-ro");
        let at = log_of(&path, &["a", "b", "c"]);
        flip(&path, at[1] + 10);
        let file = OsFileSystem.open(&path, false).unwrap();
        let (_, commits, recovery) = Wal::open(
            &OsFileSystem,
            path.to_str().unwrap(),
            file,
            &checkpoint(7),
            false,
        )
        .unwrap();
        assert_eq!(
            (names(&commits), recovery.dropped, recovery.kept),
            (vec!["a".into()], 2, None)
        );
        assert!(!path.with_extension("wal.damaged").exists());
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn a_damaged_log_header_still_replays_commits_of_the_current_checkpoint() {
        // A flipped byte in the copy of the header slot: the iteration still names the
        // current checkpoint, so the commits are replayed and the header rewritten.
        let path = scratch("head");
        log_of(&path, &["a", "b"]);
        flip(&path, 30);
        let (_, commits, recovery) = open(&path);
        assert_eq!(names(&commits), ["a", "b"]);
        assert!(recovery.rewrote_log_header && recovery.warning("db").is_some());
        let (_, commits, recovery) = open(&path);
        assert_eq!(
            (names(&commits), recovery),
            (
                vec!["a".into(), "b".into()],
                Recovery {
                    replayed: 2,
                    ..Recovery::default()
                }
            )
        );
        // A flipped byte in the iteration: which checkpoint the log continues is lost;
        // the log is kept aside and started again.
        flip(&path, 16);
        let (wal, commits, recovery) = open(&path);
        assert!(commits.is_empty() && wal.is_empty());
        assert_eq!(recovery.dropped, 2);
        assert!(recovery.damage.unwrap().contains("header is damaged"));
        assert!(std::path::Path::new(&recovery.kept.unwrap()).exists());
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn a_log_newer_than_its_database_file_is_kept_and_a_stale_one_dropped() {
        let path = scratch("newer");
        log_of(&path, &["a"]);
        // The database file's checkpoint is older than the log's: kept, not replayed.
        let (_, commits, recovery) = open_at(&path, 6).unwrap();
        assert!(commits.is_empty());
        assert!(recovery
            .damage
            .unwrap()
            .contains("newer than the database file's 6"));
        assert!(recovery.kept.is_some());
        // A log naming an older checkpoint was folded into it: dropped without a word.
        log_of(&path, &["a"]);
        let (_, commits, recovery) = open_at(&path, 8).unwrap();
        assert!(commits.is_empty());
        assert_eq!(recovery, Recovery::default());
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn logs_of_version_1_replay_and_newer_versions_are_refused() {
        let path = scratch("v1");
        // Version 1: magic, version, zero, iteration; the records follow at byte 24.
        let mut w = ByteWriter::new();
        w.raw(MAGIC);
        w.u32(1);
        w.u32(0);
        w.u64(7);
        let mut record = ByteWriter::new();
        encode_commit(&mut record, &drop_table("old"));
        w.u32(record.bytes.len() as u32);
        w.u32(crc32fast::hash(&record.bytes));
        w.raw(&record.bytes);
        std::fs::write(&path, &w.bytes).unwrap();
        let (mut wal, commits, recovery) = open(&path);
        assert_eq!(
            (names(&commits), recovery.cut_bytes),
            (vec!["old".into()], 0)
        );
        wal.append(&drop_table("new"), true).unwrap();
        let (_, commits, _) = open(&path);
        assert_eq!(names(&commits), ["old", "new"]);

        let mut bytes = std::fs::read(&path).unwrap();
        bytes[8] = 3;
        std::fs::write(&path, &bytes).unwrap();
        let e = open_at(&path, 7).err().unwrap();
        assert!(e.message.contains("newer stride (log version 3"), "{e}");
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn the_file_grows_ahead_of_the_log_and_a_torn_record_in_its_zeros_is_cut() {
        let dir = std::env::temp_dir().join(format!("stride-wal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("grow.wal");
        let _ = std::fs::remove_file(&path);
        let (mut wal, commits, _) = open(&path);
        assert!(commits.is_empty() && wal.is_empty());
        wal.append(&drop_table("a"), true).unwrap();
        wal.append(&drop_table("b"), true).unwrap();
        let end = wal.len();
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            GROW,
            "grown a step ahead"
        );

        // The zeros after the log end it: nothing is cut, and the next commit goes
        // where the log ended.
        let (mut wal, commits, recovery) = open(&path);
        assert_eq!(
            (names(&commits), recovery.clone()),
            (
                vec!["a".into(), "b".into()],
                Recovery {
                    replayed: 2,
                    ..Recovery::default()
                }
            )
        );
        assert_eq!(wal.len(), end);
        wal.append(&drop_table("c"), true).unwrap();

        // A record torn inside the zeros (a crash in mid-append) is cut off and
        // reported; the commits before it stay, and the log goes on after them.
        let after_c = wal.len();
        let file = OsFileSystem.open(&path, true).unwrap();
        file.write_at(&[9, 0, 0, 0, 1, 2, 3, 4, 5], after_c)
            .unwrap();
        drop(wal);
        let (mut wal, commits, recovery) = open(&path);
        assert_eq!(names(&commits), ["a", "b", "c"]);
        assert_eq!((recovery.cut_bytes, recovery.dropped), (9, 1));
        assert!(
            recovery.damage.is_none() && recovery.kept.is_none(),
            "a torn append is no damage"
        );
        assert_eq!(wal.len(), after_c);
        wal.append(&drop_table("d"), true).unwrap();
        let (_, commits, recovery) = open(&path);
        assert_eq!(names(&commits), ["a", "b", "c", "d"]);
        assert_eq!(recovery.cut_bytes, 0);

        // A commit larger than a step grows the file past it, whole.
        let (mut wal, _, _) = open(&path);
        let big = "x".repeat(3 * GROW as usize);
        wal.append(&drop_table(&big), true).unwrap();
        let size = std::fs::metadata(&path).unwrap().len();
        assert!(size >= wal.len() && size % GROW == 0 && size - wal.len() < GROW);
        let (_, commits, recovery) = open(&path);
        assert_eq!(names(&commits).last().map(String::len), Some(big.len()));
        assert_eq!(recovery.cut_bytes, 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
