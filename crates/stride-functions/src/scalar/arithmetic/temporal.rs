//! Date and time arithmetic through the operators: DATE ± integer days, DATE - DATE
//! (days, BIGINT), DATE/TIMESTAMP ± INTERVAL (TIMESTAMP; a date counts as its
//! midnight), TIMESTAMP - TIMESTAMP (INTERVAL of days and microseconds, as DuckDB
//! prints '1 day 03:00:00'), INTERVAL ± INTERVAL, INTERVAL * and / any number (months and days scaled with
//! their fractions carried down), TIME ±
//! INTERVAL (TIME, wrapping around midnight; the interval's days and months are
//! ignored, as in DuckDB) and DATE + TIME (TIMESTAMP). TIMESTAMP WITH TIME ZONE ±
//! INTERVAL and the difference of two of them count months and days on the session
//! zone's clocks and the rest as elapsed time ([`crate::timezone::add_interval`]). Month
//! arithmetic clamps the day (Jan 31 + 1 month = Feb 28/29), as PostgreSQL does.
//! TIMETZ ± INTERVAL moves the local time as TIME's does and keeps the offset.
//! TIMESTAMP_NS ± INTERVAL stays in nanoseconds; the other timestamp units meet the
//! operators as TIMESTAMP (the binder's stand-in types, `binder::expr::call`).

use super::negate::negate_interval;
use crate::kernels::{binary, try_binary};
use crate::scalar::signature::bind;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::interval::MICROS_PER_DAY;
use stride_common::temporal::{
    date_add_days, date_at_time, is_finite_timestamp, timestamp_add_interval,
};
use stride_common::time_tz;
use stride_common::time_unit::{nanos_add_interval, TimeUnit};
use stride_common::{DataType, Error, Interval as Iv, Result, Vector};

/// The type an untyped operand (NULL or text) takes next to a temporal `partner`.
fn untyped_as(op: ScalarFunction, partner: &DataType, left: bool) -> DataType {
    use DataType::*;
    use ScalarFunction::*;
    match (op, partner) {
        (Multiply, Interval) => BigInt,
        (Add, Date) => Integer,
        (Subtract, Date) if left => Date,
        (Subtract, Date) => Integer,
        (Subtract, Timestamp) if left => Timestamp,
        (Subtract, TimestampTz) if left => TimestampTz,
        (_, Timestamp | TimestampTz | Time) => Interval,
        // an interval, so that TIMESTAMP_NS keeps its nanoseconds
        (Add, TimestampUnit(TimeUnit::Nanosecond)) => Interval,
        (Subtract, TimestampUnit(TimeUnit::Nanosecond)) if !left => Interval,
        (_, Interval) if left => Timestamp,
        _ => partner.clone(),
    }
}

fn is_untyped(t: &DataType) -> bool {
    matches!(t, DataType::Null | DataType::Varchar)
}

