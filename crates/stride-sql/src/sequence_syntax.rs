//! `CREATE [OR REPLACE] [TEMP] SEQUENCE [IF NOT EXISTS] name [options]` as DuckDB
//! reads it: the options (`INCREMENT [BY] n`, `MINVALUE n | NO MINVALUE`, `MAXVALUE n
//! | NO MAXVALUE`, `START [WITH] n`, `CACHE n`, `[NO] CYCLE`) in any order, which
//! the sqlparser crate (a fixed order, no OR REPLACE) does not accept. The result is
//! sqlparser's `CreateSequence`; OR REPLACE, which it has no field for, is marked by
//! an `OWNED BY` of [`OR_REPLACE_MARK`] (DuckDB has no OWNED BY), read back by
//! [`is_or_replace`].

use sqlparser::ast::{Expr, ObjectName, SequenceOptions, Statement};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};

/// The `OWNED BY` name that marks OR REPLACE.
const OR_REPLACE_MARK: &str = "__stride_or_replace";

/// Whether a `CreateSequence`'s `owned_by` says OR REPLACE.
pub(crate) fn is_or_replace(owned_by: &Option<ObjectName>) -> bool {
    owned_by
        .as_ref()
        .is_some_and(|n| n.to_string() == OR_REPLACE_MARK)
}

/// Parses what follows `CREATE [OR REPLACE] [TEMP] SEQUENCE`.
pub(crate) fn parse(
    parser: &mut Parser,
    or_replace: bool,
    temporary: bool,
) -> Result<Statement, ParserError> {
    let if_not_exists = parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    let name = parser.parse_object_name(false)?;
    let mut options = Vec::new();
    let mut seen = Vec::new();
    let mut once = |what: &'static str| {
        if seen.contains(&what) {
            return Err(ParserError::ParserError(format!(
                "{what} should be passed at most once"
            )));
        }
        seen.push(what);
        Ok(())
    };
    loop {
        if parser.parse_keyword(Keyword::INCREMENT) {
            once("INCREMENT")?;
            let by = parser.parse_keyword(Keyword::BY);
            options.push(SequenceOptions::IncrementBy(number(parser)?, by));
        } else if parser.parse_keyword(Keyword::MINVALUE) {
            once("MINVALUE")?;
            options.push(SequenceOptions::MinValue(Some(number(parser)?)));
        } else if parser.parse_keywords(&[Keyword::NO, Keyword::MINVALUE]) {
            once("MINVALUE")?;
            options.push(SequenceOptions::MinValue(None));
        } else if parser.parse_keyword(Keyword::MAXVALUE) {
            once("MAXVALUE")?;
            options.push(SequenceOptions::MaxValue(Some(number(parser)?)));
        } else if parser.parse_keywords(&[Keyword::NO, Keyword::MAXVALUE]) {
            once("MAXVALUE")?;
            options.push(SequenceOptions::MaxValue(None));
        } else if parser.parse_keyword(Keyword::START) {
            once("START")?;
            let with = parser.parse_keyword(Keyword::WITH);
            options.push(SequenceOptions::StartWith(number(parser)?, with));
        } else if parser.parse_keyword(Keyword::CACHE) {
            once("CACHE")?;
            options.push(SequenceOptions::Cache(number(parser)?));
        } else if parser.parse_keywords(&[Keyword::NO, Keyword::CYCLE]) {
            once("CYCLE")?;
            // sqlparser's flag says NO
            options.push(SequenceOptions::Cycle(true));
        } else if parser.parse_keyword(Keyword::CYCLE) {
            once("CYCLE")?;
            options.push(SequenceOptions::Cycle(false));
        } else {
            break;
        }
    }
    Ok(Statement::CreateSequence {
        temporary,
        if_not_exists,
        name,
        data_type: None,
        sequence_options: options,
        owned_by: or_replace.then(|| ObjectName::from(vec![OR_REPLACE_MARK.into()])),
    })
}

/// A signed integer literal.
fn number(parser: &mut Parser) -> Result<Expr, ParserError> {
    parser.parse_prefix()
}
