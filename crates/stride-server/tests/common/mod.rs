//! Shared by the server's integration tests.

use std::net::SocketAddr;
use stride_server::{Server, ServerOptions};

/// Starts a server on an in-memory database and a free port, on a thread of its own
/// (it runs its own runtime), and returns its address.
#[allow(dead_code)]
pub fn start(max_connections: usize) -> SocketAddr {
    start_with(ServerOptions {
        listen: "127.0.0.1:0".into(),
        max_connections,
        ..ServerOptions::default()
    })
}

/// Like [`start`], with the given options.
#[allow(dead_code)]
pub fn start_with(options: ServerOptions) -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let db = stride::Database::open_in_memory().unwrap();
        let server = Server::bind(db, options).unwrap();
        tx.send(server.local_addr().unwrap()).unwrap();
        server.run()
    });
    rx.recv().unwrap()
}
