//! `strptime(text, format)` -> TIMESTAMP, an Invalid Input error when the text does
//! not match; `try_strptime` gives NULL instead. A constant format is compiled once.

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

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
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
        let parsed = compiled
            .as_ref()
            .and_then(|c| c.parse_timestamp(text.get(i)));
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
    Ok(make_vector(DataType::Timestamp, out, validity, constant))
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
