//! `format(fmt, ...)`: the `{fmt}` library's syntax, as DuckDB uses it: `{}` takes
//! the next argument, `{0}` a given one, and `{:spec}` formats it with
//! `[[fill]align][sign][#][0][width][,|_][.precision][type]` (align `<` `>` `^`;
//! types `d x X o b B c` for integers, `f F e E g G %` for floats, `s` for text);
//! `{{` and `}}` are braces. Numbers are right-aligned, text left-aligned by
//! default. This file also holds the formatting of one value by a [`Spec`], which
//! `printf` shares. Any NULL argument makes the result NULL.
//!
//! Arguments are bound as BIGINT (integers), DOUBLE (REAL, DOUBLE and DECIMAL),
//! BOOLEAN or VARCHAR (everything else, cast to text).

use crate::kernels::{map_rows_to_strings, Slot, StrSlot};
use crate::scalar::signature::{bind, castable};
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, ScalarValue, Vector};

/// Binds `fmt` and the values (variadic); shared with `printf`.
pub(crate) fn resolve_variadic(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    let (first, rest) = args.split_first()?;
    if !castable(first, &DataType::Varchar) {
        return None;
    }
    let mut types = vec![DataType::Varchar];
    for t in rest {
        types.push(match t {
            t if t.is_integer() => DataType::BigInt,
            DataType::Real | DataType::Double | DataType::Decimal(..) => DataType::Double,
            DataType::Boolean => DataType::Boolean,
            t if crate::cast::can_cast(t, &DataType::Varchar) => DataType::Varchar,
            _ => return None,
        });
    }
    bind(func, types, DataType::Varchar)
}

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    resolve_variadic(ScalarFunction::Format, args)
}

/// One argument's value for a row.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Arg<'a> {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(&'a str),
}

