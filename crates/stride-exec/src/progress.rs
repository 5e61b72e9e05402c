//! How far a statement has got: units of source work (bytes of a CSV file, rows of a
//! table or of an intermediate result) counted as each pipeline starts and as each
//! of its morsels finishes. The shell's progress bar reads it from another thread.
//! A statement with several pipelines adds each one's work when it starts, so the
//! fraction can step back when a later pipeline begins; it reaches 1 exactly when the
//! last morsel of the last pipeline is done.

use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Debug, Default)]
pub struct Progress {
    done: AtomicU64,
    total: AtomicU64,
}

impl Progress {
    pub fn add_total(&self, units: u64) {
        self.total.fetch_add(units, Ordering::Relaxed);
    }

    pub fn add_done(&self, units: u64) {
        self.done.fetch_add(units, Ordering::Relaxed);
    }

    /// Done over total, once any work is known.
    pub fn fraction(&self) -> Option<f64> {
        let total = self.total.load(Ordering::Relaxed);
        let done = self.done.load(Ordering::Relaxed);
        (total > 0).then(|| (done as f64 / total as f64).min(1.0))
    }
}
