//! Arithmetic operators `+ - * / %` and unary minus: type resolution (the common
//! numeric type of both sides, DECIMAL precision/scale rules, date/time arithmetic)
//! and dispatch to the integer, float, decimal and temporal kernels.
//!
//! Rules: two integers give the wider integer, `/` truncates toward zero and `%` takes
//! the dividend's sign (PostgreSQL); any float gives DOUBLE (REAL with REAL stays
//! REAL); DECIMAL + and - give DECIMAL(max integer digits + max scale + 1, max scale),
//! multiplication gives DECIMAL(p1 + p2, s1 + s2), at most 18 digits when both
//! operands fit 18 and the scale is under 18 (DuckDB's rule: 64-bit operands, a
//! 64-bit product), and division DOUBLE; an integer
//! meeting a DECIMAL counts as DECIMAL(its digits, 0). Overflow and division by zero
//! are errors.

mod decimal;
mod float;
mod integer;
mod negate;
mod temporal;

use super::signature::bind;
use super::{BoundFunction, ScalarFunction};
use crate::kernels::with_integer;
use stride_common::types::{DECIMAL_I64_MAX_PRECISION, DECIMAL_MAX_PRECISION};
use stride_common::{DataType, Error, Result, Vector};

pub(crate) fn resolve_add(args: &[DataType]) -> Option<BoundFunction> {
    resolve_binary(ScalarFunction::Add, args)
}

/// `-` with two arguments is subtraction, with one it is negation.
pub(crate) fn resolve_subtract(args: &[DataType]) -> Option<BoundFunction> {
    if args.len() == 1 {
        return negate::resolve(args);
    }
    resolve_binary(ScalarFunction::Subtract, args)
}

pub(crate) fn resolve_multiply(args: &[DataType]) -> Option<BoundFunction> {
    resolve_binary(ScalarFunction::Multiply, args)
}

pub(crate) fn resolve_divide(args: &[DataType]) -> Option<BoundFunction> {
    resolve_binary(ScalarFunction::Divide, args)
}

pub(crate) fn resolve_modulo(args: &[DataType]) -> Option<BoundFunction> {
    resolve_binary(ScalarFunction::Modulo, args)
}

pub(crate) fn resolve_negate(args: &[DataType]) -> Option<BoundFunction> {
    negate::resolve(args)
}

fn resolve_binary(op: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    let [a, b] = args else { return None };
    if a.is_temporal() || b.is_temporal() {
        return temporal::resolve(op, a, b);
    }
    let (a, b) = resolve_untyped(a, b)?;
    resolve_numeric(op, &a, &b)
}

/// An untyped NULL, or text, takes the type of the other side (PostgreSQL's rule
/// for unknown literals); two of them are INTEGER NULLs or nothing.
fn resolve_untyped(a: &DataType, b: &DataType) -> Option<(DataType, DataType)> {
    use DataType::*;
    Some(match (a, b) {
        (Null, Null) => (Integer, Integer),
        (Null | Varchar, t) | (t, Null | Varchar) if !is_number(t) => return None,
        (Null | Varchar, t) => (t.clone(), t.clone()),
        (t, Null | Varchar) => (t.clone(), t.clone()),
        _ => (a.clone(), b.clone()),
    })
}

/// A numeric type or UHUGEINT (which has its own arithmetic, see
/// [`DataType::UHugeInt`]).
fn is_number(t: &DataType) -> bool {
    t.is_numeric() || *t == DataType::UHugeInt
}

