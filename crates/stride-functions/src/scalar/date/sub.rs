//! `date_sub(part, start, end)` / `datesub`: how many complete `part` periods lie
//! between two dates or timestamps (DuckDB semantics), unlike `date_diff`, which
//! counts boundaries crossed: date_sub('month', '2020-01-31', '2020-03-30') is 1.
//! Months (and the years, quarters, decades, centuries and millennia made of them)
//! come from [`age`](super::age::age), with an end on the last day of its month
//! completing a month that started on a later day; days, weeks and time units are
//! the elapsed time divided by the unit, truncated toward zero. Two instants count
//! as in `date_diff`: units below a day in elapsed time, the others on the session
//! zone's clocks, and months step from `start` ([`months_from`], DuckDB's ICU): going
//! backward that can be one fewer than for TIMESTAMP, which counts back as
//! `-(months from end to start)`.

use super::age::age;
use super::field::DateField;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::interval::{MICROS_PER_DAY, MICROS_PER_SEC};
use stride_common::temporal::{
    add_months_to_days, civil_from_days, days_from_civil, days_in_month,
};
use stride_common::{DataType, Error, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    let mut f = super::diff::resolve(args)?;
    f.func = ScalarFunction::DateSub;
    Some(f)
}

/// Complete months from `start` to `end`.
fn months(start: i64, end: i64) -> Option<i64> {
    if start > end {
        return months(end, start).map(|m| -m);
    }
    let mut start = start;
    let (end_day, end_time) = (
        end.div_euclid(MICROS_PER_DAY),
        end.rem_euclid(MICROS_PER_DAY),
    );
    let (ey, em, ed) = civil_from_days(end_day);
    let end_days = days_in_month(ey, em);
    if ed == end_days {
        let (start_day, start_time) = (
            start.div_euclid(MICROS_PER_DAY),
            start.rem_euclid(MICROS_PER_DAY),
        );
        let (sy, sm, sd) = civil_from_days(start_day);
        if sd > end_days || (sd == end_days && start_time < end_time) {
            start = days_from_civil(sy, sm, end_days) * MICROS_PER_DAY + start_time;
        }
    }
    Some(age(end, start)?.months as i64)
}

/// Whole months from `start` to `end` stepping from `start`: the most months that,
/// added to `start` (the day clamped to the month's length), do not pass `end`, in
/// either direction. Back from 2024-06-30 20:00 to 2023-12-31 13:30 is -5 months
/// (2023-12-30 20:00 is past it), where [`months`] gives -6.
fn months_from(start: i64, end: i64) -> Option<i64> {
    let month_of = |t: i64| {
        let (y, m, _) = civil_from_days(t.div_euclid(MICROS_PER_DAY));
        y * 12 + m as i64
    };
    let after = |n: i64| -> Option<i64> {
        let day = add_months_to_days(start.div_euclid(MICROS_PER_DAY), n)?;
        day.checked_mul(MICROS_PER_DAY)?
            .checked_add(start.rem_euclid(MICROS_PER_DAY))
    };
    // `start` moved by `n` months lands in `end`'s month: one step back toward
    // `start` when it passes `end`
    let mut n = month_of(end) - month_of(start);
    if (n > 0 && after(n)? > end) || (n < 0 && after(n)? < end) {
        n -= n.signum();
    }
    Some(n)
}

fn sub(field: DateField, start: i64, end: i64) -> Result<i64> {
    sub_by(months, field, start, end)
}

/// [`sub`] of two instants' local times, their months counted by [`months_from`].
fn sub_local(field: DateField, start: i64, end: i64) -> Result<i64> {
    sub_by(months_from, field, start, end)
}

fn sub_by(
    months: fn(i64, i64) -> Option<i64>,
    field: DateField,
    start: i64,
    end: i64,
) -> Result<i64> {
    use DateField::*;
    let elapsed = |unit: i64| Ok((end as i128 - start as i128) as i64 / unit);
    let m = || months(start, end).ok_or_else(|| Error::out_of_range("date_sub overflow"));
    match field {
        Year | IsoYear => Ok(m()? / 12),
        Quarter => Ok(m()? / 3),
        Month => m(),
        Decade => Ok(m()? / 120),
        Century => Ok(m()? / 1_200),
        Millennium => Ok(m()? / 12_000),
        Week => elapsed(7 * MICROS_PER_DAY),
        Day | DayOfWeek | IsoDayOfWeek | DayOfYear | Julian => elapsed(MICROS_PER_DAY),
        Hour => elapsed(3_600 * MICROS_PER_SEC),
        Minute => elapsed(60 * MICROS_PER_SEC),
        Second | Epoch => elapsed(MICROS_PER_SEC),
        Millisecond => elapsed(1_000),
        Microsecond => elapsed(1),
        Nanosecond | Timezone | TimezoneHour | TimezoneMinute | YearWeek | Era => {
            Err(Error::not_supported(format!(
                "date_sub specifier \"{}\" not supported",
                field.name()
            )))
        }
    }
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    if args[1].ty == DataType::TimestampTz {
        return super::by_part_of_two_instants(args, len, "date_sub", sub_local);
    }
    super::by_part_of_two(args, len, "date_sub", sub)
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::temporal::{parse_date, parse_timestamp};
    use stride_common::ScalarValue::{self, *};

    fn d(x: &str) -> ScalarValue {
        Date(parse_date(x).unwrap())
    }
    fn ts(x: &str) -> ScalarValue {
        Timestamp(parse_timestamp(x).unwrap())
    }

    #[test]
    fn complete_periods() {
        let sub =
            |p: &str, a: ScalarValue, b: ScalarValue| eval("date_sub", &[s(p), a, b]).unwrap();
        assert_eq!(sub("month", d("2020-01-31"), d("2020-03-30")), BigInt(1));
        assert_eq!(sub("month", d("2020-01-31"), d("2020-02-29")), BigInt(1));
        assert_eq!(sub("month", d("2020-03-31"), d("2020-02-29")), BigInt(-1));
        assert_eq!(sub("year", d("2021-02-28"), d("2020-02-29")), BigInt(-1));
        assert_eq!(sub("year", d("2020-02-29"), d("2021-02-28")), BigInt(1));
        assert_eq!(sub("quarter", d("2020-01-15"), d("2020-07-14")), BigInt(1));
        assert_eq!(sub("week", d("2020-01-01"), d("2020-01-15")), BigInt(2));
        assert_eq!(
            sub("month", ts("2020-01-31 10:00"), ts("2020-02-29 09:00")),
            BigInt(0)
        );
        assert_eq!(
            sub("hour", ts("2020-01-01 12:30"), ts("2020-01-01 10:45")),
            BigInt(-1)
        );
        assert_eq!(
            eval("datesub", &[s("day"), Null, d("2024-01-01")]).unwrap(),
            Null
        );
    }
}
