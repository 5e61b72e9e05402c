//! `make_date(year, month, day)`, `make_time(hour, minute, seconds)`,
//! `make_timestamp(year, month, day, hour, minute, seconds)` and `make_timestamptz`
//! (the same fields read as local time in the session's zone or in a named zone, or
//! microseconds since the epoch); fields out of range are a Conversion error naming
//! the value.

use crate::kernels::{map_rows, Slot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::interval::{MICROS_PER_DAY, MICROS_PER_SEC};
use stride_common::temporal::make_date;
use stride_common::{DataType, Error, Result, Vector};

pub(crate) fn resolve_make_date(args: &[DataType]) -> Option<BoundFunction> {
    let i = DataType::BigInt;
    fixed(
        ScalarFunction::MakeDate,
        args,
        &[i.clone(), i.clone(), i],
        DataType::Date,
    )
}

pub(crate) fn resolve_make_timestamp(args: &[DataType]) -> Option<BoundFunction> {
    let i = DataType::BigInt;
    let params = [
        i.clone(),
        i.clone(),
        i.clone(),
        i.clone(),
        i,
        DataType::Double,
    ];
    fixed(
        ScalarFunction::MakeTimestamp,
        args,
        &params,
        DataType::Timestamp,
    )
}

pub(crate) fn resolve_make_timestamptz(args: &[DataType]) -> Option<BoundFunction> {
    let i = DataType::BigInt;
    let mut params = vec![i.clone(), i.clone(), i.clone(), i.clone(), i.clone()];
    params.push(DataType::Double);
    match args.len() {
        1 => params.truncate(1),
        6 => {}
        7 => params.push(DataType::Varchar),
        _ => return None,
    }
    fixed(
        ScalarFunction::MakeTimestampTz,
        args,
        &params,
        DataType::TimestampTz,
    )
}

pub(crate) fn resolve_make_time(args: &[DataType]) -> Option<BoundFunction> {
    let i = DataType::BigInt;
    fixed(
        ScalarFunction::MakeTime,
        args,
        &[i.clone(), i, DataType::Double],
        DataType::Time,
    )
}

/// Microseconds since midnight of a time of day, checked.
fn time_of_day(h: i64, mi: i64, s: f64) -> Result<i64> {
    if !(0..24).contains(&h) || !(0..60).contains(&mi) || !(0.0..60.0).contains(&s) {
        return Err(Error::conversion(format!(
            "Time out of range: {h}:{mi}:{s}"
        )));
    }
    Ok((h * 3600 + mi * 60) * MICROS_PER_SEC + (s * MICROS_PER_SEC as f64).round() as i64)
}

fn date(y: i64, m: i64, d: i64) -> Result<i32> {
    make_date(y, m, d).ok_or_else(|| Error::conversion(format!("Date out of range: {y}-{m}-{d}")))
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    if func == ScalarFunction::MakeTime {
        let (h, mi, s) = (
            Slot::<i64>::new(&args[0]),
            Slot::<i64>::new(&args[1]),
            Slot::<f64>::new(&args[2]),
        );
        return map_rows(&refs, len, DataType::Time, |i| {
            time_of_day(h.get(i), mi.get(i), s.get(i))
        });
    }
    let (y, m, d) = (
        Slot::<i64>::new(&args[0]),
        Slot::<i64>::new(&args[1]),
        Slot::<i64>::new(&args[2]),
    );
    if func == ScalarFunction::MakeDate {
        return map_rows(&refs, len, DataType::Date, |i| {
            date(y.get(i), m.get(i), d.get(i))
        });
    }
    let (h, mi, s) = (
        Slot::<i64>::new(&args[3]),
        Slot::<i64>::new(&args[4]),
        Slot::<f64>::new(&args[5]),
    );
    map_rows(&refs, len, DataType::Timestamp, |i| {
        let days = date(y.get(i), m.get(i), d.get(i))? as i64;
        let micros = time_of_day(h.get(i), mi.get(i), s.get(i))?;
        days.checked_mul(MICROS_PER_DAY)
            .and_then(|d| d.checked_add(micros))
            .ok_or_else(|| Error::conversion("Timestamp out of range"))
    })
}

/// `make_timestamptz`: micros as an instant, or the local fields' instant in the
/// session's zone or the zone of the seventh argument.
pub(super) fn evaluate_tz(args: &[Vector], len: usize) -> Result<Vector> {
    if args.len() == 1 {
        let mut out = args[0].clone();
        out.ty = DataType::TimestampTz;
        return Ok(out);
    }
    let local = evaluate(ScalarFunction::MakeTimestamp, &args[..6], len)?;
    if args.len() == 6 {
        return crate::timezone::to_instant(&local, len);
    }
    let (l, zones) = (
        Slot::<i64>::new(&local),
        crate::kernels::StrSlot::new(&args[6]),
    );
    map_rows(&[&local, &args[6]], len, DataType::TimestampTz, |i| {
        crate::timezone::lookup(zones.get(i))?
            .instant_of(l.get(i))
            .ok_or_else(|| Error::conversion("Timestamp out of range"))
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::temporal::{parse_date, parse_timestamp};
    use stride_common::ScalarValue::*;

    #[test]
    fn construction() {
        assert_eq!(
            eval("make_date", &[Integer(2024), Integer(2), Integer(29)]).unwrap(),
            Date(parse_date("2024-02-29").unwrap())
        );
        let e = eval("make_date", &[Integer(2023), Integer(2), Integer(29)]).unwrap_err();
        assert_eq!(e.message, "Date out of range: 2023-2-29");
        assert_eq!(
            eval("make_date", &[Integer(2023), Null, Integer(29)]).unwrap(),
            Null
        );
        assert_eq!(
            eval(
                "make_timestamp",
                &[
                    Integer(2024),
                    Integer(1),
                    Integer(2),
                    Integer(3),
                    Integer(4),
                    Double(5.5)
                ]
            )
            .unwrap(),
            Timestamp(parse_timestamp("2024-01-02 03:04:05.5").unwrap())
        );
        assert!(eval(
            "make_timestamp",
            &[
                Integer(2024),
                Integer(1),
                Integer(2),
                Integer(24),
                Integer(0),
                Double(0.0)
            ]
        )
        .is_err());
    }
}
