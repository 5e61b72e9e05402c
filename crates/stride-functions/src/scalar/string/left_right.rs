//! `left(s, n)` and `right(s, n)` in characters. A negative `n` counts from the other
//! end (PostgreSQL): left('abcde', -2) is 'abc', right('abcde', -2) is 'cde'.

use super::{char_count, char_offset};
use crate::kernels::{map_rows_to_strings, Slot, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};

pub(crate) fn resolve_left(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::Left,
        args,
        &[DataType::Varchar, DataType::BigInt],
        DataType::Varchar,
    )
}

pub(crate) fn resolve_right(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::Right,
        args,
        &[DataType::Varchar, DataType::BigInt],
        DataType::Varchar,
    )
}

pub(crate) fn left(s: &str, n: i64) -> &str {
    let keep = if n >= 0 {
        n as u64
    } else {
        (char_count(s) as u64).saturating_sub(n.unsigned_abs())
    };
    &s[..char_offset(s, keep.min(usize::MAX as u64) as usize)]
}

pub(crate) fn right(s: &str, n: i64) -> &str {
    let skip = if n >= 0 {
        (char_count(s) as u64).saturating_sub(n as u64)
    } else {
        n.unsigned_abs()
    };
    &s[char_offset(s, skip.min(usize::MAX as u64) as usize)..]
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let (s, n) = (StrSlot::new(&args[0]), Slot::<i64>::new(&args[1]));
    let f = if func == ScalarFunction::Left {
        left
    } else {
        right
    };
    map_rows_to_strings(&[&args[0], &args[1]], len, |i, out| {
        out.push(f(s.get(i), n.get(i)));
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends() {
        assert_eq!(left("abcde", 2), "ab");
        assert_eq!(left("abcde", -2), "abc");
        assert_eq!(left("abcde", 10), "abcde");
        assert_eq!(left("abcde", -10), "");
        assert_eq!(left("abcde", i64::MIN), "");
        assert_eq!(right("abcde", 2), "de");
        assert_eq!(right("abcde", -2), "cde");
        assert_eq!(right("abcde", 10), "abcde");
        assert_eq!(right("abcde", -10), "");
        assert_eq!(right("日本語", 1), "語");
        assert_eq!(left("日本語", 0), "");
    }
}
