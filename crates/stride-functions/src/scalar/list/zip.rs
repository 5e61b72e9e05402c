//! `list_zip(l1, l2, ... [, truncate])` (`array_zip`): a list of unnamed structs whose
//! k-th entry holds the k-th element of each list. Shorter lists are padded with NULL
//! up to the longest, or with a final BOOLEAN `truncate` that is true, every list is
//! cut to the shortest. A NULL list counts as empty and a NULL `truncate` as false, so
//! the result is never NULL.

use super::items;
use crate::kernels::map_values;
use crate::scalar::signature::bind;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, ScalarValue, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    let (lists, truncate) = match args.split_last()? {
        (DataType::Boolean, rest) if !rest.is_empty() => (rest, true),
        _ => (args, false),
    };
    let mut fields = Vec::with_capacity(lists.len());
    let mut types = Vec::with_capacity(args.len());
    for l in lists {
        let element = match l {
            DataType::List(e) => (**e).clone(),
            DataType::Null => DataType::Null,
            _ => return None,
        };
        types.push(DataType::List(Box::new(element.clone())));
        fields.push((String::new(), element));
    }
    if truncate {
        types.push(DataType::Boolean);
    }
    bind(
        ScalarFunction::ListZip,
        types,
        DataType::List(Box::new(DataType::Struct(fields))),
    )
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let DataType::List(entry) = &f.return_type else {
        return Ok(crate::kernels::null_vector(&f.return_type, len, false));
    };
    let DataType::Struct(fields) = &**entry else {
        return Ok(crate::kernels::null_vector(&f.return_type, len, false));
    };
    let lists = fields.len();
    let refs: Vec<&Vector> = args.iter().collect();
    map_values(&refs, len, &f.return_type, false, |row| {
        let truncate = row.get(lists) == Some(&ScalarValue::Boolean(true));
        let lengths = row[..lists].iter().map(|l| items(l).len());
        let n = if truncate {
            lengths.min().unwrap_or(0)
        } else {
            lengths.max().unwrap_or(0)
        };
        let zipped = (0..n)
            .map(|k| {
                let values = row[..lists]
                    .iter()
                    .map(|l| items(l).get(k).cloned().unwrap_or(ScalarValue::Null))
                    .collect();
                ScalarValue::Struct(fields.clone(), values)
            })
            .collect();
        Ok(ScalarValue::List((**entry).clone(), zipped))
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::{eval, int_list, text_list};
    use stride_common::{DataType, ScalarValue::*};

    #[test]
    fn pads_or_truncates() {
        let fields = vec![
            (String::new(), DataType::Integer),
            (String::new(), DataType::Varchar),
        ];
        let entry = |a: Option<i32>, b: Option<&str>| {
            Struct(
                fields.clone(),
                vec![
                    a.map_or(Null, Integer),
                    b.map_or(Null, |b| Varchar(b.into())),
                ],
            )
        };
        let (l1, l2) = (int_list(&[Some(1), Some(2)]), text_list(&["a", "b", "c"]));
        let ty = DataType::Struct(fields.clone());
        assert_eq!(
            eval("list_zip", &[l1.clone(), l2.clone()]).unwrap(),
            List(
                ty.clone(),
                vec![
                    entry(Some(1), Some("a")),
                    entry(Some(2), Some("b")),
                    entry(None, Some("c"))
                ]
            )
        );
        assert_eq!(
            eval("list_zip", &[l1.clone(), l2.clone(), Boolean(true)]).unwrap(),
            List(
                ty.clone(),
                vec![entry(Some(1), Some("a")), entry(Some(2), Some("b"))]
            )
        );
        assert!(eval("list_zip", &[]).is_err());
        assert!(eval("list_zip", &[l1, Integer(1)]).is_err());
    }
}
