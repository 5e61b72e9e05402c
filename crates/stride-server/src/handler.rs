//! One client's session: simple and extended queries run on the client's own
//! [`stride::Connection`], on one of stride's worker threads (describing a statement
//! and loading COPY data on tokio's blocking pool). Rows are encoded on that thread as
//! the query yields them and handed to the protocol task through a bounded
//! channel, so results stream and a slow client throttles the query.
//!
//! COMMIT of a transaction a statement failed in rolls it back and answers ROLLBACK,
//! as PostgreSQL does. ReadyForQuery reports the transaction status the connection
//! is in ([`Handler::transaction_status`]): after a COMMIT that failed (a conflict, a
//! duplicate key), which rolls the transaction back, the session is idle.
//!
//! COPY: `COPY … TO STDOUT` streams its rows as CopyData messages the same way, each
//! value spelled as in text results and laid out by the engine's CSV writer (CSV or
//! PostgreSQL's text format). `COPY … FROM STDIN` answers with CopyInResponse; the
//! client's CopyData is collected (up to the server's limit) and, at CopyDone, loaded
//! in one go by the engine, so a failed or aborted COPY adds no rows.

use crate::encode::{data_rows, fields, Cell};
use crate::errors::to_pg;
use crate::params;
use async_trait::async_trait;
use futures::{stream, Sink, SinkExt, StreamExt};
use pgwire::api::cancel::CancelHandler;
use pgwire::api::copy::{send_copy_in_response, send_copy_out_response, CopyHandler};
use pgwire::api::portal::{Format, Portal};
use pgwire::api::query::{
    send_execution_response, send_query_response, send_ready_for_query, ExtendedQueryHandler,
    SimpleQueryHandler,
};
use pgwire::api::results::{
    CopyResponse, DescribePortalResponse, DescribeStatementResponse, FieldInfo, QueryResponse,
    Response, Tag,
};
use pgwire::api::stmt::{NoopQueryParser, StoredStatement};
use pgwire::api::store::PortalStore;
use pgwire::api::{
    ClientInfo, ClientPortalStore, PgWireConnectionState, PgWireServerHandlers, Type,
};
use pgwire::error::{ErrorInfo, PgWireError, PgWireResult};
use pgwire::messages::cancel::CancelRequest;
use pgwire::messages::copy::{CopyData, CopyDone, CopyFail};
use pgwire::messages::data::DataRow;
use pgwire::messages::response::{EmptyQueryResponse, TransactionStatus};
use pgwire::messages::simplequery::Query;
use pgwire::messages::startup::SecretKey;
use pgwire::messages::PgWireBackendMessage;
use pgwire::types::format::FormatOptions;
use pgwire::types::ToSqlText;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use stride::copy::CopyFromStdin;
use stride::{Connection, DataType, InterruptHandle, ScalarValue};
use tokio::io::AsyncWriteExt;

/// COPY messages in flight between the query and the client.
const ROWS_IN_FLIGHT: usize = 64;

/// Chunks of encoded rows (up to 2048 each) in flight between the query and the
/// client: a few, so a result streams without being held in memory.
const CHUNKS_IN_FLIGHT: usize = 4;

/// Running sessions by process id, for CancelRequest (which arrives on a connection
/// of its own, naming the session by process id and secret key).
pub type Sessions = Arc<Mutex<HashMap<i32, (SecretKey, InterruptHandle)>>>;

pub struct Handlers {
    handler: Arc<Handler>,
    startup: Arc<crate::auth::Startup>,
}

impl Handlers {
    pub fn new(
        conn: Connection,
        sessions: Sessions,
        max_copy_bytes: usize,
        startup: Arc<crate::auth::Startup>,
    ) -> Handlers {
        conn.accept_client_streams(true);
        Handlers {
            startup,
            handler: Arc::new(Handler {
                conn: Arc::new(conn),
                parser: Arc::new(NoopQueryParser::new()),
                sessions,
                pid: Mutex::new(None),
                copy: Mutex::new(None),
                max_copy_bytes,
            }),
        }
    }
}

impl Handlers {
    /// The session's handler (queries, COPY, cancel) and the startup handler.
    pub fn parts(&self) -> (Arc<Handler>, Arc<crate::auth::Startup>) {
        (self.handler.clone(), self.startup.clone())
    }
}

impl PgWireServerHandlers for Handlers {
    fn simple_query_handler(&self) -> Arc<impl SimpleQueryHandler> {
        self.handler.clone()
    }

    fn extended_query_handler(&self) -> Arc<impl ExtendedQueryHandler> {
        self.handler.clone()
    }

    fn cancel_handler(&self) -> Arc<impl CancelHandler> {
        self.handler.clone()
    }

