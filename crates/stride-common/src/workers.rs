//! The process's worker threads: every parallel phase of a query (a pipeline's
//! workers, an operator's partitioned build or merge, the CSV reader's conversions) and
//! every per-statement thread (a streaming query's driver, a pgwire statement, the
//! planner when the caller's stack is small) runs on them. A thread made by
//! [`with_big_stack`] (the shell's) has the same stack and plans its statements itself.
//!
//! Threads live on between queries. Starting and ending threads per pipeline cost more
//! than the thread creation: the allocator's per-thread heaps were abandoned at every
//! exit, which made it hand their memory back to the kernel at once, so the next query
//! faulted in and zeroed fresh pages (a fifth of TPC-H's CPU time at SF 1).
//!
//! There is no fixed size. A job goes to an idle thread, or to a new one when none is
//! idle, so a job never waits behind a busy thread and nested parallel phases cannot
//! deadlock. A thread idle for [`IDLE_EXIT`] ends. Every thread has a [`stack_size`]
//! stack, enough for planning and evaluating deeply nested expressions.

use crate::{Error, Result};
use std::cell::Cell;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

/// Stack size of every worker thread: the planner and expression evaluation recurse
/// over deep trees. 512 MiB of address space (the memory is touched only as deep as
/// recursion goes), less under a process limit on address space (`ulimit -v`), where
/// a few threads' reserved stacks would otherwise use most of what the process may
/// map.
pub fn stack_size() -> usize {
    static SIZE: OnceLock<usize> = OnceLock::new();
    *SIZE.get_or_init(|| {
        const MOST: usize = 512 << 20;
        crate::memory::process_limit().map_or(MOST, |l| ((l / 32) as usize).clamp(64 << 20, MOST))
    })
}

