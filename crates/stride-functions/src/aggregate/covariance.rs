//! The two-argument statistics over (y, x) pairs: covar_pop, covar_samp, corr and the
//! regr_* family (regr_count, regr_avgx, regr_avgy, regr_sxx, regr_syy, regr_sxy,
//! regr_slope, regr_intercept, regr_r2), as PostgreSQL and DuckDB define them. Rows
//! where either argument is NULL are skipped. Every function reads the same state:
//! the pair count, both means and the sums of squared and cross deviations, kept with
//! Welford's update and merged with Chan's parallel formula.
//!
//! The results divide before they multiply: regr_r2 is `(sxy / sxx) * (sxy / syy)`
//! and regr_intercept `mean_y - (sxy / sxx) * mean_x`, each factor of the size of
//! the answer, where `sxy² / (sxx * syy)` and `mean_x * sxy / sxx` overflow or
//! underflow in between (values near 1e80 gave a NaN r², near 1e150 an infinite
//! intercept, near 1e-100 a NaN r² again).

use super::{nullable_doubles, GroupedState};
use stride_common::{DataType, Result, Vector};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Output {
    CovarPop,
    CovarSamp,
    Corr,
    RegrCount,
    RegrAvgX,
    RegrAvgY,
    RegrSxx,
    RegrSyy,
    RegrSxy,
    RegrSlope,
    RegrIntercept,
    RegrR2,
}

/// The moments of one group's pairs.
#[derive(Clone, Copy, Default)]
struct Moments {
    n: i64,
    mean_x: f64,
    mean_y: f64,
    /// Σ (x - mean_x)²
    sxx: f64,
    /// Σ (y - mean_y)²
    syy: f64,
    /// Σ (x - mean_x)(y - mean_y)
    sxy: f64,
}

impl Moments {
    fn add(&mut self, y: f64, x: f64) {
        self.n += 1;
        let n = self.n as f64;
        let dx = x - self.mean_x;
        let dy = y - self.mean_y;
        self.mean_x += dx / n;
        self.mean_y += dy / n;
        self.sxx += dx * (x - self.mean_x);
        self.syy += dy * (y - self.mean_y);
        self.sxy += dx * (y - self.mean_y);
    }

    fn merge(&mut self, b: &Moments) {
        if b.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = *b;
            return;
        }
        let (na, nb) = (self.n as f64, b.n as f64);
        let n = na + nb;
        let dx = b.mean_x - self.mean_x;
        let dy = b.mean_y - self.mean_y;
        self.sxx += b.sxx + dx * dx * na * nb / n;
        self.syy += b.syy + dy * dy * na * nb / n;
        self.sxy += b.sxy + dx * dy * na * nb / n;
        self.mean_x += dx * nb / n;
        self.mean_y += dy * nb / n;
        self.n += b.n;
    }

    /// The function's value, `None` for NULL. Zero variances give NaN where the
    /// formula divides by them (as in DuckDB), except that regr_intercept is NULL when
    /// x is constant, and regr_r2 NULL when x is constant and 1 when only y is (as
    /// PostgreSQL defines them).
    fn value(&self, out: Output) -> Option<f64> {
        use Output::*;
        let n = self.n as f64;
        match out {
            RegrCount => Some(n),
            _ if self.n == 0 => None,
            CovarPop => Some(self.sxy / n),
            CovarSamp => (self.n > 1).then(|| self.sxy / (n - 1.0)),
            Corr => Some(self.sxy / (self.sxx.sqrt() * self.syy.sqrt())),
            RegrAvgX => Some(self.mean_x),
            RegrAvgY => Some(self.mean_y),
            RegrSxx => Some(self.sxx),
            RegrSyy => Some(self.syy),
            RegrSxy => Some(self.sxy),
            RegrSlope => Some(self.sxy / self.sxx),
            RegrIntercept if self.sxx == 0.0 => None,
            RegrIntercept => Some(self.mean_y - self.sxy / self.sxx * self.mean_x),
            RegrR2 if self.sxx == 0.0 => None,
            RegrR2 if self.syy == 0.0 => Some(1.0),
            RegrR2 => Some((self.sxy / self.sxx) * (self.sxy / self.syy)),
        }
    }
}

pub struct Covariance {
    out: Output,
    groups: Vec<Moments>,
}

impl Covariance {
    pub fn new(out: Output) -> Self {
        Covariance {
            out,
            groups: Vec::new(),
        }
    }
}

/// Calls `f(row, y, x)` for every row where neither DOUBLE argument is NULL.
fn for_each_pair(y: &Vector, x: &Vector, rows: usize, mut f: impl FnMut(usize, f64, f64)) {
    let (ys, xs) = (y.values::<f64>(), x.values::<f64>());
    for i in 0..rows {
        let (iy, ix) = (y.index(i), x.index(i));
        if y.validity.is_valid(iy) && x.validity.is_valid(ix) {
            f(i, ys[iy], xs[ix]);
        }
    }
}

impl GroupedState for Covariance {
    fn resize(&mut self, groups: usize) {
        self.groups.resize(groups, Moments::default());
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let states = &mut self.groups;
        for_each_pair(args[0], args[1], rows, |i, y, x| {
            states[groups[i] as usize].add(y, x)
        });
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        let g = std::mem::take(&mut self.groups);
        let col = |f: fn(&Moments) -> f64| {
            Vector::from_values(DataType::Double, g.iter().map(f).collect::<Vec<_>>())
        };
        Ok(vec![
            Vector::from_values(DataType::BigInt, g.iter().map(|m| m.n).collect::<Vec<_>>()),
            col(|m| m.mean_x),
            col(|m| m.mean_y),
            col(|m| m.sxx),
            col(|m| m.syy),
            col(|m| m.sxy),
        ])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        let f = |c: usize, i: usize| partial[c].values::<f64>()[partial[c].index(i)];
        for (i, &g) in groups[..rows].iter().enumerate() {
            let m = Moments {
                n: partial[0].values::<i64>()[partial[0].index(i)],
                mean_x: f(1, i),
                mean_y: f(2, i),
                sxx: f(3, i),
                syy: f(4, i),
                sxy: f(5, i),
            };
            self.groups[g as usize].merge(&m);
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        if self.out == Output::RegrCount {
            let counts = self.groups.iter().map(|m| m.n).collect::<Vec<_>>();
            return Ok(Vector::from_values(DataType::BigInt, counts));
        }
        let vals: Vec<Option<f64>> = self.groups.iter().map(|m| m.value(self.out)).collect();
        Ok(nullable_doubles(&vals))
    }
}
