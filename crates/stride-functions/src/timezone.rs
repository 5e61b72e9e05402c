//! Time zones for TIMESTAMP WITH TIME ZONE: zone names resolved against the IANA
//! database bundled into the binary (the `jiff` crate, so a machine without
//! /usr/share/zoneinfo behaves the same), conversion between instants and local
//! times, and the text form DuckDB reads (`2024-01-01 10:00:00+02`, `...Z`,
//! `... America/New_York`, or a local time read in the session's zone).
//!
//! The session's zone reaches this code as [`stride_common::zone::current`]: the
//! connection enters it on the statement's threads. A TIMESTAMPTZ is an instant; its
//! local time in a zone is `instant + offset`, and a local time maps back to an
//! instant with the zone's rules (a time skipped by a forward shift is read with the
//! offset before it, a repeated one is the later instant, as DuckDB's ICU does).
//! Jiff's rules cover years -9999 to 9999: an instant past them is moved into that
//! range by whole 400-year cycles of the Gregorian calendar (146,097 days, whole
//! weeks), where the zone's yearly rule falls on the same days, and back.

use crate::kernels::{try_unary_or_null, unary};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use stride_common::zone::{SessionZone, ZoneRules};
use stride_common::{DataType, Error, Result, Vector};

/// A zone of the IANA database.
struct Iana {
    name: String,
    tz: jiff::tz::TimeZone,
}

/// Microseconds in 400 years of the Gregorian calendar, after which its days and
/// weekdays repeat.
const CYCLE: i64 = 146_097 * 86_400_000_000;

/// `micros` moved by whole [`CYCLE`]s to within jiff's range (a year inside its ends,
/// so local times near them resolve too), and the shift to add back.
fn folded(micros: i64) -> (i64, i64) {
    const YEAR: i64 = 366 * 86_400_000_000;
    let max = jiff::Timestamp::MAX.as_microsecond() - YEAR;
    let min = jiff::Timestamp::MIN.as_microsecond() + YEAR;
    let cycles = if micros > max {
        -((micros - max) / CYCLE + 1)
    } else if micros < min {
        (min - micros) / CYCLE + 1
    } else {
        0
    };
    let shift = cycles * CYCLE;
    (micros + shift, -shift)
}

/// The instant jiff's rules cover for `micros` (see [`folded`]).
fn jiff_instant(micros: i64) -> jiff::Timestamp {
    let min = jiff::Timestamp::MIN.as_microsecond();
    let max = jiff::Timestamp::MAX.as_microsecond();
    jiff::Timestamp::from_microsecond(micros.clamp(min, max)).unwrap_or(jiff::Timestamp::UNIX_EPOCH)
}

impl ZoneRules for Iana {
    fn name(&self) -> &str {
        &self.name
    }

    fn offset_at(&self, instant: i64) -> i32 {
        self.tz.to_offset(jiff_instant(folded(instant).0)).seconds()
    }

    fn instant_of(&self, local: i64) -> Option<i64> {
        self.resolve(local, None)
    }

    fn instant_of_preferring(&self, local: i64, prefer: i32) -> Option<i64> {
        self.resolve(local, Some(prefer))
    }
}

impl Iana {
    /// The instant of a local time: a skipped one read with the offset before the
    /// shift, a repeated one the occurrence with offset `prefer`, else the later.
    fn resolve(&self, local: i64, prefer: Option<i32>) -> Option<i64> {
        let (local, back) = folded(local);
        let ts = jiff_instant(local);
        // the local time's fields, read as if it were UTC
        let dt = jiff::tz::TimeZone::UTC.to_datetime(ts);
        let offset = match self.tz.to_ambiguous_timestamp(dt).offset() {
            jiff::tz::AmbiguousOffset::Unambiguous { offset } => offset,
            jiff::tz::AmbiguousOffset::Gap { before, .. } => before,
            jiff::tz::AmbiguousOffset::Fold { before, .. } if prefer == Some(before.seconds()) => {
                before
            }
            jiff::tz::AmbiguousOffset::Fold { after, .. } => after,
        };
        local
            .checked_sub(offset.seconds() as i64 * 1_000_000)?
            .checked_add(back)
    }
}

