//! Merging documents: `json_merge_patch` (RFC 7386: a null member removes a key),
//! `json_deep_merge` (the same, but a null never removes: it is skipped where the
//! target is an object) and `json_merge_patch_diff` (the patch that turns one
//! document into another).
//!
//! In every one, objects merge member by member and any other value replaces the
//! target whole (arrays are not merged element by element). A NULL first argument
//! is a JSON null; a NULL patch makes the result NULL.

use serde_json::{Map, Value};

/// RFC 7386 merge patch: objects merge key by key, `null` removes a key, anything
/// else replaces the target.
pub fn merge_patch(target: &mut Value, patch: Value) {
    merge(target, patch, true)
}

/// `json_deep_merge`: as [`merge_patch`], but a null in the patch leaves the
/// target's member (or the whole target) as it was.
pub fn deep_merge(target: &mut Value, patch: Value) {
    if patch.is_null() {
        return;
    }
    merge(target, patch, false)
}

fn merge(target: &mut Value, patch: Value, null_removes: bool) {
    let Value::Object(p) = patch else {
        *target = patch;
        return;
    };
    if !target.is_object() {
        // Nothing to merge into: the patch becomes the value, as an RFC 7386 patch
        // applied to an empty object (nulls dropped), or as it is for a deep merge.
        if !null_removes {
            *target = Value::Object(p);
            return;
        }
        *target = Value::Object(Map::new());
    }
    let Value::Object(t) = target else {
        unreachable!("made an object above")
    };
    for (k, v) in p {
        if v.is_null() {
            if null_removes {
                t.shift_remove(&k);
            }
        } else {
            merge(t.entry(k).or_insert(Value::Null), v, null_removes);
        }
    }
}

/// `json_merge_patch_diff(old, new)`: the merge patch that turns `old` into `new`.
/// Between two objects: a null for each key `old` has and `new` lacks (in `old`'s
/// order), then each key of `new` whose value is new or different (in `new`'s
/// order), objects on both sides as their own diff. Anything else: `new`.
pub fn diff(old: &Value, new: &Value) -> Value {
    let (Value::Object(o), Value::Object(n)) = (old, new) else {
        return new.clone();
    };
    let mut out = Map::new();
    for k in o.keys() {
        if !n.contains_key(k) {
            out.insert(k.clone(), Value::Null);
        }
    }
    for (k, nv) in n {
        match o.get(k) {
            Some(ov) if equal(ov, nv) => {}
            Some(ov @ Value::Object(_)) if nv.is_object() => {
                out.insert(k.clone(), diff(ov, nv));
            }
            _ => {
                out.insert(k.clone(), nv.clone());
            }
        }
    }
    Value::Object(out)
}

/// Whether two documents are the same: objects whatever their key order, numbers
/// by value within their kind (an integer never equals a number written with a
/// fraction or exponent).
pub fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| equal(v, w))
        }
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_str(), y.as_str());
            let real = |s: &str| s.contains(['.', 'e', 'E']);
            match (real(x), real(y)) {
                (false, false) => x == y || x.parse::<i128>().ok() == y.parse::<i128>().ok(),
                (true, true) => x == y || x.parse::<f64>().ok() == y.parse::<f64>().ok(),
                _ => false,
            }
        }
        (a, b) => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::super::value::{parse, to_text};
    use super::*;

    #[test]
    fn diff_and_deep_merge() {
        let d = |a: &str, b: &str| to_text(&diff(&parse(a).unwrap(), &parse(b).unwrap()));
        assert_eq!(
            d(r#"{"x":1,"a":1}"#, r#"{"a":2,"c":3}"#),
            r#"{"x":null,"a":2,"c":3}"#
        );
        assert_eq!(d(r#"{"b":{"c":1,"d":2}}"#, r#"{"b":{"d":2,"c":1}}"#), "{}");
        assert_eq!(d(r#"{"a":{"x":1}}"#, r#"{"a":{}}"#), r#"{"a":{"x":null}}"#);
        assert_eq!(d(r#"{"a":1.0}"#, r#"{"a":1}"#), r#"{"a":1}"#);
        assert_eq!(d("[1]", "[1]"), "[1]");
        let mut t = parse(r#"{"a":{"x":1},"b":2}"#).unwrap();
        deep_merge(&mut t, parse(r#"{"a":{"x":null,"y":2},"b":null}"#).unwrap());
        assert_eq!(to_text(&t), r#"{"a":{"x":1,"y":2},"b":2}"#);
        deep_merge(&mut t, Value::Null);
        assert_eq!(to_text(&t), r#"{"a":{"x":1,"y":2},"b":2}"#);
        let mut n = Value::Null;
        deep_merge(&mut n, parse(r#"{"a":{"b":null}}"#).unwrap());
        assert_eq!(to_text(&n), r#"{"a":{"b":null}}"#);
    }
}
