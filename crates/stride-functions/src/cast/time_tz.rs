//! Casts to and from TIME WITH TIME ZONE ([`stride_common::time_tz`]): a TIME (and
//! text without an offset) takes the session time zone's offset now; a TIMETZ as a TIME is its local time, the offset
//! dropped; a TIMESTAMP WITH TIME ZONE is its time of day and offset in the session's
//! time zone (as DuckDB). Text is in `from_varchar.rs` and `to_varchar.rs`.

use crate::kernels::{try_unary_or_null, unary};
use stride_common::interval::MICROS_PER_DAY;
use stride_common::{temporal, time_tz, DataType, Error, Result, Vector};

/// Whether this file casts `from` to `to`.
pub(super) fn castable(from: &DataType, to: &DataType) -> bool {
    matches!(
        (from, to),
        (DataType::Time | DataType::TimestampTz, DataType::TimeTz)
            | (DataType::TimeTz, DataType::Time)
    )
}

pub(super) fn cast(v: &Vector, len: usize, to: &DataType, try_cast: bool) -> Result<Vector> {
    match (&v.ty, to) {
        // a TIME is in the session time zone (its offset now, as DuckDB)
        (DataType::Time, _) => {
            let offset = stride_common::zone::current_offset();
            Ok(unary(v, len, DataType::TimeTz, |t: i64| {
                time_tz::encode(t, offset)
            }))
        }
        (DataType::TimeTz, _) => Ok(unary(v, len, DataType::Time, |t: i64| time_tz::decode(t).0)),
        (DataType::TimestampTz, _) => {
            let zone = stride_common::zone::current();
            try_unary_or_null(
                v,
                len,
                DataType::TimeTz,
                try_cast,
                |t: i64| {
                    let offset = zone.offset_at(t);
                    let local = zone.local_of(t)?;
                    temporal::is_finite_timestamp(t)
                        .then(|| time_tz::encode(local.rem_euclid(MICROS_PER_DAY), offset))
                },
                |_| {
                    Error::conversion(
                        "Can't get TIME WITH TIME ZONE of infinite TIMESTAMP WITH TIME ZONE",
                    )
                },
            )
        }
        _ => Err(super::unimplemented_cast(&v.ty, to)),
    }
}
