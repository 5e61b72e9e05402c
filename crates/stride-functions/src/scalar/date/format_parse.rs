//! Parsing text with a compiled [`Format`] (strptime): each specifier reads at most
//! its field's width of digits, names match case-insensitively, whitespace in the
//! format matches any run of whitespace, and fields the format does not mention
//! default to 1900-01-01 00:00:00 (as in C and DuckDB).
//!
//! The date comes from the first of these the format has (as in DuckDB):
//! - `%m` / `%d` / `%e` (numbers): year, month and day; other date fields are only
//!   checked;
//! - `%G` / `%V` (ISO 8601 week date, with the weekday `%u`, default 1 = Monday);
//! - `%U` / `%W`: week 1 starts on the year's first Sunday / Monday, the days before
//!   it are week 0, and `%w` (0 = Sunday) is the day in the week (default: its first);
//! - `%j`: the day of the year;
//! - otherwise the year and a month name's month, day 1.
//!
//! Weekday names (`%a` `%A`) are read but not used, as in DuckDB. Two of the
//! week/day-of-year ways in one format, or `%G`/`%V` with `%Y`/`%y`, do not parse.

use super::format::{Format, Item, Spec, DAYS, MONTHS};
use stride_common::interval::{MICROS_PER_DAY, MICROS_PER_SEC};
use stride_common::temporal::{day_of_week, days_from_civil, iso_day_of_week, make_date};

impl Format {
    /// Parses `s` into a timestamp; `None` when it does not match the format.
    pub fn parse_timestamp(&self, s: &str) -> Option<i64> {
        let st = self.parse_state(s)?;
        let offset = st.offset_minutes * 60 * MICROS_PER_SEC;
        st.finish()?.checked_sub(offset)
    }

    /// Parses `s` into an instant (strptime with `%z` or `%Z`): the local time read
    /// with the parsed offset, in the parsed zone, or in `zone` when the text has
    /// neither. `Ok(None)` when it does not match; an unknown zone name is an error.
    pub fn parse_instant(
        &self,
        s: &str,
        zone: &stride_common::zone::SessionZone,
    ) -> stride_common::Result<Option<i64>> {
        let Some(st) = self.parse_state(s) else {
            return Ok(None);
        };
        let offset = st.offset_minutes * 60 * MICROS_PER_SEC;
        let (has_offset, name) = (st.has_offset, st.zone.clone());
        let Some(local) = st.finish() else {
            return Ok(None);
        };
        Ok(match name {
            Some(n) => crate::timezone::lookup(&n)?.instant_of(local),
            None if has_offset => local.checked_sub(offset),
            None => zone.instant_of(local),
        })
    }

    fn parse_state(&self, s: &str) -> Option<ParseState> {
        let mut st = ParseState::default();
        let mut b = s.as_bytes();
        for item in &self.items {
            match item {
                Item::Lit(l) => b = match_literal(b, l)?,
                Item::Spec { spec, .. } => b = parse_spec(*spec, b, &mut st)?,
            }
        }
        if !b.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        Some(st)
    }

    /// Whether the format reads a UTC offset or a zone name (strptime then returns a
    /// TIMESTAMP WITH TIME ZONE, as in DuckDB).
    pub fn has_zone(&self) -> bool {
        self.items.iter().any(|i| {
            matches!(
                i,
                Item::Spec {
                    spec: Spec::TzOffset | Spec::TzName,
                    ..
                }
            )
        })
    }
}

/// Fields collected while parsing; unset ones default to 1900-01-01 00:00:00.
#[derive(Default)]
struct ParseState {
    year: Option<i64>,
    month: Option<i64>,
    day: Option<i64>,
    /// `%m`, `%d` or `%e` was read: they decide the date.
    numeric_month_day: bool,
    day_of_year: Option<i64>,
    /// `%U` (Sunday first) or `%W` (Monday first) and its number.
    week: Option<(Spec, i64)>,
    /// `%w`, 0 = Sunday.
    weekday: Option<i64>,
    iso_year: Option<i64>,
    iso_week: Option<i64>,
    /// `%u`, 1 = Monday.
    iso_weekday: Option<i64>,
    hour: i64,
    minute: i64,
    second: i64,
    micros: i64,
    pm: Option<bool>,
    offset_minutes: i64,
    has_offset: bool,
    zone: Option<String>,
}

impl ParseState {
    /// The local time read (the offset not applied).
    fn finish(&self) -> Option<i64> {
        let days = self.date()?;
        let mut hour = self.hour;
        if let Some(pm) = self.pm {
            if !(1..=12).contains(&hour) {
                return None;
            }
            hour = match (pm, hour) {
                (false, 12) => 0,
                (true, h) if h < 12 => h + 12,
                (_, h) => h,
            };
        }
        if hour > 23 || self.minute > 59 || self.second > 60 {
            return None;
        }
        let time = ((hour * 60 + self.minute) * 60 + self.second) * MICROS_PER_SEC + self.micros;
        days.checked_mul(MICROS_PER_DAY)?.checked_add(time)
    }

