//! `date_diff(part, start, end)` / `datediff`: how many `part` boundaries lie between
//! two dates or timestamps (DuckDB semantics): date_diff('month', '2024-01-31',
//! '2024-02-01') is 1. Weeks are not boundaries but whole 7-day spans between the two
//! days, counted toward zero, as DuckDB counts them: Sunday to Monday is 0. Both values are
//! compared as timestamps (a date is its midnight). Two instants (TIMESTAMP WITH TIME
//! ZONE) count hours and smaller units in elapsed time, days and larger ones on the
//! session zone's clocks, as DuckDB does.

use super::field::DateField;
use super::temporal_arg;
use crate::scalar::signature::{bind, castable};
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::interval::{MICROS_PER_DAY, MICROS_PER_SEC};
use stride_common::temporal::civil_from_days;
use stride_common::{DataType, Error, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    let [part, a, b] = args else { return None };
    if !castable(part, &DataType::Varchar) {
        return None;
    }
    temporal_arg(a, false)?;
    temporal_arg(b, false)?;
    // with an instant on either side both are instants (a local time is read in the
    // session's zone)
    let ts = if matches!(a, DataType::TimestampTz) || matches!(b, DataType::TimestampTz) {
        DataType::TimestampTz
    } else {
        DataType::Timestamp
    };
    bind(
        ScalarFunction::DateDiff,
        vec![DataType::Varchar, ts.clone(), ts],
        DataType::BigInt,
    )
}

/// The index of the `field` period containing timestamp `t`, counted from an
/// arbitrary origin: differences of indexes count boundaries crossed.
fn period_index(field: DateField, t: i64) -> Option<i64> {
    use DateField::*;
    let days = t.div_euclid(MICROS_PER_DAY);
    let (y, m, _) = civil_from_days(days);
    Some(match field {
        // periods counted toward zero from year 0, as DuckDB: 2000 starts a century
        Millennium => y / 1000,
        Century => y / 100,
        Decade => y / 10,
        Year => y,
        Quarter => y * 4 + (m as i64 - 1) / 3,
        Month => y * 12 + m as i64 - 1,
        // whole weeks between the days (see `diff`)
        Week => days,
        Day | DayOfWeek | IsoDayOfWeek | DayOfYear | Julian => days,
        Hour => t.div_euclid(3_600 * MICROS_PER_SEC),
        Minute => t.div_euclid(60 * MICROS_PER_SEC),
        Second | Epoch => t.div_euclid(MICROS_PER_SEC),
        Millisecond => t.div_euclid(1_000),
        Microsecond => t,
        Nanosecond => t.checked_mul(1_000)?,
        IsoYear | Timezone | TimezoneHour | TimezoneMinute | YearWeek | Era => return None,
    })
}

fn diff(field: DateField, a: i64, b: i64) -> Result<i64> {
    match (period_index(field, a), period_index(field, b)) {
        (Some(x), Some(y)) => y
            .checked_sub(x)
            .map(|d| match field {
                DateField::Week => d / 7,
                _ => d,
            })
            .ok_or_else(|| Error::out_of_range("date_diff overflow")),
        _ => Err(Error::not_supported(format!(
            "date_diff specifier \"{}\" not supported",
            field.name()
        ))),
    }
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    if args[1].ty == DataType::TimestampTz {
        return super::by_part_of_two_instants(args, len, "date_diff", diff);
    }
    super::by_part_of_two(args, len, "date_diff", diff)
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
    fn differences() {
        let diff =
            |p: &str, a: ScalarValue, b: ScalarValue| eval("date_diff", &[s(p), a, b]).unwrap();
        assert_eq!(diff("month", d("2024-01-31"), d("2024-02-01")), BigInt(1));
        assert_eq!(diff("year", d("2024-12-31"), d("2023-01-01")), BigInt(-1));
        assert_eq!(diff("day", d("2024-01-01"), d("2024-03-01")), BigInt(60));
        assert_eq!(diff("quarter", d("2024-03-31"), d("2024-04-01")), BigInt(1));
        assert_eq!(diff("week", d("2024-03-03"), d("2024-03-04")), BigInt(0));
        assert_eq!(diff("week", d("2024-03-04"), d("2024-03-10")), BigInt(0));
        assert_eq!(diff("week", d("2024-03-04"), d("2024-03-11")), BigInt(1));
        assert_eq!(diff("week", d("2024-03-12"), d("2024-03-04")), BigInt(-1));
        assert_eq!(
            diff("week", ts("2024-03-04 10:00"), ts("2024-03-11 09:59")),
            BigInt(1)
        );
        assert_eq!(
            diff("hour", ts("2024-01-01 10:59:59"), ts("2024-01-01 11:00:00")),
            BigInt(1)
        );
        assert_eq!(
            diff("minute", ts("2024-01-01 10:00:00"), d("2024-01-01")),
            BigInt(-600)
        );
        assert_eq!(
            eval("datediff", &[s("day"), Null, d("2024-01-01")]).unwrap(),
            Null
        );
        assert!(eval(
            "date_diff",
            &[s("isoyear"), d("2024-01-01"), d("2024-01-01")]
        )
        .is_err());
    }
}
