//! Per-query execution state shared by all worker threads: the catalog to scan, the
//! settings, the cancellation flag and the cache of subquery results.

use crate::progress::Progress;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use stride_common::{Error, Result, ScalarValue, Settings};
use stride_storage::Catalog;

/// The rows of a subquery's first column, computed once per distinct set of outer
/// values.
#[derive(Debug, Clone)]
pub struct SubqueryRows {
    pub values: Vec<ScalarValue>,
}

pub struct QueryContext {
    pub catalog: Arc<Catalog>,
    pub settings: Settings,
    cancel: Arc<AtomicBool>,
    /// Keyed by the subquery's id and the outer values it was run for. A subquery plan
    /// instantiated for one outer row runs in a child context with an empty cache,
    /// because the results of subqueries nested in it depend on that row.
    pub subquery_cache: Mutex<HashMap<(u64, String), Arc<SubqueryRows>>>,
    /// Work done so far, for progress bars.
    pub progress: Arc<Progress>,
}

impl QueryContext {
    pub fn new(catalog: Arc<Catalog>, settings: Settings, cancel: Arc<AtomicBool>) -> Self {
        QueryContext {
            catalog,
            settings,
            cancel,
            subquery_cache: Mutex::new(HashMap::new()),
            progress: Arc::new(Progress::default()),
        }
    }

    /// A context for running an instantiated subquery: same catalog, settings and
    /// cancellation, fresh subquery cache.
    pub fn child(&self) -> QueryContext {
        QueryContext::new(
            self.catalog.clone(),
            self.settings.clone(),
            self.cancel.clone(),
        )
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

    /// Err(Interrupted) once the query was cancelled; called once per chunk.
    #[inline]
    pub fn check(&self) -> Result<()> {
        if self.is_cancelled() {
            Err(Error::interrupted())
        } else {
            Ok(())
        }
    }
}
