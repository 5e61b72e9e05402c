//! Results as Arrow: record batches cut from a result's chunks (through
//! `stride_io::arrow`), handed to Python through the Arrow PyCapsule interface
//! (`__arrow_c_stream__`), which pyarrow, polars and pandas read without copying.

use crate::cursor::Pending;
use crate::errors::InterfaceError;
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::sync::Mutex;
use stride_common::DataType;
use stride_io::arrow::{arrow_schema, follows, record_batch, StringLayout};

/// Rows per record batch unless the caller asks for another size (DuckDB's default).
pub const BATCH_ROWS: usize = 1_000_000;
/// A batch whose chunks lie one after the other in memory (windows of a stored row
/// group) ends where the next chunk does not follow on, once it has this many rows:
/// it then shares the chunks' buffers instead of copying them into a bigger batch.
const MIN_SHARED_ROWS: usize = 32 * 1024;

/// A result read as record batches of about `batch_rows` rows each (whole chunks, so
/// a batch may hold up to one chunk more).
pub struct Batches {
    pending: Pending,
    /// A chunk read but left for the next batch.
    next: Option<(Vec<stride_common::Vector>, usize)>,
    schema: SchemaRef,
    types: Vec<DataType>,
    batch_rows: usize,
}

impl Batches {
    pub fn new(pending: Pending, batch_rows: usize) -> Self {
        let schema = arrow_schema(
            &pending.result.names,
            &pending.result.types,
            StringLayout::View,
        );
        let types = pending.result.types.clone();
        Batches {
            pending,
            next: None,
            schema,
            types,
            batch_rows: batch_rows.max(1),
        }
    }
}

impl Iterator for Batches {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut chunks: Vec<(Vec<stride_common::Vector>, usize)> = Vec::new();
        let mut rows = 0;
        // Whether every chunk so far follows on from the one before in memory.
        let mut contiguous = true;
        while rows < self.batch_rows {
            let (columns, n) = match self.next.take() {
                Some(c) => c,
                None => match self.pending.next_chunk() {
                    None => break,
                    Some(Ok(c)) => c.into_flat_columns(),
                    Some(Err(e)) => return Some(Err(ArrowError::ExternalError(Box::new(e)))),
                },
            };
            if n == 0 {
                continue;
            }
            if let Some((last, last_rows)) = chunks.last() {
                if contiguous && !follows(last, *last_rows, &columns) {
                    if rows >= MIN_SHARED_ROWS {
                        self.next = Some((columns, n));
                        break;
                    }
                    contiguous = false;
                }
            }
            rows += n;
            chunks.push((columns, n));
        }
        if chunks.is_empty() {
            return None;
        }
        Some(
            record_batch(&self.schema, &self.types, &chunks)
                .map_err(|e| ArrowError::ExternalError(Box::new(e))),
        )
    }
}

impl RecordBatchReader for Batches {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

/// A one-time Arrow stream: Python's readers (`pyarrow.table`, `polars.DataFrame`,
/// `pyarrow.RecordBatchReader.from_stream`) take it through `__arrow_c_stream__`.
#[pyclass(module = "stride", name = "ArrowStream")]
pub struct ArrowStream {
    reader: Mutex<Option<Box<dyn RecordBatchReader + Send>>>,
}

impl ArrowStream {
    pub fn new(reader: Box<dyn RecordBatchReader + Send>) -> Self {
        ArrowStream {
            reader: Mutex::new(Some(reader)),
        }
    }
}

#[pymethods]
impl ArrowStream {
    /// The Arrow PyCapsule protocol. A requested schema is a hint the protocol lets a
    /// producer decline; the stream always has its own schema.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader = self
            .reader
            .lock()
            .ok()
            .and_then(|mut r| r.take())
            .ok_or_else(|| InterfaceError::new_err("this Arrow stream was already read"))?;
        capsule(py, reader)
    }
}

