//! `normalized_interval(iv)`: the same span with microseconds beyond a day carried
//! into days and days beyond 30 into months, each carry rounded down so that the
//! days and microseconds left are not negative (DuckDB's normalization: 50 hours
//! is 2 days 02:00:00, -50 hours is -1 month 27 days 22:00:00).

use crate::kernels::try_unary;
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::interval::MICROS_PER_DAY;
use stride_common::{DataType, Error, Interval, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    use DataType::Interval;
    fixed(
        ScalarFunction::NormalizedInterval,
        args,
        &[Interval],
        Interval,
    )
}

fn normalize(iv: Interval) -> Option<Interval> {
    let carry_days = iv.micros.div_euclid(MICROS_PER_DAY);
    let micros = iv.micros.rem_euclid(MICROS_PER_DAY);
    let days = i64::from(iv.days) + carry_days;
    let months = i64::from(iv.months) + days.div_euclid(30);
    let days = days.rem_euclid(30);
    Some(Interval::new(
        i32::try_from(months).ok()?,
        days as i32,
        micros,
    ))
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    try_unary(&args[0], len, DataType::Interval, normalize, |_| {
        Error::out_of_range("Interval value is out of range")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    const H: i64 = 3_600_000_000;

    #[test]
    fn carries() {
        let n = |m, d, us| normalize(Interval::new(m, d, us)).unwrap();
        assert_eq!(n(0, 0, 50 * H), Interval::new(0, 2, 2 * H));
        assert_eq!(n(0, 0, -50 * H), Interval::new(-1, 27, 22 * H));
        assert_eq!(n(1, 40, 25 * H), Interval::new(2, 11, H));
        assert_eq!(n(-1, 40, -25 * H), Interval::new(0, 8, 23 * H));
        assert_eq!(n(0, 30, 0), Interval::new(1, 0, 0));
        assert!(normalize(Interval::new(i32::MAX, i32::MAX, 0)).is_none());
    }
}
