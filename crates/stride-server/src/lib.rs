//! `stride serve`: the PostgreSQL wire protocol (v3) in front of a [`stride::Database`],
//! built on the `pgwire` crate and tokio — the only async code in the tree.
//!
//! Each client gets its own [`stride::Connection`] (its own settings). Statements run on
//! tokio's blocking pool, so a long query never stalls other clients; result rows are
//! encoded as the query produces them and flow to the client through a bounded
//! channel, so a large result is never held in memory whole.
//!
//! In a statement's life: `handler.rs` receives simple queries (several statements
//! per message) and extended queries (Parse/Bind/Describe/Execute with `$n`
//! parameters, decoded by `params.rs` and bound as values, never spliced into SQL);
//! `encode.rs` maps stride types to PostgreSQL type OIDs and writes values in text or
//! binary format; `errors.rs` maps stride's error kinds to SQLSTATE codes.

mod encode;
mod errors;
mod handler;
mod params;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use stride::{Database, Error, Result};

/// How the server listens.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Address to listen on; 127.0.0.1 unless the operator says otherwise.
    pub listen: String,
    /// Clients served at once; more are refused with an error.
    pub max_connections: usize,
    /// Directories network clients may read and write files in (read_csv, COPY);
    /// none by default.
    pub allowed_directories: Vec<std::path::PathBuf>,
    /// Most bytes one `COPY … FROM STDIN` may send; its data is held in memory until
    /// it is loaded.
    pub max_copy_bytes: usize,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            listen: "127.0.0.1:5433".into(),
            max_connections: 100,
            allowed_directories: Vec::new(),
            max_copy_bytes: 1 << 30,
        }
    }
}

/// A server bound to its address, ready to accept clients.
pub struct Server {
    db: Database,
    listener: tokio::net::TcpListener,
    runtime: tokio::runtime::Runtime,
    options: ServerOptions,
}

impl Server {
    /// Binds the listening socket (port 0 picks a free one; see [`Server::local_addr`]).
    pub fn bind(db: Database, mut options: ServerOptions) -> Result<Server> {
        for d in options.allowed_directories.iter_mut() {
            *d = std::fs::canonicalize(&*d)
                .map_err(|e| Error::io(format!("cannot allow directory {}: {e}", d.display())))?;
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_name("stride-server")
            .build()
            .map_err(|e| Error::io(format!("cannot start the server runtime: {e}")))?;
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind(&options.listen))
            .map_err(|e| {
                Error::io(format!(
                    "cannot listen on {}: {e}; choose another address with --listen",
                    options.listen
                ))
            })?;
        Ok(Server {
            db,
            listener,
            runtime,
            options,
        })
    }

    pub fn local_addr(&self) -> Result<SocketAddr> {
        self.listener
            .local_addr()
            .map_err(|e| Error::io(format!("no local address: {e}")))
    }

    /// Serves clients until the process ends.
    pub fn run(self) -> Result<()> {
        let Server {
            db,
            listener,
            runtime,
            options,
        } = self;
        let active = Arc::new(AtomicUsize::new(0));
        let sessions: handler::Sessions = Default::default();
        runtime.block_on(async move {
            loop {
                let (socket, _) = match listener.accept().await {
                    Ok(s) => s,
                    Err(_) => continue,
                };
                let _ = socket.set_nodelay(true);
                if active.fetch_add(1, Ordering::SeqCst) >= options.max_connections {
                    active.fetch_sub(1, Ordering::SeqCst);
                    tokio::spawn(handler::refuse(socket, options.max_connections));
                    continue;
                }
                let conn = match db.connect().and_then(|c| {
                    c.restrict_file_access(options.allowed_directories.clone())?;
                    Ok(c)
                }) {
                    Ok(c) => c,
                    Err(_) => {
                        active.fetch_sub(1, Ordering::SeqCst);
                        continue;
                    }
                };
                let active = active.clone();
                let sessions = sessions.clone();
                let max_copy_bytes = options.max_copy_bytes;
                tokio::spawn(async move {
                    let factory = Arc::new(handler::Handlers::new(conn, sessions, max_copy_bytes));
                    let _ = pgwire::tokio::process_socket(socket, None, factory).await;
                    active.fetch_sub(1, Ordering::SeqCst);
                });
            }
        })
    }
}
