//! string_agg(s [, sep]): the non-NULL strings of a group joined by `sep` (default
//! ','), in the order rows arrive (the operator sorts first for ORDER BY).

use super::GroupedState;
use stride_common::{DataType, Result, ScalarValue, Vector};

#[derive(Default)]
pub struct StringAgg {
    vals: Vec<Option<String>>,
}

impl GroupedState for StringAgg {
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
            let sep = match args.get(1) {
                Some(sv) if sv.is_valid(i) => sv.strings().get(sv.index(i)),
                Some(_) => "",
                None => ",",
            };
            match &mut self.vals[g as usize] {
                Some(acc) => {
                    acc.push_str(sep);
                    acc.push_str(s.get(j));
                }
                slot => *slot = Some(s.get(j).to_string()),
            }
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        self.finalize().map(|v| vec![v])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        // Partials are already joined; a merge concatenates with the default separator.
        self.update(groups, &[&partial[0]], rows)
    }

    fn finalize(&mut self) -> Result<Vector> {
        let mut out = Vector::with_capacity(&DataType::Varchar, self.vals.len());
        for v in std::mem::take(&mut self.vals) {
            match v {
                Some(s) => out.push(&ScalarValue::Varchar(s))?,
                None => out.push_null(),
            }
        }
        Ok(out)
    }
}
