//! `median(s)` and `quantile_disc(s, q)` over VARCHAR: the string at rank
//! `ceil(n * q)` in byte order (1-based, at least 1), the lower of the two middle
//! strings for an even count, as DuckDB does. A negative `q` counts from the top.
//! Interpolating (`quantile_cont`, `mad`) has no meaning for strings and is refused at
//! binding ([`super::quantile::result_type`]).
//!
//! Each group keeps its strings; partial states are lists of them.

use super::GroupedState;
use stride_common::{DataType, Error, Result, ScalarValue, Vector};

pub(super) struct TextQuantile {
    fractions: Vec<f64>,
    /// The quantile argument was a list: the result is one.
    list: bool,
    values: Vec<Vec<String>>,
}

impl TextQuantile {
    pub(super) fn new(fractions: Vec<f64>, list: bool) -> Self {
        TextQuantile {
            fractions,
            list,
            values: Vec::new(),
        }
    }

    fn finish_group(&self, v: &mut [String]) -> ScalarValue {
        if v.is_empty() {
            return ScalarValue::Null;
        }
        let n = v.len();
        let mut one = |q: f64| {
            let k = ((n as f64 * q.abs()).ceil() as usize).clamp(1, n) - 1;
            let k = if q < 0.0 { n - 1 - k } else { k };
            ScalarValue::Varchar(v.select_nth_unstable(k).1.clone())
        };
        if self.list {
            let values = self.fractions.iter().map(|&q| one(q)).collect();
            ScalarValue::List(DataType::Varchar, values)
        } else {
            one(self.fractions.first().copied().unwrap_or(0.5))
        }
    }
}

impl GroupedState for TextQuantile {
    fn resize(&mut self, groups: usize) {
        self.values.resize_with(groups, Vec::new);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let v = args[0];
        let strings = v.strings();
        for (i, &g) in groups[..rows].iter().enumerate() {
            let j = v.index(i);
            if v.validity.is_valid(j) {
                self.values[g as usize].push(strings.get(j).to_string());
            }
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        let groups = std::mem::take(&mut self.values);
        let ty = DataType::List(Box::new(DataType::Varchar));
        let mut out = Vector::with_capacity(&ty, groups.len());
        for g in groups {
            let items = g.into_iter().map(ScalarValue::Varchar).collect();
            out.push(&ScalarValue::List(DataType::Varchar, items))?;
        }
        Ok(vec![out])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        for (i, &g) in groups[..rows].iter().enumerate() {
            match partial[0].get(i) {
                ScalarValue::List(_, items) => {
                    self.values[g as usize].extend(items.into_iter().filter_map(|x| match x {
                        ScalarValue::Varchar(s) => Some(s),
                        _ => None,
                    }))
                }
                ScalarValue::Null => {}
                other => {
                    return Err(Error::internal(format!(
                        "a text quantile's partial state holds {other}"
                    )))
                }
            }
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let ty = if self.list {
            DataType::List(Box::new(DataType::Varchar))
        } else {
            DataType::Varchar
        };
        let mut groups = std::mem::take(&mut self.values);
        let mut out = Vector::with_capacity(&ty, groups.len());
        for g in &mut groups {
            out.push(&self.finish_group(g))?;
        }
        Ok(out)
    }
}
