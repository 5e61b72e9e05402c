//! `substring(s, start[, count])` / `substr`, 1-based and in characters, with
//! PostgreSQL semantics: the window [start, start + count) is clipped to the string,
//! so `substring('hello', 0, 3)` is 'he'; a negative count is an error.

use super::char_offset;
use crate::kernels::{map_rows_to_strings, Slot, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    use DataType::*;
    let params: &[DataType] = match args.len() {
        2 => &[Varchar, BigInt],
        3 => &[Varchar, BigInt, BigInt],
        _ => return None,
    };
    fixed(ScalarFunction::Substring, args, params, Varchar)
}

/// The characters of `s` in [start, start + count), 1-based.
pub(crate) fn substring(s: &str, start: i64, count: Option<i64>) -> Result<&str> {
    let end = match count {
        Some(c) if c < 0 => {
            return Err(Error::invalid_input(
                "negative substring length not allowed",
            ))
        }
        Some(c) => start.saturating_add(c),
        None => i64::MAX,
    };
    let lo = start.max(1);
    if end <= lo {
        return Ok("");
    }
    let from = char_offset(s, (lo - 1) as usize);
    let rest = &s[from..];
    let to = if end == i64::MAX {
        rest.len()
    } else {
        char_offset(rest, (end - lo) as usize)
    };
    Ok(&rest[..to])
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let s = StrSlot::new(&args[0]);
    let start = Slot::<i64>::new(&args[1]);
    let count = args.get(2).map(Slot::<i64>::new);
    map_rows_to_strings(&refs, len, |i, out| {
        out.push(substring(s.get(i), start.get(i), count.map(|c| c.get(i)))?);
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
        let sub = |st, c| substring("hello", st, c).unwrap();
        assert_eq!(sub(2, Some(3)), "ell");
        assert_eq!(sub(1, None), "hello");
        assert_eq!(sub(0, Some(3)), "he");
        assert_eq!(sub(-5, Some(3)), "");
        assert_eq!(sub(-1, Some(4)), "he");
        assert_eq!(sub(4, Some(10)), "lo");
        assert_eq!(sub(6, Some(1)), "");
        assert_eq!(sub(100, None), "");
        assert_eq!(sub(-100, None), "hello");
        assert_eq!(sub(2, Some(0)), "");
        assert_eq!(sub(i64::MIN, Some(i64::MAX)), "");
        assert_eq!(sub(i64::MAX, Some(i64::MAX)), "");
        assert!(substring("hello", 1, Some(-1)).is_err());
        assert_eq!(substring("日本語です", 2, Some(2)).unwrap(), "本語");
        assert_eq!(substring("日本語です", 4, None).unwrap(), "です");
    }

    #[test]
    fn sql() {
        assert_eq!(
            eval("substring", &[s("hello"), Integer(2), Integer(3)]).unwrap(),
            s("ell")
        );
        assert_eq!(eval("substr", &[s("hello"), BigInt(3)]).unwrap(), s("llo"));
        assert_eq!(eval("substr", &[s("hello"), Null]).unwrap(), Null);
        assert!(eval("substr", &[s("hello"), Integer(1), Integer(-1)]).is_err());
        assert!(eval("substr", &[s("hello"), Double(1.0)]).is_err());
    }
}
