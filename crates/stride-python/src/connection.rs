//! `stride.connect()` and the connection it returns: DB-API 2.0 (the connection is
//! its own cursor, as in DuckDB's package), DuckDB's fetch methods (`fetchdf`,
//! `fetch_arrow_table`, `pl`, ...), `sql()` for lazy relations and the relations
//! over files and Python objects (`read_parquet`, `read_csv`, `from_arrow`, ...).
//!
//! Concurrency: a connection is used by one Python thread at a time (DB-API
//! threadsafety 1; `cursor()` gives another thread its own connection to the same
//! database). Its locks are held only for moments and never while waiting for the
//! engine, so a second thread misusing it sees an error, not a deadlock.

use crate::cursor::{run, Pending};
use crate::errors::{
    to_py, CatalogException, ConnectionException, InterfaceError, ProgrammingError,
};
use crate::register::{with_replacement_scans, Found};
use crate::relation::Relation;
use crate::stream::{self, BATCH_ROWS};
use crate::values::{self, ToPython};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::sync::{Arc, Mutex};
use stride::{Connection, Database, QueryResult};
use stride_common::{DataChunk, DataType, ScalarValue, Vector};

#[pyclass(module = "stride", name = "StrideConnection")]
pub struct PyConnection {
    /// The database and this connection to it; `None` once closed, which lets the
    /// database close when no other connection (cursor) holds it.
    conn: Mutex<Option<(Arc<Database>, Arc<Connection>)>>,
    /// The result of the last `execute`, being fetched.
    pending: Mutex<Option<Pending>>,
    /// `description` of the last `execute`: names and types, `None` for statements
    /// without rows.
    columns: Mutex<Option<Vec<(String, DataType)>>>,
    rowcount: Mutex<i64>,
    /// Rows `fetchmany()` returns when not told (PEP 249).
    #[pyo3(get, set)]
    arraysize: usize,
}

impl PyConnection {
    /// A relation reading `SELECT * FROM <function>`, bound now so that a missing
    /// file is reported here.
    fn file_relation(slf: Bound<'_, Self>, function: String) -> PyResult<Relation> {
        let py = slf.py();
        let relation = Relation::query(
            slf.unbind(),
            format!("SELECT * FROM {function}"),
            Vec::new(),
        );
        relation.names_and_types(py)?;
        Ok(relation)
    }

    pub fn open(database: &str, read_only: bool) -> PyResult<Self> {
        let db = if database.is_empty() || database == ":memory:" {
            if read_only {
                return Err(ProgrammingError::new_err(
                    "an in-memory database cannot be opened read-only",
                ));
            }
            Database::open_in_memory()
        } else if read_only {
            Database::open_read_only(database)
        } else {
            Database::open(database)
        }
        .map_err(to_py)?;
        // What recovery found (a torn or damaged log, a restored header) is a Python
        // warning, as the shell prints it.
        if let Some(w) = db.recovery().warning(database) {
            Python::attach(|py| {
                let text = std::ffi::CString::new(w.replace('\0', " ")).unwrap_or_default();
                let category = py.get_type::<pyo3::exceptions::PyRuntimeWarning>();
                PyErr::warn(py, &category, &text, 1)
            })?;
        }
        Self::on(Arc::new(db))
    }

    fn on(db: Arc<Database>) -> PyResult<Self> {
        let conn = db.connect().map_err(to_py)?;
        Ok(PyConnection {
            conn: Mutex::new(Some((db, Arc::new(conn)))),
            pending: Mutex::new(None),
            columns: Mutex::new(None),
            rowcount: Mutex::new(-1),
            arraysize: 1,
        })
    }

    /// The engine connection, or an error once closed.
    pub fn live(&self) -> PyResult<Arc<Connection>> {
        Ok(self.open_database()?.1)
    }

