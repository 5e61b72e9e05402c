//! arg_min(arg, val) / arg_max(arg, val): the `arg` of the row with the smallest /
//! largest `val` in a group (first such row on ties). Rows where either argument is
//! NULL are skipped, as in DuckDB; `arg_min_null` / `arg_max_null` skip only rows
//! whose `val` is NULL (so the answer may be a NULL `arg`), and
//! `arg_min_nulls_last` / `arg_max_nulls_last` skip nothing, a NULL `val` losing to
//! any other. Kept as scalar values: a slow path, but exact for every type.

use super::GroupedState;
use std::cmp::Ordering;
use stride_common::{DataType, Result, ScalarValue, Vector};

/// Which rows with NULLs take part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Nulls {
    /// arg_min / arg_max: neither argument NULL
    Skip,
    /// arg_min_null / arg_max_null: `val` not NULL
    KeepArg,
    /// arg_min_nulls_last / arg_max_nulls_last: every row, NULL `val` last
    Last,
}

pub struct ArgMinMax {
    arg_ty: DataType,
    val_ty: DataType,
    is_max: bool,
    nulls: Nulls,
    best: Vec<Option<(ScalarValue, ScalarValue)>>,
}

impl ArgMinMax {
    pub fn new(types: &[DataType], is_max: bool, nulls: Nulls) -> Self {
        ArgMinMax {
            arg_ty: types[0].clone(),
            val_ty: types[1].clone(),
            is_max,
            nulls,
            best: Vec::new(),
        }
    }

    fn offer(&mut self, g: usize, arg: ScalarValue, val: ScalarValue) {
        if val.is_null() && self.nulls != Nulls::Last {
            return;
        }
        let better = match &self.best[g] {
            None => true,
            Some(_) if val.is_null() => false,
            Some((_, cur)) if cur.is_null() => true,
            Some((_, cur)) => {
                let o = val.total_cmp(cur);
                if self.is_max {
                    o == Ordering::Greater
                } else {
                    o == Ordering::Less
                }
            }
        };
        if better {
            self.best[g] = Some((arg, val));
        }
    }
}

impl GroupedState for ArgMinMax {
    fn resize(&mut self, groups: usize) {
        self.best.resize(groups, None);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        for (i, &g) in groups[..rows].iter().enumerate() {
            if self.nulls != Nulls::Skip || (args[1].is_valid(i) && args[0].is_valid(i)) {
                self.offer(g as usize, args[0].get(i), args[1].get(i));
            }
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        let mut a = Vector::with_capacity(&self.arg_ty, self.best.len());
        let mut v = Vector::with_capacity(&self.val_ty, self.best.len());
        let mut seen = Vector::with_capacity(&DataType::Boolean, self.best.len());
        for b in std::mem::take(&mut self.best) {
            seen.push(&ScalarValue::Boolean(b.is_some()))?;
            match b {
                Some((x, y)) => {
                    a.push(&x)?;
                    v.push(&y)?;
                }
                None => {
                    a.push_null();
                    v.push_null();
                }
            }
        }
        Ok(vec![a, v, seen])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        let seen = partial[2].values::<bool>();
        for (i, &g) in groups[..rows].iter().enumerate() {
            if partial[2].is_valid(i) && seen[partial[2].index(i)] {
                self.offer(g as usize, partial[0].get(i), partial[1].get(i));
            }
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let mut out = Vector::with_capacity(&self.arg_ty, self.best.len());
        for b in &self.best {
            match b {
                Some((x, _)) => out.push(x)?,
                None => out.push_null(),
            }
        }
        Ok(out)
    }
}
