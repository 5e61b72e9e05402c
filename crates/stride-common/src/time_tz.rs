//! TIME WITH TIME ZONE (TIMETZ): a time of day with a UTC offset, such as
//! `10:00:00+02`. Stored as one `i64` whose signed order is DuckDB's order of the
//! values: by the UTC instant the time names (the time minus its offset, not wrapped
//! around midnight), then by the offset, larger first. The high 40 bits hold that UTC
//! time in microseconds, the low 24 bits `MAX_OFFSET - offset` (offset in seconds).
//! Two values are equal only when both time and offset are (`10:00:00+02` is not
//! `08:00:00+00`), as in DuckDB.
//!
//! Where it sits: casts and text go through [`encode`] and [`decode`]; comparison,
//! hashing, sorting and storage take the `i64` as it is; every function that reads a
//! TIME sees the local time (the binder's stand-in type).

use crate::interval::MICROS_PER_DAY;
use crate::temporal::{parse_time_of_day, write_time};

/// The largest offset, in seconds: 15:59:59.
pub const MAX_OFFSET: i32 = 16 * 60 * 60 - 1;

const OFFSET_BITS: u32 = 24;

/// The stored form of a local time (microseconds since midnight, 0 to 24:00:00) at
/// an offset east of UTC (seconds, within ±[`MAX_OFFSET`]).
pub fn encode(micros: i64, offset: i32) -> i64 {
    let utc = micros - offset as i64 * 1_000_000;
    (utc << OFFSET_BITS) | (MAX_OFFSET - offset) as i64
}

/// The local time (microseconds since midnight) and offset (seconds east of UTC).
pub fn decode(v: i64) -> (i64, i32) {
    let offset = MAX_OFFSET - (v & ((1 << OFFSET_BITS) - 1)) as i32;
    let utc = v >> OFFSET_BITS;
    (utc + offset as i64 * 1_000_000, offset)
}

/// Parses a TIMETZ's text: a TIME's text (`[date ]HH:MM:SS[.ffffff]`), then an offset
/// as TIMESTAMPTZ text takes it (`+HH`, `+HH:MM`, `+HHMM`, `+HH:MM:SS`, or `-`), or
/// `Z`; without one, `default_offset` (seconds; the session time zone's offset now,
/// [`crate::zone::current_offset`], for a cast).
pub fn parse(s: &str, default_offset: i32) -> Option<i64> {
    let s = s.trim();
    let (time, offset) = split_offset(s, default_offset)?;
    let micros = parse_time_of_day(time)?;
    Some(encode(micros, offset))
}

/// The time part and the offset in seconds of TIMETZ text.
fn split_offset(s: &str, default_offset: i32) -> Option<(&str, i32)> {
    if let Some(t) = s.strip_suffix(['Z', 'z']) {
        return Some((t.trim_end(), 0));
    }
    // the sign of an offset comes after the time's first digit (a date's '-' come
    // before a space or 'T')
    let start = s.rfind([' ', 'T']).map_or(0, |i| i + 1);
    let Some(at) = s[start..].rfind(['+', '-']).map(|i| i + start) else {
        return Some((s, default_offset));
    };
    let sign = if s.as_bytes()[at] == b'-' { -1 } else { 1 };
    let seconds = crate::zone::parse_offset(s[at + 1..].trim())? as i32;
    if seconds > MAX_OFFSET {
        return None;
    }
    Some((s[..at].trim_end(), sign * seconds))
}

/// Appends a TIMETZ as text: the local time, then the offset as `+HH`, `+HH:MM` or
/// `+HH:MM:SS` (as DuckDB prints it).
pub fn write(out: &mut String, v: i64) {
    let (micros, offset) = decode(v);
    write_time(out, micros);
    crate::zone::write_offset(out, offset);
}

/// A TIMETZ as text.
pub fn format(v: i64) -> String {
    let mut s = String::with_capacity(20);
    write(&mut s, v);
    s
}

/// A TIMETZ moved by `micros`, around the clock; the offset stays.
pub fn add_micros(v: i64, micros: i64) -> i64 {
    let (t, offset) = decode(v);
    let moved = ((t as i128 + micros as i128).rem_euclid(MICROS_PER_DAY as i128)) as i64;
    encode(moved, offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(s: &str) -> String {
        format(parse(s, 0).unwrap_or_else(|| panic!("{s} parses")))
    }

    #[test]
    fn text_round_trips() {
        assert_eq!(round_trip("10:00:00+02"), "10:00:00+02");
        assert_eq!(round_trip(" 10:00:00.5 -05:30 "), "10:00:00.5-05:30");
        assert_eq!(round_trip("10:00:00"), "10:00:00+00");
        assert_eq!(round_trip("10:00:00Z"), "10:00:00+00");
        assert_eq!(round_trip("10:00:00+02:30:15"), "10:00:00+02:30:15");
        assert_eq!(round_trip("24:00:00+15:59"), "24:00:00+15:59");
        assert_eq!(round_trip("2024-01-01 10:00:00-03"), "10:00:00-03");
        assert_eq!(parse("10:00:00+16", 0), None);
        assert_eq!(parse("10:00:00+", 0), None);
        assert_eq!(parse("10:00:00+1:60", 0), None);
    }

    #[test]
    fn stored_order_is_utc_then_larger_offset_first() {
        let order = [
            "00:30:00+01",
            "10:00:00+02",
            "08:00:00+00",
            "09:00:00+00",
            "08:00:00-01",
            "23:00:00-03",
        ];
        let keys: Vec<i64> = order.iter().map(|s| parse(s, 0).unwrap()).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        assert_eq!(
            format(add_micros(parse("23:30:00+02", 0).unwrap(), 3_600_000_000)),
            "00:30:00+02"
        );
    }
}
