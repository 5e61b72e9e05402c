//! What each operator of a query did, for EXPLAIN ANALYZE: rows produced and time
//! spent, summed over the threads that ran it, and for table scans the row groups read
//! and skipped. A [`Profile`] lives in the query's context only when it is asked for;
//! the executor (`executor.rs`) looks up each physical plan node's [`NodeStats`] as it
//! builds pipelines, and the pipeline loop (`pipeline.rs`) counts a node's rows and
//! time only when it has them, so an unprofiled query pays one branch per chunk.
//!
//! Time is a node's own: an operator's time excludes the operators after it in its
//! pipeline, a source's excludes the operators it feeds, and a pipeline breaker
//! (aggregate, sort, join build) counts the time it takes its input and finishes.

use crate::physical_plan::PhysicalPlan;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Counters of one plan node.
#[derive(Default, Debug)]
pub struct NodeStats {
    pub rows: AtomicU64,
    pub nanos: AtomicU64,
    /// Table scans: row groups read, and skipped by zone maps.
    pub groups_read: AtomicU64,
    pub groups_skipped: AtomicU64,
}

impl NodeStats {
    pub fn add_rows(&self, n: usize) {
        self.rows.fetch_add(n as u64, Ordering::Relaxed);
    }

    pub fn add_time(&self, d: Duration) {
        self.nanos.fetch_add(d.as_nanos() as u64, Ordering::Relaxed);
    }

    /// Runs `f`, counting its time.
    pub fn time<T>(&self, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let r = f();
        self.add_time(start.elapsed());
        r
    }

    pub fn rows(&self) -> u64 {
        self.rows.load(Ordering::Relaxed)
    }

    pub fn seconds(&self) -> f64 {
        self.nanos.load(Ordering::Relaxed) as f64 / 1e9
    }
}

/// Every node's counters, by node (its address in the physical plan being run).
#[derive(Default)]
pub struct Profile {
    nodes: Mutex<HashMap<usize, Arc<NodeStats>>>,
}

impl Profile {
    /// The counters of `node` (made on first use).
    pub fn node(&self, node: &PhysicalPlan) -> Arc<NodeStats> {
        let key = node as *const PhysicalPlan as usize;
        self.nodes
            .lock()
            .map(|mut m| m.entry(key).or_default().clone())
            .unwrap_or_default()
    }

    /// Drops `node`'s counters: it does no work of its own.
    pub fn forget(&self, node: &PhysicalPlan) {
        if let Ok(mut m) = self.nodes.lock() {
            m.remove(&(node as *const PhysicalPlan as usize));
        }
    }

    /// The counters of `node` if it ran.
    pub fn get(&self, node: &PhysicalPlan) -> Option<Arc<NodeStats>> {
        let key = node as *const PhysicalPlan as usize;
        self.nodes.lock().ok()?.get(&key).cloned()
    }
}
