//! One client connection, from accept to close: the socket is wrapped in
//! [`GuardedStream`] (message sizes checked from their headers), SSL and GSS
//! encryption requests are declined (the server speaks plain TCP), and the messages
//! go to pgwire's `process_message` and on to `auth.rs` (startup) and `handler.rs`
//! (queries, COPY, cancel). The transaction status ReadyForQuery reports is set from
//! the session's connection before each message and each error (`handler.rs`
//! reports it after a simple query itself).
//!
//! Three clocks run beside the loop: a client must finish authenticating within the
//! authentication timeout of connecting, or it is dropped; once authenticated, a
//! session left idle (no bytes either way, nothing running) longer than the idle
//! timeout is ended with SQLSTATE 57P05, as PostgreSQL's `idle_session_timeout` does;
//! and a session whose transaction stays open with nothing running longer than its
//! `idle_in_transaction_session_timeout` is ended with 25P03 (the transaction rolls
//! back).
//! A failure the client can still be told about (an oversized or malformed message, a
//! timeout) is sent as a FATAL ErrorResponse before the connection closes.

use crate::guard::GuardedStream;
use crate::handler::Handlers;
use futures::{SinkExt, StreamExt};
use pgwire::api::{ClientInfo, DefaultClient, PgWireConnectionState};
use pgwire::error::{ErrorInfo, PgWireError};
use pgwire::messages::response::{GssEncResponse, SslResponse};
use pgwire::messages::{PgWireBackendMessage, PgWireFrontendMessage, SslNegotiationMetaMessage};
use pgwire::tokio::server::{process_error, process_message, PgWireMessageServerCodec};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_util::codec::Framed;

/// How long clients have, and how large their messages may be.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_message_bytes: usize,
    pub auth_timeout: Duration,
    /// None: sessions may stay idle indefinitely.
    pub idle_timeout: Option<Duration>,
}

type Socket = Framed<GuardedStream<TcpStream>, PgWireMessageServerCodec<String>>;

fn fatal(code: &str, message: String) -> PgWireBackendMessage {
    PgWireBackendMessage::ErrorResponse(ErrorInfo::new("FATAL".into(), code.into(), message).into())
}

/// Tells the client why it is being disconnected (if it still listens).
async fn goodbye(socket: &mut Socket, code: &str, message: String) {
    let _ = socket.send(fatal(code, message)).await;
    let _ = socket.close().await;
}

