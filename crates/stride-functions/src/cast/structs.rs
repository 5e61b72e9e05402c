//! Casts of STRUCT values. STRUCT -> STRUCT matches fields by name (case-insensitive),
//! as DuckDB does: a target field the source lacks is NULL, a source field the target
//! lacks is dropped, and at least one name must match; when either side's fields are
//! unnamed (`row(1, 2)`) they match by position. Each field is cast as one vector.
//! VARCHAR -> STRUCT reads the struct text stride prints (`{'a': 1, 'b': x}`, keys
//! quoted or bare, nested lists and structs inside).

use super::{cast_scalar, cast_vector, unimplemented_cast};
use crate::kernels::null_vector;
use stride_common::vector::StructData;
use stride_common::{DataType, Error, Result, ScalarValue, Vector, VectorData};

/// For each target field, the source field it is cast from (None: NULL).
pub(super) fn field_mapping(
    from: &[(String, DataType)],
    to: &[(String, DataType)],
) -> Result<Vec<Option<usize>>> {
    let unnamed = |f: &[(String, DataType)]| f.iter().all(|(n, _)| n.is_empty());
    if unnamed(from) || unnamed(to) {
        if from.len() != to.len() {
            return Err(Error::binder(format!(
                "cannot cast {} to {}: an unnamed STRUCT casts by position and the field counts differ",
                DataType::Struct(from.to_vec()),
                DataType::Struct(to.to_vec())
            )));
        }
        return Ok((0..to.len()).map(Some).collect());
    }
    let mapping: Vec<Option<usize>> = to
        .iter()
        .map(|(name, _)| from.iter().position(|(n, _)| n.eq_ignore_ascii_case(name)))
        .collect();
    if mapping.iter().all(Option::is_none) {
        return Err(Error::binder(format!(
            "STRUCT to STRUCT cast must have at least one matching member, inputs are ({}) and ({})",
            DataType::Struct(from.to_vec()),
            DataType::Struct(to.to_vec())
        )));
    }
    Ok(mapping)
}

/// Whether every matched field can be cast (the binder's check).
pub(super) fn can_cast(from: &[(String, DataType)], to: &[(String, DataType)]) -> bool {
    field_mapping(from, to).is_ok_and(|m| {
        m.iter()
            .zip(to)
            .all(|(src, (_, t))| src.is_none_or(|j| super::can_cast(&from[j].1, t)))
    })
}

pub(super) fn cast(v: &Vector, to: &DataType, try_cast: bool) -> Result<Vector> {
    let (DataType::Struct(from_fields), DataType::Struct(to_fields)) = (&v.ty, to) else {
        return Err(unimplemented_cast(&v.ty, to));
    };
    let mapping = field_mapping(from_fields, to_fields)?;
    let src = v.struct_data();
    let rows = v.data_len();
    let sources: Vec<Option<&Vector>> = mapping.iter().map(|m| m.map(|j| &src.fields[j])).collect();
    let fields = cast_fields(&sources, to_fields, rows, try_cast)?;
    Ok(with_fields(v, to, fields))
}

/// `sources` (one per target field) cast to the target fields' types; NULLs where a
/// source is missing.
pub(super) fn cast_fields(
    sources: &[Option<&Vector>],
    to: &[(String, DataType)],
    rows: usize,
    try_cast: bool,
) -> Result<Vec<Vector>> {
    sources
        .iter()
        .zip(to)
        .map(|(source, (_, ty))| match source {
            Some(f) => cast_vector(f, rows, ty, try_cast),
            None => Ok(null_vector(ty, rows, false)),
        })
        .collect()
}

/// A struct-shaped vector of type `to` (a STRUCT or a UNION) holding `fields`, with
/// `v`'s rows: its validity and whether it is constant.
pub(super) fn with_fields(v: &Vector, to: &DataType, fields: Vec<Vector>) -> Vector {
    let mut out = Vector::new(
        to.clone(),
        VectorData::Struct(StructData { fields }),
        v.validity.clone(),
    );
    out.constant = v.constant;
    out
}

/// VARCHAR -> STRUCT, row by row; a malformed text is a Conversion error (NULL under
/// TRY_CAST).
pub(super) fn from_text(v: &Vector, len: usize, to: &DataType, try_cast: bool) -> Result<Vector> {
    let DataType::Struct(fields) = to else {
        return Err(unimplemented_cast(&v.ty, to));
    };
    super::from_text_rows(v, len, to, try_cast, |text| parse(text, fields))
}

/// The error for text that does not read as a value of `ty`.
pub(super) fn unreadable(text: &str, ty: &DataType) -> Error {
    Error::conversion(format!(
        "Type VARCHAR with value '{text}' can't be cast to the destination type {ty}"
    ))
}

