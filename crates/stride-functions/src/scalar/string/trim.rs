//! `trim`/`btrim`, `ltrim` and `rtrim`: remove spaces (Unicode's space separators,
//! as DuckDB: U+0020, the no-break and the typographic spaces, not tabs or
//! newlines), or with a second argument any character in the given set, from both
//! ends, the start, or the end.

use crate::kernels::{map_rows_to_strings, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};

fn resolve(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    let params = vec![DataType::Varchar; args.len()];
    if !(1..=2).contains(&args.len()) {
        return None;
    }
    fixed(func, args, &params, DataType::Varchar)
}

pub(crate) fn resolve_trim(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Trim, args)
}

pub(crate) fn resolve_ltrim(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::LTrim, args)
}

pub(crate) fn resolve_rtrim(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::RTrim, args)
}

/// Unicode's space separators (general category Zs).
fn is_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

fn trim_with(func: ScalarFunction, s: &str, set: impl Fn(char) -> bool + Copy) -> &str {
    match func {
        ScalarFunction::LTrim => s.trim_start_matches(set),
        ScalarFunction::RTrim => s.trim_end_matches(set),
        _ => s.trim_matches(set),
    }
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let s = StrSlot::new(&args[0]);
    match args.get(1) {
        None => map_rows_to_strings(&refs, len, |i, out| {
            out.push(trim_with(func, s.get(i), is_space));
            Ok(())
        }),
        Some(chars) => {
            let chars = StrSlot::new(chars);
            map_rows_to_strings(&refs, len, |i, out| {
                let set = chars.get(i);
                out.push(trim_with(func, s.get(i), |c| set.contains(c)));
                Ok(())
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::*;

    #[test]
    fn trims() {
        assert_eq!(eval("trim", &[s("  a b  ")]).unwrap(), s("a b"));
        assert_eq!(eval("ltrim", &[s("  a  ")]).unwrap(), s("a  "));
        assert_eq!(eval("rtrim", &[s("  a  ")]).unwrap(), s("  a"));
        assert_eq!(eval("trim", &[s("\tx ")]).unwrap(), s("\tx"));
        // the no-break and ideographic spaces too, not a zero-width space
        assert_eq!(
            eval("trim", &[s("\u{a0}x\u{3000}\u{2008}")]).unwrap(),
            s("x")
        );
        assert_eq!(eval("ltrim", &[s("\u{200b}x")]).unwrap(), s("\u{200b}x"));
        assert_eq!(eval("trim", &[s("xxhixyx"), s("xy")]).unwrap(), s("hi"));
        assert_eq!(eval("ltrim", &[s("ééa"), s("é")]).unwrap(), s("a"));
        assert_eq!(eval("rtrim", &[s("abc"), s("")]).unwrap(), s("abc"));
        assert_eq!(eval("trim", &[Null]).unwrap(), Null);
    }
}
