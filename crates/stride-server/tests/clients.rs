//! `stride serve` driven by the clients users have: psql (Debian's postgresql-client,
//! installed with apt-get when missing and the test runs as root), psycopg 3 and
//! pgcli (installed with pip when missing). When a client can be neither found nor
//! installed, the test says so and checks nothing for it.

use crate::common;

use common::{start, start_with};
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

/// psql's aligned output of `command` (a query or a meta-command such as `\d t`),
/// which must succeed.
fn psql_table(addr: SocketAddr, command: &str) -> String {
    let out = Command::new("psql")
        .args([
            "-X",
            "-h",
            "127.0.0.1",
            "-p",
            &addr.port().to_string(),
            "-U",
            "stride",
        ])
        .args(["-v", "ON_ERROR_STOP=1", "-P", "pager=off", "-c", command])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

fn has_psql() -> bool {
    Command::new("psql").arg("--version").output().is_ok()
}

/// Installs psql when it is missing (Debian's package, as root), as the test command
/// does for every client it needs.
fn ensure_psql() {
    if !has_psql() {
        let _ = Command::new("apt-get")
            .args(["install", "-y", "-qq", "postgresql-client"])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .output();
    }
}

#[test]
fn psql_runs_queries() {
    ensure_psql();
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

/// psql's describe commands (`\\dt`, `\\d t`, ...) read pg_catalog: their output shows
/// the user's tables, views, columns, types, defaults and indexes.
#[test]
fn psql_describes_tables() {
    if !has_psql() {
        println!("psql not found: install postgresql-client to run this test");
        return;
    }
    let addr = start(100);
    let out = psql(
        addr,
        "CREATE TABLE sales (id INTEGER NOT NULL, region VARCHAR DEFAULT 'north', amount DECIMAL(10,2), day DATE); \
         CREATE VIEW big AS SELECT id, amount FROM sales WHERE amount > 100; \
         CREATE INDEX sales_region ON sales(region)",
    )
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let describe = |command: &str| psql_table(addr, command);
    let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");

    let dt = squeeze(&describe("\\dt"));
    assert!(dt.contains("main | sales | table | stride"), "{dt}");
    assert!(!dt.contains("big"), "{dt}");
    let d = squeeze(&describe("\\d"));
    assert!(d.contains("main | big | view | stride"), "{d}");
    let dv = squeeze(&describe("\\dv"));
    assert!(dv.contains("main | big | view"), "{dv}");

    let table = squeeze(&describe("\\d sales"));
    assert!(table.contains("Table \"main.sales\""), "{table}");
    for line in [
        "id | integer | | not null |",
        "region | character varying | | | 'north'",
        "amount | numeric(10,2) | | |",
        "day | date | | |",
        "Indexes: \"sales_region\" declared (region)",
    ] {
        assert!(table.contains(line), "missing `{line}` in {table}");
    }
    let view = squeeze(&describe("\\d+ big"));
    assert!(view.contains("View \"main.big\""), "{view}");
    assert!(
        view.contains("View definition: SELECT id, amount FROM sales WHERE amount > 100"),
        "{view}"
    );
    let dn = squeeze(&describe("\\dn"));
    assert!(dn.contains("main | stride"), "{dn}");
    let l = squeeze(&describe("\\l"));
    assert!(l.contains("memory | stride | UTF8"), "{l}");
    let du = squeeze(&describe("\\du"));
    assert!(du.contains("stride | Superuser"), "{du}");
    // Things stride does not have are listed as empty, not as errors.
    for empty in ["\\db", "\\dx", "\\dT"] {
        assert!(squeeze(&describe(empty)).contains("(0 rows)"), "{empty}");
    }
    // \\df lists functions from pg_proc: the user has none, pg_catalog has stride's.
    assert!(squeeze(&describe("\\df")).contains("(0 rows)"));
    let df = squeeze(&describe("\\df sum"));
    for line in [
        "pg_catalog | sum | numeric | integer | agg",
        "pg_catalog | sum | double precision | double precision | agg",
        "pg_catalog | sum | numeric | numeric | agg",
    ] {
        assert!(df.contains(line), "missing `{line}` in {df}");
    }
    let df = squeeze(&describe("\\df+ lower"));
    assert!(
        df.contains("pg_catalog | lower | character varying | character varying | func | immutable | safe | stride | invoker | | internal | lower"),
        "{df}"
    );
    let df = squeeze(&describe("\\dfS concat"));
    assert!(
        df.contains("concat | character varying | VARIADIC character varying[] | func"),
        "{df}"
    );
    let df = squeeze(&describe("\\dfS generate_series"));
    assert!(
        df.contains("generate_series | SETOF bigint | bigint, bigint | func"),
        "{df}"
    );
    // \\dt+ shows the bytes the table's values take.
    let out = psql(
        addr,
        "INSERT INTO sales SELECT i, 'r', i, NULL FROM range(10000) t(i)",
    )
    .unwrap();
    assert!(out.status.success());
    let dt = squeeze(&describe("\\dt+ sales"));
    assert!(
        dt.contains("main | sales | table | stride | permanent | columnar |"),
        "{dt}"
    );
    let size: Vec<&str> = dt
        .split(" columnar | ")
        .nth(1)
        .map(|rest| rest.split_whitespace().take(2).collect())
        .unwrap_or_default();
    // 10000 rows of a 4-byte id, an 8-byte decimal, a 4-byte date (all NULL) and
    // 16-byte string views: about 320 kB.
    assert_eq!(size.get(1), Some(&"kB"), "{dt}");
    let kb: u64 = size[0].parse().unwrap();
    assert!((250..=400).contains(&kb), "{dt}");
    let dp = squeeze(&describe("\\dS+ pg_class"));
    assert!(dp.contains("relname | character varying"), "{dp}");
    // A name that matches nothing is psql's own message, not a server error.
    let out = Command::new("psql")
        .args([
            "-X",
            "-h",
            "127.0.0.1",
            "-p",
            &addr.port().to_string(),
            "-U",
            "stride",
        ])
        .args(["-c", "\\d nosuch"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Did not find any relation named \"nosuch\""),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// psql's `\\d` shows a table's keys (as the indexes PostgreSQL makes for them) and
/// CHECK constraints; `\\di` lists those indexes, `\\ds` and `\\d` sequences.
#[test]
fn psql_describes_keys_checks_and_sequences() {
    if !has_psql() {
        println!("psql not found: install postgresql-client to run this test");
        return;
    }
    let addr = start(100);
    let run = |command: &str| -> String {
        psql_table(addr, command)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    run("CREATE TABLE k (id INTEGER PRIMARY KEY, code VARCHAR UNIQUE, n INTEGER CHECK (n > 0))");
    run("CREATE SEQUENCE sq START 3");
    let table = run("\\d k");
    for line in [
        "Indexes: \"k_pkey\" PRIMARY KEY, declared (id) \"k_code_key\" UNIQUE CONSTRAINT, declared (code)",
        "Check constraints: \"k_n_check\" CHECK ((n > 0))",
    ] {
        assert!(table.contains(line), "missing `{line}` in {table}");
    }
    let di = run("\\di");
    assert!(di.contains("main | k_pkey | index | stride | k"), "{di}");
    assert!(
        di.contains("main | k_code_key | index | stride | k"),
        "{di}"
    );
    let ds = run("\\ds");
    assert!(ds.contains("main | sq | sequence | stride"), "{ds}");
    let seq = run("\\d sq");
    assert!(seq.contains("Sequence \"main.sq\""), "{seq}");
    assert!(
        seq.contains("bigint | 3 | 1 | 9223372036854775807 | 1 | no | 1"),
        "{seq}"
    );
}

/// psql's `\\copy` moves files through COPY FROM STDIN / TO STDOUT: text format and
/// CSV, in and out, without the server touching the files.
#[test]
fn psql_copies_files() {
    if !has_psql() {
        println!("psql not found: install postgresql-client to run this test");
        return;
    }
    let addr = start(100);
    let dir = std::env::temp_dir().join(format!("stride-psql-copy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text_in = dir.join("in.txt");
    let csv_in = dir.join("in.csv");
    let csv_out = dir.join("out.csv");
    std::fs::write(&text_in, "1\tplain\n2\t\\N\n3\ttab\\there\n").unwrap();
    std::fs::write(&csv_in, "id,name\n4,\"comma, quoted\"\n5,\n").unwrap();
    let run = |sql: &str| {
        let out = psql(addr, sql).unwrap();
        assert!(
            out.status.success(),
            "{sql}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    run("CREATE TABLE c (id INTEGER, name VARCHAR)");
    assert_eq!(
        run(&format!("\\copy c from '{}'", text_in.display())),
        "COPY 3"
    );
    assert_eq!(
        run(&format!(
            "\\copy c from '{}' with (format csv, header)",
            csv_in.display()
        )),
        "COPY 2"
    );
    assert_eq!(
        run("SELECT id || '=' || coalesce(name, '<null>') FROM c ORDER BY id"),
        "1=plain\n2=<null>\n3=tab\there\n4=comma, quoted\n5=<null>"
    );
    assert_eq!(
        run(&format!(
            "\\copy (SELECT * FROM c WHERE id > 2 ORDER BY id) to '{}' csv header",
            csv_out.display()
        )),
        "COPY 3"
    );
    assert_eq!(
        std::fs::read_to_string(&csv_out).unwrap(),
        "id,name\n3,tab\there\n4,\"comma, quoted\"\n5,\n"
    );
    // Data the table cannot take fails the whole COPY.
    let out = psql(addr, "\\copy c from stdin").unwrap();
    assert!(out.status.success());
    std::fs::write(&text_in, "6\tok\nseven\tbad\n").unwrap();
    let out = psql(addr, &format!("\\copy c from '{}'", text_in.display())).unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("could not convert \"seven\" to INTEGER"),
        "{err}"
    );
    assert_eq!(run("SELECT count(*) FROM c"), "5");
    let _ = std::fs::remove_dir_all(&dir);
}

/// psql authenticates with SCRAM-SHA-256 when the server has a password file.
#[test]
fn psql_with_a_password() {
    if !has_psql() {
        println!("psql not found: install postgresql-client to run this test");
        return;
    }
    let passwords = stride_server::auth::Passwords::parse("ann:s3cret pass\n", "test").unwrap();
    let addr = start_with(stride_server::ServerOptions {
        listen: "127.0.0.1:0".into(),
        passwords: Some(passwords),
        ..Default::default()
    });
    let login = |password: &str| {
        Command::new("psql")
            .args([
                "-X",
                "-h",
                "127.0.0.1",
                "-p",
                &addr.port().to_string(),
                "-U",
                "ann",
            ])
            .args(["-A", "-t", "-c", "SELECT 7 * 6"])
            .env("PGPASSWORD", password)
            .env("PGCONNECT_TIMEOUT", "10")
            .output()
            .unwrap()
    };
    let ok = login("s3cret pass");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&ok.stdout).trim(), "42");
    let bad = login("guess");
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("authentication failed for user \"ann\""),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}

/// Whether `python` imports `check` (and runs the `command` given, if any), after
/// installing `package` with pip when it does not; prints why the test is skipped
/// when it cannot.
fn python_client(python: &str, check: &str, command: Option<&str>, package: &str) -> bool {
    if Command::new(python).arg("--version").output().is_err() {
        println!("python3 not found: {package} test skipped");
        return false;
    }
    let present = || {
        Command::new(python)
            .args(["-c", check])
            .output()
            .is_ok_and(|o| o.status.success())
            && command.is_none_or(|c| {
                Command::new(c)
                    .arg("--version")
                    .output()
                    .is_ok_and(|o| o.status.success())
            })
    };
    if present() {
        return true;
    }
    let out = Command::new(python)
        .args(["-m", "pip", "install", "--quiet", package])
        .output();
    if present() {
        return true;
    }
    let why = match out {
        Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_string(),
        Err(e) => e.to_string(),
    };
    println!("{package} could not be installed ({why}): test skipped");
    false
}

/// Runs `tests/clients/<script>` against a fresh server; it must print OK.
fn run_client_script(python: &str, script: &str) {
    let addr = start(100);
    let path = format!("{}/tests/clients/{script}", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(python)
        .args([path.as_str(), &addr.port().to_string()])
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

/// Whether psycopg 3 is importable by `python` (installed when missing).
fn psycopg(python: &str) -> bool {
    python_client(
        python,
        "import psycopg; psycopg.connect",
        None,
        "psycopg[binary]",
    )
}

#[test]
fn psycopg_session() {
    let python = "python3";
    if psycopg(python) {
        run_client_script(python, "psycopg_session.py");
    }
}

/// Command tags, SQLSTATE codes, savepoints and startup parameters, as psycopg (and
/// the libraries on it) rely on them.
#[test]
fn psycopg_compatibility() {
    let python = "python3";
    if psycopg(python) {
        run_client_script(python, "psycopg_compat.py");
    }
}

/// SQLAlchemy 2 with the psycopg dialect (and pandas, when installed): connect, the
/// ORM with nested transactions, reflection of keys, CHECK constraints and sequences.
#[test]
fn sqlalchemy_session() {
    let python = "python3";
    if psycopg(python) && python_client(python, "import sqlalchemy", None, "sqlalchemy") {
        run_client_script(python, "sqlalchemy_session.py");
    }
}

#[test]
fn pgcli_session() {
    let python = "python3";
    if python_client(
        python,
        "import pgcli.main, pgspecial",
        Some("pgcli"),
        "pgcli",
    ) {
        run_client_script(python, "pgcli_session.py");
    }
}

/// `SET enable_profiling` over the wire: the profile arrives as a notice before the
/// rows, which psql prints on standard error.
#[test]
fn psql_shows_profiles_as_notices() {
    ensure_psql();
    let addr = start(100);
    let Some(out) = psql(
        addr,
        "SET enable_profiling = 'query_tree'; SELECT count(*) FROM range(1000) t(x) WHERE x % 2 = 0",
    ) else {
        println!("psql not found: install postgresql-client to run this test");
        return;
    };
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "SET\n500");
    assert!(err.contains("NOTICE:  Total Time: "), "{err}");
    assert!(err.contains("FILTER") && err.contains("rows=500"), "{err}");
    // client_min_messages = warning keeps notices from the client, as in PostgreSQL
    let quiet = psql(
        addr,
        "SET client_min_messages = warning; SET enable_profiling = 'query_tree'; SELECT count(*) FROM range(1000) t(x) WHERE x % 2 = 0",
    )
    .expect("psql ran above");
    let err = String::from_utf8_lossy(&quiet.stderr);
    assert!(quiet.status.success(), "{err}");
    assert!(!err.contains("NOTICE"), "{err}");
}
