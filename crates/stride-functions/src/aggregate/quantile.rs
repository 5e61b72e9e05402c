//! Exact quantiles: `median(x)`, `quantile_cont(x, q)`, `quantile_disc(x, q)` (also
//! `quantile`, and `approx_quantile` / `reservoir_quantile`, which here are exact),
//! where `q` is a constant fraction or a list of them (then the result is a list),
//! and `mad(x)`, the median absolute deviation from the median.
//!
//! Each group keeps its non-NULL values; finalizing selects the needed ranks
//! (`select_nth_unstable`, linear per quantile) rather than sorting. The rules are
//! DuckDB's:
//! - `quantile_disc(x, q)` is the value at rank `ceil(n * q)` (1-based, at least 1);
//! - `quantile_cont(x, q)` interpolates between the values at ranks `floor(p)` and
//!   `ceil(p)` (0-based) with `p = q * (n - 1)`; integers give DOUBLE, DECIMAL stays
//!   DECIMAL (the interpolated value truncated to its scale), DATE gives TIMESTAMP;
//! - a negative `q` counts from the top (`-0.1` is the 10% quantile of the values in
//!   descending order); `|q|` must not exceed 1.
//!
//! Partial states are each group's values as a list, so threads merge by appending.
//! Strings take the discrete rule (`median` too) in `quantile_text.rs`.

use super::GroupedState;
use stride_common::interval::MICROS_PER_DAY;
use stride_common::vector::ListData;
use stride_common::{DataType, Error, PhysicalType, Result, ScalarValue, Validity, Vector};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `median(x)`: quantile_cont(x, 0.5)
    Median,
    /// `quantile_cont(x, q)`: interpolated
    Cont,
    /// `quantile_disc(x, q)`, `quantile`: one of the values
    Disc,
    /// `mad(x)`: median of |x - median(x)|
    Mad,
}

/// The result type of `kind` over values of type `t` (one fraction), or `None` when
/// `t` has no quantiles.
pub fn result_type(kind: Kind, t: &DataType) -> Option<DataType> {
    let t = if *t == DataType::Null {
        &DataType::Integer
    } else {
        t
    };
    Some(match (kind, t) {
        // strings have discrete quantiles only (quantile_text.rs)
        (Kind::Median | Kind::Disc, DataType::Varchar | DataType::Blob) => t.clone(),
        (_, DataType::Boolean | DataType::Varchar | DataType::List(_) | DataType::Interval) => {
            return None
        }
        // other strings (BLOB, JSON) and nested values have no quantiles here
        (_, t) if t.is_nested() || t.physical() == stride_common::PhysicalType::Str => return None,
        (Kind::Disc, t) => t.clone(),
        (_, DataType::Uuid) => return None,
        (_, t) if t.is_integer() => DataType::Double,
        (
            Kind::Mad,
            DataType::Date | DataType::Timestamp | DataType::TimestampTz | DataType::Time,
        ) => DataType::Interval,
        (_, DataType::Date) => DataType::Timestamp,
        (_, t) => t.clone(),
    })
}

/// The fractions a constant quantile argument holds (`0.5` or `[0.25, 0.75]`),
/// checked: what the binder reports for a bad one.
pub fn fractions(name: &str, q: &ScalarValue) -> Result<Vec<f64>> {
    let one = |v: &ScalarValue| -> Result<f64> {
        let f = match v {
            ScalarValue::Null => {
                return Err(Error::binder(format!(
                    "The \"quantile\" argument in function \"{name}\" must not be NULL"
                )))
            }
            v => v.as_f64().ok_or_else(|| {
                Error::binder(format!(
                    "The \"quantile\" argument in function \"{name}\" must be a number, not {v}"
                ))
            })?,
        };
        if !(-1.0..=1.0).contains(&f) {
            return Err(Error::binder(
                "QUANTILE can only take parameters in the range [-1, 1]",
            ));
        }
        Ok(f)
    };
    match q {
        ScalarValue::List(_, items) => items.iter().map(one).collect(),
        v => Ok(vec![one(v)?]),
    }
}

