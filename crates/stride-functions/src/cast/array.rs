//! Casts to the fixed-size ARRAY type `T[n]`: from a LIST or another ARRAY, every
//! non-NULL row must hold exactly `n` elements (a Conversion error naming the length,
//! or NULL under TRY_CAST), and the elements are cast as one vector. An ARRAY casts
//! to a LIST like a list does (`list.rs`), and text reads as a list first.

use super::{cast_vector, list};
use stride_common::vector::ListData;
use stride_common::{DataType, Error, Result, Vector, VectorData};

pub(super) fn to_array(v: &Vector, len: usize, to: &DataType, try_cast: bool) -> Result<Vector> {
    let DataType::Array(elem, n) = to else {
        return Err(super::unimplemented_cast(&v.ty, to));
    };
    let n = *n as usize;
    let rows = if v.constant { 1 } else { len };
    let src = v.list();
    let wrong = (0..rows)
        .find(|&i| v.validity.is_valid(i) && (src.offsets[i + 1] - src.offsets[i]) as usize != n);
    if let Some(i) = wrong {
        let got = (src.offsets[i + 1] - src.offsets[i]) as usize;
        if !try_cast {
            return Err(Error::conversion(format!(
                "Cannot cast list with length {got} to array with length {n}"
            )));
        }
        // TRY_CAST: the rows of another length become NULL, holding no elements
        let mut keep = Vec::with_capacity(rows);
        let mut validity = v.validity.clone();
        for r in 0..rows {
            if v.validity.is_valid(r) && (src.offsets[r + 1] - src.offsets[r]) as usize != n {
                validity.set_invalid(r, rows);
            }
            keep.push(validity.is_valid(r));
        }
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0u32);
        let mut take = Vec::new();
        for (r, &k) in keep.iter().enumerate() {
            if k {
                take.extend(src.offsets[r]..src.offsets[r + 1]);
            }
            offsets.push(take.len() as u32);
        }
        let child = cast_vector(&src.child.take(&take), take.len(), elem, true)?;
        let mut out = Vector::new(
            to.clone(),
            VectorData::List(ListData {
                offsets,
                child: Box::new(child),
            }),
            validity,
        );
        out.constant = v.constant;
        return Ok(out);
    }
    list::cast(v, len, to, try_cast)
}

#[cfg(test)]
mod tests {
    use crate::cast::cast_scalar;
    use stride_common::{DataType, ScalarValue};

    #[test]
    fn lists_become_arrays_of_their_length() {
        let l = ScalarValue::List(
            DataType::Integer,
            vec![ScalarValue::Integer(1), ScalarValue::Integer(2)],
        );
        let two = DataType::Array(Box::new(DataType::Double), 2);
        let three = DataType::Array(Box::new(DataType::Double), 3);
        assert_eq!(
            cast_scalar(&l, &two, false).unwrap().to_string(),
            "[1.0, 2.0]"
        );
        let e = cast_scalar(&l, &three, false).unwrap_err();
        assert!(
            e.message.contains("length 2 to array with length 3"),
            "{e:?}"
        );
        assert_eq!(cast_scalar(&l, &three, true).unwrap(), ScalarValue::Null);
    }
}
