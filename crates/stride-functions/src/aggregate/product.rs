//! product(x), the product of a group's non-NULL values, and geomean(x) /
//! geometric_mean(x), the n-th root of that product (computed as exp(avg(ln x)) so it
//! does not overflow). Both DOUBLE, NULL for a group without values.

use super::{nullable_doubles, GroupedState};
use stride_common::{DataType, Result, Vector};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Output {
    Product,
    GeoMean,
}

pub struct Product {
    out: Output,
    /// The product, or the sum of logarithms for geomean.
    acc: Vec<f64>,
    counts: Vec<i64>,
}

impl Product {
    pub fn new(out: Output) -> Self {
        Product {
            out,
            acc: Vec::new(),
            counts: Vec::new(),
        }
    }
}

impl GroupedState for Product {
    fn resize(&mut self, groups: usize) {
        let start = if self.out == Output::Product {
            1.0
        } else {
            0.0
        };
        self.acc.resize(groups, start);
        self.counts.resize(groups, 0);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let v = args[0];
        let vals = v.values::<f64>();
        for (i, &g) in groups[..rows].iter().enumerate() {
            let j = v.index(i);
            if v.validity.is_valid(j) {
                let g = g as usize;
                match self.out {
                    Output::Product => self.acc[g] *= vals[j],
                    Output::GeoMean => self.acc[g] += vals[j].ln(),
                }
                self.counts[g] += 1;
            }
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        Ok(vec![
            Vector::from_values(DataType::Double, std::mem::take(&mut self.acc)),
            Vector::from_values(DataType::BigInt, std::mem::take(&mut self.counts)),
        ])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        let (acc, counts) = (partial[0].values::<f64>(), partial[1].values::<i64>());
        for (i, &g) in groups[..rows].iter().enumerate() {
            let (g, j) = (g as usize, partial[0].index(i));
            match self.out {
                Output::Product => self.acc[g] *= acc[j],
                Output::GeoMean => self.acc[g] += acc[j],
            }
            self.counts[g] += counts[partial[1].index(i)];
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let vals: Vec<Option<f64>> = self
            .acc
            .iter()
            .zip(&self.counts)
            .map(|(&a, &n)| {
                (n > 0).then(|| match self.out {
                    Output::Product => a,
                    Output::GeoMean => (a / n as f64).exp(),
                })
            })
            .collect();
        Ok(nullable_doubles(&vals))
    }
}
