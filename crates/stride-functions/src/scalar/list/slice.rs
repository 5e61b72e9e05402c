//! `list_slice(l, begin, end [, step])` (alias `array_slice`): the elements from
//! position `begin` to `end` inclusive (1-based), DuckDB's rules: a negative
//! position counts from the end (-1 is the last element), 0 as `begin` means the
//! start, positions past either end are clamped; a negative `step` walks from `begin`
//! down to `end`; a zero step is an error. Also over VARCHAR (characters, no step).
//! Any NULL argument gives NULL. And `list_extract`/`array_extract` of a VARCHAR: the
//! character at a position ('' when out of range). Over a BLOB, the bytes (no step).

use super::list_arg;
use crate::kernels::{map_rows_to_strings, map_values, Slot, StrSlot};
use crate::scalar::signature::{bind, is_integer_arg};
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, ScalarValue, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    let (x, pos) = args.split_first()?;
    if pos.len() < 2 || pos.len() > 3 || !pos.iter().all(is_integer_arg) {
        return None;
    }
    let x = match x {
        DataType::Varchar if pos.len() == 2 => DataType::Varchar,
        DataType::Blob if pos.len() == 2 => DataType::Blob,
        other => list_arg(other)?,
    };
    let mut types = vec![x.clone()];
    types.extend(pos.iter().map(|_| DataType::BigInt));
    bind(ScalarFunction::ListSlice, types, x)
}

/// The 0-based positions of `list_slice(·, begin, end, step)` over `n` elements.
pub(crate) fn positions(n: usize, begin: i64, end: i64, step: i64) -> Result<Vec<usize>> {
    if step == 0 {
        return Err(Error::invalid_input("Slice step cannot be zero"));
    }
    let n = n as i64;
    let norm = |p: i64| if p < 0 { n + p + 1 } else { p };
    let (b, e) = (norm(begin), norm(end));
    let mut out = Vec::new();
    if step > 0 {
        let (b, e) = (b.max(1), e.min(n));
        // A step past the end (up to i64::MAX) ends the slice, never wraps around.
        let mut i = Some(b);
        while let Some(k) = i.filter(|&k| k <= e) {
            out.push((k - 1) as usize);
            i = k.checked_add(step);
        }
    } else {
        let (b, e) = (b.min(n), e.max(1));
        let mut i = Some(b);
        while let Some(k) = i.filter(|&k| k >= e) {
            out.push((k - 1) as usize);
            i = k.checked_add(step);
        }
    }
    Ok(out)
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    if f.return_type == DataType::Blob {
        let (s, b, e) = (
            StrSlot::new(&args[0]),
            Slot::<i64>::new(&args[1]),
            Slot::<i64>::new(&args[2]),
        );
        let mut out = map_rows_to_strings(&refs, len, |i, out| {
            let bytes = s.bytes(i);
            let picked: Vec<u8> = positions(bytes.len(), b.get(i), e.get(i), 1)?
                .into_iter()
                .map(|k| bytes[k])
                .collect();
            out.push_blob(&picked);
            Ok(())
        })?;
        out.ty = DataType::Blob;
        return Ok(out);
    }
    if f.return_type == DataType::Varchar {
        let (s, b, e) = (
            StrSlot::new(&args[0]),
            Slot::<i64>::new(&args[1]),
            Slot::<i64>::new(&args[2]),
        );
        return map_rows_to_strings(&refs, len, |i, out| {
            let chars: Vec<char> = s.get(i).chars().collect();
            let picked: String = positions(chars.len(), b.get(i), e.get(i), 1)?
                .into_iter()
                .map(|k| chars[k])
                .collect();
            out.push(&picked);
            Ok(())
        });
    }
    let elem = super::element(&f.return_type)
        .cloned()
        .unwrap_or(DataType::Null);
    map_values(&refs, len, &f.return_type, true, |row| {
        let v = super::items(&row[0]);
        let step = row.get(3).and_then(|s| s.as_i64()).unwrap_or(1);
        let (b, e) = (row[1].as_i64().unwrap_or(0), row[2].as_i64().unwrap_or(0));
        let picked = positions(v.len(), b, e, step)?
            .into_iter()
            .map(|k| v[k].clone())
            .collect();
        Ok(ScalarValue::List(elem.clone(), picked))
    })
}

