//! Functions over LIST values (PostgreSQL's arrays): `list_value` (`ARRAY[...]`),
//! `array_to_string`,
//! `array_length` / `array_upper` / `array_lower` (one-dimensional, 1-based),
//! `cardinality`, element access `list_extract(l, i)` (what `l[i]` binds to; negative from the end, out of
//! range gives NULL), concatenation with `||` / `list_concat` / `array_cat` (a NULL
//! list counts as empty, as in PostgreSQL) and with one element, and the quantified
//! comparisons `x op ANY(l)` / `x op ALL(l)`.
//!
//! Lists appear in catalog queries and small results, so these run row by row over
//! [`ScalarValue`]s instead of through vectorized kernels; the aggregates over lists
//! (`aggregate`) fold each list's child vector in one vectorized pass.
//!
//! DuckDB's list functions live in one file per family: `aggregate` (list_aggregate,
//! list_sum, ...), `order` (list_sort, list_distinct, ...), `search` (list_contains,
//! list_position, list_has_any, ...), `slice` (list_slice, string extract), `build`
//! (list_append, list_resize, flatten, range, len), `distance` (list_distance, ...) and
//! `zip` (list_zip).

pub(crate) mod aggregate;
pub(crate) mod build;
pub(crate) mod distance;
pub(crate) mod order;
pub(crate) mod search;
pub(crate) mod slice;
pub(crate) mod zip;

use super::signature::bind;
use super::{BoundFunction, ScalarFunction};
use crate::kernels::map_values;
use stride_common::{CompareOp, DataType, Error, Result, ScalarValue, Vector};

fn element(t: &DataType) -> Option<&DataType> {
    match t {
        DataType::List(e) => Some(e),
        _ => None,
    }
}

/// `list_value(a, b, ...)` (what `ARRAY[a, b]` binds to): the arguments as a list of
/// their common type; NULL arguments are NULL elements.
pub(crate) fn resolve_list_value(args: &[DataType]) -> Option<BoundFunction> {
    let mut t = DataType::Null;
    for a in args {
        t = DataType::common_supertype(&t, a)?;
    }
    if t == DataType::Null {
        t = DataType::Varchar;
    }
    bind(
        ScalarFunction::ListValue,
        vec![t.clone(); args.len()],
        DataType::List(Box::new(t)),
    )
}

/// `array_to_string(list, sep [, null_text])`: elements as text joined by `sep` (a
/// comma when `sep` is NULL, as DuckDB); NULL elements are left out unless
/// `null_text` is given.
pub(crate) fn resolve_array_to_string(args: &[DataType]) -> Option<BoundFunction> {
    let (l, rest) = args.split_first()?;
    let list = list_arg(l)?;
    if rest.is_empty()
        || rest.len() > 2
        || !rest
            .iter()
            .all(|t| t.can_implicitly_cast_to(&DataType::Varchar))
    {
        return None;
    }
    let mut types = vec![list];
    types.extend(rest.iter().map(|_| DataType::Varchar));
    bind(ScalarFunction::ArrayToString, types, DataType::Varchar)
}

/// A list argument (an untyped NULL reads as a list of text).
fn list_arg(t: &DataType) -> Option<DataType> {
    match t {
        DataType::List(_) => Some(t.clone()),
        DataType::Null => Some(DataType::List(Box::new(DataType::Varchar))),
        _ => None,
    }
}

/// `array_length(l, dim)`, `array_upper(l, dim)`, `array_lower(l, dim)`.
pub(crate) fn resolve_dimension(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    let [l, d] = args else { return None };
    if !d.can_implicitly_cast_to(&DataType::Integer) {
        return None;
    }
    bind(
        func,
        vec![list_arg(l)?, DataType::Integer],
        DataType::Integer,
    )
}

pub(crate) fn resolve_cardinality(args: &[DataType]) -> Option<BoundFunction> {
    let [l] = args else { return None };
    bind(
        ScalarFunction::Cardinality,
        vec![list_arg(l)?],
        DataType::Integer,
    )
}

