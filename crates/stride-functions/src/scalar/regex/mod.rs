//! Regular expression matching: `regexp_matches(s, pattern [, flags])` and
//! PostgreSQL's operators `~` (matches) and `~*` (matches ignoring case); the binder
//! writes `!~` and `!~*` as their negation. Like PostgreSQL's, a match may lie anywhere
//! in the string unless the pattern anchors it. `regexp_full_match(s, pattern [,
//! flags])`, which the binder also writes for `s SIMILAR TO pattern` as DuckDB does,
//! must match the whole string. In all of them `.` stops at newlines unless flag `s`
//! is given, and `^` / `$` match only at the ends of the string, as in DuckDB
//! (PostgreSQL's `.` matches newlines). Patterns use the `regex` crate's
//! syntax, which covers PostgreSQL's everyday regular expressions (classes,
//! quantifiers, alternation, anchors) but not back-references or look-around; such a
//! pattern is refused with an error naming the problem. `\w`, `\d`, `\s` and `\b` are
//! ASCII, as in DuckDB's RE2 (`classes`). A constant pattern is compiled once per
//! chunk.
//!
//! DuckDB's extraction, replacement, splitting and escaping functions live in the
//! submodules, with DuckDB's options (`options`): there `.` stops at newlines unless
//! option `s` is given, as in DuckDB.

pub(crate) mod classes;
pub(crate) mod escape;
pub(crate) mod extract;
pub(crate) mod options;
pub(crate) mod replace;
pub(crate) mod split;

use super::signature::fixed;
use super::{BoundFunction, ScalarFunction};
use crate::kernels::{map_rows, StrSlot};
use regex::{Regex, RegexBuilder};
use std::borrow::Cow;
use std::collections::HashMap;
use stride_common::{DataType, Error, Result, Vector};

/// Patterns compiled while evaluating one chunk with a non-constant pattern.
const MAX_CACHED_PATTERNS: usize = 256;

pub(crate) fn resolve_regexp_matches(args: &[DataType]) -> Option<BoundFunction> {
    let v = DataType::Varchar;
    match args.len() {
        2 => fixed(
            ScalarFunction::RegexpMatches,
            args,
            &[v.clone(), v],
            DataType::Boolean,
        ),
        3 => fixed(
            ScalarFunction::RegexpMatches,
            args,
            &[v.clone(), v.clone(), v],
            DataType::Boolean,
        ),
        _ => None,
    }
}

pub(crate) fn resolve_regexp_full_match(args: &[DataType]) -> Option<BoundFunction> {
    resolve_regexp_matches(args).map(|b| BoundFunction {
        func: ScalarFunction::RegexpFullMatch,
        ..b
    })
}

pub(crate) fn resolve_imatch(args: &[DataType]) -> Option<BoundFunction> {
    let v = DataType::Varchar;
    fixed(
        ScalarFunction::RegexpIMatches,
        args,
        &[v.clone(), v],
        DataType::Boolean,
    )
}

