//! Conversions between temporal values and counts since 1970-01-01 00:00:00:
//! `epoch_ms(x)` / `epoch_us(x)` / `epoch_ns(x)` of a DATE, TIMESTAMP or INTERVAL
//! (BIGINT milliseconds, microseconds, nanoseconds; an interval's month is 30 days, as
//! in DuckDB), `epoch_ms(BIGINT)` (milliseconds to a TIMESTAMP), `to_timestamp(DOUBLE
//! seconds)`, `make_timestamp(BIGINT microseconds)` and `make_timestamp_ns(BIGINT
//! nanoseconds)`; the counts of a TIMESTAMP_S, _MS or _NS come from its own value, so
//! `epoch_ns` of a TIMESTAMP_NS keeps its nanoseconds. (`epoch(x)`, fractional
//! seconds, is the `epoch` field of `date_part`.) Results that do not fit are a
//! Conversion error, never a wrapped value.

use super::temporal_arg;
use crate::kernels::try_unary;
use crate::scalar::signature::{bind, castable, fixed};
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::interval::{MICROS_PER_DAY, MICROS_PER_SEC};
use stride_common::time_unit::TimeUnit;
use stride_common::{DataType, Error, Interval, Result, Vector};

/// The unit of an `epoch_*` function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EpochUnit {
    Millis,
    Micros,
    Nanos,
}

impl EpochUnit {
    fn name(self) -> &'static str {
        match self {
            EpochUnit::Millis => "MS",
            EpochUnit::Micros => "US",
            EpochUnit::Nanos => "NS",
        }
    }

    /// A count in `from` (of a TIMESTAMP_S, _MS or _NS) in this unit, truncated toward
    /// zero.
    fn of_count(self, t: i64, from: TimeUnit) -> Option<i64> {
        let ns = t as i128 * from.nanos() as i128;
        let per = match self {
            EpochUnit::Millis => 1_000_000,
            EpochUnit::Micros => 1_000,
            EpochUnit::Nanos => 1,
        };
        i64::try_from(ns / per).ok()
    }

    /// `micros` in this unit (milliseconds truncate toward zero, as DuckDB does).
    fn of_micros(self, micros: i64) -> Option<i64> {
        match self {
            EpochUnit::Millis => Some(micros / 1_000),
            EpochUnit::Micros => Some(micros),
            EpochUnit::Nanos => micros.checked_mul(1_000),
        }
    }
}

/// `epoch_ms(x)`, `epoch_us(x)`, `epoch_ns(x)`; `epoch_ms` of an integer is the
/// reverse conversion, to a TIMESTAMP.
pub(crate) fn resolve_epoch_unit(args: &[DataType], unit: EpochUnit) -> Option<BoundFunction> {
    let [x] = args else { return None };
    if unit == EpochUnit::Millis && x.is_integer() {
        return bind(
            ScalarFunction::TimestampFromEpochMs,
            vec![DataType::BigInt],
            DataType::Timestamp,
        );
    }
    // an instant's count is the instant's, not its local time's; a timestamp in
    // another unit counts from its own value, nanoseconds included
    let x = match x {
        DataType::TimestampTz | DataType::TimestampUnit(_) => x.clone(),
        x => temporal_arg(x, true)?,
    };
    bind(ScalarFunction::EpochUnit(unit), vec![x], DataType::BigInt)
}

/// `to_timestamp(seconds)`: a DOUBLE count of seconds since the epoch, an instant
/// (TIMESTAMP WITH TIME ZONE, as in DuckDB).
pub(crate) fn resolve_to_timestamp(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::ToTimestamp,
        args,
        &[DataType::Double],
        DataType::TimestampTz,
    )
}

/// `make_timestamp(micros)`: the one-argument form of `make_timestamp`.
pub(crate) fn resolve_make_timestamp_micros(args: &[DataType]) -> Option<BoundFunction> {
    let [x] = args else { return None };
    if !castable(x, &DataType::BigInt) {
        return None;
    }
    bind(
        ScalarFunction::MakeTimestampMicros,
        vec![DataType::BigInt],
        DataType::Timestamp,
    )
}

/// `make_timestamp_ns(nanos)`: a BIGINT count of nanoseconds as a TIMESTAMP_NS (the
/// extremes, its infinities, are an error, as in DuckDB).
pub(crate) fn resolve_make_timestamp_nanos(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::MakeTimestampNanos,
        args,
        &[DataType::BigInt],
        DataType::TimestampUnit(TimeUnit::Nanosecond),
    )
}

