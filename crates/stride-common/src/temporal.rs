//! Calendar arithmetic for DATE (days since 1970-01-01) and TIMESTAMP (microseconds
//! since 1970-01-01 00:00:00): conversion to and from civil dates, parsing of ISO text,
//! formatting, and month arithmetic. Proleptic Gregorian calendar, no time zones.

use crate::interval::{Interval, MICROS_PER_DAY};

/// DATE 'infinity' and '-infinity', as DuckDB stores them: the largest day number and
/// its negation. They sort after and before every date, read and print as their
/// names, and have no fields (`year` of them is NULL).
pub const DATE_INFINITY: i32 = i32::MAX;
pub const DATE_NEG_INFINITY: i32 = -i32::MAX;
/// TIMESTAMP (and TIMESTAMPTZ) 'infinity' and '-infinity'.
pub const TIMESTAMP_INFINITY: i64 = i64::MAX;
pub const TIMESTAMP_NEG_INFINITY: i64 = -i64::MAX;

/// Whether a DATE is a day (not 'infinity' or '-infinity').
pub fn is_finite_date(days: i32) -> bool {
    days != DATE_INFINITY && days != DATE_NEG_INFINITY
}

/// Whether a TIMESTAMP is an instant (not 'infinity' or '-infinity').
pub fn is_finite_timestamp(micros: i64) -> bool {
    micros != TIMESTAMP_INFINITY && micros != TIMESTAMP_NEG_INFINITY
}

/// The infinite value a date's or timestamp's text names ('infinity', '+infinity',
/// '-infinity', any case): `Some(true)` for +, `Some(false)` for -.
fn infinity_sign(s: &str) -> Option<bool> {
    let (positive, word) = match s.as_bytes().first()? {
        b'-' => (false, &s[1..]),
        b'+' => (true, &s[1..]),
        _ => (true, s),
    };
    word.eq_ignore_ascii_case("infinity").then_some(positive)
}

/// A date's text without a trailing " (BC)" (or " BC"), and whether it had one.
fn strip_bc(s: &str) -> (&str, bool) {
    for suffix in ["(BC)", "BC"] {
        if let Some(rest) = s.strip_suffix(suffix) {
            if rest.ends_with(' ') {
                return (rest.trim_end(), true);
            }
        }
    }
    (s, false)
}

/// Days since the epoch of a civil date (month 1..=12, day 1..=31).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date (year, month, day) of a day number.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

pub fn is_leap_year(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

pub fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap_year(y) => 29,
        _ => 28,
    }
}

/// Builds a date, checking the fields; `None` outside the days an i32 holds (about
/// 5.8 million years either side of 1970, DuckDB's range).
pub fn make_date(y: i64, m: i64, d: i64) -> Option<i32> {
    if !(1..=12).contains(&m)
        || d < 1
        || d > days_in_month(y, m as u32) as i64
        || !(-5_900_000..=5_900_000).contains(&y)
    {
        return None;
    }
    let days = i32::try_from(days_from_civil(y, m as u32, d as u32)).ok()?;
    is_finite_date(days).then_some(days)
}

fn parse_uint(s: &[u8]) -> Option<i64> {
    if s.is_empty() || s.len() > 9 {
        return None;
    }
    let mut v = 0i64;
    for &c in s {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as i64;
    }
    Some(v)
}

/// Parses `YYYY-MM-DD`, with a leading `-` for astronomical negative years or a
/// trailing ` (BC)` (year 1 BC is year 0), or 'infinity' / '-infinity' / 'epoch'.
pub fn parse_date(s: &str) -> Option<i32> {
    let s = s.trim();
    match infinity_sign(s) {
        Some(true) => return Some(DATE_INFINITY),
        Some(false) => return Some(DATE_NEG_INFINITY),
        None if s.eq_ignore_ascii_case("epoch") => return Some(0),
        None => {}
    }
    let (s, bc) = strip_bc(s);
    let (neg, body) = match s.strip_prefix('-') {
        Some(r) if !bc => (true, r),
        _ => (false, s),
    };
    let mut it = body.splitn(3, '-');
    let y = parse_uint(it.next()?.as_bytes())?;
    let m = parse_uint(it.next()?.as_bytes())?;
    let d = parse_uint(it.next()?.as_bytes())?;
    let year = match (neg, bc) {
        (true, _) => -y,
        (_, true) if y == 0 => return None,
        (_, true) => 1 - y,
        _ => y,
    };
    make_date(year, m, d)
}

