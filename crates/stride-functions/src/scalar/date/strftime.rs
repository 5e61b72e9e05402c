//! `strftime(x, format)`: a DATE or TIMESTAMP formatted as text (dates format as
//! their midnight); a TIMESTAMP WITH TIME ZONE formats its local time in the
//! session's zone, `%z` its offset and `%Z` the zone's name; a TIMESTAMP_NS keeps its
//! nanoseconds for `%n`. A constant format is compiled once per call.

use super::format::Format;
use super::temporal_arg;
use crate::kernels::{map_rows_to_strings, Slot, StrSlot};
use crate::scalar::signature::{bind, castable};
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::time_unit::TimeUnit;
use stride_common::{DataType, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    let [x, fmt] = args else { return None };
    let x = match x {
        DataType::TimestampTz | DataType::TimestampUnit(TimeUnit::Nanosecond) => x.clone(),
        x => {
            temporal_arg(x, false)?;
            DataType::Timestamp
        }
    };
    if !castable(fmt, &DataType::Varchar) {
        return None;
    }
    bind(
        ScalarFunction::Strftime,
        vec![x, DataType::Varchar],
        DataType::Varchar,
    )
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    let zone = (args[0].ty == DataType::TimestampTz).then(stride_common::zone::current);
    let nanos = args[0].ty == DataType::TimestampUnit(TimeUnit::Nanosecond);
    let (t, fmt) = (Slot::<i64>::new(&args[0]), StrSlot::new(&args[1]));
    let mut compiled: Option<Format> = None;
    let mut buf = String::new();
    map_rows_to_strings(&[&args[0], &args[1]], len, |i, out| {
        let f = fmt.get(i);
        if compiled.as_ref().is_none_or(|c| c.text() != f) {
            compiled = Some(Format::parse(f)?);
        }
        buf.clear();
        if !stride_common::temporal::is_finite_timestamp(t.get(i)) {
            // DuckDB formats the infinite timestamps as their names
            out.push(&stride_common::temporal::format_timestamp(t.get(i)));
            return Ok(());
        }
        match (&compiled, &zone) {
            (Some(c), Some(z)) => {
                let instant = t.get(i);
                let local = z.local_of(instant).ok_or_else(|| {
                    stride_common::Error::out_of_range("timestamp out of range for strftime")
                })?;
                c.write_zoned(local, z.offset_at(instant), z.name(), &mut buf)
            }
            (Some(c), None) if nanos => c.write_nanos(t.get(i), &mut buf),
            (Some(c), None) => c.write(t.get(i), &mut buf),
            _ => {}
        }
        out.push(&buf);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::temporal::{parse_date, parse_timestamp};
    use stride_common::ScalarValue::*;

    #[test]
    fn formats() {
        let d = Date(parse_date("1992-03-07").unwrap());
        assert_eq!(
            eval("strftime", &[d.clone(), s("%d/%m/%Y")]).unwrap(),
            s("07/03/1992")
        );
        assert_eq!(
            eval("strftime", &[d.clone(), s("%H:%M")]).unwrap(),
            s("00:00")
        );
        let t = Timestamp(parse_timestamp("1992-03-07 13:05:09").unwrap());
        assert_eq!(
            eval("strftime", &[t.clone(), s("%A %-I%p")]).unwrap(),
            s("Saturday 1PM")
        );
        assert_eq!(eval("strftime", &[t, Null]).unwrap(), Null);
        assert!(eval("strftime", &[d, s("%Q")]).is_err());
    }
}
