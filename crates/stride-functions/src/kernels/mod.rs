//! Generic vectorized loops shared by every function and cast. A kernel is written
//! once as a closure over native values; these loops monomorphize it into tight loops
//! over slices, with separate paths for flat and constant inputs, strict NULL
//! propagation through [`Validity`] masks, and errors raised only for valid rows (a
//! division by zero hidden behind a NULL is not an error).
//!
//! Contract for every loop: inputs are flat (`data_len() == len`) or constant
//! (`data_len() == 1`); the output is constant exactly when every input is.

mod binary;
mod native;
mod rows;
mod unary;

pub use binary::{binary, try_binary};
pub use native::{SqlFloat, SqlInt, SqlOrd};
pub use rows::{
    map_rows, map_rows_to_string_lists, map_rows_to_strings, map_rows_to_strings_with, map_values,
    StrListRow,
};
pub use unary::{try_unary, try_unary_or_null, unary};

use stride_common::vector::{ListData, NativeType};
use stride_common::{DataType, StringVector, Validity, Vector, VectorData};

/// Runs `$body` with `$T` bound to the native type of an integer physical type
/// (including the i128 of wide decimals); anything else goes to `$other`.
macro_rules! with_integer {
    ($phys:expr, $T:ident => $body:expr, _ => $other:expr) => {
        match $phys {
            stride_common::PhysicalType::I8 => {
                type $T = i8;
                $body
            }
            stride_common::PhysicalType::I16 => {
                type $T = i16;
                $body
            }
            stride_common::PhysicalType::I32 => {
                type $T = i32;
                $body
            }
            stride_common::PhysicalType::I64 => {
                type $T = i64;
                $body
            }
            stride_common::PhysicalType::I128 => {
                type $T = i128;
                $body
            }
            _ => $other,
        }
    };
}
pub(crate) use with_integer;

/// Reads row `i` of a flat or constant vector without branching: a constant's mask
/// is 0, so every row maps to its single stored value.
#[derive(Clone, Copy)]
pub struct Slot<'a, T> {
    values: &'a [T],
    mask: usize,
}

impl<'a, T: NativeType> Slot<'a, T> {
    pub fn new(v: &'a Vector) -> Self {
        Slot {
            values: v.values::<T>(),
            mask: if v.constant { 0 } else { usize::MAX },
        }
    }

    #[inline]
    pub fn get(&self, i: usize) -> T {
        self.values[i & self.mask]
    }
}

/// [`Slot`] for string vectors.
#[derive(Clone, Copy)]
pub struct StrSlot<'a> {
    strings: &'a StringVector,
    mask: usize,
}

impl<'a> StrSlot<'a> {
    pub fn new(v: &'a Vector) -> Self {
        StrSlot {
            strings: v.strings(),
            mask: if v.constant { 0 } else { usize::MAX },
        }
    }

    #[inline]
    pub fn get(&self, i: usize) -> &'a str {
        self.strings.get(i & self.mask)
    }

    #[inline]
    pub fn bytes(&self, i: usize) -> &'a [u8] {
        let sv = self.strings;
        sv.bytes_of(&sv.views[i & self.mask])
    }
}

/// Whether every input is constant (so the output is a single constant row).
pub fn all_constant(args: &[&Vector]) -> bool {
    args.iter().all(|a| a.constant)
}

/// Rows a kernel computes: 1 when every input is constant.
pub fn output_rows(args: &[&Vector], len: usize) -> usize {
    if all_constant(args) {
        1
    } else {
        len
    }
}

/// Validity of a strict function's output over `rows` rows: valid where every input
/// is valid. A NULL constant makes every row NULL.
pub fn strict_validity(args: &[&Vector], rows: usize) -> Validity {
    let mut out = Validity::all_valid();
    for a in args {
        if a.constant {
            if !a.validity.is_valid(0) {
                return Validity::all_invalid(rows);
            }
        } else if a.validity.has_nulls() {
            out = out.and(&a.validity);
        }
    }
    out
}

/// Whether some input is a NULL constant, which makes a strict function's output
/// entirely NULL without computing anything.
pub fn has_null_constant(args: &[&Vector]) -> bool {
    args.iter().any(|a| a.constant && !a.validity.is_valid(0))
}

/// Wraps computed values into a vector.
pub fn make_vector<T: NativeType>(
    ty: DataType,
    values: Vec<T>,
    validity: Validity,
    constant: bool,
) -> Vector {
    let mut v = Vector::new(ty, T::wrap(values), validity);
    v.constant = constant;
    v
}

/// Wraps a built string column into a vector.
pub fn make_string_vector(strings: StringVector, validity: Validity, constant: bool) -> Vector {
    let mut v = Vector::new(DataType::Varchar, VectorData::Str(strings), validity);
    v.constant = constant;
    v
}

