//! DuckDB's MAP type with a nested key or value type (`MAP(VARCHAR, INTEGER[])`,
//! `MAP(INT, STRUCT(a INT))`, `MAP(INT, MAP(INT, INT))`). The SQL parser reads
//! `MAP(K, V)` only as a type name with modifiers, which must be single words. Before
//! parsing, [`rewrite`] turns the arguments of such a MAP into quoted modifiers,
//! `MAP('VARCHAR', 'INTEGER[]')`; the binder parses each back as a type
//! (`binder/types.rs`, through [`crate::parser::parse_data_type`], which rewrites
//! nested MAPs the same way).
//!
//! A `MAP(` is taken for a type only where a type goes: after `::`, `AS` or `TYPE`,
//! or after a column or field name (a word that is not a keyword an expression
//! follows). Its arguments must be two, each starting with a word, and one of them
//! more than a word (single words already parse). So the function calls `map(k, v)`
//! and `map([1], [2])` are left alone.

use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Keywords an expression may follow: a `map(` after them is a function call.
const BEFORE_EXPRESSIONS: &[&str] = &[
    "select",
    "distinct",
    "all",
    "where",
    "and",
    "or",
    "not",
    "case",
    "when",
    "then",
    "else",
    "on",
    "by",
    "having",
    "qualify",
    "returning",
    "in",
    "is",
    "like",
    "ilike",
    "glob",
    "similar",
    "between",
    "exists",
    "any",
    "some",
    "limit",
    "offset",
    "default",
    "check",
    "from",
    "join",
    "lateral",
    "values",
    "set",
    "return",
    "using",
    "macro",
];

fn word(t: &Token) -> Option<&str> {
    match t {
        Token::Word(w) if w.quote_style.is_none() => Some(&w.value),
        _ => None,
    }
}

fn significant(t: &TokenWithSpan) -> bool {
    !matches!(t.token, Token::Whitespace(_))
}

/// Whether a `MAP` after `before` (the previous significant token) names a type.
fn type_position(before: Option<&Token>) -> bool {
    match before {
        Some(Token::DoubleColon) => true,
        Some(Token::Word(w)) if w.quote_style.is_some() => true,
        Some(t) => word(t).is_some_and(|w| {
            w.eq_ignore_ascii_case("as")
                || w.eq_ignore_ascii_case("type")
                || !BEFORE_EXPRESSIONS.iter().any(|k| w.eq_ignore_ascii_case(k))
        }),
        None => false,
    }
}

/// The arguments of the parenthesized list opening at `open` (an LParen), split at
/// its top-level commas, and the index of its closing parenthesis.
fn arguments(tokens: &[TokenWithSpan], open: usize) -> Option<(Vec<&[TokenWithSpan]>, usize)> {
    let mut depth = 0usize;
    let mut args = Vec::new();
    let mut start = open + 1;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        match t.token {
            Token::LParen | Token::LBracket => depth += 1,
            Token::RParen | Token::RBracket => {
                depth -= 1;
                if depth == 0 {
                    args.push(&tokens[start..i]);
                    return Some((args, i));
                }
            }
            Token::Comma if depth == 1 => {
                args.push(&tokens[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    None
}

/// The text of `tokens`, trimmed.
fn text(tokens: &[TokenWithSpan]) -> String {
    tokens
        .iter()
        .map(|t| t.token.to_string())
        .collect::<String>()
        .trim()
        .to_string()
}

/// Quotes the arguments of every MAP type with a nested key or value type.
pub fn rewrite(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    if !tokens
        .iter()
        .any(|t| word(&t.token).is_some_and(|w| w.eq_ignore_ascii_case("map")))
    {
        return tokens;
    }
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        let is_map = word(&t.token).is_some_and(|w| w.eq_ignore_ascii_case("map"));
        let open = (i + 1..tokens.len()).find(|&j| significant(&tokens[j]));
        let before = out.iter().rev().find(|t| significant(t)).map(|t| &t.token);
        if is_map && type_position(before) {
            if let Some(open) = open.filter(|&j| tokens[j].token == Token::LParen) {
                if let Some((args, close)) = arguments(&tokens, open) {
                    let words_first = args.iter().all(|a| {
                        a.iter()
                            .find(|t| significant(t))
                            .is_some_and(|t| matches!(t.token, Token::Word(_)))
                    });
                    let nested = args
                        .iter()
                        .any(|a| a.iter().filter(|t| significant(t)).count() > 1);
                    if args.len() == 2 && words_first && nested {
                        out.push(t.clone());
                        out.push(tokens[open].clone());
                        for (k, a) in args.iter().enumerate() {
                            if k > 0 {
                                out.push(TokenWithSpan::wrap(Token::Comma));
                            }
                            out.push(TokenWithSpan::wrap(Token::SingleQuotedString(text(a))));
                        }
                        out.push(tokens[close].clone());
                        i = close + 1;
                        continue;
                    }
                }
            }
        }
        out.push(t.clone());
        i += 1;
    }
    out
}