    /// The session's time zone (`SET TimeZone`), which TIMESTAMPTZ results are shown in.
    pub fn zone(&self) -> PyResult<stride_common::zone::SessionZone> {
        Ok(self.live()?.settings().time_zone)
    }

    fn open_database(&self) -> PyResult<(Arc<Database>, Arc<Connection>)> {
        self.conn
            .lock()
            .ok()
            .and_then(|c| c.clone())
            .ok_or_else(|| ConnectionException::new_err("Connection already closed"))
    }

    /// Runs `sql` (several statements, or one with parameters) and returns the last
    /// statement's result; statements without rows but with a count of changed rows
    /// give one row with that count, as in DuckDB.
    ///
    /// A single statement naming a table that does not exist reads a Python
    /// variable of that name holding a DataFrame or Arrow data, if there is one
    /// (see `register.rs`).
    pub fn run(
        &self,
        py: Python<'_>,
        sql: &str,
        params: Vec<ScalarValue>,
    ) -> PyResult<QueryResult> {
        self.run_with(py, sql, params, &mut Vec::new())
    }

    /// [`PyConnection::run`] with the Python objects a relation found before.
    pub fn run_with(
        &self,
        py: Python<'_>,
        sql: &str,
        params: Vec<ScalarValue>,
        found: &mut Found,
    ) -> PyResult<QueryResult> {
        let conn = self.live()?;
        let interrupt = conn.interrupt_handle();
        let once = || {
            let (conn, params, sql) = (conn.clone(), params.clone(), sql.to_string());
            run(py, &interrupt, move || execute_text(&conn, &sql, &params))
        };
        let result = with_replacement_scans(py, &conn, sql, found, once);
        // This thread builds the result's Arrow schema (whose TIMESTAMPTZ columns name
        // the session's zone): it takes the zone the statements left, as the engine's
        // own threads do.
        stride_common::zone::enter(Some(conn.settings().time_zone));
        let mut result = result?;
        print_profile(py, result.profile.take())?;
        Ok(result)
    }

    fn take_pending(&self) -> PyResult<Pending> {
        self.pending
            .lock()
            .ok()
            .and_then(|mut p| p.take())
            .ok_or_else(|| InterfaceError::new_err("no open result set: call execute() first"))
    }

    fn put_pending(&self, p: Pending) {
        if let Ok(mut slot) = self.pending.lock() {
            *slot = Some(p);
        }
    }

    fn fetch(&self, py: Python<'_>, n: Option<usize>) -> PyResult<Vec<Vec<ScalarValue>>> {
        let pending = self.take_pending()?;
        let interrupt = self.live()?.interrupt_handle();
        let (pending, rows) = crate::cursor::fetch(py, &interrupt, pending, n)?;
        self.put_pending(pending);
        rows.map_err(to_py)
    }
}

/// A query's profile under `SET enable_profiling` with no `profiling_output` file:
/// printed, as DuckDB's module prints it.
fn print_profile(py: Python<'_>, profile: Option<String>) -> PyResult<()> {
    if let Some(text) = profile {
        py.import("builtins")?.getattr("print")?.call1((text,))?;
    }
    Ok(())
}

/// Runs the statements of `sql`, binding `params` when there is exactly one.
fn execute_text(
    conn: &Connection,
    sql: &str,
    params: &[ScalarValue],
) -> stride_common::Result<QueryResult> {
    if params.is_empty() {
        return conn.execute(sql);
    }
    let statements = stride::split_statements(sql);
    match statements.as_slice() {
        [one] => conn.execute_with_params(one, params),
        _ => Err(stride_common::Error::invalid_input(format!(
            "parameters can only be bound to one statement, and the text holds {}",
            statements.len()
        ))),
    }
}

