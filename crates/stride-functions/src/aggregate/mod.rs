//! Aggregate functions. The binder resolves a call with [`resolve_aggregate`]; the
//! aggregate operator creates one [`GroupedState`] per aggregate per hash table and
//! feeds it column vectors together with the group id of every row.
//!
//! Parallel aggregation merges thread-local tables through *partial states*: a state
//! exports itself as ordinary vectors ([`GroupedState::partial`]) and another state of
//! the same function absorbs them ([`GroupedState::merge`]). So the merge needs no
//! downcasting and partial states can travel through partitions like any chunk.
//!
//! Invariants: `update` and `merge` receive flat or constant vectors of `rows` rows,
//! already cast to the bound argument types, with group ids below the last `resize`.
//! NULL arguments are skipped (except by count(*) and first).

mod approx_distinct;
pub mod arg_min_max;
mod avg;
mod avg_interval;
pub mod bit_agg;
mod bool_agg;
mod count;
pub mod covariance;
mod few_sums;
mod first;
pub mod histogram_bins;
mod kahan;
mod list;
mod min_max;
mod mode;
pub mod moments;
pub mod product;
pub mod quantile;
mod quantile_text;
mod string_agg;
mod sum;
pub mod top_n;
mod variance;

use covariance::Output as Cov;
use few_sums::add_to_few_sums;
pub(crate) use few_sums::FEW_GROUPS;
use stride_common::vector::NativeType;
use stride_common::{DataType, Error, Result, Vector};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AggregateFunction {
    CountStar,
    Count,
    Sum,
    Avg,
    Min,
    Max,
    BoolAnd,
    BoolOr,
    ArgMin,
    ArgMax,
    /// arg_min_null, arg_min_nulls_last, and the arg_max forms (`true`)
    ArgNulls(bool, arg_min_max::Nulls),
    StringAgg,
    List,
    First,
    Last,
    AnyValue,
    VarSamp,
    VarPop,
    StddevSamp,
    StddevPop,
    Sem,
    /// sum_no_overflow: sum of integers (DuckDB's internal form of sum)
    SumNoOverflow,
    /// avg from its parts, `(sum, count)` columns of an earlier aggregation (a ROLLUP
    /// computing coarser grouping sets from the finest one's results); never named
    /// in SQL.
    AvgOfParts,
    Covariance(covariance::Output),
    Moments(moments::Output),
    Mode,
    /// histogram(x): each distinct value's count, as a MAP ordered by value
    /// (histogram(x, bins) binds to `HistogramBins(false)`)
    Histogram,
    /// histogram(x, bins) (`false`) and histogram_exact(x, bins) (`true`): counts
    /// per bin of a constant list
    HistogramBins(bool),
    Entropy,
    CountIf,
    BitAgg(bit_agg::Op),
    /// bitstring_agg(x, min, max): which values of a range occur, as a BIT
    BitstringAgg,
    Product(product::Output),
    /// fsum, sumkahan, kahan_sum
    KahanSum,
    /// favg
    KahanAvg,
    ApproxCountDistinct,
    /// approx_top_k(x, k): the k most frequent values
    ApproxTopK,
    Quantile(quantile::Kind),
    /// `max(x, n)`, `min(x, n)`, `arg_max(a, v, n)`, `arg_min(a, v, n)`: a list of
    /// the n best; `true` for the largest.
    TopN(bool),
}

#[derive(Debug, Clone, PartialEq)]
pub struct BoundAggregate {
    pub func: AggregateFunction,
    /// Types the caller casts each argument to.
    pub arg_types: Vec<DataType>,
    pub return_type: DataType,
    /// The value of each argument that is a constant (a quantile's fraction), for the
    /// states that take one as a parameter; empty or `None` where not known.
    pub constants: Vec<Option<stride_common::ScalarValue>>,
}

