//! `strip_accents`: a string without its accents, as the `NOACCENT` collation compares
//! strings. Each character is decomposed canonically (Unicode NFD: 'é' becomes 'e'
//! followed by a combining acute accent) and the combining marks are dropped, so
//! 'Crème Brûlée' becomes 'Creme Brulee'. Letters with no decomposition, such as 'ø'
//! or 'ß', stay as they are. ASCII strings are returned unchanged without decoding.

use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};
use unicode_normalization::char::{decompose_canonical, is_combining_mark};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::StripAccents,
        args,
        &[DataType::Varchar],
        DataType::Varchar,
    )
}

fn strip_into(s: &str, buf: &mut String) {
    if s.is_ascii() {
        buf.push_str(s);
        return;
    }
    for c in s.chars() {
        decompose_canonical(c, |d| {
            if !is_combining_mark(d) {
                buf.push(d);
            }
        });
    }
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    super::map_strings(&args[0], len, strip_into)
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::*;

    #[test]
    fn accents_go_and_base_letters_stay() {
        assert_eq!(
            eval("strip_accents", &[s("Crème Brûlée")]).unwrap(),
            s("Creme Brulee")
        );
        assert_eq!(
            eval("strip_accents", &[s("ÅÄÖ ñ ç")]).unwrap(),
            s("AAO n c")
        );
        // No canonical decomposition: unchanged.
        assert_eq!(eval("strip_accents", &[s("øßŁ")]).unwrap(), s("øßŁ"));
        assert_eq!(eval("strip_accents", &[s("plain")]).unwrap(), s("plain"));
        assert_eq!(eval("strip_accents", &[Null]).unwrap(), Null);
    }
}
