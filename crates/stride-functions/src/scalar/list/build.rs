//! Building lists from lists: `list_append(l, x)` (`array_append`,
//! `array_push_back`), `list_prepend(x, l)` (`array_prepend`, `array_push_front`)
//! (a NULL list counts as empty), `list_resize(l, n [, fill])` (`array_resize`),
//! `list_select(l, positions)` (`array_select`), `list_where(l, mask)`
//! (`array_where`), `flatten(list of lists)`, and the scalar `range(...)` /
//! `generate_series(...)`, which return a list (of BIGINT, or of TIMESTAMP stepped by
//! an INTERVAL; `generate_series` includes the stop value). `len`/`length` of a list.

use super::{element, items, list_arg};
use crate::kernels::map_values;
use crate::list_memory::check_list_memory;
use crate::scalar::signature::{bind, castable, is_integer_arg};
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::temporal::timestamp_add_interval;
use stride_common::{DataType, Error, Interval, Result, ScalarValue, Vector};

/// The most elements `range`/`list_resize` build in one list.
const MAX_LIST: i64 = 1 << 32;

fn list_of(t: DataType) -> DataType {
    DataType::List(Box::new(t))
}

/// `list_append(l, x)`: the list's element type and `x` unified.
pub(crate) fn resolve_append(args: &[DataType]) -> Option<BoundFunction> {
    let [l, x] = args else { return None };
    let e = match l {
        DataType::Null => x.clone(),
        DataType::List(e) => DataType::common_supertype(e, x)?,
        _ => return None,
    };
    let e = if e == DataType::Null {
        DataType::Integer
    } else {
        e
    };
    bind(
        ScalarFunction::ListAppend,
        vec![list_of(e.clone()), e.clone()],
        list_of(e),
    )
}

/// `list_prepend(x, l)`.
pub(crate) fn resolve_prepend(args: &[DataType]) -> Option<BoundFunction> {
    let [x, l] = args else { return None };
    let mut f = resolve_append(&[l.clone(), x.clone()])?;
    f.func = ScalarFunction::ListPrepend;
    f.arg_types.swap(0, 1);
    Some(f)
}

/// `array_push_front(l, x)`: `list_prepend` with the list first.
pub(crate) fn resolve_push_front(args: &[DataType]) -> Option<BoundFunction> {
    let mut f = resolve_append(args)?;
    f.func = ScalarFunction::ListPushFront;
    Some(f)
}

/// `len(l)`, `length(l)`, one-argument `array_length(l)`: the number of elements.
pub(crate) fn resolve_len(args: &[DataType]) -> Option<BoundFunction> {
    let [l @ DataType::List(_)] = args else {
        return None;
    };
    bind(
        ScalarFunction::ListLength,
        vec![l.clone()],
        DataType::BigInt,
    )
}

pub(crate) fn resolve_resize(args: &[DataType]) -> Option<BoundFunction> {
    let (l, rest) = args.split_first()?;
    let ([n] | [n, _]) = rest else { return None };
    if !is_integer_arg(n) {
        return None;
    }
    let l = list_arg(l)?;
    let e = match rest.get(1) {
        Some(fill) => DataType::common_supertype(element(&l)?, fill)?,
        None => element(&l)?.clone(),
    };
    let mut types = vec![list_of(e.clone()), DataType::BigInt];
    if rest.len() == 2 {
        types.push(e.clone());
    }
    bind(ScalarFunction::ListResize, types, list_of(e))
}

/// `list_select(l, positions)` and `list_where(l, mask)`.
pub(crate) fn resolve_pick(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    let [l, p] = args else { return None };
    let l = list_arg(l)?;
    let want = if func == ScalarFunction::ListSelect {
        DataType::BigInt
    } else {
        DataType::Boolean
    };
    let p = match p {
        DataType::Null => list_of(want.clone()),
        DataType::List(e) if castable(e, &want) => list_of(want),
        _ => return None,
    };
    bind(func, vec![l.clone(), p], l)
}

