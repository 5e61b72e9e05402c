//! End-to-end tests of the `stride` binary: runs it with `-c`, with scripts piped to
//! stdin and with the output-mode flags, and checks stdout, stderr and the exit status,
//! including `-bail`, `.timer`, dot commands, a database path, a closed stdout and
//! Ctrl-C.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn stride() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stride"));
    cmd.env("HOME", std::env::temp_dir());
    cmd
}

/// Runs `stride` with `args` and `stdin` as its input.
fn run(args: &[&str], stdin: &str) -> Output {
    run_bytes(args, stdin.as_bytes())
}

/// Runs `stride` with `args` (which need not be UTF-8) and the bytes `stdin` as its
/// input.
fn run_bytes<A: AsRef<std::ffi::OsStr>>(args: &[A], stdin: &[u8]) -> Output {
    let mut child = stride()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start stride");
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let output = child.wait_with_output().expect("wait for stride");
    writer.join().unwrap();
    output
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn command_argument_prints_a_box() {
    let o = run(&["-c", "SELECT 42 AS answer"], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with('┌'), "{out}");
    assert!(out.contains("answer"), "{out}");
    assert!(out.contains("│      42 │"), "{out}");
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

#[test]
fn piped_script_runs_every_statement() {
    let script =
        "CREATE TABLE t(a INTEGER, b VARCHAR);\nINSERT INTO t VALUES (1, 'one'), (2, 'two');\n\
                  SELECT a FROM t\n  ORDER BY a;\nSELECT b FROM t WHERE a = 2;\n";
    let o = run(&["-list"], script);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "a\n1\n2\nb\ntwo\n");
}

#[test]
fn csv_mode_quotes_fields() {
    let o = run(&["-csv", "-c", "SELECT 1 AS a, 'x,y' AS b, NULL AS c"], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "a,b,c\n1,\"x,y\",\n");
}

#[test]
fn json_mode_prints_objects() {
    let o = run(
        &[
            "-json",
            "-c",
            "SELECT 1 AS a, 'x\"y' AS b UNION ALL SELECT 2, NULL ORDER BY a",
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "[{\"a\":1,\"b\":\"x\\\"y\"},\n{\"a\":2,\"b\":null}]\n"
    );
}

#[test]
fn bail_stops_at_the_first_error() {
    let script = "SELECT 1 AS first;\nSELECT * FROM no_such_table;\nSELECT 3 AS third;\n";
    let o = run(&["-csv", "-bail"], script);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("first"), "{out}");
    assert!(!out.contains("third"), "{out}");
    assert!(stderr(&o).starts_with("Error: "), "{}", stderr(&o));
}

#[test]
fn without_bail_later_statements_run() {
    let script = "SELECT 1 AS first;\nSELECT * FROM no_such_table;\nSELECT 3 AS third;\n";
    let o = run(&["-csv"], script);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "first\n1\nthird\n3\n");
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("Error: ") && err.contains("no_such_table"),
        "{err}"
    );
}