/// A statement's result as something to fetch from: query rows as they are, a count
/// of changed rows as one `Count` row.
fn fetchable(result: QueryResult) -> (Pending, Option<Vec<(String, DataType)>>, i64) {
    if result.is_query() {
        let columns = result
            .names
            .iter()
            .cloned()
            .zip(result.types.iter().cloned())
            .collect();
        return (Pending::new(result), Some(columns), -1);
    }
    match result.changes {
        Some(n) => {
            let count = Vector::from_values(DataType::BigInt, vec![n as i64]);
            let chunk = DataChunk::new(vec![count], 1);
            let names = vec!["Count".to_string()];
            let rows = QueryResult::chunks(names.clone(), vec![DataType::BigInt], vec![chunk]);
            (
                Pending::new(rows),
                Some(vec![(names[0].clone(), DataType::BigInt)]),
                n as i64,
            )
        }
        None => (Pending::new(result), None, -1),
    }
}

#[pymethods]
impl PyConnection {
    /// Runs a statement (or several, without parameters) and keeps its result for
    /// the fetch methods. Returns the connection, so calls chain as in DuckDB.
    #[pyo3(signature = (query, parameters=None))]
    fn execute<'py>(
        slf: Bound<'py, Self>,
        query: &str,
        parameters: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, Self>> {
        let this = slf.borrow();
        let params = values::parameters(parameters.as_ref())?;
        // A new statement ends the previous result.
        drop(this.pending.lock().ok().and_then(|mut p| p.take()));
        let conn = this.live()?;
        let interrupt = conn.interrupt_handle();
        // One wait for the statement and its first chunk.
        let once = || {
            let (conn, params, query) = (conn.clone(), params.clone(), query.to_string());
            run(slf.py(), &interrupt, move || {
                let mut result = execute_text(&conn, &query, &params)?;
                let profile = result.profile.take();
                let (mut pending, columns, rowcount) = fetchable(result);
                pending.prefetch()?;
                Ok((pending, columns, rowcount, profile))
            })
        };
        let ran = with_replacement_scans(slf.py(), &conn, query, &mut Vec::new(), once);
        // the zone the statements left, for the result's Arrow schema (see run_with)
        stride_common::zone::enter(Some(conn.settings().time_zone));
        let (pending, columns, rowcount, profile) = ran?;
        print_profile(slf.py(), profile)?;
        this.put_pending(pending);
        *this.columns.lock().expect("columns lock") = columns;
        *this.rowcount.lock().expect("rowcount lock") = rowcount;
        drop(this);
        Ok(slf)
    }