/// Microseconds of an interval with 30-day months.
fn interval_micros(iv: Interval) -> Option<i64> {
    let days = iv.months as i64 * 30 + iv.days as i64;
    days.checked_mul(MICROS_PER_DAY)?.checked_add(iv.micros)
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let v = &args[0];
    let ts = DataType::Timestamp;
    match func {
        ScalarFunction::EpochUnit(unit) => {
            let err = || {
                Error::conversion(format!(
                    "Could not convert Timestamp(US) to Timestamp({})",
                    unit.name()
                ))
            };
            let ty = DataType::BigInt;
            match v.ty {
                DataType::Date => try_unary(
                    v,
                    len,
                    ty,
                    |d: i32| {
                        let micros = (d as i64).checked_mul(MICROS_PER_DAY)?;
                        unit.of_micros(micros)
                    },
                    |_| err(),
                ),
                DataType::Timestamp | DataType::TimestampTz => {
                    try_unary(v, len, ty, |t: i64| unit.of_micros(t), |_| err())
                }
                DataType::TimestampUnit(from) => {
                    try_unary(v, len, ty, |t: i64| unit.of_count(t, from), |_| err())
                }
                _ => try_unary(
                    v,
                    len,
                    ty,
                    |iv: Interval| interval_micros(iv).and_then(|m| unit.of_micros(m)),
                    |_| Error::conversion("Interval out of range for an epoch count"),
                ),
            }
        }
        ScalarFunction::TimestampFromEpochMs => try_unary(
            v,
            len,
            ts,
            |ms: i64| ms.checked_mul(1_000).filter(|&t| valid_timestamp(t)),
            |_| Error::conversion("Could not convert Timestamp(MS) to Timestamp(US)"),
        ),
        ScalarFunction::ToTimestamp => try_unary(
            v,
            len,
            DataType::TimestampTz,
            |s: f64| {
                let micros = (s * MICROS_PER_SEC as f64).round();
                (micros.is_finite() && micros.abs() < 9.2e18)
                    .then_some(micros as i64)
                    .filter(|&t| valid_timestamp(t))
            },
            |_| Error::conversion("Epoch seconds out of range for TIMESTAMP WITH TIME ZONE"),
        ),
        ScalarFunction::MakeTimestampNanos => try_unary(
            v,
            len,
            DataType::TimestampUnit(TimeUnit::Nanosecond),
            |t: i64| valid_timestamp(t).then_some(t),
            |t| Error::conversion(format!("Timestamp nanoseconds out of range: {t}")),
        ),
        ScalarFunction::MakeTimestampMicros => try_unary(
            v,
            len,
            ts,
            |t: i64| valid_timestamp(t).then_some(t),
            |t| Error::conversion(format!("Timestamp microseconds out of range: {t}")),
        ),
        other => Err(Error::internal(format!(
            "{other:?} is not an epoch function"
        ))),
    }
}

/// DuckDB reserves the extreme values for infinities: they are not timestamps.
fn valid_timestamp(t: i64) -> bool {
    t != i64::MAX && t != i64::MIN && t != i64::MIN + 1
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::temporal::{parse_date, parse_timestamp};
    use stride_common::Interval as Iv;
    use stride_common::ScalarValue::*;

    #[test]
    fn epoch_counts() {
        let t = Timestamp(parse_timestamp("2020-01-01 00:00:01.5").unwrap());
        assert_eq!(
            eval("epoch_ms", std::slice::from_ref(&t)).unwrap(),
            BigInt(1_577_836_801_500)
        );
        assert_eq!(
            eval("epoch_us", std::slice::from_ref(&t)).unwrap(),
            BigInt(1_577_836_801_500_000)
        );
        assert_eq!(
            eval("epoch_ns", &[t]).unwrap(),
            BigInt(1_577_836_801_500_000_000)
        );
        let d = Date(parse_date("1960-01-01").unwrap());
        assert_eq!(
            eval("epoch_us", &[d]).unwrap(),
            BigInt(-315_619_200_000_000)
        );
        let iv = Interval(Iv::new(13, 0, 0));
        assert_eq!(eval("epoch_ms", &[iv]).unwrap(), BigInt(33_696_000_000));
        let far = Timestamp(parse_timestamp("2300-01-01").unwrap());
        let e = eval("epoch_ns", &[far]).unwrap_err();
        assert_eq!(
            e.message,
            "Could not convert Timestamp(US) to Timestamp(NS)"
        );
        assert_eq!(eval("epoch_ms", &[Null]).unwrap(), Null);
    }

    #[test]
    fn from_epoch() {
        assert_eq!(
            eval("epoch_ms", &[BigInt(1500)]).unwrap(),
            Timestamp(1_500_000)
        );
        assert_eq!(
            eval("epoch_ms", &[Integer(-1500)]).unwrap(),
            Timestamp(-1_500_000)
        );
        assert!(eval("epoch_ms", &[BigInt(i64::MAX)]).is_err());
        assert_eq!(
            eval("to_timestamp", &[Double(1.5)]).unwrap(),
            TimestampTz(1_500_000)
        );
        assert_eq!(eval("to_timestamp", &[Null]).unwrap(), Null);
        let e = eval("to_timestamp", &[Double(1e20)]).unwrap_err();
        assert!(e.message.starts_with("Epoch seconds out of range"));
        assert_eq!(
            eval("make_timestamp", &[BigInt(-1)]).unwrap(),
            Timestamp(-1)
        );
        assert!(eval("make_timestamp", &[BigInt(i64::MAX)]).is_err());
    }
}
