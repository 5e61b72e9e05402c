//! `avg(INTERVAL)`: the sum of the intervals' months, days and microseconds divided by
//! the count part by part, as DuckDB divides an interval: what the months leave over
//! carries into days (30 to a month), what the days leave over into microseconds, and
//! the microseconds are rounded half away from zero. So the average of 1 month and 2
//! months is 1 month 15 days, and of 1 month and 1 day 15 days 12:00:00.

use super::GroupedState;
use stride_common::interval::MICROS_PER_DAY;
use stride_common::{DataType, Error, Interval, Result, Validity, Vector, VectorData};

#[derive(Default)]
pub(super) struct AvgInterval {
    months: Vec<i128>,
    days: Vec<i128>,
    micros: Vec<i128>,
    counts: Vec<i64>,
}

/// `sum / n` (n > 0) of one group, or None when a part does not fit an INTERVAL.
fn mean(months: i128, days: i128, micros: i128, n: i128) -> Option<Interval> {
    let m = months / n;
    let days = days + (months % n) * 30;
    let d = days / n;
    let micros = micros + (days % n) * i128::from(MICROS_PER_DAY);
    let half_away = |x: i128| {
        let q = x / n;
        if 2 * (x % n).abs() >= n {
            q + x.signum()
        } else {
            q
        }
    };
    Some(Interval::new(
        m.try_into().ok()?,
        d.try_into().ok()?,
        half_away(micros).try_into().ok()?,
    ))
}

impl GroupedState for AvgInterval {
    fn resize(&mut self, groups: usize) {
        self.months.resize(groups, 0);
        self.days.resize(groups, 0);
        self.micros.resize(groups, 0);
        self.counts.resize(groups, 0);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let v = args[0];
        let values = v.values::<Interval>();
        for (i, &g) in groups[..rows].iter().enumerate() {
            let j = v.index(i);
            if v.validity.is_valid(j) {
                let (x, g) = (values[j], g as usize);
                self.months[g] += i128::from(x.months);
                self.days[g] += i128::from(x.days);
                self.micros[g] += i128::from(x.micros);
                self.counts[g] += 1;
            }
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        let hugeint = |v: &mut Vec<i128>| Vector::from_values(DataType::HugeInt, std::mem::take(v));
        Ok(vec![
            hugeint(&mut self.months),
            hugeint(&mut self.days),
            hugeint(&mut self.micros),
            Vector::from_values(DataType::BigInt, std::mem::take(&mut self.counts)),
        ])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        let part = |k: usize, i: usize| partial[k].values::<i128>()[partial[k].index(i)];
        let counts = partial[3].values::<i64>();
        for (i, &g) in groups[..rows].iter().enumerate() {
            let g = g as usize;
            self.months[g] += part(0, i);
            self.days[g] += part(1, i);
            self.micros[g] += part(2, i);
            self.counts[g] += counts[partial[3].index(i)];
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let n = self.counts.len();
        let mut values = Vec::with_capacity(n);
        for g in 0..n {
            values.push(if self.counts[g] == 0 {
                Interval::default()
            } else {
                mean(
                    self.months[g],
                    self.days[g],
                    self.micros[g],
                    i128::from(self.counts[g]),
                )
                .ok_or_else(|| Error::out_of_range("Overflow in avg of INTERVAL"))?
            });
        }
        let counts = &self.counts;
        Ok(Vector::new(
            DataType::Interval,
            VectorData::Interval(values.into()),
            Validity::from_fn(n, |g| counts[g] > 0),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::mean;
    use stride_common::interval::MICROS_PER_DAY;
    use stride_common::Interval;

    #[test]
    fn carries_and_rounding() {
        assert_eq!(mean(3, 0, 0, 2), Some(Interval::new(1, 15, 0)));
        assert_eq!(
            mean(1, 1, 0, 2),
            Some(Interval::new(0, 15, MICROS_PER_DAY / 2))
        );
        assert_eq!(mean(0, 0, 3, 2), Some(Interval::new(0, 0, 2)));
        assert_eq!(mean(0, 0, -3, 2), Some(Interval::new(0, 0, -2)));
        assert_eq!(
            mean(0, 1, 0, 3),
            Some(Interval::new(0, 0, MICROS_PER_DAY / 3))
        );
        assert_eq!(mean(i128::MAX / 2, 0, 0, 1), None);
    }
}