pub(crate) fn resolve_flatten(args: &[DataType]) -> Option<BoundFunction> {
    let [l] = args else { return None };
    let l = match l {
        DataType::Null => list_of(list_of(DataType::Null)),
        DataType::List(e) if matches!(**e, DataType::List(_) | DataType::Null) => l.clone(),
        _ => return None,
    };
    let inner = match element(&l)? {
        DataType::Null => list_of(DataType::Null),
        t => t.clone(),
    };
    bind(ScalarFunction::Flatten, vec![list_of(inner.clone())], inner)
}

/// `range(stop)`, `range(start, stop [, step])` over BIGINT, or
/// `range(start, stop, interval)` over TIMESTAMP (DATE arguments are cast).
pub(crate) fn resolve_range(args: &[DataType], inclusive: bool) -> Option<BoundFunction> {
    let func = ScalarFunction::ListRange(inclusive);
    if args.iter().all(is_integer_arg) && !args.is_empty() && args.len() <= 3 {
        return bind(
            func,
            vec![DataType::BigInt; args.len()],
            list_of(DataType::BigInt),
        );
    }
    let [a, b, step] = args else { return None };
    // over instants when either end is one (days and months step on the session
    // zone's clocks)
    let ts = if *a == DataType::TimestampTz || *b == DataType::TimestampTz {
        DataType::TimestampTz
    } else {
        DataType::Timestamp
    };
    if !castable(a, &ts) || !castable(b, &ts) || !castable(step, &DataType::Interval) {
        return None;
    }
    bind(
        func,
        vec![ts.clone(), ts.clone(), DataType::Interval],
        list_of(ts),
    )
}

fn integer_range(row: &[ScalarValue], inclusive: bool) -> Result<Vec<ScalarValue>> {
    let v: Vec<i64> = row.iter().map(|x| x.as_i64().unwrap_or(0)).collect();
    let (start, stop, step) = match v.as_slice() {
        [stop] => (0, *stop, 1),
        [start, stop] => (*start, *stop, 1),
        [start, stop, step] => (*start, *stop, *step),
        _ => return Err(Error::internal("range arity")),
    };
    if step == 0 {
        return Ok(Vec::new());
    }
    // the number of elements, computed in i128 so extreme bounds cannot overflow
    let (s, e, st) = (start as i128, stop as i128, step as i128);
    let span = if st > 0 { e - s } else { s - e };
    let st_abs = st.abs();
    let count = if span < 0 || (span == 0 && !inclusive) {
        0
    } else if inclusive {
        span / st_abs + 1
    } else {
        (span + st_abs - 1) / st_abs
    };
    if count > MAX_LIST as i128 {
        return Err(Error::invalid_input(
            "Lists larger than 2^32 elements are not supported",
        ));
    }
    check_list_memory("range", count)?;
    Ok((0..count)
        .map(|k| ScalarValue::BigInt((s + k * st) as i64))
        .collect())
}

