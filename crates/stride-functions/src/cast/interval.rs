//! INTERVAL text parsing, PostgreSQL style: a sequence of `<number> <unit>` pairs
//! ('2 years 3 months', '-1 month', '1.5 days', '10s'), an optional `[-]HH:MM[:SS[.f]]`
//! time part ('1 day 10:00:00'), an optional leading '@' and trailing 'ago'. A bare
//! number means seconds. Fractions spill into the next smaller field with 30-day
//! months and 24-hour days ('1.5 months' = 1 month 15 days).

use stride_common::interval::{MICROS_PER_DAY, MICROS_PER_SEC};
use stride_common::Interval;

#[derive(Clone, Copy)]
enum Unit {
    Months(i64),
    Days(i64),
    Micros(i64),
}

fn unit(name: &str) -> Option<Unit> {
    let n = name.to_ascii_lowercase();
    Some(match n.as_str() {
        "millennium" | "millennia" | "millenniums" | "mil" | "mils" => Unit::Months(12_000),
        "century" | "centuries" | "cent" => Unit::Months(1_200),
        "decade" | "decades" | "dec" | "decs" => Unit::Months(120),
        "year" | "years" | "y" | "yr" | "yrs" => Unit::Months(12),
        "quarter" | "quarters" | "qtr" | "qtrs" => Unit::Months(3),
        "month" | "months" | "mon" | "mons" => Unit::Months(1),
        "week" | "weeks" | "w" => Unit::Days(7),
        "day" | "days" | "d" => Unit::Days(1),
        "hour" | "hours" | "h" | "hr" | "hrs" => Unit::Micros(3_600 * MICROS_PER_SEC),
        "minute" | "minutes" | "m" | "min" | "mins" => Unit::Micros(60 * MICROS_PER_SEC),
        "second" | "seconds" | "s" | "sec" | "secs" => Unit::Micros(MICROS_PER_SEC),
        "millisecond" | "milliseconds" | "ms" | "msec" | "msecs" => Unit::Micros(1_000),
        "microsecond" | "microseconds" | "us" | "usec" | "usecs" => Unit::Micros(1),
        _ => return None,
    })
}

/// Fields accumulated wider than an Interval's, narrowed (and checked) at the end.
#[derive(Default)]
struct Acc {
    months: i128,
    days: i128,
    micros: i128,
}

impl Acc {
    /// Adds `int + frac` (same sign) units, spilling the fraction downwards.
    fn add(&mut self, int: i64, frac: f64, unit: Unit) {
        match unit {
            Unit::Months(m) => {
                self.months += int as i128 * m as i128;
                let months = frac * m as f64;
                self.months += months.trunc() as i128;
                let days = months.fract() * 30.0;
                self.days += days.trunc() as i128;
                self.micros += (days.fract() * MICROS_PER_DAY as f64).round() as i128;
            }
            Unit::Days(d) => {
                self.days += int as i128 * d as i128;
                let days = frac * d as f64;
                self.days += days.trunc() as i128;
                self.micros += (days.fract() * MICROS_PER_DAY as f64).round() as i128;
            }
            Unit::Micros(u) => {
                self.micros += int as i128 * u as i128 + (frac * u as f64).round() as i128;
            }
        }
    }

    fn finish(self, negate: bool) -> Option<Interval> {
        let s = if negate { -1 } else { 1 };
        Some(Interval::new(
            i32::try_from(self.months * s).ok()?,
            i32::try_from(self.days * s).ok()?,
            i64::try_from(self.micros * s).ok()?,
        ))
    }
}

/// Splits a leading signed decimal number off `tok`: (integer part, fraction, rest).
fn split_number(tok: &str) -> Option<(i64, f64, &str)> {
    let b = tok.as_bytes();
    let mut i = 0;
    let neg = match b.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_end = i;
    let mut frac_end = i;
    if i < b.len() && b[i] == b'.' {
        frac_end = i + 1;
        while frac_end < b.len() && b[frac_end].is_ascii_digit() {
            frac_end += 1;
        }
    }
    if int_end == int_start && frac_end <= int_end + 1 {
        return None;
    }
    let int: i64 = if int_end > int_start {
        tok[int_start..int_end].parse().ok()?
    } else {
        0
    };
    let frac: f64 = if frac_end > int_end + 1 {
        format!("0{}", &tok[int_end..frac_end]).parse().ok()?
    } else {
        0.0
    };
    let (int, frac) = if neg { (-int, -frac) } else { (int, frac) };
    Some((int, frac, &tok[frac_end..]))
}

