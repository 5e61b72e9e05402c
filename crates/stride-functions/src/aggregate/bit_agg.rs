//! bit_and(x), bit_or(x), bit_xor(x): bitwise AND / OR / XOR of a group's non-NULL
//! integers, of the argument's type; NULL for a group without values.

use super::{for_each_i128, vector_with_seen, GroupedState};
use stride_common::{DataType, Result, Vector};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    And,
    Or,
    Xor,
}

pub struct BitAgg {
    op: Op,
    ty: DataType,
    vals: Vec<i64>,
    seen: Vec<bool>,
}

impl BitAgg {
    pub fn new(op: Op, ty: &DataType) -> Self {
        BitAgg {
            op,
            ty: ty.clone(),
            vals: Vec::new(),
            seen: Vec::new(),
        }
    }
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
            let x = x as i64;
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
        Ok(vec![vector_with_seen(DataType::BigInt, vals, &self.seen)])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        self.update(groups, &[&partial[0]], rows)
    }

    fn finalize(&mut self) -> Result<Vector> {
        let vals = std::mem::take(&mut self.vals);
        let all = vector_with_seen(DataType::BigInt, vals, &self.seen);
        // back to the argument's width: every bit beyond it is a sign copy
        crate::cast_vector(&all, all.data_len(), &self.ty, false)
    }
}
