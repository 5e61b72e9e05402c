//! `replace(s, from, to)`: every non-overlapping occurrence of `from`, left to right,
//! replaced by `to`; an empty `from` leaves the string unchanged (PostgreSQL). A
//! constant `from` is searched with one precompiled memmem finder.

use crate::kernels::{map_rows_to_strings, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use memchr::memmem::Finder;
use stride_common::{DataType, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    let v = DataType::Varchar;
    fixed(
        ScalarFunction::Replace,
        args,
        &[v.clone(), v.clone(), v.clone()],
        v,
    )
}

fn replace_into(s: &str, finder: &Finder, to: &str, buf: &mut String) {
    let needle_len = finder.needle().len();
    let mut last = 0;
    for at in finder.find_iter(s.as_bytes()) {
        buf.push_str(&s[last..at]);
        buf.push_str(to);
        last = at + needle_len;
    }
    buf.push_str(&s[last..]);
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let (s, from, to) = (
        StrSlot::new(&args[0]),
        StrSlot::new(&args[1]),
        StrSlot::new(&args[2]),
    );
    let constant_from = args[1]
        .constant
        .then(|| Finder::new(from.get(0)).into_owned());
    let mut buf = String::new();
    map_rows_to_strings(&refs, len, |i, out| {
        let (hay, needle) = (s.get(i), from.get(i));
        if needle.is_empty() {
            out.push(hay);
            return Ok(());
        }
        buf.clear();
        match &constant_from {
            Some(f) => replace_into(hay, f, to.get(i), &mut buf),
            None => replace_into(hay, &Finder::new(needle), to.get(i), &mut buf),
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
    fn replaces() {
        assert_eq!(
            eval("replace", &[s("hello world"), s("o"), s("0")]).unwrap(),
            s("hell0 w0rld")
        );
        assert_eq!(
            eval("replace", &[s("aaa"), s("aa"), s("b")]).unwrap(),
            s("ba")
        );
        assert_eq!(
            eval("replace", &[s("abc"), s(""), s("x")]).unwrap(),
            s("abc")
        );
        assert_eq!(
            eval("replace", &[s("日本語"), s("本"), s("")]).unwrap(),
            s("日語")
        );
        assert_eq!(eval("replace", &[s("abc"), Null, s("x")]).unwrap(), Null);
    }
}