const NAMES: &[(&str, AggregateFunction)] = &[
    ("count", AggregateFunction::Count),
    ("sum", AggregateFunction::Sum),
    ("avg", AggregateFunction::Avg),
    ("mean", AggregateFunction::Avg),
    ("min", AggregateFunction::Min),
    ("max", AggregateFunction::Max),
    ("bool_and", AggregateFunction::BoolAnd),
    ("every", AggregateFunction::BoolAnd),
    ("bool_or", AggregateFunction::BoolOr),
    ("arg_min", AggregateFunction::ArgMin),
    ("argmin", AggregateFunction::ArgMin),
    ("min_by", AggregateFunction::ArgMin),
    ("arg_max", AggregateFunction::ArgMax),
    ("argmax", AggregateFunction::ArgMax),
    ("max_by", AggregateFunction::ArgMax),
    (
        "arg_min_null",
        AggregateFunction::ArgNulls(false, arg_min_max::Nulls::KeepArg),
    ),
    (
        "arg_max_null",
        AggregateFunction::ArgNulls(true, arg_min_max::Nulls::KeepArg),
    ),
    (
        "arg_min_nulls_last",
        AggregateFunction::ArgNulls(false, arg_min_max::Nulls::Last),
    ),
    (
        "arg_max_nulls_last",
        AggregateFunction::ArgNulls(true, arg_min_max::Nulls::Last),
    ),
    ("count_star", AggregateFunction::CountStar),
    ("last", AggregateFunction::Last),
    ("sem", AggregateFunction::Sem),
    ("sum_no_overflow", AggregateFunction::SumNoOverflow),
    ("string_agg", AggregateFunction::StringAgg),
    ("group_concat", AggregateFunction::StringAgg),
    ("listagg", AggregateFunction::StringAgg),
    ("list", AggregateFunction::List),
    ("array_agg", AggregateFunction::List),
    ("first", AggregateFunction::First),
    ("arbitrary", AggregateFunction::First),
    ("any_value", AggregateFunction::AnyValue),
    ("var_samp", AggregateFunction::VarSamp),
    ("variance", AggregateFunction::VarSamp),
    ("var_pop", AggregateFunction::VarPop),
    ("stddev_samp", AggregateFunction::StddevSamp),
    ("stddev", AggregateFunction::StddevSamp),
    ("stddev_pop", AggregateFunction::StddevPop),
    ("covar_pop", AggregateFunction::Covariance(Cov::CovarPop)),
    ("covar_samp", AggregateFunction::Covariance(Cov::CovarSamp)),
    ("corr", AggregateFunction::Covariance(Cov::Corr)),
    ("regr_count", AggregateFunction::Covariance(Cov::RegrCount)),
    ("regr_avgx", AggregateFunction::Covariance(Cov::RegrAvgX)),
    ("regr_avgy", AggregateFunction::Covariance(Cov::RegrAvgY)),
    ("regr_sxx", AggregateFunction::Covariance(Cov::RegrSxx)),
    ("regr_syy", AggregateFunction::Covariance(Cov::RegrSyy)),
    ("regr_sxy", AggregateFunction::Covariance(Cov::RegrSxy)),
    ("regr_slope", AggregateFunction::Covariance(Cov::RegrSlope)),
    (
        "regr_intercept",
        AggregateFunction::Covariance(Cov::RegrIntercept),
    ),
    ("regr_r2", AggregateFunction::Covariance(Cov::RegrR2)),
    (
        "skewness",
        AggregateFunction::Moments(moments::Output::Skewness),
    ),
    (
        "kurtosis",
        AggregateFunction::Moments(moments::Output::Kurtosis),
    ),
    (
        "kurtosis_pop",
        AggregateFunction::Moments(moments::Output::KurtosisPop),
    ),
    ("mode", AggregateFunction::Mode),
    ("histogram", AggregateFunction::Histogram),
    ("histogram_exact", AggregateFunction::HistogramBins(true)),
    ("entropy", AggregateFunction::Entropy),
    ("count_if", AggregateFunction::CountIf),
    ("countif", AggregateFunction::CountIf),
    ("bit_and", AggregateFunction::BitAgg(bit_agg::Op::And)),
    ("bit_or", AggregateFunction::BitAgg(bit_agg::Op::Or)),
    ("bit_xor", AggregateFunction::BitAgg(bit_agg::Op::Xor)),
    ("bitstring_agg", AggregateFunction::BitstringAgg),
    (
        "product",
        AggregateFunction::Product(product::Output::Product),
    ),
    (
        "geomean",
        AggregateFunction::Product(product::Output::GeoMean),
    ),
    (
        "geometric_mean",
        AggregateFunction::Product(product::Output::GeoMean),
    ),
    ("fsum", AggregateFunction::KahanSum),
    ("sumkahan", AggregateFunction::KahanSum),
    ("kahan_sum", AggregateFunction::KahanSum),
    ("favg", AggregateFunction::KahanAvg),
    (
        "approx_count_distinct",
        AggregateFunction::ApproxCountDistinct,
    ),
    ("approx_top_k", AggregateFunction::ApproxTopK),
    (
        "median",
        AggregateFunction::Quantile(quantile::Kind::Median),
    ),
    (
        "quantile_cont",
        AggregateFunction::Quantile(quantile::Kind::Cont),
    ),
    (
        "quantile_disc",
        AggregateFunction::Quantile(quantile::Kind::Disc),
    ),
    (
        "quantile",
        AggregateFunction::Quantile(quantile::Kind::Disc),
    ),
    (
        "approx_quantile",
        AggregateFunction::Quantile(quantile::Kind::Disc),
    ),
    (
        "reservoir_quantile",
        AggregateFunction::Quantile(quantile::Kind::Disc),
    ),
    ("mad", AggregateFunction::Quantile(quantile::Kind::Mad)),
];

impl AggregateFunction {
    pub fn name(self) -> &'static str {
        match self {
            AggregateFunction::CountStar => "count_star",
            AggregateFunction::AvgOfParts => "avg",
            AggregateFunction::TopN(true) => "max",
            AggregateFunction::TopN(false) => "min",
            other => NAMES
                .iter()
                .find(|(_, f)| *f == other)
                .map(|(n, _)| *n)
                .unwrap_or("?"),
        }
    }
}

