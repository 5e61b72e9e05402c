//! `split_part(s, delimiter, n)`: the n-th field (1-based) of `s` split at
//! `delimiter`; negative `n` counts from the end, and a field past either end, or
//! n = 0, is '' (DuckDB; PostgreSQL refuses 0). An empty delimiter splits `s` into
//! its characters, as `string_split(s, '')` does.

use crate::kernels::{map_rows_to_strings, Slot, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    use DataType::*;
    fixed(
        ScalarFunction::SplitPart,
        args,
        &[Varchar, Varchar, BigInt],
        Varchar,
    )
}

pub(crate) fn split_part<'a>(s: &'a str, delim: &str, n: i64) -> &'a str {
    if n == 0 {
        return "";
    }
    if delim.is_empty() {
        let mut chars = s.char_indices().map(|(i, c)| &s[i..i + c.len_utf8()]);
        let field = if n > 0 {
            chars.nth(n as usize - 1)
        } else {
            chars.nth_back(n.unsigned_abs() as usize - 1)
        };
        return field.unwrap_or("");
    }
    let field = if n > 0 {
        s.split(delim).nth(n as usize - 1)
    } else {
        s.rsplit(delim).nth(n.unsigned_abs() as usize - 1)
    };
    field.unwrap_or("")
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    let (s, d, n) = (
        StrSlot::new(&args[0]),
        StrSlot::new(&args[1]),
        Slot::<i64>::new(&args[2]),
    );
    map_rows_to_strings(&[&args[0], &args[1], &args[2]], len, |i, out| {
        out.push(split_part(s.get(i), d.get(i), n.get(i)));
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::split_part;

    #[test]
    fn fields() {
        let p = split_part;
        assert_eq!(p("a,b,c", ",", 2), "b");
        assert_eq!(p("a,b,c", ",", 4), "");
        assert_eq!(p("a,b,c", ",", -1), "c");
        assert_eq!(p("a,b,c", ",", -3), "a");
        assert_eq!(p("a,b,c", ",", -4), "");
        assert_eq!(p("a,,c", ",", 2), "");
        assert_eq!(p("a::b::c", "::", 3), "c");
        assert_eq!(p("abc", "", 1), "a");
        assert_eq!(p("abc", "", 2), "b");
        assert_eq!(p("héllo", "", -4), "é");
        assert_eq!(p("abc", "", 4), "");
        assert_eq!(p("", "", 1), "");
        assert_eq!(p("", ",", 1), "");
        assert_eq!(p("x", ",", i64::MAX), "");
        assert_eq!(p("x", ",", i64::MIN), "");
        assert_eq!(p("a,b", ",", 0), "");
    }
}
