//! pandas DataFrames as tables, read in place: a column held in a plain numpy
//! array of integers or floats becomes a stride vector over the array's memory (a
//! float column's NaN are NULL, as DuckDB reads them), and only the other columns
//! (strings, dates, nullable and Arrow-backed dtypes) go through pyarrow. Going
//! through pyarrow for every column would cost more than most queries: its NaN
//! check alone takes about 2 ns per float value.
//!
//! The frame's index is not a column, as in DuckDB.

use crate::errors::to_py;
use crate::register::{read_chunks, stream_reader, stride_schema};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PySlice};
use std::sync::Arc;
use stride::{RegisteredRelation, RegisteredRows};
use stride_common::{Buffer, DataChunk, DataType, Validity, Vector, VectorData, VECTOR_SIZE};

/// A numpy array kept alive while stride vectors read its memory.
struct NumpyOwner(#[allow(dead_code)] Py<PyAny>);

// The array is only kept, never touched through this handle.
impl std::panic::RefUnwindSafe for NumpyOwner {}

/// Whether `obj` is a pandas DataFrame.
pub fn is_data_frame(obj: &Bound<'_, PyAny>) -> bool {
    let ty = obj.get_type();
    let module = ty
        .module()
        .ok()
        .and_then(|m| m.extract::<String>().ok())
        .unwrap_or_default();
    module.split('.').next() == Some("pandas")
        && ty.name().is_ok_and(|n| n.to_string() == "DataFrame")
}

/// Column `series` as a vector over its numpy memory, when it is a contiguous,
/// aligned, native-endian array of 1-, 2-, 4- or 8-byte integers or 4- or 8-byte
/// floats.
fn numpy_column(series: &Bound<'_, PyAny>, rows: usize) -> PyResult<Option<(DataType, Vector)>> {
    let dtype = series.getattr("dtype")?;
    let module: String = dtype.get_type().module()?.extract()?;
    if module.split('.').next() != Some("numpy") {
        return Ok(None);
    }
    let kind: String = dtype.getattr("kind")?.extract()?;
    let size: usize = dtype.getattr("itemsize")?.extract()?;
    let ty = match (kind.as_str(), size) {
        ("i", 1) => DataType::TinyInt,
        ("i", 2) => DataType::SmallInt,
        ("i", 4) => DataType::Integer,
        ("i", 8) => DataType::BigInt,
        ("f", 4) => DataType::Real,
        ("f", 8) => DataType::Double,
        _ => return Ok(None),
    };
    let kwargs = PyDict::new(series.py());
    kwargs.set_item("copy", false)?;
    let array = series.call_method("to_numpy", (), Some(&kwargs))?;
    let interface = array.getattr("__array_interface__")?;
    let typestr: String = interface.get_item("typestr")?.extract()?;
    let contiguous = interface.get_item("strides")?.is_none()
        || interface
            .get_item("strides")?
            .extract::<(isize,)>()
            .is_ok_and(|(s,)| s == size as isize);
    let shape: (usize,) = interface.get_item("shape")?.extract()?;
    let native = typestr.starts_with('<') || typestr.starts_with('|');
    if !contiguous || !native || shape.0 != rows || !cfg!(target_endian = "little") {
        return Ok(None);
    }
    let (address, _read_only): (usize, bool) = interface.get_item("data")?.extract()?;
    // A view into a record array, or a buffer read at an offset, may be unaligned.
    if address % size != 0 {
        return Ok(None);
    }
    let owner: Arc<dyn std::panic::RefUnwindSafe + Send + Sync> =
        Arc::new(NumpyOwner(array.unbind()));
    // SAFETY: numpy says `rows` values of this type lie contiguously at `address`
    // (its array interface), aligned (checked above), and the array they belong to
    // is kept alive with every buffer made from it. Values the caller changes in
    // place between statements show in later reads, as in DuckDB.
    let data = unsafe {
        match ty {
            DataType::TinyInt => {
                VectorData::I8(Buffer::from_foreign(address as *const i8, rows, owner))
            }
            DataType::SmallInt => {
                VectorData::I16(Buffer::from_foreign(address as *const i16, rows, owner))
            }
            DataType::Integer => {
                VectorData::I32(Buffer::from_foreign(address as *const i32, rows, owner))
            }
            DataType::BigInt => {
                VectorData::I64(Buffer::from_foreign(address as *const i64, rows, owner))
            }
            DataType::Real => {
                VectorData::F32(Buffer::from_foreign(address as *const f32, rows, owner))
            }
            _ => VectorData::F64(Buffer::from_foreign(address as *const f64, rows, owner)),
        }
    };
    let validity = match &data {
        VectorData::F32(b) => Validity::from_fn(rows, |i| !b[i].is_nan()),
        VectorData::F64(b) => Validity::from_fn(rows, |i| !b[i].is_nan()),
        _ => Validity::all_valid(),
    };
    Ok(Some((ty.clone(), Vector::new(ty, data, validity))))
}

/// The rows of pandas DataFrame `df`, as a relation.
pub fn relation(df: &Bound<'_, PyAny>) -> PyResult<RegisteredRelation> {
    let py = df.py();
    let rows: usize = df.len()?;
    let labels: Vec<Bound<'_, PyAny>> = df
        .getattr("columns")?
        .try_iter()?
        .collect::<PyResult<_>>()?;
    let iloc = df.getattr("iloc")?;
    let mut names = Vec::with_capacity(labels.len());
    let mut types = Vec::with_capacity(labels.len());
    // Each column: its vector over numpy memory, or its place among those read
    // through pyarrow.
    let mut in_place: Vec<Option<Vector>> = Vec::with_capacity(labels.len());
    let mut through_arrow = Vec::new();
    for (i, label) in labels.iter().enumerate() {
        names.push(label.str()?.to_string());
        let series = iloc.get_item((PySlice::full(py), i))?;
        match numpy_column(&series, rows)? {
            Some((ty, v)) => {
                types.push(ty);
                in_place.push(Some(v));
            }
            None => {
                types.push(DataType::Null);
                in_place.push(None);
                through_arrow.push(i);
            }
        }
    }
    // The other columns, as pyarrow reads them (their chunks set the chunks' sizes).
    let mut arrow_chunks: Vec<DataChunk> = Vec::new();
    if !through_arrow.is_empty() {
        let positions = PyList::new(py, &through_arrow)?;
        let part = iloc.get_item((PySlice::full(py), positions))?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("preserve_index", false)?;
        let table = py.import("pyarrow")?.getattr("Table")?.call_method(
            "from_pandas",
            (part,),
            Some(&kwargs),
        )?;
        let reader = stream_reader(&table)?;
        let (_, part_types) = stride_schema(&reader)?;
        if part_types.len() != through_arrow.len() {
            return Err(crate::errors::InternalException::new_err(
                "pyarrow read a different number of columns than the DataFrame has",
            ));
        }
        for (ty, &i) in part_types.iter().zip(&through_arrow) {
            types[i] = ty.clone();
        }
        arrow_chunks = read_chunks(reader, &part_types, "the DataFrame").map_err(to_py)?;
    }
    // Chunks of every column: cut where pyarrow's are, or every VECTOR_SIZE rows.
    let cuts: Vec<usize> = if through_arrow.is_empty() {
        (0..rows)
            .step_by(VECTOR_SIZE)
            .map(|start| VECTOR_SIZE.min(rows - start))
            .collect()
    } else {
        arrow_chunks.iter().map(|c| c.len()).collect()
    };
    if cuts.iter().sum::<usize>() != rows {
        return Err(crate::errors::InternalException::new_err(
            "pyarrow read a different number of rows than the DataFrame has",
        ));
    }
    let mut arrow_chunks = arrow_chunks.into_iter();
    let mut chunks = Vec::with_capacity(cuts.len());
    let mut offset = 0;
    for len in cuts {
        let mut from_arrow = arrow_chunks.next().map(|c| c.columns.into_iter());
        let columns = in_place
            .iter()
            .map(|v| match v {
                Some(v) => v.slice(offset, len),
                None => from_arrow
                    .as_mut()
                    .and_then(|c| c.next())
                    .expect("pyarrow read every column left"),
            })
            .collect();
        chunks.push(DataChunk::new(columns, len));
        offset += len;
    }
    Ok(RegisteredRelation {
        names,
        types,
        rows: RegisteredRows::Chunks(chunks),
    })
}
