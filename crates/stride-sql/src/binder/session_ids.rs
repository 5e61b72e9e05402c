//! `current_connection_id()`, `txid_current()` / `current_transaction_id()` and
//! `current_query_id()`: the numbers the facade gave the connection, the statement's
//! transaction and the statement (`SessionIds`), bound as BIGINT constants (DuckDB
//! returns UBIGINT, which stride lacks). A binder given no numbers (one that only
//! describes a statement) binds NULL.

use super::Binder;
use crate::plan::Expr;
use stride_common::{Error, Result, ScalarValue};

/// The numbers of the connection, the transaction and the statement being bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionIds {
    pub connection: u64,
    pub transaction: u64,
    pub query: u64,
}

/// The SQL names of the functions, for `duckdb_functions()`.
pub const SESSION_ID_FUNCTIONS: [&str; 4] = [
    "current_connection_id",
    "current_transaction_id",
    "txid_current",
    "current_query_id",
];

impl Binder<'_> {
    /// The call of a session-id function `name` with `args`; `None` for other names.
    pub(super) fn session_id(&self, name: &str, args: usize) -> Option<Result<Expr>> {
        if !SESSION_ID_FUNCTIONS.contains(&name) {
            return None;
        }
        if args != 0 {
            return Some(Err(Error::binder(format!(
                "No function matches '{name}' with {args} argument(s): it takes none"
            ))));
        }
        let value = self.session_ids.map(|ids| match name {
            "current_connection_id" => ids.connection,
            "current_query_id" => ids.query,
            _ => ids.transaction,
        });
        Some(Ok(Expr::Literal {
            value: value.map_or(ScalarValue::Null, |v| ScalarValue::BigInt(v as i64)),
            ty: stride_common::DataType::BigInt,
        }))
    }
}
