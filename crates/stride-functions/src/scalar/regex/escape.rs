//! `regexp_escape(s)`: `s` with every character that could mean something in a
//! pattern escaped by a backslash: everything but ASCII letters, digits and `_`,
//! and non-ASCII characters, which stay as they are (RE2's QuoteMeta, as DuckDB).

use crate::scalar::signature::fixed;
use crate::scalar::string::map_strings;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::RegexpEscape,
        args,
        &[DataType::Varchar],
        DataType::Varchar,
    )
}

fn escape(s: &str, out: &mut String) {
    for c in s.chars() {
        if c == '\0' {
            out.push_str("\\x00");
            continue;
        }
        if !(c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii()) {
            out.push('\\');
        }
        out.push(c);
    }
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    map_strings(&args[0], len, escape)
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::*;

    #[test]
    fn escapes() {
        assert_eq!(eval("regexp_escape", &[s("a.b*c")]).unwrap(), s(r"a\.b\*c"));
        assert_eq!(
            eval("regexp_escape", &[s("hé l_1")]).unwrap(),
            s(r"hé\ l_1")
        );
        assert_eq!(eval("regexp_escape", &[Null]).unwrap(), Null);
    }
}
