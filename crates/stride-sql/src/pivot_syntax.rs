//! DuckDB's PIVOT and UNPIVOT statements, which sqlparser does not know:
//!
//! ```sql
//! PIVOT t ON k [IN (...)] [, k2 ...] [USING sum(x) [AS a], ...] [GROUP BY g, ...] [ORDER BY ...] [LIMIT n]
//! UNPIVOT t ON c1, c2 [INTO NAME name VALUE value] [ORDER BY ...] [LIMIT n]
//! ```
//!
//! Where it sits: parsing (step 2). The parser's statement hook hands the words after
//! PIVOT / UNPIVOT (or DuckDB's aliases PIVOT_WIDER / PIVOT_LONGER) here; they become
//! the standard form in FROM, `SELECT * FROM t PIVOT (sum(x) FOR k IN (...))`, which
//! the binder rewrites (binder/pivot.rs). With GROUP BY, the source is first narrowed
//! to the grouping, pivot and aggregated columns, since the standard form groups by
//! every column it does not pivot or aggregate. Without USING, the aggregate is
//! count(*); without IN, the values are found in the data (`IN (ANY)`).

use sqlparser::ast::{Expr, Statement};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use std::ops::ControlFlow;

/// Names of the columns an expression reads, as written.
fn read_columns(e: &Expr, out: &mut Vec<String>) {
    let _ = sqlparser::ast::visit_expressions(e, |x| {
        if let Expr::Identifier(_) | Expr::CompoundIdentifier(_) = x {
            let s = x.to_string();
            if !out.iter().any(|o| o.eq_ignore_ascii_case(&s)) {
                out.push(s);
            }
        }
        ControlFlow::<()>::Continue(())
    });
}

/// `ORDER BY ... LIMIT ... OFFSET ...` after the statement, as SQL text.
fn tail(parser: &mut Parser) -> Result<String, ParserError> {
    let mut out = String::new();
    if parser.parse_keywords(&[Keyword::ORDER, Keyword::BY]) {
        let items = parser.parse_comma_separated(Parser::parse_order_by_expr)?;
        let items: Vec<String> = items.iter().map(|i| i.to_string()).collect();
        out.push_str(&format!(" ORDER BY {}", items.join(", ")));
    }
    if parser.parse_keyword(Keyword::LIMIT) {
        out.push_str(&format!(" LIMIT {}", parser.parse_expr()?));
    }
    if parser.parse_keyword(Keyword::OFFSET) {
        out.push_str(&format!(" OFFSET {}", parser.parse_expr()?));
    }
    Ok(out)
}

fn reparse(sql: &str, dialect: &dyn sqlparser::dialect::Dialect) -> Result<Statement, ParserError> {
    Parser::new(dialect).try_with_sql(sql)?.parse_statement()
}

/// After `PIVOT`: the statement in its standard form.
pub fn parse_pivot(
    parser: &mut Parser,
    dialect: &dyn sqlparser::dialect::Dialect,
) -> Result<Statement, ParserError> {
    let source = parser.parse_table_factor()?;
    parser.expect_keyword(Keyword::ON)?;
    let on = parser.parse_comma_separated(Parser::parse_expr)?;
    let mut aggregates = Vec::new();
    if parser.parse_keyword(Keyword::USING) {
        aggregates = parser.parse_comma_separated(|p| {
            let e = p.parse_expr()?;
            Ok(if p.parse_keyword(Keyword::AS) {
                format!("{e} AS {}", p.parse_identifier()?)
            } else {
                e.to_string()
            })
        })?;
    }
    let aggregates = if aggregates.is_empty() {
        "count(*)".to_string()
    } else {
        aggregates.join(", ")
    };
    let group_by = if parser.parse_keywords(&[Keyword::GROUP, Keyword::BY]) {
        parser.parse_comma_separated(Parser::parse_expr)?
    } else {
        Vec::new()
    };
    let rest = tail(parser)?;

    // The pivot columns, and the IN list of the one column that may have one.
    let mut columns = Vec::new();
    let mut values = None;
    for e in &on {
        match e {
            Expr::InList {
                expr,
                list,
                negated: false,
            } => {
                if on.len() > 1 {
                    return Err(ParserError::ParserError(
                        "PIVOT ... ON with IN lists takes one column; leave out IN to pivot on several"
                            .into(),
                    ));
                }
                columns.push(format!("({expr})"));
                let list: Vec<String> = list.iter().map(|v| v.to_string()).collect();
                values = Some(list.join(", "));
            }
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) => columns.push(e.to_string()),
            e => columns.push(format!("({e})")),
        }
    }
    let source = if group_by.is_empty() {
        source.to_string()
    } else {
        let mut keep: Vec<String> = Vec::new();
        for g in &group_by {
            read_columns(g, &mut keep);
        }
        // Each pivot expression is computed in the source under a name of its own,
        // so that a GROUP BY column it reads (`ON k GROUP BY k`, `ON k || g GROUP BY
        // g`) stays a group.
        for (i, c) in columns.iter_mut().enumerate() {
            let name = format!("\"__pivot_on_{i}\"");
            keep.push(format!("{c} AS {name}"));
            *c = name;
        }
        let probe = reparse(&format!("SELECT {aggregates}"), dialect)?;
        if let Statement::Query(q) = &probe {
            if let sqlparser::ast::SetExpr::Select(s) = q.body.as_ref() {
                for item in &s.projection {
                    match item {
                        sqlparser::ast::SelectItem::UnnamedExpr(e)
                        | sqlparser::ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                            read_columns(e, &mut keep)
                        }
                        _ => {}
                    }
                }
            }
        }
        format!(
            "(SELECT {} FROM {source}) AS __pivot_source",
            keep.join(", ")
        )
    };
    // A parenthesized list, each expression other than a name in parentheses of its
    // own, so that `x > 2` reads as one pivot column.
    let target = format!("({})", columns.join(", "));
    let values = values.unwrap_or_else(|| "ANY".to_string());
    reparse(
        &format!("SELECT * FROM {source} PIVOT ({aggregates} FOR {target} IN ({values})){rest}"),
        dialect,
    )
}

/// After `UNPIVOT`: the statement in its standard form.
pub fn parse_unpivot(
    parser: &mut Parser,
    dialect: &dyn sqlparser::dialect::Dialect,
) -> Result<Statement, ParserError> {
    let source = parser.parse_table_factor()?;
    parser.expect_keyword(Keyword::ON)?;
    let columns = parser.parse_comma_separated(|p| {
        let e = p.parse_expr()?;
        Ok(if p.parse_keyword(Keyword::AS) {
            format!("{e} AS {}", p.parse_identifier()?)
        } else {
            e.to_string()
        })
    })?;
    let (mut name, mut value) = ("name".to_string(), "value".to_string());
    if parser.parse_keyword(Keyword::INTO) {
        parser.expect_keyword(Keyword::NAME)?;
        name = parser.parse_identifier()?.to_string();
        parser.expect_keyword(Keyword::VALUE)?;
        value = parser.parse_identifier()?.to_string();
    }
    let rest = tail(parser)?;
    reparse(
        &format!(
            "SELECT * FROM {source} UNPIVOT ({value} FOR {name} IN ({})){rest}",
            columns.join(", ")
        ),
        dialect,
    )
}
