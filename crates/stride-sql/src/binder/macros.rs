//! Macros (DuckDB's user functions): `CREATE [OR REPLACE] [TEMP] MACRO name(params
//! [, param := default]) AS expr` and `... AS TABLE query` (also spelled `CREATE
//! FUNCTION`), `DROP MACRO [TABLE] [IF EXISTS] name`, and their calls.
//!
//! Where it sits: binding (step 3). A macro is stored like a view, as SQL text: its
//! CREATE MACRO statement (without OR REPLACE / TEMP), in the database's catalog
//! (persisted in the database file, see `stride-storage/src/catalog.rs`) or, for TEMP,
//! on the connection. Nothing about it is bound ahead of use: a call expands on the
//! AST, before binding, and what it expands to is bound in the caller's place.
//!
//! - A scalar macro call `f(a, b)` becomes the macro's expression with each
//!   parameter — every unqualified name equal to it, case-insensitively, including
//!   inside subqueries, but not inside a lambda with a parameter of that name —
//!   replaced by a marker of its argument: parameters win over columns of the same
//!   name, as in DuckDB. A marker binds its argument in the caller's place (its
//!   names are the caller's columns, never a name the body's lambdas or subqueries
//!   introduce). Omitted parameters take their defaults; named arguments
//!   (`f(1, y := 2)`) fill parameters with defaults.
//! - A table macro call in FROM (`FROM tm(1)`) becomes its query with the parameters
//!   replaced likewise, bound as a derived table in a context of its own (like a
//!   view: no CTEs or outer columns of the caller).
//!
//! Macros may call macros. Every expansion counts one level while what it expands to
//! is bound; a macro that calls itself, directly or through others, therefore runs
//! into [`MAX_MACRO_DEPTH`] and is refused with an error naming the cycle, never a
//! stack overflow. CREATE MACRO binds the body once with every parameter NULL, so an
//! unknown function, table or column (or such a cycle) is refused at once.

use super::expr::ExprCtx;
use super::scope::{Scope, Visibility};
use super::{Binder, BoundStatement};
use crate::plan::{Expr, LogicalPlan};
use sqlparser::ast;
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::Arc;
use stride_common::{Error, ErrorKind, Result};

/// TEMP macros of a connection: lower-case name to CREATE MACRO text.
pub type TempMacros = HashMap<String, String>;

/// How deeply macro expansions may nest (a macro calling a macro calling ...).
pub const MAX_MACRO_DEPTH: usize = 128;

/// A macro, parsed from its stored text.
#[derive(Debug)]
pub(crate) struct MacroDef {
    pub name: String,
    /// Every parameter, those without defaults first.
    pub params: Vec<ast::Ident>,
    /// Beside each parameter, its default (`param := default`), if any.
    pub defaults: Vec<Option<ast::Expr>>,
    pub body: ast::MacroDefinition,
}

impl MacroDef {
    pub fn is_table(&self) -> bool {
        matches!(self.body, ast::MacroDefinition::Table(_))
    }

    /// `name(a, b := 5)`, as DuckDB shows a macro in its errors.
    fn signature(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .zip(&self.defaults)
            .map(|(p, d)| match d {
                Some(d) => format!("{} := {d}", p.value),
                None => p.value.clone(),
            })
            .collect();
        format!("{}({})", self.name, params.join(", "))
    }
}

/// Parses a macro's stored text (a CREATE MACRO statement).
pub(crate) fn parse_macro(sql: &str) -> Result<MacroDef> {
    let statements = crate::parser::parse(sql)?;
    let [ast::Statement::CreateMacro {
        name,
        args,
        definition,
        ..
    }] = statements.as_slice()
    else {
        return Err(Error::internal(format!(
            "a stored macro is not a CREATE MACRO statement: {sql}"
        )));
    };
    let args = args.as_deref().unwrap_or_default();
    let name = match name.0.last() {
        Some(ast::ObjectNamePart::Identifier(id)) => id.value.clone(),
        _ => name.to_string(),
    };
    Ok(MacroDef {
        name,
        params: args.iter().map(|a| a.name.clone()).collect(),
        defaults: args.iter().map(|a| a.default_expr.clone()).collect(),
        body: definition.clone(),
    })
}