/// Reads the arguments of one row.
pub(crate) enum Reader<'a> {
    Int(Slot<'a, i64>),
    Float(Slot<'a, f64>),
    Bool(Slot<'a, bool>),
    Str(StrSlot<'a>),
}

impl<'a> Reader<'a> {
    pub fn new(v: &'a Vector, t: &DataType) -> Reader<'a> {
        match t {
            DataType::BigInt => Reader::Int(Slot::new(v)),
            DataType::Double => Reader::Float(Slot::new(v)),
            DataType::Boolean => Reader::Bool(Slot::new(v)),
            _ => Reader::Str(StrSlot::new(v)),
        }
    }

    pub fn get(&self, i: usize) -> Arg<'a> {
        match self {
            Reader::Int(s) => Arg::Int(s.get(i)),
            Reader::Float(s) => Arg::Float(s.get(i)),
            Reader::Bool(s) => Arg::Bool(s.get(i)),
            Reader::Str(s) => Arg::Str(s.get(i)),
        }
    }
}

/// A parsed format specification.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Spec {
    pub fill: char,
    pub align: Option<char>,
    pub sign: Option<char>,
    pub alternate: bool,
    pub zero: bool,
    pub width: usize,
    pub grouping: Option<char>,
    pub precision: Option<usize>,
    pub ty: Option<char>,
}

impl Default for Spec {
    fn default() -> Self {
        Spec {
            fill: ' ',
            align: None,
            sign: None,
            alternate: false,
            zero: false,
            width: 0,
            grouping: None,
            precision: None,
            ty: None,
        }
    }
}

fn type_error(ty: char, what: &str) -> Error {
    Error::invalid_input(format!(
        "Invalid type specifier \"{ty}\" for formatting a value of type {what}"
    ))
}

fn digits(chars: &mut std::iter::Peekable<std::str::Chars>) -> Option<usize> {
    let mut n: Option<usize> = None;
    while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
        n = Some(n.unwrap_or(0).saturating_mul(10).saturating_add(d as usize));
        chars.next();
    }
    n
}

impl Spec {
    /// Parses the part of `{:...}` after the colon.
    fn parse(s: &str) -> Result<Spec> {
        let mut sp = Spec::default();
        let v: Vec<char> = s.chars().collect();
        let is_align = |c: char| matches!(c, '<' | '>' | '^');
        let mut k = 0;
        if v.len() >= 2 && is_align(v[1]) {
            sp.fill = v[0];
            sp.align = Some(v[1]);
            k = 2;
        } else if v.first().is_some_and(|&c| is_align(c)) {
            sp.align = Some(v[0]);
            k = 1;
        }
        let rest: String = v[k..].iter().collect();
        let mut chars = rest.chars().peekable();
        if let Some(&c @ ('+' | '-' | ' ')) = chars.peek() {
            sp.sign = Some(c);
            chars.next();
        }
        if chars.peek() == Some(&'#') {
            sp.alternate = true;
            chars.next();
        }
        if chars.peek() == Some(&'0') {
            sp.zero = true;
            chars.next();
        }
        sp.width = digits(&mut chars).unwrap_or(0);
        if let Some(&c @ (',' | '_')) = chars.peek() {
            sp.grouping = Some(c);
            chars.next();
        }
        if chars.peek() == Some(&'.') {
            chars.next();
            sp.precision = Some(
                digits(&mut chars)
                    .ok_or_else(|| Error::invalid_input("missing precision specifier"))?,
            );
        }
        if let Some(c) = chars.next() {
            if !"dxXobBcfFeEgG%s".contains(c) {
                return Err(Error::invalid_input("missing '}' in format string"));
            }
            sp.ty = Some(c);
        }
        if chars.next().is_some() {
            return Err(Error::invalid_input("missing '}' in format string"));
        }
        Ok(sp)
    }
}

/// Inserts `sep` between groups of three digits of a run of ASCII digits.
fn group_digits(d: &str, sep: char) -> String {
    let mut out = String::with_capacity(d.len() + d.len() / 3);
    // digits left before the next separator
    let mut until = match d.len() % 3 {
        0 => 3,
        r => r,
    };
    for c in d.chars() {
        if until == 0 {
            out.push(sep);
            until = 3;
        }
        out.push(c);
        until -= 1;
    }
    out
}

/// C's `%e`: mantissa with `p` decimals and an exponent of at least two digits.
pub(crate) fn exp_format(x: f64, p: usize, upper: bool) -> String {
    let s = format!("{x:.p$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let sign = if e < 0 { '-' } else { '+' };
    let out = format!("{m}e{sign}{:02}", e.abs());
    if upper {
        out.to_uppercase()
    } else {
        out
    }
}

/// C's `%g` with precision `p`.
pub(crate) fn general_format(x: f64, p: usize, alternate: bool, upper: bool) -> String {
    let p = p.max(1);
    if !x.is_finite() {
        return float_special(x, upper);
    }
    let e = if x == 0.0 {
        0
    } else {
        let s = format!("{:.*e}", p - 1, x);
        s.split_once('e')
            .and_then(|(_, e)| e.parse::<i32>().ok())
            .unwrap_or(0)
    };
    let mut s = if (p as i32) > e && e >= -4 {
        format!("{x:.*}", (p as i32 - 1 - e) as usize)
    } else {
        exp_format(x, p - 1, upper)
    };
    if !alternate {
        let (m, tail) = match s.find(['e', 'E']) {
            Some(i) => (s[..i].to_string(), s[i..].to_string()),
            None => (s.clone(), String::new()),
        };
        if m.contains('.') {
            let m = m.trim_end_matches('0').trim_end_matches('.');
            s = format!("{m}{tail}");
        }
    }
    s
}

fn float_special(x: f64, upper: bool) -> String {
    let s = if x.is_nan() {
        "nan"
    } else if x > 0.0 {
        "inf"
    } else {
        "-inf"
    };
    if upper {
        s.to_uppercase()
    } else {
        s.to_string()
    }
}

/// Pads `body` (with its sign or prefix in `head`) to the spec's width.
fn pad(out: &mut String, head: &str, body: &str, sp: &Spec, numeric: bool) {
    let len = head.chars().count() + body.chars().count();
    let fill = sp.width.saturating_sub(len);
    if sp.zero && numeric && sp.align.is_none() {
        out.push_str(head);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(body);
        return;
    }
    let align = sp.align.unwrap_or(if numeric { '>' } else { '<' });
    let (left, right) = match align {
        '<' => (0, fill),
        '^' => (fill / 2, fill - fill / 2),
        _ => (fill, 0),
    };
    out.extend(std::iter::repeat_n(sp.fill, left));
    out.push_str(head);
    out.push_str(body);
    out.extend(std::iter::repeat_n(sp.fill, right));
}

fn sign_of(negative: bool, sp: &Spec) -> &'static str {
    match (negative, sp.sign) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        _ => "",
    }
}

