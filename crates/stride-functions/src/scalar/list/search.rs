//! Searching lists: `list_contains(l, x)` (`list_has`, `array_contains`,
//! `array_has`), `list_position(l, x)` (`list_indexof`, `array_position`,
//! `array_indexof`: 1-based, NULL when absent, and a NULL `x` finds a NULL element),
//! `list_has_any(a, b)` (`array_has_any`, `&&`), `list_has_all(a, b)`
//! (`array_has_all`, `@>`; `<@` with the operands swapped) and `list_intersect(a, b)`
//! (`array_intersect`: the distinct non-NULL elements of `a` also in `b`, in `a`'s
//! order). NULL elements never match in contains/has_any/has_all; a NULL list gives
//! NULL. Elements and the value are compared as their common type.

use super::{element, items, list_arg};
use crate::kernels::map_values;
use crate::scalar::signature::bind;
use crate::scalar::{BoundFunction, ScalarFunction};
use std::cmp::Ordering;
use stride_common::vector::NativeType;
use stride_common::{DataType, Error, Result, ScalarValue, Vector};

/// `list_contains(l, x)`, `list_position(l, x)`.
pub(crate) fn resolve_find(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    let [l, x] = args else { return None };
    let l = list_arg(l)?;
    let t = match DataType::common_supertype(element(&l)?, x)? {
        DataType::Null => DataType::Varchar,
        t => t,
    };
    let ret = if func == ScalarFunction::ListContains {
        DataType::Boolean
    } else {
        DataType::Integer
    };
    bind(func, vec![DataType::List(Box::new(t.clone())), t], ret)
}

/// `list_has_any`, `list_has_all`, `list_intersect` of two lists; `swap` for `<@`.
pub(crate) fn resolve_pair(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    let [a, b] = args else { return None };
    let t = DataType::common_supertype(&list_arg(a)?, &list_arg(b)?)?;
    let ret = if func == ScalarFunction::ListIntersect {
        t.clone()
    } else {
        DataType::Boolean
    };
    bind(func, vec![t.clone(), t], ret)
}

fn eq(a: &ScalarValue, b: &ScalarValue) -> bool {
    !a.is_null() && !b.is_null() && a.total_cmp(b) == Ordering::Equal
}

fn has(l: &[ScalarValue], x: &ScalarValue) -> bool {
    l.iter().any(|e| eq(e, x))
}

