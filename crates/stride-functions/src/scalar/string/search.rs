//! Substring tests: `starts_with`, `ends_with`, `contains` (BOOLEAN) and
//! `position`/`strpos`/`instr` (BIGINT, the 1-based character position of the first
//! occurrence, 0 when absent). A constant needle is searched with one precompiled
//! memmem finder.

use crate::kernels::{map_rows, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use memchr::memmem::{self, Finder};
use stride_common::{DataType, Result, Vector};

fn resolve(func: ScalarFunction, args: &[DataType], ret: DataType) -> Option<BoundFunction> {
    fixed(func, args, &[DataType::Varchar, DataType::Varchar], ret)
}

pub(crate) fn resolve_starts_with(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::StartsWith, args, DataType::Boolean)
}

pub(crate) fn resolve_ends_with(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::EndsWith, args, DataType::Boolean)
}

pub(crate) fn resolve_contains(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Contains, args, DataType::Boolean)
}

pub(crate) fn resolve_position(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Position, args, DataType::BigInt)
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let refs = [&args[0], &args[1]];
    let (hay, needle) = (StrSlot::new(&args[0]), StrSlot::new(&args[1]));
    let finder = args[1]
        .constant
        .then(|| Finder::new(needle.bytes(0)).into_owned());
    let find = |i: usize| match &finder {
        Some(f) => f.find(hay.bytes(i)),
        None => memmem::find(hay.bytes(i), needle.bytes(i)),
    };
    match func {
        ScalarFunction::StartsWith => map_rows(&refs, len, DataType::Boolean, |i| {
            Ok(hay.bytes(i).starts_with(needle.bytes(i)))
        }),
        ScalarFunction::EndsWith => map_rows(&refs, len, DataType::Boolean, |i| {
            Ok(hay.bytes(i).ends_with(needle.bytes(i)))
        }),
        ScalarFunction::Contains => {
            map_rows(&refs, len, DataType::Boolean, |i| Ok(find(i).is_some()))
        }
        _ => map_rows(&refs, len, DataType::BigInt, |i| {
            Ok(match find(i) {
                Some(at) => super::char_count(&hay.get(i)[..at]) as i64 + 1,
                None => 0,
            })
        }),
    }
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::*;

    #[test]
    fn searches() {
        assert_eq!(
            eval("starts_with", &[s("hello"), s("he")]).unwrap(),
            Boolean(true)
        );
        assert_eq!(
            eval("starts_with", &[s("hello"), s("")]).unwrap(),
            Boolean(true)
        );
        assert_eq!(
            eval("ends_with", &[s("hello"), s("lo")]).unwrap(),
            Boolean(true)
        );
        assert_eq!(
            eval("suffix", &[s("hello"), s("he")]).unwrap(),
            Boolean(false)
        );
        assert_eq!(
            eval("contains", &[s("hello"), s("ll")]).unwrap(),
            Boolean(true)
        );
        assert_eq!(
            eval("contains", &[s("hello"), s("x")]).unwrap(),
            Boolean(false)
        );
        assert_eq!(eval("position", &[s("hello"), s("l")]).unwrap(), BigInt(3));
        assert_eq!(eval("strpos", &[s("日本語"), s("語")]).unwrap(), BigInt(3));
        assert_eq!(eval("instr", &[s("hello"), s("z")]).unwrap(), BigInt(0));
        assert_eq!(eval("position", &[s("hello"), s("")]).unwrap(), BigInt(1));
        assert_eq!(eval("contains", &[Null, s("")]).unwrap(), Null);
    }
}