#[test]
fn command_argument_follows_the_same_rules() {
    let o = run(
        &["-csv", "-c", "SELECT 1 AS a; SELECT nope; SELECT 2 AS b;"],
        "",
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "a\n1\nb\n2\n");
    let o = run(
        &[
            "-csv",
            "-bail",
            "-c",
            "SELECT 1 AS a; SELECT nope; SELECT 2 AS b;",
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "a\n1\n");
}

fn is_timer_line(line: &str) -> bool {
    // ^Run Time \(s\): real \d+\.\d{3} user \d+\.\d{3} sys \d+\.\d{3}$
    fn seconds(s: &str) -> bool {
        match s.split_once('.') {
            Some((int, frac)) => {
                !int.is_empty()
                    && int.bytes().all(|b| b.is_ascii_digit())
                    && frac.len() == 3
                    && frac.bytes().all(|b| b.is_ascii_digit())
            }
            None => false,
        }
    }
    let Some(rest) = line.strip_prefix("Run Time (s): real ") else {
        return false;
    };
    let parts: Vec<&str> = rest.split(' ').collect();
    matches!(parts.as_slice(), [real, "user", user, "sys", sys] if seconds(real) && seconds(user) && seconds(sys))
}

#[test]
fn timer_prints_run_time() {
    assert!(is_timer_line(
        "Run Time (s): real 0.012 user 0.020 sys 0.001"
    ));
    assert!(!is_timer_line(
        "Run Time (s): real 0.01 user 0.020 sys 0.001"
    ));
    let o = run(
        &["-csv"],
        ".timer on\nSELECT 1 AS x;\nCREATE TABLE t(a INTEGER);\n.timer off\nSELECT 2 AS y;\n",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    assert_eq!(&lines[..2], ["x", "1"]);
    assert!(is_timer_line(lines[2]), "{out}");
    assert!(is_timer_line(lines[3]), "{out}");
    assert_eq!(&lines[4..], ["y", "2"]);
}

#[test]
fn database_files_keep_data_between_runs() {
    let dir = std::env::temp_dir().join(format!("stride-cli-db-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("my.stride");
    let db = path.to_str().unwrap();
    let o = run(&[db, "-c", "CREATE TABLE t AS SELECT 42 AS answer"], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(path.exists() && dir.join("my.stride.wal").exists());
    // A script on stdin, then -readonly: the data is there, changes are refused.
    let o = run(
        &["-csv", db],
        "INSERT INTO t VALUES (43);
SELECT sum(answer) FROM t;
",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "sum(answer)\n85\n");
    let o = run(
        &[
            "-csv",
            "-readonly",
            db,
            "-c",
            "SELECT count(*) FROM t",
            "-c",
            "DELETE FROM t",
        ],
        "",
    );
    assert_eq!(stdout(&o), "count(*)\n2\n");
    assert!(stderr(&o).contains("read-only"), "{}", stderr(&o));
    // Not a database file: a clear error, and the file is left alone.
    let other = dir.join("notes.txt");
    std::fs::write(&other, "some notes").unwrap();
    let o = run(&[other.to_str().unwrap(), "-c", "SELECT 1"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("not a stride database file"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "some notes");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dot_commands_in_scripts() {
    let script = "CREATE TABLE b_table(x INTEGER);\nCREATE TABLE a_table(y VARCHAR);\n.tables\n\
                  .schema a_table\n.mode csv\nSELECT 7 AS seven;\n.quit\nSELECT 8 AS eight;\n";
    let o = run(&[], script);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("a_table  b_table\n"), "{out}");
    assert!(out.contains("CREATE TABLE a_table("), "{out}");
    assert!(out.ends_with("seven\n7\n"), "{out}");
}

#[test]
fn databases_lists_attached_ones() {
    let o = run(&[], "ATTACH ':memory:' AS scratch;\n.databases\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "memory: :memory:\nscratch: :memory:\n");
}

#[test]
fn unknown_dot_command_fails() {
    let o = run(&["-csv"], ".frobnicate\nSELECT 1 AS a;\n");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "a\n1\n");
    let err = stderr(&o);
    assert!(
        err.starts_with("Error: unknown command or invalid arguments:"),
        "{err}"
    );
    assert!(err.contains("frobnicate") && err.contains(".help"), "{err}");
}

#[test]
fn read_runs_a_file() {
    let path = std::env::temp_dir().join(format!("stride-cli-read-{}.sql", std::process::id()));
    std::fs::write(&path, "SELECT 5 AS five;\n").unwrap();
    let o = run(&["-csv", "-c", &format!(".read {}", path.display())], "");
    let _ = std::fs::remove_file(&path);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "five\n5\n");
}

#[test]
fn flags() {
    let o = run(&["-version"], "");
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("stride v"));
    let o = run(&["--help"], "");
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("-bail"));
    let o = run(&["-frobnicate"], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("-frobnicate"));
}

#[test]
fn other_modes() {
    let o = run(&["-markdown", "-c", "SELECT 1 AS n, 'a' AS s"], "");
    assert_eq!(stdout(&o), "|   n | s   |\n|----:|-----|\n|   1 | a   |\n");
    let o = run(&["-line", "-c", "SELECT 1 AS n, 'a' AS long_s"], "");
    assert_eq!(stdout(&o), "     n = 1\nlong_s = a\n");
}

#[test]
fn long_results_are_elided_in_box_mode() {
    let o = run(&["-c", "SELECT * FROM range(1000)"], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("1000 rows (40 shown)"), "{out}");
    assert!(out.contains('·'), "{out}");
    assert!(out.contains(" 999 │"), "{out}");
    assert!(!out.contains(" 500 │"), "{out}");
}

#[test]
fn closed_stdout_exits_quietly() {
    let mut child = stride()
        .args(["-csv", "-c", "SELECT * FROM range(100000000)"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    let n = out.read(&mut first).unwrap();
    assert!(n > 0);
    drop(out);
    let status = wait_with_deadline(&mut child, Duration::from_secs(30));
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status, Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn ctrl_c_stops_a_script_with_status_130() {
    let mut cmd = stride();
    // SAFETY: only async-signal-safe calls between fork and exec. The shell keeps
    // SIGINT ignored when it starts with it ignored (a background job), so make sure
    // it does not inherit that from whoever runs the tests.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut child = cmd
        .args(["-csv"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input
        .write_all(
            b"SELECT count(*) FROM range(1000000000000) WHERE range % 7 = 3;\nSELECT 1 AS after;\n",
        )
        .unwrap();
    drop(input);
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let status = wait_with_deadline(&mut child, Duration::from_secs(10));
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(status, Some(130));
    assert!(!out.contains("after"), "{out}");
}

/// Waits for `child` to exit; kills it and fails after `limit`.
fn wait_with_deadline(child: &mut std::process::Child, limit: Duration) -> Option<i32> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("stride did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn enable_profiling_prints_the_profile_after_the_rows() {
    let o = run(
        &["-list"],
        "PRAGMA enable_profiling;\nSELECT count(*) AS n FROM range(1000) t(x) WHERE x < 10;\n\
         PRAGMA disable_profiling;\nSELECT 7;\n",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let rows = out.find("n\n10\n").expect("the rows first");
    let profile = out.find("Total Time: ").expect("then the profile");
    assert!(rows < profile, "{out}");
    assert!(out.contains("FILTER") && out.contains("rows=10 "), "{out}");
    // Off again: the last query prints its row only.
    assert!(
        out.trim_end().ends_with("7\n7") || out.trim_end().ends_with('7'),
        "{out}"
    );
    assert_eq!(out.matches("Total Time").count(), 1, "{out}");
}

/// A script with CRLF line ends runs as with LF ones, dot commands included; a string
/// literal spanning lines keeps its CR, as in DuckDB.
#[test]
fn crlf_scripts_keep_the_cr_inside_string_literals() {
    let script = ".mode csv\r\nSELECT length('a\r\nb') AS n,\r\n  2 AS m;\r\nSELECT 3 AS k;\r\n";
    let o = run(&[], script);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "n,m\n4,2\nk\n3\n");
    let o = run(&["-csv", "-c", "SELECT length('a\r\nb') AS n"], "");
    assert_eq!(stdout(&o), "n\n4\n");
}

/// Arguments that are not UTF-8 (a database file name, SQL) are an error naming the
/// argument, not a panic.
#[test]
fn arguments_that_are_not_utf8_are_an_error() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    for args in [
        vec![
            OsStr::from_bytes(b"x\xff.db"),
            OsStr::new("-c"),
            OsStr::new("SELECT 1"),
        ],
        vec![OsStr::new("-c"), OsStr::from_bytes(b"SELECT 'caf\xe9'")],
    ] {
        let o = run_bytes(&args, b"");
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.starts_with("Error: the command-line argument"), "{err}");
        assert!(
            err.contains("is not valid UTF-8") && !err.contains("panicked"),
            "{err}"
        );
        assert!(stdout(&o).is_empty());
    }
}

/// A script line that is not valid UTF-8 is not run (nor its text changed): its
/// statement fails with an error naming the line, and the next statement runs, unless
/// -bail. The same holds for a file run with .read.
#[test]
fn script_lines_that_are_not_utf8_are_not_run() {
    let script: &[u8] = b"CREATE TABLE t(s VARCHAR);\nSELECT length('caf\xe9') AS n;\n\
        INSERT INTO t VALUES\n('caf\xe9');\nSELECT count(*) AS rows FROM t;\n";
    let o = run_bytes(&["-csv"], script);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "rows\n0\n");
    assert_eq!(
        stderr(&o),
        "Error: line 2 of standard input is not valid UTF-8 (its byte 19 is 0xE9); \
         its statement was not run. Convert the text to UTF-8 (for example with iconv)\n\
         Error: line 4 of standard input is not valid UTF-8 (its byte 6 is 0xE9); \
         its statement was not run. Convert the text to UTF-8 (for example with iconv)\n"
    );
    let o = run_bytes(&["-csv", "-bail"], script);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    // A dot command that is not UTF-8 does not run either.
    let o = run_bytes(&["-csv"], b".mode \xff\nSELECT 1 AS a;\n");
    assert_eq!(stdout(&o), "a\n1\n");
    assert!(
        stderr(&o).starts_with("Error: line 1 of standard input"),
        "{}",
        stderr(&o)
    );

    let path = std::env::temp_dir().join(format!("stride-cli-latin1-{}.sql", std::process::id()));
    std::fs::write(&path, b"SELECT 'caf\xe9' AS s;\nSELECT 3 AS c;\n").unwrap();
    let o = run(&["-csv", "-c", &format!(".read {}", path.display())], "");
    let _ = std::fs::remove_file(&path);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "c\n3\n");
    let err = stderr(&o);
    assert!(
        err.starts_with(&format!(
            "Error: line 1 of \"{}\" is not valid UTF-8",
            path.display()
        )),
        "{err}"
    );
}

/// A line inside an open block comment or string is part of the SQL, not a dot
/// command.
#[test]
fn dot_lines_inside_comments_and_strings_are_sql() {
    let o = run(&["-csv"], "/*\n.quit\n*/\nSELECT 1 AS a;\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "a\n1\n");
    let o = run(
        &["-csv"],
        "SELECT length('\n.quit\n') AS n;\nSELECT length($$\n.mode line\n$$) AS m;\n",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "n\n7\nm\n12\n");
}

/// Reading a long statement takes time linear in its length, even when many of its
/// lines hold a `;` inside a string (each such line once made the shell scan the
/// whole statement again: 40,000 lines took 46 s).
#[test]
fn long_statements_are_read_in_linear_time() {
    let mut script = String::from("SELECT count(*) AS n FROM (VALUES ('a;b')");
    for _ in 1..40_000 {
        script.push_str("\n, ('a;b')");
    }
    script.push_str(") t(s);\n");
    let start = Instant::now();
    let o = run(&["-csv"], &script);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "n\n40000\n");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}

/// -readonly needs a database file: an in-memory database opened read-only is an
/// error, as in DuckDB, not a writable database.
#[test]
fn readonly_without_a_database_file_is_an_error() {
    for args in [
        &["-readonly", "-c", "CREATE TABLE t(a int)"][..],
        &["-readonly", ":memory:", "-c", "SELECT 1"],
    ] {
        let o = run(args, "");
        assert_eq!(o.status.code(), Some(1));
        assert!(stdout(&o).is_empty());
        assert_eq!(
            stderr(&o),
            "Error: Invalid Input Error: Cannot launch in-memory database in read-only mode! \
             Give a database file to open read-only\n"
        );
    }
}