impl Binder<'_> {
    pub(super) fn bind_create_macro(
        &mut self,
        or_replace: bool,
        temporary: bool,
        name: &ast::ObjectName,
        args: Option<&[ast::MacroArg]>,
        definition: &ast::MacroDefinition,
    ) -> Result<BoundStatement> {
        let (catalog, name) = self.object_target(name)?;
        let args = args.unwrap_or_default();
        let mut seen_default = false;
        for (i, a) in args.iter().enumerate() {
            if args[..i]
                .iter()
                .any(|b| b.name.value.eq_ignore_ascii_case(&a.name.value))
            {
                return Err(Error::parse(format!(
                    "Duplicate parameter \"{}\" in macro definition",
                    a.name.value
                )));
            }
            if a.default_expr.is_some() {
                seen_default = true;
            } else if seen_default {
                return Err(Error::parse(
                    "Parameter without a default follows parameter with a default",
                ));
            }
        }
        let stored = ast::Statement::CreateMacro {
            or_replace: false,
            temporary: false,
            name: ast::ObjectName::from(vec![ast::Ident::with_quote('"', name.clone())]),
            // Always `Some`: the text keeps `()` for a macro without parameters.
            args: Some(args.to_vec()),
            definition: definition.clone(),
        };
        let sql = stored.to_string();
        let def = parse_macro(&sql)?;
        // Bound once with every parameter NULL, in the macro's database, so a body
        // naming what does not exist is refused now. Errors that depend on the
        // arguments' values or types are left for the calls.
        // The new definition stands for its name meanwhile, so a cycle through
        // macros that already exist (`r2` calling `r1`, now `r1` calling `r2`) is
        // found.
        let lname = name.to_ascii_lowercase();
        let before = self
            .macro_cache
            .insert(lname.clone(), Some(Arc::new(parse_macro(&sql)?)));
        let outer = std::mem::replace(&mut self.catalog, catalog);
        let nulls: Vec<ast::FunctionArg> = def
            .params
            .iter()
            .zip(&def.defaults)
            .filter(|(_, d)| d.is_none())
            .map(|_| {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::value(
                    ast::Value::Null,
                )))
            })
            .collect();
        let checked = if def.is_table() {
            self.bind_table_macro(&def, &nulls).map(|_| ())
        } else {
            let scope = Scope::default();
            let mut ctx = ExprCtx::new(&scope, "a macro");
            self.bind_scalar_macro(&def, &nulls, &mut ctx).map(|_| ())
        };
        self.catalog = outer;
        match before {
            Some(b) => self.macro_cache.insert(lname, b),
            None => self.macro_cache.remove(&lname),
        };
        if let Err(e) = checked {
            let names_missing = e.kind == ErrorKind::Catalog
                || e.message.contains("not found")
                || e.message.contains("does not exist")
                || e.message.contains("expands into itself");
            if names_missing {
                return Err(e);
            }
        }
        Ok(BoundStatement::CreateMacro {
            name,
            sql,
            or_replace,
            temporary,
        })
    }

    /// `DROP MACRO [TABLE] [IF EXISTS] name` (and `DROP FUNCTION`): `table` allows
    /// only a table macro.
    pub(super) fn bind_drop_macro(
        &mut self,
        name: &ast::ObjectName,
        if_exists: bool,
        table: bool,
    ) -> Result<BoundStatement> {
        let (catalog, name) = self.object_target(name)?;
        let lname = name.to_ascii_lowercase();
        let sql = self
            .temp_macros
            .get(&lname)
            .cloned()
            .or_else(|| catalog.macro_sql(&name));
        let exists = match &sql {
            Some(sql) => !table || parse_macro(sql)?.is_table(),
            None => false,
        };
        if !exists && !if_exists {
            let kind = if table {
                "Table Macro Function"
            } else {
                "Macro Function"
            };
            return Err(Error::catalog(format!(
                "{kind} with name {name} does not exist!"
            )));
        }
        Ok(BoundStatement::DropMacro {
            name,
            if_exists: !exists,
        })
    }

    /// The macro called `name` (a TEMP one first), parsed; `None` when there is none.
    pub(crate) fn macro_named(&mut self, name: &str) -> Result<Option<Arc<MacroDef>>> {
        let lname = name.to_ascii_lowercase();
        if let Some(found) = self.macro_cache.get(&lname) {
            return Ok(found.clone());
        }
        let sql = match self.temp_macros.get(&lname) {
            Some(sql) => Some(sql.clone()),
            None => self.catalog.macro_sql(&lname),
        };
        let def = match sql {
            Some(sql) => Some(Arc::new(parse_macro(&sql)?)),
            None => None,
        };
        self.macro_cache.insert(lname, def.clone());
        Ok(def)
    }

    /// A scalar macro call: the body with the arguments in place, bound in `ctx`.
    pub(crate) fn bind_scalar_macro(
        &mut self,
        def: &MacroDef,
        args: &[ast::FunctionArg],
        ctx: &mut ExprCtx,
    ) -> Result<Expr> {
        let ast::MacroDefinition::Expr(body) = &def.body else {
            return Err(Error::binder(format!(
                "Function \"{}\" is a table function but it was used as a scalar function. This function has to be called in a FROM clause (similar to a table).",
                def.name
            )));
        };
        let values = self.macro_arguments(def, args)?;
        let first = self.macro_args.len();
        let mut markers = Vec::with_capacity(values.len());
        for value in values {
            markers.push(marker(self.macro_args.len()));
            self.macro_args.push(MacroArg {
                value,
                level: self.outer_scopes.len(),
                scope: ctx.scope.clone(),
            });
        }
        let mut body = body.clone();
        substitute(&mut body, &def.params, &markers);
        let bound = self.enter_macro(&def.name).and_then(|()| {
            let bound = self.bind_expr(&body, ctx);
            self.macro_stack.pop();
            bound
        });
        self.macro_args.truncate(first);
        bound
    }

    /// The argument a scalar macro's parameter stands for (the `index`-th of
    /// [`Binder::macro_args`]), bound where the macro was called: the names in it are
    /// the caller's, never those of the lambdas or subqueries of the macro's body
    /// around the parameter.
    pub(super) fn bind_macro_arg(&mut self, index: usize, ctx: &mut ExprCtx) -> Result<Expr> {
        let arg = self.macro_args[index].clone();
        // The caller's scope, preceded by the parameters of the body's lambdas the
        // parameter stands in (a lambda's scope is its parameters, then the row's
        // columns), which are hidden so that an argument's column reads the row.
        let hide_lambdas = |scope: &Scope| {
            let extra = scope.fields.len().saturating_sub(arg.scope.fields.len());
            let mut hidden = scope.clone();
            for (f, v) in hidden.fields[..extra]
                .iter_mut()
                .zip(&mut hidden.visibility)
            {
                f.name = String::new();
                f.qualifier = None;
                *v = Visibility::Qualified;
            }
            hidden.visibility[extra..].copy_from_slice(&arg.scope.visibility);
            hidden
        };
        if self.outer_scopes.len() == arg.level {
            let scope = hide_lambdas(ctx.scope);
            let mut inner = ExprCtx {
                scope: &scope,
                aggregates: ctx.aggregates.as_deref_mut(),
                windows: ctx.windows.as_deref_mut(),
                clause: ctx.clause,
            };
            return self.bind_expr(&arg.value, &mut inner);
        }
        // Inside a subquery of the body: the caller's columns are outer columns, and
        // the scopes of the body's subqueries in between are emptied.
        let saved = self.outer_scopes.clone();
        if let Some(caller) = self.outer_scopes.get(arg.level) {
            self.outer_scopes[arg.level] = hide_lambdas(caller);
        }
        for s in self.outer_scopes.iter_mut().skip(arg.level + 1) {
            *s = Scope::default();
        }
        let empty = Scope::default();
        let mut inner = ExprCtx::new(&empty, ctx.clause);
        let bound = self.bind_expr(&arg.value, &mut inner);
        self.outer_scopes = saved;
        bound
    }

    /// A table macro call in FROM: its query with the arguments in place, bound in a
    /// context of its own.
    pub(crate) fn bind_table_macro(
        &mut self,
        def: &MacroDef,
        args: &[ast::FunctionArg],
    ) -> Result<LogicalPlan> {
        let ast::MacroDefinition::Table(query) = &def.body else {
            return Err(Error::catalog(format!(
                "Table Function with name {} does not exist! {} is a scalar macro: call it in an expression",
                def.name, def.name
            )));
        };
        let values = self.macro_arguments(def, args)?;
        let mut query = query.clone();
        substitute(query.as_mut(), &def.params, &values);
        self.enter_macro(&def.name)?;
        let ctes = std::mem::take(&mut self.ctes);
        let outer = std::mem::take(&mut self.outer_scopes);
        let outer_aggregates = std::mem::take(&mut self.outer_aggregates);
        let plan = self.bind_query(&query);
        self.ctes = ctes;
        self.outer_scopes = outer;
        self.outer_aggregates = outer_aggregates;
        self.macro_stack.pop();
        plan
    }

    /// One more macro expansion, `name`, unless that nests too deeply: then the
    /// expansion is refused, naming the cycle when there is one.
    fn enter_macro(&mut self, name: &str) -> Result<()> {
        if self.macro_stack.len() >= MAX_MACRO_DEPTH {
            let stack = &self.macro_stack;
            let first = stack
                .iter()
                .position(|n| stack.iter().filter(|m| *m == n).count() > 1);
            return Err(match first {
                Some(i) => {
                    let again = stack[i + 1..]
                        .iter()
                        .position(|n| *n == stack[i])
                        .map_or(stack.len(), |j| i + 1 + j);
                    Error::binder(format!(
                        "macro \"{}\" expands into itself ({}); a macro may not call itself, directly or through other macros",
                        stack[i],
                        stack[i..=again].join(" -> ")
                    ))
                }
                None => Error::binder(format!(
                    "macros nest more than {MAX_MACRO_DEPTH} levels deep"
                )),
            });
        }
        self.macro_stack.push(name.to_ascii_lowercase());
        Ok(())
    }

    /// The argument standing for each of the macro's parameters: positional ones in
    /// order, named ones (`p := value`) by name, defaults for the rest; a parameter
    /// without a default must be given, and none twice.
    fn macro_arguments(
        &mut self,
        def: &MacroDef,
        args: &[ast::FunctionArg],
    ) -> Result<Vec<ast::Expr>> {
        let mismatch = || {
            Error::binder(format!(
                "Macro \"{}\"() does not support the supplied arguments. You might need to add explicit type casts.\nCandidate macros:\n\t{}",
                def.name,
                def.signature()
            ))
        };
        let mut values: Vec<Option<ast::Expr>> = vec![None; def.params.len()];
        let mut positional = 0;
        for a in args {
            match a {
                ast::FunctionArg::Named {
                    name,
                    arg: ast::FunctionArgExpr::Expr(e),
                    operator:
                        ast::FunctionArgOperator::Assignment | ast::FunctionArgOperator::RightArrow,
                }
                | ast::FunctionArg::ExprNamed {
                    name: ast::Expr::Identifier(name),
                    arg: ast::FunctionArgExpr::Expr(e),
                    operator:
                        ast::FunctionArgOperator::Assignment | ast::FunctionArgOperator::RightArrow,
                } => {
                    let i = def
                        .params
                        .iter()
                        .position(|p| p.value.eq_ignore_ascii_case(&name.value))
                        .ok_or_else(mismatch)?;
                    if values[i].is_some() {
                        return Err(mismatch());
                    }
                    values[i] = Some(e.clone());
                }
                other => {
                    let e = super::function::positional(other).ok_or_else(mismatch)?;
                    if positional >= values.len() || values[positional].is_some() {
                        return Err(mismatch());
                    }
                    values[positional] = Some(e.into_owned());
                    positional += 1;
                }
            }
        }
        values
            .into_iter()
            .zip(&def.defaults)
            .map(|(v, d)| v.or_else(|| d.clone()).ok_or_else(mismatch))
            .collect()
    }
}

