//! Name resolution scopes: the columns visible to an expression (the input of the node
//! that will evaluate it), each with the table name or alias that qualifies it.

use super::did_you_mean;
use crate::plan::{Expr, Field};
use stride_common::Error;

#[derive(Debug, Clone, Default)]
pub struct Scope {
    pub fields: Vec<Field>,
    /// How each field may be named.
    pub visibility: Vec<Visibility>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    /// Named with or without a qualifier, and part of `*`.
    Visible,
    /// Reachable only with a qualifier and left out of `*` (the right-hand copies of
    /// USING / NATURAL join columns).
    Qualified,
    /// A pseudo-column (a table's `rowid`): reachable by name when no visible column
    /// has that name, and never part of `*`.
    Pseudo,
}

pub enum Lookup {
    Found(usize),
    NotFound,
    Ambiguous,
}

impl Scope {
    pub fn new(fields: Vec<Field>) -> Self {
        let visibility = vec![Visibility::Visible; fields.len()];
        Scope { fields, visibility }
    }

    /// Whether field `i` is named by an unqualified reference.
    pub fn is_visible(&self, i: usize) -> bool {
        self.visibility[i] == Visibility::Visible
    }

    pub fn lookup(&self, qualifier: Option<&str>, name: &str) -> Lookup {
        match self.lookup_among(qualifier, name, false) {
            Lookup::NotFound => self.lookup_among(qualifier, name, true),
            found => found,
        }
    }

    /// Finds `name` among the pseudo-columns (`pseudo`) or the other fields.
    fn lookup_among(&self, qualifier: Option<&str>, name: &str, pseudo: bool) -> Lookup {
        let mut found = None;
        for (i, f) in self.fields.iter().enumerate() {
            if (self.visibility[i] == Visibility::Pseudo) != pseudo {
                continue;
            }
            let name_ok = f.name.eq_ignore_ascii_case(name);
            let qual_ok = match qualifier {
                None => self.visibility[i] != Visibility::Qualified,
                Some(q) => f
                    .qualifier
                    .as_deref()
                    .is_some_and(|fq| fq.eq_ignore_ascii_case(q)),
            };
            if name_ok && qual_ok {
                if found.is_some() {
                    return Lookup::Ambiguous;
                }
                found = Some(i);
            }
        }
        if pseudo {
            return found.map_or(Lookup::NotFound, Lookup::Found);
        }
        if found.is_none() && qualifier.is_none() {
            // As in PostgreSQL, the alias of a one-column FROM item (`generate_series(1,
            // 3) s`) also names its column.
            let mut of_alias = self.fields.iter().enumerate().filter(|(_, f)| {
                f.qualifier
                    .as_deref()
                    .is_some_and(|q| q.eq_ignore_ascii_case(name))
            });
            if let (Some((i, _)), None) = (of_alias.next(), of_alias.next()) {
                found = Some(i);
            }
        }
        found.map_or(Lookup::NotFound, Lookup::Found)
    }

    pub fn has_qualifier(&self, q: &str) -> bool {
        self.fields.iter().any(|f| {
            f.qualifier
                .as_deref()
                .is_some_and(|fq| fq.eq_ignore_ascii_case(q))
        })
    }

    /// A reference to field `i`, marked with its collation if it has one.
    pub fn column(&self, i: usize) -> Expr {
        let f = &self.fields[i];
        super::collation::mark(Expr::column(i, f.ty.clone(), f.name.clone()), f.collation)
    }
}

/// The error for a column no scope knows, with a suggestion.
pub fn column_not_found(qualifier: Option<&str>, name: &str, scopes: &[&Scope]) -> Error {
    let full = match qualifier {
        Some(q) => format!("{q}.{name}"),
        None => name.to_string(),
    };
    if let Some(q) = qualifier {
        if !scopes.iter().any(|s| s.has_qualifier(q)) {
            return Error::binder(format!(
                "Referenced table \"{q}\" not found in FROM clause (column \"{full}\")"
            ));
        }
    }
    let candidates: Vec<String> = scopes
        .iter()
        .flat_map(|s| s.fields.iter())
        .map(|f| match &f.qualifier {
            Some(q) if qualifier.is_some() => format!("{q}.{}", f.name),
            _ => f.name.clone(),
        })
        .collect();
    let mut msg = format!("Referenced column \"{full}\" not found in FROM clause!");
    if let Some(s) = did_you_mean(&full, candidates.iter().map(|s| s.as_str())) {
        msg.push_str(&format!(" Did you mean \"{s}\"?"));
    }
    Error::binder(msg)
}
