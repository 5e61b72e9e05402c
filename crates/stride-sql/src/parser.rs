//! Step 1 of a query's life: SQL text to `sqlparser` statements, using the DuckDB
//! dialect. Parser errors become [`Error`]s of kind Parse that keep the parser's line
//! and column. Nesting is bounded, so hostile input fails cleanly instead of
//! exhausting the stack.

use sqlparser::ast::Statement;
use sqlparser::dialect::DuckDbDialect;
use sqlparser::parser::{Parser, ParserError};
use stride_common::{Error, Result};

/// Deepest nesting of expressions/subqueries the parser accepts.
pub const MAX_NESTING: usize = 1000;

/// Parses `sql`. Nesting up to [`MAX_NESTING`] levels needs a deep stack (tens of MB
/// in debug builds); the facade calls this on its planner thread.
/// Parses `sql`. Nesting up to [`MAX_NESTING`] levels needs a deep stack (tens of MB
/// in debug builds); the facade calls this on its planner thread.
pub fn parse(sql: &str) -> Result<Vec<Statement>> {
    let dialect = DuckDbDialect {};
    let parser = Parser::new(&dialect).with_recursion_limit(MAX_NESTING);
    let result = parser
        .try_with_sql(sql)
        .and_then(|mut p| p.parse_statements());
    result.map_err(|e| match e {
        ParserError::TokenizerError(m) | ParserError::ParserError(m) => {
            Error::parse(format!("syntax error: {m}"))
        }
        ParserError::RecursionLimitExceeded => Error::parse(format!(
            "statement is nested too deeply (more than {MAX_NESTING} levels)"
        )),
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
}