    fn copy_handler(&self) -> Arc<impl CopyHandler> {
        self.handler.clone()
    }

    fn startup_handler(&self) -> Arc<impl pgwire::api::auth::StartupHandler> {
        self.startup.clone()
    }
}

/// A COPY FROM STDIN between CopyInResponse and CopyDone.
enum PendingCopy {
    /// The statement and the data received so far.
    Receiving(Box<CopyFromStdin>, Vec<u8>),
    /// The data broke a limit: the rest is discarded and CopyDone reports this error
    /// (as PostgreSQL reports errors during COPY once the client ends it).
    Failed(String),
}

pub struct Handler {
    conn: Arc<Connection>,
    parser: Arc<NoopQueryParser>,
    sessions: Sessions,
    /// This session's process id, once registered in `sessions`.
    pid: Mutex<Option<i32>>,
    /// A COPY FROM STDIN waiting for its data.
    copy: Mutex<Option<PendingCopy>>,
    /// Most bytes one COPY FROM STDIN may send (they are held in memory).
    max_copy_bytes: usize,
}

impl Drop for Handler {
    fn drop(&mut self) {
        if let (Ok(pid), Ok(mut sessions)) = (self.pid.lock(), self.sessions.lock()) {
            if let Some(pid) = *pid {
                sessions.remove(&pid);
            }
        }
    }
}

#[async_trait]
impl CancelHandler for Handler {
    async fn on_cancel_request(&self, request: CancelRequest) {
        if let Ok(sessions) = self.sessions.lock() {
            if let Some((key, handle)) = sessions.get(&request.pid) {
                if key_bytes(key) == key_bytes(&request.secret_key) {
                    handle.interrupt();
                }
            }
        }
    }
}

/// A secret key as bytes: protocol 3.0 sends 4 bytes the server may hold as an i32.
fn key_bytes(k: &SecretKey) -> Vec<u8> {
    match k {
        SecretKey::I32(v) => v.to_be_bytes().to_vec(),
        SecretKey::Bytes(b) => b.to_vec(),
    }
}

/// The settings a client asks for at startup: `application_name` and
/// `statement_timeout` as startup
/// parameter of its own, or in `options` as PostgreSQL's `-c name=value` /
/// `--name=value` (what `PGOPTIONS` sends).
fn startup_settings(metadata: &HashMap<String, String>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for name in ["application_name", "statement_timeout"] {
        if let Some(v) = metadata.get(name) {
            out.push((name.to_string(), v.clone()));
        }
    }
    if let Some(options) = metadata.get("options") {
        let mut words = options.split_whitespace();
        while let Some(w) = words.next() {
            let setting = match w {
                "-c" => words.next(),
                w => w.strip_prefix("--").or_else(|| w.strip_prefix("-c")),
            };
            if let Some((name, value)) = setting.and_then(|s| s.split_once('=')) {
                out.push((name.replace('-', "_"), value.to_string()));
            }
        }
    }
    out
}

impl Handler {
    /// The status ReadyForQuery reports: whether the connection has a transaction
    /// open, and whether a statement of it failed. Taken from the connection rather
    /// than derived from the responses, as a failed COMMIT ends the transaction.
    pub fn transaction_status(&self) -> TransactionStatus {
        if !self.conn.in_transaction() {
            TransactionStatus::Idle
        } else if self.conn.transaction_failed() {
            TransactionStatus::Error
        } else {
            TransactionStatus::Transaction
        }
    }

    /// How long this session's open transaction may still stay idle
    /// (`idle_in_transaction_session_timeout`), if a limit applies.
    pub fn idle_in_transaction_left(&self) -> Option<std::time::Duration> {
        self.conn.idle_in_transaction_left()
    }

    /// Makes this session cancellable by its process id and secret key, and applies
    /// the settings the client sent at startup, before its first statement.
    fn register<C: ClientInfo>(&self, client: &C) -> PgWireResult<()> {
        let Ok(mut pid) = self.pid.lock() else {
            return Ok(());
        };
        if pid.is_some() {
            return Ok(());
        }
        let (id, key) = client.pid_and_secret_key();
        if let Ok(mut sessions) = self.sessions.lock() {
            sessions.insert(id, (key, self.conn.interrupt_handle()));
            *pid = Some(id);
        }
        for (name, value) in startup_settings(client.metadata()) {
            self.conn.set_option(&name, &value).map_err(to_pg)?;
        }
        Ok(())
    }

