//! `time_bucket(width, x [, offset | origin])`: the start of the `width`-long bucket
//! holding the DATE or TIMESTAMP `x` (DuckDB semantics). Buckets of days and time are
//! aligned to the origin 2000-01-03 (a Monday); buckets of whole months to
//! 2000-01-01, and start on the first of a month. An INTERVAL third argument shifts
//! the buckets by that offset; a DATE/TIMESTAMP third argument is the origin. A
//! width mixing months with days or time, or not positive, is an error. A TIMESTAMP
//! WITH TIME ZONE is bucketed in UTC, or on the clocks of a zone named by a VARCHAR
//! third argument, as DuckDB does. The infinities are their own buckets.

use crate::kernels::{map_rows, Slot};
use crate::scalar::signature::{bind, castable};
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::interval::MICROS_PER_DAY;
use stride_common::temporal::{
    civil_from_days, date_at_time, days_from_civil, timestamp_add_interval, DATE_INFINITY,
    DATE_NEG_INFINITY, TIMESTAMP_INFINITY, TIMESTAMP_NEG_INFINITY,
};
use stride_common::{DataType, Error, Interval, Result, Vector};

/// 2000-01-03 00:00:00 in microseconds since the epoch.
const DEFAULT_ORIGIN: i64 = 10_959 * MICROS_PER_DAY;
/// 2000-01-01 00:00:00.
const DEFAULT_MONTH_ORIGIN: i64 = 10_957 * MICROS_PER_DAY;

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    let (width, rest) = args.split_first()?;
    if !castable(width, &DataType::Interval) || rest.is_empty() || rest.len() > 2 {
        return None;
    }
    if rest[0] == DataType::TimestampTz {
        return resolve_instants(rest);
    }
    let x = match &rest[0] {
        DataType::Date => DataType::Date,
        t if castable(t, &DataType::Timestamp) => DataType::Timestamp,
        _ => return None,
    };
    let mut types = vec![DataType::Interval, x.clone()];
    if let Some(third) = rest.get(1) {
        types.push(match third {
            DataType::Interval => DataType::Interval,
            DataType::Date | DataType::Timestamp => DataType::Timestamp,
            DataType::Null => DataType::Interval,
            _ => return None,
        });
    }
    bind(ScalarFunction::TimeBucket, types, x)
}

/// `time_bucket(width, instant [, offset | origin | zone])`: buckets of UTC time, or
/// of the local time in the zone named by a third VARCHAR argument (DuckDB).
fn resolve_instants(rest: &[DataType]) -> Option<BoundFunction> {
    let tz = DataType::TimestampTz;
    let mut types = vec![DataType::Interval, tz.clone()];
    if let Some(third) = rest.get(1) {
        types.push(match third {
            DataType::Interval | DataType::Null => DataType::Interval,
            DataType::Date | DataType::Timestamp | DataType::TimestampTz => tz.clone(),
            DataType::Varchar => DataType::Varchar,
            _ => return None,
        });
    }
    bind(ScalarFunction::TimeBucket, types, tz)
}

/// [`evaluate`] for instants: on their UTC values, or on their local times in the
/// zone of a third VARCHAR argument.
fn evaluate_instants(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let utc = |v: &Vector| {
        let mut r = v.clone();
        if r.ty == DataType::TimestampTz {
            r.ty = DataType::Timestamp;
        }
        r
    };
    let mut on_utc = f.clone();
    on_utc.return_type = DataType::Timestamp;
    let zone = match args.get(2) {
        Some(z) if z.ty == DataType::Varchar => {
            if !z.constant {
                return Err(Error::not_supported(
                    "time_bucket's time zone must be a constant",
                ));
            }
            if !z.validity.is_valid(0) {
                return Ok(crate::kernels::null_vector(&f.return_type, len, false));
            }
            Some(crate::timezone::lookup(z.strings().get(0))?)
        }
        _ => None,
    };
    let Some(zone) = zone else {
        let args: Vec<Vector> = args.iter().map(utc).collect();
        let mut out = evaluate(&on_utc, &args, len)?;
        out.ty = DataType::TimestampTz;
        return Ok(out);
    };
    on_utc.arg_types.truncate(2);
    let local = crate::timezone::to_local_in(&zone, &args[1], len)?;
    let buckets = evaluate(&on_utc, &[args[0].clone(), local], len)?;
    crate::timezone::to_instant_in(&zone, &buckets, len)
}

fn month_index(t: i64) -> i64 {
    let (y, m, _) = civil_from_days(t.div_euclid(MICROS_PER_DAY));
    y * 12 + m as i64 - 1
}