pub(super) fn resolve(op: ScalarFunction, a: &DataType, b: &DataType) -> Option<BoundFunction> {
    use DataType::*;
    use ScalarFunction::*;
    let a = if is_untyped(a) {
        untyped_as(op, b, true)
    } else {
        a.clone()
    };
    let b = if is_untyped(b) {
        untyped_as(op, &a, false)
    } else {
        b.clone()
    };
    let int = |t: &DataType| t.is_integer();
    let (args, ret) = match (op, &a, &b) {
        (Add | Subtract, TimestampTz, Interval) => ([TimestampTz, Interval], TimestampTz),
        (Add, Interval, TimestampTz) => ([Interval, TimestampTz], TimestampTz),
        (Subtract, TimestampTz, Date | Timestamp | TimestampTz)
        | (Subtract, Date | Timestamp, TimestampTz) => ([TimestampTz, TimestampTz], Interval),
        (Add, Date, t) if int(t) => ([Date, Integer], Date),
        (Add, t, Date) if int(t) => ([Integer, Date], Date),
        (Subtract, Date, t) if int(t) => ([Date, Integer], Date),
        (Subtract, Date, Date) => ([Date, Date], BigInt),
        (Add | Subtract, Date | Timestamp, Interval) => ([Timestamp, Interval], Timestamp),
        // nanoseconds stay (DuckDB); seconds and milliseconds become a TIMESTAMP
        (Add | Subtract, TimestampUnit(TimeUnit::Nanosecond), Interval) => {
            ([a.clone(), Interval], a.clone())
        }
        (Add, Interval, TimestampUnit(TimeUnit::Nanosecond)) => ([Interval, b.clone()], b.clone()),
        (Add, Interval, Date | Timestamp) => ([Interval, Timestamp], Timestamp),
        (Subtract, Date | Timestamp, Date | Timestamp) => ([Timestamp, Timestamp], Interval),
        (Add | Subtract, Interval, Interval) => ([Interval, Interval], Interval),
        (Add | Subtract, Time, Interval) => ([Time, Interval], Time),
        (Add | Subtract, TimeTz, Interval) => ([TimeTz, Interval], TimeTz),
        (Add, Interval, TimeTz) => ([Interval, TimeTz], TimeTz),
        (Add, Interval, Time) => ([Interval, Time], Time),
        (Add, Date, Time) => ([Date, Time], Timestamp),
        (Add, Time, Date) => ([Time, Date], Timestamp),
        (Multiply, Interval, t) if int(t) => ([Interval, BigInt], Interval),
        (Multiply, t, Interval) if int(t) => ([BigInt, Interval], Interval),
        // by a fraction, as PostgreSQL and DuckDB scale one (see `scaled_interval`)
        (Multiply, Interval, t) if t.is_numeric() => ([Interval, Double], Interval),
        (Multiply, t, Interval) if t.is_numeric() => ([Double, Interval], Interval),
        (Divide, Interval, t) if t.is_numeric() => ([Interval, Double], Interval),
        _ => return None,
    };
    bind(op, args.to_vec(), ret)
}

fn date_range() -> Error {
    Error::out_of_range("Date out of range")
}

fn timestamp_range() -> Error {
    Error::out_of_range("Timestamp out of range")
}

fn interval_range() -> Error {
    Error::out_of_range("Interval value out of range")
}

fn add_intervals(x: Iv, y: Iv) -> Option<Iv> {
    Some(Iv::new(
        x.months.checked_add(y.months)?,
        x.days.checked_add(y.days)?,
        x.micros.checked_add(y.micros)?,
    ))
}

fn scale_interval(x: Iv, n: i64) -> Option<Iv> {
    let n32 = i32::try_from(n).ok();
    Some(Iv::new(
        if x.months == 0 {
            0
        } else {
            x.months.checked_mul(n32?)?
        },
        if x.days == 0 {
            0
        } else {
            x.days.checked_mul(n32?)?
        },
        x.micros.checked_mul(n)?,
    ))
}

/// `x` with each part scaled by `scale` (times or divided by a number): months and
/// days scaled, their fractions carried down (a month as 30 days, a day as 24 hours)
/// and the microseconds rounded, as PostgreSQL's interval_mul and interval_div do:
/// '1 month' * 0.5 is 15 days, '1 day' * 1.5 is 1 day 12:00:00.
fn scaled_interval(x: Iv, scale: impl Fn(f64) -> f64) -> Option<Iv> {
    let months = scale(x.months as f64);
    let month_days = (months - months.trunc()) * 30.0;
    let days = scale(x.days as f64);
    let carried = (month_days - month_days.trunc()) + (days - days.trunc());
    // The fractions carried down, rounded to the microsecond; whole days among them
    // go back up to the days, as PostgreSQL's interval_div does: '4 months' / 3 is
    // 1 month 10 days, not 1 month 9 days 24:00:00 (its third of a month is 9.999...
    // days in floating point).
    let day = MICROS_PER_DAY as f64;
    let carried = (carried * day).round();
    let whole_days = (carried / day).trunc();
    let micros = scale(x.micros as f64).round() + (carried - whole_days * day);
    let int = |v: f64, lo: f64, hi: f64| (v.is_finite() && v >= lo && v <= hi).then_some(v);
    Some(Iv::new(
        int(months.trunc(), i32::MIN as f64, i32::MAX as f64)? as i32,
        int(
            days.trunc() + month_days.trunc() + whole_days,
            i32::MIN as f64,
            i32::MAX as f64,
        )? as i32,
        int(micros, -9.2e18, 9.2e18)? as i64,
    ))
}

