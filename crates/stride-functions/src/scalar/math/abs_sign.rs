//! `abs(x)` (same type; checked for integers, where abs(-128::TINYINT) overflows) and
//! `sign(x)` (-1, 0 or 1 as TINYINT, as in DuckDB). A UHUGEINT is its own absolute
//! value.

use super::numeric_arg;
use crate::kernels::{try_unary, unary, with_integer, SqlInt};
use crate::scalar::signature::bind;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, Vector};

/// [`numeric_arg`], or UHUGEINT.
fn arg(t: &DataType) -> Option<DataType> {
    match t {
        DataType::UHugeInt => Some(DataType::UHugeInt),
        t => numeric_arg(t),
    }
}

pub(crate) fn resolve_abs(args: &[DataType]) -> Option<BoundFunction> {
    let [t] = args else { return None };
    let t = arg(t)?;
    bind(ScalarFunction::Abs, vec![t.clone()], t)
}

pub(crate) fn resolve_sign(args: &[DataType]) -> Option<BoundFunction> {
    let [t] = args else { return None };
    bind(ScalarFunction::Sign, vec![arg(t)?], DataType::TinyInt)
}

fn abs_int<T: SqlInt>(v: &Vector, len: usize, ty: DataType) -> Result<Vector> {
    try_unary(
        v,
        len,
        ty,
        |x: T| {
            if x < T::ZERO {
                x.checked_neg()
            } else {
                Some(x)
            }
        },
        |x| Error::out_of_range(format!("Overflow in abs of {} ({x})", T::NAME)),
    )
}

fn sign_int<T: SqlInt>(v: &Vector, len: usize) -> Vector {
    unary(v, len, DataType::TinyInt, |x: T| match x.cmp(&T::ZERO) {
        std::cmp::Ordering::Less => -1i8,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    })
}

fn sign_float(x: f64) -> i8 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let v = &args[0];
    let arg = &f.arg_types[0];
    if f.func == ScalarFunction::Sign {
        return Ok(match arg {
            DataType::Real => unary(v, len, DataType::TinyInt, |x: f32| sign_float(x as f64)),
            DataType::Double => unary(v, len, DataType::TinyInt, sign_float),
            DataType::UHugeInt => unary(v, len, DataType::TinyInt, |x: i128| {
                (stride_common::flip128::from_physical(x) != 0) as i8
            }),
            t => with_integer!(t.physical(), T => sign_int::<T>(v, len),
                _ => return Err(Error::internal(format!("sign of {t}")))),
        });
    }
    let ty = f.return_type.clone();
    match arg {
        DataType::Real => Ok(unary(v, len, ty, f32::abs)),
        DataType::Double => Ok(unary(v, len, ty, f64::abs)),
        DataType::UHugeInt => Ok(v.clone()),
        t => with_integer!(t.physical(), T => abs_int::<T>(v, len, ty),
            _ => Err(Error::internal(format!("abs of {t}")))),
    }
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::ScalarValue::*;

    #[test]
    fn abs_and_sign() {
        assert_eq!(eval("abs", &[Integer(-3)]).unwrap(), Integer(3));
        assert_eq!(eval("abs", &[Double(-1.5)]).unwrap(), Double(1.5));
        assert_eq!(
            eval("abs", &[Decimal(-150, 5, 2)]).unwrap(),
            Decimal(150, 5, 2)
        );
        assert_eq!(eval("abs", &[Null]).unwrap(), Null);
        assert!(eval("abs", &[TinyInt(i8::MIN)]).is_err());
        assert_eq!(eval("sign", &[BigInt(-30)]).unwrap(), TinyInt(-1));
        assert_eq!(eval("sign", &[Double(0.0)]).unwrap(), TinyInt(0));
        assert_eq!(eval("sign", &[Decimal(5, 5, 2)]).unwrap(), TinyInt(1));
        assert!(eval("abs", &[Boolean(true)]).is_err());
    }
}
