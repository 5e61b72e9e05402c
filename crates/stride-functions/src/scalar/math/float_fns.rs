//! DOUBLE functions: roots, powers, exponentials, logarithms, trigonometry and the
//! NaN/infinity tests. Arguments of any numeric type are cast to DOUBLE. Inputs
//! outside a function's domain (sqrt(-1), ln(0), asin(2), 0 ^ -1) and finite inputs
//! whose result overflows are Out of Range errors, with PostgreSQL's messages.

use crate::kernels::{try_binary, try_unary, unary};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, ScalarValue, Vector};

fn unary_double(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    fixed(func, args, &[DataType::Double], DataType::Double)
}

fn binary_double(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        func,
        args,
        &[DataType::Double, DataType::Double],
        DataType::Double,
    )
}

macro_rules! unary_resolvers {
    ($($name:ident => $func:ident),* $(,)?) => {$(
        pub(crate) fn $name(args: &[DataType]) -> Option<BoundFunction> {
            unary_double(ScalarFunction::$func, args)
        }
    )*};
}

unary_resolvers!(
    resolve_sqrt => Sqrt,
    resolve_cbrt => Cbrt,
    resolve_exp => Exp,
    resolve_ln => Ln,
    resolve_log10 => Log10,
    resolve_log2 => Log2,
    resolve_degrees => Degrees,
    resolve_radians => Radians,
    resolve_sin => Sin,
    resolve_cos => Cos,
    resolve_tan => Tan,
    resolve_asin => Asin,
    resolve_acos => Acos,
    resolve_atan => Atan,
);

pub(crate) fn resolve_power(args: &[DataType]) -> Option<BoundFunction> {
    binary_double(ScalarFunction::Power, args)
}

pub(crate) fn resolve_atan2(args: &[DataType]) -> Option<BoundFunction> {
    binary_double(ScalarFunction::Atan2, args)
}

/// `log(x)` is the base-10 logarithm; `log(b, x)` the base-b one.
pub(crate) fn resolve_log(args: &[DataType]) -> Option<BoundFunction> {
    match args.len() {
        1 => unary_double(ScalarFunction::Log10, args),
        _ => binary_double(ScalarFunction::Log, args),
    }
}

pub(crate) fn resolve_pi(args: &[DataType]) -> Option<BoundFunction> {
    fixed(ScalarFunction::Pi, args, &[], DataType::Double)
}

fn test_fn(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    fixed(func, args, &[DataType::Double], DataType::Boolean)
}

pub(crate) fn resolve_isnan(args: &[DataType]) -> Option<BoundFunction> {
    test_fn(ScalarFunction::IsNan, args)
}

pub(crate) fn resolve_isinf(args: &[DataType]) -> Option<BoundFunction> {
    test_fn(ScalarFunction::IsInf, args)
}

pub(crate) fn resolve_isfinite(args: &[DataType]) -> Option<BoundFunction> {
    test_fn(ScalarFunction::IsFinite, args)
}

fn overflow() -> Error {
    Error::out_of_range("value out of range: overflow")
}

fn log_domain(x: f64) -> Error {
    if x == 0.0 {
        Error::out_of_range("cannot take logarithm of zero")
    } else {
        Error::out_of_range("cannot take logarithm of a negative number")
    }
}

/// A logarithm defined for x > 0 (NaN passes through).
fn checked_log(x: f64, f: fn(f64) -> f64) -> Option<f64> {
    (x > 0.0 || x.is_nan()).then(|| f(x))
}

fn power(x: f64, y: f64) -> Option<f64> {
    if x == 0.0 && y < 0.0 {
        return None;
    }
    if x < 0.0 && y.is_finite() && y.fract() != 0.0 {
        return None;
    }
    let r = x.powf(y);
    (r.is_finite() || !x.is_finite() || !y.is_finite()).then_some(r)
}

fn power_error(x: f64, y: f64) -> Error {
    if x == 0.0 && y < 0.0 {
        Error::out_of_range("zero raised to a negative power is undefined")
    } else if x < 0.0 && y.fract() != 0.0 {
        Error::out_of_range(
            "a negative number raised to a non-integer power yields a complex result",
        )
    } else {
        overflow()
    }
}

