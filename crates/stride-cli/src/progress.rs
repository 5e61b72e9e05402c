//! The progress bar: for a statement still running after about two seconds, a line on
//! standard error (only when it is a terminal) showing the share of its work done,
//! redrawn ten times a second. It disappears before results are printed and shows
//! 100% when the statement completes.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use stride::ProgressHandle;

const DELAY: Duration = Duration::from_secs(2);
const TICK: Duration = Duration::from_millis(100);
const WIDTH: usize = 50;

pub struct ProgressBar {
    stop: Arc<AtomicBool>,
    /// Whether the statement's work is complete (draw 100% before clearing).
    complete: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl ProgressBar {
    /// Starts watching the connection's current statement; does nothing unless
    /// standard error is a terminal.
    pub fn start(handle: ProgressHandle) -> ProgressBar {
        let stop = Arc::new(AtomicBool::new(false));
        let complete = Arc::new(AtomicBool::new(false));
        let thread = std::io::stderr().is_terminal().then(|| {
            let (stop, complete) = (stop.clone(), complete.clone());
            std::thread::spawn(move || run(handle, &stop, &complete))
        });
        ProgressBar {
            stop,
            complete,
            thread,
        }
    }

    /// Removes the bar; `complete` draws it at 100% first if it was showing.
    pub fn finish(mut self, complete: bool) {
        self.complete.store(complete, Ordering::Relaxed);
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for ProgressBar {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn run(handle: ProgressHandle, stop: &AtomicBool, complete: &AtomicBool) {
    let start = Instant::now();
    let mut shown = false;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(TICK);
        if start.elapsed() >= DELAY {
            if let Some(f) = handle.fraction() {
                draw(f);
                shown = true;
            }
        }
    }
    if shown {
        if complete.load(Ordering::Relaxed) {
            draw(1.0);
        }
        let mut err = std::io::stderr();
        let _ = write!(err, "\r\x1b[2K");
        let _ = err.flush();
    }
}

fn draw(fraction: f64) {
    let filled = ((fraction * WIDTH as f64) as usize).min(WIDTH);
    let mut err = std::io::stderr();
    let _ = write!(
        err,
        "\r{:>3}% ▕{}{}▏",
        (fraction * 100.0).floor() as u32,
        "█".repeat(filled),
        " ".repeat(WIDTH - filled)
    );
    let _ = err.flush();
}
