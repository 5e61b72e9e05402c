//! Per-query execution state shared by all worker threads: the catalogs to scan (and
//! whose sequences `nextval` takes from), the settings, the cancellation flag, the
//! caches of subquery results, the rows of CTEs computed once, the last round's rows of each running recursive CTE, the memory
//! accountant operators reserve from, the instant `now()` reads, and under EXPLAIN
//! ANALYZE the operators' counters.

use crate::progress::Progress;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use stride_common::memory::MemoryAccountant;
use stride_common::{DataChunk, Error, Result, ScalarValue, Settings};
use stride_storage::Catalogs;

/// The rows of a subquery's first column, computed once per distinct set of outer
/// values.
#[derive(Debug, Clone)]
pub struct SubqueryRows {
    pub values: Vec<ScalarValue>,
    /// The values as a hash set, for `x IN (subquery)` with an uncorrelated
    /// subquery: built on first use; `None` inside when the values' type has none.
    pub set: OnceLock<Option<crate::in_set::InSet>>,
}

/// The rows of a LATERAL subquery for one set of outer values: flat columns and
/// their length.
#[derive(Debug, Clone)]
pub struct LateralRows {
    pub columns: Vec<stride_common::Vector>,
    pub len: usize,
}

pub struct QueryContext {
    pub catalog: Arc<Catalogs>,
    pub settings: Settings,
    cancel: Arc<AtomicBool>,
    /// Keyed by the subquery's id and the outer values it was run for. A subquery plan
    /// instantiated for one outer row runs in a child context with an empty cache,
    /// because the results of subqueries nested in it depend on that row.
    pub subquery_cache: Mutex<HashMap<(u64, String), Arc<SubqueryRows>>>,
    /// The rows of a LATERAL subquery, keyed as `subquery_cache`.
    pub lateral_cache: Mutex<HashMap<(u64, String), Arc<LateralRows>>>,
    /// Work done so far, for progress bars.
    pub progress: Arc<Progress>,
    /// EXPLAIN ANALYZE: every plan node's counters (`profile.rs`); `None` otherwise.
    pub profile: Option<Arc<crate::profile::Profile>>,
    /// The database's memory accountant: operators reserve their state from it and
    /// spill (or fail) when it is full.
    pub memory: Arc<MemoryAccountant>,
    /// When the statement's `statement_timeout` runs out (set when it started).
    deadline: Option<std::time::Instant>,
    /// What `now()`, `current_date` and `current_time` read, in microseconds since
    /// the epoch: when the statement started, or its transaction (set by the
    /// connection), so every row and every call sees the same instant.
    pub clock: i64,
    /// Rows of the CTEs computed once per query, by CTE id. Shared with child
    /// contexts: a shared CTE body refers to no outer row.
    ctes: Arc<Mutex<HashMap<u64, CteRows>>>,
    /// The rows the last round of each running recursive CTE added, by id.
    rounds: Arc<Mutex<HashMap<u64, Arc<Vec<DataChunk>>>>>,
    /// Hash tables of joins in a recursive CTE's step whose build input does not
    /// change between rounds ([`PhysicalPlan::round_invariant`]), built in the first
    /// round and probed by the later ones; by the build input's address in the plan.
    /// Emptied when the outermost recursion ends. Not shared with child contexts,
    /// whose plans may depend on an outer row.
    ///
    /// [`PhysicalPlan::round_invariant`]: crate::physical_plan::PhysicalPlan::round_invariant
    builds: Mutex<HashMap<usize, Arc<crate::operators::hash_join::JoinProbe>>>,
}

/// The rows of one shared CTE, computed by whichever reference runs first.
type CteRows = Arc<OnceLock<Result<Arc<Vec<DataChunk>>>>>;

impl QueryContext {
    pub fn new(catalog: Arc<Catalogs>, settings: Settings, cancel: Arc<AtomicBool>) -> Self {
        let deadline = settings
            .statement_timeout
            .and_then(|t| std::time::Instant::now().checked_add(t));
        QueryContext {
            catalog,
            deadline,
            clock: stride_functions::scalar::clock_micros(),
            cancel,
            subquery_cache: Mutex::new(HashMap::new()),
            lateral_cache: Mutex::new(HashMap::new()),
            progress: Arc::new(Progress::default()),
            ctes: Arc::default(),
            rounds: Arc::default(),
            builds: Mutex::new(HashMap::new()),
            profile: None,
            memory: MemoryAccountant::new(settings.memory_limit),
            settings,
        }
    }

