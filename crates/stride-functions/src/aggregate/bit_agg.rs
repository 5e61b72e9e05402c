//! bit_and(x), bit_or(x), bit_xor(x): bitwise AND / OR / XOR of a group's non-NULL
//! integers or bit strings, of the argument's type; NULL for a group without values.
//! Integers fold in 128 bits (a UBIGINT's high values and HUGEINTs included); bit
//! strings bit by bit, all of one length (DuckDB's rule).

use super::{for_each_i128, vector_with_seen, GroupedState};
use stride_common::{bit, DataType, Error, Result, StringVector, Validity, Vector, VectorData};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    And,
    Or,
    Xor,
}

impl Op {
    fn apply(self, a: bool, b: bool) -> bool {
        match self {
            Op::And => a && b,
            Op::Or => a || b,
            Op::Xor => a != b,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Op::And => "AND",
            Op::Or => "OR",
            Op::Xor => "XOR",
        }
    }
}

/// The state for an argument of type `ty`.
pub fn new(op: Op, ty: &DataType) -> Box<dyn GroupedState> {
    match ty {
        DataType::Bit => Box::new(BitStringAgg {
            op,
            vals: Vec::new(),
        }),
        _ => Box::new(BitAgg {
            op,
            ty: ty.clone(),
            vals: Vec::new(),
            seen: Vec::new(),
        }),
    }
}

struct BitAgg {
    op: Op,
    ty: DataType,
    vals: Vec<i128>,
    seen: Vec<bool>,
}

impl GroupedState for BitAgg {
    fn resize(&mut self, groups: usize) {
        let start = if self.op == Op::And { -1 } else { 0 };
        self.vals.resize(groups, start);
        self.seen.resize(groups, false);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let (vals, seen, op) = (&mut self.vals, &mut self.seen, self.op);
        for_each_i128(args[0], rows, |i, x| {
            let g = groups[i] as usize;
            vals[g] = match op {
                Op::And => vals[g] & x,
                Op::Or => vals[g] | x,
                Op::Xor => vals[g] ^ x,
            };
            seen[g] = true;
        });
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        let vals = std::mem::take(&mut self.vals);
        Ok(vec![vector_with_seen(DataType::HugeInt, vals, &self.seen)])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        self.update(groups, &[&partial[0]], rows)
    }

    fn finalize(&mut self) -> Result<Vector> {
        let vals = std::mem::take(&mut self.vals);
        let all = vector_with_seen(DataType::HugeInt, vals, &self.seen);
        // back to the argument's width: every bit beyond it is a sign copy (or 0 for
        // the unsigned types, whose values are never negative)
        crate::cast_vector(&all, all.data_len(), &self.ty, false)
    }
}

/// Each group's stored bit string as a BIT vector; NULL for a group without one.
fn bit_vector(vals: Vec<Option<Vec<u8>>>) -> Vector {
    let validity = Validity::from_fn(vals.len(), |i| vals[i].is_some());
    let mut out = StringVector::with_capacity(vals.len());
    for v in &vals {
        out.push_blob(v.as_deref().unwrap_or_default());
    }
    Vector::new(DataType::Bit, VectorData::Str(out), validity)
}

/// The fold over bit strings: each group's bits so far (stored layout), or `None`.
struct BitStringAgg {
    op: Op,
    vals: Vec<Option<Vec<u8>>>,
}

impl BitStringAgg {
    fn fold(&mut self, g: usize, x: &[u8]) -> Result<()> {
        let op = self.op;
        self.vals[g] = Some(match self.vals[g].take() {
            None => x.to_vec(),
            Some(acc) => {
                let n = bit::len(&acc);
                if n != bit::len(x) {
                    return Err(Error::invalid_input(format!(
                        "Cannot {} bit strings of different sizes",
                        op.name()
                    )));
                }
                bit::from_fn(n, |j| op.apply(bit::get(&acc, j), bit::get(x, j)))
            }
        });
        Ok(())
    }
}

impl GroupedState for BitStringAgg {
    fn resize(&mut self, groups: usize) {
        self.vals.resize(groups, None);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let v = args[0];
        let strings = v.strings();
        for (i, g) in groups.iter().enumerate().take(rows) {
            let at = if v.constant { 0 } else { i };
            if v.validity.is_valid(at) {
                self.fold(*g as usize, strings.get_bytes(at))?;
            }
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        Ok(vec![self.finalize()?])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        self.update(groups, &[&partial[0]], rows)
    }

    fn finalize(&mut self) -> Result<Vector> {
        Ok(bit_vector(std::mem::take(&mut self.vals)))
    }
}

/// bitstring_agg(x, min, max): a BIT of `max - min + 1` bits per group, bit `x - min`
/// set for every non-NULL `x`; NULL for a group without values. The range is given
/// (DuckDB can take it from a column's statistics; stride asks for it).
pub struct BitstringAgg {
    min: i128,
    max: i128,
    vals: Vec<Option<Vec<u8>>>,
}

impl BitstringAgg {
    /// The state for the range `min..=max` (constants; `None` when not constant).
    pub fn new(
        min: Option<&stride_common::ScalarValue>,
        max: Option<&stride_common::ScalarValue>,
    ) -> Result<Self> {
        let int = |v: Option<&stride_common::ScalarValue>| -> Result<i128> {
            let v =
                v.ok_or_else(|| Error::binder("bitstring_agg's min and max must be constants"))?;
            let t = crate::cast_scalar(v, &DataType::HugeInt, false)?;
            match t {
                stride_common::ScalarValue::HugeInt(x) => Ok(x),
                _ => Err(Error::binder(
                    "bitstring_agg's min and max must not be NULL",
                )),
            }
        };
        let (min, max) = (int(min)?, int(max)?);
        if min > max {
            return Err(Error::invalid_input(format!(
                "Invalid explicit bitstring range: Minimum ({min}) > maximum ({max})"
            )));
        }
        if max - min >= 1 << 32 {
            return Err(Error::invalid_input(format!(
                "bitstring_agg's range {min} to {max} is too large for a bit string"
            )));
        }
        Ok(BitstringAgg {
            min,
            max,
            vals: Vec::new(),
        })
    }

    fn bits(&self) -> usize {
        (self.max - self.min + 1) as usize
    }
}

impl GroupedState for BitstringAgg {
    fn resize(&mut self, groups: usize) {
        self.vals.resize(groups, None);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let (min, max, n) = (self.min, self.max, self.bits());
        let mut err = None;
        let vals = &mut self.vals;
        for_each_i128(args[0], rows, |i, x| {
            if x < min || x > max {
                err.get_or_insert_with(|| {
                    Error::out_of_range(format!(
                        "Value {x} is outside of provided min and max range ({min} <-> {max})"
                    ))
                });
                return;
            }
            let acc = vals[groups[i] as usize].get_or_insert_with(|| bit::from_fn(n, |_| false));
            bit::set(acc, (x - min) as usize);
        });
        err.map_or(Ok(()), Err)
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        Ok(vec![self.finalize()?])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        let v = &partial[0];
        let strings = v.strings();
        for (i, g) in groups.iter().enumerate().take(rows) {
            if !v.validity.is_valid(i) {
                continue;
            }
            let x = strings.get_bytes(i);
            match &mut self.vals[*g as usize] {
                // every state has the same length: OR-ing the stored forms ORs the bits
                Some(acc) => acc.iter_mut().zip(x).for_each(|(a, b)| *a |= b),
                slot => *slot = Some(x.to_vec()),
            }
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        Ok(bit_vector(std::mem::take(&mut self.vals)))
    }
}
