//! `stride serve [DATABASE] [OPTIONS]`: serves a database to PostgreSQL clients (see
//! the `stride-server` crate). `stride serve --hash-password` turns a password read from
//! standard input into the SCRAM verifier a password file may hold instead of it.

use std::time::Duration;
use stride::Database;
use stride_server::auth::{hash_password, Passwords};
use stride_server::{Server, ServerOptions};

pub const USAGE: &str = "\
Usage: stride serve [DATABASE] [OPTIONS]
       stride serve --hash-password < password.txt

Serves DATABASE (in memory without one) over the PostgreSQL wire protocol, e.g.
  stride serve --listen 127.0.0.1:5433
  psql -h 127.0.0.1 -p 5433 -U stride -c \"SELECT 42\"

Options:
  --listen ADDR            address to listen on (default 127.0.0.1:5433)
  --password-file FILE     users and passwords, one user:password or
                           user:SCRAM-SHA-256$... per line; clients then
                           authenticate with SCRAM-SHA-256 (also read from the
                           STRIDE_PASSWORD_FILE environment variable). Without
                           one, only clients on this machine may connect.
  --max-connections N      clients served at once (default 100)
  --allow-dir DIR          directory clients may read and write files in (read_csv,
                           COPY with a path); repeat for more; none by default
  --auth-timeout SECONDS   time to finish authenticating (default 60)
  --idle-timeout SECONDS   end sessions idle this long (default 0: never)
  --max-message-bytes N    largest message a client may send (default 67108864)
  --max-copy-bytes N       most data one COPY FROM STDIN may send (default 1073741824)
  --hash-password          print the SCRAM verifier of the password on stdin
";

/// Parses the arguments after `serve` and serves until the process ends.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut options = ServerOptions::default();
    let mut database = None;
    let mut password_file = std::env::var("STRIDE_PASSWORD_FILE")
        .ok()
        .filter(|p| !p.is_empty());
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let value = |i: usize| {
            args.get(i + 1)
                .cloned()
                .ok_or_else(|| format!("missing value after {a}"))
        };
        let number = |i: usize, what: &str| -> Result<u64, String> {
            value(i)?.parse().map_err(|_| format!("{a} takes {what}"))
        };
        match a {
            "--listen" | "-listen" => {
                options.listen = value(i)?;
                i += 1;
            }
            "--allow-dir" | "-allow-dir" => {
                options.allowed_directories.push(value(i)?.into());
                i += 1;
            }
            "--max-connections" | "-max-connections" => {
                options.max_connections = number(i, "a number")? as usize;
                i += 1;
            }
            "--max-copy-bytes" | "-max-copy-bytes" => {
                options.max_copy_bytes = number(i, "a number of bytes")? as usize;
                i += 1;
            }
            "--max-message-bytes" | "-max-message-bytes" => {
                options.max_message_bytes = number(i, "a number of bytes")? as usize;
                i += 1;
            }
            "--auth-timeout" | "-auth-timeout" => {
                let s = number(i, "a number of seconds")?;
                if s == 0 {
                    return Err("--auth-timeout must be at least 1 second".into());
                }
                options.auth_timeout = Duration::from_secs(s);
                i += 1;
            }
            "--idle-timeout" | "-idle-timeout" => {
                let s = number(i, "a number of seconds (0: never)")?;
                options.idle_timeout = (s > 0).then(|| Duration::from_secs(s));
                i += 1;
            }
            "--password-file" | "-password-file" => {
                password_file = Some(value(i)?);
                i += 1;
            }
            "--hash-password" | "-hash-password" => {
                let mut password = String::new();
                std::io::stdin()
                    .read_line(&mut password)
                    .map_err(|e| format!("cannot read the password from standard input: {e}"))?;
                let password = password.trim_end_matches(['\n', '\r']);
                if password.is_empty() {
                    return Err("no password on standard input".into());
                }
                println!("{}", hash_password(password).map_err(|e| e.to_string())?);
                return Ok(());
            }
            "--help" | "-help" | "-h" => {
                print!("{USAGE}");
                return Ok(());
            }
            other if other.starts_with('-') => {
                return Err(format!("unknown option for serve: {other}\n{USAGE}"))
            }
            other => database = Some(other.to_string()),
        }
        i += 1;
    }
    if let Some(path) = &password_file {
        options.passwords = Some(Passwords::read(path).map_err(|e| e.to_string())?);
    }
    let db = match database.as_deref() {
        Some(path) => Database::open(path),
        None => Database::open_in_memory(),
    }
    .map_err(|e| e.to_string())?;
    if let Some(w) = db.recovery().warning(&db.path().unwrap_or_default()) {
        eprintln!("warning: {w}");
    }
    let with_passwords = options.passwords.is_some();
    let server = Server::bind(db, options).map_err(|e| e.to_string())?;
    let addr = server.local_addr().map_err(|e| e.to_string())?;
    eprintln!("stride serving PostgreSQL clients on {addr}");
    if with_passwords {
        eprintln!("clients authenticate with SCRAM-SHA-256 (password file)");
    } else if !addr.ip().is_loopback() {
        eprintln!(
            "no --password-file: only clients on this machine may connect; others are refused"
        );
    }
    server.run().map_err(|e| e.to_string())
}
