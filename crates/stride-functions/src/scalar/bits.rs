//! Functions over BIT values (DuckDB's bitstring family): `bitstring(text, n)`,
//! `bit_count`, `bit_length` (and `length`), `octet_length`, `get_bit`, `set_bit`,
//! `bit_position`, and the operators `&`, `|`, `xor`, `~`, `<<` and `>>` on bit
//! strings, which keep the length (the binary ones need equal lengths). Bits are
//! counted from 0 at the left. The layout is `stride_common::bit`'s.

use super::signature::{bind, castable};
use super::{BoundFunction, ScalarFunction};
use crate::kernels::{make_vector, map_rows, map_rows_to_strings, strict_validity, Slot, StrSlot};
use stride_common::bit;
use stride_common::{DataType, Error, Result, Vector};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BitFunction {
    Bitstring,
    BitCount,
    BitLength,
    OctetLength,
    GetBit,
    SetBit,
    BitPosition,
    And,
    Or,
    Xor,
    Not,
    ShiftLeft,
    ShiftRight,
}

impl BitFunction {
    /// The SQL name (EXPLAIN, column names).
    pub fn name(self) -> &'static str {
        use BitFunction as B;
        match self {
            B::Bitstring => "bitstring",
            B::BitCount => "bit_count",
            B::BitLength => "bit_length",
            B::OctetLength => "octet_length",
            B::GetBit => "get_bit",
            B::SetBit => "set_bit",
            B::BitPosition => "bit_position",
            B::And => "&",
            B::Or => "|",
            B::Xor => "xor",
            B::Not => "~",
            B::ShiftLeft => "<<",
            B::ShiftRight => ">>",
        }
    }
}

/// Whether an argument may be passed for a BIT parameter: a BIT, or NULL (text only
/// where the other arguments make the call a bit string one).
fn is_bit(t: &DataType) -> bool {
    matches!(t, DataType::Bit | DataType::Null)
}

pub(crate) fn resolve(f: BitFunction, args: &[DataType]) -> Option<BoundFunction> {
    use BitFunction as B;
    use DataType::{BigInt, Bit, Integer, Varchar};
    let func = ScalarFunction::Bit(f);
    let int = |t: &DataType| castable(t, &Integer);
    match (f, args) {
        (B::Bitstring, [t, n]) if (is_bit(t) || castable(t, &Varchar)) && int(n) => {
            bind(func, vec![Varchar, Integer], Bit)
        }
        (B::BitCount | B::BitLength | B::OctetLength, [Bit]) => bind(func, vec![Bit], BigInt),
        (B::GetBit, [Bit, n]) if int(n) => bind(func, vec![Bit, Integer], Integer),
        (B::SetBit, [Bit, n, v]) if int(n) && int(v) => {
            bind(func, vec![Bit, Integer, Integer], Bit)
        }
        (B::BitPosition, [a, b]) if is_bit(a) && is_bit(b) && args.contains(&Bit) => {
            bind(func, vec![Bit, Bit], Integer)
        }
        // a text literal on either side reads as a bit string
        (B::And | B::Or | B::Xor, [a, b])
            if args.contains(&Bit) && [a, b].iter().all(|t| is_bit(t) || **t == Varchar) =>
        {
            bind(func, vec![Bit, Bit], Bit)
        }
        (B::Not, [Bit]) => bind(func, vec![Bit], Bit),
        (B::ShiftLeft | B::ShiftRight, [Bit, n]) if int(n) => bind(func, vec![Bit, Integer], Bit),
        _ => None,
    }
}

/// The vector of BITs `f` pushes into, one row per input row.
fn to_bits(
    args: &[&Vector],
    len: usize,
    f: impl FnMut(usize, &mut stride_common::StringVector) -> Result<()>,
) -> Result<Vector> {
    let mut out = map_rows_to_strings(args, len, f)?;
    out.ty = DataType::Bit;
    Ok(out)
}

fn index_error(i: i32, n: usize) -> Error {
    Error::out_of_range(format!("bit index {i} out of valid range (0..{})", n - 1))
}

