//! min(x) and max(x) for every type: a typed array per group for fixed-width values,
//! owned byte strings for VARCHAR, JSON, BLOB and BIT (compared as bytes, which is
//! each one's order: JSON compares as its text, as in DuckDB), and scalar values
//! for the rare LIST case.

use super::{vector_with_seen, GroupedState};
use std::cmp::Ordering;
use stride_common::vector::NativeType;
use stride_common::{
    with_native, DataType, Result, ScalarValue, StringVector, Validity, Vector, VectorData,
};

pub fn new(arg: &DataType, is_max: bool) -> Box<dyn GroupedState> {
    match arg {
        DataType::Varchar | DataType::Json | DataType::Blob | DataType::Bit => {
            Box::new(MinMaxStr {
                ty: arg.clone(),
                is_max,
                vals: Vec::new(),
            })
        }
        _ if arg.is_nested() => Box::new(MinMaxScalar {
            ty: arg.clone(),
            is_max,
            vals: Vec::new(),
        }),
        _ => {
            with_native!(arg.physical(), T => Box::new(MinMaxNative::<T> { ty: arg.clone(), is_max, vals: Vec::new(), seen: Vec::new() }),
            _ => unreachable!())
        }
    }
}

/// Whether `new` replaces `cur`; NaN counts as larger than every number.
#[inline]
fn replaces<T: PartialOrd>(new: &T, cur: &T, is_max: bool) -> bool {
    let ord = match new.partial_cmp(cur) {
        Some(o) => o,
        None => {
            #[allow(clippy::eq_op)]
            let new_nan = new != new;
            if new_nan {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
    };
    if is_max {
        ord == Ordering::Greater
    } else {
        ord == Ordering::Less
    }
}

pub struct MinMaxNative<T> {
    ty: DataType,
    is_max: bool,
    vals: Vec<T>,
    seen: Vec<bool>,
}

impl<T: NativeType> GroupedState for MinMaxNative<T> {
    fn resize(&mut self, groups: usize) {
        self.vals.resize(groups, T::default());
        self.seen.resize(groups, false);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let v = args[0];
        let src = v.values::<T>();
        let (vals, seen) = (&mut self.vals[..], &mut self.seen[..]);
        // Branch-free: every row writes its group's slot, so how often the extreme
        // changes (which is data dependent) never costs a misprediction.
        let mut fold = |g: usize, x: T, is_max: bool| {
            let cur = vals[g];
            let take = !seen[g] | replaces(&x, &cur, is_max);
            vals[g] = if take { x } else { cur };
            seen[g] = true;
        };
        if !v.constant && !v.validity.has_nulls() {
            // One loop per direction, so the comparison is fixed inside each.
            if self.is_max {
                for (&g, &x) in groups[..rows].iter().zip(&src[..rows]) {
                    fold(g as usize, x, true);
                }
            } else {
                for (&g, &x) in groups[..rows].iter().zip(&src[..rows]) {
                    fold(g as usize, x, false);
                }
            }
        } else {
            let is_max = self.is_max;
            for (i, &g) in groups[..rows].iter().enumerate() {
                let j = v.index(i);
                if v.validity.is_valid(j) {
                    fold(g as usize, src[j], is_max);
                }
            }
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        self.finalize().map(|v| vec![v])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        self.update(groups, &partial.iter().collect::<Vec<_>>(), rows)
    }

    fn finalize(&mut self) -> Result<Vector> {
        Ok(vector_with_seen(
            self.ty.clone(),
            std::mem::take(&mut self.vals),
            &self.seen,
        ))
    }
}

/// min/max of VARCHAR or BLOB: compared as bytes (which orders UTF-8 text by code
/// point, as SQL does without a collation).
pub struct MinMaxStr {
    ty: DataType,
    is_max: bool,
    vals: Vec<Option<Box<[u8]>>>,
}

impl GroupedState for MinMaxStr {
    fn resize(&mut self, groups: usize) {
        self.vals.resize(groups, None);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let v = &args[0];
        let s = v.strings();
        for (i, &g) in groups[..rows].iter().enumerate() {
            let j = v.index(i);
            if !v.validity.is_valid(j) {
                continue;
            }
            let x = s.get_bytes(j);
            let slot = &mut self.vals[g as usize];
            let better = match slot {
                None => true,
                Some(cur) => replaces(&x, &&**cur, self.is_max),
            };
            if better {
                *slot = Some(x.into());
            }
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        self.finalize().map(|v| vec![v])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        self.update(groups, &partial.iter().collect::<Vec<_>>(), rows)
    }

    fn finalize(&mut self) -> Result<Vector> {
        let mut strings = StringVector::with_capacity(self.vals.len());
        let validity = Validity::from_fn(self.vals.len(), |i| self.vals[i].is_some());
        for v in &self.vals {
            // the bytes of one input row: UTF-8 unless the type is BLOB
            strings.push_blob(v.as_deref().unwrap_or_default());
        }
        Ok(Vector::new(
            self.ty.clone(),
            VectorData::Str(strings),
            validity,
        ))
    }
}

pub struct MinMaxScalar {
    ty: DataType,
    is_max: bool,
    vals: Vec<ScalarValue>,
}

impl GroupedState for MinMaxScalar {
    fn resize(&mut self, groups: usize) {
        self.vals.resize(groups, ScalarValue::Null);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        for (i, &g) in groups[..rows].iter().enumerate() {
            let x = args[0].get(i);
            if x.is_null() {
                continue;
            }
            let cur = &mut self.vals[g as usize];
            let ord = x.total_cmp(cur);
            if cur.is_null()
                || (self.is_max && ord == Ordering::Greater)
                || (!self.is_max && ord == Ordering::Less)
            {
                *cur = x;
            }
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        self.finalize().map(|v| vec![v])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        self.update(groups, &partial.iter().collect::<Vec<_>>(), rows)
    }

    fn finalize(&mut self) -> Result<Vector> {
        let mut out = Vector::with_capacity(&self.ty, self.vals.len());
        for v in &self.vals {
            out.push(v)?;
        }
        Ok(out)
    }
}
