//! `s GLOB pattern` (the function `~~~`): Unix shell wildcards, case-sensitive, over
//! the whole string. `*` matches any run of characters, `?` one character,
//! `[abc]` / `[a-z]` one of a set and `[!abc]` one not in it; `\` makes the next
//! character literal. An unterminated `[` matches nothing, as in DuckDB.

use crate::kernels::{map_rows, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    use DataType::*;
    fixed(ScalarFunction::Glob, args, &[Varchar, Varchar], Boolean)
}

/// Whether the class starting after `[` at `p[i..]` matches `c`; the index after the
/// closing `]`, or None when the class is not terminated.
fn class(p: &[char], mut i: usize, c: char) -> Option<(bool, usize)> {
    let negated = matches!(p.get(i), Some('!'));
    if negated {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let ch = *p.get(i)?;
        if ch == ']' && !first {
            return Some((matched != negated, i + 1));
        }
        first = false;
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&e| e != ']') {
            if (ch..=p[i + 2]).contains(&c) {
                matched = true;
            }
            i += 3;
        } else {
            if ch == c {
                matched = true;
            }
            i += 1;
        }
    }
}

/// Whether `s` matches `p`, by backtracking to the last `*` (linear for patterns
/// with one star, quadratic at worst).
pub fn glob_match(s: &str, p: &str) -> bool {
    let s: Vec<char> = s.chars().collect();
    let p: Vec<char> = p.chars().collect();
    let (mut si, mut pi) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi + 1, si));
                    pi += 1;
                    continue;
                }
                '?' if si < s.len() => {
                    si += 1;
                    pi += 1;
                    continue;
                }
                '[' if si < s.len() => match class(&p, pi + 1, s[si]) {
                    None => return false,
                    Some((true, next)) => {
                        si += 1;
                        pi = next;
                        continue;
                    }
                    Some((false, _)) => {}
                },
                '\\' if pi + 1 < p.len() && si < s.len() && p[pi + 1] == s[si] => {
                    si += 1;
                    pi += 2;
                    continue;
                }
                c if c != '?' && c != '[' && c != '\\' && si < s.len() && c == s[si] => {
                    si += 1;
                    pi += 1;
                    continue;
                }
                _ => {}
            }
        } else if si == s.len() {
            return true;
        }
        // mismatch: let the last star take one more character
        match star {
            Some((sp, ss)) if ss < s.len() => {
                star = Some((sp, ss + 1));
                pi = sp;
                si = ss + 1;
            }
            _ => return false,
        }
    }
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    let (s, p) = (StrSlot::new(&args[0]), StrSlot::new(&args[1]));
    map_rows(&[&args[0], &args[1]], len, DataType::Boolean, |i| {
        Ok(glob_match(s.get(i), p.get(i)))
    })
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn wildcards() {
        assert!(glob_match("abc", "a*"));
        assert!(glob_match("abc", "a?c"));
        assert!(glob_match("abc", "[a-b]bc"));
        assert!(!glob_match("abc", "[!a]bc"));
        assert!(glob_match("a*c", "a\\*c"));
        assert!(!glob_match("abx", "a\\*c"));
        assert!(!glob_match("abc", "A*"));
        assert!(glob_match("", "*"));
        assert!(!glob_match("a[c", "a[c"));
        assert!(glob_match("abcbc", "*bc"));
        assert!(glob_match("héllo", "h?llo"));
        assert!(!glob_match("abc", "ab"));
        assert!(glob_match("]a", "[]]*"));
        assert!(glob_match("axyzb", "a*b"));
        assert!(!glob_match("axyz", "a*b"));
    }
}
