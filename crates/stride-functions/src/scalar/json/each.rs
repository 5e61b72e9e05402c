//! The rows of the table functions `json_each(json[, path])` (one row per member
//! or element of the value at the path, or one row for the value itself when it is
//! a scalar) and `json_tree(json[, path])` (that value and everything below it, in
//! document order).
//!
//! Each row describes one value: its `key` (member name, or array index as text;
//! NULL for the starting value), its JSON `value` and `type`, its `atom` (the
//! value when it is a non-null scalar), its `id` (its position in the document
//! counted in document order, every value and every member name taking one
//! position, as DuckDB numbers them), the `parent` id (in json_tree), its `fullkey`
//! (a path to it) and `path` (the path to its container). The path argument must
//! start with `$` (a plain key is read as `$."key"`) and cannot have wildcards.

use super::path::{self, JsonPath, Step};
use super::value;
use serde_json::Value;
use stride_common::{DataType, Error, Result, ScalarValue};

/// The columns, in order. DuckDB's `id` and `parent` are UBIGINT; stride has no
/// unsigned type, and they fit a BIGINT.
pub fn columns() -> Vec<(&'static str, DataType)> {
    vec![
        ("key", DataType::Varchar),
        ("value", DataType::Json),
        ("type", DataType::Varchar),
        ("atom", DataType::Json),
        ("id", DataType::BigInt),
        ("parent", DataType::BigInt),
        ("fullkey", DataType::Varchar),
        ("path", DataType::Varchar),
    ]
}

/// A checked path argument: the parsed path and the text fullkeys start with.
pub struct EachPath {
    pub path: JsonPath,
    pub prefix: String,
}

/// Checks a path argument (Binder errors, as DuckDB reports them).
pub fn each_path(text: &str) -> Result<EachPath> {
    let (path, prefix) = if text.starts_with('$') {
        (path::parse(text)?, text.to_string())
    } else if text.is_empty() || text.starts_with('/') {
        return Err(Error::binder(
            "JSON path must start with '$' for json_each/json_tree",
        ));
    } else {
        let mut prefix = String::from("$.");
        value::write_string(&mut prefix, text);
        (path::parse(text)?, prefix)
    };
    if path.has_wildcard() {
        return Err(Error::binder(
            "Wildcard JSON path not supported in json_each/json_tree",
        ));
    }
    Ok(EachPath { path, prefix })
}

/// The rows for one document (`None` path: the whole document); a path that
/// matches nothing gives none. A malformed document is an Invalid Input error.
pub fn rows(doc: &str, path: Option<&EachPath>, tree: bool) -> Result<Vec<Vec<ScalarValue>>> {
    let root = value::parse(doc)?;
    let (target, id, prefix) = match path {
        None => (&root, 0, "$".to_string()),
        Some(p) => match find(&root, &p.path.steps) {
            Some((v, id)) => (v, id, p.prefix.clone()),
            None => return Ok(Vec::new()),
        },
    };
    let mut out = Vec::new();
    let mut w = Walker {
        out: &mut out,
        tree,
    };
    let start = Item {
        key: None,
        v: target,
        id,
        parent: None,
        fullkey: prefix.clone(),
        path: prefix,
    };
    if tree || !matches!(target, Value::Array(_) | Value::Object(_)) {
        w.visit(start);
    } else {
        w.children(&start, false);
    }
    Ok(out)
}

/// The value a path (without wildcards) names, and its id.
fn find<'a>(root: &'a Value, steps: &[Step]) -> Option<(&'a Value, u64)> {
    let (mut cur, mut id) = (root, 0u64);
    for s in steps {
        let one = JsonPath {
            steps: vec![s.clone()],
        };
        let next = one.get(cur)?;
        // Skip the positions of the members or elements before the one taken.
        id += 1;
        match cur {
            Value::Object(m) => {
                for x in m.values() {
                    id += 1; // the member's name
                    if std::ptr::eq(x, next) {
                        break;
                    }
                    id += size(x);
                }
            }
            Value::Array(a) => {
                for x in a {
                    if std::ptr::eq(x, next) {
                        break;
                    }
                    id += size(x);
                }
            }
            _ => return None,
        }
        cur = next;
    }
    Some((cur, id))
}