pub(crate) fn evaluate(f: BitFunction, args: &[Vector], len: usize) -> Result<Vector> {
    use BitFunction as B;
    let refs: Vec<&Vector> = args.iter().collect();
    let s = StrSlot::new(&args[0]);
    match f {
        B::BitCount | B::BitLength | B::OctetLength => {
            let rows = if args[0].constant { 1 } else { len };
            let values: Vec<i64> = (0..rows)
                .map(|i| match f {
                    B::BitCount => bit::count_ones(s.bytes(i)) as i64,
                    B::BitLength => bit::len(s.bytes(i)) as i64,
                    _ => bit::len(s.bytes(i)).div_ceil(8) as i64,
                })
                .collect();
            let validity = strict_validity(&refs, rows);
            Ok(make_vector(
                DataType::BigInt,
                values,
                validity,
                args[0].constant,
            ))
        }
        B::Bitstring => {
            let n = Slot::<i32>::new(&args[1]);
            to_bits(&refs, len, |i, out| {
                let text = s.get(i);
                let want = n.get(i).max(0) as usize;
                if want < text.len() {
                    return Err(Error::invalid_input(
                        "Length must be equal or larger than input string",
                    ));
                }
                let padded = format!("{}{text}", "0".repeat(want - text.len()));
                out.push_blob(&bit::parse(&padded).map_err(Error::conversion)?);
                Ok(())
            })
        }
        B::GetBit => {
            let n = Slot::<i32>::new(&args[1]);
            map_rows(&refs, len, DataType::Integer, |i| {
                let (b, at) = (s.bytes(i), n.get(i));
                if at < 0 || at as usize >= bit::len(b) {
                    return Err(index_error(at, bit::len(b)));
                }
                Ok(bit::get(b, at as usize) as i32)
            })
        }
        B::SetBit => {
            let (n, v) = (Slot::<i32>::new(&args[1]), Slot::<i32>::new(&args[2]));
            to_bits(&refs, len, |i, out| {
                let (b, at, value) = (s.bytes(i), n.get(i), v.get(i));
                if value != 0 && value != 1 {
                    return Err(Error::invalid_input("The new bit must be 1 or 0"));
                }
                if at < 0 || at as usize >= bit::len(b) {
                    return Err(index_error(at, bit::len(b)));
                }
                let at = at as usize;
                out.push_blob(&bit::from_fn(bit::len(b), |j| match j == at {
                    true => value == 1,
                    false => bit::get(b, j),
                }));
                Ok(())
            })
        }
        B::BitPosition => {
            let hay = StrSlot::new(&args[1]);
            map_rows(&refs, len, DataType::Integer, |i| {
                let (needle, b) = (s.bytes(i), hay.bytes(i));
                let (m, n) = (bit::len(needle), bit::len(b));
                let found = (0..(n + 1).saturating_sub(m))
                    .find(|&start| (0..m).all(|k| bit::get(b, start + k) == bit::get(needle, k)));
                Ok(found.map_or(0, |p| p as i32 + 1))
            })
        }
        B::And | B::Or | B::Xor => {
            let other = StrSlot::new(&args[1]);
            let what = match f {
                B::And => "AND",
                B::Or => "OR",
                _ => "XOR",
            };
            to_bits(&refs, len, |i, out| {
                let (a, b) = (s.bytes(i), other.bytes(i));
                let n = bit::len(a);
                if n != bit::len(b) {
                    return Err(Error::invalid_input(format!(
                        "Cannot {what} bit strings of different sizes"
                    )));
                }
                out.push_blob(&bit::from_fn(n, |j| {
                    let (x, y) = (bit::get(a, j), bit::get(b, j));
                    match f {
                        B::And => x && y,
                        B::Or => x || y,
                        _ => x != y,
                    }
                }));
                Ok(())
            })
        }
        B::Not => to_bits(&refs, len, |i, out| {
            let a = s.bytes(i);
            out.push_blob(&bit::from_fn(bit::len(a), |j| !bit::get(a, j)));
            Ok(())
        }),
        B::ShiftLeft | B::ShiftRight => {
            let k = Slot::<i32>::new(&args[1]);
            to_bits(&refs, len, |i, out| {
                let (a, k) = (s.bytes(i), k.get(i) as i64);
                let n = bit::len(a) as i64;
                let from = |j: usize| match f {
                    B::ShiftLeft => j as i64 + k,
                    _ => j as i64 - k,
                };
                out.push_blob(&bit::from_fn(n as usize, |j| {
                    let src = from(j);
                    (0..n).contains(&src) && bit::get(a, src as usize)
                }));
                Ok(())
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::ScalarValue::{self, *};

    fn b(text: &str) -> ScalarValue {
        Bit(stride_common::bit::parse(text).unwrap())
    }

    #[test]
    fn bit_functions() {
        assert_eq!(eval("bit_count", &[b("1101")]).unwrap(), BigInt(3));
        assert_eq!(eval("bit_length", &[b("1101")]).unwrap(), BigInt(4));
        assert_eq!(eval("octet_length", &[b("1101101101")]).unwrap(), BigInt(2));
        assert_eq!(
            eval("get_bit", &[b("0110010"), Integer(2)]).unwrap(),
            Integer(1)
        );
        assert_eq!(
            eval("set_bit", &[b("0110010"), Integer(1), Integer(0)]).unwrap(),
            b("0010010")
        );
        assert_eq!(
            eval("bit_position", &[b("010"), b("1110101")]).unwrap(),
            Integer(4)
        );
        assert_eq!(eval("&", &[b("10101"), b("10001")]).unwrap(), b("10001"));
        assert_eq!(eval("xor", &[b("101"), b("001")]).unwrap(), b("100"));
        assert_eq!(eval("~", &[b("101")]).unwrap(), b("010"));
        assert_eq!(
            eval("<<", &[b("1001011"), Integer(3)]).unwrap(),
            b("1011000")
        );
        assert_eq!(
            eval(">>", &[b("1001011"), Integer(3)]).unwrap(),
            b("0001001")
        );
        assert!(eval("&", &[b("101"), b("1")]).is_err());
        assert!(eval("get_bit", &[b("01"), Integer(5)]).is_err());
    }
}
