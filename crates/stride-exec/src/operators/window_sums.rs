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
    /// The values' running sums; empty for counts.
    sums: Sums,
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
        let summed = match agg.func {
            F::CountStar => false,
            F::Count => true,
            F::Sum | F::Avg => {
                let t = &agg.arg_types[0];
                let exact = match args[0].data.physical() {
                    PhysicalType::I8
                    | PhysicalType::I16
                    | PhysicalType::I32
                    | PhysicalType::I64 => t.is_integer() || matches!(t, DataType::Decimal(..)),
                    // Not UBIGINT or UHUGEINT, whose 128 bits are not their value.
                    PhysicalType::I128 => matches!(t, DataType::HugeInt | DataType::Decimal(..)),
                    _ => false,
                };
                if !exact {
                    return None;
                }
                true
            }
            _ => return None,
        };
        let scale = agg
            .arg_types
            .first()
            .and_then(|t| t.decimal_properties())
            .map_or(0, |(_, s)| s);
        let totals = Totals {
            agg,
            sums: Sums::Narrow(Vec::new()),
            counts: None,
            scale,
        };
        // The partial states built below must be the ones the state merges (checked,
        // so that a change there turns this path off instead of making it wrong).
        let layout: Vec<DataType> = new_state(agg)
            .partial()
            .ok()?
            .iter()
            .map(|v| v.ty.clone())
            .collect();
        if layout != totals.layout() {
            return None;
        }
        Some(match (agg.func, summed) {
            (F::CountStar, _) => match keep {
                None => totals,
                Some(keep) => Totals {
                    counts: Some(running_counts(n, |i| keep[i])),
                    ..totals
                },
            },
            (F::Count, _) => {
                let v = &args[0];
                let counted = |i: usize| v.is_valid(i) && keep.is_none_or(|k| k[i]);
                match keep.is_none() && !v.validity.has_nulls() && (!v.constant || v.is_valid(0)) {
                    true => totals,
                    false => Totals {
                        counts: Some(running_counts(n, counted)),
                        ..totals
                    },
                }
            }
            _ => {
                let v = &args[0];
                let (sums, counts) = match v.data.physical() {
                    PhysicalType::I8 => running_sums::<i8>(v, n, keep),
                    PhysicalType::I16 => running_sums::<i16>(v, n, keep),
                    PhysicalType::I32 => running_sums::<i32>(v, n, keep),
                    PhysicalType::I64 => running_sums::<i64>(v, n, keep),
                    _ => (Err(()), None),
                };
                let sums = match sums {
                    Ok(narrow) => Sums::Narrow(narrow),
                    // Totals that pass 128 bits (of 128-bit values) leave the frames to
                    // the general path, which says which sum overflows.
                    Err(()) => Sums::Wide(wide_running_sums(v, n, keep)?),
                };
                let counts = match (counts, v.data.physical()) {
                    (None, PhysicalType::I128)
                        if keep.is_some() || v.validity.has_nulls() || v.constant =>
                    {
                        Some(running_counts(n, |i| {
                            v.is_valid(i) && keep.is_none_or(|k| k[i])
                        }))
                    }
                    (counts, _) => counts,
                };
                Totals {
                    sums,
                    counts,
                    ..totals
                }
            }
        })
    }

    /// The types of the partial states this path builds, as the aggregate's state
    /// hands them to `merge`.
    fn layout(&self) -> Vec<DataType> {
        use AggregateFunction as F;
        let sum = DataType::Decimal(38, self.scale);
        match self.agg.func {
            F::Sum => vec![sum],
            F::Avg => vec![sum, DataType::BigInt],
            _ => vec![DataType::BigInt],
        }
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
        let values = in_blocks(self.agg, n, true, parallel, ctx, |state, lo, hi| {
            let frames = (lo..hi).map(&frame).collect::<Result<Vec<Pieces>>>()?;
            let counts: Vec<i64> = frames
                .iter()
                .map(|f| f.iter().map(|&(a, b)| self.count(a, b)).sum())
                .collect();
            let partial = match self.agg.func {
                F::Sum | F::Avg => {
                    let mut sums = Vec::with_capacity(frames.len());
                    for f in &frames {
                        let mut total = 0i128;
                        for &(a, b) in f {
                            total = self
                                .sums
                                .between(a, b)
                                .and_then(|d| total.checked_add(d))
                                .ok_or_else(|| {
                                    Error::out_of_range(
                                        "Overflow in sum: the result does not fit in 128 bits",
                                    )
                                })?;
                        }
                        sums.push(total);
                    }
                    let sums = match self.agg.func {
                        // A sum over no rows is NULL.
                        F::Sum => Vector::new(
                            DataType::Decimal(38, self.scale),
                            i128::wrap(sums),
                            Validity::from_fn(counts.len(), |i| counts[i] > 0),
                        ),
                        _ => Vector::from_values(DataType::Decimal(38, self.scale), sums),
                    };
                    match self.agg.func {
                        F::Sum => vec![sums],
                        _ => vec![sums, Vector::from_values(DataType::BigInt, counts)],
                    }
                }
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

/// The running sums in 64 bits of the non-NULL values of `v` that `keep` keeps
/// (`Err` where one passes 64 bits), and their running count (`None` when every
/// row counts).
#[allow(clippy::type_complexity)]
fn running_sums<T: NativeType + Into<i64>>(
    v: &Vector,
    n: usize,
    keep: Option<&[bool]>,
) -> (std::result::Result<Vec<i64>, ()>, Option<Vec<i64>>) {
    let vals = v.values::<T>();
    let mut sums = Vec::with_capacity(n + 1);
    sums.push(0i64);
    let mut s = 0i64;
    let mut fits = true;
    if !v.constant && !v.validity.has_nulls() && keep.is_none() {
        for &x in &vals[..n] {
            let (next, over) = s.overflowing_add(x.into());
            fits &= !over;
            s = next;
            sums.push(s);
        }
        return (fits.then_some(sums).ok_or(()), None);
    }
    let counted = |i: usize| v.is_valid(i) && keep.is_none_or(|k| k[i]);
    for i in 0..n {
        if counted(i) {
            let (next, over) = s.overflowing_add(vals[v.index(i)].into());
            fits &= !over;
            s = next;
        }
        sums.push(s);
    }
    (
        fits.then_some(sums).ok_or(()),
        Some(running_counts(n, counted)),
    )
}

/// The running sums in 128 bits, for 128-bit values and for values whose sums pass
/// 64 bits; `None` where they pass 128.
fn wide_running_sums(v: &Vector, n: usize, keep: Option<&[bool]>) -> Option<Vec<i128>> {
    let value = |i: usize| -> i128 {
        let j = v.index(i);
        match v.data.physical() {
            PhysicalType::I8 => v.values::<i8>()[j].into(),
            PhysicalType::I16 => v.values::<i16>()[j].into(),
            PhysicalType::I32 => v.values::<i32>()[j].into(),
            PhysicalType::I64 => v.values::<i64>()[j].into(),
            _ => v.values::<i128>()[j],
        }
    };
    let mut sums = Vec::with_capacity(n + 1);
    let mut s = 0i128;
    sums.push(s);
    for i in 0..n {
        if v.is_valid(i) && keep.is_none_or(|k| k[i]) {
            s = s.checked_add(value(i))?;
        }
        sums.push(s);
    }
    Some(sums)
}
