//! LIST -> LIST: casts the child vector as a whole and keeps the offsets, so a list
//! cast costs one vectorized cast of all elements.

use super::cast_vector;
use stride_common::vector::ListData;
use stride_common::{DataType, Result, Vector, VectorData};

pub(super) fn cast(v: &Vector, _len: usize, to: &DataType, try_cast: bool) -> Result<Vector> {
    let DataType::List(inner) = to else {
        return Err(super::unimplemented_cast(&v.ty, to));
    };
    let list = v.list();
    let child_len = list.child.data_len();
    let child = cast_vector(&list.child, child_len, inner, try_cast)?;
    let data = VectorData::List(ListData {
        offsets: list.offsets.clone(),
        child: Box::new(child),
    });
    let mut out = Vector::new(to.clone(), data, v.validity.clone());
    out.constant = v.constant;
    Ok(out)
}
