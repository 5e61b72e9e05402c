//! Functions about values rather than of them: `typeof(x)`, the name of x's type
//! ('INTEGER', 'DECIMAL(5,3)'). It depends only on the bound type, so it is not
//! strict: typeof(NULL::INTEGER) is 'INTEGER'.

use super::signature::bind;
use super::{BoundFunction, ScalarFunction};
use crate::kernels::make_string_vector;
use stride_common::{DataType, Result, StringVector, Validity, Vector};

pub(crate) fn resolve_typeof(args: &[DataType]) -> Option<BoundFunction> {
    let [t] = args else { return None };
    bind(ScalarFunction::TypeOf, vec![t.clone()], DataType::Varchar)
}

pub(crate) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let name = f.arg_types[0].to_string();
    let constant = args[0].constant;
    let rows = if constant { 1 } else { len };
    let mut out = StringVector::with_capacity(rows);
    for _ in 0..rows {
        out.push(&name);
    }
    Ok(make_string_vector(out, Validity::all_valid(), constant))
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::ScalarValue::*;

    #[test]
    fn type_names() {
        assert_eq!(
            eval("typeof", &[Decimal(3125, 5, 3)]).unwrap(),
            Varchar("DECIMAL(5,3)".into())
        );
        assert_eq!(
            eval("typeof", &[Integer(1)]).unwrap(),
            Varchar("INTEGER".into())
        );
        assert_eq!(eval("typeof", &[Null]).unwrap(), Varchar("NULL".into()));
    }
}
