//! `median(s)` and `quantile_disc(s, q)` over VARCHAR (or JSON, or BLOB): the string at rank
//! `ceil(n * q)` in byte order (1-based, at least 1), the lower of the two middle
//! strings for an even count, as DuckDB does. A negative `q` counts from the top.
//! Interpolating (`quantile_cont`, `mad`) has no meaning for strings and is refused at
//! binding ([`super::quantile::result_type`]).
//!
//! Each group keeps its strings; partial states are lists of them.

use super::GroupedState;
use stride_common::{DataType, Error, Result, ScalarValue, Vector};

pub(super) struct TextQuantile {
    /// VARCHAR, JSON or BLOB; values are kept as bytes either way.
    ty: DataType,
    fractions: Vec<f64>,
    /// The quantile argument was a list: the result is one.
    list: bool,
    values: Vec<Vec<Vec<u8>>>,
}

impl TextQuantile {
    pub(super) fn new(ty: DataType, fractions: Vec<f64>, list: bool) -> Self {
        TextQuantile {
            ty,
            fractions,
            list,
            values: Vec::new(),
        }
    }

    /// One kept value as a value of the input's type.
    fn value(&self, bytes: Vec<u8>) -> ScalarValue {
        match self.ty {
            DataType::Blob => ScalarValue::Blob(bytes),
            // the bytes of a VARCHAR or JSON row, so UTF-8
            _ => ScalarValue::Varchar(String::from_utf8_lossy(&bytes).into_owned()),
        }
    }

    fn finish_group(&self, v: &mut [Vec<u8>]) -> ScalarValue {
        if v.is_empty() {
            return ScalarValue::Null;
        }
        let n = v.len();
        let mut one = |q: f64| {
            let k = ((n as f64 * q.abs()).ceil() as usize).clamp(1, n) - 1;
            let k = if q < 0.0 { n - 1 - k } else { k };
            self.value(v.select_nth_unstable(k).1.clone())
        };
        if self.list {
            let values = self.fractions.iter().map(|&q| one(q)).collect();
            ScalarValue::List(self.ty.clone(), values)
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
                self.values[g as usize].push(strings.get_bytes(j).to_vec());
            }
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        let groups = std::mem::take(&mut self.values);
        let ty = DataType::List(Box::new(self.ty.clone()));
        let mut out = Vector::with_capacity(&ty, groups.len());
        for g in groups {
            let items = g.into_iter().map(|b| self.value(b)).collect();
            out.push(&ScalarValue::List(self.ty.clone(), items))?;
        }
        Ok(vec![out])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        for (i, &g) in groups[..rows].iter().enumerate() {
            match partial[0].get(i) {
                ScalarValue::List(_, items) => {
                    self.values[g as usize].extend(items.into_iter().filter_map(|x| match x {
                        ScalarValue::Varchar(s) => Some(s.into_bytes()),
                        ScalarValue::Blob(b) => Some(b),
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
            DataType::List(Box::new(self.ty.clone()))
        } else {
            self.ty.clone()
        };
        let mut groups = std::mem::take(&mut self.values);
        let mut out = Vector::with_capacity(&ty, groups.len());
        for g in &mut groups {
            out.push(&self.finish_group(g))?;
        }
        Ok(out)
    }
}
