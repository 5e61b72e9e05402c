//! Databases and connections. A [`Database`] owns its databases (the one it was
//! opened with and those ATTACHed, `databases.rs`), the buffer pool and the switch that
//! turns file access off for good (`enable_external_access`); each [`Connection`]
//! has its own settings and current database (`USE`) and runs one statement at a
//! time, with `$n` parameters bound as values. Planning runs on a thread with a large
//! stack so deeply nested SQL is bounded by explicit limits, not by the caller's stack.
//!
//! A statement whose CSV read found a detected column type too narrow is planned and
//! run again (the reader's note says so; the result carries it).
//!
//! What a connection keeps between statements besides its settings (registered
//! relations, TEMP macros, prepared statements, session variables) is in
//! `connection/session.rs`. Which database a statement reads and changes, and the write lock it takes, are in
//! `connection/access.rs`. Transactions (`connection/transaction.rs`): outside BEGIN
//! ... COMMIT each statement commits by itself, and a query reads its own fork of every
//! database's catalog, one snapshot. BEGIN gives the connection a [`Transaction`]:
//! copies of the catalogs (row groups are shared, so a copy costs a list of pointers
//! per table) that its statements read and change, so they see one snapshot and others
//! see nothing until COMMIT. COMMIT fails on a row (or a dropped or altered table)
//! another commit changed since BEGIN, first committer wins, then logs its changes
//! as one WAL record and applies them. ROLLBACK drops the copies. After a failed
//! statement the transaction can only be rolled back.
//!
//! A database opened from a file has a [`DatabaseFile`]: each changing statement takes
//! its writer, checks what it will do, logs it to the WAL (synced), and only then
//! applies it to the catalog. Inserts of a row group or more write their row groups
//! into the file's blocks and log only where they are (`connection/writes.rs`: DELETE,
//! UPDATE, INSERT and the rows on their way into a table). INSERT ... ON CONFLICT is
//! in `connection/upsert.rs`.

mod access;
mod ids;
mod objects;
mod session;
mod transaction;
mod upsert;
mod writes;

use access::{checkpoint_if_due, log};

pub(crate) use ids::IdCounters;
use transaction::Transaction;
use writes::{returning_result, Load};

use crate::databases::{Databases, Store};
use crate::result::QueryResult;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use stride_common::memory::{MemoryAccountant, MemoryTag};
use stride_common::Vector;
use stride_common::{DataChunk, DataType, Error, Result, ScalarValue, Settings};
use stride_exec::{planner, QueryContext, TableStatistics};
use stride_io::csv::CsvReader;
use stride_sql::binder::{Benchmark, Binder, BoundStatement};
use stride_sql::plan::RegisteredRelation;
use stride_storage::bulk_load::Piece;
use stride_storage::catalogs::local_id;
use stride_storage::fs::{FileSystem, OsFileSystem};
use stride_storage::{BufferPool, Catalog, Catalogs, DatabaseFile, Recovery, WalEntry};

/// Times a statement is re-run because a CSV column type was widened.
const MAX_RERUNS: usize = 16;
/// `describe` binds parameters it has no values for as NULL, up to this many.
const MAX_PARAMS_DESCRIBED: usize = 64;
/// In-memory tables are kept compressed once they hold more than this fraction
/// (1/n) of `memory_limit` (`Connection::account_tables`).
const COMPRESS_TABLES_PAST: u64 = 4;

/// A statement's result columns (names and types) and its parameters' inferred types.
pub type DescribedStatement = (Vec<(String, DataType)>, Vec<Option<DataType>>);

#[derive(Clone)]
pub struct Database {
    /// The database opened first, and those ATTACHed.
    databases: Arc<Databases>,
    /// What opening found in the WAL.
    recovery: Recovery,
    /// Cleared for good by `SET enable_external_access = false` on any connection.
    external_access: Arc<AtomicBool>,
    /// The buffer pool (the database file's; an idle one in memory), whose limit is
    /// `memory_limit` for every connection.
    pool: Arc<BufferPool>,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database")
            .field("path", &self.path().unwrap_or(":memory:".into()))
            .finish()
    }
}

impl Database {
    pub fn open_in_memory() -> Result<Database> {
        let main = Store::new(0, "memory".into(), Arc::new(Catalog::new()), None);
        Ok(Database {
            databases: Arc::new(Databases::new(main)),
            recovery: Recovery::default(),
            external_access: Arc::new(AtomicBool::new(true)),
            pool: BufferPool::new(&MemoryAccountant::new(
                stride_common::settings::default_memory_limit(),
            )),
        })
    }

    /// Opens the database file at `path`, creating it when missing; an empty path or
    /// `:memory:` gives an in-memory database.
    pub fn open(path: &str) -> Result<Database> {
        Self::open_with(path, false, &OsFileSystem)
    }

    /// Opens an existing database file for reading only: other processes may read it
    /// too, and every change fails.
    pub fn open_read_only(path: &str) -> Result<Database> {
        Self::open_with(path, true, &OsFileSystem)
    }

    /// Opens a database file through `fs` (tests pass one that injects faults). An
    /// in-memory database cannot be opened read-only (it would stay empty), as in
    /// DuckDB.
    pub fn open_with(path: &str, read_only: bool, fs: &dyn FileSystem) -> Result<Database> {
        if path.is_empty() || path == ":memory:" {
            if read_only {
                return Err(Error::invalid_input(
                    "Cannot launch in-memory database in read-only mode! Give a database file to open read-only",
                ));
            }
            return Self::open_in_memory();
        }
        let memory = MemoryAccountant::new(stride_common::settings::default_memory_limit());
        let (file, catalog, recovery) = DatabaseFile::open(fs, path, read_only, &memory)?;
        // Named as DuckDB names it: the file's name without its extension.
        let name = Some(stride_sql::catalog::file_database_name(path))
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "memory".to_string());
        let pool = file.pool.clone();
        let main = Store::new(0, name, catalog, Some(file));
        Ok(Database {
            databases: Arc::new(Databases::new(main)),
            pool,
            recovery,
            external_access: Arc::new(AtomicBool::new(true)),
        })
    }

    /// What opening found in the WAL: commits replayed, and bytes of a damaged tail
    /// cut off (a crash in the middle of a commit, which was never acknowledged).
    pub fn recovery(&self) -> &Recovery {
        &self.recovery
    }

    /// The database file's path; `None` in memory.
    pub fn path(&self) -> Option<String> {
        self.databases.main().file.as_ref().map(|f| f.path.clone())
    }

    /// The memory accountant of this database and those attached to it: what
    /// `memory_limit` bounds, and what has been spilled.
    pub fn memory(&self) -> &Arc<MemoryAccountant> {
        self.pool.accountant()
    }

    pub fn connect(&self) -> Result<Connection> {
        Ok(Connection {
            bound_readers: Mutex::new(Vec::new()),
            transaction: Arc::new(Mutex::new(None)),
            progress: ProgressHandle::default(),
            databases: self.databases.clone(),
            temp: Arc::new(Store::temp()),
            current: Mutex::new(0),
            external_access: self.external_access.clone(),
            pool: self.pool.clone(),
            settings: Mutex::new(Settings::default()),
            interrupt: InterruptHandle::default(),
            client_streams: AtomicBool::new(false),
            registered: Mutex::new(Arc::default()),
            prepared: Mutex::new(Arc::default()),
            temp_macros: Mutex::new(Arc::default()),
            variables: Mutex::new(Arc::default()),
            id: self.databases.ids.next_connection(),
            statements: std::sync::atomic::AtomicU64::new(0),
        })
    }
}

