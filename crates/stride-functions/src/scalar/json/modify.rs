//! Editing a document at a path: `json_set` (write the value, creating what is
//! missing), `json_insert` (only where nothing is), `json_replace` (only where
//! something is), `json_remove`, and `json_strip_nulls` (every object member whose
//! value is null dropped, at any depth; nulls in arrays stay).
//!
//! A path names one place: wildcards are an Invalid Input error. Creating goes one
//! step further than the document: a missing object member is added, and an array
//! index equal to the array's length (`[#]`, or `[0]` of a new array) appends.
//! Missing parents are made too (objects for keys, arrays for `[0]`), but only when
//! the whole path can be made: an index past the end, a key on an array or an index
//! on an object leaves the document as it was. Removing the root gives NULL.
//!
//! The document and value arguments are bound as JSON (so text is checked by the
//! cast and other values arrive as their JSON text); a constant path or value is
//! parsed once per chunk.

use super::path::{self, JsonPath, Step};
use super::{value, JsonFunction, Out};
use crate::kernels::StrSlot;
use serde_json::Value;
use stride_common::{Error, Result, Vector};

/// What `json_set`, `json_insert` and `json_replace` may do at the path's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    /// Write whether or not something is there.
    Set,
    /// Write only where nothing is.
    Insert,
    /// Write only where something is.
    Replace,
}

impl Edit {
    fn creates(self) -> bool {
        self != Edit::Replace
    }
    fn overwrites(self) -> bool {
        self != Edit::Insert
    }
}

/// A path for editing: parsed, and refused when it has a wildcard.
pub fn edit_path(text: &str) -> Result<JsonPath> {
    let p = path::parse(text).map_err(|e| Error::invalid_input(e.message))?;
    if p.has_wildcard() {
        return Err(Error::invalid_input(
            "JSON path wildcards are not supported in JSON modification functions",
        ));
    }
    Ok(p)
}

/// The position `step` names in an array of `len` elements: `Some(len)` appends;
/// `None` is before the start or past the end.
fn array_slot(step: &Step, len: usize) -> Option<usize> {
    let at = match step {
        Step::Index(i64::MIN) => len as i64,
        Step::Index(i) if *i < 0 => len as i64 + i,
        Step::Index(i) => *i,
        Step::KeyOrIndex(_, i) => *i as i64,
        _ => return None,
    };
    (0..=len as i64).contains(&at).then_some(at as usize)
}

/// Writes `new` at `steps` below `doc` as `mode` allows; whether it wrote.
pub fn edit(doc: &mut Value, steps: &[Step], new: Value, mode: Edit) -> bool {
    let Some((step, rest)) = steps.split_first() else {
        if mode.overwrites() {
            *doc = new;
            return true;
        }
        return false;
    };
    match (doc, step) {
        (Value::Object(m), Step::Key(k) | Step::KeyOrIndex(k, _)) => match m.get_mut(k.as_str()) {
            Some(child) => edit(child, rest, new, mode),
            None if mode.creates() => match build(rest, new) {
                Some(v) => {
                    m.insert(k.clone(), v);
                    true
                }
                None => false,
            },
            None => false,
        },
        (Value::Array(a), step @ (Step::Index(_) | Step::KeyOrIndex(..))) => {
            match array_slot(step, a.len()) {
                Some(at) if at < a.len() => edit(&mut a[at], rest, new, mode),
                Some(_) if mode.creates() => match build(rest, new) {
                    Some(v) => {
                        a.push(v);
                        true
                    }
                    None => false,
                },
                _ => false,
            }
        }
        _ => false,
    }
}

/// The value that holds `new` at `steps` in otherwise empty containers, if the
/// steps can be made (a key makes an object, `[0]` or `[#]` an array).
fn build(steps: &[Step], new: Value) -> Option<Value> {
    let Some((step, rest)) = steps.split_first() else {
        return Some(new);
    };
    let inner = build(rest, new)?;
    match step {
        Step::Key(k) | Step::KeyOrIndex(k, _) => {
            Some(Value::Object([(k.clone(), inner)].into_iter().collect()))
        }
        s if array_slot(s, 0) == Some(0) => Some(Value::Array(vec![inner])),
        _ => None,
    }
}

/// Removes the value at `steps` (nothing when it is missing); false for the root,
/// which cannot be removed.
pub fn remove(doc: &mut Value, steps: &[Step]) -> bool {
    let Some((last, parents)) = steps.split_last() else {
        return false;
    };
    let mut cur = doc;
    for s in parents {
        let next = match (cur, s) {
            (Value::Object(m), Step::Key(k) | Step::KeyOrIndex(k, _)) => m.get_mut(k.as_str()),
            (Value::Array(a), s) => match array_slot(s, a.len()) {
                Some(at) => a.get_mut(at),
                None => None,
            },
            _ => None,
        };
        match next {
            Some(n) => cur = n,
            None => return true,
        }
    }
    match (cur, last) {
        (Value::Object(m), Step::Key(k) | Step::KeyOrIndex(k, _)) => {
            m.shift_remove(k.as_str());
        }
        (Value::Array(a), s) => {
            if let Some(at) = array_slot(s, a.len()).filter(|&at| at < a.len()) {
                a.remove(at);
            }
        }
        _ => {}
    }
    true
}

