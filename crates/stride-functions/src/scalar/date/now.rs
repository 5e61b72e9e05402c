//! `current_timestamp`/`now`/`get_current_timestamp`/`transaction_timestamp`: the
//! instant the statement (or its transaction) started, a TIMESTAMP WITH TIME ZONE;
//! `current_localtimestamp` (a TIMESTAMP), `current_date`/`today` and
//! `current_time`/`get_current_time` (a TIME: stride has no TIME WITH TIME ZONE,
//! which DuckDB returns): that instant's local time, date and time of day in the
//! session's zone. The executor passes that instant ([`at`]), so every row and every
//! call of a statement sees the same one, as in DuckDB and PostgreSQL; [`evaluate`],
//! for folding without a statement, reads the clock.

use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use std::time::{SystemTime, UNIX_EPOCH};
use stride_common::interval::MICROS_PER_DAY;
use stride_common::{DataType, Result, ScalarValue, Vector};

pub(crate) fn resolve_current_date(args: &[DataType]) -> Option<BoundFunction> {
    fixed(ScalarFunction::CurrentDate, args, &[], DataType::Date)
}

pub(crate) fn resolve_current_timestamp(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::CurrentTimestamp,
        args,
        &[],
        DataType::TimestampTz,
    )
}

pub(crate) fn resolve_current_local_timestamp(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::CurrentLocalTimestamp,
        args,
        &[],
        DataType::Timestamp,
    )
}

pub(crate) fn resolve_current_time(args: &[DataType]) -> Option<BoundFunction> {
    fixed(ScalarFunction::CurrentTime, args, &[], DataType::Time)
}

/// Microseconds since the epoch, now.
pub fn now_micros() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_micros()).unwrap_or(i64::MAX),
        // a clock set before 1970
        Err(e) => -i64::try_from(e.duration().as_micros()).unwrap_or(i64::MAX),
    }
}

pub(super) fn evaluate(func: ScalarFunction) -> Result<Vector> {
    at(func, now_micros())
}

/// Whether a call of `func` with `arity` arguments reads the statement's clock:
/// `now()` and its kin, and `age(t)` (measured from today's midnight).
pub fn reads_clock(func: ScalarFunction, arity: usize) -> bool {
    match func {
        ScalarFunction::CurrentDate
        | ScalarFunction::CurrentTimestamp
        | ScalarFunction::CurrentLocalTimestamp
        | ScalarFunction::CurrentTime => true,
        ScalarFunction::Age => arity == 1,
        _ => false,
    }
}

/// The value of a call that [`reads_clock`], with `args` evaluated, at `clock`
/// (microseconds since the epoch): the executor passes the statement's instant.
pub fn evaluate_at(
    func: ScalarFunction,
    args: &[Vector],
    len: usize,
    clock: i64,
) -> Result<Vector> {
    match (func, args) {
        (ScalarFunction::Age, [t]) => super::age::since(clock, t, len),
        _ => at(func, clock),
    }
}

/// `func`'s value at `t` (microseconds since the epoch): a constant vector.
fn at(func: ScalarFunction, t: i64) -> Result<Vector> {
    if func == ScalarFunction::CurrentTimestamp {
        return Vector::constant(&ScalarValue::TimestampTz(t), &DataType::TimestampTz);
    }
    let local = stride_common::zone::current().local_of(t).unwrap_or(t);
    match func {
        ScalarFunction::CurrentTime => {
            let time = local.rem_euclid(MICROS_PER_DAY);
            Vector::constant(&ScalarValue::Time(time), &DataType::Time)
        }
        ScalarFunction::CurrentDate => {
            let days = local.div_euclid(MICROS_PER_DAY) as i32;
            Vector::constant(&ScalarValue::Date(days), &DataType::Date)
        }
        _ => Vector::constant(&ScalarValue::Timestamp(local), &DataType::Timestamp),
    }
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::call;
    use stride_common::ScalarValue;

    #[test]
    fn clock() {
        let ScalarValue::Date(d) = call("current_date", &[]).unwrap() else {
            panic!("not a date")
        };
        // after 2024-01-01
        assert!(d > 19_723);
        assert!(matches!(
            call("now", &[]).unwrap(),
            ScalarValue::TimestampTz(_)
        ));
    }
}
