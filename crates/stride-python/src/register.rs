//! Python data as tables in SQL: `con.register(name, df)` and DuckDB's replacement
//! scans (`SELECT sum(x) FROM df` finds the variable `df` in the caller's scope).
//!
//! Anything with the Arrow PyCapsule stream protocol (`__arrow_c_stream__`: pyarrow
//! Tables and RecordBatchReaders, polars DataFrames) is read through the
//! Arrow C stream interface and turned into stride vectors that point into the
//! Arrow memory (`stride_io::arrow`): numbers, dates and string bytes are not
//! copied, and the Arrow arrays stay alive while any vector reads them (changes made
//! to the object in place show, as in DuckDB). A replacement scan registers the
//! variable for the statement that named it and unregisters it afterwards, so every
//! statement reads the variable as it is then.
//!
//! A pandas DataFrame's numpy columns are wrapped in place, and only its other
//! columns go through pyarrow (`pandas.rs`). pyarrow Datasets and polars LazyFrames
//! are not read at registration: they are read when a query runs, with its columns
//! and filters pushed into them (`lazy_source.rs`).

use crate::errors::{to_py, CatalogException, InvalidInputException};
use crate::lazy_source::{LazySource, Library};
use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::RecordBatchReader;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::sync::Arc;
use stride::{Connection, DataChunk, DataType, RegisteredRelation, RegisteredRows};
use stride_io::arrow::{batch_to_chunks, stride_type, SharedHeaps};

/// Most Python objects one statement may find by name.
const MAX_REPLACEMENTS: usize = 64;

/// How a Python object becomes an Arrow stream, if it can.
enum Kind {
    /// It has `__arrow_c_stream__` itself.
    Stream,
    /// A polars LazyFrame: read when a query runs (see `lazy_source.rs`).
    LazyFrame,
    /// A pyarrow Dataset: read when a query runs (see `lazy_source.rs`).
    Dataset,
    /// A pyarrow Scanner (its columns and filter fixed): read as a RecordBatchReader.
    Scanner,
}

/// What kind of Arrow data `obj` is (an instance, not a class), if any.
fn arrow_kind(obj: &Bound<'_, PyAny>) -> Option<Kind> {
    if obj.is_instance_of::<pyo3::types::PyType>() {
        return None;
    }
    let ty = obj.get_type();
    if ty.hasattr("__arrow_c_stream__").unwrap_or(false) {
        return Some(Kind::Stream);
    }
    let module: String = ty.module().ok()?.extract().ok()?;
    let name = ty.name().ok()?.to_string();
    match (module.split('.').next()?, name.as_str()) {
        ("polars", "LazyFrame") => Some(Kind::LazyFrame),
        ("pyarrow", "FileSystemDataset" | "UnionDataset" | "InMemoryDataset" | "Dataset") => {
            Some(Kind::Dataset)
        }
        ("pyarrow", "Scanner") => Some(Kind::Scanner),
        _ => None,
    }
}

fn is_arrow_data(obj: &Bound<'_, PyAny>) -> bool {
    arrow_kind(obj).is_some()
}

/// The rows of a Python object with `__arrow_c_stream__`, a polars LazyFrame or a
/// pyarrow Dataset, as a relation: the first read in place now, the others read
/// when a query runs, only the columns and rows it needs.
pub fn relation_of(obj: &Bound<'_, PyAny>) -> PyResult<RegisteredRelation> {
    let lazy = |library| -> PyResult<RegisteredRelation> {
        let source = LazySource::new(library, obj)?;
        Ok(RegisteredRelation {
            names: source.names().to_vec(),
            types: source.types().to_vec(),
            rows: RegisteredRows::External(Arc::new(source)),
        })
    };
    if crate::pandas::is_data_frame(obj) {
        return crate::pandas::relation(obj);
    }
    let stream = match arrow_kind(obj) {
        Some(Kind::Stream) => obj.clone(),
        Some(Kind::LazyFrame) => return lazy(Library::Polars),
        Some(Kind::Dataset) => return lazy(Library::Pyarrow),
        Some(Kind::Scanner) => obj.call_method0("to_reader")?,
        None => {
            return Err(InvalidInputException::new_err(format!(
                "a {} cannot be read as a table: pass a pandas or polars DataFrame or \
                 LazyFrame, a pyarrow Table, Dataset or RecordBatchReader, or anything with \
                 __arrow_c_stream__",
                obj.get_type().name()?
            )))
        }
    };
    let reader = stream_reader(&stream)?;
    let (names, types) = stride_schema(&reader)?;
    let chunks = read_chunks(reader, &types, "the Arrow stream").map_err(to_py)?;
    Ok(RegisteredRelation {
        names,
        types,
        rows: RegisteredRows::Chunks(chunks),
    })
}

/// The column names and stride types of an Arrow stream.
pub fn stride_schema(reader: &RecordBatchStreamReader) -> PyResult<(Vec<String>, Vec<DataType>)> {
    let schema = reader.schema();
    let mut names = Vec::with_capacity(schema.fields().len());
    let mut types = Vec::with_capacity(schema.fields().len());
    for f in schema.fields() {
        names.push(f.name().clone());
        types.push(stride_type(f.name(), f.data_type()).map_err(to_py)?);
    }
    Ok((names, types))
}

