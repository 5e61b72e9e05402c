//! `string_split(s, separator)` (`str_split`, `string_to_array`, `split`): the
//! pieces of `s` between occurrences of `separator`, as a VARCHAR[]. An empty
//! separator splits `s` into its characters ('' gives an empty list); a NULL
//! separator leaves `s` whole (DuckDB).

use crate::kernels::{map_rows_to_string_lists, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::StringSplit,
        args,
        &[DataType::Varchar, DataType::Varchar],
        DataType::List(Box::new(DataType::Varchar)),
    )
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    let (s, sep) = (StrSlot::new(&args[0]), StrSlot::new(&args[1]));
    let sep_vec = &args[1];
    map_rows_to_string_lists(&[&args[0]], &[&args[0], &args[1]], len, |i, out| {
        let text = s.get(i);
        if !sep_vec.is_valid(i) {
            out.push(text);
            return Ok(());
        }
        let d = sep.get(i);
        if d.is_empty() {
            let mut rest = text;
            while let Some(c) = rest.chars().next() {
                out.push(&rest[..c.len_utf8()]);
                rest = &rest[c.len_utf8()..];
            }
        } else {
            for piece in text.split(d) {
                out.push(piece);
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::{text as s, text_list as list};

    use stride_common::ScalarValue::*;

    #[test]
    fn splits() {
        let x = |a: &str, b: &str| eval("string_split", &[s(a), s(b)]).unwrap();
        assert_eq!(x("a,b,,c", ","), list(&["a", "b", "", "c"]));
        assert_eq!(x("héllo", ""), list(&["h", "é", "l", "l", "o"]));
        assert_eq!(x("", ","), list(&[""]));
        assert_eq!(x("", ""), list(&[]));
        assert_eq!(x("a::b", "::"), list(&["a", "b"]));
        assert_eq!(eval("split", &[s("abc"), Null]).unwrap(), list(&["abc"]));
        assert_eq!(eval("str_split", &[Null, s(",")]).unwrap(), Null);
    }
}