fn resolve_numeric(op: ScalarFunction, a: &DataType, b: &DataType) -> Option<BoundFunction> {
    use DataType::*;
    if !is_number(a) || !is_number(b) {
        return None;
    }
    if *a == UHugeInt || *b == UHugeInt {
        // With unsigned integers UHUGEINT arithmetic, with a DECIMAL decimal
        // arithmetic at the widest precision, with anything else DOUBLE (DuckDB).
        return match DataType::common_supertype(a, b)? {
            UHugeInt => bind(op, vec![UHugeInt, UHugeInt], UHugeInt),
            Decimal(..) => {
                let as_decimal = |t: &DataType| match t {
                    UHugeInt => Decimal(DECIMAL_MAX_PRECISION, 0),
                    t => t.clone(),
                };
                resolve_numeric(op, &as_decimal(a), &as_decimal(b))
            }
            _ => bind(op, vec![Double, Double], Double),
        };
    }
    if a.is_float() || b.is_float() {
        let t = if *a == Real && *b == Real {
            Real
        } else {
            Double
        };
        return bind(op, vec![t.clone(), t.clone()], t);
    }
    if a.is_integer() && b.is_integer() {
        let t = DataType::integer_supertype(a, b)?;
        return bind(op, vec![t.clone(), t.clone()], t);
    }
    let (p1, s1) = a.decimal_properties()?;
    let (p2, s2) = b.decimal_properties()?;
    let scale = s1.max(s2);
    let int_digits = (p1 - s1).max(p2 - s2);
    let same = |p: u8| {
        let t = Decimal(p.min(DECIMAL_MAX_PRECISION), scale);
        bind(op, vec![t.clone(), t.clone()], t)
    };
    match op {
        ScalarFunction::Add | ScalarFunction::Subtract => same(int_digits + scale + 1),
        // |a % b| < |b|, so the wider operand's digits suffice
        ScalarFunction::Modulo => same(int_digits + scale),
        ScalarFunction::Multiply if s1 + s2 <= DECIMAL_MAX_PRECISION => {
            // As in DuckDB: operands stored in 64 bits give a product stored in 64
            // bits (an overflow is an error), not a 128-bit one, when its scale
            // leaves it an integer digit: a scale of 18 keeps the 128-bit width.
            let narrow =
                p1.max(p2) <= DECIMAL_I64_MAX_PRECISION && s1 + s2 < DECIMAL_I64_MAX_PRECISION;
            let limit = match narrow {
                true => DECIMAL_I64_MAX_PRECISION,
                false => DECIMAL_MAX_PRECISION,
            };
            let ret = Decimal((p1 + p2).min(limit), s1 + s2);
            bind(op, vec![Decimal(p1, s1), Decimal(p2, s2)], ret)
        }
        // exact division would need unbounded scale: PostgreSQL-like numeric division
        // is out of reach for fixed-width decimals, so divide in DOUBLE
        _ => bind(op, vec![Double, Double], Double),
    }
}

