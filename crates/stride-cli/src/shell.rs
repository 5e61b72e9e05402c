//! The shell's state and the path from input text to output: [`Input`] gathers lines
//! until they hold complete statements, [`Shell::feed_line`] sends dot commands to
//! [`crate::dot_commands`] and SQL to the connection one statement at a time, and each
//! result goes through the current output mode's renderer to stdout. Errors go to
//! stderr as `Error: ...`; [`Flow`] tells the caller whether to go on.

use crate::interrupt;
use crate::progress::ProgressBar;
use crate::timer::Stopwatch;
use std::io::{self, BufWriter, Stdout, Write};
use stride::render::Mode;
use stride::{split_statements, Connection, Error, ErrorKind, Scanner};

/// What the caller should do after a piece of input ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// `.quit` or `.exit`.
    Quit,
    /// A statement failed with bail on: stop running input.
    Bail,
    /// Ctrl-C: the running statement was cancelled; drop the rest of the input.
    Interrupted,
}

/// Lines read so far that do not yet end a statement.
#[derive(Default)]
pub struct Input {
    buffer: String,
    /// Where the statements in the buffer end, and whether a string or comment is
    /// open. It keeps its place between lines, so each line is scanned once.
    scanner: Scanner,
    /// Where the lines come from, for errors: "standard input", a file's name.
    source: String,
    /// How many lines have been read.
    lines: usize,
    /// The first line of the buffer that was not valid UTF-8: its statement does not
    /// run.
    invalid: Option<InvalidLine>,
}

/// A line of input that is not valid UTF-8.
struct InvalidLine {
    /// Its number, from 1.
    line: usize,
    /// The position in the line of the first byte that is not UTF-8, from 0.
    offset: usize,
    /// That byte.
    byte: u8,
}

impl Input {
    /// Input whose lines come from `source` ("standard input", a file's name).
    pub fn from(source: &str) -> Self {
        Input {
            source: source.to_string(),
            ..Input::default()
        }
    }

    /// Whether nothing is buffered, so the next line starts afresh (prompt "D ").
    pub fn is_empty(&self) -> bool {
        self.buffer.trim().is_empty()
    }

    pub fn clear(&mut self) {
        self.buffer.clear();
        self.scanner = Scanner::new();
        self.invalid = None;
    }

    fn take(&mut self) -> String {
        self.scanner = Scanner::new();
        std::mem::take(&mut self.buffer)
    }

    /// The error for the line that was not valid UTF-8 in what was taken, if any; the
    /// next statement starts afresh.
    fn take_invalid(&mut self) -> Option<String> {
        let bad = self.invalid.take()?;
        Some(format!(
            "line {} of {} is not valid UTF-8 (its byte {} is 0x{:02X}); its statement was not run. Convert the text to UTF-8 (for example with iconv)",
            bad.line,
            self.source,
            bad.offset + 1,
            bad.byte
        ))
    }
}

pub struct Shell {
    pub conn: Connection,
    out: BufWriter<Stdout>,
    pub mode: Mode,
    pub timer: bool,
    pub bail: bool,
    /// Some statement or command failed.
    pub failed: bool,
    /// The SIGINT count when the current input was taken (see [`interrupt::since`]).
    interrupt_mark: usize,
    /// How deeply `.read` files are nested.
    pub read_depth: usize,
}

impl Shell {
    pub fn new(conn: Connection, mode: Mode, bail: bool) -> Self {
        Shell {
            conn,
            out: BufWriter::with_capacity(64 * 1024, io::stdout()),
            mode,
            timer: false,
            bail,
            failed: false,
            // Counting starts at zero: a Ctrl-C from the very start counts.
            interrupt_mark: 0,
            read_depth: 0,
        }
    }

    /// Notes that new input was taken: a Ctrl-C before this no longer counts.
    pub fn mark_input(&mut self) {
        self.interrupt_mark = interrupt::count();
    }

    /// Writes `text` to stdout.
    pub fn print(&mut self, text: &str) {
        check_output(self.out.write_all(text.as_bytes()));
    }

    pub fn flush(&mut self) {
        check_output(self.out.flush());
    }

    /// Reports a failure (`Error: message` on stderr) and says whether to go on.
    pub fn fail(&mut self, message: &str) -> Flow {
        self.flush();
        let _ = writeln!(io::stderr(), "Error: {message}");
        self.failed = true;
        if self.bail {
            Flow::Bail
        } else {
            Flow::Continue
        }
    }

    /// Runs every line of `text` (a `-c` argument), then whatever the last line left
    /// unfinished.
    pub fn run_text(&mut self, text: &str) -> Flow {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut input = Input::from("the command");
        match self.feed_text(&mut input, text) {
            Flow::Continue => self.finish_input(&mut input),
            other => other,
        }
    }

    /// Runs every line of the script `bytes` read from `source` (a file's name), then
    /// whatever the last line left unfinished; see [`Shell::feed_bytes`].
    pub fn run_script(&mut self, bytes: &[u8], source: &str) -> Flow {
        let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
        let mut input = Input::from(source);
        for line in bytes.split(|&b| b == b'\n') {
            let flow = self.feed_bytes(&mut input, line);
            if flow != Flow::Continue {
                return flow;
            }
        }
        self.finish_input(&mut input)
    }

    /// Takes one line of a script as read, without its `\n`. A line that is not valid
    /// UTF-8 is not run, nor changed: the statement (or dot command) it is part of
    /// fails with an error naming the line, and the next one runs as usual.
    pub fn feed_bytes(&mut self, input: &mut Input, bytes: &[u8]) -> Flow {
        match std::str::from_utf8(bytes) {
            Ok(line) => self.feed_line(input, line),
            Err(e) => {
                let offset = e.valid_up_to();
                if input.invalid.is_none() {
                    input.invalid = Some(InvalidLine {
                        line: input.lines + 1,
                        offset,
                        byte: bytes[offset],
                    });
                }
                // The replacement characters only find where the statement ends;
                // the text never runs.
                self.feed_line(input, &String::from_utf8_lossy(bytes))
            }
        }
    }

