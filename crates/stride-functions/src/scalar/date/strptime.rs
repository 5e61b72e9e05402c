//! `strptime(text, format)` -> TIMESTAMP, an Invalid Input error when the text does
//! not match; `try_strptime` gives NULL instead. A constant format is compiled once.
//! A constant format with `%z` (offset) or `%Z` (zone name) gives a TIMESTAMP WITH
//! TIME ZONE ([`specialize`], as DuckDB binds it).

use super::format::Format;
use crate::kernels::{all_constant, make_vector, strict_validity, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, Vector};

fn resolve(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        func,
        args,
        &[DataType::Varchar, DataType::Varchar],
        DataType::Timestamp,
    )
}

pub(crate) fn resolve_strptime(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Strptime, args)
}

pub(crate) fn resolve_try_strptime(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::TryStrptime, args)
}

/// A constant format reading a zone makes the call return instants.
pub(crate) fn specialize(f: &mut BoundFunction, format: &stride_common::ScalarValue) {
    if let stride_common::ScalarValue::Varchar(text) = format {
        if Format::parse(text).is_ok_and(|c| c.has_zone()) {
            f.return_type = DataType::TimestampTz;
        }
    }
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let func = f.func;
    let instants = (f.return_type == DataType::TimestampTz).then(stride_common::zone::current);
    let null_on_failure = func == ScalarFunction::TryStrptime;
    let refs = [&args[0], &args[1]];
    let constant = all_constant(&refs);
    let rows = if constant { 1 } else { len };
    let mut validity = strict_validity(&refs, rows);
    let (text, fmt) = (StrSlot::new(&args[0]), StrSlot::new(&args[1]));
    let mut compiled: Option<Format> = None;
    let mut out = Vec::with_capacity(rows);
    for i in 0..rows {
        if !validity.is_valid(i) {
            out.push(0i64);
            continue;
        }
        let f = fmt.get(i);
        if compiled.as_ref().is_none_or(|c| c.text() != f) {
            compiled = Some(Format::parse(f)?);
        }
        let parsed = match (&compiled, &instants) {
            (Some(c), Some(zone)) => c.parse_instant(text.get(i), zone)?,
            (Some(c), None) => c.parse_timestamp(text.get(i)),
            _ => None,
        };
        match parsed {
            Some(t) => out.push(t),
            None if null_on_failure => {
                validity.set_invalid(i, rows);
                out.push(0);
            }
            None => {
                return Err(Error::invalid_input(format!(
                    "Could not parse string \"{}\" according to format specifier \"{f}\"",
                    text.get(i)
                )))
            }
        }
    }
    Ok(make_vector(f.return_type.clone(), out, validity, constant))
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::temporal::parse_timestamp;
    use stride_common::ScalarValue::*;

    #[test]
    fn parses() {
        let t = Timestamp(parse_timestamp("2024-01-02 03:04:00").unwrap());
        assert_eq!(
            eval("strptime", &[s("02/01/2024 03:04"), s("%d/%m/%Y %H:%M")]).unwrap(),
            t
        );
        let e = eval("strptime", &[s("nope"), s("%Y")]).unwrap_err();
        assert_eq!(
            e.message,
            "Could not parse string \"nope\" according to format specifier \"%Y\""
        );
        assert_eq!(eval("try_strptime", &[s("nope"), s("%Y")]).unwrap(), Null);
        assert_eq!(eval("strptime", &[Null, s("%Y")]).unwrap(), Null);
    }
}
