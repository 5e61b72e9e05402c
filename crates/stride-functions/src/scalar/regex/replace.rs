//! `regexp_replace(s, pattern, replacement [, options])`: the first match of
//! `pattern` replaced (every match with option `g`). In the replacement `\0` is the
//! whole match, `\1` to `\9` a capture group ('' when it took no part), `\\` a
//! backslash; any other backslash is an error, and `$` is an ordinary character
//! (RE2's rewrite syntax, which DuckDB uses).

use super::options::{Options, Patterns};
use crate::kernels::{map_rows_to_strings, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use regex::{Captures, Regex};
use stride_common::{DataType, Error, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    let params = vec![DataType::Varchar; args.len()];
    if !(3..=4).contains(&args.len()) {
        return None;
    }
    fixed(
        ScalarFunction::RegexpReplace,
        args,
        &params,
        DataType::Varchar,
    )
}

/// One piece of a parsed replacement.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Text(String),
    Group(usize),
}

/// A parsed replacement string.
#[derive(Debug, Clone, PartialEq)]
struct Rewrite {
    pieces: Vec<Piece>,
    max_group: usize,
}

fn invalid(why: &str) -> Error {
    Error::invalid_input(format!(
        "Invalid replacement string for regexp_replace: {why}"
    ))
}

impl Rewrite {
    fn parse(r: &str) -> Result<Rewrite> {
        let mut pieces = Vec::new();
        let mut text = String::new();
        let mut max_group = 0;
        let mut chars = r.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                text.push(c);
                continue;
            }
            match chars.next() {
                Some('\\') => text.push('\\'),
                Some(d @ '0'..='9') => {
                    if !text.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut text)));
                    }
                    let g = d as usize - '0' as usize;
                    max_group = max_group.max(g);
                    pieces.push(Piece::Group(g));
                }
                Some(_) => {
                    return Err(invalid(
                        "Rewrite schema error: '\\' must be followed by a digit or '\\'.",
                    ))
                }
                None => return Err(invalid("Rewrite schema error: '\\' not allowed at end.")),
            }
        }
        if !text.is_empty() {
            pieces.push(Piece::Text(text));
        }
        Ok(Rewrite { pieces, max_group })
    }

    /// Checks the groups it names exist in `re`.
    fn check(&self, re: &Regex) -> Result<()> {
        let groups = re.captures_len() - 1;
        if self.max_group > groups {
            return Err(invalid(&format!(
                "Rewrite schema requests {} matches, but the regexp only has {groups} parenthesized subexpressions.",
                self.max_group
            )));
        }
        Ok(())
    }

    fn append(&self, caps: &Captures, out: &mut String) {
        for p in &self.pieces {
            match p {
                Piece::Text(t) => out.push_str(t),
                Piece::Group(g) => out.push_str(caps.get(*g).map_or("", |m| m.as_str())),
            }
        }
    }
}

/// `s` with the first (or every) match of `re` replaced by `rw`, into `out`.
fn replace_into(s: &str, re: &Regex, rw: &Rewrite, global: bool, out: &mut String) {
    let mut last = 0;
    for caps in re.captures_iter(s) {
        let m = caps.get(0).expect("group 0 always matches");
        out.push_str(&s[last..m.start()]);
        rw.append(&caps, out);
        last = m.end();
        if !global {
            break;
        }
    }
    out.push_str(&s[last..]);
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    let opts = Options::from_arg(args.get(3), len, "regexp_replace", true)?;
    let refs: Vec<&Vector> = args[..3].iter().collect();
    let s = StrSlot::new(&args[0]);
    let r = StrSlot::new(&args[2]);
    let mut patterns = Patterns::new(&args[1], opts)?;
    let constant_rewrite = if args[2].constant && args[2].is_valid(0) {
        Some(Rewrite::parse(r.get(0))?)
    } else {
        None
    };
    if let (Some(re), Some(rw)) = (patterns.constant(), &constant_rewrite) {
        rw.check(re)?;
    }
    let checked = args[1].constant && constant_rewrite.is_some();
    let mut buf = String::new();
    map_rows_to_strings(&refs, len, |i, out| {
        let re = patterns.get(i)?;
        let parsed;
        let rw = match &constant_rewrite {
            Some(rw) => rw,
            None => {
                parsed = Rewrite::parse(r.get(i))?;
                &parsed
            }
        };
        if !checked {
            rw.check(re)?;
        }
        buf.clear();
        replace_into(s.get(i), re, rw, opts.global, &mut buf);
        out.push(&buf);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::{self, *};

    #[test]
    fn replaces() {
        let x = |a: &[ScalarValue]| eval("regexp_replace", a).unwrap();
        assert_eq!(x(&[s("hello world"), s("o"), s("0")]), s("hell0 world"));
        assert_eq!(
            x(&[s("hello world"), s("o"), s("0"), s("g")]),
            s("hell0 w0rld")
        );
        assert_eq!(
            x(&[s("hello world"), s(r"(\w+) (\w+)"), s(r"\2 \1")]),
            s("world hello")
        );
        assert_eq!(x(&[s("abc"), s("b"), s(r"[\0]")]), s("a[b]c"));
        assert_eq!(x(&[s("abc"), s("b*"), s("-"), s("g")]), s("-a-c-"));
        assert_eq!(x(&[s("aaa"), s("A"), s("x"), s("gi")]), s("xxx"));
        assert_eq!(x(&[s("a.c"), s("."), s("x"), s("l")]), s("axc"));
        assert_eq!(
            x(&[s("ab"), s("(a)|(b)"), s(r"[\1\2]"), s("g")]),
            s("[a][b]")
        );
        assert_eq!(x(&[Null, s("b"), s("x")]), Null);
        assert_eq!(x(&[s("abc"), s("b"), Null]), Null);
        let e = eval("regexp_replace", &[s("abc"), s("(b)"), s(r"\3")]).unwrap_err();
        assert!(e.message.contains("requests 3 matches"), "{e}");
        let e = eval("regexp_replace", &[s("abc"), s("b"), s("x"), Null]).unwrap_err();
        assert_eq!(e.message, "Regex options field must not be NULL");
    }

    #[test]
    fn rewrites() {
        let rw = Rewrite::parse(r"a\1\\b\0").unwrap();
        assert_eq!(rw.max_group, 1);
        assert_eq!(
            rw.pieces,
            vec![
                Piece::Text("a".into()),
                Piece::Group(1),
                Piece::Text("\\b".into()),
                Piece::Group(0)
            ]
        );
        assert!(Rewrite::parse(r"\x").is_err());
        assert!(Rewrite::parse("x\\").is_err());
        assert_eq!(
            Rewrite::parse("$1").unwrap().pieces,
            vec![Piece::Text("$1".into())]
        );
    }
}
