//! TIMESTAMP_S, TIMESTAMP_MS and TIMESTAMP_NS: timestamps counted in seconds,
//! milliseconds or nanoseconds since 1970-01-01 00:00:00 rather than TIMESTAMP's
//! microseconds (DuckDB's types, what Arrow and Parquet files hold, pandas' default
//! nanoseconds among them). Each is an `i64` in its own unit, so comparisons, sorting,
//! hashing and storage work on them as on any `i64`; the infinities are TIMESTAMP's
//! sentinels ([`crate::temporal::TIMESTAMP_INFINITY`]).
//!
//! Where they sit: the binder casts them to TIMESTAMP wherever a function wants one
//! (DuckDB's implicit cast), so only casts, text, the `± INTERVAL` operators on
//! TIMESTAMP_NS, the file formats and, for TIMESTAMP_NS as in DuckDB, `date_part`,
//! the time-of-day field functions, `epoch_*` and `strftime` see the units. Converting to a coarser unit
//! rounds to the nearest (half away from zero), as DuckDB does: '10:00:00.9' as a
//! TIMESTAMP_S is 10:00:01.

use crate::temporal::{
    format_timestamp, is_finite_timestamp, parse_timestamp, TIMESTAMP_INFINITY,
    TIMESTAMP_NEG_INFINITY,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TimeUnit {
    Second,
    Millisecond,
    Nanosecond,
}

impl TimeUnit {
    /// The SQL type's name.
    pub fn type_name(self) -> &'static str {
        match self {
            TimeUnit::Second => "TIMESTAMP_S",
            TimeUnit::Millisecond => "TIMESTAMP_MS",
            TimeUnit::Nanosecond => "TIMESTAMP_NS",
        }
    }

    /// The unit of a type name (`timestamp_ns`, any case).
    pub fn of_type_name(name: &str) -> Option<TimeUnit> {
        match name.to_ascii_lowercase().as_str() {
            "timestamp_s" => Some(TimeUnit::Second),
            "timestamp_ms" => Some(TimeUnit::Millisecond),
            "timestamp_ns" => Some(TimeUnit::Nanosecond),
            _ => None,
        }
    }

    /// Nanoseconds per unit.
    pub fn nanos(self) -> i64 {
        match self {
            TimeUnit::Second => 1_000_000_000,
            TimeUnit::Millisecond => 1_000_000,
            TimeUnit::Nanosecond => 1,
        }
    }
}

/// Nanoseconds per microsecond, TIMESTAMP's unit.
const MICROSECOND: i64 = 1_000;

/// A count of `from`-nanosecond units as a count of `to`-nanosecond units (each a
/// power of ten, so one divides the other): exact to a finer unit, rounded to the
/// nearest (halves away from zero) to a coarser one; infinities stay; `None` outside
/// the range ([`in_range`]).
fn rescale(v: i64, from: i64, to: i64) -> Option<i64> {
    if !is_finite_timestamp(v) {
        return Some(v);
    }
    let r = if from >= to {
        v.checked_mul(from / to)?
    } else {
        let d = to / from;
        let (q, rem) = (v / d, v % d);
        if 2 * rem.abs() >= d {
            q + v.signum()
        } else {
            q
        }
    };
    in_range(r, to).then_some(r)
}

/// Whether a count of `unit`-nanosecond units is a finite timestamp: one of seconds or
/// milliseconds must be one as TIMESTAMP microseconds too, as in DuckDB, so a value
/// that rounds past TIMESTAMP's last microsecond is out of range, not infinity.
fn in_range(v: i64, unit: i64) -> bool {
    let micros = match unit > MICROSECOND {
        true => v.checked_mul(unit / MICROSECOND),
        false => Some(v),
    };
    micros.is_some_and(is_finite_timestamp)
}

/// A value in `unit` as TIMESTAMP microseconds (nanoseconds rounded).
pub fn to_micros(v: i64, unit: TimeUnit) -> Option<i64> {
    rescale(v, unit.nanos(), MICROSECOND)
}

/// TIMESTAMP microseconds in `unit` (rounded to a coarser one); `None` when out of
/// the unit's range (nanoseconds reach only 1677 to 2262).
pub fn from_micros(us: i64, unit: TimeUnit) -> Option<i64> {
    rescale(us, MICROSECOND, unit.nanos())
}

/// A value in `from` converted to `to`.
pub fn convert(v: i64, from: TimeUnit, to: TimeUnit) -> Option<i64> {
    rescale(v, from.nanos(), to.nanos())
}

/// A TIMESTAMP_NS moved by an interval: its microseconds moved as a TIMESTAMP's are,
/// the nanoseconds past them kept; `None` outside the range.
pub fn nanos_add_interval(ns: i64, iv: crate::interval::Interval) -> Option<i64> {
    if !is_finite_timestamp(ns) {
        return Some(ns);
    }
    let moved = crate::temporal::timestamp_add_interval(ns.div_euclid(1_000), iv)?;
    moved
        .checked_mul(1_000)?
        .checked_add(ns.rem_euclid(1_000))
        .filter(|&v| is_finite_timestamp(v))
}

