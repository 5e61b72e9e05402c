//! Functions over MAP values: building one (`map(keys, values)`, `map_from_entries`,
//! the `MAP {k: v}` literal), reading it (`map_extract` / `element_at`,
//! `map_extract_value` and `m[k]`, `map_keys`, `map_values`, `map_entries`,
//! `cardinality`), searching it (`map_contains`, `map_contains_value`,
//! `map_contains_entry`) and `map_concat`. A MAP is a list of `STRUCT(key, value)`
//! entries, so `map_entries` only changes the type; the others work row by row on
//! the entries, as maps are small.

use super::signature::bind;
use super::{BoundFunction, ScalarFunction};
use crate::kernels::map_rows;
use stride_common::{DataType, Error, Result, ScalarValue, Vector};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MapFunction {
    /// `map(keys, values)`; `map()` is the empty map.
    FromLists,
    FromEntries,
    /// `map_extract(m, k)`, `element_at`: a list of the value, or empty.
    Extract,
    /// `map_extract_value(m, k)`, `m[k]`: the value, or NULL.
    ExtractValue,
    Keys,
    Values,
    Entries,
    Cardinality,
    Contains,
    ContainsValue,
    ContainsEntry,
    Concat,
}

impl MapFunction {
    /// The SQL name (EXPLAIN, column names).
    pub fn name(self) -> &'static str {
        match self {
            MapFunction::FromLists => "map",
            MapFunction::FromEntries => "map_from_entries",
            MapFunction::Extract => "map_extract",
            MapFunction::ExtractValue => "map_extract_value",
            MapFunction::Keys => "map_keys",
            MapFunction::Values => "map_values",
            MapFunction::Entries => "map_entries",
            MapFunction::Cardinality => "cardinality",
            MapFunction::Contains => "map_contains",
            MapFunction::ContainsValue => "map_contains_value",
            MapFunction::ContainsEntry => "map_contains_entry",
            MapFunction::Concat => "map_concat",
        }
    }
}

fn key_value(t: &DataType) -> Option<(&DataType, &DataType)> {
    match t {
        DataType::Map(k, v) => Some((k, v)),
        _ => None,
    }
}

fn map_type(k: DataType, v: DataType) -> DataType {
    DataType::Map(Box::new(k), Box::new(v))
}

pub(crate) fn resolve(f: MapFunction, args: &[DataType]) -> Option<BoundFunction> {
    use MapFunction as M;
    let func = ScalarFunction::Map(f);
    match (f, args) {
        (M::FromLists, []) => bind(func, vec![], map_type(DataType::Null, DataType::Null)),
        (M::FromLists, [DataType::List(k), DataType::List(v)]) => {
            bind(func, args.to_vec(), map_type((**k).clone(), (**v).clone()))
        }
        (M::FromEntries, [DataType::List(e)]) => match &**e {
            DataType::Struct(fields) if fields.len() == 2 => bind(
                func,
                args.to_vec(),
                map_type(fields[0].1.clone(), fields[1].1.clone()),
            ),
            _ => None,
        },
        (M::Extract | M::ExtractValue | M::Contains, [m, k]) => {
            let (mk, mv) = key_value(m)?;
            let kt = DataType::common_supertype(mk, k)?;
            let m = map_type(kt.clone(), mv.clone());
            let ret = match f {
                M::Extract => DataType::List(Box::new(mv.clone())),
                M::ExtractValue => mv.clone(),
                _ => DataType::Boolean,
            };
            bind(func, vec![m, kt], ret)
        }
        (M::ContainsValue, [m, x]) => {
            let (mk, mv) = key_value(m)?;
            let vt = DataType::common_supertype(mv, x)?;
            bind(
                func,
                vec![map_type(mk.clone(), vt.clone()), vt],
                DataType::Boolean,
            )
        }
        (M::ContainsEntry, [m, k, x]) => {
            let (mk, mv) = key_value(m)?;
            let kt = DataType::common_supertype(mk, k)?;
            let vt = DataType::common_supertype(mv, x)?;
            bind(
                func,
                vec![map_type(kt.clone(), vt.clone()), kt, vt],
                DataType::Boolean,
            )
        }
        (M::Keys | M::Values | M::Entries | M::Cardinality, [m]) => {
            let (k, v) = key_value(m)?;
            let ret = match f {
                M::Keys => DataType::List(Box::new(k.clone())),
                M::Values => DataType::List(Box::new(v.clone())),
                M::Entries => DataType::List(Box::new(DataType::map_entry(k, v))),
                _ => DataType::BigInt,
            };
            bind(func, vec![m.clone()], ret)
        }
        (M::Concat, [first, rest @ ..]) => {
            let mut t = first.clone();
            key_value(&t)?;
            for m in rest {
                t = DataType::common_supertype(&t, m)?;
            }
            bind(func, vec![t.clone(); args.len()], t)
        }
        _ => None,
    }
}

/// Row `i` of a map vector as its entries (None for NULL).
fn entries(m: &Vector, i: usize) -> Option<Vec<(ScalarValue, ScalarValue)>> {
    match m.get(i) {
        ScalarValue::Map(_, _, e) => Some(e),
        _ => None,
    }
}

/// A map of checked entries: keys not NULL and unique.
fn checked(
    k: &DataType,
    v: &DataType,
    pairs: Vec<(ScalarValue, ScalarValue)>,
) -> Result<ScalarValue> {
    for (i, (key, _)) in pairs.iter().enumerate() {
        if key.is_null() {
            return Err(Error::invalid_input("Map keys can not be NULL."));
        }
        if pairs[..i].iter().any(|(x, _)| x.total_cmp(key).is_eq()) {
            return Err(Error::invalid_input("Map keys must be unique."));
        }
    }
    Ok(ScalarValue::Map(k.clone(), v.clone(), pairs))
}

