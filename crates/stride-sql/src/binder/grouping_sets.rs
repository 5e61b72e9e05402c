//! GROUPING SETS, ROLLUP and CUBE, and GROUPING() / GROUPING_ID().
//!
//! Where it sits: binding a SELECT (`select.rs`). GROUP BY's items expand into a list
//! of grouping sets (the cross product of the items' alternatives: `a, ROLLUP(b, c)`
//! is `(a, b, c), (a, b), (a)`). With one set the query groups as usual. With several,
//! [`grouped_union`] builds one aggregate per set over the shared FROM rows and a
//! UNION ALL of them, each laid out as the aggregate of all the sets' expressions
//! would be (NULL in the columns a set does not group by), with one more column per
//! GROUPING() call holding that set's constant bits; HAVING and the select list then
//! read it like any aggregate's output. When one set contains every other (ROLLUP,
//! CUBE) and every aggregate splits into parts and their combination
//! (`plan/aggregate_split.rs`), only that finest set reads the FROM rows; the others
//! aggregate its result.

use super::expr::ExprCtx;
use super::Binder;
use crate::plan::aggregate_split::split;
use crate::plan::expr::next_subquery_id;
use crate::plan::visit::references_outer;
use crate::plan::{aggregate_schema, AggregateExpr, Expr, Field, LogicalPlan, SetOpKind};
use sqlparser::ast;
use std::sync::Arc;
use stride_common::{DataType, Error, Result, ScalarValue};

/// Most grouping sets one GROUP BY may expand to (CUBE of 12 columns is 4096).
const MAX_SETS: usize = 4096;

impl Binder<'_> {
    /// The grouping sets of GROUP BY `items`: each a list of expressions bound by
    /// `bind` (ordinals, aliases, or expressions over FROM).
    pub(super) fn grouping_sets(
        &mut self,
        items: &[ast::Expr],
        with_rollup: bool,
        bind: &mut dyn FnMut(&mut Self, &ast::Expr) -> Result<Expr>,
    ) -> Result<Vec<Vec<Expr>>> {
        let mut sets: Vec<Vec<Expr>> = vec![vec![]];
        let mut plain: Vec<Expr> = Vec::new();
        for item in items {
            let alternatives = self.alternatives(item, bind)?;
            if with_rollup && alternatives.len() == 1 {
                plain.extend(alternatives[0].iter().cloned());
            }
            let mut next = Vec::new();
            for s in &sets {
                for a in &alternatives {
                    let mut combined = s.clone();
                    for e in a {
                        if !combined.contains(e) {
                            combined.push(e.clone());
                        }
                    }
                    next.push(combined);
                }
            }
            if next.len() > MAX_SETS {
                return Err(Error::invalid_input(format!(
                    "GROUP BY expands to more than {MAX_SETS} grouping sets"
                )));
            }
            sets = next;
        }
        if with_rollup {
            // MySQL's `GROUP BY a, b WITH ROLLUP`: ROLLUP (a, b).
            sets = (0..=plain.len())
                .rev()
                .map(|k| plain[..k].to_vec())
                .collect();
        }
        Ok(sets)
    }

    /// The grouping sets one GROUP BY item stands for.
    fn alternatives(
        &mut self,
        item: &ast::Expr,
        bind: &mut dyn FnMut(&mut Self, &ast::Expr) -> Result<Expr>,
    ) -> Result<Vec<Vec<Expr>>> {
        let mut bind_all = |me: &mut Self, list: &[ast::Expr]| -> Result<Vec<Expr>> {
            list.iter().map(|e| bind(me, e)).collect()
        };
        Ok(match item {
            ast::Expr::Rollup(groups) => {
                let groups = groups
                    .iter()
                    .map(|g| bind_all(self, g))
                    .collect::<Result<Vec<_>>>()?;
                (0..=groups.len())
                    .rev()
                    .map(|k| groups[..k].concat())
                    .collect()
            }
            ast::Expr::Cube(groups) => {
                let groups = groups
                    .iter()
                    .map(|g| bind_all(self, g))
                    .collect::<Result<Vec<_>>>()?;
                if groups.len() > 12 {
                    return Err(Error::invalid_input(
                        "CUBE takes at most 12 elements (4096 grouping sets)",
                    ));
                }
                // Every subset, the largest first (as DuckDB and PostgreSQL list them).
                let n = groups.len();
                let mut masks: Vec<u32> = (0..1u32 << n).collect();
                masks.sort_by_key(|m| std::cmp::Reverse(m.count_ones()));
                masks
                    .into_iter()
                    .map(|m| {
                        (0..n)
                            .filter(|i| m & (1 << (n - 1 - i)) != 0)
                            .flat_map(|i| groups[i].clone())
                            .collect()
                    })
                    .collect()
            }
            ast::Expr::GroupingSets(sets) => {
                let mut out = Vec::new();
                for set in sets {
                    // A set is a list of expressions, each maybe ROLLUP or CUBE itself.
                    let mut partial: Vec<Vec<Expr>> = vec![vec![]];
                    for e in set {
                        let alts = self.alternatives(e, bind)?;
                        partial = partial
                            .iter()
                            .flat_map(|p| {
                                alts.iter().map(move |a| {
                                    let mut c = p.clone();
                                    c.extend(a.iter().cloned());
                                    c
                                })
                            })
                            .collect();
                    }
                    out.extend(partial);
                }
                out
            }
            // `()`: the empty set.
            ast::Expr::Tuple(list) if list.is_empty() => vec![vec![]],
            ast::Expr::Tuple(list) => vec![bind_all(self, list)?],
            other => vec![vec![bind(self, other)?]],
        })
    }

    /// `GROUPING(args)` / `GROUPING_ID(args)`: a placeholder the grouping resolves.
    pub(super) fn bind_grouping(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        ctx: &mut ExprCtx,
    ) -> Result<Expr> {
        if ctx.aggregates.is_none() {
            return Err(Error::binder(format!(
                "{name}() is not allowed in {}",
                ctx.clause
            )));
        }
        if args.is_empty() {
            return Err(Error::binder(format!(
                "{name}() needs at least one argument"
            )));
        }
        let args = args
            .iter()
            .map(|a| self.bind_expr(a, ctx))
            .collect::<Result<Vec<_>>>()?;
        Ok(Expr::Grouping { args })
    }
}

