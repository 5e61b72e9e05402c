//! LIKE, ILIKE and their negations, with an optional escape character as third
//! argument (no escape by default, as in DuckDB). A constant pattern is compiled once
//! per call; a pattern column is compiled per row, reusing the previous row's matcher
//! when the pattern repeats.

use super::like_matcher::LikeMatcher;
use crate::kernels::{map_rows, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, Vector};

fn resolve(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    let params = vec![DataType::Varchar; args.len()];
    if !(2..=3).contains(&args.len()) {
        return None;
    }
    fixed(func, args, &params, DataType::Boolean)
}

pub(crate) fn resolve_like(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Like, args)
}

pub(crate) fn resolve_not_like(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::NotLike, args)
}

pub(crate) fn resolve_ilike(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::ILike, args)
}

pub(crate) fn resolve_not_ilike(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::NotILike, args)
}

/// `like_escape(s, pattern, escape)` and its siblings: the three-argument forms
/// only (DuckDB's names for LIKE ... ESCAPE).
pub(crate) fn resolve_escape(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    if args.len() != 3 {
        return None;
    }
    resolve(func, args)
}

fn escape_char(s: &str) -> Result<Option<char>> {
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (None, _) => Ok(None),
        (Some(c), None) => Ok(Some(c)),
        _ => Err(Error::invalid_input(
            "Invalid escape string. Escape string must be empty or one character.",
        )),
    }
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let negated = matches!(func, ScalarFunction::NotLike | ScalarFunction::NotILike);
    let fold_case = matches!(func, ScalarFunction::ILike | ScalarFunction::NotILike);
    let refs: Vec<&Vector> = args.iter().collect();
    let input = StrSlot::new(&args[0]);
    let pattern = StrSlot::new(&args[1]);
    let escape = args.get(2).map(StrSlot::new);
    let fixed_pattern = args[1..]
        .iter()
        .all(|v| v.constant && v.validity.is_valid(0));
    if fixed_pattern {
        let esc = escape.map(|e| escape_char(e.get(0))).transpose()?.flatten();
        let mut m = LikeMatcher::new(pattern.get(0), esc, fold_case)?;
        let (strings, v) = (args[0].strings(), &args[0]);
        return map_rows(&refs, len, DataType::Boolean, |i| {
            let view = &strings.views[v.index(i)];
            Ok((!m.rejects_view(view) && m.matches(input.get(i))) != negated)
        });
    }
    let mut cached: Option<(String, Option<char>, LikeMatcher)> = None;
    map_rows(&refs, len, DataType::Boolean, |i| {
        let p = pattern.get(i);
        let esc = escape.map(|e| escape_char(e.get(i))).transpose()?.flatten();
        let reuse = matches!(&cached, Some((cp, ce, _)) if cp == p && *ce == esc);
        if !reuse {
            cached = Some((p.to_string(), esc, LikeMatcher::new(p, esc, fold_case)?));
        }
        let (_, _, m) = cached.as_mut().expect("matcher cached above");
        Ok(m.matches(input.get(i)) != negated)
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::resolve_scalar;
    use crate::scalar::test_util::text as s;
    use crate::scalar::test_util::{eval, flat};
    use stride_common::{DataType, ScalarValue::*};

    #[test]
    fn operators() {
        assert_eq!(eval("~~", &[s("hello"), s("h%o")]).unwrap(), Boolean(true));
        assert_eq!(
            eval("!~~", &[s("hello"), s("h%o")]).unwrap(),
            Boolean(false)
        );
        assert_eq!(eval("~~*", &[s("HELLO"), s("h%o")]).unwrap(), Boolean(true));
        assert_eq!(eval("!~~*", &[s("HELLO"), s("x%")]).unwrap(), Boolean(true));
        assert_eq!(
            eval("like", &[s("a%b"), s("a\\%b"), s("\\")]).unwrap(),
            Boolean(true)
        );
        assert_eq!(
            eval("like", &[s("axb"), s("a\\%b"), s("\\")]).unwrap(),
            Boolean(false)
        );
        assert_eq!(
            eval("like", &[s("axb"), s("a%b"), s("")]).unwrap(),
            Boolean(true)
        );
        assert!(eval("like", &[s("a"), s("a"), s("ab")]).is_err());
        assert_eq!(eval("~~", &[Null, s("%")]).unwrap(), Null);
        assert_eq!(eval("~~", &[s("a"), Null]).unwrap(), Null);
    }

    #[test]
    fn pattern_column() {
        let f = resolve_scalar("~~", &[DataType::Varchar, DataType::Varchar]).unwrap();
        let input = flat(&DataType::Varchar, &[s("abc"), s("abc"), s("xyz"), s("q")]);
        let pats = flat(&DataType::Varchar, &[s("a%"), s("a%"), s("%y%"), Null]);
        let r = crate::evaluate_scalar(&f, &[input, pats], 4).unwrap();
        let got: Vec<_> = (0..4).map(|i| r.get(i)).collect();
        assert_eq!(got, vec![Boolean(true), Boolean(true), Boolean(true), Null]);
        // a bad escape in a NULL row is not an error
        let f = resolve_scalar("~~", &vec![DataType::Varchar; 3]).unwrap();
        let input = flat(&DataType::Varchar, &[s("a"), Null]);
        let pats = flat(&DataType::Varchar, &[s("a"), s("a\\")]);
        let esc = flat(&DataType::Varchar, &[s(""), s("\\")]);
        let r = crate::evaluate_scalar(&f, &[input, pats, esc], 2).unwrap();
        assert_eq!(r.get(0), Boolean(true));
        assert_eq!(r.get(1), Null);
    }
}
