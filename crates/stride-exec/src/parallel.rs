//! Running independent tasks on the query's worker threads: for the phases of an
//! operator that are not a pipeline (an aggregate's partitioned merge, a hash join's
//! partitioned build). Tasks are handed out one at a time, so uneven tasks balance.

use crate::context::QueryContext;
use crate::pipeline::WORKER_STACK;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use stride_common::{Error, Result};

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
    std::thread::scope(|s| -> Result<()> {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                std::thread::Builder::new()
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(s, work)
            })
            .collect();
        let mut err = None;
        for h in handles {
            let r = h
                .map_err(|e| Error::internal(format!("cannot start a worker thread: {e}")))
                .and_then(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(Error::internal("a worker thread panicked")))
                });
            if let Err(e) = r {
                err.get_or_insert(e);
            }
        }
        err.map_or(Ok(()), Err)
    })?;
    results
        .into_inner()
        .map_err(|_| Error::internal("task lock"))?
        .into_iter()
        .map(|r| r.ok_or_else(|| Error::internal("a task produced no result")))
        .collect()
}
