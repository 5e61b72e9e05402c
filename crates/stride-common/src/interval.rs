//! INTERVAL values: months, days and microseconds kept apart, as in PostgreSQL, because
//! a month has no fixed length and a day may not have 24 hours.

use std::cmp::Ordering;
use std::fmt;

pub const MICROS_PER_SEC: i64 = 1_000_000;
pub const MICROS_PER_DAY: i64 = 86_400 * MICROS_PER_SEC;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Interval {
    pub months: i32,
    pub days: i32,
    pub micros: i64,
}

impl Interval {
    pub fn new(months: i32, days: i32, micros: i64) -> Self {
        Interval {
            months,
            days,
            micros,
        }
    }

    /// A total order key: 30-day months, 24-hour days (PostgreSQL's comparison rule).
    pub fn normalized_micros(&self) -> i128 {
        (self.months as i128 * 30 + self.days as i128) * MICROS_PER_DAY as i128
            + self.micros as i128
    }
}

impl PartialOrd for Interval {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Interval {
    fn cmp(&self, other: &Self) -> Ordering {
        self.normalized_micros().cmp(&other.normalized_micros())
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        let years = self.months / 12;
        let months = self.months % 12;
        let plural =
            |n: i64, unit: &str| format!("{n} {unit}{}", if n.abs() == 1 { "" } else { "s" });
        if years != 0 {
            parts.push(plural(years as i64, "year"));
        }
        if months != 0 {
            parts.push(plural(months as i64, "month"));
        }
        if self.days != 0 {
            parts.push(plural(self.days as i64, "day"));
        }
        if self.micros != 0 || parts.is_empty() {
            let neg = self.micros < 0;
            let m = self.micros.unsigned_abs();
            let secs = m / 1_000_000;
            let frac = m % 1_000_000;
            let mut t = format!(
                "{}{:02}:{:02}:{:02}",
                if neg { "-" } else { "" },
                secs / 3600,
                (secs / 60) % 60,
                secs % 60
            );
            if frac != 0 {
                let s = format!("{frac:06}");
                t.push('.');
                t.push_str(s.trim_end_matches('0'));
            }
            parts.push(t);
        }
        write!(f, "{}", parts.join(" "))
    }
}
