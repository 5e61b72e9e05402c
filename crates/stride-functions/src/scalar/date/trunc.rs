//! `date_trunc(part, x)`: the start of the `part` period containing `x`, as a
//! TIMESTAMP (a DATE argument is cast first, as in PostgreSQL and DuckDB). Weeks start
//! on Monday (ISO); decades, centuries and millennia start in years ending in 0
//! (2000-01-01), counted toward zero before year 0, as in DuckDB (PostgreSQL starts
//! centuries in 2001). An INTERVAL is truncated part by part, toward zero: the units
//! below `part` are cleared (`date_trunc('month', INTERVAL '14 months 3 days')` is 1
//! year 2 months, `'week'` keeps whole weeks of its days, the day-of-week and
//! day-of-year parts keep its days, `'epoch'` its whole seconds). A TIMESTAMP WITH
//! TIME ZONE is truncated on the session zone's clocks and stays an instant.

use super::field::DateField;
use super::temporal_arg;
use crate::kernels::{map_rows, null_vector, try_unary, unary, Slot, StrSlot};
use crate::scalar::signature::{bind, castable};
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::interval::{MICROS_PER_DAY, MICROS_PER_SEC};
use stride_common::temporal::{civil_from_days, days_from_civil, iso_day_of_week};
use stride_common::{DataType, Error, Interval, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    let [part, x] = args else { return None };
    if !castable(part, &DataType::Varchar) {
        return None;
    }
    let x = match x {
        DataType::TimestampTz => DataType::TimestampTz,
        x => match temporal_arg(x, true)? {
            DataType::Date => DataType::Timestamp,
            other => other,
        },
    };
    bind(
        ScalarFunction::DateTrunc,
        vec![DataType::Varchar, x.clone()],
        x,
    )
}

/// Parses a part name and checks that date_trunc supports it.
fn trunc_field(spec: &str) -> Result<DateField> {
    use DateField::*;
    let f = DateField::parse(spec)?;
    match f {
        DayOfWeek | IsoDayOfWeek | DayOfYear | Epoch | IsoYear | Julian | Timezone
        | TimezoneHour | TimezoneMinute | YearWeek | Era => Err(Error::not_supported(format!(
            "date_trunc specifier \"{}\" not supported",
            f.name()
        ))),
        _ => Ok(f),
    }
}

/// First year of the period of `size` years containing `y` (decades, centuries,
/// millennia), rounded toward zero: -15 lies in the decade of -10.
fn period_start(y: i64, size: i64) -> i64 {
    y - y % size
}

/// A day number truncated to the start of `field`'s period (sub-day fields keep it).
fn trunc_days(field: DateField, days: i64) -> i64 {
    use DateField::*;
    // 'infinity' and '-infinity' are their own truncations
    if i32::try_from(days).is_ok_and(|d| !stride_common::temporal::is_finite_date(d)) {
        return days;
    }
    let (y, m, _) = civil_from_days(days);
    match field {
        Millennium => days_from_civil(period_start(y, 1000), 1, 1),
        Century => days_from_civil(period_start(y, 100), 1, 1),
        Decade => days_from_civil(period_start(y, 10), 1, 1),
        Year => days_from_civil(y, 1, 1),
        Quarter => days_from_civil(y, (m - 1) / 3 * 3 + 1, 1),
        Month => days_from_civil(y, m, 1),
        Week => days - (iso_day_of_week(days) - 1),
        _ => days,
    }
}

fn trunc_micros(field: DateField, t: i64) -> Option<i64> {
    use DateField::*;
    if !stride_common::temporal::is_finite_timestamp(t) {
        return Some(t);
    }
    let unit = match field {
        Hour => 3_600 * MICROS_PER_SEC,
        Minute => 60 * MICROS_PER_SEC,
        Second => MICROS_PER_SEC,
        Millisecond => 1_000,
        Microsecond | Nanosecond => 1,
        _ => {
            return trunc_days(field, t.div_euclid(MICROS_PER_DAY)).checked_mul(MICROS_PER_DAY);
        }
    };
    Some(t - t.rem_euclid(unit))
}

/// An interval truncated to `field` (see the module doc).
fn trunc_interval(field: DateField, iv: Interval) -> Result<Interval> {
    use DateField::*;
    let months = |size: i32| Interval::new(iv.months - iv.months % size, 0, 0);
    let micros = |unit: i64| Interval::new(iv.months, iv.days, iv.micros - iv.micros % unit);
    Ok(match field {
        Millennium => months(12_000),
        Century => months(1_200),
        Decade => months(120),
        Year | IsoYear => months(12),
        Quarter => months(3),
        Month => months(1),
        Week | YearWeek => Interval::new(iv.months, iv.days - iv.days % 7, 0),
        Day | DayOfWeek | IsoDayOfWeek | DayOfYear | Julian => Interval::new(iv.months, iv.days, 0),
        Hour => micros(3_600 * MICROS_PER_SEC),
        Minute => micros(60 * MICROS_PER_SEC),
        Second | Epoch => micros(MICROS_PER_SEC),
        Millisecond => micros(1_000),
        Microsecond | Nanosecond => iv,
        Timezone | TimezoneHour | TimezoneMinute | Era => {
            return Err(Error::not_supported(format!(
                "date_trunc specifier \"{}\" not supported for INTERVAL",
                field.name()
            )))
        }
    })
}

fn out_of_range() -> Error {
    Error::out_of_range("Timestamp out of range")
}