/// A time of day moved by `micros`, around the clock.
fn time_add(t: i64, micros: i64) -> i64 {
    ((t as i128 + micros as i128).rem_euclid(MICROS_PER_DAY as i128)) as i64
}

/// TIMESTAMP - TIMESTAMP as whole days plus the remaining microseconds.
fn timestamp_difference(x: i64, y: i64) -> Option<Iv> {
    if !is_finite_timestamp(x) || !is_finite_timestamp(y) {
        return None;
    }
    let d = x.checked_sub(y)?;
    // |d| / MICROS_PER_DAY < 2^63 / 8.64e10, well inside i32
    Some(Iv::new(0, (d / MICROS_PER_DAY) as i32, d % MICROS_PER_DAY))
}

pub(super) fn evaluate(f: &BoundFunction, a: &Vector, b: &Vector, len: usize) -> Result<Vector> {
    use DataType::*;
    use ScalarFunction::*;
    let ty = f.return_type.clone();
    match (f.func, &f.arg_types[0], &f.arg_types[1]) {
        (Add | Subtract, TimestampTz, Interval) => {
            let zone = stride_common::zone::current();
            let neg = f.func == Subtract;
            try_binary(
                a,
                b,
                len,
                ty,
                |t: i64, iv: Iv| {
                    let iv = if neg { negate_interval(iv)? } else { iv };
                    crate::timezone::add_interval(&zone, t, iv)
                },
                |_, _| timestamp_range(),
            )
        }
        (Add, Interval, TimestampTz) => {
            let zone = stride_common::zone::current();
            try_binary(
                a,
                b,
                len,
                ty,
                |iv: Iv, t: i64| crate::timezone::add_interval(&zone, t, iv),
                |_, _| timestamp_range(),
            )
        }
        (Subtract, TimestampTz, TimestampTz) => {
            let zone = stride_common::zone::current();
            try_binary(
                a,
                b,
                len,
                ty,
                |x: i64, y: i64| {
                    (is_finite_timestamp(x) && is_finite_timestamp(y))
                        .then(|| crate::timezone::difference(&zone, x, y))
                        .flatten()
                },
                |x: i64, y: i64| match is_finite_timestamp(x) && is_finite_timestamp(y) {
                    true => interval_range(),
                    false => Error::invalid_input("Cannot subtract infinite timestamps"),
                },
            )
        }
        (Add, Date, Integer) => try_binary(
            a,
            b,
            len,
            ty,
            |d: i32, n: i32| date_add_days(d, n as i64),
            |_, _| date_range(),
        ),
        (Add, Integer, Date) => try_binary(
            a,
            b,
            len,
            ty,
            |n: i32, d: i32| date_add_days(d, n as i64),
            |_, _| date_range(),
        ),
        (Subtract, Date, Integer) => try_binary(
            a,
            b,
            len,
            ty,
            |d: i32, n: i32| date_add_days(d, -(n as i64)),
            |_, _| date_range(),
        ),
        (Subtract, Date, Date) => Ok(binary(a, b, len, ty, |x: i32, y: i32| x as i64 - y as i64)),
        (Add, Timestamp, Interval) => try_binary(
            a,
            b,
            len,
            ty,
            |t: i64, iv: Iv| timestamp_add_interval(t, iv),
            |_, _| timestamp_range(),
        ),
        (Subtract, Timestamp, Interval) => try_binary(
            a,
            b,
            len,
            ty,
            |t: i64, iv: Iv| timestamp_add_interval(t, negate_interval(iv)?),
            |_, _| timestamp_range(),
        ),
        (Add, Interval, Timestamp) => try_binary(
            a,
            b,
            len,
            ty,
            |iv: Iv, t: i64| timestamp_add_interval(t, iv),
            |_, _| timestamp_range(),
        ),
        (Add, TimestampUnit(_), Interval) => {
            try_binary(a, b, len, ty, nanos_add_interval, |_, _| timestamp_range())
        }
        (Subtract, TimestampUnit(_), Interval) => try_binary(
            a,
            b,
            len,
            ty,
            |t: i64, iv: Iv| nanos_add_interval(t, negate_interval(iv)?),
            |_, _| timestamp_range(),
        ),
        (Add, Interval, TimestampUnit(_)) => try_binary(
            a,
            b,
            len,
            ty,
            |iv: Iv, t: i64| nanos_add_interval(t, iv),
            |_, _| timestamp_range(),
        ),
        (Add, Time, Interval) => Ok(binary(a, b, len, ty, |t: i64, iv: Iv| {
            time_add(t, iv.micros)
        })),
        (Subtract, Time, Interval) => Ok(binary(a, b, len, ty, |t: i64, iv: Iv| {
            time_add(t, iv.micros.wrapping_neg())
        })),
        (Add, Interval, Time) => Ok(binary(a, b, len, ty, |iv: Iv, t: i64| {
            time_add(t, iv.micros)
        })),
        (Add, TimeTz, Interval) => Ok(binary(a, b, len, ty, |t: i64, iv: Iv| {
            time_tz::add_micros(t, iv.micros)
        })),
        (Subtract, TimeTz, Interval) => Ok(binary(a, b, len, ty, |t: i64, iv: Iv| {
            time_tz::add_micros(t, iv.micros.wrapping_neg())
        })),
        (Add, Interval, TimeTz) => Ok(binary(a, b, len, ty, |iv: Iv, t: i64| {
            time_tz::add_micros(t, iv.micros)
        })),
        (Add, Date, Time) => try_binary(
            a,
            b,
            len,
            ty,
            |d: i32, t: i64| date_at_time(d, t),
            |_, _| timestamp_range(),
        ),
        (Add, Time, Date) => try_binary(
            a,
            b,
            len,
            ty,
            |t: i64, d: i32| date_at_time(d, t),
            |_, _| timestamp_range(),
        ),
        (Subtract, Timestamp, Timestamp) => {
            try_binary(a, b, len, ty, timestamp_difference, |x: i64, y: i64| {
                match is_finite_timestamp(x) && is_finite_timestamp(y) {
                    true => interval_range(),
                    false => Error::invalid_input("Cannot subtract infinite timestamps"),
                }
            })
        }
        (Add, Interval, Interval) => {
            try_binary(a, b, len, ty, add_intervals, |_, _| interval_range())
        }
        (Subtract, Interval, Interval) => try_binary(
            a,
            b,
            len,
            ty,
            |x: Iv, y: Iv| add_intervals(x, negate_interval(y)?),
            |_, _| interval_range(),
        ),
        (Multiply, Interval, BigInt) => {
            try_binary(a, b, len, ty, scale_interval, |_, _| interval_range())
        }
        (Multiply, BigInt, Interval) => try_binary(
            a,
            b,
            len,
            ty,
            |n: i64, x: Iv| scale_interval(x, n),
            |_, _| interval_range(),
        ),
        (Multiply, Interval, Double) => try_binary(
            a,
            b,
            len,
            ty,
            |x: Iv, f: f64| scaled_interval(x, |v| v * f),
            |_, _| interval_range(),
        ),
        (Multiply, Double, Interval) => try_binary(
            a,
            b,
            len,
            ty,
            |f: f64, x: Iv| scaled_interval(x, |v| v * f),
            |_, _| interval_range(),
        ),
        (Divide, Interval, Double) => try_binary(
            a,
            b,
            len,
            ty,
            |x: Iv, f: f64| (f != 0.0).then(|| scaled_interval(x, |v| v / f)).flatten(),
            |_, f: f64| match f == 0.0 {
                true => Error::division_by_zero(),
                false => interval_range(),
            },
        ),
        (op, x, y) => Err(Error::internal(format!(
            "no temporal kernel for {op:?}({x}, {y})"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use crate::scalar::resolve_scalar;
    use crate::scalar::test_util::eval;
    use stride_common::temporal::{parse_date, parse_timestamp};
    use stride_common::{DataType, Interval as Iv, ScalarValue::*};

    fn date(s: &str) -> stride_common::ScalarValue {
        Date(parse_date(s).unwrap())
    }

    fn ts(s: &str) -> stride_common::ScalarValue {
        Timestamp(parse_timestamp(s).unwrap())
    }

    #[test]
    fn date_arithmetic() {
        assert_eq!(
            eval("+", &[date("2024-02-28"), Integer(2)]).unwrap(),
            date("2024-03-01")
        );
        assert_eq!(
            eval("+", &[BigInt(1), date("2024-12-31")]).unwrap(),
            date("2025-01-01")
        );
        assert_eq!(
            eval("-", &[date("2024-03-01"), Integer(1)]).unwrap(),
            date("2024-02-29")
        );
        assert_eq!(
            eval("-", &[date("2024-03-01"), date("2024-01-01")]).unwrap(),
            BigInt(60)
        );
        assert_eq!(eval("+", &[date("2024-01-01"), Null]).unwrap(), Null);
        // the largest day plus one would be 'infinity': out of range
        assert!(eval("+", &[Date(i32::MAX - 1), Integer(1)]).is_err());
        // 'infinity' stays itself
        assert_eq!(
            eval("+", &[Date(i32::MAX), Integer(1)]).unwrap(),
            Date(i32::MAX)
        );
    }

    #[test]
    fn interval_arithmetic() {
        let month = Interval(Iv::new(1, 0, 0));
        assert_eq!(
            eval("+", &[date("2024-01-31"), month.clone()]).unwrap(),
            ts("2024-02-29")
        );
        assert_eq!(
            eval("-", &[date("2024-03-31"), month.clone()]).unwrap(),
            ts("2024-02-29")
        );
        assert_eq!(
            eval("+", &[month.clone(), ts("2023-01-31 10:00:00")]).unwrap(),
            ts("2023-02-28 10:00:00")
        );
        let hours = Interval(Iv::new(0, 1, 3 * 3_600_000_000));
        assert_eq!(
            eval("+", &[ts("2024-01-01 22:00:00"), hours.clone()]).unwrap(),
            ts("2024-01-03 01:00:00")
        );
        assert_eq!(
            eval("-", &[ts("2024-01-02 03:00:00"), ts("2024-01-01")]).unwrap(),
            Interval(Iv::new(0, 1, 3 * 3_600_000_000))
        );
        assert_eq!(
            eval("-", &[ts("2024-01-01"), ts("2024-01-02 03:00:00")]).unwrap(),
            Interval(Iv::new(0, -1, -3 * 3_600_000_000))
        );
        assert_eq!(
            eval("+", &[month.clone(), hours.clone()]).unwrap(),
            Interval(Iv::new(1, 1, 3 * 3_600_000_000))
        );
        assert_eq!(
            eval("-", &[month.clone(), month.clone()]).unwrap(),
            Interval(Iv::new(0, 0, 0))
        );
        assert_eq!(
            eval("*", &[month.clone(), Integer(3)]).unwrap(),
            Interval(Iv::new(3, 0, 0))
        );
        assert_eq!(
            eval("*", &[BigInt(-2), hours]).unwrap(),
            Interval(Iv::new(0, -2, -6 * 3_600_000_000))
        );
        assert_eq!(eval("-", &[month]).unwrap(), Interval(Iv::new(-1, 0, 0)));
        assert!(eval("*", &[Interval(Iv::new(i32::MAX, 0, 0)), Integer(2)]).is_err());
        let f = resolve_scalar("-", &[DataType::Date, DataType::Timestamp]).unwrap();
        assert_eq!(f.return_type, DataType::Interval);
        let f = resolve_scalar("+", &[DataType::Timestamp, DataType::Varchar]).unwrap();
        assert_eq!(f.arg_types[1], DataType::Interval);
        assert!(resolve_scalar("+", &[DataType::Date, DataType::Date]).is_err());
        assert!(resolve_scalar("*", &[DataType::Date, DataType::Integer]).is_err());
    }
}
