//! The first thing a client's bytes meet. [`GuardedStream`] wraps the socket and
//! passes bytes on to the protocol decoder only as [`FrameGuard`] approves them:
//!
//! - every message's announced length is checked against the limits from its header,
//!   before its body is read (startup-phase messages at most [`MAX_STARTUP_BYTES`],
//!   others at most the server's `max_message_bytes`);
//! - every message's inner structure is checked before its last byte is released:
//!   strings terminated, counts and lengths that fit the message exactly, nothing left
//!   over. The decoder therefore only ever sees well-formed messages, so a malformed
//!   one can neither make it panic nor be read as part of the next message.
//!
//! Queries and COPY data, the messages that may be large, stream through as they
//! arrive (only their last byte is held back); the other messages are small and are
//! released whole. The stream also notes when bytes last moved, for the idle-session
//! timeout (see `connection.rs`).

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Largest startup-phase message, as in PostgreSQL.
pub const MAX_STARTUP_BYTES: usize = 10_000;

const SSL_REQUEST: u32 = 80_877_103;
const GSSENC_REQUEST: u32 = 80_877_104;
const CANCEL_REQUEST: u32 = 80_877_102;

/// Why the guard stopped a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameError {
    /// A message announced more bytes than allowed (its length, the limit).
    TooLarge { length: usize, limit: usize },
    /// A length header that no valid message has.
    BadLength(usize),
    /// A message whose contents do not follow its type's layout.
    Malformed(&'static str),
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::TooLarge { length, limit } => write!(
                f,
                "a message of {length} bytes exceeds the server's limit of {limit} bytes (stride serve --max-message-bytes)"
            ),
            FrameError::BadLength(n) => write!(f, "invalid message length {n}"),
            FrameError::Malformed(what) => write!(f, "malformed {what} message"),
        }
    }
}

/// Reads a message body field by field; every read fails past the end.
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.0.len() {
            return None;
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Some(a)
    }

    fn cstring(&mut self) -> Option<&'a [u8]> {
        let end = memchr::memchr(0, self.0)?;
        let s = self.take(end + 1)?;
        Some(&s[..end])
    }

    fn u16(&mut self) -> Option<usize> {
        self.take(2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]) as usize)
    }

    fn i32(&mut self) -> Option<i32> {
        self.take(4)
            .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn done(&self) -> Option<()> {
        self.0.is_empty().then_some(())
    }
}

/// Checks the body of a typed message whose layout the decoder relies on.
fn valid_typed(kind: u8, body: &[u8], first_password: bool) -> Option<()> {
    let mut c = Cursor(body);
    match kind {
        // Parse: name, query, parameter type OIDs.
        b'P' => {
            c.cstring()?;
            c.cstring()?;
            let n = c.u16()?;
            c.take(4 * n)?;
        }
        // Bind: portal, statement, format codes, parameters, result format codes.
        b'B' => {
            c.cstring()?;
            c.cstring()?;
            let formats = c.u16()?;
            c.take(2 * formats)?;
            for _ in 0..c.u16()? {
                match c.i32()? {
                    -1 => {}
                    n if n >= 0 => {
                        c.take(n as usize)?;
                    }
                    _ => return None,
                }
            }
            let results = c.u16()?;
            c.take(2 * results)?;
        }
        // Describe and Close: 'S'tatement or 'P'ortal, then a name.
        b'D' | b'C' => {
            if !matches!(c.take(1)?, b"S" | b"P") {
                return None;
            }
            c.cstring()?;
        }
        // Execute: portal, row limit.
        b'E' => {
            c.cstring()?;
            c.i32()?;
        }
        // CopyFail: a message.
        b'f' => {
            c.cstring()?;
        }
        // Flush, Sync, Terminate, CopyDone: nothing.
        b'H' | b'S' | b'X' | b'c' => {}
        // The first password-family message is SASL's initial response (mechanism,
        // then data of a given length); later ones (SASL responses) are raw bytes.
        b'p' if first_password => {
            c.cstring()?;
            match c.i32()? {
                -1 => {}
                n if n >= 0 => {
                    c.take(n as usize)?;
                }
                _ => return None,
            }
        }
        // CopyData, later password messages, and types the decoder refuses itself.
        _ => return Some(()),
    }
    c.done()
}

