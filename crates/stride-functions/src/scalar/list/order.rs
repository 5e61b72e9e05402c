//! Ordering a list's elements: `list_sort(l [, 'ASC'|'DESC' [, 'NULLS FIRST'|'NULLS
//! LAST']])` (alias `array_sort`), `list_reverse_sort(l [, nulls])`
//! (`array_reverse_sort`), `list_grade_up(l [, order [, nulls]])` (`array_grade_up`,
//! `grade_up`: the 1-based positions that would sort the list), `list_reverse`
//! (`array_reverse`), `list_distinct` (`array_distinct`: NULLs dropped, first
//! occurrences kept in order) and `list_unique` (`array_unique`: the number of
//! distinct non-NULL elements). DuckDB's defaults: ascending, NULLs last. A NULL list
//! or a NULL order argument gives NULL.

use super::{items, list_arg};
use crate::kernels::map_values;
use crate::scalar::signature::bind;
use crate::scalar::{BoundFunction, ScalarFunction};
use std::cmp::Ordering;
use stride_common::{DataType, Error, Result, ScalarValue, Vector};

/// `list_sort`, `list_reverse_sort`, `list_grade_up`: a list and up to two (one for
/// reverse sort) order arguments.
pub(crate) fn resolve_sort(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    let (l, rest) = args.split_first()?;
    let max = if func == ScalarFunction::ListReverseSort {
        1
    } else {
        2
    };
    if rest.len() > max
        || !rest
            .iter()
            .all(|t| t.can_implicitly_cast_to(&DataType::Varchar))
    {
        return None;
    }
    let l = list_arg(l)?;
    let mut types = vec![l.clone()];
    types.extend(rest.iter().map(|_| DataType::Varchar));
    let ret = if func == ScalarFunction::ListGradeUp {
        DataType::List(Box::new(DataType::BigInt))
    } else {
        l
    };
    bind(func, types, ret)
}

/// `list_reverse`, `list_distinct`: a list to a list; `list_unique`: to a BIGINT.
pub(crate) fn resolve_unary(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    let [l] = args else { return None };
    let l = list_arg(l)?;
    let ret = if func == ScalarFunction::ListUnique {
        DataType::BigInt
    } else {
        l.clone()
    };
    bind(func, vec![l], ret)
}

fn parse_order(s: &str) -> Result<bool> {
    match s.to_ascii_uppercase().as_str() {
        "ASC" => Ok(false),
        "DESC" => Ok(true),
        other => Err(Error::invalid_input(format!(
            "Enum value: unrecognized value \"{other}\" for enum \"OrderType\" (the sort order is 'ASC' or 'DESC')"
        ))),
    }
}

fn parse_nulls(s: &str) -> Result<bool> {
    match s.to_ascii_uppercase().as_str() {
        "NULLS FIRST" => Ok(true),
        "NULLS LAST" => Ok(false),
        other => Err(Error::invalid_input(format!(
            "Enum value: unrecognized value \"{other}\" for enum \"OrderByNullType\" (NULLs go 'NULLS FIRST' or 'NULLS LAST')"
        ))),
    }
}

