//! Aggregates over each list's elements: `list_aggregate(l, 'name' [, args])`
//! (aliases `list_aggr`, `array_aggregate`, `array_aggr`) and the shorthands
//! `list_sum`, `list_min`, `list_avg`, ... (one per aggregate, DuckDB's names), plus
//! `list_last` and `list_product`, which have no aggregate of their own.
//!
//! Evaluation runs the aggregate's own [`GroupedState`](crate::aggregate::GroupedState)
//! once per chunk: every list is a group, its elements the group's rows, so the
//! child vector is folded in one vectorized `update`. A NULL list gives NULL; an empty
//! list the aggregate of no rows (0 for count, NULL for sum).
//!
//! The aggregate's name must be a constant: `list_aggregate` binds with a placeholder
//! type, and [`specialize`] (called by the binder with the constant arguments) fixes
//! the aggregate and the result type.

use super::{element, list_arg};
use crate::aggregate::{new_state, resolve_aggregate};
use crate::kernels::map_values;
use crate::scalar::signature::bind;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, ScalarValue, Vector};

/// Shorthand `list_<name>` functions and the aggregate each one runs (each is
/// registered in the catalogue; a test checks the two agree).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const SHORTHANDS: &[(&str, &str)] = &[
    ("list_sum", "sum"),
    ("list_min", "min"),
    ("list_max", "max"),
    ("list_avg", "avg"),
    ("list_count", "count"),
    ("list_first", "first"),
    ("list_any_value", "any_value"),
    ("list_bool_and", "bool_and"),
    ("list_bool_or", "bool_or"),
    ("list_string_agg", "string_agg"),
    ("list_var_samp", "var_samp"),
    ("list_var_pop", "var_pop"),
    ("list_stddev_samp", "stddev_samp"),
    ("list_stddev_pop", "stddev_pop"),
    ("list_mode", "mode"),
    ("list_entropy", "entropy"),
    ("list_skewness", "skewness"),
    ("list_kurtosis", "kurtosis"),
    ("list_kurtosis_pop", "kurtosis_pop"),
];

/// Binds `name(elem, extra...)` as an aggregate over a list's elements.
fn bind_aggregate(name: &str, list: DataType, extra: &[DataType]) -> Result<Option<BoundFunction>> {
    let elem = element(&list).cloned().unwrap_or(DataType::Varchar);
    let mut agg_args = vec![elem];
    agg_args.extend_from_slice(extra);
    let Some(agg) = resolve_aggregate(name, &agg_args)? else {
        return Err(Error::catalog(format!(
            "Aggregate Function with name {name} does not exist!"
        )));
    };
    let mut types = vec![list];
    types.extend(agg.arg_types[1..].iter().cloned());
    Ok(bind(
        ScalarFunction::ListAggregate(agg.func),
        types,
        agg.return_type,
    ))
}

/// `list_sum(l)`, `list_min(l)`, ...: `agg` is the aggregate's name.
pub(crate) fn resolve_shorthand(args: &[DataType], agg: &str) -> Option<BoundFunction> {
    let (l, extra) = args.split_first()?;
    bind_aggregate(agg, list_arg(l)?, extra).ok().flatten()
}

/// `list_aggregate(l, name, extra...)`: bound with the element type as placeholder
/// result until [`specialize`] sees the constant name.
pub(crate) fn resolve_list_aggregate(args: &[DataType]) -> Option<BoundFunction> {
    let [l, name, extra @ ..] = args else {
        return None;
    };
    let l = list_arg(l)?;
    if !name.can_implicitly_cast_to(&DataType::Varchar) {
        return None;
    }
    let mut types = vec![l.clone(), DataType::Varchar];
    types.extend(extra.iter().cloned());
    let ret = element(&l).cloned().unwrap_or(DataType::Varchar);
    bind(ScalarFunction::ListAggregateByName, types, ret)
}

/// Fixes the aggregate of a `list_aggregate` call from its constant name.
pub(crate) fn specialize(f: &mut BoundFunction, constants: &[Option<ScalarValue>]) -> Result<()> {
    let name = match constants.get(1) {
        Some(Some(ScalarValue::Varchar(n))) => n.to_ascii_lowercase(),
        Some(Some(ScalarValue::Null)) => {
            return Err(Error::catalog(
                "Aggregate Function with name NULL does not exist!",
            ))
        }
        _ => {
            return Err(Error::binder(
                "list_aggregate: the aggregate name must be a constant string",
            ))
        }
    };
    let extra = &f.arg_types[2..];
    let Some(mut bound) = bind_aggregate(&name, f.arg_types[0].clone(), extra)? else {
        return Err(Error::internal("list_aggregate binding"));
    };
    // keep the name argument in the call: the evaluation skips it
    bound.arg_types.insert(1, DataType::Varchar);
    if let ScalarFunction::ListAggregate(func) = bound.func {
        bound.func = ScalarFunction::ListAggregateNamed(func);
    }
    *f = bound;
    Ok(())
}

