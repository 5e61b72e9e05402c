//! `length` (characters), `octet_length` (bytes), `bit_length` (bits) and
//! `length_grapheme` (extended grapheme clusters: what a reader sees as one
//! character), all BIGINT. The byte length is read from the string view without
//! touching the string body.

use super::char_count;
use crate::kernels::{make_vector, strict_validity};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};
use unicode_segmentation::UnicodeSegmentation;

pub(crate) fn resolve_length(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::Length,
        args,
        &[DataType::Varchar],
        DataType::BigInt,
    )
}

pub(crate) fn resolve_octet_length(args: &[DataType]) -> Option<BoundFunction> {
    if let [DataType::Blob] = args {
        return crate::scalar::signature::bind(
            ScalarFunction::OctetLength,
            vec![DataType::Blob],
            DataType::BigInt,
        );
    }
    fixed(
        ScalarFunction::OctetLength,
        args,
        &[DataType::Varchar],
        DataType::BigInt,
    )
}

pub(crate) fn resolve_bit_length(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::BitLength,
        args,
        &[DataType::Varchar],
        DataType::BigInt,
    )
}

pub(crate) fn resolve_length_grapheme(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::LengthGrapheme,
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
    let values: Vec<i64> = match func {
        ScalarFunction::OctetLength => views.iter().map(|w| w.len() as i64).collect(),
        ScalarFunction::BitLength => views.iter().map(|w| w.len() as i64 * 8).collect(),
        ScalarFunction::LengthGrapheme => (0..rows)
            .map(|i| {
                let s = sv.get(i);
                if s.is_ascii() && !s.contains('\r') {
                    s.len() as i64
                } else {
                    s.graphemes(true).count() as i64
                }
            })
            .collect(),
        _ => (0..rows).map(|i| char_count(sv.get(i)) as i64).collect(),
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
        assert_eq!(
            eval("bit_length", &[Varchar("é".into())]).unwrap(),
            BigInt(16)
        );
        assert_eq!(
            eval("length_grapheme", &[Varchar("🤦🏼‍♂️ hi".into())]).unwrap(),
            BigInt(4)
        );
        assert_eq!(
            eval("length_grapheme", &[Varchar("a\r\nb".into())]).unwrap(),
            BigInt(3)
        );
    }
}