/// Reads how far the statement running on a connection has got, from another thread
/// (the shell's progress bar).
#[derive(Clone, Default)]
pub struct ProgressHandle {
    current: Arc<Mutex<Option<Arc<stride_exec::Progress>>>>,
}

impl ProgressHandle {
    /// Fraction of the current statement's known work that is done.
    pub fn fraction(&self) -> Option<f64> {
        self.current.lock().ok()?.as_ref()?.fraction()
    }

    fn track(&self, p: Arc<stride_exec::Progress>) {
        if let Ok(mut c) = self.current.lock() {
            *c = Some(p);
        }
    }
}

/// Cancels the statement running on a connection, from another thread (Ctrl-C).
#[derive(Clone, Default)]
pub struct InterruptHandle {
    current: Arc<Mutex<Option<Arc<AtomicBool>>>>,
}

impl InterruptHandle {
    pub fn interrupt(&self) {
        if let Ok(c) = self.current.lock() {
            if let Some(flag) = c.as_ref() {
                flag.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }

    /// Whether the running statement was interrupted.
    fn is_set(&self) -> bool {
        self.current.lock().is_ok_and(|c| {
            c.as_ref()
                .is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
        })
    }

    fn arm(&self) -> Arc<AtomicBool> {
        let flag = Arc::new(AtomicBool::new(false));
        if let Ok(mut c) = self.current.lock() {
            *c = Some(flag.clone());
        }
        flag
    }
}

pub struct Connection {
    /// The CSV readers the current statement bound (to see whether one widened a
    /// column, which re-runs the statement).
    bound_readers: Mutex<Vec<Arc<CsvReader>>>,
    /// The open transaction (BEGIN ... COMMIT), if any.
    transaction: Arc<Mutex<Option<Transaction>>>,
    progress: ProgressHandle,
    /// Every database this connection can read (shared with the other connections).
    databases: Arc<Databases>,
    /// This connection's own in-memory database `temp`, of its TEMP tables and views:
    /// searched first for unqualified names, gone when the connection closes.
    temp: Arc<Store>,
    /// The slot of the database unqualified names refer to (`USE`).
    current: Mutex<u64>,
    external_access: Arc<AtomicBool>,
    pool: Arc<BufferPool>,
    /// Whether COPY may use STDIN / STDOUT (a client sends and receives the data).
    pub(crate) client_streams: AtomicBool,
    settings: Mutex<Settings>,
    interrupt: InterruptHandle,
    /// Relations registered by name on this connection (`register`), found before
    /// tables and views; replaced whole on each change, so a statement binds
    /// against one snapshot.
    registered: Mutex<Arc<HashMap<String, Arc<RegisteredRelation>>>>,
    /// Statements prepared with PREPARE, by lower-case name, run by EXECUTE; replaced
    /// whole on each change, like `registered`.
    prepared: Mutex<Arc<stride_sql::binder::PreparedStatements>>,
    /// TEMP macros (CREATE TEMP MACRO), by lower-case name: they live as long as the
    /// connection and are never written to the database file.
    temp_macros: Mutex<Arc<stride_sql::binder::TempMacros>>,
    /// Session variables (SET VARIABLE), by lower-case name: this connection's only,
    /// replaced whole on each change like `registered`.
    variables: Mutex<Arc<stride_sql::binder::SessionVariables>>,
    /// This connection's number among the database's (`current_connection_id()`).
    id: u64,
    /// Statements planned so far (`current_query_id()` is the running one's number).
    statements: std::sync::atomic::AtomicU64,
}

/// What planning produced: either a finished statement or a query to stream.
enum Planned {
    Done(QueryResult),
    Query {
        names: Vec<String>,
        plan: stride_exec::PhysicalPlan,
        /// COPY … TO STDOUT: the rows' format.
        copy_out: Option<crate::copy::CsvWriteOptions>,
        /// Outside a transaction, the snapshot of the tables the query reads.
        snapshot: Option<Arc<Catalogs>>,
    },
}

impl Connection {
    /// Runs every statement in `sql` and returns the result of the last one.
    pub fn execute(&self, sql: &str) -> Result<QueryResult> {
        let statements = crate::split_statements(sql);
        if statements.is_empty() {
            return Err(Error::invalid_input("no statement to execute"));
        }
        let mut last = None;
        for s in &statements {
            let r = self.execute_one(s)?;
            last = Some(r);
        }
        Ok(last.expect("at least one statement"))
    }

    /// Alias of [`Connection::execute`], reading better for SELECT.
    pub fn query(&self, sql: &str) -> Result<QueryResult> {
        self.execute(sql)
    }

    pub fn interrupt_handle(&self) -> InterruptHandle {
        self.interrupt.clone()
    }

    /// Limits this connection's file access (read_csv, COPY) to `dirs` (none when
    /// empty). SQL cannot lift the limit; the server sets it for network clients.
    pub fn restrict_file_access(&self, dirs: Vec<std::path::PathBuf>) -> Result<()> {
        self.change_settings(|s| {
            s.allowed_directories = Some(dirs);
            Ok(())
        })
    }

    /// `SET name = 'value'` for this connection (the server applies a client's
    /// startup options, `-c statement_timeout=5s`, this way).
    pub fn set_option(&self, name: &str, value: &str) -> Result<()> {
        self.apply_setting(name, &ScalarValue::Varchar(value.to_string()))
    }

    /// `SET name = value`; a time zone is resolved here (stride-common knows no zone
    /// rules), an unknown one an error naming it.
    fn apply_setting(&self, name: &str, value: &ScalarValue) -> Result<()> {
        if Settings::is_time_zone(name) {
            let zone = match value {
                ScalarValue::Varchar(z) => stride_functions::timezone::lookup(z)?,
                other => stride_functions::timezone::lookup(&other.to_string())?,
            };
            return self.change_settings(|s| {
                s.set_time_zone(zone);
                Ok(())
            });
        }
        self.change_settings(|s| s.set(name, value))
    }

    /// The current database's name in qualified table names: `memory`, the file's
    /// name without its extension (`my` for `my.stride`), as DuckDB names them, or
    /// the name a database was attached as.
    pub fn database_name(&self) -> String {
        self.current()
            .map_or_else(|_| "memory".to_string(), |s| s.name.clone())
    }

    pub fn progress_handle(&self) -> ProgressHandle {
        self.progress.clone()
    }

    pub fn settings(&self) -> Settings {
        let mut s = self.settings.lock().map(|s| s.clone()).unwrap_or_default();
        s.enable_external_access &= self.external_access.load(Ordering::Relaxed);
        s.memory_limit = self.pool.limit();
        if let Some(f) = &self.databases.main().file {
            s.checkpoint_threshold = f.checkpoint_threshold.load(Ordering::Relaxed);
            // Spill files go beside the database file by default, as DuckDB's do.
            if s.temp_directory.is_none() {
                s.temp_directory = Some(format!("{}.tmp", f.path));
            }
        }
        s
    }

    /// The database's buffer pool (for tests and tools that watch its use).
    pub fn buffer_pool(&self) -> &Arc<BufferPool> {
        &self.pool
    }

    /// Applies `change` to this connection's settings; switching file access off
    /// switches it off for the whole database.
    fn change_settings(&self, change: impl FnOnce(&mut Settings) -> Result<()>) -> Result<()> {
        let mut s = self
            .settings
            .lock()
            .map_err(|_| Error::internal("settings lock"))?;
        s.enable_external_access &= self.external_access.load(Ordering::Relaxed);
        s.memory_limit = self.pool.limit();
        if let Some(f) = &self.databases.main().file {
            s.checkpoint_threshold = f.checkpoint_threshold.load(Ordering::Relaxed);
        }
        change(&mut s)?;
        if !s.enable_external_access {
            self.external_access.store(false, Ordering::Relaxed);
        }
        for store in self.databases.all() {
            if let Some(f) = &store.file {
                f.checkpoint_threshold
                    .store(s.checkpoint_threshold, Ordering::Relaxed);
            }
        }
        // One accountant for every database: each attached file's cache counts in it.
        if s.memory_limit != self.pool.limit() {
            self.pool.set_limit(s.memory_limit);
        }
        Ok(())
    }

    pub fn table_names(&self) -> Vec<String> {
        self.catalog().table_names()
    }

    /// The CREATE TABLE statement of a table, for `.schema`.
    pub fn table_sql(&self, name: &str) -> Option<String> {
        let t = self.catalog().table(name)?;
        let mut cols: Vec<String> = t
            .schema
            .columns
            .iter()
            .map(|c| {
                format!(
                    "{} {}{}",
                    c.name,
                    c.ty,
                    if c.not_null { " NOT NULL" } else { "" }
                )
            })
            .collect();
        cols.extend(t.schema.checks.iter().map(|c| match &c.name {
            Some(name) => format!("CONSTRAINT {name} CHECK ({})", c.expr),
            None => format!("CHECK ({})", c.expr),
        }));
        Some(format!(
            "CREATE TABLE {}({});",
            t.schema.name,
            cols.join(", ")
        ))
    }

    /// Runs one statement (the text may hold exactly one).
    ///
    /// When this statement's read of a CSV file showed that a detected column type
    /// was too narrow (see `stride_io::csv::learned`), the statement is planned and
    /// run again with the wider type, as long as no row has reached the caller yet;
    /// the result's notes say what was widened.
    pub fn execute_one(&self, sql: &str) -> Result<QueryResult> {
        self.execute_with_params(sql, &[])
    }

    /// Runs one statement whose `$1`, `$2`, ... take `params` (as values: they are
    /// never spliced into the text).
    pub fn execute_with_params(&self, sql: &str, params: &[ScalarValue]) -> Result<QueryResult> {
        self.end_idle_transaction()?;
        let result = self.execute_rerunning(sql, params);
        self.mark_transaction_idle();
        result
    }

    fn execute_rerunning(&self, sql: &str, params: &[ScalarValue]) -> Result<QueryResult> {
        let mut notes = Vec::new();
        loop {
            if let Ok(mut readers) = self.bound_readers.lock() {
                readers.clear();
            }
            let result = self.attempt(sql, params);
            // Re-run only when this statement's own CSV read widened a column.
            let widened: Vec<String> = self
                .bound_readers
                .lock()
                .map(|rs| rs.iter().filter_map(|r| r.widened_note()).collect())
                .unwrap_or_default();
            match result {
                Err(_) if !widened.is_empty() && notes.len() < MAX_RERUNS => {
                    notes.extend(widened);
                }
                Ok(mut r) => {
                    r.notes.extend(notes);
                    return Ok(r);
                }
                Err(e) => {
                    self.fail_transaction(&e);
                    return Err(e);
                }
            }
        }
    }

    /// The result columns (names and types) a statement would produce, without running
    /// it; empty for statements without rows. Parameters without values read as NULL.
    pub fn describe(&self, sql: &str, params: &[ScalarValue]) -> Result<Vec<(String, DataType)>> {
        Ok(self.describe_with_parameters(sql, params)?.0)
    }

    /// Like [`Connection::describe`], with the types of the statement's `$n`
    /// parameters as the binder infers them from their context (None where nothing
    /// decides one; see `stride_sql::binder` parameters).
    pub fn describe_with_parameters(
        &self,
        sql: &str,
        params: &[ScalarValue],
    ) -> Result<DescribedStatement> {
        let stmts = stride_sql::parser::parse(sql)?;
        let [stmt] = stmts.as_slice() else {
            return Ok((Vec::new(), Vec::new()));
        };
        let settings = self.settings();
        let mut all = params.to_vec();
        all.resize(all.len().max(MAX_PARAMS_DESCRIBED), ScalarValue::Null);
        let mut binder = self.binder(&settings, all, self.new_context())?;
        let bound = binder.bind_statement(stmt)?;
        let parameters = binder.parameter_types().to_vec();
        let columns = match bound {
            BoundStatement::Query(plan) => plan
                .schema()
                .iter()
                .map(|f| (f.name.clone(), f.ty.clone()))
                .collect(),
            BoundStatement::Explain { .. } => vec![("physical_plan".into(), DataType::Varchar)],
            BoundStatement::Insert {
                returning: Some(r), ..
            }
            | BoundStatement::Update {
                returning: Some(r), ..
            }
            | BoundStatement::Delete {
                returning: Some(r), ..
            } => r
                .schema
                .iter()
                .map(|f| (f.name.clone(), f.ty.clone()))
                .collect(),
            _ => Vec::new(),
        };
        Ok((columns, parameters))
    }

    /// Recounts what in-memory tables hold after a statement that may have changed
    /// them: it counts against memory_limit from now on. Once they pass
    /// 1/[`COMPRESS_TABLES_PAST`] of the limit, their row groups are kept compressed
    /// (decoded copies live in the buffer pool, which drops them under pressure), as a
    /// database file's are, and so are the row groups every later statement adds
    /// while any of those tables is left; smaller databases stay decoded, the fastest
    /// to scan.
    fn account_tables(&self) -> Result<()> {
        let accountant = self.pool.accountant();
        let mut bytes = self.databases.memory_bytes();
        if (self.databases.compressing() || bytes > accountant.limit() / COMPRESS_TABLES_PAST)
            && self.databases.compress_tables(&self.pool)? > 0
        {
            bytes = self.databases.memory_bytes();
        }
        accountant.set(MemoryTag::InMemoryTables, bytes);
        Ok(())
    }

    fn attempt(&self, sql: &str, params: &[ScalarValue]) -> Result<QueryResult> {
        // values a streamed query took from sequences reach the log before anything
        // this statement stores
        self.log_sequences()?;
        let ctx = self.new_context();
        let planned = self.plan_on_big_stack(sql, params, &ctx);
        // and those this statement took, before the next one stores anything
        self.log_sequences()?;
        match planned? {
            Planned::Done(r) => {
                self.account_tables()?;
                Ok(r)
            }
            Planned::Query {
                names,
                plan,
                copy_out,
                snapshot,
            } => {
                // Subqueries planned while the query runs read its snapshot too.
                let ctx = match snapshot {
                    Some(s) => Arc::new(ctx.with_catalog(s)),
                    None => ctx,
                };
                let readers = self
                    .bound_readers
                    .lock()
                    .map(|r| r.clone())
                    .unwrap_or_default();
                if let (Some(format), None) = (ctx.settings.enable_profiling, &copy_out) {
                    let mut r = self.run_profiled(names, &plan, &ctx, format)?;
                    r.readers = readers;
                    return Ok(r);
                }
                let mut stream = stride_exec::execute_stream(plan, ctx)?;
                // A scan of CSV with detected types may find them too narrow before
                // the first rows: wait for those rows so the statement can be re-run.
                let first = if readers.iter().any(|r| r.detected.iter().any(|&d| d)) {
                    match stream.next() {
                        Some(Err(e)) => return Err(e),
                        other => other.map(|c| c.expect("errors returned above")),
                    }
                } else {
                    None
                };
                let mut r = QueryResult::stream(names, stream, first);
                r.readers = readers;
                r.copy_out = copy_out;
                r.on_error = self.fail_on_stream_error();
                Ok(r)
            }
        }
    }

    /// A query under `SET enable_profiling`: run to the end with every operator
    /// counted, as EXPLAIN ANALYZE runs it; the profile goes to `profiling_output`
    /// when that is set (the file is replaced), otherwise with the result, for the
    /// client to show.
    fn run_profiled(
        &self,
        names: Vec<String>,
        plan: &stride_exec::PhysicalPlan,
        ctx: &QueryContext,
        format: stride_common::settings::ProfilingFormat,
    ) -> Result<QueryResult> {
        use stride_common::settings::ProfilingFormat;
        let run = stride_exec::executor::run_profiled(plan, ctx)?;
        let text = match format {
            ProfilingFormat::NoOutput => None,
            f => Some(run.render(plan, f == ProfilingFormat::Json)),
        };
        let mut result = QueryResult::chunks(names, plan.types(), run.chunks);
        match (text, &ctx.settings.profiling_output) {
            (Some(text), Some(path)) => std::fs::write(path, text + "\n").map_err(|e| {
                Error::io(format!(
                    "could not write the profile to \"{path}\" (profiling_output): {e}"
                ))
            })?,
            (text, _) => result.profile = text,
        }
        Ok(result)
    }

    /// A context for one statement, cancellable through the interrupt handle.
    pub(crate) fn new_context(&self) -> Arc<QueryContext> {
        let cancel = self.interrupt.arm();
        let settings = self.settings();
        // the statement's threads (this one and every worker it starts) use its zone
        stride_common::zone::enter(Some(settings.time_zone.clone()));
        let mut ctx = QueryContext::new(Arc::new(self.catalogs()), settings, cancel)
            .with_memory(self.pool.accountant().clone());
        // In a transaction, now() is when it began (as in DuckDB and PostgreSQL).
        if let Some(started) = self
            .transaction
            .lock()
            .ok()
            .and_then(|t| t.as_ref().map(|t| t.started))
        {
            ctx = ctx.with_clock(started);
        }
        let ctx = Arc::new(ctx);
        self.progress.track(ctx.progress.clone());
        ctx
    }

    fn plan_on_big_stack(
        &self,
        sql: &str,
        params: &[ScalarValue],
        ctx: &Arc<QueryContext>,
    ) -> Result<Planned> {
        stride_common::workers::on_worker("the planner", || self.plan_statement(sql, params, ctx))
    }

    /// Optimizes and plans a query; `copy_out` is set for COPY … TO STDOUT.
    fn plan_query(
        &self,
        plan: stride_sql::plan::LogicalPlan,
        settings: &Settings,
        copy_out: Option<crate::copy::CsvWriteOptions>,
    ) -> Result<Planned> {
        let names = plan.schema().iter().map(|f| f.name.clone()).collect();
        let catalog = self.catalogs();
        let optimized =
            stride_sql::optimizer::optimize(plan, settings, &TableStatistics(&catalog))?;
        // Outside a transaction, the query still reads one snapshot of every table
        // (taken as BEGIN takes one), so a commit of several tables is seen whole or
        // not at all. Statistics come from the catalog itself, where counts are kept.
        let snapshot = if self.in_transaction() {
            None
        } else {
            Some(Arc::new(catalog.fork()?))
        };
        Ok(Planned::Query {
            names,
            plan: planner::plan(&optimized, snapshot.as_deref().unwrap_or(&catalog))?,
            copy_out,
            snapshot,
        })
    }

    /// A binder over this session's catalogs, relations, macros and variables.
    fn binder<'s>(
        &self,
        settings: &'s Settings,
        params: Vec<ScalarValue>,
        ctx: Arc<QueryContext>,
    ) -> Result<Binder<'s>> {
        Ok(Binder::new(Arc::new(self.catalog_view()?), settings)
            .with_params(params)
            .with_registered(self.registered())
            .with_prepared(self.prepared())
            .with_temp_macros(self.temp_macros())
            .with_variables(self.variables())
            .with_runner(Arc::new(BindRunner {
                catalogs: self.catalogs(),
                ctx,
            })))
    }

