//! `to_base(n, radix [, min_length])`: a non-negative BIGINT written in base 2 to
//! 36 (digits 0-9 then A-Z), left-padded with zeros to `min_length`; and
//! `parse_formatted_bytes(s)`: a size such as '16 KiB' or '1.5 MB' in bytes (KB, MB,
//! GB, TB are powers of 1000, KiB, MiB, GiB, TiB of 1024; a unit is required), as
//! a BIGINT where DuckDB returns a UBIGINT. Errors carry DuckDB's messages.

use crate::kernels::{map_rows, map_rows_to_strings, Slot, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, Vector};

pub(crate) fn resolve_to_base(args: &[DataType]) -> Option<BoundFunction> {
    use DataType::*;
    let params: &[DataType] = match args.len() {
        2 => &[BigInt, Integer],
        3 => &[BigInt, Integer, Integer],
        _ => return None,
    };
    fixed(ScalarFunction::ToBase, args, params, Varchar)
}

pub(crate) fn resolve_parse_bytes(args: &[DataType]) -> Option<BoundFunction> {
    use DataType::*;
    fixed(
        ScalarFunction::ParseFormattedBytes,
        args,
        &[Varchar],
        BigInt,
    )
}

fn to_base(n: i64, radix: i32, min_len: i32, out: &mut String) -> Result<()> {
    if n < 0 {
        return Err(Error::invalid_input(
            "'to_base' number must be greater than or equal to 0",
        ));
    }
    if !(2..=36).contains(&radix) {
        return Err(Error::invalid_input(
            "'to_base' radix must be between 2 and 36",
        ));
    }
    if !(0..=64).contains(&min_len) {
        return Err(Error::invalid_input(
            "'to_base' min_length must be between 0 and 64",
        ));
    }
    let mut digits = Vec::new();
    let mut v = n as u64;
    loop {
        let d = (v % radix as u64) as u32;
        digits.push(
            std::char::from_digit(d, 36)
                .unwrap_or('?')
                .to_ascii_uppercase(),
        );
        v /= radix as u64;
        if v == 0 {
            break;
        }
    }
    for _ in digits.len()..min_len as usize {
        out.push('0');
    }
    out.extend(digits.iter().rev());
    Ok(())
}

fn parse_bytes(s: &str) -> Result<i64> {
    let t = s.trim();
    if t.starts_with('-') {
        return Err(Error::invalid_input("Memory cannot be negative"));
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = (&t[..split], t[split..].trim());
    if num.is_empty() {
        return Err(Error::invalid_input("Memory must have a number (e.g. 1GB)"));
    }
    let value: f64 = num
        .parse()
        .map_err(|_| Error::invalid_input(format!("Invalid memory limit: '{num}'")))?;
    let multiplier: f64 = match unit.to_ascii_lowercase().as_str() {
        "byte" | "bytes" | "b" => 1.0,
        "kb" | "kilobyte" | "kilobytes" | "k" => 1e3,
        "mb" | "megabyte" | "megabytes" | "m" => 1e6,
        "gb" | "gigabyte" | "gigabytes" | "g" => 1e9,
        "tb" | "terabyte" | "terabytes" | "t" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => {
            return Err(Error::invalid_input(format!(
                "Unknown unit for memory: '{unit}' (expected: KB, MB, GB, TB for 1000^i units or KiB, MiB, GiB, TiB for 1024^i units)"
            )))
        }
    };
    let bytes = (value * multiplier).trunc();
    if !bytes.is_finite() || bytes >= 9.2e18 {
        return Err(Error::invalid_input(
            "Memory value out of range: value is too large",
        ));
    }
    Ok(bytes as i64)
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    if func == ScalarFunction::ParseFormattedBytes {
        let s = StrSlot::new(&args[0]);
        return map_rows(&refs, len, DataType::BigInt, |i| parse_bytes(s.get(i)));
    }
    let (n, radix) = (Slot::<i64>::new(&args[0]), Slot::<i32>::new(&args[1]));
    let min_len = args.get(2).map(Slot::<i32>::new);
    let mut buf = String::new();
    map_rows_to_strings(&refs, len, |i, out| {
        buf.clear();
        to_base(
            n.get(i),
            radix.get(i),
            min_len.map_or(0, |m| m.get(i)),
            &mut buf,
        )?;
        out.push(&buf);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bases_and_sizes() {
        let b = |n, r, m| {
            let mut s = String::new();
            to_base(n, r, m, &mut s).map(|_| s)
        };
        assert_eq!(b(42, 16, 5).unwrap(), "0002A");
        assert_eq!(b(42, 2, 0).unwrap(), "101010");
        assert_eq!(b(0, 2, 0).unwrap(), "0");
        assert_eq!(b(255, 36, 1).unwrap(), "73");
        assert_eq!(b(i64::MAX, 2, 0).unwrap().len(), 63);
        assert!(b(-1, 2, 0).is_err());
        assert!(b(1, 37, 0).is_err());
        assert_eq!(parse_bytes("1.5 MB").unwrap(), 1_500_000);
        assert_eq!(parse_bytes("16 KiB").unwrap(), 16_384);
        assert_eq!(parse_bytes(" 3 kb ").unwrap(), 3_000);
        assert_eq!(parse_bytes("7 bytes").unwrap(), 7);
        assert_eq!(parse_bytes("2GiB").unwrap(), 2_147_483_648);
        assert!(parse_bytes("10").is_err());
        assert!(parse_bytes("xx").is_err());
        assert!(parse_bytes("1e999 TB").is_err());
        assert!(parse_bytes("99999999999 TB").is_err());
    }
}