fn kind_name(kind: u8) -> &'static str {
    match kind {
        b'P' => "Parse",
        b'B' => "Bind",
        b'D' => "Describe",
        b'C' => "Close",
        b'E' => "Execute",
        b'f' => "CopyFail",
        b'H' => "Flush",
        b'S' => "Sync",
        b'X' => "Terminate",
        b'c' => "CopyDone",
        b'p' => "SASL response",
        b'Q' => "Query",
        _ => "protocol",
    }
}

/// Checks an untyped startup-phase message (its 4-byte code first).
fn valid_untyped(message: &[u8]) -> Result<(), FrameError> {
    let code = u32::from_be_bytes([message[0], message[1], message[2], message[3]]);
    let length = message.len() + 4;
    match code {
        SSL_REQUEST | GSSENC_REQUEST if length == 8 => Ok(()),
        SSL_REQUEST | GSSENC_REQUEST => Err(FrameError::Malformed("SSL/GSS request")),
        CANCEL_REQUEST if (16..=268).contains(&length) => Ok(()),
        CANCEL_REQUEST => Err(FrameError::Malformed("CancelRequest")),
        _ if code >> 16 != 3 => Err(FrameError::Malformed(
            "startup (only protocol version 3 is supported)",
        )),
        _ => {
            // Name/value pairs of terminated strings, then an empty string, exactly.
            let mut c = Cursor(&message[4..]);
            let mut strings = 0;
            loop {
                match c.cstring() {
                    Some([]) => break,
                    Some(_) => strings += 1,
                    None => return Err(FrameError::Malformed("startup")),
                }
            }
            if strings % 2 == 0 && c.done().is_some() {
                Ok(())
            } else {
                Err(FrameError::Malformed("startup"))
            }
        }
    }
}

/// How the message being read travels.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Body {
    /// Released whole once checked.
    Held,
    /// Released as it arrives but for its last byte; for a Query, no byte but the last
    /// may be the terminating zero.
    Streamed { query: bool },
}

/// Follows message boundaries through the bytes a client sends, checks each message,
/// and releases the bytes the decoder may see.
#[derive(Debug, Clone)]
pub struct FrameGuard {
    max_message: usize,
    /// Still in the startup phase (untyped messages).
    startup: bool,
    /// Whether a password-family message was seen yet.
    password_seen: bool,
    /// Header bytes of the message being read.
    header: [u8; 8],
    have: usize,
    /// Body bytes still to come.
    remaining: usize,
    body: Body,
    /// The message being held: type and length header, then body.
    held: Vec<u8>,
    /// The type of the message being read (0 in the startup phase).
    kind: u8,
    failed: Option<FrameError>,
}

impl FrameGuard {
    pub fn new(max_message: usize) -> FrameGuard {
        FrameGuard {
            max_message,
            startup: true,
            password_seen: false,
            header: [0; 8],
            have: 0,
            remaining: 0,
            body: Body::Held,
            held: Vec::new(),
            kind: 0,
            failed: None,
        }
    }

    /// The error that stopped the stream, if any.
    pub fn failure(&self) -> Option<&FrameError> {
        self.failed.as_ref()
    }

    fn fail(&mut self, e: FrameError) -> Result<(), FrameError> {
        self.failed = Some(e.clone());
        self.held = Vec::new();
        Err(e)
    }

