//! LIST -> LIST (and MAP -> MAP, a list of entries): casts the child vector as a whole and keeps the offsets, so a list
//! cast costs one vectorized cast of all elements. VARCHAR -> LIST reads PostgreSQL's
//! array text (`{a,"b c",NULL}`).

use super::cast_vector;
use stride_common::vector::ListData;
use stride_common::{DataType, Result, Vector, VectorData};

pub(super) fn cast(v: &Vector, _len: usize, to: &DataType, try_cast: bool) -> Result<Vector> {
    let Some(inner) = to.list_child() else {
        return Err(super::unimplemented_cast(&v.ty, to));
    };
    let list = v.list();
    let child_len = list.child.data_len();
    let child = cast_vector(&list.child, child_len, &inner, try_cast)?;
    let data = VectorData::List(ListData {
        offsets: list.offsets.clone(),
        child: Box::new(child),
    });
    let mut out = Vector::new(to.clone(), data, v.validity.clone());
    out.constant = v.constant;
    Ok(out)
}

/// VARCHAR -> LIST: PostgreSQL's array text (`{1,2,NULL}`, `{"a b","c\"d"}`) or
/// stride's own (`[1, 2, NULL]`); each element is cast from its text to the element
/// type, so nested lists and structs (`[[1], [2, 3]]`, `[{'a': 1}]`) are read too.
pub(super) fn from_text(v: &Vector, len: usize, to: &DataType, try_cast: bool) -> Result<Vector> {
    let DataType::List(elem) = to else {
        return Err(super::unimplemented_cast(&v.ty, to));
    };
    let rows = if v.constant { 1 } else { len };
    let mut out = Vector::with_capacity(to, rows);
    for i in 0..rows {
        let value = v.get(i);
        let stride_common::ScalarValue::Varchar(s) = value else {
            out.push_null();
            continue;
        };
        let parsed = split_elements(&s, to).and_then(|items| {
            items
                .into_iter()
                .map(|item| match item {
                    None => Ok(stride_common::ScalarValue::Null),
                    Some(text) => {
                        super::cast_scalar(&stride_common::ScalarValue::Varchar(text), elem, false)
                    }
                })
                .collect::<Result<Vec<_>>>()
        });
        match parsed {
            Ok(items) => out.push(&stride_common::ScalarValue::List((**elem).clone(), items))?,
            Err(_) if try_cast => out.push_null(),
            Err(e) => return Err(e),
        }
    }
    out.constant = v.constant;
    Ok(out)
}

/// Moves a bracketed group (`[...]` or `{...}`, with the groups and quoted strings
/// inside it) from `chars` to `text`, brackets included; `None` when it is not closed.
fn read_group(chars: &mut std::iter::Peekable<std::str::Chars>, text: &mut String) -> Option<()> {
    let mut closers = Vec::new();
    let mut quote = None;
    while let Some(c) = chars.next() {
        text.push(c);
        match (quote, c) {
            (Some(_), '\\') => text.push(chars.next()?),
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[') => closers.push(']'),
            (None, '{') => closers.push('}'),
            (None, ']' | '}') => {
                if closers.pop() != Some(c) {
                    return None;
                }
                if closers.is_empty() {
                    return Some(());
                }
            }
            (None, _) => {}
        }
    }
    None
}

/// The elements of `{...}` or `[...]` as text (None for NULL); an element that is
/// itself a bracketed list or struct is kept whole, for the element type's cast to read.
fn split_elements(s: &str, to: &DataType) -> Result<Vec<Option<String>>> {
    let bad = || super::bad_string(s, to);
    let t = s.trim();
    let inner = t
        .strip_prefix('{')
        .and_then(|r| r.strip_suffix('}'))
        .or_else(|| t.strip_prefix('[').and_then(|r| r.strip_suffix(']')))
        .ok_or_else(bad)?;
    let mut items = Vec::new();
    if inner.trim().is_empty() {
        return Ok(items);
    }
    let mut chars = inner.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let mut text = String::new();
        let mut quoted = false;
        match chars.peek() {
            Some(&q) if q == '"' || q == '\'' => {
                chars.next();
                quoted = true;
                loop {
                    match chars.next() {
                        Some('\\') => text.push(chars.next().ok_or_else(bad)?),
                        Some(c) if c == q => {
                            if chars.peek() == Some(&q) {
                                chars.next();
                                text.push(q);
                            } else {
                                break;
                            }
                        }
                        Some(c) => text.push(c),
                        None => return Err(bad()),
                    }
                }
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
            }
            _ => {
                while let Some(&c) = chars.peek() {
                    match c {
                        ',' => break,
                        '{' | '[' => read_group(&mut chars, &mut text).ok_or_else(bad)?,
                        '}' | ']' => return Err(bad()),
                        c => {
                            text.push(c);
                            chars.next();
                        }
                    }
                }
                text = text.trim().to_string();
            }
        }
        items.push(if !quoted && text.eq_ignore_ascii_case("null") {
            None
        } else {
            Some(text)
        });
        match chars.next() {
            None => break,
            Some(',') => continue,
            Some(_) => return Err(bad()),
        }
    }
    Ok(items)
}
