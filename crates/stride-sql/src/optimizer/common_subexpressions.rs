//! Pass `common_subexpressions`: an expression that several aggregate arguments of one
//! GROUP BY share is computed once, in a projection below the aggregate. TPC-H Q1
//! sums `l_extendedprice * (1 - l_discount)` and that product times `(1 + l_tax)`;
//! the product is then evaluated once per row instead of twice.
//!
//! Only unconditionally evaluated parts are shared: nothing under CASE, COALESCE,
//! AND or OR (whose other branches may guard against an error, such as a division
//! by zero), nothing in an aggregate with FILTER (evaluated on the filtered rows
//! only), and nothing that reads an enclosing query's columns.

use crate::plan::visit::children_mut;
use crate::plan::{Expr, Field, LogicalPlan};
use stride_common::Result;

pub fn optimize(mut plan: LogicalPlan) -> Result<LogicalPlan> {
    for c in children_mut(&mut plan) {
        let child = std::mem::replace(c, super::placeholder());
        *c = optimize(child)?;
    }
    let LogicalPlan::Aggregate {
        input,
        group_by,
        mut aggregates,
        schema,
    } = plan
    else {
        return Ok(plan);
    };
    let mut shared: Vec<Expr> = Vec::new();
    let n = input.schema().len();
    loop {
        // The largest expression that occurs at least twice, if any.
        let mut seen: Vec<(&Expr, usize)> = Vec::new();
        for a in aggregates.iter().filter(|a| a.filter.is_none()) {
            for arg in &a.args {
                count(arg, &mut seen);
            }
        }
        let Some(best) = seen
            .into_iter()
            .filter(|(_, k)| *k >= 2)
            .map(|(e, _)| e)
            .max_by_key(|e| size(e))
            .cloned()
        else {
            break;
        };
        let name = format!("shared{}", shared.len());
        let column = Expr::column(n + shared.len(), best.data_type(), name);
        for a in aggregates.iter_mut().filter(|a| a.filter.is_none()) {
            for arg in a.args.iter_mut() {
                replace(arg, &best, &column);
            }
        }
        shared.push(best);
    }
    if shared.is_empty() {
        return Ok(LogicalPlan::Aggregate {
            input,
            group_by,
            aggregates,
            schema,
        });
    }
    let mut fields = input.schema().to_vec();
    let mut exprs: Vec<Expr> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| Expr::column(i, f.ty.clone(), f.name.clone()))
        .collect();
    for (i, e) in shared.into_iter().enumerate() {
        fields.push(Field::new(format!("shared{i}"), e.data_type()));
        exprs.push(e);
    }
    Ok(LogicalPlan::Aggregate {
        input: Box::new(LogicalPlan::Project {
            input,
            exprs,
            schema: fields,
        }),
        group_by,
        aggregates,
        schema,
    })
}

/// Whether computing `e` once is worth a column: it does work (a function or a cast)
/// and depends only on the input row (two calls of `random()` are two values).
fn shareable(e: &Expr) -> bool {
    matches!(e, Expr::Function { .. } | Expr::Cast { .. })
        && !e.has_subquery()
        && !e.calls_volatile()
        && !e.any(&mut |x| matches!(x, Expr::OuterColumn { .. }))
}

/// Counts `e` and its unconditionally evaluated subexpressions into `seen`.
fn count<'a>(e: &'a Expr, seen: &mut Vec<(&'a Expr, usize)>) {
    if shareable(e) {
        match seen.iter_mut().find(|(x, _)| *x == e) {
            Some((_, k)) => *k += 1,
            None => seen.push((e, 1)),
        }
    }
    if let Expr::Function { .. } | Expr::Cast { .. } = e {
        for c in e.children() {
            count(c, seen);
        }
    }
}

/// Replaces every unconditionally evaluated occurrence of `what` in `e` by `with`.
fn replace(e: &mut Expr, what: &Expr, with: &Expr) {
    if e == what {
        *e = with.clone();
    } else if let Expr::Function { .. } | Expr::Cast { .. } = e {
        for c in e.children_mut() {
            replace(c, what, with);
        }
    }
}

/// Nodes in `e`.
fn size(e: &Expr) -> usize {
    1 + e.children().into_iter().map(size).sum::<usize>()
}
