//! Finding the value at a simple path (object keys and non-negative array indexes,
//! such as `$.name` or `$.items[0].id`) without building the document: a scanner
//! walks the bytes, checks and skips what the path does not enter, and hands back the
//! matched value's text in place. It accepts what the full parser ([`super::value`],
//! serde_json) accepts and nothing else, so only the error message needs that parser.
//! The whole document is still read, so malformed JSON is an error wherever it is. An
//! object with a key twice matches its first occurrence, as DuckDB's parser does.
//!
//! Where it sits: `json_extract`, `json_extract_string` (`->`, `->>`) with a constant
//! path take this road (`path_function` in `mod.rs`); other paths parse the document.

use super::path::Step;

/// Whether [`find`] can follow the path.
pub fn is_simple(steps: &[Step]) -> bool {
    steps
        .iter()
        .all(|s| matches!(s, Step::Key(_)) || matches!(s, Step::Index(i) if *i >= 0))
}

/// The document is not JSON; the caller asks the full parser for the message.
#[derive(Debug)]
pub struct Malformed;

/// The text of the value at `steps` in `doc`; `Ok(None)` when there is none.
pub fn find<'a>(doc: &'a str, steps: &[Step]) -> Result<Option<&'a str>, Malformed> {
    let mut s = Scanner {
        doc: doc.as_bytes(),
        at: 0,
        depth: MAX_DEPTH,
        found: None,
    };
    s.space();
    s.find(steps)?;
    s.space();
    if s.at != s.doc.len() {
        return Err(Malformed);
    }
    Ok(s.found.map(|(from, to)| &doc[from..to]))
}

/// Nesting the scanner accepts: as deep as the full parser (serde_json) goes, so the
/// two agree on which documents are JSON.
const MAX_DEPTH: u32 = 128;

/// A position in the document's bytes. Every method starts at a value's first byte
/// (whitespace skipped) or at the structural byte it names, and leaves `at` just past
/// what it read.
struct Scanner<'a> {
    doc: &'a [u8],
    at: usize,
    depth: u32,
    /// The byte range of the value the path leads to, once read. (A field rather
    /// than a return value: results passed back through memory cost a stalled load
    /// per call.)
    found: Option<(usize, usize)>,
}

impl Scanner<'_> {
    #[inline(always)]
    fn peek(&self) -> Result<u8, Malformed> {
        self.doc.get(self.at).copied().ok_or(Malformed)
    }

    #[inline(always)]
    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.doc.get(self.at) {
            self.at += 1;
        }
    }

    #[inline(always)]
    fn expect(&mut self, c: u8) -> Result<(), Malformed> {
        self.space();
        if self.peek()? != c {
            return Err(Malformed);
        }
        self.at += 1;
        Ok(())
    }

    /// Finds the value at `steps` below the value starting here (setting `found`);
    /// the rest of this value is read (and checked) too.
    fn find(&mut self, steps: &[Step]) -> Result<(), Malformed> {
        let Some((step, rest)) = steps.split_first() else {
            let from = self.at;
            self.value()?;
            self.found = Some((from, self.at));
            return Ok(());
        };
        match (step, self.peek()?) {
            (Step::Key(key), b'{') => {
                let mut matched = false;
                self.members(|s, name| {
                    if !matched && name.is(key)? {
                        matched = true;
                        s.find(rest)
                    } else {
                        s.value()
                    }
                })
            }
            (Step::Index(want), b'[') => {
                let mut at = 0i64;
                self.elements(|s| {
                    at += 1;
                    if at - 1 == *want {
                        s.find(rest)
                    } else {
                        s.value()
                    }
                })
            }
            _ => self.value(),
        }
    }

    /// Reads one value of any kind.
    fn value(&mut self) -> Result<(), Malformed> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' => self.members(|s, _| s.value()),
            b'[' => self.elements(Scanner::value),
            b't' => self.word(b"true"),
            b'f' => self.word(b"false"),
            b'n' => self.word(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(Malformed),
        }
    }

    /// Reads an object, handing each member's name to `member`, which reads its value.
    fn members(
        &mut self,
        mut member: impl FnMut(&mut Self, Name) -> Result<(), Malformed>,
    ) -> Result<(), Malformed> {
        self.items(b'}', |s| {
            if s.peek()? != b'"' {
                return Err(Malformed);
            }
            let from = s.at;
            let escaped = s.string()?;
            let name = Name {
                quoted: &s.doc[from..s.at],
                escaped,
            };
            s.expect(b':')?;
            s.space();
            member(s, name)
        })
    }

    /// Reads an array, calling `element` at the start of each element.
    fn elements(
        &mut self,
        element: impl FnMut(&mut Self) -> Result<(), Malformed>,
    ) -> Result<(), Malformed> {
        self.items(b']', element)
    }

    /// Reads the comma-separated items of an object or array up to its `close`
    /// byte, calling `item` at the start of each (whitespace skipped).
    #[inline(always)]
    fn items(
        &mut self,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Result<(), Malformed>,
    ) -> Result<(), Malformed> {
        self.nest()?;
        self.at += 1;
        self.space();
        if self.peek()? != close {
            loop {
                self.space();
                item(self)?;
                self.space();
                match self.peek()? {
                    b',' => self.at += 1,
                    c if c == close => break,
                    _ => return Err(Malformed),
                }
            }
        }
        self.at += 1;
        self.depth += 1;
        Ok(())
    }

    #[inline(always)]
    fn nest(&mut self) -> Result<(), Malformed> {
        self.depth -= 1;
        if self.depth == 0 {
            return Err(Malformed);
        }
        Ok(())
    }

    /// Reads a string; says whether it holds an escape.
    #[inline(always)]
    fn string(&mut self) -> Result<bool, Malformed> {
        self.at += 1;
        let mut escaped = false;
        loop {
            let c = self.peek()?;
            self.at += 1;
            match c {
                b'"' => return Ok(escaped),
                b'\\' => {
                    escaped = true;
                    match self.peek()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 1,
                        b'u' => {
                            let hex = self.doc.get(self.at + 1..self.at + 5).ok_or(Malformed)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return Err(Malformed);
                            }
                            self.at += 5;
                        }
                        _ => return Err(Malformed),
                    }
                }
                0..=0x1f => return Err(Malformed),
                _ => {}
            }
        }
    }

    #[inline(always)]
    fn word(&mut self, w: &[u8]) -> Result<(), Malformed> {
        if !self.doc[self.at..].starts_with(w) {
            return Err(Malformed);
        }
        self.at += w.len();
        Ok(())
    }

    /// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`
    #[inline(always)]
    fn number(&mut self) -> Result<(), Malformed> {
        if self.peek()? == b'-' {
            self.at += 1;
        }
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.digits(),
            _ => return Err(Malformed),
        }
        if self.doc.get(self.at) == Some(&b'.') {
            self.at += 1;
            self.some_digits()?;
        }
        if let Some(b'e' | b'E') = self.doc.get(self.at) {
            self.at += 1;
            if let Some(b'+' | b'-') = self.doc.get(self.at) {
                self.at += 1;
            }
            self.some_digits()?;
        }
        Ok(())
    }

    #[inline(always)]
    fn digits(&mut self) {
        while self.doc.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
    }

    #[inline(always)]
    fn some_digits(&mut self) -> Result<(), Malformed> {
        let from = self.at;
        self.digits();
        if self.at == from {
            return Err(Malformed);
        }
        Ok(())
    }
}