    /// The day read, in days since 1970-01-01 (see the module documentation).
    fn date(&self) -> Option<i64> {
        let year = self.year.unwrap_or(1900);
        let ymd = |m: Option<i64>, d: Option<i64>| {
            make_date(year, m.unwrap_or(1), d.unwrap_or(1)).map(i64::from)
        };
        if self.numeric_month_day {
            return ymd(self.month, self.day);
        }
        let iso = self.iso_year.is_some() || self.iso_week.is_some();
        let ways = [iso, self.week.is_some(), self.day_of_year.is_some()];
        if ways.iter().filter(|w| **w).count() > 1 || (iso && self.year.is_some()) {
            return None;
        }
        if iso {
            // week 1 is the one holding January 4
            let jan4 = days_from_civil(self.iso_year.unwrap_or(1900), 1, 4);
            let week1 = jan4 - iso_day_of_week(jan4) + 1;
            let (week, weekday) = (self.iso_week.unwrap_or(1), self.iso_weekday.unwrap_or(1));
            return Some(week1 + (week - 1) * 7 + weekday - 1);
        }
        if let Some((spec, week)) = self.week {
            let jan1 = days_from_civil(year, 1, 1);
            // day of the week counted from the week's first day
            let (first_day, weekday) = match spec {
                Spec::WeekSun => (0, self.weekday.unwrap_or(0)),
                _ => (1, (self.weekday.unwrap_or(1) + 6) % 7),
            };
            let week1 = jan1 + (first_day - day_of_week(jan1)).rem_euclid(7);
            return Some(week1 + (week - 1) * 7 + weekday);
        }
        if let Some(doy) = self.day_of_year {
            let first = days_from_civil(year, 1, 1);
            let last = days_from_civil(year, 12, 31);
            let d = first + doy - 1;
            return (doy >= 1 && d <= last).then_some(d);
        }
        ymd(self.month, None)
    }
}

/// `v` when it is in `range`, for a field that must be.
fn in_range(v: i64, range: std::ops::RangeInclusive<i64>) -> Option<i64> {
    range.contains(&v).then_some(v)
}

fn match_literal<'a>(mut b: &'a [u8], lit: &str) -> Option<&'a [u8]> {
    for &c in lit.as_bytes() {
        if c.is_ascii_whitespace() {
            while b.first().is_some_and(u8::is_ascii_whitespace) {
                b = &b[1..];
            }
        } else {
            if b.first() != Some(&c) {
                return None;
            }
            b = &b[1..];
        }
    }
    Some(b)
}

/// Up to `max` digits (at least one): (value, digits read, rest).
fn digits(b: &[u8], max: usize) -> Option<(i64, usize, &[u8])> {
    let n = b
        .iter()
        .take(max)
        .take_while(|c| c.is_ascii_digit())
        .count();
    if n == 0 {
        return None;
    }
    let v = b[..n].iter().fold(0i64, |v, c| v * 10 + (c - b'0') as i64);
    Some((v, n, &b[n..]))
}

/// One of `names` (or its 3-letter abbreviation), case-insensitively: (index, rest).
fn name<'a>(b: &'a [u8], names: &[&str]) -> Option<(usize, &'a [u8])> {
    for (i, n) in names.iter().enumerate() {
        for cand in [n.as_bytes(), &n.as_bytes()[..3]] {
            if b.len() >= cand.len() && b[..cand.len()].eq_ignore_ascii_case(cand) {
                return Some((i, &b[cand.len()..]));
            }
        }
    }
    None
}

