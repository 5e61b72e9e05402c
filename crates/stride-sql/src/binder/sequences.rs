//! Sequences in SQL: `CREATE [OR REPLACE] SEQUENCE` (parsed by `sequence_syntax.rs`),
//! `DROP SEQUENCE`, and the calls `nextval('seq')` and `currval('seq')`.
//!
//! Where it sits: binding. The sequence's name must be a constant (as in DuckDB); it
//! is looked up now and the call is bound with the sequence's id as its argument, so
//! the executor (`stride-exec/src/expression.rs`) finds the counter in the catalog
//! without a name lookup per chunk.

use super::fold::fold_constant;
use super::{Binder, BoundStatement};
use crate::plan::Expr;
use sqlparser::ast;
use stride_common::{DataType, Error, Result, ScalarValue};
use stride_functions::{BoundFunction, ScalarFunction};

/// What `CREATE SEQUENCE` gave; the storage layer checks the options and fills in
/// the defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct SequenceSpec {
    pub increment: i64,
    pub min: Option<i64>,
    pub max: Option<i64>,
    pub start: Option<i64>,
    pub cycle: bool,
}

impl Binder<'_> {
    pub(super) fn bind_create_sequence(
        &mut self,
        temporary: bool,
        if_not_exists: bool,
        name: &ast::ObjectName,
        data_type: &Option<ast::DataType>,
        options: &[ast::SequenceOptions],
        owned_by: &Option<ast::ObjectName>,
    ) -> Result<BoundStatement> {
        if temporary {
            return Err(Error::not_supported(
                "CREATE TEMP SEQUENCE is not supported yet; create a sequence without TEMP",
            ));
        }
        if data_type.is_some() {
            return Err(Error::not_supported(
                "CREATE SEQUENCE ... AS type is not supported: sequences count in BIGINT",
            ));
        }
        let or_replace = crate::sequence_syntax::is_or_replace(owned_by);
        if owned_by.is_some() && !or_replace {
            return Err(Error::not_supported(
                "CREATE SEQUENCE ... OWNED BY is not supported",
            ));
        }
        let (catalog, bare) = self.object_target(name)?;
        let mut spec = SequenceSpec {
            increment: 1,
            min: None,
            max: None,
            start: None,
            cycle: false,
        };
        for o in options {
            match o {
                ast::SequenceOptions::IncrementBy(e, _) => {
                    spec.increment = self.option(e, "INCREMENT")?
                }
                ast::SequenceOptions::MinValue(e) => {
                    spec.min = e.as_ref().map(|e| self.option(e, "MINVALUE")).transpose()?
                }
                ast::SequenceOptions::MaxValue(e) => {
                    spec.max = e.as_ref().map(|e| self.option(e, "MAXVALUE")).transpose()?
                }
                ast::SequenceOptions::StartWith(e, _) => {
                    spec.start = Some(self.option(e, "START")?)
                }
                // how many values to reserve at once: every value is counted in
                // memory, so there is nothing to reserve
                ast::SequenceOptions::Cache(e) => {
                    self.option(e, "CACHE")?;
                }
                // sqlparser's flag says NO CYCLE
                ast::SequenceOptions::Cycle(no) => spec.cycle = !no,
            }
        }
        if !or_replace && !if_not_exists && catalog.sequence(&bare).is_some() {
            return Err(Error::catalog(format!(
                "Sequence with name \"{bare}\" already exists!"
            )));
        }
        Ok(BoundStatement::CreateSequence {
            name: bare,
            spec,
            or_replace,
            if_not_exists,
        })
    }

    /// An option's value: a constant integer.
    fn option(&mut self, e: &ast::Expr, what: &str) -> Result<i64> {
        let scope = super::scope::Scope::default();
        let mut ctx = super::expr::ExprCtx::new(&scope, "CREATE SEQUENCE");
        let bound = self.bind_expr(e, &mut ctx)?;
        match fold_constant(&bound)? {
            Some(v) if v.as_i64().is_some() => Ok(v.as_i64().unwrap_or_default()),
            _ => Err(Error::parse(format!(
                "{what} of a sequence must be an integer constant, not {e}"
            ))),
        }
    }

    /// `DROP SEQUENCE [IF EXISTS] name [CASCADE]`: refused while a table's DEFAULT
    /// uses the sequence, unless CASCADE, which drops those tables too (as DuckDB).
    pub(super) fn bind_drop_sequence(
        &mut self,
        name: &ast::ObjectName,
        if_exists: bool,
        cascade: bool,
    ) -> Result<BoundStatement> {
        let (catalog, bare) = self.object_target(name)?;
        if catalog.sequence(&bare).is_none() && !if_exists {
            return Err(Error::catalog(format!(
                "Sequence with name {bare} does not exist!"
            )));
        }
        // (table, column) of each DEFAULT that uses the sequence
        let users: Vec<(String, String)> = catalog
            .tables()
            .iter()
            .filter_map(|(_, t)| {
                t.columns.iter().find_map(|c| {
                    let sql = c.default_expr.as_deref()?;
                    uses_sequence(sql, &bare).then(|| (t.name.clone(), c.name.clone()))
                })
            })
            .collect();
        if let (Some((table, column)), false) = (users.first(), cascade) {
            return Err(Error::dependency(format!(
                "Cannot drop entry \"{bare}\" because there are entries that depend on it: \
                 the DEFAULT of column \"{column}\" of table \"{table}\" uses it; drop that \
                 table first, or use DROP SEQUENCE ... CASCADE to drop it too"
            )));
        }
        Ok(BoundStatement::DropSequence {
            name: bare,
            if_exists,
            tables: users.into_iter().map(|(t, _)| t).collect(),
        })
    }

    /// `nextval('seq')`, `currval('seq')` or `setval('seq', value [, is_called])`
    /// (`name` is one of them), bound to the sequence's id; NULL for a NULL name, as
    /// in DuckDB.
    pub(super) fn sequence_call(&mut self, name: &str, args: &[Expr]) -> Result<Expr> {
        let func = match name {
            "nextval" => ScalarFunction::NextVal,
            "currval" => ScalarFunction::CurrVal,
            _ => ScalarFunction::SetVal,
        };
        let (arg, rest) = match (func, args) {
            (ScalarFunction::SetVal, [arg, rest @ ..]) if (1..=2).contains(&rest.len()) => {
                (arg, rest)
            }
            (ScalarFunction::SetVal, _) => {
                return Err(Error::binder(
                    "setval takes the sequence's name, a value and optionally is_called, as in setval('seq', 10)",
                ))
            }
            (_, [arg]) => (arg, &[][..]),
            _ => {
                return Err(Error::binder(format!(
                    "{name} takes one argument, the sequence's name, as in {name}('seq')"
                )))
            }
        };
        let text = match fold_constant(arg)? {
            Some(ScalarValue::Null) => {
                return Ok(Expr::Literal {
                    value: ScalarValue::Null,
                    ty: DataType::BigInt,
                })
            }
            Some(ScalarValue::Varchar(s)) => s,
            _ => {
                return Err(Error::binder(format!(
                    "The \"sequence_name\" argument in function \"{name}\" must be a constant expression"
                )))
            }
        };
        // a name as SQL spells it: `seq`, `"Seq"`, `main.seq`
        let parts: Vec<ast::Ident> = match crate::parser::parse_expr(&text) {
            Ok(ast::Expr::Identifier(id)) => vec![id],
            Ok(ast::Expr::CompoundIdentifier(ids)) => ids,
            _ => text.split('.').map(ast::Ident::new).collect(),
        };
        let qualified = ast::ObjectName::from(parts);
        let (catalog, bare) = self.resolve(&qualified)?;
        let seq = catalog
            .sequence(&bare)
            .ok_or_else(|| Error::catalog(format!("Sequence with name {bare} does not exist!")))?;
        let mut bound = vec![Expr::literal(ScalarValue::BigInt(seq.id as i64))];
        let mut types = vec![DataType::BigInt];
        if let [value, called @ ..] = rest {
            bound.push(super::expr::cast_expr(value.clone(), &DataType::BigInt)?);
            types.push(DataType::BigInt);
            bound.push(match called {
                [] => Expr::literal(ScalarValue::Boolean(true)),
                [c] => super::expr::cast_expr(c.clone(), &DataType::Boolean)?,
                _ => unreachable!("at most three arguments"),
            });
            types.push(DataType::Boolean);
        }
        Ok(Expr::Function {
            func: BoundFunction::new(func, types, DataType::BigInt),
            args: bound,
        })
    }
}

/// Whether a DEFAULT's SQL text calls `nextval` or `currval` on the sequence `name`
/// (bare or qualified).
fn uses_sequence(sql: &str, name: &str) -> bool {
    use std::ops::ControlFlow;
    let Ok(e) = crate::parser::parse_expr(sql) else {
        return false;
    };
    let found = ast::visit_expressions(&e, |x| {
        if let ast::Expr::Function(f) = x {
            let called = f.name.to_string().to_ascii_lowercase();
            let ast::FunctionArguments::List(list) = &f.args else {
                return ControlFlow::Continue(());
            };
            let names_it = list.args.iter().any(|a| {
                matches!(a, ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Value(v)))
                    if matches!(&v.value, ast::Value::SingleQuotedString(s)
                        if s.rsplit('.').next().is_some_and(|n| n.eq_ignore_ascii_case(name))))
            });
            if (called == "nextval" || called == "currval") && names_it {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    found.is_break()
}