    fn plan_statement(
        &self,
        sql: &str,
        params: &[ScalarValue],
        ctx: &Arc<QueryContext>,
    ) -> Result<Planned> {
        let settings = ctx.settings.clone();
        let ids = self.statement_ids();
        let binder = || -> Result<Binder> {
            Ok(self
                .binder(&settings, params.to_vec(), ctx.clone())?
                .with_query_text(sql)
                .with_session_ids(ids))
        };
        // INSERT ... VALUES of plain literals skips the parser; any error is reported
        // by the general path.
        if let Some(insert) = stride_sql::literal_insert::parse(sql).filter(|_| params.is_empty()) {
            let mut binder = binder()?;
            if let Ok(bound) = binder.bind_literal_insert(&insert) {
                let store = self.store_named(binder.written_database())?;
                drop(binder);
                return self.run_bound(bound, &store, &settings, ctx);
            }
        }
        let stmts = stride_sql::parser::parse(sql)?;
        let stmt = match stmts.as_slice() {
            [s] => s,
            [] => return Err(Error::invalid_input("no statement to execute")),
            _ => return Err(Error::invalid_input("execute_one takes a single statement")),
        };
        let mut binder = binder()?;
        let bound = binder.bind_statement(stmt)?;
        let store = self.store_named(binder.written_database())?;
        drop(binder);
        if let Ok(mut readers) = self.bound_readers.lock() {
            readers.extend(bound_csv_readers(&bound));
        }
        self.run_bound(bound, &store, &settings, ctx)
    }