/// The zone named `name` (case-insensitive: `utc`, `America/New_York`, `EST`), with
/// its canonical spelling; an unknown name is an error naming it.
pub fn lookup(name: &str) -> Result<SessionZone> {
    static CACHE: OnceLock<Mutex<HashMap<String, SessionZone>>> = OnceLock::new();
    let key = name.trim();
    if key.eq_ignore_ascii_case("utc") {
        return Ok(SessionZone::utc());
    }
    let cache = CACHE.get_or_init(Default::default);
    if let Some(z) = cache.lock().ok().and_then(|c| c.get(key).cloned()) {
        return Ok(z);
    }
    let tz = jiff::tz::TimeZone::get(key).map_err(|_| unknown_zone(key))?;
    let canonical = tz.iana_name().unwrap_or(key).to_string();
    let zone = SessionZone(Arc::new(Iana {
        name: canonical,
        tz,
    }));
    if let Ok(mut c) = cache.lock() {
        c.insert(key.to_string(), zone.clone());
    }
    Ok(zone)
}

fn unknown_zone(name: &str) -> Error {
    let lower = name.to_ascii_lowercase();
    let last = lower.rsplit('/').next().unwrap_or(&lower).to_string();
    let mut candidates: Vec<String> = jiff::tz::db()
        .available()
        .map(|n| n.as_str().to_string())
        .filter(|n| !last.is_empty() && n.to_ascii_lowercase().contains(&last))
        .take(5)
        .collect();
    candidates.sort();
    let hint = if candidates.is_empty() {
        "use an IANA time zone name such as 'UTC', 'America/New_York' or 'Europe/Berlin'"
            .to_string()
    } else {
        format!("did you mean {}?", candidates.join(", "))
    };
    Error::invalid_input(format!("Unknown TimeZone '{name}': {hint}"))
}

/// Local time of an instant in `zone`.
pub fn local_of(zone: &SessionZone, instant: i64) -> Option<i64> {
    zone.local_of(instant)
}

/// TIMESTAMPTZ -> TIMESTAMP: every instant's local time in the session's zone.
pub fn to_local(v: &Vector, len: usize) -> Result<Vector> {
    to_local_in(&stride_common::zone::current(), v, len)
}

/// TIMESTAMPTZ -> TIMESTAMP in `zone`.
pub fn to_local_in(zone: &SessionZone, v: &Vector, len: usize) -> Result<Vector> {
    if zone.is_utc() {
        return Ok(retype(v, DataType::Timestamp));
    }
    try_unary_or_null(
        v,
        len,
        DataType::Timestamp,
        false,
        |t: i64| zone.local_of(t),
        out_of_range,
    )
}

/// TIMESTAMP -> TIMESTAMPTZ: every local time read in the session's zone.
pub fn to_instant(v: &Vector, len: usize) -> Result<Vector> {
    to_instant_in(&stride_common::zone::current(), v, len)
}

/// TIMESTAMP -> TIMESTAMPTZ in `zone`.
pub fn to_instant_in(zone: &SessionZone, v: &Vector, len: usize) -> Result<Vector> {
    if zone.is_utc() {
        return Ok(retype(v, DataType::TimestampTz));
    }
    try_unary_or_null(
        v,
        len,
        DataType::TimestampTz,
        false,
        |t: i64| zone.instant_of(t),
        out_of_range,
    )
}

/// The same values under another type of the same physical form.
fn retype(v: &Vector, ty: DataType) -> Vector {
    let mut out = v.clone();
    out.ty = ty;
    out
}

