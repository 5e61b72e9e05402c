//! `split_part(s, delimiter, n)`: the n-th field (1-based) of `s` split at
//! `delimiter`; negative `n` counts from the end, a field past either end is '', and
//! n = 0 is an error (PostgreSQL). An empty delimiter yields `s` as the only field.

use crate::kernels::{map_rows_to_strings, Slot, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    use DataType::*;
    fixed(
        ScalarFunction::SplitPart,
        args,
        &[Varchar, Varchar, BigInt],
        Varchar,
    )
}

pub(crate) fn split_part<'a>(s: &'a str, delim: &str, n: i64) -> Result<&'a str> {
    if n == 0 {
        return Err(Error::invalid_input("field position must not be zero"));
    }
    if delim.is_empty() {
        return Ok(if n == 1 || n == -1 { s } else { "" });
    }
    let field = if n > 0 {
        s.split(delim).nth(n as usize - 1)
    } else {
        s.rsplit(delim).nth(n.unsigned_abs() as usize - 1)
    };
    Ok(field.unwrap_or(""))
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    let (s, d, n) = (
        StrSlot::new(&args[0]),
        StrSlot::new(&args[1]),
        Slot::<i64>::new(&args[2]),
    );
    map_rows_to_strings(&[&args[0], &args[1], &args[2]], len, |i, out| {
        out.push(split_part(s.get(i), d.get(i), n.get(i))?);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::split_part;

    #[test]
    fn fields() {
        let p = |s, d, n| split_part(s, d, n).unwrap();
        assert_eq!(p("a,b,c", ",", 2), "b");
        assert_eq!(p("a,b,c", ",", 4), "");
        assert_eq!(p("a,b,c", ",", -1), "c");
        assert_eq!(p("a,b,c", ",", -3), "a");
        assert_eq!(p("a,b,c", ",", -4), "");
        assert_eq!(p("a,,c", ",", 2), "");
        assert_eq!(p("a::b::c", "::", 3), "c");
        assert_eq!(p("abc", "", 1), "abc");
        assert_eq!(p("abc", "", 2), "");
        assert_eq!(p("", ",", 1), "");
        assert_eq!(p("x", ",", i64::MAX), "");
        assert_eq!(p("x", ",", i64::MIN), "");
        assert!(split_part("a", ",", 0).is_err());
    }
}