pub fn is_aggregate_name(name: &str) -> bool {
    NAMES.iter().any(|(n, _)| *n == name)
}

pub fn aggregate_names() -> impl Iterator<Item = &'static str> {
    NAMES.iter().map(|(n, _)| *n)
}

fn mismatch(name: &str, args: &[DataType]) -> Error {
    let list = args
        .iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    Error::binder(format!(
        "No function matches the given name and argument types '{name}({list})'. You might need to add explicit type casts."
    ))
}

/// Resolves `name(args)`; `Ok(None)` when `name` is not an aggregate. `count()` with no
/// arguments is count(*).
/// Whether an aggregate computed in DOUBLE (variance, product, fsum) takes values of
/// this type: every number, UHUGEINT included, and untyped NULL.
fn averages(t: &DataType) -> bool {
    t.is_numeric() || matches!(t, DataType::Null | DataType::UHugeInt)
}

pub fn resolve_aggregate(name: &str, args: &[DataType]) -> Result<Option<BoundAggregate>> {
    use AggregateFunction as F;
    let Some(&(_, func)) = NAMES.iter().find(|(n, _)| *n == name) else {
        return Ok(None);
    };
    let bound = |func, arg_types: Vec<DataType>, return_type| {
        Ok(Some(BoundAggregate {
            func,
            arg_types,
            return_type,
            constants: Vec::new(),
        }))
    };
    use quantile::Kind as Q;
    let arity_ok = match func {
        F::Count => args.len() <= 1,
        F::CountStar => args.is_empty(),
        F::ArgNulls(..) | F::ApproxTopK => args.len() == 2,
        F::BitstringAgg => args.len() == 1 || args.len() == 3,
        F::Min | F::Max => args.len() == 1 || args.len() == 2,
        F::ArgMin | F::ArgMax => args.len() == 2 || args.len() == 3,
        F::Covariance(_) => args.len() == 2,
        F::Quantile(Q::Cont | Q::Disc) => args.len() == 2,
        F::StringAgg => args.len() == 1 || args.len() == 2,
        F::Histogram => args.len() == 1 || args.len() == 2,
        F::HistogramBins(_) => args.len() == 2,
        _ => args.len() == 1,
    };
    if !arity_ok {
        return Err(mismatch(name, args));
    }
    let t = args.first().cloned().unwrap_or(DataType::Null);
    match func {
        F::Count | F::CountStar if args.is_empty() => bound(F::CountStar, vec![], DataType::BigInt),
        F::Count => bound(F::Count, vec![t], DataType::BigInt),
        // Only the planner builds it, from the parts it computes.
        F::AvgOfParts => Err(mismatch(name, args)),
        F::Sum => match &t {
            // As DuckDB: the sum of any integers is a HUGEINT.
            DataType::Null => bound(F::Sum, vec![DataType::Integer], DataType::HugeInt),
            t if t.is_integer() => bound(F::Sum, vec![t.clone()], DataType::HugeInt),
            DataType::Decimal(_, s) => bound(F::Sum, vec![t.clone()], DataType::Decimal(38, *s)),
            // a UHUGEINT sum is a DOUBLE, as in DuckDB
            DataType::Real | DataType::Double | DataType::UHugeInt => {
                bound(F::Sum, vec![DataType::Double], DataType::Double)
            }
            DataType::Interval => Err(Error::not_supported("sum(INTERVAL) is not supported yet")),
            // the number of TRUE values, as in DuckDB
            DataType::Boolean => bound(F::Sum, vec![DataType::Integer], DataType::HugeInt),
            _ => Err(mismatch(name, args)),
        },
        F::Avg => match &t {
            DataType::Null => bound(F::Avg, vec![DataType::Integer], DataType::Double),
            t if t.is_integer() || matches!(t, DataType::Decimal(..)) => {
                bound(F::Avg, vec![t.clone()], DataType::Double)
            }
            DataType::Real | DataType::Double | DataType::UHugeInt => {
                bound(F::Avg, vec![DataType::Double], DataType::Double)
            }
            DataType::Interval => bound(F::Avg, vec![DataType::Interval], DataType::Interval),
            t => match avg::temporal_result(t) {
                Some(out) => bound(F::Avg, vec![t.clone()], out),
                None => Err(mismatch(name, args)),
            },
        },
        F::Min | F::Max | F::ArgMin | F::ArgMax if args.len() == 1 + arity_of_values(func) => {
            let n = &args[args.len() - 1];
            if !n.is_integer() && *n != DataType::Null {
                return Err(mismatch(name, args));
            }
            let mut types: Vec<DataType> = args[..args.len() - 1]
                .iter()
                .map(|t| {
                    if *t == DataType::Null {
                        DataType::Integer
                    } else {
                        t.clone()
                    }
                })
                .collect();
            let elem = types[0].clone();
            types.push(DataType::BigInt);
            bound(
                F::TopN(matches!(func, F::Max | F::ArgMax)),
                types,
                DataType::List(Box::new(elem)),
            )
        }
        F::SumNoOverflow => match &t {
            DataType::Null => bound(F::Sum, vec![DataType::Integer], DataType::BigInt),
            DataType::TinyInt | DataType::SmallInt | DataType::Integer => {
                bound(F::Sum, vec![t.clone()], DataType::BigInt)
            }
            DataType::BigInt => bound(F::Sum, vec![t.clone()], DataType::Decimal(38, 0)),
            DataType::Decimal(_, s) => bound(F::Sum, vec![t.clone()], DataType::Decimal(38, *s)),
            _ => Err(mismatch(name, args)),
        },
        F::BitstringAgg if args.len() == 1 => Err(Error::not_supported(
            "bitstring_agg without its range is not supported yet: give it as bitstring_agg(x, min, max)",
        )),
        F::BitstringAgg => match &t {
            t if t.is_integer() && args[1..].iter().all(|a| a.can_implicitly_cast_to(&DataType::HugeInt) || *a == DataType::Null) => {
                bound(func, vec![t.clone(), t.clone(), t.clone()], DataType::Bit)
            }
            _ => Err(mismatch(name, args)),
        },
        F::ApproxTopK => {
            let t = if t == DataType::Null {
                DataType::Integer
            } else {
                t
            };
            if !args[1].can_implicitly_cast_to(&DataType::BigInt) {
                return Err(mismatch(name, args));
            }
            bound(
                func,
                vec![t.clone(), DataType::BigInt],
                DataType::List(Box::new(t)),
            )
        }
        F::ArgNulls(..) => {
            let a = if args[0] == DataType::Null {
                DataType::Integer
            } else {
                args[0].clone()
            };
            let v = if args[1] == DataType::Null {
                DataType::Integer
            } else {
                args[1].clone()
            };
            if v.is_nested() {
                return Err(mismatch(name, args));
            }
            bound(func, vec![a.clone(), v], a)
        }
        F::Min | F::Max | F::First | F::Last | F::AnyValue => {
            let t = if t == DataType::Null {
                DataType::Integer
            } else {
                t
            };
            bound(func, vec![t.clone()], t)
        }
        F::BoolAnd | F::BoolOr => match &t {
            DataType::Boolean | DataType::Null => {
                bound(func, vec![DataType::Boolean], DataType::Boolean)
            }
            _ => Err(mismatch(name, args)),
        },
        F::ArgMin | F::ArgMax => {
            let a = if args[0] == DataType::Null {
                DataType::Integer
            } else {
                args[0].clone()
            };
            let v = if args[1] == DataType::Null {
                DataType::Integer
            } else {
                args[1].clone()
            };
            if v.is_nested() {
                return Err(mismatch(name, args));
            }
            bound(func, vec![a.clone(), v], a)
        }
        F::StringAgg => {
            let ok = |t: &DataType| !t.is_nested();
            if !args.iter().all(ok) {
                return Err(mismatch(name, args));
            }
            let mut types = vec![DataType::Varchar];
            if args.len() == 2 {
                types.push(DataType::Varchar);
            }
            bound(F::StringAgg, types, DataType::Varchar)
        }
        F::List => {
            let t = if t == DataType::Null {
                DataType::Integer
            } else {
                t
            };
            bound(F::List, vec![t.clone()], DataType::List(Box::new(t)))
        }
        F::VarSamp | F::VarPop | F::StddevSamp | F::StddevPop | F::Sem | F::Moments(_) => {
            if averages(&t) {
                bound(func, vec![DataType::Double], DataType::Double)
            } else {
                Err(mismatch(name, args))
            }
        }
        F::Covariance(out) => {
            if !args.iter().all(averages) {
                return Err(mismatch(name, args));
            }
            let ret = if out == Cov::RegrCount {
                DataType::BigInt
            } else {
                DataType::Double
            };
            bound(func, vec![DataType::Double, DataType::Double], ret)
        }
        F::Mode => {
            let t = if t == DataType::Null {
                DataType::Integer
            } else {
                t
            };
            bound(func, vec![t.clone()], t)
        }
        F::Histogram if args.len() == 2 => {
            resolve_aggregate("histogram_exact", args).map(|b| {
                b.map(|b| BoundAggregate {
                    func: F::HistogramBins(false),
                    ..b
                })
            })
        }
        F::Histogram => {
            let t = if t == DataType::Null {
                DataType::Integer
            } else {
                t
            };
            let ret = DataType::Map(Box::new(t.clone()), Box::new(DataType::UBigInt));
            bound(func, vec![t], ret)
        }
        // values and bins meet at their common type; decimals count as DOUBLE (DuckDB)
        F::HistogramBins(_) => {
            let Some(DataType::List(bin)) = args.get(1) else {
                return Err(mismatch(name, args));
            };
            let t = match DataType::common_supertype(&t, bin) {
                Some(DataType::Null) => DataType::Integer,
                Some(DataType::Decimal(..)) => DataType::Double,
                Some(t) if histogram_bins::other_bin(&t).is_some() => t,
                _ => return Err(mismatch(name, args)),
            };
            let ret = DataType::Map(Box::new(t.clone()), Box::new(DataType::UBigInt));
            bound(func, vec![t.clone(), DataType::List(Box::new(t))], ret)
        }
        F::Entropy => {
            let t = if t == DataType::Null {
                DataType::Integer
            } else {
                t
            };
            bound(func, vec![t], DataType::Double)
        }
        F::CountIf => match &t {
            DataType::Boolean | DataType::Null => {
                bound(func, vec![DataType::Boolean], DataType::HugeInt)
            }
            _ => Err(mismatch(name, args)),
        },
        F::BitAgg(_) => match &t {
            DataType::Null => bound(func, vec![DataType::Integer], DataType::Integer),
            t if t.is_integer() || *t == DataType::Bit => bound(func, vec![t.clone()], t.clone()),
            _ => Err(mismatch(name, args)),
        },
        F::Product(_) | F::KahanSum | F::KahanAvg => {
            if averages(&t) {
                bound(func, vec![DataType::Double], DataType::Double)
            } else {
                Err(mismatch(name, args))
            }
        }
        F::ApproxCountDistinct => {
            let t = if t == DataType::Null {
                DataType::Integer
            } else {
                t
            };
            bound(func, vec![t], DataType::BigInt)
        }
        F::Quantile(kind) => {
            let t = match t {
                DataType::Null => DataType::Integer,
                // interpolated in DOUBLE, as DuckDB does
                DataType::UHugeInt if kind != Q::Disc => DataType::Double,
                t => t,
            };
            let Some(ret) = quantile::result_type(kind, &t) else {
                return Err(mismatch(name, args));
            };
            match args.get(1) {
                None => bound(func, vec![t], ret),
                Some(DataType::List(_)) => bound(
                    func,
                    vec![t, DataType::List(Box::new(DataType::Double))],
                    DataType::List(Box::new(ret)),
                ),
                Some(q) if q.is_numeric() || *q == DataType::Null => {
                    bound(func, vec![t, DataType::Double], ret)
                }
                Some(_) => Err(mismatch(name, args)),
            }
        }
        F::TopN(_) | F::CountStar => Err(mismatch(name, args)),
    }
}