/// Builds `ty` row by row from `f`; a row with a NULL argument among `strict` is
/// NULL. Constant when every argument is.
fn build_rows(
    args: &[Vector],
    strict: usize,
    len: usize,
    ty: &DataType,
    mut f: impl FnMut(usize) -> Result<ScalarValue>,
) -> Result<Vector> {
    let constant = args.iter().all(|a| a.constant);
    let rows = if constant { 1 } else { len };
    let mut out = Vector::with_capacity(ty, rows);
    for i in 0..rows {
        if args[..strict].iter().any(|a| !a.is_valid(i)) {
            out.push_null();
        } else {
            out.push(&f(i)?)?;
        }
    }
    out.constant = constant;
    Ok(out)
}

pub fn evaluate(
    f: &BoundFunction,
    func: MapFunction,
    args: &[Vector],
    len: usize,
) -> Result<Vector> {
    use MapFunction as M;
    let ret = &f.return_type;
    let (rk, rv) = key_value(ret)
        .map(|(k, v)| (k.clone(), v.clone()))
        .unwrap_or((DataType::Null, DataType::Null));
    let find = |m: &Vector, i: usize, key: &ScalarValue| -> Option<ScalarValue> {
        entries(m, i)?
            .into_iter()
            .find(|(k, _)| k.total_cmp(key).is_eq())
            .map(|(_, v)| v)
    };
    match func {
        M::FromLists if args.is_empty() => {
            let mut out = Vector::with_capacity(ret, 1);
            out.push(&ScalarValue::Map(rk, rv, vec![]))?;
            out.constant = true;
            Ok(out)
        }
        M::FromLists => build_rows(args, 2, len, ret, |i| {
            let (ScalarValue::List(_, keys), ScalarValue::List(_, values)) =
                (args[0].get(i), args[1].get(i))
            else {
                return Err(Error::internal("map() of non-lists"));
            };
            if keys.len() != values.len() {
                return Err(Error::invalid_input(format!(
                    "map() needs as many keys as values: {} keys and {} values",
                    keys.len(),
                    values.len()
                )));
            }
            checked(&rk, &rv, keys.into_iter().zip(values).collect())
        }),
        M::FromEntries => build_rows(args, 1, len, ret, |i| {
            let ScalarValue::List(_, items) = args[0].get(i) else {
                return Err(Error::internal("map_from_entries of a non-list"));
            };
            let mut pairs = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    ScalarValue::Struct(_, mut kv) if kv.len() == 2 => {
                        let v = kv.pop().expect("2");
                        pairs.push((kv.pop().expect("1"), v));
                    }
                    _ => {
                        return Err(Error::invalid_input(
                            "map_from_entries cannot take a NULL entry",
                        ))
                    }
                }
            }
            checked(&rk, &rv, pairs)
        }),
        M::Extract => build_rows(args, 1, len, ret, |i| {
            let DataType::List(vt) = ret else {
                return Err(Error::internal("map_extract returns a list"));
            };
            let key = args[1].get(i);
            Ok(ScalarValue::List(
                (**vt).clone(),
                find(&args[0], i, &key).into_iter().collect(),
            ))
        }),
        M::ExtractValue => build_rows(args, 1, len, ret, |i| {
            Ok(find(&args[0], i, &args[1].get(i)).unwrap_or(ScalarValue::Null))
        }),
        M::Keys | M::Values => {
            let field = if func == M::Keys { 0 } else { 1 };
            let m = &args[0];
            let list = m.list();
            let child = super::structs::extract(&list.child, field);
            let mut out = m.clone();
            out.ty = ret.clone();
            out.data = stride_common::VectorData::List(stride_common::vector::ListData {
                offsets: list.offsets.clone(),
                child: Box::new(child),
            });
            Ok(out)
        }
        M::Entries => {
            let mut out = args[0].clone();
            out.ty = ret.clone();
            Ok(out)
        }
        M::Cardinality => {
            let m = &args[0];
            let offsets = &m.list().offsets;
            map_rows(&[m], len, DataType::BigInt, |i| {
                let i = m.index(i);
                Ok((offsets[i + 1] - offsets[i]) as i64)
            })
        }
        M::Contains => map_rows(&[&args[0], &args[1]], len, DataType::Boolean, |i| {
            Ok(find(&args[0], i, &args[1].get(i)).is_some())
        }),
        M::ContainsValue => {
            map_rows(&[&args[0], &args[1]], len, DataType::Boolean, |i| {
                let x = args[1].get(i);
                Ok(entries(&args[0], i)
                    .is_some_and(|e| e.iter().any(|(_, v)| v.total_cmp(&x).is_eq())))
            })
        }
        M::ContainsEntry => map_rows(
            &[&args[0], &args[1], &args[2]],
            len,
            DataType::Boolean,
            |i| {
                let x = args[2].get(i);
                Ok(find(&args[0], i, &args[1].get(i)).is_some_and(|v| v.total_cmp(&x).is_eq()))
            },
        ),
        // later maps' keys win; NULL maps count as empty
        M::Concat => build_rows(args, 0, len, ret, |i| {
            let mut pairs: Vec<(ScalarValue, ScalarValue)> = Vec::new();
            for m in args {
                for (k, v) in entries(m, i).unwrap_or_default() {
                    match pairs.iter_mut().find(|(x, _)| x.total_cmp(&k).is_eq()) {
                        Some(slot) => slot.1 = v,
                        None => pairs.push((k, v)),
                    }
                }
            }
            Ok(ScalarValue::Map(rk.clone(), rv.clone(), pairs))
        }),
    }
}