    /// Feeds each line of `text` to [`Shell::feed_line`], stopping when one says to.
    pub fn feed_text(&mut self, input: &mut Input, text: &str) -> Flow {
        for line in text.split('\n') {
            let flow = self.feed_line(input, line);
            if flow != Flow::Continue {
                input.clear();
                return flow;
            }
        }
        Flow::Continue
    }

    /// Takes one line of input: a dot command when no statement is pending (nor a
    /// string or block comment open), else SQL that runs once it completes a
    /// statement.
    pub fn feed_line(&mut self, input: &mut Input, line: &str) -> Flow {
        input.lines += 1;
        // A line of a script with CRLF line ends keeps its CR in SQL (whitespace
        // there, and part of a string literal that spans lines, as in DuckDB); a dot
        // command is read without it.
        if input.scanner.at_statement_start() {
            let start = line.strip_suffix('\r').unwrap_or(line).trim_start();
            let skipped =
                input.buffer.trim().is_empty() && (start.is_empty() || start.starts_with("--"));
            if skipped || start.starts_with('.') {
                if let Some(message) = input.take_invalid() {
                    return self.fail(&message);
                }
            }
            if skipped {
                return Flow::Continue;
            }
            if start.starts_with('.') {
                return crate::dot_commands::run(self, start);
            }
        }
        input.buffer.push_str(line);
        input.buffer.push('\n');
        input.scanner.advance(&input.buffer, false);
        if input.scanner.complete() {
            return self.run_input(input);
        }
        Flow::Continue
    }

    /// Runs what is left in `input` at the end of the input, finished with `;` or not.
    pub fn finish_input(&mut self, input: &mut Input) -> Flow {
        self.run_input(input)
    }

    /// Runs the statements buffered in `input`, unless one of its lines was not valid
    /// UTF-8.
    fn run_input(&mut self, input: &mut Input) -> Flow {
        let sql = input.take();
        match input.take_invalid() {
            Some(message) => self.fail(&message),
            None => self.run_sql(&sql),
        }
    }

    /// Runs each statement of `sql` in order.
    pub fn run_sql(&mut self, sql: &str) -> Flow {
        for statement in split_statements(sql) {
            if interrupt::since(self.interrupt_mark) {
                return Flow::Interrupted;
            }
            let stopwatch = self.timer.then(Stopwatch::start);
            let outcome = self.run_statement(&statement);
            let flow = match outcome {
                Ok(()) => Flow::Continue,
                Err(e) => {
                    let interrupted =
                        e.kind == ErrorKind::Interrupted || interrupt::since(self.interrupt_mark);
                    let flow = self.fail(&e.to_string());
                    if interrupted {
                        Flow::Interrupted
                    } else {
                        flow
                    }
                }
            };
            if let Some(s) = stopwatch {
                let line = s.report();
                self.print(&line);
                self.print("\n");
            }
            self.flush();
            if flow != Flow::Continue {
                return flow;
            }
        }
        Flow::Continue
    }

    /// Runs one statement and writes its result, if it has a result set. A panic in the
    /// engine becomes an internal error rather than the end of the shell.
    fn run_statement(&mut self, sql: &str) -> Result<(), Error> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.execute(sql))).unwrap_or_else(
            |_| {
                Err(Error::internal(
                    "stride panicked while running the statement; this is a bug",
                ))
            },
        )
    }

    fn execute(&mut self, sql: &str) -> Result<(), Error> {
        let bar = ProgressBar::start(self.conn.progress_handle());
        let mut result = match self.conn.execute_one(sql) {
            Ok(r) => r,
            Err(e) => {
                bar.finish(false);
                return Err(e);
            }
        };
        if result.names.is_empty() {
            bar.finish(true);
            print_notes(&result);
            return Ok(());
        }
        let mut renderer = self.mode.renderer(&result.names, &result.types);
        let mut bar = Some(bar);
        while let Some(chunk) = result.next_chunk() {
            if interrupt::since(self.interrupt_mark) {
                result.cancel();
                return Err(Error::interrupted());
            }
            let chunk = chunk?;
            // The bar goes before the first row is written.
            if let Some(b) = bar.take() {
                b.finish(false);
                check_output(renderer.begin(&mut self.out));
            }
            for i in 0..chunk.len() {
                check_output(renderer.row(&mut self.out, &chunk.row(i)));
            }
            check_output(self.out.flush());
        }
        if let Some(b) = bar.take() {
            b.finish(true);
            check_output(renderer.begin(&mut self.out));
        }
        check_output(renderer.finish(&mut self.out));
        // SET enable_profiling without a profiling_output file: the profile follows
        // the rows, as in DuckDB's shell.
        if let Some(profile) = &result.profile {
            check_output(writeln!(self.out, "{profile}"));
        }
        print_notes(&result);
        Ok(())
    }
}

/// Notes on a statement that succeeded go to standard error, apart from the results.
fn print_notes(result: &stride::QueryResult) {
    for n in result.notes() {
        eprintln!("Note: {n}");
    }
}

/// Ends the process when stdout cannot be written: quietly when the reader went away
/// (`stride ... | head`), with a message otherwise.
pub fn check_output(result: io::Result<()>) {
    if let Err(e) = result {
        if e.kind() == io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        let _ = writeln!(io::stderr(), "Error: cannot write the output: {e}");
        std::process::exit(1);
    }
}
