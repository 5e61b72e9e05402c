//! Finding the value at a simple path (object keys and non-negative array indexes,
//! such as `$.name` or `$.items[0].id`) without building the document: the parser
//! walks the text, skips what the path does not enter, and hands back the matched
//! value's text in place. The whole document is still read, so malformed JSON is an
//! error wherever it is. An object with a key twice matches its first occurrence, as
//! DuckDB's parser does.
//!
//! Where it sits: `json_extract`, `json_extract_string` (`->`, `->>`) with a constant
//! path take this road (`path_function` in `mod.rs`); other paths parse the document.

use super::path::Step;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// Whether [`find`] can follow the path.
pub fn is_simple(steps: &[Step]) -> bool {
    steps
        .iter()
        .all(|s| matches!(s, Step::Key(_)) || matches!(s, Step::Index(i) if *i >= 0))
}

/// The text of the value at `steps` in `doc`; `Ok(None)` when there is none; `Err`
/// when `doc` is not JSON (the caller reports it as the parser does).
pub fn find<'a>(doc: &'a str, steps: &[Step]) -> Result<Option<&'a str>, serde_json::Error> {
    let mut d = serde_json::Deserializer::from_str(doc);
    let found = Find { steps }.deserialize(&mut d)?;
    d.end()?;
    Ok(found.map(RawValue::get))
}

struct Find<'p> {
    steps: &'p [Step],
}

impl<'de> DeserializeSeed<'de> for Find<'_> {
    type Value = Option<&'de RawValue>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        match self.steps.split_first() {
            None => <&RawValue as serde::Deserialize>::deserialize(d).map(Some),
            Some((step, rest)) => d.deserialize_any(Enter { step, rest }),
        }
    }
}

/// Enters one step of the path into the value being read, skipping everything else.
struct Enter<'p> {
    step: &'p Step,
    rest: &'p [Step],
}

impl<'de> Visitor<'de> for Enter<'_> {
    type Value = Option<&'de RawValue>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        let mut matched = false;
        while let Some(is_key) = map.next_key_seed(KeyIs(match self.step {
            Step::Key(k) if !matched => Some(k.as_str()),
            _ => None,
        }))? {
            if is_key {
                matched = true;
                found = map.next_value_seed(Find { steps: self.rest })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let want = match self.step {
            Step::Index(i) => Some(*i as usize),
            _ => None,
        };
        let mut found = None;
        let mut at = 0usize;
        loop {
            if Some(at) == want {
                match seq.next_element_seed(Find { steps: self.rest })? {
                    Some(v) => found = v,
                    None => break,
                }
            } else if seq.next_element::<IgnoredAny>()?.is_none() {
                break;
            }
            at += 1;
        }
        Ok(found)
    }

    // a scalar has nothing to enter
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// Reads an object's key and says whether it is the one wanted (`None`: none is).
struct KeyIs<'p>(Option<&'p str>);

impl<'de> DeserializeSeed<'de> for KeyIs<'_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyIs<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E>(self, key: &str) -> Result<bool, E> {
        Ok(self.0 == Some(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(doc: &str, steps: &[Step]) -> Option<String> {
        find(doc, steps).unwrap().map(str::to_string)
    }

    fn key(k: &str) -> Step {
        Step::Key(k.into())
    }

    #[test]
    fn follows_keys_and_indexes() {
        let doc = r#"{"id": 7, "name": "a\"b", "items": [{"x": 1}, {"x": [2, 3]}], "n": null}"#;
        assert_eq!(at(doc, &[key("id")]).as_deref(), Some("7"));
        assert_eq!(at(doc, &[key("name")]).as_deref(), Some(r#""a\"b""#));
        assert_eq!(
            at(
                doc,
                &[key("items"), Step::Index(1), key("x"), Step::Index(0)]
            )
            .as_deref(),
            Some("2")
        );
        assert_eq!(at(doc, &[key("items"), Step::Index(5)]), None);
        assert_eq!(at(doc, &[key("missing")]), None);
        assert_eq!(at(doc, &[key("id"), key("deeper")]), None);
        assert_eq!(at(doc, &[key("n")]).as_deref(), Some("null"));
        assert_eq!(at(doc, &[]).as_deref(), Some(doc));
        // the first of a repeated key, escaped keys compared by their text
        assert_eq!(at(r#"{"a": 1, "a": 2}"#, &[key("a")]).as_deref(), Some("1"));
        assert_eq!(at(r#"{"\u0061": 3}"#, &[key("a")]).as_deref(), Some("3"));
        assert_eq!(at("1.50", &[key("a")]), None);
    }

    #[test]
    fn malformed_anywhere_is_an_error() {
        assert!(find(r#"{"a": 1, "b": }"#, &[key("a")]).is_err());
        assert!(find(r#"{"a": 1} x"#, &[key("a")]).is_err());
        assert!(find("", &[key("a")]).is_err());
    }
}
