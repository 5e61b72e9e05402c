//! DOUBLE functions: roots, powers, exponentials, logarithms, trigonometry
//! (`cot` and the hyperbolic functions too), `gamma`, `lgamma`, `even` (rounded
//! away from zero to the next even integer) and the NaN/infinity tests. Arguments of any numeric type are cast to DOUBLE. As in
//! DuckDB, results are what IEEE 754 arithmetic gives, never errors: inputs outside
//! a function's domain give NaN (`sqrt(-1)`, `asin(2)`), poles give an infinity
//! (`ln(0)` is -inf, `0 ^ -1` is inf) and results too large for a DOUBLE are inf.
//! The arithmetic operators stay strict (division by zero and overflow are errors).

use crate::kernels::{binary, unary};
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
    resolve_cot => Cot,
    resolve_sinh => Sinh,
    resolve_cosh => Cosh,
    resolve_tanh => Tanh,
    resolve_asinh => Asinh,
    resolve_acosh => Acosh,
    resolve_atanh => Atanh,
    resolve_gamma => Gamma,
    resolve_lgamma => Lgamma,
    resolve_even => Even,
);

/// `even(x)`: `x` rounded away from zero to an even integer (DuckDB).
fn even(x: f64) -> f64 {
    let mut v = if x >= 0.0 { x.ceil() } else { -(-x).ceil() };
    if (v / 2.0).floor() * 2.0 != v {
        v += if x >= 0.0 { 1.0 } else { -1.0 };
    }
    v
}

pub(crate) fn resolve_power(args: &[DataType]) -> Option<BoundFunction> {
    binary_double(ScalarFunction::Power, args)
}

/// `fmod(x, y)`: the remainder with the sign of `y` (`x - y * floor(x / y)`), as
/// a DOUBLE; `fmod(x, 0)` is NaN.
pub(crate) fn resolve_fmod(args: &[DataType]) -> Option<BoundFunction> {
    binary_double(ScalarFunction::Fmod, args)
}

/// `fdiv(x, y)`: `floor(x / y)` in DOUBLE arithmetic (DuckDB's macro), so
/// `fdiv(7, 0)` is inf.
pub(crate) fn resolve_fdiv(args: &[DataType]) -> Option<BoundFunction> {
    binary_double(ScalarFunction::Fdiv, args)
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
    temporal_test_fn(ScalarFunction::IsInf, args).or_else(|| test_fn(ScalarFunction::IsInf, args))
}

pub(crate) fn resolve_isfinite(args: &[DataType]) -> Option<BoundFunction> {
    temporal_test_fn(ScalarFunction::IsFinite, args)
        .or_else(|| test_fn(ScalarFunction::IsFinite, args))
}

/// `isinf` and `isfinite` of a DATE, TIMESTAMP or TIMESTAMPTZ: whether it is
/// 'infinity' or '-infinity'.
fn temporal_test_fn(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    match args {
        [t @ (DataType::Date | DataType::Timestamp | DataType::TimestampTz)] => {
            fixed(func, args, &[t.clone()], DataType::Boolean)
        }
        _ => None,
    }
}

