//! `stride serve [DATABASE] [--listen ADDR] [--max-connections N]`: serves a database
//! to PostgreSQL clients (see the `stride-server` crate).

use stride::Database;
use stride_server::{Server, ServerOptions};

pub const USAGE: &str = "\
Usage: stride serve [DATABASE] [--listen ADDR] [--max-connections N] [--allow-dir DIR]...

Serves DATABASE (in memory without one) over the PostgreSQL wire protocol, e.g.
  stride serve --listen 127.0.0.1:5433
  psql -h 127.0.0.1 -p 5433 -U stride -c \"SELECT 42\"
Listens on 127.0.0.1:5433 unless --listen says otherwise. Clients may not read or
write files (read_csv, COPY) except inside the directories given with --allow-dir.
";

/// Parses the arguments after `serve` and serves until the process ends.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut options = ServerOptions::default();
    let mut database = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let value = |i: usize| {
            args.get(i + 1)
                .cloned()
                .ok_or_else(|| format!("missing value after {a}"))
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
                options.max_connections = value(i)?
                    .parse()
                    .map_err(|_| "--max-connections takes a number".to_string())?;
                i += 1;
            }
            "--max-copy-bytes" | "-max-copy-bytes" => {
                options.max_copy_bytes = value(i)?
                    .parse()
                    .map_err(|_| "--max-copy-bytes takes a number of bytes".to_string())?;
                i += 1;
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
    let db = match database.as_deref() {
        Some(path) => Database::open(path),
        None => Database::open_in_memory(),
    }
    .map_err(|e| e.to_string())?;
    let server = Server::bind(db, options).map_err(|e| e.to_string())?;
    let addr = server.local_addr().map_err(|e| e.to_string())?;
    eprintln!("stride serving PostgreSQL clients on {addr}");
    server.run().map_err(|e| e.to_string())
}