/// `list_last(l)` (the last element, NULL or not) and `list_product(l)` (DOUBLE; NULL
/// elements skipped, NULL when none is left).
pub(crate) fn resolve_last(args: &[DataType]) -> Option<BoundFunction> {
    let [l] = args else { return None };
    let l = list_arg(l)?;
    let e = element(&l)?.clone();
    bind(ScalarFunction::ListLast, vec![l], e)
}

pub(crate) fn resolve_product(args: &[DataType]) -> Option<BoundFunction> {
    let [l] = args else { return None };
    let e = element(&list_arg(l)?)?.clone();
    if !e.can_implicitly_cast_to(&DataType::Double) {
        return None;
    }
    let l = DataType::List(Box::new(DataType::Double));
    bind(ScalarFunction::ListProduct, vec![l], DataType::Double)
}

/// Runs aggregate `func` over the elements of each list in `args[0]`; `args[1]` is
/// the name (for `list_aggregate`, ignored) and the rest are the aggregate's extra
/// arguments.
pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let (func, named) = match f.func {
        ScalarFunction::ListAggregate(func) => (func, false),
        ScalarFunction::ListAggregateNamed(func) => (func, true),
        _ => return evaluate_other(f, args, len),
    };
    let extra_start = 1 + usize::from(named);
    let extras = &args[extra_start.min(args.len())..];
    let constant = args.iter().all(|a| a.constant);
    let rows = if constant { 1 } else { len };
    let list = if args[0].constant && !constant {
        args[0].clone().flatten(len)
    } else {
        args[0].clone()
    };
    let data = list.list();
    // every list a group, its elements the rows
    let mut groups = Vec::with_capacity(data.child.data_len());
    let mut idx = Vec::with_capacity(data.child.data_len());
    for r in 0..rows {
        if !list.validity.is_valid(r) {
            continue;
        }
        for j in data.offsets[r]..data.offsets[r + 1] {
            groups.push(r as u32);
            idx.push(j);
        }
    }
    let child = data.child.take(&idx);
    // extra arguments per element: the value of the element's row
    let extras: Vec<Vector> = extras
        .iter()
        .map(|e| {
            if e.constant {
                e.clone()
            } else {
                e.take(&groups)
            }
        })
        .collect();
    let elem = element(&f.arg_types[0])
        .cloned()
        .unwrap_or(DataType::Varchar);
    let mut agg_types = vec![elem];
    agg_types.extend(extras.iter().map(|e| e.ty.clone()));
    let mut agg = resolve_aggregate(func.name(), &agg_types)?
        .ok_or_else(|| Error::internal(format!("{} is not an aggregate", func.name())))?;
    // The extra arguments that are constants are the aggregate's parameters (a
    // quantile's fraction, max's count), as a query's binder gives them.
    // The extra arguments take the types the aggregate was bound to (string_agg's
    // separator 5 is '5'), as a query's binder casts them.
    let extras = extras
        .iter()
        .enumerate()
        .map(
            |(i, e)| match agg.arg_types.get(i + 1).filter(|t| **t != e.ty) {
                None => Ok(e.clone()),
                Some(t) => {
                    let n = if e.constant { 1 } else { idx.len() };
                    let mut v = crate::cast_vector(e, n, t, false)?;
                    v.constant = e.constant;
                    Ok(v)
                }
            },
        )
        .collect::<Result<Vec<_>>>()?;
    agg.constants = std::iter::once(None)
        .chain(extras.iter().map(|e| e.constant.then(|| e.get(0))))
        .collect();
    let child = crate::cast_vector(&child, idx.len(), &agg.arg_types[0], false)?;
    let mut inputs = vec![&child];
    inputs.extend(extras.iter());
    let mut state = new_state(&agg);
    state.resize(rows);
    // (states are not fed empty chunks: some count a zero-row update as input seen)
    if !idx.is_empty() {
        state.update(&groups, &inputs, idx.len())?;
    }
    let mut out = state.finalize()?;
    out.validity = out.validity.and(&list.validity);
    out.constant = constant;
    if out.ty != f.return_type {
        out = crate::cast_vector(&out, rows, &f.return_type, false)?;
        out.constant = constant;
    }
    Ok(out)
}