    fn set_transaction(&self, t: Option<Transaction>) -> Result<()> {
        *self
            .transaction
            .lock()
            .map_err(|_| Error::internal("transaction lock"))? = t;
        Ok(())
    }

    /// For a result streamed inside a transaction: what marks that transaction failed
    /// when the rows end in an error (division by zero in the tenth chunk), as an
    /// error the statement itself returned does, so that COMMIT cannot keep the
    /// transaction's earlier changes.
    fn fail_on_stream_error(&self) -> Option<crate::result::OnError> {
        let id = self.transaction.lock().ok()?.as_ref()?.id;
        let cell = self.transaction.clone();
        Some(Arc::new(move |e: &Error| {
            if let Ok(mut t) = cell.lock() {
                if let Some(t) = t.as_mut().filter(|t| t.id == id) {
                    t.failed.get_or_insert_with(|| e.to_string());
                }
            }
        }))
    }

    /// Marks the open transaction failed: it can only be rolled back now.
    fn fail_transaction(&self, e: &Error) {
        if let Ok(mut t) = self.transaction.lock() {
            if let Some(t) = t.as_mut() {
                t.failed.get_or_insert_with(|| e.to_string());
            }
        }
    }

    /// Carries out a bound statement, changing `store` (the database it names, or the
    /// current one); a query is planned and returned to be streamed.
    fn run_bound(
        &self,
        bound: BoundStatement,
        store: &Arc<Store>,
        settings: &Settings,
        ctx: &Arc<QueryContext>,
    ) -> Result<Planned> {
        if !matches!(bound, BoundStatement::Transaction(_)) {
            if let Some(why) = self
                .transaction
                .lock()
                .ok()
                .and_then(|t| t.as_ref().and_then(|t| t.failed.clone()))
            {
                return Err(Error::new(
                    stride_common::ErrorKind::Transaction,
                    format!("Current transaction is aborted (please ROLLBACK): {why}"),
                ));
            }
        }
        match bound {
            BoundStatement::Transaction(op) => {
                self.transaction_op(op)?;
                Ok(Planned::Done(QueryResult::done(None)))
            }
            BoundStatement::Query(plan) => self.plan_query(plan, settings, None),
            BoundStatement::CopyToStdout { plan, options } => {
                self.check_client_streams("TO STDOUT")?;
                self.plan_query(plan, settings, Some(options))
            }
            BoundStatement::CopyFromStdin(copy) => {
                self.check_client_streams("FROM STDIN")?;
                let mut r = QueryResult::done(None);
                r.copy_in = Some(Box::new(copy));
                Ok(Planned::Done(r))
            }
            BoundStatement::Explain {
                plan,
                analyze,
                json,
            } => {
                let catalogs = self.catalogs();
                let optimized =
                    stride_sql::optimizer::optimize(plan, settings, &TableStatistics(&catalogs))?;
                // The physical plan, with each operator's estimated rows; run (on a
                // snapshot, as a query) for ANALYZE.
                let catalogs = if self.in_transaction() {
                    catalogs
                } else {
                    catalogs.fork()?
                };
                let physical = planner::plan(&optimized, &catalogs)?;
                let text = if analyze {
                    let ctx = ctx.with_catalog(Arc::new(catalogs));
                    stride_exec::executor::analyze(&physical, &ctx, json)?
                } else if json {
                    stride_exec::explain::json(&physical, None, None)
                } else {
                    stride_exec::explain::text(&physical, None, None)
                };
                // One row per plan line, so every output mode shows the tree as is.
                let mut v = stride_common::Vector::empty(&stride_common::DataType::Varchar);
                for line in text.lines() {
                    v.push(&stride_common::ScalarValue::Varchar(line.to_string()))?;
                }
                let n = v.data_len();
                Ok(Planned::Done(QueryResult::chunks(
                    vec!["physical_plan".into()],
                    vec![stride_common::DataType::Varchar],
                    vec![DataChunk::new(vec![v], n)],
                )))
            }
            BoundStatement::CreateTable {
                schema,
                if_not_exists,
                or_replace,
                source,
            } => {
                if self.catalog_of(store).table(&schema.name).is_some() && if_not_exists {
                    return Ok(Planned::Done(QueryResult::done(
                        source.is_some().then_some(0),
                    )));
                }
                let rows = match &source {
                    Some(plan) => Some(self.materialize_pieces(store, false, plan, ctx)?),
                    None => None,
                };
                let mut writer = self.writer(store)?;
                self.catalog_of(store)
                    .check_new_table(&schema.name, or_replace)?;
                let mut entries = vec![WalEntry::CreateTable {
                    schema: schema.clone(),
                    replace: or_replace,
                }];
                let name = schema.name.clone();
                let types = schema.types();
                let load = match rows {
                    Some(parts) => Some(Load::new(&mut writer, &name, &types, parts)?),
                    None => None,
                };
                entries.extend(load.as_ref().map(Load::entry));
                log(&mut writer, &entries)?;
                let notes = source.as_ref().map(rejected_notes).unwrap_or_default();
                // A transaction's snapshot sees the new table with its rows or not at all.
                let catalog = self.catalog_of(store);
                let n = catalog.atomically(|| {
                    let table = catalog.create_table(schema, or_replace)?;
                    Ok(match load {
                        Some(l) => l.apply(&table)? as u64,
                        None => 0,
                    })
                })?;
                checkpoint_if_due(&mut writer);
                let mut r = QueryResult::done(source.map(|_| n));
                r.notes = notes;
                Ok(Planned::Done(r))
            }
            b @ (BoundStatement::DropTable { .. }
            | BoundStatement::CreateView { .. }
            | BoundStatement::DropView { .. }
            | BoundStatement::CreateMacro { .. }
            | BoundStatement::DropMacro { .. }
            | BoundStatement::CreateSequence { .. }
            | BoundStatement::DropSequence { .. }
            | BoundStatement::CreateType { .. }
            | BoundStatement::DropType { .. }
            | BoundStatement::CreateIndex { .. }
            | BoundStatement::DropIndex { .. }) => self.run_object_ddl(b, store),
            BoundStatement::Insert {
                table_id,
                table,
                source,
                returning,
                on_conflict,
            } => {
                let t = self
                    .catalog_of(store)
                    .table_by_id(local_id(table_id))
                    .ok_or_else(|| {
                        Error::catalog(format!("Table with name {table} does not exist!"))
                    })?;
                let (n, images) = match (&on_conflict, &returning) {
                    (None, None) => {
                        let unique = t.has_unique_keys();
                        let pieces = self.materialize_pieces(store, unique, &source, ctx)?;
                        (self.insert(store, &t, pieces)?, None)
                    }
                    (Some(on), _) => {
                        let parts = self.materialize(&source, ctx)?;
                        self.upsert(store, &t, parts, on, returning.is_some(), ctx)?
                    }
                    (None, Some(_)) => {
                        let parts = self.materialize(&source, ctx)?;
                        let images = Some(parts.clone());
                        let pieces = parts.into_iter().map(|(c, n)| Piece::Rows(c, n));
                        (self.insert(store, &t, pieces.collect())?, images)
                    }
                };
                let mut r = match (returning, images) {
                    (Some(ret), Some(images)) => returning_result(&ret, &images, ctx)?,
                    _ => QueryResult::done(None),
                };
                r.changes = Some(n as u64);
                r.notes = rejected_notes(&source);
                Ok(Planned::Done(r))
            }
            BoundStatement::Generate {
                benchmark,
                scale_factor,
            } => {
                if self.in_transaction() {
                    return Err(Error::not_supported(
                        "CALL dbgen and dsdgen inside a transaction are not supported; COMMIT or ROLLBACK first",
                    ));
                }
                let mut writer = self.writer(store)?;
                let before = store.catalog.table_names();
                // A database file checkpoints after each table: its rows then move to
                // the buffer pool, which keeps what fits under memory_limit.
                // (A crash in the middle leaves the tables checkpointed so far.) In
                // memory, large tables are compressed as their rows come.
                let generated = {
                    let mut after = |table_done: bool| match writer.file.as_mut() {
                        Some(w) if table_done => w.checkpoint(),
                        Some(_) => Ok(()),
                        None => self.account_tables(),
                    };
                    let generate = match benchmark {
                        Benchmark::Tpch => stride_tpch::dbgen,
                        Benchmark::Tpcds => stride_tpch::dsdgen,
                    };
                    generate(&store.catalog, scale_factor, settings.threads, &mut after)
                };
                if let Err(e) = generated {
                    // dbgen dropped the tables it made; the file forgets them too.
                    if let Some(w) = writer.file.as_mut() {
                        let _ = w.checkpoint();
                    }
                    return Err(e);
                }
                // The generated tables reach the file by a checkpoint, not the WAL; if
                // that fails they must not stay (later commits would name them).
                if let Some(w) = writer.file.as_mut() {
                    if let Err(e) = w.checkpoint() {
                        for t in store.catalog.table_names() {
                            if !before.contains(&t) {
                                let _ = store.catalog.drop_table(&t);
                            }
                        }
                        return Err(e);
                    }
                }
                Ok(Planned::Done(QueryResult::done(None)))
            }
            BoundStatement::AlterTable { table, change } => {
                let Some(mut change) = change else {
                    return Ok(Planned::Done(QueryResult::done(None)));
                };
                let mut writer = self.writer(store)?;
                let catalog = self.catalog_of(store);
                let t = catalog.table(&table).ok_or_else(|| {
                    Error::catalog(format!("Table with name {table} does not exist!"))
                })?;
                // ADD COLUMN ... DEFAULT random() / now() / nextval(...): each existing
                // row would take its own value, which the change cannot carry yet;
                // refused rather than leaving the rows NULL.
                if let stride_common::TableAlteration::AddColumn(col) = &change {
                    if col.default_expr.is_some() && t.snapshot().iter().any(|g| g.len > 0) {
                        return Err(Error::not_supported(format!(
                            "ALTER TABLE \"{table}\" ADD COLUMN \"{}\" with a DEFAULT that is not a constant ({}) is not supported yet on a table with rows; add the column without it, fill it with UPDATE, then SET DEFAULT",
                            col.name,
                            col.default_expr.as_deref().unwrap_or_default()
                        )));
                    }
                }
                // ALTER COLUMN ... TYPE: the values converted here, row group by row
                // group (a value that does not convert fails the statement).
                if let stride_common::TableAlteration::SetType { column, ty, values } = &mut change
                {
                    let c = t.schema.column_index(column).ok_or_else(|| {
                        Error::binder(format!(
                            "Table \"{table}\" does not have a column with name \"{column}\""
                        ))
                    })?;
                    for g in t.snapshot() {
                        let v = g.vector(c)?;
                        values.push(
                            stride_functions::cast_vector(&v, g.len, ty, false)?.flatten(g.len),
                        );
                    }
                }
                let mut altered = t.altered(&change)?;
                if let stride_common::TableAlteration::RenameTable(new) = &change {
                    catalog.check_new_table(new, false)?;
                }
                // A new type keeps the column's constant DEFAULT, converted (a value
                // that does not convert fails the statement): a second change, so that
                // the log replays both.
                let mut changes = vec![change];
                if let stride_common::TableAlteration::SetType { column, ty, .. } = &changes[0] {
                    let c = t.schema.column_index(column);
                    let old = c.and_then(|c| t.schema.columns[c].default.clone());
                    if let Some(old) = old.filter(|d| d.data_type() != *ty && !d.is_null()) {
                        let from = old.data_type();
                        let default = stride_functions::cast_typed_scalar(&old, &from, ty, false)?;
                        let keep = stride_common::TableAlteration::SetDefault {
                            column: column.clone(),
                            default: Some(default),
                        };
                        altered = altered.altered(&keep)?;
                        changes.push(keep);
                    }
                }
                let entries: Vec<WalEntry> = changes
                    .into_iter()
                    .map(|change| WalEntry::AlterTable {
                        table: t.schema.name.clone(),
                        change,
                    })
                    .collect();
                log(&mut writer, &entries)?;
                catalog.replace_table(&t.schema.name, altered)?;
                checkpoint_if_due(&mut writer);
                Ok(Planned::Done(QueryResult::done(None)))
            }
            BoundStatement::Delete {
                table_id,
                table,
                plan,
                returning,
            } => {
                let r =
                    self.modify(store, table_id, &table, &[], &plan, returning.as_ref(), ctx)?;
                Ok(Planned::Done(r))
            }
            BoundStatement::Update {
                table_id,
                table,
                columns,
                plan,
                returning,
            } => {
                let r = self.modify(
                    store,
                    table_id,
                    &table,
                    &columns,
                    &plan,
                    returning.as_ref(),
                    ctx,
                )?;
                Ok(Planned::Done(r))
            }
            BoundStatement::Checkpoint { vacuum } => {
                if self.in_transaction() {
                    return Err(Error::new(
                        stride_common::ErrorKind::Transaction,
                        "cannot CHECKPOINT or VACUUM inside a transaction; COMMIT or ROLLBACK first",
                    ));
                }
                if let Some(w) = self.writer(store)?.file.as_mut() {
                    if vacuum {
                        w.vacuum()?;
                    } else {
                        w.checkpoint()?;
                    }
                }
                Ok(Planned::Done(QueryResult::done(None)))
            }
            BoundStatement::DatabaseSize => {
                use stride_common::settings::format_bytes;
                let (total, used, wal) = store.file.as_ref().map_or((0, 0, 0), |f| f.usage());
                let block = stride_storage::block_file::BLOCK_SIZE as u64;
                let text = |s: String| ScalarValue::Varchar(s);
                let int = |n: u64| ScalarValue::BigInt(n as i64);
                let row = [
                    ("database_name", text(store.name.clone())),
                    ("database_size", text(format_bytes(total * block))),
                    ("block_size", int(block)),
                    ("total_blocks", int(total)),
                    ("used_blocks", int(used as u64)),
                    ("free_blocks", int(total.saturating_sub(used as u64))),
                    ("wal_size", text(format_bytes(wal))),
                    // Everything memory_limit bounds, as DuckDB's buffer manager reports.
                    (
                        "memory_usage",
                        text(format_bytes(self.pool.accountant().used())),
                    ),
                    ("memory_limit", text(format_bytes(self.pool.limit()))),
                ];
                let mut columns = Vec::new();
                for (_, v) in &row {
                    let mut c = Vector::with_capacity(&v.data_type(), 1);
                    c.push(v)?;
                    columns.push(c);
                }
                Ok(Planned::Done(QueryResult::chunks(
                    row.iter().map(|(n, _)| n.to_string()).collect(),
                    row.iter().map(|(_, v)| v.data_type()).collect(),
                    vec![DataChunk::new(columns, 1)],
                )))
            }
            BoundStatement::BenchmarkQuery { benchmark, number } => {
                let (sql, name, count) = match benchmark {
                    Benchmark::Tpch => (
                        stride_tpch::query(number),
                        "TPC-H",
                        stride_tpch::QUERY_COUNT,
                    ),
                    Benchmark::Tpcds => (
                        stride_tpch::tpcds_query(number),
                        "TPC-DS",
                        stride_tpch::TPCDS_QUERY_COUNT,
                    ),
                };
                let sql = sql.ok_or_else(|| {
                    Error::invalid_input(format!(
                        "there is no {name} query {number}; the queries are numbered 1 to {count}"
                    ))
                })?;
                self.plan_statement(sql.trim().trim_end_matches(';'), &[], ctx)
            }
            BoundStatement::Attach {
                path,
                name,
                read_only,
                if_not_exists,
            } => {
                self.outside_transaction("ATTACH")?;
                let recovery = self.databases.attach(
                    &OsFileSystem,
                    &path,
                    &name,
                    read_only,
                    if_not_exists,
                    &self.pool,
                )?;
                let mut done = QueryResult::done(None);
                done.notes.extend(recovery.and_then(|r| r.warning(&path)));
                Ok(Planned::Done(done))
            }
            BoundStatement::Detach { name, if_exists } => {
                self.outside_transaction("DETACH")?;
                if self.current()?.name.eq_ignore_ascii_case(&name) {
                    return Err(Error::binder(format!(
                        "Cannot detach database \"{name}\": it is the current database; USE another first"
                    )));
                }
                self.databases.detach(&name, if_exists)?;
                Ok(Planned::Done(QueryResult::done(None)))
            }
            BoundStatement::Prepare { name, statement } => {
                self.change_prepared(|p| {
                    p.insert(name, statement);
                })?;
                Ok(Planned::Done(QueryResult::done(None)))
            }
            BoundStatement::Deallocate { name } => {
                self.change_prepared(|p| match name {
                    Some(name) => {
                        p.remove(&name);
                    }
                    None => p.clear(),
                })?;
                Ok(Planned::Done(QueryResult::done(None)))
            }
            BoundStatement::Use { database } => {
                let store = self.store_by_name(&database).ok_or_else(|| {
                    Error::catalog(format!("Catalog \"{database}\" does not exist"))
                })?;
                *self
                    .current
                    .lock()
                    .map_err(|_| Error::internal("current database lock"))? = store.slot;
                Ok(Planned::Done(QueryResult::done(None)))
            }
            BoundStatement::Set { name, value } => {
                self.apply_setting(&name, &value)?;
                Ok(Planned::Done(QueryResult::done(None)))
            }
            BoundStatement::Reset { name } => {
                self.change_settings(|s| s.reset(&name))?;
                Ok(Planned::Done(QueryResult::done(None)))
            }
            BoundStatement::SetVariable { name, plan } => {
                let chunks = self.collect(&plan, ctx)?;
                let ty = plan
                    .schema()
                    .first()
                    .map_or(DataType::Null, |f| f.ty.clone());
                let value = chunks
                    .iter()
                    .find(|c| !c.is_empty())
                    .and_then(|c| c.row(0).into_iter().next())
                    .unwrap_or(ScalarValue::Null);
                self.change_variable(name, Some((value, ty)))?;
                Ok(Planned::Done(QueryResult::done(None)))
            }
            BoundStatement::ResetVariable { name } => {
                self.change_variable(name, None)?;
                Ok(Planned::Done(QueryResult::done(None)))
            }
            BoundStatement::CopyTo {
                plan,
                path,
                options,
                columnar,
                partition,
            } => {
                let names: Vec<String> = plan.schema().iter().map(|f| f.name.clone()).collect();
                let types: Vec<DataType> = plan.schema().iter().map(|f| f.ty.clone()).collect();
                if columnar.is_none() && partition.is_none() {
                    // One CSV file: written while the query runs, never held whole.
                    let physical = self.physical(&plan, ctx)?;
                    let mut file =
                        stride_io::csv::writer::CsvFile::create(&path, &names, &options)?;
                    stride_exec::execute_ordered(
                        &physical,
                        ctx,
                        |chunk| {
                            let mut text = Vec::new();
                            stride_io::csv::writer::format_chunk(chunk, &options, &mut text);
                            (text, chunk.len() as u64)
                        },
                        |(text, rows)| file.write(&text, rows),
                    )?;
                    return Ok(Planned::Done(QueryResult::done(Some(file.finish()?))));
                }
                let chunks = self.collect(&plan, ctx)?;
                let threads = settings.threads;
                let write = |path: &str, names: &[String], types: &[DataType], chunks: &[_]| {
                    match &columnar {
                        Some(c) => c.write_file(path, names, types, chunks, threads),
                        None => stride_io::csv::writer::write_file(
                            path, names, chunks, &options, threads,
                        ),
                    }
                };
                let n = match partition {
                    None => write(&path, &names, &types, &chunks)?,
                    Some(p) => stride_io::hive::write_partitioned(
                        &path,
                        &names,
                        &types,
                        &chunks,
                        &p.keys,
                        p.overwrite,
                        columnar.as_ref().map_or("csv", |c| c.format().name()),
                        &write,
                    )?,
                };
                Ok(Planned::Done(QueryResult::done(Some(n))))
            }
        }
    }

