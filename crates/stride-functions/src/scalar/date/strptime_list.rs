//! `strptime(text, [format, ...])` and `try_strptime(text, [format, ...])`: the text
//! parsed with the first format of the list that matches it. The list must be a
//! constant (a Binder error otherwise, as in DuckDB) with at least one format; each
//! format is compiled once, at bind time too, so an unknown specifier is an error even
//! for `try_strptime`. NULL entries of the list are skipped. When no format matches,
//! strptime fails with the error of the first format, try_strptime gives NULL.

use super::format::Format;
use crate::kernels::{make_vector, strict_validity, StrSlot};
use crate::scalar::signature::{bind, castable};
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, ScalarValue, Vector};

/// `strptime` (`try_ == false`) or `try_strptime` over a list of formats.
pub(crate) fn resolve(try_: bool, args: &[DataType]) -> Option<BoundFunction> {
    let [text, DataType::List(inner)] = args else {
        return None;
    };
    if !castable(text, &DataType::Varchar) || !matches!(**inner, DataType::Varchar | DataType::Null)
    {
        return None;
    }
    bind(
        ScalarFunction::StrptimeList(try_),
        vec![
            DataType::Varchar,
            DataType::List(Box::new(DataType::Varchar)),
        ],
        DataType::Timestamp,
    )
}

/// The formats of a list value, NULL entries left out.
fn formats_of(list: &ScalarValue) -> Option<Vec<&str>> {
    match list {
        ScalarValue::List(_, items) => Some(
            items
                .iter()
                .filter_map(|x| match x {
                    ScalarValue::Varchar(s) => Some(s.as_str()),
                    _ => None,
                })
                .collect(),
        ),
        _ => None,
    }
}

/// Compiles the formats, refusing an empty list.
fn compile(formats: &[&str]) -> Result<Vec<Format>> {
    if formats.is_empty() {
        return Err(Error::invalid_input(
            "strptime format list must not be empty",
        ));
    }
    formats.iter().map(|f| Format::parse(f)).collect()
}

/// Checks at bind time that the list is a constant of valid formats; a format that
/// reads a zone (`%z`, `%Z`) makes the call return instants (TIMESTAMPTZ), as the
/// single-format strptime does.
pub(crate) fn specialize(f: &mut BoundFunction, constants: &[Option<ScalarValue>]) -> Result<()> {
    let ScalarFunction::StrptimeList(try_) = f.func else {
        return Ok(());
    };
    match constants.get(1) {
        Some(Some(ScalarValue::Null)) => Ok(()),
        Some(Some(list)) => {
            let formats = compile(&formats_of(list).unwrap_or_default())?;
            if formats.iter().any(Format::has_zone) {
                f.return_type = DataType::TimestampTz;
            }
            Ok(())
        }
        _ => Err(Error::binder(format!(
            "The \"format-list\" argument in function \"{}\" must be a constant expression",
            if try_ { "try_strptime" } else { "strptime" }
        ))),
    }
}

pub(super) fn evaluate(
    f: &BoundFunction,
    try_: bool,
    args: &[Vector],
    len: usize,
) -> Result<Vector> {
    let instants = (f.return_type == DataType::TimestampTz).then(stride_common::zone::current);
    let refs = [&args[0], &args[1]];
    let constant = refs.iter().all(|a| a.constant);
    let rows = if constant { 1 } else { len };
    let mut validity = strict_validity(&refs, rows);
    let text = StrSlot::new(&args[0]);
    // the list is a constant once bound; a list per row is compiled when it changes
    let mut compiled: Option<(ScalarValue, Vec<Format>)> = None;
    let mut out = Vec::with_capacity(rows);
    for i in 0..rows {
        if !validity.is_valid(i) {
            out.push(0i64);
            continue;
        }
        let list = args[1].get(if args[1].constant { 0 } else { i });
        if compiled.as_ref().is_none_or(|(l, _)| *l != list) {
            let formats = compile(&formats_of(&list).unwrap_or_default())?;
            compiled = Some((list, formats));
        }
        let formats = &compiled.as_ref().expect("compiled above").1;
        let s = text.get(i);
        let parsed = match &instants {
            Some(zone) => {
                let mut found = None;
                for f in formats {
                    if let Some(t) = f.parse_instant(s, zone)? {
                        found = Some(t);
                        break;
                    }
                }
                found
            }
            None => formats.iter().find_map(|f| f.parse_timestamp(s)),
        };
        match parsed {
            Some(t) => out.push(t),
            None if try_ => {
                validity.set_invalid(i, rows);
                out.push(0);
            }
            None => {
                return Err(Error::invalid_input(format!(
                    "Could not parse string \"{s}\" according to format specifier \"{}\"",
                    formats[0].text()
                )))
            }
        }
    }
    Ok(make_vector(f.return_type.clone(), out, validity, constant))
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::{eval, text as s, text_list};
    use stride_common::temporal::parse_timestamp;
    use stride_common::ScalarValue::*;

    #[test]
    fn first_matching_format_wins() {
        let formats = text_list(&["%d/%m/%Y", "%Y-%m-%d"]);
        let t = Timestamp(parse_timestamp("2024-01-02 00:00:00").unwrap());
        assert_eq!(
            eval("strptime", &[s("2024-01-02"), formats.clone()]).unwrap(),
            t
        );
        assert_eq!(
            eval("strptime", &[s("02/01/2024"), formats.clone()]).unwrap(),
            t
        );
        let e = eval("strptime", &[s("xx"), formats.clone()]).unwrap_err();
        assert_eq!(
            e.message,
            "Could not parse string \"xx\" according to format specifier \"%d/%m/%Y\""
        );
        assert_eq!(
            eval("try_strptime", &[s("xx"), formats.clone()]).unwrap(),
            Null
        );
        assert_eq!(eval("strptime", &[Null, formats]).unwrap(), Null);
        let e = eval("strptime", &[s("2024"), text_list(&[])]).unwrap_err();
        assert_eq!(e.message, "strptime format list must not be empty");
    }
}
