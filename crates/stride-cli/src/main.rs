//! `stride`, the interactive shell. Reads the command line, opens the database and
//! then either runs the `-c` commands, or reads statements from stdin: line by line
//! with editing and history when stdin is a terminal, as a script otherwise. Exit
//! status: 0 when everything ran, 1 when a statement or command failed (or the database
//! could not be opened), 130 when a script was stopped with Ctrl-C.

mod dot_commands;
mod interrupt;
mod progress;

mod serve;
mod shell;
mod timer;

use rustyline::error::ReadlineError;
use shell::{Flow, Input, Shell};
use std::ffi::OsString;
use std::io::{self, BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;
use stride::render::Mode;
use stride_common::memory::CountingAllocator;

/// mimalloc keeps freed memory for reuse instead of handing large blocks back to the
/// kernel at once: queries that build big hash tables one after another then do not
/// pay for fresh zeroed pages each time. Its bytes are counted, so a statement that
/// grows the process near what the system allows fails with an Out of Memory Error
/// instead of the process aborting when an allocation fails.
#[global_allocator]
static ALLOCATOR: CountingAllocator<mimalloc::MiMalloc> = CountingAllocator(mimalloc::MiMalloc);

// Option numbers are those of the mimalloc the crate builds, v3 (the position in
// `enum mi_option_e` of its `include/mimalloc.h`, counted from 0); v2 numbers them
// differently, and the crate's own constants name only some. A miscount once set
// `use_numa_nodes` instead of `purge_delay`, silently: the test `allocator_options`
// pins each number to its option's default value. `MIMALLOC_SHOW_STATS=1` prints
// how much was purged at exit (nothing, when `purge_delay` took).

/// mimalloc's `arena_reserve` option (KiB reserved at a time).
const MI_OPTION_ARENA_RESERVE: libmimalloc_sys::mi_option_t = 23;

/// mimalloc's `purge_delay` option.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
/// Freed memory stays with the process (-1: mimalloc never purges), for the next
/// allocation to reuse, as a database's buffer pool keeps its memory. The kernel
/// zeroes every page it hands out again, and that zeroing was most of some queries'
/// time: half of `CALL dbgen(sf = 1)` once (11.6 s, 5.3 s with a one-second delay).
/// Any delay is not enough with mimalloc v3, which purged 3.6 GiB during a 10M-row
/// window query even with a 100-second delay (`MIMALLOC_SHOW_STATS=1`); with none,
/// its hot runs spent 0.06-0.4 s in the kernel instead of 0.8-1.4 s. What
/// `memory_limit` bounds is counted by the accountant, not by the pages kept here.
const PURGE_DELAY_MS: std::ffi::c_long = -1;
/// While the process's allocations are past half of the machine's memory, freed
/// memory goes back to the system after this delay: kept pages are reused only by
/// allocations that fit them, and `CALL dbgen(sf = 10)` once left 23.7 GB resident on
/// a 24 GB machine with them all kept (18.3 GB live), so the next query was killed.
const PRESSED_PURGE_DELAY_MS: std::ffi::c_long = 100;

/// Sets a mimalloc option unless the environment sets it (`variable`). mimalloc reads
/// its options from the environment as the process starts, before `main`, so
/// `mi_option_set_default` would come too late to take.
fn set_allocator_option(
    option: libmimalloc_sys::mi_option_t,
    variable: &str,
    value: std::ffi::c_long,
) {
    if std::env::var_os(variable).is_none() {
        // SAFETY: sets a plain integer option, before any other thread runs.
        unsafe { libmimalloc_sys::mi_option_set(option, value) };
    }
}

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// How long a script gets to stop by itself after Ctrl-C before the process ends.
const BATCH_INTERRUPT_GRACE: Duration = Duration::from_secs(1);

const USAGE: &str = "\
Usage: stride [OPTIONS] [DATABASE] [SQL...]
       stride serve [DATABASE] [--listen ADDR]   (PostgreSQL clients; see serve --help)

Runs SQL on a stride database. DATABASE is a database file, created when missing
(with its write-ahead log beside it, DATABASE.wal); without one (or with :memory:)
the database lives in memory. SQL arguments after DATABASE run like -c. Reads statements from stdin when
no SQL is given: interactively on a terminal, as a script otherwise.

Options (one dash or two):
  -c SQL        run SQL (statements and dot commands), then exit
  -box          output as a box-drawn table (default)
  -csv          output as CSV
  -json         output as JSON
  -line         output one `name = value` line per column
  -list         output values separated by |
  -markdown     output as a Markdown table
  -bail         stop at the first error
  -readonly     open DATABASE read-only (other processes may read it too)
  -help         show this message
  -version      show the version
";

/// What the command line asks for.
#[derive(Debug, Default, PartialEq)]
struct Options {
    mode: Option<Mode>,
    bail: bool,
    read_only: bool,
    database: Option<String>,
    commands: Vec<String>,
}

#[derive(Debug, PartialEq)]
enum Command {
    Run(Options),
    Help,
    Version,
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut options = Options::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let flag = match arg.strip_prefix("--") {
            Some(rest) => rest,
            None => arg.strip_prefix('-').unwrap_or(""),
        };
        if flag.is_empty() {
            if options.database.is_none() {
                options.database = Some(arg);
            } else {
                options.commands.push(arg);
            }
            continue;
        }
        match flag {
            "c" => match args.next() {
                Some(sql) => options.commands.push(sql),
                None => return Err(format!("missing argument to {arg}")),
            },
            "bail" => options.bail = true,
            "readonly" => options.read_only = true,
            "help" | "h" => return Ok(Command::Help),
            "version" => return Ok(Command::Version),
            other => match Mode::parse(other) {
                Some(mode) => options.mode = Some(mode),
                None => {
                    return Err(format!(
                        "unknown option: {arg}\nUse -help for a list of options."
                    ))
                }
            },
        }
    }
    Ok(Command::Run(options))
}