    /// Runs one statement and turns its result into a protocol response; a query's
    /// profile (`SET enable_profiling`) goes to the client first, as a notice, when
    /// the session's `client_min_messages` lets notices through. The command tag
    /// comes from the statement's leading keywords, comments skipped ([`command`]).
    async fn run<C>(
        &self,
        client: &mut C,
        sql: String,
        params: Vec<ScalarValue>,
        format: Format,
    ) -> PgWireResult<Response>
    where
        C: Sink<PgWireBackendMessage> + Unpin + Send,
        PgWireError: From<C::Error>,
    {
        let conn = self.conn.clone();
        // ROLLBACK TO SAVEPOINT leaves the transaction open.
        let rollback_to = leading_words(&sql, 2) == ["ROLLBACK", "TO"];
        let (tx, mut rx) =
            tokio::sync::mpsc::channel::<PgWireResult<Vec<DataRow>>>(CHUNKS_IN_FLIGHT);
        let (copy_tx, mut copy_rx) =
            tokio::sync::mpsc::channel::<PgWireResult<CopyData>>(ROWS_IN_FLIGHT);
        let (head_tx, head_rx) = tokio::sync::oneshot::channel();
        // On one of stride's worker threads, whose large stack the statement is planned
        // on right there (a blocking thread of tokio's would hand it to a worker and
        // wait).
        let started = stride_common::workers::spawn(move || {
            // COMMIT of a transaction a statement failed in rolls it back and says so
            // (tag ROLLBACK, no error), as PostgreSQL answers it; AND CHAIN still
            // begins the next transaction.
            if command(&sql) == "COMMIT" && conn.transaction_failed() {
                let words = leading_words(&sql, 4);
                let chain = words.ends_with(&["AND".to_string(), "CHAIN".to_string()]);
                let head = conn
                    .execute(if chain {
                        "ROLLBACK AND CHAIN"
                    } else {
                        "ROLLBACK"
                    })
                    .map(|_| Head::Done("ROLLBACK".into(), Tag::new("ROLLBACK"), Vec::new()))
                    .map_err(to_pg);
                let _ = head_tx.send(head);
                return;
            }
            let mut result = match conn.execute_with_params(&sql, &params) {
                Ok(r) => r,
                Err(e) => {
                    let _ = head_tx.send(Err(to_pg(e)));
                    return;
                }
            };
            if let Some(copy) = result.copy_in.take() {
                let _ = head_tx.send(Ok(Head::CopyIn(copy)));
                return;
            }
            if let Some(options) = result.copy_out.take() {
                let _ = head_tx.send(Ok(Head::CopyOut(result.names.len())));
                copy_rows(&mut result, &options, &copy_tx);
                return;
            }
            if !result.is_query() {
                // What the statement wants the user to know (ATTACH of a file whose
                // log was damaged) goes as a WARNING unless client_min_messages = error.
                let warn = conn
                    .settings()
                    .client_parameters
                    .get("client_min_messages")
                    .is_none_or(|l| !l.eq_ignore_ascii_case("error"));
                let notes = if warn { result.notes() } else { Vec::new() };
                let _ = head_tx.send(Ok(Head::Done(
                    command(&sql),
                    tag(&sql, result.changes),
                    notes,
                )));
                return;
            }
            let columns: Vec<(String, DataType)> = result
                .names
                .iter()
                .cloned()
                .zip(result.types.iter().cloned())
                .collect();
            let info = Arc::new(fields(&columns, &format));
            // INSERT / UPDATE / DELETE ... RETURNING end with their own tag.
            // SHOW and EXPLAIN have tags of their own.
            let command = match command(&sql).as_str() {
                "INSERT" if result.changes.is_some() => Some("INSERT 0".to_string()),
                c @ ("SHOW" | "EXPLAIN") => Some(c.to_string()),
                c if result.changes.is_some() => Some(c.to_string()),
                _ => None,
            };
            // Sent as a NOTICE, if the client's client_min_messages lets one through.
            let profile = result
                .profile
                .take()
                .filter(|_| conn.settings().client_notices());
            if head_tx
                .send(Ok(Head::Rows(info.clone(), command, profile)))
                .is_err()
            {
                return;
            }
            while let Some(chunk) = next_or_report(&mut result, &tx) {
                // A chunk's rows travel together: one channel message per chunk.
                let rows = match data_rows(&chunk, &info) {
                    Ok(rows) => rows,
                    Err(e) => {
                        let _ = tx.blocking_send(Err(e));
                        return;
                    }
                };
                if tx.blocking_send(Ok(rows)).is_err() {
                    // The client went away: stop the query.
                    result.cancel();
                    return;
                }
            }
        });
        started.map_err(to_pg)?;
        match head_rx.await.map_err(|_| {
            PgWireError::ApiError("the statement's thread ended unexpectedly".into())
        })?? {
            Head::Done(command, tag, notes) => {
                for note in notes {
                    let warning = ErrorInfo::new("WARNING".into(), "01000".into(), note);
                    client
                        .send(PgWireBackendMessage::NoticeResponse(warning.into()))
                        .await?;
                }
                Ok(match command.as_str() {
                    "BEGIN" => Response::TransactionStart(tag),
                    "ROLLBACK" if rollback_to => Response::Execution(tag),
                    "COMMIT" | "ROLLBACK" => Response::TransactionEnd(tag),
                    _ => Response::Execution(tag),
                })
            }
            Head::Rows(info, command, profile) => {
                if let Some(text) = profile {
                    let notice = ErrorInfo::new("NOTICE".into(), "00000".into(), text);
                    client
                        .send(PgWireBackendMessage::NoticeResponse(notice.into()))
                        .await?;
                }
                let rows = stream::poll_fn(move |cx| rx.poll_recv(cx)).flat_map(|batch| {
                    let rows: Vec<PgWireResult<DataRow>> = match batch {
                        Ok(rows) => rows.into_iter().map(Ok).collect(),
                        Err(e) => vec![Err(e)],
                    };
                    stream::iter(rows)
                });
                let mut response = QueryResponse::new(info, rows);
                if let Some(command) = command {
                    response.set_command_tag(&command);
                }
                Ok(Response::Query(response))
            }
            Head::CopyOut(columns) => {
                let data = stream::poll_fn(move |cx| copy_rx.poll_recv(cx));
                Ok(Response::CopyOut(CopyResponse::new(0, columns, data)))
            }
            Head::CopyIn(copy) => {
                let columns = copy.listed.len();
                *self
                    .copy
                    .lock()
                    .map_err(|_| PgWireError::ApiError("copy state lock".into()))? =
                    Some(PendingCopy::Receiving(copy, Vec::new()));
                Ok(Response::CopyIn(CopyResponse::new(
                    0,
                    columns,
                    stream::empty(),
                )))
            }
        }
    }

