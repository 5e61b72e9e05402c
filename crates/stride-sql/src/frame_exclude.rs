//! A window frame's `EXCLUDE CURRENT ROW | GROUP | TIES | NO OTHERS`, which the SQL
//! parser has no syntax for (its `WindowFrame` has no exclusion). Before parsing,
//! [`rewrite`] removes the clause from the token stream and records it in the window
//! specification's name, the one place of a window specification that can carry it:
//! `OVER (ORDER BY x ROWS 1 PRECEDING EXCLUDE TIES)` becomes
//! `OVER (__stride_exclude_ties ORDER BY x ROWS 1 PRECEDING)`, and a named base window
//! is kept after the marker (`OVER (w ROWS ... EXCLUDE GROUP)` becomes
//! `OVER (__stride_exclude_group__w ROWS ...)`). The binder reads the marker back with
//! [`split`] (`binder/window.rs`).
//!
//! The clause is recognized only right after a frame bound (`ROW`, `PRECEDING`,
//! `FOLLOWING`), so `SELECT * EXCLUDE ties` is left alone.

use crate::plan::FrameExclude;
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

const PREFIX: &str = "__stride_exclude_";

fn is_word(t: &Token, w: &str) -> bool {
    matches!(t, Token::Word(v) if v.quote_style.is_none() && v.value.eq_ignore_ascii_case(w))
}

fn kind_name(e: FrameExclude) -> &'static str {
    match e {
        FrameExclude::NoOthers => "no_others",
        FrameExclude::CurrentRow => "current_row",
        FrameExclude::Group => "group",
        FrameExclude::Ties => "ties",
    }
}

/// Moves each frame's EXCLUDE clause into its window specification's name.
pub fn rewrite(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    if !tokens.iter().any(|t| is_word(&t.token, "exclude")) {
        return tokens;
    }
    let significant = |t: &TokenWithSpan| !matches!(t.token, Token::Whitespace(_));
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    // For each open parenthesis: its index in `out`, and whether it opens a window
    // specification (after OVER, or after AS in a WINDOW clause).
    let mut parens: Vec<(usize, bool)> = Vec::new();
    let mut in_window_clause = false;
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        let before = out.iter().rev().find(|t| significant(t)).map(|t| &t.token);
        match &t.token {
            Token::LParen => {
                let spec = before
                    .is_some_and(|b| is_word(b, "over") || (in_window_clause && is_word(b, "as")));
                parens.push((out.len(), spec));
            }
            Token::RParen => {
                parens.pop();
            }
            Token::Word(_) if is_word(&t.token, "window") => in_window_clause = true,
            Token::Word(_)
                if is_word(&t.token, "exclude")
                    && before.is_some_and(|b| {
                        is_word(b, "row") || is_word(b, "preceding") || is_word(b, "following")
                    }) =>
            {
                // the words after EXCLUDE
                let next: Vec<usize> = (i + 1..tokens.len())
                    .filter(|&k| significant(&tokens[k]))
                    .take(2)
                    .collect();
                let word =
                    |n: usize, w: &str| next.get(n).is_some_and(|&k| is_word(&tokens[k].token, w));
                let (kind, used) = if word(0, "current") && word(1, "row") {
                    (FrameExclude::CurrentRow, 2)
                } else if word(0, "no") && word(1, "others") {
                    (FrameExclude::NoOthers, 2)
                } else if word(0, "group") {
                    (FrameExclude::Group, 1)
                } else if word(0, "ties") {
                    (FrameExclude::Ties, 1)
                } else {
                    out.push(t.clone());
                    i += 1;
                    continue;
                };
                if let Some(&(open, true)) = parens.last() {
                    mark(&mut out, open, kind, t.span);
                    i = next[used - 1] + 1;
                    continue;
                }
            }
            _ => {}
        }
        out.push(t.clone());
        i += 1;
    }
    out
}

