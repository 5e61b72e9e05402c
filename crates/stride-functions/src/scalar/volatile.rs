//! Functions whose result is not a function of their arguments, so they are never
//! constant-folded and give a value per row (see [`ScalarFunction::is_volatile`]):
//! `random()` (a DOUBLE in [0, 1), different on every row), `setseed(x)` (seeds
//! the generator random() draws from, for the whole process; `x` in [-1, 1]),
//! `sleep_ms(n)` (waits n milliseconds per row) and `error(msg)` (raises msg as an
//! Invalid Input Error; `error(NULL)` is NULL). The last three return NULL, as in
//! DuckDB. `CheckFailed`, which the binder builds for CHECK constraints
//! (`binder/checks.rs`) and SQL cannot name, raises its message as a Constraint
//! Error.
//!
//! [`ScalarFunction::is_volatile`]: super::ScalarFunction::is_volatile

use super::signature::fixed;
use super::{BoundFunction, ScalarFunction};
use crate::kernels::{make_vector, null_vector, Slot, StrSlot};
use std::sync::Mutex;
use stride_common::{DataType, Error, Result, Validity, Vector};

pub(crate) fn resolve_random(args: &[DataType]) -> Option<BoundFunction> {
    fixed(ScalarFunction::Random, args, &[], DataType::Double)
}

pub(crate) fn resolve_setseed(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::SetSeed,
        args,
        &[DataType::Double],
        DataType::Null,
    )
}

pub(crate) fn resolve_sleep_ms(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::SleepMs,
        args,
        &[DataType::BigInt],
        DataType::Null,
    )
}

pub(crate) fn resolve_error(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::RaiseError,
        args,
        &[DataType::Varchar],
        DataType::Null,
    )
}

/// The generator's state (splitmix64); seeded from the clock on first use.
static STATE: Mutex<Option<u64>> = Mutex::new(None);

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0x1234_5678, |d| d.as_nanos() as u64)
}

/// `n` values in [0, 1).
fn draw(n: usize) -> Vec<f64> {
    let mut guard = STATE.lock().unwrap_or_else(|e| e.into_inner());
    let state = guard.get_or_insert_with(clock_seed);
    (0..n)
        .map(|_| (splitmix(state) >> 11) as f64 / (1u64 << 53) as f64)
        .collect()
}

fn seed(x: f64) -> Result<()> {
    if !(-1.0..=1.0).contains(&x) {
        return Err(Error::out_of_range(
            "SETSEED accepts seed values between -1.0 and 1.0, inclusive",
        ));
    }
    let mut guard = STATE.lock().unwrap_or_else(|e| e.into_inner());
    *guard = Some(x.to_bits());
    Ok(())
}

/// Longest a single `sleep_ms` call waits: an hour.
const MAX_SLEEP_MS: i64 = 3_600_000;

pub(crate) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let constant = args.iter().all(|a| a.constant) && f.func != ScalarFunction::Random;
    let rows = if constant { 1 } else { len };
    let valid = |a: &Vector, i: usize| a.validity.is_valid(if a.constant { 0 } else { i });
    match f.func {
        ScalarFunction::Random => {
            return Ok(make_vector(
                DataType::Double,
                draw(len),
                Validity::all_valid(),
                false,
            ))
        }
        ScalarFunction::SetSeed => {
            let x = Slot::<f64>::new(&args[0]);
            for i in 0..rows {
                if valid(&args[0], i) {
                    seed(x.get(i))?;
                }
            }
        }
        ScalarFunction::SleepMs => {
            let ms = Slot::<i64>::new(&args[0]);
            for i in 0..rows {
                if valid(&args[0], i) && ms.get(i) > 0 {
                    let ms = ms.get(i).min(MAX_SLEEP_MS) as u64;
                    std::thread::sleep(std::time::Duration::from_millis(ms));
                }
            }
        }
        _ => {
            let msg = StrSlot::new(&args[0]);
            // error(NULL) is NULL, as in DuckDB
            if let Some(i) = (0..rows).find(|&i| valid(&args[0], i)) {
                return Err(match f.func {
                    ScalarFunction::CheckFailed => Error::constraint(msg.get(i)),
                    _ => Error::invalid_input(msg.get(i)),
                });
            }
        }
    }
    Ok(null_vector(&DataType::Null, len, constant))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_values() {
        seed(0.5).unwrap();
        let a = draw(3);
        seed(0.5).unwrap();
        assert_eq!(a, draw(3));
        assert!(a.iter().all(|x| (0.0..1.0).contains(x)));
        assert_ne!(a[0], a[1]);
        assert!(seed(2.0).is_err());
    }
}
