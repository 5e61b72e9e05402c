//! `format_bytes(n)` (`formatReadableSize`): a byte count in binary units (KiB,
//! MiB, ... PiB) with one decimal, truncated; `formatReadableDecimalSize(n)`: the
//! same in decimal units (kB, MB, ... PB). Below one unit the count is given in
//! bytes ("1 byte", "999 bytes"). DuckDB's formatting.

use crate::kernels::{map_rows_to_strings, Slot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use std::fmt::Write;
use stride_common::{DataType, Result, Vector};

pub(crate) fn resolve_binary(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::FormatBytes,
        args,
        &[DataType::BigInt],
        DataType::Varchar,
    )
}

pub(crate) fn resolve_decimal(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::FormatDecimalBytes,
        args,
        &[DataType::BigInt],
        DataType::Varchar,
    )
}

/// `bytes` in units of `multiplier` (1000 or 1024), as DuckDB writes them.
pub(crate) fn human_readable(bytes: i64, multiplier: u64, out: &mut String) {
    const UNITS: [[&str; 6]; 2] = [
        ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"],
        ["bytes", "kB", "MB", "GB", "TB", "PB"],
    ];
    let units = &UNITS[usize::from(multiplier == 1000)];
    if bytes < 0 {
        out.push('-');
    }
    let n = bytes.unsigned_abs();
    let mut parts = [0u64; 6];
    parts[0] = n;
    for i in 1..6 {
        parts[i] = parts[i - 1] / multiplier;
        parts[i - 1] %= multiplier;
    }
    for i in (1..6).rev() {
        if parts[i] != 0 {
            let tenth = parts[i - 1] * 10 / multiplier;
            let _ = write!(out, "{}.{} {}", parts[i], tenth, units[i]);
            return;
        }
    }
    let _ = write!(out, "{n} {}", if n == 1 { "byte" } else { "bytes" });
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let v = Slot::<i64>::new(&args[0]);
    let multiplier = if func == ScalarFunction::FormatBytes {
        1024
    } else {
        1000
    };
    let mut buf = String::new();
    map_rows_to_strings(&[&args[0]], len, |i, out| {
        buf.clear();
        human_readable(v.get(i), multiplier, &mut buf);
        out.push(&buf);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use stride_common::ScalarValue::{self, *};

    fn f(name: &str, n: i64) -> ScalarValue {
        eval(name, &[BigInt(n)]).unwrap()
    }

    #[test]
    fn sizes() {
        let s = |x: &str| Varchar(x.into());
        assert_eq!(f("format_bytes", 0), s("0 bytes"));
        assert_eq!(f("format_bytes", 1), s("1 byte"));
        assert_eq!(f("format_bytes", 1023), s("1023 bytes"));
        assert_eq!(f("format_bytes", 1536), s("1.5 KiB"));
        assert_eq!(f("format_bytes", 1_000_000), s("976.5 KiB"));
        assert_eq!(f("format_bytes", -1024), s("-1.0 KiB"));
        assert_eq!(f("formatReadableSize", i64::MAX), s("8191.9 PiB"));
        assert_eq!(f("formatReadableDecimalSize", 1_500_000), s("1.5 MB"));
        assert_eq!(f("formatReadableDecimalSize", 999), s("999 bytes"));
        assert_eq!(f("formatReadableDecimalSize", i64::MIN), s("-9223.3 PB"));
    }
}
