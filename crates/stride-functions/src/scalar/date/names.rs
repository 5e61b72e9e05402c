//! `last_day(x)` (the last day of x's month, a DATE), `dayname(x)` and
//! `monthname(x)` (English names) for dates and timestamps.

use super::format::{day_name, month_name};
use super::temporal_arg;
use crate::kernels::{map_rows_to_strings, unary, Slot};
use crate::scalar::signature::bind;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::interval::MICROS_PER_DAY;
use stride_common::temporal::{civil_from_days, day_of_week, days_from_civil, days_in_month};
use stride_common::{DataType, Result, Vector};

fn resolve(func: ScalarFunction, args: &[DataType], ret: DataType) -> Option<BoundFunction> {
    let [x] = args else { return None };
    temporal_arg(x, false)?;
    bind(func, vec![DataType::Timestamp], ret)
}

pub(crate) fn resolve_last_day(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::LastDay, args, DataType::Date)
}

pub(crate) fn resolve_dayname(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::DayName, args, DataType::Varchar)
}

pub(crate) fn resolve_monthname(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::MonthName, args, DataType::Varchar)
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let v = &args[0];
    if func == ScalarFunction::LastDay {
        return Ok(unary(v, len, DataType::Date, |t: i64| {
            let (y, m, _) = civil_from_days(t.div_euclid(MICROS_PER_DAY));
            days_from_civil(y, m, days_in_month(y, m)) as i32
        }));
    }
    let t = Slot::<i64>::new(v);
    map_rows_to_strings(&[v], len, |i, out| {
        let days = t.get(i).div_euclid(MICROS_PER_DAY);
        out.push(if func == ScalarFunction::DayName {
            day_name(day_of_week(days))
        } else {
            month_name(civil_from_days(days).1)
        });
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::temporal::parse_date;
    use stride_common::ScalarValue::*;

    #[test]
    fn names() {
        let d = Date(parse_date("2024-02-10").unwrap());
        assert_eq!(
            eval("last_day", std::slice::from_ref(&d)).unwrap(),
            Date(parse_date("2024-02-29").unwrap())
        );
        assert_eq!(
            eval("dayname", std::slice::from_ref(&d)).unwrap(),
            Varchar("Saturday".into())
        );
        assert_eq!(eval("monthname", &[d]).unwrap(), Varchar("February".into()));
    }
}