    /// Result columns of a statement without running it.
    async fn describe(
        &self,
        sql: String,
        params: Vec<ScalarValue>,
        format: Format,
    ) -> PgWireResult<Vec<FieldInfo>> {
        let conn = self.conn.clone();
        let columns = tokio::task::spawn_blocking(move || conn.describe(&sql, &params))
            .await
            .map_err(|_| PgWireError::ApiError("describe failed".into()))?
            .map_err(to_pg)?;
        Ok(fields(&columns, &format))
    }

    /// Result columns of a statement, and the types the binder infers for its `$n`
    /// parameters where the server can read them in binary (None: no type decided,
    /// or one only read as text).
    async fn described(
        &self,
        sql: String,
    ) -> PgWireResult<(Vec<(String, DataType)>, Vec<Option<Type>>)> {
        let conn = self.conn.clone();
        let (columns, types) =
            tokio::task::spawn_blocking(move || conn.describe_with_parameters(&sql, &[]))
                .await
                .map_err(|_| PgWireError::ApiError("describe failed".into()))?
                .map_err(to_pg)?;
        let types = types
            .iter()
            .map(|t| {
                t.as_ref()
                    .map(crate::encode::pg_type)
                    .filter(params::decodable)
            })
            .collect();
        Ok((columns, types))
    }

    /// The portal's parameter values, reading untyped binary ones with the inferred
    /// types.
    async fn parameters(&self, portal: &Portal<String>) -> PgWireResult<Vec<ScalarValue>> {
        let inferred = if params::needs_inferred_types(portal) {
            self.described(portal.statement.statement.clone()).await?.1
        } else {
            Vec::new()
        };
        params::decode(portal, &inferred).map_err(to_pg)
    }
}

enum Head {
    /// The statement's command (see [`command`]), its tag, and its notes (sent as
    /// warnings).
    Done(String, Tag, Vec<String>),
    /// Rows, the command tag when it is not SELECT's, and the query's profile under
    /// `SET enable_profiling` (sent as a notice).
    Rows(Arc<Vec<FieldInfo>>, Option<String>, Option<String>),
    /// COPY TO STDOUT with this many columns.
    CopyOut(usize),
    /// COPY FROM STDIN, waiting for the client's data.
    CopyIn(Box<CopyFromStdin>),
}

/// The next chunk of a result, or `None` at its end; an error is sent to the client
/// (and ends the stream, as `None`).
fn next_or_report<T>(
    result: &mut stride::QueryResult,
    tx: &tokio::sync::mpsc::Sender<PgWireResult<T>>,
) -> Option<stride::DataChunk> {
    match result.next_chunk()? {
        Ok(c) => Some(c.flatten()),
        Err(e) => {
            let _ = tx.blocking_send(Err(to_pg(e)));
            None
        }
    }
}