/// Appends `arg` formatted by `sp`.
pub(crate) fn write_arg(out: &mut String, arg: Arg, sp: &Spec) -> Result<()> {
    match arg {
        Arg::Str(s) => {
            if let Some(t) = sp.ty.filter(|&t| t != 's') {
                return Err(type_error(t, "string"));
            }
            let s = match sp.precision {
                Some(p) => &s[..super::char_offset(s, p)],
                None => s,
            };
            pad(out, "", s, sp, false);
        }
        Arg::Bool(b) => match sp.ty {
            None | Some('s') => pad(out, "", if b { "true" } else { "false" }, sp, false),
            Some(_) => write_arg(out, Arg::Int(i64::from(b)), sp)?,
        },
        Arg::Int(v) => {
            if sp.precision.is_some() {
                return Err(Error::invalid_input(
                    "precision not allowed for this argument type",
                ));
            }
            let neg = v < 0;
            let u = v.unsigned_abs();
            let (prefix, body) = match sp.ty {
                None | Some('d') => ("", u.to_string()),
                Some('x') => ("0x", format!("{u:x}")),
                Some('X') => ("0X", format!("{u:X}")),
                Some('o') => ("0", format!("{u:o}")),
                Some('b') => ("0b", format!("{u:b}")),
                Some('B') => ("0B", format!("{u:b}")),
                Some('c') => {
                    let c = u32::try_from(v)
                        .ok()
                        .and_then(char::from_u32)
                        .ok_or_else(|| Error::invalid_input("invalid character code"))?;
                    pad(out, "", c.encode_utf8(&mut [0; 4]), sp, false);
                    return Ok(());
                }
                Some(t) => return Err(type_error(t, "int")),
            };
            let body = match sp.grouping {
                Some(g) => group_digits(&body, g),
                None => body,
            };
            let mut head = sign_of(neg, sp).to_string();
            if sp.alternate {
                head.push_str(prefix);
            }
            pad(out, &head, &body, sp, true);
        }
        Arg::Float(x) => {
            let neg = x.is_sign_negative() && !x.is_nan();
            let a = x.abs();
            let upper = sp.ty.is_some_and(|t| t.is_ascii_uppercase());
            let mut body = match (sp.ty, sp.precision) {
                (_, _) if !a.is_finite() => float_special(a, upper),
                (None, None) => ScalarValue::Double(a).to_string(),
                (None | Some('g' | 'G'), p) => {
                    general_format(a, p.unwrap_or(6), sp.alternate, upper)
                }
                (Some('f' | 'F'), p) => format!("{a:.*}", p.unwrap_or(6)),
                (Some('e' | 'E'), p) => exp_format(a, p.unwrap_or(6), upper),
                (Some('%'), p) => format!("{:.*}%", p.unwrap_or(6), a * 100.0),
                (Some(t), _) => return Err(type_error(t, "float")),
            };
            if let Some(g) = sp.grouping {
                let end = body
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(body.len());
                body = format!("{}{}", group_digits(&body[..end], g), &body[end..]);
            }
            pad(out, sign_of(neg, sp), &body, sp, true);
        }
    }
    Ok(())
}

fn out_of_range(k: usize) -> Error {
    Error::invalid_input(format!("Argument index \"{k}\" out of range"))
}

