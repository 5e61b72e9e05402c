//! `histogram(x, bins)` and `histogram_exact(x, bins)`: counts per bin of a constant
//! list of bins (sorted, duplicates dropped), as a MAP from bin to count (UBIGINT)
//! that lists every bin, empty ones too, as DuckDB does. `histogram` puts a value in
//! the first bin at least as large as it (bins are upper bounds); `histogram_exact`
//! only in a bin equal to it. A value that falls in no bin is counted under the
//! "other" bin ([`other_bin`]: the type's largest value, infinity, or '' for text),
//! listed last and only when it counted something; `is_histogram_other_bin(x)` tells
//! it apart. A group without values is NULL.

use super::GroupedState;
use std::cmp::Ordering;
use stride_common::{temporal, DataType, Error, Result, ScalarValue, Vector};

/// The key the values outside every bin are counted under, as DuckDB names it; `None`
/// for types without one (they take no bins).
pub fn other_bin(ty: &DataType) -> Option<ScalarValue> {
    Some(match ty {
        DataType::TinyInt => ScalarValue::TinyInt(i8::MAX),
        DataType::SmallInt => ScalarValue::SmallInt(i16::MAX),
        DataType::Integer => ScalarValue::Integer(i32::MAX),
        DataType::BigInt => ScalarValue::BigInt(i64::MAX),
        DataType::HugeInt => ScalarValue::HugeInt(i128::MAX),
        DataType::UTinyInt => ScalarValue::UTinyInt(u8::MAX),
        DataType::USmallInt => ScalarValue::USmallInt(u16::MAX),
        DataType::UInteger => ScalarValue::UInteger(u32::MAX),
        DataType::UBigInt => ScalarValue::UBigInt(u64::MAX),
        DataType::UHugeInt => ScalarValue::UHugeInt(u128::MAX),
        DataType::Real => ScalarValue::Real(f32::INFINITY),
        DataType::Double => ScalarValue::Double(f64::INFINITY),
        DataType::Varchar => ScalarValue::Varchar(String::new()),
        DataType::Date => ScalarValue::Date(temporal::DATE_INFINITY),
        DataType::Timestamp => ScalarValue::Timestamp(temporal::TIMESTAMP_INFINITY),
        DataType::Boolean => ScalarValue::Boolean(true),
        _ => return None,
    })
}

/// Whether `v` is its type's other bin (`is_histogram_other_bin`; never a BOOLEAN,
/// as in DuckDB).
pub fn is_other_bin(v: &ScalarValue) -> bool {
    match v {
        ScalarValue::Boolean(_) => false,
        v => other_bin(&v.data_type()).is_some_and(|o| o.total_cmp(v) == Ordering::Equal),
    }
}

pub struct HistogramBins {
    exact: bool,
    ty: DataType,
    bins: Vec<ScalarValue>,
    /// per group: one count per bin, then the other bin's
    counts: Vec<Vec<u64>>,
}

impl HistogramBins {
    /// The state over values of `ty` for the constant `bins` (a list; NULL entries
    /// are an error, as in DuckDB).
    pub fn new(exact: bool, ty: &DataType, bins: Option<&ScalarValue>) -> Result<Self> {
        let Some(ScalarValue::List(_, items)) = bins else {
            return Err(Error::binder(
                "the bins of histogram must be a constant list, as in histogram(x, [10, 20, 30])",
            ));
        };
        if items.iter().any(ScalarValue::is_null) {
            return Err(Error::binder("Histogram bin entry cannot be NULL"));
        }
        if other_bin(ty).is_none() {
            return Err(Error::binder(format!(
                "histogram with bins does not take values of type {ty}"
            )));
        }
        let mut bins = items.clone();
        bins.sort_by(|a, b| a.total_cmp(b));
        bins.dedup_by(|a, b| a.total_cmp(b) == Ordering::Equal);
        Ok(HistogramBins {
            exact,
            ty: ty.clone(),
            bins,
            counts: Vec::new(),
        })
    }

    /// The position of the bin `v` falls in; `bins.len()` for the other bin.
    fn bin_of(&self, v: &ScalarValue) -> usize {
        let at = self
            .bins
            .partition_point(|b| b.total_cmp(v) == Ordering::Less);
        match self.exact {
            true if at < self.bins.len() && self.bins[at].total_cmp(v) != Ordering::Equal => {
                self.bins.len()
            }
            _ => at,
        }
    }
}

impl GroupedState for HistogramBins {
    fn resize(&mut self, groups: usize) {
        let width = self.bins.len() + 1;
        self.counts.resize_with(groups, || vec![0; width]);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        for (i, &g) in groups[..rows].iter().enumerate() {
            if args[0].is_valid(i) {
                let b = self.bin_of(&args[0].get(i));
                self.counts[g as usize][b] += 1;
            }
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        let ty = DataType::List(Box::new(DataType::UBigInt));
        let mut out = Vector::with_capacity(&ty, self.counts.len());
        for counts in std::mem::take(&mut self.counts) {
            let items = counts.into_iter().map(ScalarValue::UBigInt).collect();
            out.push(&ScalarValue::List(DataType::UBigInt, items))?;
        }
        Ok(vec![out])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        for (i, &g) in groups[..rows].iter().enumerate() {
            if let ScalarValue::List(_, items) = partial[0].get(i) {
                for (c, item) in self.counts[g as usize].iter_mut().zip(items) {
                    if let ScalarValue::UBigInt(n) = item {
                        *c += n;
                    }
                }
            }
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let ty = DataType::Map(Box::new(self.ty.clone()), Box::new(DataType::UBigInt));
        let mut out = Vector::with_capacity(&ty, self.counts.len());
        let other = other_bin(&self.ty).unwrap_or(ScalarValue::Null);
        for counts in &self.counts {
            if counts.iter().all(|&c| c == 0) {
                out.push_null();
                continue;
            }
            let mut entries: Vec<(ScalarValue, ScalarValue)> = self
                .bins
                .iter()
                .zip(counts)
                .map(|(b, &c)| (b.clone(), ScalarValue::UBigInt(c)))
                .collect();
            let rest = counts[self.bins.len()];
            if rest > 0 {
                entries.push((other.clone(), ScalarValue::UBigInt(rest)));
            }
            out.push(&ScalarValue::Map(
                self.ty.clone(),
                DataType::UBigInt,
                entries,
            ))?;
        }
        Ok(out)
    }
}
