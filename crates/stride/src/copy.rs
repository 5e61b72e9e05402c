//! COPY through the client's streams: `COPY t FROM STDIN` and `COPY t|(query) TO
//! STDOUT`, for a server whose client sends or receives the data (psql's `\copy`,
//! psycopg's `cursor.copy()`). Only connections that declared such a client
//! ([`Connection::accept_client_streams`]) take these statements; elsewhere they are
//! refused with an error pointing to COPY with a file.
//!
//! In a statement's life: the binder binds COPY FROM STDIN to a
//! [`CopyFromStdin`] that the statement's result carries (`QueryResult::copy_in`);
//! the server collects the client's data and calls [`Connection::copy_in`], which
//! reads it with the CSV reader (PostgreSQL's text format converted to CSV first) and
//! appends the rows. COPY TO STDOUT runs as a query whose result carries the format
//! (`QueryResult::copy_out`); the caller writes each row with [`write_record`].

use crate::connection::Connection;
use std::sync::atomic::Ordering;
use stride_common::{Error, Result};

pub use stride_io::csv::writer::write_record;
pub use stride_io::csv::CsvWriteOptions;
pub use stride_sql::binder::CopyFromStdin;

impl Connection {
    /// Lets COPY read from STDIN and write to STDOUT: the caller (the server) moves
    /// the data between the statement and its client.
    pub fn accept_client_streams(&self, on: bool) {
        self.client_streams.store(on, Ordering::Relaxed);
    }

    pub(crate) fn check_client_streams(&self, what: &str) -> Result<()> {
        if self.client_streams.load(Ordering::Relaxed) {
            Ok(())
        } else {
            Err(Error::not_supported(format!(
                "COPY {what} needs a client that streams the data (such as psql's \\copy through `stride serve`); copy {} a file instead",
                if what.starts_with("TO") { "to" } else { "from" }
            )))
        }
    }

    /// Loads the data a client sent for a COPY FROM STDIN; returns the rows added.
    /// Either every row is added or, on an error, none.
    pub fn copy_in(&self, copy: &CopyFromStdin, data: Vec<u8>) -> Result<u64> {
        let ctx = self.new_context();
        let plan = copy.plan(data)?;
        let store = self.store_of(copy.table_id)?;
        let table = self
            .catalog_of(&store)
            .table_by_id(stride_storage::catalogs::local_id(copy.table_id))
            .ok_or_else(|| {
                Error::catalog(format!(
                    "Table with name {} does not exist (it was dropped)",
                    copy.table.name
                ))
            })?;
        let pieces = self.materialize_pieces(&store, table.has_unique_keys(), &plan, &ctx)?;
        let n = self.insert(&store, &table, pieces)?;
        Ok(n as u64)
    }
}