fn main() {
    set_allocator_option(
        MI_OPTION_PURGE_DELAY,
        "MIMALLOC_PURGE_DELAY",
        PURGE_DELAY_MS,
    );
    // Under a limit on address space, mimalloc reserves it in smaller steps than its
    // 1 GiB, which would leave little of a few gigabytes for anything else.
    if let Some(limit) = stride_common::memory::process_limit() {
        let kib = (limit / 1024 / 32).clamp(16 << 10, 1 << 20);
        set_allocator_option(MI_OPTION_ARENA_RESERVE, "MIMALLOC_ARENA_RESERVE", kib as _);
    }
    CountingAllocator::<mimalloc::MiMalloc>::enable();
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        CountingAllocator::<mimalloc::MiMalloc>::on_pressure(|pressed| {
            let delay = if pressed {
                PRESSED_PURGE_DELAY_MS
            } else {
                PURGE_DELAY_MS
            };
            // SAFETY: sets a plain integer option; mimalloc reads it when memory is
            // freed.
            unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, delay) };
        });
    }
    // Statements are planned and run on the thread that reads them, which needs the
    // workers' large stack.
    let code = stride_common::workers::with_big_stack(run).unwrap_or_else(|e| {
        let _ = writeln!(io::stderr(), "Error: {e}");
        1
    });
    let _ = io::stdout().flush();
    std::process::exit(code);
}

/// The command-line arguments as text. An argument that is not valid UTF-8 (a file
/// name in another encoding, SQL written in one) is an error naming it: stride reads
/// file names and SQL as UTF-8 text.
fn utf8_args(args: impl IntoIterator<Item = OsString>) -> Result<Vec<String>, String> {
    args.into_iter()
        .map(|arg| {
            arg.into_string().map_err(|arg| {
                format!(
                    "the command-line argument \"{}\" is not valid UTF-8; stride reads file names and SQL as UTF-8 (rename the file, or convert the text to UTF-8)",
                    arg.to_string_lossy()
                )
            })
        })
        .collect()
}

fn run() -> i32 {
    let args = match utf8_args(std::env::args_os().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            let _ = writeln!(io::stderr(), "Error: {message}");
            return 1;
        }
    };
    if args.first().map(String::as_str) == Some("serve") {
        return match serve::run(&args[1..]) {
            Ok(()) => 0,
            Err(message) => {
                let _ = writeln!(io::stderr(), "Error: {message}");
                1
            }
        };
    }
    let options = match parse_args(args) {
        Ok(Command::Run(options)) => options,
        Ok(Command::Help) => {
            shell::check_output(io::stdout().write_all(USAGE.as_bytes()));
            return 0;
        }
        Ok(Command::Version) => {
            shell::check_output(writeln!(io::stdout(), "stride v{VERSION}"));
            return 0;
        }
        Err(message) => {
            let _ = writeln!(io::stderr(), "Error: {message}");
            return 1;
        }
    };
    let path = options.database.as_deref().unwrap_or(":memory:");
    let opened = if options.read_only {
        stride::Database::open_read_only(path)
    } else {
        stride::Database::open(path)
    };
    if let Ok(db) = &opened {
        if let Some(w) = db.recovery().warning(&db.path().unwrap_or_default()) {
            let _ = writeln!(io::stderr(), "warning: {w}");
        }
    }
    let file = opened.as_ref().ok().and_then(|db| db.path());
    let conn = match opened.and_then(|db| db.connect()) {
        Ok(conn) => conn,
        Err(e) => {
            let _ = writeln!(io::stderr(), "Error: {e}");
            return 1;
        }
    };

    let interactive = options.commands.is_empty() && io::stdin().is_terminal();
    let grace = (!interactive).then_some(BATCH_INTERRUPT_GRACE);
    if let Err(e) = interrupt::install(conn.interrupt_handle(), grace) {
        let _ = writeln!(
            io::stderr(),
            "warning: Ctrl-C will not cancel statements: {e}"
        );
    }
    let mut shell = Shell::new(conn, options.mode.unwrap_or(Mode::Box), options.bail);

    if interactive {
        repl(&mut shell, &banner(file.as_deref()));
        shell.flush();
        return 0;
    }
    let flow = if options.commands.is_empty() {
        run_stdin(&mut shell)
    } else {
        let mut flow = Flow::Continue;
        for command in &options.commands {
            flow = shell.run_text(command);
            if flow != Flow::Continue {
                break;
            }
        }
        flow
    };
    shell.flush();
    match flow {
        Flow::Interrupted => interrupt::EXIT_INTERRUPTED,
        _ if shell.failed => 1,
        _ => 0,
    }
}

