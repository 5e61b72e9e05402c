//! `length` (characters) and `octet_length` (bytes), both BIGINT. The byte length
//! is read from the string view without touching the string body.

use super::char_count;
use crate::kernels::{make_vector, strict_validity};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};

pub(crate) fn resolve_length(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::Length,
        args,
        &[DataType::Varchar],
        DataType::BigInt,
    )
}

pub(crate) fn resolve_octet_length(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::OctetLength,
        args,
        &[DataType::Varchar],
        DataType::BigInt,
    )
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let v = &args[0];
    let rows = if v.constant { 1 } else { len };
    let sv = v.strings();
    let views = &sv.views[..rows];
    let values: Vec<i64> = if func == ScalarFunction::OctetLength {
        views.iter().map(|w| w.len() as i64).collect()
    } else {
        (0..rows).map(|i| char_count(sv.get(i)) as i64).collect()
    };
    let validity = strict_validity(&[v], rows);
    Ok(make_vector(DataType::BigInt, values, validity, v.constant))
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::ScalarValue::*;

    #[test]
    fn lengths() {
        assert_eq!(
            eval("length", &[Varchar("héllo".into())]).unwrap(),
            BigInt(5)
        );
        assert_eq!(eval("len", &[Varchar("".into())]).unwrap(), BigInt(0));
        assert_eq!(
            eval("octet_length", &[Varchar("héllo".into())]).unwrap(),
            BigInt(6)
        );
        assert_eq!(eval("char_length", &[Null]).unwrap(), Null);
        assert!(eval("length", &[Integer(1)]).is_err());
    }
}
