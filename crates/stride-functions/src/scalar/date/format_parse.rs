//! Parsing text with a compiled [`Format`] (strptime): each specifier reads at most
//! its field's width of digits, names match case-insensitively, whitespace in the
//! format matches any run of whitespace, and fields the format does not mention
//! default to 1900-01-01 00:00:00 (as in C and DuckDB).

use super::format::{Format, Item, Spec, DAYS, MONTHS};
use stride_common::interval::{MICROS_PER_DAY, MICROS_PER_SEC};
use stride_common::temporal::{days_from_civil, make_date};

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
    day_of_year: Option<i64>,
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
        let year = self.year.unwrap_or(1900);
        let days = match (self.month, self.day, self.day_of_year) {
            (None, None, Some(doy)) => {
                let first = days_from_civil(year, 1, 1);
                let last = days_from_civil(year, 12, 31);
                let d = first + doy - 1;
                if doy < 1 || d > last {
                    return None;
                }
                d
            }
            (m, d, _) => make_date(year, m.unwrap_or(1), d.unwrap_or(1))? as i64,
        };
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
        WeekdaySun0 | WeekdayIso => digits(b, 1)?.2,
        WeekSun | WeekMon | IsoWeek => digits(b, 2)?.2,
        IsoYear => digits(b, 4)?.2,
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
