//! VARCHAR -> MAP: reads the map text stride prints (`{a=1, b=2}`), keys and values
//! quoted or bare, nested lists, structs and maps inside. Keys must be unique and not
//! NULL, as in any MAP. (MAP -> MAP casts the entries as a list, `list.rs`.)

use super::structs::{braced, split_top_level, unquote, unreadable};
use super::{cast_scalar, unimplemented_cast};
use stride_common::{DataType, Error, Result, ScalarValue, Vector};

pub(super) fn from_text(v: &Vector, len: usize, to: &DataType, try_cast: bool) -> Result<Vector> {
    let DataType::Map(k, x) = to else {
        return Err(unimplemented_cast(&v.ty, to));
    };
    super::from_text_rows(v, len, to, try_cast, |text| parse(text, k, x))
}

fn parse(text: &str, key_ty: &DataType, value_ty: &DataType) -> Result<ScalarValue> {
    let ty = DataType::Map(Box::new(key_ty.clone()), Box::new(value_ty.clone()));
    let bad = || unreadable(text, &ty);
    let inner = braced(text, &ty)?;
    let mut entries: Vec<(ScalarValue, ScalarValue)> = Vec::new();
    if inner.trim().is_empty() {
        return Ok(ScalarValue::Map(key_ty.clone(), value_ty.clone(), entries));
    }
    for entry in split_top_level(inner, ',').map_err(|_| bad())? {
        let parts = split_top_level(&entry, '=').map_err(|_| bad())?;
        let [key, value] = parts.as_slice() else {
            return Err(bad());
        };
        let read = |t: &str, ty: &DataType| -> Result<ScalarValue> {
            let (t, quoted) = unquote(t.trim());
            if !quoted && t.eq_ignore_ascii_case("null") {
                return Ok(ScalarValue::Null);
            }
            cast_scalar(&ScalarValue::Varchar(t), ty, false)
        };
        let key = read(key, key_ty)?;
        if key.is_null() {
            return Err(Error::invalid_input("Map keys can not be NULL."));
        }
        if entries.iter().any(|(k, _)| k.total_cmp(&key).is_eq()) {
            return Err(Error::invalid_input("Map keys must be unique."));
        }
        entries.push((key, read(value, value_ty)?));
    }
    Ok(ScalarValue::Map(key_ty.clone(), value_ty.clone(), entries))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_map_text() {
        let m = parse("{a=1, 'b c'=NULL}", &DataType::Varchar, &DataType::Integer).unwrap();
        assert_eq!(m.to_string(), "{a=1, b c=NULL}");
        assert!(parse("{a=1, a=2}", &DataType::Varchar, &DataType::Integer).is_err());
        assert!(parse("{NULL=1}", &DataType::Varchar, &DataType::Integer).is_err());
        assert!(parse("{a:1}", &DataType::Varchar, &DataType::Integer).is_err());
        let nested = parse(
            "{1=[1, 2]}",
            &DataType::Integer,
            &DataType::List(Box::new(DataType::Integer)),
        )
        .unwrap();
        assert_eq!(nested.to_string(), "{1=[1, 2]}");
    }
}
