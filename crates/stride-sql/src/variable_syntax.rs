//! DuckDB's session variables: `SET VARIABLE name = expr` (or `TO expr`) and `RESET
//! VARIABLE name`, which the sqlparser crate does not know. Both become a
//! `SET HIVEVAR:name = ...` assignment, Hive's syntax that the DuckDB dialect never
//! produces otherwise, so the flag marks a variable: with one value for SET, with none
//! for RESET. The binder reads them back with [`variable_assignment`].

use sqlparser::ast::{Expr, ObjectName, Set, Statement};
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// Parses what follows `SET VARIABLE` (`reset == false`) or `RESET VARIABLE`.
pub(crate) fn parse(parser: &mut Parser, reset: bool) -> Result<Statement, ParserError> {
    let name = parser.parse_identifier()?;
    let values = if reset {
        Vec::new()
    } else {
        match parser.next_token().token {
            Token::Eq => {}
            Token::Word(w) if w.value.eq_ignore_ascii_case("to") => {}
            other => {
                return Err(ParserError::ParserError(format!(
                    "Expected: equals sign or TO, found: {other}"
                )))
            }
        }
        vec![parser.parse_expr()?]
    };
    Ok(Statement::Set(Set::SingleAssignment {
        scope: None,
        hivevar: true,
        variable: ObjectName::from(vec![name]),
        values,
    }))
}

/// A session variable's SET (`Some(value)`) or RESET (`None`), by its name as written.
pub fn variable_assignment(set: &Set) -> Option<(String, Option<&Expr>)> {
    match set {
        Set::SingleAssignment {
            hivevar: true,
            variable,
            values,
            ..
        } => {
            let name = variable.0.last()?.as_ident()?.value.clone();
            Some((name, values.first()))
        }
        _ => None,
    }
}
