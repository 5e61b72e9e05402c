//! What each operator of a query did, for EXPLAIN ANALYZE: rows produced, time
//! spent (summed over the threads that ran it), the peak memory its state reserved,
//! and for table scans the row groups read and skipped. A [`Profile`] lives in the query's context only when it is asked for;
//! the executor (`executor.rs`) looks up each physical plan node's [`NodeStats`] as it
//! builds pipelines, and the pipeline loop (`pipeline.rs`) counts a node's rows and
//! time only when it has them, so an unprofiled query pays one branch per chunk.
//!
//! Time is a node's own: an operator's time excludes the operators after it in its
//! pipeline, a source's excludes the operators it feeds, and a pipeline breaker
//! (aggregate, sort, join build) counts the time it takes its input and finishes.
//!
//! Memory is counted where a node's work runs: [`NodeStats::time`] and the pipeline
//! loop run it under the node's [`MemoryGauge`], so each reservation the node makes
//! (`stride_common::memory`) counts in its gauge, and every node's gauge in the
//! profile's, the query's peak.

use crate::physical_plan::PhysicalPlan;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use stride_common::memory::{gauged, MemoryGauge};

/// Counters of one plan node.
#[derive(Default, Debug)]
pub struct NodeStats {
    pub rows: AtomicU64,
    pub nanos: AtomicU64,
    /// Table scans: row groups read, and skipped by zone maps.
    pub groups_read: AtomicU64,
    pub groups_skipped: AtomicU64,
    /// What the node's reservations hold.
    pub memory: Arc<MemoryGauge>,
}

impl NodeStats {
    pub fn add_rows(&self, n: usize) {
        self.rows.fetch_add(n as u64, Ordering::Relaxed);
    }

    pub fn add_time(&self, d: Duration) {
        self.nanos.fetch_add(d.as_nanos() as u64, Ordering::Relaxed);
    }

    /// Runs `f`, counting its time, and the memory it reserves as this node's.
    pub fn time<T>(&self, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let r = gauged(&self.memory, f);
        self.add_time(start.elapsed());
        r
    }

    /// Runs `f`, counting the memory it reserves as this node's (not its time).
    pub fn holding<T>(&self, f: impl FnOnce() -> T) -> T {
        gauged(&self.memory, f)
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
    /// What all nodes' reservations hold together: the query's peak.
    pub memory: Arc<MemoryGauge>,
}

impl Profile {
    /// The counters of `node` (made on first use).
    pub fn node(&self, node: &PhysicalPlan) -> Arc<NodeStats> {
        let key = node as *const PhysicalPlan as usize;
        let made = || {
            Arc::new(NodeStats {
                memory: MemoryGauge::new(Some(self.memory.clone())),
                ..NodeStats::default()
            })
        };
        self.nodes
            .lock()
            .map(|mut m| m.entry(key).or_insert_with(made).clone())
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
