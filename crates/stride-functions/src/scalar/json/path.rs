//! JSON paths as DuckDB writes them, parsed once per constant path (per row only
//! when the path is a column): JSONPath (`$`, `$.a.b`, `$."a b"`, `$.a[0]`, `$[-1]`
//! and `$[#-1]` from the end, `$.a[*]` and `$.*` wildcards, `$..a` at any depth),
//! JSON Pointer (`/a/0`, with `~0` for `~` and `~1` for `/`), the empty path (the
//! whole document, as `$`), or any other text as one key. A path with a wildcard
//! yields a list of every match.

use serde_json::Value;
use stride_common::{Error, Result};

#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Key(String),
    /// Non-negative: from the start; negative: from the end (-1 is the last).
    Index(i64),
    AnyKey,
    AnyIndex,
    /// `..key`: the key at any depth below
    Descend(String),
    /// A JSON Pointer part that is a number: an object's key or an array's index.
    KeyOrIndex(String, u32),
}

#[derive(Debug, Clone, PartialEq)]
pub struct JsonPath {
    pub steps: Vec<Step>,
}

impl JsonPath {
    /// Whether the path may match several values (its functions return lists).
    pub fn has_wildcard(&self) -> bool {
        self.steps
            .iter()
            .any(|s| matches!(s, Step::AnyKey | Step::AnyIndex | Step::Descend(_)))
    }

    pub fn index(i: i64) -> JsonPath {
        JsonPath {
            steps: vec![Step::Index(i)],
        }
    }

    /// The single value the path names (paths without wildcards).
    pub fn get<'a>(&self, v: &'a Value) -> Option<&'a Value> {
        let mut cur = v;
        for s in &self.steps {
            cur = match (s, cur) {
                (Step::Key(k) | Step::KeyOrIndex(k, _), Value::Object(m)) => m.get(k.as_str())?,
                (Step::KeyOrIndex(_, i), Value::Array(a)) => a.get(*i as usize)?,
                (Step::Index(i), Value::Array(a)) => {
                    let at = if *i < 0 { a.len() as i64 + i } else { *i };
                    if at < 0 {
                        return None;
                    }
                    a.get(at as usize)?
                }
                _ => return None,
            };
        }
        Some(cur)
    }

    /// Every value the path matches, in document order.
    pub fn all<'a>(&self, v: &'a Value, out: &mut Vec<&'a Value>) {
        collect(&self.steps, v, out)
    }
}

fn collect<'a>(steps: &[Step], v: &'a Value, out: &mut Vec<&'a Value>) {
    let Some((first, rest)) = steps.split_first() else {
        out.push(v);
        return;
    };
    match (first, v) {
        (Step::AnyKey, Value::Object(m)) => m.values().for_each(|x| collect(rest, x, out)),
        (Step::AnyIndex, Value::Array(a)) => a.iter().for_each(|x| collect(rest, x, out)),
        (Step::Descend(k), _) => descend(k, rest, v, out),
        (s, _) => {
            if let Some(x) = (JsonPath {
                steps: vec![s.clone()],
            })
            .get(v)
            {
                collect(rest, x, out)
            }
        }
    }
}

fn descend<'a>(key: &str, rest: &[Step], v: &'a Value, out: &mut Vec<&'a Value>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if k == key {
                    collect(rest, x, out);
                }
                descend(key, rest, x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| descend(key, rest, x, out)),
        _ => {}
    }
}

/// Parses a path; a malformed one is an error quoting the rest of the path from
/// where it went wrong, as DuckDB's `JSON path error near '...'`.
pub fn parse(path: &str) -> Result<JsonPath> {
    // the empty path: the whole document, as `$`
    if path.is_empty() {
        return Ok(JsonPath { steps: vec![] });
    }
    if let Some(p) = path.strip_prefix('$') {
        return parse_json_path(p);
    }
    if let Some(p) = path.strip_prefix('/') {
        let steps = p
            .split('/')
            .map(|part| {
                let key = part.replace("~1", "/").replace("~0", "~");
                match key.parse::<u32>() {
                    Ok(i) if key.bytes().all(|b| b.is_ascii_digit()) => Step::KeyOrIndex(key, i),
                    _ => Step::Key(key),
                }
            })
            .collect();
        return Ok(JsonPath { steps });
    }
    Ok(JsonPath {
        steps: vec![Step::Key(path.to_string())],
    })
}

