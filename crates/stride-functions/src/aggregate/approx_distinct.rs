//! approx_count_distinct(x): the number of distinct non-NULL values of a group,
//! estimated with a HyperLogLog sketch per group (stride_common::sketch; 1024
//! registers, about 3% error), allocated at a group's first value. BIGINT, 0 for a
//! group without values. Partial states are each group's registers as a list.

use super::GroupedState;
use stride_common::sketch::{hash_rows, Sketch};
use stride_common::{DataType, Result, ScalarValue, Vector};

const BITS: u32 = 10;

#[derive(Default)]
pub struct ApproxDistinct {
    sketches: Vec<Option<Box<Sketch>>>,
}

impl ApproxDistinct {
    fn sketch(&mut self, g: usize) -> &mut Sketch {
        self.sketches[g].get_or_insert_with(|| Box::new(Sketch::new(BITS)))
    }
}

impl GroupedState for ApproxDistinct {
    fn resize(&mut self, groups: usize) {
        self.sketches.resize_with(groups, || None);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let v = args[0];
        if v.constant {
            if v.is_valid(0) {
                let mut h = 0;
                hash_rows(v, 1, |_, x| h = x);
                for &g in &groups[..rows] {
                    self.sketch(g as usize).insert(h);
                }
            }
            return Ok(());
        }
        let groups = &groups[..rows];
        match groups.first() {
            // one group (always so without GROUP BY): its sketch looked up once
            Some(&g) if groups.iter().all(|&x| x == g) => {
                let sketch = self.sketch(g as usize);
                hash_rows(v, rows, |_, h| sketch.insert(h));
            }
            _ => hash_rows(v, rows, |i, h| self.sketch(groups[i] as usize).insert(h)),
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        let ty = DataType::List(Box::new(DataType::TinyInt));
        let mut out = Vector::with_capacity(&ty, self.sketches.len());
        for s in std::mem::take(&mut self.sketches) {
            match s {
                Some(s) => out.push(&ScalarValue::List(
                    DataType::TinyInt,
                    s.registers()
                        .iter()
                        .map(|&r| ScalarValue::TinyInt(r as i8))
                        .collect(),
                ))?,
                None => out.push_null(),
            }
        }
        Ok(vec![out])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        let v = &partial[0];
        let list = v.list();
        let regs = list.child.values::<i8>();
        for (i, &g) in groups[..rows].iter().enumerate() {
            let j = v.index(i);
            if !v.validity.is_valid(j) {
                continue;
            }
            let (a, b) = (list.offsets[j] as usize, list.offsets[j + 1] as usize);
            let registers = regs[a..b].iter().map(|&r| r as u8).collect();
            if let Some(other) = Sketch::from_registers(registers) {
                self.sketch(g as usize).merge(&other);
            }
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let counts: Vec<i64> = self
            .sketches
            .iter()
            .map(|s| s.as_ref().map_or(0, |s| s.estimate().round() as i64))
            .collect();
        self.sketches.clear();
        Ok(Vector::from_values(DataType::BigInt, counts))
    }
}