/// Parses timestamp text into `unit`: what TIMESTAMP reads, with nanosecond text keeping
/// its seventh to ninth fractional digits.
pub fn parse(s: &str, unit: TimeUnit) -> Option<i64> {
    let us = parse_timestamp(s)?;
    if !is_finite_timestamp(us) {
        return Some(us);
    }
    if unit != TimeUnit::Nanosecond {
        // the sub-microsecond digits, which TIMESTAMP drops, can still round a coarser
        // unit only through the microseconds, as in DuckDB
        return from_micros(us, unit);
    }
    let extra = nanos_past_micros(s);
    us.checked_mul(1_000)?
        .checked_add(extra)
        .filter(|&v| is_finite_timestamp(v))
}

/// The seventh to ninth digits of the fraction of seconds in timestamp text (0 when
/// there are none).
fn nanos_past_micros(s: &str) -> i64 {
    let Some(dot) = s.rfind('.') else {
        return 0;
    };
    let digits = s[dot + 1..]
        .bytes()
        .take_while(u8::is_ascii_digit)
        .skip(6)
        .take(3)
        .collect::<Vec<u8>>();
    let mut extra = 0;
    for k in 0..3 {
        extra = extra * 10 + digits.get(k).map_or(0, |c| (c - b'0') as i64);
    }
    extra
}

/// Appends a value in `unit` as text: TIMESTAMP's form, with up to nine fractional
/// digits for nanoseconds (trailing zeros dropped).
pub fn write(out: &mut String, v: i64, unit: TimeUnit) {
    if unit != TimeUnit::Nanosecond || !is_finite_timestamp(v) {
        let us = match v {
            TIMESTAMP_INFINITY | TIMESTAMP_NEG_INFINITY => v,
            _ => v.saturating_mul(unit.nanos() / MICROSECOND),
        };
        out.push_str(&format_timestamp(us));
        return;
    }
    let us = v.div_euclid(1_000);
    let whole_second = us - us.rem_euclid(1_000_000);
    out.push_str(&format_timestamp(whole_second));
    let nanos = v - whole_second * 1_000;
    if nanos != 0 {
        let f = format!("{nanos:09}");
        out.push('.');
        out.push_str(f.trim_end_matches('0'));
    }
}

/// A value in `unit` as text.
pub fn format(v: i64, unit: TimeUnit) -> String {
    let mut s = String::with_capacity(29);
    write(&mut s, v, unit);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use TimeUnit::*;

    #[test]
    fn text_round_trips_in_each_unit() {
        let ns = parse("2024-01-01 10:00:00.123456789", Nanosecond).unwrap();
        assert_eq!(ns, 1_704_103_200_123_456_789);
        assert_eq!(format(ns, Nanosecond), "2024-01-01 10:00:00.123456789");
        assert_eq!(
            format(
                parse("2024-01-01 10:00:00.5", Nanosecond).unwrap(),
                Nanosecond
            ),
            "2024-01-01 10:00:00.5"
        );
        assert_eq!(
            format(
                parse("1969-12-31 23:59:59.999999999", Nanosecond).unwrap(),
                Nanosecond
            ),
            "1969-12-31 23:59:59.999999999"
        );
        assert_eq!(
            format(parse("2024-01-01 10:00:00.9", Second).unwrap(), Second),
            "2024-01-01 10:00:01"
        );
        assert_eq!(
            format(
                parse("2024-01-01 10:00:00.123456", Millisecond).unwrap(),
                Millisecond
            ),
            "2024-01-01 10:00:00.123"
        );
        assert_eq!(
            format(parse("infinity", Nanosecond).unwrap(), Nanosecond),
            "infinity"
        );
        assert_eq!(parse("1500-01-01", Nanosecond), None);
    }

    #[test]
    fn conversions_round_to_the_coarser_unit() {
        assert_eq!(to_micros(1_999, Nanosecond), Some(2));
        assert_eq!(to_micros(-1_500, Nanosecond), Some(-2));
        assert_eq!(from_micros(1_999_999, Second), Some(2));
        assert_eq!(from_micros(1_499_999, Second), Some(1));
        assert_eq!(from_micros(i64::MAX / 100, Nanosecond), None);
        assert_eq!(convert(1_500, Millisecond, Second), Some(2));
        assert_eq!(convert(2, Second, Nanosecond), Some(2_000_000_000));
        assert_eq!(
            convert(TIMESTAMP_INFINITY, Second, Nanosecond),
            Some(TIMESTAMP_INFINITY)
        );
        // rounding past TIMESTAMP's last microsecond (294247-01-10 04:00:54.775806)
        let last = TIMESTAMP_INFINITY - 1;
        assert_eq!(from_micros(last, Second), None);
        assert_eq!(from_micros(last, Millisecond), None);
        assert_eq!(from_micros(last - 400_000, Second), Some(last / 1_000_000));
        assert_eq!(from_micros(last - 1_000, Millisecond), Some(last / 1_000));
        assert_eq!(convert(last / 1_000 + 1, Millisecond, Second), None);
    }
}
