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

/// count_if(b): the number of rows where `b` is true; NULL for a group where `b` was
/// never true or false (no rows, or only NULLs), as DuckDB's.
#[derive(Default)]
pub struct CountIf {
    counts: Vec<i64>,
    seen: Vec<bool>,
}

impl GroupedState for CountIf {
    fn resize(&mut self, groups: usize) {
        self.counts.resize(groups, 0);
        self.seen.resize(groups, false);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let v = args[0];
        let vals = v.values::<bool>();
        for (i, &g) in groups[..rows].iter().enumerate() {
            let j = v.index(i);
            if v.validity.is_valid(j) {
                self.counts[g as usize] += vals[j] as i64;
                self.seen[g as usize] = true;
            }
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        let counts = std::mem::take(&mut self.counts);
        Ok(vec![super::vector_with_seen(
            DataType::BigInt,
            counts,
            &self.seen,
        )])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        let v = &partial[0];
        let vals = v.values::<i64>();
        for (i, &g) in groups[..rows].iter().enumerate() {
            let j = v.index(i);
            if v.validity.is_valid(j) {
                self.counts[g as usize] += vals[j];
                self.seen[g as usize] = true;
            }
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        // HUGEINT, as DuckDB types count_if.
        let counts: Vec<i128> = std::mem::take(&mut self.counts)
            .into_iter()
            .map(i128::from)
            .collect();
        Ok(super::vector_with_seen(
            DataType::HugeInt,
            counts,
            &self.seen,
        ))
    }
}
