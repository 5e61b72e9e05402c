//! The `stride` Python package (built with maturin; `pip install ./crates/stride-python`):
//! DuckDB's Python API over the embedded engine, so code moves over by changing its
//! import. This crate is the native module `stride._stride`; `python/stride/__init__.py`
//! adds DB-API 2.0's module globals and type objects.
//!
//! - `connection.rs`: `connect()`, the connection (DB-API cursor methods, `sql()`).
//! - `relation.rs`: lazy relations and their fetch and building methods.
//! - `cursor.rs`: reading a result, and waiting for the engine (GIL released, Ctrl-C).
//! - `stream.rs`: results as Arrow through the PyCapsule stream protocol.
//! - `register.rs`: DataFrames and Arrow data as tables (`register`, replacement scans).
//! - `pandas.rs`: pandas DataFrames, their numpy columns read in place.
//! - `lazy_source.rs`: pyarrow Datasets and polars LazyFrames, read with the query's
//!   columns and filters pushed into them.
//! - `values.rs`: Python values as parameters, SQL values as Python objects.
//! - `errors.rs`: the exception hierarchy.

mod connection;
mod cursor;
mod errors;
mod lazy_source;
mod pandas;
mod register;
mod relation;
mod stream;
mod values;

use connection::PyConnection;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

/// The connection of the module-level functions (`stride.sql`, `stride.execute`):
/// one in-memory database per process, as DuckDB's default connection.
static DEFAULT: PyOnceLock<Py<PyConnection>> = PyOnceLock::new();

#[pyfunction]
fn default_connection(py: Python<'_>) -> PyResult<Py<PyConnection>> {
    DEFAULT
        .get_or_try_init(py, || Py::new(py, PyConnection::open(":memory:", false)?))
        .map(|c| c.clone_ref(py))
}

/// `stride.sql(query)` on the default connection.
#[pyfunction]
#[pyo3(signature = (query, params=None))]
fn sql(py: Python<'_>, query: &str, params: Option<Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
    let c = default_connection(py)?;
    Ok(c.bind(py).call_method1("sql", (query, params))?.unbind())
}

/// `stride.execute(query, parameters)` on the default connection.
#[pyfunction]
#[pyo3(signature = (query, parameters=None))]
fn execute(
    py: Python<'_>,
    query: &str,
    parameters: Option<Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let c = default_connection(py)?;
    Ok(c.bind(py)
        .call_method1("execute", (query, parameters))?
        .unbind())
}

#[pymodule]
fn _stride(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyConnection>()?;
    m.add_class::<relation::Relation>()?;
    m.add_class::<stream::ArrowStream>()?;
    m.add_function(wrap_pyfunction!(connection::connect, m)?)?;
    m.add_function(wrap_pyfunction!(default_connection, m)?)?;
    m.add_function(wrap_pyfunction!(sql, m)?)?;
    m.add_function(wrap_pyfunction!(execute, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    Ok(())
}