/// The value of `GROUPING(args)` for grouping set `set`: bit i (counted from the
/// last argument) is 1 when argument i is not grouped by.
fn grouping_bits(args: &[Expr], set: &[Expr]) -> i64 {
    args.iter()
        .fold(0i64, |acc, a| (acc << 1) | !set.contains(a) as i64)
}

/// `e` with each GROUPING() call replaced by `column(k)` for the k-th distinct call
/// (collected in `calls`), after checking that its arguments are grouping
/// expressions of `all`.
pub(super) fn take_groupings(
    e: Expr,
    all: &[Expr],
    calls: &mut Vec<Vec<Expr>>,
    column: &dyn Fn(usize) -> Expr,
) -> Result<Expr> {
    match e {
        Expr::Grouping { args } => {
            if let Some(a) = args.iter().find(|a| !all.contains(a)) {
                return Err(Error::binder(format!(
                    "GROUPING() takes expressions of the GROUP BY clause, and {a} is not one"
                )));
            }
            Ok(column(super::index_in(calls, args)))
        }
        mut other => {
            for c in other.children_mut() {
                let inner = std::mem::replace(c, Expr::literal(ScalarValue::Null));
                *c = take_groupings(inner, all, calls, column)?;
            }
            Ok(other)
        }
    }
}

/// GROUPING() when there is one grouping set: every argument is grouped by, so 0.
pub(super) fn single_set_groupings(e: Expr, set: &[Expr]) -> Result<Expr> {
    let mut calls = Vec::new();
    take_groupings(e, set, &mut calls, &|_| {
        Expr::literal(ScalarValue::BigInt(0))
    })
}

