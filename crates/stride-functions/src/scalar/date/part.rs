//! `date_part(part, x)` (also EXTRACT(part FROM x)) and the fixed-field shorthands
//! `year(x)`, `month(x)`, ... over DATE, TIMESTAMP, TIMESTAMPTZ, TIME, TIME WITH TIME
//! ZONE (the zone fields its offset's, the others its local time's), TIMESTAMP_NS
//! (see [`reads_nanoseconds`]) and INTERVAL, returning BIGINT,
//! except the fractional fields `epoch` and `julian`, which are DOUBLE (DuckDB:
//! EXTRACT(epoch FROM INTERVAL '2066.3434 seconds') is 2066.3434). `date_part` with a
//! constant part is bound to that part's type by [`specialize_date_part`]; with a
//! column of part names it returns DOUBLE, as in DuckDB. A constant part name is parsed once per
//! call; a column of part names per row.

use super::field::DateField;
use super::temporal_arg;
use crate::kernels::{map_rows, null_vector, try_unary, unary, Slot, StrSlot};
use crate::scalar::signature::{bind, castable};
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::interval::MICROS_PER_DAY;
use stride_common::temporal::{is_finite_date, is_finite_timestamp};
use stride_common::time_tz;
use stride_common::time_unit::TimeUnit;
use stride_common::{DataType, Error, Interval, Result, ScalarValue, Vector};

pub(crate) fn resolve_date_part(args: &[DataType]) -> Option<BoundFunction> {
    let [part, x] = args else { return None };
    if !castable(part, &DataType::Varchar) {
        return None;
    }
    let x = time_or_temporal_arg(x)?;
    // BIGINT or DOUBLE once a constant part is known (specialize_date_part)
    bind(
        ScalarFunction::DatePart,
        vec![DataType::Varchar, x],
        DataType::Double,
    )
}

pub(crate) fn resolve_field(args: &[DataType], field: DateField) -> Option<BoundFunction> {
    let [x] = args else { return None };
    let mut x = time_or_temporal_arg(x)?;
    if is_timestamp_ns(&x) && !reads_nanoseconds(field) {
        x = DataType::Timestamp;
    }
    let time_like = matches!(x, DataType::Time | DataType::TimeTz);
    if time_like && !(x == DataType::TimeTz && field.is_zone()) && field.of_time(0).is_err() {
        return None;
    }
    let ret = if field.is_fractional() {
        DataType::Double
    } else {
        DataType::BigInt
    };
    bind(ScalarFunction::Extract(field), vec![x], ret)
}

/// DATE, TIMESTAMP, INTERVAL or TIME (whose parts are the time fields); a TIMESTAMP
/// WITH TIME ZONE keeps its type (its epoch is the instant's, its other fields are
/// its local time's), and so do a TIME WITH TIME ZONE (its zone fields are its
/// offset's, the others its local time's) and a TIMESTAMP_NS.
pub(super) fn time_or_temporal_arg(x: &DataType) -> Option<DataType> {
    match x {
        DataType::Time | DataType::TimestampTz | DataType::TimeTz => Some(x.clone()),
        x if is_timestamp_ns(x) => Some(x.clone()),
        x => temporal_arg(x, true),
    }
}

fn is_timestamp_ns(t: &DataType) -> bool {
    *t == DataType::TimestampUnit(TimeUnit::Nanosecond)
}

/// The fields DuckDB reads from a TIMESTAMP_NS's own nanoseconds, in `date_part`
/// (every field) and in these shorthands (`hour(x)` ... `nanosecond(x)`, `epoch(x)`):
/// the value cut down to the microsecond (floored), plus the nanoseconds below it for
/// `nanosecond`. The other shorthands (`year(x)`, `day(x)`, ...) read the value cast
/// to TIMESTAMP, rounded to the nearest microsecond, as in DuckDB.
fn reads_nanoseconds(field: DateField) -> bool {
    use DateField::*;
    matches!(
        field,
        Hour | Minute | Second | Millisecond | Microsecond | Nanosecond | Epoch
    )
}

