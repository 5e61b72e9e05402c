//! first(x) (the first value, NULL included), last(x) (the last value, NULL
//! included) and any_value(x) (the first non-NULL value) of a group, in the order
//! rows arrive.

use super::GroupedState;
use stride_common::{DataType, Result, ScalarValue, Vector};

pub struct First {
    ty: DataType,
    skip_nulls: bool,
    /// last(x): every row replaces the value
    last: bool,
    vals: Vec<Option<ScalarValue>>,
}

impl First {
    pub fn new(ty: &DataType, skip_nulls: bool) -> Self {
        First {
            ty: ty.clone(),
            skip_nulls,
            last: false,
            vals: Vec::new(),
        }
    }

    /// last(x).
    pub fn last(ty: &DataType) -> Self {
        First {
            last: true,
            ..First::new(ty, false)
        }
    }
}

impl GroupedState for First {
    fn resize(&mut self, groups: usize) {
        self.vals.resize(groups, None);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        for (i, &g) in groups[..rows].iter().enumerate() {
            let slot = &mut self.vals[g as usize];
            if (self.last || slot.is_none()) && (!self.skip_nulls || args[0].is_valid(i)) {
                *slot = Some(args[0].get(i));
            }
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        let mut v = Vector::with_capacity(&self.ty, self.vals.len());
        let mut seen = Vector::with_capacity(&DataType::Boolean, self.vals.len());
        for x in std::mem::take(&mut self.vals) {
            seen.push(&ScalarValue::Boolean(x.is_some()))?;
            v.push(&x.unwrap_or(ScalarValue::Null))?;
        }
        Ok(vec![v, seen])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        let seen = partial[1].values::<bool>();
        for (i, &g) in groups[..rows].iter().enumerate() {
            let slot = &mut self.vals[g as usize];
            if (self.last || slot.is_none()) && seen[partial[1].index(i)] {
                *slot = Some(partial[0].get(i));
            }
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let mut out = Vector::with_capacity(&self.ty, self.vals.len());
        for x in &self.vals {
            out.push(x.as_ref().unwrap_or(&ScalarValue::Null))?;
        }
        Ok(out)
    }
}