/// An instant moved by an interval as DuckDB does: the months and days on the zone's
/// clocks (a day across a DST shift is 23 or 25 hours), then the microseconds as
/// elapsed time.
pub fn add_interval(zone: &SessionZone, t: i64, iv: stride_common::Interval) -> Option<i64> {
    use stride_common::temporal::is_finite_timestamp;
    if !is_finite_timestamp(t) {
        return Some(t);
    }
    let moved = if iv.months == 0 && iv.days == 0 {
        t
    } else if zone.is_utc() {
        stride_common::temporal::timestamp_add_interval(
            t,
            stride_common::Interval::new(iv.months, iv.days, 0),
        )?
    } else {
        let local = zone.local_of(t)?;
        let local = stride_common::temporal::timestamp_add_interval(
            local,
            stride_common::Interval::new(iv.months, iv.days, 0),
        )?;
        zone.instant_of_preferring(local, zone.offset_at(t))?
    };
    moved
        .checked_add(iv.micros)
        .filter(|m| is_finite_timestamp(*m))
}

/// `x - y` of two instants as DuckDB computes it: the whole days on the zone's
/// clocks from `y` forward to `x` (so across a DST shift a day may be 23 or 25
/// hours), then the elapsed microseconds left. When `x` is before `y` it is
/// `-(y - x)`, the days counted forward from `x`.
pub fn difference(zone: &SessionZone, x: i64, y: i64) -> Option<stride_common::Interval> {
    use stride_common::interval::MICROS_PER_DAY;
    if x < y {
        let d = difference(zone, y, x)?;
        return Some(stride_common::Interval::new(0, -d.days, -d.micros));
    }
    let after_days = |d: i64| add_interval(zone, y, stride_common::Interval::new(0, d as i32, 0));
    let mut days = (zone.local_of(x)? - zone.local_of(y)?) / MICROS_PER_DAY;
    i32::try_from(days).ok()?;
    let mut base = after_days(days)?;
    // one step back when the estimate overshoots `x`
    if days > 0 && base > x {
        days -= 1;
        base = after_days(days)?;
    }
    Some(stride_common::Interval::new(
        0,
        days as i32,
        x.checked_sub(base)?,
    ))
}

/// UTC offsets in seconds of every instant of a TIMESTAMPTZ vector, in the session
/// zone.
pub fn offsets(v: &Vector, len: usize) -> Vector {
    let zone = stride_common::zone::current();
    unary(v, len, DataType::BigInt, |t: i64| zone.offset_at(t) as i64)
}

fn out_of_range(t: i64) -> Error {
    Error::out_of_range(format!(
        "timestamp {} is out of range in time zone {}",
        stride_common::temporal::format_timestamp(t),
        stride_common::zone::current().name()
    ))
}

/// Parses a TIMESTAMP WITH TIME ZONE's text: `YYYY-MM-DD[ |T]HH:MM[:SS[.US]]`
/// followed by nothing (local time in `zone`), `Z`, an offset `±HH[[:]MM[[:]SS]]` or
/// a zone name after a space; a bare date is local midnight. `Ok(None)` when the
/// text is no timestamp; an error for an unknown zone name.
pub fn parse(s: &str, zone: &SessionZone) -> Result<Option<i64>> {
    let s = s.trim();
    let Some(sep) = s.find([' ', 'T']) else {
        // 'infinity' and '-infinity' name no zone's time; 'epoch' is an instant
        if let Some(t) = stride_common::temporal::parse_timestamp(s)
            .filter(|t| !stride_common::temporal::is_finite_timestamp(*t) || *t == 0)
            .filter(|_| !s.starts_with(|c: char| c.is_ascii_digit()))
        {
            return Ok(Some(t));
        }
        let Some(d) = stride_common::temporal::parse_date(s) else {
            return Ok(None);
        };
        return Ok(stride_common::temporal::date_at_time(d, 0).and_then(|l| zone.instant_of(l)));
    };
    let rest = s[sep + 1..].trim_start();
    let time_end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == ':' || c == '.'))
        .unwrap_or(rest.len());
    let (time, tail) = (&rest[..time_end], rest[time_end..].trim());
    let Some(local) = stride_common::temporal::parse_timestamp(&format!("{} {time}", &s[..sep]))
    else {
        return Ok(None);
    };
    if tail.is_empty() {
        return Ok(zone.instant_of(local));
    }
    if tail.eq_ignore_ascii_case("z") {
        return Ok(Some(local));
    }
    if let Some(sign) = tail
        .strip_prefix('+')
        .map(|o| (1, o))
        .or(tail.strip_prefix('-').map(|o| (-1, o)))
    {
        let Some(offset) = stride_common::zone::parse_offset(sign.1) else {
            return Ok(None);
        };
        return Ok(local.checked_sub(sign.0 * offset * 1_000_000));
    }
    if !tail.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Ok(None);
    }
    let named = lookup(tail).map_err(|e| Error::conversion(e.message))?;
    Ok(named.instant_of(local))
}