pub(crate) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    if f.func == ScalarFunction::Negate {
        return negate::evaluate(f, &args[0], len);
    }
    let [a, b] = args else {
        return Err(Error::internal("binary operator with wrong arity"));
    };
    let (ta, tb) = (&f.arg_types[0], &f.arg_types[1]);
    if ta.is_temporal() || tb.is_temporal() {
        return temporal::evaluate(f, a, b, len);
    }
    let ty = f.return_type.clone();
    match ta {
        DataType::Decimal(..) => decimal::evaluate(f, a, b, len),
        DataType::Real => float::evaluate::<f32>(f.func, a, b, len, ty),
        DataType::Double => float::evaluate::<f64>(f.func, a, b, len, ty),
        DataType::UHugeInt => integer::evaluate_uhugeint(f.func, a, b, len),
        t if t.is_integer() => {
            with_integer!(t.physical(), T => integer::evaluate::<T>(f.func, a, b, len, ty),
            _ => Err(Error::internal("integer storage")))
        }
        t => Err(Error::internal(format!("arithmetic over {t}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::resolve_scalar;
    use crate::scalar::test_util::eval;
    use stride_common::{ErrorKind, ScalarValue::*};

    fn ret(op: &str, a: DataType, b: DataType) -> (Vec<DataType>, DataType) {
        let f = resolve_scalar(op, &[a, b]).unwrap();
        (f.arg_types, f.return_type)
    }

    #[test]
    fn type_resolution() {
        use DataType::*;
        assert_eq!(ret("+", TinyInt, Integer).1, Integer);
        assert_eq!(ret("+", BigInt, SmallInt).1, BigInt);
        assert_eq!(ret("+", Real, Real).1, Real);
        assert_eq!(ret("+", Real, Integer).1, Double);
        assert_eq!(ret("*", Decimal(10, 2), Double).1, Double);
        assert_eq!(
            ret("+", Decimal(10, 2), Decimal(5, 4)),
            (vec![Decimal(13, 4), Decimal(13, 4)], Decimal(13, 4))
        );
        assert_eq!(ret("-", Decimal(38, 2), Decimal(38, 2)).1, Decimal(38, 2));
        assert_eq!(ret("+", Integer, Decimal(5, 2)).1, Decimal(13, 2));
        assert_eq!(
            ret("*", Decimal(10, 2), Decimal(5, 4)),
            (vec![Decimal(10, 2), Decimal(5, 4)], Decimal(15, 6))
        );
        assert_eq!(
            ret("*", BigInt, Decimal(5, 1)),
            (vec![Decimal(19, 0), Decimal(5, 1)], Decimal(24, 1))
        );
        // 64-bit operands keep a 64-bit product, as in DuckDB.
        assert_eq!(ret("*", Decimal(15, 2), Decimal(16, 2)).1, Decimal(18, 4));
        assert_eq!(ret("*", Integer, Decimal(15, 2)).1, Decimal(18, 2));
        assert_eq!(
            ret("*", Decimal(18, 10), Decimal(18, 10)).1,
            Decimal(36, 20)
        );
        assert_eq!(ret("*", Decimal(19, 2), Decimal(15, 2)).1, Decimal(34, 4));
        assert_eq!(ret("/", Decimal(10, 2), Integer).1, Double);
        assert_eq!(ret("%", Decimal(10, 2), Decimal(4, 3)).1, Decimal(11, 3));
        assert_eq!(ret("+", Null, Integer).1, Integer);
        assert_eq!(ret("+", Varchar, Decimal(4, 1)).1, Decimal(5, 1));
        assert!(resolve_scalar("+", &[Varchar, Varchar]).is_err());
        assert!(resolve_scalar("+", &[Boolean, Integer]).is_err());
    }

    #[test]
    fn integers() {
        assert_eq!(eval("+", &[Integer(1), Integer(2)]).unwrap(), Integer(3));
        assert_eq!(eval("+", &[TinyInt(1), BigInt(2)]).unwrap(), BigInt(3));
        assert_eq!(
            eval("-", &[SmallInt(1), SmallInt(2)]).unwrap(),
            SmallInt(-1)
        );
        assert_eq!(eval("*", &[BigInt(-3), Integer(4)]).unwrap(), BigInt(-12));
        assert_eq!(eval("/", &[Integer(7), Integer(2)]).unwrap(), Integer(3));
        assert_eq!(eval("/", &[Integer(-7), Integer(2)]).unwrap(), Integer(-3));
        assert_eq!(eval("%", &[Integer(-7), Integer(2)]).unwrap(), Integer(-1));
        assert_eq!(eval("%", &[Integer(7), Integer(-2)]).unwrap(), Integer(1));
        assert_eq!(
            eval("mod", &[BigInt(i64::MIN), BigInt(-1)]).unwrap(),
            BigInt(0)
        );
        assert_eq!(eval("+", &[Integer(1), Null]).unwrap(), Null);
        let e = eval("+", &[BigInt(i64::MAX), BigInt(1)]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfRange);
        assert_eq!(
            e.message,
            "Overflow in addition of INT64 (9223372036854775807 + 1)"
        );
        let e = eval("*", &[TinyInt(100), TinyInt(2)]).unwrap_err();
        assert_eq!(e.message, "Overflow in multiplication of INT8 (100 * 2)");
        let e = eval("-", &[SmallInt(i16::MIN), SmallInt(1)]).unwrap_err();
        assert_eq!(e.message, "Overflow in subtraction of INT16 (-32768 - 1)");
        assert!(eval("/", &[Integer(i32::MIN), Integer(-1)]).is_err());
        assert_eq!(
            eval("/", &[Integer(1), Integer(0)]).unwrap_err(),
            Error::division_by_zero()
        );
        assert_eq!(
            eval("%", &[BigInt(1), BigInt(0)]).unwrap_err(),
            Error::division_by_zero()
        );
    }

    #[test]
    fn every_numeric_pair() {
        // 6 and 3 in every numeric type; decimals at two scales and both storages
        let six = [
            TinyInt(6),
            SmallInt(6),
            Integer(6),
            BigInt(6),
            Real(6.0),
            Double(6.0),
            Decimal(600, 5, 2),
            Decimal(6, 20, 0),
        ];
        let three = |v: &stride_common::ScalarValue| match v {
            Real(_) => Real(3.0),
            Double(_) => Double(3.0),
            Decimal(_, p, s) => Decimal(3 * 10i128.pow(*s as u32), *p, *s),
            other => crate::cast_scalar(&Integer(3), &other.data_type(), false).unwrap(),
        };
        let ops = [("+", 9.0), ("-", 3.0), ("*", 18.0), ("/", 2.0), ("%", 0.0)];
        for a in &six {
            for b in six.iter().map(three) {
                for (op, expected) in ops {
                    let f = resolve_scalar(op, &[a.data_type(), b.data_type()]).unwrap();
                    let r = eval(op, &[a.clone(), b.clone()]).unwrap();
                    assert_eq!(r.data_type(), f.return_type, "{a:?} {op} {b:?}");
                    assert_eq!(r.as_f64(), Some(expected), "{a:?} {op} {b:?}");
                }
            }
        }
    }

    #[test]
    fn floats() {
        assert_eq!(eval("+", &[Double(0.5), Integer(1)]).unwrap(), Double(1.5));
        assert_eq!(eval("*", &[Real(1.5), Real(2.0)]).unwrap(), Real(3.0));
        assert_eq!(
            eval("/", &[Double(1.0), Double(4.0)]).unwrap(),
            Double(0.25)
        );
        assert_eq!(eval("%", &[Double(5.5), Double(2.0)]).unwrap(), Double(1.5));
        assert_eq!(
            eval("/", &[Double(1.0), Double(0.0)]).unwrap_err(),
            Error::division_by_zero()
        );
        assert_eq!(
            eval("%", &[Real(1.0), Real(0.0)]).unwrap_err(),
            Error::division_by_zero()
        );
        let e = eval("*", &[Double(1e308), Double(10.0)]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfRange);
        assert_eq!(
            eval("+", &[Double(f64::INFINITY), Double(1.0)]).unwrap(),
            Double(f64::INFINITY)
        );
    }

    #[test]
    fn decimals() {
        let d = |v: i128, p: u8, s: u8| Decimal(v, p, s);
        assert_eq!(
            eval("+", &[d(150, 5, 2), d(25, 3, 1)]).unwrap(),
            d(400, 6, 2)
        );
        assert_eq!(
            eval("-", &[d(150, 5, 2), Integer(2)]).unwrap(),
            d(-50, 13, 2)
        );
        assert_eq!(
            eval("*", &[d(150, 5, 2), d(25, 3, 1)]).unwrap(),
            d(3750, 8, 3)
        );
        assert_eq!(
            eval("*", &[d(-150, 5, 2), Integer(3)]).unwrap(),
            d(-450, 15, 2)
        );
        assert_eq!(
            eval("/", &[d(150, 5, 2), d(50, 3, 2)]).unwrap(),
            Double(3.0)
        );
        assert_eq!(
            eval("%", &[d(550, 5, 2), d(20, 3, 1)]).unwrap(),
            d(150, 5, 2)
        );
        assert_eq!(
            eval("%", &[d(550, 5, 2), d(0, 3, 1)]).unwrap_err(),
            Error::division_by_zero()
        );
        let big = 10i128.pow(37) * 9;
        let e = eval("+", &[d(big, 38, 0), d(big, 38, 0)]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfRange);
        assert!(
            e.message
                .starts_with("Overflow in addition of DECIMAL(38,0)"),
            "{}",
            e.message
        );
        let e = eval("*", &[d(big, 38, 0), d(10, 38, 0)]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfRange);
        // 64-bit operands: a product past 18 digits is an error, as in DuckDB; an
        // operand cast wider gives the wide product.
        let nines = 999_999_999_999_999_999i128;
        let e = eval("*", &[d(nines, 18, 2), d(nines, 18, 2)]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfRange);
        assert!(
            e.message
                .starts_with("Overflow in multiplication of DECIMAL(18,4)"),
            "{}",
            e.message
        );
        let r = eval("*", &[d(nines, 19, 2), d(nines, 18, 2)]).unwrap();
        assert_eq!(r, d(nines * nines, 37, 4));
        assert_eq!(eval("+", &[d(1, 18, 0), d(2, 38, 0)]).unwrap(), d(3, 38, 0));
    }

    #[test]
    fn negation() {
        assert_eq!(eval("negate", &[Integer(5)]).unwrap(), Integer(-5));
        assert_eq!(eval("-", &[Double(1.5)]).unwrap(), Double(-1.5));
        assert_eq!(
            eval("-", &[Decimal(150, 5, 2)]).unwrap(),
            Decimal(-150, 5, 2)
        );
        assert_eq!(eval("-", &[Null]).unwrap(), Null);
        let e = eval("-", &[TinyInt(i8::MIN)]).unwrap_err();
        assert_eq!(e.message, "Overflow in negation of INT8 (-128)");
    }

    #[test]
    fn flat_vectors_with_nulls_do_not_raise() {
        use crate::scalar::test_util::flat;
        let int = DataType::Integer;
        let f = resolve_scalar("/", &[int.clone(), int.clone()]).unwrap();
        let a = flat(&int, &[Integer(6), Integer(5), Integer(9)]);
        let b = flat(&int, &[Integer(3), Null, Integer(2)]);
        let r = crate::evaluate_scalar(&f, &[a, b], 3).unwrap();
        assert_eq!(
            (r.get(0), r.get(1), r.get(2)),
            (Integer(2), Null, Integer(4))
        );
    }
}
