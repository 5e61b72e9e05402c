//! Date and time functions: field extraction (`date_part`, EXTRACT, `year(x)`, ...),
//! truncation, differences, construction, `strftime`/`strptime` formatting and
//! parsing, month/day names, epoch conversions (`epoch_ms`, `to_timestamp`, ...),
//! interval constructors (`to_days`, ...), `age`, `date_add`, `date_sub` and
//! `time_bucket`. Arithmetic with dates lives with the operators in
//! `arithmetic::temporal`. All calendar math is stride-common's proleptic Gregorian
//! calendar without time zones.

pub(crate) mod age;
pub(crate) mod bucket;
pub(crate) mod diff;
pub(crate) mod epoch;
mod field;
pub mod format;
mod format_parse;
pub(crate) mod make;
pub(crate) mod names;
pub(crate) mod normalize;
pub mod now;
pub(crate) mod part;
pub(crate) mod part_list;
pub(crate) mod strftime;
pub(crate) mod strptime;
pub(crate) mod strptime_list;
pub(crate) mod sub;
pub(crate) mod to_interval;
pub(crate) mod trunc;
pub(crate) mod zone;

pub use epoch::EpochUnit;
pub use field::DateField;
pub use to_interval::IntervalUnit;

use super::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, Vector};

/// The temporal type a date function computes in for an argument: dates and
/// timestamps keep their type, an untyped NULL or text is a TIMESTAMP, and a
/// TIMESTAMP WITH TIME ZONE is its local time in the session's zone (a TIMESTAMP:
/// the binder casts it), so its fields are the ones its text shows.
pub(crate) fn temporal_arg(t: &DataType, allow_interval: bool) -> Option<DataType> {
    match t {
        DataType::Date | DataType::Timestamp => Some(t.clone()),
        DataType::TimestampTz => Some(DataType::Timestamp),
        DataType::Interval if allow_interval => Some(t.clone()),
        DataType::Null | DataType::Varchar => Some(DataType::Timestamp),
        _ => None,
    }
}

pub(crate) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    use ScalarFunction as F;
    let reads_fields = matches!(
        f.func,
        F::DatePart
            | F::Extract(_)
            | F::DatePartList
            | F::DateDiff
            | F::DateSub
            | F::LastDay
            | F::DayName
            | F::MonthName
            | F::EpochUnit(_)
            | F::Age
    );
    let finite;
    let args = if reads_fields && args.iter().any(|a| has_infinity(a, len)) {
        finite = args
            .iter()
            .map(|a| without_infinities(a, len))
            .collect::<Vec<_>>();
        &finite[..]
    } else {
        args
    };
    match f.func {
        F::DatePart | F::Extract(_) => part::evaluate(f, args, len),
        F::DateTrunc => trunc::evaluate(f, args, len),
        F::DateDiff => diff::evaluate(args, len),
        F::MakeDate | F::MakeTimestamp | F::MakeTime => make::evaluate(f.func, args, len),
        F::Strftime => strftime::evaluate(args, len),
        F::Strptime | F::TryStrptime => strptime::evaluate(f, args, len),
        F::DatePartList => part_list::evaluate(f, args, len),
        F::StrptimeList(try_) => strptime_list::evaluate(f, try_, args, len),
        F::LastDay | F::DayName | F::MonthName => names::evaluate(f.func, args, len),
        F::CurrentDate | F::CurrentTimestamp | F::CurrentLocalTimestamp | F::CurrentTime => {
            now::evaluate(f.func)
        }
        F::EpochUnit(_)
        | F::TimestampFromEpochMs
        | F::ToTimestamp
        | F::MakeTimestampMicros
        | F::MakeTimestampNanos => epoch::evaluate(f.func, args, len),
        F::ToInterval(unit) => to_interval::evaluate(unit, args, len),
        F::Age | F::DateAdd => age::evaluate(f.func, args, len),
        F::TimeBucket => bucket::evaluate(f, args, len),
        F::DateSub => sub::evaluate(args, len),
        F::AtTimeZone => zone::evaluate(f, args, len),
        F::MakeTimestampTz => make::evaluate_tz(args, len),
        F::NormalizedInterval => normalize::evaluate(args, len),
        other => Err(Error::internal(format!("{other:?} is not a date function"))),
    }
}

/// Whether a DATE, TIMESTAMP or TIMESTAMPTZ vector holds 'infinity' or '-infinity'.
fn has_infinity(v: &Vector, len: usize) -> bool {
    use stride_common::temporal::{is_finite_date, is_finite_timestamp};
    let rows = if v.constant { 1 } else { len };
    match v.ty {
        DataType::Date => v.values::<i32>()[..rows]
            .iter()
            .any(|&d| !is_finite_date(d)),
        DataType::Timestamp | DataType::TimestampTz | DataType::TimestampUnit(_) => v
            .values::<i64>()[..rows]
            .iter()
            .any(|&t| !is_finite_timestamp(t)),
        _ => false,
    }
}

