//! `stride serve` driven by the clients users have: psql (Debian's postgresql-client,
//! installed with apt-get when missing and the test runs as root) and psycopg 3
//! (installed with pip when missing). When a client can be neither found nor
//! installed, the test says so and checks nothing for it.

mod common;

use common::start;
use std::net::SocketAddr;
use std::process::Command;

fn psql(addr: SocketAddr, sql: &str) -> Option<std::process::Output> {
    Command::new("psql")
        .args([
            "-X",
            "-h",
            "127.0.0.1",
            "-p",
            &addr.port().to_string(),
            "-U",
            "stride",
        ])
        .args(["-v", "ON_ERROR_STOP=1", "-A", "-t", "-c", sql])
        .output()
        .ok()
}

fn has_psql() -> bool {
    Command::new("psql").arg("--version").output().is_ok()
}

#[test]
fn psql_runs_queries() {
    if !has_psql() {
        // The test command installs what it needs (Debian's package, as root).
        let _ = Command::new("apt-get")
            .args(["install", "-y", "-qq", "postgresql-client"])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .output();
    }
    let addr = start(100);
    let Some(out) = psql(addr, "SELECT 40 + 2") else {
        println!("psql not found: install postgresql-client to run this test");
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "42");
    let out = psql(
        addr,
        "CREATE TABLE t AS SELECT i, 'v' || i AS s FROM range(3) r(i); SELECT s FROM t ORDER BY i DESC",
    )
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("v2\nv1\nv0"));
    let out = psql(addr, "SELECT * FROM nope").unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope does not exist"));
}

#[test]
fn psycopg_session() {
    let has_psycopg = |py: &str| {
        Command::new(py)
            .args(["-c", "import psycopg; psycopg.connect"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let python = "python3";
    if Command::new(python).arg("--version").output().is_err() {
        println!("python3 not found: psycopg test skipped");
        return;
    }
    if !has_psycopg(python) {
        let _ = Command::new(python)
            .args(["-m", "pip", "install", "--quiet", "psycopg[binary]"])
            .output();
        if !has_psycopg(python) {
            println!("psycopg could not be installed: psycopg test skipped");
            return;
        }
    }
    let addr = start(100);
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/clients/psycopg_session.py"
    );
    let out = Command::new(python)
        .args([script, &addr.port().to_string()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "OK");
}