/// A TIMESTAMP_NS value's microseconds, floored; the infinities stay as they are.
fn floor_to_micros(ns: i64) -> i64 {
    if is_finite_timestamp(ns) {
        ns.div_euclid(1_000)
    } else {
        ns
    }
}

/// `field` of a TIMESTAMP_NS value (see [`reads_nanoseconds`]).
fn field_of_timestamp_ns(field: DateField, ns: i64) -> i64 {
    let below_micros = if field == DateField::Nanosecond {
        ns.rem_euclid(1_000)
    } else {
        0
    };
    field.of_timestamp(floor_to_micros(ns)) + below_micros
}

/// `date_part(part, x)` with a constant part returns that part's type: BIGINT, or
/// DOUBLE for a fractional field (`epoch`, as `epoch(x)` does). Bound without a
/// constant part (a column of part names, a NULL) it stays DOUBLE, as in DuckDB.
pub(crate) fn specialize_date_part(f: &mut BoundFunction, part: &ScalarValue) {
    if let ScalarValue::Varchar(p) = part {
        if let Ok(field) = DateField::parse(p) {
            f.return_type = if field.is_fractional() {
                DataType::Double
            } else {
                DataType::BigInt
            };
        }
    }
}

/// A fractional field (DOUBLE) of every row of `v`.
fn extract_fractional(field: DateField, v: &Vector, len: usize) -> Result<Vector> {
    let ty = DataType::Double;
    match v.ty {
        // From the day itself: a date past the TIMESTAMP range (year 294247) has an
        // epoch and a Julian day all the same (DuckDB).
        DataType::Date => Ok(unary(v, len, ty, |d: i32| match field {
            DateField::Epoch if is_finite_date(d) => d as f64 * 86_400.0,
            DateField::Julian if is_finite_date(d) => (d as i64 + 2_440_588) as f64,
            _ => field.fractional_of_timestamp((d as i64).saturating_mul(MICROS_PER_DAY)),
        })),
        DataType::Timestamp => Ok(unary(v, len, ty, |t: i64| field.fractional_of_timestamp(t))),
        DataType::Time => {
            field.of_time(0)?;
            Ok(unary(v, len, ty, |t: i64| field.fractional_of_timestamp(t)))
        }
        DataType::Interval => {
            field.fractional_of_interval(Interval::default())?;
            try_unary(
                v,
                len,
                ty,
                |iv: Interval| field.fractional_of_interval(iv).ok(),
                |_| Error::internal("interval field"),
            )
        }
        ref t => Err(Error::internal(format!("date_part of {t}"))),
    }
}

/// `field` of every instant of a TIMESTAMP WITH TIME ZONE vector: the epoch of the
/// instant, the zone fields of its offset, the others of its local time in the
/// session's zone.
fn extract_instant(field: DateField, v: &Vector, len: usize, ret: &DataType) -> Result<Vector> {
    if field == DateField::Epoch {
        let mut raw = v.clone();
        raw.ty = DataType::Timestamp;
        return extract(field, &raw, len, ret);
    }
    if field.is_zone() {
        let offsets = crate::timezone::offsets(v, len);
        return Ok(unary(&offsets, len, DataType::BigInt, |o: i64| {
            field.of_offset(o)
        }));
    }
    extract(field, &crate::timezone::to_local(v, len)?, len, ret)
}