/// The `k` of approx_top_k(x, k), checked as DuckDB does.
pub fn approx_top_k_count(k: &stride_common::ScalarValue) -> Result<usize> {
    match k.as_i64() {
        _ if k.is_null() => Err(Error::invalid_input(
            "Invalid input for approx_top_k: k value cannot be NULL",
        )),
        Some(k) if k <= 0 => Err(Error::invalid_input(
            "Invalid input for approx_top_k: k value must be > 0",
        )),
        Some(k) if k >= 1_000_000 => Err(Error::invalid_input(
            "Invalid input for approx_top_k: k value must be < 1000000",
        )),
        Some(k) => Ok(k as usize),
        None => Err(Error::invalid_input(
            "Invalid input for approx_top_k: k value must be an integer",
        )),
    }
}

/// How many value arguments an aggregate with an `n` form takes before `n`.
fn arity_of_values(func: AggregateFunction) -> usize {
    match func {
        AggregateFunction::ArgMin | AggregateFunction::ArgMax => 2,
        _ => 1,
    }
}

/// The per-group state of one aggregate in one hash table.
pub trait GroupedState: Send + Sync {
    /// Makes room for group ids below `groups`.
    fn resize(&mut self, groups: usize);
    /// Folds `rows` input rows into the groups named by `groups`.
    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()>;
    /// The state of every group as vectors (one row per group), for merging elsewhere.
    fn partial(&mut self) -> Result<Vec<Vector>>;
    /// Folds partial states (as produced by `partial`) into the groups named by `groups`.
    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()>;
    /// The final value of every group.
    fn finalize(&mut self) -> Result<Vector>;
}

