//! String concatenation: `||` (strict: NULL if either side is NULL), `concat(...)`
//! (variadic, NULL arguments skipped, never NULL) and `concat_ws(sep, ...)` (NULL
//! arguments skipped; NULL only when the separator is). Arguments of any non-list
//! type are cast to VARCHAR first.

use crate::kernels::{all_constant, make_string_vector, map_rows_to_strings, StrSlot};
use crate::scalar::signature::bind;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, StringVector, Validity, Vector};

fn all_varchar(func: ScalarFunction, args: &[DataType], min: usize) -> Option<BoundFunction> {
    if args.len() < min || args.iter().any(|t| matches!(t, DataType::List(_))) {
        return None;
    }
    bind(func, vec![DataType::Varchar; args.len()], DataType::Varchar)
}

pub(crate) fn resolve_operator(args: &[DataType]) -> Option<BoundFunction> {
    if args.len() != 2 {
        return None;
    }
    all_varchar(ScalarFunction::ConcatOperator, args, 2)
}

pub(crate) fn resolve_concat(args: &[DataType]) -> Option<BoundFunction> {
    all_varchar(ScalarFunction::Concat, args, 1)
}

pub(crate) fn resolve_concat_ws(args: &[DataType]) -> Option<BoundFunction> {
    all_varchar(ScalarFunction::ConcatWs, args, 2)
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    match func {
        ScalarFunction::ConcatOperator => {
            let (a, b) = (StrSlot::new(&args[0]), StrSlot::new(&args[1]));
            let mut buf = String::new();
            map_rows_to_strings(&refs, len, |i, out| {
                buf.clear();
                buf.push_str(a.get(i));
                buf.push_str(b.get(i));
                out.push(&buf);
                Ok(())
            })
        }
        ScalarFunction::Concat => Ok(skipping_nulls(&refs, len, None)),
        _ => {
            // the separator is strict; the values skip NULLs
            let sep = &args[0];
            let out = skipping_nulls(&refs[1..], len, Some(sep));
            let rows = out.data_len();
            let validity = if sep.constant {
                if sep.validity.is_valid(0) {
                    Validity::all_valid()
                } else {
                    Validity::all_invalid(rows)
                }
            } else {
                sep.validity.clone()
            };
            let mut out = out;
            out.validity = validity;
            Ok(out)
        }
    }
}

/// Joins the valid values of each row, separated by `sep` when given.
fn skipping_nulls(args: &[&Vector], len: usize, sep: Option<&Vector>) -> Vector {
    let constant = all_constant(args) && sep.is_none_or(|s| s.constant);
    let rows = if constant { 1 } else { len };
    let slots: Vec<StrSlot> = args.iter().map(|v| StrSlot::new(v)).collect();
    let sep_slot = sep.map(StrSlot::new);
    let mut out = StringVector::with_capacity(rows);
    let mut buf = String::new();
    for i in 0..rows {
        buf.clear();
        let mut first = true;
        for (v, s) in args.iter().zip(&slots) {
            if !v.is_valid(i) {
                continue;
            }
            if let (Some(sep), false) = (&sep_slot, first) {
                buf.push_str(sep.get(i));
            }
            buf.push_str(s.get(i));
            first = false;
        }
        out.push(&buf);
    }
    make_string_vector(out, Validity::all_valid(), constant)
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::*;

    #[test]
    fn concatenation() {
        assert_eq!(eval("||", &[s("ab"), s("cd")]).unwrap(), s("abcd"));
        assert_eq!(eval("||", &[s("ab"), Integer(1)]).unwrap(), s("ab1"));
        assert_eq!(eval("||", &[s("ab"), Null]).unwrap(), Null);
        assert_eq!(
            eval("concat", &[s("ab"), Null, Integer(3), Double(1.5)]).unwrap(),
            s("ab31.5")
        );
        assert_eq!(eval("concat", &[Null]).unwrap(), s(""));
        assert_eq!(
            eval("concat_ws", &[s(", "), s("a"), Null, s("b")]).unwrap(),
            s("a, b")
        );
        assert_eq!(eval("concat_ws", &[Null, s("a")]).unwrap(), Null);
        assert_eq!(eval("concat_ws", &[s("-"), Null, Null]).unwrap(), s(""));
        let long = "x".repeat(40);
        assert_eq!(
            eval("concat", &[s(&long), s("é")]).unwrap(),
            s(&(long + "é"))
        );
    }
}
