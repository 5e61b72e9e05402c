//! `repeat(s, n)`: `s` concatenated `n` times; empty for `n <= 0`.

use super::{too_long, MAX_STRING_BYTES};
use crate::kernels::{map_rows_to_strings, Slot, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::Repeat,
        args,
        &[DataType::Varchar, DataType::BigInt],
        DataType::Varchar,
    )
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    let (s, n) = (StrSlot::new(&args[0]), Slot::<i64>::new(&args[1]));
    let mut buf = String::new();
    map_rows_to_strings(&[&args[0], &args[1]], len, |i, out| {
        let (s, n) = (s.get(i), n.get(i));
        if n <= 0 || s.is_empty() {
            out.push("");
            return Ok(());
        }
        if (n as u64).saturating_mul(s.len() as u64) > MAX_STRING_BYTES as u64 {
            return Err(too_long());
        }
        buf.clear();
        for _ in 0..n {
            buf.push_str(s);
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
    fn repeats() {
        assert_eq!(eval("repeat", &[s("ab"), Integer(3)]).unwrap(), s("ababab"));
        assert_eq!(eval("repeat", &[s("ab"), Integer(0)]).unwrap(), s(""));
        assert_eq!(eval("repeat", &[s("ab"), Integer(-2)]).unwrap(), s(""));
        assert_eq!(eval("repeat", &[s(""), BigInt(i64::MAX)]).unwrap(), s(""));
        assert!(eval("repeat", &[s("ab"), BigInt(i64::MAX)]).is_err());
    }
}