/// The error for text that is no TIMESTAMP WITH TIME ZONE (DuckDB's message).
pub fn bad_text(s: &str) -> Error {
    Error::conversion(format!(
        "invalid timestamp field format: \"{s}\", expected format is (YYYY-MM-DD HH:MM[:SS[.US]][±HH[:MM[:SS]]| ZONE])"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use stride_common::temporal::parse_timestamp;

    fn ts(s: &str) -> i64 {
        parse_timestamp(s).unwrap()
    }

    #[test]
    fn zones_and_dst() {
        let ny = lookup("america/new_york").unwrap();
        assert_eq!(ny.name(), "America/New_York");
        assert!(lookup("Foo/Bar").unwrap_err().message.contains("Foo/Bar"));
        // the gap: 02:30 does not exist, read with EST: 07:30Z
        assert_eq!(
            ny.instant_of(ts("2024-03-10 02:30:00")),
            Some(ts("2024-03-10 07:30:00"))
        );
        // the fold: 01:30 happens twice, the later (EST) wins: 06:30Z
        assert_eq!(
            ny.instant_of(ts("2024-11-03 01:30:00")),
            Some(ts("2024-11-03 06:30:00"))
        );
        assert_eq!(ny.offset_at(ts("2024-07-01 00:00:00")), -4 * 3600);
        // far outside jiff's range: the nearest rules, no panic
        assert!(ny.local_of(i64::MIN).is_none());
        assert_eq!(ny.instant_of(i64::MAX - 1), None);
        // 'infinity' is its own instant
        assert_eq!(ny.instant_of(i64::MAX), Some(i64::MAX));
        assert!(ny.instant_of(i64::MIN).is_some());
    }

    #[test]
    fn text() {
        let utc = SessionZone::utc();
        let p = |s| parse(s, &utc).unwrap();
        assert_eq!(p("2024-01-01 10:00:00+02"), Some(ts("2024-01-01 08:00:00")));
        assert_eq!(
            p("2024-01-01T10:00:00+0200"),
            Some(ts("2024-01-01 08:00:00"))
        );
        assert_eq!(
            p("2024-01-01 10:00:00+05:30"),
            Some(ts("2024-01-01 04:30:00"))
        );
        assert_eq!(p("2024-01-01 10:00:00Z"), Some(ts("2024-01-01 10:00:00")));
        assert_eq!(
            p("2024-01-01 10:00:00 America/New_York"),
            Some(ts("2024-01-01 15:00:00"))
        );
        assert_eq!(p("2024-01-01"), Some(ts("2024-01-01 00:00:00")));
        assert_eq!(p("garbage"), None);
        assert_eq!(p("2024-01-01 10:00:00+2x"), None);
        assert!(parse("2024-01-01 10:00:00 Foo/Bar", &utc).is_err());
    }
}

/// Every zone of the bundled IANA database as it stands at `instant`: name,
/// abbreviation, UTC offset in seconds and whether daylight saving time is in effect
/// (`pg_timezone_names()`), in name order.
pub fn zone_table(instant: i64) -> Vec<(String, String, i32, bool)> {
    let db = jiff::tz::db();
    let mut rows: Vec<(String, String, i32, bool)> = db
        .available()
        .filter_map(|name| {
            let tz = db.get(name.as_str()).ok()?;
            let info = tz.to_offset_info(jiff_instant(instant));
            Some((
                name.as_str().to_string(),
                info.abbreviation().to_string(),
                info.offset().seconds(),
                info.dst().is_dst(),
            ))
        })
        .collect();
    rows.sort();
    rows
}
