//! Relations, as `con.sql(...)` returns them: a query that runs when its rows are
//! asked for (`.arrow()`, `.df()`, `.pl()`, `.fetchall()`, `.show()`, or any Arrow
//! consumer through `__arrow_c_stream__`), and that builds bigger queries
//! (`.filter()`, `.project()`, `.aggregate()`, `.order()`, `.limit()`) by wrapping
//! its SQL, so the optimizer sees the whole query. A statement that is not a query
//! (`INSERT ... RETURNING`) ran once when the relation was made; its relation holds
//! the rows it returned. A relation keeps the Python objects its query named (see
//! `register::Found`), and writes itself to files (`write_parquet`, `write_csv`)
//! through COPY.

use crate::connection::{quote_literal, quote_name, rows_to_list, PyConnection};
use crate::cursor::{run, Pending};
use crate::errors::{to_py, NotImplementedException};
use crate::register::{with_replacement_scans, Found};
use crate::stream::{self, BATCH_ROWS};
use crate::values::ToPython;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyList, PyTuple};
use std::sync::{Arc, Mutex};
use stride::render::Mode;
use stride::QueryResult;
use stride_common::{DataChunk, DataType, ScalarValue};

enum Source {
    Query {
        sql: String,
        params: Vec<ScalarValue>,
    },
    Rows {
        names: Vec<String>,
        types: Vec<DataType>,
        chunks: Arc<Vec<DataChunk>>,
    },
}

#[pyclass(module = "stride", name = "StrideRelation")]
pub struct Relation {
    conn: Py<PyConnection>,
    source: Source,
    /// The execution `fetchone` / `fetchmany` are reading, so successive calls go on
    /// where the last stopped.
    pending: Mutex<Option<Pending>>,
    /// The Python objects the query named (DataFrames, Arrow data), read when it was
    /// bound and read again by every run (see `register::Found`).
    found: Mutex<Found>,
}

/// Whether a statement only reads (and can therefore run again each time its rows
/// are asked for): its first keyword starts a query.
pub fn is_query(statement: &str) -> bool {
    let mut s = statement.trim_start();
    loop {
        if let Some(rest) = s.strip_prefix("--") {
            s = rest.split_once('\n').map_or("", |(_, r)| r).trim_start();
        } else if let Some(rest) = s.strip_prefix("/*") {
            s = rest.split_once("*/").map_or("", |(_, r)| r).trim_start();
        } else if let Some(rest) = s.strip_prefix('(') {
            s = rest.trim_start();
        } else {
            break;
        }
    }
    let word: String = s
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect::<String>()
        .to_ascii_lowercase();
    matches!(
        word.as_str(),
        "select" | "with" | "values" | "from" | "table"
    )
}

impl Relation {
    pub fn query(conn: Py<PyConnection>, sql: String, params: Vec<ScalarValue>) -> Self {
        Relation {
            conn,
            source: Source::Query { sql, params },
            pending: Mutex::new(None),
            found: Mutex::new(Vec::new()),
        }
    }

    pub fn rows(
        conn: Py<PyConnection>,
        names: Vec<String>,
        types: Vec<DataType>,
        chunks: Vec<DataChunk>,
    ) -> Self {
        Relation {
            conn,
            source: Source::Rows {
                names,
                types,
                chunks: Arc::new(chunks),
            },
            pending: Mutex::new(None),
            found: Mutex::new(Vec::new()),
        }
    }

    fn interrupt(&self, py: Python<'_>) -> PyResult<stride::InterruptHandle> {
        Ok(self.conn.borrow(py).live()?.interrupt_handle())
    }

