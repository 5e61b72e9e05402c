//! strftime/strptime format strings (the C/DuckDB specifiers), compiled once into a
//! list of items and then used to format timestamps into a buffer or parse text.
//!
//! Supported: %Y %y %m %d %e %H %I %M %S %f (microseconds) %g (milliseconds)
//! %n (nanoseconds) %p %b %h %B %a %A %j %w %u %U %W %V %G %z %Z %% and the
//! shorthands %c %x %X %D %F %T %R; `%-` before a numeric specifier drops the zero
//! padding (%-d). Parsing lives in `format_parse`.

use std::fmt::Write;
use stride_common::interval::{MICROS_PER_DAY, MICROS_PER_SEC};
use stride_common::temporal::{
    civil_from_days, day_of_week, day_of_year, iso_day_of_week, iso_week,
};
use stride_common::{Error, Result};

pub(super) const MONTHS: [&str; 12] = [
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
pub(super) const DAYS: [&str; 7] = [
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
pub(super) enum Spec {
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
pub(super) enum Item {
    Lit(String),
    Spec { spec: Spec, pad: bool },
}

/// A compiled format string.
#[derive(Debug, Clone, PartialEq)]
pub struct Format {
    pub(super) items: Vec<Item>,
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
struct Parts<'z> {
    /// The UTC offset in seconds and the zone's name (`%z`, `%Z`)
    offset: i32,
    zone: &'z str,
    days: i64,
    year: i64,
    month: u32,
    day: u32,
    time: i64,
    /// Nanoseconds below the microsecond (a TIMESTAMP_NS's), for `%n`.
    nanos: i64,
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
        self.write_zoned(micros, 0, "", out)
    }

    /// Appends TIMESTAMP_NS `nanos` formatted: `%n` shows all its nanoseconds, the
    /// other specifiers its microseconds (floored, as in DuckDB).
    pub fn write_nanos(&self, nanos: i64, out: &mut String) {
        self.write_parts(nanos.div_euclid(1_000), nanos.rem_euclid(1_000), 0, "", out)
    }

    /// Appends local time `micros` formatted, with `%z` the UTC offset `offset`
    /// (seconds, as TIMESTAMPTZ text shows it: `-04`, `+05:30`) and `%Z` `zone`.
    pub fn write_zoned(&self, micros: i64, offset: i32, zone: &str, out: &mut String) {
        self.write_parts(micros, 0, offset, zone, out)
    }

    fn write_parts(&self, micros: i64, nanos: i64, offset: i32, zone: &str, out: &mut String) {
        let days = micros.div_euclid(MICROS_PER_DAY);
        let (year, month, day) = civil_from_days(days);
        let p = Parts {
            offset,
            zone,
            days,
            year,
            month,
            day,
            time: micros.rem_euclid(MICROS_PER_DAY),
            nanos,
        };
        for item in &self.items {
            match item {
                Item::Lit(s) => out.push_str(s),
                Item::Spec { spec, pad } => write_spec(*spec, *pad, &p, out),
            }
        }
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
        // A year before 1 (BC) is written as a plain negative number, its last two
        // digits as those of its magnitude (DuckDB: -43 and 43 for 44 BC).
        Year => num(out, p.year, 4, pad && p.year >= 0),
        Year2 => num(out, p.year.abs() % 100, 2, pad),
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
        Nanos => num(out, p.time % MICROS_PER_SEC * 1_000 + p.nanos, 9, true),
        DayOfYear => num(out, yday + 1, 3, pad),
        WeekdayName => out.push_str(day_name(dow)),
        WeekdayAbbr => out.push_str(&day_name(dow)[..3]),
        WeekdaySun0 => num(out, dow, 1, pad),
        WeekdayIso => num(out, iso_day_of_week(p.days), 1, pad),
        WeekSun => num(out, (yday + 7 - dow) / 7, 2, pad),
        WeekMon => num(out, (yday + 7 - (dow + 6) % 7) / 7, 2, pad),
        IsoWeek => num(out, iso_week(p.days).1, 2, pad),
        IsoYear => {
            let y = iso_week(p.days).0;
            num(out, y, 4, pad && y >= 0)
        }
        TzOffset => stride_common::zone::write_offset(out, p.offset),
        TzName => out.push_str(p.zone),
    }
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
}