/// The positions a value takes: itself, and for containers each member's name and
/// each member or element.
fn size(v: &Value) -> u64 {
    match v {
        Value::Array(a) => 1 + a.iter().map(size).sum::<u64>(),
        Value::Object(m) => 1 + m.values().map(|x| 1 + size(x)).sum::<u64>(),
        _ => 1,
    }
}

struct Item<'a> {
    key: Option<String>,
    v: &'a Value,
    id: u64,
    parent: Option<u64>,
    fullkey: String,
    path: String,
}

struct Walker<'o> {
    out: &'o mut Vec<Vec<ScalarValue>>,
    tree: bool,
}

impl Walker<'_> {
    fn visit(&mut self, it: Item) {
        let text = value::to_text(it.v);
        let atom = match it.v {
            Value::Null | Value::Array(_) | Value::Object(_) => ScalarValue::Null,
            _ => ScalarValue::Varchar(text.clone()),
        };
        self.out.push(vec![
            it.key
                .clone()
                .map_or(ScalarValue::Null, ScalarValue::Varchar),
            ScalarValue::Varchar(text),
            ScalarValue::Varchar(value::type_name(it.v).to_string()),
            atom,
            ScalarValue::BigInt(it.id as i64),
            it.parent
                .map_or(ScalarValue::Null, |p| ScalarValue::BigInt(p as i64)),
            ScalarValue::Varchar(it.fullkey.clone()),
            ScalarValue::Varchar(it.path.clone()),
        ]);
        if self.tree {
            self.children(&it, true);
        }
    }

    /// The members or elements of `it` (json_tree: with `it` as their parent, and
    /// their own descendants).
    fn children(&mut self, it: &Item, with_parent: bool) {
        let parent = with_parent.then_some(it.id);
        let mut id = it.id + 1;
        match it.v {
            Value::Object(m) => {
                for (k, x) in m {
                    id += 1;
                    let mut fullkey = it.fullkey.clone();
                    fullkey.push('.');
                    push_key(&mut fullkey, k);
                    self.visit(Item {
                        key: Some(k.clone()),
                        v: x,
                        id,
                        parent,
                        fullkey,
                        path: it.fullkey.clone(),
                    });
                    id += size(x);
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    self.visit(Item {
                        key: Some(i.to_string()),
                        v: x,
                        id,
                        parent,
                        fullkey: format!("{}[{i}]", it.fullkey),
                        path: it.fullkey.clone(),
                    });
                    id += size(x);
                }
            }
            _ => {}
        }
    }
}

/// A member name in a fullkey: as it is when it is a letter followed by letters,
/// digits and underscores, otherwise quoted.
fn push_key(out: &mut String, k: &str) {
    let mut chars = k.chars();
    let plain = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        out.push_str(k);
    } else {
        value::write_string(out, k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(doc: &str, p: Option<&str>, tree: bool) -> Vec<(String, i64)> {
        let p = p.map(|p| each_path(p).unwrap());
        rows(doc, p.as_ref(), tree)
            .unwrap()
            .into_iter()
            .map(|r| {
                let ScalarValue::Varchar(k) = &r[6] else {
                    panic!()
                };
                (k.clone(), r[4].as_i64().unwrap())
            })
            .collect()
    }

    #[test]
    fn ids_count_names_and_values() {
        let d = r#"{"a":1,"b":[1,2],"c":{"d":null},"e":"x"}"#;
        let got = ids(d, None, false);
        let want = [("$.a", 2), ("$.b", 4), ("$.c", 8), ("$.e", 12)];
        assert_eq!(
            got,
            want.map(|(k, i)| (k.to_string(), i)).to_vec(),
            "{got:?}"
        );
        assert_eq!(
            ids(r#"{"a":{"b":[1,2]}}"#, Some("$.a.b"), false),
            vec![("$.a.b[0]".to_string(), 5), ("$.a.b[1]".to_string(), 6)]
        );
        let t = ids(r#"{"a":1,"b":[1,{"c":2}]}"#, None, true);
        assert_eq!(
            t.iter().map(|x| x.1).collect::<Vec<_>>(),
            vec![0, 2, 4, 5, 6, 8]
        );
        assert_eq!(ids("[1]", Some("$[5]"), false), vec![]);
        assert_eq!(
            ids(r#"{"a":{"b":1}}"#, Some("a"), false),
            vec![(r#"$."a".b"#.to_string(), 4)]
        );
        assert!(each_path("/a").is_err());
        assert!(each_path("$.*").is_err());
    }
}
