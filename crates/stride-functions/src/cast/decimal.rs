//! Exact DECIMAL arithmetic helpers shared by casts and functions: powers of ten,
//! rescaling with rounding half away from zero, an allocation-free text parser (no
//! detour through f64, so '0.1' is exactly 1 at scale 1), a formatter writing into a
//! reusable buffer, and DOUBLE -> DECIMAL conversion.

use std::fmt::Write;

/// 10^n for n in 0..=38 (10^38 still fits in an i128).
pub const POW10: [i128; 39] = {
    let mut t = [1i128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

#[inline]
pub fn pow10(n: u8) -> i128 {
    POW10[n.min(38) as usize]
}

/// Whether `v` has at most `precision` digits.
#[inline]
pub fn fits_precision(v: i128, precision: u8) -> bool {
    v.unsigned_abs() < pow10(precision) as u128
}

/// `v / d` rounded half away from zero (`d > 0`).
#[inline]
pub fn div_round(v: i128, d: i128) -> i128 {
    let q = v / d;
    let r = v % d;
    if r.unsigned_abs() * 2 >= d as u128 {
        q + v.signum()
    } else {
        q
    }
}

/// `v` at scale `from` re-expressed at scale `to`, rounding half away from zero when
/// digits are dropped; `None` on overflow of i128.
#[inline]
pub fn rescale(v: i128, from: u8, to: u8) -> Option<i128> {
    if to >= from {
        if to - from > 38 {
            return if v == 0 { Some(0) } else { None };
        }
        v.checked_mul(pow10(to - from))
    } else if from - to > 38 {
        Some(0)
    } else {
        Some(div_round(v, pow10(from - to)))
    }
}

/// Appends an unscaled decimal with `scale` fractional digits ("-0.05", "1.50").
pub fn write_decimal(out: &mut String, v: i128, scale: u8) {
    if scale == 0 {
        let _ = write!(out, "{v}");
        return;
    }
    let p = pow10(scale) as u128;
    let abs = v.unsigned_abs();
    let sign = if v < 0 { "-" } else { "" };
    let _ = write!(
        out,
        "{sign}{}.{:0width$}",
        abs / p,
        abs % p,
        width = scale as usize
    );
}

/// The decimal as a String (messages, slow paths).
pub fn decimal_to_string(v: i128, scale: u8) -> String {
    let mut s = String::new();
    write_decimal(&mut s, v, scale);
    s
}

/// Parses decimal text (`[+-]digits[.digits][e[+-]digits]`, surrounding whitespace
/// allowed) into an unscaled value at `scale`, rounding half away from zero; `None`
/// when the text is malformed or the value needs more than `precision` digits.
pub fn parse_decimal(text: &str, precision: u8, scale: u8) -> Option<i128> {
    let b = text.trim().as_bytes();
    let (neg, b) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    let mant_end = b
        .iter()
        .position(|&c| c == b'e' || c == b'E')
        .unwrap_or(b.len());
    let (mant, exp_part) = b.split_at(mant_end);
    let (int, frac) = match mant.iter().position(|&c| c == b'.') {
        Some(p) => (&mant[..p], &mant[p + 1..]),
        None => (mant, &mant[mant.len()..]),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.iter().chain(frac).all(u8::is_ascii_digit) {
        return None;
    }
    let exp = if exp_part.is_empty() {
        0i64
    } else {
        parse_exponent(&exp_part[1..])?
    };
    // the value is digits(int ++ frac) * 10^shift at the target scale
    let shift = scale as i64 + exp - frac.len() as i64;
    let digits = int.iter().chain(frac).map(|c| (c - b'0') as i128);
    let n = int.len() + frac.len();
    // the first dropped digit rounds only when it sits right after the last kept
    // position; when even earlier digits are dropped the value rounds to zero
    let keep_signed = n as i64 + shift.min(0);
    let keep = keep_signed.max(0) as usize;
    let can_round = keep_signed >= 0;
    let mut v: i128 = 0;
    let mut round_up = false;
    for (i, d) in digits.enumerate() {
        if i < keep {
            v = v.checked_mul(10)?.checked_add(d)?;
        } else {
            round_up = can_round && d >= 5;
            break;
        }
    }
    if round_up {
        v = v.checked_add(1)?;
    }
    if shift > 0 {
        if shift > 38 {
            return if v == 0 { Some(0) } else { None };
        }
        v = v.checked_mul(pow10(shift as u8))?;
    }
    if !fits_precision(v, precision) {
        return None;
    }
    Some(if neg { -v } else { v })
}

fn parse_exponent(b: &[u8]) -> Option<i64> {
    let (neg, b) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // exponents beyond any representable value saturate instead of overflowing
    let mut e: i64 = 0;
    for &c in b {
        e = (e * 10 + (c - b'0') as i64).min(10_000);
    }
    Some(if neg { -e } else { e })
}

/// DOUBLE -> unscaled DECIMAL(precision, scale), rounding half away from zero on the
/// value's shortest decimal representation (so 0.285 rounds to 0.29, as it reads).
pub fn f64_to_decimal(x: f64, precision: u8, scale: u8) -> Option<i128> {
    if !x.is_finite() {
        return None;
    }
    let scaled = x * 10f64.powi(scale as i32);
    // fast path: far from a rounding tie and small enough that the product is exact
    // to well below one unit, so rounding the binary value agrees with the decimal one
    let frac = (scaled - scaled.trunc()).abs();
    if scaled.abs() < 1e9 && (frac - 0.5).abs() > 1e-6 {
        let v = scaled.round() as i128;
        return fits_precision(v, precision).then_some(v);
    }
    let mut buf = String::with_capacity(32);
    let _ = write!(buf, "{x:e}");
    parse_decimal(&buf, precision, scale)
}

/// Unscaled decimal -> DOUBLE, the double nearest to the decimal's value.
pub fn decimal_to_f64(v: i128, scale: u8) -> f64 {
    if scale == 0 {
        return v as f64;
    }
    // One correctly rounded division when both operands are exact doubles
    // (3688 / 1000 is 3.688, while 3 + 0.688 is not).
    if v.unsigned_abs() < 1 << 53 && scale <= 22 {
        return v as f64 / pow10(scale) as f64;
    }
    // Otherwise rounding the digits to a double first would round twice
    // (0.12542187750676143 came out one unit in the last place off): one exact
    // division rounds once, or, where it cannot, the digits as text read back.
    match divide_rounded(v, pow10(scale)) {
        Some(x) => x,
        None => format!("{v}e-{scale}").parse().unwrap_or(f64::NAN),
    }
}

/// `n / d` (d > 0) rounded once to the nearest double, as an exact division would
/// round it; `None` where the quotient cannot be made wide enough for that.
pub fn divide_rounded(n: i128, d: i128) -> Option<f64> {
    let (m, d) = (n.unsigned_abs(), d as u128);
    if m == 0 {
        return Some(0.0);
    }
    // Shift the dividend up until the quotient has 66 significant bits or more, so
    // that the remainder only decides the rounding as a "sticky" low bit.
    let bits = |x: u128| 128 - x.leading_zeros() as i32;
    let shift = (66 - (bits(m) - bits(d))).clamp(0, m.leading_zeros() as i32);
    let wide = m << shift;
    let (q, r) = (wide / d, wide % d);
    if r != 0 && bits(q) < 55 {
        return None;
    }
    let v = (q | (r != 0) as u128) as f64 / 2f64.powi(shift);
    Some(if n < 0 { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse() {
        assert_eq!(parse_decimal("1.5", 10, 2), Some(150));
        assert_eq!(parse_decimal(" -0.005 ", 10, 2), Some(-1));
        assert_eq!(parse_decimal("0.004", 10, 2), Some(0));
        assert_eq!(parse_decimal("0.005", 10, 2), Some(1));
        assert_eq!(parse_decimal("123.456", 10, 2), Some(12346));
        assert_eq!(parse_decimal("1e3", 10, 2), Some(100000));
        assert_eq!(parse_decimal("1.5E-1", 10, 2), Some(15));
        assert_eq!(parse_decimal(".5", 10, 0), Some(1));
        assert_eq!(parse_decimal("5.", 10, 0), Some(5));
        assert_eq!(parse_decimal("0.0000000001", 10, 2), Some(0));
        assert_eq!(parse_decimal("12345.6", 5, 2), None);
        assert_eq!(parse_decimal("999.995", 5, 2), None);
        assert_eq!(parse_decimal("999.994", 5, 2), Some(99999));
        assert_eq!(parse_decimal("abc", 5, 2), None);
        assert_eq!(parse_decimal("", 5, 2), None);
        assert_eq!(parse_decimal(".", 5, 2), None);
        assert_eq!(parse_decimal("1e99999999999", 5, 2), None);
        assert_eq!(parse_decimal("0e99999999999", 5, 2), Some(0));
        assert_eq!(
            parse_decimal("12345678901234567890123456789012345678", 38, 0),
            Some(12345678901234567890123456789012345678)
        );
    }

    #[test]
    fn format_and_round() {
        assert_eq!(decimal_to_string(150, 2), "1.50");
        assert_eq!(decimal_to_string(-5, 2), "-0.05");
        assert_eq!(decimal_to_string(-12345, 0), "-12345");
        assert_eq!(rescale(125, 2, 1), Some(13));
        assert_eq!(rescale(-125, 2, 1), Some(-13));
        assert_eq!(rescale(-124, 2, 1), Some(-12));
        assert_eq!(rescale(5, 0, 3), Some(5000));
        assert_eq!(f64_to_decimal(0.285, 10, 2), Some(29));
        assert_eq!(f64_to_decimal(-2.5, 10, 0), Some(-3));
        assert_eq!(f64_to_decimal(1.0 / 3.0, 10, 4), Some(3333));
        assert_eq!(f64_to_decimal(1e20, 10, 0), None);
        assert_eq!(decimal_to_f64(12345, 2), 123.45);
        // Past 2^53 the digits are rounded once: the double nearest the value.
        assert_eq!(decimal_to_f64(12542187750676143, 17), 0.12542187750676143);
        assert_eq!(
            decimal_to_f64(-99999999999999999999999999999999999999, 2),
            -999999999999999999999999999999999999.99
        );
        assert_eq!(
            decimal_to_f64(123456789012345678901, 3),
            123456789012345678.901
        );
    }

    #[test]
    fn quotients_are_rounded_once() {
        // Where the double of the sum divided by the count is exact, it must agree.
        for (n, d) in [
            (1i128, 3i128),
            (-2, 3),
            (10, 4),
            (7_623_000, 1_000),
            (1 << 60, 3),
        ] {
            assert_eq!(divide_rounded(n, d), Some(n as f64 / d as f64), "{n}/{d}");
        }
        // 2^53 + 1 over 1 is not a double: it rounds to even, 2^53.
        assert_eq!(divide_rounded((1 << 53) + 1, 1), Some(9007199254740992.0));
        // Just above the halfway point rounds up, thanks to the remainder.
        let n = ((1i128 << 53) + 1) * 3 + 1;
        assert_eq!(divide_rounded(n, 3), Some(9007199254740994.0));
        assert_eq!(divide_rounded(i128::MAX, 1), Some(i128::MAX as f64));
        assert_eq!(divide_rounded(0, 7), Some(0.0));
    }
}
