//! Bitwise operators on integers, in the common integer type of both sides:
//! `&` (AND), `|` (OR), `<<` and `>>` (`xor(a, b)` lives with the integer
//! functions), and the unary `~` (NOT: every bit flipped, in the argument's type).
//! Shifts follow DuckDB: a left shift of a negative number, by a negative count, by
//! the type's width or more (an unsigned type may shift by its full width, an
//! overflow unless the value is 0), or one that overflows is an error; a right shift
//! by a negative count or by the width or more gives 0, otherwise it is arithmetic
//! (the sign is kept). An unsigned type's width is its own, not its wider storage's.
//! A UHUGEINT is read from its flipped stored form and computed in `u128`.
//! Bit strings (BIT) have their own operators in `scalar/bits.rs`.

use super::integer_fns::integer_type;
use crate::kernels::{binary, try_binary, unary, with_integer, SqlInt};
use crate::scalar::signature::bind;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::flip128::{from_physical as value, to_physical as stored};
use stride_common::{DataType, Error, Result, Vector};

/// Which bitwise operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BitOp {
    And,
    Or,
    ShiftLeft,
    ShiftRight,
    /// unary `~`
    Not,
}

pub(crate) fn resolve(op: BitOp, args: &[DataType]) -> Option<BoundFunction> {
    let [a, b] = args else { return None };
    let t = DataType::common_supertype(&operand(a)?, &operand(b)?)?;
    if !t.is_integer() && t != DataType::UHugeInt {
        return None;
    }
    bind(ScalarFunction::Bitwise(op), vec![t.clone(), t.clone()], t)
}

/// The unary `~x` on one integer argument (an untyped NULL counts as INTEGER).
pub(crate) fn resolve_not(args: &[DataType]) -> Option<BoundFunction> {
    let [a] = args else { return None };
    let t = operand(a)?;
    bind(ScalarFunction::Bitwise(BitOp::Not), vec![t.clone()], t)
}

/// An integer type or UHUGEINT.
fn operand(t: &DataType) -> Option<DataType> {
    match t {
        DataType::UHugeInt => Some(DataType::UHugeInt),
        t => integer_type(t),
    }
}

/// The operators over UHUGEINTs, with DuckDB's shift rules at 128 bits.
fn evaluate_uhugeint(op: BitOp, args: &[Vector], len: usize) -> Result<Vector> {
    let ty = DataType::UHugeInt;
    let apply = |f: fn(u128, u128) -> u128| move |x: i128, y: i128| stored(f(value(x), value(y)));
    let shift_left = |x: i128, s: i128| {
        let (x, s) = (value(x), value(s));
        match s {
            s if s > 128 => Err(Error::out_of_range(format!(
                "Left-shift value {s} is out of range"
            ))),
            0 => Ok(stored(x)),
            s if x > u128::MAX >> (s - 1) >> 1 => Err(Error::out_of_range(format!(
                "Overflow in left shift ({x} << {s})"
            ))),
            s => Ok(stored(x.checked_shl(s as u32).unwrap_or(0))),
        }
    };
    match op {
        BitOp::Not => Ok(unary(&args[0], len, ty, |x: i128| stored(!value(x)))),
        BitOp::And => Ok(binary(&args[0], &args[1], len, ty, apply(|x, y| x & y))),
        BitOp::Or => Ok(binary(&args[0], &args[1], len, ty, apply(|x, y| x | y))),
        BitOp::ShiftRight => Ok(binary(
            &args[0],
            &args[1],
            len,
            ty,
            apply(|x, s| {
                u32::try_from(s)
                    .ok()
                    .and_then(|s| x.checked_shr(s))
                    .unwrap_or(0)
            }),
        )),
        BitOp::ShiftLeft => try_binary(
            &args[0],
            &args[1],
            len,
            ty,
            move |x: i128, s: i128| shift_left(x, s).ok(),
            move |x: i128, s: i128| {
                shift_left(x, s)
                    .err()
                    .unwrap_or_else(|| Error::internal("shift"))
            },
        ),
    }
}

/// The bits of an integer type and its largest value: its storage's for the signed
/// types; an unsigned type's own (it is stored wider). DuckDB lets an unsigned
/// value shift by its full width (an overflow unless it is 0).
#[derive(Clone, Copy)]
struct Width {
    bits: i128,
    max: i128,
    /// the widest shift that is not "out of range"
    max_shift: i128,
}

impl Width {
    fn of<T: SqlInt>(ty: &DataType) -> Width {
        match ty.integer_range().filter(|_| ty.is_unsigned()) {
            Some((_, max)) => {
                let bits = 128 - max.leading_zeros() as i128;
                Width {
                    bits,
                    max,
                    max_shift: bits,
                }
            }
            None => {
                let bits = (std::mem::size_of::<T>() * 8) as i128;
                Width {
                    bits,
                    max: (1i128 << (bits - 1)) - 1,
                    max_shift: bits - 1,
                }
            }
        }
    }
}

