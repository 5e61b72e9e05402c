//! skewness, kurtosis (both bias-corrected sample statistics, kurtosis as excess
//! kurtosis) and kurtosis_pop, from the count and the sums of x, x², x³ and x⁴ of
//! each group; partial states merge by adding. NULL where the statistic is undefined:
//! too few rows (skewness needs 3, kurtosis 4) or no spread at all.

use super::{for_each_f64, nullable_doubles, GroupedState};
use stride_common::{DataType, Result, Vector};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Output {
    Skewness,
    Kurtosis,
    KurtosisPop,
}

/// Count and power sums Σx, Σx², Σx³, Σx⁴ of one group.
type Sums = [f64; 5];

pub struct Moments {
    out: Output,
    sums: Vec<Sums>,
}

impl Moments {
    pub fn new(out: Output) -> Self {
        Moments {
            out,
            sums: Vec::new(),
        }
    }
}

fn value(out: Output, s: &Sums) -> Option<f64> {
    let [n, s1, s2, s3, s4] = *s;
    let mean = s1 / n;
    // central moments from the raw ones
    let m2 = s2 / n - mean * mean;
    let m3 = s3 / n - 3.0 * mean * s2 / n + 2.0 * mean.powi(3);
    let m4 = s4 / n - 4.0 * mean * s3 / n + 6.0 * mean * mean * s2 / n - 3.0 * mean.powi(4);
    match out {
        Output::Skewness => {
            if n < 3.0 || m2 <= 0.0 {
                return None;
            }
            Some((n * (n - 1.0)).sqrt() / (n - 2.0) * m3 / m2.powf(1.5))
        }
        Output::Kurtosis => {
            if n < 4.0 || m2 <= 0.0 {
                return None;
            }
            let g2 = m4 / (m2 * m2);
            Some((n - 1.0) * ((n + 1.0) * g2 - 3.0 * (n - 1.0)) / ((n - 2.0) * (n - 3.0)))
        }
        Output::KurtosisPop => {
            if n < 1.0 || m2 <= 0.0 {
                return None;
            }
            Some(m4 / (m2 * m2) - 3.0)
        }
    }
}

impl GroupedState for Moments {
    fn resize(&mut self, groups: usize) {
        self.sums.resize(groups, [0.0; 5]);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let sums = &mut self.sums;
        for_each_f64(args[0], rows, |i, x| {
            let s = &mut sums[groups[i] as usize];
            let x2 = x * x;
            s[0] += 1.0;
            s[1] += x;
            s[2] += x2;
            s[3] += x2 * x;
            s[4] += x2 * x2;
        });
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        let sums = std::mem::take(&mut self.sums);
        Ok((0..5)
            .map(|k| {
                Vector::from_values(
                    DataType::Double,
                    sums.iter().map(|s| s[k]).collect::<Vec<_>>(),
                )
            })
            .collect())
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        for (i, &g) in groups[..rows].iter().enumerate() {
            for (k, p) in partial.iter().enumerate() {
                self.sums[g as usize][k] += p.values::<f64>()[p.index(i)];
            }
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let vals: Vec<Option<f64>> = self.sums.iter().map(|s| value(self.out, s)).collect();
        Ok(nullable_doubles(&vals))
    }
}
