//! Functions of a float's representation: `signbit(x)` (whether the sign bit is
//! set, true for -0.0) and `nextafter(x, y)` (the next representable value after
//! `x` towards `y`), for REAL and DOUBLE in their own type.

use crate::kernels::{binary, unary};
use crate::scalar::signature::bind;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, Vector};

/// REAL stays REAL; every other numeric (and untyped NULL) is a DOUBLE.
fn float_type(t: &DataType) -> Option<DataType> {
    match t {
        DataType::Real => Some(DataType::Real),
        DataType::Null | DataType::Varchar => Some(DataType::Double),
        t if t.is_numeric() => Some(DataType::Double),
        _ => None,
    }
}

pub(crate) fn resolve_signbit(args: &[DataType]) -> Option<BoundFunction> {
    let [t] = args else { return None };
    bind(
        ScalarFunction::SignBit,
        vec![float_type(t)?],
        DataType::Boolean,
    )
}

pub(crate) fn resolve_nextafter(args: &[DataType]) -> Option<BoundFunction> {
    let [a, b] = args else { return None };
    let t = match (float_type(a)?, float_type(b)?) {
        (DataType::Real, DataType::Real) => DataType::Real,
        _ => DataType::Double,
    };
    bind(ScalarFunction::NextAfter, vec![t.clone(), t.clone()], t)
}

macro_rules! next_after {
    ($name:ident, $F:ty, $bits:ty) => {
        fn $name(x: $F, y: $F) -> $F {
            if x.is_nan() || y.is_nan() {
                return <$F>::NAN;
            }
            if x == y {
                return y;
            }
            if x == 0.0 {
                let tiny = <$F>::from_bits(1);
                return if y > 0.0 { tiny } else { -tiny };
            }
            let b = x.to_bits();
            let up = (y > x) == (x > 0.0);
            <$F>::from_bits(if up { b + 1 } else { b - 1 })
        }
    };
}

next_after!(next_after_f64, f64, u64);
next_after!(next_after_f32, f32, u32);

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let real = f.arg_types[0] == DataType::Real;
    let ty = f.return_type.clone();
    match (f.func, real) {
        (ScalarFunction::SignBit, true) => Ok(unary(&args[0], len, ty, f32::is_sign_negative)),
        (ScalarFunction::SignBit, false) => Ok(unary(&args[0], len, ty, f64::is_sign_negative)),
        (ScalarFunction::NextAfter, true) => {
            Ok(binary(&args[0], &args[1], len, ty, next_after_f32))
        }
        (ScalarFunction::NextAfter, false) => {
            Ok(binary(&args[0], &args[1], len, ty, next_after_f64))
        }
        (other, _) => Err(Error::internal(format!(
            "{other:?} is not a float bit function"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::ScalarValue::*;

    #[test]
    fn bits() {
        assert_eq!(eval("signbit", &[Double(-0.0)]).unwrap(), Boolean(true));
        assert_eq!(eval("signbit", &[Integer(1)]).unwrap(), Boolean(false));
        assert_eq!(eval("signbit", &[Real(-1.0)]).unwrap(), Boolean(true));
        assert_eq!(
            eval("nextafter", &[Integer(1), Integer(2)]).unwrap(),
            Double(1.0000000000000002)
        );
        assert_eq!(
            eval("nextafter", &[Real(1.0), Real(2.0)]).unwrap(),
            Real(1.000_000_1)
        );
        assert_eq!(
            eval("nextafter", &[Double(1.0), Double(0.0)]).unwrap(),
            Double(0.9999999999999999)
        );
        assert_eq!(
            eval("nextafter", &[Double(0.0), Double(-1.0)]).unwrap(),
            Double(-5e-324)
        );
        assert_eq!(
            eval("nextafter", &[Double(-1.0), Double(-1.0)]).unwrap(),
            Double(-1.0)
        );
        assert_eq!(eval("signbit", &[Null]).unwrap(), Null);
    }
}
