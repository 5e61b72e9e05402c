//! Date/time fields ("parts") as named in `date_part`, EXTRACT, `date_trunc` and
//! `date_diff`, with their aliases, and the extraction of each field from a DATE
//! (days), a TIMESTAMP (microseconds) or an INTERVAL. Every field is a BIGINT;
//! `millisecond`/`microsecond` include the seconds (DuckDB). `epoch` and `julian`
//! are fractional (DOUBLE, [`DateField::fractional_of_timestamp`]); their BIGINT
//! forms (whole seconds, whole days) remain for `date_trunc`/`date_diff`.

use stride_common::interval::{MICROS_PER_DAY, MICROS_PER_SEC};
use stride_common::temporal::{
    civil_from_days, day_of_week, day_of_year, iso_day_of_week, iso_week,
};
use stride_common::{Error, Interval, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DateField {
    Millennium,
    Century,
    Decade,
    Year,
    IsoYear,
    Quarter,
    Month,
    Week,
    Day,
    /// 0 = Sunday .. 6 = Saturday
    DayOfWeek,
    /// 1 = Monday .. 7 = Sunday
    IsoDayOfWeek,
    DayOfYear,
    Hour,
    Minute,
    Second,
    Millisecond,
    Microsecond,
    Nanosecond,
    Epoch,
    /// Julian day number (days since 4714-11-24 BC)
    Julian,
    /// The UTC offset in seconds: of a TIMESTAMP WITH TIME ZONE in the session's
    /// zone, 0 for the types without a zone
    Timezone,
    /// The offset's hours (with its sign)
    TimezoneHour,
    /// The offset's minutes past the hours (with its sign)
    TimezoneMinute,
    /// 1 for years AD, 0 for years BC
    Era,
    /// ISO year * 100 + ISO week (`yearweek`)
    YearWeek,
}

const MICROS_PER_MINUTE: i64 = 60 * MICROS_PER_SEC;
const MICROS_PER_HOUR: i64 = 60 * MICROS_PER_MINUTE;

impl DateField {
    /// Parses a part name ('year', 'yr', 'DOW', ...).
    pub fn parse(spec: &str) -> Result<DateField> {
        use DateField::*;
        let s = spec.trim().to_ascii_lowercase();
        Ok(match s.as_str() {
            "millennium" | "millenium" | "millennia" | "millenniums" | "mil" | "mils" => Millennium,
            "century" | "centuries" | "cent" | "c" => Century,
            "decade" | "decades" | "dec" | "decs" => Decade,
            "year" | "years" | "y" | "yr" | "yrs" | "yy" | "yyyy" => Year,
            "isoyear" => IsoYear,
            "yearweek" => YearWeek,
            "quarter" | "quarters" | "q" | "qtr" => Quarter,
            "month" | "months" | "mon" | "mons" | "mm" => Month,
            "week" | "weeks" | "w" | "wk" | "weekofyear" | "isoweek" => Week,
            "day" | "days" | "d" | "dd" | "dayofmonth" => Day,
            "dow" | "dayofweek" | "weekday" => DayOfWeek,
            "isodow" => IsoDayOfWeek,
            "doy" | "dayofyear" => DayOfYear,
            "hour" | "hours" | "h" | "hr" | "hrs" => Hour,
            "minute" | "minutes" | "m" | "min" | "mins" => Minute,
            "second" | "seconds" | "s" | "sec" | "secs" => Second,
            "millisecond" | "milliseconds" | "ms" | "msec" | "msecs" => Millisecond,
            "microsecond" | "microseconds" | "us" | "usec" | "usecs" => Microsecond,
            "nanosecond" | "nanoseconds" | "ns" | "nsec" | "nsecs" => Nanosecond,
            "epoch" => Epoch,
            "julian" => Julian,
            "era" => Era,
            "timezone" => Timezone,
            "timezone_hour" => TimezoneHour,
            "timezone_minute" => TimezoneMinute,
            _ => {
                return Err(Error::conversion(format!(
                    "extract specifier \"{}\" not recognized",
                    spec.trim()
                )))
            }
        })
    }

    /// The field of a date (time fields are 0: a date is its midnight).
    #[inline]
    pub fn of_date(self, days: i32) -> i64 {
        self.of_parts(days as i64, 0)
    }

    /// The field of a TIME (microseconds since midnight, up to 24:00:00, whose hour
    /// is 24); date fields are an error, as in DuckDB.
    pub fn of_time(self, micros: i64) -> Result<i64> {
        use DateField::*;
        Ok(match self {
            Hour => micros / MICROS_PER_HOUR,
            Minute => micros / MICROS_PER_MINUTE % 60,
            Second => micros / MICROS_PER_SEC % 60,
            Millisecond => micros % MICROS_PER_MINUTE / 1000,
            Microsecond => micros % MICROS_PER_MINUTE,
            Epoch => micros / MICROS_PER_SEC,
            Timezone | TimezoneHour | TimezoneMinute => 0,
            other => {
                return Err(Error::not_supported(format!(
                    "\"time\" units \"{}\" not recognized",
                    other.name()
                )))
            }
        })
    }

    /// Whether the field is one of the UTC offset's.
    pub fn is_zone(self) -> bool {
        matches!(
            self,
            DateField::Timezone | DateField::TimezoneHour | DateField::TimezoneMinute
        )
    }

    /// A zone field of a UTC offset of `secs` seconds.
    pub fn of_offset(self, secs: i64) -> i64 {
        match self {
            DateField::TimezoneHour => secs / 3600,
            DateField::TimezoneMinute => secs / 60 % 60,
            _ => secs,
        }
    }

    /// The field of a timestamp.
    #[inline]
    pub fn of_timestamp(self, micros: i64) -> i64 {
        let days = micros.div_euclid(MICROS_PER_DAY);
        let time = micros.rem_euclid(MICROS_PER_DAY);
        if self == DateField::Epoch {
            return micros.div_euclid(MICROS_PER_SEC);
        }
        self.of_parts(days, time)
    }

    /// The field of (day number, microseconds since midnight).
    fn of_parts(self, days: i64, time: i64) -> i64 {
        use DateField::*;
        let year = || civil_from_days(days).0;
        let secs_in_minute = time % MICROS_PER_MINUTE;
        match self {
            Millennium => {
                let y = year();
                if y > 0 {
                    (y - 1) / 1000 + 1
                } else {
                    -((-y) / 1000 + 1)
                }
            }
            Century => {
                let y = year();
                if y > 0 {
                    (y - 1) / 100 + 1
                } else {
                    -((-y) / 100 + 1)
                }
            }
            // truncated toward zero, as DuckDB (-15 is in decade -1, -5 in decade 0)
            Decade => year() / 10,
            Year => year(),
            IsoYear => iso_week(days).0,
            Quarter => (civil_from_days(days).1 as i64 - 1) / 3 + 1,
            Month => civil_from_days(days).1 as i64,
            Week => iso_week(days).1,
            Day => civil_from_days(days).2 as i64,
            DayOfWeek => day_of_week(days),
            IsoDayOfWeek => iso_day_of_week(days),
            DayOfYear => day_of_year(days),
            Hour => time / MICROS_PER_HOUR,
            Minute => (time / MICROS_PER_MINUTE) % 60,
            Second => secs_in_minute / MICROS_PER_SEC,
            Millisecond => secs_in_minute / 1000,
            Microsecond => secs_in_minute,
            Nanosecond => secs_in_minute * 1_000,
            Epoch => days * 86_400 + time / MICROS_PER_SEC,
            Julian => days + 2_440_588,
            Timezone | TimezoneHour | TimezoneMinute => 0,
            Era => i64::from(year() > 0),
            YearWeek => {
                let (y, w) = iso_week(days);
                y * 100 + if y < 0 { -w } else { w }
            }
        }
    }

    /// The field of an interval; calendar fields that need a date are an error.
    pub fn of_interval(self, iv: Interval) -> Result<i64> {
        use DateField::*;
        let years = iv.months as i64 / 12;
        let months = iv.months as i64 % 12;
        let in_minute = iv.micros % MICROS_PER_MINUTE;
        Ok(match self {
            Millennium => years / 1000,
            Century => years / 100,
            Decade => years / 10,
            Year => years,
            Quarter => months / 3 + 1,
            Month => months,
            Day => iv.days as i64,
            Hour => iv.micros / MICROS_PER_HOUR,
            Minute => (iv.micros / MICROS_PER_MINUTE) % 60,
            Second => in_minute / MICROS_PER_SEC,
            Millisecond => in_minute / 1000,
            Microsecond => in_minute,
            Nanosecond => in_minute * 1_000,
            Timezone | TimezoneHour | TimezoneMinute => 0,
            // PostgreSQL: a year is 365.25 days, a month 30 days
            Epoch => {
                years * 31_557_600
                    + months * 2_592_000
                    + iv.days as i64 * 86_400
                    + iv.micros / MICROS_PER_SEC
            }
            IsoYear | Week | DayOfWeek | IsoDayOfWeek | DayOfYear | Julian | YearWeek | Era => {
                return Err(Error::not_supported(format!(
                    "interval units \"{}\" not supported",
                    self.name()
                )))
            }
        })
    }

    pub fn name(self) -> &'static str {
        use DateField::*;
        match self {
            Millennium => "millennium",
            Century => "century",
            Decade => "decade",
            Year => "year",
            IsoYear => "isoyear",
            Quarter => "quarter",
            Month => "month",
            Week => "week",
            Day => "day",
            DayOfWeek => "dow",
            IsoDayOfWeek => "isodow",
            DayOfYear => "doy",
            Hour => "hour",
            Minute => "minute",
            Second => "second",
            Millisecond => "millisecond",
            Microsecond => "microsecond",
            Nanosecond => "nanosecond",
            Epoch => "epoch",
            Julian => "julian",
            Timezone => "timezone",
            TimezoneHour => "timezone_hour",
            TimezoneMinute => "timezone_minute",
            Era => "era",
            YearWeek => "yearweek",
        }
    }

    /// Whether the field is a DOUBLE with a fraction (DuckDB's `epoch` and `julian`).
    pub fn is_fractional(self) -> bool {
        matches!(self, DateField::Epoch | DateField::Julian)
    }

    /// A fractional field of a timestamp: seconds since the epoch, or the Julian day
    /// with the time of day as its fraction. Other fields as their integer value.
    pub fn fractional_of_timestamp(self, micros: i64) -> f64 {
        match self {
            DateField::Epoch => micros as f64 / MICROS_PER_SEC as f64,
            DateField::Julian => {
                let days = micros.div_euclid(MICROS_PER_DAY);
                let time = micros.rem_euclid(MICROS_PER_DAY);
                (days + 2_440_588) as f64 + time as f64 / MICROS_PER_DAY as f64
            }
            other => other.of_timestamp(micros) as f64,
        }
    }

    /// A fractional field of an interval: `epoch` counts a year as 365.25 days and a
    /// month as 30 days (DuckDB), keeping the fraction of a second.
    pub fn fractional_of_interval(self, iv: Interval) -> Result<f64> {
        if self != DateField::Epoch {
            return self.of_interval(iv).map(|v| v as f64);
        }
        let years = iv.months as i64 / 12;
        let months = iv.months as i64 % 12;
        let whole = years * 31_557_600 + months * 2_592_000 + iv.days as i64 * 86_400;
        Ok(whole as f64 + iv.micros as f64 / MICROS_PER_SEC as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stride_common::temporal::{parse_date, parse_timestamp};
    use DateField::*;

    #[test]
    fn fields_of_dates_and_timestamps() {
        let d = parse_date("2024-02-29").unwrap();
        let cases = [
            (Year, 2024),
            (Month, 2),
            (Day, 29),
            (Quarter, 1),
            (DayOfWeek, 4),
            (IsoDayOfWeek, 4),
            (DayOfYear, 60),
            (Week, 9),
            (Decade, 202),
            (Century, 21),
            (Millennium, 3),
            (Hour, 0),
            (Epoch, 1_709_164_800),
        ];
        for (f, v) in cases {
            assert_eq!(f.of_date(d), v, "{f:?}");
        }
        let t = parse_timestamp("2000-12-31 23:59:58.250").unwrap();
        assert_eq!(Century.of_timestamp(t), 20);
        assert_eq!(Millennium.of_timestamp(t), 2);
        assert_eq!(Hour.of_timestamp(t), 23);
        assert_eq!(Minute.of_timestamp(t), 59);
        assert_eq!(Second.of_timestamp(t), 58);
        assert_eq!(Millisecond.of_timestamp(t), 58_250);
        assert_eq!(Microsecond.of_timestamp(t), 58_250_000);
        assert_eq!(DayOfWeek.of_timestamp(t), 0);
        let before = parse_timestamp("1969-12-31 23:00:00").unwrap();
        assert_eq!(Hour.of_timestamp(before), 23);
        assert_eq!(Epoch.of_timestamp(before), -3600);
        assert_eq!(IsoYear.of_date(parse_date("2021-01-03").unwrap()), 2020);
        assert_eq!(Julian.of_date(parse_date("2000-01-01").unwrap()), 2_451_545);
        assert_eq!(Nanosecond.of_timestamp(t), 58_250_000_000);
    }

    #[test]
    fn fields_of_intervals() {
        let iv = Interval::new(27, 3, 5_400_000_000 + 1_500_000);
        assert_eq!(Year.of_interval(iv).unwrap(), 2);
        assert_eq!(Month.of_interval(iv).unwrap(), 3);
        assert_eq!(Day.of_interval(iv).unwrap(), 3);
        assert_eq!(Hour.of_interval(iv).unwrap(), 1);
        assert_eq!(Minute.of_interval(iv).unwrap(), 30);
        assert_eq!(Second.of_interval(iv).unwrap(), 1);
        assert_eq!(Millisecond.of_interval(iv).unwrap(), 1_500);
        assert!(DayOfWeek.of_interval(iv).is_err());
        let frac = Interval::new(0, 0, 2_066_343_400);
        assert_eq!(Epoch.fractional_of_interval(frac).unwrap(), 2066.3434);
        assert_eq!(
            Epoch
                .fractional_of_interval(Interval::new(13, 0, 0))
                .unwrap(),
            34_149_600.0
        );
    }

    #[test]
    fn fractional_fields_and_yearweek() {
        let t = parse_timestamp("2020-01-01 12:00:01.5").unwrap();
        assert_eq!(Epoch.fractional_of_timestamp(t), 1_577_880_001.5);
        let noon = parse_timestamp("2020-01-01 12:00").unwrap();
        assert_eq!(Julian.fractional_of_timestamp(noon), 2_458_850.5);
        assert_eq!(YearWeek.of_date(parse_date("2021-01-01").unwrap()), 202_053);
        assert_eq!(YearWeek.of_date(parse_date("2021-01-04").unwrap()), 202_101);
    }

    #[test]
    fn names() {
        assert_eq!(DateField::parse(" YEAR ").unwrap(), Year);
        assert_eq!(DateField::parse("dayofweek").unwrap(), DayOfWeek);
        let e = DateField::parse("fortnight").unwrap_err();
        assert_eq!(e.message, "extract specifier \"fortnight\" not recognized");
    }
}
