//! skewness, kurtosis (both bias-corrected sample statistics, kurtosis as excess
//! kurtosis) and kurtosis_pop. NULL where the statistic is undefined: too few rows
//! (skewness needs 3, kurtosis 4) or no spread at all.
//!
//! Each group keeps its count, its mean and the sums of the 2nd, 3rd and 4th powers
//! of the deviations from that mean (centred moments), not raw power sums: deriving
//! central moments from Σx², Σx³ and Σx⁴ subtracts numbers that agree in all but
//! their last digits once the values are large next to their spread (four values
//! near 1e9 gave NULL, near 1e4 a kurtosis of -0.96 for 0.34). Rows fold in with
//! Welford's update extended to the 3rd and 4th moments, and partial states merge
//! with Chan's and Pébay's pairwise formulas, so threads can still combine groups.

use super::{for_each_f64, nullable_doubles, GroupedState};
use stride_common::{DataType, Result, Vector};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Output {
    Skewness,
    Kurtosis,
    KurtosisPop,
}

/// The count, mean and centred moment sums of one group.
#[derive(Clone, Copy, Default, Debug)]
struct State {
    n: i64,
    mean: f64,
    /// Σ (x - mean)²
    m2: f64,
    /// Σ (x - mean)³
    m3: f64,
    /// Σ (x - mean)⁴
    m4: f64,
}

impl State {
    /// Folds in one value (Welford's update, with Terriberry's 3rd and 4th moments).
    fn add(&mut self, x: f64) {
        let n1 = self.n as f64;
        self.n += 1;
        let n = self.n as f64;
        let delta = x - self.mean;
        let delta_n = delta / n;
        let delta_n2 = delta_n * delta_n;
        let term = delta * delta_n * n1;
        self.mean += delta_n;
        self.m4 += term * delta_n2 * (n * n - 3.0 * n + 3.0) + 6.0 * delta_n2 * self.m2
            - 4.0 * delta_n * self.m3;
        self.m3 += term * delta_n * (n - 2.0) - 3.0 * delta_n * self.m2;
        self.m2 += term;
    }

    /// Folds in another group's state (Chan's and Pébay's pairwise formulas).
    fn merge(&mut self, b: &State) {
        if b.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = *b;
            return;
        }
        let a = *self;
        let (na, nb) = (a.n as f64, b.n as f64);
        let n = na + nb;
        let delta = b.mean - a.mean;
        let d2 = delta * delta;
        let nab = na * nb / n;
        self.m4 = a.m4
            + b.m4
            + d2 * d2 * nab * (na * na - na * nb + nb * nb) / (n * n)
            + 6.0 * d2 * (na * na * b.m2 + nb * nb * a.m2) / (n * n)
            + 4.0 * delta * (na * b.m3 - nb * a.m3) / n;
        self.m3 = a.m3
            + b.m3
            + d2 * delta * nab * (na - nb) / n
            + 3.0 * delta * (na * b.m2 - nb * a.m2) / n;
        self.m2 = a.m2 + b.m2 + d2 * nab;
        self.mean = a.mean + delta * nb / n;
        self.n = a.n + b.n;
    }

    /// The function's value, `None` for NULL.
    fn value(&self, out: Output) -> Option<f64> {
        let n = self.n as f64;
        let needed = match out {
            Output::Skewness => 3,
            Output::Kurtosis => 4,
            Output::KurtosisPop => 1,
        };
        if self.n < needed || self.m2 <= 0.0 {
            return None;
        }
        // g1 = m3 / m2^1.5 and g2 = m4 / m2², with mk = Σ (x - mean)^k / n
        let g1 = n.sqrt() * self.m3 / self.m2.powf(1.5);
        let g2 = n * self.m4 / (self.m2 * self.m2);
        Some(match out {
            Output::Skewness => (n * (n - 1.0)).sqrt() / (n - 2.0) * g1,
            Output::Kurtosis => {
                (n - 1.0) * ((n + 1.0) * g2 - 3.0 * (n - 1.0)) / ((n - 2.0) * (n - 3.0))
            }
            Output::KurtosisPop => g2 - 3.0,
        })
    }
}

pub struct Moments {
    out: Output,
    groups: Vec<State>,
}

