//! What reading a file taught that sniffing it could not know: a column type chosen
//! from a sample is too narrow (text in a column sampled as numbers). The reader
//! records a wider type for that file and column and fails the scan; the facade plans
//! the statement again, binding consults these records, so the new plan reads the
//! column with the wider type and no row is dropped.
//! Records are keyed by the file's path, size and modification time, so an edited
//! file starts afresh. [`generation`] counts lessons, which lets a caller ask whether
//! one was learned while its statement ran.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
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
    /// What each widening was, by generation, for notices.
    notes: Vec<(u64, String)>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Widenings so far, process-wide.
pub fn generation() -> u64 {
    GENERATION.load(Ordering::SeqCst)
}

/// Applies `change` to the state and counts a lesson, noting `note` for the user.
fn learn(note: String, change: impl FnOnce(&mut State)) {
    let Ok(mut guard) = STATE.lock() else {
        return;
    };
    let state = guard.get_or_insert_with(|| State {
        widened: HashMap::new(),
        notes: Vec::new(),
    });
    if state.widened.len() >= MAX_FILES {
        state.widened.clear();
    }
    change(state);
    let g = GENERATION.fetch_add(1, Ordering::SeqCst) + 1;
    state.notes.push((g, note));
    if state.notes.len() > MAX_FILES {
        state.notes.remove(0);
    }
}

/// Records that `column` of the file needs `ty`; `note` says why, for the user.
pub fn widen(key: &FileKey, column: usize, ty: DataType, note: String) {
    learn(note, |state| {
        let cols = state.widened.entry(key.clone()).or_default();
        match cols.iter_mut().find(|(c, _)| *c == column) {
            Some(entry) => entry.1 = ty,
            None => cols.push((column, ty)),
        }
    });
}

/// The widened types recorded for a file.
pub fn widened(key: &FileKey) -> Vec<(usize, DataType)> {
    STATE
        .lock()
        .ok()
        .and_then(|g| g.as_ref().and_then(|s| s.widened.get(key).cloned()))
        .unwrap_or_default()
}

/// Notes of the lessons learned after generation `since`.
pub fn notes_since(since: u64) -> Vec<String> {
    STATE
        .lock()
        .ok()
        .and_then(|g| {
            g.as_ref().map(|s| {
                s.notes
                    .iter()
                    .filter(|(g, _)| *g > since)
                    .map(|(_, n)| n.clone())
                    .collect()
            })
        })
        .unwrap_or_default()
}
