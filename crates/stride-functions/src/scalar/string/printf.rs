//! `printf(fmt, ...)`: C's format syntax, as DuckDB reads it:
//! `%[flags][width][.precision][length]type` with flags `-` (left-align), `+`,
//! space, `#` and `0`, `*` for a width taken from the next argument, length
//! modifiers (`l`, `ll`, `h`, ...) ignored, and types `d i` (integers), `x X o`,
//! `c`, `s` (text and booleans), `f F e E g G` (floats) and `%%` for `%`. A value
//! whose type does not fit its conversion is an error, as in DuckDB (`%s` of an
//! integer included). Values are formatted by `format`'s [`write_arg`].

use super::format::{evaluate_with, resolve_variadic, write_arg, Arg, Spec};
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    resolve_variadic(ScalarFunction::Printf, args)
}

fn type_error(ty: char, arg: &Arg) -> Error {
    let what = match arg {
        Arg::Int(_) | Arg::Bool(_) => "int",
        Arg::Float(_) => "float",
        Arg::Str(_) => "string",
    };
    Error::invalid_input(format!(
        "Invalid type specifier \"{ty}\" for formatting a value of type {what}"
    ))
}

fn printf_row(fmt: &str, args: &[Arg], out: &mut String) -> Result<()> {
    let mut next = 0;
    let take = |k: &mut usize| -> Result<Arg> {
        let a = args
            .get(*k)
            .copied()
            .ok_or_else(|| Error::invalid_input(format!("Argument index \"{k}\" out of range")))?;
        *k += 1;
        Ok(a)
    };
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            out.push('%');
            continue;
        }
        let mut sp = Spec::default();
        let mut left = false;
        while let Some(&f @ ('-' | '+' | ' ' | '#' | '0')) = chars.peek() {
            match f {
                '-' => left = true,
                '+' => sp.sign = Some('+'),
                ' ' => {
                    if sp.sign.is_none() {
                        sp.sign = Some(' ')
                    }
                }
                '#' => sp.alternate = true,
                _ => sp.zero = true,
            }
            chars.next();
        }
        if chars.peek() == Some(&'*') {
            chars.next();
            match take(&mut next)? {
                Arg::Int(w) => {
                    left |= w < 0;
                    sp.width = w.unsigned_abs().min(1 << 20) as usize;
                }
                other => return Err(type_error('*', &other)),
            }
        } else {
            while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                sp.width = sp.width.saturating_mul(10).saturating_add(d as usize);
                chars.next();
            }
        }
        if chars.peek() == Some(&'.') {
            chars.next();
            let mut p = 0usize;
            while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                p = p.saturating_mul(10).saturating_add(d as usize);
                chars.next();
            }
            sp.precision = Some(p);
        }
        while let Some('l' | 'h' | 'L' | 'q' | 'j' | 'z' | 't') = chars.peek() {
            if chars.peek() == Some(&'q') {
                break;
            }
            chars.next();
        }
        if left {
            sp.align = Some('<');
            sp.zero = false;
        } else if !sp.zero {
            sp.align = Some('>');
        }
        let ty = chars.next().unwrap_or('%');
        let arg = take(&mut next)?;
        let fits = matches!(
            (ty, &arg),
            (
                'd' | 'i' | 'x' | 'X' | 'o' | 'c',
                Arg::Int(_) | Arg::Bool(_)
            ) | ('s', Arg::Str(_) | Arg::Bool(_))
                | ('f' | 'F' | 'e' | 'E' | 'g' | 'G', Arg::Float(_))
        );
        if !fits {
            return Err(type_error(ty, &arg));
        }
        // C's alternate forms: 0x, 0X, 0 for octal; %x of a negative is its
        // two's complement
        sp.ty = Some(match ty {
            'i' => 'd',
            'F' => 'f',
            t => t,
        });
        let arg = match (ty, arg) {
            ('x' | 'X' | 'o', Arg::Int(v)) if v < 0 => {
                let mut s = String::new();
                let u = v as u64;
                let body = match (ty, sp.alternate) {
                    ('x', false) => format!("{u:x}"),
                    ('x', true) => format!("{u:#x}"),
                    ('X', false) => format!("{u:X}"),
                    ('X', true) => format!("0X{u:X}"),
                    (_, false) => format!("{u:o}"),
                    (_, true) => format!("0{u:o}"),
                };
                sp.ty = None;
                s.push_str(&body);
                write_arg(
                    out,
                    Arg::Str(&s),
                    &Spec {
                        ty: None,
                        precision: None,
                        ..sp
                    },
                )?;
                continue;
            }
            ('s', Arg::Bool(b)) => Arg::Str(if b { "true" } else { "false" }),
            (_, Arg::Bool(b)) => Arg::Int(i64::from(b)),
            (_, a) => a,
        };
        if ty == 'g' || ty == 'G' {
            sp.precision = Some(sp.precision.unwrap_or(6));
        }
        if let Arg::Int(v) = arg {
            // C: 0 takes no 0x or 0 prefix
            if v == 0 {
                sp.alternate = false;
            }
            // C: an integer's precision is its minimum number of digits (zeros
            // before them, and then the 0 flag is ignored)
            if let Some(p) = sp.precision.take() {
                let u = v.unsigned_abs();
                let (digits, prefix) = match sp.ty {
                    Some('x') => (format!("{u:x}"), "0x"),
                    Some('X') => (format!("{u:X}"), "0X"),
                    Some('o') => (format!("{u:o}"), "0"),
                    _ => (u.to_string(), ""),
                };
                let sign = match (v < 0, sp.sign) {
                    (true, _) => "-",
                    (false, Some('+')) => "+",
                    (false, Some(' ')) => " ",
                    _ => "",
                };
                let prefix = if sp.alternate { prefix } else { "" };
                let text = format!("{sign}{prefix}{digits:0>p$}");
                let plain = Spec {
                    ty: None,
                    zero: false,
                    sign: None,
                    alternate: false,
                    ..sp
                };
                write_arg(out, Arg::Str(&text), &plain)?;
                continue;
            }
        }
        write_arg(out, arg, &sp)?;
    }
    Ok(())
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    evaluate_with(f, args, len, printf_row)
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::{self, *};

    fn p(args: &[ScalarValue]) -> ScalarValue {
        eval("printf", args).unwrap()
    }

    #[test]
    fn formats() {
        assert_eq!(p(&[s("%d items"), Integer(42)]), s("42 items"));
        assert_eq!(p(&[s("%s-%s"), s("a"), s("b")]), s("a-b"));
        assert_eq!(p(&[s("%5.2f|"), Double(3.14258)]), s(" 3.14|"));
        assert_eq!(
            p(&[s("%x %X %o"), Integer(255), Integer(255), Integer(8)]),
            s("ff FF 10")
        );
        assert_eq!(p(&[s("%%")]), s("%"));
        assert_eq!(p(&[s("%-5d|"), Integer(42)]), s("42   |"));
        assert_eq!(p(&[s("%05d"), Integer(42)]), s("00042"));
        assert_eq!(p(&[s("%.3s"), s("abcdef")]), s("abc"));
        assert_eq!(p(&[s("%c"), Integer(65)]), s("A"));
        assert_eq!(p(&[s("%e"), Double(1234.5)]), s("1.234500e+03"));
        assert_eq!(p(&[s("%g"), Double(0.0001)]), s("0.0001"));
        assert_eq!(p(&[s("%g"), Double(1234567.0)]), s("1.23457e+06"));
        assert_eq!(p(&[s("%10s|"), s("héllo")]), s("     héllo|"));
        assert_eq!(
            p(&[s("%+d %i %ld"), Integer(5), Integer(5), Integer(5)]),
            s("+5 5 5")
        );
        assert_eq!(p(&[s("%*d"), Integer(5), Integer(1)]), s("    1"));
        assert_eq!(p(&[s("%s %d"), Boolean(true), Boolean(true)]), s("true 1"));
        assert_eq!(p(&[s("%.2f"), Decimal(1255, 5, 3)]), s("1.25"));
        // an integer's precision is its least number of digits; 0 has no 0x
        assert_eq!(
            p(&[
                s("%.3d|%.3d|%5.3d|%.0d"),
                Integer(7),
                Integer(-7),
                Integer(7),
                Integer(0)
            ]),
            s("007|-007|  007|0")
        );
        assert_eq!(
            p(&[
                s("%#x|%#x|%#o|%#X|%#.4x"),
                Integer(255),
                Integer(0),
                Integer(8),
                Integer(255),
                Integer(10)
            ]),
            s("0xff|0|010|0XFF|0x000a")
        );
        assert_eq!(p(&[s("%#x"), Integer(-1)]), s("0xffffffffffffffff"));
        assert_eq!(p(&[s("%s"), Null]), Null);
        let e = eval("printf", &[s("%d"), s("abc")]).unwrap_err();
        assert_eq!(
            e.message,
            "Invalid type specifier \"d\" for formatting a value of type string"
        );
        let e = eval("printf", &[s("%s"), Integer(42)]).unwrap_err();
        assert_eq!(
            e.message,
            "Invalid type specifier \"s\" for formatting a value of type int"
        );
        let e = eval("printf", &[s("%d %d"), Integer(1)]).unwrap_err();
        assert_eq!(e.message, "Argument index \"1\" out of range");
    }
}
