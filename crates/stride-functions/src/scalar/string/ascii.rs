//! `ascii(s)`: the code point of the first character (0 for ''), `unicode(s)`
//! (`ord`): the same but -1 for '' (DuckDB), and `chr(n)`: the
//! character with code point `n` (an error for 0 and non-characters, as in
//! PostgreSQL).

use crate::kernels::{map_rows, map_rows_to_strings, Slot, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, Vector};

pub(crate) fn resolve_ascii(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::Ascii,
        args,
        &[DataType::Varchar],
        DataType::Integer,
    )
}

pub(crate) fn resolve_unicode(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::Unicode,
        args,
        &[DataType::Varchar],
        DataType::Integer,
    )
}

pub(crate) fn resolve_chr(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::Chr,
        args,
        &[DataType::Integer],
        DataType::Varchar,
    )
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    if func != ScalarFunction::Chr {
        let s = StrSlot::new(&args[0]);
        let empty = if func == ScalarFunction::Ascii { 0 } else { -1 };
        return map_rows(&[&args[0]], len, DataType::Integer, |i| {
            Ok(s.get(i).chars().next().map_or(empty, |c| c as i32))
        });
    }
    let n = Slot::<i32>::new(&args[0]);
    let mut tmp = [0u8; 4];
    map_rows_to_strings(&[&args[0]], len, |i, out| {
        let code = n.get(i);
        let c = u32::try_from(code)
            .ok()
            .filter(|&c| c != 0)
            .and_then(char::from_u32)
            .ok_or_else(|| Error::invalid_input(format!("invalid Unicode code point {code}")))?;
        out.push(c.encode_utf8(&mut tmp));
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::ScalarValue::*;

    #[test]
    fn codes() {
        assert_eq!(eval("ascii", &[Varchar("A".into())]).unwrap(), Integer(65));
        assert_eq!(eval("ascii", &[Varchar("é".into())]).unwrap(), Integer(233));
        assert_eq!(eval("ascii", &[Varchar("".into())]).unwrap(), Integer(0));
        assert_eq!(eval("chr", &[Integer(65)]).unwrap(), Varchar("A".into()));
        assert_eq!(
            eval("chr", &[Integer(0x65E5)]).unwrap(),
            Varchar("日".into())
        );
        assert!(eval("chr", &[Integer(0)]).is_err());
        assert_eq!(eval("unicode", &[Varchar("".into())]).unwrap(), Integer(-1));
        assert_eq!(eval("ord", &[Varchar("€".into())]).unwrap(), Integer(8364));
        assert!(eval("chr", &[Integer(0xD800)]).is_err());
    }
}
