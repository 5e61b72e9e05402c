//! `*` and `t.*` in a select list, with DuckDB's modifiers: `EXCLUDE (a, t.b)` leaves
//! columns out, `REPLACE (expr AS a)` computes a column in its place under its name,
//! and `RENAME (a AS b)` gives a column another name. Bound while the select list is
//! (binder/select.rs), into one (expression, name) pair per output column.
//!
//! A name in a modifier list that no expanded column has is an error, as is a name
//! listed twice; names compare case-insensitively, like every SQL identifier.

use super::expr::ExprCtx;
use super::scope::Visibility;
use super::Binder;
use crate::plan::expr::Expr;
use sqlparser::ast;
use stride_common::{Error, Result};

/// One modifier entry: the column it names (qualifier optional) and whether a column
/// matched it.
struct Named {
    qualifier: Option<String>,
    name: String,
    used: bool,
}

impl Named {
    fn new(parts: &[String]) -> Result<Named> {
        match parts {
            [name] => Ok(Named {
                qualifier: None,
                name: name.clone(),
                used: false,
            }),
            [.., q, name] => Ok(Named {
                qualifier: Some(q.clone()),
                name: name.clone(),
                used: false,
            }),
            [] => Err(Error::binder("empty column name in * modifier")),
        }
    }

    fn matches(&self, qualifier: Option<&str>, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name)
            && self
                .qualifier
                .as_deref()
                .is_none_or(|q| qualifier.is_some_and(|fq| fq.eq_ignore_ascii_case(q)))
    }

    fn display(&self) -> String {
        match &self.qualifier {
            Some(q) => format!("{q}.{}", self.name),
            None => self.name.clone(),
        }
    }
}

fn no_duplicates(list: &[Named], what: &str) -> Result<()> {
    for (i, a) in list.iter().enumerate() {
        if list[..i]
            .iter()
            .any(|b| b.name.eq_ignore_ascii_case(&a.name) && b.qualifier == a.qualifier)
        {
            return Err(Error::parse(format!(
                "Duplicate entry \"{}\" in {what} list",
                a.display()
            )));
        }
    }
    Ok(())
}

fn unused(list: &[Named], what: &str) -> Result<()> {
    match list.iter().find(|n| !n.used) {
        Some(n) => Err(Error::binder(format!(
            "Column \"{}\" in {what} list not found in FROM clause",
            n.display()
        ))),
        None => Ok(()),
    }
}

fn ident(id: &ast::Ident) -> String {
    super::expr::ident_name(id)
}

/// The columns `*` (or `qualifier.*`) stands for, after its modifiers.
pub(super) fn expand(
    b: &mut Binder,
    ctx: &mut ExprCtx,
    qualifier: Option<&str>,
    opts: &ast::WildcardAdditionalOptions,
) -> Result<Vec<(Expr, String)>> {
    if opts.opt_ilike.is_some() || opts.opt_except.is_some() {
        return Err(Error::not_supported(
            "* ILIKE and * EXCEPT are not supported; use * EXCLUDE (...) or COLUMNS('regex')",
        ));
    }
    let mut exclude = Vec::new();
    match &opts.opt_exclude {
        Some(ast::ExcludeSelectItem::Single(n)) => exclude.push(Named::new(&object_parts(n)?)?),
        Some(ast::ExcludeSelectItem::Multiple(ns)) => {
            for n in ns {
                exclude.push(Named::new(&object_parts(n)?)?);
            }
        }
        None => {}
    }
    no_duplicates(&exclude, "EXCLUDE")?;
    let mut replace: Vec<(Named, &ast::Expr)> = Vec::new();
    if let Some(r) = &opts.opt_replace {
        for item in &r.items {
            replace.push((Named::new(&[ident(&item.column_name)])?, &item.expr));
        }
    }
    let names: Vec<Named> = replace
        .iter()
        .map(|(n, _)| Named::new(&[n.name.clone()]))
        .collect::<Result<_>>()?;
    no_duplicates(&names, "REPLACE")?;
    let mut rename: Vec<(Named, String)> = Vec::new();
    let renames: Vec<&ast::IdentWithAlias> = match &opts.opt_rename {
        Some(ast::RenameSelectItem::Single(r)) => vec![r],
        Some(ast::RenameSelectItem::Multiple(rs)) => rs.iter().collect(),
        None => vec![],
    };
    for r in renames {
        rename.push((Named::new(&[ident(&r.ident)])?, ident(&r.alias)));
    }
    let names: Vec<Named> = rename
        .iter()
        .map(|(n, _)| Named::new(&[n.name.clone()]))
        .collect::<Result<_>>()?;
    no_duplicates(&names, "RENAME")?;

    let scope = ctx.scope;
    let mut out = Vec::new();
    for (i, f) in scope.fields.iter().enumerate() {
        let included = match qualifier {
            None => scope.is_visible(i),
            Some(q) => {
                scope.visibility[i] != Visibility::Pseudo
                    && f.qualifier
                        .as_deref()
                        .is_some_and(|fq| fq.eq_ignore_ascii_case(q))
            }
        };
        if !included {
            continue;
        }
        let fq = f.qualifier.as_deref();
        let mut excluded = false;
        for n in exclude.iter_mut().filter(|n| n.matches(fq, &f.name)) {
            n.used = true;
            excluded = true;
        }
        if excluded {
            continue;
        }
        let mut expr = scope.column(i);
        let mut name = f.name.clone();
        if let Some((n, e)) = replace.iter_mut().find(|(n, _)| n.matches(fq, &f.name)) {
            // Replacing one of several columns of that name would put a computed
            // value in the place of another table's column.
            if n.used {
                return Err(Error::binder(format!(
                    "REPLACE column \"{}\" is ambiguous: the star has several columns of that name; qualify the star (t.* REPLACE (...)) or EXCLUDE the others",
                    f.name
                )));
            }
            n.used = true;
            let e: &ast::Expr = e;
            expr = b.bind_expr(e, ctx)?;
        }
        if let Some((n, to)) = rename.iter_mut().find(|(n, _)| n.matches(fq, &f.name)) {
            n.used = true;
            name = to.clone();
        }
        out.push((expr, name));
    }
    unused(&exclude, "EXCLUDE")?;
    let replaced: Vec<Named> = replace.into_iter().map(|(n, _)| n).collect();
    unused(&replaced, "REPLACE")?;
    let renamed: Vec<Named> = rename.into_iter().map(|(n, _)| n).collect();
    unused(&renamed, "RENAME")?;
    Ok(out)
}

fn object_parts(n: &ast::ObjectName) -> Result<Vec<String>> {
    n.0.iter()
        .map(|p| match p {
            ast::ObjectNamePart::Identifier(id) => Ok(ident(id)),
            other => Err(Error::not_supported(format!(
                "{other} in a * modifier is not supported"
            ))),
        })
        .collect()
}
