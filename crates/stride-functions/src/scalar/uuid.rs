//! `gen_random_uuid()` and its alias `uuid()`: a random (version 4) UUID for every
//! row. The function is volatile ([`super::ScalarFunction::is_volatile`]): its result is a flat vector
//! of `len` fresh values, never one constant for a chunk, and the binder never folds it.

use super::signature::fixed;
use super::{BoundFunction, ScalarFunction};
use stride_common::{uuid, DataType, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    fixed(ScalarFunction::GenRandomUuid, args, &[], DataType::Uuid)
}

pub(super) fn evaluate(len: usize) -> Vector {
    let values: Vec<i128> = (0..len.max(1))
        .map(|_| uuid::to_physical(uuid::random_v4()))
        .collect();
    let mut v = Vector::from_values(DataType::Uuid, values);
    if len == 0 {
        v.constant = true;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::{evaluate_scalar, resolve_scalar};

    #[test]
    fn one_value_per_row() {
        let f = resolve_scalar("gen_random_uuid", &[]).unwrap();
        assert_eq!(f.return_type, DataType::Uuid);
        let v = evaluate_scalar(&f, &[], 100).unwrap();
        assert!(!v.constant);
        let mut seen: Vec<i128> = v.values::<i128>().to_vec();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 100);
        assert!(resolve_scalar("uuid", &[]).is_ok());
    }
}