/// The text between the braces of `{...}`.
pub(super) fn braced<'a>(text: &'a str, ty: &DataType) -> Result<&'a str> {
    text.trim()
        .strip_prefix('{')
        .and_then(|r| r.strip_suffix('}'))
        .ok_or_else(|| unreadable(text, ty))
}

fn parse(text: &str, fields: &[(String, DataType)]) -> Result<ScalarValue> {
    let ty = DataType::Struct(fields.to_vec());
    let bad = || unreadable(text, &ty);
    let inner = braced(text, &ty)?;
    let mut values = vec![ScalarValue::Null; fields.len()];
    for entry in split_top_level(inner, ',').map_err(|_| bad())? {
        if entry.trim().is_empty() && inner.trim().is_empty() {
            break;
        }
        let parts = split_top_level(&entry, ':').map_err(|_| bad())?;
        let [key, value] = parts.as_slice() else {
            return Err(bad());
        };
        let (key, _) = unquote(key.trim());
        let j = fields
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(&key))
            .ok_or_else(bad)?;
        let (value, quoted) = unquote(value.trim());
        values[j] = if !quoted && value.eq_ignore_ascii_case("null") {
            ScalarValue::Null
        } else {
            cast_scalar(&ScalarValue::Varchar(value), &fields[j].1, false)?
        };
    }
    Ok(ScalarValue::Struct(fields.to_vec(), values))
}

/// Splits at `sep` outside quotes, brackets and braces.
pub(super) fn split_top_level(s: &str, sep: char) -> std::result::Result<Vec<String>, ()> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                current.push(c);
                if c == '\\' {
                    current.extend(chars.next());
                } else if c == q {
                    quote = None;
                }
                continue;
            }
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '{' || c == '[' || c == '(' => depth += 1,
            None if c == '}' || c == ']' || c == ')' => {
                depth -= 1;
                if depth < 0 {
                    return Err(());
                }
            }
            None if c == sep && depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            None => {}
        }
        current.push(c);
    }
    if quote.is_some() || depth != 0 {
        return Err(());
    }
    parts.push(current);
    Ok(parts)
}

/// A value's text without its quotes (`'a b'`, `"a b"`, with `\'` or a doubled quote
/// inside), and whether it was quoted.
pub(super) fn unquote(s: &str) -> (String, bool) {
    let mut chars = s.chars();
    let Some(q @ ('\'' | '"')) = chars.next() else {
        return (s.to_string(), false);
    };
    if s.len() < 2 || !s.ends_with(q) {
        return (s.to_string(), false);
    }
    let body = &s[1..s.len() - 1];
    let mut out = String::with_capacity(body.len());
    let mut it = body.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\\' {
            out.extend(it.next());
        } else if c == q && it.peek() == Some(&q) {
            it.next();
            out.push(q);
        } else {
            out.push(c);
        }
    }
    (out, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ab() -> Vec<(String, DataType)> {
        vec![
            ("a".into(), DataType::Integer),
            ("b".into(), DataType::Varchar),
        ]
    }

    #[test]
    fn parses_struct_text() {
        let v = parse("{a: 1, 'b': 'x, y'}", &ab()).unwrap();
        assert_eq!(v.to_string(), "{'a': 1, 'b': 'x, y'}");
        let v = parse("{b: NULL}", &ab()).unwrap();
        assert_eq!(v.to_string(), "{'a': NULL, 'b': NULL}");
        assert!(parse("{c: 1}", &ab()).is_err());
        assert!(parse("{a: 1", &ab()).is_err());
        assert!(parse("{a: x}", &ab()).is_err());
        let nested = vec![("l".to_string(), DataType::List(Box::new(DataType::Integer)))];
        assert_eq!(
            parse("{l: [1, 2]}", &nested).unwrap().to_string(),
            "{'l': [1, 2]}"
        );
    }

    #[test]
    fn maps_fields_by_name() {
        let to = vec![
            ("B".into(), DataType::Varchar),
            ("c".into(), DataType::Integer),
        ];
        assert_eq!(field_mapping(&ab(), &to).unwrap(), vec![Some(1), None]);
        let other = vec![("z".into(), DataType::Integer)];
        assert!(field_mapping(&ab(), &other).is_err());
        let unnamed = vec![
            (String::new(), DataType::Integer),
            (String::new(), DataType::Integer),
        ];
        assert_eq!(
            field_mapping(&unnamed, &ab()).unwrap(),
            vec![Some(0), Some(1)]
        );
    }
}
