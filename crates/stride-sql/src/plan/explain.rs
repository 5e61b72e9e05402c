//! EXPLAIN output for logical plans: one line per node, children indented below. The
//! pieces of a node's description are shared with the physical plan's EXPLAIN
//! ANALYZE (`stride-exec/src/explain.rs`).

use super::logical::{
    AggregateExpr, DeferredFunction, JoinKind, LogicalPlan, SetOpKind, SortExpr, TableFunction,
};
use std::fmt::Write;

pub fn explain(plan: &LogicalPlan) -> String {
    let mut out = String::new();
    render(plan, 0, &mut out);
    out
}

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

fn render(plan: &LogicalPlan, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    let line = match plan {
        LogicalPlan::Scan { table, columns, .. } => {
            format!(
                "SEQ_SCAN {} [{}]",
                table.name,
                join_list(
                    columns
                        .iter()
                        .map(|&c| table.columns.get(c).map_or("rowid", |c| c.name.as_str()))
                )
            )
        }
        LogicalPlan::TableFunction {
            func: TableFunction::ReadCsv { source, columns },
            ..
        } => {
            let r = &source.0;
            let names = r.schema();
            format!(
                "READ_CSV {} [{}]",
                r.files
                    .iter()
                    .map(|f| f.path.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                join_list(columns.iter().map(|&c| &names[c].0))
            )
        }
        LogicalPlan::TableFunction {
            func: TableFunction::Registered { data, columns },
            ..
        } => format!(
            "REGISTERED [{}]",
            join_list(columns.iter().map(|&c| &data.0.names[c]))
        ),
        LogicalPlan::TableFunction {
            func: TableFunction::ReadColumnar { source, columns },
            ..
        } => {
            let r = &source.0;
            format!(
                "{} {} [{}]",
                r.function_name(),
                r.paths().join(", "),
                join_list(columns.iter().map(|&c| &r.names()[c]))
            )
        }
        LogicalPlan::CteRef { body, .. } => {
            // The body is shown under each reference; it runs once.
            let _ = writeln!(out, "{pad}CTE_SCAN (computed once)");
            render(body, depth + 1, out);
            return;
        }
        LogicalPlan::Values { rows, schema } => {
            format!("VALUES ({} rows, {} columns)", rows.len(), schema.len())
        }
        LogicalPlan::TableFunction {
            func:
                TableFunction::Range {
                    start,
                    stop,
                    step,
                    inclusive,
                },
            ..
        } => {
            format!(
                "{}({start}, {stop}, {step})",
                if *inclusive {
                    "GENERATE_SERIES"
                } else {
                    "RANGE"
                }
            )
        }
        LogicalPlan::TableFunction {
            func: TableFunction::Deferred { func, args },
            ..
        } => {
            let name = match func {
                DeferredFunction::Unnest => "UNNEST",
                DeferredFunction::Series { inclusive: true } => "GENERATE_SERIES",
                DeferredFunction::Series { inclusive: false } => "RANGE",
                DeferredFunction::JsonEach { tree: false } => "JSON_EACH",
                DeferredFunction::JsonEach { tree: true } => "JSON_TREE",
            };
            format!("{name}({})", join_list(args))
        }
        LogicalPlan::Filter { predicate, .. } => format!("FILTER {predicate}"),
        LogicalPlan::Project { exprs, .. } => format!("PROJECTION {}", join_list(exprs)),
        LogicalPlan::Unnest { lists, .. } => format!("UNNEST {}", join_list(lists)),
        LogicalPlan::LateralJoin { kind, .. } => {
            format!("LATERAL_JOIN {}", join_kind_name(*kind))
        }
        LogicalPlan::RecursiveCte { all, .. } => {
            format!("RECURSIVE_CTE (UNION{})", if *all { " ALL" } else { "" })
        }
        LogicalPlan::RecursiveRef { .. } => "RECURSIVE_CTE_SCAN (the last round's rows)".into(),
        LogicalPlan::Window { functions, .. } => format!(
            "WINDOW {}",
            join_list(functions.iter().map(super::logical::WindowExpr::describe))
        ),
        LogicalPlan::Aggregate {
            group_by,
            aggregates,
            ..
        } => format!(
            "AGGREGATE groups=[{}] aggregates=[{}]",
            join_list(group_by),
            aggregates_text(aggregates)
        ),
        LogicalPlan::Sort { keys, .. } => format!("ORDER_BY {}", sort_keys_text(keys)),
        LogicalPlan::Limit { limit, offset, .. } => {
            format!(
                "LIMIT {} OFFSET {offset}",
                limit.map_or("ALL".to_string(), |l| l.to_string())
            )
        }
        LogicalPlan::Join {
            kind, on, filter, ..
        } => {
            let k = join_kind_name(*kind);
            let mut s = format!(
                "{}_JOIN",
                if on.is_empty() { "NESTED_LOOP" } else { "HASH" }
            );
            write!(s, " {k}").ok();
            if !on.is_empty() {
                write!(
                    s,
                    " on=[{}]",
                    join_list(on.iter().map(|(a, b)| format!("{a} = {b}")))
                )
                .ok();
            }
            if let Some(f) = filter {
                write!(s, " filter={f}").ok();
            }
            s
        }
        LogicalPlan::SetOp { kind, all, .. } => set_op_text(*kind, *all),
    };
    let _ = writeln!(out, "{pad}{line}");
    for c in plan.children() {
        render(c, depth + 1, out);
    }
    // A lateral join's subquery shows below its left input.
    if let LogicalPlan::LateralJoin { right, .. } = plan {
        if let super::expr::Expr::Subquery(s) = &**right {
            render(&s.plan, depth + 1, out);
        }
    }
}
