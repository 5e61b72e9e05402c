//! Running independent tasks on the query's worker threads: for the phases of an
//! operator that are not a pipeline (an aggregate's partitioned merge, a hash join's
//! partitioned build). Tasks are handed out one at a time, so uneven tasks balance.

use crate::context::QueryContext;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use stride_common::{workers, Error, Result};

/// `f(0..tasks)` on up to `ctx.threads()` threads; the results in task order. The
/// first error stops the hand-out of further tasks and is returned.
pub fn map_tasks<T: Send>(
    ctx: &QueryContext,
    tasks: usize,
    f: impl Fn(usize) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let threads = ctx.threads().min(tasks);
    if threads <= 1 {
        return (0..tasks)
            .map(|t| {
                ctx.check()?;
                f(t)
            })
            .collect();
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..tasks).map(|_| None).collect());
    let work = || -> Result<()> {
        loop {
            let t = next.fetch_add(1, Ordering::Relaxed);
            if t >= tasks {
                return Ok(());
            }
            ctx.check()?;
            let r = f(t);
            if r.is_err() {
                next.store(tasks, Ordering::Relaxed);
            }
            let r = r?;
            results.lock().map_err(|_| Error::internal("task lock"))?[t] = Some(r);
        }
    };
    if let Some(e) = workers::parallel(threads - 1, &work)
        .into_iter()
        .find_map(|r| r.err())
    {
        return Err(e);
    }
    results
        .into_inner()
        .map_err(|_| Error::internal("task lock"))?
        .into_iter()
        .map(|r| r.ok_or_else(|| Error::internal("a task produced no result")))
        .collect()
}