/// `v` with its infinite dates or timestamps made NULL: they have no fields, so the
/// functions that read fields (`year`, `date_diff`, `dayname`, `epoch`, ...) give
/// NULL for them, as in DuckDB.
fn without_infinities(v: &Vector, len: usize) -> Vector {
    use stride_common::temporal::{is_finite_date, is_finite_timestamp};
    if !has_infinity(v, len) {
        return v.clone();
    }
    let rows = if v.constant { 1 } else { len };
    let finite = match v.ty {
        DataType::Date => {
            let d = v.values::<i32>();
            stride_common::Validity::from_fn(rows, |i| is_finite_date(d[i]))
        }
        _ => {
            let t = v.values::<i64>();
            stride_common::Validity::from_fn(rows, |i| is_finite_timestamp(t[i]))
        }
    };
    let mut out = v.clone();
    out.validity = v.validity.and(&finite);
    out
}

/// `f(part, a, b)` over rows of (part name, a, b), with a constant part parsed once:
/// date_diff and date_sub. `what` names the function in overflow errors.
pub(super) fn by_part_of_two(
    args: &[stride_common::Vector],
    len: usize,
    what: &'static str,
    f: fn(DateField, i64, i64) -> stride_common::Result<i64>,
) -> stride_common::Result<stride_common::Vector> {
    use crate::kernels::{map_rows, null_vector, try_binary, Slot, StrSlot};
    use stride_common::{DataType, Error};
    let (part, a, b) = (&args[0], &args[1], &args[2]);
    let ty = DataType::BigInt;
    if part.constant {
        if !part.validity.is_valid(0) {
            return Ok(null_vector(&ty, len, a.constant && b.constant));
        }
        let field = DateField::parse(part.strings().get(0))?;
        f(field, 0, 0)?;
        return try_binary(
            a,
            b,
            len,
            ty,
            |x: i64, y: i64| f(field, x, y).ok(),
            |_, _| Error::out_of_range(format!("{what} overflow")),
        );
    }
    let (parts, x, y) = (StrSlot::new(part), Slot::<i64>::new(a), Slot::<i64>::new(b));
    map_rows(&[part, a, b], len, ty, |i| {
        f(DateField::parse(parts.get(i))?, x.get(i), y.get(i))
    })
}

/// [`by_part_of_two`] over two instants (TIMESTAMP WITH TIME ZONE): parts below a day
/// see the instants (elapsed time), the others their local times in the session's
/// zone, as DuckDB's `date_diff` and `date_sub` do.
pub(super) fn by_part_of_two_instants(
    args: &[Vector],
    len: usize,
    what: &'static str,
    f: fn(DateField, i64, i64) -> Result<i64>,
) -> Result<Vector> {
    use crate::kernels::{map_rows, Slot, StrSlot};
    let elapsed = |field: DateField| {
        use DateField::*;
        matches!(
            field,
            Hour | Minute | Second | Millisecond | Microsecond | Nanosecond | Epoch
        )
    };
    let zone = stride_common::zone::current();
    let (part, a, b) = (&args[0], &args[1], &args[2]);
    let raw = |v: &Vector| {
        let mut r = v.clone();
        r.ty = DataType::Timestamp;
        r
    };
    let (la, lb) = (
        crate::timezone::to_local_in(&zone, a, len)?,
        crate::timezone::to_local_in(&zone, b, len)?,
    );
    // date_diff in hours, minutes or seconds: the elapsed time between the two
    // instants truncated on the zone's clock (DuckDB's ICU), so half-hour zones and
    // shifts count local boundaries
    let on_clock = |field: DateField| -> Option<i64> {
        match (what, field) {
            ("date_diff", DateField::Hour) => Some(3_600_000_000),
            ("date_diff", DateField::Minute) => Some(60_000_000),
            ("date_diff", DateField::Second) => Some(1_000_000),
            _ => None,
        }
    };
    // as date_trunc of an instant: an hour read on the clock again, a minute or a
    // second cut off the instant itself
    let truncated = |t: i64, unit: i64| -> Result<i64> {
        zone.local_of(t)
            .and_then(|l| {
                let cut = l.rem_euclid(unit);
                if unit == 3_600_000_000 {
                    zone.instant_of(l - cut)
                } else {
                    Some(t - cut)
                }
            })
            .ok_or_else(|| Error::out_of_range("Timestamp out of range"))
    };
    let clock_diff = |unit: i64, x: i64, y: i64| -> Result<i64> {
        Ok((truncated(y, unit)? - truncated(x, unit)?) / unit)
    };
    if part.constant && part.validity.is_valid(0) {
        let field = DateField::parse(part.strings().get(0))?;
        if let Some(unit) = on_clock(field) {
            let (ra, rb) = (Slot::<i64>::new(a), Slot::<i64>::new(b));
            return map_rows(&[part, a, b], len, DataType::BigInt, |i| {
                clock_diff(unit, ra.get(i), rb.get(i))
            });
        }
        let (x, y) = if elapsed(field) {
            (raw(a), raw(b))
        } else {
            (la, lb)
        };
        return by_part_of_two(&[part.clone(), x, y], len, what, f);
    }
    let parts = StrSlot::new(part);
    let (ra, rb, xa, xb) = (
        Slot::<i64>::new(a),
        Slot::<i64>::new(b),
        Slot::<i64>::new(&la),
        Slot::<i64>::new(&lb),
    );
    map_rows(&[part, a, b], len, DataType::BigInt, |i| {
        let field = DateField::parse(parts.get(i))?;
        if let Some(unit) = on_clock(field) {
            clock_diff(unit, ra.get(i), rb.get(i))
        } else if elapsed(field) {
            f(field, ra.get(i), rb.get(i))
        } else {
            f(field, xa.get(i), xb.get(i))
        }
    })
}
