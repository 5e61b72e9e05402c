//! A compiled LIKE pattern. `%` matches any run of characters, `_` exactly one
//! character (not byte), and an optional escape character makes the next pattern
//! character literal. Compilation splits the pattern at `%` into segments of
//! fixed character length; common shapes get dedicated plans (exact, prefix, suffix,
//! substring via memmem) and the rest is matched segment by segment: the first and
//! last segments are anchored, middle ones matched at their leftmost occurrence,
//! which is optimal because every segment has a fixed length. Prefix and exact
//! patterns can reject a string from its view (length and 4-byte prefix) without
//! reading its bytes ([`LikeMatcher::rejects_view`]).

use memchr::memmem::Finder;
use stride_common::{Error, Result, StringView};

#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Lit(Vec<u8>),
    /// This many single characters (`_` runs).
    Any(usize),
}

type Segment = Vec<Piece>;

#[derive(Debug, Clone)]
enum Plan {
    Exact(Vec<u8>),
    Prefix(Vec<u8>),
    Suffix(Vec<u8>),
    Contains(Box<Finder<'static>>),
    /// Only `%`s: every string matches.
    Everything,
    /// No `%`: the single segment must span the whole string.
    Whole(Segment),
    /// At least one `%`. `first`/`last` are anchored at the start/end when present.
    General {
        first: Option<Segment>,
        middle: Vec<(Segment, Option<Finder<'static>>)>,
        last: Option<Segment>,
    },
}

/// A LIKE/ILIKE pattern compiled once and matched against many strings.
#[derive(Debug, Clone)]
pub struct LikeMatcher {
    plan: Plan,
    fold_case: bool,
    /// Lower-cased input for ILIKE, reused across rows.
    buf: String,
}

fn push_char(seg: &mut Segment, c: char, fold_case: bool) {
    let mut tmp = [0u8; 4];
    let mut bytes = Vec::new();
    if fold_case {
        for l in c.to_lowercase() {
            bytes.extend_from_slice(l.encode_utf8(&mut tmp).as_bytes());
        }
    } else {
        bytes.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
    }
    match seg.last_mut() {
        Some(Piece::Lit(l)) => l.extend_from_slice(&bytes),
        _ => seg.push(Piece::Lit(bytes)),
    }
}

fn push_any(seg: &mut Segment) {
    match seg.last_mut() {
        Some(Piece::Any(n)) => *n += 1,
        _ => seg.push(Piece::Any(1)),
    }
}

/// The segment's bytes when it is a single literal (no `_`).
fn literal(seg: &Segment) -> Option<&[u8]> {
    match seg.as_slice() {
        [Piece::Lit(l)] => Some(l),
        _ => None,
    }
}

impl LikeMatcher {
    /// Compiles `pattern`; `escape` makes the following character literal.
    pub fn new(pattern: &str, escape: Option<char>, fold_case: bool) -> Result<LikeMatcher> {
        let mut parts: Vec<Segment> = vec![Vec::new()];
        let mut chars = pattern.chars();
        while let Some(c) = chars.next() {
            let seg = parts.last_mut().expect("parts is never empty");
            if Some(c) == escape {
                let Some(next) = chars.next() else {
                    return Err(Error::invalid_input(
                        "LIKE pattern must not end with escape character",
                    ));
                };
                push_char(seg, next, fold_case);
            } else if c == '%' {
                parts.push(Vec::new());
            } else if c == '_' {
                push_any(seg);
            } else {
                push_char(seg, c, fold_case);
            }
        }
        Ok(LikeMatcher {
            plan: Self::plan(parts),
            fold_case,
            buf: String::new(),
        })
    }

    fn plan(mut parts: Vec<Segment>) -> Plan {
        if parts.len() == 1 {
            let seg = parts.pop().unwrap_or_default();
            return match literal(&seg) {
                Some(l) => Plan::Exact(l.to_vec()),
                None if seg.is_empty() => Plan::Exact(Vec::new()),
                None => Plan::Whole(seg),
            };
        }
        let first = parts.remove(0);
        let last = parts.pop().unwrap_or_default();
        let middle: Vec<Segment> = parts.into_iter().filter(|s| !s.is_empty()).collect();
        match (first.is_empty(), middle.as_slice(), last.is_empty()) {
            (true, [], true) => return Plan::Everything,
            (false, [], true) => {
                if let Some(l) = literal(&first) {
                    return Plan::Prefix(l.to_vec());
                }
            }
            (true, [], false) => {
                if let Some(l) = literal(&last) {
                    return Plan::Suffix(l.to_vec());
                }
            }
            (true, [m], true) => {
                if let Some(l) = literal(m) {
                    return Plan::Contains(Box::new(Finder::new(l).into_owned()));
                }
            }
            _ => {}
        }
        let middle = middle
            .into_iter()
            .map(|seg| {
                let finder = literal(&seg).map(|l| Finder::new(l).into_owned());
                (seg, finder)
            })
            .collect();
        Plan::General {
            first: (!first.is_empty()).then_some(first),
            middle,
            last: (!last.is_empty()).then_some(last),
        }
    }

    /// Whether a string with this view certainly does not match, told from its
    /// length and 4-byte prefix alone (so without reading a long string's bytes from
    /// its buffer, a cache miss when rows come in random order). False when unsure.
    pub fn rejects_view(&self, v: &StringView) -> bool {
        let (fixed, exact) = match &self.plan {
            _ if self.fold_case => return false,
            Plan::Prefix(l) => (l, false),
            Plan::Exact(l) => (l, true),
            Plan::Suffix(l) => return v.len() < l.len(),
            _ => return false,
        };
        let n = fixed.len().min(4);
        (if exact {
            v.len() != fixed.len()
        } else {
            v.len() < fixed.len()
        }) || v.prefix()[..n] != fixed[..n]
    }

    /// Whether `s` matches the pattern.
    pub fn matches(&mut self, s: &str) -> bool {
        let hay: &[u8] = if self.fold_case {
            self.buf.clear();
            if s.is_ascii() {
                self.buf.push_str(s);
                self.buf.make_ascii_lowercase();
            } else {
                self.buf.extend(s.chars().flat_map(char::to_lowercase));
            }
            self.buf.as_bytes()
        } else {
            s.as_bytes()
        };
        match &self.plan {
            Plan::Exact(l) => hay == l.as_slice(),
            Plan::Prefix(l) => hay.starts_with(l),
            Plan::Suffix(l) => hay.ends_with(l),
            Plan::Contains(f) => f.find(hay).is_some(),
            Plan::Everything => true,
            Plan::Whole(seg) => match_at(hay, 0, seg) == Some(hay.len()),
            Plan::General {
                first,
                middle,
                last,
            } => match_general(hay, first.as_ref(), middle, last.as_ref()),
        }
    }
}

fn match_general(
    hay: &[u8],
    first: Option<&Segment>,
    middle: &[(Segment, Option<Finder<'static>>)],
    last: Option<&Segment>,
) -> bool {
    let mut lo = 0;
    let mut hi = hay.len();
    if let Some(seg) = first {
        match match_at(hay, 0, seg) {
            Some(end) => lo = end,
            None => return false,
        }
    }
    if let Some(seg) = last {
        match match_back(hay, hay.len(), seg) {
            Some(start) if start >= lo => hi = start,
            _ => return false,
        }
    }
    let window = &hay[..hi];
    for (seg, finder) in middle {
        match find(window, lo, seg, finder.as_ref()) {
            Some(end) => lo = end,
            None => return false,
        }
    }
    true
}

/// Width of the UTF-8 character starting with byte `b`.
#[inline]
fn char_width(b: u8) -> usize {
    match b {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xFF => 4,
        // a continuation byte never starts a character in valid UTF-8
        _ => 1,
    }
}

#[inline]
fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// End of `seg` matched starting at `pos`, if it matches there.
fn match_at(hay: &[u8], mut pos: usize, seg: &Segment) -> Option<usize> {
    for piece in seg {
        match piece {
            Piece::Lit(l) => {
                if !hay.get(pos..)?.starts_with(l) {
                    return None;
                }
                pos += l.len();
            }
            Piece::Any(n) => {
                for _ in 0..*n {
                    let b = *hay.get(pos)?;
                    pos = (pos + char_width(b)).min(hay.len());
                }
            }
        }
    }
    Some(pos)
}

/// Start of `seg` matched so that it ends at `end`, if it matches there.
fn match_back(hay: &[u8], mut end: usize, seg: &Segment) -> Option<usize> {
    for piece in seg.iter().rev() {
        match piece {
            Piece::Lit(l) => {
                if !hay[..end].ends_with(l) {
                    return None;
                }
                end -= l.len();
            }
            Piece::Any(n) => {
                for _ in 0..*n {
                    if end == 0 {
                        return None;
                    }
                    end -= 1;
                    while end > 0 && is_continuation(hay[end]) {
                        end -= 1;
                    }
                }
            }
        }
    }
    Some(end)
}

/// End of the leftmost match of `seg` starting at or after `from`.
fn find(hay: &[u8], from: usize, seg: &Segment, finder: Option<&Finder>) -> Option<usize> {
    if let Some(f) = finder {
        let at = f.find(&hay[from..])?;
        return Some(from + at + f.needle().len());
    }
    if let Some(Piece::Lit(l)) = seg.first() {
        // candidates are the occurrences of the leading literal
        let mut start = from;
        while let Some(at) = memchr::memmem::find(&hay[start..], l) {
            let pos = start + at;
            if let Some(end) = match_at(hay, pos, seg) {
                return Some(end);
            }
            start = pos + 1;
        }
        return None;
    }
    let mut pos = from;
    while pos <= hay.len() {
        if let Some(end) = match_at(hay, pos, seg) {
            return Some(end);
        }
        if pos == hay.len() {
            break;
        }
        pos += char_width(hay[pos]);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn like(s: &str, p: &str) -> bool {
        LikeMatcher::new(p, None, false).unwrap().matches(s)
    }

    fn like_esc(s: &str, p: &str, e: char) -> bool {
        LikeMatcher::new(p, Some(e), false).unwrap().matches(s)
    }

    fn ilike(s: &str, p: &str) -> bool {
        LikeMatcher::new(p, None, true).unwrap().matches(s)
    }

    /// A view's verdict never contradicts a full match.
    #[test]
    fn views_reject_only_what_cannot_match() {
        let mut sv = stride_common::StringVector::default();
        let strings = [
            "PROMO BRUSHED",
            "PROM",
            "PRO",
            "",
            "XROMO",
            "PROMX Y Z W",
            "abc",
            "xyzabc",
        ];
        for s in strings {
            sv.push(s);
        }
        for (p, fold) in [
            ("PROMO%", false),
            ("PROM", false),
            ("PRO", false),
            ("abc", false),
        ]
        .into_iter()
        .chain([
            ("%abc", false),
            ("%O%", false),
            ("promo%", true),
            ("", false),
        ]) {
            let mut m = LikeMatcher::new(p, None, fold).unwrap();
            for (i, s) in strings.iter().enumerate() {
                if m.rejects_view(&sv.views[i]) {
                    assert!(!m.matches(s), "{s:?} LIKE {p:?}");
                }
            }
        }
        let m = LikeMatcher::new("PROMO%", None, false).unwrap();
        assert!(m.rejects_view(&sv.views[4]) && m.rejects_view(&sv.views[2]));
        assert!(
            !m.rejects_view(&sv.views[5]),
            "the fifth byte is not in the prefix"
        );
    }

    #[test]
    fn shapes() {
        assert!(like("abc", "abc"));
        assert!(!like("abcd", "abc"));
        assert!(like("", ""));
        assert!(!like("a", ""));
        assert!(like("abc", "a%"));
        assert!(!like("bac", "a%"));
        assert!(like("abc", "%c"));
        assert!(like("abc", "%b%"));
        assert!(!like("abc", "%d%"));
        assert!(like("", "%"));
        assert!(like("anything", "%%%"));
        assert!(like("abc", "a%%c"));
        assert!(like("ac", "a%c"));
        assert!(!like("ab", "a%c"));
    }

    #[test]
    fn underscores() {
        assert!(like("abc", "a_c"));
        assert!(!like("abbc", "a_c"));
        assert!(like("abc", "___"));
        assert!(!like("ab", "___"));
        assert!(like("abc", "_%"));
        assert!(!like("", "_%"));
        assert!(like("xaybz", "%a_b%"));
        assert!(like("aXbYc", "a_b_c"));
        assert!(like("abcabd", "%ab_"));
        assert!(like("abcabd", "a%_d"));
        assert!(!like("ad", "a%_d"));
        assert!(like("mississippi", "%ss_ss%"));
        assert!(like("mississippi", "m%ss%ss%i"));
        assert!(!like("mississippi", "m%ss%ss%ss%"));
    }

    #[test]
    fn unicode() {
        assert!(like("héllo", "h_llo"));
        assert!(like("日本語", "___"));
        assert!(!like("日本語", "__"));
        assert!(like("日本語", "%本%"));
        assert!(like("日本語", "_本_"));
        assert!(like("日本語", "%_語"));
        assert!(like("ñandú", "%ú"));
        assert!(ilike("ÉCOLE", "éc%"));
        assert!(!like("Straße", "%SSE"));
    }

    #[test]
    fn escapes() {
        assert!(like_esc("100%", "100\\%", '\\'));
        assert!(!like_esc("1000", "100\\%", '\\'));
        assert!(like_esc("a_b", "a\\_b", '\\'));
        assert!(!like_esc("axb", "a\\_b", '\\'));
        assert!(like_esc("a#b", "a##b", '#'));
        assert!(like_esc("50% off", "%!%%", '!'));
        // without an escape character, a backslash is an ordinary character
        assert!(like("a\\b", "a\\b"));
        assert!(LikeMatcher::new("abc\\", Some('\\'), false).is_err());
    }

    #[test]
    fn case_insensitive() {
        assert!(ilike("Hello World", "hello%"));
        assert!(ilike("HELLO", "%l_o"));
        assert!(!ilike("HELLO", "%x%"));
    }
}