/// `[-+]H+:MM[:SS[.ffffff]]` as signed microseconds.
fn parse_time_part(tok: &str) -> Option<i128> {
    let (neg, body) = match tok.as_bytes().first() {
        Some(b'-') => (true, &tok[1..]),
        Some(b'+') => (false, &tok[1..]),
        _ => (false, tok),
    };
    let mut parts = body.split(':');
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    let h = parts.next().filter(|s| digits(s))?;
    let m = parts.next().filter(|s| digits(s))?;
    let sec = parts.next();
    if parts.next().is_some() {
        return None;
    }
    let h: i128 = h.parse().ok()?;
    let m: i128 = m.parse().ok()?;
    let mut micros = (h * 3600 + m * 60) * MICROS_PER_SEC as i128;
    if let Some(sec) = sec {
        let (whole, frac) = sec.split_once('.').unwrap_or((sec, ""));
        if !digits(whole) || !(frac.is_empty() || digits(frac)) {
            return None;
        }
        micros += whole.parse::<i128>().ok()? * MICROS_PER_SEC as i128;
        let mut f = 0i128;
        for i in 0..6 {
            f = f * 10 + frac.as_bytes().get(i).map_or(0, |c| (c - b'0') as i128);
        }
        micros += f;
    }
    Some(if neg { -micros } else { micros })
}

/// Parses interval text; `None` when it is malformed or out of range.
pub fn parse_interval(text: &str) -> Option<Interval> {
    let text = text.trim();
    let text = text.strip_prefix('@').unwrap_or(text);
    let mut tokens = text.split_whitespace().peekable();
    let mut acc = Acc::default();
    let mut negate = false;
    let mut any = false;
    while let Some(tok) = tokens.next() {
        if tok.eq_ignore_ascii_case("ago") && tokens.peek().is_none() && any {
            negate = true;
            break;
        }
        any = true;
        if tok.contains(':') {
            acc.micros += parse_time_part(tok)?;
            continue;
        }
        let (int, frac, rest) = split_number(tok)?;
        let u = if !rest.is_empty() {
            unit(rest)?
        } else {
            match tokens.peek() {
                Some(next) if !next.eq_ignore_ascii_case("ago") => {
                    let u = unit(next)?;
                    tokens.next();
                    u
                }
                _ => Unit::Micros(MICROS_PER_SEC),
            }
        };
        acc.add(int, frac, u);
    }
    if !any {
        return None;
    }
    acc.finish(negate)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(s: &str) -> Option<Interval> {
        parse_interval(s)
    }

    #[test]
    fn units_and_forms() {
        assert_eq!(iv("1 day"), Some(Interval::new(0, 1, 0)));
        assert_eq!(iv("2 years 3 months"), Some(Interval::new(27, 0, 0)));
        assert_eq!(iv("90 days"), Some(Interval::new(0, 90, 0)));
        assert_eq!(
            iv("1 hour 30 minutes"),
            Some(Interval::new(0, 0, 5_400_000_000))
        );
        assert_eq!(iv("-1 month"), Some(Interval::new(-1, 0, 0)));
        assert_eq!(iv("10:00:00"), Some(Interval::new(0, 0, 36_000_000_000)));
        assert_eq!(
            iv("1 day -01:30"),
            Some(Interval::new(0, 1, -5_400_000_000))
        );
        assert_eq!(iv("1.5 days"), Some(Interval::new(0, 1, 43_200_000_000)));
        assert_eq!(iv("1.5 months"), Some(Interval::new(1, 15, 0)));
        assert_eq!(iv("10s"), Some(Interval::new(0, 0, 10_000_000)));
        assert_eq!(iv("42"), Some(Interval::new(0, 0, 42_000_000)));
        assert_eq!(iv("@ 3 DAYS ago"), Some(Interval::new(0, -3, 0)));
        assert_eq!(iv("2 weeks"), Some(Interval::new(0, 14, 0)));
        assert_eq!(iv("1 century"), Some(Interval::new(1200, 0, 0)));
        assert_eq!(iv("00:00:01.5"), Some(Interval::new(0, 0, 1_500_000)));
    }

    #[test]
    fn malformed() {
        for s in [
            "",
            "day",
            "1 fortnight",
            "abc",
            "1:xx",
            "99999999999 years",
            "ago",
        ] {
            assert_eq!(iv(s), None, "{s}");
        }
        // a trailing bare number is seconds, as in PostgreSQL
        assert_eq!(iv("1 day 2"), Some(Interval::new(0, 1, 2_000_000)));
    }
}