/// One aggregate per grouping set over `input`, as a UNION ALL laid out as the
/// aggregate of `all` would be: `all`'s columns (NULL where a set does not group),
/// the aggregates, then one BIGINT column per GROUPING() call in `calls`.
pub(super) fn grouped_union(
    input: LogicalPlan,
    sets: &[Vec<Expr>],
    all: &[Expr],
    aggregates: &[AggregateExpr],
    calls: &[Vec<Expr>],
) -> LogicalPlan {
    // Only the columns the sets and aggregates read are kept (the FROM rows are
    // computed once, whole, for every set to read).
    let mut used = Vec::new();
    for e in sets.iter().flatten().chain(all) {
        e.collect_columns(&mut used);
    }
    for a in aggregates {
        for e in a
            .args
            .iter()
            .chain(&a.filter)
            .chain(a.order_by.iter().map(|o| &o.expr))
        {
            e.collect_columns(&mut used);
        }
    }
    used.sort_unstable();
    used.dedup();
    let fields = input.schema();
    let kept: Vec<Field> = used.iter().map(|&c| fields[c].clone()).collect();
    let input = LogicalPlan::Project {
        exprs: used
            .iter()
            .map(|&c| Expr::column(c, fields[c].ty.clone(), fields[c].name.clone()))
            .collect(),
        input: Box::new(input),
        schema: kept,
    };
    let at = |c: usize| used.binary_search(&c).expect("a used column");
    let moved = |e: &Expr| {
        let mut e = e.clone();
        e.remap_columns(&at);
        e
    };
    let sets: Vec<Vec<Expr>> = sets.iter().map(|s| s.iter().map(moved).collect()).collect();
    let all: Vec<Expr> = all.iter().map(moved).collect();
    let aggregates: Vec<AggregateExpr> = aggregates
        .iter()
        .map(|a| {
            let mut a = a.clone();
            for e in a
                .args
                .iter_mut()
                .chain(&mut a.filter)
                .chain(a.order_by.iter_mut().map(|o| &mut o.expr))
            {
                e.remap_columns(&at);
            }
            a
        })
        .collect();
    // GROUPING() arguments are matched against the sets, so they move too.
    let calls: Vec<Vec<Expr>> = calls
        .iter()
        .map(|c| {
            c.iter()
                .map(|e| {
                    let mut cols = Vec::new();
                    e.collect_columns(&mut cols);
                    if cols.iter().all(|c| used.binary_search(c).is_ok()) {
                        moved(e)
                    } else {
                        e.clone()
                    }
                })
                .collect()
        })
        .collect();
    let (sets, all, aggregates, calls) = (&sets[..], &all[..], &aggregates[..], &calls[..]);
    // The FROM rows are computed once and read by every set.
    let input = if references_outer(&input, 1) {
        input
    } else {
        let schema = input.schema().to_vec();
        LogicalPlan::CteRef {
            id: next_subquery_id(),
            body: Arc::new(input),
            schema,
            shared: false,
        }
    };
    let mut schema = aggregate_schema(all, aggregates);
    schema.extend((0..calls.len()).map(|k| Field::new(format!("grouping{k}"), DataType::BigInt)));
    let rollup = finest_rollup(input.clone(), sets, aggregates);
    let branches: Vec<LogicalPlan> = sets
        .iter()
        .map(|set| {
            let aggregate = match &rollup {
                Some(r) => r.aggregate(set),
                None => LogicalPlan::Aggregate {
                    input: Box::new(input.clone()),
                    group_by: set.clone(),
                    aggregates: aggregates.to_vec(),
                    schema: aggregate_schema(set, aggregates),
                },
            };
            let mut exprs: Vec<Expr> = all
                .iter()
                .map(|g| match set.iter().position(|s| s == g) {
                    Some(i) => Expr::column(i, g.data_type(), format!("group{i}")),
                    None => Expr::Literal {
                        value: ScalarValue::Null,
                        ty: g.data_type(),
                    },
                })
                .collect();
            // A re-aggregated column may come wider (a sum of counts): cast back.
            let out = aggregate.schema().to_vec();
            exprs.extend(aggregates.iter().enumerate().map(|(j, a)| {
                let c = Expr::column(
                    set.len() + j,
                    out[set.len() + j].ty.clone(),
                    format!("agg{j}"),
                );
                let c = if out[set.len() + j].ty == a.ty {
                    c
                } else {
                    Expr::Cast {
                        expr: Box::new(c),
                        to: a.ty.clone(),
                        try_cast: false,
                    }
                };
                // Over no rows the grand total counts 0, not the sum of no counts.
                use stride_functions::aggregate::AggregateFunction as F;
                if set.is_empty() && matches!(a.func, F::Count | F::CountStar) {
                    Expr::Coalesce {
                        args: vec![c, Expr::literal(ScalarValue::BigInt(0))],
                        ty: a.ty.clone(),
                    }
                } else {
                    c
                }
            }));
            exprs.extend(
                calls
                    .iter()
                    .map(|c| Expr::literal(ScalarValue::BigInt(grouping_bits(c, set)))),
            );
            LogicalPlan::Project {
                input: Box::new(aggregate),
                exprs,
                schema: schema.clone(),
            }
        })
        .collect();
    let mut it = branches.into_iter();
    let first = it.next().expect("at least two grouping sets");
    it.fold(first, |left, right| LogicalPlan::SetOp {
        left: Box::new(left),
        right: Box::new(right),
        kind: SetOpKind::Union,
        all: true,
        schema: schema.clone(),
    })
}

