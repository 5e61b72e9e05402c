//! Casts to and from TIMESTAMP_S, TIMESTAMP_MS and TIMESTAMP_NS
//! ([`stride_common::time_unit`]): between the units, and with DATE, TIMESTAMP,
//! TIMESTAMP WITH TIME ZONE and TIME through TIMESTAMP's microseconds. A coarser unit
//! rounds to the nearest; a value outside the target's range (nanoseconds hold only
//! 1677 to 2262) is an Out of Range error, or NULL for TRY_CAST. Text is in
//! `from_varchar.rs` and `to_varchar.rs`.

use super::{cast_vector, out_of_range};
use crate::kernels::try_unary_or_null;
use stride_common::time_unit::{self, TimeUnit};
use stride_common::{DataType, Result, Vector};

/// Whether this file casts `from` to `to`.
pub(super) fn castable(from: &DataType, to: &DataType) -> bool {
    let timestamp_like = |t: &DataType| {
        matches!(
            t,
            DataType::Date
                | DataType::Timestamp
                | DataType::TimestampTz
                | DataType::TimestampUnit(_)
        )
    };
    match (from, to) {
        (DataType::TimestampUnit(_), t) => timestamp_like(t) || *t == DataType::Time,
        (f, DataType::TimestampUnit(_)) => timestamp_like(f),
        _ => false,
    }
}

pub(super) fn cast(v: &Vector, len: usize, to: &DataType, try_cast: bool) -> Result<Vector> {
    match (&v.ty, to) {
        (DataType::TimestampUnit(a), DataType::TimestampUnit(b)) => {
            let (a, b) = (*a, *b);
            try_unary_or_null(
                v,
                len,
                to.clone(),
                try_cast,
                |x: i64| time_unit::convert(x, a, b),
                |x| out_of_range(&v.ty, time_unit::format(x, a), to),
            )
        }
        (DataType::TimestampUnit(u), _) => {
            let u = *u;
            let micros = try_unary_or_null(
                v,
                len,
                DataType::Timestamp,
                try_cast,
                |x: i64| time_unit::to_micros(x, u),
                |x| out_of_range(&v.ty, x, &DataType::Timestamp),
            )?;
            cast_vector(&micros, len, to, try_cast)
        }
        (from, DataType::TimestampUnit(u)) => {
            let u: TimeUnit = *u;
            let micros = match from {
                DataType::Timestamp => v.clone(),
                _ => cast_vector(v, len, &DataType::Timestamp, try_cast)?,
            };
            try_unary_or_null(
                &micros,
                len,
                to.clone(),
                try_cast,
                |x: i64| time_unit::from_micros(x, u),
                |x| {
                    out_of_range(
                        &DataType::Timestamp,
                        stride_common::temporal::format_timestamp(x),
                        to,
                    )
                },
            )
        }
        _ => Err(super::unimplemented_cast(&v.ty, to)),
    }
}
