//! Who may connect, decided during the startup phase, before any SQL runs. Without
//! passwords the server trusts connections from the loopback interface only and turns
//! every other client away (SQLSTATE 28000). With a password file every client proves
//! its password with SCRAM-SHA-256, so the password itself never crosses the network
//! and a wrong one is refused with SQLSTATE 28P01. An unknown user goes through the
//! same exchange with a random verifier, so the answer never reveals which users
//! exist.
//!
//! The password file holds one `user:secret` per line (`#` starts a comment). The
//! secret is a SCRAM verifier as PostgreSQL stores one
//! (`SCRAM-SHA-256$4096:<salt>$<StoredKey>:<ServerKey>`, which `stride serve
//! --hash-password` prints), or a plain password, which is turned into a verifier with
//! a random salt when the file is read.

use async_trait::async_trait;
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use futures::Sink;
use pgwire::api::auth::sasl::scram::{gen_salted_password, ScramAuth, ScramSecret};
use pgwire::api::auth::sasl::SASLAuthStartupHandler;
use pgwire::api::auth::{
    AuthSource, DefaultServerParameterProvider, LoginInfo, Password, StartupHandler,
};
use pgwire::api::{ClientInfo, PidSecretKeyGenerator, RandomPidSecretKeyGenerator};
use pgwire::error::{ErrorInfo, PgWireError, PgWireResult};
use pgwire::messages::{PgWireBackendMessage, PgWireFrontendMessage};
use ring::rand::{SecureRandom, SystemRandom};
use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::Arc;
use stride::{Error, Result};

/// Iterations for verifiers made from plain passwords (PostgreSQL's default).
pub const SCRAM_ITERATIONS: usize = 4096;

/// A SCRAM verifier: what the server keeps instead of a password.
#[derive(Clone, PartialEq)]
struct Verifier {
    salt: Vec<u8>,
    iterations: usize,
    stored_key: Vec<u8>,
    server_key: Vec<u8>,
}

impl Verifier {
    fn secret(&self) -> ScramSecret {
        ScramSecret::Verifier {
            salt: self.salt.clone(),
            iterations: self.iterations,
            stored_key: self.stored_key.clone(),
            server_key: self.server_key.clone(),
        }
    }
}

/// SCRAM verifiers by user name.
#[derive(Clone)]
pub struct Passwords {
    users: HashMap<String, Verifier>,
}

impl Debug for Passwords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Names only: verifiers stay out of logs.
        f.debug_struct("Passwords")
            .field("users", &self.users.keys().collect::<Vec<_>>())
            .finish()
    }
}

fn random_bytes(n: usize) -> Result<Vec<u8>> {
    let mut b = vec![0u8; n];
    SystemRandom::new()
        .fill(&mut b)
        .map_err(|_| Error::internal("the system's random number generator failed"))?;
    Ok(b)
}

fn make_verifier(password: &str) -> Result<Verifier> {
    let salt = random_bytes(16)?;
    let salted = gen_salted_password(password, &salt, SCRAM_ITERATIONS);
    match ScramSecret::verifier_from_salted_password(salt, salted, SCRAM_ITERATIONS) {
        ScramSecret::Verifier {
            salt,
            iterations,
            stored_key,
            server_key,
        } => Ok(Verifier {
            salt,
            iterations,
            stored_key,
            server_key,
        }),
        ScramSecret::SaltedPassword { .. } => Err(Error::internal("SCRAM verifier")),
    }
}

/// PostgreSQL's text form of a SCRAM verifier for `password` (with a random salt):
/// `SCRAM-SHA-256$4096:<salt>$<StoredKey>:<ServerKey>`, for password files.
pub fn hash_password(password: &str) -> Result<String> {
    let v = make_verifier(password)?;
    Ok(format!(
        "SCRAM-SHA-256${}:{}${}:{}",
        v.iterations,
        BASE64.encode(&v.salt),
        BASE64.encode(&v.stored_key),
        BASE64.encode(&v.server_key)
    ))
}

fn parse_verifier(text: &str) -> Option<Verifier> {
    let rest = text.strip_prefix("SCRAM-SHA-256$")?;
    let (iter_salt, keys) = rest.split_once('$')?;
    let (iterations, salt) = iter_salt.split_once(':')?;
    let (stored, server) = keys.split_once(':')?;
    Some(Verifier {
        iterations: iterations.parse().ok().filter(|&n| n > 0)?,
        salt: BASE64.decode(salt).ok()?,
        stored_key: BASE64.decode(stored).ok().filter(|k| k.len() == 32)?,
        server_key: BASE64.decode(server).ok().filter(|k| k.len() == 32)?,
    })
}

impl Passwords {
    /// Reads a password file (see the module doc); errors name the file and line.
    pub fn parse(text: &str, origin: &str) -> Result<Passwords> {
        let mut users = HashMap::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |why: &str| Error::invalid_input(format!("{origin}, line {}: {why}", n + 1));
            let (user, secret) = line
                .split_once(':')
                .ok_or_else(|| bad("expected user:password or user:SCRAM-SHA-256$..."))?;
            if user.is_empty() || secret.is_empty() {
                return Err(bad("the user name and the password must not be empty"));
            }
            let verifier = if secret.starts_with("SCRAM-SHA-256$") {
                parse_verifier(secret).ok_or_else(|| {
                    bad("malformed SCRAM verifier (expected SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>)")
                })?
            } else {
                make_verifier(secret)?
            };
            if users.insert(user.to_string(), verifier).is_some() {
                return Err(bad(&format!("user \"{user}\" is listed twice")));
            }
        }
        if users.is_empty() {
            return Err(Error::invalid_input(format!(
                "{origin} lists no users; add lines such as alice:secret"
            )));
        }
        Ok(Passwords { users })
    }

    pub fn read(path: &str) -> Result<Passwords> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::io(format!("cannot read the password file \"{path}\": {e}")))?;
        Passwords::parse(&text, &format!("password file \"{path}\""))
    }
}

