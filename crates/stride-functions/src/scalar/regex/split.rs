//! `regexp_split_to_array(s, pattern [, options])` (`string_split_regex`,
//! `str_split_regex`): the pieces of `s` between matches of `pattern`, as a
//! VARCHAR[]. DuckDB's splitting rule: each search starts where the last piece
//! ended, and an empty match at that point splits off one character instead (so
//! an empty pattern splits into characters). A NULL pattern leaves `s` whole; ''
//! gives [''], or [] with the empty pattern (DuckDB 2.0).

use super::options::{Options, Patterns};
use crate::kernels::{map_rows_to_string_lists, StrListRow, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use regex::Regex;
use stride_common::{DataType, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    let params = vec![DataType::Varchar; args.len()];
    if !(2..=3).contains(&args.len()) {
        return None;
    }
    fixed(
        ScalarFunction::RegexpSplitToArray,
        args,
        &params,
        DataType::List(Box::new(DataType::Varchar)),
    )
}

/// Appends the pieces of `s` split at matches of `re`.
fn split_into(mut s: &str, re: &Regex, out: &mut StrListRow) {
    // an empty string is one empty piece (DuckDB 2.0), except with the empty
    // pattern, which splits a string into its characters: none
    if s.is_empty() && re.as_str().is_empty() {
        return;
    }
    while !s.is_empty() {
        let Some(m) = re.find(s) else { break };
        let (mut pos, size) = (m.start(), m.len());
        if size == 0 && pos == 0 {
            // an empty match where the piece starts: take one character
            pos = s.chars().next().map_or(s.len(), char::len_utf8);
            if pos == s.len() {
                break;
            }
        }
        out.push(&s[..pos]);
        s = &s[pos + size..];
    }
    out.push(s);
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    let opts = Options::from_arg(args.get(2), len, "regexp_split_to_array", false)?;
    let refs: Vec<&Vector> = args.iter().collect();
    let s = StrSlot::new(&args[0]);
    let pattern = &args[1];
    let mut patterns = Patterns::new(pattern, opts)?;
    map_rows_to_string_lists(&[&args[0]], &refs, len, |i, out| {
        if !pattern.is_valid(i) {
            out.push(s.get(i));
            return Ok(());
        }
        split_into(s.get(i), patterns.get(i)?, out);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::{text as s, text_list as list};

    use stride_common::ScalarValue::{self, *};

    #[test]
    fn splits() {
        let x = |a: &[ScalarValue]| eval("regexp_split_to_array", a).unwrap();
        assert_eq!(x(&[s("a1b2c"), s("[0-9]")]), list(&["a", "b", "c"]));
        assert_eq!(x(&[s("abc"), s("")]), list(&["a", "b", "c"]));
        assert_eq!(x(&[s("héllo"), s("")]), list(&["h", "é", "l", "l", "o"]));
        assert_eq!(x(&[s("abc"), s("b*")]), list(&["a", "", "c"]));
        assert_eq!(x(&[s(""), s(",")]), list(&[""]));
        assert_eq!(x(&[s(""), s("a*")]), list(&[""]));
        assert_eq!(x(&[s(""), s("")]), list(&[]));
        assert_eq!(x(&[s("a,b,"), s(",")]), list(&["a", "b", ""]));
        assert_eq!(x(&[s("aXbxc"), s("x"), s("i")]), list(&["a", "b", "c"]));
        assert_eq!(x(&[s("a"), Null]), list(&["a"]));
        assert_eq!(x(&[Null, s(",")]), Null);
        assert_eq!(
            eval("str_split_regex", &[s("a b"), s(" ")]).unwrap(),
            list(&["a", "b"])
        );
    }
}
