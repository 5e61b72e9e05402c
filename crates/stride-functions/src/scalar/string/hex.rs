//! `to_hex(x)` (`hex`) and `to_binary(x)` (`bin`): an integer's two's-complement
//! 64-bit pattern in upper-case hexadecimal or binary without leading zeros ('0'
//! for 0), or a string's UTF-8 bytes (or a BLOB's bytes), two hexadecimal or eight
//! binary digits each.

use crate::kernels::{map_rows_to_strings, Slot, StrSlot};
use crate::scalar::signature::bind;
use crate::scalar::{BoundFunction, ScalarFunction};
use std::fmt::Write;
use stride_common::{DataType, Result, Vector};

fn resolve(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    let [t] = args else { return None };
    let param = match t {
        DataType::TinyInt
        | DataType::SmallInt
        | DataType::Integer
        | DataType::BigInt
        | DataType::UTinyInt
        | DataType::USmallInt
        | DataType::UInteger => DataType::BigInt,
        DataType::UBigInt => DataType::UBigInt,
        DataType::Varchar | DataType::Null => DataType::Varchar,
        DataType::Blob => DataType::Blob,
        _ => return None,
    };
    bind(func, vec![param], DataType::Varchar)
}

pub(crate) fn resolve_hex(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::ToHex, args)
}

pub(crate) fn resolve_bin(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::ToBinary, args)
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let hex = f.func == ScalarFunction::ToHex;
    let mut buf = String::new();
    if matches!(f.arg_types[0], DataType::BigInt | DataType::UBigInt) {
        // a UBIGINT is stored in an i128 (within 0..2^64)
        let (narrow, wide) = match f.arg_types[0] {
            DataType::BigInt => (Some(Slot::<i64>::new(&args[0])), None),
            _ => (None, Some(Slot::<i128>::new(&args[0]))),
        };
        return map_rows_to_strings(&[&args[0]], len, |i, out| {
            buf.clear();
            let x = match (narrow, wide) {
                (Some(v), _) => v.get(i) as u64,
                (_, Some(v)) => v.get(i) as u64,
                _ => 0,
            };
            let _ = if hex {
                write!(buf, "{x:X}")
            } else {
                write!(buf, "{x:b}")
            };
            out.push(&buf);
            Ok(())
        });
    }
    let s = StrSlot::new(&args[0]);
    map_rows_to_strings(&[&args[0]], len, |i, out| {
        buf.clear();
        for b in s.bytes(i) {
            let _ = if hex {
                write!(buf, "{b:02X}")
            } else {
                write!(buf, "{b:08b}")
            };
        }
        out.push(&buf);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::*;

    #[test]
    fn digits() {
        assert_eq!(eval("to_hex", &[Integer(255)]).unwrap(), s("FF"));
        assert_eq!(eval("hex", &[BigInt(-1)]).unwrap(), s("FFFFFFFFFFFFFFFF"));
        assert_eq!(eval("hex", &[Integer(0)]).unwrap(), s("0"));
        assert_eq!(eval("hex", &[s("é")]).unwrap(), s("C3A9"));
        assert_eq!(eval("hex", &[s("")]).unwrap(), s(""));
        assert_eq!(eval("bin", &[Integer(5)]).unwrap(), s("101"));
        assert_eq!(eval("to_binary", &[s("a")]).unwrap(), s("01100001"));
        assert_eq!(eval("bin", &[SmallInt(-1)]).unwrap(), s(&"1".repeat(64)));
        assert_eq!(eval("hex", &[Null]).unwrap(), Null);
        assert!(eval("hex", &[Double(1.5)]).is_err());
    }
}
