//! strftime/strptime format strings (the C/DuckDB specifiers), compiled once into a
//! list of items and then used to format timestamps into a buffer or parse text.
//!
//! Supported: %Y %y %m %d %e %H %I %M %S %f (microseconds) %g (milliseconds)
//! %n (nanoseconds) %p %b %h %B %a %A %j %w %u %U %W %V %G %z %Z %% and the
//! shorthands %c %x %X %D %F %T %R; `%-` before a numeric specifier drops the zero
//! padding (%-d). Parsing reads up to the field's width of digits, so '%Y%m%d'
//! parses '20240102'; whitespace in the format matches any run of whitespace.

use std::fmt::Write;
use stride_common::interval::{MICROS_PER_DAY, MICROS_PER_SEC};
use stride_common::temporal::{
    civil_from_days, day_of_week, day_of_year, days_from_civil, iso_day_of_week, iso_week,
    make_date,
};
use stride_common::{Error, Result};

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

pub(crate) fn month_name(m: u32) -> &'static str {
    MONTHS[(m as usize).clamp(1, 12) - 1]
}

pub(crate) fn day_name(dow: i64) -> &'static str {
    DAYS[dow.rem_euclid(7) as usize]
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Spec {
    Year,
    Year2,
    Month,
    MonthName,
    MonthAbbr,
    Day,
    DaySpace,
    Hour24,
    Hour12,
    AmPm,
    Minute,
    Second,
    Micros,
    Millis,
    Nanos,
    DayOfYear,
    WeekdayName,
    WeekdayAbbr,
    WeekdaySun0,
    WeekdayIso,
    WeekSun,
    WeekMon,
    IsoWeek,
    IsoYear,
    TzOffset,
    TzName,
}

#[derive(Debug, Clone, PartialEq)]
enum Item {
    Lit(String),
    Spec { spec: Spec, pad: bool },
}

/// A compiled format string.
#[derive(Debug, Clone, PartialEq)]
pub struct Format {
    items: Vec<Item>,
    text: String,
}

fn spec_of(c: char) -> Option<Spec> {
    use Spec::*;
    Some(match c {
        'Y' => Year,
        'y' => Year2,
        'm' => Month,
        'B' => MonthName,
        'b' | 'h' => MonthAbbr,
        'd' => Day,
        'e' => DaySpace,
        'H' => Hour24,
        'I' => Hour12,
        'p' => AmPm,
        'M' => Minute,
        'S' => Second,
        'f' => Micros,
        'g' => Millis,
        'n' => Nanos,
        'j' => DayOfYear,
        'A' => WeekdayName,
        'a' => WeekdayAbbr,
        'w' => WeekdaySun0,
        'u' => WeekdayIso,
        'U' => WeekSun,
        'W' => WeekMon,
        'V' => IsoWeek,
        'G' => IsoYear,
        'z' => TzOffset,
        'Z' => TzName,
        _ => return None,
    })
}

fn shorthand(c: char) -> Option<&'static str> {
    Some(match c {
        'c' => "%Y-%m-%d %H:%M:%S",
        'x' | 'F' => "%Y-%m-%d",
        'X' | 'T' => "%H:%M:%S",
        'D' => "%m/%d/%y",
        'R' => "%H:%M",
        _ => return None,
    })
}

fn bad_specifier(format: &str, spec: &str) -> Error {
    Error::invalid_input(format!(
        "Failed to parse format specifier {format}: Unrecognized format for strftime/strptime: {spec}"
    ))
}

/// The fields of a timestamp that formatting needs.
struct Parts {
    days: i64,
    year: i64,
    month: u32,
    day: u32,
    time: i64,
}

impl Format {
    pub fn parse(text: &str) -> Result<Format> {
        let mut items = Vec::new();
        Self::compile(text, text, &mut items)?;
        Ok(Format {
            items,
            text: text.to_string(),
        })
    }

    fn compile(text: &str, whole: &str, items: &mut Vec<Item>) -> Result<()> {
        let mut lit = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                lit.push(c);
                continue;
            }
            let mut next = chars.next();
            let pad = next != Some('-');
            if !pad {
                next = chars.next();
            }
            let Some(n) = next else {
                return Err(bad_specifier(whole, "%"));
            };
            if n == '%' {
                lit.push('%');
                continue;
            }
            if !lit.is_empty() {
                items.push(Item::Lit(std::mem::take(&mut lit)));
            }
            if let Some(expansion) = shorthand(n) {
                Self::compile(expansion, whole, items)?;
            } else if let Some(spec) = spec_of(n) {
                items.push(Item::Spec { spec, pad });
            } else {
                return Err(bad_specifier(whole, &format!("%{n}")));
            }
        }
        if !lit.is_empty() {
            items.push(Item::Lit(lit));
        }
        Ok(())
    }

    /// The format string as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Appends timestamp `micros` formatted.
    pub fn write(&self, micros: i64, out: &mut String) {
        let days = micros.div_euclid(MICROS_PER_DAY);
        let (year, month, day) = civil_from_days(days);
        let p = Parts {
            days,
            year,
            month,
            day,
            time: micros.rem_euclid(MICROS_PER_DAY),
        };
        for item in &self.items {
            match item {
                Item::Lit(s) => out.push_str(s),
                Item::Spec { spec, pad } => write_spec(*spec, *pad, &p, out),
            }
        }
    }

    /// Parses `s` into a timestamp; `None` when it does not match the format.
    pub fn parse_timestamp(&self, s: &str) -> Option<i64> {
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
        st.finish()
    }
}

