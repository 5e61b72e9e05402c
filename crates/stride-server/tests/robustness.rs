//! Garbage on the wire: hundreds of connections send random bytes, malformed and
//! truncated messages, wrong lengths, protocol messages out of place and messages in
//! the wrong phase, while a well-behaved client keeps querying. Every bad connection
//! must end (an error or a close, within the timeouts), the good client must keep
//! getting answers, new clients must still connect, and no server thread may panic.
//! The same bytes can be explored further with the `pg_messages` fuzz target.

use crate::common;

use common::start_with;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use stride_server::ServerOptions;
use tokio_postgres::NoTls;

/// A small deterministic generator (xorshift), so a failure replays exactly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

fn startup(user: &str) -> Vec<u8> {
    let mut body = vec![0, 3, 0, 0];
    for s in ["user", user, "database", "stride"] {
        body.extend_from_slice(s.as_bytes());
        body.push(0);
    }
    body.push(0);
    let mut m = ((body.len() + 4) as u32).to_be_bytes().to_vec();
    m.extend(body);
    m
}

fn typed(t: u8, body: &[u8]) -> Vec<u8> {
    let mut m = vec![t];
    m.extend_from_slice(&((body.len() + 4) as u32).to_be_bytes());
    m.extend_from_slice(body);
    m
}

/// One hostile conversation, chosen by `kind`.
fn garbage(rng: &mut Rng, kind: usize) -> Vec<u8> {
    const TYPES: &[u8] = b"QPBDEHSCcdfXpF";
    match kind {
        // Random bytes from the first byte on.
        0 => {
            let n = rng.below(300);
            rng.bytes(n)
        }
        // A valid startup, then random typed messages with honest lengths.
        1 => {
            let mut out = startup("stride");
            for _ in 0..rng.below(20) {
                let t = TYPES[rng.below(TYPES.len())];
                let n = rng.below(60);
                let body = rng.bytes(n);
                out.extend(typed(t, &body));
            }
            out
        }
        // A valid startup, then messages whose lengths lie.
        2 => {
            let mut out = startup("stride");
            let t = TYPES[rng.below(TYPES.len())];
            out.push(t);
            let lie = match rng.below(4) {
                0 => 0u32,
                1 => 3,
                2 => u32::MAX,
                _ => rng.next() as u32,
            };
            out.extend_from_slice(&lie.to_be_bytes());
            let n = rng.below(40);
            out.extend(rng.bytes(n));
            out
        }
        // Startup messages that are malformed: bad version, no terminator, odd length.
        3 => {
            let mut m = startup("stride");
            let cut = 4 + rng.below(m.len() - 4);
            match rng.below(3) {
                0 => m[5] = rng.next() as u8,
                1 => m.truncate(cut),
                _ => {
                    let last = m.len() - 1;
                    m[last] = b'x';
                }
            }
            m
        }
        // Extended-protocol messages out of order and with garbage inside: Bind and
        // Execute without Parse, Parse with unterminated strings, Describe of
        // nothing, CopyData and CopyDone outside COPY, a Sync storm.
        4 => {
            let mut out = startup("stride");
            out.extend(typed(b'B', b"\0nope\0\x00\x01\x00\x01\x00\x02\xff\xff"));
            out.extend(typed(b'E', b"\0\0\0\0\0"));
            out.extend(typed(b'P', b"s1\0SELECT $1::INTEGER"));
            out.extend(typed(b'D', b"Sno such statement\0"));
            out.extend(typed(b'd', &rng.bytes(20)));
            out.extend(typed(b'c', b""));
            for _ in 0..rng.below(10) {
                out.extend(typed(b'S', b""));
            }
            out.extend(typed(b'Q', b"SELECT 1\0"));
            out
        }
        // A COPY FROM STDIN fed garbage, then abandoned or ended.
        _ => {
            let mut out = startup("stride");
            out.extend(typed(b'Q', b"COPY junk FROM STDIN\0"));
            let n = rng.below(200);
            out.extend(typed(b'd', &rng.bytes(n)));
            if rng.below(2) == 0 {
                out.extend(typed(b'c', b""));
            }
            out
        }
    }
}

/// Sends `bytes`, then reads until the server closes or stops answering; returns
/// whether the server closed the connection (rather than waiting for more).
fn converse(addr: SocketAddr, bytes: &[u8]) {
    let Ok(mut s) = TcpStream::connect(addr) else {
        return;
    };
    let _ = s.set_write_timeout(Some(Duration::from_secs(5)));
    let _ = s.write_all(bytes);
    let _ = s.set_read_timeout(Some(Duration::from_millis(300)));
    let mut buf = [0u8; 4096];
    for _ in 0..50 {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
}

#[test]
fn garbage_frames_do_not_disturb_other_clients() {
    // Panics anywhere in the process (server tasks included) are counted.
    let panics = Arc::new(AtomicUsize::new(0));
    let counter = panics.clone();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        counter.fetch_add(1, Ordering::SeqCst);
        previous(info);
    }));

    let addr = start_with(ServerOptions {
        listen: "127.0.0.1:0".into(),
        max_message_bytes: 1 << 20,
        auth_timeout: Duration::from_secs(2),
        ..ServerOptions::default()
    });
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (good, connection) = rt
        .block_on(tokio_postgres::connect(
            &format!("host=127.0.0.1 port={} user=stride", addr.port()),
            NoTls,
        ))
        .unwrap();
    rt.spawn(connection);
    rt.block_on(good.simple_query("CREATE TABLE kept AS SELECT i FROM range(1000) t(i)"))
        .unwrap();

    // Four threads of hostile clients.
    let workers: Vec<_> = (0..4u64)
        .map(|w| {
            std::thread::spawn(move || {
                let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ ((w + 1) * 0x1234_5678));
                for i in 0..150 {
                    let bytes = garbage(&mut rng, i % 6);
                    converse(addr, &bytes);
                }
            })
        })
        .collect();
    // Meanwhile the good client keeps working.
    for k in 0..40 {
        let r = rt
            .block_on(good.query_one(
                "SELECT count(*), sum(i) FROM kept WHERE i >= $1",
                &[&(k as i64)],
            ))
            .unwrap();
        assert_eq!(r.get::<_, i64>(0), 1000 - k as i64);
    }
    for w in workers {
        w.join().unwrap();
    }
    // New clients still connect and work.
    let (fresh, connection) = rt
        .block_on(tokio_postgres::connect(
            &format!("host=127.0.0.1 port={} user=stride", addr.port()),
            NoTls,
        ))
        .unwrap();
    rt.spawn(connection);
    let r = rt
        .block_on(fresh.query_one("SELECT count(*) FROM kept", &[]))
        .unwrap();
    assert_eq!(r.get::<_, i64>(0), 1000);
    assert_eq!(panics.load(Ordering::SeqCst), 0, "a server thread panicked");
}
