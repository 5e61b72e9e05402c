//! `round(x[, n])`, `floor(x)`, `ceil(x)` and `trunc(x[, n])`.
//!
//! Integers are already whole: the one-argument forms are the identity, and a
//! negative `n` rounds to tens, hundreds, ... (checked for overflow). DECIMAL(p, s)
//! stays exact: the one-argument forms return DECIMAL(p, 0) (p digits always hold
//! the result, since dropping s >= 1 fraction digits frees room for a carry), the
//! two-argument forms DECIMAL(p, s) with the dropped digits zeroed, or DECIMAL(p, k)
//! when the binder knows the constant k (`round(d, 1)`: see the binder's
//! `decimal_rounding_scale`), the same value at the smaller scale. Floats keep
//! their type; `round` rounds half away from zero (DuckDB). `round_even(x, n)`
//! (`roundbankers`) rounds half to even, in every type.

use super::numeric_arg;
use crate::cast::decimal::{div_round, pow10};
use crate::kernels::{binary, try_binary, try_unary, unary, with_integer, SqlFloat, SqlInt};
use crate::scalar::signature::{bind, is_integer_arg};
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, Vector};

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Round,
    Floor,
    Ceil,
    Trunc,
    /// half to even (banker's rounding)
    RoundEven,
}

fn mode(func: ScalarFunction) -> Mode {
    match func {
        ScalarFunction::Floor => Mode::Floor,
        ScalarFunction::Ceil => Mode::Ceil,
        ScalarFunction::Trunc => Mode::Trunc,
        ScalarFunction::RoundEven => Mode::RoundEven,
        _ => Mode::Round,
    }
}

fn resolve(func: ScalarFunction, args: &[DataType], allow_digits: bool) -> Option<BoundFunction> {
    let t = numeric_arg(args.first()?)?;
    match args {
        [_] => {
            let ret = match t {
                DataType::Decimal(p, s) if s > 0 => DataType::Decimal(p, 0),
                ref t => t.clone(),
            };
            bind(func, vec![t], ret)
        }
        [_, n] if allow_digits && is_integer_arg(n) => {
            bind(func, vec![t.clone(), DataType::Integer], t)
        }
        _ => None,
    }
}

pub(crate) fn resolve_round(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Round, args, true)
}

pub(crate) fn resolve_floor(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Floor, args, false)
}

pub(crate) fn resolve_ceil(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Ceil, args, false)
}

/// `round_even(x, n)`: the precision is required (DuckDB).
pub(crate) fn resolve_round_even(args: &[DataType]) -> Option<BoundFunction> {
    if args.len() != 2 {
        return None;
    }
    resolve(ScalarFunction::RoundEven, args, true)
}

pub(crate) fn resolve_trunc(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Trunc, args, true)
}

/// `v / f` rounded by `mode` (`f > 0`).
#[inline]
fn div_mode(v: i128, f: i128, mode: Mode) -> i128 {
    match mode {
        Mode::Round => div_round(v, f),
        Mode::Floor => v.div_euclid(f),
        Mode::Ceil => -(-v).div_euclid(f),
        Mode::Trunc => v / f,
        Mode::RoundEven => {
            let (q, r) = (v.div_euclid(f), v.rem_euclid(f));
            match (2 * r).cmp(&f) {
                std::cmp::Ordering::Less => q,
                std::cmp::Ordering::Greater => q + 1,
                std::cmp::Ordering::Equal => q + (q & 1),
            }
        }
    }
}