    /// Follows `input` (the next bytes from the client) and appends to `out` the
    /// bytes that may reach the decoder. Once it fails, every later call fails too.
    pub fn feed(&mut self, mut input: &[u8], out: &mut Vec<u8>) -> Result<(), FrameError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        while !input.is_empty() {
            if self.remaining > 0 {
                let n = self.remaining.min(input.len());
                let (part, rest) = input.split_at(n);
                input = rest;
                self.remaining -= n;
                match self.body {
                    Body::Held => self.held.extend_from_slice(part),
                    Body::Streamed { query } => {
                        // The message's last byte waits for the end of the message.
                        let last = if self.remaining == 0 { n - 1 } else { n };
                        if query && memchr::memchr(0, &part[..last]).is_some() {
                            return self.fail(FrameError::Malformed("Query"));
                        }
                        out.extend_from_slice(&part[..last]);
                        if self.remaining == 0 {
                            if query && part[n - 1] != 0 {
                                return self.fail(FrameError::Malformed("Query"));
                            }
                            out.push(part[n - 1]);
                        }
                    }
                }
                if self.remaining == 0 && self.body == Body::Held {
                    self.release(out)?;
                }
                continue;
            }
            // Untyped: length(4) code(4); typed: type(1) length(4).
            let header_len = if self.startup { 8 } else { 5 };
            let n = (header_len - self.have).min(input.len());
            self.header[self.have..self.have + n].copy_from_slice(&input[..n]);
            self.have += n;
            input = &input[n..];
            if self.have < header_len {
                break;
            }
            self.have = 0;
            self.start_message(out)?;
        }
        Ok(())
    }

    /// A header is complete: check the length and decide how the body travels.
    fn start_message(&mut self, out: &mut Vec<u8>) -> Result<(), FrameError> {
        let h = self.header;
        let be = |i: usize| u32::from_be_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]) as usize;
        if self.startup {
            let length = be(0);
            if length < 8 {
                return self.fail(FrameError::BadLength(length));
            }
            if length > MAX_STARTUP_BYTES {
                return self.fail(FrameError::TooLarge {
                    length,
                    limit: MAX_STARTUP_BYTES,
                });
            }
            self.kind = 0;
            self.body = Body::Held;
            self.held.clear();
            self.held.extend_from_slice(&h[..8]);
            self.remaining = length - 8;
        } else {
            let length = be(1);
            if length < 4 {
                return self.fail(FrameError::BadLength(length));
            }
            if length - 4 > self.max_message {
                return self.fail(FrameError::TooLarge {
                    length,
                    limit: self.max_message,
                });
            }
            self.kind = h[0];
            self.remaining = length - 4;
            self.body = match h[0] {
                b'd' => Body::Streamed { query: false },
                b'Q' => Body::Streamed { query: true },
                _ => Body::Held,
            };
            match self.body {
                Body::Streamed { query } => {
                    if query && self.remaining == 0 {
                        return self.fail(FrameError::Malformed("Query"));
                    }
                    out.extend_from_slice(&h[..5]);
                }
                Body::Held => {
                    self.held.clear();
                    self.held.extend_from_slice(&h[..5]);
                }
            }
        }
        if self.remaining == 0 && self.body == Body::Held {
            self.release(out)?;
        }
        Ok(())
    }

    /// A held message is complete: check it, then let it through.
    fn release(&mut self, out: &mut Vec<u8>) -> Result<(), FrameError> {
        if self.startup {
            valid_untyped(&self.held[4..]).or_else(|e| self.fail(e))?;
            let code = u32::from_be_bytes([self.held[4], self.held[5], self.held[6], self.held[7]]);
            // Requests for encryption or cancellation keep the startup phase.
            if !matches!(code, SSL_REQUEST | GSSENC_REQUEST | CANCEL_REQUEST) {
                self.startup = false;
            }
        } else {
            let first_password = self.kind == b'p' && !self.password_seen;
            if valid_typed(self.kind, &self.held[5..], first_password).is_none() {
                return self.fail(FrameError::Malformed(kind_name(self.kind)));
            }
            if self.kind == b'p' {
                self.password_seen = true;
            }
        }
        out.append(&mut self.held);
        Ok(())
    }
}