/// Parses `HH:MM[:SS[.ffffff]]` into microseconds since midnight.
pub fn parse_time(s: &str) -> Option<i64> {
    let mut it = s.splitn(3, ':');
    let h = parse_uint(it.next()?.as_bytes())?;
    let m = parse_uint(it.next()?.as_bytes())?;
    let (sec, frac) = match it.next() {
        None => (0, 0),
        Some(rest) => match rest.split_once('.') {
            None => (parse_uint(rest.as_bytes())?, 0),
            Some((a, b)) => {
                let digits = b.as_bytes();
                if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
                    return None;
                }
                let mut frac = 0i64;
                for i in 0..6 {
                    frac = frac * 10 + digits.get(i).map_or(0, |c| (c - b'0') as i64);
                }
                (parse_uint(a.as_bytes())?, frac)
            }
        },
    };
    if h > 24 || m > 59 || sec > 60 {
        return None;
    }
    Some(((h * 60 + m) * 60 + sec) * 1_000_000 + frac)
}

/// Parses a TIME value as DuckDB does: `H:M[:S[.ffffff]]` (digits past the sixth
/// fractional one are dropped), surrounding spaces allowed, after an optional date
/// (`2020-01-01 10:11:12` is 10:11:12) and before an optional ignored UTC offset
/// (`+02`, `-05:30`, `Z`). At most 24:00:00. Microseconds since midnight.
pub fn parse_time_of_day(s: &str) -> Option<i64> {
    let mut s = s.trim();
    let mut dated = false;
    if let Some(i) = s.find([' ', 'T']) {
        if s[..i].contains('-') {
            parse_date(&s[..i])?;
            s = s[i + 1..].trim_start();
            dated = true;
        }
    }
    let s = s.strip_suffix('Z').unwrap_or(s);
    let s = match s.rfind(['+', '-']) {
        Some(i) if i > 0 => {
            let offset = s[i + 1..].trim();
            let ok = !offset.is_empty()
                && offset.len() <= 8
                && offset.bytes().all(|c| c.is_ascii_digit() || c == b':');
            if !ok {
                return None;
            }
            s[..i].trim_end()
        }
        _ => s,
    };
    let b = s.as_bytes();
    if b.first().is_none_or(|c| !c.is_ascii_digit()) {
        return None;
    }
    let mut it = s.splitn(3, ':');
    let h = parse_uint(it.next()?.as_bytes())?;
    let m = it.next()?;
    if m.len() > 2 {
        return None;
    }
    let m = parse_uint(m.as_bytes())?;
    let (sec, frac) = match it.next() {
        None => (0, 0),
        Some(rest) => {
            let (a, f) = match rest.split_once('.') {
                None => (rest, ""),
                Some((a, f)) => (a, f),
            };
            if a.len() > 2 || !f.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let mut frac = 0i64;
            for i in 0..6 {
                frac = frac * 10 + f.as_bytes().get(i).map_or(0, |c| (c - b'0') as i64);
            }
            (parse_uint(a.as_bytes())?, frac)
        }
    };
    if m > 59 || sec > 59 || h > 24 || (h == 24 && (m, sec, frac) != (0, 0, 0)) {
        return None;
    }
    // After a date, 24:00:00 is the next day's midnight, whose time is 00:00:00
    // (DuckDB); alone it stays 24:00:00.
    if dated && h == 24 {
        return Some(0);
    }
    Some(((h * 60 + m) * 60 + sec) * 1_000_000 + frac)
}

/// Microseconds since midnight as `HH:MM:SS[.ffffff]` (trailing zeros of the fraction
/// dropped, as DuckDB prints a TIME).
pub fn format_time(micros: i64) -> String {
    let mut s = String::with_capacity(15);
    write_time(&mut s, micros);
    s
}

pub fn write_time(out: &mut String, micros: i64) {
    use std::fmt::Write;
    let secs = micros.div_euclid(1_000_000);
    let frac = micros.rem_euclid(1_000_000);
    let _ = write!(
        out,
        "{:02}:{:02}:{:02}",
        secs / 3600,
        (secs / 60) % 60,
        secs % 60
    );
    if frac != 0 {
        let f = format!("{frac:06}");
        out.push('.');
        out.push_str(f.trim_end_matches('0'));
    }
}

