//! The n-value forms of max, min, arg_max and arg_min: `max(x, n)` / `min(x, n)`, the
//! n largest / smallest non-NULL values of a group, and `arg_max(arg, val, n)` /
//! `arg_min(arg, val, n)` (`max_by` / `min_by`), the `arg`s of the rows with the n
//! largest / smallest `val`s. Each is a LIST ordered from the best; on ties the row
//! seen first comes first. Rows with a NULL argument are skipped, as in DuckDB; a group
//! without rows is NULL. `n` is a constant (the binder checks it), kept per group as a
//! small sorted buffer, so the cost is O(rows × log n) comparisons of scalar values.

use super::GroupedState;
use std::cmp::Ordering;
use stride_common::{DataType, Error, Result, ScalarValue, Vector};

/// The `n` of a call, checked: what the binder reports for a bad one.
pub fn count(n: &ScalarValue) -> Result<usize> {
    match n {
        ScalarValue::Null => Err(Error::invalid_input(
            "Invalid input for MIN/MAX: n value cannot be NULL",
        )),
        v => match v.as_f64() {
            Some(x) if x >= 1.0 && x.fract() == 0.0 && x <= 1e6 => Ok(x as usize),
            Some(x) if x > 1e6 => Err(Error::invalid_input(
                "Invalid input for MIN/MAX: n value must be at most 1000000",
            )),
            _ => Err(Error::invalid_input(
                "Invalid input for MIN/MAX: n value must be > 0",
            )),
        },
    }
}

pub struct TopN {
    /// Largest first (max, arg_max) or smallest first.
    largest: bool,
    /// arg_max / arg_min: the kept value is the first argument, ranked by the second.
    by: bool,
    n: usize,
    elem: DataType,
    key: DataType,
    /// Per group: (key, value), best first.
    best: Vec<Vec<(ScalarValue, ScalarValue)>>,
}

impl TopN {
    pub fn new(largest: bool, types: &[DataType], n: Option<&ScalarValue>) -> Self {
        let by = types.len() == 3;
        TopN {
            largest,
            by,
            n: n.and_then(|n| count(n).ok()).unwrap_or(1),
            elem: types[0].clone(),
            key: if by {
                types[1].clone()
            } else {
                types[0].clone()
            },
            best: Vec::new(),
        }
    }

    fn offer(&mut self, g: usize, key: ScalarValue, value: ScalarValue) {
        let largest = self.largest;
        let beats = |a: &ScalarValue, b: &ScalarValue| {
            let o = a.total_cmp(b);
            if largest {
                o == Ordering::Greater
            } else {
                o == Ordering::Less
            }
        };
        let kept = &mut self.best[g];
        if kept.len() == self.n && !beats(&key, &kept[self.n - 1].0) {
            return;
        }
        // after every kept entry it does not beat: ties keep arrival order
        let at = kept.partition_point(|(k, _)| !beats(&key, k));
        kept.insert(at, (key, value));
        kept.truncate(self.n);
    }
}

impl GroupedState for TopN {
    fn resize(&mut self, groups: usize) {
        self.best.resize_with(groups, Vec::new);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let key_arg = if self.by { 1 } else { 0 };
        for (i, &g) in groups[..rows].iter().enumerate() {
            if args[0].is_valid(i) && args[key_arg].is_valid(i) {
                let value = args[0].get(i);
                let key = if self.by {
                    args[1].get(i)
                } else {
                    value.clone()
                };
                self.offer(g as usize, key, value);
            }
        }
        Ok(())
    }

    /// Each group's kept keys and values, as two lists.
    fn partial(&mut self) -> Result<Vec<Vector>> {
        let keys_ty = DataType::List(Box::new(self.key.clone()));
        let vals_ty = DataType::List(Box::new(self.elem.clone()));
        let mut keys = Vector::with_capacity(&keys_ty, self.best.len());
        let mut vals = Vector::with_capacity(&vals_ty, self.best.len());
        for kept in std::mem::take(&mut self.best) {
            let (k, v): (Vec<_>, Vec<_>) = kept.into_iter().unzip();
            keys.push(&ScalarValue::List(self.key.clone(), k))?;
            vals.push(&ScalarValue::List(self.elem.clone(), v))?;
        }
        Ok(vec![keys, vals])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        for (i, &g) in groups[..rows].iter().enumerate() {
            if let (ScalarValue::List(_, keys), ScalarValue::List(_, vals)) =
                (partial[0].get(i), partial[1].get(i))
            {
                for (k, v) in keys.into_iter().zip(vals) {
                    self.offer(g as usize, k, v);
                }
            }
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let ty = DataType::List(Box::new(self.elem.clone()));
        let mut out = Vector::with_capacity(&ty, self.best.len());
        for kept in std::mem::take(&mut self.best) {
            if kept.is_empty() {
                out.push_null();
            } else {
                let vals = kept.into_iter().map(|(_, v)| v).collect();
                out.push(&ScalarValue::List(self.elem.clone(), vals))?;
            }
        }
        Ok(out)
    }
}
