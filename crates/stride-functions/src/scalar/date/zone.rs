//! `timezone(zone, x)`, also `x AT TIME ZONE zone`: between local times and instants
//! in a named zone. An instant (TIMESTAMP WITH TIME ZONE) becomes the local time its
//! clocks show there (a TIMESTAMP); a local time (TIMESTAMP, or a DATE's midnight)
//! becomes the instant it names there. The zone is an IANA name, looked up once when
//! it is constant; an unknown name is an error naming it.

use crate::kernels::{map_rows, null_vector, Slot, StrSlot};
use crate::scalar::signature::{bind, castable};
use crate::scalar::{BoundFunction, ScalarFunction};
use crate::timezone;
use stride_common::{DataType, Error, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    let [zone, x] = args else { return None };
    if !castable(zone, &DataType::Varchar) {
        return None;
    }
    let (arg, ret) = match x {
        DataType::TimestampTz => (DataType::TimestampTz, DataType::Timestamp),
        DataType::Timestamp | DataType::Date | DataType::Null | DataType::Varchar => {
            (DataType::Timestamp, DataType::TimestampTz)
        }
        _ => return None,
    };
    bind(
        ScalarFunction::AtTimeZone,
        vec![DataType::Varchar, arg],
        ret,
    )
}

fn out_of_range() -> Error {
    Error::out_of_range("timestamp out of range for AT TIME ZONE")
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let (zone, v) = (&args[0], &args[1]);
    let to_local = f.return_type == DataType::Timestamp;
    if zone.constant {
        if !zone.validity.is_valid(0) {
            return Ok(null_vector(&f.return_type, len, v.constant));
        }
        let z = timezone::lookup(zone.strings().get(0))?;
        return if to_local {
            timezone::to_local_in(&z, v, len)
        } else {
            timezone::to_instant_in(&z, v, len)
        };
    }
    let (names, t) = (StrSlot::new(zone), Slot::<i64>::new(v));
    map_rows(&[zone, v], len, f.return_type.clone(), |i| {
        let z = timezone::lookup(names.get(i))?;
        let r = if to_local {
            z.local_of(t.get(i))
        } else {
            z.instant_of(t.get(i))
        };
        r.ok_or_else(out_of_range)
    })
}