thread_local! {
    /// Whether this thread was started with a [`stack_size`] stack: a worker, or a
    /// thread made by [`with_big_stack`].
    static BIG_STACK: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` on a new thread with a [`stack_size`] stack and returns its result: for a
/// loop that runs statement after statement (the shell's), which then plans and runs
/// each on its own thread instead of handing it to a worker and waiting (two thread
/// switches a statement, most of a single-row INSERT's time besides its sync).
pub fn with_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> std::io::Result<T> {
    std::thread::scope(|s| {
        let thread = std::thread::Builder::new()
            .name("stride-main".into())
            .stack_size(stack_size())
            .spawn_scoped(s, || {
                BIG_STACK.with(|b| b.set(true));
                f()
            })?;
        thread
            .join()
            .map_err(|_| std::io::Error::other("the main thread panicked; this is a bug"))
    })
}

/// How long a thread with nothing to do waits before it ends.
const IDLE_EXIT: Duration = Duration::from_secs(60);

type Job = Box<dyn FnOnce() + Send + 'static>;

struct Pool {
    queue: Mutex<Queue>,
    wake: Condvar,
}

struct Queue {
    jobs: VecDeque<Job>,
    /// Threads waiting for a job (including ones woken that have not taken one yet).
    idle: usize,
    /// The process the threads belong to: a child forked from it (Python's
    /// multiprocessing) has none of them, and starts its own.
    pid: u32,
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool {
        queue: Mutex::new(Queue {
            jobs: VecDeque::new(),
            idle: 0,
            pid: std::process::id(),
        }),
        wake: Condvar::new(),
    })
}

fn lock(pool: &Pool) -> MutexGuard<'_, Queue> {
    // Jobs run outside the lock and catch their panics, so it is never poisoned by
    // one; recover the guard rather than fail if it ever is.
    pool.queue.lock().unwrap_or_else(|e| e.into_inner())
}

/// Queues `job`; it runs on an idle worker thread, or on a new one. When no thread can
/// be started, the job is dropped unrun and the error says so.
fn submit(job: Job) -> Result<()> {
    // the job runs in the submitting statement's time zone
    let zone = crate::zone::entered();
    let job: Job = Box::new(move || {
        crate::zone::enter(zone);
        job();
    });
    let pool = pool();
    let mut q = lock(pool);
    let pid = std::process::id();
    if q.pid != pid {
        // Forked: the parent's threads and the jobs they had queued are not here.
        q.jobs.clear();
        q.idle = 0;
        q.pid = pid;
    }
    q.jobs.push_back(job);
    if q.jobs.len() <= q.idle {
        pool.wake.notify_one();
        return Ok(());
    }
    let started = std::thread::Builder::new()
        .name("stride-worker".into())
        .stack_size(stack_size())
        .spawn(move || work_loop(pool));
    if let Err(e) = started {
        q.jobs.pop_back();
        return Err(Error::internal(format!(
            "cannot start a worker thread: {e}"
        )));
    }
    Ok(())
}

fn work_loop(pool: &'static Pool) {
    BIG_STACK.with(|b| b.set(true));
    let mut q = lock(pool);
    loop {
        if let Some(job) = q.jobs.pop_front() {
            drop(q);
            // A panicking job loses its own work only; scoped jobs report theirs.
            let _ = catch_unwind(AssertUnwindSafe(job));
            q = lock(pool);
            continue;
        }
        q.idle += 1;
        let (guard, timeout) = pool
            .wake
            .wait_timeout(q, IDLE_EXIT)
            .unwrap_or_else(|e| e.into_inner());
        q = guard;
        q.idle -= 1;
        if timeout.timed_out() && q.jobs.is_empty() {
            return;
        }
    }
}

/// Runs `job` on a worker thread and returns at once: for work that outlives the
/// caller's frame, like a streaming query's driver.
pub fn spawn(job: impl FnOnce() + Send + 'static) -> Result<()> {
    submit(Box::new(job))
}

/// Runs `f` on a thread with a [`stack_size`] stack and waits for its result: on the
/// calling thread when it has one (a worker, or [`with_big_stack`]'s), otherwise on a
/// worker. A panic in `f` becomes an internal error naming `what`.
pub fn on_worker<T: Send>(what: &str, f: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    if BIG_STACK.with(Cell::get) {
        return catch_unwind(AssertUnwindSafe(f))
            .unwrap_or_else(|_| Err(Error::internal(format!("{what} panicked; this is a bug"))));
    }
    let slot: Mutex<Option<Result<T>>> = Mutex::new(None);
    let run = || {
        let r = catch_unwind(AssertUnwindSafe(f))
            .unwrap_or_else(|_| Err(Error::internal(format!("{what} panicked; this is a bug"))));
        *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
    };
    // One copy of `run` on a worker, none on the caller: `f` needs the worker's stack.
    let once = Mutex::new(Some(run));
    let errors = scoped(1, false, &|| {
        if let Some(run) = once.lock().unwrap_or_else(|e| e.into_inner()).take() {
            run();
        }
        Ok(())
    });
    if let Some(e) = errors.into_iter().find_map(|r| r.err()) {
        return Err(e);
    }
    slot.into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .unwrap_or_else(|| Err(Error::internal(format!("{what} did not run"))))
}

/// Runs `work` on the calling thread and on `helpers` worker threads at once, and
/// returns when every copy has finished: the results of the copies that ran, the
/// caller's first. A copy that panicked, the caller's included, gives an internal
/// error. `work` is meant to
/// pull tasks from shared state until none are left, so a helper that could not be
/// started only means fewer threads.
pub fn parallel(helpers: usize, work: &(dyn Fn() -> Result<()> + Sync)) -> Vec<Result<()>> {
    scoped(helpers, true, work)
}

/// `f` over `items` on the caller and up to `threads - 1` workers, handed out one at a
/// time so uneven items balance; the results in item order.
pub fn map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Result<Vec<R>> {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return Ok(items.iter().map(f).collect());
    }
    let out: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let errors = parallel(threads - 1, &|| loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(i) else {
            return Ok(());
        };
        let r = f(item);
        *out[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
    });
    if let Some(e) = errors.into_iter().find_map(|r| r.err()) {
        return Err(e);
    }
    out.into_iter()
        .map(|m| {
            m.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .ok_or_else(|| Error::internal("a parallel item produced no result"))
        })
        .collect()
}

/// What the helpers of one [`scoped`] call report back.
struct Latch {
    state: Mutex<(usize, Vec<Result<()>>)>,
    done: Condvar,
}

impl Latch {
    fn finish(&self, r: Result<()>) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.0 -= 1;
        s.1.push(r);
        self.done.notify_all();
    }
}

/// Waits for every started helper, also while the caller unwinds from a panic: the
/// helpers borrow the caller's `work`.
struct WaitAll<'a>(&'a Latch);

impl Drop for WaitAll<'_> {
    fn drop(&mut self) {
        let mut s = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
        while s.0 > 0 {
            s = self.0.done.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }
}

fn panicked() -> Error {
    Error::internal("a worker thread panicked; this is a bug")
}

fn scoped(
    helpers: usize,
    caller_too: bool,
    work: &(dyn Fn() -> Result<()> + Sync),
) -> Vec<Result<()>> {
    let latch = Arc::new(Latch {
        state: Mutex::new((0, Vec::new())),
        done: Condvar::new(),
    });
    let wait = WaitAll(&latch);
    // SAFETY: every job holding this reference has finished before this function
    // returns or unwinds: `wait` blocks until the latch counts no job outstanding, and
    // a job signals the latch only after its last use of `work`.
    let shared: &'static (dyn Fn() -> Result<()> + Sync) = unsafe { std::mem::transmute(work) };
    let mut results = Vec::new();
    for _ in 0..helpers {
        latch.state.lock().unwrap_or_else(|e| e.into_inner()).0 += 1;
        let mine = latch.clone();
        let job = Box::new(move || {
            let r = catch_unwind(AssertUnwindSafe(shared)).unwrap_or_else(|_| Err(panicked()));
            mine.finish(r);
        });
        if let Err(e) = submit(job) {
            latch.state.lock().unwrap_or_else(|e| e.into_inner()).0 -= 1;
            if !caller_too {
                results.push(Err(e));
            }
            break;
        }
    }
    if caller_too {
        results.push(catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|_| Err(panicked())));
    }
    drop(wait);
    let mut s = latch.state.lock().unwrap_or_else(|e| e.into_inner());
    results.append(&mut s.1);
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_copy_runs_and_borrows_the_callers_state() {
        let count = AtomicUsize::new(0);
        let results = parallel(3, &|| {
            count.fetch_add(1, Ordering::Relaxed);
            Ok(())
        });
        assert_eq!(results.len(), 4);
        assert!(results.iter().all(|r| r.is_ok()));
        assert_eq!(count.load(Ordering::Relaxed), 4);
    }

    #[test]
    fn panics_and_errors_come_back() {
        let who = AtomicUsize::new(0);
        let results = parallel(2, &|| match who.fetch_add(1, Ordering::Relaxed) {
            0 => Err(Error::internal("first")),
            1 => panic!("second"),
            _ => Ok(()),
        });
        assert_eq!(results.iter().filter(|r| r.is_err()).count(), 2);
        let e = on_worker("the test job", || -> Result<()> { panic!("boom") }).unwrap_err();
        assert!(e.message.contains("the test job panicked"), "{e}");
    }

    #[test]
    fn map_keeps_item_order() {
        let items: Vec<u64> = (0..1000).collect();
        let squares = map(&items, 3, |x| x * x).unwrap();
        assert_eq!(squares, items.iter().map(|x| x * x).collect::<Vec<_>>());
    }

    #[test]
    fn nested_phases_do_not_deadlock() {
        let total = AtomicUsize::new(0);
        parallel(2, &|| {
            for r in parallel(2, &|| {
                total.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }) {
                r?;
            }
            Ok(())
        });
        assert_eq!(total.load(Ordering::Relaxed), 9);
    }

    #[test]
    fn on_worker_has_a_large_stack() {
        fn depth(n: usize) -> usize {
            let pad = [n as u8; 1024];
            if n == 0 {
                pad[0] as usize
            } else {
                depth(n - 1) + std::hint::black_box(pad)[1] as usize
            }
        }
        // About 100 MB of frames: far past a default thread's 8 MB.
        let r = on_worker("deep recursion", || Ok(depth(100_000))).unwrap();
        assert_eq!(r, (1..=100_000).map(|n| n as u8 as usize).sum::<usize>());
    }
}
