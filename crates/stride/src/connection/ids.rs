//! Numbers for the session functions `current_connection_id()`, `txid_current()` /
//! `current_transaction_id()` and `current_query_id()`: the database numbers its
//! connections and its transactions from 1 up (an explicit transaction gets its
//! number at BEGIN, a statement outside one a number of its own), and each connection
//! numbers the statements it runs from 1 up. The binder reads them as constants.

use std::sync::atomic::{AtomicU64, Ordering};

/// The counters a database's connections share.
#[derive(Debug, Default)]
pub(crate) struct IdCounters {
    connections: AtomicU64,
    transactions: AtomicU64,
}

impl IdCounters {
    /// The number of a new connection.
    pub fn next_connection(&self) -> u64 {
        self.connections.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// The number of a new transaction.
    pub fn next_transaction(&self) -> u64 {
        self.transactions.fetch_add(1, Ordering::Relaxed) + 1
    }
}
