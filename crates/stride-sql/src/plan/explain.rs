//! Pieces of EXPLAIN's description of a plan node that name logical plan parts
//! (aggregates, sort keys, join kinds, set operations); the physical plan's EXPLAIN
//! (`stride-exec/src/explain.rs`) renders the tree with them.

use super::logical::{AggregateExpr, JoinKind, SetOpKind, SortExpr};

pub fn join_list<T: ToString>(items: impl IntoIterator<Item = T>) -> String {
    items
        .into_iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `sum(x), count(DISTINCT y)`.
pub fn aggregates_text(aggregates: &[AggregateExpr]) -> String {
    join_list(aggregates.iter().map(|a| {
        format!(
            "{}({}{})",
            a.func.name(),
            if a.distinct { "DISTINCT " } else { "" },
            join_list(&a.args)
        )
    }))
}

/// `x ASC, y DESC`.
pub fn sort_keys_text(keys: &[SortExpr]) -> String {
    join_list(
        keys.iter()
            .map(|k| format!("{} {}", k.expr, if k.asc { "ASC" } else { "DESC" })),
    )
}

pub fn join_kind_name(kind: JoinKind) -> &'static str {
    match kind {
        JoinKind::Inner => "INNER",
        JoinKind::Left => "LEFT",
        JoinKind::Right => "RIGHT",
        JoinKind::Full => "FULL",
        JoinKind::Semi => "SEMI",
        JoinKind::Anti => "ANTI",
    }
}

/// `UNION ALL`, `EXCEPT`, ...
pub fn set_op_text(kind: SetOpKind, all: bool) -> String {
    let k = match kind {
        SetOpKind::Union => "UNION",
        SetOpKind::Intersect => "INTERSECT",
        SetOpKind::Except => "EXCEPT",
    };
    format!("{k}{}", if all { " ALL" } else { "" })
}