    /// Runs a plan into table-ready parts (CREATE TABLE AS, INSERT).
    pub(crate) fn materialize(
        &self,
        plan: &stride_sql::plan::LogicalPlan,
        ctx: &QueryContext,
    ) -> Result<Vec<(Vec<stride_common::Vector>, usize)>> {
        let catalogs = self.catalogs();
        let optimized = stride_sql::optimizer::optimize(
            plan.clone(),
            &ctx.settings,
            &TableStatistics(&catalogs),
        )?;
        let physical = planner::plan(&optimized, &catalogs)?;
        stride_exec::execute_materialize(&physical, ctx)
    }

    fn collect(
        &self,
        plan: &stride_sql::plan::LogicalPlan,
        ctx: &QueryContext,
    ) -> Result<Vec<DataChunk>> {
        stride_exec::execute_collect(&self.physical(plan, ctx)?, ctx)
    }

    /// Optimizes and plans `plan` for running.
    fn physical(
        &self,
        plan: &stride_sql::plan::LogicalPlan,
        ctx: &QueryContext,
    ) -> Result<stride_exec::PhysicalPlan> {
        let catalogs = self.catalogs();
        let optimized = stride_sql::optimizer::optimize(
            plan.clone(),
            &ctx.settings,
            &TableStatistics(&catalogs),
        )?;
        planner::plan(&optimized, &catalogs)
    }
}