pub(crate) fn resolve_extract(args: &[DataType]) -> Option<BoundFunction> {
    if let Some(f) = slice::resolve_string_extract(args) {
        return Some(f);
    }
    let [l, i] = args else { return None };
    let l = list_arg(l)?;
    if !i.can_implicitly_cast_to(&DataType::BigInt) {
        return None;
    }
    let e = element(&l)?.clone();
    bind(ScalarFunction::ListExtract, vec![l, DataType::BigInt], e)
}

/// `list_concat(l, ...)` / `array_cat`: the lists one after another, in their common
/// type. NULL lists are skipped, so the result is `[]` when every list is NULL,
/// except that a call whose arguments are all untyped NULLs is NULL (DuckDB).
pub(crate) fn resolve_list_concat(args: &[DataType]) -> Option<BoundFunction> {
    if args.is_empty() {
        return None;
    }
    if args.iter().all(|t| *t == DataType::Null) {
        return bind(ScalarFunction::ListConcat, args.to_vec(), DataType::Null);
    }
    let mut t: Option<DataType> = None;
    for a in args.iter().filter(|a| **a != DataType::Null) {
        let l = list_arg(a)?;
        t = Some(match t {
            None => l,
            Some(t) => DataType::common_supertype(&t, &l)?,
        });
    }
    let t = t?;
    bind(ScalarFunction::ListConcat, vec![t.clone(); args.len()], t)
}

/// `||`: list concatenation when a side is a list (NULL when either side is NULL;
/// the other side may also be one element), otherwise string concatenation.
pub(crate) fn resolve_concat_operator(args: &[DataType]) -> Option<BoundFunction> {
    match args {
        [DataType::List(_), DataType::List(_) | DataType::Null]
        | [DataType::Null, DataType::List(_)] => {
            let mut f = resolve_list_concat(args)?;
            f.func = ScalarFunction::ListConcatOperator;
            Some(f)
        }
        [DataType::List(e), x] => {
            let t = DataType::common_supertype(e, x)?;
            let l = DataType::List(Box::new(t.clone()));
            bind(ScalarFunction::ListAppend, vec![l.clone(), t], l)
        }
        [x, DataType::List(e)] => {
            let t = DataType::common_supertype(e, x)?;
            let l = DataType::List(Box::new(t.clone()));
            bind(ScalarFunction::ListPrepend, vec![t, l.clone()], l)
        }
        _ => super::string::concat::resolve_operator(args),
    }
}

/// `x op ANY(list)` (or ALL): `x` and the elements are compared as their common type.
pub fn resolve_quantified(op: &str, all: bool, args: &[DataType]) -> Result<BoundFunction> {
    let cmp = CompareOp::from_operator(op)
        .ok_or_else(|| Error::binder(format!("operator {op} cannot be used with ANY/ALL")))?;
    let [x, l] = args else {
        return Err(Error::internal("ANY/ALL takes two operands"));
    };
    let Some(e) = list_arg(l).and_then(|l| element(&l).cloned()) else {
        return Err(Error::binder(format!(
            "op ANY/ALL (array) requires an array on the right, got {l}"
        )));
    };
    let t = match DataType::common_supertype(x, &e) {
        Some(DataType::Null) => DataType::Varchar,
        Some(t) => t,
        None => {
            return Err(Error::binder(format!(
                "Cannot compare values of type {x} and type {e} in ANY/ALL - an explicit cast is required"
            )))
        }
    };
    let func = if all {
        ScalarFunction::ListAll(cmp)
    } else {
        ScalarFunction::ListAny(cmp)
    };
    Ok(BoundFunction::new(
        func,
        vec![t.clone(), DataType::List(Box::new(t))],
        DataType::Boolean,
    ))
}

