//! The one error type of stride. Every failure a user can cause maps to a category they
//! understand; `Internal` means "this is a bug in stride". Messages name the object and,
//! where known, the position in the SQL text.

use std::fmt;

/// The category of an error, shown as the message's prefix ("Binder Error: ...").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    Parse,
    Binder,
    Catalog,
    Conversion,
    OutOfRange,
    Constraint,
    InvalidInput,
    Io,
    Transaction,
    NotSupported,
    /// Refused by a setting (`enable_external_access`).
    Permission,
    Interrupted,
    /// Cancelled by `statement_timeout`.
    Timeout,
    /// A reservation passed `memory_limit` where the operator could not spill.
    OutOfMemory,
    /// A sequence past its last value, or read before its first (`nextval`,
    /// `currval`).
    Sequence,
    /// An object others depend on (`DROP TYPE` of a type a table uses).
    Dependency,
    Internal,
}

impl ErrorKind {
    pub fn label(self) -> &'static str {
        match self {
            ErrorKind::Parse => "Parser Error",
            ErrorKind::Binder => "Binder Error",
            ErrorKind::Catalog => "Catalog Error",
            ErrorKind::Conversion => "Conversion Error",
            ErrorKind::OutOfRange => "Out of Range Error",
            ErrorKind::Constraint => "Constraint Error",
            ErrorKind::InvalidInput => "Invalid Input Error",
            ErrorKind::Io => "IO Error",
            ErrorKind::Transaction => "Transaction Error",
            ErrorKind::NotSupported => "Not implemented Error",
            ErrorKind::Permission => "Permission Error",
            ErrorKind::Interrupted => "Interrupted",
            ErrorKind::Timeout => "Timeout Error",
            ErrorKind::OutOfMemory => "Out of Memory Error",
            ErrorKind::Sequence => "Sequence Error",
            ErrorKind::Dependency => "Dependency Error",
            ErrorKind::Internal => "Internal Error",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    /// The PostgreSQL condition (SQLSTATE) where the kind alone does not decide it
    /// (a duplicate table and an unknown table are both catalog errors): set where the
    /// error is raised, with [`Error::with_sqlstate`] and a code from [`sqlstate`].
    pub sqlstate: Option<&'static str>,
}

/// PostgreSQL SQLSTATE codes errors are tagged with where they are raised (see
/// [`Error::sqlstate`]); `stride serve` sends them to clients.
pub mod sqlstate {
    /// `CREATE TABLE` of a name that exists.
    pub const DUPLICATE_TABLE: &str = "42P07";
    /// A table definition that contradicts itself (two primary keys).
    pub const INVALID_TABLE_DEFINITION: &str = "42P16";
    /// A column named twice in one table.
    pub const DUPLICATE_COLUMN: &str = "42701";
    /// A function (or these argument types of it) that does not exist.
    pub const UNDEFINED_FUNCTION: &str = "42883";
    /// A type, setting or other object that does not exist.
    pub const UNDEFINED_OBJECT: &str = "42704";
    /// A column name that more than one table in scope has.
    pub const AMBIGUOUS_COLUMN: &str = "42702";
    /// A schema that does not exist.
    pub const INVALID_SCHEMA_NAME: &str = "3F000";
    /// A column that must appear in GROUP BY or be aggregated.
    pub const GROUPING_ERROR: &str = "42803";
    /// A savepoint statement outside a transaction block.
    pub const NO_ACTIVE_SQL_TRANSACTION: &str = "25P01";
    /// A savepoint name that no savepoint of the transaction has.
    pub const INVALID_SAVEPOINT: &str = "3B001";
    /// SET of a parameter that cannot be changed (`server_version`).
    pub const CANT_CHANGE_RUNTIME_PARAM: &str = "55P02";
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            sqlstate: None,
        }
    }
    /// The error tagged with the PostgreSQL condition it is (see [`sqlstate`]).
    pub fn with_sqlstate(mut self, code: &'static str) -> Self {
        self.sqlstate = Some(code);
        self
    }
    pub fn parse(m: impl Into<String>) -> Self {
        Self::new(ErrorKind::Parse, m)
    }
    pub fn binder(m: impl Into<String>) -> Self {
        Self::new(ErrorKind::Binder, m)
    }
    pub fn catalog(m: impl Into<String>) -> Self {
        Self::new(ErrorKind::Catalog, m)
    }
    pub fn conversion(m: impl Into<String>) -> Self {
        Self::new(ErrorKind::Conversion, m)
    }
    pub fn out_of_range(m: impl Into<String>) -> Self {
        Self::new(ErrorKind::OutOfRange, m)
    }
    pub fn constraint(m: impl Into<String>) -> Self {
        Self::new(ErrorKind::Constraint, m)
    }
    pub fn invalid_input(m: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidInput, m)
    }
    pub fn io(m: impl Into<String>) -> Self {
        Self::new(ErrorKind::Io, m)
    }
    pub fn dependency(m: impl Into<String>) -> Self {
        Self::new(ErrorKind::Dependency, m)
    }
    pub fn not_supported(m: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotSupported, m)
    }
    pub fn interrupted() -> Self {
        Self::new(ErrorKind::Interrupted, "query was cancelled")
    }
    /// A statement cancelled because it ran longer than `statement_timeout`.
    pub fn statement_timeout(limit: &str) -> Self {
        Self::new(
            ErrorKind::Timeout,
            format!("canceling statement due to statement timeout (statement_timeout = {limit}); raise it with SET statement_timeout = '...', or 0 for no limit"),
        )
    }
    pub fn internal(m: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, m)
    }
    pub fn division_by_zero() -> Self {
        Self::new(ErrorKind::OutOfRange, "division by zero")
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.label(), self.message)
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::io(e.to_string())
    }
}

impl From<std::fmt::Error> for Error {
    fn from(e: std::fmt::Error) -> Self {
        Error::internal(e.to_string())
    }
}