/// The client's socket, read through a [`FrameGuard`].
pub struct GuardedStream<S> {
    inner: S,
    guard: FrameGuard,
    /// Approved bytes not yet handed to the reader, and how many were handed.
    ready: Vec<u8>,
    taken: usize,
    /// Set whenever bytes move in either direction (cleared by the idle timer).
    pub activity: Arc<AtomicBool>,
}

impl<S> GuardedStream<S> {
    pub fn new(inner: S, max_message: usize) -> Self {
        GuardedStream {
            inner,
            guard: FrameGuard::new(max_message),
            ready: Vec::new(),
            taken: 0,
            activity: Arc::new(AtomicBool::new(true)),
        }
    }

    pub fn failure(&self) -> Option<&FrameError> {
        self.guard.failure()
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for GuardedStream<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.taken < this.ready.len() {
                let n = (this.ready.len() - this.taken).min(buf.remaining());
                buf.put_slice(&this.ready[this.taken..this.taken + n]);
                this.taken += n;
                if this.taken == this.ready.len() {
                    this.ready.clear();
                    this.taken = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if let Some(e) = this.guard.failure() {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    e.to_string(),
                )));
            }
            let mut scratch = [0u8; 16 << 10];
            let mut raw = ReadBuf::new(&mut scratch);
            match Pin::new(&mut this.inner).poll_read(cx, &mut raw) {
                Poll::Ready(Ok(())) => {
                    let got = raw.filled();
                    if got.is_empty() {
                        // The client closed; an unfinished message is dropped.
                        return Poll::Ready(Ok(()));
                    }
                    this.activity.store(true, Ordering::Relaxed);
                    if let Err(e) = this.guard.feed(got, &mut this.ready) {
                        // Bytes approved before the failure still go through.
                        if this.ready.is_empty() {
                            return Poll::Ready(Err(io::Error::new(
                                io::ErrorKind::InvalidData,
                                e.to_string(),
                            )));
                        }
                    }
                }
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for GuardedStream<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.inner).poll_write(cx, buf);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            this.activity.store(true, Ordering::Relaxed);
        }
        r
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> GuardedStream<S> {
    /// Closes the sending side, then reads and drops what the client is still sending
    /// (up to `limit` bytes or `time`), so the client reads the error it was sent
    /// instead of a connection reset.
    pub async fn close_and_drain(&mut self, limit: usize, time: std::time::Duration) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let _ = self.inner.shutdown().await;
        let mut scratch = vec![0u8; 64 << 10];
        let mut left = limit;
        let _ = tokio::time::timeout(time, async {
            while left > 0 {
                match self.inner.read(&mut scratch).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => left = left.saturating_sub(n),
                }
            }
        })
        .await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn startup() -> Vec<u8> {
        let body = b"\x00\x03\x00\x00user\x00stride\x00\x00";
        let mut m = ((body.len() + 4) as u32).to_be_bytes().to_vec();
        m.extend_from_slice(body);
        m
    }

    fn typed(t: u8, body: &[u8]) -> Vec<u8> {
        let mut m = vec![t];
        m.extend_from_slice(&((body.len() + 4) as u32).to_be_bytes());
        m.extend_from_slice(body);
        m
    }

    /// Feeds `stream` in pieces of `step` bytes; returns what was released.
    fn run(g: &mut FrameGuard, stream: &[u8], step: usize) -> Result<Vec<u8>, FrameError> {
        let mut out = Vec::new();
        for piece in stream.chunks(step) {
            g.feed(piece, &mut out)?;
        }
        Ok(out)
    }

    fn session() -> Vec<u8> {
        let mut s = 8u32.to_be_bytes().to_vec();
        s.extend_from_slice(&SSL_REQUEST.to_be_bytes());
        s.extend(startup());
        s.extend(typed(b'Q', b"SELECT 1\0"));
        s.extend(typed(b'P', b"s\0SELECT $1\0\x00\x01\x00\x00\x00\x17"));
        // Bind: no portal name, statement "s", one binary format, one parameter "hi",
        // no result formats.
        s.extend(typed(
            b'B',
            b"\0s\0\x00\x01\x00\x01\x00\x01\x00\x00\x00\x02hi\x00\x00",
        ));
        s.extend(typed(b'D', b"P\0"));
        s.extend(typed(b'E', b"\0\x00\x00\x00\x00"));
        s.extend(typed(b'S', b""));
        s.extend(typed(b'd', &[7; 300]));
        s.extend(typed(b'c', b""));
        s
    }

    #[test]
    fn passes_well_formed_sessions_in_any_pieces() {
        let s = session();
        for step in [1, 2, 3, 7, 64, s.len()] {
            let mut g = FrameGuard::new(1000);
            assert_eq!(run(&mut g, &s, step).unwrap(), s, "step {step}");
        }
    }

    #[test]
    fn refuses_lengths_before_bodies() {
        let mut g = FrameGuard::new(100);
        let mut s = startup();
        let mut query = vec![b'x'; 99];
        query.push(0);
        s.extend(typed(b'Q', &query));
        // A header announcing 101 bytes of body: refused from the header alone.
        s.extend_from_slice(&[b'Q', 0, 0, 0, 105]);
        assert_eq!(
            run(&mut g, &s, 1000),
            Err(FrameError::TooLarge {
                length: 105,
                limit: 100
            })
        );
        assert!(g.feed(b"anything", &mut Vec::new()).is_err());
        let mut g = FrameGuard::new(1 << 20);
        let mut huge = 10_001u32.to_be_bytes().to_vec();
        huge.extend_from_slice(&196_608u32.to_be_bytes());
        assert!(matches!(
            run(&mut g, &huge, 3),
            Err(FrameError::TooLarge { .. })
        ));
        let mut g = FrameGuard::new(1 << 20);
        assert_eq!(
            run(&mut g, &[0, 0, 0, 3, 0, 0, 0, 0], 8),
            Err(FrameError::BadLength(3))
        );
    }

    #[test]
    fn refuses_malformed_messages_before_their_last_byte() {
        let cases: Vec<(u8, &[u8])> = vec![
            (b'B', b"\0s\0\x00\x00\x00\x01\x7f\xff\xff\xff"), // parameter longer than the message
            (b'B', b"\0s\0\x00\x00\x00\x01\xff\xff\xff\xfe\x00\x00"), // length -2
            (b'P', b"s\0SELECT 1\0\x00\x02\x00\x00\x00\x17"), // two OIDs announced, one sent
            (b'E', b"\0\x00\x00\x00\x00extra"),               // bytes left over
            (b'D', b"X\0"),                                   // neither S nor P
            (b'S', b"x"),                                     // Sync has no body
            (b'Q', b"SELECT 1"),                              // unterminated
            (b'Q', b"SELECT 1\0; SELECT 2\0"),                // a zero inside
            (b'p', b"SCRAM-SHA-256\0\x00\x00\x10\x00abc"),    // SASL data shorter than said
        ];
        for (kind, body) in cases {
            let mut s = startup();
            s.extend(typed(kind, body));
            for step in [1, 5, s.len()] {
                let mut g = FrameGuard::new(1000);
                let mut out = Vec::new();
                let mut result = Ok(());
                for piece in s.chunks(step) {
                    result = g.feed(piece, &mut out);
                    if result.is_err() {
                        break;
                    }
                }
                assert!(result.is_err(), "{} {body:?} step {step}", kind as char);
                // The decoder never sees the whole message.
                assert!(out.len() < s.len(), "{} {body:?}", kind as char);
            }
        }
        let mut g = FrameGuard::new(1000);
        let mut bad_startup = 10u32.to_be_bytes().to_vec();
        bad_startup.extend_from_slice(&[0, 3, 0, 0, b'u', b'x']);
        assert!(run(&mut g, &bad_startup, 1).is_err());
    }
}
