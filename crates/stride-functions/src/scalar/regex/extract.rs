//! `regexp_extract(s, pattern [, group] [, options])`: the first match of `pattern`
//! in `s` (or its capture group `group`, 0 to 9), '' when nothing matches or the
//! group took no part in the match; and `regexp_extract_all(s, pattern [, group [,
//! options]])`: that group of every match, left to right, as a VARCHAR[] (a group
//! that took no part is a NULL element). Empty matches count, each followed by a
//! step of one character (DuckDB's rule, so `regexp_extract_all('abc', 'b*')` has
//! four elements). DuckDB's form with a list of group names (which returns a
//! STRUCT) is not supported.

use super::options::{Options, Patterns};
use crate::kernels::{map_rows_to_string_lists, map_rows_to_strings, Slot, StrSlot};
use crate::scalar::signature::{bind, castable};
use crate::scalar::{BoundFunction, ScalarFunction};
use regex::{CaptureLocations, Regex};
use stride_common::{DataType, Error, Result, Vector};

/// Binds `(s, pattern [, group INTEGER] [, options VARCHAR])`; with `group_needed`
/// the options come only after a group (regexp_extract_all).
fn resolve(func: ScalarFunction, args: &[DataType], ret: DataType) -> Option<BoundFunction> {
    use DataType::{Integer, Varchar};
    let text = |t: &DataType| castable(t, &Varchar);
    let int = |t: &DataType| *t != Varchar && castable(t, &Integer);
    let params = match args {
        [s, p] if text(s) && text(p) => vec![Varchar, Varchar],
        [s, p, g] if text(s) && text(p) && int(g) => vec![Varchar, Varchar, Integer],
        [s, p, o] if func == ScalarFunction::RegexpExtract && text(s) && text(p) && text(o) => {
            vec![Varchar, Varchar, Varchar]
        }
        [s, p, g, o] if text(s) && text(p) && int(g) && text(o) => {
            vec![Varchar, Varchar, Integer, Varchar]
        }
        _ => return None,
    };
    bind(func, params, ret)
}

pub(crate) fn resolve_extract(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::RegexpExtract, args, DataType::Varchar)
}

pub(crate) fn resolve_extract_all(args: &[DataType]) -> Option<BoundFunction> {
    resolve(
        ScalarFunction::RegexpExtractAll,
        args,
        DataType::List(Box::new(DataType::Varchar)),
    )
}

/// A byte range of a string.
type Span = (usize, usize);

