//! Step 1 of a query's life: SQL text to `sqlparser` statements, using the DuckDB
//! dialect. Parser errors become [`Error`]s of kind Parse that keep the parser's line
//! and column. Nesting is bounded, so hostile input fails cleanly instead of
//! exhausting the stack.
//!
//! Two pieces of PostgreSQL syntax that clients such as psql send are accepted on top
//! of DuckDB's: escape strings (`E'a\nb'`) and operators spelled with their schema
//! (`a OPERATOR(pg_catalog.~) b`, which is `a ~ b`). Both are resolved on the token
//! stream before parsing, as are `?` parameters (DB-API's qmark style, which DuckDB
//! accepts): each statement's `?`s become `$1`, `$2`, ... from left to right. So are
//! COPY's DuckDB options the parser has no syntax for (`COMPRESSION zstd`,
//! `ROW_GROUP_SIZE 100000`, `PARTITION_BY (a, b)`, `OVERWRITE_OR_IGNORE`): each
//! becomes a FORMAT option naming it
//! (`FORMAT "compression=zstd"`), which the binder reads back (`binder/csv.rs`).
//! MAP types with nested key or value types get their arguments quoted
//! (`map_types.rs`). `WITH x AS [NOT] MATERIALIZED (...)`, which the parser reads only in its
//! PostgreSQL dialect, is taken out before parsing and put back into the parsed
//! CTE (`cte_materialized.rs`). Constructs the parser gets wrong are parsed here:
//! `x IN ((SELECT 1), 2)`, a list whose first element is a parenthesized subquery
//! (the parser takes it for `x IN (SELECT ...)` and fails at the comma), and the
//! operators `||`, `->`, `->>` and `|`, at DuckDB's precedence (`StrideDialect`).

use sqlparser::ast::{Expr, Statement};
use sqlparser::dialect::{Dialect, DuckDbDialect};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer, Word};
use std::any::TypeId;
use stride_common::{Error, Result};

/// Deepest nesting of expressions/subqueries the parser accepts.
pub const MAX_NESTING: usize = 1000;

/// Parses `sql`. Nesting up to [`MAX_NESTING`] levels needs a deep stack (tens of MB
/// in debug builds); the facade calls this on its planner thread.
pub fn parse(sql: &str) -> Result<Vec<Statement>> {
    let result = Tokenizer::new(&StrideDialect, sql)
        .tokenize_with_location()
        .map_err(ParserError::from)
        .and_then(|tokens| {
            check_set_operations(&tokens)?;
            let tokens = resolve_sample_percent(resolve_pg_tokens(tokens)?)?;
            let tokens = crate::prefix_alias::rewrite(resolve_summarize(tokens));
            let tokens = crate::frame_exclude::rewrite(tokens);
            let tokens = crate::map_types::rewrite(tokens);
            let (tokens, materialized) = crate::cte_materialized::rewrite(tokens);
            let mut statements = Parser::new(&StrideDialect)
                .with_recursion_limit(MAX_NESTING)
                .with_tokens_with_locations(tokens)
                .parse_statements()?;
            crate::cte_materialized::apply(&mut statements, &materialized);
            Ok(statements)
        });
    result.map_err(|e| match e {
        ParserError::TokenizerError(m) | ParserError::ParserError(m) => {
            Error::parse(format!("syntax error: {m}"))
        }
        ParserError::RecursionLimitExceeded => Error::parse(format!(
            "statement is nested too deeply (more than {MAX_NESTING} levels)"
        )),
    })
}

/// Most set operations (UNION, INTERSECT, EXCEPT) one statement may hold. The parser
/// reads a chain of them in a loop, so [`MAX_NESTING`] does not bound it, but the
/// statement's tree is as deep as the chain, and binding, planning, running and
/// dropping it recurse once per operation: 70,000 `UNION ALL`s overflowed the stack
/// and aborted the process.
pub const MAX_SET_OPERATIONS: usize = 10_000;