    /// Runs the relation afresh.
    fn execute(&self, py: Python<'_>) -> PyResult<Pending> {
        match &self.source {
            Source::Query { sql, params } => {
                let mut found = self.found();
                let result = self
                    .conn
                    .borrow(py)
                    .run_with(py, sql, params.clone(), &mut found)?;
                self.set_found(found);
                Ok(Pending::new(result))
            }
            Source::Rows {
                names,
                types,
                chunks,
            } => Ok(Pending::new(QueryResult::chunks(
                names.clone(),
                types.clone(),
                chunks.as_ref().clone(),
            ))),
        }
    }

    /// The execution being read by fetchone/fetchmany, else a fresh one; the caller
    /// reads it to the end.
    /// `COPY (<this relation>) TO 'file' (<options>)`.
    fn copy_to(&self, py: Python<'_>, file: &str, options: &str) -> PyResult<()> {
        let (sql, params) = self.sql_text()?;
        let sql = format!("COPY ({sql}) TO {} ({options})", quote_literal(file));
        let mut found = self.found();
        self.conn
            .borrow(py)
            .run_with(py, &sql, params.to_vec(), &mut found)?;
        Ok(())
    }

    /// Makes the relation read these Python objects under these names.
    pub fn keep(&self, found: Found) {
        self.set_found(found);
    }

    fn found(&self) -> Found {
        self.found.lock().map(|f| f.clone()).unwrap_or_default()
    }

    fn set_found(&self, found: Found) {
        if let Ok(mut f) = self.found.lock() {
            *f = found;
        }
    }

    fn take_or_execute(&self, py: Python<'_>) -> PyResult<Pending> {
        match self.pending.lock().ok().and_then(|mut p| p.take()) {
            Some(p) => Ok(p),
            None => self.execute(py),
        }
    }

    fn fetch(&self, py: Python<'_>, n: Option<usize>) -> PyResult<Vec<Vec<ScalarValue>>> {
        let pending = self.take_or_execute(py)?;
        let interrupt = self.interrupt(py)?;
        let (pending, rows) = crate::cursor::fetch(py, &interrupt, pending, n)?;
        if n.is_some() {
            if let Ok(mut slot) = self.pending.lock() {
                *slot = Some(pending);
            }
        }
        rows.map_err(to_py)
    }

    /// The SQL this relation stands for, to build on.
    fn sql_text(&self) -> PyResult<(&str, &[ScalarValue])> {
        match &self.source {
            Source::Query { sql, params } => Ok((sql, params)),
            Source::Rows { .. } => Err(NotImplementedException::new_err(
                "this relation holds the rows a statement returned and cannot be built on; \
                 store them with .create('name') and query the table",
            )),
        }
    }

    /// A relation over `SELECT <select> FROM (<this>) <rest>`.
    fn wrap(&self, py: Python<'_>, select: &str, rest: &str) -> PyResult<Relation> {
        let (sql, params) = self.sql_text()?;
        let sql = format!("SELECT {select} FROM ({sql}) AS unnamed_relation {rest}");
        let relation = Relation::query(self.conn.clone_ref(py), sql, params.to_vec());
        relation.set_found(self.found());
        Ok(relation)
    }

    pub fn names_and_types(&self, py: Python<'_>) -> PyResult<(Vec<String>, Vec<DataType>)> {
        match &self.source {
            Source::Rows { names, types, .. } => Ok((names.clone(), types.clone())),
            Source::Query { sql, params } => {
                let conn = self.conn.borrow(py).live()?;
                let interrupt = conn.interrupt_handle();
                let mut found = self.found();
                let cols = with_replacement_scans(py, &conn, sql, &mut found, || {
                    let (conn, sql, params) = (conn.clone(), sql.clone(), params.clone());
                    run(py, &interrupt, move || conn.describe(&sql, &params))
                })?;
                self.set_found(found);
                Ok(cols.into_iter().unzip())
            }
        }
    }

