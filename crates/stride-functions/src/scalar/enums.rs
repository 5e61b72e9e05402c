//! DuckDB's functions of ENUM types: `enum_first(e)`, `enum_last(e)` and
//! `enum_range(e)` depend only on the argument's type (so `enum_first(NULL::mood)`
//! is mood's first label, not NULL); `enum_range_boundary(a, b)` lists the labels
//! from a to b (from the first label when a is NULL, to the last when b is NULL);
//! `enum_code(e)` is a value's position, in the integer the enum is stored as
//! (TINYINT, SMALLINT or INTEGER: DuckDB's UTINYINT, USMALLINT or UINTEGER, which
//! stride lacks, hold twice as many).
//!
//! Where it sits: resolved by name at binding ([`super::catalogue`]); an argument
//! that is not an enum is a Binder error with DuckDB's message. Evaluation reads the
//! labels from the bound argument type.

use super::signature::bind;
use super::{BoundFunction, ScalarFunction};
use crate::kernels::{
    make_string_vector, map_rows_to_string_lists, null_vector, with_integer, SqlInt,
};
use stride_common::{DataType, EnumType, Error, Result, StringVector, Validity, Vector};

/// Which enum function a call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EnumFunction {
    First,
    Last,
    Range,
    RangeBoundary,
    Code,
}

/// The Binder error for an argument that is not an enum (DuckDB's words).
pub fn needs_enum() -> Error {
    Error::binder("This function needs an ENUM as an argument")
}

fn enum_of(t: &DataType) -> Option<&EnumType> {
    match t {
        DataType::Enum(e) => Some(e),
        _ => None,
    }
}

/// The integer type an enum's positions are stored as.
fn code_type(e: &EnumType) -> DataType {
    match e.physical() {
        stride_common::PhysicalType::I8 => DataType::TinyInt,
        stride_common::PhysicalType::I16 => DataType::SmallInt,
        _ => DataType::Integer,
    }
}

pub(crate) fn resolve(which: EnumFunction, args: &[DataType]) -> Option<BoundFunction> {
    let f = ScalarFunction::Enum(which);
    let varchar_list = DataType::List(Box::new(DataType::Varchar));
    match (which, args) {
        (EnumFunction::First | EnumFunction::Last, [t @ DataType::Enum(_)]) => {
            bind(f, vec![t.clone()], DataType::Varchar)
        }
        (EnumFunction::Range, [t @ DataType::Enum(_)]) => bind(f, vec![t.clone()], varchar_list),
        (EnumFunction::Code, [t @ DataType::Enum(e)]) => bind(f, vec![t.clone()], code_type(e)),
        // an untyped NULL takes the other argument's enum type
        (EnumFunction::RangeBoundary, [a, b]) => {
            let t = match (a, b) {
                (DataType::Enum(_), DataType::Null) => a,
                (DataType::Null, DataType::Enum(_)) => b,
                (DataType::Enum(_), DataType::Enum(_)) if a == b => a,
                _ => return None,
            };
            bind(f, vec![t.clone(), t.clone()], varchar_list)
        }
        _ => None,
    }
}

/// Why [`resolve`] refused `args` (DuckDB's messages).
pub fn resolve_error(which: EnumFunction, args: &[DataType]) -> Error {
    match (which, args) {
        (EnumFunction::RangeBoundary, [a, b])
            if matches!(a, DataType::Enum(_) | DataType::Null)
                && matches!(b, DataType::Enum(_) | DataType::Null)
                && (enum_of(a).is_some() || enum_of(b).is_some()) =>
        {
            Error::binder("The parameters need to link to ONLY one enum OR be NULL")
        }
        (EnumFunction::RangeBoundary, [_, _]) | (_, [_]) => needs_enum(),
        _ => Error::binder(format!(
            "{} takes {} argument{}",
            name(which),
            if which == EnumFunction::RangeBoundary {
                "two"
            } else {
                "one"
            },
            if which == EnumFunction::RangeBoundary {
                "s"
            } else {
                ""
            }
        )),
    }
}

fn name(which: EnumFunction) -> &'static str {
    match which {
        EnumFunction::First => "enum_first",
        EnumFunction::Last => "enum_last",
        EnumFunction::Range => "enum_range",
        EnumFunction::RangeBoundary => "enum_range_boundary",
        EnumFunction::Code => "enum_code",
    }
}

pub(crate) fn evaluate(
    which: EnumFunction,
    f: &BoundFunction,
    args: &[Vector],
    len: usize,
) -> Result<Vector> {
    let Some(e) = enum_of(&f.arg_types[0]) else {
        return Err(needs_enum());
    };
    match which {
        EnumFunction::First | EnumFunction::Last => {
            let label = if which == EnumFunction::First {
                e.labels().first()
            } else {
                e.labels().last()
            };
            match label {
                Some(l) => {
                    let mut out = StringVector::with_capacity(1);
                    out.push(l);
                    Ok(make_string_vector(out, Validity::all_valid(), true))
                }
                // an enum without labels has no first one
                None => Ok(null_vector(&DataType::Varchar, len, true)),
            }
        }
        EnumFunction::Range => map_rows_to_string_lists(&[], &[], len, |_, out| {
            e.labels().iter().for_each(|l| out.push(l));
            Ok(())
        }),
        EnumFunction::RangeBoundary => {
            let (a, b) = (positions(&args[0], len, e)?, positions(&args[1], len, e)?);
            let last = e.len();
            map_rows_to_string_lists(&[], &[&args[0], &args[1]], len, |i, out| {
                let from = a[i].unwrap_or(0);
                let to = b[i].map_or(last, |p| p + 1);
                for l in e.labels().get(from..to.max(from)).unwrap_or_default() {
                    out.push(l);
                }
                Ok(())
            })
        }
        EnumFunction::Code => {
            // the stored positions, read as the integers they are
            let mut out = args[0].clone();
            out.ty = f.return_type.clone();
            Ok(out)
        }
    }
}

/// Each row's position (`None` for NULL) of a flat or constant vector of enum `e`,
/// indexed by row.
fn positions(v: &Vector, len: usize, e: &EnumType) -> Result<Vec<Option<usize>>> {
    let rows = if v.constant { 1 } else { len };
    let read: Vec<Option<usize>> = with_integer!(e.physical(), T => {
        (0..rows)
            .map(|i| v.is_valid(i).then(|| v.values::<T>()[i].to_i128() as usize))
            .collect()
    }, _ => return Err(Error::internal(format!("{} is not stored as an integer", v.ty))));
    Ok(if v.constant {
        vec![read[0]; len.max(1)]
    } else {
        read
    })
}
