//! Functions over STRUCT values: building one (`struct_pack`, `row`, the `{'a': 1}`
//! literal, `(1, 'x')`), reading a field (`struct_extract`, `s.a`, `s['a']`,
//! `struct_extract_at`), `struct_keys`, `struct_values`, and the searches of unnamed
//! structs (`struct_contains`, `struct_position`). A struct's fields are vectors of
//! their own, so building and reading fields moves vectors, not values.
//! `struct_insert`, `struct_update` and `struct_concat` are rewritten by the binder
//! into a `struct_pack` of the fields they keep and the values they add.

use super::signature::bind;
use super::{BoundFunction, ScalarFunction};
use crate::kernels::map_rows;
use stride_common::vector::StructData;
use stride_common::{DataType, Error, Result, ScalarValue, Validity, Vector, VectorData};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StructFunction {
    /// `struct_pack(a := x, ...)`, `row(x, ...)`: the field names are the return type's.
    Pack,
    /// `struct_extract(s, key)`: the key (a name, or for unnamed fields a 1-based
    /// position) is constant.
    Extract,
    /// `struct_extract_at(s, position)`: a 1-based position, named fields or not.
    ExtractAt,
    /// `struct_keys(s)`: the field names as a list.
    Keys,
    /// `struct_values(s)`: the same fields, unnamed.
    Values,
    /// `struct_contains(s, x)` / `struct_has`: whether a field equals `x`.
    Contains,
    /// `struct_position(s, x)` / `struct_indexof`: the first field equal to `x`.
    Position,
}

impl StructFunction {
    /// The SQL name (EXPLAIN, column names).
    pub fn name(self) -> &'static str {
        match self {
            StructFunction::Pack => "struct_pack",
            StructFunction::Extract => "struct_extract",
            StructFunction::ExtractAt => "struct_extract_at",
            StructFunction::Keys => "struct_keys",
            StructFunction::Values => "struct_values",
            StructFunction::Contains => "struct_contains",
            StructFunction::Position => "struct_position",
        }
    }
}

/// `struct_pack` with the given field names (empty names: `row`). A name given twice
/// is an error, as in DuckDB.
pub fn bind_pack(names: &[String], types: &[DataType]) -> Result<BoundFunction> {
    if types.is_empty() {
        return Err(Error::binder("a STRUCT needs at least one field"));
    }
    for (i, n) in names.iter().enumerate() {
        if !n.is_empty() && names[..i].iter().any(|m| m.eq_ignore_ascii_case(n)) {
            return Err(Error::binder(format!(
                "Duplicate struct entry name \"{n}\""
            )));
        }
    }
    let fields = names.iter().cloned().zip(types.iter().cloned()).collect();
    Ok(BoundFunction::new(
        ScalarFunction::Struct(StructFunction::Pack),
        types.to_vec(),
        DataType::Struct(fields),
    ))
}

/// `row(x, ...)`: a struct of unnamed fields.
pub(crate) fn resolve_row(args: &[DataType]) -> Option<BoundFunction> {
    bind_pack(&vec![String::new(); args.len()], args).ok()
}

/// `struct_extract(s, key)`, `struct_extract_at(s, position)`: the return type is
/// fixed by [`specialize_extract`] once the key's value is known.
pub(crate) fn resolve_extract(args: &[DataType], by_position: bool) -> Option<BoundFunction> {
    let [s @ DataType::Struct(_), key] = args else {
        return None;
    };
    let key = if by_position || key.is_integer() {
        if !key.can_implicitly_cast_to(&DataType::BigInt) {
            return None;
        }
        DataType::BigInt
    } else if key.can_implicitly_cast_to(&DataType::Varchar) {
        DataType::Varchar
    } else {
        return None;
    };
    let func = if by_position {
        StructFunction::ExtractAt
    } else {
        StructFunction::Extract
    };
    bind(
        ScalarFunction::Struct(func),
        vec![s.clone(), key],
        DataType::Null,
    )
}

pub(crate) fn resolve_keys(args: &[DataType]) -> Option<BoundFunction> {
    let [s @ DataType::Struct(_)] = args else {
        return None;
    };
    bind(
        ScalarFunction::Struct(StructFunction::Keys),
        vec![s.clone()],
        DataType::List(Box::new(DataType::Varchar)),
    )
}

pub(crate) fn resolve_values(args: &[DataType]) -> Option<BoundFunction> {
    let [s @ DataType::Struct(fields)] = args else {
        return None;
    };
    let unnamed = fields.iter().map(|(_, t)| (String::new(), t.clone()));
    bind(
        ScalarFunction::Struct(StructFunction::Values),
        vec![s.clone()],
        DataType::Struct(unnamed.collect()),
    )
}

/// `struct_contains(s, x)` and `struct_position(s, x)`: `x` is compared with each
/// field as their common type, so only unnamed structs with one such type qualify.
pub(crate) fn resolve_search(args: &[DataType], position: bool) -> Option<BoundFunction> {
    let [s @ DataType::Struct(fields), x] = args else {
        return None;
    };
    if fields.iter().any(|(n, _)| !n.is_empty()) {
        return None;
    }
    if !fields
        .iter()
        .all(|(_, t)| DataType::common_supertype(t, x).is_some())
    {
        return None;
    }
    let (func, ret) = if position {
        (StructFunction::Position, DataType::Integer)
    } else {
        (StructFunction::Contains, DataType::Boolean)
    };
    bind(
        ScalarFunction::Struct(func),
        vec![s.clone(), x.clone()],
        ret,
    )
}