    /// The rows of shared CTE `id`, computed by `compute` the first time they are
    /// asked for in this query; later (or concurrent) callers wait for and share them.
    pub fn cte_rows(
        &self,
        id: u64,
        compute: impl FnOnce() -> Result<Vec<DataChunk>>,
    ) -> Result<Arc<Vec<DataChunk>>> {
        let cell = self
            .ctes
            .lock()
            .map_err(|_| Error::internal("CTE cache lock"))?
            .entry(id)
            .or_default()
            .clone();
        cell.get_or_init(|| compute().map(Arc::new)).clone()
    }

    /// Sets the rows the last round of recursive CTE `id` added.
    pub fn set_round(&self, id: u64, rows: Arc<Vec<DataChunk>>) -> Result<()> {
        self.rounds
            .lock()
            .map_err(|_| Error::internal("recursive CTE lock"))?
            .insert(id, rows);
        Ok(())
    }

    /// Ends recursive CTE `id`'s rounds; the last recursion to end drops the hash
    /// tables kept across rounds.
    pub fn end_rounds(&self, id: u64) -> Result<()> {
        let mut rounds = self
            .rounds
            .lock()
            .map_err(|_| Error::internal("recursive CTE lock"))?;
        rounds.remove(&id);
        if rounds.is_empty() {
            self.builds
                .lock()
                .map_err(|_| Error::internal("join cache lock"))?
                .clear();
        }
        Ok(())
    }

    /// Whether a recursive CTE's rounds are running.
    pub fn in_recursion(&self) -> bool {
        self.rounds.lock().is_ok_and(|r| !r.is_empty())
    }

    /// The hash table kept for the build input at `key` (see `builds`), or the one
    /// `build` makes, kept when `keep` says so.
    pub fn kept_build(
        &self,
        key: usize,
        build: impl FnOnce() -> Result<crate::operators::grace_join::HashJoin>,
        keep: impl Fn(&crate::operators::grace_join::HashJoin) -> bool,
    ) -> Result<crate::operators::grace_join::HashJoin> {
        use crate::operators::grace_join::HashJoin;
        let lock = || {
            self.builds
                .lock()
                .map_err(|_| Error::internal("join cache lock"))
        };
        if let Some(probe) = lock()?.get(&key) {
            return Ok(HashJoin::InMemory(probe.clone()));
        }
        let join = build()?;
        if let HashJoin::InMemory(probe) = &join {
            if keep(&join) {
                lock()?.insert(key, probe.clone());
            }
        }
        Ok(join)
    }

    /// The rows the last round of recursive CTE `id` added.
    pub fn round(&self, id: u64) -> Result<Arc<Vec<DataChunk>>> {
        self.rounds
            .lock()
            .map_err(|_| Error::internal("recursive CTE lock"))?
            .get(&id)
            .cloned()
            .ok_or_else(|| Error::internal("a recursive CTE read outside its recursion"))
    }

    /// This context reading `catalog` instead (a statement's snapshot of the tables),
    /// with the same settings, cancellation, deadline and progress.
    pub fn with_catalog(&self, catalog: Arc<Catalogs>) -> QueryContext {
        let mut c = self.child();
        c.catalog = catalog;
        c.progress = self.progress.clone();
        c
    }

    /// A context for running an instantiated subquery: same catalog, settings and
    /// cancellation, fresh subquery cache.
    pub fn child(&self) -> QueryContext {
        let mut child = QueryContext::new(
            self.catalog.clone(),
            self.settings.clone(),
            self.cancel.clone(),
        );
        child.ctes = self.ctes.clone();
        child.rounds = self.rounds.clone();
        child.deadline = self.deadline;
        child.clock = self.clock;
        child.memory = self.memory.clone();
        child
    }

    /// This context with `now()` and friends reading `micros` (a transaction's start).
    pub fn with_clock(mut self, micros: i64) -> QueryContext {
        self.clock = micros;
        self
    }

    /// This context counting its operators' memory in `memory` (the database's).
    pub fn with_memory(mut self, memory: Arc<MemoryAccountant>) -> QueryContext {
        self.memory = memory;
        self
    }

    pub fn threads(&self) -> usize {
        self.settings.threads.max(1)
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Err(Interrupted) once the query was cancelled or ran past its statement
    /// timeout (which cancels it for every thread), and an Out of Memory Error once
    /// the process has grown near what the system allows it
    /// (`stride_common::memory::check_process`); called once per chunk.
    #[inline]
    pub fn check(&self) -> Result<()> {
        let timed_out = || {
            self.deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
        };
        if self.is_cancelled() {
            Err(if timed_out() {
                self.timeout_error()
            } else {
                Error::interrupted()
            })
        } else if timed_out() {
            self.cancel();
            Err(self.timeout_error())
        } else {
            stride_common::memory::check_process()
        }
    }

    #[cold]
    fn timeout_error(&self) -> Error {
        Error::statement_timeout(&stride_common::settings::format_timeout(
            self.settings.statement_timeout,
        ))
    }
}