fn items(v: &ScalarValue) -> &[ScalarValue] {
    match v {
        ScalarValue::List(_, items) => items,
        _ => &[],
    }
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let ty = &f.return_type;
    let elem = |t: &DataType| element(t).cloned().unwrap_or(DataType::Null);
    use ScalarFunction as F;
    match f.func {
        F::ListAggregate(_)
        | F::ListAggregateNamed(_)
        | F::ListAggregateByName
        | F::ListLast
        | F::ListProduct => return aggregate::evaluate(f, args, len),
        F::ListSort
        | F::ListReverseSort
        | F::ListGradeUp
        | F::ListReverse
        | F::ListDistinct
        | F::ListUnique => return order::evaluate(f, args, len),
        F::ListContains
        | F::ListPosition
        | F::ListHasAny
        | F::ListHasAll
        | F::ListContainedBy
        | F::ListIntersect => return search::evaluate(f, args, len),
        F::ListSlice => return slice::evaluate(f, args, len),
        F::StringExtract => return slice::evaluate_string_extract(args, len),
        F::ListLength
        | F::ListPushFront
        | F::ListResize
        | F::ListSelect
        | F::ListWhere
        | F::Flatten
        | F::ListRange(_) => return build::evaluate(f, args, len),
        F::ListDistance(d) => return distance::evaluate(d, args, len),
        F::ListZip => return zip::evaluate(f, args, len),
        _ => {}
    }
    match f.func {
        ScalarFunction::ArrayToString => map_values(&refs, len, ty, false, |row| {
            if row[0].is_null() {
                return Ok(ScalarValue::Null);
            }
            // a NULL separator is DuckDB's default, a comma
            let sep = match &row[1] {
                ScalarValue::Null => ",".to_string(),
                s => s.to_string(),
            };
            let null_text = row.get(2).filter(|v| !v.is_null()).map(|v| v.to_string());
            let list = items(&row[0]);
            let parts: Vec<String> = list
                .iter()
                .filter_map(|v| match v {
                    ScalarValue::Null => null_text.clone(),
                    other => Some(other.to_string()),
                })
                .collect();
            // string_agg of the elements, as DuckDB defines it: NULL when every one
            // is NULL (an empty list gives '')
            if parts.is_empty() && !list.is_empty() {
                return Ok(ScalarValue::Null);
            }
            Ok(ScalarValue::Varchar(parts.join(&sep)))
        }),
        ScalarFunction::ArrayLength | ScalarFunction::ArrayUpper | ScalarFunction::ArrayLower => {
            map_values(&refs, len, ty, true, |row| {
                let n = items(&row[0]).len();
                if row[1].as_i64() != Some(1) || n == 0 {
                    return Ok(ScalarValue::Null);
                }
                let v = if f.func == ScalarFunction::ArrayLower {
                    1
                } else {
                    n
                };
                Ok(ScalarValue::Integer(i32::try_from(v).unwrap_or(i32::MAX)))
            })
        }
        ScalarFunction::Cardinality => map_values(&refs, len, ty, true, |row| {
            Ok(ScalarValue::Integer(
                i32::try_from(items(&row[0]).len()).unwrap_or(i32::MAX),
            ))
        }),
        ScalarFunction::ListExtract => map_values(&refs, len, ty, true, |row| {
            // 1-based; negative counts from the end (DuckDB's rule); 0 or out of
            // range is NULL
            let i = row[1].as_i64().unwrap_or(0);
            let l = items(&row[0]);
            let k = if i < 0 { l.len() as i64 + i } else { i - 1 };
            Ok(usize::try_from(k)
                .ok()
                .and_then(|k| l.get(k).cloned())
                .unwrap_or(ScalarValue::Null))
        }),
        ScalarFunction::ListValue => map_values(&refs, len, ty, false, |row| {
            Ok(ScalarValue::List(elem(ty), row.to_vec()))
        }),
        ScalarFunction::ListConcat | ScalarFunction::ListConcatOperator => {
            let strict = f.func == ScalarFunction::ListConcatOperator;
            map_values(&refs, len, ty, strict, |row| {
                if *ty == DataType::Null {
                    return Ok(ScalarValue::Null);
                }
                let out = row.iter().flat_map(|l| items(l).iter().cloned()).collect();
                Ok(ScalarValue::List(elem(ty), out))
            })
        }
        ScalarFunction::ListAppend => map_values(&refs, len, ty, false, |row| {
            let mut out = items(&row[0]).to_vec();
            out.push(row[1].clone());
            Ok(ScalarValue::List(elem(ty), out))
        }),
        ScalarFunction::ListPrepend => map_values(&refs, len, ty, false, |row| {
            let mut out = vec![row[0].clone()];
            out.extend_from_slice(items(&row[1]));
            Ok(ScalarValue::List(elem(ty), out))
        }),
        ScalarFunction::ListAny(cmp) | ScalarFunction::ListAll(cmp) => {
            let all = matches!(f.func, ScalarFunction::ListAll(_));
            map_values(&refs, len, ty, false, |row| {
                if row[1].is_null() {
                    return Ok(ScalarValue::Null);
                }
                // ANY: true once one element matches; ALL: false once one does not.
                let mut unknown = false;
                for e in items(&row[1]) {
                    if row[0].is_null() || e.is_null() {
                        unknown = true;
                        continue;
                    }
                    if cmp.holds(row[0].total_cmp(e)) != all {
                        return Ok(ScalarValue::Boolean(!all));
                    }
                }
                Ok(if unknown {
                    ScalarValue::Null
                } else {
                    ScalarValue::Boolean(all)
                })
            })
        }
        other => Err(Error::internal(format!("{other:?} is not a list function"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::*;

    fn list(items: Vec<ScalarValue>) -> ScalarValue {
        List(DataType::Varchar, items)
    }

    #[test]
    fn arrays() {
        let l = list(vec![s("a"), Null, s("c")]);
        assert_eq!(
            eval("array_to_string", &[l.clone(), s(", ")]).unwrap(),
            s("a, c")
        );
        assert_eq!(
            eval("array_to_string", &[l.clone(), s(","), s("*")]).unwrap(),
            s("a,*,c")
        );
        assert_eq!(eval("array_to_string", &[Null, s(",")]).unwrap(), Null);
        assert_eq!(
            eval("array_upper", &[l.clone(), Integer(1)]).unwrap(),
            Integer(3)
        );
        assert_eq!(
            eval("array_upper", &[list(vec![]), Integer(1)]).unwrap(),
            Null
        );
        assert_eq!(
            eval("array_length", &[l.clone(), Integer(2)]).unwrap(),
            Null
        );
        assert_eq!(eval("cardinality", &[list(vec![])]).unwrap(), Integer(0));
        assert_eq!(
            eval("list_extract", &[l.clone(), Integer(3)]).unwrap(),
            s("c")
        );
        assert_eq!(
            eval("list_extract", &[l.clone(), Integer(4)]).unwrap(),
            Null
        );
        assert_eq!(
            eval("list_extract", &[l.clone(), Integer(0)]).unwrap(),
            Null
        );
        assert_eq!(eval("||", &[Null, list(vec![s("x")])]).unwrap(), Null);
        assert_eq!(
            eval("list_concat", &[Null, list(vec![s("x")])]).unwrap(),
            list(vec![s("x")])
        );
        assert_eq!(
            eval("||", &[list(vec![s("x")]), s("y")]).unwrap(),
            list(vec![s("x"), s("y")])
        );
        assert_eq!(eval("||", &[s("a"), s("b")]).unwrap(), s("ab"));
    }

    #[test]
    fn quantified_comparisons() {
        let run = |op: &str, all: bool, x: ScalarValue, l: ScalarValue| {
            let f = resolve_quantified(op, all, &[x.data_type(), l.data_type()]).unwrap();
            let args = [
                Vector::constant(&x, &f.arg_types[0]).unwrap(),
                Vector::constant(&l, &f.arg_types[1]).unwrap(),
            ];
            evaluate(&f, &args, 1).unwrap().get(0)
        };
        let l = list(vec![s("d"), s("f")]);
        assert_eq!(run("=", false, s("d"), l.clone()), Boolean(true));
        assert_eq!(run("=", false, s("m"), l.clone()), Boolean(false));
        assert_eq!(run("<>", true, s("m"), l.clone()), Boolean(true));
        assert_eq!(run("=", false, s("m"), list(vec![s("d"), Null])), Null);
        assert_eq!(
            run("=", false, s("d"), list(vec![s("d"), Null])),
            Boolean(true)
        );
        assert_eq!(run("=", false, Null, list(vec![])), Boolean(false));
        assert_eq!(run("=", true, Null, list(vec![])), Boolean(true));
        assert!(resolve_quantified("=", false, &[DataType::Integer, DataType::Integer]).is_err());
    }
}
