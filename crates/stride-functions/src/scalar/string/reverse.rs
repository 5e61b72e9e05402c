//! `reverse(s)`: the characters of `s` in reverse order (code points, so multi-byte
//! characters stay intact).

use crate::kernels::{map_rows_to_strings, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::Reverse,
        args,
        &[DataType::Varchar],
        DataType::Varchar,
    )
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    let s = StrSlot::new(&args[0]);
    let mut buf = String::new();
    map_rows_to_strings(&[&args[0]], len, |i, out| {
        buf.clear();
        buf.extend(s.get(i).chars().rev());
        out.push(&buf);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::ScalarValue::{self, *};

    #[test]
    fn reverses() {
        let s = |x: &str| -> ScalarValue { Varchar(x.into()) };
        assert_eq!(eval("reverse", &[s("abc")]).unwrap(), s("cba"));
        assert_eq!(eval("reverse", &[s("日本語")]).unwrap(), s("語本日"));
        assert_eq!(eval("reverse", &[s("")]).unwrap(), s(""));
    }
}