/// `array_extract(s, i)` on a string: the i-th character (negative from the end),
/// '' out of range.
pub(crate) fn resolve_string_extract(args: &[DataType]) -> Option<BoundFunction> {
    let [DataType::Varchar, i] = args else {
        return None;
    };
    if !is_integer_arg(i) {
        return None;
    }
    bind(
        ScalarFunction::StringExtract,
        vec![DataType::Varchar, DataType::BigInt],
        DataType::Varchar,
    )
}

pub(super) fn evaluate_string_extract(args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let (s, at) = (StrSlot::new(&args[0]), Slot::<i64>::new(&args[1]));
    map_rows_to_strings(&refs, len, |i, out| {
        let s = s.get(i);
        let k = at.get(i);
        let n = s.chars().count() as i64;
        let pos = if k < 0 { n + k } else { k - 1 };
        let c = if k == 0 || pos < 0 || pos >= n {
            None
        } else {
            s.chars().nth(pos as usize)
        };
        let mut buf = [0u8; 4];
        out.push(c.map_or("", |c| c.encode_utf8(&mut buf)));
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::positions;
    use crate::scalar::test_util::eval;
    use stride_common::DataType;
    use stride_common::ScalarValue::{self, *};

    fn ints(v: &[i32]) -> ScalarValue {
        List(DataType::Integer, v.iter().map(|&x| Integer(x)).collect())
    }

    fn slice(b: i64, e: i64, step: i64) -> Vec<usize> {
        positions(5, b, e, step)
            .unwrap()
            .iter()
            .map(|k| k + 1)
            .collect()
    }

    #[test]
    fn slice_positions() {
        assert_eq!(slice(2, 3, 1), vec![2, 3]);
        assert_eq!(slice(-2, -1, 1), vec![4, 5]);
        assert_eq!(slice(0, 2, 1), vec![1, 2]);
        assert_eq!(slice(4, 2, 1), Vec::<usize>::new());
        assert_eq!(slice(-10, 10, 1), vec![1, 2, 3, 4, 5]);
        assert_eq!(slice(10, 20, 1), Vec::<usize>::new());
        assert_eq!(slice(1, 5, 2), vec![1, 3, 5]);
        assert_eq!(slice(1, 5, -1), Vec::<usize>::new());
        assert_eq!(slice(5, 1, -1), vec![5, 4, 3, 2, 1]);
        assert_eq!(slice(-1, -5, -2), vec![5, 3, 1]);
        assert_eq!(slice(-2, 0, 1), Vec::<usize>::new());
        assert_eq!(slice(0, -1, 1), vec![1, 2, 3, 4, 5]);
        assert_eq!(slice(-6, -5, 1), vec![1]);
        assert!(positions(3, 1, 3, 0).is_err());
    }

    #[test]
    fn slices() {
        let l = ints(&[1, 2, 3, 4, 5]);
        assert_eq!(
            eval("list_slice", &[l.clone(), Integer(2), Integer(3)]).unwrap(),
            ints(&[2, 3])
        );
        assert_eq!(
            eval(
                "array_slice",
                &[l.clone(), Integer(1), Integer(5), Integer(2)]
            )
            .unwrap(),
            ints(&[1, 3, 5])
        );
        assert_eq!(
            eval("list_slice", &[l.clone(), Null, Integer(3)]).unwrap(),
            Null
        );
        let e = eval("list_slice", &[l, Integer(1), Integer(3), Integer(0)]).unwrap_err();
        assert_eq!(e.message, "Slice step cannot be zero");
        let s = Varchar("héllo".into());
        assert_eq!(
            eval("array_slice", &[s.clone(), Integer(2), Integer(3)]).unwrap(),
            Varchar("él".into())
        );
        assert_eq!(
            eval("array_extract", &[s.clone(), Integer(-1)]).unwrap(),
            Varchar("o".into())
        );
        assert_eq!(
            eval("array_extract", &[s, Integer(0)]).unwrap(),
            Varchar("".into())
        );
    }
}
