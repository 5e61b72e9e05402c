//! `is_histogram_other_bin(x)`: whether `x` is the key `histogram(x, bins)` counts
//! the values outside every bin under (its type's largest value, infinity, '' for
//! text; `aggregate/histogram_bins.rs`), NULL for NULL.

use super::signature::bind;
use super::{BoundFunction, ScalarFunction};
use crate::aggregate::histogram_bins::is_other_bin;
use crate::kernels::map_rows;
use stride_common::{DataType, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    let [t] = args else { return None };
    bind(
        ScalarFunction::IsHistogramOtherBin,
        vec![t.clone()],
        DataType::Boolean,
    )
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    let x = &args[0];
    map_rows(&[x], len, DataType::Boolean, |i| {
        Ok(is_other_bin(&x.get(i)))
    })
}