/// Streams a COPY TO STDOUT's rows as CopyData messages, one per row (the header,
/// when asked for, travels with the first). Values are spelled as in text results,
/// written straight from the columns.
fn copy_rows(
    result: &mut stride::QueryResult,
    options: &stride::copy::CsvWriteOptions,
    tx: &tokio::sync::mpsc::Sender<PgWireResult<CopyData>>,
) {
    let mut lines = Vec::new();
    if options.header {
        stride::copy::write_record(
            result.names.iter().map(|n| Some(n.as_bytes())),
            options,
            &mut lines,
        );
    }
    let format = FormatOptions::default();
    let mut texts: Vec<bytes::BytesMut> = Vec::new();
    let mut nulls: Vec<bool> = Vec::new();
    let mut sent_any = false;
    while let Some(chunk) = next_or_report(result, tx) {
        texts.resize_with(chunk.columns.len(), bytes::BytesMut::new);
        for row in 0..chunk.len() {
            nulls.clear();
            for (column, buf) in chunk.columns.iter().zip(texts.iter_mut()) {
                buf.clear();
                match (Cell { column, row }).to_sql_text(&Type::TEXT, buf, &format) {
                    Ok(written) => nulls.push(matches!(written, postgres_types::IsNull::Yes)),
                    Err(e) => {
                        let _ = tx.blocking_send(Err(PgWireError::ApiError(e)));
                        return;
                    }
                }
            }
            stride::copy::write_record(
                texts
                    .iter()
                    .zip(&nulls)
                    .map(|(t, &null)| (!null).then_some(&t[..])),
                options,
                &mut lines,
            );
            // One message per row, as PostgreSQL sends them: clients read a row per
            // message, and the command tag counts messages.
            sent_any = true;
            let data = CopyData::new(bytes::Bytes::from(std::mem::take(&mut lines)));
            if tx.blocking_send(Ok(data)).is_err() {
                result.cancel();
                return;
            }
        }
    }
    if !sent_any && !lines.is_empty() {
        let _ = tx.blocking_send(Ok(CopyData::new(bytes::Bytes::from(lines))));
    }
}

/// The first `n` words of a statement, upper-cased, with comments (`-- …`, nested
/// `/* … */`), whitespace and opening parentheses skipped: what the command tag is
/// built from. Stops at the first thing that is not a word (a quote, `*`, a number's
/// sign), so a statement's identifiers are never mistaken for its keywords.
fn leading_words(sql: &str, n: usize) -> Vec<String> {
    let b = sql.as_bytes();
    let mut words = Vec::new();
    let mut i = 0;
    while i < b.len() && words.len() < n {
        match b[i] {
            c if c.is_ascii_whitespace() || c == b'(' => i += 1,
            b'-' if b.get(i + 1) == Some(&b'-') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |k| i + k + 1);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                // Block comments nest, as in PostgreSQL.
                let mut depth = 0usize;
                while i < b.len() {
                    if b[i..].starts_with(b"/*") {
                        depth += 1;
                        i += 2;
                    } else if b[i..].starts_with(b"*/") {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let end = b[i..]
                    .iter()
                    .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
                    .map_or(b.len(), |k| i + k);
                words.push(sql[i..end].to_ascii_uppercase());
                i = end;
            }
            _ => break,
        }
    }
    words
}

/// The command of a CommandComplete tag as PostgreSQL names it, without the row
/// count: `CREATE TABLE` for `CREATE OR REPLACE TEMP TABLE`, `ALTER TABLE`,
/// `ROLLBACK` for `ROLLBACK TO SAVEPOINT`, `BEGIN` for `START TRANSACTION`.
fn command(sql: &str) -> String {
    let words = leading_words(sql, 5);
    let first = words.first().map(String::as_str).unwrap_or("");
    match first {
        "CREATE" | "DROP" | "ALTER" => {
            let what = words
                .iter()
                .skip(1)
                .find(|w| {
                    !matches!(
                        w.as_str(),
                        "OR" | "REPLACE" | "TEMP" | "TEMPORARY" | "UNIQUE" | "PERSISTENT"
                    )
                })
                .map(String::as_str)
                .unwrap_or_default();
            format!("{first} {what}")
        }
        "START" => "BEGIN".into(),
        "END" => "COMMIT".into(),
        "ABORT" => "ROLLBACK".into(),
        "TRUNCATE" => "TRUNCATE TABLE".into(),
        "" => "OK".into(),
        other => other.into(),
    }
}

