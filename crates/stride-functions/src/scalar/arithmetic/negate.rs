//! Unary minus over integers (checked: -(-128) does not fit a TINYINT), floats,
//! decimals (same type) and intervals (each field negated).

use crate::kernels::{try_unary, unary, with_integer, SqlInt};
use crate::scalar::signature::bind;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Interval, Result, Vector};

pub(super) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    let [t] = args else { return None };
    let t = match t {
        DataType::Null => DataType::Integer,
        DataType::Varchar => DataType::Double,
        t if t.is_numeric() || matches!(t, DataType::Interval | DataType::UHugeInt) => t.clone(),
        _ => return None,
    };
    bind(ScalarFunction::Negate, vec![t.clone()], t)
}

pub(super) fn evaluate(f: &BoundFunction, a: &Vector, len: usize) -> Result<Vector> {
    let ty = f.return_type.clone();
    match &ty {
        DataType::Real => Ok(unary(a, len, ty, |x: f32| -x)),
        DataType::Double => Ok(unary(a, len, ty, |x: f64| -x)),
        DataType::Interval => try_unary(a, len, ty, negate_interval, |_| {
            Error::out_of_range("Interval value out of range")
        }),
        DataType::Decimal(..) => with_integer!(ty.physical(), T => try_unary(a, len, ty.clone(),
            |x: T| x.checked_neg(), |_| Error::internal("decimal negation overflow")),
            _ => Err(Error::internal("decimal storage"))),
        // only 0 has an unsigned negation
        DataType::UHugeInt => try_unary(
            a,
            len,
            ty.clone(),
            |x: i128| (stride_common::flip128::from_physical(x) == 0).then_some(x),
            |x: i128| {
                Error::out_of_range(format!(
                    "Overflow in negation of UINT128 ({})",
                    stride_common::flip128::from_physical(x)
                ))
            },
        ),
        t if t.is_unsigned() => with_integer!(t.physical(), T => try_unary(a, len, ty.clone(),
            |x: T| (x == T::ZERO).then_some(x), |x: T| negation_overflow(t, x)),
            _ => Err(Error::internal(format!("negation of {t}")))),
        t => with_integer!(t.physical(), T => try_unary(a, len, ty.clone(), |x: T| x.checked_neg(),
            |x: T| negation_overflow(t, x)), _ => Err(Error::internal(format!("negation of {t}")))),
    }
}

fn negation_overflow<T: SqlInt>(t: &DataType, x: T) -> Error {
    let name = t.physical_integer_name().unwrap_or(T::NAME);
    Error::out_of_range(format!("Overflow in negation of {name} ({x})"))
}

pub(crate) fn negate_interval(iv: Interval) -> Option<Interval> {
    Some(Interval::new(
        iv.months.checked_neg()?,
        iv.days.checked_neg()?,
        iv.micros.checked_neg()?,
    ))
}