    /// The box rendering the shell shows (the first and last rows of a long result).
    fn render(&self, py: Python<'_>) -> PyResult<String> {
        let (names, types) = self.names_and_types(py)?;
        let mut pending = self.execute(py)?;
        let interrupt = self.interrupt(py)?;
        let text = run(py, &interrupt, move || {
            let mut renderer = Mode::Box.renderer(&names, &types);
            let mut out = Vec::new();
            let io = |e: std::io::Error| stride_common::Error::internal(e.to_string());
            renderer.begin(&mut out).map_err(io)?;
            loop {
                let mut rows = Vec::new();
                pending.rows(Some(2048), &mut rows, true)?;
                if rows.is_empty() {
                    break;
                }
                for r in &rows {
                    renderer.row(&mut out, r).map_err(io)?;
                }
            }
            renderer.finish(&mut out).map_err(io)?;
            Ok(String::from_utf8_lossy(&out).into_owned())
        })?;
        Ok(text)
    }
}

#[pymethods]
impl Relation {
    /// The column names.
    #[getter]
    fn columns(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        Ok(self.names_and_types(py)?.0)
    }

    /// The column types, as SQL names (`INTEGER`, `DECIMAL(15,2)`).
    #[getter]
    fn types(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        Ok(self
            .names_and_types(py)?
            .1
            .iter()
            .map(|t| t.to_string())
            .collect())
    }

    #[getter]
    fn dtypes(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        self.types(py)
    }

