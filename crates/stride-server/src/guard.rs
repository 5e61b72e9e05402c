//! The first thing a client's bytes meet: [`GuardedStream`] wraps the socket and
//! follows the protocol's framing as bytes arrive ([`FrameGuard`]), so an oversized
//! message is refused from its length header, before its body is read into memory.
//! Untyped startup-phase messages (StartupMessage, SSLRequest, GSSENCRequest,
//! CancelRequest) may hold at most [`MAX_STARTUP_BYTES`]; typed messages after them at
//! most the server's `max_message_bytes`. The stream also notes when bytes last moved,
//! for the idle-session timeout (see `connection.rs`).

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
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::TooLarge { length, limit } => write!(
                f,
                "a message of {length} bytes exceeds the server's limit of {limit} bytes (stride serve --max-message-bytes)"
            ),
            FrameError::BadLength(n) => write!(f, "invalid message length {n}"),
        }
    }
}

/// Follows message boundaries through a byte stream and checks each message's
/// announced length against the limits.
#[derive(Debug, Clone)]
pub struct FrameGuard {
    max_message: usize,
    /// Still in the startup phase (untyped messages).
    startup: bool,
    /// Header bytes of the message being read.
    header: [u8; 8],
    have: usize,
    /// Body bytes still to pass before the next header.
    remaining: usize,
    failed: Option<FrameError>,
}

impl FrameGuard {
    pub fn new(max_message: usize) -> FrameGuard {
        FrameGuard {
            max_message,
            startup: true,
            header: [0; 8],
            have: 0,
            remaining: 0,
            failed: None,
        }
    }

    /// The error that stopped the stream, if any.
    pub fn failure(&self) -> Option<&FrameError> {
        self.failed.as_ref()
    }

    /// Follows `bytes` (the next bytes read from the client). Once it fails, every
    /// later call fails too.
    pub fn feed(&mut self, mut bytes: &[u8]) -> Result<(), FrameError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        while !bytes.is_empty() {
            if self.remaining > 0 {
                let n = self.remaining.min(bytes.len());
                self.remaining -= n;
                bytes = &bytes[n..];
                continue;
            }
            // Untyped: length(4) code(4); typed: type(1) length(4).
            let header_len = if self.startup { 8 } else { 5 };
            let n = (header_len - self.have).min(bytes.len());
            self.header[self.have..self.have + n].copy_from_slice(&bytes[..n]);
            self.have += n;
            bytes = &bytes[n..];
            if self.have < header_len {
                break;
            }
            self.have = 0;
            let at = |i: usize| {
                u32::from_be_bytes([
                    self.header[i],
                    self.header[i + 1],
                    self.header[i + 2],
                    self.header[i + 3],
                ]) as usize
            };
            let result = if self.startup {
                let length = at(0);
                let code = at(4) as u32;
                if length < 8 {
                    Err(FrameError::BadLength(length))
                } else if length > MAX_STARTUP_BYTES {
                    Err(FrameError::TooLarge {
                        length,
                        limit: MAX_STARTUP_BYTES,
                    })
                } else {
                    // Requests for encryption or cancellation keep the startup phase.
                    if !matches!(code, SSL_REQUEST | GSSENC_REQUEST | CANCEL_REQUEST) {
                        self.startup = false;
                    }
                    Ok(length - 8)
                }
            } else {
                let length = at(1);
                if length < 4 {
                    Err(FrameError::BadLength(length))
                } else if length - 4 > self.max_message {
                    Err(FrameError::TooLarge {
                        length,
                        limit: self.max_message,
                    })
                } else {
                    Ok(length - 4)
                }
            };
            match result {
                Ok(body) => self.remaining = body,
                Err(e) => {
                    self.failed = Some(e.clone());
                    return Err(e);
                }
            }
        }
        Ok(())
    }
}

/// The client's socket, with its framing checked as it is read.
pub struct GuardedStream<S> {
    inner: S,
    guard: FrameGuard,
    /// Set whenever bytes move in either direction (cleared by the idle timer).
    pub activity: Arc<AtomicBool>,
}

impl<S> GuardedStream<S> {
    pub fn new(inner: S, max_message: usize) -> Self {
        GuardedStream {
            inner,
            guard: FrameGuard::new(max_message),
            activity: Arc::new(AtomicBool::new(true)),
        }
    }

    pub fn failure(&self) -> Option<&FrameError> {
        self.guard.failure()
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

impl<S: AsyncRead + Unpin> AsyncRead for GuardedStream<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Some(e) = this.guard.failure() {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::InvalidData,
                e.to_string(),
            )));
        }
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                let new = &buf.filled()[before..];
                if !new.is_empty() {
                    this.activity.store(true, Ordering::Relaxed);
                }
                match this.guard.feed(new) {
                    Ok(()) => Poll::Ready(Ok(())),
                    Err(e) => {
                        // The offending bytes never reach the protocol's buffer.
                        buf.set_filled(before);
                        Poll::Ready(Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            e.to_string(),
                        )))
                    }
                }
            }
            other => other,
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

    #[test]
    fn follows_frames_byte_by_byte() {
        let mut stream = Vec::new();
        // SSLRequest, then the startup message, then queries.
        stream.extend_from_slice(&8u32.to_be_bytes());
        stream.extend_from_slice(&SSL_REQUEST.to_be_bytes());
        stream.extend(startup());
        stream.extend(typed(b'Q', b"SELECT 1\0"));
        stream.extend(typed(b'Q', &vec![b'x'; 100]));
        let mut g = FrameGuard::new(100);
        for b in &stream {
            g.feed(std::slice::from_ref(b)).unwrap();
        }
        let mut g = FrameGuard::new(100);
        g.feed(&stream).unwrap();
        // One byte over the limit, refused from the header alone.
        let mut over = typed(b'Q', &[b'x'; 101]);
        over.truncate(5);
        assert_eq!(
            g.feed(&over),
            Err(FrameError::TooLarge {
                length: 105,
                limit: 100
            })
        );
        assert!(g.feed(b"anything").is_err());
    }

    #[test]
    fn startup_limits() {
        let mut g = FrameGuard::new(1 << 20);
        let mut huge = 10_001u32.to_be_bytes().to_vec();
        huge.extend_from_slice(&196_608u32.to_be_bytes());
        assert!(matches!(g.feed(&huge), Err(FrameError::TooLarge { .. })));
        let mut g = FrameGuard::new(1 << 20);
        assert_eq!(
            g.feed(&[0, 0, 0, 3, 0, 0, 0, 0]),
            Err(FrameError::BadLength(3))
        );
        let mut g = FrameGuard::new(1 << 20);
        g.feed(&startup()).unwrap();
        assert_eq!(g.feed(&[b'Q', 0, 0, 0, 2]), Err(FrameError::BadLength(2)));
    }
}
