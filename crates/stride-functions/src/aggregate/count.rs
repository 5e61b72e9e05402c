//! count(*) and count(x): the number of rows, or of non-NULL values, per group.

use super::{GroupedState, FEW_GROUPS};
use stride_common::{DataType, Result, Vector};

pub struct Count {
    star: bool,
    counts: Vec<i64>,
}

impl Count {
    pub fn new(star: bool) -> Self {
        Count {
            star,
            counts: Vec::new(),
        }
    }
}

impl GroupedState for Count {
    fn resize(&mut self, groups: usize) {
        self.counts.resize(groups, 0);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let counts = &mut self.counts;
        match args.first() {
            Some(v) if !self.star && (v.validity.has_nulls()) => {
                for (i, &g) in groups[..rows].iter().enumerate() {
                    counts[g as usize] += v.is_valid(i) as i64;
                }
            }
            _ if counts.len() == 1 => counts[0] += rows as i64,
            // Few groups: lanes of counters, as `add_to_sums` does for sums.
            _ if counts.len() <= FEW_GROUPS => {
                let mut n = [[0i64; FEW_GROUPS]; 4];
                for (i, &g) in groups[..rows].iter().enumerate() {
                    n[i % 4][g as usize] += 1;
                }
                for (g, c) in counts.iter_mut().enumerate() {
                    *c += n.iter().map(|lane| lane[g]).sum::<i64>();
                }
            }
            _ => groups[..rows].iter().for_each(|&g| counts[g as usize] += 1),
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        Ok(vec![Vector::from_values(
            DataType::BigInt,
            std::mem::take(&mut self.counts),
        )])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        let vals = partial[0].values::<i64>();
        for i in 0..rows {
            self.counts[groups[i] as usize] += vals[partial[0].index(i)];
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        Ok(Vector::from_values(
            DataType::BigInt,
            std::mem::take(&mut self.counts),
        ))
    }
}
