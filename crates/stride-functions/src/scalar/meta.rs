//! Functions about values and the system rather than of values: `typeof(x)`, the name
//! of x's type ('INTEGER', 'DECIMAL(5,3)'), which depends only on the bound type (so
//! typeof(NULL::INTEGER) is 'INTEGER'); and the constants PostgreSQL clients ask for
//! when they connect: `version()`, `current_database()`, `current_schema()`.

use super::signature::bind;
use super::{BoundFunction, ScalarFunction};
use crate::kernels::make_string_vector;
use stride_common::{DataType, Result, StringVector, Validity, Vector};

pub(crate) fn resolve_typeof(args: &[DataType]) -> Option<BoundFunction> {
    let [t] = args else { return None };
    bind(ScalarFunction::TypeOf, vec![t.clone()], DataType::Varchar)
}

pub(crate) fn resolve_version(args: &[DataType]) -> Option<BoundFunction> {
    args.is_empty()
        .then(|| bind(ScalarFunction::Version, vec![], DataType::Varchar))
        .flatten()
}

pub(crate) fn resolve_current_database(args: &[DataType]) -> Option<BoundFunction> {
    args.is_empty()
        .then(|| bind(ScalarFunction::CurrentDatabase, vec![], DataType::Varchar))
        .flatten()
}

pub(crate) fn resolve_current_schema(args: &[DataType]) -> Option<BoundFunction> {
    args.is_empty()
        .then(|| bind(ScalarFunction::CurrentSchema, vec![], DataType::Varchar))
        .flatten()
}

/// What `version()` says; clients parse the "PostgreSQL" part.
pub const VERSION_TEXT: &str = concat!(
    "PostgreSQL 16.0 (stride ",
    env!("CARGO_PKG_VERSION"),
    ", an analytical SQL database)"
);

/// The database's name (`current_database()`, `pg_database`): databases live in
/// memory.
pub const DATABASE_NAME: &str = "memory";

/// The one schema user tables and views live in (`current_schema()`).
pub const SCHEMA_NAME: &str = "main";

pub(crate) fn evaluate_constant(f: &BoundFunction) -> Result<Vector> {
    let text = match f.func {
        ScalarFunction::Version => VERSION_TEXT,
        ScalarFunction::CurrentDatabase => DATABASE_NAME,
        _ => SCHEMA_NAME,
    };
    let mut out = StringVector::with_capacity(1);
    out.push(text);
    Ok(make_string_vector(out, Validity::all_valid(), true))
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