/// Every batch of `reader` as chunks of columns of `types`, reading the Arrow
/// memory in place; errors name the stream as `what`.
pub fn read_chunks(
    reader: RecordBatchStreamReader,
    types: &[DataType],
    what: &str,
) -> stride_common::Result<Vec<DataChunk>> {
    let mut chunks = Vec::new();
    let mut copied = SharedHeaps::default();
    for batch in reader {
        let batch = batch
            .map_err(|e| stride_common::Error::invalid_input(format!("reading {what}: {e}")))?;
        chunks.extend(batch_to_chunks(&batch, types, &mut copied)?);
    }
    Ok(chunks)
}

/// The Arrow stream of an object with `__arrow_c_stream__`.
pub fn stream_reader(stream: &Bound<'_, PyAny>) -> PyResult<RecordBatchStreamReader> {
    let capsule = stream.call_method0("__arrow_c_stream__")?;
    let capsule = capsule.cast::<PyCapsule>()?;
    let ptr = capsule.pointer_checked(Some(c"arrow_array_stream"))?;
    // SAFETY: the capsule holds an ArrowArrayStream (its name says so, per the
    // PyCapsule protocol); `from_raw` moves the stream out and marks the capsule's
    // copy released, so the capsule's destructor does not release it again.
    unsafe { RecordBatchStreamReader::from_raw(ptr.as_ptr() as *mut FFI_ArrowArrayStream) }
        .map_err(|e| InvalidInputException::new_err(format!("reading the Arrow stream: {e}")))
}

/// Registers `obj` under `name`.
pub fn register(conn: &Connection, name: &str, obj: &Bound<'_, PyAny>) -> PyResult<()> {
    conn.register(name, relation_of(obj)?).map_err(to_py)
}

/// The table a Catalog Error says is missing ("Table with name X does not exist!").
fn missing_table(py: Python<'_>, e: &PyErr) -> Option<String> {
    if !e.is_instance_of::<CatalogException>(py) {
        return None;
    }
    let message = e.value(py).to_string();
    let rest = message.split_once("Table with name ")?.1;
    let name = rest.split_once(" does not exist")?.0;
    (!name.contains('.')).then(|| name.to_string())
}

/// A variable named `name` holding Arrow data, from the innermost Python frame
/// outwards (locals, then globals), as DuckDB looks for them; exact names first, then
/// ignoring case (SQL folds unquoted names to lower case).
fn find_variable<'py>(py: Python<'py>, name: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    for exact in [true, false] {
        let mut frame = py.import("sys")?.call_method1("_getframe", (0,)).ok();
        while let Some(f) = frame.filter(|f| !f.is_none()) {
            for scope in ["f_locals", "f_globals"] {
                let vars = f.getattr(scope)?;
                for item in vars.call_method0("items")?.try_iter()? {
                    let (k, v): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item?.extract()?;
                    let Ok(k) = k.extract::<String>() else {
                        continue;
                    };
                    let matches = if exact {
                        k == name
                    } else {
                        k.eq_ignore_ascii_case(name)
                    };
                    if matches && is_arrow_data(&v) {
                        return Ok(Some(v));
                    }
                }
            }
            frame = f.getattr("f_back").ok();
        }
    }
    Ok(None)
}

/// Python objects statements found by name, as read then. A relation keeps those
/// its query found, so every run of it reads the same rows (a RecordBatchReader
/// can be read only once) and sees the variables as they were when it was made, as
/// in DuckDB.
pub type Found = Vec<(String, RegisteredRelation)>;

/// Runs `f`, which binds `sql`, with the objects in `found` registered; while it
/// fails because a table is missing and a Python variable of that name holds Arrow
/// data, registers the variable (adding it to `found`) and runs `f` again. Only a
/// single statement is run again (re-running a script would repeat its earlier
/// statements). What was registered is unregistered when `f` is done (its plan
/// holds the rows).
pub fn with_replacement_scans<T>(
    py: Python<'_>,
    conn: &Connection,
    sql: &str,
    found: &mut Found,
    mut f: impl FnMut() -> PyResult<T>,
) -> PyResult<T> {
    let mut added: Vec<String> = Vec::new();
    for (name, relation) in found.iter() {
        // A name registered on the connection meanwhile comes first.
        if !conn.is_registered(name) && conn.register(name, relation.clone()).is_ok() {
            added.push(name.clone());
        }
    }
    let result = loop {
        match f() {
            Err(e) if added.len() < MAX_REPLACEMENTS => {
                let Some(name) = missing_table(py, &e) else {
                    break Err(e);
                };
                if stride::split_statements(sql).len() != 1 {
                    break Err(e);
                }
                if added.contains(&name) {
                    break Err(e);
                }
                match find_variable(py, &name) {
                    Ok(Some(obj)) => {
                        let relation = match relation_of(&obj) {
                            Ok(r) => r,
                            Err(e) => break Err(e),
                        };
                        if let Err(e) = conn.register(&name, relation.clone()) {
                            break Err(to_py(e));
                        }
                        found.push((name.clone(), relation));
                        added.push(name);
                    }
                    Ok(None) => break Err(e),
                    Err(lookup) => break Err(lookup),
                }
            }
            other => break other,
        }
    };
    for name in &added {
        conn.unregister(name);
    }
    result
}