/// `v` (scale `s`) with all but `n` fraction digits rounded away, still at scale `s`.
#[inline]
fn round_digits(v: i128, s: u8, n: i32, mode: Mode) -> Option<i128> {
    let drop = s as i64 - n as i64;
    if drop <= 0 {
        return Some(v);
    }
    if drop > 38 {
        // every digit is dropped; only rounding modes that move away from zero can
        // leave something, and 10^38 already exceeds every storable value
        return Some(0);
    }
    let f = pow10(drop as u8);
    div_mode(v, f, mode).checked_mul(f)
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let m = mode(f.func);
    let ty = f.return_type.clone();
    let v = &args[0];
    match (&f.arg_types[0], args.get(1)) {
        (DataType::Real, None) => Ok(float_whole::<f32>(v, len, ty, m)),
        (DataType::Double, None) => Ok(float_whole::<f64>(v, len, ty, m)),
        (DataType::Real, Some(n)) => Ok(float_digits::<f32>(v, n, len, ty, m)),
        (DataType::Double, Some(n)) => Ok(float_digits::<f64>(v, n, len, ty, m)),
        (DataType::Decimal(_, s), None) => {
            let f = pow10(*s);
            with_integer!(v.ty.physical(), T => try_unary(v, len, ty,
                |x: T| T::from_i128(div_mode(x.to_i128(), f, m)),
                |_| Error::internal("rounded decimal grew")),
                _ => Err(Error::internal("decimal storage")))
        }
        (t, None) if t.is_integer() => Ok(v.clone()),
        (t, Some(n)) => {
            let s = match t {
                DataType::Decimal(_, s) => *s,
                _ => 0,
            };
            // A DECIMAL(p, 0) rounded to tens or more may carry into a digit more:
            // the binder gave DECIMAL(p + 1, 0), which may be stored wider.
            let widened;
            let v = match (t, &ty) {
                (DataType::Decimal(..), DataType::Decimal(rp, _))
                    if ty.physical() != v.ty.physical() =>
                {
                    widened = crate::cast::cast_vector(v, len, &DataType::Decimal(*rp, s), false)?;
                    &widened
                }
                _ => v,
            };
            // What the result's precision holds (a carry past DECIMAL(38) overflows).
            let limit = match &ty {
                DataType::Decimal(rp, _) => pow10(*rp).unsigned_abs(),
                _ => u128::MAX,
            };
            // The binder may give the result fewer fraction digits (a constant n).
            let shrink = match &ty {
                DataType::Decimal(_, rs) if *rs < s => pow10(s - rs),
                _ => 1,
            };
            with_integer!(v.ty.physical(), T => try_binary(v, n, len, ty.clone(),
                |x: T, n: i32| {
                    let r = round_digits(x.to_i128(), s, n, m)? / shrink;
                    T::from_i128(r).filter(|_| r.unsigned_abs() < limit)
                },
                |x, _| Error::out_of_range(format!("Overflow in rounding of {ty} ({x})"))),
                _ => Err(Error::internal("rounding storage")))
        }
        (t, None) => Err(Error::internal(format!("rounding {t}"))),
    }
}

fn float_whole<F: SqlFloat>(v: &Vector, len: usize, ty: DataType, m: Mode) -> Vector {
    let op = match m {
        Mode::Round => f64::round,
        Mode::Floor => f64::floor,
        Mode::Ceil => f64::ceil,
        Mode::Trunc => f64::trunc,
        Mode::RoundEven => f64::round_ties_even,
    };
    unary(v, len, ty, move |x: F| F::from_f64(op(x.to_f64())))
}

fn float_digits<F: SqlFloat>(v: &Vector, n: &Vector, len: usize, ty: DataType, m: Mode) -> Vector {
    binary(v, n, len, ty, move |x: F, n: i32| {
        let x = x.to_f64();
        // Rounded to more tens than any double has: zero (DuckDB).
        if n < -308 && x.is_finite() {
            return F::from_f64(0.0 * x.signum());
        }
        let r = match m {
            Mode::Trunc => {
                let scale = pow10_f64(n.abs());
                let up = n >= 0;
                let t = if up {
                    (x * scale).trunc()
                } else {
                    (x / scale).trunc()
                };
                if up {
                    t / scale
                } else {
                    t * scale
                }
            }
            Mode::RoundEven => round_float_digits(x, n, f64::round_ties_even),
            _ => round_float_digits(x, n, f64::round),
        };
        // huge n overflows the scaled value: the input is already that precise
        F::from_f64(if r.is_finite() { r } else { x })
    })
}

