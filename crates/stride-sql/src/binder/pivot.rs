//! PIVOT and UNPIVOT in FROM (`t PIVOT (sum(x) FOR k IN ('a', 'b'))`, `t UNPIVOT
//! (v FOR name IN (c1, c2))`), which DuckDB's statements `PIVOT t ON k USING sum(x)
//! GROUP BY g` and `UNPIVOT t ON c1, c2 INTO NAME n VALUE v` become in the parser.
//!
//! Both are rewritten into queries stride already runs, built as SQL text and bound
//! in place of the FROM item:
//! - PIVOT groups by every column of the source the aggregates and pivot columns do
//!   not read, and computes each aggregate once per pivot value with
//!   `FILTER (WHERE k = value)`. Without an IN list the values are the pivot
//!   columns' distinct non-NULL values, sorted, found by running a query while
//!   binding (the facade's [`crate::catalog::PlanRunner`]); with several pivot
//!   columns, every combination, named `a_b`. A column is named after its value,
//!   followed by `_alias` (or `_expression`) when there are several aggregates or the
//!   aggregate has an alias.
//! - UNPIVOT keeps the other columns and turns each listed column into a row (name,
//!   value) with two lockstep `unnest`s, leaving out NULL values unless INCLUDE NULLS.

use super::scope::Scope;
use super::Binder;
use crate::plan::LogicalPlan;
use sqlparser::ast;
use std::ops::ControlFlow;
use stride_common::{Error, Result, ScalarValue};

/// Most columns one PIVOT may make.
const MAX_PIVOT_COLUMNS: usize = 10_000;

fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A value as SQL text that reads back as the same value and type.
fn literal(v: &ScalarValue) -> String {
    match v {
        ScalarValue::Null => "NULL".into(),
        ScalarValue::Varchar(s) => format!("'{}'", s.replace('\'', "''")),
        v => format!(
            "CAST('{}' AS {})",
            v.to_string().replace('\'', "''"),
            v.data_type()
        ),
    }
}

/// The name a value gives its pivot column.
fn value_name(v: &ScalarValue) -> String {
    match v {
        ScalarValue::Varchar(s) => s.clone(),
        v => v.to_string(),
    }
}

