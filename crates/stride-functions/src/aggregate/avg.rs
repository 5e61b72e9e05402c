//! avg(x) as DOUBLE: an exact i128 sum for integers and decimals (divided once at the
//! end, so the mean of decimals is correctly rounded), a float sum otherwise.

use super::{add_to_sums, for_each_f64, GroupedState};
use stride_common::{DataType, Error, Result, Validity, Vector};

pub fn new(arg: &DataType) -> Box<dyn GroupedState> {
    if *arg == DataType::Interval {
        Box::<super::avg_interval::AvgInterval>::default()
    } else if arg.is_float() {
        Box::new(AvgFloat::default())
    } else {
        let scale = arg.decimal_properties().map_or(0, |(_, s)| s);
        Box::new(AvgExact {
            scale,
            sums: Vec::new(),
            counts: Vec::new(),
        })
    }
}

fn finish(counts: &[i64], mean: impl Fn(usize) -> f64) -> Vector {
    let values: Vec<f64> = (0..counts.len())
        .map(|g| if counts[g] > 0 { mean(g) } else { 0.0 })
        .collect();
    Vector::new(
        DataType::Double,
        stride_common::VectorData::F64(values.into()),
        Validity::from_fn(counts.len(), |g| counts[g] > 0),
    )
}

pub struct AvgExact {
    scale: u8,
    sums: Vec<i128>,
    counts: Vec<i64>,
}

impl GroupedState for AvgExact {
    fn resize(&mut self, groups: usize) {
        self.sums.resize(groups, 0);
        self.counts.resize(groups, 0);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let counts = &mut self.counts;
        if add_to_sums(args[0], rows, groups, &mut self.sums, |g, n| counts[g] += n) {
            Ok(())
        } else {
            Err(Error::out_of_range("Overflow in avg"))
        }
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        Ok(vec![
            Vector::from_values(
                DataType::Decimal(38, self.scale),
                std::mem::take(&mut self.sums),
            ),
            Vector::from_values(DataType::BigInt, std::mem::take(&mut self.counts)),
        ])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        let (s, c) = (partial[0].values::<i128>(), partial[1].values::<i64>());
        for i in 0..rows {
            let g = groups[i] as usize;
            self.sums[g] = self.sums[g]
                .checked_add(s[partial[0].index(i)])
                .ok_or_else(|| Error::out_of_range("Overflow in avg"))?;
            self.counts[g] += c[partial[1].index(i)];
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let div = 10f64.powi(self.scale as i32);
        let (sums, counts) = (&self.sums, &self.counts);
        // Integer part first keeps precision for large sums.
        Ok(finish(counts, |g| {
            let (q, r) = (sums[g] / counts[g] as i128, sums[g] % counts[g] as i128);
            (q as f64 + r as f64 / counts[g] as f64) / div
        }))
    }
}

#[derive(Default)]
pub struct AvgFloat {
    sums: Vec<f64>,
    counts: Vec<i64>,
}

impl GroupedState for AvgFloat {
    fn resize(&mut self, groups: usize) {
        self.sums.resize(groups, 0.0);
        self.counts.resize(groups, 0);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let (sums, counts) = (&mut self.sums, &mut self.counts);
        for_each_f64(args[0], rows, |i, v| {
            let g = groups[i] as usize;
            sums[g] += v;
            counts[g] += 1;
        });
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        Ok(vec![
            Vector::from_values(DataType::Double, std::mem::take(&mut self.sums)),
            Vector::from_values(DataType::BigInt, std::mem::take(&mut self.counts)),
        ])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        let (s, c) = (partial[0].values::<f64>(), partial[1].values::<i64>());
        for i in 0..rows {
            let g = groups[i] as usize;
            self.sums[g] += s[partial[0].index(i)];
            self.counts[g] += c[partial[1].index(i)];
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let (sums, counts) = (&self.sums, &self.counts);
        Ok(finish(counts, |g| sums[g] / counts[g] as f64))
    }
}
