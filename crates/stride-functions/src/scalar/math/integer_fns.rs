//! Integer functions: `gcd` (`greatest_common_divisor`) and `lcm`
//! (`least_common_multiple`) over BIGINT or HUGEINT, `factorial(n)` (a HUGEINT, as in
//! DuckDB: up to 33!), `bit_count(x)` (set bits of the two's-complement value,
//! TINYINT) and `xor(a, b)` (bitwise, in the common integer type). Overflow errors use
//! DuckDB's messages.

use crate::kernels::{binary, try_binary, try_unary, unary, with_integer};
use crate::scalar::signature::{bind, fixed};
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, Vector};

pub(crate) fn resolve_gcd(args: &[DataType]) -> Option<BoundFunction> {
    resolve_divisor(ScalarFunction::Gcd, args)
}

pub(crate) fn resolve_lcm(args: &[DataType]) -> Option<BoundFunction> {
    resolve_divisor(ScalarFunction::Lcm, args)
}

/// gcd / lcm over HUGEINT when an argument is one (or a UBIGINT), else over BIGINT.
fn resolve_divisor(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    use DataType::{BigInt, HugeInt, UBigInt};
    if args.contains(&HugeInt) || args.contains(&UBigInt) {
        return fixed(func, args, &[HugeInt, HugeInt], HugeInt);
    }
    fixed(func, args, &[BigInt, BigInt], BigInt)
}

/// `binom(n, k)`: the binomial coefficient, a DECIMAL(38, 0) like factorial (a
/// HUGEINT in DuckDB); 0 when k > n.
pub(crate) fn resolve_binom(args: &[DataType]) -> Option<BoundFunction> {
    use DataType::Integer;
    fixed(
        ScalarFunction::Binom,
        args,
        &[Integer, Integer],
        DataType::Decimal(38, 0),
    )
}

/// n choose k; `None` when it does not fit an i128.
fn binom(n: i32, k: i32) -> Option<i128> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k) as i128;
    let mut acc: i128 = 1;
    for i in 1..=k {
        // acc * (n - k + i) / i stays an integer at every step
        acc = acc.checked_mul(n as i128 - k + i)? / i;
    }
    Some(acc)
}

pub(crate) fn resolve_factorial(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::Factorial,
        args,
        &[DataType::Integer],
        DataType::HugeInt,
    )
}

/// An integer argument's own type (an untyped NULL is an INTEGER).
pub(crate) fn integer_type(t: &DataType) -> Option<DataType> {
    match t {
        DataType::Null => Some(DataType::Integer),
        t if t.is_integer() => Some(t.clone()),
        _ => None,
    }
}

pub(crate) fn resolve_bit_count(args: &[DataType]) -> Option<BoundFunction> {
    let [t] = args else { return None };
    let t = integer_type(t)?;
    // 128 bits set do not fit a TINYINT (DuckDB: SMALLINT for HUGEINT).
    let out = match t.physical() {
        stride_common::PhysicalType::I128 => DataType::SmallInt,
        _ => DataType::TinyInt,
    };
    bind(ScalarFunction::BitCount, vec![t], out)
}

pub(crate) fn resolve_xor(args: &[DataType]) -> Option<BoundFunction> {
    let [a, b] = args else { return None };
    let t = DataType::common_supertype(&integer_type(a)?, &integer_type(b)?)?;
    if !t.is_integer() {
        return None;
    }
    bind(ScalarFunction::Xor, vec![t.clone(), t.clone()], t)
}

fn abs_overflow(x: impl std::fmt::Display) -> Error {
    Error::out_of_range(format!("Overflow on abs({x})"))
}

fn gcd<T: Copy + PartialEq + std::ops::Rem<Output = T> + From<u8>>(a: T, b: T) -> T {
    let (mut a, mut b) = (a, b);
    while b != T::from(0) {
        (a, b) = (b, a % b);
    }
    a
}

