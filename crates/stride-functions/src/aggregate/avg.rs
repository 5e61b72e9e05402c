//! avg(x) as DOUBLE: an exact i128 sum for integers and decimals (divided once at the
//! end and rounded once, `divide_rounded`), a float sum otherwise. `from_parts` is the
//! same state fed with sums and counts an earlier aggregation computed (`AvgOfParts`).
//! avg of DATE, TIMESTAMP, TIMESTAMPTZ and TIME is the exact sum of their
//! microseconds divided by the count, truncated toward zero, as DuckDB has it (a
//! DATE's average is a TIMESTAMP: the mean of two days can be noon).

use super::{add_to_sums, for_each_f64, GroupedState};
use crate::cast::decimal::divide_rounded;
use stride_common::{DataType, Error, Result, Validity, Vector};

pub fn new(arg: &DataType) -> Box<dyn GroupedState> {
    if *arg == DataType::Interval {
        Box::<super::avg_interval::AvgInterval>::default()
    } else if temporal_result(arg).is_some() {
        Box::new(AvgTemporal {
            arg: arg.clone(),
            exact: AvgExact {
                scale: 0,
                sums: Vec::new(),
                counts: Vec::new(),
            },
        })
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

/// avg over `(sum, count)` rows, the parts an earlier aggregation computed: the sum
/// is the DECIMAL(38, s) or HUGEINT sum of the values (DOUBLE for floats), the count
/// their number. The same state as avg's, so the mean is the same as when the
/// values are averaged directly.
pub fn from_parts(sum: &DataType) -> Box<dyn GroupedState> {
    Box::new(FromParts(new(sum)))
}

struct FromParts(Box<dyn GroupedState>);

impl GroupedState for FromParts {
    fn resize(&mut self, groups: usize) {
        self.0.resize(groups)
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        // A NULL sum is a group without values (count 0): nothing to add.
        let (sum, count) = (args[0], args[1]);
        if !sum.validity.has_nulls() {
            return self.0.merge(groups, &[sum.clone(), count.clone()], rows);
        }
        let kept: Vec<u32> = (0..rows as u32)
            .filter(|&i| sum.is_valid(i as usize))
            .collect();
        let groups: Vec<u32> = kept.iter().map(|&i| groups[i as usize]).collect();
        let parts = [sum.take(&kept), count.take(&kept)];
        self.0.merge(&groups, &parts, kept.len())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        self.0.partial()
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        self.0.merge(groups, partial, rows)
    }

    fn finalize(&mut self) -> Result<Vector> {
        self.0.finalize()
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
        let ten = 10i128.checked_pow(self.scale as u32);
        let (sums, counts) = (&self.sums, &self.counts);
        Ok(finish(counts, |g| {
            let exact = ten
                .and_then(|t| t.checked_mul(counts[g] as i128))
                .and_then(|d| divide_rounded(sums[g], d));
            exact.unwrap_or_else(|| {
                // Integer part first keeps precision for large sums.
                let (q, r) = (sums[g] / counts[g] as i128, sums[g] % counts[g] as i128);
                (q as f64 + r as f64 / counts[g] as f64) / div
            })
        }))
    }
}

/// The type of avg of a date or time type; None for other types.
pub fn temporal_result(arg: &DataType) -> Option<DataType> {
    match arg {
        DataType::Date | DataType::Timestamp => Some(DataType::Timestamp),
        DataType::TimestampTz | DataType::Time => Some(arg.clone()),
        _ => None,
    }
}

/// avg of DATE, TIMESTAMP, TIMESTAMPTZ or TIME (`arg`): the exact average of the
/// values' microseconds.
struct AvgTemporal {
    arg: DataType,
    exact: AvgExact,
}

impl GroupedState for AvgTemporal {
    fn resize(&mut self, groups: usize) {
        self.exact.resize(groups)
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        // the values as they are stored: days for a DATE (scaled in `finalize`),
        // microseconds otherwise
        self.exact.update(groups, args, rows)
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        self.exact.partial()
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        self.exact.merge(groups, partial, rows)
    }

    fn finalize(&mut self) -> Result<Vector> {
        let (sums, counts) = (&self.exact.sums, &self.exact.counts);
        let unit = match self.arg {
            DataType::Date => i128::from(stride_common::interval::MICROS_PER_DAY),
            _ => 1,
        };
        let means: Vec<i64> = (0..counts.len())
            .map(|g| match counts[g] {
                0 => Ok(0),
                n => sums[g]
                    .checked_mul(unit)
                    .and_then(|micros| i64::try_from(micros / i128::from(n)).ok())
                    .ok_or_else(|| Error::out_of_range("Overflow in avg")),
            })
            .collect::<Result<_>>()?;
        let ty = temporal_result(&self.arg).unwrap_or(DataType::Timestamp);
        Ok(Vector::new(
            ty,
            stride_common::VectorData::I64(means.into()),
            Validity::from_fn(counts.len(), |g| counts[g] > 0),
        ))
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