/// isinf / isfinite over dates and timestamps.
fn temporal_test(func: ScalarFunction, v: &Vector, len: usize) -> Vector {
    use stride_common::temporal::{is_finite_date, is_finite_timestamp};
    let finite = func == ScalarFunction::IsFinite;
    match v.ty {
        DataType::Date => unary(v, len, DataType::Boolean, move |d: i32| {
            is_finite_date(d) == finite
        }),
        _ => unary(v, len, DataType::Boolean, move |t: i64| {
            is_finite_timestamp(t) == finite
        }),
    }
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    use ScalarFunction as F;
    let ty = DataType::Double;
    let Some(v) = args.first() else {
        // pi(): the only function without arguments
        return Vector::constant(&ScalarValue::Double(std::f64::consts::PI), &ty);
    };
    if matches!(func, F::IsInf | F::IsFinite) && v.ty != DataType::Double {
        return Ok(temporal_test(func, v, len));
    }
    match func {
        F::Sqrt => Ok(unary(v, len, ty, f64::sqrt)),
        F::Cbrt => Ok(unary(v, len, ty, f64::cbrt)),
        F::Exp => Ok(unary(v, len, ty, f64::exp)),
        F::Ln => Ok(unary(v, len, ty, f64::ln)),
        F::Log10 => Ok(unary(v, len, ty, f64::log10)),
        F::Log2 => Ok(unary(v, len, ty, f64::log2)),
        F::Log => Ok(binary(v, &args[1], len, ty, |b: f64, x: f64| {
            x.ln() / b.ln()
        })),
        F::Power => Ok(binary(v, &args[1], len, ty, f64::powf)),
        F::Atan2 => Ok(binary(v, &args[1], len, ty, f64::atan2)),
        // The remainder with the divisor's sign (DuckDB's), from the exact one: x -
        // y * floor(x / y) lost it all when x / y is large (fmod(1e20, 3) was 0).
        F::Fmod => Ok(binary(v, &args[1], len, ty, |x: f64, y: f64| {
            let r = x % y;
            if r != 0.0 && (r < 0.0) != (y < 0.0) {
                r + y
            } else {
                r + 0.0 // (-0.0 as 0.0)
            }
        })),
        F::Fdiv => Ok(binary(v, &args[1], len, ty, |x: f64, y: f64| {
            (x / y).floor()
        })),
        F::Degrees => Ok(unary(v, len, ty, f64::to_degrees)),
        F::Radians => Ok(unary(v, len, ty, f64::to_radians)),
        F::Sin => Ok(unary(v, len, ty, f64::sin)),
        F::Cos => Ok(unary(v, len, ty, f64::cos)),
        F::Tan => Ok(unary(v, len, ty, f64::tan)),
        F::Atan => Ok(unary(v, len, ty, f64::atan)),
        F::Asin => Ok(unary(v, len, ty, f64::asin)),
        F::Acos => Ok(unary(v, len, ty, f64::acos)),
        F::Cot => Ok(unary(v, len, ty, |x: f64| 1.0 / x.tan())),
        F::Sinh => Ok(unary(v, len, ty, f64::sinh)),
        F::Cosh => Ok(unary(v, len, ty, f64::cosh)),
        F::Tanh => Ok(unary(v, len, ty, f64::tanh)),
        F::Asinh => Ok(unary(v, len, ty, f64::asinh)),
        F::Acosh => Ok(unary(v, len, ty, f64::acosh)),
        F::Atanh => Ok(unary(v, len, ty, f64::atanh)),
        F::Gamma => Ok(unary(v, len, ty, libm::tgamma)),
        F::Lgamma => Ok(unary(v, len, ty, libm::lgamma)),
        F::Even => Ok(unary(v, len, ty, even)),
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
    use stride_common::ScalarValue::*;

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
    fn outside_the_domain_ieee_values() {
        // (`call`: NaN is not equal to itself, so the two paths cannot be compared.)
        let d = |name: &str, args: &[stride_common::ScalarValue]| match call(name, args).unwrap() {
            Double(x) => x,
            other => panic!("{other:?}"),
        };
        assert!(d("sqrt", &[Integer(-1)]).is_nan());
        assert_eq!(d("ln", &[Integer(0)]), f64::NEG_INFINITY);
        assert!(d("ln", &[Double(-1.0)]).is_nan());
        assert_eq!(d("log10", &[Integer(0)]), f64::NEG_INFINITY);
        assert_eq!(d("log", &[Integer(2), Integer(0)]), f64::NEG_INFINITY);
        assert_eq!(d("log", &[Integer(1), Integer(8)]), f64::INFINITY);
        assert_eq!(d("power", &[Integer(0), Integer(-1)]), f64::INFINITY);
        assert!(d("power", &[Integer(-8), Double(0.5)]).is_nan());
        assert_eq!(d("power", &[Double(10.0), Double(400.0)]), f64::INFINITY);
        assert_eq!(d("exp", &[Integer(1000)]), f64::INFINITY);
        assert!(d("asin", &[Integer(2)]).is_nan());
        assert_eq!(d("gamma", &[Integer(0)]), f64::INFINITY);
        assert!(d("gamma", &[Integer(-1)]).is_nan());
        assert_eq!(d("lgamma", &[Integer(-1)]), f64::INFINITY);
        assert_eq!(d("cot", &[Integer(0)]), f64::INFINITY);
        assert!(d("acosh", &[Double(0.5)]).is_nan());
        assert_eq!(d("atanh", &[Integer(1)]), f64::INFINITY);
    }

    #[test]
    fn more_values() {
        assert_eq!(eval("gamma", &[Integer(5)]).unwrap(), Double(24.0));
        assert_eq!(eval("sinh", &[Integer(0)]).unwrap(), Double(0.0));
        assert_eq!(eval("cosh", &[Integer(0)]).unwrap(), Double(1.0));
        assert_eq!(eval("tanh", &[Integer(0)]).unwrap(), Double(0.0));
        let even = |x: f64| eval("even", &[Double(x)]).unwrap();
        assert_eq!(even(1.5), Double(2.0));
        assert_eq!(even(2.5), Double(4.0));
        assert_eq!(even(-1.5), Double(-2.0));
        assert_eq!(even(3.0), Double(4.0));
        assert_eq!(even(-0.5), Double(-2.0));
        assert_eq!(even(0.0), Double(0.0));
    }
}
