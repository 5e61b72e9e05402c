//! Query results: column names and types plus a stream of chunks. Rows of a SELECT
//! arrive while the query still runs (a query over CSV files with detected types
//! holds its first chunk back until it is read, so a widening re-run stays possible);
//! statements report the rows they changed. Notes say what the user should know about
//! a statement that succeeded: widened CSV columns, rows skipped by `ignore_errors`.
//! An error the rows end in is reported to the connection (`on_error`), which fails
//! the transaction the statement ran in.

use std::sync::Arc;
use stride_common::{DataChunk, DataType, Result, ScalarValue};
use stride_exec::{ResultStream, WouldBlock};
use stride_io::csv::CsvReader;

/// "N rows skipped" for a CSV reader that skipped rows.
pub(crate) fn rejected_note(r: &CsvReader) -> Option<String> {
    let n = r.rejected.load(std::sync::atomic::Ordering::Relaxed);
    (n > 0).then(|| {
        format!(
            "{n} row{} of \"{}\" could not be read and {} skipped (ignore_errors = true)",
            if n == 1 { "" } else { "s" },
            r.files[0].path,
            if n == 1 { "was" } else { "were" }
        )
    })
}

enum Body {
    Stream(ResultStream),
    Chunks(std::vec::IntoIter<DataChunk>),
}

/// What a result calls with the error its rows end in.
pub(crate) type OnError = Arc<dyn Fn(&stride_common::Error) + Send + Sync>;

pub struct QueryResult {
    pub names: Vec<String>,
    pub types: Vec<DataType>,
    body: Body,
    /// Rows inserted, for INSERT and CREATE TABLE AS; `None` for queries.
    pub changes: Option<u64>,
    /// Things the user should know about a statement that succeeded (a CSV column
    /// read with a wider type than detected). See also [`QueryResult::notes`].
    pub(crate) notes: Vec<String>,
    /// The query's first chunk, when it was fetched before the result was returned.
    peeked: Option<DataChunk>,
    /// CSV readers of a query, whose skipped-row counts are known once it ran.
    pub(crate) readers: Vec<Arc<CsvReader>>,
    /// `COPY … TO STDOUT`: the rows are the data, to be written in this format.
    pub copy_out: Option<crate::copy::CsvWriteOptions>,
    /// `COPY … FROM STDIN`: the statement waits for the client's data; hand it to
    /// [`crate::Connection::copy_in`].
    pub copy_in: Option<Box<crate::copy::CopyFromStdin>>,
    /// Under `SET enable_profiling` with no `profiling_output` file: the query's
    /// profile (EXPLAIN ANALYZE's tree, or its JSON), for the client to show after
    /// the rows.
    pub profile: Option<String>,
    /// Called with the error the rows end in, if they do (see
    /// `Connection::fail_on_stream_error`).
    pub(crate) on_error: Option<OnError>,
}

/// Shows the result's shape (names, types, changes), not its rows, which may still
/// be streaming.
impl std::fmt::Debug for QueryResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryResult")
            .field("names", &self.names)
            .field("types", &self.types)
            .field("changes", &self.changes)
            .finish_non_exhaustive()
    }
}

impl QueryResult {
    pub(crate) fn stream(
        names: Vec<String>,
        stream: ResultStream,
        first: Option<DataChunk>,
    ) -> Self {
        QueryResult {
            names,
            types: stream.types.clone(),
            body: Body::Stream(stream),
            changes: None,
            notes: Vec::new(),
            peeked: first,
            readers: Vec::new(),
            copy_out: None,
            copy_in: None,
            profile: None,
            on_error: None,
        }
    }

    /// A result over rows already computed (a statement's rows kept for reading again).
    pub fn chunks(names: Vec<String>, types: Vec<DataType>, chunks: Vec<DataChunk>) -> Self {
        QueryResult {
            names,
            types,
            body: Body::Chunks(chunks.into_iter()),
            changes: None,
            notes: Vec::new(),
            peeked: None,
            readers: Vec::new(),
            copy_out: None,
            copy_in: None,
            profile: None,
            on_error: None,
        }
    }

    /// A statement without a result set.
    pub(crate) fn done(changes: Option<u64>) -> Self {
        QueryResult {
            names: vec![],
            types: vec![],
            body: Body::Chunks(Vec::new().into_iter()),
            changes,
            notes: Vec::new(),
            peeked: None,
            readers: Vec::new(),
            copy_out: None,
            copy_in: None,
            profile: None,
            on_error: None,
        }
    }

    /// Whether this result has columns (a query) rather than being a statement's status.
    pub fn is_query(&self) -> bool {
        !self.names.is_empty()
    }

    /// The next chunk of rows, or `None` at the end.
    pub fn next_chunk(&mut self) -> Option<Result<DataChunk>> {
        if let Some(c) = self.peeked.take() {
            return Some(Ok(c));
        }
        let next = match &mut self.body {
            Body::Stream(s) => s.next(),
            Body::Chunks(c) => c.next().map(Ok),
        };
        self.report(next)
    }

    /// Hands an error the rows end in to `on_error`, and passes `next` on.
    fn report(&self, next: Option<Result<DataChunk>>) -> Option<Result<DataChunk>> {
        if let (Some(Err(e)), Some(f)) = (&next, &self.on_error) {
            f(e);
        }
        next
    }

    /// The next chunk (`None` at the end) if it can be had without waiting for a
    /// running query; `Err(WouldBlock)` if reading it would wait.
    pub fn try_next_chunk(&mut self) -> std::result::Result<Option<Result<DataChunk>>, WouldBlock> {
        if let Some(c) = self.peeked.take() {
            return Ok(Some(Ok(c)));
        }
        let next = match &mut self.body {
            Body::Stream(s) => s.try_next()?,
            Body::Chunks(c) => c.next().map(Ok),
        };
        Ok(self.report(next))
    }

    /// Notes on the statement: widened CSV columns, and rows skipped by
    /// `ignore_errors` (complete once every row was read).
    pub fn notes(&self) -> Vec<String> {
        let mut out = self.notes.clone();
        for r in &self.readers {
            out.extend(rejected_note(r));
        }
        out
    }

    /// Stops a running query.
    pub fn cancel(&self) {
        if let Body::Stream(s) = &self.body {
            s.cancel();
        }
    }

    /// Iterates over rows as scalar values.
    pub fn rows(self) -> Rows {
        Rows {
            result: self,
            chunk: None,
            pos: 0,
        }
    }

    /// Every row, materialized.
    pub fn collect_rows(self) -> Result<Vec<Vec<ScalarValue>>> {
        self.rows().collect()
    }
}

pub struct Rows {
    result: QueryResult,
    chunk: Option<DataChunk>,
    pos: usize,
}

impl Iterator for Rows {
    type Item = Result<Vec<ScalarValue>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(c) = &self.chunk {
                if self.pos < c.len() {
                    self.pos += 1;
                    return Some(Ok(c.row(self.pos - 1)));
                }
            }
            match self.result.next_chunk()? {
                Ok(c) => {
                    self.chunk = Some(c);
                    self.pos = 0;
                }
                Err(e) => return Some(Err(e)),
            }
        }
    }
}
