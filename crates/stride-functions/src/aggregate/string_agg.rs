//! string_agg(s [, sep]): the non-NULL strings of a group joined by `sep` (default
//! ','), in the order rows arrive (the operator sorts first for ORDER BY).

use super::GroupedState;
use stride_common::{DataType, Result, ScalarValue, Vector};

/// Per group: the strings joined so far, and the separator of the first of them (which
/// joins this group's part to an earlier one when partial states are merged).
#[derive(Default)]
pub struct StringAgg {
    vals: Vec<Option<(String, String)>>,
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
            join(&mut self.vals[g as usize], s.get(j), sep);
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        let mut joined = Vector::with_capacity(&DataType::Varchar, self.vals.len());
        let mut first_sep = Vector::with_capacity(&DataType::Varchar, self.vals.len());
        for v in std::mem::take(&mut self.vals) {
            match v {
                Some((s, sep)) => {
                    joined.push(&ScalarValue::Varchar(s))?;
                    first_sep.push(&ScalarValue::Varchar(sep))?;
                }
                None => {
                    joined.push_null();
                    first_sep.push_null();
                }
            }
        }
        Ok(vec![joined, first_sep])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        let (joined, seps) = (&partial[0], &partial[1]);
        let (js, ss) = (joined.strings(), seps.strings());
        for (i, &g) in groups[..rows].iter().enumerate() {
            let j = joined.index(i);
            if !joined.validity.is_valid(j) {
                continue;
            }
            let k = seps.index(i);
            join(&mut self.vals[g as usize], js.get(j), ss.get(k));
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let mut out = Vector::with_capacity(&DataType::Varchar, self.vals.len());
        for v in std::mem::take(&mut self.vals) {
            match v {
                Some((s, _)) => out.push(&ScalarValue::Varchar(s))?,
                None => out.push_null(),
            }
        }
        Ok(out)
    }
}

/// Appends `s` (whose separator is `sep`) to a group's value.
fn join(slot: &mut Option<(String, String)>, s: &str, sep: &str) {
    match slot {
        Some((acc, _)) => {
            acc.push_str(sep);
            acc.push_str(s);
        }
        None => *slot = Some((s.to_string(), sep.to_string())),
    }
}
