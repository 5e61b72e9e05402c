//! BIT (BITSTRING): a string of bits of any length, at least one. DuckDB orders bit
//! strings as their text of 0s and 1s ('0' < '00' < '0111' < '1' < '11'), so the
//! stored form keeps that order in its bytes, which lets every byte-comparing
//! operator (sort, hash join, GROUP BY, zone maps) serve BIT unchanged: each bit is two
//! bits, `10` for 0 and `11` for 1, most significant first, and the rest of the last
//! byte is `00`, which sorts before either. Four bits per byte, a quarter of the
//! text's size. The functions on BIT values are in stride-functions
//! (`scalar/bits.rs`).

/// The code of bit `i` sits at bit `6 - 2 * (i % 4)` of byte `i / 4`.
fn shift(i: usize) -> u32 {
    6 - 2 * (i % 4) as u32
}

/// The stored form of `n` bits (`n >= 1`) that `bit(i)` gives, first bit first.
pub fn from_fn(n: usize, mut bit: impl FnMut(usize) -> bool) -> Vec<u8> {
    let n = n.max(1);
    let mut out = vec![0u8; n.div_ceil(4)];
    for i in 0..n {
        out[i / 4] |= (0b10 | bit(i) as u8) << shift(i);
    }
    out
}

/// Parses text of '0' and '1' characters; the empty text is the single bit 0, as in
/// DuckDB. Errors name the first other character.
pub fn parse(text: &str) -> Result<Vec<u8>, String> {
    if let Some(c) = text.chars().find(|c| *c != '0' && *c != '1') {
        return Err(format!(
            "Invalid character encountered in string -> bit conversion: '{c}'"
        ));
    }
    let b = text.as_bytes();
    Ok(from_fn(b.len(), |i| b.get(i) == Some(&b'1')))
}

/// How many bits a stored BIT holds.
pub fn len(v: &[u8]) -> usize {
    let Some(&last) = v.last() else { return 0 };
    let in_last = (0..4)
        .take_while(|&k| (last >> shift(k)) & 0b10 != 0)
        .count();
    (v.len() - 1) * 4 + in_last
}

/// Bit `i` (0 is the first), which must be below [`len`].
pub fn get(v: &[u8], i: usize) -> bool {
    v.get(i / 4).is_some_and(|b| (b >> shift(i)) & 1 == 1)
}

/// Sets bit `i` (below [`len`]) to 1.
pub fn set(v: &mut [u8], i: usize) {
    if let Some(b) = v.get_mut(i / 4) {
        *b |= 1 << shift(i);
    }
}

/// The number of 1 bits.
pub fn count_ones(v: &[u8]) -> u64 {
    // in each code the low bit is the value; the high bit marks a bit as present
    v.iter()
        .map(|b| (b & 0b0101_0101).count_ones() as u64)
        .sum()
}

/// Appends the text form, a '0' or '1' per bit.
pub fn write_text(v: &[u8], out: &mut String) {
    let n = len(v);
    out.reserve(n);
    for i in 0..n {
        out.push(if get(v, i) { '1' } else { '0' });
    }
}

/// The text form of a stored BIT.
pub fn to_text(v: &[u8]) -> String {
    let mut s = String::new();
    write_text(v, &mut s);
    s
}

/// The bits of whole bytes, first byte's high bit first (integers big-endian, BLOBs).
pub fn from_bytes(bytes: &[u8]) -> Vec<u8> {
    from_fn(bytes.len() * 8, |i| {
        bytes.get(i / 8).is_some_and(|b| b & (0x80 >> (i % 8)) != 0)
    })
}

/// The bits as bytes, right-aligned in whole bytes (zeros added on the left): DuckDB's
/// BIT -> BLOB and BIT -> integer casts.
pub fn data_bytes(v: &[u8]) -> Vec<u8> {
    let n = len(v);
    let pad = (8 - n % 8) % 8;
    let mut out = vec![0u8; n.div_ceil(8)];
    for i in (0..n).filter(|&i| get(v, i)) {
        let at = i + pad;
        out[at / 8] |= 0x80 >> (at % 8);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_form_round_trips_and_orders_as_text() {
        let b = parse("0101").unwrap();
        assert_eq!(b, vec![0b1011_1011]);
        assert_eq!(to_text(&b), "0101");
        assert_eq!(len(&b), 4);
        assert_eq!(count_ones(&b), 2);
        assert_eq!(to_text(&parse("").unwrap()), "0");
        assert_eq!(to_text(&parse("101100111").unwrap()), "101100111");
        assert_eq!(len(&parse("101100111").unwrap()), 9);
        assert!(parse("012").unwrap_err().contains("'2'"));
        // DuckDB orders bit strings as their text
        let ordered = ["0", "00", "0111", "1", "1000000000", "11"];
        for w in ordered.windows(2) {
            assert!(parse(w[0]).unwrap() < parse(w[1]).unwrap(), "{w:?}");
        }
        assert_eq!(data_bytes(&parse("101").unwrap()), vec![0b101]);
        assert_eq!(data_bytes(&parse("111111111").unwrap()), vec![1, 0xFF]);
        assert_eq!(to_text(&from_bytes(&[1])), "00000001");
        let mut z = parse("0000").unwrap();
        set(&mut z, 2);
        assert_eq!(to_text(&z), "0010");
    }
}
