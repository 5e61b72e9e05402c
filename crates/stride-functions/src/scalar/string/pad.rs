//! `lpad(s, n[, fill])` and `rpad(s, n[, fill])`: pad to `n` characters with `fill`
//! (default a space) repeated, or truncate to the first `n` characters when longer
//! (PostgreSQL). An empty fill leaves short strings as they are.

use super::{char_count, char_offset, too_long, MAX_STRING_BYTES};
use crate::kernels::{map_rows_to_strings, Slot, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};

fn resolve(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    use DataType::*;
    let params: &[DataType] = match args.len() {
        2 => &[Varchar, BigInt],
        3 => &[Varchar, BigInt, Varchar],
        _ => return None,
    };
    fixed(func, args, params, Varchar)
}

pub(crate) fn resolve_lpad(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Lpad, args)
}

pub(crate) fn resolve_rpad(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Rpad, args)
}

/// Appends `s` padded (or truncated) to `n` characters.
pub(crate) fn pad_into(s: &str, n: i64, fill: &str, left: bool, buf: &mut String) -> Result<()> {
    if n <= 0 {
        return Ok(());
    }
    let len = char_count(s);
    if len as u64 >= n as u64 {
        buf.push_str(&s[..char_offset(s, n as usize)]);
        return Ok(());
    }
    if fill.is_empty() {
        buf.push_str(s);
        return Ok(());
    }
    let need = n as usize - len;
    // a fill character is at most 4 bytes
    if need.saturating_mul(4).saturating_add(s.len()) > MAX_STRING_BYTES {
        return Err(too_long());
    }
    if !left {
        buf.push_str(s);
    }
    buf.extend(fill.chars().cycle().take(need));
    if left {
        buf.push_str(s);
    }
    Ok(())
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let (s, n) = (StrSlot::new(&args[0]), Slot::<i64>::new(&args[1]));
    let fill = args.get(2).map(StrSlot::new);
    let left = func == ScalarFunction::Lpad;
    let mut buf = String::new();
    map_rows_to_strings(&refs, len, |i, out| {
        buf.clear();
        pad_into(
            s.get(i),
            n.get(i),
            fill.map_or(" ", |f| f.get(i)),
            left,
            &mut buf,
        )?;
        out.push(&buf);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::*;

    #[test]
    fn pads() {
        assert_eq!(
            eval("lpad", &[s("hi"), Integer(5), s("xy")]).unwrap(),
            s("xyxhi")
        );
        assert_eq!(
            eval("rpad", &[s("hi"), Integer(5), s("xy")]).unwrap(),
            s("hixyx")
        );
        assert_eq!(eval("lpad", &[s("hi"), Integer(4)]).unwrap(), s("  hi"));
        assert_eq!(eval("lpad", &[s("hello"), Integer(2)]).unwrap(), s("he"));
        assert_eq!(eval("rpad", &[s("hello"), Integer(2)]).unwrap(), s("he"));
        assert_eq!(
            eval("lpad", &[s("hi"), Integer(5), s("")]).unwrap(),
            s("hi")
        );
        assert_eq!(eval("lpad", &[s("hi"), Integer(-1)]).unwrap(), s(""));
        assert_eq!(
            eval("rpad", &[s("é"), Integer(3), s("ü")]).unwrap(),
            s("éüü")
        );
        assert!(eval("lpad", &[s("x"), BigInt(i64::MAX), s("y")]).is_err());
    }
}