/// Names the window specification opened at `out[open]` with the exclusion marker,
/// keeping a base window's name after it.
fn mark(
    out: &mut Vec<TokenWithSpan>,
    open: usize,
    kind: FrameExclude,
    span: sqlparser::tokenizer::Span,
) {
    let first = (open + 1..out.len()).find(|&k| !matches!(out[k].token, Token::Whitespace(_)));
    let clause_words = ["partition", "order", "rows", "range", "groups"];
    let base = first.and_then(|k| match &out[k].token {
        Token::Word(w) if !clause_words.iter().any(|c| is_word(&out[k].token, c)) => {
            Some((k, w.value.clone()))
        }
        _ => None,
    });
    let name = match &base {
        Some((_, b)) => format!("{PREFIX}{}__{b}", kind_name(kind)),
        None => format!("{PREFIX}{}", kind_name(kind)),
    };
    let token = TokenWithSpan::new(
        Token::Word(Word {
            value: name,
            quote_style: Some('"'),
            keyword: sqlparser::keywords::Keyword::NoKeyword,
        }),
        span,
    );
    match base {
        Some((k, _)) => out[k] = token,
        None => {
            out.insert(open + 1, token.clone());
            out.insert(
                open + 2,
                TokenWithSpan::new(
                    Token::Whitespace(sqlparser::tokenizer::Whitespace::Space),
                    span,
                ),
            );
        }
    }
}

/// A window specification's name read back: the base window it names (if any) and
/// the exclusion recorded by [`rewrite`] (`NoOthers` when none).
pub fn split(name: &str) -> (Option<String>, FrameExclude) {
    let Some(rest) = name.strip_prefix(PREFIX) else {
        return (Some(name.to_string()), FrameExclude::NoOthers);
    };
    let (kind, base) = match rest.split_once("__") {
        Some((k, b)) => (k, Some(b.to_string())),
        None => (rest, None),
    };
    let kind = [
        FrameExclude::NoOthers,
        FrameExclude::CurrentRow,
        FrameExclude::Group,
        FrameExclude::Ties,
    ]
    .into_iter()
    .find(|k| kind_name(*k) == kind)
    .unwrap_or(FrameExclude::NoOthers);
    (base, kind)
}

/// SQL text printed from a rewritten statement with its EXCLUDE clauses put back
/// where they were written (column names of window calls).
pub fn restore(text: &str) -> String {
    let mut out = text.to_string();
    while let Some(at) = out.find(&format!("\"{PREFIX}")) {
        let Some(len) = out[at + 1..].find('"') else {
            break;
        };
        let name = out[at + 1..at + 1 + len].to_string();
        let (base, kind) = split(&name);
        // the specification's closing parenthesis
        let mut depth = 0i32;
        let mut close = None;
        for (i, c) in out[at..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    close = Some(at + i);
                    break;
                }
                ')' => depth -= 1,
                _ => {}
            }
        }
        let Some(close) = close else { break };
        let clause = match kind {
            FrameExclude::NoOthers => " EXCLUDE NO OTHERS",
            FrameExclude::CurrentRow => " EXCLUDE CURRENT ROW",
            FrameExclude::Group => " EXCLUDE GROUP",
            FrameExclude::Ties => " EXCLUDE TIES",
        };
        out.insert_str(close, clause);
        let marker_end = at + 2 + len;
        let replacement = match base {
            Some(b) => b,
            None => String::new(),
        };
        // drop the space after a removed marker
        let end = if replacement.is_empty() && out[marker_end..].starts_with(' ') {
            marker_end + 1
        } else {
            marker_end
        };
        out.replace_range(at..end, &replacement);
    }
    out
}

/// The name that records `kind` alone (a specification without a base window).
pub fn marker(kind: FrameExclude) -> String {
    format!("{PREFIX}{}", kind_name(kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_round_trip() {
        assert_eq!(
            restore("sum(x) OVER (\"__stride_exclude_ties\" ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)"),
            "sum(x) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE TIES)"
        );
        assert_eq!(
            restore("f() OVER (\"__stride_exclude_group__w\" ROWS 1 PRECEDING)"),
            "f() OVER (w ROWS 1 PRECEDING EXCLUDE GROUP)"
        );
        assert_eq!(split("w"), (Some("w".into()), FrameExclude::NoOthers));
        assert_eq!(
            split(&marker(FrameExclude::CurrentRow)),
            (None, FrameExclude::CurrentRow)
        );
    }
}
