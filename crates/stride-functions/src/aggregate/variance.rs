//! var_samp, var_pop, stddev_samp, stddev_pop and sem (the standard error of the
//! mean, `sqrt(var_pop / count)`, as DuckDB computes it): Welford's running mean and sum of
//! squared deviations per group, merged with Chan's parallel formula.

use super::{for_each_f64, GroupedState};
use stride_common::{DataType, Result, Validity, Vector, VectorData};

#[derive(Clone, Copy)]
pub enum Output {
    VarSamp,
    VarPop,
    StddevSamp,
    StddevPop,
    Sem,
}

pub struct Variance {
    out: Output,
    count: Vec<i64>,
    mean: Vec<f64>,
    m2: Vec<f64>,
}

impl Variance {
    pub fn new(out: Output) -> Self {
        Variance {
            out,
            count: Vec::new(),
            mean: Vec::new(),
            m2: Vec::new(),
        }
    }

    fn combine(&mut self, g: usize, n_b: i64, mean_b: f64, m2_b: f64) {
        if n_b == 0 {
            return;
        }
        let n_a = self.count[g];
        let n = n_a + n_b;
        let delta = mean_b - self.mean[g];
        self.mean[g] += delta * n_b as f64 / n as f64;
        self.m2[g] += m2_b + delta * delta * (n_a as f64) * (n_b as f64) / n as f64;
        self.count[g] = n;
    }
}

impl GroupedState for Variance {
    fn resize(&mut self, groups: usize) {
        self.count.resize(groups, 0);
        self.mean.resize(groups, 0.0);
        self.m2.resize(groups, 0.0);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let (count, mean, m2) = (&mut self.count, &mut self.mean, &mut self.m2);
        for_each_f64(args[0], rows, |i, x| {
            let g = groups[i] as usize;
            count[g] += 1;
            let d = x - mean[g];
            mean[g] += d / count[g] as f64;
            m2[g] += d * (x - mean[g]);
        });
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        Ok(vec![
            Vector::from_values(DataType::BigInt, std::mem::take(&mut self.count)),
            Vector::from_values(DataType::Double, std::mem::take(&mut self.mean)),
            Vector::from_values(DataType::Double, std::mem::take(&mut self.m2)),
        ])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        let (c, m, q) = (
            partial[0].values::<i64>(),
            partial[1].values::<f64>(),
            partial[2].values::<f64>(),
        );
        for (i, &g) in groups[..rows].iter().enumerate() {
            self.combine(
                g as usize,
                c[partial[0].index(i)],
                m[partial[1].index(i)],
                q[partial[2].index(i)],
            );
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let n = self.count.len();
        let samp = matches!(self.out, Output::VarSamp | Output::StddevSamp);
        let sqrt = matches!(self.out, Output::StddevSamp | Output::StddevPop);
        let min = if samp { 2 } else { 1 };
        let vals: Vec<f64> = (0..n)
            .map(|g| {
                if self.count[g] < min {
                    return 0.0;
                }
                let v = self.m2[g] / (self.count[g] - if samp { 1 } else { 0 }) as f64;
                if matches!(self.out, Output::Sem) {
                    (v / self.count[g] as f64).sqrt()
                } else if sqrt {
                    v.sqrt()
                } else {
                    v
                }
            })
            .collect();
        Ok(Vector::new(
            DataType::Double,
            VectorData::F64(vals.into()),
            Validity::from_fn(n, |g| self.count[g] >= min),
        ))
    }
}
