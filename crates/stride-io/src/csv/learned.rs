//! What reading a file taught that sniffing it could not know: a column type chosen
//! from a sample is too narrow (text in a column sampled as numbers). The reader
//! records a wider type here for that file and column, notes it on itself
//! ([`super::CsvReader::widened_note`]) and fails the scan; the facade sees the note
//! on the statement's reader and plans the statement again. Binding consults these
//! records, so the new plan (and every later read of the file) reads the column with
//! the wider type and no row is dropped.
//!
//! Records are keyed by the file's path, size and modification time, so an edited
//! file starts afresh.

use std::collections::HashMap;
use std::sync::Mutex;
use stride_common::DataType;

/// Files remembered at most; older records are forgotten beyond this.
const MAX_FILES: usize = 1024;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FileKey {
    path: String,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl FileKey {
    pub fn of(path: &str) -> Option<FileKey> {
        let meta = std::fs::metadata(path).ok()?;
        let canonical = std::fs::canonicalize(path).ok()?;
        Some(FileKey {
            path: canonical.to_string_lossy().into_owned(),
            len: meta.len(),
            modified: meta.modified().ok(),
        })
    }
}

struct State {
    widened: HashMap<FileKey, Vec<(usize, DataType)>>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

/// Records that `column` of the file needs `ty`.
pub fn widen(key: &FileKey, column: usize, ty: DataType) {
    let Ok(mut guard) = STATE.lock() else {
        return;
    };
    let state = guard.get_or_insert_with(|| State {
        widened: HashMap::new(),
    });
    if state.widened.len() >= MAX_FILES && !state.widened.contains_key(key) {
        state.widened.clear();
    }
    let cols = state.widened.entry(key.clone()).or_default();
    match cols.iter_mut().find(|(c, _)| *c == column) {
        Some(entry) => entry.1 = ty,
        None => cols.push((column, ty)),
    }
}

/// The widened types recorded for a file.
pub fn widened(key: &FileKey) -> Vec<(usize, DataType)> {
    STATE
        .lock()
        .ok()
        .and_then(|g| g.as_ref().and_then(|s| s.widened.get(key).cloned()))
        .unwrap_or_default()
}