/// Runs the queries binding needs the answers of (the values `PIVOT ... ON k` makes
/// columns of), in the statement's context.
struct BindRunner {
    catalogs: stride_storage::Catalogs,
    ctx: Arc<QueryContext>,
}

impl stride_sql::catalog::PlanRunner for BindRunner {
    fn rows(&self, plan: stride_sql::plan::LogicalPlan) -> Result<Vec<Vec<ScalarValue>>> {
        let optimized = stride_sql::optimizer::optimize(
            plan,
            &self.ctx.settings,
            &TableStatistics(&self.catalogs),
        )?;
        let physical = planner::plan(&optimized, &self.catalogs)?;
        let mut rows = Vec::new();
        for chunk in stride_exec::execute_collect(&physical, &self.ctx)? {
            let columns: Vec<Vector> = (0..chunk.columns.len()).map(|c| chunk.column(c)).collect();
            for i in 0..chunk.len() {
                rows.push(columns.iter().map(|c| c.get(i)).collect());
            }
        }
        Ok(rows)
    }
}

/// The CSV readers of a logical plan.
fn logical_csv_readers(plan: &stride_sql::plan::LogicalPlan) -> Vec<Arc<CsvReader>> {
    use stride_sql::plan::{LogicalPlan, TableFunction};
    let mut out = Vec::new();
    let mut stack = vec![plan];
    while let Some(p) = stack.pop() {
        if let LogicalPlan::TableFunction {
            func: TableFunction::ReadCsv { source, .. },
            ..
        } = p
        {
            out.push(source.0.clone());
        }
        stack.extend(p.children());
    }
    out
}

/// The CSV readers a bound statement will read.
fn bound_csv_readers(b: &BoundStatement) -> Vec<Arc<CsvReader>> {
    match b {
        BoundStatement::Query(plan)
        | BoundStatement::Explain { plan, .. }
        | BoundStatement::Insert { source: plan, .. }
        | BoundStatement::CopyTo { plan, .. }
        | BoundStatement::CopyToStdout { plan, .. }
        | BoundStatement::CreateTable {
            source: Some(plan), ..
        } => logical_csv_readers(plan),
        _ => Vec::new(),
    }
}

/// "N rows … skipped" for each CSV read of a logical plan that skipped rows.
fn rejected_notes(plan: &stride_sql::plan::LogicalPlan) -> Vec<String> {
    logical_csv_readers(plan)
        .iter()
        .filter_map(|r| crate::result::rejected_note(r))
        .collect()
}
