//! What a connection keeps between statements besides its settings: relations
//! registered by the embedding program (DataFrames), TEMP macros, prepared statements,
//! session variables (`SET VARIABLE`) and the numbers its statements see
//! (`current_query_id()`, `connection/ids.rs`). Each is an `Arc` swapped whole on
//! change, so a running statement keeps the state it was bound with.

use super::Connection;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use stride_common::{DataType, Error, Result, ScalarValue};
use stride_sql::plan::{RegisteredRelation, RegisteredRows};

impl Connection {
    /// Makes `relation` queryable under `name` on this connection (DuckDB's
    /// `register`, as the Python package uses it for DataFrames), until unregistered
    /// or replaced. It hides a table or view of the same name.
    pub fn register(&self, name: &str, relation: RegisteredRelation) -> Result<()> {
        let chunks: &[_] = match &relation.rows {
            RegisteredRows::Chunks(chunks) => chunks,
            RegisteredRows::External(_) => &[],
        };
        if relation.names.len() != relation.types.len()
            || chunks
                .iter()
                .any(|c| c.columns.len() != relation.types.len())
        {
            return Err(Error::invalid_input(format!(
                "cannot register \"{name}\": its chunks do not match its columns"
            )));
        }
        let mut r = self
            .registered
            .lock()
            .map_err(|_| Error::internal("lock poisoned"))?;
        let mut next = HashMap::clone(&r);
        next.insert(name.to_lowercase(), Arc::new(relation));
        *r = Arc::new(next);
        Ok(())
    }

    /// Whether a relation is registered under `name`.
    pub fn is_registered(&self, name: &str) -> bool {
        self.registered().contains_key(&name.to_lowercase())
    }

    /// Removes the relation registered under `name`; whether there was one.
    pub fn unregister(&self, name: &str) -> bool {
        let Ok(mut r) = self.registered.lock() else {
            return false;
        };
        let mut next = HashMap::clone(&r);
        let found = next.remove(&name.to_lowercase()).is_some();
        *r = Arc::new(next);
        found
    }

    pub(super) fn registered(&self) -> Arc<HashMap<String, Arc<RegisteredRelation>>> {
        self.registered
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default()
    }

    pub(super) fn temp_macros(&self) -> Arc<stride_sql::binder::TempMacros> {
        self.temp_macros
            .lock()
            .map(|p| p.clone())
            .unwrap_or_default()
    }

    pub(super) fn variables(&self) -> Arc<stride_sql::binder::SessionVariables> {
        self.variables.lock().map(|v| v.clone()).unwrap_or_default()
    }

    /// Sets (`Some`) or forgets (`None`) a session variable.
    pub(super) fn change_variable(
        &self,
        name: String,
        value: Option<(ScalarValue, DataType)>,
    ) -> Result<()> {
        change_shared(&self.variables, "session variables", |next| {
            match value {
                Some(v) => next.insert(name, v),
                None => next.remove(&name),
            };
        })
    }

    /// The numbers of this connection, of the statement about to run (counted now)
    /// and of its transaction: the open one, or a new one for this statement alone.
    pub(super) fn statement_ids(&self) -> stride_sql::binder::SessionIds {
        let query = self.statements.fetch_add(1, Ordering::Relaxed) + 1;
        let open = self
            .transaction
            .lock()
            .ok()
            .and_then(|t| t.as_ref().map(|t| t.id));
        stride_sql::binder::SessionIds {
            connection: self.id,
            transaction: open.unwrap_or_else(|| self.databases.ids.next_transaction()),
            query,
        }
    }

    /// Changes the connection's TEMP macros.
    pub(super) fn change_temp_macros(
        &self,
        change: impl FnOnce(&mut stride_sql::binder::TempMacros),
    ) -> Result<()> {
        change_shared(&self.temp_macros, "temporary macros", change)
    }

    pub(super) fn prepared(&self) -> Arc<stride_sql::binder::PreparedStatements> {
        self.prepared.lock().map(|p| p.clone()).unwrap_or_default()
    }

    /// Changes the connection's prepared statements (PREPARE, DEALLOCATE).
    pub(super) fn change_prepared(
        &self,
        change: impl FnOnce(&mut stride_sql::binder::PreparedStatements),
    ) -> Result<()> {
        change_shared(&self.prepared, "prepared statements", change)
    }
}

/// Replaces a value statements share by a changed copy: a statement already running
/// keeps the one it took.
fn change_shared<T: Clone>(
    lock: &std::sync::Mutex<Arc<T>>,
    what: &str,
    change: impl FnOnce(&mut T),
) -> Result<()> {
    let mut shared = lock
        .lock()
        .map_err(|_| Error::internal(format!("{what} lock")))?;
    let mut next = (**shared).clone();
    change(&mut next);
    *shared = Arc::new(next);
    Ok(())
}
