//! DuckDB's prefix aliases, `SELECT total: price * qty FROM t`, which sqlparser does
//! not parse: on the token stream, before parsing, each select-list item that starts
//! with a name and a single colon becomes `expr AS name`.
//!
//! Where it sits: parsing (step 2), beside parser.rs's other token rewrites. An item
//! starts right after SELECT (or its DISTINCT / ALL) or after a comma at the
//! SELECT's own nesting depth, so the colons of lambdas (`lambda x, y: x + y`),
//! slices (`l[a:b]`) and struct literals, all nested deeper, are left alone. The
//! item ends at the next comma, closing bracket or clause keyword at that depth.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

/// Keywords that end a select list.
const ENDS_ITEM: &[Keyword] = &[
    Keyword::FROM,
    Keyword::WHERE,
    Keyword::GROUP,
    Keyword::HAVING,
    Keyword::ORDER,
    Keyword::LIMIT,
    Keyword::OFFSET,
    Keyword::QUALIFY,
    Keyword::WINDOW,
    Keyword::UNION,
    Keyword::EXCEPT,
    Keyword::INTERSECT,
    Keyword::INTO,
];

fn is_keyword(t: &Token, k: Keyword) -> bool {
    matches!(t, Token::Word(Word { keyword, quote_style: None, .. }) if *keyword == k)
}

fn opens(t: &Token) -> bool {
    matches!(t, Token::LParen | Token::LBracket | Token::LBrace)
}

fn closes(t: &Token) -> bool {
    matches!(t, Token::RParen | Token::RBracket | Token::RBrace)
}

/// The tokens with every prefix alias turned into a trailing `AS name`.
pub fn rewrite(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    if !tokens.iter().any(|t| t.token == Token::Colon) {
        return tokens;
    }
    // Positions of the significant tokens (no whitespace).
    let sig: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    let tok = |k: usize| &tokens[sig[k]].token;
    // (item start, colon, item end) in significant positions
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    let mut depth = 0usize;
    // Depth of each open SELECT list, innermost last.
    let mut lists: Vec<usize> = Vec::new();
    let mut k = 0;
    while k < sig.len() {
        let t = tok(k);
        let item_start = if is_keyword(t, Keyword::SELECT) {
            lists.push(depth);
            let mut s = k + 1;
            while s < sig.len()
                && (is_keyword(tok(s), Keyword::DISTINCT) || is_keyword(tok(s), Keyword::ALL))
            {
                s += 1;
            }
            Some(s)
        } else if *t == Token::Comma && lists.last() == Some(&depth) {
            Some(k + 1)
        } else {
            None
        };
        if opens(t) {
            depth += 1;
        } else if closes(t) {
            while lists.last().is_some_and(|&d| d >= depth) {
                lists.pop();
            }
            depth = depth.saturating_sub(1);
        } else if lists.last() == Some(&depth) && ENDS_ITEM.iter().any(|&e| is_keyword(t, e)) {
            lists.pop();
        }
        if let Some(s) = item_start {
            let named = matches!(tok_at(&tokens, &sig, s), Some(Token::Word(_)))
                && matches!(tok_at(&tokens, &sig, s + 1), Some(Token::Colon));
            if named {
                // the item's end: a comma, close or clause keyword at this depth
                let mut d = 0usize;
                let mut e = s + 2;
                while e < sig.len() {
                    let x = tok(e);
                    if d == 0
                        && (*x == Token::Comma
                            || closes(x)
                            || *x == Token::SemiColon
                            || ENDS_ITEM.iter().any(|&w| is_keyword(x, w)))
                    {
                        break;
                    }
                    if opens(x) {
                        d += 1;
                    } else if closes(x) {
                        d -= 1;
                    }
                    e += 1;
                }
                found.push((s, s + 1, e));
            }
        }
        k += 1;
    }
    if found.is_empty() {
        return tokens;
    }
    // Rebuild: drop `name :`, put ` AS name` before the item's end.
    let mut drop = vec![false; tokens.len()];
    let mut insert_before: Vec<(usize, TokenWithSpan)> = Vec::new();
    for &(s, colon, e) in &found {
        drop[sig[s]] = true;
        drop[sig[colon]] = true;
        let at = if e < sig.len() { sig[e] } else { tokens.len() };
        insert_before.push((at, tokens[sig[s]].clone()));
    }
    let n = tokens.len();
    let mut out = Vec::with_capacity(n + 5 * found.len());
    let space = || TokenWithSpan::wrap(Token::Whitespace(sqlparser::tokenizer::Whitespace::Space));
    let alias = |name: &TokenWithSpan| {
        [
            space(),
            TokenWithSpan::wrap(Token::make_keyword("AS")),
            space(),
            name.clone(),
            space(),
        ]
    };
    for (i, t) in tokens.into_iter().enumerate() {
        for (_, name) in insert_before.iter().filter(|(at, _)| *at == i) {
            out.extend(alias(name));
        }
        if !drop[i] {
            out.push(t);
        }
    }
    for (_, name) in insert_before.iter().filter(|(at, _)| *at == n) {
        out.extend(alias(name));
    }
    out
}

fn tok_at<'a>(tokens: &'a [TokenWithSpan], sig: &[usize], k: usize) -> Option<&'a Token> {
    sig.get(k).map(|&i| &tokens[i].token)
}

#[cfg(test)]
mod tests {
    use crate::parser::parse;

    fn sql(s: &str) -> String {
        parse(s).unwrap()[0].to_string()
    }

    #[test]
    fn prefix_aliases_become_as() {
        assert_eq!(
            sql("SELECT x: 1 + 1, y: 'a'"),
            "SELECT 1 + 1 AS x, 'a' AS y"
        );
        assert_eq!(
            sql("SELECT DISTINCT total: a * (b + 1) FROM t WHERE a > 0"),
            "SELECT DISTINCT a * (b + 1) AS total FROM t WHERE a > 0"
        );
        assert_eq!(
            sql("SELECT (SELECT z: 5) AS w, list_reduce(l, lambda a, b: a + b) FROM t"),
            "SELECT (SELECT 5 AS z) AS w, list_reduce(l, lambda a, b : a + b) FROM t"
        );
        assert_eq!(sql("SELECT l[1:2] FROM t"), "SELECT l[1:2] FROM t");
    }
}