/// Runs stdin as a script, one line at a time, so statements run as they arrive.
fn run_stdin(shell: &mut Shell) -> Flow {
    let stdin = io::stdin();
    let mut reader = stdin.lock();
    let mut input = Input::from("standard input");
    let mut bytes = Vec::new();
    let mut first = true;
    loop {
        bytes.clear();
        match reader.read_until(b'\n', &mut bytes) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                shell.fail(&format!("cannot read the input: {e}"));
                return Flow::Bail;
            }
        }
        let mut line = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
        if first {
            line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
            first = false;
        }
        let flow = shell.feed_bytes(&mut input, line);
        if flow != Flow::Continue {
            return flow;
        }
    }
    shell.finish_input(&mut input)
}

/// The interactive loop: prompt "D " for a new statement, "· " while one continues.
/// What the interactive shell says first: its version, and which database is open.
fn banner(file: Option<&str>) -> String {
    let database = match file {
        Some(path) => format!("Connected to the database file \"{path}\"."),
        None => "Connected to a transient in-memory database.".to_string(),
    };
    format!("stride v{VERSION}\nEnter \".help\" for usage hints.\n{database}\n")
}

fn repl(shell: &mut Shell, banner: &str) {
    let mut editor = match rustyline::DefaultEditor::new() {
        Ok(editor) => editor,
        Err(e) => {
            let _ = writeln!(io::stderr(), "warning: line editing is not available: {e}");
            run_stdin(shell);
            return;
        }
    };
    let history = history_path();
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    shell.print(banner);
    let mut input = Input::from("the terminal");
    loop {
        shell.flush();
        let prompt = if input.is_empty() { "D " } else { "· " };
        match editor.readline(prompt) {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.as_str());
                }
                shell.mark_input();
                if shell.feed_text(&mut input, &line) == Flow::Quit {
                    break;
                }
            }
            Err(ReadlineError::Interrupted) => input.clear(),
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                let _ = writeln!(io::stderr(), "Error: cannot read the input: {e}");
                break;
            }
        }
    }
    if let Some(path) = &history {
        let _ = editor.save_history(path);
    }
}

fn history_path() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty())?;
    Some(PathBuf::from(home).join(".stride_history"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Command, String> {
        parse_args(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn flags_and_positionals() {
        let Ok(Command::Run(o)) = parse(&["-csv", "--bail", "-c", "SELECT 1", "x.db"]) else {
            panic!()
        };
        assert_eq!(o.mode, Some(Mode::Csv));
        assert!(o.bail);
        assert_eq!(o.commands, vec!["SELECT 1"]);
        assert_eq!(o.database.as_deref(), Some("x.db"));
        assert_eq!(parse(&["--help"]), Ok(Command::Help));
        assert_eq!(parse(&["-version"]), Ok(Command::Version));
        assert!(parse(&["-nope"]).is_err());
        assert!(parse(&["-c"]).is_err());
        let Ok(Command::Run(o)) = parse(&[":memory:", "SELECT 2"]) else {
            panic!()
        };
        assert_eq!(o.commands, vec!["SELECT 2"]);
    }

    /// The banner names the database file open, or says the database is in memory.
    #[test]
    fn banner_says_what_is_open() {
        assert!(banner(None).ends_with("\nConnected to a transient in-memory database.\n"));
        assert!(banner(Some("/tmp/x.db"))
            .ends_with("\nConnected to the database file \"/tmp/x.db\".\n"));
    }

    /// The option numbers name the options meant: in the test process nothing sets
    /// them, so each holds its own default (purge_delay 1000 ms, arena_reserve 1 GiB
    /// in KiB), which the neighbouring options do not share.
    #[test]
    fn allocator_options() {
        if std::env::vars().any(|(k, _)| k.starts_with("MIMALLOC_")) {
            return;
        }
        // SAFETY: reads plain integer options.
        let get = |o| unsafe { libmimalloc_sys::mi_option_get(o) };
        assert_eq!(get(MI_OPTION_PURGE_DELAY), 1000);
        assert_eq!(get(MI_OPTION_ARENA_RESERVE), 1 << 20);
    }
}
