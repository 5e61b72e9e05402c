//! RE2's shorthand classes, which DuckDB's regular expressions use: `\w`, `\d`, `\s`
//! and the word boundaries `\b`, `\B` are ASCII (`\s` is `[\t\n\f\r ]`, without the
//! vertical tab), where the `regex` crate's are Unicode. Every pattern is rewritten
//! with explicit ASCII classes before it is compiled, so `regexp_matches('é', '\w')`
//! is false and `\d` does not match Arabic-Indic digits, as in DuckDB. Named Unicode
//! classes (`\pL`, `\p{Greek}`) keep their meaning.

use std::borrow::Cow;

const WORD: &str = "0-9A-Za-z_";
const DIGIT: &str = "0-9";
const SPACE: &str = r"\t\n\f\r\x20";

/// `pattern` with `\w \W \d \D \s \S \b \B` spelled as RE2 means them: outside a
/// bracket class as a class of their own (`[0-9]`, `[^0-9]`, `(?-u:\b)`), inside one
/// as its ranges, or a negated nested class (`[x[^0-9]]`, which the `regex` crate
/// reads as a union). Other escapes and characters are copied.
pub(crate) fn ascii_shorthands(pattern: &str) -> Cow<'_, str> {
    if !pattern.contains('\\') {
        return Cow::Borrowed(pattern);
    }
    let mut out = String::with_capacity(pattern.len() + 16);
    // Depth of nested bracket classes at this point of the pattern.
    let mut depth = 0usize;
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(e) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let (ranges, negated) = match e {
                    'w' | 'W' => (WORD, e == 'W'),
                    'd' | 'D' => (DIGIT, e == 'D'),
                    's' | 'S' => (SPACE, e == 'S'),
                    'b' | 'B' if depth == 0 => {
                        out.push_str(if e == 'b' { r"(?-u:\b)" } else { r"(?-u:\B)" });
                        continue;
                    }
                    _ => {
                        out.push('\\');
                        out.push(e);
                        continue;
                    }
                };
                match (depth > 0, negated) {
                    (true, false) => out.push_str(ranges),
                    (_, true) => {
                        out.push_str("[^");
                        out.push_str(ranges);
                        out.push(']');
                    }
                    (false, false) => {
                        out.push('[');
                        out.push_str(ranges);
                        out.push(']');
                    }
                }
            }
            '[' => {
                out.push('[');
                depth += 1;
                // A `]` first in a class (after an optional `^`) is a literal.
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    out.push(']');
                    chars.next();
                }
            }
            ']' if depth > 0 => {
                out.push(']');
                depth -= 1;
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::ascii_shorthands;

    #[test]
    fn shorthands_become_ascii_classes() {
        assert_eq!(ascii_shorthands(r"a\w+"), r"a[0-9A-Za-z_]+");
        assert_eq!(ascii_shorthands(r"\D"), r"[^0-9]");
        assert_eq!(ascii_shorthands(r"[\s,]"), r"[\t\n\f\r\x20,]");
        assert_eq!(ascii_shorthands(r"[^\W_]"), r"[^[^0-9A-Za-z_]_]");
        assert_eq!(ascii_shorthands(r"\bx\B"), r"(?-u:\b)x(?-u:\B)");
        assert_eq!(ascii_shorthands(r"[]\d]"), r"[]0-9]");
        assert_eq!(ascii_shorthands(r"[[:alpha:]\d]"), r"[[:alpha:]0-9]");
        assert_eq!(ascii_shorthands(r"\\w\pL\."), r"\\w\pL\.");
        assert_eq!(ascii_shorthands("plain"), "plain");
    }
}
