//! `lower`, `upper` and `initcap`. ASCII strings take a byte-wise fast path;
//! others go through Unicode case mapping (which may change the byte length, e.g.
//! 'ß' upper-cases to 'SS').

use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};

pub(crate) fn resolve_lower(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::Lower,
        args,
        &[DataType::Varchar],
        DataType::Varchar,
    )
}

pub(crate) fn resolve_upper(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::Upper,
        args,
        &[DataType::Varchar],
        DataType::Varchar,
    )
}

pub(crate) fn resolve_initcap(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::Initcap,
        args,
        &[DataType::Varchar],
        DataType::Varchar,
    )
}

fn lower_into(s: &str, buf: &mut String) {
    if s.is_ascii() {
        buf.push_str(s);
        buf.make_ascii_lowercase();
    } else {
        // 'İ' (U+0130) is the one character whose full lower case has two ('i' and a
        // combining dot): like DuckDB, map it to plain 'i', so that lower never
        // lengthens a string by characters and 'İ' meets 'i' under NOCASE.
        for c in s.chars() {
            match c {
                '\u{130}' => buf.push('i'),
                c => buf.extend(c.to_lowercase()),
            }
        }
    }
}

fn upper_into(s: &str, buf: &mut String) {
    if s.is_ascii() {
        buf.push_str(s);
        buf.make_ascii_uppercase();
    } else {
        buf.extend(s.chars().flat_map(char::to_uppercase));
    }
}

/// PostgreSQL's initcap: the first letter of each alphanumeric run upper-cased, the
/// rest lower-cased.
fn initcap_into(s: &str, buf: &mut String) {
    let mut in_word = false;
    for c in s.chars() {
        if in_word {
            buf.extend(c.to_lowercase());
        } else {
            buf.extend(c.to_uppercase());
        }
        in_word = c.is_alphanumeric();
    }
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let map: fn(&str, &mut String) = match func {
        ScalarFunction::Lower => lower_into,
        ScalarFunction::Upper => upper_into,
        _ => initcap_into,
    };
    super::map_strings(&args[0], len, map)
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::*;

    #[test]
    fn cases() {
        assert_eq!(
            eval("lower", &[s("İstanbul ÀÉ")]).unwrap(),
            s("istanbul àé")
        );
        assert_eq!(eval("lower", &[s("HeLLo")]).unwrap(), s("hello"));
        assert_eq!(eval("lcase", &[s("ÉCOLE")]).unwrap(), s("école"));
        assert_eq!(eval("upper", &[s("straße")]).unwrap(), s("STRASSE"));
        assert_eq!(eval("ucase", &[s("abc")]).unwrap(), s("ABC"));
        assert_eq!(
            eval("initcap", &[s("hello wORLD-foo")]).unwrap(),
            s("Hello World-Foo")
        );
        assert_eq!(eval("upper", &[Null]).unwrap(), Null);
    }
}
