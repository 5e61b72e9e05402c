//! bool_and(x) / bool_or(x): logical AND / OR over the non-NULL values of a group.

use super::{vector_with_seen, GroupedState};
use stride_common::{DataType, Result, Vector};

pub struct BoolAgg {
    and: bool,
    vals: Vec<bool>,
    seen: Vec<bool>,
}

impl BoolAgg {
    pub fn new(and: bool) -> Self {
        BoolAgg {
            and,
            vals: Vec::new(),
            seen: Vec::new(),
        }
    }
}

impl GroupedState for BoolAgg {
    fn resize(&mut self, groups: usize) {
        self.vals.resize(groups, self.and);
        self.seen.resize(groups, false);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let v = &args[0];
        let src = v.values::<bool>();
        for (i, &g) in groups[..rows].iter().enumerate() {
            let j = v.index(i);
            if v.validity.is_valid(j) {
                let g = g as usize;
                self.vals[g] = if self.and {
                    self.vals[g] && src[j]
                } else {
                    self.vals[g] || src[j]
                };
                self.seen[g] = true;
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
        let vals = std::mem::take(&mut self.vals);
        Ok(vector_with_seen(DataType::Boolean, vals, &self.seen))
    }
}
