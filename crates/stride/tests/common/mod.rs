//! Shared by the facade's integration tests (each test binary uses part of it).
#![allow(dead_code)]

pub mod answers;

use std::path::PathBuf;

/// An empty directory `stride-{name}-{pid}` under the system's temporary directory.
pub fn fresh_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("stride-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A small deterministic generator (xorshift), so failures are reproducible.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}
