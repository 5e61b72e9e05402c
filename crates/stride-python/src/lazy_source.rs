//! pyarrow Datasets and polars LazyFrames as tables read when a query runs, with
//! the query's columns and the simple conditions of its filters pushed into them:
//! a Dataset over Parquet files then reads only those columns and skips the row
//! groups and files its statistics and partitions rule out, and a LazyFrame's own
//! optimizer pushes them into its scans. The engine side is
//! `stride_io::external`; this file turns the pushed conditions into pyarrow and
//! polars expressions.
//!
//! A condition is pushed only where the source evaluates it exactly as stride does
//! (the engine's filter still runs, but must not lose rows): comparisons and IN
//! lists on signed integer, string, date and boolean columns with a constant of
//! the column's own type, and IS [NOT] NULL on any column. Floating-point columns
//! are left out (stride orders NaN above every number, Arrow compute does not),
//! as are dictionary-encoded columns (polars compares categoricals by their codes).

use crate::register::{read_chunks, stream_reader, stride_schema};
use crate::values::ToPython;
use arrow_array::RecordBatchReader;
use arrow_schema::DataType as ArrowType;
use pyo3::prelude::*;
use pyo3::types::PyList;
use stride::{CompareOp, ExternalSource, SourceFilter, SourceTest};
use stride_common::{DataChunk, DataType, Error, Result, ScalarValue};

/// Which Python library reads the source.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Library {
    /// A pyarrow Dataset: `dataset.scanner(columns, filter)`.
    Pyarrow,
    /// A polars LazyFrame: `frame.filter(...).select(...).collect()`.
    Polars,
}

/// What a column's values compare like in the source, for pushing conditions.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Domain {
    Integer,
    Text,
    Date,
    Boolean,
    /// Compared differently from stride, or not worth pushing: only IS [NOT] NULL.
    Other,
}

fn domain(ty: &ArrowType) -> Domain {
    match ty {
        ArrowType::Int8 | ArrowType::Int16 | ArrowType::Int32 | ArrowType::Int64 => Domain::Integer,
        ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View => Domain::Text,
        ArrowType::Date32 => Domain::Date,
        ArrowType::Boolean => Domain::Boolean,
        _ => Domain::Other,
    }
}

/// Whether `v` is a constant of the stride type `ty` in `domain`.
fn constant_fits(v: &ScalarValue, ty: &DataType, domain: Domain) -> bool {
    use ScalarValue as S;
    match (domain, v) {
        (Domain::Integer, S::TinyInt(_) | S::SmallInt(_) | S::Integer(_) | S::BigInt(_)) => {
            &v.data_type() == ty
        }
        (Domain::Text, S::Varchar(_)) => ty == &DataType::Varchar,
        (Domain::Date, S::Date(_)) => ty == &DataType::Date,
        (Domain::Boolean, S::Boolean(_)) => ty == &DataType::Boolean,
        _ => false,
    }
}

/// A Dataset or LazyFrame registered as a table.
pub struct LazySource {
    library: Library,
    object: Py<PyAny>,
    names: Vec<String>,
    types: Vec<DataType>,
    domains: Vec<Domain>,
    rows: Option<usize>,
}

impl LazySource {
    /// The source over `object`, with its schema (names and stride types) read
    /// without reading its rows.
    pub fn new(library: Library, object: &Bound<'_, PyAny>) -> PyResult<LazySource> {
        let empty = match library {
            Library::Pyarrow => object.getattr("schema")?.call_method0("empty_table")?,
            Library::Polars => object
                .call_method1("limit", (0,))?
                .call_method0("collect")?,
        };
        let reader = stream_reader(&empty)?;
        let (names, types) = stride_schema(&reader)?;
        let domains = reader
            .schema()
            .fields()
            .iter()
            .map(|f| domain(f.data_type()))
            .collect();
        let rows = match library {
            Library::Pyarrow if counts_cheaply(object)? => {
                Some(object.call_method0("count_rows")?.extract()?)
            }
            _ => None,
        };
        Ok(LazySource {
            library,
            object: object.clone().unbind(),
            names,
            types,
            domains,
            rows,
        })
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn types(&self) -> &[DataType] {
        &self.types
    }

    /// Whether a read of `columns` reads the first column instead, dropped after: a
    /// polars frame without columns has no rows, so a query that reads none
    /// (`count(*)`) would count none.
    fn reads_first_instead(&self, columns: &[usize]) -> bool {
        columns.is_empty() && !self.names.is_empty() && self.library == Library::Polars
    }

    /// The rows of `columns` that may meet `filters`, as an Arrow stream object.
    fn scan<'py>(
        &self,
        py: Python<'py>,
        columns: &[usize],
        filters: &[SourceFilter],
    ) -> PyResult<Bound<'py, PyAny>> {
        let object = self.object.bind(py);
        let values = ToPython::new(py, stride_common::zone::SessionZone::utc())?;
        let names = PyList::new(py, columns.iter().map(|&c| &self.names[c]))?;
        match self.library {
            Library::Pyarrow => {
                let field = py.import("pyarrow.dataset")?.getattr("field")?;
                let mut filter: Option<Bound<'py, PyAny>> = None;
                for f in filters {
                    let e = condition(
                        self.library,
                        &field.call1((&self.names[f.column],))?,
                        &f.test,
                        &values,
                    )?;
                    filter = Some(match filter {
                        Some(all) => all.call_method1("__and__", (e,))?,
                        None => e,
                    });
                }
                let kwargs = pyo3::types::PyDict::new(py);
                kwargs.set_item("columns", names)?;
                kwargs.set_item("filter", filter)?;
                object
                    .call_method("scanner", (), Some(&kwargs))?
                    .call_method0("to_reader")
            }
            Library::Polars => {
                let col = py.import("polars")?.getattr("col")?;
                let mut frame = object.clone();
                for f in filters {
                    let e = condition(
                        self.library,
                        &col.call1((&self.names[f.column],))?,
                        &f.test,
                        &values,
                    )?;
                    frame = frame.call_method1("filter", (e,))?;
                }
                let read = if self.reads_first_instead(columns) {
                    PyList::new(py, [&self.names[0]])?
                } else {
                    names
                };
                frame
                    .call_method1("select", (read,))?
                    .call_method0("collect")
            }
        }
    }
}