/// An object member's name as written, quotes included.
struct Name<'a> {
    quoted: &'a [u8],
    escaped: bool,
}

impl Name<'_> {
    /// Whether the name is `key`; escapes are decoded first (`"\u0061"` is `a`).
    fn is(&self, key: &str) -> Result<bool, Malformed> {
        if !self.escaped {
            // a byte loop: names are short, and a slice `==` calls `memcmp`
            let name = &self.quoted[1..self.quoted.len() - 1];
            return Ok(
                name.len() == key.len() && name.iter().zip(key.as_bytes()).all(|(a, b)| a == b)
            );
        }
        let name: String = serde_json::from_slice(self.quoted).map_err(|_| Malformed)?;
        Ok(name == key)
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
    fn accepts_what_the_parser_accepts() {
        // as deep as the parser nests; numbers beyond a double's range are left to
        // the parser, which meets them only when a path finds one
        assert_eq!(at("[1e400]", &[Step::Index(0)]).as_deref(), Some("1e400"));
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let docs = [
            "0",
            "-0",
            "01",
            "-",
            "1.",
            "1.5",
            "1e",
            "1e+",
            "1E-7",
            "-1.5e3",
            "+1",
            ".5",
            "[1,]",
            "[,1]",
            "[1 2]",
            " [ ] ",
            "[]x",
            "{}",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{1:2}",
            "{\"a\":}",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\\u12G4\"",
            "\"\\u00e9\"",
            "\"a\nb\"",
            "\"a\tb\"",
            "\"\\\"\"",
            "\"é\"",
            "tru",
            "true",
            "nul",
            "null ",
            "falsey",
            "\"",
            "[",
            "{",
            "{\"a\":1",
            "\u{a0}1",
            "\n1\n",
        ];
        let deep_docs = [deep(126), deep(127), deep(128), deep(200)];
        for doc in docs
            .iter()
            .copied()
            .chain(deep_docs.iter().map(String::as_str))
        {
            assert_eq!(
                find(doc, &[]).is_ok(),
                super::super::value::parse(doc).is_ok(),
                "{doc:?} ({} bytes)",
                doc.len()
            );
        }
    }

    #[test]
    fn malformed_anywhere_is_an_error() {
        assert!(find(r#"{"a": 1, "b": }"#, &[key("a")]).is_err());
        assert!(find(r#"{"a": 1} x"#, &[key("a")]).is_err());
        assert!(find("", &[key("a")]).is_err());
    }
}