/// date_trunc of instants: their local times truncated, back to instants, as DuckDB's
/// ICU does it: from an hour up, the truncated local time is read in the zone again
/// (a repeated time is its later occurrence, a skipped one is read with the offset
/// before the shift), so zones whose shifts are not whole hours truncate on their
/// local clock; below an hour the instant just moves back by what the local time
/// lost (staying on its side of a repeated hour).
fn evaluate_instants(f: &BoundFunction, part: &Vector, v: &Vector, len: usize) -> Result<Vector> {
    let zone = stride_common::zone::current();
    let local = crate::timezone::to_local_in(&zone, v, len)?;
    let mut on_local = f.clone();
    on_local.arg_types[1] = DataType::Timestamp;
    on_local.return_type = DataType::Timestamp;
    let truncated = evaluate(&on_local, &[part.clone(), local.clone()], len)?;
    let below_day = part.constant
        && part.validity.is_valid(0)
        && trunc_field(part.strings().get(0)).is_ok_and(|f| {
            use DateField::*;
            matches!(f, Minute | Second | Millisecond | Microsecond | Nanosecond)
        });
    let (t, l, r) = (
        Slot::<i64>::new(v),
        Slot::<i64>::new(&local),
        Slot::<i64>::new(&truncated),
    );
    map_rows(&[v, &truncated], len, DataType::TimestampTz, |i| {
        if below_day {
            Ok(t.get(i) - (l.get(i) - r.get(i)))
        } else {
            zone.instant_of(r.get(i)).ok_or_else(out_of_range)
        }
    })
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let (part, v) = (&args[0], &args[1]);
    let ty = f.return_type.clone();
    if ty == DataType::TimestampTz {
        return evaluate_instants(f, part, v, len);
    }
    if ty == DataType::Interval {
        let parts = StrSlot::new(part);
        let iv = Slot::<Interval>::new(v);
        return map_rows(&[part, v], len, ty, |i| {
            trunc_interval(DateField::parse(parts.get(i))?, iv.get(i))
        });
    }
    if part.constant {
        if !part.validity.is_valid(0) {
            return Ok(null_vector(&ty, len, v.constant));
        }
        let field = trunc_field(part.strings().get(0))?;
        return if ty == DataType::Date {
            Ok(unary(v, len, ty, |d: i32| {
                trunc_days(field, d as i64) as i32
            }))
        } else {
            try_unary(
                v,
                len,
                ty,
                |t: i64| trunc_micros(field, t),
                |_| out_of_range(),
            )
        };
    }
    let parts = StrSlot::new(part);
    if ty == DataType::Date {
        let d = Slot::<i32>::new(v);
        map_rows(&[part, v], len, ty, |i| {
            Ok(trunc_days(trunc_field(parts.get(i))?, d.get(i) as i64) as i32)
        })
    } else {
        let t = Slot::<i64>::new(v);
        map_rows(&[part, v], len, ty, |i| {
            trunc_micros(trunc_field(parts.get(i))?, t.get(i)).ok_or_else(out_of_range)
        })
    }
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
    fn truncation() {
        assert_eq!(
            eval("date_trunc", &[s("month"), d("1992-03-07")]).unwrap(),
            ts("1992-03-01 00:00:00")
        );
        assert_eq!(
            eval("date_trunc", &[s("year"), d("1992-03-07")]).unwrap(),
            ts("1992-01-01 00:00:00")
        );
        assert_eq!(
            eval("date_trunc", &[s("quarter"), d("1992-08-07")]).unwrap(),
            ts("1992-07-01 00:00:00")
        );
        assert_eq!(
            eval("date_trunc", &[s("week"), d("2024-03-03")]).unwrap(),
            ts("2024-02-26 00:00:00")
        );
        assert_eq!(
            eval("date_trunc", &[s("decade"), d("1999-12-31")]).unwrap(),
            ts("1990-01-01 00:00:00")
        );
        assert_eq!(
            eval("date_trunc", &[s("century"), d("2000-12-31")]).unwrap(),
            ts("2000-01-01 00:00:00")
        );
        assert_eq!(
            eval("date_trunc", &[s("century"), d("2024-01-01")]).unwrap(),
            ts("2000-01-01 00:00:00")
        );
        assert_eq!(
            eval("date_trunc", &[s("millennium"), d("2024-01-01")]).unwrap(),
            ts("2000-01-01 00:00:00")
        );
        assert_eq!(
            eval("date_trunc", &[s("hour"), d("2024-01-01")]).unwrap(),
            ts("2024-01-01 00:00:00")
        );
        let t = ts("2024-05-17 13:45:30.123456");
        assert_eq!(
            eval("date_trunc", &[s("hour"), t.clone()]).unwrap(),
            ts("2024-05-17 13:00:00")
        );
        assert_eq!(
            eval("date_trunc", &[s("minute"), t.clone()]).unwrap(),
            ts("2024-05-17 13:45:00")
        );
        assert_eq!(
            eval("date_trunc", &[s("second"), t.clone()]).unwrap(),
            ts("2024-05-17 13:45:30")
        );
        assert_eq!(
            eval("date_trunc", &[s("milliseconds"), t.clone()]).unwrap(),
            ts("2024-05-17 13:45:30.123")
        );
        assert_eq!(
            eval("date_trunc", &[s("day"), t.clone()]).unwrap(),
            ts("2024-05-17")
        );
        assert_eq!(
            eval("date_trunc", &[s("month"), t.clone()]).unwrap(),
            ts("2024-05-01")
        );
        assert_eq!(
            eval("date_trunc", &[s("hour"), ts("1969-12-31 23:30:00")]).unwrap(),
            ts("1969-12-31 23:00:00")
        );
        assert!(eval("date_trunc", &[s("dow"), t.clone()]).is_err());
        assert!(eval("date_trunc", &[s("nope"), t]).is_err());
        assert_eq!(eval("date_trunc", &[Null, d("2024-01-01")]).unwrap(), Null);
    }
}
