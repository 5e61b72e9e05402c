//! list(x) / array_agg(x): every value of a group (NULLs included) as a LIST, in the
//! order rows arrive (the operator sorts first for ORDER BY).

use super::GroupedState;
use stride_common::{DataType, Result, ScalarValue, Vector};

pub struct ListAgg {
    elem: DataType,
    vals: Vec<Option<Vec<ScalarValue>>>,
}

impl ListAgg {
    pub fn new(elem: &DataType) -> Self {
        ListAgg {
            elem: elem.clone(),
            vals: Vec::new(),
        }
    }
}

impl GroupedState for ListAgg {
    fn resize(&mut self, groups: usize) {
        self.vals.resize(groups, None);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        for (i, &g) in groups[..rows].iter().enumerate() {
            self.vals[g as usize]
                .get_or_insert_with(Vec::new)
                .push(args[0].get(i));
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        self.finalize().map(|v| vec![v])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        for (i, &g) in groups[..rows].iter().enumerate() {
            if let ScalarValue::List(_, items) = partial[0].get(i) {
                self.vals[g as usize]
                    .get_or_insert_with(Vec::new)
                    .extend(items);
            }
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let ty = DataType::List(Box::new(self.elem.clone()));
        let mut out = Vector::with_capacity(&ty, self.vals.len());
        for v in std::mem::take(&mut self.vals) {
            match v {
                Some(items) => out.push(&ScalarValue::List(self.elem.clone(), items))?,
                None => out.push_null(),
            }
        }
        Ok(out)
    }
}
