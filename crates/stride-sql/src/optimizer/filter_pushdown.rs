//! Pass `filter_pushdown`: moves each condition of a filter as far down the plan as
//! it soundly goes, so that rows are dropped before the work that would be wasted on
//! them. `SELECT ... FROM (SELECT DISTINCT i, k FROM a, b) WHERE i = k AND i < 5`
//! filters (and, after `join_order`, joins) before the DISTINCT instead of building
//! every pair first.
//!
//! Runs after `decorrelate` and before `join_order`, which turns the conditions that
//! arrive over inner joins into hash-join keys and pushes single-table ones into the
//! tables. Through each node, a conjunct moves when:
//!
//! - a projection: with the projected expressions substituted for its columns,
//!   unless a column it reads holds a subquery or a volatile function (`random()`,
//!   `nextval`), whose copy would compute another value;
//! - a grouped aggregate (GROUP BY, DISTINCT): when it reads only grouping columns
//!   (never an aggregate's value), with the grouping expressions substituted; a
//!   filter over an aggregate without GROUP BY stays, as that aggregate yields a row
//!   even for no input. A disjunction that also reads aggregates stays, and implies
//!   a weaker one that moves down: each branch's conjuncts over grouping columns
//!   (`(y = 2001 AND sum(x) > 0) OR y = 2002` gives `y = 2001 OR y = 2002`);
//! - a sort: always;
//! - a set operation: into every branch (a row is kept or dropped by its values, which
//!   are the same in each branch), when the branches have the output's types;
//! - a join: onto the side it reads only, where that side's rows are never NULL-
//!   extended (either side of an inner join, the left of LEFT, SEMI and ANTI joins,
//!   the right of a RIGHT join); conditions over both sides stay above the join. An
//!   outer join under a condition that rejects its NULL-extended rows becomes inner
//!   first (rule `outer_to_inner`);
//! - an unnest: when it reads only the columns the unnest passes through.
//!
//! Conditions are folded as they move: comparisons of constants (which substituting
//! a projection's literals makes, as in a CTE's UNION of `'s' AS sale_type` branches)
//! become TRUE or FALSE, and AND and OR with them shrink.
//!
//! A LIMIT is a barrier (filtering before it would change which rows it keeps), and
//! so is everything else; conditions holding correlated subqueries stay where they
//! are (their references address their node's columns, which a substitution cannot
//! rewrite), while an uncorrelated subquery is a constant and moves with its condition
//! (TPC-DS Q6's `d_month_seq = (SELECT …)` reaches the date_dim scan).

use crate::plan::{Expr, JoinKind, LogicalPlan};
use stride_common::Result;

/// `implied`: whether the rule `implied_filters` adds the comparisons that join
/// equalities imply; `outer_to_inner`: whether the rule of that name makes outer joins
/// inner under conditions that reject their NULL-extended rows.
pub fn optimize(plan: LogicalPlan, implied: bool, outer_to_inner: bool) -> Result<LogicalPlan> {
    Ok(Pushdown {
        implied,
        outer_to_inner,
    }
    .push(plan, Vec::new()))
}

struct Pushdown {
    implied: bool,
    outer_to_inner: bool,
}

