//! Python data as tables in SQL: `con.register(name, df)` and DuckDB's replacement
//! scans (`SELECT sum(x) FROM df` finds the variable `df` in the caller's scope).
//!
//! Anything with the Arrow PyCapsule stream protocol (`__arrow_c_stream__`: pyarrow
//! Tables and RecordBatchReaders, polars and pandas DataFrames) is read through the
//! Arrow C stream interface and converted to stride vectors (`stride_io::arrow`):
//! a copy, taken when the name is registered. A replacement scan registers the
//! variable for the statement that named it and unregisters it afterwards, so every
//! statement reads the variable as it is then.

use crate::errors::{to_py, CatalogException, InvalidInputException};
use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::RecordBatchReader;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use stride::{Connection, RegisteredRelation};
use stride_io::arrow::{batch_to_chunks, stride_type, SharedHeaps};

/// Most Python objects one statement may find by name.
const MAX_REPLACEMENTS: usize = 64;

/// Whether `obj` can be read as Arrow data (an instance, not a class).
fn is_arrow_data(obj: &Bound<'_, PyAny>) -> bool {
    !obj.is_instance_of::<pyo3::types::PyType>()
        && obj
            .get_type()
            .hasattr("__arrow_c_stream__")
            .unwrap_or(false)
}

/// The rows of a Python object with `__arrow_c_stream__`, as a relation.
pub fn relation_of(obj: &Bound<'_, PyAny>) -> PyResult<RegisteredRelation> {
    if !is_arrow_data(obj) {
        return Err(InvalidInputException::new_err(format!(
            "a {} cannot be read as a table: pass a pandas or polars DataFrame, a pyarrow \
             Table or anything with __arrow_c_stream__",
            obj.get_type().name()?
        )));
    }
    let capsule = obj.call_method0("__arrow_c_stream__")?;
    let capsule = capsule.cast::<PyCapsule>()?;
    let ptr = capsule.pointer_checked(Some(c"arrow_array_stream"))?;
    // SAFETY: the capsule holds an ArrowArrayStream (its name says so, per the
    // PyCapsule protocol); `from_raw` moves the stream out and marks the capsule's
    // copy released, so the capsule's destructor does not release it again.
    let reader =
        unsafe { RecordBatchStreamReader::from_raw(ptr.as_ptr() as *mut FFI_ArrowArrayStream) }
            .map_err(|e| {
                InvalidInputException::new_err(format!("reading the Arrow stream: {e}"))
            })?;
    let schema = reader.schema();
    let mut names = Vec::with_capacity(schema.fields().len());
    let mut types = Vec::with_capacity(schema.fields().len());
    for f in schema.fields() {
        names.push(f.name().clone());
        types.push(stride_type(f.name(), f.data_type()).map_err(to_py)?);
    }
    let mut chunks = Vec::new();
    let mut copied = SharedHeaps::default();
    for batch in reader {
        let batch = batch.map_err(|e| {
            InvalidInputException::new_err(format!("reading the Arrow stream: {e}"))
        })?;
        chunks.extend(batch_to_chunks(&batch, &types, &mut copied).map_err(to_py)?);
    }
    Ok(RegisteredRelation {
        names,
        types,
        chunks,
    })
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

/// Runs `f`, which binds `sql`; while it fails because a table is missing and a
/// Python variable of that name holds Arrow data, registers the variable and runs
/// `f` again. Only a single statement is run again (re-running a script would
/// repeat its earlier statements). The variables registered are unregistered when
/// `f` is done (its plan holds their rows).
pub fn with_replacement_scans<T>(
    py: Python<'_>,
    conn: &Connection,
    sql: &str,
    mut f: impl FnMut() -> PyResult<T>,
) -> PyResult<T> {
    let mut added: Vec<String> = Vec::new();
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
                        if let Err(reg) = register(conn, &name, &obj) {
                            break Err(reg);
                        }
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