/// Parses `YYYY-MM-DD[ (BC)][ |T]HH:MM[:SS[.ffffff]]` or a bare date, or
/// 'infinity' / '-infinity' / 'epoch'.
pub fn parse_timestamp(s: &str) -> Option<i64> {
    let s = s.trim();
    match infinity_sign(s) {
        Some(true) => return Some(TIMESTAMP_INFINITY),
        Some(false) => return Some(TIMESTAMP_NEG_INFINITY),
        None if s.eq_ignore_ascii_case("epoch") => return Some(0),
        None => {}
    }
    let s = s.strip_suffix('Z').unwrap_or(s);
    let split = s.find([' ', 'T']);
    let (mut date, mut time) = match split {
        Some(i) => (&s[..i], s[i + 1..].trim()),
        None => (s, ""),
    };
    let with_bc;
    if let Some(rest) = time.strip_prefix("(BC)") {
        with_bc = format!("{date} (BC)");
        date = &with_bc;
        time = rest.trim_start();
    }
    let days = parse_date(date)?;
    if !is_finite_date(days) {
        return None;
    }
    let micros = if time.is_empty() {
        0
    } else {
        parse_time(time)?
    };
    let t = (days as i64)
        .checked_mul(MICROS_PER_DAY)?
        .checked_add(micros)?;
    is_finite_timestamp(t).then_some(t)
}

pub fn format_date(days: i32) -> String {
    let mut s = String::with_capacity(10);
    write_date(&mut s, days);
    s
}

/// Appends a date as `YYYY-MM-DD`, years before 1 as `YYYY-MM-DD (BC)` (year 0 is
/// 1 BC), the infinite dates as 'infinity' and '-infinity' (DuckDB's text).
pub fn write_date(out: &mut String, days: i32) {
    use std::fmt::Write;
    match days {
        DATE_INFINITY => out.push_str("infinity"),
        DATE_NEG_INFINITY => out.push_str("-infinity"),
        _ => {
            let (y, m, d) = civil_from_days(days as i64);
            let _ = if y <= 0 {
                write!(out, "{:04}-{m:02}-{d:02} (BC)", 1 - y)
            } else {
                write!(out, "{y:04}-{m:02}-{d:02}")
            };
        }
    }
}

pub fn format_timestamp(micros: i64) -> String {
    match micros {
        TIMESTAMP_INFINITY => return "infinity".into(),
        TIMESTAMP_NEG_INFINITY => return "-infinity".into(),
        _ => {}
    }
    let days = micros.div_euclid(MICROS_PER_DAY);
    let rem = micros.rem_euclid(MICROS_PER_DAY);
    let secs = rem / 1_000_000;
    let frac = rem % 1_000_000;
    let mut s = format!(
        "{} {:02}:{:02}:{:02}",
        format_date(days as i32),
        secs / 3600,
        (secs / 60) % 60,
        secs % 60
    );
    if frac != 0 {
        let f = format!("{frac:06}");
        s.push('.');
        s.push_str(f.trim_end_matches('0'));
    }
    s
}

/// Adds months to a day number, clamping the day to the target month's length
/// (2024-01-31 + 1 month = 2024-02-29), as PostgreSQL does.
pub fn add_months_to_days(days: i64, months: i64) -> Option<i64> {
    let (y, m, d) = civil_from_days(days);
    let total = y
        .checked_mul(12)?
        .checked_add(m as i64 - 1)?
        .checked_add(months)?;
    let ny = total.div_euclid(12);
    let nm = (total.rem_euclid(12) + 1) as u32;
    let nd = d.min(days_in_month(ny, nm));
    // Past every DATE and TIMESTAMP (years about ±5.88 million): the callers check
    // their own type's range; this only keeps the arithmetic in bounds.
    if !(-6_000_000..=6_000_000).contains(&ny) {
        return None;
    }
    Some(days_from_civil(ny, nm, nd))
}