fn unit_domain(x: f64, f: fn(f64) -> f64) -> Option<f64> {
    (x.is_nan() || (-1.0..=1.0).contains(&x)).then(|| f(x))
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    use ScalarFunction as F;
    let ty = DataType::Double;
    let Some(v) = args.first() else {
        // pi(): the only function without arguments
        return Vector::constant(&ScalarValue::Double(std::f64::consts::PI), &ty);
    };
    match func {
        F::Sqrt => try_unary(
            v,
            len,
            ty,
            |x: f64| (x >= 0.0 || x.is_nan()).then(|| x.sqrt()),
            |_| Error::out_of_range("cannot take square root of a negative number"),
        ),
        F::Cbrt => Ok(unary(v, len, ty, f64::cbrt)),
        F::Exp => try_unary(
            v,
            len,
            ty,
            |x: f64| {
                let r = x.exp();
                (r.is_finite() || !x.is_finite()).then_some(r)
            },
            |_| overflow(),
        ),
        F::Ln => try_unary(v, len, ty, |x: f64| checked_log(x, f64::ln), log_domain),
        F::Log10 => try_unary(v, len, ty, |x: f64| checked_log(x, f64::log10), log_domain),
        F::Log2 => try_unary(v, len, ty, |x: f64| checked_log(x, f64::log2), log_domain),
        F::Log => try_binary(
            v,
            &args[1],
            len,
            ty,
            |b: f64, x: f64| {
                let r = checked_log(x, f64::ln)? / checked_log(b, f64::ln)?;
                r.is_finite().then_some(r)
            },
            |b, x| {
                if b <= 0.0 {
                    log_domain(b)
                } else if x <= 0.0 {
                    log_domain(x)
                } else {
                    Error::division_by_zero()
                }
            },
        ),
        F::Power => try_binary(v, &args[1], len, ty, power, power_error),
        F::Atan2 => Ok(crate::kernels::binary(v, &args[1], len, ty, f64::atan2)),
        F::Degrees => Ok(unary(v, len, ty, f64::to_degrees)),
        F::Radians => Ok(unary(v, len, ty, f64::to_radians)),
        F::Sin => Ok(unary(v, len, ty, f64::sin)),
        F::Cos => Ok(unary(v, len, ty, f64::cos)),
        F::Tan => Ok(unary(v, len, ty, f64::tan)),
        F::Atan => Ok(unary(v, len, ty, f64::atan)),
        F::Asin | F::Acos => {
            let f = if func == F::Asin {
                f64::asin
            } else {
                f64::acos
            };
            try_unary(
                v,
                len,
                ty,
                |x: f64| unit_domain(x, f),
                |_| Error::out_of_range("input is out of range"),
            )
        }
        F::IsNan => Ok(unary(v, len, DataType::Boolean, f64::is_nan)),
        F::IsInf => Ok(unary(v, len, DataType::Boolean, f64::is_infinite)),
        F::IsFinite => Ok(unary(v, len, DataType::Boolean, f64::is_finite)),
        other => Err(Error::internal(format!(
            "{other:?} is not a float function"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::{call, eval};
    use stride_common::{ErrorKind, ScalarValue::*};

    #[test]
    fn values() {
        assert_eq!(eval("sqrt", &[Integer(16)]).unwrap(), Double(4.0));
        assert_eq!(eval("sqrt", &[Decimal(225, 5, 2)]).unwrap(), Double(1.5));
        assert_eq!(eval("cbrt", &[Double(27.0)]).unwrap(), Double(3.0));
        assert_eq!(
            eval("power", &[Integer(2), Integer(10)]).unwrap(),
            Double(1024.0)
        );
        assert_eq!(
            eval("pow", &[Double(-8.0), Double(2.0)]).unwrap(),
            Double(64.0)
        );
        assert_eq!(eval("exp", &[Integer(0)]).unwrap(), Double(1.0));
        assert_eq!(eval("ln", &[Double(1.0)]).unwrap(), Double(0.0));
        assert_eq!(eval("log10", &[Integer(1000)]).unwrap(), Double(3.0));
        assert_eq!(eval("log", &[Integer(100)]).unwrap(), Double(2.0));
        assert_eq!(eval("log", &[Integer(2), Integer(8)]).unwrap(), Double(3.0));
        assert_eq!(eval("log2", &[Integer(8)]).unwrap(), Double(3.0));
        assert_eq!(call("pi", &[]).unwrap(), Double(std::f64::consts::PI));
        assert_eq!(
            eval("degrees", &[Double(std::f64::consts::PI)]).unwrap(),
            Double(180.0)
        );
        assert_eq!(
            eval("atan2", &[Double(1.0), Double(1.0)]).unwrap(),
            Double(std::f64::consts::FRAC_PI_4)
        );
        assert_eq!(eval("isnan", &[Double(f64::NAN)]).unwrap(), Boolean(true));
        assert_eq!(eval("isinf", &[Double(1.0)]).unwrap(), Boolean(false));
        assert_eq!(eval("sqrt", &[Null]).unwrap(), Null);
    }

    #[test]
    fn domain_errors() {
        let kind =
            |name: &str, args: &[stride_common::ScalarValue]| eval(name, args).unwrap_err().kind;
        assert_eq!(kind("sqrt", &[Integer(-1)]), ErrorKind::OutOfRange);
        assert_eq!(kind("ln", &[Integer(0)]), ErrorKind::OutOfRange);
        assert_eq!(kind("ln", &[Double(-1.0)]), ErrorKind::OutOfRange);
        assert_eq!(kind("log10", &[Integer(-5)]), ErrorKind::OutOfRange);
        assert_eq!(
            kind("power", &[Integer(0), Integer(-1)]),
            ErrorKind::OutOfRange
        );
        assert_eq!(
            kind("power", &[Integer(-8), Double(0.5)]),
            ErrorKind::OutOfRange
        );
        assert_eq!(
            kind("power", &[Double(10.0), Double(400.0)]),
            ErrorKind::OutOfRange
        );
        assert_eq!(kind("exp", &[Integer(1000)]), ErrorKind::OutOfRange);
        assert_eq!(kind("asin", &[Integer(2)]), ErrorKind::OutOfRange);
        assert_eq!(
            kind("log", &[Integer(1), Integer(8)]),
            ErrorKind::OutOfRange
        );
        assert_eq!(
            eval("sqrt", &[Integer(-1)]).unwrap_err().message,
            "cannot take square root of a negative number"
        );
    }
}
