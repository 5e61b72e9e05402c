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
//!   `ceil(p)` (0-based) with `p = q * (n - 1)`; integers and floats give DOUBLE
//!   (computed in floating point, as DuckDB does), DECIMAL stays DECIMAL (the
//!   interpolated value truncated toward zero to its scale), DATE gives TIMESTAMP,
//!   and TIMESTAMP, TIMESTAMPTZ and TIME stay as they are (the interpolated value
//!   rounded to the nearest microsecond, halves toward the upper rank's value);
//! - a negative `q` counts from the top (`-0.1` is the 10% quantile of the values in
//!   descending order); `|q|` must not exceed 1.
//!
//! The DECIMAL and temporal interpolations are exact: a `q` of at most 15 decimal
//! places is taken as that decimal (`0.1` is 1/10, not the binary
//! 0.1000000000000000055...), so `p` is an exact fraction and the value between the
//! two ranks is found in integer arithmetic before rounding. Floating point here put
//! some results one unit off (`quantile_cont` of -10.0, -9.0, -8.0, -7.0 at 0.1 gave
//! -9.6 for -9.7; the 0.7 quantile of two consecutive dates 16:47:59.999999 for
//! 16:48). Where DuckDB's own float rounding puts it off (the 0.29 quantile of 0.00,
//! 0.01, ..., 1.00 is 0.28 there), the exact value is the answer. Any other `q` (1/3
//! computed in floating point) is no exact fraction, and its interpolation runs in
//! floating point as DuckDB's does, so that 2 + 3 * (1/3) is 3.
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
        (Kind::Median | Kind::Disc, DataType::Varchar | DataType::Json | DataType::Blob) => {
            t.clone()
        }
        (_, DataType::Boolean | DataType::Varchar | DataType::List(_) | DataType::Interval) => {
            return None
        }
        // other strings (BIT) and nested values have no quantiles here
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
    if matches!(input, DataType::Varchar | DataType::Json | DataType::Blob) {
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
        if let DataType::Double | DataType::Real = self.output {
            let p = q * (n - 1) as f64;
            let (lo, hi) = (p.floor() as usize, p.ceil() as usize);
            let a = nth(v, lo, desc).to_f64();
            let b = if hi == lo {
                a
            } else {
                nth(v, hi, desc).to_f64()
            };
            let d = p - lo as f64;
            let x = if d == 0.0 { a } else { a + d * (b - a) };
            return typed(&self.output, 0, x);
        }
        // DECIMAL and temporal values
        let (lo, between) = Between::position(q, n);
        let a = nth(v, lo, desc).to_i128();
        let b = if between.is_zero() {
            a
        } else {
            nth(v, lo + 1, desc).to_i128()
        };
        match &self.output {
            DataType::Timestamp if self.input == DataType::Date => {
                let scale = MICROS_PER_DAY as i128;
                ScalarValue::Timestamp(between.round(a * scale, b * scale) as i64)
            }
            out @ (DataType::Timestamp | DataType::TimestampTz | DataType::Time) => {
                typed(out, between.round(a, b), 0.0)
            }
            out => typed(out, between.trunc(a, b), 0.0),
        }
    }

    fn disc_value(&self, x: T) -> ScalarValue {
        typed(&self.output, x.to_i128(), x.to_f64())
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

/// `|q|` as a fraction `num / den`, `den` a power of ten, when it is a decimal of at
/// most 15 places: every such decimal is the shortest that reads back as its double,
/// so this is the fraction written. `None` for others (1/3 computed in floating
/// point), whose last digits are noise.
fn decimal_fraction(q: f64) -> Option<(i128, i128)> {
    let text = q.abs().to_string(); // never in exponent form: "0.1", "1", "0.0000001"
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    if frac.len() > 15 {
        return None;
    }
    let num = format!("{int}{frac}").parse().ok()?;
    Some((num, 10i128.pow(frac.len() as u32)))
}

/// A fraction `num / den` with `0 <= num < den <= 10^15`.
#[derive(Clone, Copy, Debug)]
struct Fraction {
    num: i128,
    den: i128,
}

impl Fraction {
    /// `x * num / den` as its floor and the remainder over `den` (in `0..den`), exact
    /// and without overflow for any DECIMAL(38) `x`.
    fn times(self, x: i128) -> (i128, i128) {
        // x * num = (q * den + r) * num, with r * num < den² <= 10^30
        let (q, r) = (x.div_euclid(self.den), x.rem_euclid(self.den));
        let m = r * self.num;
        (
            q * self.num + m.div_euclid(self.den),
            m.rem_euclid(self.den),
        )
    }

    /// `a + (b - a) * num / den`, as `a * (1 - num / den) + b * num / den` (which
    /// cannot overflow), as its floor and the remainder over `den`.
    fn between(self, a: i128, b: i128) -> (i128, i128) {
        let rest_of_one = Fraction {
            num: self.den - self.num,
            den: self.den,
        };
        let ((fa, ra), (fb, rb)) = (rest_of_one.times(a), self.times(b));
        let carry = (ra + rb >= self.den) as i128;
        (fa + fb + carry, ra + rb - carry * self.den)
    }
}

/// How far a quantile falls from the value at its lower rank toward the next.
#[derive(Clone, Copy, Debug)]
enum Between {
    /// Exactly this far, for a `q` written as a decimal.
    Exact(Fraction),
    /// About this far, for any other `q` (computed in floating point, as DuckDB does).
    Float(f64),
}

impl Between {
    /// The lower rank (0-based) of quantile `q` (in 0..=1) of `n` values, and how far
    /// toward the next the quantile falls.
    fn position(q: f64, n: usize) -> (usize, Between) {
        match decimal_fraction(q) {
            Some((num, den)) => {
                let p = num * (n - 1) as i128;
                let frac = Fraction { num: p % den, den };
                ((p / den) as usize, Between::Exact(frac))
            }
            None => {
                let p = q * (n - 1) as f64;
                (p.floor() as usize, Between::Float(p - p.floor()))
            }
        }
    }

    fn is_zero(self) -> bool {
        match self {
            Between::Exact(f) => f.num == 0,
            Between::Float(d) => d == 0.0,
        }
    }

    /// The value between `a` and `b` as its floor and the remainder `rest / den`.
    fn split(self, a: i128, b: i128) -> (i128, i128, i128) {
        match self {
            Between::Exact(f) => {
                let (floor, rest) = f.between(a, b);
                (floor, rest, f.den)
            }
            Between::Float(d) => {
                const DEN: i128 = 1 << 52;
                let offset = d * (b - a) as f64;
                let rest = ((offset - offset.floor()) * DEN as f64) as i128;
                (a + offset.floor() as i128, rest, DEN)
            }
        }
    }

    /// The value between `a` and `b` truncated toward zero (as DuckDB does for
    /// DECIMAL).
    fn trunc(self, a: i128, b: i128) -> i128 {
        let (floor, rest, _) = self.split(a, b);
        floor + (rest != 0 && floor < 0) as i128
    }

    /// The value between `a` and `b` rounded to the nearest integer, halves toward
    /// `b` (as DuckDB does for timestamps, rounding the offset from `a` half away
    /// from zero).
    fn round(self, a: i128, b: i128) -> i128 {
        let (floor, rest, den) = self.split(a, b);
        let up = match (2 * rest).cmp(&den) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal => b > a,
            std::cmp::Ordering::Less => false,
        };
        floor + up as i128
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

#[cfg(test)]
mod tests {
    use super::{decimal_fraction, Between, Fraction};

    #[test]
    fn fractions_are_the_decimals_written() {
        assert_eq!(decimal_fraction(0.1), Some((1, 10)));
        assert_eq!(decimal_fraction(-0.29), Some((29, 100)));
        assert_eq!(decimal_fraction(1.0), Some((1, 1)));
        assert_eq!(decimal_fraction(0.0), Some((0, 1)));
        assert_eq!(
            decimal_fraction(0.123456789012345),
            Some((123456789012345, 10i128.pow(15)))
        );
        assert_eq!(decimal_fraction(1.0 / 3.0), None);
        assert_eq!(decimal_fraction(1.5e-20), None);
    }

    #[test]
    fn interpolation_is_exact() {
        let f = |num, den| Between::Exact(Fraction { num, den });
        // -100 + 10 * 3/10: exactly -97 (a float delta gave -96)
        assert_eq!(f(3, 10).trunc(-100, -90), -97);
        assert_eq!(Between::position(0.1, 4).0, 0);
        // truncation toward zero on both sides of zero
        assert_eq!(f(1, 2).trunc(-3, -2), -2);
        assert_eq!(f(1, 2).trunc(2, 3), 2);
        assert_eq!(f(3, 10).trunc(-1, 0), 0);
        assert_eq!(f(7, 10).trunc(0, 1), 0);
        // rounding to the nearest, halves toward b
        assert_eq!(f(7, 10).round(0, 86_400_000_000), 60_480_000_000);
        assert_eq!(f(1, 2).round(0, 3), 2);
        assert_eq!(f(1, 2).round(3, 0), 1);
        assert_eq!(f(1, 2).round(-3, 0), -1);
        assert_eq!(f(1, 2).round(0, -3), -2);
        assert_eq!(f(1, 4).round(1, 3), 2);
        assert_eq!(f(1, 4).round(3, 1), 2);
        // no overflow at the ends of DECIMAL(38)
        let max = 10i128.pow(38) - 1;
        assert_eq!(f(1, 2).trunc(-max, max), 0);
        assert_eq!(f(1, 10i128.pow(15)).trunc(max - 1, max), max - 1);
        let almost_one = f(10i128.pow(15) - 1, 10i128.pow(15));
        assert_eq!(almost_one.round(-max, max), max - 2 * 10i128.pow(23));
    }

    #[test]
    fn other_fractions_round_as_duckdb() {
        // 2 + 3 * (1/3 as a double) is 3 in floating point (and DuckDB), not 2.999...
        let (lo, between) = Between::position(1.0 / 3.0, 2);
        assert_eq!(lo, 0);
        assert_eq!(between.trunc(2, 5), 3);
        assert_eq!(between.trunc(-5, -2), -4);
        assert_eq!(Between::position(2.0 / 3.0, 2).1.trunc(2, 5), 4);
        assert_eq!(Between::position(2.0 / 3.0, 2).1.round(0, 2), 1);
    }
}