/// Drops every object member whose value is null, at any depth.
pub fn strip_nulls(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, x| !x.is_null());
            m.values_mut().for_each(strip_nulls);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_nulls),
        _ => {}
    }
}

/// `json_set` / `json_insert` / `json_replace` (three arguments), `json_remove`
/// (two) and `json_strip_nulls` (one) over a chunk; NULL in any argument gives NULL.
pub(super) fn evaluate(
    func: JsonFunction,
    args: &[Vector],
    rows: usize,
    out: &mut Out,
) -> Result<()> {
    let doc = StrSlot::new(&args[0]);
    let text = |a: &Vector, i: usize| a.strings().get(a.index(i)).to_string();
    // Constant paths and values, parsed once.
    let const_path = match args.get(1) {
        Some(p) if p.constant && p.is_valid(0) => Some(edit_path(&text(p, 0))?),
        _ => None,
    };
    let const_value = match args.get(2) {
        Some(v) if v.constant && v.is_valid(0) => Some(value::parse(&text(v, 0))?),
        _ => None,
    };
    let mut buf = String::new();
    for i in 0..rows {
        if !args.iter().all(|a| a.is_valid(i)) {
            out.push_null();
            continue;
        }
        let mut v = value::parse(doc.get(i))?;
        if func == JsonFunction::StripNulls {
            strip_nulls(&mut v);
        } else {
            let owned;
            let p = match &const_path {
                Some(p) => p,
                None => {
                    owned = edit_path(&text(&args[1], i))?;
                    &owned
                }
            };
            let mode = match func {
                JsonFunction::Set => Edit::Set,
                JsonFunction::Insert => Edit::Insert,
                JsonFunction::Replace => Edit::Replace,
                _ => {
                    if !remove(&mut v, &p.steps) {
                        out.push_null();
                        continue;
                    }
                    buf.clear();
                    value::write(&mut buf, &v);
                    out.push_str(&buf)?;
                    continue;
                }
            };
            let new = match &const_value {
                Some(x) => x.clone(),
                None => value::parse(&text(&args[2], i))?,
            };
            edit(&mut v, &p.steps, new, mode);
        }
        buf.clear();
        value::write(&mut buf, &v);
        out.push_str(&buf)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(doc: &str, p: &str, new: &str, mode: Edit) -> String {
        let mut v = value::parse(doc).unwrap();
        edit(
            &mut v,
            &edit_path(p).unwrap().steps,
            value::parse(new).unwrap(),
            mode,
        );
        value::to_text(&v)
    }

    #[test]
    fn set_insert_replace() {
        assert_eq!(run("{}", "$.b.c", "1", Edit::Set), r#"{"b":{"c":1}}"#);
        assert_eq!(run("{}", "$.b[0][0]", "1", Edit::Set), r#"{"b":[[1]]}"#);
        assert_eq!(run("{}", "$.b[1]", "1", Edit::Set), "{}");
        assert_eq!(run("[1,2]", "$[#]", "3", Edit::Insert), "[1,2,3]");
        assert_eq!(run("[1,2]", "$[-1]", "3", Edit::Set), "[1,3]");
        assert_eq!(run("[1,2]", "$[1]", "3", Edit::Insert), "[1,2]");
        assert_eq!(run(r#"{"a":1}"#, "$.b", "3", Edit::Replace), r#"{"a":1}"#);
        assert_eq!(run(r#"{"a":1}"#, "$", "3", Edit::Replace), "3");
        assert_eq!(run(r#"{"a":1}"#, "$", "3", Edit::Insert), r#"{"a":1}"#);
        assert!(edit_path("$.a[*]").is_err());
    }

    #[test]
    fn removing_and_stripping() {
        let mut v = value::parse(r#"{"a":[1,2,3],"b":null}"#).unwrap();
        assert!(remove(&mut v, &edit_path("$.a[#-1]").unwrap().steps));
        assert!(remove(&mut v, &edit_path("$.z.y").unwrap().steps));
        assert_eq!(value::to_text(&v), r#"{"a":[1,2],"b":null}"#);
        strip_nulls(&mut v);
        assert_eq!(value::to_text(&v), r#"{"a":[1,2]}"#);
        assert!(!remove(&mut v, &[]));
    }
}
