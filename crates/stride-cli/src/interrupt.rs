//! Ctrl-C. The SIGINT handler only counts signals in a static atomic (the one thing a
//! signal handler may safely do); a watcher thread polls the count every 20 ms and,
//! when it moves, cancels the statement running on the shell's connection through its
//! [`InterruptHandle`]. The main loop compares the count with the value it noted when
//! it took its input, to stop running the rest of that input.
//!
//! Interactive shells go back to the prompt. In batch mode the shell exits with status
//! 130 once the statement has stopped; should it be stuck (waiting for more input on a
//! pipe, say), the watcher ends the process itself after a grace period.
//!
//! While rustyline reads a line it installs its own SIGINT handling (Ctrl-C then comes
//! back as `ReadlineError::Interrupted`) and puts ours back afterwards.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use stride::InterruptHandle;

/// Exit status of a batch run stopped by Ctrl-C (128 + SIGINT), as shells report it.
pub const EXIT_INTERRUPTED: i32 = 130;

static SIGNALS: AtomicUsize = AtomicUsize::new(0);

const POLL: Duration = Duration::from_millis(20);

extern "C" fn on_sigint(_signal: libc::c_int) {
    SIGNALS.fetch_add(1, Ordering::SeqCst);
}

/// How many times SIGINT has arrived; compare with [`since`].
pub fn count() -> usize {
    SIGNALS.load(Ordering::SeqCst)
}

/// Whether SIGINT arrived after `mark` (a value of [`count`]).
pub fn since(mark: usize) -> bool {
    count() != mark
}

/// Installs the SIGINT handler and starts the watcher thread that cancels statements on
/// `handle`. With `exit_after`, the watcher also ends the process with status 130 that
/// long after a Ctrl-C, in case the main thread does not get there first. Leaves SIGINT
/// alone where it is ignored (a background job started by a non-interactive shell).
pub fn install(handle: InterruptHandle, exit_after: Option<Duration>) -> std::io::Result<()> {
    // SAFETY: sigaction with a zeroed, then filled-in struct; the handler only touches
    // an atomic, which is async-signal-safe.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGINT, std::ptr::null(), &mut old) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if old.sa_sigaction == libc::SIG_IGN {
            return Ok(());
        }
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        if libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    std::thread::Builder::new()
        .name("stride-ctrl-c".into())
        .spawn(move || watch(handle, exit_after))?;
    Ok(())
}

fn watch(handle: InterruptHandle, exit_after: Option<Duration>) {
    let mut seen = count();
    let mut deadline: Option<Instant> = None;
    loop {
        std::thread::sleep(POLL);
        let now = count();
        if now != seen {
            seen = now;
            handle.interrupt();
            if let Some(grace) = exit_after {
                deadline.get_or_insert_with(|| Instant::now() + grace);
            }
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            std::process::exit(EXIT_INTERRUPTED);
        }
    }
}
