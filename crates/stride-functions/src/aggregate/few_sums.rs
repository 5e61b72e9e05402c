//! Exact sums into few groups (at most [`FEW_GROUPS`]; one without GROUP BY), the
//! case of [`add_to_sums`](super::add_to_sums) where consecutive rows mostly add to the
//! same sum. Each addition would then wait for the previous one's store to that sum;
//! instead row i adds to lane i % LANES's own accumulators, so LANES additions run at
//! once, and the lanes are summed at the end.
//!
//! 64-bit values without NULLs (DECIMAL(≤18) and BIGINT columns, TPC-H Q1's sums)
//! take a loop of their own, LANES rows a step with the lanes fixed and the group ids
//! masked into range: no per-row lane arithmetic, bounds checks or type dispatch.
//! Without grouping, 64-bit values add in registers.

use super::for_each_i128;
use stride_common::{PhysicalType, Vector};

/// Groups few enough for [`add_to_few_sums`]'s accumulators on the stack.
pub(crate) const FEW_GROUPS: usize = 8;
/// Rows in flight at once in [`add_to_few_sums`].
const LANES: usize = 4;

/// Per lane, per group: the sum of the lane's rows of that group.
type Sums = [[i128; FEW_GROUPS]; LANES];
/// Per lane, per group: how many of the lane's rows were of that group.
type Counts = [[i64; FEW_GROUPS]; LANES];

/// Adds every non-NULL row to its group's sum in `sums` (at most [`FEW_GROUPS`] of
/// them) and calls `counted(group, rows)` for each group that got rows. Returns false
/// when a sum overflowed, which only i128 (DECIMAL(38)) values can make happen.
pub(super) fn add_to_few_sums(
    v: &Vector,
    rows: usize,
    groups: &[u32],
    sums: &mut [i128],
    mut counted: impl FnMut(usize, i64),
) -> bool {
    let dense = rows > 0 && !v.constant && !v.validity.has_nulls();
    if sums.len() == 1 && dense {
        if let Some(total) = sum_dense(v, rows) {
            sums[0] = sums[0].wrapping_add(total);
            counted(0, rows as i64);
            return true;
        }
    }
    // Only i128 (DECIMAL(38)) values can overflow a sum (see `add_to_sums`).
    let wide = v.data.physical() == PhysicalType::I128;
    let mut ok = true;
    let mut acc: Sums = [[0; FEW_GROUPS]; LANES];
    let mut n: Counts = [[0; FEW_GROUPS]; LANES];
    if dense && v.data.physical() == PhysicalType::I64 {
        add_i64_lanes(&v.values::<i64>()[..rows], groups, &mut acc, &mut n);
    } else {
        for_each_i128(v, rows, |i, x| {
            let (l, g) = (i % LANES, groups[i] as usize);
            if wide {
                match acc[l][g].checked_add(x) {
                    Some(s) => acc[l][g] = s,
                    None => ok = false,
                }
            } else {
                acc[l][g] = acc[l][g].wrapping_add(x);
            }
            n[l][g] += 1;
        });
    }
    for (g, sum) in sums.iter_mut().enumerate() {
        let c: i64 = n.iter().map(|lane| lane[g]).sum();
        if c == 0 {
            continue;
        }
        for lane in &acc {
            match sum.checked_add(lane[g]) {
                Some(s) => *sum = s,
                None if wide => ok = false,
                None => *sum = sum.wrapping_add(lane[g]),
            }
        }
        counted(g, c);
    }
    ok
}

/// Adds 64-bit values into the lanes: a lane's sum of fewer than 2^63 values below
/// 2^63 in magnitude cannot overflow an i128. Group ids are below [`FEW_GROUPS`] (the
/// caller's invariant), so masking them changes none and spares the bounds checks.
fn add_i64_lanes(vals: &[i64], groups: &[u32], acc: &mut Sums, n: &mut Counts) {
    let groups = &groups[..vals.len()];
    let mut vs = vals.chunks_exact(LANES);
    let mut gs = groups.chunks_exact(LANES);
    for (v, g) in (&mut vs).zip(&mut gs) {
        for l in 0..LANES {
            let g = g[l] as usize % FEW_GROUPS;
            acc[l][g] = acc[l][g].wrapping_add(v[l] as i128);
            n[l][g] += 1;
        }
    }
    for (&v, &g) in vs.remainder().iter().zip(gs.remainder()) {
        let g = g as usize % FEW_GROUPS;
        acc[0][g] = acc[0][g].wrapping_add(v as i128);
        n[0][g] += 1;
    }
}

/// The sum of the first `rows` values of a vector of 64-bit or narrower integers
/// without NULLs; None for other storage. The additions are 64-bit, which vector
/// instructions do several at a time: narrow values add up directly, 64-bit ones as
/// their high and low 32-bit halves, each in blocks too short to overflow, and the
/// blocks' sums meet in an i128.
fn sum_dense(v: &Vector, rows: usize) -> Option<i128> {
    /// Values per block: 2^31 of them, each below 2^32 in magnitude, fit an i64.
    const BLOCK: usize = 1 << 31;
    fn narrow<T: stride_common::vector::NativeType + Into<i64>>(vals: &[T]) -> i128 {
        vals.chunks(BLOCK)
            .map(|b| b.iter().fold(0i64, |t, &x| t + x.into()) as i128)
            .sum()
    }
    fn wide(vals: &[i64]) -> i128 {
        vals.chunks(BLOCK)
            .map(|b| {
                let (lo, hi) = b.iter().fold((0u64, 0i64), |(lo, hi), &x| {
                    (lo + (x as u32) as u64, hi + (x >> 32))
                });
                ((hi as i128) << 32) + lo as i128
            })
            .sum()
    }
    use PhysicalType as P;
    Some(match v.data.physical() {
        P::I8 => narrow(&v.values::<i8>()[..rows]),
        P::I16 => narrow(&v.values::<i16>()[..rows]),
        P::I32 => narrow(&v.values::<i32>()[..rows]),
        P::I64 => wide(&v.values::<i64>()[..rows]),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use stride_common::DataType;

    /// The 64-bit loop (rows not a multiple of the lanes, values at the limits)
    /// gives the sums and counts of adding one row at a time in i128.
    #[test]
    fn i64_lanes_match_row_by_row_sums() {
        let rows = 4099;
        let vals: Vec<i64> = (0..rows as i64)
            .map(|i| match i % 5 {
                0 => i64::MAX - i,
                1 => i64::MIN + i,
                _ => i * 7919 - 1_000_000,
            })
            .collect();
        let groups: Vec<u32> = (0..rows as u32).map(|i| (i * i + i / 3) % 5).collect();
        let mut want = vec![0i128; 5];
        let mut want_n = vec![0i64; 5];
        for (&v, &g) in vals.iter().zip(&groups) {
            want[g as usize] += v as i128;
            want_n[g as usize] += 1;
        }
        let v = Vector::from_values(DataType::BigInt, vals);
        let mut sums = vec![0i128; 5];
        let mut n = vec![0i64; 5];
        assert!(add_to_few_sums(&v, rows, &groups, &mut sums, |g, c| n
            [g] +=
            c));
        assert_eq!(sums, want);
        assert_eq!(n, want_n);
    }
}
