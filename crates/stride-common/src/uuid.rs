//! UUIDs: parsing DuckDB's input forms, formatting, and the stored form.
//!
//! A UUID is stored as an i128 whose top bit is flipped ([`crate::flip128`], as DuckDB
//! stores it), so that comparing the stored values as signed integers orders UUIDs as
//! their text: byte by byte, `00000000-...` first and `ffffffff-...` last.

pub use crate::flip128::{from_physical, to_physical};

/// Parses a UUID as DuckDB does: 32 hexadecimal digits in either case, with hyphens
/// anywhere between them, optionally inside braces (`{...}`). No spaces.
pub fn parse(s: &str) -> Option<u128> {
    let b = s.as_bytes();
    let body = match b.first() {
        Some(b'{') => b.strip_prefix(b"{")?.strip_suffix(b"}")?,
        _ => b,
    };
    let mut v = 0u128;
    let mut digits = 0;
    for &c in body {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            b'-' => continue,
            _ => return None,
        };
        if digits == 32 {
            return None;
        }
        v = (v << 4) | d as u128;
        digits += 1;
    }
    (digits == 32).then_some(v)
}

/// Appends the lower-case hyphenated form (`8-4-4-4-12` digits).
pub fn write(out: &mut String, bits: u128) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for i in 0..32 {
        if matches!(i, 8 | 12 | 16 | 20) {
            out.push('-');
        }
        let nibble = (bits >> (124 - 4 * i)) & 0xf;
        out.push(HEX[nibble as usize] as char);
    }
}

pub fn format(bits: u128) -> String {
    let mut s = String::with_capacity(36);
    write(&mut s, bits);
    s
}

/// A version 4 (random) UUID.
pub fn random_v4() -> u128 {
    let mut bytes = [0u8; 16];
    fill_random(&mut bytes);
    let mut v = u128::from_be_bytes(bytes);
    // version 4, variant 10xx
    v = (v & !(0xf << 76)) | (0x4 << 76);
    v = (v & !(0x3 << 62)) | (0x2 << 62);
    v
}

/// A version 7 (time-ordered) UUID, RFC 9562: the low 48 bits of `unix_ms`
/// (milliseconds since the epoch) first, then the version, the variant and random bits.
pub fn random_v7(unix_ms: i64) -> u128 {
    let mut bytes = [0u8; 16];
    fill_random(&mut bytes);
    let random = u128::from_be_bytes(bytes);
    let ms = (unix_ms as u64 & 0xffff_ffff_ffff) as u128;
    let mut v = (ms << 80) | (random & ((1u128 << 80) - 1));
    v = (v & !(0xf << 76)) | (0x7 << 76);
    v = (v & !(0x3 << 62)) | (0x2 << 62);
    v
}

/// The version field of a UUID (its 13th hexadecimal digit), 0 to 15.
pub fn version(bits: u128) -> u32 {
    ((bits >> 76) & 0xf) as u32
}

/// The 48-bit Unix timestamp in milliseconds at the front of a version 7 UUID.
pub fn v7_unix_ms(bits: u128) -> i64 {
    (bits >> 80) as i64
}

fn fill_random(out: &mut [u8]) {
    use std::cell::Cell;
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    thread_local! {
        static STATE: Cell<u64> = Cell::new({
            let mut h = RandomState::new().build_hasher();
            h.write_u64(std::process::id() as u64);
            h.finish() | 1
        });
    }
    STATE.with(|state| {
        for chunk in out.chunks_mut(8) {
            // splitmix64
            let mut z = state.get().wrapping_add(0x9E37_79B9_7F4A_7C15);
            state.set(z);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            chunk.copy_from_slice(&z.to_le_bytes()[..chunk.len()]);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_7() {
        let ms = 1_716_364_385_323;
        let v = random_v7(ms);
        assert_eq!(version(v), 7);
        assert_eq!(v7_unix_ms(v), ms);
        assert_eq!((v >> 62) & 0x3, 0x2);
        assert_eq!(version(random_v4()), 4);
        assert_eq!(format(v)[..13], *"018f9f4a-1c2b");
    }

    #[test]
    fn forms() {
        let v = parse("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11").unwrap();
        assert_eq!(format(v), "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
        for s in [
            "{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}",
            "a0eebc999c0b4ef8bb6d6bb9bd380a11",
            "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
            "-a0eebc999c0b4ef8bb6d6bb9bd380a11-",
        ] {
            assert_eq!(parse(s), Some(v), "{s}");
        }
        for s in [
            "",
            "xyz",
            " a0eebc999c0b4ef8bb6d6bb9bd380a11",
            "{a0eebc999c0b4ef8bb6d6bb9bd380a11",
            "a0eebc999c0b4ef8bb6d6bb9bd380a11}",
            "a0eebc999c0b4ef8bb6d6bb9bd380a1",
            "a0eebc999c0b4ef8bb6d6bb9bd380a11a",
        ] {
            assert_eq!(parse(s), None, "{s}");
        }
        assert!(to_physical(0) < to_physical(u128::MAX));
        assert!(to_physical(0x7f << 120) < to_physical(0x80 << 120));
        assert_eq!(from_physical(to_physical(v)), v);
        let r = random_v4();
        assert_eq!(format(r).as_bytes()[14], b'4');
        assert_ne!(r, random_v4());
    }
}