/// The finest grouping set aggregated once, shared, for the other sets to aggregate
/// again: ROLLUP (a, b, c) reads the FROM rows once for (a, b, c) and computes (a, b),
/// (a) and () from that result. Only where a set contains every other and every
/// aggregate splits into parts and their combination (`plan/aggregate_split.rs`).
struct FinestRollup {
    finest: Vec<Expr>,
    /// The finest set's aggregate, computed once.
    rows: LogicalPlan,
    /// The aggregates that combine the finest set's results, over its output.
    combine: Vec<AggregateExpr>,
}

fn finest_rollup(
    input: LogicalPlan,
    sets: &[Vec<Expr>],
    aggregates: &[AggregateExpr],
) -> Option<FinestRollup> {
    let finest = sets
        .iter()
        .find(|s| sets.iter().all(|t| t.iter().all(|e| s.contains(e))))?
        .clone();
    // What the finest set computes (an avg as its sum and count), and how each
    // aggregate combines from those columns.
    let mut parts: Vec<AggregateExpr> = Vec::new();
    let mut combine = Vec::new();
    for a in aggregates {
        let s = split(a)?;
        combine.push(s.combine(finest.len() + parts.len()));
        parts.extend(s.parts);
    }
    let aggregate = LogicalPlan::Aggregate {
        input: Box::new(input),
        group_by: finest.clone(),
        schema: aggregate_schema(&finest, &parts),
        aggregates: parts,
    };
    let schema = aggregate.schema().to_vec();
    let rows = LogicalPlan::CteRef {
        id: next_subquery_id(),
        body: Arc::new(aggregate),
        schema,
        shared: false,
    };
    Some(FinestRollup {
        finest,
        rows,
        combine,
    })
}

impl FinestRollup {
    /// The aggregate of grouping set `set` (a subset of the finest), from the finest
    /// set's results: its columns, then the aggregates.
    fn aggregate(&self, set: &[Expr]) -> LogicalPlan {
        let out = self.rows.schema();
        let group_by: Vec<Expr> = set
            .iter()
            .map(|e| {
                let at = self.finest.iter().position(|f| f == e).expect("a subset");
                Expr::column(at, out[at].ty.clone(), out[at].name.clone())
            })
            .collect();
        let schema = aggregate_schema(&group_by, &self.combine);
        LogicalPlan::Aggregate {
            input: Box::new(self.rows.clone()),
            group_by,
            aggregates: self.combine.clone(),
            schema,
        }
    }
}