/// `list_last`, `list_product`, and an unspecialized `list_aggregate`.
fn evaluate_other(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    match f.func {
        ScalarFunction::ListAggregateByName => Err(Error::binder(
            "list_aggregate: the aggregate name must be a constant string",
        )),
        ScalarFunction::ListLast => {
            let refs = [&args[0]];
            map_values(&refs, len, &f.return_type, true, |row| {
                Ok(super::items(&row[0])
                    .last()
                    .cloned()
                    .unwrap_or(ScalarValue::Null))
            })
        }
        _ => {
            let refs = [&args[0]];
            map_values(&refs, len, &f.return_type, true, |row| {
                let vals: Vec<f64> = super::items(&row[0])
                    .iter()
                    .filter_map(|v| v.as_f64())
                    .collect();
                Ok(if vals.is_empty() {
                    ScalarValue::Null
                } else {
                    ScalarValue::Double(vals.iter().product())
                })
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::{eval, int_list as ints};
    use crate::scalar::{resolve_scalar, specialize};
    use stride_common::ScalarValue::*;
    use stride_common::{DataType, ErrorKind};

    #[test]
    fn shorthands() {
        let l = ints(&[Some(1), Some(2), None]);
        assert_eq!(
            eval("list_sum", std::slice::from_ref(&l)).unwrap(),
            HugeInt(3)
        );
        assert_eq!(
            eval("list_min", std::slice::from_ref(&l)).unwrap(),
            Integer(1)
        );
        assert_eq!(
            eval("list_max", std::slice::from_ref(&l)).unwrap(),
            Integer(2)
        );
        assert_eq!(
            eval("list_avg", std::slice::from_ref(&l)).unwrap(),
            Double(1.5)
        );
        assert_eq!(
            eval("list_count", std::slice::from_ref(&l)).unwrap(),
            BigInt(2)
        );
        assert_eq!(eval("list_last", std::slice::from_ref(&l)).unwrap(), Null);
        assert_eq!(
            eval("list_first", std::slice::from_ref(&l)).unwrap(),
            Integer(1)
        );
        assert_eq!(
            eval("list_product", std::slice::from_ref(&l)).unwrap(),
            Double(2.0)
        );
        assert_eq!(eval("list_sum", &[ints(&[])]).unwrap(), Null);
        assert_eq!(eval("list_count", &[ints(&[])]).unwrap(), BigInt(0));
        assert_eq!(eval("list_count", &[Null]).unwrap(), Null);
        assert_eq!(eval("list_product", &[ints(&[None])]).unwrap(), Null);
        let s = List(
            DataType::Varchar,
            vec![Varchar("a".into()), Varchar("b".into())],
        );
        assert_eq!(
            eval("list_string_agg", std::slice::from_ref(&s)).unwrap(),
            Varchar("a,b".into())
        );
        assert_eq!(
            eval("list_string_agg", &[s, Varchar("-".into())]).unwrap(),
            Varchar("a-b".into())
        );
    }

    #[test]
    fn shorthands_are_registered() {
        for (name, agg) in super::SHORTHANDS {
            let elems = [DataType::Double, DataType::Boolean, DataType::Varchar];
            let l = elems
                .into_iter()
                .map(|e| DataType::List(Box::new(e)))
                .find(|l| super::resolve_shorthand(std::slice::from_ref(l), agg).is_some())
                .unwrap_or_else(|| panic!("{name}: no element type binds"));
            let f = resolve_scalar(name, std::slice::from_ref(&l)).unwrap();
            let g = super::resolve_shorthand(&[l], agg).unwrap();
            assert_eq!(f, g, "{name}");
        }
    }

    #[test]
    fn by_name() {
        let l = ints(&[Some(1), Some(2), Some(3)]);
        let types = [l.data_type(), DataType::Varchar];
        let mut f = resolve_scalar("list_aggregate", &types).unwrap();
        specialize(&mut f, &[None, Some(Varchar("SUM".into()))]).unwrap();
        assert_eq!(f.return_type, DataType::HugeInt);
        let args = [
            stride_common::Vector::constant(&l, &f.arg_types[0]).unwrap(),
            stride_common::Vector::constant(&Varchar("sum".into()), &DataType::Varchar).unwrap(),
        ];
        let r = crate::evaluate_scalar(&f, &args, 1).unwrap();
        assert_eq!(r.get(0), HugeInt(6));
        let mut g = resolve_scalar("list_aggr", &types).unwrap();
        let e = specialize(&mut g, &[None, Some(Varchar("nope".into()))]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Catalog);
        assert_eq!(
            e.message,
            "Aggregate Function with name nope does not exist!"
        );
        let mut g = resolve_scalar("list_aggr", &types).unwrap();
        assert!(specialize(&mut g, &[None, None]).is_err());
    }
}