/// The field a `struct_extract` key names: a name (case-insensitive) or a 1-based
/// position. Integer keys on named structs need `struct_extract_at`.
pub fn field_index(fields: &[(String, DataType)], key: &ScalarValue) -> Result<usize> {
    let struct_ty = || DataType::Struct(fields.to_vec());
    match key {
        ScalarValue::Varchar(name) => fields
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
                Error::binder(format!(
                    "Could not find key \"{name}\" in struct {}: its keys are {}",
                    struct_ty(),
                    names.join(", ")
                ))
            }),
        ScalarValue::Null => Err(Error::binder("the key of struct_extract cannot be NULL")),
        other => {
            let i = other.as_i64().ok_or_else(|| {
                Error::binder("the key of struct_extract must be a name or a position")
            })?;
            if i < 1 || i as usize > fields.len() {
                return Err(Error::binder(format!(
                    "Key index {i} for struct_extract out of range - expected an index between 1 and {}",
                    fields.len()
                )));
            }
            Ok(i as usize - 1)
        }
    }
}

/// Fixes a `struct_extract`'s return type from its constant key.
pub fn specialize_extract(f: &mut BoundFunction, constants: &[Option<ScalarValue>]) -> Result<()> {
    let DataType::Struct(fields) = &f.arg_types[0] else {
        return Err(Error::internal("struct_extract of a non-struct"));
    };
    let Some(Some(key)) = constants.get(1) else {
        return Err(Error::binder(
            "Key name for struct_extract needs to be a constant string",
        ));
    };
    if f.arg_types[1] == DataType::BigInt
        && key.as_i64().is_some()
        && fields.iter().any(|(n, _)| !n.is_empty())
        && f.func == ScalarFunction::Struct(StructFunction::Extract)
    {
        return Err(Error::binder(
            "struct_extract with an integer key can only be used on unnamed structs, use a string key instead",
        ));
    }
    let i = field_index(fields, key)?;
    f.return_type = fields[i].1.clone();
    Ok(())
}

pub fn evaluate(
    f: &BoundFunction,
    func: StructFunction,
    args: &[Vector],
    len: usize,
) -> Result<Vector> {
    match func {
        StructFunction::Pack => Ok(pack(&f.return_type, args, len)),
        StructFunction::Extract | StructFunction::ExtractAt => {
            let DataType::Struct(fields) = &args[0].ty else {
                return Err(Error::internal("struct_extract of a non-struct"));
            };
            let i = field_index(fields, &args[1].get(0))?;
            Ok(extract(&args[0], i))
        }
        StructFunction::Keys => {
            let DataType::Struct(fields) = &args[0].ty else {
                return Err(Error::internal("struct_keys of a non-struct"));
            };
            let keys = ScalarValue::List(
                DataType::Varchar,
                fields
                    .iter()
                    .map(|(n, _)| ScalarValue::Varchar(n.clone()))
                    .collect(),
            );
            let s = &args[0];
            let rows = if s.constant { 1 } else { len };
            let mut out = Vector::with_capacity(&f.return_type, rows);
            for i in 0..rows {
                if s.is_valid(i) {
                    out.push(&keys)?;
                } else {
                    out.push_null();
                }
            }
            out.constant = s.constant;
            Ok(out)
        }
        StructFunction::Values => {
            let mut out = args[0].clone();
            out.ty = f.return_type.clone();
            Ok(out)
        }
        StructFunction::Contains | StructFunction::Position => {
            let (s, x) = (&args[0], &args[1]);
            let find = |i: usize| -> Option<usize> {
                let ScalarValue::Struct(_, values) = s.get(i) else {
                    return None;
                };
                let needle = x.get(i);
                values
                    .iter()
                    .position(|v| !v.is_null() && v.total_cmp(&needle) == std::cmp::Ordering::Equal)
            };
            if func == StructFunction::Contains {
                map_rows(&[s, x], len, DataType::Boolean, |i| Ok(find(i).is_some()))
            } else {
                map_rows(&[s, x], len, DataType::Integer, |i| {
                    Ok(find(i).map_or(0, |p| p as i32 + 1))
                })
            }
        }
    }
}

/// A struct whose fields are `args` (constant when every argument is).
pub(crate) fn pack(ty: &DataType, args: &[Vector], len: usize) -> Vector {
    let constant = args.iter().all(|a| a.constant);
    let rows = if constant { 1 } else { len };
    let fields = args
        .iter()
        .map(|a| {
            let mut f = if constant {
                a.clone()
            } else {
                a.clone().flatten(len)
            };
            f.constant = false;
            if f.data_len() > rows {
                f = f.slice(0, rows);
            }
            f
        })
        .collect();
    let mut out = Vector::new(
        ty.clone(),
        VectorData::Struct(StructData { fields }),
        Validity::all_valid(),
    );
    out.constant = constant;
    out
}

/// Field `i` of each row; NULL where the struct is NULL.
pub fn extract(s: &Vector, i: usize) -> Vector {
    let mut field = s.struct_data().fields[i].clone();
    if s.validity.has_nulls() {
        let n = field.data_len();
        for r in 0..n {
            if !s.validity.is_valid(r) {
                field.validity.set_invalid(r, n);
            }
        }
    }
    field.constant = s.constant;
    field
}
