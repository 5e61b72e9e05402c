//! `CREATE [OR REPLACE] [TEMP] TYPE [IF NOT EXISTS] name AS type` as DuckDB reads
//! it: `type` is any type (`ENUM('a', 'b')`, `INTEGER`, `STRUCT(a INT)`,
//! `VARCHAR[]`), or `ENUM (query)`, whose distinct values are the labels. The
//! sqlparser crate knows only PostgreSQL's forms (`AS ENUM (...)`, `AS (fields)`)
//! and none of the flags.
//!
//! The result is sqlparser's `CreateDomain` (DuckDB has no CREATE DOMAIN, so none
//! other reaches the binder): `data_type` is the type, `default` the query of `ENUM
//! (query)`, and `collation` a marker holding the flags ([`type_flags`]).

use sqlparser::ast::{CreateDomain, DataType, Expr, Ident, Statement};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// The start of the collation name that marks a CREATE TYPE.
const MARK: &str = "__stride_create_type";

/// What CREATE TYPE said besides the name and the type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TypeFlags {
    pub or_replace: bool,
    pub if_not_exists: bool,
    pub temporary: bool,
}

/// The flags of a `CreateDomain` made by [`parse`]; `None` for any other.
pub(crate) fn type_flags(d: &CreateDomain) -> Option<TypeFlags> {
    let mark = &d.collation.as_ref()?.value;
    let flags = mark.strip_prefix(MARK)?;
    Some(TypeFlags {
        or_replace: flags.contains(":or_replace"),
        if_not_exists: flags.contains(":if_not_exists"),
        temporary: flags.contains(":temporary"),
    })
}

/// Parses what follows `CREATE [OR REPLACE] [TEMP] TYPE`.
pub(crate) fn parse(
    parser: &mut Parser,
    or_replace: bool,
    temporary: bool,
) -> Result<Statement, ParserError> {
    let if_not_exists = parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    if or_replace && if_not_exists {
        return Err(ParserError::ParserError(
            "Cannot specify both OR REPLACE and IF NOT EXISTS within single create statement"
                .into(),
        ));
    }
    let name = parser.parse_object_name(false)?;
    parser.expect_keyword(Keyword::AS)?;
    let is_enum = matches!(&parser.peek_token_ref().token, Token::Word(w) if w.keyword == Keyword::ENUM)
        && parser.peek_nth_token_ref(1).token == Token::LParen;
    let query_follows = is_enum
        && matches!(&parser.peek_nth_token_ref(2).token, Token::Word(w)
            if matches!(w.keyword, Keyword::SELECT | Keyword::WITH | Keyword::FROM | Keyword::VALUES));
    let empty = is_enum && parser.peek_nth_token_ref(2).token == Token::RParen;
    let (data_type, default) = if query_follows {
        parser.next_token();
        parser.expect_token(&Token::LParen)?;
        let query = parser.parse_query()?;
        parser.expect_token(&Token::RParen)?;
        (
            DataType::Enum(Vec::new(), None),
            Some(Expr::Subquery(query)),
        )
    } else if empty {
        // `ENUM ()`: an enum without labels (the parser wants at least one)
        for _ in 0..3 {
            parser.next_token();
        }
        (DataType::Enum(Vec::new(), None), None)
    } else {
        (parser.parse_data_type()?, None)
    };
    let mut mark = MARK.to_string();
    for (set, flag) in [
        (or_replace, ":or_replace"),
        (if_not_exists, ":if_not_exists"),
        (temporary, ":temporary"),
    ] {
        if set {
            mark.push_str(flag);
        }
    }
    Ok(Statement::CreateDomain(CreateDomain {
        name,
        data_type,
        collation: Some(Ident::new(mark)),
        default,
        constraints: Vec::new(),
    }))
}
