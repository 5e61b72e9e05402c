//! `stride serve`: the PostgreSQL wire protocol (v3) in front of a [`stride::Database`],
//! built on the `pgwire` crate and tokio — the only async code in the tree.
//!
//! Each client gets its own [`stride::Connection`] (its own settings). Statements run on
//! tokio's blocking pool, so a long query never stalls other clients; result rows are
//! encoded as the query produces them and flow to the client through a bounded
//! channel, so a large result is never held in memory whole.
//!
//! In a connection's life: `connection.rs` runs the message loop over a socket that
//! `guard.rs` checks (message sizes from their headers) under the authentication and
//! idle timeouts; `auth.rs` decides who may connect (loopback trust, or SCRAM-SHA-256
//! with a password file); `handler.rs` receives simple queries (several statements per
//! message), extended queries (Parse/Bind/Describe/Execute with `$n` parameters,
//! decoded by `params.rs` and bound as values, never spliced into SQL) and COPY data;
//! `encode.rs` maps stride types to PostgreSQL type OIDs and writes values in text or
//! binary format; `errors.rs` maps stride's error kinds to SQLSTATE codes.

pub mod auth;
mod connection;
mod encode;
mod errors;
pub mod guard;
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
    /// Largest message a client may send (a query's text, one CopyData, a Bind with
    /// its parameters); checked from the message's header before it is read.
    pub max_message_bytes: usize,
    /// Users and their SCRAM verifiers; without them only loopback clients may
    /// connect (trusted).
    pub passwords: Option<auth::Passwords>,
    /// Time a client has from connecting to being authenticated.
    pub auth_timeout: std::time::Duration,
    /// Time an authenticated session may wait for its client before it is ended;
    /// None: no limit (as PostgreSQL's default).
    pub idle_timeout: Option<std::time::Duration>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            listen: "127.0.0.1:5433".into(),
            max_connections: 100,
            allowed_directories: Vec::new(),
            max_copy_bytes: 1 << 30,
            max_message_bytes: 64 << 20,
            passwords: None,
            auth_timeout: std::time::Duration::from_secs(60),
            idle_timeout: None,
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
        let startup = Arc::new(auth::Startup::new(options.passwords.clone()));
        let limits = connection::Limits {
            max_message_bytes: options.max_message_bytes,
            auth_timeout: options.auth_timeout,
            idle_timeout: options.idle_timeout.filter(|d| !d.is_zero()),
        };
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
                let handlers = Arc::new(handler::Handlers::new(
                    conn,
                    sessions.clone(),
                    options.max_copy_bytes,
                    startup.clone(),
                ));
                tokio::spawn(async move {
                    connection::serve(socket, handlers, limits).await;
                    active.fetch_sub(1, Ordering::SeqCst);
                });
            }
        })
    }
}