/// 10^n as the double nearest it (`powi` multiplies its error up: 10^300 came out as
/// 1.0000000000000006e300); infinity past 10^308.
fn pow10_f64(n: i32) -> f64 {
    static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        (0..=308)
            .map(|k| format!("1e{k}").parse().unwrap_or(f64::INFINITY))
            .collect()
    });
    table.get(n as usize).copied().unwrap_or(f64::INFINITY)
}

/// `x` rounded at `n` decimal digits, a tie going the way `ties` rounds it (half away
/// from zero for round, half to even for round_even). A scaled value that lands on a
/// tie only through the product's rounding (2.675 * 100 is 267.5 in doubles, though
/// 2.675 is stored a little below it) is rounded by the exact product's side, as
/// DuckDB does: round(2.675, 2) and round_even(2.675, 2) are 2.67.
fn round_float_digits(x: f64, n: i32, ties: fn(f64) -> f64) -> f64 {
    let up = n >= 0;
    let scale = pow10_f64(n.abs());
    let r = if up { x * scale } else { x / scale };
    let floor = r.floor();
    if r - floor != 0.5 {
        let k = r.round();
        return if up { k / scale } else { k * scale };
    }
    // the sign of the exact value minus the tie
    let err = if up {
        x.mul_add(scale, -r)
    } else {
        (-r).mul_add(scale, x)
    };
    let k = if err > 0.0 {
        floor + 1.0
    } else if err < 0.0 {
        floor
    } else {
        ties(r)
    };
    if up {
        k / scale
    } else {
        k * scale
    }
}

#[cfg(test)]
mod tests {
    use crate::scalar::resolve_scalar;
    use crate::scalar::test_util::eval;
    use stride_common::{DataType, ScalarValue::*};

    #[test]
    fn types() {
        let t = |name: &str, args: &[DataType]| resolve_scalar(name, args).unwrap().return_type;
        assert_eq!(
            t("round", &[DataType::Decimal(10, 3)]),
            DataType::Decimal(10, 0)
        );
        assert_eq!(
            t("round", &[DataType::Decimal(10, 3), DataType::Integer]),
            DataType::Decimal(10, 3)
        );
        assert_eq!(t("floor", &[DataType::Integer]), DataType::Integer);
        assert_eq!(t("ceiling", &[DataType::Double]), DataType::Double);
        assert_eq!(t("trunc", &[DataType::Real]), DataType::Real);
        assert!(resolve_scalar("floor", &[DataType::Double, DataType::Integer]).is_err());
    }

    #[test]
    fn decimals() {
        let d = |v, p, s| Decimal(v, p, s);
        assert_eq!(eval("round", &[d(12345, 10, 3)]).unwrap(), d(12, 10, 0));
        assert_eq!(eval("round", &[d(12500, 10, 3)]).unwrap(), d(13, 10, 0));
        assert_eq!(eval("round", &[d(-12500, 10, 3)]).unwrap(), d(-13, 10, 0));
        assert_eq!(eval("floor", &[d(-12100, 10, 3)]).unwrap(), d(-13, 10, 0));
        assert_eq!(eval("ceil", &[d(-12900, 10, 3)]).unwrap(), d(-12, 10, 0));
        assert_eq!(eval("ceil", &[d(12100, 10, 3)]).unwrap(), d(13, 10, 0));
        assert_eq!(eval("trunc", &[d(-12900, 10, 3)]).unwrap(), d(-12, 10, 0));
        assert_eq!(eval("ceil", &[d(99999, 5, 2)]).unwrap(), d(1000, 5, 0));
        assert_eq!(
            eval("round", &[d(12345, 10, 3), Integer(2)]).unwrap(),
            d(12350, 10, 3)
        );
        assert_eq!(
            eval("round", &[d(12345, 10, 3), Integer(5)]).unwrap(),
            d(12345, 10, 3)
        );
        assert_eq!(
            eval("round", &[d(12345, 10, 3), Integer(-1)]).unwrap(),
            d(10000, 10, 3)
        );
        assert_eq!(
            eval("round", &[d(12345, 10, 3), Integer(-50)]).unwrap(),
            d(0, 10, 3)
        );
        assert_eq!(
            eval("trunc", &[d(-12345, 10, 3), Integer(1)]).unwrap(),
            d(-12300, 10, 3)
        );
        assert_eq!(eval("round", &[d(1, 38, 38)]).unwrap(), d(0, 38, 0));
    }

