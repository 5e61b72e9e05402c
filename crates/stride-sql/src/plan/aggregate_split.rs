//! Aggregates computed in two steps: parts over some rows, then the combination of
//! those parts over the groups they fall in. count and count(*) combine as sums,
//! sum as a sum, min and max as their own kind, and avg from a sum and a count
//! (`AvgOfParts`, the same state as avg's, so the mean is rounded as a direct avg
//! rounds it). DISTINCT, FILTER and ORDER BY inside the call, and every other
//! aggregate, do not split.
//!
//! Where it sits: binding ROLLUP and CUBE, where the coarser grouping sets combine
//! the finest one's results (`binder/grouping_sets.rs`), and the optimizer's
//! `eager_aggregation`, which aggregates one side of a join before the join.

use super::{AggregateExpr, Expr};
use stride_common::DataType;
use stride_functions::aggregate::{resolve_aggregate, AggregateFunction as F};

/// One aggregate in two steps.
pub struct Split {
    /// What the first step computes, over the aggregate's own arguments.
    pub parts: Vec<AggregateExpr>,
    /// The second step, over the parts' results (its arguments are set by
    /// [`Split::combine`]).
    combine: AggregateExpr,
}

/// `a` in two steps, where it splits.
pub fn split(a: &AggregateExpr) -> Option<Split> {
    if a.distinct || a.filter.is_some() || !a.order_by.is_empty() {
        return None;
    }
    let call = |func: F, args: Vec<Expr>, ty: DataType| AggregateExpr {
        func,
        args,
        distinct: false,
        filter: None,
        order_by: vec![],
        ty,
    };
    let part = |name: &str| -> Option<AggregateExpr> {
        let types: Vec<DataType> = a.args.iter().map(Expr::data_type).collect();
        let bound = resolve_aggregate(name, &types).ok()??;
        (bound.arg_types == types).then(|| call(bound.func, a.args.clone(), bound.return_type))
    };
    let (parts, combine) = match a.func {
        F::CountStar => (vec![part("count")?], "sum"),
        F::Count if a.args.len() == 1 => (vec![part("count")?], "sum"),
        F::Sum if a.args.len() == 1 => (vec![part("sum")?], "sum"),
        F::Min if a.args.len() == 1 => (vec![part("min")?], "min"),
        F::Max if a.args.len() == 1 => (vec![part("max")?], "max"),
        F::Avg if a.args.len() == 1 && a.args[0].data_type().is_numeric() => {
            let parts = vec![part("sum")?, part("count")?];
            let combine = call(F::AvgOfParts, vec![], a.ty.clone());
            return Some(Split { parts, combine });
        }
        _ => return None,
    };
    let types: Vec<DataType> = parts.iter().map(|p| p.ty.clone()).collect();
    let bound = resolve_aggregate(combine, &types).ok()??;
    (bound.arg_types == types).then(|| Split {
        parts,
        combine: call(bound.func, vec![], bound.return_type),
    })
}

impl Split {
    /// The second step, reading the parts from input columns `first`, `first + 1`,
    /// ... Its result may be wider than the aggregate's (a sum of counts is a
    /// HUGEINT): the caller casts it back.
    pub fn combine(&self, first: usize) -> AggregateExpr {
        let args = self
            .parts
            .iter()
            .enumerate()
            .map(|(i, p)| Expr::column(first + i, p.ty.clone(), format!("agg{}", first + i)))
            .collect();
        AggregateExpr {
            args,
            ..self.combine.clone()
        }
    }
}
