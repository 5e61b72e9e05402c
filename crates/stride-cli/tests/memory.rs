//! The `stride` binary under a process memory limit (`ulimit -v`): `memory_limit`
//! defaults below it, queries that fit spill, and a query that cannot fit fails with
//! an Out of Memory Error while the shell (and a server's other sessions) go on.

use std::process::{Command, Output, Stdio};

/// Runs the shell with `commands` under `ulimit -v <kib>`.
fn limited(kib: u64, commands: &[&str]) -> Output {
    let mut script = format!("ulimit -v {kib} && exec \"$0\"");
    for (i, _) in commands.iter().enumerate() {
        script.push_str(&format!(" -c \"${}\"", i + 1));
    }
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_stride"))
        .args(commands)
        .env("HOME", std::env::temp_dir())
        .output()
        .expect("start stride")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn memory_limit_defaults_below_the_process_limit() {
    let o = limited(4_000_000, &["SELECT current_setting('memory_limit') AS m"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // 60% of 4,000,000 KiB.
    assert!(text(&o.stdout).contains("2.3 GiB"), "{}", text(&o.stdout));
}

/// Needs more than 64MB and cannot spill: an ordered aggregate of one group buffers
/// every row.
const TOO_BIG: &str =
    "SELECT length(string_agg(x::VARCHAR, ',' ORDER BY x DESC)) FROM range(10000000) t(x)";

#[test]
fn a_query_that_cannot_fit_fails_and_the_shell_goes_on() {
    let o = limited(
        4_000_000,
        &[
            "SET memory_limit = '64MB'",
            TOO_BIG,
            "SELECT count(*) AS groups FROM (SELECT x, count(*) FROM range(1000000) t(x) GROUP BY x)",
            "SELECT 42 AS alive",
        ],
    );
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(
        err.contains("Out of Memory Error: the hash aggregate could not reserve"),
        "{err}"
    );
    assert!(!err.contains("memory allocation"), "{err}");
    // The grouping spilled and finished; the shell answered after the error.
    assert!(out.contains("1000000"), "{out}\n{err}");
    assert!(out.contains("42"), "{out}\n{err}");
    assert_eq!(o.status.code(), Some(1), "{:?}", o.status);
}

/// Lists are built whole, as values: a list a query asks for at once (`range(n)` as a
/// value, `list_resize`), or a `list()` that grows past what the process may still
/// allocate, fails the statement instead of an allocation aborting the process.
#[test]
fn lists_too_big_for_the_process_fail_the_statement() {
    let o = limited(
        2_000_000,
        &[
            "SELECT len(list_resize([1], 300000000))",
            "SELECT len(range(300000000))",
            "SELECT count(*) FROM (SELECT list(range) AS l FROM range(300000000))",
            "SELECT 42 AS alive",
        ],
    );
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    for what in [
        "list_resize: a list of",
        "range: a list of",
        "list: a list of",
    ] {
        assert!(
            err.contains(&format!("Out of Memory Error: {what}")),
            "{what}: {err}"
        );
    }
    assert!(!err.contains("memory allocation"), "{err}");
    assert!(out.contains("42"), "{out}\n{err}");
}

fn psql(port: u16, sql: &str) -> Option<Output> {
    Command::new("psql")
        .args([
            "-X",
            "-h",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "-U",
            "stride",
        ])
        .args(["-v", "ON_ERROR_STOP=1", "-A", "-t", "-c", sql])
        .output()
        .ok()
}

#[test]
fn one_session_out_of_memory_leaves_the_server_serving() {
    if Command::new("psql").arg("--version").output().is_err() {
        // The test command installs what it needs (Debian's package, as root).
        let _ = Command::new("apt-get")
            .args(["install", "-y", "-qq", "postgresql-client"])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .output();
    }
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut server = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 4000000 && exec \"$0\" serve --listen 127.0.0.1:$1")
        .arg(env!("CARGO_BIN_EXE_stride"))
        .arg(port.to_string())
        .env("HOME", std::env::temp_dir())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start stride serve");
    let ready = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(100));
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    assert!(ready, "the server did not start");
    let Some(failed) = psql(port, &format!("SET memory_limit = '64MB'; {TOO_BIG}")) else {
        let _ = server.kill();
        println!("psql not found: install postgresql-client to run this test");
        return;
    };
    let err = text(&failed.stderr);
    assert!(err.contains("Out of Memory Error"), "{err}");
    // Another session, and the server process itself, go on.
    let ok = psql(port, "SELECT 40 + 2").unwrap();
    assert_eq!(text(&ok.stdout).trim(), "42", "{}", text(&ok.stderr));
    assert!(server.try_wait().unwrap().is_none(), "the server exited");
    server.kill().unwrap();
    let _ = server.wait();
}