/// The state of an aggregate whose parameters were refused: every use is the error.
struct Failed(Error);

impl GroupedState for Failed {
    fn resize(&mut self, _: usize) {}
    fn update(&mut self, _: &[u32], _: &[&Vector], _: usize) -> Result<()> {
        Err(self.0.clone())
    }
    fn partial(&mut self) -> Result<Vec<Vector>> {
        Err(self.0.clone())
    }
    fn merge(&mut self, _: &[u32], _: &[Vector], _: usize) -> Result<()> {
        Err(self.0.clone())
    }
    fn finalize(&mut self) -> Result<Vector> {
        Err(self.0.clone())
    }
}

/// A fresh, empty state for a bound aggregate.
pub fn new_state(agg: &BoundAggregate) -> Box<dyn GroupedState> {
    use AggregateFunction as F;
    let arg = agg.arg_types.first().cloned().unwrap_or(DataType::BigInt);
    match agg.func {
        F::CountStar => Box::new(count::Count::new(true)),
        F::Count => Box::new(count::Count::new(false)),
        F::Sum => sum::new(&arg, &agg.return_type),
        F::Avg => avg::new(&arg),
        F::AvgOfParts => avg::from_parts(&arg),
        F::Min => min_max::new(&arg, false),
        F::Max => min_max::new(&arg, true),
        F::BoolAnd => Box::new(bool_agg::BoolAgg::new(true)),
        F::BoolOr => Box::new(bool_agg::BoolAgg::new(false)),
        F::ArgMin => Box::new(arg_min_max::ArgMinMax::new(
            &agg.arg_types,
            false,
            arg_min_max::Nulls::Skip,
        )),
        F::ArgMax => Box::new(arg_min_max::ArgMinMax::new(
            &agg.arg_types,
            true,
            arg_min_max::Nulls::Skip,
        )),
        F::ArgNulls(is_max, nulls) => {
            Box::new(arg_min_max::ArgMinMax::new(&agg.arg_types, is_max, nulls))
        }
        F::Last => Box::new(first::First::last(&arg)),
        F::Sem => Box::new(variance::Variance::new(variance::Output::Sem)),
        F::SumNoOverflow => sum::new(&arg, &agg.return_type),
        F::StringAgg => Box::new(string_agg::StringAgg::default()),
        F::List => Box::new(list::ListAgg::new(&arg)),
        F::First => Box::new(first::First::new(&arg, false)),
        F::AnyValue => Box::new(first::First::new(&arg, true)),
        F::VarSamp => Box::new(variance::Variance::new(variance::Output::VarSamp)),
        F::VarPop => Box::new(variance::Variance::new(variance::Output::VarPop)),
        F::StddevSamp => Box::new(variance::Variance::new(variance::Output::StddevSamp)),
        F::StddevPop => Box::new(variance::Variance::new(variance::Output::StddevPop)),
        F::Covariance(out) => Box::new(covariance::Covariance::new(out)),
        F::Moments(out) => Box::new(moments::Moments::new(out)),
        F::Mode => Box::new(mode::ValueCounts::new(mode::Output::Mode, &arg)),
        F::Histogram => Box::new(mode::ValueCounts::new(mode::Output::Histogram, &arg)),
        F::HistogramBins(exact) => match histogram_bins::HistogramBins::new(
            exact,
            &arg,
            agg.constants.get(1).and_then(Option::as_ref),
        ) {
            Ok(state) => Box::new(state),
            Err(e) => Box::new(Failed(e)),
        },
        F::Entropy => Box::new(mode::ValueCounts::new(mode::Output::Entropy, &arg)),
        F::ApproxTopK => {
            let k = agg
                .constants
                .get(1)
                .and_then(Option::as_ref)
                .and_then(|v| approx_top_k_count(v).ok())
                .unwrap_or(1);
            Box::new(mode::ValueCounts::new(mode::Output::TopK(k), &arg))
        }
        F::CountIf => Box::<count::CountIf>::default(),
        F::BitAgg(op) => bit_agg::new(op, &arg),
        F::BitstringAgg => match bit_agg::BitstringAgg::new(
            agg.constants.get(1).and_then(Option::as_ref),
            agg.constants.get(2).and_then(Option::as_ref),
        ) {
            Ok(state) => Box::new(state),
            Err(e) => Box::new(Failed(e)),
        },
        F::Product(out) => Box::new(product::Product::new(out)),
        F::KahanSum => Box::new(kahan::KahanSum::new(false)),
        F::KahanAvg => Box::new(kahan::KahanSum::new(true)),
        F::ApproxCountDistinct => Box::<approx_distinct::ApproxDistinct>::default(),
        F::Quantile(kind) => {
            quantile::new(kind, &arg, agg.constants.get(1).and_then(Option::as_ref))
        }
        F::TopN(largest) => Box::new(top_n::TopN::new(
            largest,
            &agg.arg_types,
            agg.constants.last().and_then(Option::as_ref),
        )),
    }
}