/// The CommandComplete tag of a statement that returned no rows; `changes` are the
/// rows it inserted, updated or deleted (or CREATE TABLE AS stored).
fn tag(sql: &str, changes: Option<u64>) -> Tag {
    let command = command(sql);
    let tag = Tag::new(&command);
    match (command.as_str(), changes) {
        ("INSERT", Some(n)) => tag.with_oid(0).with_rows(n as usize),
        // PostgreSQL reports no count for TRUNCATE.
        ("TRUNCATE TABLE", _) => tag,
        // CREATE TABLE AS reports the rows it stored, as PostgreSQL does.
        ("CREATE TABLE", Some(n)) => Tag::new("SELECT").with_rows(n as usize),
        (_, Some(n)) => tag.with_rows(n as usize),
        _ => tag,
    }
}

#[async_trait]
impl CopyHandler for Handler {
    async fn on_copy_data<C>(&self, _client: &mut C, data: CopyData) -> PgWireResult<()>
    where
        C: ClientInfo + futures::Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: std::fmt::Debug,
        PgWireError: From<<C as futures::Sink<PgWireBackendMessage>>::Error>,
    {
        let mut copy = self
            .copy
            .lock()
            .map_err(|_| PgWireError::ApiError("copy state lock".into()))?;
        match copy.as_mut() {
            None => Err(protocol_error(
                "CopyData arrived while no COPY FROM STDIN was running",
            )),
            Some(PendingCopy::Failed(_)) => Ok(()),
            Some(PendingCopy::Receiving(_, buffer)) => {
                if buffer.len() + data.data.len() > self.max_copy_bytes {
                    *copy = Some(PendingCopy::Failed(format!(
                        "COPY FROM STDIN sent more than {} bytes, the server's limit for one COPY (stride serve --max-copy-bytes); split the data or copy from a file",
                        self.max_copy_bytes
                    )));
                } else {
                    buffer.extend_from_slice(&data.data);
                }
                Ok(())
            }
        }
    }

    async fn on_copy_done<C>(&self, client: &mut C, _done: CopyDone) -> PgWireResult<()>
    where
        C: ClientInfo + futures::Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: std::fmt::Debug,
        PgWireError: From<<C as futures::Sink<PgWireBackendMessage>>::Error>,
    {
        let pending = self
            .copy
            .lock()
            .map_err(|_| PgWireError::ApiError("copy state lock".into()))?
            .take();
        let (copy, data) = match pending {
            Some(PendingCopy::Receiving(copy, data)) => (copy, data),
            Some(PendingCopy::Failed(message)) => return Err(copy_error("54000", message)),
            None => {
                return Err(protocol_error(
                    "CopyDone arrived while no COPY FROM STDIN was running",
                ))
            }
        };
        let conn = self.conn.clone();
        let rows = tokio::task::spawn_blocking(move || conn.copy_in(&copy, data))
            .await
            .map_err(|_| PgWireError::ApiError("COPY's thread ended unexpectedly".into()))?
            .map_err(to_pg)?;
        let tag = Tag::new("COPY").with_rows(rows as usize);
        futures::SinkExt::send(client, PgWireBackendMessage::CommandComplete(tag.into())).await?;
        Ok(())
    }

    async fn on_copy_fail<C>(&self, _client: &mut C, fail: CopyFail) -> PgWireError
    where
        C: ClientInfo + futures::Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: std::fmt::Debug,
        PgWireError: From<<C as futures::Sink<PgWireBackendMessage>>::Error>,
    {
        if let Ok(mut copy) = self.copy.lock() {
            *copy = None;
        }
        copy_error("57014", format!("COPY from stdin failed: {}", fail.message))
    }
}

fn copy_error(code: &str, message: String) -> PgWireError {
    PgWireError::UserError(Box::new(ErrorInfo::new(
        "ERROR".into(),
        code.into(),
        message,
    )))
}

fn protocol_error(message: &str) -> PgWireError {
    copy_error("08P01", message.into())
}

/// pgwire's `send_query_response` for the simple protocol, except that SHOW's tag
/// carries no row count, as PostgreSQL's does (pgwire appends one to every tag).
async fn send_rows<C>(client: &mut C, mut response: QueryResponse) -> PgWireResult<()>
where
    C: Sink<PgWireBackendMessage> + Unpin,
    C::Error: std::fmt::Debug,
    PgWireError: From<C::Error>,
{
    if response.command_tag() != "SHOW" {
        return send_query_response(client, response, true).await;
    }
    let command_tag = response.command_tag().to_string();
    let description = pgwire::messages::data::RowDescription::new(
        response.row_schema().iter().map(Into::into).collect(),
    );
    let data_rows = response.data_rows();
    client
        .feed(PgWireBackendMessage::RowDescription(description))
        .await?;
    while let Some(row) = data_rows.next().await {
        client.feed(PgWireBackendMessage::DataRow(row?)).await?;
    }
    client
        .feed(PgWireBackendMessage::CommandComplete(
            Tag::new(&command_tag).into(),
        ))
        .await?;
    Ok(())
}