fn parse_spec<'a>(spec: Spec, b: &'a [u8], st: &mut ParseState) -> Option<&'a [u8]> {
    use Spec::*;
    Some(match spec {
        Year => {
            let (neg, b) = match b.first() {
                Some(b'-') => (true, &b[1..]),
                _ => (false, b),
            };
            let (v, _, rest) = digits(b, 4)?;
            st.year = Some(if neg { -v } else { v });
            rest
        }
        Year2 => {
            let (v, _, rest) = digits(b, 2)?;
            st.year = Some(if v < 69 { 2000 + v } else { 1900 + v });
            rest
        }
        Month => {
            let (v, _, rest) = digits(b, 2)?;
            st.month = Some(v);
            st.numeric_month_day = true;
            rest
        }
        MonthName | MonthAbbr => {
            let (i, rest) = name(b, &MONTHS)?;
            st.month = Some(i as i64 + 1);
            rest
        }
        Day | DaySpace => {
            let b = if spec == DaySpace && b.first() == Some(&b' ') {
                &b[1..]
            } else {
                b
            };
            let (v, _, rest) = digits(b, 2)?;
            st.day = Some(v);
            st.numeric_month_day = true;
            rest
        }
        Hour24 | Hour12 => {
            let (v, _, rest) = digits(b, 2)?;
            st.hour = v;
            rest
        }
        AmPm => {
            let pm = match b.get(..2)? {
                x if x.eq_ignore_ascii_case(b"AM") => false,
                x if x.eq_ignore_ascii_case(b"PM") => true,
                _ => return None,
            };
            st.pm = Some(pm);
            &b[2..]
        }
        Minute => {
            let (v, _, rest) = digits(b, 2)?;
            st.minute = v;
            rest
        }
        Second => {
            let (v, _, rest) = digits(b, 2)?;
            st.second = v;
            rest
        }
        Micros | Millis | Nanos => {
            let width = match spec {
                Micros => 6,
                Millis => 3,
                _ => 9,
            };
            let (v, n, rest) = digits(b, width)?;
            // scale what was read to the field's full width, then to microseconds
            let full = v * 10i64.pow((width - n) as u32);
            st.micros = match spec {
                Micros => full,
                Millis => full * 1_000,
                _ => full / 1_000,
            };
            rest
        }
        DayOfYear => {
            let (v, _, rest) = digits(b, 3)?;
            st.day_of_year = Some(v);
            rest
        }
        WeekdayName | WeekdayAbbr => name(b, &DAYS)?.1,
        WeekdaySun0 => {
            let (v, _, rest) = digits(b, 1)?;
            st.weekday = Some(in_range(v, 0..=6)?);
            rest
        }
        WeekdayIso => {
            let (v, _, rest) = digits(b, 1)?;
            st.iso_weekday = Some(in_range(v, 1..=7)?);
            rest
        }
        WeekSun | WeekMon => {
            let (v, _, rest) = digits(b, 2)?;
            if st.week.is_some_and(|(s, _)| s != spec) {
                return None; // both %U and %W
            }
            st.week = Some((spec, in_range(v, 0..=53)?));
            rest
        }
        IsoWeek => {
            let (v, _, rest) = digits(b, 2)?;
            st.iso_week = Some(in_range(v, 1..=53)?);
            rest
        }
        IsoYear => {
            let (v, _, rest) = digits(b, 4)?;
            st.iso_year = Some(v);
            rest
        }
        TzOffset => {
            if let Some(rest) = b.strip_prefix(b"Z") {
                st.has_offset = true;
                return Some(rest);
            }
            let sign = match b.first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let (h, _, rest) = digits(&b[1..], 2)?;
            let rest = rest.strip_prefix(b":").unwrap_or(rest);
            let (m, rest) = match digits(rest, 2) {
                Some((m, _, r)) => (m, r),
                None => (0, rest),
            };
            st.offset_minutes = sign * (h * 60 + m);
            st.has_offset = true;
            rest
        }
        TzName => {
            // a zone name: `UTC`, `Europe/Berlin`, `America/Port-au-Prince`, `Etc/GMT+5`
            let n = b
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || b"/_+-".contains(c))
                .count();
            if n == 0 {
                return None;
            }
            st.zone = Some(String::from_utf8_lossy(&b[..n]).into_owned());
            &b[n..]
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use stride_common::temporal::parse_timestamp;

    fn parse(f: &str, s: &str) -> Option<i64> {
        Format::parse(f).unwrap().parse_timestamp(s)
    }

    #[test]
    fn parsing() {
        let ts = |s: &str| parse_timestamp(s);
        assert_eq!(parse("%Y-%m-%d", "2024-01-02"), ts("2024-01-02"));
        assert_eq!(parse("%Y%m%d", "20240102"), ts("2024-01-02"));
        assert_eq!(
            parse("%d/%m/%Y %H:%M", "2/1/2024 7:05"),
            ts("2024-01-02 07:05")
        );
        assert_eq!(
            parse("%Y-%m-%d %H:%M:%S.%f", "2024-01-02 03:04:05.5"),
            ts("2024-01-02 03:04:05.5")
        );
        assert_eq!(parse("%B %d, %Y", "january 02, 2024"), ts("2024-01-02"));
        assert_eq!(
            parse("%b %d %Y %I:%M %p", "Jan 02 2024 12:30 am"),
            ts("2024-01-02 00:30")
        );
        assert_eq!(
            parse("%b %d %Y %I:%M %p", "Jan 02 2024 01:30 PM"),
            ts("2024-01-02 13:30")
        );
        assert_eq!(
            parse("%Y-%m-%d %H:%M:%S%z", "2024-01-02 03:00:00+02:00"),
            ts("2024-01-02 01:00")
        );
        assert_eq!(parse("%Y %j", "2024 060"), ts("2024-02-29"));
        assert_eq!(parse("%y", "69"), ts("1969-01-01"));
        assert_eq!(parse("%y", "68"), ts("2068-01-01"));
        assert_eq!(parse("%H:%M", "10:30"), ts("1900-01-01 10:30"));
        assert_eq!(parse("%Y-%m-%d", "2023-02-29"), None);
        assert_eq!(parse("%Y-%m-%d", "2024-01-02x"), None);
        assert_eq!(parse("%Y-%m-%d", "2024-01"), None);
        assert_eq!(parse("%H", "25"), None);
        assert_eq!(parse("%a %Y", "Tuesday 2024"), ts("2024-01-01"));
    }
}