/// Calls `f(row, value)` for every non-NULL row of an integer-like vector (integers
/// and decimals), widening to i128.
pub(crate) fn for_each_i128(v: &Vector, rows: usize, mut f: impl FnMut(usize, i128)) {
    use stride_common::vector::NativeType;
    fn run<T: NativeType + Into<i128>>(v: &Vector, rows: usize, f: &mut impl FnMut(usize, i128)) {
        let vals = v.values::<T>();
        if v.constant {
            if v.validity.is_valid(0) {
                (0..rows).for_each(|i| f(i, vals[0].into()));
            }
        } else if !v.validity.has_nulls() {
            vals[..rows]
                .iter()
                .enumerate()
                .for_each(|(i, x)| f(i, (*x).into()));
        } else {
            (0..rows)
                .filter(|&i| v.validity.is_valid(i))
                .for_each(|i| f(i, vals[i].into()));
        }
    }
    match v.data.physical() {
        stride_common::PhysicalType::I8 => run::<i8>(v, rows, &mut f),
        stride_common::PhysicalType::I16 => run::<i16>(v, rows, &mut f),
        stride_common::PhysicalType::I32 => run::<i32>(v, rows, &mut f),
        stride_common::PhysicalType::I64 => run::<i64>(v, rows, &mut f),
        stride_common::PhysicalType::I128 => run::<i128>(v, rows, &mut f),
        other => panic!("internal: integer aggregate over {other:?}"),
    }
}