impl Moments {
    pub fn new(out: Output) -> Self {
        Moments {
            out,
            groups: Vec::new(),
        }
    }
}

impl GroupedState for Moments {
    fn resize(&mut self, groups: usize) {
        self.groups.resize(groups, State::default());
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let states = &mut self.groups;
        for_each_f64(args[0], rows, |i, x| states[groups[i] as usize].add(x));
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        let g = std::mem::take(&mut self.groups);
        let col = |f: fn(&State) -> f64| {
            Vector::from_values(DataType::Double, g.iter().map(f).collect::<Vec<_>>())
        };
        Ok(vec![
            Vector::from_values(DataType::BigInt, g.iter().map(|s| s.n).collect::<Vec<_>>()),
            col(|s| s.mean),
            col(|s| s.m2),
            col(|s| s.m3),
            col(|s| s.m4),
        ])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        let f = |c: usize, i: usize| partial[c].values::<f64>()[partial[c].index(i)];
        for (i, &g) in groups[..rows].iter().enumerate() {
            let s = State {
                n: partial[0].values::<i64>()[partial[0].index(i)],
                mean: f(1, i),
                m2: f(2, i),
                m3: f(3, i),
                m4: f(4, i),
            };
            self.groups[g as usize].merge(&s);
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let vals: Vec<Option<f64>> = self.groups.iter().map(|s| s.value(self.out)).collect();
        Ok(nullable_doubles(&vals))
    }
}

#[cfg(test)]
mod tests {
    use super::{Output, State};

    fn state(xs: &[f64]) -> State {
        let mut s = State::default();
        xs.iter().for_each(|&x| s.add(x));
        s
    }

    fn values(s: &State) -> [Option<f64>; 3] {
        [Output::Skewness, Output::Kurtosis, Output::KurtosisPop].map(|o| s.value(o))
    }

    /// Whether `a` and `b` agree to `tol`, relative (absolute near zero).
    fn close(a: [Option<f64>; 3], b: [Option<f64>; 3], tol: f64) -> bool {
        a.iter().zip(&b).all(|(a, b)| match (a, b) {
            (Some(a), Some(b)) => (a - b).abs() <= tol * b.abs().max(1.0),
            _ => a == b,
        })
    }

    #[test]
    fn large_values_keep_their_precision() {
        // Exact: skewness 0.752837199131..., kurtosis 12/35, kurtosis_pop -1.1542857...
        let s = state(&[10001.0, 10002.0, 10003.0, 10005.0]);
        let want = [
            Some(0.7528371991317256),
            Some(12.0 / 35.0),
            Some(-1.1542857142857144),
        ];
        assert!(close(values(&s), want, 1e-9), "{:?}", values(&s));
        // The same spread shifted by 1e9 (and 1e12): shifting changes nothing.
        for shift in [1e9, 1e12] {
            let s = state(&[shift + 1.0, shift + 2.0, shift + 3.0, shift + 5.0]);
            assert!(close(values(&s), want, 1e-9), "{shift}: {:?}", values(&s));
        }
        // Symmetric: skewness 0, kurtosis -1.2, kurtosis_pop -1.36 (as DuckDB).
        let s = state(&[1000000001.0, 1000000002.0, 1000000003.0, 1000000004.0]);
        assert!(close(
            values(&s),
            [Some(0.0), Some(-1.2), Some(-1.36)],
            1e-9
        ));
    }

    #[test]
    fn merged_states_agree_with_one_pass() {
        let xs: Vec<f64> = (0..40)
            .map(|i| 1e8 + ((i * 37) % 11) as f64 * 0.5)
            .collect();
        let whole = values(&state(&xs));
        // (A deviation of a few units next to 1e8 carries a relative error near 1e-8.)
        for cut in [0, 1, 2, 7, 20, 39, 40] {
            let mut a = state(&xs[..cut]);
            a.merge(&state(&xs[cut..]));
            assert!(close(values(&a), whole, 1e-6), "cut {cut}");
        }
    }

    #[test]
    fn too_few_rows_or_no_spread_is_null() {
        assert_eq!(values(&state(&[1.0, 2.0])), [None, None, Some(-2.0)]);
        assert_eq!(values(&state(&[3.0; 5])), [None, None, None]);
        assert_eq!(values(&State::default()), [None, None, None]);
    }
}
