//! list(x) / array_agg(x): every value of a group (NULLs included) as a LIST, in the
//! order rows arrive (the operator sorts first for ORDER BY).

use super::GroupedState;
use crate::list_memory::check_list_memory;
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
            let list = self.vals[g as usize].get_or_insert_with(Vec::new);
            if list.len() == list.capacity() && list.len() >= 1 << 16 {
                // (the list doubles: check before asking for it)
                check_list_memory("list", 2 * list.len() as i128)?;
            }
            list.push(args[0].get(i));
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        self.finalize().map(|v| vec![v])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        for (i, &g) in groups[..rows].iter().enumerate() {
            if let ScalarValue::List(_, items) = partial[0].get(i) {
                let list = self.vals[g as usize].get_or_insert_with(Vec::new);
                if list.len() + items.len() > list.capacity() && list.len() >= 1 << 16 {
                    check_list_memory("list", (list.len() + items.len()) as i128)?;
                }
                list.extend(items);
            }
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let ty = DataType::List(Box::new(self.elem.clone()));
        let elements: usize = self.vals.iter().flatten().map(Vec::len).sum();
        if elements >= 1 << 16 {
            // (the lists' vector is built beside them)
            check_list_memory("list", elements as i128)?;
        }
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
