//! A statement's result being read from Python, and the one way Python waits for
//! the engine: the work runs on a helper thread (kept between statements; a forked
//! child starts its own) while the caller waits with the GIL released (other Python
//! threads run) and Ctrl-C watched (it interrupts the statement and raises
//! KeyboardInterrupt). Rows the engine has produced already are fetched without
//! waiting ([`fetch`]).

use crate::errors::to_py;
use crate::stream::Batches;
use pyo3::prelude::*;
use std::sync::mpsc;
use std::time::Duration;
use stride::{InterruptHandle, QueryResult};
use stride_common::{DataChunk, Result, ScalarValue};

/// How often a waiting call looks for Ctrl-C.
const SIGNAL_POLL: Duration = Duration::from_millis(50);
/// Stack of the thread a statement runs on (deeply nested SQL recurses in the binder).
const STACK: usize = 256 << 20;

/// A thread that runs statements for Python callers, one job at a time, with the
/// deep stack the binder needs; kept between statements, since starting a thread
/// costs about as much as a short statement.
struct Helper {
    jobs: mpsc::Sender<Box<dyn FnOnce() + Send>>,
}

/// Helpers waiting for work, and the process that started them (a forked child
/// has none of its parent's threads, and starts its own).
static IDLE: std::sync::Mutex<(u32, Vec<Helper>)> = std::sync::Mutex::new((0, Vec::new()));

impl Helper {
    fn start() -> PyResult<Helper> {
        let (jobs, queue) = mpsc::channel::<Box<dyn FnOnce() + Send>>();
        std::thread::Builder::new()
            .name("stride-python".into())
            .stack_size(STACK)
            .spawn(move || {
                for job in queue {
                    // A job that panics drops its result's sender, which its caller
                    // reports; the helper goes on.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                }
            })
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
        Ok(Helper { jobs })
    }

    /// An idle helper of this process, or a new one.
    fn take() -> PyResult<Helper> {
        let pid = std::process::id();
        if let Ok(mut idle) = IDLE.lock() {
            if idle.0 != pid {
                *idle = (pid, Vec::new());
            }
            if let Some(h) = idle.1.pop() {
                return Ok(h);
            }
        }
        Helper::start()
    }

    fn put_back(self) {
        if let Ok(mut idle) = IDLE.lock() {
            if idle.0 == std::process::id() {
                idle.1.push(self);
            }
        }
    }
}

/// Runs `f` on a helper thread while this thread waits without the GIL. Ctrl-C while
/// waiting interrupts the statement, waits for it to stop, and raises the
/// KeyboardInterrupt.
pub fn blocking<T: Send + 'static>(
    py: Python<'_>,
    interrupt: &InterruptHandle,
    f: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = mpsc::channel();
    // Borrowed by the GIL-free waits below, which need a shareable receiver.
    let rx = std::sync::Mutex::new(rx);
    let recv = |timeout: Option<Duration>| {
        let rx = rx.lock().expect("only this thread receives");
        match timeout {
            Some(t) => rx.recv_timeout(t),
            None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
        }
    };
    // the work runs in this thread's time zone (see stride_common::zone)
    let zone = stride_common::zone::entered();
    let mut job: Box<dyn FnOnce() + Send> = Box::new(move || {
        stride_common::zone::enter(zone);
        let _ = tx.send(f());
    });
    let helper = loop {
        let helper = Helper::take()?;
        // A helper whose thread is gone (it cannot be, short of a bug) hands the
        // job back; another takes it.
        match helper.jobs.send(job) {
            Ok(()) => break helper,
            Err(mpsc::SendError(back)) => job = back,
        }
    };
    let result = loop {
        match py.detach(|| recv(Some(SIGNAL_POLL))) {
            Ok(v) => break Ok(v),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    interrupt.interrupt();
                    let _ = py.detach(|| recv(None));
                    break Err(e);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                break Err(crate::errors::InternalException::new_err(
                    "the statement's thread stopped without a result (a bug in stride)",
                ))
            }
        }
    };
    // Only now is the job done with: the helper can take another.
    helper.put_back();
    result
}

/// Like [`blocking`] for work that returns a stride result.
pub fn run<T: Send + 'static>(
    py: Python<'_>,
    interrupt: &InterruptHandle,
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> PyResult<T> {
    blocking(py, interrupt, f)?.map_err(to_py)
}

/// Up to `n` more rows of `pending` (all when `None`): those the engine has
/// produced already are read on this thread, and only the rest is waited for as
/// [`blocking`] waits (a helper thread costs more than a short result).
pub fn fetch(
    py: Python<'_>,
    interrupt: &InterruptHandle,
    mut pending: Pending,
    n: Option<usize>,
) -> PyResult<(Pending, Result<Vec<Vec<ScalarValue>>>)> {
    let mut rows = Vec::new();
    match pending.rows(n, &mut rows, false) {
        Ok(false) => {}
        done => return Ok((pending, done.map(|_| rows))),
    }
    blocking(py, interrupt, move || {
        let done = pending.rows(n, &mut rows, true);
        (pending, done.map(|_| rows))
    })
}

/// A result and how far it has been read.
pub struct Pending {
    pub result: QueryResult,
    chunk: Option<DataChunk>,
    pos: usize,
}

impl Pending {
    pub fn new(result: QueryResult) -> Self {
        Pending {
            result,
            chunk: None,
            pos: 0,
        }
    }

    /// Waits for the first chunk, so that a query's errors (and the work before its
    /// first row: a sort, an aggregate) happen now rather than at the first fetch.
    pub fn prefetch(&mut self) -> Result<()> {
        if self.chunk.is_none() {
            if let Some(c) = self.result.next_chunk() {
                self.chunk = Some(c?.flatten());
                self.pos = 0;
            }
        }
        Ok(())
    }

    /// The rest of the current chunk, or the result's next chunk.
    pub fn next_chunk(&mut self) -> Option<Result<DataChunk>> {
        if let Some(c) = self.chunk.take() {
            if self.pos < c.len() {
                let rest = c.slice(self.pos, c.len() - self.pos);
                return Some(Ok(rest));
            }
        }
        self.result.next_chunk()
    }

    /// Adds up to `n` more rows (all when `None`, counting those in `out`) to `out`.
    /// With `wait` false it reads only rows the engine has produced already, and
    /// returns whether it got all it was asked for (false: the rest needs waiting).
    pub fn rows(
        &mut self,
        n: Option<usize>,
        out: &mut Vec<Vec<ScalarValue>>,
        wait: bool,
    ) -> Result<bool> {
        while n.is_none_or(|n| out.len() < n) {
            let chunk = match &self.chunk {
                Some(c) if self.pos < c.len() => c,
                _ => {
                    let next = if wait {
                        self.result.next_chunk()
                    } else {
                        match self.result.try_next_chunk() {
                            Ok(next) => next,
                            Err(stride::WouldBlock) => return Ok(false),
                        }
                    };
                    match next {
                        None => break,
                        Some(c) => {
                            self.chunk = Some(c?.flatten());
                            self.pos = 0;
                            continue;
                        }
                    }
                }
            };
            let end = n.map_or(chunk.len(), |n| chunk.len().min(self.pos + n - out.len()));
            out.extend((self.pos..end).map(|i| chunk.row(i)));
            self.pos = end;
        }
        Ok(true)
    }

    pub fn batches(self, batch_rows: usize) -> Batches {
        Batches::new(self, batch_rows)
    }
}
