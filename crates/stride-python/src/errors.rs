//! The exception hierarchy of DB-API 2.0 (PEP 249), with DuckDB's names for the
//! specific errors so code written for `duckdb` catches the same classes, and the
//! mapping from stride's error categories onto them.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyWarning};
use pyo3::prelude::*;
use stride_common::{Error as StrideError, ErrorKind};

create_exception!(stride, Warning, PyWarning, "Important warnings (PEP 249).");
create_exception!(
    stride,
    Error,
    PyException,
    "The base class of every stride error (PEP 249)."
);
create_exception!(
    stride,
    InterfaceError,
    Error,
    "The Python interface was misused: a closed connection, a cursor without a result."
);
create_exception!(
    stride,
    DatabaseError,
    Error,
    "An error reported by the database."
);
create_exception!(
    stride,
    DataError,
    DatabaseError,
    "A value could not be converted or is out of range."
);
create_exception!(
    stride,
    OperationalError,
    DatabaseError,
    "An error in the database's operation: I/O, transactions, timeouts."
);
create_exception!(
    stride,
    IntegrityError,
    DatabaseError,
    "A constraint was violated."
);
create_exception!(stride, InternalError, DatabaseError, "A bug in stride.");
create_exception!(
    stride,
    ProgrammingError,
    DatabaseError,
    "The SQL is wrong: syntax, names, types, parameters."
);
create_exception!(
    stride,
    NotSupportedError,
    DatabaseError,
    "stride does not support this (yet)."
);

create_exception!(
    stride,
    ParserException,
    ProgrammingError,
    "The SQL text does not parse."
);
create_exception!(
    stride,
    BinderException,
    ProgrammingError,
    "A name or type in the SQL does not resolve."
);
create_exception!(
    stride,
    CatalogException,
    ProgrammingError,
    "A table, view, schema or function is missing or already exists."
);
create_exception!(
    stride,
    InvalidInputException,
    ProgrammingError,
    "An argument or input is invalid."
);
create_exception!(
    stride,
    ConversionException,
    DataError,
    "A value cannot be converted to the type asked for."
);
create_exception!(
    stride,
    OutOfRangeException,
    DataError,
    "A value is out of the range of its type."
);
create_exception!(
    stride,
    ConstraintException,
    IntegrityError,
    "A constraint (NOT NULL, PRIMARY KEY, UNIQUE, CHECK) was violated."
);
create_exception!(
    stride,
    IOException,
    OperationalError,
    "A file could not be read or written."
);
create_exception!(
    stride,
    TransactionException,
    OperationalError,
    "A transaction conflicted or was used wrongly."
);
create_exception!(
    stride,
    ConnectionException,
    OperationalError,
    "The connection is closed or cannot be opened."
);
create_exception!(
    stride,
    TimeoutException,
    OperationalError,
    "The statement ran longer than statement_timeout."
);
create_exception!(
    stride,
    SequenceException,
    DatabaseError,
    "A sequence passed its last value, or currval before nextval."
);
create_exception!(
    stride,
    DependencyException,
    DatabaseError,
    "An object others depend on cannot be dropped (a type a table uses)."
);
create_exception!(
    stride,
    OutOfMemoryException,
    OperationalError,
    "The statement needed more memory than memory_limit allows."
);
create_exception!(
    stride,
    PermissionException,
    Error,
    "A setting (enable_external_access) refused the operation."
);
create_exception!(
    stride,
    InterruptException,
    Error,
    "The statement was interrupted."
);
create_exception!(
    stride,
    NotImplementedException,
    NotSupportedError,
    "stride does not implement this yet."
);
create_exception!(
    stride,
    InternalException,
    InternalError,
    "A bug in stride: please report it."
);

/// The Python exception for a stride error, with stride's message (which already
/// starts with its category, as in the shell).
pub fn to_py(e: StrideError) -> PyErr {
    let message = e.to_string();
    match e.kind {
        ErrorKind::Parse => ParserException::new_err(message),
        ErrorKind::Binder => BinderException::new_err(message),
        ErrorKind::Catalog => CatalogException::new_err(message),
        ErrorKind::Conversion => ConversionException::new_err(message),
        ErrorKind::OutOfRange => OutOfRangeException::new_err(message),
        ErrorKind::Constraint => ConstraintException::new_err(message),
        ErrorKind::InvalidInput => InvalidInputException::new_err(message),
        ErrorKind::Io => IOException::new_err(message),
        ErrorKind::Transaction => TransactionException::new_err(message),
        ErrorKind::NotSupported => NotImplementedException::new_err(message),
        ErrorKind::Permission => PermissionException::new_err(message),
        ErrorKind::Interrupted => InterruptException::new_err(message),
        ErrorKind::Timeout => TimeoutException::new_err(message),
        ErrorKind::OutOfMemory => OutOfMemoryException::new_err(message),
        ErrorKind::Sequence => SequenceException::new_err(message),
        ErrorKind::Dependency => DependencyException::new_err(message),
        ErrorKind::Internal => InternalException::new_err(message),
    }
}

/// Adds every exception class to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    macro_rules! add {
        ($($name:ident),*) => { $( m.add(stringify!($name), py.get_type::<$name>())?; )* };
    }
    add!(
        Warning,
        Error,
        InterfaceError,
        DatabaseError,
        DataError,
        OperationalError,
        IntegrityError,
        InternalError,
        ProgrammingError,
        NotSupportedError,
        ParserException,
        BinderException,
        CatalogException,
        InvalidInputException,
        ConversionException,
        OutOfRangeException,
        ConstraintException,
        IOException,
        TransactionException,
        ConnectionException,
        TimeoutException,
        OutOfMemoryException,
        SequenceException,
        DependencyException,
        PermissionException,
        InterruptException,
        NotImplementedException,
        InternalException
    );
    Ok(())
}