    /// The rows as a pyarrow Table.
    #[pyo3(signature = (batch_size=BATCH_ROWS))]
    fn arrow<'py>(&self, py: Python<'py>, batch_size: usize) -> PyResult<Bound<'py, PyAny>> {
        let pending = self.take_or_execute(py)?;
        stream::arrow_table(py, &self.interrupt(py)?, pending, batch_size)
    }

    #[pyo3(signature = (batch_size=BATCH_ROWS))]
    fn fetch_arrow_table<'py>(
        &self,
        py: Python<'py>,
        batch_size: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.arrow(py, batch_size)
    }

    #[pyo3(signature = (batch_size=BATCH_ROWS))]
    fn to_arrow_table<'py>(
        &self,
        py: Python<'py>,
        batch_size: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.arrow(py, batch_size)
    }

    /// A pyarrow RecordBatchReader that runs the query as batches are read.
    #[pyo3(signature = (batch_size=BATCH_ROWS))]
    fn fetch_arrow_reader<'py>(
        &self,
        py: Python<'py>,
        batch_size: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let pending = self.take_or_execute(py)?;
        stream::batch_reader(py, pending, batch_size)
    }

    #[pyo3(signature = (batch_size=BATCH_ROWS))]
    fn record_batch<'py>(&self, py: Python<'py>, batch_size: usize) -> PyResult<Bound<'py, PyAny>> {
        self.fetch_arrow_reader(py, batch_size)
    }

    /// The rows as a pandas DataFrame.
    fn df<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        stream::pandas_frame(&self.arrow(py, BATCH_ROWS)?)
    }

    fn to_df<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.df(py)
    }

    fn fetchdf<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.df(py)
    }

    fn fetch_df<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.df(py)
    }

    /// The rows as a dict of NumPy arrays by column.
    fn fetchnumpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::stream::numpy_dict(&self.arrow(py, BATCH_ROWS)?)
    }

    #[pyo3(signature = (batch_size=BATCH_ROWS))]
    fn to_arrow_reader<'py>(
        &self,
        py: Python<'py>,
        batch_size: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.fetch_arrow_reader(py, batch_size)
    }

    #[pyo3(signature = (rows_per_batch=BATCH_ROWS))]
    fn fetch_record_batch<'py>(
        &self,
        py: Python<'py>,
        rows_per_batch: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.fetch_arrow_reader(py, rows_per_batch)
    }

    /// Writes the rows to a Parquet file (`COPY ... TO`), compressed with
    /// `compression` (snappy when not given).
    #[pyo3(signature = (file_name, compression=None))]
    fn write_parquet(
        &self,
        py: Python<'_>,
        file_name: &str,
        compression: Option<&str>,
    ) -> PyResult<()> {
        let mut options = String::from("FORMAT parquet");
        if let Some(c) = compression {
            if !c.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_') {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "unknown Parquet compression {c:?}"
                )));
            }
            options.push_str(&format!(", COMPRESSION {c}"));
        }
        self.copy_to(py, file_name, &options)
    }

    #[pyo3(signature = (file_name, compression=None))]
    fn to_parquet(
        &self,
        py: Python<'_>,
        file_name: &str,
        compression: Option<&str>,
    ) -> PyResult<()> {
        self.write_parquet(py, file_name, compression)
    }

    /// Writes the rows to a CSV file with a header line (as DuckDB's does).
    #[pyo3(signature = (file_name, sep=None, header=true))]
    fn write_csv(
        &self,
        py: Python<'_>,
        file_name: &str,
        sep: Option<&str>,
        header: bool,
    ) -> PyResult<()> {
        let mut options = format!("FORMAT csv, HEADER {header}");
        if let Some(s) = sep {
            options.push_str(&format!(", DELIMITER {}", quote_literal(s)));
        }
        self.copy_to(py, file_name, &options)
    }

    #[pyo3(signature = (file_name, sep=None, header=true))]
    fn to_csv(
        &self,
        py: Python<'_>,
        file_name: &str,
        sep: Option<&str>,
        header: bool,
    ) -> PyResult<()> {
        self.write_csv(py, file_name, sep, header)
    }

    fn to_table(&self, py: Python<'_>, table_name: &str) -> PyResult<()> {
        self.create(py, table_name)
    }

    #[pyo3(signature = (view_name, replace=true))]
    fn to_view(&self, py: Python<'_>, view_name: &str, replace: bool) -> PyResult<()> {
        self.create_view(py, view_name, replace)
    }

    /// The rows as a polars DataFrame.
    fn pl<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let pending = self.take_or_execute(py)?;
        stream::polars_frame(py, &self.interrupt(py)?, pending)
    }

    fn fetchall<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let rows = self.fetch(py, None)?;
        rows_to_list(py, &rows, self.conn.borrow(py).zone()?)
    }

    fn fetchone<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let rows = self.fetch(py, Some(1))?;
        let to = ToPython::new(py, self.conn.borrow(py).zone()?)?;
        rows.first().map(|r| to.row(r)).transpose()
    }

    #[pyo3(signature = (size=1))]
    fn fetchmany<'py>(&self, py: Python<'py>, size: usize) -> PyResult<Bound<'py, PyList>> {
        let rows = self.fetch(py, Some(size))?;
        rows_to_list(py, &rows, self.conn.borrow(py).zone()?)
    }

    /// Prints the rows as the shell's box table.
    fn show(&self, py: Python<'_>) -> PyResult<()> {
        let text = self.render(py)?;
        py.import("builtins")?
            .call_method1("print", (text.trim_end(),))?;
        Ok(())
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        self.render(py)
    }

    fn __str__(&self, py: Python<'_>) -> PyResult<String> {
        self.render(py)
    }

    /// Any Arrow consumer (pyarrow, polars, ...) reads the relation through this.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let pending = self.take_or_execute(py)?;
        stream::capsule(py, Box::new(pending.batches(BATCH_ROWS)))
    }

    /// The SQL text of a lazy relation.
    fn sql_query(&self) -> PyResult<String> {
        Ok(self.sql_text()?.0.to_string())
    }

    /// Rows where `condition` (a SQL expression) holds.
    fn filter(&self, py: Python<'_>, condition: &str) -> PyResult<Relation> {
        self.wrap(py, "*", &format!("WHERE {condition}"))
    }

    /// The SQL expressions given (each a string, or one string with commas).
    #[pyo3(signature = (*expressions))]
    fn project(&self, py: Python<'_>, expressions: Vec<String>) -> PyResult<Relation> {
        self.wrap(py, &expressions.join(", "), "")
    }

    #[pyo3(signature = (*expressions))]
    fn select(&self, py: Python<'_>, expressions: Vec<String>) -> PyResult<Relation> {
        self.project(py, expressions)
    }

    /// Aggregates, grouped by `group_expr` when given.
    #[pyo3(signature = (aggr_expr, group_expr=""))]
    fn aggregate(&self, py: Python<'_>, aggr_expr: &str, group_expr: &str) -> PyResult<Relation> {
        if group_expr.trim().is_empty() {
            self.wrap(py, aggr_expr, "")
        } else {
            self.wrap(py, aggr_expr, &format!("GROUP BY {group_expr}"))
        }
    }

    fn order(&self, py: Python<'_>, order_expr: &str) -> PyResult<Relation> {
        self.wrap(py, "*", &format!("ORDER BY {order_expr}"))
    }

    fn sort(&self, py: Python<'_>, order_expr: &str) -> PyResult<Relation> {
        self.order(py, order_expr)
    }

    #[pyo3(signature = (n, offset=0))]
    fn limit(&self, py: Python<'_>, n: u64, offset: u64) -> PyResult<Relation> {
        self.wrap(py, "*", &format!("LIMIT {n} OFFSET {offset}"))
    }

    fn distinct(&self, py: Python<'_>) -> PyResult<Relation> {
        self.wrap(py, "DISTINCT *", "")
    }

    /// Stores the rows as a new table.
    fn create(&self, py: Python<'_>, table_name: &str) -> PyResult<()> {
        let (sql, params) = self.sql_text()?;
        let sql = format!("CREATE TABLE {} AS {sql}", quote_name(table_name));
        let mut found = self.found();
        self.conn
            .borrow(py)
            .run_with(py, &sql, params.to_vec(), &mut found)?;
        Ok(())
    }

    /// Appends the rows to an existing table.
    fn insert_into(&self, py: Python<'_>, table_name: &str) -> PyResult<()> {
        let (sql, params) = self.sql_text()?;
        let sql = format!("INSERT INTO {} {sql}", quote_name(table_name));
        let mut found = self.found();
        self.conn
            .borrow(py)
            .run_with(py, &sql, params.to_vec(), &mut found)?;
        Ok(())
    }

    /// Makes the relation a view.
    #[pyo3(signature = (view_name, replace=true))]
    fn create_view(&self, py: Python<'_>, view_name: &str, replace: bool) -> PyResult<()> {
        let (sql, params) = self.sql_text()?;
        if !params.is_empty() {
            return Err(NotImplementedException::new_err(
                "a view cannot be made from a query with parameters",
            ));
        }
        let verb = if replace {
            "CREATE OR REPLACE VIEW"
        } else {
            "CREATE VIEW"
        };
        let sql = format!("{verb} {} AS {sql}", quote_name(view_name));
        // The Python objects the query found stay registered on the connection under
        // their names, so the view reads them as the relation does.
        let conn = self.conn.borrow(py);
        let live = conn.live()?;
        for (name, data) in self.found() {
            if !live.is_registered(&name) {
                live.register(&name, data).map_err(to_py)?;
            }
        }
        conn.run(py, &sql, Vec::new())?;
        Ok(())
    }

    /// The number of rows.
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        match &self.source {
            Source::Rows { chunks, .. } => Ok(chunks.iter().map(|c| c.len()).sum()),
            Source::Query { .. } => {
                let rel = self.wrap(py, "count(*)", "")?;
                let rows = rel.fetch(py, None)?;
                Ok(rows
                    .first()
                    .and_then(|r| r.first())
                    .and_then(|v| v.as_i64())
                    .unwrap_or(0) as usize)
            }
        }
    }

    /// (rows, columns).
    #[getter]
    fn shape(&self, py: Python<'_>) -> PyResult<(usize, usize)> {
        Ok((self.__len__(py)?, self.names_and_types(py)?.0.len()))
    }
}