/// Appends `fmt` with its replacement fields filled from `args`.
fn format_row(fmt: &str, args: &[Arg], out: &mut String) -> Result<()> {
    let mut next = 0;
    let mut rest = fmt;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push(tail.as_bytes()[0] as char);
            rest = &tail[2..];
            continue;
        }
        if tail.starts_with('}') {
            return Err(Error::invalid_input("unmatched '}' in format string"));
        }
        let close = tail
            .find('}')
            .ok_or_else(|| Error::invalid_input("invalid format string"))?;
        let field = &tail[1..close];
        let (index, spec) = match field.split_once(':') {
            Some((a, b)) => (a, Some(b)),
            None => (field, None),
        };
        let k = if index.is_empty() {
            next += 1;
            next - 1
        } else {
            index
                .parse::<usize>()
                .map_err(|_| Error::invalid_input("invalid format string"))?
        };
        let arg = *args.get(k).ok_or_else(|| out_of_range(k))?;
        let sp = match spec {
            Some(s) => Spec::parse(s)?,
            None => Spec::default(),
        };
        write_arg(out, arg, &sp)?;
        rest = &tail[close + 1..];
    }
    out.push_str(rest);
    Ok(())
}

/// Evaluates `format` or (with `row` = printf's) `printf`.
pub(crate) fn evaluate_with(
    f: &BoundFunction,
    args: &[Vector],
    len: usize,
    row: fn(&str, &[Arg], &mut String) -> Result<()>,
) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let fmt = StrSlot::new(&args[0]);
    let readers: Vec<Reader> = args[1..]
        .iter()
        .zip(&f.arg_types[1..])
        .map(|(v, t)| Reader::new(v, t))
        .collect();
    let mut values = Vec::with_capacity(readers.len());
    let mut buf = String::new();
    map_rows_to_strings(&refs, len, |i, out| {
        values.clear();
        values.extend(readers.iter().map(|r| r.get(i)));
        buf.clear();
        row(fmt.get(i), &values, &mut buf)?;
        out.push(&buf);
        Ok(())
    })
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    evaluate_with(f, args, len, format_row)
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::{self, *};

    fn f(args: &[ScalarValue]) -> ScalarValue {
        eval("format", args).unwrap()
    }

    #[test]
    fn formats() {
        assert_eq!(f(&[s("{} and {}"), s("a"), Integer(42)]), s("a and 42"));
        assert_eq!(f(&[s("{0} {1} {0}"), s("x"), s("y")]), s("x y x"));
        assert_eq!(f(&[s("{:.2f}"), Double(3.14258)]), s("3.14"));
        assert_eq!(f(&[s("{:5}|"), s("ab")]), s("ab   |"));
        assert_eq!(f(&[s("{:>5}|"), s("ab")]), s("   ab|"));
        assert_eq!(f(&[s("{:<5}|"), Integer(42)]), s("42   |"));
        assert_eq!(f(&[s("{:*^7}|"), s("ab")]), s("**ab***|"));
        assert_eq!(f(&[s("{:05d}"), Integer(42)]), s("00042"));
        assert_eq!(
            f(&[s("{:x} {:#x} {:b}"), Integer(255), Integer(255), Integer(5)]),
            s("ff 0xff 101")
        );
        assert_eq!(f(&[s("{:,}"), Integer(1234567)]), s("1,234,567"));
        assert_eq!(f(&[s("{:,}"), Double(-1234567.5)]), s("-1,234,567.5"));
        assert_eq!(f(&[s("{}"), Decimal(150, 5, 2)]), s("1.5"));
        assert_eq!(f(&[s("{}"), Double(100.0)]), s("100.0"));
        assert_eq!(f(&[s("{}"), Boolean(true)]), s("true"));
        assert_eq!(f(&[s("{:e}"), Double(1234.5)]), s("1.234500e+03"));
        assert_eq!(f(&[s("{:>+8.2f}"), Double(3.14258)]), s("   +3.14"));
        assert_eq!(f(&[s("{:.3}"), s("héllo")]), s("hél"));
        assert_eq!(f(&[s("{{}}")]), s("{}"));
        assert_eq!(f(&[s("{}"), Null]), Null);
        let e = eval("format", &[s("{} {}"), Integer(1)]).unwrap_err();
        assert_eq!(e.message, "Argument index \"1\" out of range");
        let e = eval("format", &[s("{:d}"), s("x")]).unwrap_err();
        assert_eq!(
            e.message,
            "Invalid type specifier \"d\" for formatting a value of type string"
        );
        assert!(eval("format", &[s("{"), Integer(1)]).is_err());
    }
}
