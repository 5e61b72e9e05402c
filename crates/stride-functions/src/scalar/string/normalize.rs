//! `nfc_normalize(s)`: `s` in Unicode normalization form C (canonical
//! composition: 'e' followed by a combining acute accent becomes 'é'). ASCII
//! strings are already normalized and are copied without decoding.

use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};
use unicode_normalization::UnicodeNormalization;

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::NfcNormalize,
        args,
        &[DataType::Varchar],
        DataType::Varchar,
    )
}

fn nfc_into(s: &str, buf: &mut String) {
    if s.is_ascii() {
        buf.push_str(s);
    } else {
        buf.extend(s.nfc());
    }
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    super::map_strings(&args[0], len, nfc_into)
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::ScalarValue::*;

    #[test]
    fn composes() {
        assert_eq!(
            eval("nfc_normalize", &[Varchar("e\u{301}t\u{e9}".into())]).unwrap(),
            Varchar("\u{e9}t\u{e9}".into())
        );
        assert_eq!(eval("nfc_normalize", &[Null]).unwrap(), Null);
    }
}