fn num(out: &mut String, v: i64, width: usize, pad: bool) {
    let _ = if pad {
        write!(out, "{v:0width$}")
    } else {
        write!(out, "{v}")
    };
}

fn write_spec(spec: Spec, pad: bool, p: &Parts, out: &mut String) {
    use Spec::*;
    let hour = p.time / (3_600 * MICROS_PER_SEC);
    let dow = day_of_week(p.days);
    let yday = day_of_year(p.days) - 1;
    match spec {
        Year => num(out, p.year, 4, pad),
        Year2 => num(out, p.year.rem_euclid(100), 2, pad),
        Month => num(out, p.month as i64, 2, pad),
        MonthName => out.push_str(month_name(p.month)),
        MonthAbbr => out.push_str(&month_name(p.month)[..3]),
        Day => num(out, p.day as i64, 2, pad),
        DaySpace => {
            let _ = write!(out, "{:>2}", p.day);
        }
        Hour24 => num(out, hour, 2, pad),
        Hour12 => num(out, if hour % 12 == 0 { 12 } else { hour % 12 }, 2, pad),
        AmPm => out.push_str(if hour < 12 { "AM" } else { "PM" }),
        Minute => num(out, (p.time / (60 * MICROS_PER_SEC)) % 60, 2, pad),
        Second => num(out, (p.time / MICROS_PER_SEC) % 60, 2, pad),
        Micros => num(out, p.time % MICROS_PER_SEC, 6, true),
        Millis => num(out, p.time % MICROS_PER_SEC / 1_000, 3, true),
        Nanos => num(out, p.time % MICROS_PER_SEC * 1_000, 9, true),
        DayOfYear => num(out, yday + 1, 3, pad),
        WeekdayName => out.push_str(day_name(dow)),
        WeekdayAbbr => out.push_str(&day_name(dow)[..3]),
        WeekdaySun0 => num(out, dow, 1, pad),
        WeekdayIso => num(out, iso_day_of_week(p.days), 1, pad),
        WeekSun => num(out, (yday + 7 - dow) / 7, 2, pad),
        WeekMon => num(out, (yday + 7 - (dow + 6) % 7) / 7, 2, pad),
        IsoWeek => num(out, iso_week(p.days).1, 2, pad),
        IsoYear => num(out, iso_week(p.days).0, 4, pad),
        TzOffset => out.push_str("+00"),
        TzName => {}
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
}

impl ParseState {
    fn finish(self) -> Option<i64> {
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
        days.checked_mul(MICROS_PER_DAY)?
            .checked_add(time)?
            .checked_sub(self.offset_minutes * 60 * MICROS_PER_SEC)
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
            rest
        }
        TzName => {
            let n = b.iter().take_while(|c| c.is_ascii_alphabetic()).count();
            &b[n..]
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use stride_common::temporal::parse_timestamp;

    fn fmt(f: &str, ts: &str) -> String {
        let mut s = String::new();
        Format::parse(f)
            .unwrap()
            .write(parse_timestamp(ts).unwrap(), &mut s);
        s
    }

    fn parse(f: &str, s: &str) -> Option<i64> {
        Format::parse(f).unwrap().parse_timestamp(s)
    }

    #[test]
    fn formatting() {
        let t = "1992-03-07 13:05:09.012345";
        assert_eq!(fmt("%Y-%m-%d %H:%M:%S", t), "1992-03-07 13:05:09");
        assert_eq!(fmt("%c", t), "1992-03-07 13:05:09");
        assert_eq!(fmt("%d/%m/%y", t), "07/03/92");
        assert_eq!(fmt("%-d/%-m %-H:%-M", t), "7/3 13:5");
        assert_eq!(fmt("%A, %B %e", t), "Saturday, March  7");
        assert_eq!(fmt("%a %b %h", t), "Sat Mar Mar");
        assert_eq!(fmt("%I:%M %p", t), "01:05 PM");
        assert_eq!(fmt("%I %p", "1992-03-07 00:30:00"), "12 AM");
        assert_eq!(fmt("%f|%g|%n", t), "012345|012|012345000");
        assert_eq!(fmt("%j %w %u", t), "067 6 6");
        assert_eq!(fmt("%U %W %V %G", "2021-01-03"), "01 00 53 2020");
        assert_eq!(fmt("100%% %Y", t), "100% 1992");
        assert_eq!(fmt("%z%Z", t), "+00");
        assert!(Format::parse("%Q").is_err());
        assert!(Format::parse("abc%").is_err());
        assert_eq!(
            Format::parse("%Q").unwrap_err().message,
            "Failed to parse format specifier %Q: Unrecognized format for strftime/strptime: %Q"
        );
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