#[async_trait]
impl SimpleQueryHandler for Handler {
    /// pgwire's `_on_query`, except that ReadyForQuery reports the transaction status
    /// the connection is in after the statements ([`Handler::transaction_status`]),
    /// where pgwire would derive it from the responses (after a failed COMMIT, which
    /// rolls the transaction back, it would say "in failed transaction").
    async fn on_query<C>(&self, client: &mut C, query: Query) -> PgWireResult<()>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore,
        C::Error: std::fmt::Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        if !matches!(client.state(), PgWireConnectionState::ReadyForQuery) {
            return Err(PgWireError::NotReadyForQuery);
        }
        client.set_state(PgWireConnectionState::QueryInProgress);
        for response in SimpleQueryHandler::do_query(self, client, &query.query).await? {
            match response {
                Response::EmptyQuery => {
                    client
                        .feed(PgWireBackendMessage::EmptyQueryResponse(
                            EmptyQueryResponse::new(),
                        ))
                        .await?;
                }
                Response::Query(rows) => send_rows(client, rows).await?,
                Response::Execution(tag)
                | Response::TransactionStart(tag)
                | Response::TransactionEnd(tag) => send_execution_response(client, tag).await?,
                Response::Error(e) => {
                    client
                        .feed(PgWireBackendMessage::ErrorResponse((*e).into()))
                        .await?;
                }
                Response::CopyIn(copy) => {
                    send_copy_in_response(client, copy).await?;
                    client.set_state(PgWireConnectionState::CopyInProgress(false));
                }
                Response::CopyOut(copy) => send_copy_out_response(client, copy).await?,
                Response::CopyBoth(_) => {
                    return Err(PgWireError::ApiError("COPY BOTH is not supported".into()))
                }
            }
        }
        // During COPY FROM STDIN, CopyDone or CopyFail ends the query.
        if !matches!(client.state(), PgWireConnectionState::CopyInProgress(_)) {
            client.set_state(PgWireConnectionState::ReadyForQuery);
            let status = self.transaction_status();
            client.set_transaction_status(status);
            send_ready_for_query(client, status).await?;
        }
        Ok(())
    }

    async fn do_query<C>(&self, client: &mut C, query: &str) -> PgWireResult<Vec<Response>>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: std::fmt::Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        self.register(client)?;
        let statements = stride::split_statements(query);
        if statements.is_empty() {
            return Ok(vec![Response::EmptyQuery]);
        }
        let mut out = Vec::with_capacity(statements.len());
        let count = statements.len();
        for (k, s) in statements.into_iter().enumerate() {
            match self
                .run(client, s.to_string(), Vec::new(), Format::UnifiedText)
                .await
            {
                Ok(Response::CopyIn(_)) if k + 1 < count => {
                    // The client sends the data after this message's statements.
                    if let Ok(mut copy) = self.copy.lock() {
                        *copy = None;
                    }
                    out.push(Response::Error(Box::new(ErrorInfo::new(
                        "ERROR".into(),
                        "0A000".into(),
                        "COPY FROM STDIN must be the last statement of a query string".into(),
                    ))));
                    break;
                }
                Ok(r) => out.push(r),
                Err(PgWireError::UserError(info)) => {
                    // Later statements of the message do not run (as in PostgreSQL).
                    out.push(Response::Error(info));
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }
}

#[async_trait]
impl ExtendedQueryHandler for Handler {
    type Statement = String;
    type QueryParser = NoopQueryParser;

    fn query_parser(&self) -> Arc<Self::QueryParser> {
        self.parser.clone()
    }

    async fn do_query<C>(
        &self,
        client: &mut C,
        portal: &Portal<Self::Statement>,
        _max_rows: usize,
    ) -> PgWireResult<Response>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: std::fmt::Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        self.register(client)?;
        let params = self.parameters(portal).await?;
        let sql = portal
            .statement
            .statement
            .trim()
            .trim_end_matches(';')
            .to_string();
        if sql.is_empty() {
            return Ok(Response::EmptyQuery);
        }
        self.run(client, sql, params, portal.result_column_format.clone())
            .await
    }

    async fn do_describe_statement<C>(
        &self,
        _client: &mut C,
        stmt: &StoredStatement<Self::Statement>,
    ) -> PgWireResult<DescribeStatementResponse>
    where
        C: ClientInfo + Unpin + Send + Sync,
    {
        // Parameters without a declared type have the type their context gives them
        // (`i >= $1`: i's), or else text (bound like string literals).
        let (columns, inferred) = self.described(stmt.statement.clone()).await?;
        let param_types: Vec<Type> = (0..count_params(&stmt.statement)
            .max(stmt.parameter_types.len()))
            .map(|i| {
                stmt.parameter_types
                    .get(i)
                    .cloned()
                    .flatten()
                    .filter(|t| *t != Type::UNKNOWN)
                    .or_else(|| inferred.get(i).cloned().flatten())
                    .unwrap_or(Type::TEXT)
            })
            .collect();
        Ok(DescribeStatementResponse::new(
            param_types,
            fields(&columns, &Format::UnifiedBinary),
        ))
    }

    async fn do_describe_portal<C>(
        &self,
        _client: &mut C,
        portal: &Portal<Self::Statement>,
    ) -> PgWireResult<DescribePortalResponse>
    where
        C: ClientInfo + Unpin + Send + Sync,
    {
        let params = self.parameters(portal).await?;
        let fields = self
            .describe(
                portal.statement.statement.clone(),
                params,
                portal.result_column_format.clone(),
            )
            .await?;
        Ok(DescribePortalResponse::new(fields))
    }
}