/// `list_contains` over the child vector: every element is compared with its row's
/// value by the `=` kernel in one pass, then each list ORs its elements' results.
fn contains(args: &[Vector], len: usize) -> Result<Vector> {
    let (list, x) = (&args[0], &args[1]);
    let constant = list.constant && x.constant;
    let rows = if constant { 1 } else { len };
    let list = if list.constant && !constant {
        list.clone().flatten(len)
    } else {
        list.clone()
    };
    let data = list.list();
    let mut rows_of = Vec::new();
    let mut idx = Vec::new();
    for r in 0..rows {
        if list.validity.is_valid(r) && x.is_valid(r) {
            for j in data.offsets[r]..data.offsets[r + 1] {
                rows_of.push(r as u32);
                idx.push(j);
            }
        }
    }
    let mut found = vec![false; rows];
    if !idx.is_empty() {
        let child = data.child.take(&idx);
        let needles = if x.constant {
            x.clone()
        } else {
            x.take(&rows_of)
        };
        let eq = crate::scalar::resolve_scalar("=", &[child.ty.clone(), needles.ty.clone()])?;
        let hits = crate::evaluate_scalar(&eq, &[child, needles], idx.len())?;
        let values = hits.values::<bool>();
        for (k, &r) in rows_of.iter().enumerate() {
            let k = hits.index(k);
            found[r as usize] |= hits.validity.is_valid(k) && values[k];
        }
    }
    // NULL for a NULL list, and for a NULL value sought in a list that has elements
    // (an empty list holds nothing: false, as in DuckDB)
    let validity = if !x.validity.has_nulls() {
        list.validity.clone()
    } else {
        stride_common::Validity::from_fn(rows, |r| {
            list.validity.is_valid(r) && (x.is_valid(r) || data.offsets[r] == data.offsets[r + 1])
        })
    };
    let mut out = Vector::new(DataType::Boolean, bool::wrap(found), validity);
    out.constant = constant;
    Ok(out)
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let ty = &f.return_type;
    match f.func {
        // comparable element types go through the vectorized `=`; others row by row
        ScalarFunction::ListContains if !matches!(args[1].ty, DataType::List(_)) => {
            contains(args, len)
        }
        ScalarFunction::ListContains => map_values(&refs, len, ty, false, |row| {
            Ok(match (&row[0], &row[1]) {
                (ScalarValue::Null, _) => ScalarValue::Null,
                (l, ScalarValue::Null) if !items(l).is_empty() => ScalarValue::Null,
                (l, x) => ScalarValue::Boolean(has(items(l), x)),
            })
        }),
        ScalarFunction::ListPosition => map_values(&refs, len, ty, false, |row| {
            if row[0].is_null() {
                return Ok(ScalarValue::Null);
            }
            let found = items(&row[0])
                .iter()
                .position(|e| (e.is_null() && row[1].is_null()) || eq(e, &row[1]));
            Ok(found.map_or(ScalarValue::Null, |i| {
                ScalarValue::Integer(i32::try_from(i + 1).unwrap_or(i32::MAX))
            }))
        }),
        ScalarFunction::ListHasAny => map_values(&refs, len, ty, true, |row| {
            let b = items(&row[1]);
            Ok(ScalarValue::Boolean(
                items(&row[0]).iter().any(|x| has(b, x)),
            ))
        }),
        ScalarFunction::ListHasAll | ScalarFunction::ListContainedBy => {
            let (big, small) = if f.func == ScalarFunction::ListHasAll {
                (0, 1)
            } else {
                (1, 0)
            };
            map_values(&refs, len, ty, true, |row| {
                let a = items(&row[big]);
                Ok(ScalarValue::Boolean(
                    items(&row[small]).iter().all(|x| x.is_null() || has(a, x)),
                ))
            })
        }
        ScalarFunction::ListIntersect => map_values(&refs, len, ty, true, |row| {
            let b = items(&row[1]);
            let common: Vec<ScalarValue> = super::order::distinct(items(&row[0]))
                .into_iter()
                .filter(|x| has(b, x))
                .collect();
            Ok(ScalarValue::List(
                element(ty).cloned().unwrap_or(DataType::Null),
                common,
            ))
        }),
        other => Err(Error::internal(format!(
            "{other:?} is not a list search function"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::{eval, int_list as ints};
    use stride_common::DataType;
    use stride_common::ScalarValue::*;

    #[test]
    fn contains_and_position() {
        let l = ints(&[Some(1), Some(2), None]);
        assert_eq!(
            eval("list_contains", &[l.clone(), Integer(2)]).unwrap(),
            Boolean(true)
        );
        // NULL is not in an empty list (DuckDB), unknown in any other
        assert_eq!(
            eval("list_contains", &[ints(&[]), Null]).unwrap(),
            Boolean(false)
        );
        assert_eq!(
            eval("list_contains", &[ints(&[Some(1)]), Null]).unwrap(),
            Null
        );
        assert_eq!(
            eval("list_has", &[l.clone(), Integer(5)]).unwrap(),
            Boolean(false)
        );
        assert_eq!(eval("array_contains", &[l.clone(), Null]).unwrap(), Null);
        assert_eq!(eval("array_has", &[Null, Integer(1)]).unwrap(), Null);
        assert_eq!(
            eval("list_position", &[l.clone(), Integer(2)]).unwrap(),
            Integer(2)
        );
        assert_eq!(
            eval("list_indexof", &[l.clone(), Null]).unwrap(),
            Integer(3)
        );
        assert_eq!(
            eval("array_position", &[l.clone(), Integer(9)]).unwrap(),
            Null
        );
        assert_eq!(
            eval("list_contains", &[l, BigInt(1)]).unwrap(),
            Boolean(true)
        );
    }

    #[test]
    fn contains_over_columns() {
        use crate::scalar::resolve_scalar;
        use crate::scalar::test_util::flat;
        let lt = DataType::List(Box::new(DataType::Integer));
        let lists = [
            ints(&[Some(1), Some(2), None]),
            ints(&[]),
            Null,
            ints(&[Some(5), Some(5)]),
            ints(&[None]),
        ];
        let needles = [Integer(2), Integer(1), Integer(1), Null, Integer(5)];
        let f = resolve_scalar("list_contains", &[lt.clone(), DataType::Integer]).unwrap();
        let l = flat(&lt, &lists);
        let x = flat(&DataType::Integer, &needles);
        let r = crate::evaluate_scalar(&f, &[l.clone(), x], 5).unwrap();
        let got: Vec<_> = (0..5).map(|i| r.get(i)).collect();
        assert_eq!(
            got,
            vec![Boolean(true), Boolean(false), Null, Null, Boolean(false)]
        );
        let five = stride_common::Vector::constant(&Integer(5), &DataType::Integer).unwrap();
        let r = crate::evaluate_scalar(&f, &[l, five], 5).unwrap();
        let got: Vec<_> = (0..5).map(|i| r.get(i)).collect();
        assert_eq!(
            got,
            vec![
                Boolean(false),
                Boolean(false),
                Null,
                Boolean(true),
                Boolean(false)
            ]
        );
    }

    #[test]
    fn pairs() {
        let a = ints(&[Some(1), Some(2), Some(2), None, Some(3)]);
        let b = ints(&[Some(2), Some(3), None]);
        assert_eq!(
            eval("list_has_any", &[a.clone(), b.clone()]).unwrap(),
            Boolean(true)
        );
        assert_eq!(
            eval("list_has_all", &[a.clone(), b.clone()]).unwrap(),
            Boolean(true)
        );
        assert_eq!(
            eval("list_has_all", &[b.clone(), a.clone()]).unwrap(),
            Boolean(false)
        );
        assert_eq!(eval("<@", &[b.clone(), a.clone()]).unwrap(), Boolean(true));
        assert_eq!(
            eval("list_has_any", &[ints(&[Some(1)]), ints(&[None])]).unwrap(),
            Boolean(false)
        );
        assert_eq!(
            eval("list_intersect", &[a.clone(), b]).unwrap(),
            ints(&[Some(2), Some(3)])
        );
        assert_eq!(eval("array_intersect", &[Null, a]).unwrap(), Null);
    }
}
