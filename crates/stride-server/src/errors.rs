//! stride errors as PostgreSQL ErrorResponses: the error kind decides the SQLSTATE
//! code clients branch on (unless the error names its condition where it was raised,
//! `Error::sqlstate`), the message is stride's own.

use pgwire::error::{ErrorInfo, PgWireError};
use stride::{Error, ErrorKind};

/// The SQLSTATE code for an error.
pub fn sqlstate(e: &Error) -> &'static str {
    if let Some(code) = e.sqlstate {
        return code;
    }
    match e.kind {
        ErrorKind::Parse => "42601",
        ErrorKind::Binder => "42703",
        ErrorKind::Catalog => "42P01",
        ErrorKind::Conversion => "22P02",
        ErrorKind::OutOfRange if e.message.to_ascii_lowercase().contains("division by zero") => {
            "22012"
        }
        ErrorKind::OutOfRange => "22003",
        // unique_violation, not_null_violation, check_violation: psycopg raises
        // UniqueViolation, NotNullViolation and CheckViolation for them
        ErrorKind::Constraint if e.message.starts_with("Duplicate key") => "23505",
        ErrorKind::Constraint if e.message.starts_with("NOT NULL constraint") => "23502",
        ErrorKind::Constraint if e.message.starts_with("CHECK constraint") => "23514",
        ErrorKind::Constraint => "23000",
        ErrorKind::InvalidInput => "22023",
        ErrorKind::Io => "58030",
        ErrorKind::Transaction if e.message.starts_with("Current transaction is aborted") => {
            "25P02"
        }
        ErrorKind::Transaction if e.message.contains("Transaction conflict") => "40001",
        ErrorKind::Transaction if e.message.contains("in a read-only transaction") => "25006",
        ErrorKind::Transaction => "25000",
        ErrorKind::NotSupported => "0A000",
        ErrorKind::Permission => "42501",
        ErrorKind::Timeout if e.message.contains("lock timeout") => "55P03",
        ErrorKind::Interrupted | ErrorKind::Timeout => "57014",
        ErrorKind::OutOfMemory => "53200",
        // sequence_generator_limit_exceeded
        ErrorKind::Sequence => "2200H",
        // dependent_objects_still_exist
        ErrorKind::Dependency => "2BP01",
        ErrorKind::Internal => "XX000",
    }
}

pub fn to_pg(e: Error) -> PgWireError {
    PgWireError::UserError(Box::new(ErrorInfo::new(
        "ERROR".into(),
        sqlstate(&e).into(),
        e.to_string(),
    )))
}
