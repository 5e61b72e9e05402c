//! Window sums, counts and averages of exact numbers from running totals: a fast
//! path of `window.rs` for `sum`, `avg`, `count` and `count(*)` over integers and
//! decimals, whatever the frame (running, sliding, EXCLUDE).
//!
//! One pass along the sorted rows writes the running total of the values and of the
//! rows counted (valid, and kept by FILTER); a frame piece `lo..hi` then holds
//! `total[hi] - total[lo]`. That is O(1) a row where the general path merges about
//! four states a row (running frames) or O(log n) (others). Totals are kept in 64
//! bits while they fit and in 128 otherwise, and differences are taken in 128, so
//! they are exact; 128-bit values (HUGEINT, wide DECIMAL) whose totals pass 128 bits
//! go to the general path instead.
//!
//! The frames' sums and counts become the partial states the aggregate's own state
//! merges (DECIMAL(38) sums, BIGINT counts), and that state finishes them: results,
//! types, NULL for empty frames and overflow errors are those of the general path.

use super::window::{in_blocks, Pieces};
use crate::context::QueryContext;
use stride_common::vector::NativeType;
use stride_common::{DataType, Error, PhysicalType, Result, Validity, Vector};
use stride_functions::aggregate::{new_state, AggregateFunction, BoundAggregate};

/// The running totals of one aggregate's argument along the sorted rows.
pub(super) struct Totals<'a> {
    agg: &'a BoundAggregate,
    /// The values' running sums (sum and avg only).
    sums: Option<Sums>,
    /// The running count of rows counted; `None` when every row counts.
    counts: Option<Vec<i64>>,
    /// The scale of the DECIMAL(38) partial sums.
    scale: u8,
}

impl<'a> Totals<'a> {
    /// The totals of `args` (in sorted order; rows `keep` drops do not count), or
    /// `None` when `agg` is not one this path computes.
    pub fn new(
        agg: &'a BoundAggregate,
        args: &[Vector],
        n: usize,
        keep: Option<&[bool]>,
    ) -> Option<Self> {
        use AggregateFunction as F;
        // The argument whose non-NULL values count (none for count(*)).
        let value = match agg.func {
            F::CountStar => None,
            F::Count => Some(&args[0]),
            F::Sum | F::Avg if exact(&agg.arg_types[0], &args[0]) => Some(&args[0]),
            _ => return None,
        };
        let scale = agg
            .arg_types
            .first()
            .and_then(|t| t.decimal_properties())
            .map_or(0, |(_, s)| s);
        // The partial states `over` builds must be the ones the state merges
        // (checked, so that a change there turns this path off instead of making it
        // wrong).
        let layout = new_state(agg).partial().ok()?;
        if !layout
            .iter()
            .map(|v| &v.ty)
            .eq(&partial_layout(agg.func, scale))
        {
            return None;
        }
        let counted = |i: usize| value.is_none_or(|v| v.is_valid(i)) && keep.is_none_or(|k| k[i]);
        let every_row = keep.is_none()
            && value.is_none_or(|v| match v.constant {
                true => v.is_valid(0),
                false => !v.validity.has_nulls(),
            });
        let sums = match (agg.func, value) {
            (F::Sum | F::Avg, Some(v)) => Some(running_sums(v, n, &counted, every_row)?),
            _ => None,
        };
        Some(Totals {
            agg,
            sums,
            counts: (!every_row).then(|| running_counts(n, counted)),
            scale,
        })
    }

    /// Each of `n` positions' aggregate over the pieces `frame(p)` of its frame (on
    /// the threads when `parallel`).
    pub fn over(
        &self,
        n: usize,
        frame: impl Fn(usize) -> Result<Pieces> + Sync,
        parallel: bool,
        ctx: &QueryContext,
    ) -> Result<Vector> {
        use AggregateFunction as F;
        let sum_type = DataType::Decimal(38, self.scale);
        let values = in_blocks(self.agg, n, true, parallel, ctx, |state, lo, hi| {
            let mut frames = Vec::with_capacity(hi - lo);
            for p in lo..hi {
                frames.push(frame(p)?);
            }
            let counts: Vec<i64> = frames
                .iter()
                .map(|f| f.iter().map(|&(a, b)| self.count(a, b)).sum())
                .collect();
            let partial = match (self.agg.func, &self.sums) {
                // A sum over no rows is NULL.
                (F::Sum, Some(sums)) => {
                    let valid = Validity::from_fn(counts.len(), |i| counts[i] > 0);
                    vec![Vector::new(
                        sum_type.clone(),
                        i128::wrap(frame_sums(sums, &frames)?),
                        valid,
                    )]
                }
                (F::Avg, Some(sums)) => vec![
                    Vector::from_values(sum_type.clone(), frame_sums(sums, &frames)?),
                    Vector::from_values(DataType::BigInt, counts),
                ],
                _ => vec![Vector::from_values(DataType::BigInt, counts)],
            };
            let groups: Vec<u32> = (0..(hi - lo) as u32).collect();
            state.merge(&groups, &partial, hi - lo)
        })?;
        Ok(values.into_iter().next().expect("one vector of values"))
    }

    /// The rows counted in `a..b`.
    fn count(&self, a: u32, b: u32) -> i64 {
        match &self.counts {
            Some(c) => c[b as usize] - c[a as usize],
            None => b.saturating_sub(a) as i64,
        }
    }
}