/// Whether a pyarrow Dataset knows its row count from metadata (in memory, or
/// Parquet or Arrow files), rather than by reading every row (CSV).
fn counts_cheaply(dataset: &Bound<'_, PyAny>) -> PyResult<bool> {
    let class = dataset.get_type().name()?.to_string();
    if class == "InMemoryDataset" {
        return Ok(true);
    }
    let Ok(format) = dataset.getattr("format") else {
        return Ok(false);
    };
    let format = format.get_type().name()?.to_string();
    Ok(matches!(
        format.as_str(),
        "ParquetFileFormat" | "IpcFileFormat" | "FeatherFileFormat"
    ))
}

/// `test` on the column expression `column` (a pyarrow `field` or a polars `col`):
/// both libraries spell comparisons with Python's operators and IS NULL as
/// `is_null`, and differ in IN and IS NOT NULL.
fn condition<'py>(
    library: Library,
    column: &Bound<'py, PyAny>,
    test: &SourceTest,
    values: &ToPython<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    match test {
        SourceTest::Compare(op, v) => {
            let method = match op {
                CompareOp::Eq => "__eq__",
                CompareOp::NotEq => "__ne__",
                CompareOp::Lt => "__lt__",
                CompareOp::LtEq => "__le__",
                CompareOp::Gt => "__gt__",
                CompareOp::GtEq => "__ge__",
            };
            column.call_method1(method, (values.value(v)?,))
        }
        SourceTest::In(list) => {
            let items = list
                .iter()
                .map(|v| values.value(v))
                .collect::<PyResult<Vec<_>>>()?;
            let method = match library {
                Library::Pyarrow => "isin",
                Library::Polars => "is_in",
            };
            column.call_method1(method, (PyList::new(column.py(), items)?,))
        }
        SourceTest::IsNull => column.call_method0("is_null"),
        SourceTest::IsNotNull => {
            let method = match library {
                Library::Pyarrow => "is_valid",
                Library::Polars => "is_not_null",
            };
            column.call_method0(method)
        }
    }
}

impl ExternalSource for LazySource {
    fn kind(&self) -> String {
        match self.library {
            Library::Pyarrow => "pyarrow Dataset".into(),
            Library::Polars => "polars LazyFrame".into(),
        }
    }

    fn estimated_rows(&self) -> Option<usize> {
        self.rows
    }

    fn accepts(&self, filter: &SourceFilter) -> bool {
        let (Some(domain), Some(ty)) = (
            self.domains.get(filter.column),
            self.types.get(filter.column),
        ) else {
            return false;
        };
        match &filter.test {
            SourceTest::IsNull | SourceTest::IsNotNull => true,
            SourceTest::Compare(_, v) => constant_fits(v, ty, *domain),
            SourceTest::In(list) => {
                !list.is_empty() && list.iter().all(|v| constant_fits(v, ty, *domain))
            }
        }
    }

    fn read(&self, columns: &[usize], filters: &[SourceFilter]) -> Result<Vec<DataChunk>> {
        let failed = |e: PyErr| Error::invalid_input(format!("reading the {}: {e}", self.kind()));
        let (reader, drop_first) = Python::attach(|py| -> PyResult<_> {
            let stream = self.scan(py, columns, filters)?;
            Ok((stream_reader(&stream)?, self.reads_first_instead(columns)))
        })
        .map_err(failed)?;
        let read_types: Vec<DataType> = if drop_first {
            self.types.iter().take(1).cloned().collect()
        } else {
            columns.iter().map(|&c| self.types[c].clone()).collect()
        };
        let chunks = read_chunks(reader, &read_types, &format!("the {}", self.kind()))?;
        Ok(match drop_first {
            true => chunks
                .into_iter()
                .map(|c| DataChunk::new(Vec::new(), c.len()))
                .collect(),
            false => chunks,
        })
    }
}