    /// Runs one statement once per parameter set; `rowcount` is the total changed.
    fn executemany<'py>(
        slf: Bound<'py, Self>,
        query: &str,
        parameters: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        let mut total = 0i64;
        let mut counted = false;
        for set in parameters.try_iter()? {
            let set = set?;
            let s = Self::execute(slf.clone(), query, Some(set))?;
            let n = *s.borrow().rowcount.lock().expect("rowcount lock");
            if n >= 0 {
                total += n;
                counted = true;
            }
        }
        *slf.borrow().rowcount.lock().expect("rowcount lock") = if counted { total } else { -1 };
        Ok(slf)
    }

    fn fetchone<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let rows = self.fetch(py, Some(1))?;
        let to = ToPython::new(py, self.zone()?)?;
        rows.first().map(|r| to.row(r)).transpose()
    }

    #[pyo3(signature = (size=None))]
    fn fetchmany<'py>(&self, py: Python<'py>, size: Option<usize>) -> PyResult<Bound<'py, PyList>> {
        let rows = self.fetch(py, Some(size.unwrap_or(self.arraysize)))?;
        rows_to_list(py, &rows, self.zone()?)
    }

    fn fetchall<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let rows = self.fetch(py, None)?;
        rows_to_list(py, &rows, self.zone()?)
    }

    /// The rest of the result as a pyarrow Table.
    #[pyo3(signature = (rows_per_batch=BATCH_ROWS))]
    fn fetch_arrow_table<'py>(
        &self,
        py: Python<'py>,
        rows_per_batch: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let pending = self.take_pending()?;
        stream::arrow_table(
            py,
            &self.live()?.interrupt_handle(),
            pending,
            rows_per_batch,
        )
    }

    #[pyo3(signature = (rows_per_batch=BATCH_ROWS))]
    fn arrow<'py>(&self, py: Python<'py>, rows_per_batch: usize) -> PyResult<Bound<'py, PyAny>> {
        self.fetch_arrow_table(py, rows_per_batch)
    }

    /// The rest of the result as a pyarrow RecordBatchReader, computed as it is read.
    #[pyo3(signature = (rows_per_batch=BATCH_ROWS))]
    fn fetch_record_batch<'py>(
        &self,
        py: Python<'py>,
        rows_per_batch: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        stream::batch_reader(py, self.take_pending()?, rows_per_batch)
    }

    /// The rest of the result as a pandas DataFrame.
    fn fetchdf<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        stream::pandas_frame(&self.fetch_arrow_table(py, BATCH_ROWS)?)
    }

    fn df<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.fetchdf(py)
    }

    fn fetch_df<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.fetchdf(py)
    }

    /// The rest of the result as a dict of NumPy arrays by column.
    fn fetchnumpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        stream::numpy_dict(&self.fetch_arrow_table(py, BATCH_ROWS)?)
    }

    /// The rest of the result as a polars DataFrame.
    fn pl<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let pending = self.take_pending()?;
        stream::polars_frame(py, &self.live()?.interrupt_handle(), pending)
    }

    /// PEP 249: a 7-item sequence per result column (name, type, then five unknowns),
    /// or None after a statement without rows.
    #[getter]
    fn description<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        let columns = self.columns.lock().expect("columns lock").clone();
        columns
            .map(|cols| {
                let items = cols
                    .iter()
                    .map(|(name, ty)| {
                        let none = py.None();
                        PyTuple::new(
                            py,
                            [
                                name.into_pyobject(py)?.into_any().unbind(),
                                ty.to_string().into_pyobject(py)?.into_any().unbind(),
                                none.clone_ref(py),
                                none.clone_ref(py),
                                none.clone_ref(py),
                                none.clone_ref(py),
                                none,
                            ],
                        )
                    })
                    .collect::<PyResult<Vec<_>>>()?;
                PyList::new(py, items)
            })
            .transpose()
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE; -1 otherwise (PEP 249).
    #[getter]
    fn rowcount(&self) -> i64 {
        *self.rowcount.lock().expect("rowcount lock")
    }

    /// A lazy relation for a query: it runs when its rows are asked for. Other
    /// statements (DDL, INSERT, ...) run at once; those returning rows give a
    /// relation over the rows they returned, the others None.
    #[pyo3(signature = (query, params=None))]
    fn sql<'py>(
        slf: Bound<'py, Self>,
        query: &str,
        params: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Option<Relation>> {
        let params = values::parameters(params.as_ref())?;
        let statements = stride::split_statements(query);
        let Some((last, before)) = statements.split_last() else {
            return Err(ProgrammingError::new_err("no statement to run"));
        };
        if !before.is_empty() && !params.is_empty() {
            return Err(ProgrammingError::new_err(
                "parameters can only be bound to one statement",
            ));
        }
        let this = slf.borrow();
        for s in before {
            this.run(slf.py(), s, Vec::new())?;
        }
        if crate::relation::is_query(last) {
            let relation = Relation::query(slf.clone().unbind(), last.clone(), params);
            // Bound now, so that a mistake is reported here, as DuckDB does.
            relation.names_and_types(slf.py())?;
            return Ok(Some(relation));
        }
        let result = this.run(slf.py(), last, params)?;
        if !result.is_query() {
            return Ok(None);
        }
        let interrupt = this.live()?.interrupt_handle();
        let (names, types) = (result.names.clone(), result.types.clone());
        let mut pending = Pending::new(result);
        let chunks = run(slf.py(), &interrupt, move || {
            let mut all = Vec::new();
            while let Some(c) = pending.next_chunk() {
                all.push(c?);
            }
            Ok(all)
        })?;
        Ok(Some(Relation::rows(
            slf.clone().unbind(),
            names,
            types,
            chunks,
        )))
    }

    #[pyo3(signature = (query, params=None))]
    fn query<'py>(
        slf: Bound<'py, Self>,
        query: &str,
        params: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Option<Relation>> {
        Self::sql(slf, query, params)
    }

    /// A relation reading a whole table or view.
    fn table(slf: Bound<'_, Self>, name: &str) -> PyResult<Relation> {
        let sql = format!("SELECT * FROM {}", quote_name(name));
        Ok(Relation::query(slf.unbind(), sql, Vec::new()))
    }

    fn view(slf: Bound<'_, Self>, view_name: &str) -> PyResult<Relation> {
        Self::table(slf, view_name)
    }

    /// A relation over Parquet files (a path, a glob or a list of them).
    fn read_parquet(slf: Bound<'_, Self>, file_glob: Bound<'_, PyAny>) -> PyResult<Relation> {
        let paths = path_list(&file_glob)?;
        Self::file_relation(slf, format!("read_parquet({paths})"))
    }

    fn from_parquet(slf: Bound<'_, Self>, file_glob: Bound<'_, PyAny>) -> PyResult<Relation> {
        Self::read_parquet(slf, file_glob)
    }

    /// A relation over CSV files, their dialect and types detected.
    fn read_csv(slf: Bound<'_, Self>, path_or_buffer: Bound<'_, PyAny>) -> PyResult<Relation> {
        let paths = path_list(&path_or_buffer)?;
        Self::file_relation(slf, format!("read_csv({paths})"))
    }

    fn from_csv_auto(slf: Bound<'_, Self>, path_or_buffer: Bound<'_, PyAny>) -> PyResult<Relation> {
        Self::read_csv(slf, path_or_buffer)
    }

    /// A relation over a DataFrame, a pyarrow Table or anything with
    /// `__arrow_c_stream__`, read now (in place) and kept by the relation.
    fn from_arrow(slf: Bound<'_, Self>, arrow_object: Bound<'_, PyAny>) -> PyResult<Relation> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = format!("__stride_python_object_{n}");
        let data = crate::register::relation_of(&arrow_object)?;
        let relation = Relation::query(
            slf.unbind(),
            format!("SELECT * FROM {}", quote_name(&name)),
            Vec::new(),
        );
        relation.keep(vec![(name, data)]);
        Ok(relation)
    }

    fn from_df(slf: Bound<'_, Self>, df: Bound<'_, PyAny>) -> PyResult<Relation> {
        Self::from_arrow(slf, df)
    }

    /// Makes a DataFrame (pandas, polars), a pyarrow Table or anything with
    /// `__arrow_c_stream__` queryable as `view_name` on this connection. Its memory
    /// is read in place: changes made inside its arrays show, columns added or
    /// replaced later do not until it is registered again.
    fn register<'py>(
        slf: Bound<'py, Self>,
        view_name: &str,
        python_object: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        let conn = slf.borrow().live()?;
        crate::register::register(&conn, view_name, &python_object)?;
        Ok(slf)
    }

    /// Removes a name `register` made.
    fn unregister<'py>(slf: Bound<'py, Self>, view_name: &str) -> PyResult<Bound<'py, Self>> {
        if !slf.borrow().live()?.unregister(view_name) {
            return Err(CatalogException::new_err(format!(
                "Catalog Error: no relation is registered as {view_name}"
            )));
        }
        Ok(slf)
    }

    fn begin<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, Self>> {
        slf.borrow()
            .run(slf.py(), "BEGIN TRANSACTION", Vec::new())?;
        Ok(slf)
    }

    /// Commits the open transaction; without one there is nothing to do (each
    /// statement outside BEGIN commits by itself).
    fn commit<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, Self>> {
        if slf.borrow().live()?.in_transaction() {
            slf.borrow().run(slf.py(), "COMMIT", Vec::new())?;
        }
        Ok(slf)
    }

    fn rollback<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, Self>> {
        if slf.borrow().live()?.in_transaction() {
            slf.borrow().run(slf.py(), "ROLLBACK", Vec::new())?;
        }
        Ok(slf)
    }

    /// A new connection to the same database, for use by another thread.
    fn cursor(&self) -> PyResult<PyConnection> {
        Self::on(self.open_database()?.0)
    }

    /// Cancels the statement running on this connection, from another thread.
    fn interrupt(&self) -> PyResult<()> {
        self.live()?.interrupt_handle().interrupt();
        Ok(())
    }

    /// Closes the connection; an open transaction is rolled back.
    fn close(&self) {
        drop(self.pending.lock().ok().and_then(|mut p| p.take()));
        let conn = self.conn.lock().ok().and_then(|mut c| c.take());
        if let Some((_, c)) = conn {
            if c.in_transaction() {
                let _ = c.execute("ROLLBACK");
            }
        }
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    #[pyo3(signature = (exc_type=None, exc_value=None, traceback=None))]
    fn __exit__(
        &self,
        exc_type: Option<Bound<'_, PyAny>>,
        exc_value: Option<Bound<'_, PyAny>>,
        traceback: Option<Bound<'_, PyAny>>,
    ) -> bool {
        let _ = (exc_type, exc_value, traceback);
        self.close();
        false
    }

    fn __repr__(&self) -> String {
        match self.open_database() {
            Ok((db, _)) => match db.path() {
                Some(p) => format!("<stride.StrideConnection {p:?}>"),
                None => "<stride.StrideConnection :memory:>".to_string(),
            },
            Err(_) => "<stride.StrideConnection (closed)>".to_string(),
        }
    }
}