/// An `arrow_array_stream` capsule; if no consumer takes the stream, dropping the
/// capsule releases it.
pub fn capsule<'py>(
    py: Python<'py>,
    reader: Box<dyn RecordBatchReader + Send>,
) -> PyResult<Bound<'py, PyCapsule>> {
    PyCapsule::new_with_value(py, FFI_ArrowArrayStream::new(reader), c"arrow_array_stream")
}

/// The whole rest of a result as a `pyarrow.Table`: the batches are made while the
/// GIL is released (and Ctrl-C is watched), then pyarrow takes them without a copy.
pub fn arrow_table<'py>(
    py: Python<'py>,
    interrupt: &stride::InterruptHandle,
    pending: Pending,
    batch_rows: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let pyarrow = py.import("pyarrow")?;
    let reader = materialized(py, interrupt, pending, batch_rows)?;
    pyarrow.call_method1("table", (ArrowStream::new(reader),))
}

/// A pyarrow Table as a pandas DataFrame, with DATE columns as `datetime64` (as
/// DuckDB's `df()` gives them) rather than Python date objects.
pub fn pandas_frame<'py>(table: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let kwargs = pyo3::types::PyDict::new(table.py());
    kwargs.set_item("date_as_object", false)?;
    table.call_method("to_pandas", (), Some(&kwargs))
}

/// A pyarrow Table as DuckDB's `fetchnumpy()` gives it: a dict of NumPy arrays by
/// column name (masked arrays where a column has NULLs).
pub fn numpy_dict<'py>(table: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = table.py();
    let out = pyo3::types::PyDict::new(py);
    let names: Vec<String> = table.getattr("column_names")?.extract()?;
    let ma = py.import("numpy.ma")?;
    for (i, name) in names.iter().enumerate() {
        let column = table.call_method1("column", (i,))?;
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("zero_copy_only", false)?;
        let values = column.call_method("to_numpy", (), Some(&kwargs))?;
        let nulls: usize = column.getattr("null_count")?.extract()?;
        let value = match nulls {
            0 => values,
            _ => {
                let mask =
                    column
                        .call_method0("is_null")?
                        .call_method("to_numpy", (), Some(&kwargs))?;
                ma.call_method1("masked_array", (values, mask))?
            }
        };
        out.set_item(name, value)?;
    }
    Ok(out.into_any())
}

/// The rest of a result as a polars DataFrame (read through the capsule protocol,
/// so pyarrow is not needed).
pub fn polars_frame<'py>(
    py: Python<'py>,
    interrupt: &stride::InterruptHandle,
    pending: Pending,
) -> PyResult<Bound<'py, PyAny>> {
    let polars = py.import("polars")?;
    let reader = materialized(py, interrupt, pending, BATCH_ROWS)?;
    polars.call_method1("DataFrame", (ArrowStream::new(reader),))
}

/// A `pyarrow.RecordBatchReader` that runs the rest of the result as it is read.
pub fn batch_reader<'py>(
    py: Python<'py>,
    pending: Pending,
    batch_rows: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let pyarrow = py.import("pyarrow")?;
    let stream = ArrowStream::new(Box::new(pending.batches(batch_rows)));
    pyarrow
        .getattr("RecordBatchReader")?
        .call_method1("from_stream", (stream,))
}

fn materialized(
    py: Python<'_>,
    interrupt: &stride::InterruptHandle,
    pending: Pending,
    batch_rows: usize,
) -> PyResult<Box<dyn RecordBatchReader + Send>> {
    let batches = pending.batches(batch_rows);
    let schema = batches.schema.clone();
    let all = crate::cursor::blocking(py, interrupt, move || {
        batches.collect::<Result<Vec<_>, _>>()
    })?
    .map_err(|e| match e {
        ArrowError::ExternalError(inner) => match inner.downcast::<stride_common::Error>() {
            Ok(e) => crate::errors::to_py(*e),
            Err(other) => crate::errors::InternalException::new_err(other.to_string()),
        },
        other => crate::errors::InternalException::new_err(other.to_string()),
    })?;
    Ok(Box::new(arrow_array::RecordBatchIterator::new(
        all.into_iter().map(Ok),
        schema,
    )))
}
