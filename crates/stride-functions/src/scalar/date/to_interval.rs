//! Interval constructors: `to_millennia`, `to_centuries`, `to_decades`, `to_years`,
//! `to_quarters`, `to_months`, `to_weeks`, `to_days`, `to_hours`, `to_minutes`, `to_microseconds`
//! (integer counts) and `to_seconds`, `to_milliseconds` (DOUBLE, keeping fractions
//! to the microsecond). A count that does not fit the interval's field is an Out of
//! Range error, as in DuckDB.

use crate::kernels::try_unary;
use crate::scalar::signature::{bind, castable};
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::interval::MICROS_PER_SEC;
use stride_common::{DataType, Error, Interval, Result, Vector};

/// The unit of a `to_*` interval constructor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntervalUnit {
    Millennia,
    Centuries,
    Decades,
    Years,
    Quarters,
    Months,
    Weeks,
    Days,
    Hours,
    Minutes,
    Seconds,
    Milliseconds,
    Microseconds,
}

impl IntervalUnit {
    fn name(self) -> &'static str {
        use IntervalUnit::*;
        match self {
            Millennia => "millennium",
            Centuries => "centuries",
            Decades => "decades",
            Years => "years",
            Quarters => "quarters",
            Months => "months",
            Weeks => "weeks",
            Days => "days",
            Hours => "hours",
            Minutes => "minutes",
            Seconds => "seconds",
            Milliseconds => "milliseconds",
            Microseconds => "microseconds",
        }
    }

    /// Seconds and milliseconds take a DOUBLE, the others an integer.
    fn is_fractional(self) -> bool {
        matches!(self, IntervalUnit::Seconds | IntervalUnit::Milliseconds)
    }

    /// The interval of `n` units.
    fn of_count(self, n: i64) -> Option<Interval> {
        use IntervalUnit::*;
        let months = |per: i64| {
            n.checked_mul(per)
                .and_then(|m| i32::try_from(m).ok())
                .map(|m| Interval::new(m, 0, 0))
        };
        let days = |per: i64| {
            n.checked_mul(per)
                .and_then(|d| i32::try_from(d).ok())
                .map(|d| Interval::new(0, d, 0))
        };
        let micros = |per: i64| n.checked_mul(per).map(|us| Interval::new(0, 0, us));
        match self {
            Millennia => months(12_000),
            Centuries => months(1_200),
            Decades => months(120),
            Years => months(12),
            Quarters => months(3),
            Months => months(1),
            Weeks => days(7),
            Days => days(1),
            Hours => micros(3_600 * MICROS_PER_SEC),
            Minutes => micros(60 * MICROS_PER_SEC),
            Seconds => micros(MICROS_PER_SEC),
            Milliseconds => micros(1_000),
            Microseconds => micros(1),
        }
    }

    /// The interval of `x` seconds or milliseconds, rounded to the microsecond.
    fn of_fraction(self, x: f64) -> Option<Interval> {
        let per = if self == IntervalUnit::Seconds {
            MICROS_PER_SEC as f64
        } else {
            1_000.0
        };
        let us = (x * per).round();
        (us.is_finite() && us.abs() < 9.2e18).then(|| Interval::new(0, 0, us as i64))
    }
}

pub(crate) fn resolve(args: &[DataType], unit: IntervalUnit) -> Option<BoundFunction> {
    let [x] = args else { return None };
    let param = if unit.is_fractional() {
        DataType::Double
    } else {
        DataType::BigInt
    };
    if !castable(x, &param) {
        return None;
    }
    bind(
        ScalarFunction::ToInterval(unit),
        vec![param],
        DataType::Interval,
    )
}

pub(super) fn evaluate(unit: IntervalUnit, args: &[Vector], len: usize) -> Result<Vector> {
    let ty = DataType::Interval;
    if unit.is_fractional() {
        return try_unary(
            &args[0],
            len,
            ty,
            |x: f64| unit.of_fraction(x),
            |x| Error::out_of_range(format!("Interval value {x} {} out of range", unit.name())),
        );
    }
    try_unary(
        &args[0],
        len,
        ty,
        |n: i64| unit.of_count(n),
        |n| Error::out_of_range(format!("Interval value {n} {} out of range", unit.name())),
    )
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::ScalarValue::*;
    use stride_common::{ErrorKind, Interval as Iv};

    #[test]
    fn constructors() {
        let iv = |m, d, us| Interval(Iv::new(m, d, us));
        assert_eq!(eval("to_years", &[Integer(2)]).unwrap(), iv(24, 0, 0));
        assert_eq!(eval("to_centuries", &[Integer(3)]).unwrap(), iv(3600, 0, 0));
        assert_eq!(eval("to_months", &[BigInt(-3)]).unwrap(), iv(-3, 0, 0));
        assert_eq!(eval("to_weeks", &[Integer(2)]).unwrap(), iv(0, 14, 0));
        assert_eq!(eval("to_days", &[Integer(3)]).unwrap(), iv(0, 3, 0));
        assert_eq!(
            eval("to_hours", &[Integer(4)]).unwrap(),
            iv(0, 0, 4 * 3_600_000_000)
        );
        assert_eq!(
            eval("to_seconds", &[Double(1.5)]).unwrap(),
            iv(0, 0, 1_500_000)
        );
        assert_eq!(
            eval("to_milliseconds", &[Double(1.5)]).unwrap(),
            iv(0, 0, 1_500)
        );
        assert_eq!(eval("to_microseconds", &[Integer(7)]).unwrap(), iv(0, 0, 7));
        assert_eq!(eval("to_days", &[Null]).unwrap(), Null);
        let e = eval("to_days", &[BigInt(10_000_000_000)]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfRange);
        assert_eq!(e.message, "Interval value 10000000000 days out of range");
        assert!(eval("to_hours", &[BigInt(i64::MAX)]).is_err());
        assert!(eval("to_seconds", &[Double(1e300)]).is_err());
    }
}