fn compile(pattern: &str, flags: &str, full: bool) -> Result<Regex> {
    // `l`: the pattern is a literal string
    let rewritten = if flags.contains('l') {
        Cow::Owned(regex::escape(pattern))
    } else {
        classes::ascii_shorthands(pattern)
    };
    let anchored;
    let mut b = RegexBuilder::new(if full {
        anchored = format!(r"\A(?:{rewritten})\z");
        &anchored
    } else {
        &rewritten
    });
    for f in flags.chars() {
        match f {
            'i' => b.case_insensitive(true),
            'c' => b.case_insensitive(false),
            // newline-sensitive matching, the default: `.` stops at newlines
            'n' | 'm' | 'p' => b.dot_matches_new_line(false),
            's' => b.dot_matches_new_line(true),
            'x' => b.ignore_whitespace(true),
            'g' | 'l' => &mut b,
            other => {
                return Err(Error::invalid_input(format!(
                "invalid regular expression option: \"{other}\" (supported: i, c, l, n, m, p, s, x, g)"
            )))
            }
        };
    }
    b.size_limit(1 << 24)
        .build()
        .map_err(|e| Error::invalid_input(format!("invalid regular expression \"{pattern}\": {e}")))
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    match f.func {
        ScalarFunction::RegexpExtract | ScalarFunction::RegexpExtractAll => {
            return extract::evaluate(f, args, len)
        }
        ScalarFunction::RegexpReplace => return replace::evaluate(args, len),
        ScalarFunction::RegexpSplitToArray => return split::evaluate(args, len),
        ScalarFunction::RegexpEscape => return escape::evaluate(args, len),
        _ => {}
    }
    let refs: Vec<&Vector> = args.iter().collect();
    let s = StrSlot::new(&args[0]);
    let p = StrSlot::new(&args[1]);
    let flags = args.get(2).map(StrSlot::new);
    let insensitive = f.func == ScalarFunction::RegexpIMatches;
    let full = f.func == ScalarFunction::RegexpFullMatch;
    let flags_of = |i: usize| -> String {
        let mut fl = flags.map(|f| f.get(i).to_string()).unwrap_or_default();
        if insensitive {
            fl.push('i');
        }
        fl
    };
    let pattern_constant = args[1].constant && args.get(2).is_none_or(|a| a.constant);
    if pattern_constant && args[1].is_valid(0) && args.get(2).is_none_or(|a| a.is_valid(0)) {
        let re = compile(p.get(0), &flags_of(0), full)?;
        return map_rows(&refs, len, DataType::Boolean, |i| Ok(re.is_match(s.get(i))));
    }
    let mut cache: HashMap<(String, String), Regex> = HashMap::new();
    map_rows(&refs, len, DataType::Boolean, |i| {
        let key = (p.get(i).to_string(), flags_of(i));
        if !cache.contains_key(&key) {
            if cache.len() >= MAX_CACHED_PATTERNS {
                cache.clear();
            }
            let re = compile(&key.0, &key.1, full)?;
            cache.insert(key.clone(), re);
        }
        Ok(cache[&key].is_match(s.get(i)))
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::*;

    #[test]
    fn matches_anywhere_unless_anchored() {
        assert_eq!(
            eval("~", &[s("pg_toast"), s("^pg_")]).unwrap(),
            Boolean(true)
        );
        assert_eq!(eval("~", &[s("main"), s("^pg_")]).unwrap(), Boolean(false));
        assert_eq!(eval("~", &[s("abc"), s("b")]).unwrap(), Boolean(true));
        assert_eq!(eval("~", &[s("t"), s("^(t)$")]).unwrap(), Boolean(true));
        assert_eq!(eval("~", &[s("tt"), s("^(t)$")]).unwrap(), Boolean(false));
        assert_eq!(eval("~*", &[s("ABC"), s("^abc$")]).unwrap(), Boolean(true));
        assert_eq!(
            eval("regexp_matches", &[s("ABC"), s("b"), s("i")]).unwrap(),
            Boolean(true)
        );
        assert_eq!(eval("~", &[Null, s("x")]).unwrap(), Null);
        let e = eval("~", &[s("x"), s("(")]).unwrap_err();
        assert!(e.message.contains("invalid regular expression"), "{e}");
        assert!(eval("regexp_matches", &[s("x"), s("x"), s("q")]).is_err());
    }

    #[test]
    fn full_match_covers_the_whole_string() {
        let full = |x: &str, p: &str| eval("regexp_full_match", &[s(x), s(p)]).unwrap();
        assert_eq!(full("abc", "a.*"), Boolean(true));
        assert_eq!(full("abc", "b"), Boolean(false));
        assert_eq!(full("ab", "a|ab"), Boolean(true));
        assert_eq!(full("abc\nd", "abc.d"), Boolean(false));
        assert_eq!(
            eval("regexp_full_match", &[s("ABC"), s("abc"), s("i")]).unwrap(),
            Boolean(true)
        );
    }
}