/// Names of the columns an expression reads (the last part of each identifier).
fn read_names(e: &ast::Expr, out: &mut Vec<String>) {
    let _ = ast::visit_expressions(e, |x| {
        match x {
            ast::Expr::Identifier(id) => out.push(super::expr::ident_name(id)),
            ast::Expr::CompoundIdentifier(ids) => {
                if let Some(id) = ids.last() {
                    out.push(super::expr::ident_name(id));
                }
            }
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
}

fn visible_names(scope: &Scope) -> Vec<String> {
    (0..scope.fields.len())
        .filter(|&i| scope.is_visible(i))
        .map(|i| scope.fields[i].name.clone())
        .collect()
}

/// `e` with `cond` added to the FILTER of each aggregate call in it.
fn filtered(e: &ast::Expr, cond: &ast::Expr) -> ast::Expr {
    let mut e = e.clone();
    let _ = ast::visit_expressions_mut(&mut e, |x| {
        if let ast::Expr::Function(f) = x {
            let name = f.name.to_string().to_ascii_lowercase();
            if stride_functions::aggregate::is_aggregate_name(&name) && f.over.is_none() {
                f.filter = Some(Box::new(match f.filter.take() {
                    Some(old) => ast::Expr::BinaryOp {
                        left: Box::new(ast::Expr::Nested(old)),
                        op: ast::BinaryOperator::And,
                        right: Box::new(ast::Expr::Nested(Box::new(cond.clone()))),
                    },
                    None => cond.clone(),
                }));
            }
        }
        ControlFlow::<()>::Continue(())
    });
    e
}

impl Binder<'_> {
    /// The distinct non-NULL values of `column` over `table`, sorted.
    fn distinct_values(
        &mut self,
        table: &ast::TableFactor,
        column: &ast::Expr,
    ) -> Result<Vec<ScalarValue>> {
        let sql = format!(
            "SELECT DISTINCT {column} AS v FROM {table} WHERE {column} IS NOT NULL ORDER BY 1"
        );
        self.values_of(&sql)
    }

    /// The first column of a query's rows.
    fn values_of(&mut self, sql: &str) -> Result<Vec<ScalarValue>> {
        let Some(runner) = self.runner.clone() else {
            return Err(Error::not_supported(
                "PIVOT without an IN list needs to read the data while the statement is prepared, which this interface cannot; list the values: ON k IN ('a', 'b')",
            ));
        };
        let plan = self.bind_query(&parse_query(sql)?)?;
        Ok(runner
            .rows(plan)?
            .into_iter()
            .filter_map(|r| r.into_iter().next())
            .collect())
    }

    pub(super) fn bind_pivot(
        &mut self,
        table: &ast::TableFactor,
        aggregates: &[ast::ExprWithAlias],
        columns: &[ast::Expr],
        source: &ast::PivotValueSource,
        default_on_null: Option<&ast::Expr>,
    ) -> Result<LogicalPlan> {
        if default_on_null.is_some() {
            return Err(Error::not_supported(
                "PIVOT ... DEFAULT ON NULL is not supported; wrap the pivoted columns in coalesce",
            ));
        }
        let (_, scope) = self.bind_table_factor(table)?;
        let mut read = Vec::new();
        for a in aggregates {
            read_names(&a.expr, &mut read);
        }
        for c in columns {
            read_names(c, &mut read);
        }
        let groups: Vec<String> = visible_names(&scope)
            .into_iter()
            .filter(|n| !read.iter().any(|r| r.eq_ignore_ascii_case(n)))
            .collect();

        // (name, condition) of each pivot column.
        let mut combos: Vec<(String, String)> = vec![(String::new(), String::new())];
        match source {
            ast::PivotValueSource::List(values) => {
                let [column] = columns else {
                    return Err(Error::not_supported(
                        "PIVOT over several columns with an IN list is not supported; pivot on one column, or leave out IN",
                    ));
                };
                combos = values
                    .iter()
                    .map(|v| {
                        let name = match &v.alias {
                            Some(a) => super::expr::ident_name(a),
                            None => match &v.expr {
                                ast::Expr::Value(x) => match &x.value {
                                    ast::Value::SingleQuotedString(s) => s.clone(),
                                    other => other.to_string(),
                                },
                                other => other.to_string(),
                            },
                        };
                        // As in DuckDB, a NULL in the list matches the NULL values.
                        let cond = format!("({column}) IS NOT DISTINCT FROM ({})", v.expr);
                        (name, cond)
                    })
                    .collect();
            }
            ast::PivotValueSource::Any(_) | ast::PivotValueSource::Subquery(_) => {
                for (k, column) in columns.iter().enumerate() {
                    let values = match source {
                        ast::PivotValueSource::Subquery(q) if columns.len() == 1 => {
                            self.values_of(&q.to_string())?
                        }
                        ast::PivotValueSource::Subquery(_) => return Err(Error::not_supported(
                            "PIVOT over several columns with a subquery of values is not supported",
                        )),
                        _ => self.distinct_values(table, column)?,
                    };
                    let mut next = Vec::with_capacity(combos.len() * values.len());
                    for (name, cond) in &combos {
                        for v in &values {
                            let sep = if k == 0 { "" } else { "_" };
                            let and = if k == 0 { "" } else { " AND " };
                            next.push((
                                format!("{name}{sep}{}", value_name(v)),
                                format!("{cond}{and}({column}) = {}", literal(v)),
                            ));
                        }
                    }
                    combos = next;
                    if combos.len() > MAX_PIVOT_COLUMNS {
                        return Err(Error::invalid_input(format!(
                            "PIVOT would make more than {MAX_PIVOT_COLUMNS} columns; list the values with IN"
                        )));
                    }
                }
            }
        }

        let named = aggregates.len() > 1 || aggregates.iter().any(|a| a.alias.is_some());
        let mut items: Vec<String> = groups.iter().map(|g| quoted(g)).collect();
        for (name, cond) in &combos {
            let cond = parse_expr(cond)?;
            for a in aggregates {
                let column = if named {
                    let suffix = match &a.alias {
                        Some(al) => super::expr::ident_name(al),
                        None => a.expr.to_string(),
                    };
                    format!("{name}_{suffix}")
                } else {
                    name.clone()
                };
                items.push(format!(
                    "{} AS {}",
                    filtered(&a.expr, &cond),
                    quoted(&column)
                ));
            }
        }
        let mut sql = format!("SELECT {} FROM {table}", items.join(", "));
        if !groups.is_empty() {
            let keys: Vec<String> = groups.iter().map(|g| quoted(g)).collect();
            sql.push_str(&format!(" GROUP BY {}", keys.join(", ")));
        }
        self.bind_query(&parse_query(&sql)?)
    }

    pub(super) fn bind_unpivot(
        &mut self,
        table: &ast::TableFactor,
        value: &ast::Expr,
        name: &ast::Ident,
        columns: &[ast::ExprWithAlias],
        include_nulls: bool,
    ) -> Result<LogicalPlan> {
        let (_, scope) = self.bind_table_factor(table)?;
        // (column as SQL, its name in the name column)
        let mut unpivoted: Vec<(String, String)> = Vec::new();
        for c in columns {
            if super::columns::contains(&c.expr) {
                for (e, n) in super::columns::expand(self, &c.expr, None, &scope)? {
                    unpivoted.push((e.to_string(), n));
                }
                continue;
            }
            let mut names = Vec::new();
            read_names(&c.expr, &mut names);
            let label = match (&c.alias, &c.expr, names.as_slice()) {
                (Some(a), _, _) => super::expr::ident_name(a),
                (None, ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_), [n]) => {
                    n.clone()
                }
                (None, e, _) => e.to_string(),
            };
            unpivoted.push((c.expr.to_string(), label));
        }
        if unpivoted.is_empty() {
            return Err(Error::binder("UNPIVOT needs at least one column"));
        }
        let value_name = match value {
            ast::Expr::Identifier(id) => super::expr::ident_name(id),
            other => {
                return Err(Error::not_supported(format!(
                    "UNPIVOT into {other} is not supported; name one value column"
                )))
            }
        };
        let name_name = super::expr::ident_name(name);
        let others: Vec<String> = visible_names(&scope)
            .into_iter()
            .filter(|n| {
                !unpivoted
                    .iter()
                    .any(|(e, _)| e.trim_matches('"').eq_ignore_ascii_case(n))
            })
            .map(|n| quoted(&n))
            .collect();
        let labels: Vec<String> = unpivoted
            .iter()
            .map(|(_, l)| literal(&ScalarValue::Varchar(l.clone())))
            .collect();
        let values: Vec<String> = unpivoted.iter().map(|(e, _)| e.clone()).collect();
        let mut select = others.clone();
        select.push(format!(
            "unnest([{}]) AS {}",
            labels.join(", "),
            quoted(&name_name)
        ));
        select.push(format!(
            "unnest([{}]) AS {}",
            values.join(", "),
            quoted(&value_name)
        ));
        let mut sql = format!(
            "SELECT * FROM (SELECT {} FROM {table}) AS __unpivot",
            select.join(", ")
        );
        if !include_nulls {
            sql.push_str(&format!(" WHERE {} IS NOT NULL", quoted(&value_name)));
        }
        self.bind_query(&parse_query(&sql)?)
    }
}

fn parse_query(sql: &str) -> Result<ast::Query> {
    match crate::parser::parse(sql)?.into_iter().next() {
        Some(ast::Statement::Query(q)) => Ok(*q),
        _ => Err(Error::internal(format!("not a query: {sql}"))),
    }
}

fn parse_expr(sql: &str) -> Result<ast::Expr> {
    let q = parse_query(&format!("SELECT {sql}"))?;
    match *q.body {
        ast::SetExpr::Select(s) => match s.projection.into_iter().next() {
            Some(ast::SelectItem::UnnamedExpr(e)) => Ok(e),
            _ => Err(Error::internal(format!("not an expression: {sql}"))),
        },
        _ => Err(Error::internal(format!("not an expression: {sql}"))),
    }
}
