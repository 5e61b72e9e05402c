//! Vector distances between two numeric lists of equal length, as DOUBLE:
//! `list_distance` (Euclidean), `list_inner_product` (`list_dot_product`),
//! `list_negative_inner_product` (`list_negative_dot_product`),
//! `list_cosine_similarity` and `list_cosine_distance`. Lists of different lengths or
//! with NULL elements are an error naming the function (DuckDB's messages); a NULL
//! list gives NULL. The `array_*` forms over fixed-size ARRAYs are in `scalar/array.rs`.

use super::{element, items, list_arg};
use crate::kernels::map_values;
use crate::scalar::signature::bind;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, ScalarValue, Vector};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Distance {
    Euclidean,
    InnerProduct,
    NegativeInnerProduct,
    /// cosine similarity
    Cosine,
    /// cosine distance: 1 - similarity
    OneMinusCosine,
}

impl Distance {
    fn name(self) -> &'static str {
        match self {
            Distance::Euclidean => "list_distance",
            Distance::InnerProduct => "list_inner_product",
            Distance::NegativeInnerProduct => "list_negative_inner_product",
            Distance::Cosine => "list_cosine_similarity",
            Distance::OneMinusCosine => "list_cosine_distance",
        }
    }

    fn of(self, a: &[f64], b: &[f64]) -> f64 {
        let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        match self {
            Distance::Euclidean => a
                .iter()
                .zip(b)
                .map(|(x, y)| (x - y) * (x - y))
                .sum::<f64>()
                .sqrt(),
            Distance::InnerProduct => dot,
            Distance::NegativeInnerProduct => -dot,
            Distance::Cosine => dot / (norm(a) * norm(b)),
            Distance::OneMinusCosine => 1.0 - dot / (norm(a) * norm(b)),
        }
    }
}

pub(crate) fn resolve(args: &[DataType], d: Distance) -> Option<BoundFunction> {
    let [a, b] = args else { return None };
    for l in [a, b] {
        if *l == DataType::Null {
            continue;
        }
        let e = element(&list_arg(l)?)?.clone();
        if !e.is_numeric() && e != DataType::Null {
            return None;
        }
    }
    let l = DataType::List(Box::new(DataType::Double));
    bind(
        ScalarFunction::ListDistance(d),
        vec![l.clone(), l],
        DataType::Double,
    )
}

fn values(d: Distance, side: &str, v: &ScalarValue) -> Result<Vec<f64>> {
    items(v)
        .iter()
        .map(|x| {
            x.as_f64().ok_or_else(|| {
                Error::invalid_input(format!(
                    "{}: {side} argument can not contain NULL values",
                    d.name()
                ))
            })
        })
        .collect()
}

pub(super) fn evaluate(d: Distance, args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    map_values(&refs, len, &DataType::Double, true, |row| {
        let (a, b) = (values(d, "left", &row[0])?, values(d, "right", &row[1])?);
        if a.len() != b.len() {
            return Err(Error::invalid_input(format!(
                "{}: list dimensions must be equal, got left length '{}' and right length '{}'",
                d.name(),
                a.len(),
                b.len()
            )));
        }
        if a.is_empty() && matches!(d, Distance::Cosine | Distance::OneMinusCosine) {
            return Ok(ScalarValue::Null);
        }
        Ok(ScalarValue::Double(d.of(&a, &b)))
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::{eval, int_list as ints};
    use stride_common::ScalarValue::*;

    #[test]
    fn distances() {
        let a = ints(&[Some(1), Some(2)]);
        let b = ints(&[Some(4), Some(6)]);
        assert_eq!(
            eval("list_distance", &[a.clone(), b.clone()]).unwrap(),
            Double(5.0)
        );
        assert_eq!(
            eval("list_inner_product", &[a.clone(), b.clone()]).unwrap(),
            Double(16.0)
        );
        assert_eq!(
            eval("list_negative_dot_product", &[a.clone(), b.clone()]).unwrap(),
            Double(-16.0)
        );
        let x = ints(&[Some(1), Some(0)]);
        let y = ints(&[Some(0), Some(1)]);
        assert_eq!(
            eval("list_cosine_distance", &[x.clone(), y.clone()]).unwrap(),
            Double(1.0)
        );
        assert_eq!(
            eval("list_cosine_similarity", &[x, y]).unwrap(),
            Double(0.0)
        );
        let e = eval("list_distance", &[a.clone(), ints(&[Some(1)])]).unwrap_err();
        assert_eq!(
            e.message,
            "list_distance: list dimensions must be equal, got left length '2' and right length '1'"
        );
        let e = eval("list_distance", &[a.clone(), ints(&[Some(1), None])]).unwrap_err();
        assert_eq!(
            e.message,
            "list_distance: right argument can not contain NULL values"
        );
        assert_eq!(eval("list_distance", &[Null, a]).unwrap(), Null);
    }
}
