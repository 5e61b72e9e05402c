//! fsum(x) / sumkahan(x) / kahan_sum(x) and favg(x): the sum and the mean of a group's
//! non-NULL values as DOUBLE with Kahan-Babuska (Neumaier) compensated summation, so
//! the result does not depend on the order values arrive in beyond the last bits.

use super::{nullable_doubles, GroupedState};
use stride_common::{DataType, Result, Vector};

pub struct KahanSum {
    mean: bool,
    sums: Vec<f64>,
    /// The low-order bits each sum lost.
    errs: Vec<f64>,
    counts: Vec<i64>,
}

impl KahanSum {
    pub fn new(mean: bool) -> Self {
        KahanSum {
            mean,
            sums: Vec::new(),
            errs: Vec::new(),
            counts: Vec::new(),
        }
    }

    #[inline]
    fn add(&mut self, g: usize, x: f64) {
        let s = self.sums[g];
        let t = s + x;
        // Past the largest double the sum is infinite (or NaN) and there are no lost
        // bits to keep: a compensation of inf - inf would turn it into NaN.
        if t.is_finite() {
            self.errs[g] += if s.abs() >= x.abs() {
                (s - t) + x
            } else {
                (x - t) + s
            };
        }
        self.sums[g] = t;
    }
}

/// A sum with its compensation (none once the sum is no longer finite).
fn total(sum: f64, err: f64) -> f64 {
    if sum.is_finite() {
        sum + err
    } else {
        sum
    }
}

impl GroupedState for KahanSum {
    fn resize(&mut self, groups: usize) {
        self.sums.resize(groups, 0.0);
        self.errs.resize(groups, 0.0);
        self.counts.resize(groups, 0);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let v = args[0];
        let vals = v.values::<f64>();
        for (i, &g) in groups[..rows].iter().enumerate() {
            let j = v.index(i);
            if v.validity.is_valid(j) {
                self.add(g as usize, vals[j]);
                self.counts[g as usize] += 1;
            }
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        let sums: Vec<f64> = self
            .sums
            .iter()
            .zip(&self.errs)
            .map(|(&s, &e)| total(s, e))
            .collect();
        self.sums.clear();
        self.errs.clear();
        Ok(vec![
            Vector::from_values(DataType::Double, sums),
            Vector::from_values(DataType::BigInt, std::mem::take(&mut self.counts)),
        ])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        let (sums, counts) = (partial[0].values::<f64>(), partial[1].values::<i64>());
        for (i, &g) in groups[..rows].iter().enumerate() {
            self.add(g as usize, sums[partial[0].index(i)]);
            self.counts[g as usize] += counts[partial[1].index(i)];
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let vals: Vec<Option<f64>> = (0..self.sums.len())
            .map(|g| {
                let (s, n) = (total(self.sums[g], self.errs[g]), self.counts[g]);
                (n > 0).then(|| if self.mean { s / n as f64 } else { s })
            })
            .collect();
        Ok(nullable_doubles(&vals))
    }
}
