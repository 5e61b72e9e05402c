//! Row-at-a-time loops for functions of any arity (substring, lpad, split_part, ...).
//! Arguments are read through [`super::Slot`]/[`super::StrSlot`] accessors captured
//! by the closure; the loop owns NULL handling, so the closure only sees rows where
//! every argument is valid and may fail with an error for them.

use super::{all_constant, make_string_vector, make_vector, strict_validity};
use stride_common::vector::{ListData, NativeType};
use stride_common::{DataType, Result, ScalarValue, StringVector, Validity, Vector, VectorData};

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
    f: impl FnMut(usize, &mut StringVector) -> Result<()>,
) -> Result<Vector> {
    map_rows_to_strings_with(args, args, len, f)
}

/// [`map_rows_to_strings`] where only the arguments in `strict` make a row NULL (the
/// others, optional arguments with a default, are read by `f` even when NULL); the
/// output is constant when every argument of `all` is.
pub fn map_rows_to_strings_with(
    strict: &[&Vector],
    all: &[&Vector],
    len: usize,
    mut f: impl FnMut(usize, &mut StringVector) -> Result<()>,
) -> Result<Vector> {
    let constant = all_constant(all);
    let rows = if constant { 1 } else { len };
    let validity = strict_validity(strict, rows);
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

/// The elements of one row of a VARCHAR[] result, appended by a kernel of
/// [`map_rows_to_string_lists`] straight into the result's child column.
pub struct StrListRow<'a> {
    strings: &'a mut StringVector,
    validity: &'a mut Validity,
}

impl StrListRow<'_> {
    /// Appends one element.
    #[inline]
    pub fn push(&mut self, s: &str) {
        self.strings.push(s);
    }

    /// Appends a NULL element.
    pub fn push_null(&mut self) {
        let n = self.strings.len();
        self.strings.push("");
        self.validity.set_invalid(n, n + 1);
    }
}

/// Builds a VARCHAR[] column: `f(row, out)` appends the elements of each row that is
/// valid in every argument of `strict` (the others are NULL lists); the output is
/// constant when every argument of `all` is.
pub fn map_rows_to_string_lists(
    strict: &[&Vector],
    all: &[&Vector],
    len: usize,
    mut f: impl FnMut(usize, &mut StrListRow) -> Result<()>,
) -> Result<Vector> {
    let constant = all_constant(all);
    let rows = if constant { 1 } else { len };
    let validity = strict_validity(strict, rows);
    let mut strings = StringVector::with_capacity(rows);
    let mut child_validity = Validity::all_valid();
    let mut offsets = Vec::with_capacity(rows + 1);
    offsets.push(0u32);
    for i in 0..rows {
        if validity.is_valid(i) {
            f(
                i,
                &mut StrListRow {
                    strings: &mut strings,
                    validity: &mut child_validity,
                },
            )?;
        }
        let end = u32::try_from(strings.len()).map_err(|_| {
            stride_common::Error::out_of_range("a list column holds too many elements")
        })?;
        offsets.push(end);
    }
    let child = Vector::new(DataType::Varchar, VectorData::Str(strings), child_validity);
    let ty = DataType::List(Box::new(DataType::Varchar));
    let data = VectorData::List(ListData {
        offsets,
        child: Box::new(child),
    });
    let mut v = Vector::new(ty, data, validity);
    v.constant = constant;
    Ok(v)
}
