//! Running independent tasks on the query's worker threads: for the phases of an
//! operator that are not a pipeline (an aggregate's partitioned merge, a hash join's
//! partitioned build). Tasks are handed out one at a time, so uneven tasks balance.

use crate::context::QueryContext;
use std::sync::atomic::{AtomicBool, Ordering};
use stride_common::{workers, Error, Result};

/// `f(0..tasks)` on up to `ctx.threads()` threads; the results in task order. The
/// first error stops the hand-out of further tasks and is returned.
pub fn map_tasks<T: Send>(
    ctx: &QueryContext,
    tasks: usize,
    f: impl Fn(usize) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let failed = AtomicBool::new(false);
    let ids: Vec<usize> = (0..tasks).collect();
    // A task handed out after a failure is skipped (None).
    let results = workers::map(&ids, ctx.threads(), |&t| {
        if failed.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let r = ctx.check().and_then(|()| f(t));
        if r.is_err() {
            failed.store(true, Ordering::Relaxed);
        }
        r.map(Some)
    })?;
    let results: Vec<Option<T>> = results.into_iter().collect::<Result<_>>()?;
    results
        .into_iter()
        .map(|r| r.ok_or_else(|| Error::internal("a task produced no result")))
        .collect()
}