fn near(rest: &str) -> Error {
    Error::binder(format!("JSON path error near '{rest}'"))
}

fn parse_json_path(mut p: &str) -> Result<JsonPath> {
    let mut steps = Vec::new();
    while !p.is_empty() {
        let here = p;
        if let Some(r) = p.strip_prefix("..") {
            let (key, rest) = key_token(r).ok_or_else(|| near(here))?;
            steps.push(Step::Descend(key));
            p = rest;
        } else if let Some(r) = p.strip_prefix('.') {
            if let Some(r2) = r.strip_prefix('*') {
                steps.push(Step::AnyKey);
                p = r2;
                continue;
            }
            let (key, rest) = key_token(r).ok_or_else(|| near(here))?;
            steps.push(Step::Key(key));
            p = rest;
        } else if let Some(r) = p.strip_prefix('[') {
            let close = r.find(']').ok_or_else(|| near(here))?;
            let inner = r[..close].trim();
            let step = if inner == "*" {
                Step::AnyIndex
            } else if let Some(back) = inner.strip_prefix("#-") {
                let n: i64 = back.trim().parse().map_err(|_| near(here))?;
                if n <= 0 {
                    return Err(near(here));
                }
                Step::Index(-n)
            } else if inner == "#" {
                Step::Index(i64::MIN)
            } else {
                Step::Index(inner.parse().map_err(|_| near(here))?)
            };
            steps.push(step);
            p = &r[close + 1..];
        } else {
            return Err(near(here));
        }
    }
    Ok(JsonPath { steps })
}

/// A key after `.`: up to the next `.` or `[`, or a double-quoted name.
fn key_token(r: &str) -> Option<(String, &str)> {
    if let Some(q) = r.strip_prefix('"') {
        let end = q.find('"')?;
        return Some((q[..end].to_string(), &q[end + 1..]));
    }
    let end = r.find(['.', '[']).unwrap_or(r.len());
    if end == 0 {
        return None;
    }
    Some((r[..end].to_string(), &r[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(doc: &str, path: &str) -> Option<String> {
        let v = super::super::value::parse(doc).unwrap();
        parse(path)
            .unwrap()
            .get(&v)
            .map(super::super::value::to_text)
    }

    #[test]
    fn path_forms() {
        let d = r#"{"a":{"b":[1,2,3]},"x y":4,"m/n":5,"m~n":6}"#;
        assert_eq!(get(d, "$.a.b[0]").as_deref(), Some("1"));
        assert_eq!(get(d, "$.a.b[-1]").as_deref(), Some("3"));
        assert_eq!(get(d, "$.a.b[#-2]").as_deref(), Some("2"));
        assert_eq!(get(d, "$.a.b[5]"), None);
        assert_eq!(get(d, "$.a.b[-4]"), None);
        assert_eq!(get(d, r#"$."x y""#).as_deref(), Some("4"));
        assert_eq!(get(d, "/a/b/1").as_deref(), Some("2"));
        assert_eq!(get(d, "/m~1n").as_deref(), Some("5"));
        assert_eq!(get(d, "/m~0n").as_deref(), Some("6"));
        assert_eq!(get(d, "x y").as_deref(), Some("4"));
        assert_eq!(get(d, "$").as_deref(), Some(d));
        for bad in ["$.", "$a", "$[x]", "$.\"a", "$[1"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn wildcards() {
        let v = super::super::value::parse(r#"{"x":[{"y":[1,2]},{"y":[3]}],"z":{"y":4}}"#).unwrap();
        let p = parse("$.x[*].y[*]").unwrap();
        assert!(p.has_wildcard());
        let mut out = Vec::new();
        p.all(&v, &mut out);
        assert_eq!(out.len(), 3);
        out.clear();
        parse("$..y").unwrap().all(&v, &mut out);
        assert_eq!(out.len(), 3);
    }
}