    #[test]
    fn integers_and_floats() {
        assert_eq!(eval("round", &[Integer(17)]).unwrap(), Integer(17));
        assert_eq!(
            eval("round", &[Integer(1250), Integer(-2)]).unwrap(),
            Integer(1300)
        );
        assert_eq!(
            eval("round", &[Integer(-1250), Integer(-2)]).unwrap(),
            Integer(-1300)
        );
        assert_eq!(
            eval("round", &[Integer(17), Integer(1)]).unwrap(),
            Integer(17)
        );
        assert!(eval("round", &[TinyInt(127), Integer(-1)]).is_err());
        assert_eq!(eval("round", &[Double(2.5)]).unwrap(), Double(3.0));
        assert_eq!(eval("round", &[Double(-2.5)]).unwrap(), Double(-3.0));
        assert_eq!(
            eval("round", &[Double(1.23456), Integer(2)]).unwrap(),
            Double(1.23)
        );
        assert_eq!(
            eval("round", &[Double(1234.5), Integer(-2)]).unwrap(),
            Double(1200.0)
        );
        assert_eq!(
            eval("round", &[Double(1.5), Integer(400)]).unwrap(),
            Double(1.5)
        );
        assert_eq!(eval("floor", &[Double(-1.5)]).unwrap(), Double(-2.0));
        assert_eq!(eval("ceil", &[Real(1.2)]).unwrap(), Real(2.0));
        assert_eq!(eval("trunc", &[Double(-1.7)]).unwrap(), Double(-1.0));
        assert_eq!(
            eval("trunc", &[Double(1.789), Integer(1)]).unwrap(),
            Double(1.7)
        );
        assert_eq!(eval("round", &[Null]).unwrap(), Null);
        let even = |x, n| eval("round_even", &[x, Integer(n)]).unwrap();
        assert_eq!(even(Double(2.5), 0), Double(2.0));
        assert_eq!(even(Double(-2.5), 0), Double(-2.0));
        assert_eq!(even(Double(3.5), 0), Double(4.0));
        assert_eq!(even(Double(2.675), 2), Double(2.67));
        assert_eq!(even(Double(0.125), 2), Double(0.12));
        assert_eq!(even(Double(0.375), 2), Double(0.38));
        assert_eq!(even(Double(1.005), 2), Double(1.0));
        assert_eq!(even(Double(25.0), -1), Double(20.0));
        assert_eq!(even(Double(15.0), -1), Double(20.0));
        assert_eq!(even(BigInt(25), -1), BigInt(20));
        assert_eq!(even(TinyInt(15), -1), TinyInt(20));
        assert_eq!(even(Decimal(25, 2, 1), 0), Decimal(20, 2, 1));
        assert_eq!(even(Decimal(-25, 2, 1), 0), Decimal(-20, 2, 1));
        assert_eq!(even(Decimal(245, 3, 2), 1), Decimal(240, 3, 2));
        assert_eq!(
            eval("roundbankers", &[Real(1.5), Integer(0)]).unwrap(),
            Real(2.0)
        );
        assert!(eval("round_even", &[Double(1.5)]).is_err());
    }
}
