//! Casts to and from ENUM types ([`stride_common::enum_type`]). An enum value is its
//! label's position, in the integer width the enum's size asks for; these casts are
//! the only code that maps labels and positions.
//!
//! - VARCHAR → ENUM looks each text up among the labels (exactly: no trimming, case
//!   matters); one that is not a label is a Conversion error naming it and the type,
//!   or NULL under TRY_CAST.
//! - ENUM → VARCHAR gives the labels; ENUM → any other type goes through VARCHAR, as
//!   DuckDB's does (`'1'::e::INTEGER` parses the label).
//! - ENUM → ENUM maps each label to its position in the target, through a table
//!   built once per vector; a label the target lacks is a Conversion error.

use super::bad_string;
use crate::kernels::{make_string_vector, make_vector, with_integer, SqlInt};
use stride_common::{DataType, EnumType, Error, Result, StringVector, Vector};

/// VARCHAR → ENUM `e` (`to` is `DataType::Enum(e)`).
pub(super) fn from_text(
    v: &Vector,
    len: usize,
    to: &DataType,
    e: &EnumType,
    try_cast: bool,
) -> Result<Vector> {
    let rows = if v.constant { 1 } else { len };
    let strings = v.strings();
    let mut validity = v.validity.clone();
    with_integer!(e.physical(), T => {
        let mut out: Vec<T> = Vec::with_capacity(rows);
        for i in 0..rows {
            if !v.validity.is_valid(i) {
                out.push(T::ZERO);
                continue;
            }
            let s = strings.get(i);
            match e.position(s).and_then(|p| T::from_i128(p as i128)) {
                Some(p) => out.push(p),
                None if try_cast => {
                    out.push(T::ZERO);
                    validity.set_invalid(i, rows);
                }
                None => return Err(bad_string(s, to)),
            }
        }
        Ok(make_vector(to.clone(), out, validity, v.constant))
    }, _ => Err(Error::internal(format!("{to} is not stored as an integer"))))
}

/// The positions of a vector of ENUM `e`, widened to `u32`; `NULL` rows read as 0.
/// A position past the labels (a damaged value) is an Internal error.
fn positions(v: &Vector, len: usize, e: &EnumType) -> Result<Vec<u32>> {
    let rows = if v.constant { 1 } else { len };
    let out: Vec<u32> = with_integer!(e.physical(), T => {
        v.values::<T>()[..rows].iter().map(|&x| x.to_i128() as u32).collect()
    }, _ => return Err(Error::internal(format!("{} is not stored as an integer", v.ty))));
    if let Some(i) = (0..rows).find(|&i| v.validity.is_valid(i) && out[i] as usize >= e.len()) {
        return Err(Error::internal(format!(
            "a value of {} holds position {}, past its {} labels",
            v.ty,
            out[i],
            e.len()
        )));
    }
    Ok(out)
}

/// ENUM `e` → VARCHAR: each row's label.
pub(super) fn to_text(v: &Vector, len: usize, e: &EnumType) -> Result<Vector> {
    let rows = if v.constant { 1 } else { len };
    let pos = positions(v, len, e)?;
    let mut out = StringVector::with_capacity(rows);
    for (i, &p) in pos.iter().enumerate() {
        if v.validity.is_valid(i) {
            out.push(e.label(p as usize).unwrap_or_default());
        } else {
            out.push("");
        }
    }
    Ok(make_string_vector(out, v.validity.clone(), v.constant))
}

/// ENUM `from` → ENUM `to_enum` (`to` is its `DataType`), label by label.
pub(super) fn to_enum(
    v: &Vector,
    len: usize,
    from: &EnumType,
    to: &DataType,
    to_enum: &EnumType,
    try_cast: bool,
) -> Result<Vector> {
    let rows = if v.constant { 1 } else { len };
    let pos = positions(v, len, from)?;
    let map: Vec<Option<u32>> = from.labels().iter().map(|l| to_enum.position(l)).collect();
    let mut validity = v.validity.clone();
    with_integer!(to_enum.physical(), T => {
        let mut out: Vec<T> = Vec::with_capacity(rows);
        for (i, &p) in pos.iter().enumerate() {
            if !v.validity.is_valid(i) {
                out.push(T::ZERO);
                continue;
            }
            match map[p as usize].and_then(|q| T::from_i128(q as i128)) {
                Some(q) => out.push(q),
                None if try_cast => {
                    out.push(T::ZERO);
                    validity.set_invalid(i, rows);
                }
                None => {
                    return Err(Error::conversion(format!(
                        "Type {} with value {} can't be cast to the destination type {to}",
                        v.ty,
                        from.label(p as usize).unwrap_or_default()
                    )))
                }
            }
        }
        Ok(make_vector(to.clone(), out, validity, v.constant))
    }, _ => Err(Error::internal(format!("{to} is not stored as an integer"))))
}

#[cfg(test)]
mod tests {
    use crate::cast::cast_scalar;
    use stride_common::{DataType, EnumType, ErrorKind, ScalarValue};

    fn mood() -> EnumType {
        EnumType::new(
            Some("mood".into()),
            vec!["sad".into(), "ok".into(), "happy".into()],
        )
        .unwrap()
    }

    #[test]
    fn labels_both_ways() {
        let e = mood();
        let ty = DataType::Enum(e.clone());
        let ok = cast_scalar(&ScalarValue::Varchar("ok".into()), &ty, false).unwrap();
        assert_eq!(ok, ScalarValue::Enum(e.clone(), 1));
        assert_eq!(
            cast_scalar(&ok, &DataType::Varchar, false).unwrap(),
            ScalarValue::Varchar("ok".into())
        );
        let err = cast_scalar(&ScalarValue::Varchar("x".into()), &ty, false).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Conversion);
        assert_eq!(
            err.message,
            "Could not convert string 'x' to ENUM('sad', 'ok', 'happy')"
        );
        assert_eq!(
            cast_scalar(&ScalarValue::Varchar("x".into()), &ty, true).unwrap(),
            ScalarValue::Null
        );
    }

    #[test]
    fn enum_to_enum() {
        let e = mood();
        let other = EnumType::new(None, vec!["happy".into(), "x".into()]).unwrap();
        let to = DataType::Enum(other.clone());
        assert_eq!(
            cast_scalar(&ScalarValue::Enum(e.clone(), 2), &to, false).unwrap(),
            ScalarValue::Enum(other, 0)
        );
        let err = cast_scalar(&ScalarValue::Enum(e.clone(), 1), &to, false).unwrap_err();
        assert_eq!(
            err.message,
            "Type ENUM('sad', 'ok', 'happy') with value ok can't be cast to the destination type ENUM('happy', 'x')"
        );
        assert_eq!(
            cast_scalar(&ScalarValue::Enum(e, 1), &to, true).unwrap(),
            ScalarValue::Null
        );
    }
}