/// The span of group `g` of the match at or after byte `at`: `None` when nothing
/// matches, `Some(None)` when the group took no part, with the whole match's span.
#[inline]
fn group_at(
    re: &Regex,
    locs: &mut CaptureLocations,
    s: &str,
    at: usize,
    g: usize,
) -> Option<(Span, Option<Span>)> {
    let m = re.captures_read_at(locs, s, at)?;
    Some(((m.start(), m.end()), locs.get(g)))
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let all = f.func == ScalarFunction::RegexpExtractAll;
    let name = if all {
        "regexp_extract_all"
    } else {
        "regexp_extract"
    };
    let group_arg = (f.arg_types.get(2) == Some(&DataType::Integer)).then(|| &args[2]);
    let options_arg = match f.arg_types.len() {
        4 => Some(&args[3]),
        3 if group_arg.is_none() => Some(&args[2]),
        _ => None,
    };
    let opts = Options::from_arg(options_arg, len, name, false)?;
    let strict: Vec<&Vector> = args[..f.arg_types.len().min(3)].iter().collect();
    let refs: Vec<&Vector> = args.iter().collect();
    let s = StrSlot::new(&args[0]);
    let mut patterns = Patterns::new(&args[1], opts)?;
    let mut locs = patterns.constant().map(Regex::capture_locations);
    let varying = !args[1].constant;
    if !all {
        let group = match group_arg {
            None => 0,
            Some(g) => {
                let vals = Slot::<i32>::new(g);
                let rows = if g.constant { 1 } else { len };
                let first = g.is_valid(0).then(|| vals.get(0));
                if (1..rows).any(|i| g.is_valid(i).then(|| vals.get(i)) != first) {
                    return Err(Error::invalid_input(
                        "The \"group\" argument in function \"regexp_extract\" must be a constant expression",
                    ));
                }
                let g = first.unwrap_or(0);
                if !(0..=9).contains(&g) {
                    return Err(Error::invalid_input("Group index must be between 0 and 9!"));
                }
                g as usize
            }
        };
        return map_rows_to_strings(&refs, len, |i, out| {
            let re = patterns.get(i)?;
            let text = s.get(i);
            let span = if group == 0 {
                re.find(text).map(|m| (m.start(), m.end()))
            } else if group >= re.captures_len() {
                None
            } else {
                // a per-row pattern needs locations sized for it
                if varying || locs.is_none() {
                    locs = Some(re.capture_locations());
                }
                let l = locs.as_mut().expect("set above");
                group_at(re, l, text, 0, group).and_then(|(_, g)| g)
            };
            out.push(span.map_or("", |(a, b)| &text[a..b]));
            Ok(())
        });
    }
    let group = group_arg.map(Slot::<i32>::new);
    map_rows_to_string_lists(&strict, &refs, len, |i, out| {
        let re = patterns.get(i)?;
        let g = group.map_or(0, |g| g.get(i));
        if g < 0 {
            return Ok(());
        }
        let g = g as usize;
        if g >= re.captures_len() {
            return Err(Error::invalid_input(format!(
                "Pattern has {} groups. Cannot access group {g}",
                re.captures_len() - 1
            )));
        }
        if varying || locs.is_none() {
            locs = Some(re.capture_locations());
        }
        let locs = locs.as_mut().expect("set above");
        let text = s.get(i);
        let mut at = 0;
        // an empty string holds one empty match of a pattern that matches it
        // (DuckDB 2.0: `regexp_extract_all('', 'a*')` is [''])
        while at <= text.len() {
            let Some(((start, end), span)) = group_at(re, locs, text, at, g) else {
                break;
            };
            match span {
                Some((a, b)) => out.push(&text[a..b]),
                None => out.push_null(),
            }
            at = if end > start {
                end
            } else {
                // an empty match: step over one character
                end + text[end..].chars().next().map_or(1, char::len_utf8)
            };
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::DataType;
    use stride_common::ScalarValue::{self, *};

    fn list(items: &[Option<&str>]) -> ScalarValue {
        List(
            DataType::Varchar,
            items.iter().map(|x| x.map_or(Null, s)).collect(),
        )
    }

    #[test]
    fn extract() {
        let x = |a: &[ScalarValue]| eval("regexp_extract", a).unwrap();
        assert_eq!(x(&[s("abc123def"), s("[0-9]+")]), s("123"));
        assert_eq!(
            x(&[s("abc123"), s("([a-z]+)([0-9]+)"), Integer(2)]),
            s("123")
        );
        assert_eq!(x(&[s("abc"), s("x")]), s(""));
        assert_eq!(x(&[s("abc"), s("(a)"), Integer(5)]), s(""));
        assert_eq!(x(&[s("abc"), s("(x)?b"), Integer(1)]), s(""));
        assert_eq!(x(&[s("ABC"), s("b"), s("i")]), s("B"));
        assert_eq!(x(&[s("ABC"), s("b"), Integer(0), s("i")]), s("B"));
        assert_eq!(x(&[s("a\nb"), s("a.b")]), s(""));
        assert_eq!(x(&[s("a\nb"), s("a.b"), Integer(0), s("s")]), s("a\nb"));
        assert_eq!(x(&[Null, s("b")]), Null);
        let e = eval("regexp_extract", &[s("a"), s("(a)"), Integer(10)]).unwrap_err();
        assert_eq!(e.message, "Group index must be between 0 and 9!");
        let e = eval("regexp_extract", &[s("a"), s("a"), Integer(0), s("g")]).unwrap_err();
        assert!(e.message.contains("only valid for regexp_replace"));
    }

    #[test]
    fn extract_all() {
        let x = |a: &[ScalarValue]| eval("regexp_extract_all", a).unwrap();
        assert_eq!(
            x(&[s("a1b22c333"), s("[0-9]+")]),
            list(&[Some("1"), Some("22"), Some("333")])
        );
        assert_eq!(
            x(&[s("a1b22"), s("([a-z])([0-9]+)"), Integer(2)]),
            list(&[Some("1"), Some("22")])
        );
        assert_eq!(
            x(&[s("abc"), s("b*")]),
            list(&[Some(""), Some("b"), Some(""), Some("")])
        );
        assert_eq!(x(&[s("hé"), s("")]), list(&[Some(""), Some(""), Some("")]));
        assert_eq!(x(&[s("abc"), s("(x)?b"), Integer(1)]), list(&[None]));
        assert_eq!(x(&[s("abc"), s("x")]), list(&[]));
        assert_eq!(x(&[s(""), s("a*")]), list(&[Some("")]));
        assert_eq!(x(&[s(""), s("x")]), list(&[]));
        assert_eq!(x(&[s("abc"), s("(b)"), Integer(-1)]), list(&[]));
        assert_eq!(x(&[Null, s("x")]), Null);
        let e = eval("regexp_extract_all", &[s("abc"), s("b"), Integer(3)]).unwrap_err();
        assert_eq!(e.message, "Pattern has 0 groups. Cannot access group 3");
    }
}