/// `field` of every row of `v` (a DATE, TIMESTAMP, TIMESTAMPTZ, TIMESTAMP_NS, TIME,
/// TIMETZ or INTERVAL vector).
pub(super) fn extract(field: DateField, v: &Vector, len: usize, ret: &DataType) -> Result<Vector> {
    if is_timestamp_ns(&v.ty) {
        if *ret == DataType::Double {
            let micros = unary(v, len, DataType::Timestamp, floor_to_micros);
            return extract_fractional(field, &micros, len);
        }
        return Ok(unary(v, len, DataType::BigInt, |t: i64| {
            field_of_timestamp_ns(field, t)
        }));
    }
    if v.ty == DataType::TimestampTz {
        return extract_instant(field, v, len, ret);
    }
    if v.ty == DataType::TimeTz {
        if field.is_zone() {
            return Ok(unary(v, len, DataType::BigInt, |x: i64| {
                field.of_offset(time_tz::decode(x).1 as i64)
            }));
        }
        let local = unary(v, len, DataType::Time, |x: i64| time_tz::decode(x).0);
        return extract(field, &local, len, ret);
    }
    if *ret == DataType::Double {
        return extract_fractional(field, v, len);
    }
    let ty = DataType::BigInt;
    match v.ty {
        DataType::Date => Ok(unary(v, len, ty, |d: i32| field.of_date(d))),
        DataType::Timestamp => Ok(unary(v, len, ty, |t: i64| field.of_timestamp(t))),
        DataType::Time => {
            field.of_time(0)?;
            Ok(unary(v, len, ty, |t: i64| field.of_time(t).unwrap_or(0)))
        }
        DataType::Interval => {
            // validate once: the field either works for every interval or for none
            field.of_interval(Interval::default())?;
            try_unary(
                v,
                len,
                ty,
                |iv: Interval| field.of_interval(iv).ok(),
                |_| Error::internal("interval field"),
            )
        }
        ref t => Err(Error::internal(format!("date_part of {t}"))),
    }
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    if let ScalarFunction::Extract(field) = f.func {
        return extract(field, &args[0], len, &f.return_type);
    }
    let (part, v) = (&args[0], &args[1]);
    if part.constant {
        if !part.validity.is_valid(0) {
            return Ok(null_vector(&f.return_type, len, v.constant));
        }
        let field = DateField::parse(part.strings().get(0))?;
        if f.return_type == DataType::Double && !field.is_fractional() {
            // a part that was not a constant when the call was bound: DOUBLE
            let whole = extract(field, v, len, &DataType::BigInt)?;
            return Ok(unary(&whole, len, DataType::Double, |x: i64| x as f64));
        }
        return extract(field, v, len, &f.return_type);
    }
    let parts = StrSlot::new(part);
    let refs = [part, v];
    let field = |i: usize| DateField::parse(parts.get(i));
    let ty = DataType::Double;
    if v.ty == DataType::TimestampTz {
        let local = crate::timezone::to_local(v, len)?;
        let offsets = crate::timezone::offsets(v, len);
        let (t, l, o) = (
            Slot::<i64>::new(v),
            Slot::<i64>::new(&local),
            Slot::<i64>::new(&offsets),
        );
        return map_rows(&refs, len, ty, |i| {
            Ok(match field(i)? {
                DateField::Epoch => DateField::Epoch.fractional_of_timestamp(t.get(i)),
                f if f.is_zone() => f.of_offset(o.get(i)) as f64,
                f => f.fractional_of_timestamp(l.get(i)),
            })
        });
    }
    match v.ty {
        DataType::Date => {
            let d = Slot::<i32>::new(v);
            map_rows(&refs, len, ty, |i| {
                let micros = (d.get(i) as i64).saturating_mul(MICROS_PER_DAY);
                Ok(field(i)?.fractional_of_timestamp(micros))
            })
        }
        DataType::Timestamp => {
            let t = Slot::<i64>::new(v);
            map_rows(&refs, len, ty, |i| {
                Ok(field(i)?.fractional_of_timestamp(t.get(i)))
            })
        }
        ref t if is_timestamp_ns(t) => {
            let t = Slot::<i64>::new(v);
            map_rows(&refs, len, ty, |i| {
                Ok(match field(i)? {
                    f if f.is_fractional() => f.fractional_of_timestamp(floor_to_micros(t.get(i))),
                    f => field_of_timestamp_ns(f, t.get(i)) as f64,
                })
            })
        }
        DataType::Time => {
            let t = Slot::<i64>::new(v);
            map_rows(&refs, len, ty, |i| {
                let f = field(i)?;
                f.of_time(0)?;
                Ok(f.fractional_of_timestamp(t.get(i)))
            })
        }
        DataType::TimeTz => {
            let t = Slot::<i64>::new(v);
            map_rows(&refs, len, ty, |i| {
                let (local, offset) = time_tz::decode(t.get(i));
                Ok(match field(i)? {
                    f if f.is_zone() => f.of_offset(offset as i64) as f64,
                    f => {
                        f.of_time(0)?;
                        f.fractional_of_timestamp(local)
                    }
                })
            })
        }
        _ => {
            let iv = Slot::<Interval>::new(v);
            map_rows(&refs, len, ty, |i| {
                field(i)?.fractional_of_interval(iv.get(i))
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::scalar::resolve_scalar;
    use crate::scalar::test_util::text as s;
    use crate::scalar::test_util::{eval, flat};
    use stride_common::temporal::{parse_date, parse_timestamp};
    use stride_common::{DataType, ErrorKind, Interval, ScalarValue::*};

    #[test]
    fn parts() {
        // date_part as bound without its part known (no specialize): DOUBLE
        let d = Date(parse_date("1992-03-07").unwrap());
        let t = Timestamp(parse_timestamp("1992-03-07 13:45:30.5").unwrap());
        assert_eq!(
            eval("date_part", &[s("year"), d.clone()]).unwrap(),
            Double(1992.0)
        );
        assert_eq!(
            eval("datepart", &[s("month"), d.clone()]).unwrap(),
            Double(3.0)
        );
        assert_eq!(
            eval("date_part", &[s("dow"), d.clone()]).unwrap(),
            Double(6.0)
        );
        assert_eq!(
            eval("date_part", &[s("hour"), t.clone()]).unwrap(),
            Double(13.0)
        );
        assert_eq!(
            eval("date_part", &[s("second"), t.clone()]).unwrap(),
            Double(30.0)
        );
        assert_eq!(
            eval("date_part", &[s("epoch"), t.clone()]).unwrap(),
            Double(699_975_930.5)
        );
        assert_eq!(
            eval("epoch", std::slice::from_ref(&t)).unwrap(),
            Double(699_975_930.5)
        );
        let frac = Interval(Interval::new(0, 0, 2_066_343_400));
        assert_eq!(eval("epoch", &[frac]).unwrap(), Double(2066.3434));
        assert_eq!(
            eval("year", std::slice::from_ref(&t)).unwrap(),
            BigInt(1992)
        );
        assert_eq!(
            eval("dayofyear", std::slice::from_ref(&d)).unwrap(),
            BigInt(67)
        );
        assert_eq!(
            eval("quarter", std::slice::from_ref(&d)).unwrap(),
            BigInt(1)
        );
        assert_eq!(eval("minute", &[t]).unwrap(), BigInt(45));
        let iv = Interval(Interval::new(14, 2, 0));
        assert_eq!(
            eval("date_part", &[s("month"), iv.clone()]).unwrap(),
            Double(2.0)
        );
        assert_eq!(eval("year", std::slice::from_ref(&iv)).unwrap(), BigInt(1));
        assert!(eval("date_part", &[s("dow"), iv]).is_err());
        assert_eq!(eval("date_part", &[s("year"), Null]).unwrap(), Null);
        assert_eq!(eval("date_part", &[Null, d.clone()]).unwrap(), Null);
        let e = eval("date_part", &[s("fortnight"), d]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Conversion);
        assert!(resolve_scalar("year", &[DataType::Integer]).is_err());
    }

    #[test]
    fn part_column() {
        let f = resolve_scalar("date_part", &[DataType::Varchar, DataType::Date]).unwrap();
        let parts = flat(&DataType::Varchar, &[s("year"), s("month"), Null]);
        let d = stride_common::Vector::constant(
            &Date(parse_date("1992-03-07").unwrap()),
            &DataType::Date,
        )
        .unwrap();
        let r = crate::evaluate_scalar(&f, &[parts, d], 3).unwrap();
        let got: Vec<_> = (0..3).map(|i| r.get(i)).collect();
        // a column of part names gives DOUBLE, as in DuckDB
        assert_eq!(f.return_type, DataType::Double);
        assert_eq!(got, vec![Double(1992.0), Double(3.0), Null]);
    }
}
