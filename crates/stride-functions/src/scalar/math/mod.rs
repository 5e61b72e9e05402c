//! Numeric functions: `abs` and `sign`, the rounding family (`round`, `floor`,
//! `ceil`, `trunc`, `round_even`) which keeps integers and decimals exact, integer
//! functions (`gcd`, `lcm`, `factorial`, `bit_count`, `xor`), float representation
//! functions (`signbit`, `nextafter`), and DOUBLE functions
//! (`sqrt`, `power`, `exp`, `ln`, logarithms, trigonometry) that give IEEE 754's
//! NaN or infinities outside their domain, as DuckDB does.

pub(crate) mod abs_sign;
pub(crate) mod bitwise;
pub(crate) mod float_bits;
pub(crate) mod float_fns;
pub(crate) mod integer_fns;
pub(crate) mod rounding;

use super::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};

/// The type a numeric function of one argument computes in: numerics keep their
/// type, an untyped NULL is an INTEGER, text is a DOUBLE.
pub(crate) fn numeric_arg(t: &DataType) -> Option<DataType> {
    match t {
        DataType::Null => Some(DataType::Integer),
        DataType::Varchar => Some(DataType::Double),
        t if t.is_numeric() => Some(t.clone()),
        _ => None,
    }
}

pub(crate) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    use ScalarFunction as F;
    match f.func {
        F::Abs | F::Sign => abs_sign::evaluate(f, args, len),
        F::Round | F::Floor | F::Ceil | F::Trunc | F::RoundEven => rounding::evaluate(f, args, len),
        F::Gcd | F::Lcm | F::Factorial | F::Binom | F::BitCount | F::Xor => {
            integer_fns::evaluate(f, args, len)
        }
        F::Bitwise(op) => bitwise::evaluate(op, f, args, len),
        F::SignBit | F::NextAfter => float_bits::evaluate(f, args, len),
        _ => float_fns::evaluate(f.func, args, len),
    }
}