/// Refuses a statement with more than [`MAX_SET_OPERATIONS`] set operations, counted
/// on its tokens, before anything deep is built.
fn check_set_operations(tokens: &[TokenWithSpan]) -> std::result::Result<(), ParserError> {
    let mut count = 0usize;
    for t in tokens {
        match &t.token {
            Token::SemiColon => count = 0,
            Token::Word(w)
                if matches!(
                    w.keyword,
                    Keyword::UNION | Keyword::INTERSECT | Keyword::EXCEPT
                ) =>
            {
                count += 1;
                if count > MAX_SET_OPERATIONS {
                    return Err(ParserError::ParserError(format!(
                        "a statement holds more than {MAX_SET_OPERATIONS} set operations (UNION, INTERSECT, EXCEPT); load the rows into a table, or use VALUES, instead"
                    )));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Parses a type written as text (a MAP's key or value type, `map_types.rs`), nested
/// MAP types included.
pub fn parse_data_type(text: &str) -> std::result::Result<sqlparser::ast::DataType, ParserError> {
    let tokens = Tokenizer::new(&StrideDialect, text).tokenize_with_location()?;
    Parser::new(&StrideDialect)
        .with_recursion_limit(MAX_NESTING)
        .with_tokens_with_locations(crate::map_types::rewrite(tokens))
        .parse_data_type()
}

/// Parses one expression (the bodies of built-in macros).
pub fn parse_expr(sql: &str) -> Result<Expr> {
    Parser::new(&StrideDialect)
        .try_with_sql(sql)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| Error::parse(format!("syntax error: {e}")))
}

/// Escape strings become plain strings (the tokenizer already replaced their escapes),
/// and `OPERATOR(pg_catalog.op)` becomes `op`. Operators of other schemas do not exist
/// in stride and are left for the parser to refuse.
fn resolve_pg_tokens(
    mut tokens: Vec<TokenWithSpan>,
) -> std::result::Result<Vec<TokenWithSpan>, ParserError> {
    // A token passed on as it is is moved out (only tokens ahead are looked at).
    let take = |tokens: &mut Vec<TokenWithSpan>, i: usize| {
        let placeholder = TokenWithSpan::new(Token::EOF, tokens[i].span);
        std::mem::replace(&mut tokens[i], placeholder)
    };
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    let mut question_marks = 0;
    // Whether the statement being read is a COPY.
    let mut in_copy = false;
    while i < tokens.len() {
        let t = &tokens[i];
        if let Token::Word(w) = &t.token {
            let first = out
                .iter()
                .rev()
                .find(|t| !matches!(t.token, Token::Whitespace(_)))
                .is_none_or(|t| t.token == Token::SemiColon);
            if first {
                in_copy = w.quote_style.is_none() && w.value.eq_ignore_ascii_case("copy");
            }
        }
        if in_copy {
            if let Some((option, next)) = duckdb_copy_option(&tokens, i, &out) {
                out.push(TokenWithSpan::new(Token::make_keyword("FORMAT"), t.span));
                out.push(TokenWithSpan::new(
                    Token::Whitespace(sqlparser::tokenizer::Whitespace::Space),
                    t.span,
                ));
                out.push(TokenWithSpan::new(
                    Token::Word(Word {
                        value: option,
                        quote_style: Some('"'),
                        keyword: Keyword::NoKeyword,
                    }),
                    t.span,
                ));
                i = next;
                continue;
            }
        }
        match &t.token {
            Token::Placeholder(p) if p == "?" => {
                question_marks += 1;
                let numbered = Token::Placeholder(format!("${question_marks}"));
                out.push(TokenWithSpan::new(numbered, t.span));
                i += 1;
            }
            Token::SemiColon => {
                question_marks = 0;
                out.push(take(&mut tokens, i));
                i += 1;
            }
            Token::EscapedStringLiteral(s) => {
                out.push(TokenWithSpan::new(
                    Token::SingleQuotedString(s.clone()),
                    t.span,
                ));
                i += 1;
            }
            Token::Word(w)
                if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("operator") =>
            {
                match operator_call(&tokens, i + 1) {
                    Some((op, next)) => {
                        out.push(TokenWithSpan::new(op, t.span));
                        i = next;
                    }
                    None => {
                        out.push(take(&mut tokens, i));
                        i += 1;
                    }
                }
            }
            _ => {
                out.push(take(&mut tokens, i));
                i += 1;
            }
        }
    }
    Ok(out)
}

/// DuckDB's `TABLESAMPLE 10%` and `TABLESAMPLE reservoir(10%)` become `10 PERCENT`
/// (the parser reads `%` only as the modulo operator), and the method `reservoir`,
/// which the parser does not know, becomes the method `ROW`, which the binder reads
/// as reservoir sampling (`binder/sample.rs`). DuckDB's `USING SAMPLE`
/// clause, which samples the whole FROM clause, is refused with a pointer to
/// `TABLESAMPLE`.
fn resolve_sample_percent(
    mut tokens: Vec<TokenWithSpan>,
) -> std::result::Result<Vec<TokenWithSpan>, ParserError> {
    let is_word = |t: &Token, w: &str| matches!(t, Token::Word(v) if v.quote_style.is_none() && v.value.eq_ignore_ascii_case(w));
    let significant: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    let at = |k: usize| significant.get(k).map(|&i| &tokens[i].token);
    let mut percent = Vec::new();
    let mut reservoir = Vec::new();
    for k in 0..significant.len() {
        let t = &tokens[significant[k]].token;
        if is_word(t, "using") && at(k + 1).is_some_and(|t| is_word(t, "sample")) {
            let size = matches!(at(k + 2), Some(Token::Number(..)))
                || (matches!(at(k + 2), Some(Token::Word(_)))
                    && matches!(at(k + 3), Some(Token::LParen)));
            if size {
                return Err(ParserError::ParserError(
                    "USING SAMPLE is not supported; sample a table with TABLESAMPLE after it instead (FROM t TABLESAMPLE 10% or FROM t TABLESAMPLE 5 ROWS)".into(),
                ));
            }
        }
        if is_word(t, "reservoir")
            && k >= 1
            && at(k - 1).is_some_and(|t| is_word(t, "tablesample"))
            && at(k + 1) == Some(&Token::LParen)
        {
            reservoir.push(significant[k]);
        }
        if *t != Token::Mod || k < 2 || !matches!(at(k - 1), Some(Token::Number(..))) {
            continue;
        }
        // `TABLESAMPLE n%` or `TABLESAMPLE method(n%)`.
        let sample = |j: usize| at(j).is_some_and(|t| is_word(t, "tablesample"));
        if sample(k - 2) || (k >= 4 && at(k - 2) == Some(&Token::LParen) && sample(k - 4)) {
            percent.push(significant[k]);
        }
    }
    for i in percent {
        tokens[i].token = Token::make_keyword("PERCENT");
    }
    for i in reservoir {
        tokens[i].token = Token::make_keyword("ROW");
    }
    Ok(tokens)
}

/// The table function `SUMMARIZE` is rewritten to (`binder/summarize.rs`).
pub const SUMMARIZE_FUNCTION: &str = "summarize";

/// DuckDB's `SUMMARIZE table` and `SUMMARIZE query`, as a statement or a
/// parenthesized subquery (`FROM (SUMMARIZE t)`), become `SELECT * FROM
/// summarize((query))` on the token stream, a table name `t` becoming the query
/// `SELECT * FROM t` (and a quoted file name `FROM 'x.csv'`) and any other query
/// `q` becoming `SELECT * FROM (q)`. The summary runs to the
/// end of the statement or to the parenthesis that closes the one it stands in. The
/// word counts only at the start of a statement or right after `(`, followed by a
/// name, a string or a query.
fn resolve_summarize(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let significant = |t: &TokenWithSpan| !matches!(t.token, Token::Whitespace(_));
    let is_word = |t: &Token, w: &str| matches!(t, Token::Word(v) if v.quote_style.is_none() && v.value.eq_ignore_ascii_case(w));
    if !tokens.iter().any(|t| is_word(&t.token, "summarize")) {
        return tokens;
    }
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len() + 16);
    // The parenthesis depth at which each open SUMMARIZE started, and how many
    // parentheses close it.
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut depth = 0usize;
    let close = |out: &mut Vec<TokenWithSpan>, (_, n): (usize, usize), span| {
        for _ in 0..n {
            out.push(TokenWithSpan::new(Token::RParen, span));
        }
    };
    for (i, t) in tokens.iter().enumerate() {
        let span = t.span;
        match &t.token {
            Token::Word(_) if is_word(&t.token, "summarize") => {
                let before = out.iter().rev().find(|t| significant(t)).map(|t| &t.token);
                let after = tokens[i + 1..]
                    .iter()
                    .find(|t| significant(t))
                    .map(|t| &t.token);
                let at_start = matches!(before, None | Some(Token::SemiColon | Token::LParen));
                let query = matches!(after, Some(Token::LParen))
                    || ["select", "from", "with", "values"]
                        .iter()
                        .any(|w| after.is_some_and(|a| is_word(a, w)));
                let name = matches!(after, Some(Token::Word(_) | Token::SingleQuotedString(_)));
                if at_start && (query || name) {
                    // A query is read as a derived table (`SELECT * FROM (query)`), so
                    // that every form of query (`FROM t SELECT ...`, VALUES) fits.
                    open.push((depth, if query { 3 } else { 2 }));
                    let words = ["SELECT", "*", "FROM", SUMMARIZE_FUNCTION];
                    for w in words {
                        out.push(TokenWithSpan::new(
                            if w == "*" {
                                Token::Mul
                            } else {
                                Token::make_word(w, None)
                            },
                            span,
                        ));
                        out.push(TokenWithSpan::new(
                            Token::Whitespace(sqlparser::tokenizer::Whitespace::Space),
                            span,
                        ));
                    }
                    out.push(TokenWithSpan::new(Token::LParen, span));
                    out.push(TokenWithSpan::new(Token::LParen, span));
                    {
                        for w in ["SELECT", "*", "FROM"] {
                            out.push(TokenWithSpan::new(
                                if w == "*" {
                                    Token::Mul
                                } else {
                                    Token::make_keyword(w)
                                },
                                span,
                            ));
                            out.push(TokenWithSpan::new(
                                Token::Whitespace(sqlparser::tokenizer::Whitespace::Space),
                                span,
                            ));
                        }
                        if query {
                            out.push(TokenWithSpan::new(Token::LParen, span));
                        }
                    }
                    continue;
                }
                out.push(t.clone());
            }
            Token::LParen => {
                depth += 1;
                out.push(t.clone());
            }
            Token::RParen => {
                while let Some(&top) = open.last().filter(|(d, _)| *d == depth) {
                    open.pop();
                    close(&mut out, top, span);
                }
                depth = depth.saturating_sub(1);
                out.push(t.clone());
            }
            Token::SemiColon | Token::EOF => {
                while let Some(top) = open.pop() {
                    close(&mut out, top, span);
                }
                depth = 0;
                out.push(t.clone());
            }
            _ => out.push(t.clone()),
        }
    }
    let end = out
        .last()
        .map(|t| t.span)
        .unwrap_or(sqlparser::tokenizer::Span::empty());
    while let Some(top) = open.pop() {
        close(&mut out, top, end);
    }
    out
}

/// COPY options of DuckDB's that the parser does not know.
pub const DUCKDB_COPY_OPTIONS: [&str; 6] = [
    "compression",
    "compression_level",
    "row_group_size",
    "partition_by",
    "overwrite_or_ignore",
    "overwrite",
];

/// Those of [`DUCKDB_COPY_OPTIONS`] that may stand alone, meaning true.
const DUCKDB_COPY_FLAGS: [&str; 2] = ["overwrite_or_ignore", "overwrite"];

/// At `tokens[i]`, inside a COPY's option list (after `(` or `,`): one of
/// [`DUCKDB_COPY_OPTIONS`] and its value, as `name=value`, and the position after it.
fn duckdb_copy_option(
    tokens: &[TokenWithSpan],
    i: usize,
    out: &[TokenWithSpan],
) -> Option<(String, usize)> {
    let Token::Word(w) = &tokens[i].token else {
        return None;
    };
    let name = w.value.to_ascii_lowercase();
    if w.quote_style.is_some() || !DUCKDB_COPY_OPTIONS.contains(&name.as_str()) {
        return None;
    }
    let before = out
        .iter()
        .rev()
        .find(|t| !matches!(t.token, Token::Whitespace(_)))?;
    if !matches!(before.token, Token::LParen | Token::Comma) {
        return None;
    }
    let mut j = i + 1;
    while matches!(tokens.get(j)?.token, Token::Whitespace(_)) {
        j += 1;
    }
    let value = match &tokens[j].token {
        Token::Comma | Token::RParen if DUCKDB_COPY_FLAGS.contains(&name.as_str()) => {
            return Some((format!("{name}=true"), j));
        }
        // A list of column names: `PARTITION_BY (a, b)`, kept as `a,b`.
        Token::LParen => {
            let mut names = Vec::new();
            loop {
                j += 1;
                match &tokens.get(j)?.token {
                    Token::Whitespace(_) | Token::Comma => {}
                    Token::Word(v) => names.push(v.value.clone()),
                    Token::RParen => break,
                    _ => return None,
                }
            }
            names.join(",")
        }
        Token::Word(v) => v.value.clone(),
        Token::Number(n, _) => n.clone(),
        Token::SingleQuotedString(s) => s.clone(),
        _ => return None,
    };
    Some((format!("{name}={value}"), j + 1))
}

/// After `OPERATOR`: `( [pg_catalog .] op )`. Returns the operator token and the
/// position after the closing parenthesis.
fn operator_call(tokens: &[TokenWithSpan], mut i: usize) -> Option<(Token, usize)> {
    let next = |i: &mut usize| -> Option<Token> {
        while let Some(t) = tokens.get(*i) {
            *i += 1;
            if !matches!(t.token, Token::Whitespace(_)) {
                return Some(t.token.clone());
            }
        }
        None
    };
    if next(&mut i)? != Token::LParen {
        return None;
    }
    let mut op = next(&mut i)?;
    if let Token::Word(w) = &op {
        if !w.value.eq_ignore_ascii_case("pg_catalog") || next(&mut i)? != Token::Period {
            return None;
        }
        op = next(&mut i)?;
    }
    if matches!(
        op,
        Token::Word(_) | Token::LParen | Token::RParen | Token::EOF
    ) {
        return None;
    }
    if next(&mut i)? != Token::RParen {
        return None;
    }
    Some((op, i))
}

/// DuckDB's dialect, with PostgreSQL's escape strings (`E'...'`) for the tokenizer and
/// IN lists that start with a subquery for the parser. It answers to DuckDB's name, so
/// DuckDB-only syntax (such as `//`) stays as it is.
#[derive(Debug)]
struct StrideDialect;

macro_rules! as_duckdb {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        $(fn $name(&self, $($arg: $ty),*) -> $ret {
            DuckDbDialect {}.$name($($arg),*)
        })*
    };
}

impl Dialect for StrideDialect {
    fn dialect(&self) -> TypeId {
        TypeId::of::<DuckDbDialect>()
    }

    /// `CHECKPOINT [database]` and `FORCE CHECKPOINT [database]` (DuckDB's), which
    /// the parser does not know, become `PRAGMA checkpoint`; DuckDB's PIVOT and
    /// UNPIVOT statements become queries (`pivot_syntax.rs`); `SET VARIABLE` and
    /// `RESET VARIABLE` become marked assignments (`variable_syntax.rs`).
    fn parse_statement(
        &self,
        parser: &mut Parser,
    ) -> Option<std::result::Result<Statement, ParserError>> {
        let word = |n: usize| match &parser.peek_nth_token_ref(n).token {
            Token::Word(w) => Some(w.value.to_ascii_uppercase()),
            _ => None,
        };
        match word(0).as_deref() {
            Some("INSERT") => return parse_insert_by(parser),
            Some("CREATE") => return parse_create_function(parser),
            Some("DROP") => return parse_drop_macro(parser),
            _ => {}
        }
        let third_is_word = matches!(parser.peek_nth_token_ref(2).token, Token::Word(_));
        let skip = match (word(0).as_deref(), word(1).as_deref()) {
            (Some(w @ ("SET" | "RESET")), Some("VARIABLE")) if third_is_word => {
                let reset = w == "RESET";
                parser.next_token();
                parser.next_token();
                return Some(crate::variable_syntax::parse(parser, reset));
            }
            (Some("CHECKPOINT"), _) => 1,
            (Some("FORCE"), Some("CHECKPOINT")) => 2,
            (Some("PIVOT" | "PIVOT_WIDER"), _) => {
                parser.next_token();
                return Some(crate::pivot_syntax::parse_pivot(parser, self));
            }
            (Some("UNPIVOT" | "PIVOT_LONGER"), _) => {
                parser.next_token();
                return Some(crate::pivot_syntax::parse_unpivot(parser, self));
            }
            _ => return None,
        };
        for _ in 0..skip {
            parser.next_token();
        }
        // The only database is the one open: its name may follow.
        if let Token::Word(_) = parser.peek_token_ref().token {
            parser.next_token();
        }
        Some(Ok(Statement::Pragma {
            name: sqlparser::ast::ObjectName::from(vec![sqlparser::ast::Ident::new("checkpoint")]),
            value: None,
            is_eq: false,
        }))
    }

    /// DuckDB's prefix operators `@x` (absolute value) and `~x` (bitwise NOT), which
    /// take what follows up to a comparison (`@ 2 - 3` is `abs(2 - 3)`), and
    /// `TRIM([LEADING | TRAILING | BOTH] FROM s)`, which names no characters (the
    /// parser expects an expression before FROM).
    fn parse_prefix(&self, parser: &mut Parser) -> Option<std::result::Result<Expr, ParserError>> {
        use sqlparser::ast::UnaryOperator;
        use sqlparser::dialect::Precedence;
        let op = match &parser.peek_token_ref().token {
            // A number or string literal is a value: the parser would first try it as
            // a type name (for `DATE '…'`), and format the error of that failure,
            // once for every literal (a tenth of a 1,000-row INSERT's time).
            Token::Number(..) | Token::SingleQuotedString(_) => {
                return Some(parser.parse_value().map(Expr::Value))
            }
            Token::AtSign => UnaryOperator::PGAbs,
            Token::Tilde => UnaryOperator::BitwiseNot,
            Token::Word(w) if w.keyword == Keyword::TRIM => return parse_trim_from(parser),
            _ => return None,
        };
        parser.next_token();
        let precedence = self.prec_value(Precedence::PgOther);
        Some(parser.parse_subexpr(precedence).map(|e| Expr::UnaryOp {
            op,
            expr: Box::new(e),
        }))
    }

    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        _precedence: u8,
    ) -> Option<std::result::Result<Expr, ParserError>> {
        // DuckDB's `a && b` on lists (list_has_any): the parser reads `&&` only for
        // PostgreSQL's dialect
        if parser.peek_token_ref().token == Token::Overlap {
            parser.next_token();
            let precedence = self.prec_value(sqlparser::dialect::Precedence::Pipe);
            return Some(
                parser
                    .parse_subexpr(precedence)
                    .map(|right| Expr::BinaryOp {
                        left: Box::new(expr.clone()),
                        op: sqlparser::ast::BinaryOperator::PGOverlap,
                        right: Box::new(right),
                    }),
            );
        }
        // `s ^@ prefix` (starts_with), which the parser reads only for PostgreSQL
        if parser.peek_token_ref().token == Token::CaretAt {
            parser.next_token();
            let precedence = self.prec_value(sqlparser::dialect::Precedence::PgOther);
            return Some(
                parser
                    .parse_subexpr(precedence)
                    .map(|right| call_expr("^@", vec![expr.clone(), right])),
            );
        }
        // `doc -> path`: the path takes in what `||` joins to it (DuckDB reads
        // `j->'a' || 'b'` as `j->('a' || 'b')`); another arrow ends it, so
        // `j->1->0` is `(j->1)->0`.
        if parser.peek_token_ref().token == Token::Arrow {
            parser.next_token();
            return Some(parse_arrow_path(self, parser).map(|path| Expr::BinaryOp {
                left: Box::new(expr.clone()),
                op: sqlparser::ast::BinaryOperator::Arrow,
                right: Box::new(path),
            }));
        }
        if let Some(e) = duckdb_operator(self, parser, expr) {
            return Some(e);
        }
        let keyword = |n: usize, k: Keyword| matches!(&parser.peek_nth_token_ref(n).token, Token::Word(Word { keyword, .. }) if *keyword == k);
        let paren = |n: usize| parser.peek_nth_token_ref(n).token == Token::LParen;
        // Only `[NOT] IN ((`: every other form parses as DuckDB's parser has it.
        let negated = if keyword(0, Keyword::IN) && paren(1) && paren(2) {
            false
        } else if keyword(0, Keyword::NOT) && keyword(1, Keyword::IN) && paren(2) && paren(3) {
            true
        } else {
            return None;
        };
        Some(parse_in(parser, expr.clone(), negated))
    }

    /// DuckDB's operators the parser does not know: `x GLOB p`, `x NOT GLOB p`,
    /// `x ~~~ p` and the postfix factorial `n!`, and `^@`, `||`, `->`, `->>` and `|`
    /// with DuckDB's precedence;
    /// `**` is two `*` tokens, which the default precedence already handles.
    fn get_next_precedence(&self, parser: &Parser) -> Option<std::result::Result<u8, ParserError>> {
        use sqlparser::dialect::Precedence;
        let glob = |n: usize| {
            matches!(
                &parser.peek_nth_token_ref(n).token,
                Token::Word(Word {
                    keyword: Keyword::GLOB,
                    ..
                })
            )
        };
        let not = matches!(
            &parser.peek_nth_token_ref(0).token,
            Token::Word(Word {
                keyword: Keyword::NOT,
                ..
            })
        );
        if glob(0) || (not && glob(1)) {
            return Some(Ok(self.prec_value(Precedence::Like)));
        }
        if parser.peek_token_ref().token == Token::ExclamationMark {
            return Some(Ok(self.prec_value(Precedence::MulDivModOp) + 5));
        }
        match parser.peek_token_ref().token {
            // DuckDB's ordinary operators, one level below arithmetic and bitwise
            // operators and above comparisons, left to right: `a || b ^@ c` tests
            // `a || b`, `j->>'a' || 'b'` is `(j->>'a') || 'b'` and `'a' || 1 + 2`
            // is `'a' || (1 + 2)` (the parser binds `||` as tightly as `*` and
            // `^@` as `::`). `->` is one of them as seen from its left.
            Token::CaretAt | Token::StringConcat | Token::LongArrow | Token::Arrow => {
                return Some(Ok(self.prec_value(Precedence::PgOther)))
            }
            // `|` shares the level of `<<` and `>>` in DuckDB, above `||`
            Token::Pipe => return Some(Ok(self.prec_value(Precedence::Caret))),
            _ => {}
        }
        if is_glob_operator(parser) {
            return Some(Ok(self.prec_value(Precedence::Like)));
        }
        None
    }

    fn supports_string_escape_constant(&self) -> bool {
        true
    }

    /// PostgreSQL's (and DuckDB's) order: IN, LIKE, ILIKE, SIMILAR TO and BETWEEN
    /// bind more tightly than the comparisons (`a = b IN (...)` is `a = (b IN
    /// (...))`, `'a' LIKE 'a' = true` is `('a' LIKE 'a') = true`), which bind more
    /// tightly than IS. The parser gave IN and BETWEEN the comparisons' level, so
    /// `2 IN (1, 2) = 3 IN (3)` read as `((2 IN (1, 2)) = 3) IN (3)`.
    fn prec_value(&self, prec: sqlparser::dialect::Precedence) -> u8 {
        use sqlparser::dialect::Precedence;
        match prec {
            Precedence::Eq => 19,
            Precedence::Like | Precedence::Between => 20,
            other => DuckDbDialect {}.prec_value(other),
        }
    }

    /// DuckDB's `* RENAME (column AS name)`.
    fn supports_select_wildcard_rename(&self) -> bool {
        true
    }

    /// DuckDB's `first_value(x IGNORE NULLS) OVER (...)`.
    fn supports_window_function_null_treatment_arg(&self) -> bool {
        true
    }

    as_duckdb! {
        supports_trailing_commas() -> bool;
        is_identifier_start(ch: char) -> bool;
        is_identifier_part(ch: char) -> bool;
        identifier_quote_style(identifier: &str) -> Option<char>;
        supports_filter_during_aggregation() -> bool;
        supports_group_by_expr() -> bool;
        supports_bitwise_shift_operators() -> bool;
        supports_named_fn_args_with_eq_operator() -> bool;
        supports_named_fn_args_with_assignment_operator() -> bool;
        supports_dictionary_syntax() -> bool;
        support_map_literal_syntax() -> bool;
        supports_lambda_functions() -> bool;
        allow_extract_single_quotes() -> bool;
        supports_explain_with_utility_options() -> bool;
        supports_load_extension() -> bool;
        supports_array_typedef_with_brackets() -> bool;
        supports_from_first_select() -> bool;
        supports_order_by_all() -> bool;
        supports_select_wildcard_exclude() -> bool;
        supports_select_wildcard_replace() -> bool;
        supports_notnull_operator() -> bool;
        supports_install() -> bool;
        supports_detach() -> bool;
        supports_comma_separated_trim() -> bool;
        supports_numeric_literal_underscores() -> bool;
    }
}

/// The optimizer hint that marks an INSERT as DuckDB's `INSERT INTO t BY NAME ...`
/// (`INSERT /*stride+ BY NAME */ INTO t ...` when printed): the parser has no field
/// for it, so [`parse_insert_by`] records it here and `binder/insert.rs` reads it.
pub const INSERT_BY_NAME_HINT: &str = "BY NAME";

/// Whether `insert` was written `INSERT INTO t BY NAME ...`.
pub fn is_insert_by_name(insert: &sqlparser::ast::Insert) -> bool {
    insert
        .optimizer_hints
        .iter()
        .any(|h| h.prefix == "stride" && h.text == INSERT_BY_NAME_HINT)
}

/// DuckDB's `INSERT [OR ...] INTO name BY NAME | BY POSITION source`, which the parser
/// does not know: the statement is parsed without the two words (by a parser of its
/// own over the statement's tokens), and BY NAME is recorded as an optimizer hint
/// ([`INSERT_BY_NAME_HINT`]). `None` for any other INSERT, which parses as usual.
fn parse_insert_by(parser: &mut Parser) -> Option<std::result::Result<Statement, ParserError>> {
    let token = |n: usize| &parser.peek_nth_token_ref(n).token;
    let is_word = |n: usize, w: &str| matches!(token(n), Token::Word(v) if v.quote_style.is_none() && v.value.eq_ignore_ascii_case(w));
    // INSERT [OR word] INTO name[.name...]
    let mut i = 1;
    if is_word(i, "OR") {
        i += 2;
    }
    if !is_word(i, "INTO") {
        return None;
    }
    i += 1;
    loop {
        if !matches!(token(i), Token::Word(_)) {
            return None;
        }
        i += 1;
        if *token(i) != Token::Period {
            break;
        }
        i += 1;
    }
    if !is_word(i, "BY") {
        return None;
    }
    let by_name = if is_word(i + 1, "NAME") {
        true
    } else if is_word(i + 1, "POSITION") {
        false
    } else {
        return None;
    };
    // The statement's tokens up to its end, without BY NAME / BY POSITION.
    let mut tokens = Vec::new();
    let mut n = 0;
    loop {
        let t = parser.peek_nth_token_ref(n);
        if matches!(t.token, Token::EOF | Token::SemiColon) {
            break;
        }
        if n != i && n != i + 1 {
            tokens.push(t.clone());
        }
        n += 1;
    }
    let total = tokens.len();
    let mut inner = Parser::new(&StrideDialect)
        .with_recursion_limit(MAX_NESTING)
        .with_tokens_with_locations(tokens);
    let result = inner.parse_statement();
    let consumed = inner.index().min(total) + 2;
    for _ in 0..consumed {
        parser.next_token();
    }
    Some(result.map(|mut statement| {
        if let (Statement::Insert(insert), true) = (&mut statement, by_name) {
            insert.optimizer_hints.push(sqlparser::ast::OptimizerHint {
                prefix: "stride".into(),
                text: INSERT_BY_NAME_HINT.into(),
                style: sqlparser::ast::OptimizerHintStyle::MultiLine,
            });
        }
        statement
    }))
}

/// `CREATE [OR REPLACE] [TEMP | TEMPORARY] MACRO | FUNCTION name(params) AS ...`
/// (DuckDB's CREATE FUNCTION is CREATE MACRO), `CREATE ... SEQUENCE`
/// (`sequence_syntax.rs`) and `CREATE ... TYPE` (`type_syntax.rs`). `None` for every
/// other CREATE.
fn parse_create_function(
    parser: &mut Parser,
) -> Option<std::result::Result<Statement, ParserError>> {
    let is_word = |n: usize, w: &str| matches!(&parser.peek_nth_token_ref(n).token, Token::Word(v) if v.quote_style.is_none() && v.value.eq_ignore_ascii_case(w));
    let mut i = 1;
    let or_replace = is_word(1, "OR") && is_word(2, "REPLACE");
    if or_replace {
        i += 2;
    }
    let temporary = is_word(i, "TEMP") || is_word(i, "TEMPORARY");
    if temporary {
        i += 1;
    }
    if is_word(i, "SEQUENCE") {
        for _ in 0..=i {
            parser.next_token();
        }
        return Some(crate::sequence_syntax::parse(parser, or_replace, temporary));
    }
    if is_word(i, "TYPE") {
        for _ in 0..=i {
            parser.next_token();
        }
        return Some(crate::type_syntax::parse(parser, or_replace, temporary));
    }
    if !is_word(i, "FUNCTION") && !is_word(i, "MACRO") {
        return None;
    }
    for _ in 0..=i {
        parser.next_token();
    }
    Some(parse_create_macro(parser, or_replace, temporary))
}

/// After `CREATE ... MACRO`: `name([param [:= default], ...]) AS expr | AS TABLE
/// query`. Parameters are always `Some`, so the statement prints with its
/// parentheses even when there are none (`CREATE MACRO one() AS 1`).
fn parse_create_macro(
    parser: &mut Parser,
    or_replace: bool,
    temporary: bool,
) -> std::result::Result<Statement, ParserError> {
    use sqlparser::ast::{MacroArg, MacroDefinition};
    let name = parser.parse_object_name(false)?;
    parser.expect_token(&Token::LParen)?;
    let mut args = Vec::new();
    if !parser.consume_token(&Token::RParen) {
        loop {
            let name = parser.parse_identifier()?;
            let default_expr = if parser.consume_token(&Token::Assignment)
                || parser.consume_token(&Token::RArrow)
            {
                Some(parser.parse_expr()?)
            } else {
                None
            };
            args.push(MacroArg { name, default_expr });
            if !parser.consume_token(&Token::Comma) {
                break;
            }
        }
        parser.expect_token(&Token::RParen)?;
    }
    parser.expect_keyword(Keyword::AS)?;
    let definition = if parser.parse_keyword(Keyword::TABLE) {
        MacroDefinition::Table(parser.parse_query()?)
    } else {
        MacroDefinition::Expr(parser.parse_expr()?)
    };
    Ok(Statement::CreateMacro {
        or_replace,
        temporary,
        name,
        args: Some(args),
        definition,
    })
}

/// DuckDB's `DROP MACRO [TABLE] [IF EXISTS] name`, which the parser does not know: a
/// `DROP FUNCTION` (how `DROP FUNCTION name` parses too), whose one function is
/// given an empty argument list for `DROP MACRO TABLE` ([`is_drop_table_macro`]).
fn parse_drop_macro(parser: &mut Parser) -> Option<std::result::Result<Statement, ParserError>> {
    let is_word = |n: usize, w: &str| matches!(&parser.peek_nth_token_ref(n).token, Token::Word(v) if v.quote_style.is_none() && v.value.eq_ignore_ascii_case(w));
    if !is_word(1, "MACRO") {
        return None;
    }
    let table = is_word(2, "TABLE");
    for _ in 0..(2 + table as usize) {
        parser.next_token();
    }
    let if_exists = parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
    Some(parser.parse_object_name(false).map(|name| {
        Statement::DropFunction(sqlparser::ast::DropFunction {
            if_exists,
            func_desc: vec![sqlparser::ast::FunctionDesc {
                name,
                args: table.then(Vec::new),
            }],
            drop_behavior: None,
        })
    }))
}

/// Whether a DROP FUNCTION's function is `DROP MACRO TABLE`'s (see
/// [`parse_drop_macro`]).
pub fn is_drop_table_macro(desc: &sqlparser::ast::FunctionDesc) -> bool {
    desc.args.as_ref().is_some_and(|a| a.is_empty())
}

/// A call of the function `name` (DuckDB's operators are functions).
fn call_expr(name: &str, args: Vec<Expr>) -> Expr {
    use sqlparser::ast;
    Expr::Function(ast::Function {
        name: ast::ObjectName::from(vec![ast::Ident::with_quote('"', name)]),
        uses_odbc_syntax: false,
        parameters: ast::FunctionArguments::None,
        args: ast::FunctionArguments::List(ast::FunctionArgumentList {
            duplicate_treatment: None,
            args: args
                .into_iter()
                .map(|a| ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(a)))
                .collect(),
            clauses: vec![],
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: vec![],
    })
}

/// The path after `->`: an operand of the ordinary operators' level, and what
/// `||` joins to it (see `parse_infix`).
fn parse_arrow_path(
    dialect: &StrideDialect,
    parser: &mut Parser,
) -> std::result::Result<Expr, ParserError> {
    let prec = dialect.prec_value(sqlparser::dialect::Precedence::PgOther);
    let mut path = parser.parse_subexpr(prec)?;
    while parser.consume_token(&Token::StringConcat) {
        path = Expr::BinaryOp {
            left: Box::new(path),
            op: sqlparser::ast::BinaryOperator::StringConcat,
            right: Box::new(parser.parse_subexpr(prec)?),
        };
    }
    Ok(path)
}

/// `x ** y` (power), `x <-> y`, `x [NOT] GLOB p` and `n!` after `expr`, or None.
fn duckdb_operator(
    dialect: &StrideDialect,
    parser: &mut Parser,
    expr: &Expr,
) -> Option<std::result::Result<Expr, ParserError>> {
    use sqlparser::dialect::Precedence;
    let tok = |n: usize| parser.peek_nth_token_ref(n).token.clone();
    let glob = |t: &Token| {
        matches!(
            t,
            Token::Word(Word {
                keyword: Keyword::GLOB,
                ..
            })
        )
    };
    let not = |t: &Token| {
        matches!(
            t,
            Token::Word(Word {
                keyword: Keyword::NOT,
                ..
            })
        )
    };
    if tok(0) == Token::Mul && tok(1) == Token::Mul {
        parser.next_token();
        parser.next_token();
        let prec = dialect.prec_value(Precedence::MulDivModOp);
        return Some(
            parser
                .parse_subexpr(prec)
                .map(|right| call_expr("**", vec![expr.clone(), right])),
        );
    }
    // `l <-> r` (list_distance) reaches the parser as `<` and `->`
    if tok(0) == Token::Lt && tok(1) == Token::Arrow {
        parser.next_token();
        parser.next_token();
        let prec = dialect.prec_value(Precedence::Eq);
        return Some(
            parser
                .parse_subexpr(prec)
                .map(|right| call_expr("<->", vec![expr.clone(), right])),
        );
    }
    if tok(0) == Token::ExclamationMark {
        parser.next_token();
        return Some(Ok(call_expr("!__postfix", vec![expr.clone()])));
    }
    if is_glob_operator(parser) {
        parser.next_token();
        parser.next_token();
        let prec = dialect.prec_value(Precedence::Like);
        return Some(
            parser
                .parse_subexpr(prec)
                .map(|right| call_expr("~~~", vec![expr.clone(), right])),
        );
    }
    let negated = not(&tok(0)) && glob(&tok(1));
    if glob(&tok(0)) || negated {
        parser.next_token();
        if negated {
            parser.next_token();
        }
        let prec = dialect.prec_value(Precedence::Like);
        return Some(parser.parse_subexpr(prec).map(|right| {
            let m = call_expr("~~~", vec![expr.clone(), right]);
            if negated {
                Expr::UnaryOp {
                    op: sqlparser::ast::UnaryOperator::Not,
                    expr: Box::new(Expr::Nested(Box::new(m))),
                }
            } else {
                m
            }
        }));
    }
    None
}

/// Whether the next tokens are DuckDB's `~~~` (GLOB), which reaches the parser as
/// `~~` and `~` written together (`~~ ~x` stays LIKE with a bitwise NOT).
fn is_glob_operator(parser: &Parser) -> bool {
    let (a, b) = (parser.peek_nth_token_ref(0), parser.peek_nth_token_ref(1));
    a.token == Token::DoubleTilde && b.token == Token::Tilde && a.span.end == b.span.start
}

/// `TRIM ( [LEADING | TRAILING | BOTH] FROM s )`: whitespace trimmed from the named
/// side(s), as `TRIM(s)`, `LTRIM(s)`, `RTRIM(s)`. None (nothing consumed) for the
/// other forms of TRIM, which the parser reads.
fn parse_trim_from(parser: &mut Parser) -> Option<std::result::Result<Expr, ParserError>> {
    use sqlparser::ast::TrimWhereField;
    if parser.peek_nth_token_ref(1).token != Token::LParen {
        return None;
    }
    let keyword = |n: usize| match &parser.peek_nth_token_ref(n).token {
        Token::Word(w) => w.keyword,
        _ => Keyword::NoKeyword,
    };
    let (trim_where, skip) = match (keyword(2), keyword(3)) {
        (Keyword::FROM, _) => (None, 3),
        (Keyword::LEADING, Keyword::FROM) => (Some(TrimWhereField::Leading), 4),
        (Keyword::TRAILING, Keyword::FROM) => (Some(TrimWhereField::Trailing), 4),
        (Keyword::BOTH, Keyword::FROM) => (Some(TrimWhereField::Both), 4),
        _ => return None,
    };
    for _ in 0..skip {
        parser.next_token();
    }
    Some(parser.parse_expr().and_then(|expr| {
        parser.expect_token(&Token::RParen)?;
        Ok(Expr::Trim {
            expr: Box::new(expr),
            trim_where,
            trim_what: None,
            trim_characters: None,
        })
    }))
}

/// `[NOT] IN ( ... )` after `expr`: a subquery when the parentheses hold exactly one
/// query (`x IN ((SELECT 1) UNION (SELECT 2))`), else a list of expressions.
fn parse_in(
    parser: &mut Parser,
    expr: Expr,
    negated: bool,
) -> std::result::Result<Expr, ParserError> {
    if negated {
        parser.expect_keyword(Keyword::NOT)?;
    }
    parser.expect_keyword(Keyword::IN)?;
    parser.expect_token(&Token::LParen)?;
    let expr = Box::new(expr);
    let query = parser.maybe_parse(|p| {
        let q = p.parse_query()?;
        p.expect_token(&Token::RParen)?;
        Ok(q)
    })?;
    if let Some(subquery) = query {
        return Ok(Expr::InSubquery {
            expr,
            subquery,
            negated,
        });
    }
    let list = parser.parse_comma_separated(Parser::parse_expr)?;
    parser.expect_token(&Token::RParen)?;
    Ok(Expr::InList {
        expr,
        list,
        negated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_carry_positions() {
        let e = parse("SELECT FROM WHERE").unwrap_err();
        assert!(e.message.contains("Line: 1"), "{e}");
        // Parsing 1000 levels needs more than a test thread's default stack; the
        // facade parses on a thread with a large one, as here.
        let deep = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(|| {
                parse(&format!("SELECT {}1{}", "(".repeat(5000), ")".repeat(5000))).unwrap_err()
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(deep.message.contains("nested too deeply"));
    }

    #[test]
    fn question_marks_are_numbered_per_statement() {
        let s = parse("SELECT ?, '?', ? + 1; SELECT ?").unwrap();
        assert_eq!(s[0].to_string(), "SELECT $1, '?', $2 + 1");
        assert_eq!(s[1].to_string(), "SELECT $1");
    }

    #[test]
    fn duckdb_copy_options_become_format_options() {
        let s =
            parse("COPY t TO 'x.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000)")
                .unwrap();
        let text = s[0].to_string();
        assert!(text.contains("FORMAT \"compression=zstd\""), "{text}");
        assert!(text.contains("FORMAT \"row_group_size=1000\""), "{text}");
        let s =
            parse("COPY t TO 'd' (FORMAT parquet, PARTITION_BY (a, \"B\"), OVERWRITE_OR_IGNORE)")
                .unwrap();
        let text = s[0].to_string();
        assert!(text.contains("FORMAT \"partition_by=a,B\""), "{text}");
        assert!(
            text.contains("FORMAT \"overwrite_or_ignore=true\""),
            "{text}"
        );
        let s = parse("COPY t TO 'd' (PARTITION_BY k, OVERWRITE false)").unwrap();
        let text = s[0].to_string();
        assert!(
            text.contains("FORMAT \"partition_by=k\", FORMAT \"overwrite=false\""),
            "{text}"
        );
        // Elsewhere the words are plain names.
        let s = parse("SELECT compression, row_group_size FROM t").unwrap();
        assert_eq!(
            s[0].to_string(),
            "SELECT compression, row_group_size FROM t"
        );
    }

    #[test]
    fn postgres_escape_strings_and_qualified_operators() {
        let s = parse("SELECT E'a\\nb', 'x' OPERATOR(pg_catalog.~) '^x', 7 // 2").unwrap();
        let text = s[0].to_string();
        assert!(text.contains("'a\nb'"), "{text}");
        assert!(text.contains("'x' ~ '^x'"), "{text}");
        assert!(text.contains("7 // 2"), "{text}");
        assert!(parse("SELECT 1 OPERATOR(other.+) 2").is_err());
    }

    #[test]
    fn insert_by_name_and_by_position() {
        let s = parse(
            "INSERT INTO t BY NAME SELECT 1 AS a; INSERT OR IGNORE INTO s.t BY POSITION VALUES (1)",
        )
        .unwrap();
        let Statement::Insert(i) = &s[0] else {
            panic!("an insert")
        };
        assert!(is_insert_by_name(i));
        assert_eq!(i.source.as_ref().unwrap().to_string(), "SELECT 1 AS a");
        let Statement::Insert(i) = &s[1] else {
            panic!("an insert")
        };
        assert!(!is_insert_by_name(i));
        assert_eq!(s[1].to_string(), "INSERT OR IGNORE INTO s.t VALUES (1)");
        let s = parse("PREPARE p AS INSERT INTO t BY NAME (SELECT $1 AS a)").unwrap();
        let Statement::Prepare { statement, .. } = &s[0] else {
            panic!("a prepare")
        };
        assert!(matches!(statement.as_ref(), Statement::Insert(i) if is_insert_by_name(i)));
        assert!(parse("INSERT INTO t BY NAME").is_err());
        assert!(parse("INSERT INTO t BY SELECT 1").is_err());
    }

    #[test]
    fn summarize_becomes_a_table_function() {
        let text = |sql: &str| {
            parse(sql)
                .unwrap()
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            text("SUMMARIZE t; SUMMARIZE SELECT 1"),
            vec![
                "SELECT * FROM summarize((SELECT * FROM t))",
                "SELECT * FROM summarize((SELECT * FROM (SELECT 1)))"
            ]
        );
        assert_eq!(
            text("SELECT * FROM (SUMMARIZE main.t) WHERE x = (1)"),
            vec!["SELECT * FROM (SELECT * FROM summarize((SELECT * FROM main.t))) WHERE x = (1)"]
        );
        assert_eq!(
            text("SELECT summarize FROM summarize"),
            vec!["SELECT summarize FROM summarize"]
        );
    }

    #[test]
    fn in_lists_that_start_with_a_subquery() {
        let text = |sql: &str| parse(sql).unwrap()[0].to_string();
        assert_eq!(
            text("SELECT 1 IN ((SELECT 1), 2)"),
            "SELECT 1 IN ((SELECT 1), 2)"
        );
        assert_eq!(
            text("SELECT 1 NOT IN ((SELECT 1), (SELECT 2))"),
            "SELECT 1 NOT IN ((SELECT 1), (SELECT 2))"
        );
        assert_eq!(text("SELECT 1 IN ((SELECT 1))"), "SELECT 1 IN ((SELECT 1))");
        assert_eq!(
            text("SELECT 1 IN ((SELECT 1) UNION (SELECT 2))"),
            "SELECT 1 IN ((SELECT 1) UNION (SELECT 2))"
        );
        assert_eq!(
            text("SELECT 1 IN ((1 + 2) * 3, 4)"),
            "SELECT 1 IN ((1 + 2) * 3, 4)"
        );
        assert!(parse("SELECT 1 IN ((SELECT 1), 2").is_err());
    }
}
