//! `left_grapheme(s, n)`, `right_grapheme(s, n)` and `substring_grapheme(s, start
//! [, count])`: `left`, `right` and DuckDB's `substring` counting extended grapheme
//! clusters (what a reader sees as one character, such as an emoji with a skin tone)
//! instead of code points. A negative `n` counts from the other end; a negative
//! `start` counts from the end, and a negative `count` takes the clusters before
//! `start`, as DuckDB's substring does.

use crate::kernels::{map_rows_to_strings, Slot, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};
use unicode_segmentation::UnicodeSegmentation;

pub(crate) fn resolve_left(args: &[DataType]) -> Option<BoundFunction> {
    use DataType::*;
    fixed(
        ScalarFunction::LeftGrapheme,
        args,
        &[Varchar, BigInt],
        Varchar,
    )
}

pub(crate) fn resolve_right(args: &[DataType]) -> Option<BoundFunction> {
    use DataType::*;
    fixed(
        ScalarFunction::RightGrapheme,
        args,
        &[Varchar, BigInt],
        Varchar,
    )
}

pub(crate) fn resolve_substring(args: &[DataType]) -> Option<BoundFunction> {
    use DataType::*;
    let params: &[DataType] = match args.len() {
        2 => &[Varchar, BigInt],
        3 => &[Varchar, BigInt, BigInt],
        _ => return None,
    };
    fixed(ScalarFunction::SubstringGrapheme, args, params, Varchar)
}

/// Byte offsets of the cluster boundaries of `s`: `n + 1` offsets for `n` clusters.
fn boundaries(s: &str) -> Vec<usize> {
    let mut b: Vec<usize> = s.grapheme_indices(true).map(|(i, _)| i).collect();
    b.push(s.len());
    b
}

/// The clusters `[from, to)` of `s`, given its boundaries.
fn slice<'a>(s: &'a str, b: &[usize], from: usize, to: usize) -> &'a str {
    let n = b.len() - 1;
    let (from, to) = (from.min(n), to.min(n));
    if from >= to {
        return "";
    }
    &s[b[from]..b[to]]
}

fn left(s: &str, k: i64) -> &str {
    let b = boundaries(s);
    let n = (b.len() - 1) as i64;
    let keep = if k >= 0 {
        k.min(n)
    } else {
        (n + k.max(-n)).max(0)
    };
    slice(s, &b, 0, keep as usize)
}

fn right(s: &str, k: i64) -> &str {
    let b = boundaries(s);
    let n = (b.len() - 1) as i64;
    let skip = if k >= 0 {
        n - k.min(n)
    } else {
        k.unsigned_abs().min(n as u64) as i64
    };
    slice(s, &b, skip as usize, n as usize)
}

/// DuckDB's substring rules (`substring::window`) over clusters.
fn substring(s: &str, offset: i64, length: Option<i64>) -> &str {
    let b = boundaries(s);
    let (from, to) = super::substring::window(b.len() - 1, offset, length);
    slice(s, &b, from, to)
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let s = StrSlot::new(&args[0]);
    let k = Slot::<i64>::new(&args[1]);
    let count = args.get(2).map(Slot::<i64>::new);
    map_rows_to_strings(&refs, len, |i, out| {
        out.push(match func {
            ScalarFunction::LeftGrapheme => left(s.get(i), k.get(i)),
            ScalarFunction::RightGrapheme => right(s.get(i), k.get(i)),
            _ => substring(s.get(i), k.get(i), count.map(|c| c.get(i))),
        });
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clusters() {
        let faces = "🤦🏼‍♂️🤦🏽‍♀️";
        assert_eq!(left(faces, 1), "🤦🏼‍♂️");
        assert_eq!(right(faces, 1), "🤦🏽‍♀️");
        assert_eq!(left("abc", -1), "ab");
        assert_eq!(left("abcd", 0), "");
        assert_eq!(right("abcd", -1), "bcd");
        assert_eq!(right("abcd", 10), "abcd");
        assert_eq!(left("abcd", i64::MIN), "");
        assert_eq!(right("abcd", i64::MIN), "");
        assert_eq!(substring("abcdef", 2, Some(3)), "bcd");
        assert_eq!(substring("abcdef", 3, None), "cdef");
        assert_eq!(substring("abcdef", 0, Some(3)), "ab");
        assert_eq!(substring("abcdef", -2, Some(3)), "ef");
        assert_eq!(substring("abcdef", 5, Some(10)), "ef");
        assert_eq!(substring("abc", 1, Some(-1)), "");
        assert_eq!(substring("abcdef", 4, Some(-2)), "bc");
        assert_eq!(substring("abc", i64::MIN, Some(i64::MIN)), "");
        // the window is placed before it is clipped
        assert_eq!(substring("abcde", -10, Some(8)), "abc");
        assert_eq!(substring("abc", i64::MAX, Some(i64::MAX)), "");
    }
}
