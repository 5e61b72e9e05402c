//! The session's time zone as the lower layers see it: a TIMESTAMP WITH TIME ZONE is an
//! instant (microseconds since 1970-01-01 00:00:00 UTC) and is shown, split into
//! fields and converted from local text in the zone of the session that runs the
//! statement (the `TimeZone` setting).
//!
//! This crate knows no time-zone rules: a zone is a [`ZoneRules`] that
//! stride-functions implements on top of the IANA database, and [`SessionZone`] is
//! the setting's value. The zone of the statement running on a thread is that
//! thread's [`current`] zone: the connection enters it when a statement starts and
//! [`crate::workers`] hands it to every job the thread submits, so a value formatted
//! or cast on any worker of the statement sees the same zone. Without a zone entered
//! the zone is UTC.

use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;

/// A time zone's rules: how far local time is from UTC at an instant, and which
/// instant a local time means.
pub trait ZoneRules: Send + Sync {
    /// The zone's name as `current_setting('TimeZone')` shows it.
    fn name(&self) -> &str;
    /// The UTC offset in seconds at `instant` (microseconds since the epoch, UTC).
    fn offset_at(&self, instant: i64) -> i32;
    /// The instant of local time `local` (microseconds since 1970-01-01 00:00:00 on
    /// the zone's clocks). A local time skipped by a forward shift is read with the
    /// offset before it; one repeated by a backward shift is the later instant (as
    /// DuckDB's ICU extension resolves them). `None` when out of range.
    fn instant_of(&self, local: i64) -> Option<i64>;
    /// As [`ZoneRules::instant_of`], but a repeated local time takes the occurrence
    /// with UTC offset `prefer` when it has one (adding days to an instant keeps its
    /// side of a backward shift, as DuckDB's ICU does).
    fn instant_of_preferring(&self, local: i64, _prefer: i32) -> Option<i64> {
        self.instant_of(local)
    }
}

/// The `TimeZone` setting: a zone's rules, compared by name.
#[derive(Clone)]
pub struct SessionZone(pub Arc<dyn ZoneRules>);

impl SessionZone {
    pub fn utc() -> SessionZone {
        SessionZone(Arc::new(Utc))
    }

    pub fn name(&self) -> &str {
        self.0.name()
    }

    pub fn is_utc(&self) -> bool {
        self.0.name() == "UTC"
    }

    pub fn offset_at(&self, instant: i64) -> i32 {
        self.0.offset_at(instant)
    }

    /// Local time (microseconds on the zone's clocks) of an instant; `None` past the
    /// range of a timestamp. 'infinity' and '-infinity' are their own local times.
    pub fn local_of(&self, instant: i64) -> Option<i64> {
        if !crate::temporal::is_finite_timestamp(instant) {
            return Some(instant);
        }
        instant.checked_add(self.0.offset_at(instant) as i64 * 1_000_000)
    }

    pub fn instant_of(&self, local: i64) -> Option<i64> {
        if !crate::temporal::is_finite_timestamp(local) {
            return Some(local);
        }
        self.0.instant_of(local)
    }

    pub fn instant_of_preferring(&self, local: i64, prefer: i32) -> Option<i64> {
        if !crate::temporal::is_finite_timestamp(local) {
            return Some(local);
        }
        self.0.instant_of_preferring(local, prefer)
    }
}

impl Default for SessionZone {
    fn default() -> Self {
        SessionZone::utc()
    }
}

impl PartialEq for SessionZone {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl fmt::Debug for SessionZone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SessionZone({})", self.name())
    }
}

/// UTC: the zone of a thread no statement has entered a zone on.
struct Utc;

impl ZoneRules for Utc {
    fn name(&self) -> &str {
        "UTC"
    }
    fn offset_at(&self, _: i64) -> i32 {
        0
    }
    fn instant_of(&self, local: i64) -> Option<i64> {
        Some(local)
    }
}

thread_local! {
    static CURRENT: RefCell<Option<SessionZone>> = const { RefCell::new(None) };
}

/// The zone of the statement running on this thread (UTC when none was entered).
pub fn current() -> SessionZone {
    CURRENT.with(|c| c.borrow().clone()).unwrap_or_default()
}

/// The offset from UTC, in seconds, of the statement's zone now: what a TIME WITH TIME
/// ZONE without an offset takes (as DuckDB and PostgreSQL give it).
pub fn current_offset() -> i32 {
    let zone = current();
    if zone.is_utc() {
        return 0;
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64);
    zone.offset_at(now)
}

/// The zone entered on this thread, if any (what [`crate::workers`] hands on).
pub fn entered() -> Option<SessionZone> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Makes `zone` this thread's zone; returns the one it replaces.
pub fn enter(zone: Option<SessionZone>) -> Option<SessionZone> {
    CURRENT.with(|c| std::mem::replace(&mut *c.borrow_mut(), zone))
}

/// An instant as DuckDB shows a TIMESTAMP WITH TIME ZONE, in `zone`: the local time
/// as a TIMESTAMP prints, then the offset as `+HH`, `+HH:MM` or `+HH:MM:SS`.
pub fn format_in(zone: &SessionZone, instant: i64) -> String {
    if !crate::temporal::is_finite_timestamp(instant) {
        return crate::temporal::format_timestamp(instant);
    }
    let offset = zone.offset_at(instant);
    let mut s = match zone.local_of(instant) {
        Some(local) => crate::temporal::format_timestamp(local),
        // an instant at the very end of the range shown as UTC rather than failing
        None => return format!("{}+00", crate::temporal::format_timestamp(instant)),
    };
    write_offset(&mut s, offset);
    s
}

/// Appends a UTC offset in seconds as `+HH`, `+HH:MM` or `+HH:MM:SS`.
pub fn write_offset(out: &mut String, offset: i32) {
    use std::fmt::Write;
    let sign = if offset < 0 { '-' } else { '+' };
    let a = offset.unsigned_abs();
    let (h, m, s) = (a / 3600, a / 60 % 60, a % 60);
    let _ = write!(out, "{sign}{h:02}");
    if m != 0 || s != 0 {
        let _ = write!(out, ":{m:02}");
    }
    if s != 0 {
        let _ = write!(out, ":{s:02}");
    }
}

/// A UTC offset's digits after its sign: `HH`, `HH:MM`, `HHMM`, `HH:MM:SS` or
/// `HHMMSS` (hours below 24), in seconds.
pub fn parse_offset(s: &str) -> Option<i64> {
    let digits: String = s.chars().filter(|c| *c != ':').collect();
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let colons = s.matches(':').count();
    if colons > 0 && s.split(':').any(|p| p.len() != 2) {
        return None;
    }
    let n = |a: usize| digits.get(a..a + 2).and_then(|p| p.parse::<i64>().ok());
    let (h, m, sec) = match digits.len() {
        1 => (digits.parse().ok()?, 0, 0),
        2 => (n(0)?, 0, 0),
        4 => (n(0)?, n(2)?, 0),
        6 => (n(0)?, n(2)?, n(4)?),
        _ => return None,
    };
    if h > 23 || m > 59 || sec > 59 {
        return None;
    }
    Some(h * 3600 + m * 60 + sec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_and_default_zone() {
        let mut s = String::new();
        write_offset(&mut s, 5 * 3600 + 30 * 60);
        assert_eq!(s, "+05:30");
        s.clear();
        write_offset(&mut s, -4 * 3600);
        assert_eq!(s, "-04");
        assert_eq!(current().name(), "UTC");
        assert_eq!(format_in(&current(), 0), "1970-01-01 00:00:00+00");
    }
}