/// A value kept for quantiles: integers (with decimals, dates and timestamps) widened
/// to i64 or i128, floats to f64.
trait Sample: Copy + PartialOrd + Send + Sync + 'static {
    /// Calls `f(row, value)` for every non-NULL row of `v`.
    fn each(v: &Vector, rows: usize, f: impl FnMut(usize, Self));
    /// Values as a flat vector (for partial states).
    fn vector(values: Vec<Self>) -> Vector;
    fn read(v: &Vector) -> &[Self];
    fn to_i128(self) -> i128;
    fn to_f64(self) -> f64;
}

fn each_native<T: stride_common::vector::NativeType, S>(
    v: &Vector,
    rows: usize,
    conv: impl Fn(T) -> S,
    mut f: impl FnMut(usize, S),
) {
    let vals = v.values::<T>();
    for i in 0..rows {
        let j = v.index(i);
        if v.validity.is_valid(j) {
            f(i, conv(vals[j]));
        }
    }
}

impl Sample for i64 {
    fn each(v: &Vector, rows: usize, f: impl FnMut(usize, i64)) {
        match v.data.physical() {
            PhysicalType::I8 => each_native::<i8, _>(v, rows, i64::from, f),
            PhysicalType::I16 => each_native::<i16, _>(v, rows, i64::from, f),
            PhysicalType::I32 => each_native::<i32, _>(v, rows, i64::from, f),
            _ => each_native::<i64, _>(v, rows, |x| x, f),
        }
    }
    fn vector(values: Vec<i64>) -> Vector {
        Vector::from_values(DataType::BigInt, values)
    }
    fn read(v: &Vector) -> &[i64] {
        v.values::<i64>()
    }
    fn to_i128(self) -> i128 {
        self as i128
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl Sample for i128 {
    fn each(v: &Vector, rows: usize, f: impl FnMut(usize, i128)) {
        each_native::<i128, _>(v, rows, |x| x, f)
    }
    fn vector(values: Vec<i128>) -> Vector {
        Vector::from_values(DataType::Decimal(38, 0), values)
    }
    fn read(v: &Vector) -> &[i128] {
        v.values::<i128>()
    }
    fn to_i128(self) -> i128 {
        self
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl Sample for f64 {
    fn each(v: &Vector, rows: usize, f: impl FnMut(usize, f64)) {
        match v.data.physical() {
            PhysicalType::F32 => each_native::<f32, _>(v, rows, f64::from, f),
            _ => each_native::<f64, _>(v, rows, |x| x, f),
        }
    }
    fn vector(values: Vec<f64>) -> Vector {
        Vector::from_values(DataType::Double, values)
    }
    fn read(v: &Vector) -> &[f64] {
        v.values::<f64>()
    }
    fn to_i128(self) -> i128 {
        self as i128
    }
    fn to_f64(self) -> f64 {
        self
    }
}

struct Quantile<T> {
    kind: Kind,
    fractions: Vec<f64>,
    /// The quantile argument was a list: the result is one.
    list: bool,
    input: DataType,
    /// The type of one quantile.
    output: DataType,
    values: Vec<Vec<T>>,
}

/// A state for `kind` over `input`; `q` is the constant quantile argument (none for
/// median and mad).
pub fn new(kind: Kind, input: &DataType, q: Option<&ScalarValue>) -> Box<dyn GroupedState> {
    let (fractions, list) = match (kind, q) {
        (Kind::Median | Kind::Mad, _) | (_, None) => (vec![0.5], false),
        (_, Some(q)) => (
            fractions("quantile", q).unwrap_or_default(),
            matches!(q, ScalarValue::List(..)),
        ),
    };
    if matches!(input, DataType::Varchar | DataType::Blob) {
        return Box::new(super::quantile_text::TextQuantile::new(
            input.clone(),
            fractions,
            list,
        ));
    }
    let output = result_type(kind, input).unwrap_or(DataType::Double);
    fn make<T: Sample>(
        kind: Kind,
        fractions: Vec<f64>,
        list: bool,
        input: &DataType,
        output: DataType,
    ) -> Box<dyn GroupedState> {
        Box::new(Quantile::<T> {
            kind,
            fractions,
            list,
            input: input.clone(),
            output,
            values: Vec::new(),
        })
    }
    match input.physical() {
        PhysicalType::F32 | PhysicalType::F64 => make::<f64>(kind, fractions, list, input, output),
        PhysicalType::I128 => make::<i128>(kind, fractions, list, input, output),
        _ => make::<i64>(kind, fractions, list, input, output),
    }
}

fn cmp<T: PartialOrd>(a: &T, b: &T) -> std::cmp::Ordering {
    // NaN sorts last, as in DuckDB's ordering of floats
    a.partial_cmp(b).unwrap_or_else(|| {
        let a_nan = a.partial_cmp(a).is_none();
        let b_nan = b.partial_cmp(b).is_none();
        a_nan.cmp(&b_nan)
    })
}

/// The value at 0-based rank `k` of `v` in ascending order (or descending when
/// `desc`), moving values of `v` around.
fn nth<T: Sample>(v: &mut [T], k: usize, desc: bool) -> T {
    let k = if desc { v.len() - 1 - k } else { k };
    *v.select_nth_unstable_by(k, cmp).1
}

impl<T: Sample> Quantile<T> {
    /// One quantile `q` of `v` (non-empty) as a value of the output type.
    fn quantile(&self, v: &mut [T], q: f64) -> ScalarValue {
        let n = v.len();
        let desc = q < 0.0;
        let q = q.abs();
        if self.kind == Kind::Disc {
            let k = ((n as f64 * q).ceil() as usize).clamp(1, n) - 1;
            return self.disc_value(nth(v, k, desc));
        }
        let p = q * (n - 1) as f64;
        let (lo, hi) = (p.floor() as usize, p.ceil() as usize);
        let a = nth(v, lo, desc);
        let b = if hi == lo { a } else { nth(v, hi, desc) };
        self.interpolate(a, b, p - lo as f64)
    }

    fn disc_value(&self, x: T) -> ScalarValue {
        typed(&self.output, x.to_i128(), x.to_f64())
    }

    fn interpolate(&self, a: T, b: T, d: f64) -> ScalarValue {
        match &self.output {
            DataType::Double | DataType::Real => {
                let (a, b) = (a.to_f64(), b.to_f64());
                let x = if d == 0.0 { a } else { a + d * (b - a) };
                typed(&self.output, 0, x)
            }
            DataType::Timestamp if self.input == DataType::Date => {
                let scale = MICROS_PER_DAY as i128;
                ScalarValue::Timestamp(
                    trunc_between(a.to_i128() * scale, b.to_i128() * scale, d) as i64
                )
            }
            out => typed(out, trunc_between(a.to_i128(), b.to_i128(), d), 0.0),
        }
    }

    fn finish_group(&self, v: &mut Vec<T>) -> ScalarValue {
        if v.is_empty() {
            return ScalarValue::Null;
        }
        if self.kind == Kind::Mad {
            return self.mad(v);
        }
        let values: Vec<ScalarValue> = self
            .fractions
            .iter()
            .map(|&q| self.quantile(v, q))
            .collect();
        if self.list {
            ScalarValue::List(self.output.clone(), values)
        } else {
            values.into_iter().next().unwrap_or(ScalarValue::Null)
        }
    }

    /// The median of the absolute deviations from the median, in the input's units
    /// (DOUBLE for numbers, INTERVAL for dates and timestamps).
    fn mad(&self, v: &mut [T]) -> ScalarValue {
        let n = v.len();
        let p = 0.5 * (n - 1) as f64;
        let median = |v: &mut [f64]| {
            let (lo, hi) = (p.floor() as usize, p.ceil() as usize);
            let a = *v.select_nth_unstable_by(lo, cmp).1;
            let b = *v.select_nth_unstable_by(hi, cmp).1;
            a + (p - lo as f64) * (b - a)
        };
        let mut xs: Vec<f64> = v.iter().map(|x| x.to_f64()).collect();
        let m = median(&mut xs);
        let mut dev: Vec<f64> = xs.iter().map(|x| (x - m).abs()).collect();
        let mad = median(&mut dev);
        match (&self.input, &self.output) {
            (DataType::Date, _) => ScalarValue::Interval(stride_common::Interval::new(
                0,
                0,
                (mad * MICROS_PER_DAY as f64) as i64,
            )),
            (DataType::Timestamp | DataType::TimestampTz | DataType::Time, _) => {
                ScalarValue::Interval(stride_common::Interval::new(0, 0, mad as i64))
            }
            (_, out) => typed(out, mad as i128, mad),
        }
    }
}

/// `a + d * (b - a)` truncated toward zero, exact for the integer part `a`.
fn trunc_between(a: i128, b: i128, d: f64) -> i128 {
    let delta = d * (b - a) as f64;
    if a as f64 + delta >= 0.0 {
        a + delta.floor() as i128
    } else {
        a + delta.ceil() as i128
    }
}

/// A value of type `ty` from its integer (`i`) or float (`f`) representation.
fn typed(ty: &DataType, i: i128, f: f64) -> ScalarValue {
    match ty {
        DataType::TinyInt => ScalarValue::TinyInt(i as i8),
        DataType::SmallInt => ScalarValue::SmallInt(i as i16),
        DataType::Integer => ScalarValue::Integer(i as i32),
        DataType::BigInt => ScalarValue::BigInt(i as i64),
        DataType::Real => ScalarValue::Real(f as f32),
        DataType::Double => ScalarValue::Double(f),
        DataType::Decimal(p, s) => ScalarValue::Decimal(i, *p, *s),
        DataType::Date => ScalarValue::Date(i as i32),
        DataType::Timestamp => ScalarValue::Timestamp(i as i64),
        DataType::TimestampTz => ScalarValue::TimestampTz(i as i64),
        DataType::Time => ScalarValue::Time(i as i64),
        DataType::HugeInt => ScalarValue::HugeInt(i),
        DataType::UTinyInt => ScalarValue::UTinyInt(i as u8),
        DataType::USmallInt => ScalarValue::USmallInt(i as u16),
        DataType::UInteger => ScalarValue::UInteger(i as u32),
        DataType::UBigInt => ScalarValue::UBigInt(i as u64),
        DataType::Uuid => ScalarValue::Uuid(stride_common::uuid::from_physical(i)),
        DataType::UHugeInt => ScalarValue::UHugeInt(stride_common::flip128::from_physical(i)),
        _ => ScalarValue::Null,
    }
}

impl<T: Sample> GroupedState for Quantile<T> {
    fn resize(&mut self, groups: usize) {
        self.values.resize_with(groups, Vec::new);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        let values = &mut self.values;
        T::each(args[0], rows, |i, x| values[groups[i] as usize].push(x));
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        let groups = std::mem::take(&mut self.values);
        let mut offsets = Vec::with_capacity(groups.len() + 1);
        offsets.push(0u32);
        let mut all = Vec::with_capacity(groups.iter().map(Vec::len).sum());
        for g in groups {
            all.extend(g);
            offsets.push(u32::try_from(all.len()).map_err(|_| {
                Error::out_of_range("a quantile's partial state exceeds 4 billion values")
            })?);
        }
        let child = T::vector(all);
        let ty = DataType::List(Box::new(child.ty.clone()));
        Ok(vec![Vector::new(
            ty,
            stride_common::VectorData::List(ListData {
                offsets,
                child: Box::new(child),
            }),
            Validity::all_valid(),
        )])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        let list = partial[0].list();
        let vals = T::read(&list.child);
        for (i, &g) in groups[..rows].iter().enumerate() {
            let j = partial[0].index(i);
            let (a, b) = (list.offsets[j] as usize, list.offsets[j + 1] as usize);
            self.values[g as usize].extend_from_slice(&vals[a..b]);
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let ty = if self.list {
            DataType::List(Box::new(self.output.clone()))
        } else {
            self.output.clone()
        };
        let mut groups = std::mem::take(&mut self.values);
        let mut out = Vector::with_capacity(&ty, groups.len());
        for g in &mut groups {
            out.push(&self.finish_group(g))?;
        }
        Ok(out)
    }
}
