//! Who may connect and what a client may send: SCRAM-SHA-256 with a password file
//! (right and wrong passwords, unknown users), loopback-only trust without one, the
//! authentication and idle timeouts, and message size limits checked from headers.

use crate::common;

use common::start_with;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};
use stride_server::auth::{hash_password, Passwords};
use stride_server::ServerOptions;
use tokio_postgres::NoTls;

async fn connect(
    addr: SocketAddr,
    user: &str,
    password: Option<&str>,
) -> Result<tokio_postgres::Client, tokio_postgres::Error> {
    let mut config = format!(
        "host={} port={} user={user} dbname=stride",
        addr.ip(),
        addr.port()
    );
    if let Some(p) = password {
        config.push_str(&format!(" password='{p}'"));
    }
    let (client, connection) = tokio_postgres::connect(&config, NoTls).await?;
    tokio::spawn(connection);
    Ok(client)
}

fn code(e: &tokio_postgres::Error) -> Option<String> {
    e.code().map(|c| c.code().to_string())
}

fn options() -> ServerOptions {
    ServerOptions {
        listen: "127.0.0.1:0".into(),
        ..ServerOptions::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scram_passwords() {
    // One user with a stored verifier, one with a plain password in the file.
    let file = format!(
        "# stride users\nalice:{}\nbob:hunter2\n",
        hash_password("correct horse").unwrap()
    );
    let addr = start_with(ServerOptions {
        passwords: Some(Passwords::parse(&file, "test file").unwrap()),
        ..options()
    });
    let alice = connect(addr, "alice", Some("correct horse")).await.unwrap();
    assert_eq!(alice.query("SELECT 1", &[]).await.unwrap().len(), 1);
    let bob = connect(addr, "bob", Some("hunter2")).await.unwrap();
    assert_eq!(bob.query("SELECT 2", &[]).await.unwrap().len(), 1);

    let e = connect(addr, "alice", Some("wrong")).await.err().unwrap();
    assert_eq!(code(&e).as_deref(), Some("28P01"), "{e:?}");
    // An unknown user fails the same way, without saying the user is unknown.
    let e = connect(addr, "mallory", Some("correct horse"))
        .await
        .err()
        .unwrap();
    assert_eq!(code(&e).as_deref(), Some("28P01"), "{e:?}");
    // No password at all: the client cannot answer the SCRAM challenge.
    assert!(connect(addr, "alice", None).await.is_err());
    // The sessions that did authenticate are unaffected.
    assert_eq!(alice.query("SELECT 3", &[]).await.unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_passwords_only_loopback_clients_connect() {
    let local = start_with(options());
    let c = connect(local, "anyone", None).await.unwrap();
    assert_eq!(c.query("SELECT 1", &[]).await.unwrap().len(), 1);

    // A client from another address: listen on every interface and connect through
    // this machine's first non-loopback address, if it has one.
    let Some(ip) = non_loopback_ip() else {
        println!("no non-loopback address: the remote-client check is skipped");
        return;
    };
    let any = start_with(ServerOptions {
        listen: "0.0.0.0:0".into(),
        ..options()
    });
    let remote = SocketAddr::new(ip, any.port());
    let e = connect(remote, "anyone", None).await.err().unwrap();
    assert_eq!(code(&e).as_deref(), Some("28000"), "{e:?}");
    assert!(format!("{e:?}").contains("--password-file"), "{e:?}");
}

fn non_loopback_ip() -> Option<std::net::IpAddr> {
    // Connecting a UDP socket sends nothing; it only picks the outgoing address.
    let s = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    s.connect("192.0.2.1:9").ok()?;
    let ip = s.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

/// Reads until the server closes the connection (or `limit` passes); returns what
/// it sent and how long it took.
fn read_until_closed(s: &mut TcpStream, limit: Duration) -> (Vec<u8>, Duration) {
    let start = Instant::now();
    s.set_read_timeout(Some(limit)).unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
    }
    (out, start.elapsed())
}

#[test]
fn silent_clients_are_dropped_after_the_auth_timeout() {
    let addr = start_with(ServerOptions {
        auth_timeout: Duration::from_secs(1),
        ..options()
    });
    // Connects and sends nothing.
    let mut silent = TcpStream::connect(addr).unwrap();
    // Sends half a startup message and stops.
    let mut half = TcpStream::connect(addr).unwrap();
    half.write_all(&[0, 0, 0, 40, 0, 3, 0, 0, b'u']).unwrap();
    for s in [&mut silent, &mut half] {
        let (sent, took) = read_until_closed(s, Duration::from_secs(10));
        assert!(took < Duration::from_secs(5), "closed after {took:?}");
        assert!(
            String::from_utf8_lossy(&sent).contains("authentication did not finish"),
            "{}",
            String::from_utf8_lossy(&sent)
        );
    }
    // A client that authenticates in time is served, and stays.
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let c = connect(addr, "stride", None).await.unwrap();
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(c.query("SELECT 1", &[]).await.unwrap().len(), 1);
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_sessions_end_but_busy_ones_do_not() {
    let addr = start_with(ServerOptions {
        idle_timeout: Some(Duration::from_secs(1)),
        ..options()
    });
    let c = connect(addr, "stride", None).await.unwrap();
    // A statement that runs longer than the idle timeout is not idleness.
    let r = c
        .query_one(
            "SELECT count(*) FROM range(30000000) t(i) WHERE i % 7 = 3",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(r.get::<_, i64>(0), 4285714);
    // Activity keeps a session alive.
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(600)).await;
        c.query("SELECT 1", &[]).await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let e = c.query("SELECT 1", &[]).await.unwrap_err();
    assert!(c.is_closed(), "{e:?}");
}

/// `idle_in_transaction_session_timeout` ends a session whose transaction stays open
/// with nothing running (SQLSTATE 25P03), and its changes are rolled back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_idle_in_a_transaction_end() {
    let addr = start_with(options());
    let c = connect(addr, "stride", None).await.unwrap();
    c.batch_execute(
        "CREATE TABLE idle_t(x INTEGER); SET idle_in_transaction_session_timeout = '300ms'",
    )
    .await
    .unwrap();
    // Outside a transaction, idleness is fine.
    tokio::time::sleep(Duration::from_millis(500)).await;
    c.batch_execute("BEGIN; INSERT INTO idle_t VALUES (1)")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    c.batch_execute("INSERT INTO idle_t VALUES (2)")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(900)).await;
    let e = c.batch_execute("COMMIT").await.unwrap_err();
    assert!(
        c.is_closed() || code(&e).as_deref() == Some("25P03"),
        "{e:?}"
    );
    let other = connect(addr, "stride", None).await.unwrap();
    let n: i64 = other
        .query_one("SELECT count(*) FROM idle_t", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(n, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_messages_are_refused_from_their_header() {
    let addr = start_with(ServerOptions {
        max_message_bytes: 1 << 20,
        ..options()
    });
    let c = connect(addr, "stride", None).await.unwrap();
    let small = format!("SELECT '{}' AS s", "x".repeat(500_000));
    assert_eq!(c.query(small.as_str(), &[]).await.unwrap().len(), 1);
    // The server answers as soon as the header arrives, while the client may still be
    // writing: it sees either the error or its connection closed.
    let big = format!("SELECT '{}' AS s", "x".repeat(2 << 20));
    let e = c.simple_query(&big).await.unwrap_err();
    assert!(
        code(&e).as_deref() == Some("08P01") || c.is_closed(),
        "{e:?}"
    );
    // What the server says, seen on a raw connection that sends only the header.
    let mut raw = TcpStream::connect(addr).unwrap();
    let body = b"\x00\x03\x00\x00user\x00stride\x00\x00";
    let mut startup = ((body.len() + 4) as u32).to_be_bytes().to_vec();
    startup.extend_from_slice(body);
    raw.write_all(&startup).unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 1024];
    while !seen.ends_with(&[b'Z', 0, 0, 0, 5, b'I']) {
        let n = raw.read(&mut buf).unwrap();
        assert!(n > 0, "the server closed during startup");
        seen.extend_from_slice(&buf[..n]);
    }
    let mut header = vec![b'Q'];
    header.extend_from_slice(&((3u32 << 20) + 4).to_be_bytes());
    raw.write_all(&header).unwrap();
    let (sent, _) = read_until_closed(&mut raw, Duration::from_secs(10));
    let text = String::from_utf8_lossy(&sent);
    assert!(
        text.contains("08P01")
            && text
                .contains("a message of 3145732 bytes exceeds the server's limit of 1048576 bytes"),
        "{text}"
    );
    // Other clients are unaffected.
    let d = connect(addr, "stride", None).await.unwrap();
    assert_eq!(d.query("SELECT 1", &[]).await.unwrap().len(), 1);

    // A startup message over 10,000 bytes is refused before it is read.
    let mut s = TcpStream::connect(addr).unwrap();
    let mut m = 1_000_000u32.to_be_bytes().to_vec();
    m.extend_from_slice(&196_608u32.to_be_bytes());
    s.write_all(&m).unwrap();
    let (sent, _) = read_until_closed(&mut s, Duration::from_secs(10));
    assert!(
        String::from_utf8_lossy(&sent).contains("exceeds the server's limit of 10000 bytes"),
        "{}",
        String::from_utf8_lossy(&sent)
    );
}
