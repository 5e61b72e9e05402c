//! DuckDB's regular-expression options and the per-chunk pattern cache shared by
//! `regexp_extract`, `regexp_extract_all`, `regexp_replace` and
//! `regexp_split_to_array`.
//!
//! Options (a constant string, as DuckDB requires): `i` ignore case, `c` respect
//! case (the last of the two wins), `l` the pattern is a literal string, `s` `.`
//! matches newlines, `m`/`n`/`p` it does not (the default), `g` replace every match
//! (regexp_replace only); spaces are ignored. A constant pattern is compiled once per
//! chunk; other patterns are compiled once per distinct text within the chunk.

use crate::kernels::StrSlot;
use regex::{Regex, RegexBuilder};
use std::collections::HashMap;
use stride_common::{Error, Result, Vector};

/// Patterns compiled while evaluating one chunk with a non-constant pattern.
const MAX_CACHED_PATTERNS: usize = 256;

/// Parsed options of one call.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Options {
    pub case_insensitive: bool,
    pub literal: bool,
    pub dot_matches_newline: bool,
    pub global: bool,
}

impl Options {
    /// Parses DuckDB's option letters; `g` only where `allow_global`.
    pub fn parse(text: &str, allow_global: bool) -> Result<Options> {
        let mut o = Options::default();
        for c in text.chars() {
            match c {
                'c' => o.case_insensitive = false,
                'i' => o.case_insensitive = true,
                'l' => o.literal = true,
                'm' | 'n' | 'p' => o.dot_matches_newline = false,
                's' => o.dot_matches_newline = true,
                'g' if allow_global => o.global = true,
                'g' => {
                    return Err(Error::invalid_input(
                        "Option 'g' (global replace) is only valid for regexp_replace",
                    ))
                }
                ' ' | '\t' | '\n' => {}
                other => {
                    return Err(Error::invalid_input(format!(
                        "Unrecognized Regex option {other}"
                    )))
                }
            }
        }
        Ok(o)
    }

    /// The options argument of `func` (absent: the defaults). DuckDB requires a
    /// constant that is not NULL; a column holding one value throughout is taken too
    /// (an executor may hand a literal over as a flat column).
    pub fn from_arg(
        arg: Option<&Vector>,
        len: usize,
        func: &str,
        allow_global: bool,
    ) -> Result<Options> {
        let Some(v) = arg else {
            return Ok(Options::default());
        };
        let text = single_value(v, len, "options", func)?
            .ok_or_else(|| Error::invalid_input("Regex options field must not be NULL"))?;
        Options::parse(text, allow_global)
    }
}

/// The one value of an argument that must be constant: `None` for NULL; an error
/// naming `what` when rows differ.
pub(crate) fn single_value<'a>(
    v: &'a Vector,
    len: usize,
    what: &str,
    func: &str,
) -> Result<Option<&'a str>> {
    let s = StrSlot::new(v);
    let first = v.is_valid(0).then(|| s.get(0));
    let rows = if v.constant { 1 } else { len };
    if (1..rows).any(|i| (v.is_valid(i).then(|| s.get(i))) != first) {
        return Err(Error::invalid_input(format!(
            "The \"{what}\" argument in function \"{func}\" must be a constant expression"
        )));
    }
    Ok(first)
}

/// Compiles `pattern` with `opts`.
pub(crate) fn compile(pattern: &str, opts: &Options) -> Result<Regex> {
    let text = if opts.literal {
        std::borrow::Cow::Owned(regex::escape(pattern))
    } else {
        super::classes::ascii_shorthands(pattern)
    };
    RegexBuilder::new(&text)
        .case_insensitive(opts.case_insensitive)
        .dot_matches_new_line(opts.dot_matches_newline)
        .size_limit(1 << 24)
        .build()
        .map_err(|e| Error::invalid_input(format!("invalid regular expression \"{pattern}\": {e}")))
}

/// The compiled pattern of each row of a chunk: compiled once when the pattern is
/// a constant, else once per distinct pattern text (a bounded cache).
pub(crate) struct Patterns<'a> {
    text: StrSlot<'a>,
    opts: Options,
    constant: Option<Regex>,
    cache: HashMap<String, Regex>,
}

impl<'a> Patterns<'a> {
    pub fn new(pattern: &'a Vector, opts: Options) -> Result<Patterns<'a>> {
        let text = StrSlot::new(pattern);
        let constant = if pattern.constant && pattern.is_valid(0) {
            Some(compile(text.get(0), &opts)?)
        } else {
            None
        };
        Ok(Patterns {
            text,
            opts,
            constant,
            cache: HashMap::new(),
        })
    }

    /// The constant pattern, when there is one.
    pub fn constant(&self) -> Option<&Regex> {
        self.constant.as_ref()
    }

    /// The pattern of row `i` (which must be valid).
    pub fn get(&mut self, i: usize) -> Result<&Regex> {
        if let Some(re) = &self.constant {
            return Ok(re);
        }
        let p = self.text.get(i);
        if !self.cache.contains_key(p) {
            if self.cache.len() >= MAX_CACHED_PATTERNS {
                self.cache.clear();
            }
            let re = compile(p, &self.opts)?;
            self.cache.insert(p.to_string(), re);
        }
        Ok(&self.cache[p])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options() {
        let o = Options::parse("ic", false).unwrap();
        assert!(!o.case_insensitive);
        let o = Options::parse("ci s", false).unwrap();
        assert!(o.case_insensitive && o.dot_matches_newline);
        assert!(Options::parse("g", true).unwrap().global);
        let e = Options::parse("g", false).unwrap_err();
        assert!(e.message.contains("only valid for regexp_replace"));
        let e = Options::parse("q", false).unwrap_err();
        assert_eq!(e.message, "Unrecognized Regex option q");
        let re = compile("a.c", &Options::parse("l", false).unwrap()).unwrap();
        assert!(re.is_match("xa.cx") && !re.is_match("abc"));
        assert!(!compile("a.b", &Options::default())
            .unwrap()
            .is_match("a\nb"));
    }
}