impl Pushdown {
    /// `plan` with the conjuncts `terms` (over its output columns) applied, each pushed as
    /// deep as it goes.
    fn push(&self, plan: LogicalPlan, mut terms: Vec<Expr>) -> LogicalPlan {
        match plan {
            LogicalPlan::Filter { input, predicate } => {
                predicate.split_conjunction(&mut terms);
                self.push(*input, terms)
            }
            LogicalPlan::Project {
                input,
                exprs,
                schema,
            } => {
                // A column computed by a subquery or a volatile function (`random()`)
                // is computed once, here: a copy below would compute another value.
                let (down, stay) = split(terms, |t| reads(t).iter().all(|&c| inlinable(&exprs[c])));
                let down = folded(down.into_iter().map(|t| substitute(t, &exprs)));
                let plan = LogicalPlan::Project {
                    input: Box::new(self.push(*input, down)),
                    exprs,
                    schema,
                };
                LogicalPlan::filtered(plan, stay)
            }
            LogicalPlan::Aggregate {
                input,
                group_by,
                aggregates,
                schema,
            } => {
                let g = group_by.len();
                let (down, stay) = split(terms, |t| {
                    g > 0 && reads(t).iter().all(|&c| c < g && inlinable(&group_by[c]))
                });
                let mut down = folded(down.into_iter().map(|t| substitute(t, &group_by)));
                if g > 0 {
                    let on_groups = |c: &Expr| {
                        !c.has_correlated_subquery()
                            && reads(c).iter().all(|&i| i < g && inlinable(&group_by[i]))
                    };
                    let weaker = stay
                        .iter()
                        .filter_map(|t| t.implied_disjunction(on_groups))
                        .map(|t| substitute(t, &group_by));
                    down.extend(folded(weaker));
                }
                let plan = LogicalPlan::Aggregate {
                    input: Box::new(self.push(*input, down)),
                    group_by,
                    aggregates,
                    schema,
                };
                LogicalPlan::filtered(plan, stay)
            }
            LogicalPlan::Sort { input, keys } => {
                let (down, stay) = split(terms, |_| true);
                LogicalPlan::filtered(
                    LogicalPlan::Sort {
                        input: Box::new(self.push(*input, down)),
                        keys,
                    },
                    stay,
                )
            }
            LogicalPlan::SetOp {
                left,
                right,
                kind,
                all,
                schema,
            } => {
                let both = left.has_types(&schema) && right.has_types(&schema);
                let (down, stay) = split(terms, |_| both);
                let plan = LogicalPlan::SetOp {
                    left: Box::new(self.push(*left, down.clone())),
                    right: Box::new(self.push(*right, down)),
                    kind,
                    all,
                    schema,
                };
                LogicalPlan::filtered(plan, stay)
            }
            LogicalPlan::Join {
                left,
                right,
                kind,
                on,
                filter: condition,
                schema,
            } => {
                let nl = left.schema().len();
                let kind = match self.outer_to_inner {
                    true => super::outer_to_inner::simplify(kind, &terms, 0, nl, schema.len()),
                    false => kind,
                };
                let into_left = matches!(
                    kind,
                    JoinKind::Inner | JoinKind::Left | JoinKind::Semi | JoinKind::Anti
                );
                let into_right = matches!(kind, JoinKind::Inner | JoinKind::Right);
                // A filter right below a side that takes conditions joins the terms (it
                // goes back down with them), so what it implies reaches the other side.
                let (mut left, left_terms) = unwrap_filter(*left, into_left);
                let (mut right, mut right_terms) = unwrap_filter(*right, into_right);
                if self.outer_to_inner && kind == JoinKind::Inner {
                    // This join's conditions reject NULL-extended rows of outer
                    // joins right below it, as conditions above them would.
                    let mut facts: Vec<Expr> = terms.iter().chain(&left_terms).cloned().collect();
                    facts.extend(right_terms.iter().map(|t| {
                        let mut t = t.clone();
                        t.remap_columns(&|i| i + nl);
                        t
                    }));
                    if let Some(c) = &condition {
                        c.clone().split_conjunction(&mut facts);
                    }
                    for (l, r) in &on {
                        let mut r = r.clone();
                        r.remap_columns(&|i| i + nl);
                        facts.push(crate::binder::equality(l.clone(), r));
                    }
                    for (child, start) in [(&mut left, 0), (&mut right, nl)] {
                        if let LogicalPlan::Join {
                            kind: k,
                            left: cl,
                            schema: cs,
                            ..
                        } = child
                        {
                            *k = super::outer_to_inner::simplify(
                                *k,
                                &facts,
                                start,
                                cl.schema().len(),
                                cs.len(),
                            );
                        }
                    }
                }
                for t in &mut right_terms {
                    t.remap_columns(&|i| i + nl);
                }
                terms.extend(left_terms);
                terms.extend(right_terms);
                if self.implied && kind == JoinKind::Inner {
                    let more = implied_at_join(&terms, &on, condition.as_ref(), nl);
                    terms.extend(more);
                }
                let (to_left, rest) = split(terms, |t| {
                    let cols = reads(t);
                    into_left && !cols.is_empty() && cols.iter().all(|&c| c < nl)
                });
                let (mut to_right, stay) = split(rest, |t| {
                    let cols = reads(t);
                    into_right && !cols.is_empty() && cols.iter().all(|&c| c >= nl)
                });
                // Rows of the side that is not preserved can only match rows the
                // preserved side keeps: what those satisfy, their partners do too.
                if self.implied && matches!(kind, JoinKind::Left | JoinKind::Semi | JoinKind::Anti)
                {
                    let more = implied_at_join(&to_left, &on, condition.as_ref(), nl);
                    to_right.extend(more.into_iter().filter(|t| {
                        let cols = reads(t);
                        !cols.is_empty() && cols.iter().all(|&c| c >= nl)
                    }));
                }
                for t in &mut to_right {
                    t.remap_columns(&|i| i - nl);
                }
                let plan = LogicalPlan::Join {
                    left: Box::new(self.push(left, to_left)),
                    right: Box::new(self.push(right, to_right)),
                    kind,
                    on,
                    filter: condition,
                    schema,
                };
                LogicalPlan::filtered(plan, stay)
            }
            LogicalPlan::Unnest {
                input,
                passed,
                lists,
                schema,
            } => {
                let n = passed.len();
                let (mut down, stay) = split(terms, |t| reads(t).iter().all(|&c| c < n));
                for t in &mut down {
                    t.remap_columns(&|i| passed[i]);
                }
                let plan = LogicalPlan::Unnest {
                    input: Box::new(self.push(*input, down)),
                    passed,
                    lists,
                    schema,
                };
                LogicalPlan::filtered(plan, stay)
            }
            // Conditions on the left row alone hold for all its output rows or none.
            LogicalPlan::LateralJoin {
                left,
                right,
                kind,
                schema,
            } => {
                let n = left.schema().len();
                let (down, stay) = split(terms, |t| reads(t).iter().all(|&c| c < n));
                let plan = LogicalPlan::LateralJoin {
                    left: Box::new(self.push(*left, down)),
                    right,
                    kind,
                    schema,
                };
                LogicalPlan::filtered(plan, stay)
            }
            // A filter does not enter a recursion (it would change what each round
            // reads); each side is optimized on its own.
            LogicalPlan::RecursiveCte {
                id,
                base,
                step,
                all,
                schema,
            } => LogicalPlan::filtered(
                LogicalPlan::RecursiveCte {
                    id,
                    base: Box::new(self.push(*base, Vec::new())),
                    step: Box::new(self.push(*step, Vec::new())),
                    all,
                    schema,
                },
                terms,
            ),
            leaf @ LogicalPlan::RecursiveRef { .. } => LogicalPlan::filtered(leaf, terms),
            LogicalPlan::Window {
                input,
                functions,
                schema,
            } => {
                // A condition on columns every function partitions by keeps or drops
                // whole partitions: it may run first. Others see the window's results.
                let n = input.schema().len();
                let partitioned = |c: usize| {
                    functions.iter().all(|w| {
                        w.partition_by
                            .iter()
                            .any(|p| matches!(p, Expr::Column { index, .. } if *index == c))
                    })
                };
                let (down, stay) =
                    split(terms, |t| reads(t).iter().all(|&c| c < n && partitioned(c)));
                let plan = LogicalPlan::Window {
                    input: Box::new(self.push(*input, down)),
                    functions,
                    schema,
                };
                LogicalPlan::filtered(plan, stay)
            }
            LogicalPlan::Limit {
                input,
                limit,
                offset,
            } => LogicalPlan::filtered(
                LogicalPlan::Limit {
                    input: Box::new(self.push(*input, Vec::new())),
                    limit,
                    offset,
                },
                terms,
            ),
            leaf @ (LogicalPlan::Scan { .. }
            | LogicalPlan::CteRef { .. }
            | LogicalPlan::Values { .. }
            | LogicalPlan::TableFunction { .. }) => LogicalPlan::filtered(leaf, terms),
        }
    }
}

