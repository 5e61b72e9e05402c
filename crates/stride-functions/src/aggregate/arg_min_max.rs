//! arg_min(arg, val) / arg_max(arg, val): the `arg` of the row with the smallest /
//! largest `val` in a group (first such row on ties). Rows where either argument is
//! NULL are skipped, as in DuckDB. Kept as scalar values: a slow path, but exact for every type.

use super::GroupedState;
use std::cmp::Ordering;
use stride_common::{DataType, Result, ScalarValue, Vector};

pub struct ArgMinMax {
    arg_ty: DataType,
    val_ty: DataType,
    is_max: bool,
    best: Vec<Option<(ScalarValue, ScalarValue)>>,
}

impl ArgMinMax {
    pub fn new(types: &[DataType], is_max: bool) -> Self {
        ArgMinMax {
            arg_ty: types[0].clone(),
            val_ty: types[1].clone(),
            is_max,
            best: Vec::new(),
        }
    }

    fn offer(&mut self, g: usize, arg: ScalarValue, val: ScalarValue) {
        if val.is_null() {
            return;
        }
        let better = match &self.best[g] {
            None => true,
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
            if args[1].is_valid(i) && args[0].is_valid(i) {
                self.offer(g as usize, args[0].get(i), args[1].get(i));
            }
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        let mut a = Vector::with_capacity(&self.arg_ty, self.best.len());
        let mut v = Vector::with_capacity(&self.val_ty, self.best.len());
        for b in std::mem::take(&mut self.best) {
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
        Ok(vec![a, v])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        self.update(groups, &partial.iter().collect::<Vec<_>>(), rows)
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