/// TIMESTAMP + INTERVAL.
pub fn timestamp_add_interval(ts: i64, iv: Interval) -> Option<i64> {
    if !is_finite_timestamp(ts) {
        return Some(ts);
    }
    let days = ts.div_euclid(MICROS_PER_DAY);
    let rem = ts.rem_euclid(MICROS_PER_DAY);
    let days = add_months_to_days(days, iv.months as i64)?.checked_add(iv.days as i64)?;
    let t = days
        .checked_mul(MICROS_PER_DAY)?
        .checked_add(rem)?
        .checked_add(iv.micros)?;
    is_finite_timestamp(t).then_some(t)
}

/// A date moved by `n` days; the infinite dates stay as they are, and a finite one
/// may not become one.
pub fn date_add_days(d: i32, n: i64) -> Option<i32> {
    if !is_finite_date(d) {
        return Some(d);
    }
    let r = d as i64 + n;
    // (i32::MIN is below -infinity, not a date)
    (r > DATE_NEG_INFINITY as i64 && r < DATE_INFINITY as i64).then_some(r as i32)
}

/// The midnight of a date plus a time of day, as a TIMESTAMP; the infinite dates
/// give the infinite timestamps.
pub fn date_at_time(d: i32, micros: i64) -> Option<i64> {
    match d {
        DATE_INFINITY => Some(TIMESTAMP_INFINITY),
        DATE_NEG_INFINITY => Some(TIMESTAMP_NEG_INFINITY),
        _ => (d as i64).checked_mul(MICROS_PER_DAY)?.checked_add(micros),
    }
}

/// Day of week, 0 = Sunday.
pub fn day_of_week(days: i64) -> i64 {
    (days + 4).rem_euclid(7)
}

/// ISO day of week, 1 = Monday .. 7 = Sunday.
pub fn iso_day_of_week(days: i64) -> i64 {
    let d = day_of_week(days);
    if d == 0 {
        7
    } else {
        d
    }
}

pub fn day_of_year(days: i64) -> i64 {
    let (y, _, _) = civil_from_days(days);
    days - days_from_civil(y, 1, 1) + 1
}

/// ISO 8601 (year, week number).
pub fn iso_week(days: i64) -> (i64, i64) {
    let wd = iso_day_of_week(days);
    let thursday = days - wd + 4;
    let (y, _, _) = civil_from_days(thursday);
    let week = (thursday - days_from_civil(y, 1, 1)) / 7 + 1;
    (y, week)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_roundtrip() {
        for z in [-800_000i64, -1, 0, 1, 10_957, 19_000, 2_932_896] {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(parse_date("2000-02-29"), Some(10_957 + 59));
        assert_eq!(parse_date("1999-02-29"), None);
    }

    #[test]
    fn times() {
        let t = |s| parse_time_of_day(s);
        assert_eq!(t("10:00:00"), Some(36_000_000_000));
        assert_eq!(t("1:2:3"), Some(3_723_000_000));
        assert_eq!(t("1:02:03"), Some(3_723_000_000));
        assert_eq!(t("12:34"), Some(45_240_000_000));
        assert_eq!(t(" 12:00:00.5 "), Some(43_200_500_000));
        assert_eq!(t("12:34:56.1234567"), Some(45_296_123_456));
        assert_eq!(t("2020-01-01 10:11:12"), Some(36_672_000_000));
        assert_eq!(t("10:00:00+02"), Some(36_000_000_000));
        assert_eq!(t("24:00:00"), Some(MICROS_PER_DAY));
        for bad in [
            "25:00:00", "24:00:01", "abc", "", "10:60:00", "10:00:60", "-1:00:00", "10",
        ] {
            assert_eq!(t(bad), None, "{bad}");
        }
        assert_eq!(format_time(45_296_789_000), "12:34:56.789");
        assert_eq!(format_time(MICROS_PER_DAY), "24:00:00");
        assert_eq!(format_time(1), "00:00:00.000001");
    }

    #[test]
    fn timestamps() {
        let ts = parse_timestamp("1992-01-02 03:04:05.5").unwrap();
        assert_eq!(format_timestamp(ts), "1992-01-02 03:04:05.5");
        assert_eq!(format_date(parse_date("1995-12-31").unwrap()), "1995-12-31");
        let d = parse_date("2024-01-31").unwrap() as i64;
        assert_eq!(
            format_date(add_months_to_days(d, 1).unwrap() as i32),
            "2024-02-29"
        );
        assert_eq!(
            iso_week(parse_date("2021-01-03").unwrap() as i64),
            (2020, 53)
        );
    }
}