/// What `terms` over a join's row imply through its equality keys `on` and the
/// equalities among `condition` and `terms` themselves (rule `implied_filters`).
fn implied_at_join(
    terms: &[Expr],
    on: &[(Expr, Expr)],
    condition: Option<&Expr>,
    nl: usize,
) -> Vec<Expr> {
    let mut equalities: Vec<Expr> = terms.to_vec();
    let mut sources: Vec<Expr> = terms.to_vec();
    if let Some(c) = condition {
        let mut conjuncts = Vec::new();
        c.clone().split_conjunction(&mut conjuncts);
        equalities.extend(conjuncts.iter().cloned());
        sources.extend(conjuncts);
    }
    let shifted: Vec<(Expr, Expr)> = on
        .iter()
        .map(|(l, r)| {
            let mut r = r.clone();
            r.remap_columns(&|i| i + nl);
            (l.clone(), r)
        })
        .collect();
    let keys: Vec<(&Expr, &Expr)> = shifted.iter().map(|(l, r)| (l, r)).collect();
    super::implied_filters::implied(&sources, &equalities, &keys)
        .into_iter()
        .filter(|t| !terms.contains(t))
        .collect()
}

/// `plan` without the filter on top of it and that filter's conjuncts, when `take`.
fn unwrap_filter(plan: LogicalPlan, take: bool) -> (LogicalPlan, Vec<Expr>) {
    match plan {
        LogicalPlan::Filter { input, predicate } if take => {
            let mut terms = Vec::new();
            predicate.split_conjunction(&mut terms);
            (*input, terms)
        }
        other => (other, Vec::new()),
    }
}

