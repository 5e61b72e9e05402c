//! UUID functions: `gen_random_uuid()` and its aliases `uuid()` and `uuidv4()`, a random
//! (version 4) UUID for every row; `uuidv7()`, a time-ordered (version 7) UUID whose
//! first 48 bits are the current Unix time in milliseconds; and the readers
//! `uuid_extract_version(u)` (INTEGER: stride has no UINTEGER) and
//! `uuid_extract_timestamp(u)` (the milliseconds of a version 7 UUID as an instant, a
//! TIMESTAMP WITH TIME ZONE, as in DuckDB).
//!
//! The generators are volatile ([`super::ScalarFunction::is_volatile`]): their result is
//! a flat vector of `len` fresh values, never one constant for a chunk, and the binder
//! never folds them.

use super::signature::fixed;
use super::{BoundFunction, ScalarFunction};
use crate::kernels::{try_unary, unary};
use stride_common::{uuid, DataType, Error, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    fixed(ScalarFunction::GenRandomUuid, args, &[], DataType::Uuid)
}

pub(crate) fn resolve_v7(args: &[DataType]) -> Option<BoundFunction> {
    fixed(ScalarFunction::UuidV7, args, &[], DataType::Uuid)
}

pub(crate) fn resolve_extract_version(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::UuidExtractVersion,
        args,
        &[DataType::Uuid],
        DataType::Integer,
    )
}

pub(crate) fn resolve_extract_timestamp(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::UuidExtractTimestamp,
        args,
        &[DataType::Uuid],
        DataType::TimestampTz,
    )
}

/// `len` fresh UUIDs made by `make` (one flat row even for `len == 0`, as a constant).
fn generate(len: usize, make: impl Fn() -> u128) -> Vector {
    let values: Vec<i128> = (0..len.max(1)).map(|_| uuid::to_physical(make())).collect();
    let mut v = Vector::from_values(DataType::Uuid, values);
    if len == 0 {
        v.constant = true;
    }
    v
}

/// Milliseconds since the Unix epoch, now.
fn unix_ms_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    match f.func {
        ScalarFunction::GenRandomUuid => Ok(generate(len, uuid::random_v4)),
        ScalarFunction::UuidV7 => {
            let ms = unix_ms_now();
            Ok(generate(len, || uuid::random_v7(ms)))
        }
        ScalarFunction::UuidExtractVersion => Ok(unary(&args[0], len, DataType::Integer, |u| {
            uuid::version(uuid::from_physical(u)) as i32
        })),
        ScalarFunction::UuidExtractTimestamp => try_unary(
            &args[0],
            len,
            DataType::TimestampTz,
            |u: i128| {
                let bits = uuid::from_physical(u);
                (uuid::version(bits) == 7).then(|| uuid::v7_unix_ms(bits) * 1000)
            },
            |u| {
                Error::invalid_input(format!(
                    "Given UUID is with version {}, not version 7.",
                    uuid::version(uuid::from_physical(u))
                ))
            },
        ),
        other => Err(Error::internal(format!("{other:?} is not a UUID function"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::test_util::eval;
    use crate::scalar::{evaluate_scalar, resolve_scalar};
    use stride_common::temporal::parse_timestamp;
    use stride_common::ScalarValue;

    fn distinct(name: &str) {
        let f = resolve_scalar(name, &[]).unwrap();
        assert_eq!(f.return_type, DataType::Uuid);
        assert!(f.func.is_volatile());
        let v = evaluate_scalar(&f, &[], 100).unwrap();
        assert!(!v.constant);
        let mut seen: Vec<i128> = v.values::<i128>().to_vec();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 100);
    }

    #[test]
    fn one_value_per_row() {
        for name in ["gen_random_uuid", "uuid", "uuidv4", "uuidv7"] {
            distinct(name);
        }
    }

    #[test]
    fn version_7_carries_the_time() {
        let before = unix_ms_now();
        let f = resolve_scalar("uuidv7", &[]).unwrap();
        let v = evaluate_scalar(&f, &[], 3).unwrap();
        for &u in v.values::<i128>() {
            let bits = uuid::from_physical(u);
            assert_eq!(uuid::version(bits), 7);
            assert!((uuid::v7_unix_ms(bits) - before).abs() < 60_000);
        }
    }

    #[test]
    fn readers() {
        let u = |s: &str| ScalarValue::Uuid(uuid::parse(s).unwrap());
        let v7 = u("018f9f4a-1c2b-7def-8000-000000000000");
        assert_eq!(
            eval("uuid_extract_version", std::slice::from_ref(&v7)).unwrap(),
            ScalarValue::Integer(7)
        );
        assert_eq!(
            eval("uuid_extract_timestamp", &[v7]).unwrap(),
            ScalarValue::TimestampTz(parse_timestamp("2024-05-22 07:53:05.323").unwrap())
        );
        let v4 = u("c83a5ba8-73b4-44d2-991a-4710aa6eb869");
        let e = eval("uuid_extract_timestamp", &[v4]).unwrap_err();
        assert_eq!(e.message, "Given UUID is with version 4, not version 7.");
        assert_eq!(
            eval("uuid_extract_version", &[ScalarValue::Null]).unwrap(),
            ScalarValue::Null
        );
    }
}
