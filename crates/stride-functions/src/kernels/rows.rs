//! Row-at-a-time loops for functions of any arity (substring, lpad, split_part, ...).
//! Arguments are read through [`super::Slot`]/[`super::StrSlot`] accessors captured
//! by the closure; the loop owns NULL handling, so the closure only sees rows where
//! every argument is valid and may fail with an error for them.

use super::{all_constant, make_string_vector, make_vector, strict_validity};
use stride_common::vector::NativeType;
use stride_common::{DataType, Result, ScalarValue, StringVector, Vector};

/// Calls `f(row)` for each row valid in every argument, collecting fixed-width
/// results; NULL rows hold a default value and are marked NULL.
pub fn map_rows<O: NativeType>(
    args: &[&Vector],
    len: usize,
    ty: DataType,
    mut f: impl FnMut(usize) -> Result<O>,
) -> Result<Vector> {
    let constant = all_constant(args);
    let rows = if constant { 1 } else { len };
    let validity = strict_validity(args, rows);
    let mut out = Vec::with_capacity(rows);
    if validity.has_nulls() {
        for i in 0..rows {
            out.push(if validity.is_valid(i) {
                f(i)?
            } else {
                O::default()
            });
        }
    } else {
        for i in 0..rows {
            out.push(f(i)?);
        }
    }
    Ok(make_vector(ty, out, validity, constant))
}

/// Calls `f(row, out)` for each row valid in every argument; `f` pushes exactly one
/// string onto `out` (an input slice or a built value). NULL rows get "".
pub fn map_rows_to_strings(
    args: &[&Vector],
    len: usize,
    mut f: impl FnMut(usize, &mut StringVector) -> Result<()>,
) -> Result<Vector> {
    let constant = all_constant(args);
    let rows = if constant { 1 } else { len };
    let validity = strict_validity(args, rows);
    let mut out = StringVector::with_capacity(rows);
    for i in 0..rows {
        if validity.is_valid(i) {
            f(i, &mut out)?;
        } else {
            out.push("");
        }
        debug_assert_eq!(
            out.len(),
            i + 1,
            "string kernel must push one value per row"
        );
    }
    Ok(make_string_vector(out, validity, constant))
}

/// The slowest loop: `f` sees each row's arguments as [`ScalarValue`]s and returns the
/// row's value (of type `ty`). For functions over lists and catalog values, whose
/// inputs are small; `strict` makes rows with a NULL argument NULL without calling `f`.
pub fn map_values(
    args: &[&Vector],
    len: usize,
    ty: &DataType,
    strict: bool,
    mut f: impl FnMut(&[ScalarValue]) -> Result<ScalarValue>,
) -> Result<Vector> {
    let constant = all_constant(args);
    let rows = if constant { 1 } else { len };
    let mut out = Vector::with_capacity(ty, rows);
    let mut row = Vec::with_capacity(args.len());
    for i in 0..rows {
        row.clear();
        row.extend(args.iter().map(|a| a.get(i)));
        if strict && row.iter().any(|v| v.is_null()) {
            out.push_null();
        } else {
            out.push(&f(&row)?)?;
        }
    }
    out.constant = constant;
    Ok(out)
}
