//! `age(a, b)`: the symbolic difference a - b in years, months, days and time, as
//! DuckDB (and PostgreSQL) compute it: field by field, borrowing from the next
//! larger field, a borrowed month being as long as the month of the earlier value.
//! `age(b)` is age(today's midnight, b), today being the statement's date
//! ([`since`]). Also `date_add(x, interval)`, the function form of x + interval (a
//! TIMESTAMP, as in DuckDB, or a TIMESTAMP WITH TIME ZONE for one). The age of
//! instants is the age of their local times in the session's zone.

use crate::kernels::{map_rows, Slot};
use crate::scalar::signature::{bind, castable};
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::interval::MICROS_PER_DAY;
use stride_common::temporal::{civil_from_days, days_in_month, timestamp_add_interval};
use stride_common::{DataType, Error, Interval, Result, Vector};

pub(crate) fn resolve_age(args: &[DataType]) -> Option<BoundFunction> {
    let ts = DataType::Timestamp;
    // instants count on the session zone's clocks: the binder casts them to local time
    let local = |a: &DataType| castable(a, &ts) || *a == DataType::TimestampTz;
    if args.is_empty() || args.len() > 2 || !args.iter().all(local) {
        return None;
    }
    bind(
        ScalarFunction::Age,
        vec![ts; args.len()],
        DataType::Interval,
    )
}

pub(crate) fn resolve_date_add(args: &[DataType]) -> Option<BoundFunction> {
    let [x, iv] = args else { return None };
    let ts = match x {
        DataType::TimestampTz => DataType::TimestampTz,
        _ => DataType::Timestamp,
    };
    if !castable(x, &ts) || !castable(iv, &DataType::Interval) {
        return None;
    }
    bind(
        ScalarFunction::DateAdd,
        vec![ts.clone(), DataType::Interval],
        ts,
    )
}

/// The calendar fields of a timestamp: (year, month, day, time of day in micros).
fn fields(t: i64) -> (i64, i64, i64, i64) {
    let (y, m, d) = civil_from_days(t.div_euclid(MICROS_PER_DAY));
    (y, m as i64, d as i64, t.rem_euclid(MICROS_PER_DAY))
}

/// `a - b` as an interval of months, days and time.
pub(crate) fn age(a: i64, b: i64) -> Option<Interval> {
    let (y1, m1, d1, t1) = fields(a);
    let (y2, m2, d2, t2) = fields(b);
    let flip = a < b;
    let sign = if flip { -1 } else { 1 };
    let (mut years, mut months, mut days, mut micros) = (
        sign * (y1 - y2),
        sign * (m1 - m2),
        sign * (d1 - d2),
        sign * (t1 - t2),
    );
    if micros < 0 {
        micros += MICROS_PER_DAY;
        days -= 1;
    }
    while days < 0 {
        let (y, m) = if flip { (y1, m1) } else { (y2, m2) };
        days += days_in_month(y, m as u32) as i64;
        months -= 1;
    }
    while months < 0 {
        months += 12;
        years -= 1;
    }
    let total_months = i32::try_from(sign * (years * 12 + months)).ok()?;
    Some(Interval::new(
        total_months,
        (sign * days) as i32,
        sign * micros,
    ))
}

/// `age(b)` at instant `clock` (microseconds since the epoch; the executor passes the
/// statement's): age(midnight of clock's day in the session's zone, b).
pub(super) fn since(clock: i64, b: &Vector, len: usize) -> Result<Vector> {
    let local = stride_common::zone::current()
        .local_of(clock)
        .unwrap_or(clock);
    let today = local.div_euclid(MICROS_PER_DAY) * MICROS_PER_DAY;
    let b_slot = Slot::<i64>::new(b);
    map_rows(&[b], len, DataType::Interval, |i| {
        age(today, b_slot.get(i)).ok_or_else(|| Error::out_of_range("age out of range"))
    })
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let a = Slot::<i64>::new(&args[0]);
    match func {
        ScalarFunction::Age if args.len() == 1 => since(super::now::now_micros(), &args[0], len),
        ScalarFunction::Age => {
            let b = Slot::<i64>::new(&args[1]);
            map_rows(&refs, len, DataType::Interval, |i| {
                age(a.get(i), b.get(i)).ok_or_else(|| Error::out_of_range("age out of range"))
            })
        }
        _ if args[0].ty == DataType::TimestampTz => {
            let (iv, zone) = (
                Slot::<Interval>::new(&args[1]),
                stride_common::zone::current(),
            );
            map_rows(&refs, len, DataType::TimestampTz, |i| {
                crate::timezone::add_interval(&zone, a.get(i), iv.get(i))
                    .ok_or_else(|| Error::out_of_range("Timestamp out of range in date_add"))
            })
        }
        _ => {
            let iv = Slot::<Interval>::new(&args[1]);
            map_rows(&refs, len, DataType::Timestamp, |i| {
                timestamp_add_interval(a.get(i), iv.get(i))
                    .ok_or_else(|| Error::out_of_range("Timestamp out of range in date_add"))
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::age;
    use crate::scalar::test_util::eval;
    use stride_common::temporal::{parse_date, parse_timestamp};
    use stride_common::Interval as Iv;
    use stride_common::ScalarValue::*;

    fn ts(s: &str) -> i64 {
        parse_timestamp(s).unwrap()
    }

    #[test]
    fn ages() {
        assert_eq!(
            age(ts("2001-04-10"), ts("1957-06-13")).unwrap(),
            Iv::new(43 * 12 + 9, 27, 0)
        );
        assert_eq!(
            age(ts("2020-03-31"), ts("2020-02-29")).unwrap(),
            Iv::new(1, 2, 0)
        );
        assert_eq!(
            age(ts("2020-02-29"), ts("2020-03-31")).unwrap(),
            Iv::new(-1, -2, 0)
        );
        assert_eq!(
            age(ts("2020-01-31 10:00"), ts("2019-12-31 12:00")).unwrap(),
            Iv::new(0, 30, 22 * 3_600_000_000)
        );
        assert_eq!(
            age(ts("2001-04-10 12:00"), ts("2001-04-11")).unwrap(),
            Iv::new(0, 0, -12 * 3_600_000_000)
        );
        assert_eq!(
            eval("age", &[Timestamp(ts("2020-01-02")), Null]).unwrap(),
            Null
        );
        assert!(matches!(
            eval("age", &[Timestamp(ts("2020-01-02"))]).unwrap(),
            Interval(_)
        ));
    }

    #[test]
    fn date_add() {
        let d = Date(parse_date("2020-01-31").unwrap());
        assert_eq!(
            eval("date_add", &[d, Interval(Iv::new(1, 0, 0))]).unwrap(),
            Timestamp(ts("2020-02-29"))
        );
    }
}