/// `n!` as an i128; `None` above 33! (beyond i128).
fn factorial(n: i32) -> Option<i128> {
    (1..=n as i128).try_fold(1i128, |acc, k| acc.checked_mul(k))
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let ty = f.return_type.clone();
    match f.func {
        ScalarFunction::Gcd | ScalarFunction::Lcm => {
            let lcm = f.func == ScalarFunction::Lcm;
            // One body for BIGINT and HUGEINT: the absolute values as unsigned, so
            // the minimum (whose absolute value does not fit) is the only overflow
            // of gcd.
            macro_rules! gcd_lcm {
                ($t:ty) => {
                    try_binary(
                        &args[0],
                        &args[1],
                        len,
                        ty,
                        move |a: $t, b: $t| {
                            if a == <$t>::MIN || b == <$t>::MIN {
                                return None;
                            }
                            let (x, y) = (a.unsigned_abs(), b.unsigned_abs());
                            let g = gcd(x, y);
                            if !lcm {
                                return Some(g as $t);
                            }
                            if g == 0 {
                                return Some(0);
                            }
                            (x / g).checked_mul(y).and_then(|v| <$t>::try_from(v).ok())
                        },
                        |a, b| {
                            if a == <$t>::MIN || b == <$t>::MIN {
                                abs_overflow(<$t>::MIN)
                            } else {
                                Error::out_of_range("lcm value is out of range")
                            }
                        },
                    )
                };
            }
            if ty == DataType::HugeInt {
                gcd_lcm!(i128)
            } else {
                gcd_lcm!(i64)
            }
        }
        ScalarFunction::Factorial => try_unary(
            &args[0],
            len,
            ty,
            |n: i32| if n < 0 { None } else { factorial(n) },
            |n| {
                if n < 0 {
                    Error::out_of_range("factorial of a negative number is undefined")
                } else {
                    Error::out_of_range("Value out of range")
                }
            },
        ),
        ScalarFunction::Binom => try_binary(
            &args[0],
            &args[1],
            len,
            ty,
            |n: i32, k: i32| {
                if n < 0 || k < 0 {
                    None
                } else {
                    binom(n, k).filter(|v| *v < 10i128.pow(38))
                }
            },
            |n, k| {
                if n < 0 || k < 0 {
                    Error::out_of_range("binom with negative input is undefined")
                } else {
                    Error::out_of_range(format!("Overflow in binom({n}, {k})"))
                }
            },
        ),
        ScalarFunction::BitCount => {
            let v = &args[0];
            if ty == DataType::SmallInt {
                return with_integer!(v.ty.physical(), T => Ok(unary(v, len, ty,
                    |x: T| x.count_ones() as i16)),
                    _ => Err(Error::internal("bit_count of a non-integer")));
            }
            with_integer!(v.ty.physical(), T => Ok(unary(v, len, ty,
                |x: T| x.count_ones() as i8)),
                _ => Err(Error::internal("bit_count of a non-integer")))
        }
        _ => {
            let v = &args[0];
            with_integer!(v.ty.physical(), T => Ok(binary(v, &args[1], len, ty,
                |a: T, b: T| a ^ b)),
                _ => Err(Error::internal("xor of a non-integer")))
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::ScalarValue::*;

    #[test]
    fn divisors() {
        assert_eq!(eval("gcd", &[Integer(12), Integer(18)]).unwrap(), BigInt(6));
        assert_eq!(
            eval("greatest_common_divisor", &[BigInt(-12), BigInt(18)]).unwrap(),
            BigInt(6)
        );
        assert_eq!(eval("gcd", &[BigInt(0), BigInt(0)]).unwrap(), BigInt(0));
        assert_eq!(eval("lcm", &[BigInt(-4), BigInt(6)]).unwrap(), BigInt(12));
        assert_eq!(eval("lcm", &[BigInt(0), BigInt(6)]).unwrap(), BigInt(0));
        let e = eval("gcd", &[BigInt(i64::MIN), BigInt(0)]).unwrap_err();
        assert_eq!(e.message, "Overflow on abs(-9223372036854775808)");
        let e = eval("lcm", &[BigInt(i64::MAX), BigInt(2)]).unwrap_err();
        assert_eq!(e.message, "lcm value is out of range");
        assert_eq!(eval("gcd", &[Null, BigInt(1)]).unwrap(), Null);
        assert_eq!(
            eval("gcd", &[HugeInt(1 << 100), BigInt(1 << 40)]).unwrap(),
            HugeInt(1 << 40)
        );
        assert_eq!(
            eval("lcm", &[HugeInt(i128::MAX), HugeInt(2)])
                .unwrap_err()
                .message,
            "lcm value is out of range"
        );
    }

    #[test]
    fn factorials() {
        assert_eq!(eval("factorial", &[Integer(0)]).unwrap(), HugeInt(1));
        assert_eq!(eval("factorial", &[Integer(5)]).unwrap(), HugeInt(120));
        assert_eq!(
            eval("factorial", &[Integer(33)]).unwrap(),
            HugeInt(8683317618811886495518194401280000000)
        );
        assert_eq!(
            eval("factorial", &[Integer(34)]).unwrap_err().message,
            "Value out of range"
        );
        assert!(eval("factorial", &[Integer(-1)]).is_err());
    }

    #[test]
    fn bits() {
        assert_eq!(eval("bit_count", &[Integer(7)]).unwrap(), TinyInt(3));
        assert_eq!(eval("bit_count", &[Integer(-1)]).unwrap(), TinyInt(32));
        assert_eq!(eval("bit_count", &[TinyInt(-1)]).unwrap(), TinyInt(8));
        assert_eq!(eval("xor", &[Integer(5), Integer(3)]).unwrap(), Integer(6));
        assert_eq!(eval("xor", &[TinyInt(5), BigInt(3)]).unwrap(), BigInt(6));
        assert_eq!(
            eval("xor", &[Integer(-1), Integer(1)]).unwrap(),
            Integer(-2)
        );
        assert!(eval("xor", &[Double(1.0), Integer(1)]).is_err());
    }
}