/// Whether sums of `v` (of type `t`) are exact integers this path adds: integers and
/// decimals, not UBIGINT or UHUGEINT, whose 128 bits are not their value.
fn exact(t: &DataType, v: &Vector) -> bool {
    match v.data.physical() {
        PhysicalType::I8 | PhysicalType::I16 | PhysicalType::I32 | PhysicalType::I64 => {
            t.is_integer() || matches!(t, DataType::Decimal(..))
        }
        PhysicalType::I128 => matches!(t, DataType::HugeInt | DataType::Decimal(..)),
        _ => false,
    }
}

/// The types of the partial states of `func` as its state hands them to `merge`:
/// DECIMAL(38) sums, BIGINT counts.
fn partial_layout(func: AggregateFunction, scale: u8) -> Vec<DataType> {
    use AggregateFunction as F;
    let sum = DataType::Decimal(38, scale);
    match func {
        F::Sum => vec![sum],
        F::Avg => vec![sum, DataType::BigInt],
        _ => vec![DataType::BigInt],
    }
}

/// Each frame's sum of its pieces.
fn frame_sums(sums: &Sums, frames: &[Pieces]) -> Result<Vec<i128>> {
    // Sized up front: a collect through `Result` would grow the vector step by step.
    let mut out = Vec::with_capacity(frames.len());
    for f in frames {
        let mut total = 0i128;
        for &(a, b) in f {
            total = sums
                .between(a, b)
                .and_then(|d| total.checked_add(d))
                .ok_or_else(|| {
                    Error::out_of_range("Overflow in sum: the result does not fit in 128 bits")
                })?;
        }
        out.push(total);
    }
    Ok(out)
}

/// `out[i]`: how many of the rows `0..i` are `counted`.
fn running_counts(n: usize, counted: impl Fn(usize) -> bool) -> Vec<i64> {
    let mut out = Vec::with_capacity(n + 1);
    let mut c = 0i64;
    out.push(0);
    for i in 0..n {
        c += counted(i) as i64;
        out.push(c);
    }
    out
}

/// Running sums (`sums[i]` over rows `0..i`): in 64 bits while they fit (half the
/// memory, the usual case), else in 128. A difference is taken in 128 bits either
/// way, so it is exact.
enum Sums {
    Narrow(Vec<i64>),
    Wide(Vec<i128>),
}

impl Sums {
    /// The sum of rows `a..b` (`None` where it passes 128 bits).
    fn between(&self, a: u32, b: u32) -> Option<i128> {
        let (a, b) = (a as usize, b as usize);
        match self {
            Sums::Narrow(s) => Some(s[b] as i128 - s[a] as i128),
            Sums::Wide(s) => s[b].checked_sub(s[a]),
        }
    }
}

/// The running sums of the values of `v` in the rows `counted` (`every_row`: all of
/// them, none NULL): in 64 bits when they fit, else in 128; `None` where they pass
/// 128 bits (of 128-bit values), which leaves the frames to the general path, which
/// says which sum overflows.
fn running_sums(
    v: &Vector,
    n: usize,
    counted: &dyn Fn(usize) -> bool,
    every_row: bool,
) -> Option<Sums> {
    let narrow = match v.data.physical() {
        PhysicalType::I8 => narrow_sums::<i8>(v, n, counted, every_row),
        PhysicalType::I16 => narrow_sums::<i16>(v, n, counted, every_row),
        PhysicalType::I32 => narrow_sums::<i32>(v, n, counted, every_row),
        PhysicalType::I64 => narrow_sums::<i64>(v, n, counted, every_row),
        _ => None,
    };
    if let Some(sums) = narrow {
        return Some(Sums::Narrow(sums));
    }
    Some(Sums::Wide(match v.data.physical() {
        PhysicalType::I8 => wide_sums::<i8>(v, n, counted),
        PhysicalType::I16 => wide_sums::<i16>(v, n, counted),
        PhysicalType::I32 => wide_sums::<i32>(v, n, counted),
        PhysicalType::I64 => wide_sums::<i64>(v, n, counted),
        _ => wide_sums::<i128>(v, n, counted),
    }?))
}

/// The running sums in 64 bits; `None` where one passes 64 bits.
fn narrow_sums<T: NativeType + Into<i64>>(
    v: &Vector,
    n: usize,
    counted: &dyn Fn(usize) -> bool,
    every_row: bool,
) -> Option<Vec<i64>> {
    let vals = v.values::<T>();
    let mut sums = Vec::with_capacity(n + 1);
    sums.push(0i64);
    let (mut s, mut over) = (0i64, false);
    if every_row && !v.constant {
        for &x in &vals[..n] {
            let (next, o) = s.overflowing_add(x.into());
            over |= o;
            s = next;
            sums.push(s);
        }
    } else {
        for i in 0..n {
            if counted(i) {
                let (next, o) = s.overflowing_add(vals[v.index(i)].into());
                over |= o;
                s = next;
            }
            sums.push(s);
        }
    }
    (!over).then_some(sums)
}

/// The running sums in 128 bits; `None` where one passes 128 bits.
fn wide_sums<T: NativeType + Into<i128>>(
    v: &Vector,
    n: usize,
    counted: &dyn Fn(usize) -> bool,
) -> Option<Vec<i128>> {
    let vals = v.values::<T>();
    let mut sums = Vec::with_capacity(n + 1);
    let mut s = 0i128;
    sums.push(s);
    for i in 0..n {
        if counted(i) {
            s = s.checked_add(vals[v.index(i)].into())?;
        }
        sums.push(s);
    }
    Some(sums)
}