/// Serves one client until it leaves, breaks a limit or times out.
pub async fn serve(tcp: TcpStream, handlers: Arc<Handlers>, limits: Limits) {
    let Ok(peer) = tcp.peer_addr() else { return };
    let _ = tcp.set_nodelay(true);
    let stream = GuardedStream::new(tcp, limits.max_message_bytes);
    let activity = stream.activity.clone();
    let mut socket: Socket = Framed::new(
        stream,
        PgWireMessageServerCodec::new(DefaultClient::new(peer, false)),
    );
    let (handler, startup) = handlers.parts();
    let auth_deadline = tokio::time::sleep(limits.auth_timeout);
    tokio::pin!(auth_deadline);
    loop {
        let authenticating = matches!(
            socket.state(),
            PgWireConnectionState::AwaitingSslRequest
                | PgWireConnectionState::AwaitingStartup
                | PgWireConnectionState::AuthenticationInProgress
        );
        let next = if authenticating {
            tokio::select! {
                _ = &mut auth_deadline => {
                    goodbye(
                        &mut socket,
                        "08006",
                        format!(
                            "authentication did not finish within {} seconds (stride serve --auth-timeout)",
                            limits.auth_timeout.as_secs()
                        ),
                    )
                    .await;
                    return;
                }
                m = socket.next() => m,
            }
        } else {
            // A transaction left open may stay idle only so long.
            let in_transaction = handler.idle_in_transaction_left();
            let waited = {
                let next = async {
                    match limits.idle_timeout {
                        Some(idle) => next_before_idle(&mut socket, idle, &activity).await,
                        None => Some(socket.next().await),
                    }
                };
                let transaction_ends = async {
                    match in_transaction {
                        Some(left) => tokio::time::sleep(left).await,
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    m = next => m.ok_or("idle"),
                    _ = transaction_ends => Err("transaction"),
                }
            };
            match waited {
                Ok(m) => m,
                Err(why) => {
                    let (code, message) = if why == "idle" {
                        (
                            "57P05",
                            format!(
                                "terminating connection due to idle-session timeout ({} seconds without activity; stride serve --idle-timeout)",
                                limits.idle_timeout.unwrap_or_default().as_secs()
                            ),
                        )
                    } else {
                        (
                            "25P03",
                            "terminating connection due to idle-in-transaction timeout (idle_in_transaction_session_timeout); the transaction was rolled back".to_string(),
                        )
                    };
                    goodbye(&mut socket, code, message).await;
                    return;
                }
            }
        };
        let message = match next {
            None => return,
            Some(Ok(m)) => m,
            Some(Err(e)) => {
                let why = match socket.get_ref().failure() {
                    Some(f) => f.to_string(),
                    None => match &e {
                        PgWireError::IoError(_) => return,
                        other => format!("invalid message: {other}"),
                    },
                };
                // The client may still be sending the refused message.
                let _ = socket.send(fatal("08P01", why)).await;
                socket
                    .get_mut()
                    .close_and_drain(limits.max_message_bytes, Duration::from_secs(2))
                    .await;
                return;
            }
        };
        match message {
            PgWireFrontendMessage::SslNegotiation(SslNegotiationMetaMessage::PostgresSsl(_)) => {
                if socket
                    .send(PgWireBackendMessage::SslResponse(SslResponse::Refuse))
                    .await
                    .is_err()
                {
                    return;
                }
                continue;
            }
            PgWireFrontendMessage::SslNegotiation(SslNegotiationMetaMessage::PostgresGss(_)) => {
                if socket
                    .send(PgWireBackendMessage::GssEncResponse(GssEncResponse::Refuse))
                    .await
                    .is_err()
                {
                    return;
                }
                continue;
            }
            PgWireFrontendMessage::SslNegotiation(SslNegotiationMetaMessage::None) => {
                // Not an encryption request: the startup message itself follows.
                socket.set_state(PgWireConnectionState::AwaitingStartup);
                continue;
            }
            PgWireFrontendMessage::Terminate(_) => return,
            _ => {}
        }
        if matches!(socket.state(), PgWireConnectionState::AwaitingSslRequest) {
            socket.set_state(PgWireConnectionState::AwaitingStartup);
        }
        let extended_query = match socket.state() {
            PgWireConnectionState::CopyInProgress(extended) => extended,
            _ => message.is_extended_query(),
        };
        let is_cancel = matches!(message, PgWireFrontendMessage::CancelRequest(_));
        // The status ReadyForQuery reports is the connection's, not what pgwire
        // derives from the responses (a failed COMMIT leaves no transaction open).
        socket.set_transaction_status(handler.transaction_status());
        let result = process_message(
            message,
            &mut socket,
            startup.clone(),
            handler.clone(),
            handler.clone(),
            handler.clone(),
            handler.clone(),
        )
        .await;
        if let Err(mut e) = result {
            // SCRAM clients leave the user out of their messages (it was in the startup
            // message): name it in the error.
            if let PgWireError::InvalidPassword(name) = &mut e {
                if name.is_empty() {
                    if let Some(user) = socket.metadata().get("user") {
                        *name = user.clone();
                    }
                }
            }
            let fatal = e.is_fatal();
            socket.set_transaction_status(handler.transaction_status());
            if process_error(&mut socket, e, extended_query).await.is_err() || fatal {
                let _ = socket.close().await;
                return;
            }
        }
        if is_cancel {
            return;
        }
    }
}

/// The next message, or None when no byte moved in either direction for a whole
/// `idle` period. Statements run and stream their rows outside this wait, so only a
/// session waiting for its client can time out.
async fn next_before_idle(
    socket: &mut Socket,
    idle: Duration,
    activity: &Arc<std::sync::atomic::AtomicBool>,
) -> Option<Option<Result<PgWireFrontendMessage, PgWireError>>> {
    activity.store(false, Ordering::Relaxed);
    loop {
        tokio::select! {
            m = socket.next() => return Some(m),
            _ = tokio::time::sleep(idle) => {
                if !activity.swap(false, Ordering::Relaxed) {
                    return None;
                }
            }
        }
    }
}