fn timestamp_range(row: &[ScalarValue], inclusive: bool) -> Result<Vec<ScalarValue>> {
    let (start, stop, step, zone) = match (&row[0], &row[1], &row[2]) {
        (ScalarValue::Timestamp(a), ScalarValue::Timestamp(b), ScalarValue::Interval(s)) => {
            (a, b, s, None)
        }
        (ScalarValue::TimestampTz(a), ScalarValue::TimestampTz(b), ScalarValue::Interval(s)) => {
            (a, b, s, Some(stride_common::zone::current()))
        }
        _ => return Err(Error::internal("timestamp range arguments")),
    };
    let (start, stop, step) = (*start, *stop, *step);
    if step == Interval::default() {
        return Ok(Vec::new());
    }
    let up = step.normalized_micros() > 0;
    let mut out = Vec::new();
    let mut t = start;
    loop {
        let more = if up {
            t < stop || (inclusive && t == stop)
        } else {
            t > stop || (inclusive && t == stop)
        };
        if !more {
            break;
        }
        if out.len() as i64 >= MAX_LIST {
            return Err(Error::invalid_input(
                "Lists larger than 2^32 elements are not supported",
            ));
        }
        if out.len() == out.capacity() && out.len() >= 1 << 16 {
            // (the list doubles: check before asking for it)
            check_list_memory("range", 2 * out.len() as i128)?;
        }
        out.push(match zone {
            Some(_) => ScalarValue::TimestampTz(t),
            None => ScalarValue::Timestamp(t),
        });
        let next = match &zone {
            Some(z) => crate::timezone::add_interval(z, t, step),
            None => timestamp_add_interval(t, step),
        };
        let Some(next) = next else {
            break;
        };
        if (up && next <= t) || (!up && next >= t) {
            return Err(Error::invalid_input(
                "Interval step of range must move the timestamp",
            ));
        }
        t = next;
    }
    Ok(out)
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let ty = &f.return_type;
    let elem = element(ty).cloned().unwrap_or(DataType::Null);
    let list = |v: Vec<ScalarValue>| Ok(ScalarValue::List(elem.clone(), v));
    match f.func {
        ScalarFunction::ListPushFront => map_values(&refs, len, ty, false, |row| {
            let mut v = vec![row[1].clone()];
            v.extend_from_slice(items(&row[0]));
            list(v)
        }),
        ScalarFunction::ListLength => map_values(&refs, len, ty, true, |row| {
            Ok(ScalarValue::BigInt(items(&row[0]).len() as i64))
        }),
        ScalarFunction::ListResize => map_values(&refs, len, ty, false, |row| {
            if row[0].is_null() {
                return Ok(ScalarValue::Null);
            }
            let n = match &row[1] {
                ScalarValue::Null => 0,
                v => v.as_i64().unwrap_or(0),
            };
            if n < 0 {
                return Err(Error::conversion(format!(
                    "list_resize: the new size must not be negative, got {n}"
                )));
            }
            if n > MAX_LIST {
                return Err(Error::invalid_input(
                    "Lists larger than 2^32 elements are not supported",
                ));
            }
            check_list_memory("list_resize", n as i128)?;
            let fill = row.get(2).cloned().unwrap_or(ScalarValue::Null);
            let mut v = items(&row[0]).to_vec();
            v.resize(n as usize, fill);
            list(v)
        }),
        ScalarFunction::ListSelect | ScalarFunction::ListWhere => {
            map_values(&refs, len, ty, true, |row| {
                let v = items(&row[0]);
                let p = items(&row[1]);
                if p.iter().any(|x| x.is_null()) {
                    return Err(Error::invalid_input(
                        "NULLs are not allowed as list elements in the second input parameter.",
                    ));
                }
                let picked = if f.func == ScalarFunction::ListSelect {
                    p.iter()
                        .map(|i| {
                            let i = i.as_i64().unwrap_or(0);
                            usize::try_from(i - 1)
                                .ok()
                                .and_then(|k| v.get(k).cloned())
                                .unwrap_or(ScalarValue::Null)
                        })
                        .collect()
                } else {
                    v.iter()
                        .zip(p)
                        .filter(|(_, m)| matches!(m, ScalarValue::Boolean(true)))
                        .map(|(x, _)| x.clone())
                        .collect()
                };
                list(picked)
            })
        }
        ScalarFunction::Flatten => map_values(&refs, len, ty, true, |row| {
            list(
                items(&row[0])
                    .iter()
                    .flat_map(|l| items(l).iter().cloned())
                    .collect(),
            )
        }),
        ScalarFunction::ListRange(inclusive) => map_values(&refs, len, ty, true, |row| {
            if matches!(elem, DataType::Timestamp | DataType::TimestampTz) {
                list(timestamp_range(row, inclusive)?)
            } else {
                list(integer_range(row, inclusive)?)
            }
        }),
        other => Err(Error::internal(format!(
            "{other:?} is not a list building function"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::{eval, int_list as ints};
    use stride_common::temporal::parse_timestamp;
    use stride_common::DataType;
    use stride_common::ScalarValue::{self, *};

    fn bigs(v: &[i64]) -> ScalarValue {
        List(DataType::BigInt, v.iter().map(|&x| BigInt(x)).collect())
    }

    #[test]
    fn append_resize_select() {
        let l = ints(&[Some(1), Some(2)]);
        assert_eq!(
            eval("list_append", &[l.clone(), Integer(3)]).unwrap(),
            ints(&[Some(1), Some(2), Some(3)])
        );
        assert_eq!(
            eval("array_push_front", &[l.clone(), Integer(0)]).unwrap(),
            ints(&[Some(0), Some(1), Some(2)])
        );
        assert_eq!(
            eval("list_append", &[Null, Integer(1)]).unwrap(),
            ints(&[Some(1)])
        );
        assert_eq!(
            eval("list_resize", &[l.clone(), Integer(3)]).unwrap(),
            ints(&[Some(1), Some(2), None])
        );
        assert_eq!(
            eval("array_resize", &[l.clone(), Integer(1), Integer(0)]).unwrap(),
            ints(&[Some(1)])
        );
        assert_eq!(eval("list_resize", &[l.clone(), Null]).unwrap(), ints(&[]));
        assert!(eval("list_resize", &[l.clone(), Integer(-1)]).is_err());
        assert_eq!(
            eval("list_select", &[l.clone(), ints(&[Some(2), Some(5)])]).unwrap(),
            ints(&[Some(2), None])
        );
        assert!(eval("list_select", &[l.clone(), ints(&[None])]).is_err());
        let mask = List(DataType::Boolean, vec![Boolean(false), Boolean(true)]);
        assert_eq!(
            eval("list_where", &[l.clone(), mask]).unwrap(),
            ints(&[Some(2)])
        );
        assert_eq!(eval("len", &[l]).unwrap(), BigInt(2));
    }

    #[test]
    fn flatten_and_ranges() {
        let nested = List(
            DataType::List(Box::new(DataType::Integer)),
            vec![ints(&[Some(1), Some(2)]), Null, ints(&[None])],
        );
        assert_eq!(
            eval("flatten", &[nested]).unwrap(),
            ints(&[Some(1), Some(2), None])
        );
        assert_eq!(eval("range", &[Integer(3)]).unwrap(), bigs(&[0, 1, 2]));
        assert_eq!(
            eval("range", &[Integer(1), Integer(10), Integer(3)]).unwrap(),
            bigs(&[1, 4, 7])
        );
        assert_eq!(
            eval("generate_series", &[Integer(5), Integer(1), Integer(-2)]).unwrap(),
            bigs(&[5, 3, 1])
        );
        assert_eq!(
            eval("range", &[Integer(1), Integer(5), Integer(0)]).unwrap(),
            bigs(&[])
        );
        assert_eq!(eval("range", &[Integer(1), Null]).unwrap(), Null);
        assert!(eval("range", &[BigInt(0), BigInt(10_000_000_000)]).is_err());
        let ts = |s: &str| Timestamp(parse_timestamp(s).unwrap());
        let day = Interval(stride_common::Interval::new(0, 1, 0));
        assert_eq!(
            eval(
                "generate_series",
                &[ts("2020-01-01"), ts("2020-01-03"), day.clone()]
            )
            .unwrap(),
            List(
                DataType::Timestamp,
                vec![ts("2020-01-01"), ts("2020-01-02"), ts("2020-01-03")]
            )
        );
        assert_eq!(
            eval("range", &[ts("2020-01-01"), ts("2020-01-03"), day]).unwrap(),
            List(
                DataType::Timestamp,
                vec![ts("2020-01-01"), ts("2020-01-02")]
            )
        );
    }
}