#[async_trait]
impl AuthSource for Passwords {
    async fn get_password(&self, login: &LoginInfo) -> PgWireResult<Password> {
        // Only SCRAM is offered, which asks for verifiers, never for passwords.
        Err(PgWireError::InvalidPassword(
            login.user().unwrap_or_default().to_owned(),
        ))
    }

    async fn get_scram_secret(&self, login: &LoginInfo) -> PgWireResult<(ScramSecret, Option<()>)> {
        let user = login.user().unwrap_or_default();
        match self.users.get(user) {
            Some(v) => Ok((v.secret(), None)),
            // A verifier no password matches: the exchange fails like a wrong password.
            None => {
                let key = || random_bytes(32).map_err(|e| PgWireError::ApiError(Box::new(e)));
                Ok((
                    ScramSecret::Verifier {
                        salt: key()?,
                        iterations: SCRAM_ITERATIONS,
                        stored_key: key()?,
                        server_key: key()?,
                    },
                    None,
                ))
            }
        }
    }
}

/// The ParameterStatus values sent at startup: pgwire's, with the values SHOW gives
/// for the parameters stride knows (server_version, DateStyle, IntervalStyle,
/// search_path, TimeZone), so a client sees one server either way.
fn server_parameters() -> DefaultServerParameterProvider {
    let settings = stride_common::Settings::default();
    let show = |name: &str| {
        settings
            .get(name)
            .map(|v| v.to_string())
            .unwrap_or_default()
    };
    let mut p = DefaultServerParameterProvider::default();
    p.server_version = show("server_version");
    p.date_style = show("datestyle");
    p.interval_style = show("intervalstyle");
    p.search_path = show("search_path");
    p.time_zone = show("timezone");
    p
}

/// Process ids (counted up, unique in this server) and secret keys of sessions.
static PIDS: std::sync::LazyLock<RandomPidSecretKeyGenerator> =
    std::sync::LazyLock::new(RandomPidSecretKeyGenerator::default);

/// Trust without a password (loopback clients only; checked by [`Startup`]): pgwire's
/// `NoopStartupHandler`, with stride's [`server_parameters`].
struct Trust;

#[async_trait]
impl StartupHandler for Trust {
    async fn on_startup<C>(
        &self,
        client: &mut C,
        message: PgWireFrontendMessage,
    ) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        if let PgWireFrontendMessage::Startup(ref startup) = message {
            pgwire::api::auth::protocol_negotiation(client, startup).await?;
            pgwire::api::auth::save_startup_parameters_to_metadata(client, startup);
            let (pid, secret_key) = PIDS.generate(client);
            client.set_pid_and_secret_key(pid, secret_key);
            pgwire::api::auth::finish_authentication(client, &server_parameters()).await?;
        }
        Ok(())
    }
}

/// The startup handler the server uses for every connection.
pub enum Startup {
    /// No passwords: loopback clients are trusted, others refused.
    LoopbackTrust,
    Scram(Box<SASLAuthStartupHandler<DefaultServerParameterProvider>>),
}

impl Startup {
    pub fn new(passwords: Option<Passwords>) -> Startup {
        match passwords {
            None => Startup::LoopbackTrust,
            Some(p) => {
                let mut scram = ScramAuth::new(Arc::new(p));
                scram.set_iterations(SCRAM_ITERATIONS);
                Startup::Scram(Box::new(
                    SASLAuthStartupHandler::new(Arc::new(server_parameters())).with_scram(scram),
                ))
            }
        }
    }
}

#[async_trait]
impl StartupHandler for Startup {
    async fn on_startup<C>(
        &self,
        client: &mut C,
        message: PgWireFrontendMessage,
    ) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        match self {
            Startup::Scram(sasl) => sasl.on_startup(client, message).await,
            Startup::LoopbackTrust if client.socket_addr().ip().is_loopback() => {
                Trust.on_startup(client, message).await
            }
            Startup::LoopbackTrust => Err(PgWireError::UserError(Box::new(ErrorInfo::new(
                "FATAL".into(),
                "28000".into(),
                format!(
                    "no password is configured, so stride accepts connections from this machine only (not from {}); start the server with --password-file",
                    client.socket_addr().ip()
                ),
            )))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_files() {
        let text = hash_password("pencil").unwrap();
        assert!(text.starts_with("SCRAM-SHA-256$4096:"), "{text}");
        let file = format!("# users\nalice:{text}\nbob:plain secret\n\n");
        let p = Passwords::parse(&file, "f").unwrap();
        assert_eq!(p.users.len(), 2);
        assert!(p.users["alice"] == parse_verifier(&text).unwrap());
        for (bad, why) in [
            ("alice", "line 1: expected user:password"),
            ("alice:SCRAM-SHA-256$x", "malformed SCRAM verifier"),
            ("a:1\na:2", "listed twice"),
            ("# nothing", "lists no users"),
        ] {
            let e = Passwords::parse(bad, "f").unwrap_err();
            assert!(e.message.contains(why), "{bad}: {e}");
        }
        assert!(!format!("{p:?}").contains("SCRAM"));
    }
}