/// The positions of `v` in sorted order (stable).
fn grade(v: &[ScalarValue], desc: bool, nulls_first: bool) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&a, &b| match (v[a].is_null(), v[b].is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => {
            if nulls_first {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
        (false, true) => {
            if nulls_first {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        (false, false) => {
            let o = v[a].total_cmp(&v[b]);
            if desc {
                o.reverse()
            } else {
                o
            }
        }
    });
    idx
}

/// The distinct non-NULL values of `v`, in order of first occurrence.
pub(crate) fn distinct(v: &[ScalarValue]) -> Vec<ScalarValue> {
    let mut idx: Vec<usize> = (0..v.len()).filter(|&i| !v[i].is_null()).collect();
    idx.sort_by(|&a, &b| v[a].total_cmp(&v[b]).then(a.cmp(&b)));
    idx.dedup_by(|b, a| v[*a].total_cmp(&v[*b]) == Ordering::Equal);
    idx.sort_unstable();
    idx.into_iter().map(|i| v[i].clone()).collect()
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let ty = &f.return_type;
    let elem = super::element(ty).cloned().unwrap_or(DataType::Null);
    match f.func {
        ScalarFunction::ListSort
        | ScalarFunction::ListReverseSort
        | ScalarFunction::ListGradeUp => map_values(&refs, len, ty, true, |row| {
            let (mut desc, mut nulls_first) = (false, false);
            let mut rest = &row[1..];
            if f.func == ScalarFunction::ListReverseSort {
                desc = true;
            } else if let Some((o, r)) = rest.split_first() {
                desc = parse_order(&o.to_string())?;
                rest = r;
            }
            if let Some(n) = rest.first() {
                nulls_first = parse_nulls(&n.to_string())?;
            }
            let v = items(&row[0]);
            let order = grade(v, desc, nulls_first);
            Ok(if f.func == ScalarFunction::ListGradeUp {
                ScalarValue::List(
                    DataType::BigInt,
                    order
                        .into_iter()
                        .map(|i| ScalarValue::BigInt(i as i64 + 1))
                        .collect(),
                )
            } else {
                ScalarValue::List(
                    elem.clone(),
                    order.into_iter().map(|i| v[i].clone()).collect(),
                )
            })
        }),
        ScalarFunction::ListReverse => map_values(&refs, len, ty, true, |row| {
            let mut v = items(&row[0]).to_vec();
            v.reverse();
            Ok(ScalarValue::List(elem.clone(), v))
        }),
        ScalarFunction::ListDistinct => map_values(&refs, len, ty, true, |row| {
            Ok(ScalarValue::List(elem.clone(), distinct(items(&row[0]))))
        }),
        ScalarFunction::ListUnique => map_values(&refs, len, ty, true, |row| {
            Ok(ScalarValue::BigInt(distinct(items(&row[0])).len() as i64))
        }),
        other => Err(Error::internal(format!(
            "{other:?} is not a list order function"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::text as s;
    use crate::scalar::test_util::{eval, int_list as ints};
    use stride_common::DataType;
    use stride_common::ScalarValue::*;

    #[test]
    fn sorting() {
        let l = ints(&[Some(3), None, Some(1)]);
        assert_eq!(
            eval("list_sort", std::slice::from_ref(&l)).unwrap(),
            ints(&[Some(1), Some(3), None])
        );
        assert_eq!(
            eval("array_sort", &[l.clone(), s("desc")]).unwrap(),
            ints(&[Some(3), Some(1), None])
        );
        assert_eq!(
            eval("list_sort", &[l.clone(), s("DESC"), s("NULLS FIRST")]).unwrap(),
            ints(&[None, Some(3), Some(1)])
        );
        assert_eq!(
            eval("list_reverse_sort", std::slice::from_ref(&l)).unwrap(),
            ints(&[Some(3), Some(1), None])
        );
        assert_eq!(
            eval("list_reverse_sort", &[l.clone(), s("NULLS FIRST")]).unwrap(),
            ints(&[None, Some(3), Some(1)])
        );
        assert_eq!(eval("list_sort", &[l.clone(), Null]).unwrap(), Null);
        let e = eval("list_sort", &[l.clone(), s("up")]).unwrap_err();
        assert!(
            e.message.contains("unrecognized value \"UP\""),
            "{}",
            e.message
        );
        assert_eq!(
            eval(
                "list_grade_up",
                &[ints(&[Some(30), Some(10), None, Some(20)])]
            )
            .unwrap(),
            List(
                DataType::BigInt,
                vec![BigInt(2), BigInt(4), BigInt(1), BigInt(3)]
            )
        );
        assert_eq!(
            eval("list_reverse", &[l]).unwrap(),
            ints(&[Some(1), None, Some(3)])
        );
        assert_eq!(eval("list_reverse", &[Null]).unwrap(), Null);
    }

    #[test]
    fn distinct_and_unique() {
        let l = ints(&[Some(1), Some(1), None, Some(2), Some(1)]);
        assert_eq!(
            eval("list_distinct", std::slice::from_ref(&l)).unwrap(),
            ints(&[Some(1), Some(2)])
        );
        assert_eq!(eval("list_unique", &[l]).unwrap(), BigInt(2));
        assert_eq!(eval("array_unique", &[ints(&[])]).unwrap(), BigInt(0));
    }
}
