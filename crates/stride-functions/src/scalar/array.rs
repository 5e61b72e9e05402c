//! Functions over fixed-size ARRAY values of FLOAT or DOUBLE (vector search):
//! `array_distance` (Euclidean), `array_inner_product` / `array_dot_product`, their
//! negations, `array_cosine_similarity`, `array_cosine_distance` and
//! `array_cross_product`. Both arguments are arrays of one size; the result has the
//! element type and is computed in it, as DuckDB does. The elements of each row sit
//! one after another in the array's child vector, so the kernels read slices of it
//! directly. A NULL array gives NULL; a NULL element is an error.

use super::list::distance::Distance;
use super::signature::bind;
use super::{BoundFunction, ScalarFunction};
use stride_common::vector::{ListData, NativeType};
use stride_common::{DataType, Error, Result, Validity, Vector, VectorData};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArrayFunction {
    Distance(Distance),
    CrossProduct,
}

impl ArrayFunction {
    /// The SQL name (EXPLAIN, column names, errors).
    pub fn name(self) -> &'static str {
        match self {
            ArrayFunction::Distance(Distance::Euclidean) => "array_distance",
            ArrayFunction::Distance(Distance::InnerProduct) => "array_inner_product",
            ArrayFunction::Distance(Distance::NegativeInnerProduct) => {
                "array_negative_inner_product"
            }
            ArrayFunction::Distance(Distance::Cosine) => "array_cosine_similarity",
            ArrayFunction::Distance(Distance::OneMinusCosine) => "array_cosine_distance",
            ArrayFunction::CrossProduct => "array_cross_product",
        }
    }
}

/// Both arguments ARRAYs of FLOAT or DOUBLE of one size (an untyped NULL takes the
/// other's type); mixed FLOAT and DOUBLE compute in DOUBLE.
pub(crate) fn resolve(f: ArrayFunction, args: &[DataType]) -> Option<BoundFunction> {
    let [a, b] = args else { return None };
    let shape = |t: &DataType| match t {
        DataType::Array(e, n) if matches!(**e, DataType::Real | DataType::Double) => {
            Some(((**e).clone(), *n))
        }
        _ => None,
    };
    let ((ea, na), (eb, nb)) = match (shape(a), shape(b)) {
        (Some(x), Some(y)) => (x, y),
        (Some(x), None) if *b == DataType::Null => (x.clone(), x),
        (None, Some(y)) if *a == DataType::Null => (y.clone(), y),
        _ => return None,
    };
    if na != nb {
        return None;
    }
    if f == ArrayFunction::CrossProduct && na != 3 {
        return None;
    }
    let e = if ea == DataType::Double || eb == DataType::Double {
        DataType::Double
    } else {
        DataType::Real
    };
    let t = DataType::Array(Box::new(e.clone()), na);
    let ret = if f == ArrayFunction::CrossProduct {
        t.clone()
    } else {
        e
    };
    bind(ScalarFunction::Array(f), vec![t.clone(), t], ret)
}

/// Float arithmetic the kernels need, for f32 and f64.
trait Float:
    NativeType
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    fn sqrt(self) -> Self;
}

impl Float for f32 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
}

impl Float for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
}

pub fn evaluate(
    f: &BoundFunction,
    func: ArrayFunction,
    args: &[Vector],
    len: usize,
) -> Result<Vector> {
    let DataType::Array(elem, n) = &f.arg_types[0] else {
        return Err(Error::internal("an array function bound without arrays"));
    };
    match **elem {
        DataType::Real => run::<f32>(f, func, args, len, *n as usize),
        _ => run::<f64>(f, func, args, len, *n as usize),
    }
}

fn run<T: Float>(
    f: &BoundFunction,
    func: ArrayFunction,
    args: &[Vector],
    len: usize,
    n: usize,
) -> Result<Vector> {
    let constant = args.iter().all(|a| a.constant);
    let rows = if constant { 1 } else { len };
    let (a, b) = (&args[0], &args[1]);
    let mut validity = Validity::all_valid();
    let name = func.name();
    // a row's elements, or None when the array is NULL
    fn slice<'v, T: Float>(
        v: &'v Vector,
        i: usize,
        side: &str,
        name: &str,
    ) -> Result<Option<&'v [T]>> {
        let i = v.index(i);
        if !v.validity.is_valid(i) {
            return Ok(None);
        }
        let l: &ListData = v.list();
        let (s, e) = (l.offsets[i] as usize, l.offsets[i + 1] as usize);
        if (s..e).any(|j| !l.child.validity.is_valid(l.child.index(j))) {
            return Err(Error::invalid_input(format!(
                "{name}: {side} argument can not contain NULL values"
            )));
        }
        Ok(Some(&l.child.values::<T>()[s..e]))
    }
    match func {
        ArrayFunction::Distance(d) => {
            let mut out = Vec::with_capacity(rows);
            for i in 0..rows {
                match (
                    slice::<T>(a, i, "left", name)?,
                    slice::<T>(b, i, "right", name)?,
                ) {
                    (Some(x), Some(y)) => out.push(distance(d, x, y)),
                    _ => {
                        validity.set_invalid(i, rows);
                        out.push(T::ZERO);
                    }
                }
            }
            let mut v = Vector::new(f.return_type.clone(), T::wrap(out), validity);
            v.constant = constant;
            Ok(v)
        }
        ArrayFunction::CrossProduct => {
            let mut values = Vec::with_capacity(rows * n);
            let mut offsets = Vec::with_capacity(rows + 1);
            offsets.push(0u32);
            for i in 0..rows {
                if let (Some(x), Some(y)) = (
                    slice::<T>(a, i, "left", name)?,
                    slice::<T>(b, i, "right", name)?,
                ) {
                    values.extend([
                        x[1] * y[2] - x[2] * y[1],
                        x[2] * y[0] - x[0] * y[2],
                        x[0] * y[1] - x[1] * y[0],
                    ]);
                } else {
                    validity.set_invalid(i, rows);
                }
                offsets.push(values.len() as u32);
            }
            let DataType::Array(elem, _) = &f.return_type else {
                return Err(Error::internal("array_cross_product returns an array"));
            };
            let child = Vector::new((**elem).clone(), T::wrap(values), Validity::all_valid());
            let mut v = Vector::new(
                f.return_type.clone(),
                VectorData::List(ListData {
                    offsets,
                    child: Box::new(child),
                }),
                validity,
            );
            v.constant = constant;
            Ok(v)
        }
    }
}

fn distance<T: Float>(d: Distance, a: &[T], b: &[T]) -> T {
    let mut dot = T::ZERO;
    let (mut na, mut nb, mut sq) = (T::ZERO, T::ZERO, T::ZERO);
    for (&x, &y) in a.iter().zip(b) {
        dot = dot + x * y;
        na = na + x * x;
        nb = nb + y * y;
        sq = sq + (x - y) * (x - y);
    }
    match d {
        Distance::Euclidean => sq.sqrt(),
        Distance::InnerProduct => dot,
        Distance::NegativeInnerProduct => -dot,
        Distance::Cosine => dot / (na.sqrt() * nb.sqrt()),
        Distance::OneMinusCosine => T::ONE - dot / (na.sqrt() * nb.sqrt()),
    }
}
