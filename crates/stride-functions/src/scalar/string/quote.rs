//! `quote_ident(s)`: `s` as an SQL identifier, double-quoted only when it must be
//! (not all lower-case letters, digits and underscores, or starting with a digit;
//! unlike PostgreSQL's, keywords are not quoted);
//! `quote_literal(s)`: `s` as a string literal, quotes doubled (and written as an E''
//! string when it holds backslashes, as PostgreSQL does).

use crate::kernels::{map_rows_to_strings, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};

pub(crate) fn resolve_quote_ident(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::QuoteIdent,
        args,
        &[DataType::Varchar],
        DataType::Varchar,
    )
}

pub(crate) fn resolve_quote_literal(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::QuoteLiteral,
        args,
        &[DataType::Varchar],
        DataType::Varchar,
    )
}

fn plain_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

pub(crate) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let s = StrSlot::new(&args[0]);
    map_rows_to_strings(&[&args[0]], len, |i, out| {
        let v = s.get(i);
        if func == ScalarFunction::QuoteIdent {
            if plain_identifier(v) {
                out.push(v);
            } else {
                out.push(&format!("\"{}\"", v.replace('"', "\"\"")));
            }
        } else {
            let body = v.replace('\'', "''");
            if v.contains('\\') {
                out.push(&format!("E'{}'", body.replace('\\', "\\\\")));
            } else {
                out.push(&format!("'{body}'"));
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::ScalarValue::*;

    #[test]
    fn quoting() {
        let q = |f: &str, s: &str| eval(f, &[Varchar(s.into())]).unwrap();
        assert_eq!(q("quote_ident", "abc_1"), Varchar("abc_1".into()));
        assert_eq!(q("quote_ident", "Abc"), Varchar("\"Abc\"".into()));
        assert_eq!(q("quote_ident", "a\"b"), Varchar("\"a\"\"b\"".into()));
        assert_eq!(q("quote_ident", "1a"), Varchar("\"1a\"".into()));
        assert_eq!(q("quote_literal", "it's"), Varchar("'it''s'".into()));
        assert_eq!(q("quote_literal", "a\\b"), Varchar("E'a\\\\b'".into()));
    }
}
