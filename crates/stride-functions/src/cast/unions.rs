//! Casts into and between UNION types. A value of another type becomes the member
//! [`union_type::member_for`] picks (the member of its type, else the one it casts
//! to implicitly most readily), as DuckDB casts it; a NULL of that type becomes a
//! tagged NULL (the union is valid, its member NULL). Between unions, members match by
//! name: each row keeps its member, retagged, and its value is cast to the target
//! member's type; a source member the target lacks is an error. A union becomes text
//! as its member's value (`to_varchar.rs`) and JSON as `{"name": value}`.

use crate::kernels::{null_vector, unary};
use crate::scalar::structs;
use stride_common::union_type::{self, member_for, member_map};
use stride_common::{DataType, Result, ScalarValue, Vector};

/// A value of another type into the union `to` of `members`.
pub(super) fn into_union(
    v: &Vector,
    len: usize,
    members: &[(String, DataType)],
    to: &DataType,
    try_cast: bool,
) -> Result<Vector> {
    let tag = member_for(members, &v.ty)?;
    let value = super::cast_vector(v, len, &members[tag].1, try_cast)?;
    let mut fields = Vec::with_capacity(members.len() + 1);
    fields.push(Vector::constant(
        &ScalarValue::UTinyInt(tag as u8),
        &DataType::UTinyInt,
    )?);
    for (k, (_, t)) in members.iter().enumerate() {
        fields.push(match k == tag {
            true => value.clone(),
            false => null_vector(t, len, true),
        });
    }
    Ok(structs::pack(to, &fields, len))
}

/// A union of `from` members into the union `to` of `to_members`.
pub(super) fn between(
    v: &Vector,
    len: usize,
    from: &[(String, DataType)],
    to_members: &[(String, DataType)],
    to: &DataType,
    try_cast: bool,
) -> Result<Vector> {
    let map = member_map(from, to_members)?;
    let rows = if v.constant { 1 } else { len };
    let source = v.struct_data();
    let retag: Vec<i16> = map.iter().map(|&m| m as i16).collect();
    let mut fields = vec![unary(
        &source.fields[0],
        rows,
        DataType::UTinyInt,
        |t: i16| retag.get(t as usize).copied().unwrap_or(t),
    )];
    // each target member's source member, where the source has it
    let sources: Vec<Option<&Vector>> = (0..to_members.len())
        .map(|j| {
            map.iter()
                .position(|&m| m == j)
                .map(|i| &source.fields[i + 1])
        })
        .collect();
    fields.extend(super::structs::cast_fields(
        &sources, to_members, rows, try_cast,
    )?);
    Ok(super::structs::with_fields(v, to, fields))
}

/// Whether a cast into `members` exists from `from` (a union or not).
pub(super) fn can_cast(from: &DataType, members: &[(String, DataType)]) -> bool {
    match from {
        DataType::Union(f) => union_type::member_map(f, members).is_ok(),
        f => member_for(members, f).is_ok(),
    }
}