/// `x << s`, or the error DuckDB reports.
fn shift_left<T: SqlInt>(x: T, s: T, w: Width) -> std::result::Result<T, Error> {
    let (xv, sv) = (x.to_i128(), s.to_i128());
    if sv < 0 {
        return Err(Error::out_of_range(format!(
            "Cannot left-shift by negative number {s}"
        )));
    }
    if xv < 0 {
        return Err(Error::out_of_range(format!(
            "Cannot left-shift negative number {x}"
        )));
    }
    if sv > w.max_shift {
        return Err(Error::out_of_range(format!(
            "Left-shift value {s} is out of range"
        )));
    }
    if sv > 0 && xv > (w.max >> sv) {
        return Err(Error::out_of_range(format!(
            "Overflow in left shift ({x} << {s})"
        )));
    }
    T::from_i128(xv << sv)
        .ok_or_else(|| Error::out_of_range(format!("Overflow in left shift ({x} << {s})")))
}

/// `x >> s`: 0 for shifts outside `0..width`.
fn shift_right<T: SqlInt>(x: T, s: T, w: Width) -> T {
    let sv = s.to_i128();
    if !(0..w.bits).contains(&sv) {
        return T::ZERO;
    }
    T::from_i128(x.to_i128() >> sv).unwrap_or(T::ZERO)
}

pub(super) fn evaluate(
    op: BitOp,
    f: &BoundFunction,
    args: &[Vector],
    len: usize,
) -> Result<Vector> {
    let ty = f.return_type.clone();
    if ty == DataType::UHugeInt {
        return evaluate_uhugeint(op, args, len);
    }
    if op == BitOp::Not {
        return with_integer!(args[0].ty.physical(), T => Ok(match ty.is_unsigned() {
            // the type's own bits flipped, not its wider storage's
            true => {
                let max = Width::of::<T>(&ty).max;
                unary(&args[0], len, ty, move |x: T| T::from_i128(max - x.to_i128()).unwrap_or(x))
            }
            false => unary(&args[0], len, ty, |x: T| !x),
        }), _ => Err(Error::internal("bitwise NOT on a non-integer")));
    }
    let (a, b) = (&args[0], &args[1]);
    with_integer!(a.ty.physical(), T => {
        let w = Width::of::<T>(&ty);
        match op {
        BitOp::And => Ok(binary(a, b, len, ty, |x: T, y: T| x & y)),
        BitOp::Or => Ok(binary(a, b, len, ty, |x: T, y: T| x | y)),
        BitOp::ShiftRight => Ok(binary(a, b, len, ty, move |x: T, s: T| shift_right(x, s, w))),
        BitOp::Not => Err(Error::internal("bitwise NOT takes one argument")),
        BitOp::ShiftLeft => try_binary(
            a,
            b,
            len,
            ty,
            move |x: T, s: T| shift_left(x, s, w).ok(),
            move |x: T, s: T| shift_left(x, s, w).err().unwrap_or_else(|| Error::internal("shift")),
        ),
        }
    }, _ => Err(Error::internal("bitwise operator on a non-integer")))
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::ScalarValue::*;

    #[test]
    fn bitwise_operators() {
        assert_eq!(eval("&", &[Integer(5), Integer(3)]).unwrap(), Integer(1));
        assert_eq!(eval("~", &[Integer(5)]).unwrap(), Integer(-6));
        assert_eq!(eval("~", &[TinyInt(0)]).unwrap(), TinyInt(-1));
        assert_eq!(eval("~", &[HugeInt(-2)]).unwrap(), HugeInt(1));
        assert_eq!(eval("~", &[Null]).unwrap(), Null);
        assert!(eval("~", &[Double(1.0)]).is_err());
        assert_eq!(eval("|", &[Integer(5), Integer(3)]).unwrap(), Integer(7));
        assert_eq!(eval("<<", &[Integer(1), Integer(4)]).unwrap(), Integer(16));
        assert_eq!(eval(">>", &[Integer(-8), Integer(1)]).unwrap(), Integer(-4));
        assert_eq!(eval(">>", &[Integer(8), Integer(64)]).unwrap(), Integer(0));
        assert_eq!(eval(">>", &[Integer(8), Integer(-1)]).unwrap(), Integer(0));
        assert_eq!(eval("<<", &[TinyInt(1), TinyInt(6)]).unwrap(), TinyInt(64));
        let msg = |a, b| eval("<<", &[a, b]).unwrap_err().message;
        assert_eq!(
            msg(TinyInt(1), TinyInt(7)),
            "Overflow in left shift (1 << 7)"
        );
        assert_eq!(
            msg(Integer(1), Integer(-1)),
            "Cannot left-shift by negative number -1"
        );
        assert_eq!(
            msg(Integer(-1), Integer(1)),
            "Cannot left-shift negative number -1"
        );
        assert_eq!(
            msg(Integer(1), Integer(64)),
            "Left-shift value 64 is out of range"
        );
        assert_eq!(eval("&", &[Null, Integer(1)]).unwrap(), Null);
        assert!(eval("&", &[Double(1.0), Integer(1)]).is_err());
    }
}