pub fn rows_to_list<'py>(
    py: Python<'py>,
    rows: &[Vec<ScalarValue>],
    zone: stride_common::zone::SessionZone,
) -> PyResult<Bound<'py, PyList>> {
    let to = ToPython::new(py, zone)?;
    let items = rows
        .iter()
        .map(|r| to.row(r))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// `name` as a SQL identifier: dotted parts (`schema.table`) each double-quoted.
/// A Python path or list of paths as a SQL string literal or list of them.
fn path_list(paths: &Bound<'_, PyAny>) -> PyResult<String> {
    let quote = |p: String| quote_literal(&p);
    if let Ok(p) = paths.extract::<String>() {
        return Ok(quote(p));
    }
    if let Ok(list) = paths.extract::<Vec<String>>() {
        return Ok(format!(
            "[{}]",
            list.into_iter().map(quote).collect::<Vec<_>>().join(", ")
        ));
    }
    // pathlib paths and other os.PathLike objects.
    let p: String = paths
        .py()
        .import("os")?
        .call_method1("fspath", (paths,))?
        .extract()?;
    Ok(quote(p))
}

/// `text` as a SQL string literal.
pub fn quote_literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// A (dotted) name as quoted identifiers.
pub fn quote_name(name: &str) -> String {
    name.split('.')
        .map(|p| format!("\"{}\"", p.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(".")
}

/// `stride.connect(database=":memory:", read_only=False, config={})`: each config
/// entry is set as with `SET name = value`.
#[pyfunction]
#[pyo3(signature = (database=":memory:", read_only=false, config=None))]
pub fn connect(
    database: &str,
    read_only: bool,
    config: Option<Bound<'_, PyDict>>,
) -> PyResult<PyConnection> {
    let c = PyConnection::open(database, read_only)?;
    if let Some(config) = config {
        let conn = c.live()?;
        for (k, v) in config.iter() {
            let name: String = k.extract()?;
            let value: String = v.str()?.extract()?;
            conn.set_option(&name, &value).map_err(to_py)?;
        }
    }
    Ok(c)
}