/// The columns a conjunct reads.
fn reads(t: &Expr) -> Vec<usize> {
    let mut cols = Vec::new();
    t.collect_columns(&mut cols);
    cols
}

/// `terms` folded (see [`fold`]), split again into conjuncts, TRUE ones left out.
fn folded(terms: impl IntoIterator<Item = Expr>) -> Vec<Expr> {
    let mut out = Vec::new();
    for t in terms {
        fold(t).split_conjunction(&mut out);
    }
    out.retain(|t| !is_bool(t, true));
    out
}

/// Whether `e` is the BOOLEAN literal `value`.
fn is_bool(e: &Expr, value: bool) -> bool {
    matches!(e, Expr::Literal { value: stride_common::ScalarValue::Boolean(b), .. } if *b == value)
}

/// `a AND b` (`absorbing` FALSE) or `a OR b` (`absorbing` TRUE), made by `op`: the
/// absorbing constant when either operand is it, the other operand when one is the
/// identity.
fn connective(a: Expr, b: Expr, absorbing: bool, op: fn(Box<Expr>, Box<Expr>) -> Expr) -> Expr {
    if is_bool(&a, absorbing) || is_bool(&b, absorbing) {
        Expr::literal(stride_common::ScalarValue::Boolean(absorbing))
    } else if is_bool(&a, !absorbing) {
        b
    } else if is_bool(&b, !absorbing) {
        a
    } else {
        op(Box::new(a), Box::new(b))
    }
}

/// `t` with its constant parts computed: a function of constants (a comparison,
/// `2001 + 1`) becomes its value, and AND / OR with a TRUE or FALSE operand shrink
/// (NULL operands stay as they are).
fn fold(t: Expr) -> Expr {
    match t {
        Expr::And(a, b) => connective(fold(*a), fold(*b), false, Expr::And),
        Expr::Or(a, b) => connective(fold(*a), fold(*b), true, Expr::Or),
        Expr::Cast { expr, to, try_cast } => {
            let inner = fold(*expr);
            let zoned = matches!(to, stride_common::DataType::TimestampTz)
                || matches!(inner.data_type(), stride_common::DataType::TimestampTz);
            let e = Expr::Cast {
                expr: Box::new(inner),
                to,
                try_cast,
            };
            match &e {
                Expr::Cast { expr, to, .. } if !zoned && matches!(**expr, Expr::Literal { .. }) => {
                    match crate::binder::fold::fold_constant(&e) {
                        Ok(Some(v)) if !v.is_null() && v.data_type() == *to => Expr::literal(v),
                        _ => e,
                    }
                }
                _ => e,
            }
        }
        Expr::Function { func, args } => {
            let args: Vec<Expr> = args.into_iter().map(fold).collect();
            // Only calls whose value is the same at any time in any session: of
            // literals, not reading the clock, no TIMESTAMP WITH TIME ZONE (whose
            // text depends on the session's zone). A prepared statement keeps its
            // plan.
            let fixed = !args.is_empty()
                && args.iter().all(|a| matches!(a, Expr::Literal { .. }))
                && !stride_functions::scalar::reads_clock(func.func, args.len())
                && !func
                    .arg_types
                    .iter()
                    .chain([&func.return_type])
                    .any(|t| matches!(t, stride_common::DataType::TimestampTz));
            let e = Expr::Function { func, args };
            if !fixed {
                return e;
            }
            match crate::binder::fold::fold_constant(&e) {
                // Only where the literal keeps the type (a DECIMAL's scale, say).
                Ok(Some(v)) if !v.is_null() && v.data_type() == e.data_type() => Expr::literal(v),
                _ => e,
            }
        }
        e => e,
    }
}

/// Splits `terms` into those that may move down (`movable` holds and they hold no
/// correlated subquery) and those that stay.
fn split(terms: Vec<Expr>, movable: impl Fn(&Expr) -> bool) -> (Vec<Expr>, Vec<Expr>) {
    terms
        .into_iter()
        .partition(|t| !t.has_correlated_subquery() && movable(t))
}

/// Whether a filter may read `e` in place of the column it computes: not when `e`
/// holds a subquery or calls a volatile function, whose copy would give another value.
fn inlinable(e: &Expr) -> bool {
    !e.has_subquery() && !e.calls_volatile()
}

/// `t` with each column `i` replaced by `exprs[i]` (the node's output expressions).
pub(super) fn substitute(t: Expr, exprs: &[Expr]) -> Expr {
    match t {
        Expr::Column { index, .. } => exprs[index].clone(),
        mut other => {
            for c in other.children_mut() {
                let child = std::mem::replace(c, Expr::literal(stride_common::ScalarValue::Null));
                *c = substitute(child, exprs);
            }
            other
        }
    }
}
