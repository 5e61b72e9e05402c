//! `overlay(s, replacement, start [, count])`: `s` with the `count` characters from
//! position `start` (1-based) replaced by `replacement`; `count` defaults to the
//! replacement's length (DuckDB, PostgreSQL's OVERLAY ... PLACING ... FROM ... FOR).
//! The part kept after the replacement starts at `start + count` (so a `start`
//! before the string shortens what is replaced); a negative count counts as the
//! default, the replacement's length (DuckDB).

use super::{char_count, char_offset, too_long, MAX_STRING_BYTES};
use crate::kernels::{map_rows_to_strings, Slot, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    use DataType::*;
    let params: &[DataType] = match args.len() {
        3 => &[Varchar, Varchar, BigInt],
        4 => &[Varchar, Varchar, BigInt, BigInt],
        _ => return None,
    };
    fixed(ScalarFunction::Overlay, args, params, Varchar)
}

fn overlay(s: &str, rep: &str, start: i64, count: Option<i64>, out: &mut String) {
    let n = char_count(s) as i64;
    let count = match count {
        Some(c) if c >= 0 => c,
        _ => char_count(rep) as i64,
    };
    let head = (start.saturating_sub(1)).clamp(0, n);
    let tail = start.saturating_sub(1).saturating_add(count).clamp(0, n);
    out.push_str(&s[..char_offset(s, head as usize)]);
    out.push_str(rep);
    out.push_str(&s[char_offset(s, tail as usize)..]);
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let (s, rep, start) = (
        StrSlot::new(&args[0]),
        StrSlot::new(&args[1]),
        Slot::<i64>::new(&args[2]),
    );
    let count = args.get(3).map(Slot::<i64>::new);
    let mut buf = String::new();
    map_rows_to_strings(&refs, len, |i, out| {
        buf.clear();
        if s.get(i).len() + rep.get(i).len() > MAX_STRING_BYTES {
            return Err(too_long());
        }
        overlay(
            s.get(i),
            rep.get(i),
            start.get(i),
            count.map(|c| c.get(i)),
            &mut buf,
        );
        out.push(&buf);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::overlay;

    #[test]
    fn placements() {
        let o = |s, r, st, c| {
            let mut out = String::new();
            overlay(s, r, st, c, &mut out);
            out
        };
        assert_eq!(o("abcdef", "XY", 2, None), "aXYdef");
        assert_eq!(o("abcdef", "XY", 2, Some(4)), "aXYf");
        assert_eq!(o("abc", "XY", 10, None), "abcXY");
        assert_eq!(o("abc", "XY", 0, None), "XYbc");
        assert_eq!(o("abc", "XY", -1, None), "XYabc");
        assert_eq!(o("abc", "XY", 2, Some(0)), "aXYbc");
        assert_eq!(o("abc", "XY", 2, Some(-1)), "aXY");
        assert_eq!(o("hello", "XY", 2, Some(-1)), "hXYlo");
        assert_eq!(o("hello", "XY", 3, Some(-3)), "heXYo");
        assert_eq!(o("héllo", "é", 5, None), "héllé");
        assert_eq!(o("abc", "", i64::MIN, Some(i64::MAX)), "abc");
    }
}