/// The bucket start of timestamp `t` for `width`, buckets aligned to `origin` (when
/// given) or the default origin, after shifting by `offset`.
fn bucket(width: Interval, t: i64, origin: Option<i64>, offset: Interval) -> Result<i64> {
    let overflow = || Error::out_of_range("Timestamp out of range in time_bucket");
    if !stride_common::temporal::is_finite_timestamp(t) {
        return Ok(t);
    }
    let neg = Interval::new(-offset.months, -offset.days, -offset.micros);
    let t = timestamp_add_interval(t, neg).ok_or_else(overflow)?;
    let start = if width.months != 0 {
        if width.days != 0 || width.micros != 0 {
            return Err(Error::not_supported(
                "Month intervals cannot have day or time component",
            ));
        }
        if width.months < 0 {
            return Err(Error::not_supported("Period must be greater than 0"));
        }
        let w = width.months as i64;
        let o = month_index(origin.unwrap_or(DEFAULT_MONTH_ORIGIN));
        let m = o + (month_index(t) - o).div_euclid(w) * w;
        days_from_civil(m.div_euclid(12), (m.rem_euclid(12) + 1) as u32, 1) * MICROS_PER_DAY
    } else {
        let w = (width.days as i64)
            .checked_mul(MICROS_PER_DAY)
            .and_then(|d| d.checked_add(width.micros))
            .ok_or_else(overflow)?;
        if w <= 0 {
            return Err(Error::not_supported("Period must be greater than 0"));
        }
        let o = origin.unwrap_or(DEFAULT_ORIGIN);
        let d = t.checked_sub(o).ok_or_else(overflow)?;
        o.checked_add(d.div_euclid(w) * w).ok_or_else(overflow)?
    };
    timestamp_add_interval(start, offset).ok_or_else(overflow)
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    if f.return_type == DataType::TimestampTz {
        return evaluate_instants(f, args, len);
    }
    let refs: Vec<&Vector> = args.iter().collect();
    let width = Slot::<Interval>::new(&args[0]);
    let is_date = f.return_type == DataType::Date;
    let dates = is_date.then(|| Slot::<i32>::new(&args[1]));
    let stamps = (!is_date).then(|| Slot::<i64>::new(&args[1]));
    // a date as its midnight, the infinities as the infinite timestamps
    let x = |i: usize| match (&dates, &stamps) {
        (Some(d), _) => date_at_time(d.get(i), 0)
            .ok_or_else(|| Error::out_of_range("Date out of range in time_bucket")),
        (_, Some(t)) => Ok(t.get(i)),
        _ => Ok(0),
    };
    let third = args.get(2);
    let offset = third
        .filter(|v| v.ty == DataType::Interval)
        .map(Slot::<Interval>::new);
    let origin = third
        .filter(|v| v.ty == DataType::Timestamp)
        .map(Slot::<i64>::new);
    let at = |i: usize| {
        bucket(
            width.get(i),
            x(i)?,
            origin.map(|o| o.get(i)),
            offset.map(|o| o.get(i)).unwrap_or_default(),
        )
    };
    if is_date {
        map_rows(&refs, len, DataType::Date, |i| {
            Ok(match at(i)? {
                TIMESTAMP_INFINITY => DATE_INFINITY,
                TIMESTAMP_NEG_INFINITY => DATE_NEG_INFINITY,
                t => t.div_euclid(MICROS_PER_DAY) as i32,
            })
        })
    } else {
        map_rows(&refs, len, DataType::Timestamp, at)
    }
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::temporal::{parse_date, parse_timestamp};
    use stride_common::Interval as Iv;
    use stride_common::ScalarValue::*;

    fn ts(s: &str) -> stride_common::ScalarValue {
        Timestamp(parse_timestamp(s).unwrap())
    }

    #[test]
    fn buckets() {
        let two_days = Interval(Iv::new(0, 2, 0));
        let t = ts("1992-04-20 15:26:00");
        assert_eq!(
            eval("time_bucket", &[two_days.clone(), t.clone()]).unwrap(),
            ts("1992-04-20")
        );
        assert_eq!(
            eval(
                "time_bucket",
                &[
                    two_days.clone(),
                    t.clone(),
                    Interval(Iv::new(0, 0, 3_600_000_000))
                ]
            )
            .unwrap(),
            ts("1992-04-20 01:00")
        );
        assert_eq!(
            eval(
                "time_bucket",
                &[two_days.clone(), t.clone(), ts("1992-04-20 12:00")]
            )
            .unwrap(),
            ts("1992-04-20 12:00")
        );
        let d = Date(parse_date("1992-04-20").unwrap());
        assert_eq!(
            eval("time_bucket", &[Interval(Iv::new(1, 0, 0)), d.clone()]).unwrap(),
            Date(parse_date("1992-04-01").unwrap())
        );
        let e = eval("time_bucket", &[Interval(Iv::new(1, 1, 0)), d.clone()]).unwrap_err();
        assert_eq!(
            e.message,
            "Month intervals cannot have day or time component"
        );
        let e = eval("time_bucket", &[Interval(Iv::new(0, 0, 0)), d]).unwrap_err();
        assert_eq!(e.message, "Period must be greater than 0");
        assert_eq!(eval("time_bucket", &[two_days, Null]).unwrap(), Null);
    }
}
