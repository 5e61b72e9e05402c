//! Pass `distinct_aggregates`: an aggregate whose calls are all DISTINCT over the same
//! arguments (`count(DISTINCT x)`, `sum(DISTINCT x)`, ...) becomes two plain hash
//! aggregations: first GROUP BY the groups and the arguments (which removes the
//! duplicates in parallel), then the aggregates without DISTINCT over that result.
//! Mixed or ordered aggregates keep the operator's buffered path.

use crate::plan::visit::children_mut;
use crate::plan::{AggregateExpr, Expr, Field, LogicalPlan};
use stride_common::Result;

pub fn optimize(mut plan: LogicalPlan) -> Result<LogicalPlan> {
    for c in children_mut(&mut plan) {
        let child = std::mem::replace(
            c,
            LogicalPlan::Values {
                rows: vec![],
                schema: vec![],
            },
        );
        *c = optimize(child)?;
    }
    Ok(match plan {
        LogicalPlan::Aggregate {
            input,
            group_by,
            aggregates,
            schema,
        } if rewritable(&aggregates) => {
            let args = aggregates[0].args.clone();
            let ng = group_by.len();
            let mut inner_groups = group_by.clone();
            inner_groups.extend(args.iter().cloned());
            let inner_schema: Vec<Field> = inner_groups
                .iter()
                .enumerate()
                .map(|(i, e)| Field::new(format!("group{i}"), e.data_type()))
                .collect();
            let inner = LogicalPlan::Aggregate {
                input,
                group_by: inner_groups,
                aggregates: vec![],
                schema: inner_schema,
            };
            let outer_groups = (0..ng)
                .map(|i| Expr::column(i, group_by[i].data_type(), format!("group{i}")))
                .collect();
            let outer_aggs = aggregates
                .into_iter()
                .map(|a| AggregateExpr {
                    args: (0..args.len())
                        .map(|j| Expr::column(ng + j, args[j].data_type(), format!("arg{j}")))
                        .collect(),
                    distinct: false,
                    ..a
                })
                .collect();
            LogicalPlan::Aggregate {
                input: Box::new(inner),
                group_by: outer_groups,
                aggregates: outer_aggs,
                schema,
            }
        }
        other => other,
    })
}

fn rewritable(aggs: &[AggregateExpr]) -> bool {
    let Some(first) = aggs.first() else {
        return false;
    };
    !first.args.is_empty()
        && aggs.iter().all(|a| {
            a.distinct && a.filter.is_none() && a.order_by.is_empty() && a.args == first.args
        })
        && !first.args.iter().any(|e| e.has_subquery())
}