/// A scalar macro's argument, waiting to be bound where the macro was called.
#[derive(Debug, Clone)]
pub(crate) struct MacroArg {
    value: ast::Expr,
    /// How many enclosing queries the caller had (`outer_scopes.len()`).
    level: usize,
    /// The names the caller saw.
    scope: Scope,
}

/// What marks a parameter in a scalar macro's body: a name no query can write.
const MARKER: &str = "\u{0}macro argument ";

/// The name standing for the `index`-th of [`Binder::macro_args`].
fn marker(index: usize) -> ast::Expr {
    ast::Expr::Identifier(ast::Ident::new(format!("{MARKER}{index}")))
}

/// The index into [`Binder::macro_args`] that `name` stands for, if it is a marker.
pub(super) fn macro_arg_index(name: &str) -> Option<usize> {
    name.strip_prefix(MARKER)?.parse().ok()
}

/// Replaces, everywhere in `node`, each unqualified name equal to one of `params` by
/// the value standing for it, in parentheses (so `x * 2` with `x := a + 1` stays
/// `(a + 1) * 2`), except inside a lambda with a parameter of that name, which hides
/// the macro's. Values put in place are not looked into again.
fn substitute<V: ast::VisitMut>(node: &mut V, params: &[ast::Ident], values: &[ast::Expr]) {
    struct Substitute<'a> {
        params: &'a [ast::Ident],
        values: &'a [ast::Expr],
        /// The parameters of the lambdas being visited.
        lambdas: Vec<Vec<String>>,
    }
    impl ast::VisitorMut for Substitute<'_> {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &mut ast::Expr) -> ControlFlow<()> {
            if let ast::Expr::Lambda(l) = e {
                self.lambdas
                    .push(l.params.iter().map(|p| p.name.value.clone()).collect());
            }
            ControlFlow::Continue(())
        }
        fn post_visit_expr(&mut self, e: &mut ast::Expr) -> ControlFlow<()> {
            match e {
                ast::Expr::Lambda(_) => {
                    self.lambdas.pop();
                }
                ast::Expr::Identifier(id) => {
                    let same = |n: &str| n.eq_ignore_ascii_case(&id.value);
                    let hidden = self.lambdas.iter().flatten().any(|n| same(n));
                    if let Some(i) = self.params.iter().position(|p| same(&p.value)) {
                        if !hidden {
                            *e = ast::Expr::Nested(Box::new(self.values[i].clone()));
                        }
                    }
                }
                _ => {}
            }
            ControlFlow::Continue(())
        }
    }
    let _ = node.visit(&mut Substitute {
        params,
        values,
        lambdas: Vec::new(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitutes_parameters_not_qualified_names() {
        let def =
            parse_macro("CREATE MACRO f(x, y := 5) AS x * y + t.x + (SELECT x FROM t)").unwrap();
        let ast::MacroDefinition::Expr(mut body) = def.body else {
            panic!("a scalar macro")
        };
        let a = crate::parser::parse("SELECT a + 1, x").unwrap();
        let ast::Statement::Query(q) = &a[0] else {
            panic!()
        };
        let ast::SetExpr::Select(s) = q.body.as_ref() else {
            panic!()
        };
        let values: Vec<ast::Expr> = s
            .projection
            .iter()
            .map(|i| match i {
                ast::SelectItem::UnnamedExpr(e) => e.clone(),
                _ => panic!(),
            })
            .collect();
        substitute(&mut body, &def.params, &values);
        // The value `x` put in place for y is not replaced again.
        assert_eq!(
            body.to_string(),
            "(a + 1) * (x) + t.x + (SELECT (a + 1) FROM t)"
        );
    }
}
