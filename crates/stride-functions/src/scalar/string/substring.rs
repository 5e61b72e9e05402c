//! `substring(s, start[, count])` / `substr`, 1-based and in characters, as DuckDB
//! has it: a positive `start` counts from the first character, a negative one from
//! the end (`-1` is the last character), and `0` stands one place before the first;
//! a negative `count` takes the characters before `start` instead of from it. The
//! window is then clipped to the string, so `substring('hello', 0, 3)` is 'he'.

use super::char_offset;
use crate::kernels::{map_rows_to_strings, Slot, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    use DataType::*;
    let params: &[DataType] = match args.len() {
        2 => &[Varchar, BigInt],
        3 => &[Varchar, BigInt, BigInt],
        _ => return None,
    };
    fixed(ScalarFunction::Substring, args, params, Varchar)
}

/// The 0-based window `[from, to)` that `substring(x, start, count)` takes of a value
/// of `n` units (characters, or grapheme clusters for substring_grapheme), clipped to
/// `[0, n]`; `from >= to` means nothing.
pub(crate) fn window(n: usize, start: i64, count: Option<i64>) -> (usize, usize) {
    let n = n as i128;
    let start = i128::from(start);
    // the first unit's 0-based place, which may lie outside the value
    let first = match start {
        s if s > 0 => s - 1,
        0 => -1,
        s => n + s,
    };
    let (from, to) = match count.map(i128::from) {
        None => (first, n),
        Some(c) if c >= 0 => (first, first + c),
        Some(c) => (first + c, first),
    };
    let clip = |x: i128| x.clamp(0, n) as usize;
    (clip(from), clip(to))
}

/// The characters of `s` in the window of `start` and `count` (see [`window`]).
pub(crate) fn substring(s: &str, start: i64, count: Option<i64>) -> &str {
    let (from, to) = window(super::char_count(s), start, count);
    if from >= to {
        return "";
    }
    let a = char_offset(s, from);
    let rest = &s[a..];
    &rest[..char_offset(rest, to - from)]
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let s = StrSlot::new(&args[0]);
    let start = Slot::<i64>::new(&args[1]);
    let count = args.get(2).map(Slot::<i64>::new);
    map_rows_to_strings(&refs, len, |i, out| {
        out.push(substring(s.get(i), start.get(i), count.map(|c| c.get(i))));
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::substring;
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::*;

    #[test]
    fn edge_cases() {
        let sub = |st, c| substring("hello", st, c);
        assert_eq!(sub(2, Some(3)), "ell");
        assert_eq!(sub(1, None), "hello");
        assert_eq!(sub(0, Some(3)), "he");
        assert_eq!(sub(0, None), "hello");
        assert_eq!(sub(-3, Some(2)), "ll");
        assert_eq!(sub(-3, None), "llo");
        assert_eq!(sub(-5, Some(3)), "hel");
        assert_eq!(sub(-10, Some(3)), "");
        assert_eq!(sub(-10, Some(8)), "hel");
        assert_eq!(sub(2, Some(-1)), "h");
        assert_eq!(sub(3, Some(-2)), "he");
        assert_eq!(sub(-1, Some(-2)), "ll");
        assert_eq!(sub(0, Some(-1)), "");
        assert_eq!(sub(4, Some(10)), "lo");
        assert_eq!(sub(6, Some(1)), "");
        assert_eq!(sub(100, None), "");
        assert_eq!(sub(-100, None), "hello");
        assert_eq!(sub(2, Some(0)), "");
        assert_eq!(sub(i64::MIN, Some(i64::MAX)), "hell");
        assert_eq!(sub(i64::MAX, Some(i64::MAX)), "");
        assert_eq!(sub(i64::MAX, Some(i64::MIN)), "hello");
        assert_eq!(substring("日本語です", 2, Some(2)), "本語");
        assert_eq!(substring("日本語です", 4, None), "です");
        assert_eq!(substring("日本語です", -2, Some(1)), "で");
    }

    #[test]
    fn sql() {
        assert_eq!(
            eval("substring", &[s("hello"), Integer(2), Integer(3)]).unwrap(),
            s("ell")
        );
        assert_eq!(eval("substr", &[s("hello"), BigInt(3)]).unwrap(), s("llo"));
        assert_eq!(eval("substr", &[s("hello"), Null]).unwrap(), Null);
        assert_eq!(
            eval("substr", &[s("hello"), Integer(-3), Integer(2)]).unwrap(),
            s("ll")
        );
        assert!(eval("substr", &[s("hello"), Double(1.0)]).is_err());
    }
}
