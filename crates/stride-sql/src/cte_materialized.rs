//! `WITH x AS [NOT] MATERIALIZED (...)`, which the SQL parser reads only in its
//! PostgreSQL dialect. Before parsing, [`rewrite`] removes the words from the token
//! stream and notes where the CTE's name is; after parsing, [`apply`] sets the
//! parsed CTE's `materialized` there. The binder reads it: a NOT MATERIALIZED CTE is
//! written out at each reference (a `random()` in it draws anew for each), any other
//! is computed once for all of its references (`binder/from.rs`).

use sqlparser::ast::{CteAsMaterialized, Query, Statement, VisitMut, VisitorMut};
use sqlparser::tokenizer::{Location, Token, TokenWithSpan};
use std::ops::ControlFlow;

fn is_word(t: &Token, w: &str) -> bool {
    matches!(t, Token::Word(v) if v.quote_style.is_none() && v.value.eq_ignore_ascii_case(w))
}

/// Where each CTE written `AS [NOT] MATERIALIZED` starts (its name), and which.
pub type Marks = Vec<(Location, CteAsMaterialized)>;

/// Removes `MATERIALIZED` / `NOT MATERIALIZED` between a CTE's `AS` and its `(`.
pub fn rewrite(tokens: Vec<TokenWithSpan>) -> (Vec<TokenWithSpan>, Marks) {
    let mut marks = Marks::new();
    if !tokens.iter().any(|t| is_word(&t.token, "materialized")) {
        return (tokens, marks);
    }
    let significant = |t: &TokenWithSpan| !matches!(t.token, Token::Whitespace(_));
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        if is_word(&t.token, "as") {
            // the next significant tokens after AS
            let next: Vec<usize> = (i + 1..tokens.len())
                .filter(|&k| significant(&tokens[k]))
                .take(3)
                .collect();
            let at = |n: usize| next.get(n).map(|&k| &tokens[k].token);
            let found = match (at(0), at(1), at(2)) {
                (Some(m), Some(Token::LParen), _) if is_word(m, "materialized") => {
                    Some((CteAsMaterialized::Materialized, next[1]))
                }
                (Some(n), Some(m), Some(Token::LParen))
                    if is_word(n, "not") && is_word(m, "materialized") =>
                {
                    Some((CteAsMaterialized::NotMaterialized, next[2]))
                }
                _ => None,
            };
            if let (Some((kind, paren)), Some(name)) = (found, cte_name(&out)) {
                marks.push((name, kind));
                out.push(t.clone());
                out.push(TokenWithSpan::new(
                    Token::Whitespace(sqlparser::tokenizer::Whitespace::Space),
                    t.span,
                ));
                i = paren;
                continue;
            }
        }
        out.push(t.clone());
        i += 1;
    }
    (out, marks)
}

/// The start of the CTE name before an `AS` about to be pushed after `out`: the last
/// word, or the word before a parenthesized column list.
fn cte_name(out: &[TokenWithSpan]) -> Option<Location> {
    let mut k = out
        .iter()
        .rposition(|t| !matches!(t.token, Token::Whitespace(_)))?;
    if out[k].token == Token::RParen {
        let mut depth = 0;
        loop {
            match out[k].token {
                Token::RParen => depth += 1,
                Token::LParen => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            k = k.checked_sub(1)?;
        }
        k = out[..k]
            .iter()
            .rposition(|t| !matches!(t.token, Token::Whitespace(_)))?;
    }
    matches!(out[k].token, Token::Word(_)).then_some(out[k].span.start)
}

/// Sets `materialized` on the CTEs [`rewrite`] marked.
pub fn apply(statements: &mut [Statement], marks: &Marks) {
    struct Apply<'a>(&'a Marks);
    impl VisitorMut for Apply<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
            if let Some(with) = &mut q.with {
                for cte in &mut with.cte_tables {
                    let at = cte.alias.name.span.start;
                    if let Some((_, kind)) = self.0.iter().find(|(l, _)| *l == at) {
                        cte.materialized = Some(kind.clone());
                    }
                }
            }
            ControlFlow::Continue(())
        }
    }
    if marks.is_empty() {
        return;
    }
    for s in statements {
        let _ = s.visit(&mut Apply(marks));
    }
}
