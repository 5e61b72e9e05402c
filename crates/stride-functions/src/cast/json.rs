//! Casts to and from JSON. Text becomes JSON after a check that it is one JSON
//! document (kept as written; a malformed one is a Conversion error naming the
//! byte, or NULL under TRY_CAST); any other value becomes its JSON text, as
//! `to_json` writes it. JSON becomes text as it is, and another type as
//! `json_transform_strict` reads it (`'[1,2]'::JSON::INTEGER[]`; under TRY_CAST
//! what that refuses is NULL).

use crate::kernels::make_string_vector;
use crate::scalar::json::convert::{self, Mode};
use crate::scalar::json::value;
use stride_common::{DataType, Error, Result, StringVector, Vector};

pub(super) fn from_text(v: &Vector, len: usize, try_cast: bool) -> Result<Vector> {
    let rows = if v.constant { 1 } else { len };
    let strings = v.strings();
    let mut validity = v.validity.clone();
    for i in 0..rows {
        if v.validity.is_valid(i) && !value::is_valid(strings.get(i)) {
            if !try_cast {
                let e = value::parse(strings.get(i)).expect_err("invalid");
                return Err(Error::conversion(e.message));
            }
            validity.set_invalid(i, i + 1);
        }
    }
    let mut out = v.clone();
    out.ty = DataType::Json;
    out.validity = validity;
    Ok(out)
}

pub(super) fn from_value(v: &Vector, len: usize) -> Result<Vector> {
    let rows = if v.constant { 1 } else { len };
    let mut out = StringVector::with_capacity(rows);
    let mut buf = String::new();
    for i in 0..rows {
        if v.is_valid(i) {
            buf.clear();
            convert::write_scalar(&mut buf, &v.get(i), &v.ty);
            out.push(&buf);
        } else {
            out.push("");
        }
    }
    let mut r = make_string_vector(out, v.validity.clone(), v.constant);
    r.ty = DataType::Json;
    Ok(r)
}

pub(super) fn to_type(v: &Vector, len: usize, to: &DataType, try_cast: bool) -> Result<Vector> {
    super::from_text_rows(v, len, to, try_cast, |text| {
        let j = value::parse(text).map_err(|e| Error::conversion(e.message))?;
        let mode = if try_cast { Mode::Try } else { Mode::Strict };
        convert::transform(&j, to, mode)
    })
}
