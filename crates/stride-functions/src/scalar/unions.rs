//! Functions over UNION values: `union_tag(u)` (the member's name, as an ENUM of the
//! member names) and `union_extract(u, 'name')` (the member's value, NULL where
//! another member is the tag's; `u.name` binds to it). A union is stored as a struct
//! of its tag and its members ([`stride_common::union_type`]), so reading a member
//! moves that member's vector and masks the rows of other tags. `union_value(k := v)`
//! is a cast into a one-member union, bound in the binder.

use super::signature::bind;
use super::{BoundFunction, ScalarFunction};
use stride_common::enum_type::EnumType;
use stride_common::union_type::position;
use stride_common::{DataType, Error, Result, ScalarValue, Vector};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnionFunction {
    /// `union_tag(u)`
    Tag,
    /// `union_extract(u, name)`: the name is constant.
    Extract,
}

impl UnionFunction {
    /// The SQL name (EXPLAIN, column names).
    pub fn name(self) -> &'static str {
        match self {
            UnionFunction::Tag => "union_tag",
            UnionFunction::Extract => "union_extract",
        }
    }
}

/// The ENUM of a union's member names, in order: `union_tag`'s type.
fn tag_type(members: &[(String, DataType)]) -> Option<EnumType> {
    EnumType::new(None, members.iter().map(|(n, _)| n.clone()).collect()).ok()
}

pub(crate) fn resolve_tag(args: &[DataType]) -> Option<BoundFunction> {
    let [u @ DataType::Union(members)] = args else {
        return None;
    };
    let ret = DataType::Enum(tag_type(members)?);
    bind(
        ScalarFunction::Union(UnionFunction::Tag),
        vec![u.clone()],
        ret,
    )
}

/// `union_extract(u, name)`: the return type is the member's, fixed by
/// [`specialize_extract`] once the name is known.
pub(crate) fn resolve_extract(args: &[DataType]) -> Option<BoundFunction> {
    let [u @ DataType::Union(_), name] = args else {
        return None;
    };
    if !name.can_implicitly_cast_to(&DataType::Varchar) {
        return None;
    }
    bind(
        ScalarFunction::Union(UnionFunction::Extract),
        vec![u.clone(), DataType::Varchar],
        DataType::Null,
    )
}

/// The member `name` names, with DuckDB's errors for a missing or unknown one.
fn member(members: &[(String, DataType)], name: Option<&ScalarValue>) -> Result<usize> {
    let name =
        match name {
            Some(ScalarValue::Varchar(n)) => n,
            _ => return Err(Error::binder(
                "The \"tag\" argument in function \"union_extract\" must be a constant expression",
            )),
        };
    if name.is_empty() {
        return Err(Error::binder(
            "Key name for union_extract must not be empty",
        ));
    }
    position(members, name)
        .ok_or_else(|| Error::binder(format!("Could not find key \"{name}\" in union")))
}

pub fn specialize_extract(f: &mut BoundFunction, constants: &[Option<ScalarValue>]) -> Result<()> {
    let DataType::Union(members) = &f.arg_types[0] else {
        return Err(Error::internal("union_extract of a non-union"));
    };
    let i = member(members, constants.get(1).and_then(|c| c.as_ref()))?;
    f.return_type = members[i].1.clone();
    Ok(())
}

pub fn evaluate(
    f: &BoundFunction,
    func: UnionFunction,
    args: &[Vector],
    len: usize,
) -> Result<Vector> {
    let u = &args[0];
    let DataType::Union(members) = &u.ty else {
        return Err(Error::internal("a union function over a non-union"));
    };
    let rows = if u.constant { 1 } else { len };
    let tags = &u.struct_data().fields[0];
    // the member a valid row holds
    let tag = |i: usize| -> Option<usize> {
        (u.validity.is_valid(i) && tags.is_valid(i)).then(|| tags.values::<i16>()[i] as usize)
    };
    match func {
        UnionFunction::Tag => {
            let DataType::Enum(e) = &f.return_type else {
                return Err(Error::internal("union_tag's type is an ENUM"));
            };
            let mut out = Vector::with_capacity(&f.return_type, rows);
            for i in 0..rows {
                match tag(i) {
                    Some(t) => out.push(&ScalarValue::Enum(e.clone(), t as u32))?,
                    None => out.push_null(),
                }
            }
            out.constant = u.constant;
            Ok(out)
        }
        UnionFunction::Extract => {
            let k = member(members, Some(&args[1].get(0)))?;
            let mut value = super::structs::extract(u, k + 1);
            let n = value.data_len();
            for i in 0..rows.min(n) {
                if tag(i) != Some(k) {
                    value.validity.set_invalid(i, n);
                }
            }
            Ok(value)
        }
    }
}