/// The highest `$n` in a statement (outside quotes), so Describe can report every
/// parameter even when the client declared no types.
fn count_params(sql: &str) -> usize {
    let b = sql.as_bytes();
    let (mut max, mut i, mut quote) = (0usize, 0usize, None::<u8>);
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'\'' || c == b'"' => quote = Some(c),
            None if c == b'$' => {
                let digits: String = b[i + 1..]
                    .iter()
                    .take_while(|d| d.is_ascii_digit())
                    .map(|&d| d as char)
                    .collect();
                if let Ok(n) = digits.parse::<usize>() {
                    max = max.max(n.min(u16::MAX as usize));
                }
                i += digits.len();
            }
            None => {}
        }
        i += 1;
    }
    max
}

/// Tells a client over the connection limit why it is turned away, then closes.
pub async fn refuse(mut socket: tokio::net::TcpStream, limit: usize) {
    let info = ErrorInfo::new(
        "FATAL".into(),
        "53300".into(),
        format!("sorry, too many clients already (the limit is {limit} connections)"),
    );
    let mut body = Vec::new();
    for (code, text) in [
        (b'S', info.severity.as_str()),
        (b'C', info.code.as_str()),
        (b'M', info.message.as_str()),
    ] {
        body.push(code);
        body.extend_from_slice(text.as_bytes());
        body.push(0);
    }
    body.push(0);
    let mut msg = vec![b'E'];
    msg.extend_from_slice(&((body.len() + 4) as u32).to_be_bytes());
    msg.extend_from_slice(&body);
    let _ = socket.write_all(&msg).await;
    let _ = socket.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_parameters_and_tags() {
        assert_eq!(count_params("SELECT $1, '$5', $12"), 12);
        assert_eq!(count_params("SELECT 1"), 0);
        assert_eq!(
            format!("{:?}", tag("create table t (a int)", None)),
            format!("{:?}", Tag::new("CREATE TABLE"))
        );
    }

    #[test]
    fn commands_skip_comments_and_modifiers() {
        for (sql, expected) in [
            ("/* c */ DELETE FROM rc WHERE a=5", "DELETE"),
            ("-- x\nUPDATE t SET a = 1", "UPDATE"),
            ("/* a /* nested */ b */ BEGIN", "BEGIN"),
            ("((SELECT 1))", "SELECT"),
            ("CREATE OR REPLACE TABLE t (a INT)", "CREATE TABLE"),
            ("create or replace temp view v as select 1", "CREATE VIEW"),
            ("CREATE UNIQUE INDEX i ON t (a)", "CREATE INDEX"),
            ("ALTER TABLE t ADD COLUMN b INT", "ALTER TABLE"),
            ("START TRANSACTION", "BEGIN"),
            ("END", "COMMIT"),
            ("ABORT", "ROLLBACK"),
            ("ROLLBACK TO SAVEPOINT s", "ROLLBACK"),
            ("show application_name", "SHOW"),
            ("  -- only a comment", "OK"),
        ] {
            assert_eq!(command(sql), expected, "{sql}");
        }
        assert_eq!(leading_words("ROLLBACK TO s", 2), ["ROLLBACK", "TO"]);
        assert_eq!(leading_words("SELECT \"weird\"", 3), ["SELECT"]);
    }
}
