//! `x IN (c1, c2, ...)` with a list of constants: the constants go into a set on
//! first use, kept in the list's own expression (`ListSet`: a copy of the plan, such
//! as each pipeline's filter, builds its own, so no list ever reads another's), and
//! each row is one lookup, instead of one comparison with every
//! constant (200,000 constants over a million rows took over a minute that way). A
//! set of a few integers is tested by comparing each row with them, in the row's
//! own width (TPC-H Q16's eight sizes). Lists of strings shorter than
//! [`MIN_STRINGS`] keep their comparisons, which compare lengths and prefixes of
//! every row at once (`in_string_constants` in `expression.rs`). `x IN
//! (uncorrelated subquery)` uses the same set, built from the subquery's rows
//! ([`InSet::of_values`]) once per query.

use std::collections::HashSet;
use stride_common::{DataType, PhysicalType, ScalarValue, Validity, Vector, VectorData};
use stride_sql::plan::{Expr, ListSet};
use stride_storage::Key;

/// String constants at which a hash set pays off.
pub const MIN_STRINGS: usize = 16;

/// The constants of one IN list, by physical value.
#[derive(Debug, Clone)]
pub struct InSet {
    values: Values,
    /// A NULL among the constants: rows that match nothing are NULL, not false.
    has_null: bool,
}

/// Sets this small are tested by comparing with each value.
const SMALL_SET: usize = 8;

type IntSet = HashSet<i128, foldhash::fast::RandomState>;

#[derive(Debug, Clone)]
enum Values {
    /// Integers of every width, DATE, TIMESTAMP, DECIMAL (unscaled), BOOLEAN.
    Ints(IntSet),
    Strs(HashSet<Vec<u8>, foldhash::fast::RandomState>),
}

impl InSet {
    /// The set for `list` over values of type `ty`, built on first use and kept in
    /// `slot` (the list's own, in its `Expr::InList`); `None` for a short list of
    /// strings, a type without a set, or a list not all constants of that type.
    pub fn for_list<'a>(list: &[Expr], slot: &'a ListSet, ty: &DataType) -> Option<&'a InSet> {
        match ty.physical() {
            PhysicalType::Str if list.len() >= MIN_STRINGS => {}
            PhysicalType::Bool
            | PhysicalType::I8
            | PhysicalType::I16
            | PhysicalType::I32
            | PhysicalType::I64
            | PhysicalType::I128 => {}
            _ => return None,
        }
        slot.get_or_init(|| Self::build(list, ty))
    }

    fn build(list: &[Expr], ty: &DataType) -> Option<InSet> {
        let mut values = Vec::with_capacity(list.len());
        for item in list {
            match item {
                Expr::Literal { value, ty: lt } if value.is_null() || lt == ty => {
                    values.push(value.clone())
                }
                _ => return None,
            }
        }
        Self::of_values(&values, ty)
    }

    /// The set of `values` (of type `ty`, NULLs among them), for `x IN (values)`
    /// with `x` of type `ty`; `None` for types without a set (floats, lists).
    pub fn of_values(list: &[ScalarValue], ty: &DataType) -> Option<InSet> {
        let mut has_null = false;
        let mut values = match ty.physical() {
            PhysicalType::Str => Values::Strs(HashSet::default()),
            PhysicalType::Bool
            | PhysicalType::I8
            | PhysicalType::I16
            | PhysicalType::I32
            | PhysicalType::I64
            | PhysicalType::I128 => Values::Ints(HashSet::default()),
            _ => return None,
        };
        for value in list {
            if value.is_null() {
                has_null = true;
                continue;
            }
            // As a zone map keeps it: the column's physical value.
            match (&mut values, Key::of(value, ty)?) {
                (Values::Strs(s), Key::Str(v)) => {
                    s.insert(v);
                }
                (Values::Ints(s), Key::Int(v)) => {
                    s.insert(v);
                }
                _ => return None,
            }
        }
        Some(InSet { values, has_null })
    }

    /// `x [NOT] IN (the list)` for the first `len` rows of `x`.
    pub fn test(&self, x: &Vector, len: usize, negated: bool) -> Vector {
        let found = self.found(x, len);
        let mut validity = Validity::all_valid();
        let mut out = Vec::with_capacity(len);
        if !x.validity.has_nulls() && !self.has_null {
            out.extend(found.iter().map(|&f| f != negated));
        } else {
            for (i, &f) in found.iter().enumerate() {
                // A NULL row, or one that matches nothing when a constant is NULL.
                if !x.is_valid(i) || (!f && self.has_null) {
                    validity.set_invalid(i, len);
                    out.push(false);
                } else {
                    out.push(f != negated);
                }
            }
        }
        let mut v = Vector::from_values(DataType::Boolean, out);
        v.validity = validity;
        v
    }

    /// For each of the first `len` rows of `x`, whether the set holds its value
    /// (whatever it is for a NULL row). Integers are read in their own width, the
    /// type decided once for all rows; a set of a few compares each row with them.
    fn found(&self, x: &Vector, len: usize) -> Vec<bool> {
        fn ints<T: Copy + Into<i128>>(set: &IntSet, values: &[T]) -> Vec<bool> {
            if set.len() <= SMALL_SET {
                let few: Vec<i128> = set.iter().copied().collect();
                values.iter().map(|&v| few.contains(&v.into())).collect()
            } else {
                values.iter().map(|&v| set.contains(&v.into())).collect()
            }
        }
        match (&self.values, &x.data) {
            (Values::Ints(s), d) if !x.constant => match d {
                VectorData::Bool(v) => ints(s, &v[..len]),
                VectorData::I8(v) => ints(s, &v[..len]),
                VectorData::I16(v) => ints(s, &v[..len]),
                VectorData::I32(v) => ints(s, &v[..len]),
                VectorData::I64(v) => ints(s, &v[..len]),
                VectorData::I128(v) => ints(s, &v[..len]),
                _ => vec![false; len],
            },
            (values, d) => (0..len)
                .map(|i| {
                    let j = x.index(i);
                    match (values, d) {
                        (Values::Strs(s), VectorData::Str(v)) => {
                            s.contains(v.bytes_of(&v.views[j]))
                        }
                        (Values::Ints(s), d) => s.contains(&int_at(d, j)),
                        _ => false,
                    }
                })
                .collect(),
        }
    }
}

fn int_at(d: &VectorData, j: usize) -> i128 {
    match d {
        VectorData::Bool(x) => x[j] as i128,
        VectorData::I8(x) => x[j] as i128,
        VectorData::I16(x) => x[j] as i128,
        VectorData::I32(x) => x[j] as i128,
        VectorData::I64(x) => x[j] as i128,
        VectorData::I128(x) => x[j],
        _ => i128::MIN,
    }
}