/// A vector of `rows` NULLs of type `ty` (one constant NULL when `constant`).
pub fn null_vector(ty: &DataType, rows: usize, constant: bool) -> Vector {
    let rows = if constant { 1 } else { rows };
    let data = match ty {
        DataType::List(_) | DataType::Map(..) | DataType::Array(..) => VectorData::List(ListData {
            offsets: vec![0; rows + 1],
            child: Box::new(Vector::empty(&ty.list_child().expect("list-shaped"))),
        }),
        DataType::Struct(_) | DataType::Union(_) => {
            VectorData::Struct(stride_common::vector::StructData {
                fields: ty
                    .stored_fields()
                    .expect("struct-shaped")
                    .iter()
                    .map(|(_, t)| null_vector(t, rows, false))
                    .collect(),
            })
        }
        _ => stride_common::with_native!(ty.physical(), T => T::wrap(vec![T::default(); rows]),
        _ => VectorData::Str(StringVector {
            views: vec![Default::default(); rows].into(),
            buffers: Vec::new(),
        })),
    };
    let mut v = Vector::new(ty.clone(), data, Validity::all_invalid(rows));
    v.constant = constant;
    v
}

/// The first row in `0..rows` that is valid and for which `failed` holds; used to
/// report the error of a kernel that noticed a failure somewhere in a vector.
pub fn first_failure(
    rows: usize,
    validity: &Validity,
    mut failed: impl FnMut(usize) -> bool,
) -> Option<usize> {
    (0..rows).find(|&i| validity.is_valid(i) && failed(i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use stride_common::{Error, ScalarValue};

    fn ints(vals: &[Option<i32>]) -> Vector {
        let mut v = Vector::empty(&DataType::Integer);
        for x in vals {
            v.push(&x.map_or(ScalarValue::Null, ScalarValue::Integer))
                .unwrap();
        }
        v
    }

    fn konst(x: Option<i32>) -> Vector {
        Vector::constant(
            &x.map_or(ScalarValue::Null, ScalarValue::Integer),
            &DataType::Integer,
        )
        .unwrap()
    }

    #[test]
    fn binary_paths() {
        let a = ints(&[Some(1), None, Some(3)]);
        let b = ints(&[Some(10), Some(20), None]);
        let add = |x: i32, y: i32| x + y;
        let r = binary(&a, &b, 3, DataType::Integer, add);
        assert_eq!(r.get(0), ScalarValue::Integer(11));
        assert_eq!(r.get(1), ScalarValue::Null);
        assert_eq!(r.get(2), ScalarValue::Null);
        let r = binary(&a, &konst(Some(5)), 3, DataType::Integer, add);
        assert_eq!(r.get(2), ScalarValue::Integer(8));
        let r = binary(&konst(Some(5)), &a, 3, DataType::Integer, add);
        assert_eq!(r.get(0), ScalarValue::Integer(6));
        assert!(!r.constant);
        let r = binary(&konst(Some(5)), &konst(Some(6)), 3, DataType::Integer, add);
        assert!(r.constant);
        assert_eq!(r.get(2), ScalarValue::Integer(11));
        let r = binary(&konst(None), &a, 3, DataType::Integer, add);
        assert_eq!(r.get(0), ScalarValue::Null);
    }

    #[test]
    fn errors_only_for_valid_rows() {
        let a = ints(&[Some(1), Some(2)]);
        let b = ints(&[Some(1), None]);
        let div = |x: i32, y: i32| x.checked_div(y);
        let err = |_, _| Error::division_by_zero();
        // the NULL row holds a default 0 divisor: it must not raise
        let r = try_binary(&a, &b, 2, DataType::Integer, div, err).unwrap();
        assert_eq!(r.get(0), ScalarValue::Integer(1));
        let zero = konst(Some(0));
        assert!(try_binary(&a, &zero, 2, DataType::Integer, div, err).is_err());
        let r = try_unary_or_null(
            &a,
            2,
            DataType::Integer,
            true,
            |x: i32| (x == 1).then_some(x),
            |_| Error::internal("x"),
        )
        .unwrap();
        assert_eq!(r.get(0), ScalarValue::Integer(1));
        assert_eq!(r.get(1), ScalarValue::Null);
    }

    #[test]
    fn null_vectors() {
        let v = null_vector(&DataType::Varchar, 3, false);
        assert_eq!(v.get(2), ScalarValue::Null);
        let l = null_vector(&DataType::List(Box::new(DataType::Integer)), 2, true);
        assert_eq!(l.get(1), ScalarValue::Null);
    }
}
