//! DATE <-> TIMESTAMP, and TIMESTAMP -> TIME. A date becomes midnight of its day; a
//! timestamp keeps only its day, flooring so that instants before 1970 land on the
//! right date, or only its time of day. TIMESTAMP WITH TIME ZONE meets them through
//! the session's zone: an instant becomes its local time first, a local time (or a
//! date's midnight) the instant it names there ([`crate::timezone`]).

use super::out_of_range;
use crate::kernels::{try_unary_or_null, unary};
use stride_common::interval::MICROS_PER_DAY;
use stride_common::{temporal, DataType, Result, Vector};

pub(super) fn cast(v: &Vector, len: usize, to: &DataType, try_cast: bool) -> Result<Vector> {
    if v.ty == DataType::TimestampTz {
        let local = crate::timezone::to_local(v, len)?;
        return match to {
            DataType::Timestamp => Ok(local),
            _ => cast(&local, len, to, try_cast),
        };
    }
    if *to == DataType::TimestampTz {
        let local = match v.ty {
            DataType::Date => cast(v, len, &DataType::Timestamp, try_cast)?,
            _ => v.clone(),
        };
        return crate::timezone::to_instant(&local, len);
    }
    match to {
        DataType::Timestamp => try_unary_or_null(
            v,
            len,
            DataType::Timestamp,
            try_cast,
            |d: i32| match d {
                temporal::DATE_INFINITY => Some(temporal::TIMESTAMP_INFINITY),
                temporal::DATE_NEG_INFINITY => Some(temporal::TIMESTAMP_NEG_INFINITY),
                _ => (d as i64).checked_mul(MICROS_PER_DAY),
            },
            |d| out_of_range(&DataType::Date, temporal::format_date(d), to),
        ),
        DataType::Time => try_unary_or_null(
            v,
            len,
            DataType::Time,
            try_cast,
            |t: i64| temporal::is_finite_timestamp(t).then(|| t.rem_euclid(MICROS_PER_DAY)),
            |_| stride_common::Error::conversion("Can't get TIME of infinite TIMESTAMP"),
        ),
        _ => Ok(unary(v, len, DataType::Date, |t: i64| match t {
            temporal::TIMESTAMP_INFINITY => temporal::DATE_INFINITY,
            temporal::TIMESTAMP_NEG_INFINITY => temporal::DATE_NEG_INFINITY,
            // |t| / MICROS_PER_DAY is far below i32::MAX, so the narrowing is exact
            _ => t.div_euclid(MICROS_PER_DAY) as i32,
        })),
    }
}
