//! Feeds arbitrary bytes to what reads a client's messages before anything else does:
//! the server's frame guard (message boundaries, size limits and layouts, fed in
//! pieces of every size), then pgwire's frontend message decoder, in each connection
//! phase (awaiting SSL negotiation, awaiting the startup message, after startup), over
//! what the guard let through, as in the server. Each must end in messages or an
//! error, never a panic or a hang. Run with
//! `cargo +nightly fuzz run pg_messages` from this folder; the server's robustness
//! test (`cargo test -p stride-server --test robustness`) sends such bytes over real
//! connections.

#![no_main]

use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;
use pgwire::messages::{DecodeContext, PgWireFrontendMessage};
use stride_server::guard::FrameGuard;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, body)) = data.split_first() else {
        return;
    };
    // What the guard lets through must be a prefix of the input.
    let mut guard = FrameGuard::new(1 << (flags % 24));
    let mut passed = Vec::new();
    for piece in body.chunks(1 + (flags as usize >> 3)) {
        if guard.feed(piece, &mut passed).is_err() {
            break;
        }
    }
    assert!(body.starts_with(&passed));
    // The decoder meets only what the guard passed (as in the server), and must not
    // panic on it in any phase.
    for phase in 0..3 {
        let mut ctx = DecodeContext::default();
        ctx.awaiting_frontend_ssl = phase == 0;
        ctx.awaiting_frontend_startup = phase < 2;
        let mut buf = BytesMut::from(&passed[..]);
        // Decoding consumes input or stops; bound the loop by the input's size.
        for _ in 0..=passed.len() {
            let before = buf.len();
            match PgWireFrontendMessage::decode(&mut buf, &ctx) {
                Ok(Some(_)) if buf.len() < before => {}
                _ => break,
            }
        }
    }
});