/// Adds every non-NULL row of an integer-like vector (integers and decimals) to its
/// group's sum, and calls `counted(group, rows)` with how many rows each group got.
/// Returns false when a sum overflowed, which only i128 (DECIMAL(38)) inputs can make
/// happen: fewer than 2^63 values of at most 64 bits sum to less than 2^127, so
/// narrower inputs add without a check.
pub(crate) fn add_to_sums(
    v: &Vector,
    rows: usize,
    groups: &[u32],
    sums: &mut [i128],
    mut counted: impl FnMut(usize, i64),
) -> bool {
    if sums.len() <= FEW_GROUPS {
        return add_to_few_sums(v, rows, groups, sums, counted);
    }
    if v.data.physical() == stride_common::PhysicalType::I128 {
        let mut ok = true;
        for_each_i128(v, rows, |i, x| {
            let g = groups[i] as usize;
            match sums[g].checked_add(x) {
                Some(s) => sums[g] = s,
                None => ok = false,
            }
            counted(g, 1);
        });
        return ok;
    }
    for_each_i128(v, rows, |i, x| {
        let g = groups[i] as usize;
        sums[g] = sums[g].wrapping_add(x);
        counted(g, 1);
    });
    true
}

/// Calls `f(row, value)` for every non-NULL row of a DOUBLE vector.
pub(crate) fn for_each_f64(v: &Vector, rows: usize, mut f: impl FnMut(usize, f64)) {
    let vals = v.values::<f64>();
    if v.constant {
        if v.validity.is_valid(0) {
            (0..rows).for_each(|i| f(i, vals[0]));
        }
    } else if !v.validity.has_nulls() {
        vals[..rows].iter().enumerate().for_each(|(i, x)| f(i, *x));
    } else {
        (0..rows)
            .filter(|&i| v.validity.is_valid(i))
            .for_each(|i| f(i, vals[i]));
    }
}

/// A DOUBLE vector of per-group results, NULL where a result is `None`.
pub(crate) fn nullable_doubles(vals: &[Option<f64>]) -> Vector {
    let values: Vec<f64> = vals.iter().map(|v| v.unwrap_or(0.0)).collect();
    let validity = stride_common::Validity::from_fn(vals.len(), |g| vals[g].is_some());
    Vector::new(DataType::Double, f64::wrap(values), validity)
}

/// A vector of `values` with NULL where `seen` is false.
pub(crate) fn vector_with_seen<T: stride_common::vector::NativeType>(
    ty: DataType,
    values: Vec<T>,
    seen: &[bool],
) -> Vector {
    let validity = stride_common::Validity::from_fn(values.len(), |i| seen[i]);
    Vector::new(ty, T::wrap(values), validity)
}

#[cfg(test)]
mod tests {
    use super::*;
    use stride_common::ScalarValue;

    fn run(
        name: &str,
        ty: DataType,
        values: Vec<ScalarValue>,
        groups: Vec<u32>,
        ngroups: usize,
    ) -> Vec<ScalarValue> {
        let agg = resolve_aggregate(name, std::slice::from_ref(&ty))
            .unwrap()
            .unwrap();
        let mut v = Vector::empty(&ty);
        for x in &values {
            v.push(x).unwrap();
        }
        // update half in one state, half in another, then merge: exercises partials
        let half = values.len() / 2;
        let mut a = new_state(&agg);
        let mut b = new_state(&agg);
        a.resize(ngroups);
        b.resize(ngroups);
        a.update(&groups[..half], &[&v.slice(0, half)], half)
            .unwrap();
        b.update(
            &groups[half..],
            &[&v.slice(half, values.len() - half)],
            values.len() - half,
        )
        .unwrap();
        let p = b.partial().unwrap();
        let ids: Vec<u32> = (0..ngroups as u32).collect();
        a.merge(&ids, &p, ngroups).unwrap();
        let out = a.finalize().unwrap();
        (0..ngroups).map(|i| out.get(i)).collect()
    }

