//! The server's integration tests, one module per concern, linked into one test
//! binary (`cargo test -p stride-server --test integration`).

mod common;

mod clients;
mod robustness;
mod security;
mod server;
