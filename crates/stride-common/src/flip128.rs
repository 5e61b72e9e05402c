//! The stored form of 128-bit values that are ordered as unsigned numbers (UHUGEINT,
//! and UUID's bits): an i128 whose top bit is flipped, so that comparing stored values
//! as signed integers, as every sort, hash table and zone map does, orders them as the
//! unsigned values (0 first, 2^128 - 1 last). DuckDB stores both the same way.

/// The stored value of an unsigned 128-bit value.
#[inline]
pub fn to_physical(bits: u128) -> i128 {
    (bits ^ (1u128 << 127)) as i128
}

/// The unsigned 128-bit value of a stored one.
#[inline]
pub fn from_physical(v: i128) -> u128 {
    (v as u128) ^ (1u128 << 127)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_kept() {
        let values = [0u128, 1, 1 << 64, (1 << 127) - 1, 1 << 127, u128::MAX];
        for w in values.windows(2) {
            assert!(to_physical(w[0]) < to_physical(w[1]));
        }
        for v in values {
            assert_eq!(from_physical(to_physical(v)), v);
        }
    }
}