    #[test]
    fn sums_counts_minmax() {
        use ScalarValue::*;
        let vals = vec![
            Integer(1),
            Integer(2),
            Null,
            Integer(4),
            Integer(5),
            Integer(6),
        ];
        let groups = vec![0, 1, 0, 1, 0, 2];
        assert_eq!(
            run("sum", DataType::Integer, vals.clone(), groups.clone(), 3),
            vec![HugeInt(6), HugeInt(6), HugeInt(6)]
        );
        assert_eq!(
            run("count", DataType::Integer, vals.clone(), groups.clone(), 3),
            vec![BigInt(2), BigInt(2), BigInt(1)]
        );
        assert_eq!(
            run("min", DataType::Integer, vals.clone(), groups.clone(), 3),
            vec![Integer(1), Integer(2), Integer(6)]
        );
        assert_eq!(
            run("max", DataType::Integer, vals.clone(), groups.clone(), 4)[3],
            Null
        );
        assert_eq!(
            run("avg", DataType::Integer, vals, groups, 3),
            vec![Double(3.0), Double(3.0), Double(6.0)]
        );
        let d = vec![Decimal(150, 15, 2), Decimal(275, 15, 2)];
        assert_eq!(
            run("sum", DataType::Decimal(15, 2), d, vec![0, 0], 1),
            vec![Decimal(425, 38, 2)]
        );
    }

    /// An update with no rows leaves a group without values: its sum stays NULL.
    #[test]
    fn sum_of_no_rows_is_null() {
        let agg = resolve_aggregate("sum", &[DataType::Integer])
            .unwrap()
            .unwrap();
        let mut s = new_state(&agg);
        s.resize(1);
        let empty = Vector::from_values(DataType::Integer, Vec::<i32>::new());
        s.update(&[], &[&empty], 0).unwrap();
        assert_eq!(s.finalize().unwrap().get(0), ScalarValue::Null);
    }

    /// Few groups (the per-lane path), one group (register sums) and many groups all
    /// agree with sums computed one row at a time, with NULLs and odd lengths.
    #[test]
    fn sums_over_few_one_and_many_groups() {
        use ScalarValue::*;
        for (rows, ngroups) in [(1, 1), (7, 1), (2051, 1), (13, 3), (2049, 8), (999, 9)] {
            for nulls in [false, true] {
                let value = |i: usize| (i as i64 * 7919) % 1000 - 400;
                let vals: Vec<ScalarValue> = (0..rows)
                    .map(|i| {
                        if nulls && i % 5 == 2 {
                            Null
                        } else {
                            BigInt(value(i))
                        }
                    })
                    .collect();
                let groups: Vec<u32> = (0..rows).map(|i| ((i / 3) % ngroups) as u32).collect();
                let mut sums = vec![0i64; ngroups];
                let mut counts = vec![0i64; ngroups];
                for (i, v) in vals.iter().enumerate() {
                    if let BigInt(x) = v {
                        sums[groups[i] as usize] += x;
                        counts[groups[i] as usize] += 1;
                    }
                }
                let want: Vec<ScalarValue> = (0..ngroups)
                    .map(|g| {
                        if counts[g] == 0 {
                            Null
                        } else {
                            HugeInt(sums[g] as i128)
                        }
                    })
                    .collect();
                let got = run(
                    "sum",
                    DataType::BigInt,
                    vals.clone(),
                    groups.clone(),
                    ngroups,
                );
                let got: Vec<ScalarValue> = got
                    .into_iter()
                    .map(|v| match v {
                        BigInt(x) => HugeInt(x as i128),
                        v => v,
                    })
                    .collect();
                assert_eq!(got, want, "{rows} rows, {ngroups} groups, nulls {nulls}");
                let avg = run("avg", DataType::BigInt, vals, groups, ngroups);
                for g in 0..ngroups {
                    if counts[g] > 0 {
                        assert_eq!(avg[g], Double(sums[g] as f64 / counts[g] as f64));
                    }
                }
            }
        }
    }

    #[test]
    fn strings_and_lists() {
        use ScalarValue::*;
        let vals = vec![
            Varchar("b".into()),
            Varchar("a long string value".into()),
            Null,
            Varchar("c".into()),
        ];
        assert_eq!(
            run("min", DataType::Varchar, vals.clone(), vec![0, 0, 0, 0], 1),
            vec![Varchar("a long string value".into())]
        );
        assert_eq!(
            run("max", DataType::Varchar, vals.clone(), vec![0, 0, 0, 0], 1),
            vec![Varchar("c".into())]
        );
        assert_eq!(
            run(
                "string_agg",
                DataType::Varchar,
                vals.clone(),
                vec![0, 0, 0, 0],
                1
            ),
            vec![Varchar("b,a long string value,c".into())]
        );
        let l = run("list", DataType::Varchar, vals, vec![0, 0, 0, 0], 1);
        assert_eq!(l[0].to_string(), "[b, a long string value, NULL, c]");
    }

    #[test]
    fn variance() {
        use ScalarValue::*;
        let vals = vec![
            Double(2.0),
            Double(4.0),
            Double(4.0),
            Double(4.0),
            Double(5.0),
            Double(5.0),
            Double(7.0),
            Double(9.0),
        ];
        let r = run("stddev_pop", DataType::Double, vals.clone(), vec![0; 8], 1);
        assert_eq!(r, vec![Double(2.0)]);
        let r = run("var_samp", DataType::Double, vals, vec![0; 8], 1);
        assert!(matches!(r[0], Double(v) if (v - 32.0 / 7.0).abs() < 1e-12));
    }
}
