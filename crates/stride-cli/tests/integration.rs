//! The shell's integration tests: each runs the built `stride` binary. One module
//! per concern, linked into one test binary (`cargo test -p stride-cli --test integration`).

mod arrow_shm;
mod memory;
mod shell;
