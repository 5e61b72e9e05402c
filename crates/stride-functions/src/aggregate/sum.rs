//! sum(x): exact for integers and decimals (an i128 accumulator per group, checked
//! against the result type at the end), floating point for REAL and DOUBLE.

use super::{add_to_sums, for_each_f64, vector_with_seen, GroupedState};
use stride_common::{DataType, Error, Result, Vector};

pub fn new(arg: &DataType, ret: &DataType) -> Box<dyn GroupedState> {
    if arg.is_float() {
        Box::new(SumFloat::default())
    } else {
        Box::new(SumExact {
            ret: ret.clone(),
            sums: Vec::new(),
            seen: Vec::new(),
        })
    }
}

pub struct SumExact {
    ret: DataType,
    sums: Vec<i128>,
    seen: Vec<bool>,
}

fn overflow() -> Error {
    Error::out_of_range("Overflow in sum: the result does not fit in 128 bits")
}

impl GroupedState for SumExact {
    fn resize(&mut self, groups: usize) {
        self.sums.resize(groups, 0);
        self.seen.resize(groups, false);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let seen = &mut self.seen;
        if add_to_sums(args[0], rows, groups, &mut self.sums, |g, _| seen[g] = true) {
            Ok(())
        } else {
            Err(overflow())
        }
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        let scale = self.ret.decimal_properties().map_or(0, |(_, s)| s);
        Ok(vec![vector_with_seen(
            DataType::Decimal(38, scale),
            std::mem::take(&mut self.sums),
            &self.seen,
        )])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        // A partial sum is a DECIMAL(38) with NULL for groups without input: folding it
        // in is an update.
        self.update(groups, &[&partial[0]], rows)
    }

    fn finalize(&mut self) -> Result<Vector> {
        let sums = std::mem::take(&mut self.sums);
        match &self.ret {
            DataType::BigInt => {
                let mut out = Vec::with_capacity(sums.len());
                for (s, seen) in sums.iter().zip(&self.seen) {
                    match i64::try_from(*s) {
                        Ok(v) => out.push(v),
                        Err(_) if !seen => out.push(0),
                        Err(_) => {
                            return Err(Error::out_of_range(format!(
                                "Overflow in sum: {s} does not fit in BIGINT"
                            )))
                        }
                    }
                }
                Ok(vector_with_seen(DataType::BigInt, out, &self.seen))
            }
            DataType::HugeInt => Ok(vector_with_seen(DataType::HugeInt, sums, &self.seen)),
            DataType::Decimal(p, _) if *p <= 18 => {
                let out: Vec<i64> = sums.iter().map(|s| *s as i64).collect();
                Ok(vector_with_seen(self.ret.clone(), out, &self.seen))
            }
            ret => {
                let limit = 10i128.pow(38);
                if sums.iter().any(|s| s.abs() >= limit) {
                    return Err(Error::out_of_range(
                        "Overflow in sum: the result exceeds DECIMAL(38)",
                    ));
                }
                Ok(vector_with_seen(ret.clone(), sums, &self.seen))
            }
        }
    }
}

#[derive(Default)]
pub struct SumFloat {
    sums: Vec<f64>,
    seen: Vec<bool>,
}

impl GroupedState for SumFloat {
    fn resize(&mut self, groups: usize) {
        self.sums.resize(groups, 0.0);
        self.seen.resize(groups, false);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let (sums, seen) = (&mut self.sums, &mut self.seen);
        for_each_f64(args[0], rows, |i, v| {
            let g = groups[i] as usize;
            sums[g] += v;
            seen[g] = true;
        });
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        Ok(vec![vector_with_seen(
            DataType::Double,
            std::mem::take(&mut self.sums),
            &self.seen,
        )])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        self.update(groups, &partial.iter().collect::<Vec<_>>(), rows)
    }

    fn finalize(&mut self) -> Result<Vector> {
        Ok(vector_with_seen(
            DataType::Double,
            std::mem::take(&mut self.sums),
            &self.seen,
        ))
    }
}
