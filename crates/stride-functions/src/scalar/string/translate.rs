//! `translate(s, from, to)`: each character of `s` found in `from` (its first
//! occurrence there) becomes the character of `to` at the same position, or is
//! dropped when `to` is shorter.

use crate::kernels::{map_rows_to_strings, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    use DataType::Varchar;
    fixed(
        ScalarFunction::Translate,
        args,
        &[Varchar, Varchar, Varchar],
        Varchar,
    )
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    let (s, from, to) = (
        StrSlot::new(&args[0]),
        StrSlot::new(&args[1]),
        StrSlot::new(&args[2]),
    );
    let mut map: Vec<(char, Option<char>)> = Vec::new();
    let mut key: Option<(&str, &str)> = None;
    let mut buf = String::new();
    map_rows_to_strings(&[&args[0], &args[1], &args[2]], len, |i, out| {
        let (f, t) = (from.get(i), to.get(i));
        if key != Some((f, t)) {
            map.clear();
            let mut tc = t.chars();
            for c in f.chars() {
                let r = tc.next();
                if !map.iter().any(|(k, _)| *k == c) {
                    map.push((c, r));
                }
            }
            key = Some((f, t));
        }
        buf.clear();
        for c in s.get(i).chars() {
            match map.iter().find(|(k, _)| *k == c) {
                Some((_, Some(r))) => buf.push(*r),
                Some((_, None)) => {}
                None => buf.push(c),
            }
        }
        out.push(&buf);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::*;

    #[test]
    fn translates() {
        let t = |a: &str, b: &str, c: &str| eval("translate", &[s(a), s(b), s(c)]).unwrap();
        assert_eq!(t("12345", "143", "ax"), s("a2x5"));
        assert_eq!(t("héllo", "é", "e"), s("hello"));
        assert_eq!(t("abc", "", "x"), s("abc"));
        assert_eq!(t("aab", "aa", "xy"), s("xxb"));
        assert_eq!(eval("translate", &[s("a"), Null, s("b")]).unwrap(), Null);
    }
}
