//! Pass `join_order`: turns WHERE conditions over inner joins and comma-separated
//! FROM items into join conditions (factoring conjuncts common to all branches of an
//! OR out of it), pushes single-table conditions down to their table, and orders the
//! joins: exhaustively (dynamic programming over connected subsets) up to
//! `EXHAUSTIVE_INPUTS` inputs, greedily beyond, so that no cross product is formed
//! where a join condition exists and hash tables are built on the smaller inputs.
//! Equality conditions between the two sides of any join become hash-join keys (an
//! `IS NOT DISTINCT FROM` as two keys that are never NULL, [`null_safe_keys`]); a
//! LEFT JOIN whose left input is smaller becomes a RIGHT JOIN, so the hash table is
//! built on it. Conditions of an outer, semi or anti join that read only the side
//! whose unmatched rows are dropped filter that side below the join.
//!
//! Semi and anti joins on top of the tree (decorrelated IN / EXISTS) move down onto
//! the one input their left side refers to. A LEFT JOIN inside the tree whose right
//! side no other condition reads goes on top of it, so the inner joins run first.
//!
//! Conditions containing subqueries stay where they were (above the joins), because
//! correlated references inside them point at the original column positions; a
//! projection on top restores that column order.

use super::cardinality::{estimate, selectivity, unfiltered_estimate, ColumnFacts};
use super::Statistics;
use crate::plan::visit::children_mut;
use crate::plan::{Expr, JoinKind, LogicalPlan};
use std::collections::HashMap;
use stride_common::{DataType, Result, ScalarValue};
use stride_functions::ScalarFunction;

pub fn optimize(mut plan: LogicalPlan, stats: &dyn Statistics) -> Result<LogicalPlan> {
    // A tree of inner joins is ordered as a whole, top-down: its leaves are optimized
    // inside `reorder`, which also pushes the semi and anti joins above the tree down
    // to the input they filter.
    if is_semi_over_inner_tree(&plan) {
        let (base, semis) = peel_semis(plan, stats)?;
        return match base {
            LogicalPlan::Filter { input, predicate } => {
                reorder(*input, Some(predicate), semis, stats)
            }
            p => reorder(p, None, semis, stats),
        };
    }
    match plan {
        LogicalPlan::Filter { input, predicate } if is_inner_join(&input) => {
            return reorder(*input, Some(predicate), Vec::new(), stats);
        }
        p @ LogicalPlan::Join {
            kind: JoinKind::Inner,
            ..
        } => return reorder(p, None, Vec::new(), stats),
        _ => {}
    }
    for c in children_mut(&mut plan) {
        let child = std::mem::replace(c, super::placeholder());
        *c = optimize(child, stats)?;
    }
    Ok(finish_join(plan))
}

/// A join whose inputs are ordered: equalities of its condition become hash keys,
/// conditions on its nullable side filter that side, and the hash table goes on the
/// smaller input.
fn finish_join(plan: LogicalPlan) -> LogicalPlan {
    let plan = match plan {
        LogicalPlan::Join {
            left,
            right,
            kind,
            on,
            filter: Some(f),
            schema,
        } if on.is_empty() => {
            let nleft = left.schema().len();
            let mut terms = Vec::new();
            f.split_conjunction(&mut terms);
            let (on, rest) = extract_keys(terms, nleft);
            LogicalPlan::Join {
                left,
                right,
                kind,
                on,
                filter: Expr::conjunction(rest),
                schema,
            }
        }
        other => other,
    };
    build_smaller_side(push_into_nullable_side(plan))
}

/// Moves the conditions of an outer, semi or anti join's filter that read only the
/// input whose rows are dropped when unmatched (the right input of a LEFT, SEMI or
/// ANTI join, the left of a RIGHT join) into that input, as a filter below the
/// join: `customer LEFT JOIN orders ON c_custkey = o_custkey AND o_comment NOT LIKE
/// ...` (TPC-H Q13) filters orders before joining instead of checking every pair.
fn push_into_nullable_side(plan: LogicalPlan) -> LogicalPlan {
    let target = match &plan {
        LogicalPlan::Join {
            kind: JoinKind::Left | JoinKind::Semi | JoinKind::Anti,
            filter: Some(_),
            ..
        } => Side::Right,
        LogicalPlan::Join {
            kind: JoinKind::Right,
            filter: Some(_),
            ..
        } => Side::Left,
        _ => return plan,
    };
    let LogicalPlan::Join {
        mut left,
        mut right,
        kind,
        on,
        filter: Some(f),
        schema,
    } = plan
    else {
        return plan;
    };
    let nleft = left.schema().len();
    let mut terms = Vec::new();
    f.split_conjunction(&mut terms);
    let (pushed, kept): (Vec<Expr>, Vec<Expr>) = terms
        .into_iter()
        .partition(|t| side(t, nleft) == Some(target));
    if let Some(mut p) = Expr::conjunction(pushed) {
        let input = match target {
            Side::Right => {
                p.remap_columns(&|i| i - nleft);
                &mut right
            }
            Side::Left => &mut left,
        };
        let below = std::mem::replace(&mut **input, super::placeholder());
        **input = LogicalPlan::Filter {
            input: Box::new(below),
            predicate: p,
        };
    }
    LogicalPlan::Join {
        left,
        right,
        kind,
        on,
        filter: Expr::conjunction(kept),
        schema,
    }
}

/// `A LEFT JOIN B` as `B RIGHT JOIN A` (columns put back in order) when A is the
/// smaller input: hash joins build on the right input.
fn build_smaller_side(plan: LogicalPlan) -> LogicalPlan {
    match plan {
        LogicalPlan::Join {
            left,
            right,
            kind: JoinKind::Left,
            on,
            filter,
            schema,
        } if !on.is_empty() && estimate(&left) < estimate(&right) => {
            as_right_join(left, right, on, filter, schema)
        }
        other => other,
    }
}

/// `left LEFT JOIN right` as `right RIGHT JOIN left` under a projection restoring the
/// column order.
fn as_right_join(
    left: Box<LogicalPlan>,
    right: Box<LogicalPlan>,
    on: Vec<(Expr, Expr)>,
    filter: Option<Expr>,
    schema: Vec<crate::plan::Field>,
) -> LogicalPlan {
    let (nl, nr) = (left.schema().len(), right.schema().len());
    let filter = filter.map(|mut f| {
        f.swap_join_sides(nl, nr);
        f
    });
    let mut swapped_schema = schema[nl..].to_vec();
    swapped_schema.extend(schema[..nl].iter().cloned());
    let swapped = LogicalPlan::Join {
        left: right,
        right: left,
        kind: JoinKind::Right,
        on: on.into_iter().map(|(l, r)| (r, l)).collect(),
        filter,
        schema: swapped_schema,
    };
    let exprs = (0..nl + nr)
        .map(|i| {
            let from = if i < nl { nr + i } else { i - nl };
            Expr::column(from, schema[i].ty.clone(), schema[i].name.clone())
        })
        .collect();
    LogicalPlan::Project {
        input: Box::new(swapped),
        exprs,
        schema,
    }
}

/// A semi or anti join taken off the top of a tree of inner joins; its left side is
/// the tree's output (global column numbers), its right side already optimized.
struct SemiJoin {
    kind: JoinKind,
    right: Box<LogicalPlan>,
    on: Vec<(Expr, Expr)>,
    filter: Option<Expr>,
}

fn is_semi(p: &LogicalPlan) -> bool {
    matches!(
        p,
        LogicalPlan::Join {
            kind: JoinKind::Semi | JoinKind::Anti,
            ..
        }
    )
}

/// Semi or anti joins (one or more, stacked) over a tree of inner joins, possibly
/// under a filter: what `WHERE ... AND x IN (subquery)` decorrelates into.
fn is_semi_over_inner_tree(p: &LogicalPlan) -> bool {
    let mut p = p;
    if !is_semi(p) {
        return false;
    }
    while let LogicalPlan::Join {
        kind: JoinKind::Semi | JoinKind::Anti,
        left,
        ..
    } = p
    {
        p = left;
    }
    match p {
        LogicalPlan::Filter { input, .. } => is_inner_join(input),
        other => is_inner_join(other),
    }
}

/// The inner-join tree under a stack of semi joins, and the semi joins innermost
/// first.
fn peel_semis(plan: LogicalPlan, stats: &dyn Statistics) -> Result<(LogicalPlan, Vec<SemiJoin>)> {
    let mut semis = Vec::new();
    let mut p = plan;
    loop {
        match p {
            LogicalPlan::Join {
                kind: kind @ (JoinKind::Semi | JoinKind::Anti),
                left,
                right,
                on,
                filter,
                ..
            } => {
                semis.push(SemiJoin {
                    kind,
                    right: Box::new(optimize(*right, stats)?),
                    on,
                    filter,
                });
                p = *left;
            }
            base => {
                semis.reverse();
                return Ok((base, semis));
            }
        }
    }
}

/// `semi` applied to `left`, whose columns `base..base + width` of the tree's
/// `total` columns are the ones the semi join refers to.
fn apply_semi(left: LogicalPlan, semi: SemiJoin, base: usize, total: usize) -> LogicalPlan {
    let width = left.schema().len();
    let on = semi
        .on
        .into_iter()
        .map(|(mut l, r)| {
            l.remap_columns(&|i| i - base);
            (l, r)
        })
        .collect();
    let filter = semi.filter.map(|mut f| {
        f.remap_columns(&|i| {
            if i < total {
                i - base
            } else {
                i - total + width
            }
        });
        f
    });
    let schema = left.schema().to_vec();
    LogicalPlan::Join {
        left: Box::new(left),
        right: semi.right,
        kind: semi.kind,
        on,
        filter,
        schema,
    }
}

/// Adds the equalities that follow from the others: with `a = b` and `b = c`, also
/// `a = c` (plain columns of one type), for inputs not yet joined by an equality of
/// that class. TPC-H Q9 equates `p_partkey` and `ps_partkey` only through
/// `l_partkey`; the implied condition lets part and partsupp join first.
fn infer_equalities(pending: &mut Vec<(Expr, Vec<usize>)>, leaf_of: &dyn Fn(usize) -> usize) {
    // Equalities between plain columns of one type, and the columns they name.
    let equal: Vec<(usize, usize)> = pending
        .iter()
        .filter_map(|(t, _)| same_type_columns(t))
        .collect();
    let mut members: Vec<&Expr> = Vec::new();
    for (t, _) in pending.iter() {
        if let (Some(_), Some((a, b))) = (same_type_columns(t), equality_sides(t)) {
            for e in [a, b] {
                if !members.contains(&e) {
                    members.push(e);
                }
            }
        }
    }
    let index = |e: &Expr| match e {
        Expr::Column { index, .. } => *index,
        _ => unreachable!("members are columns"),
    };
    let mut added: Vec<(Expr, Vec<usize>)> = Vec::new();
    for (i, a) in members.iter().enumerate() {
        for b in &members[i + 1..] {
            let (x, y) = (index(a), index(b));
            let (lx, ly) = (leaf_of(x), leaf_of(y));
            if lx == ly || a.data_type() != b.data_type() || !same_class(&equal, x, y) {
                continue;
            }
            // Already joined by an equality of this class?
            let joined = pending.iter().chain(&added).any(|(t, _)| {
                same_type_columns(t).is_some_and(|(p, q)| {
                    let (lp, lq) = (leaf_of(p), leaf_of(q));
                    (lp == lx && lq == ly || lp == ly && lq == lx) && same_class(&equal, p, x)
                })
            });
            if !joined {
                let mut ls = vec![lx, ly];
                ls.sort_unstable();
                added.push((crate::binder::equality((*a).clone(), (*b).clone()), ls));
            }
        }
    }
    pending.extend(added);
}

/// The two columns of an equality between plain columns of one type (which may stand
/// in for each other, so equalities can be inferred from them).
fn same_type_columns(t: &Expr) -> Option<(usize, usize)> {
    match equality_sides(t)? {
        (a @ Expr::Column { index: x, .. }, b @ Expr::Column { index: y, .. })
            if a.data_type() == b.data_type() =>
        {
            Some((*x, *y))
        }
        _ => None,
    }
}

/// The two columns of an equality between plain columns.
fn plain_columns(t: &Expr) -> Option<(usize, usize)> {
    match equality_sides(t)? {
        (Expr::Column { index: x, .. }, Expr::Column { index: y, .. }) => Some((*x, *y)),
        _ => None,
    }
}

/// Whether `x` and `y` are connected through the pairs of `equal`.
fn same_class(equal: &[(usize, usize)], x: usize, y: usize) -> bool {
    super::implied_filters::column_class(x, equal).contains(&y)
}

/// An input of the join being ordered: a leaf, or the join of several.
struct Component {
    plan: LogicalPlan,
    /// Global column number of each output column, in output order.
    cols: Vec<usize>,
    shape: Shape,
}

/// What the estimates know of an input: which leaves it joins and how large it is.
#[derive(Clone)]
struct Shape {
    leaves: Vec<usize>,
    /// Pairs of columns (global numbers) the joins inside made equal.
    equal: Vec<(usize, usize)>,
    /// Estimated output rows.
    est: f64,
    /// Rows of the largest table inside, before filters: the number of distinct
    /// values a key column of this input is assumed to have at most.
    base: f64,
}

impl Shape {
    /// The shape of the join of `a` and `b` (which `est` rows are expected from),
    /// with the equalities its conditions add.
    fn joined(a: &Shape, b: &Shape, pending: &[(Expr, Vec<usize>)], est: f64) -> Shape {
        let mut leaves = a.leaves.clone();
        leaves.extend(&b.leaves);
        let mut equal = a.equal.clone();
        equal.extend(&b.equal);
        for (t, ls) in pending {
            if ls.iter().all(|l| leaves.contains(l)) {
                if let Some((x, y)) = plain_columns(t) {
                    if !same_class(&equal, x, y) {
                        equal.push((x, y));
                    }
                }
            }
        }
        Shape {
            leaves,
            equal,
            est: est.max(1.0),
            base: a.base.max(b.base),
        }
    }
}

/// Inputs up to which the join order is searched exhaustively (dynamic programming
/// over the connected subsets); beyond, greedily.
const EXHAUSTIVE_INPUTS: usize = 10;

/// The cheapest order of joins for `shapes` (one per input), as the pairs of input
/// sets (bit masks over `shapes`) to join, innermost first: dynamic programming over
/// the connected subsets, each costing the rows its joins produce plus the rows its
/// hash tables hold. None when some inputs connect to nothing (a cross product is
/// needed) or there are too many inputs.
fn exhaustive_order(
    shapes: &[Shape],
    pending: &[(Expr, Vec<usize>)],
    distinct: &dyn Fn(&Expr) -> Option<f64>,
) -> Option<Vec<(u32, u32)>> {
    let n = shapes.len();
    if !(2..=EXHAUSTIVE_INPUTS).contains(&n) {
        return None;
    }
    struct Best {
        shape: Shape,
        cost: f64,
        split: Option<(u32, u32)>,
    }
    let mut best: Vec<Option<Best>> = (0..1u32 << n).map(|_| None).collect();
    for (i, s) in shapes.iter().enumerate() {
        best[1 << i] = Some(Best {
            shape: s.clone(),
            cost: 0.0,
            split: None,
        });
    }
    for set in 1u32..1 << n {
        if set.count_ones() < 2 {
            continue;
        }
        let mut found: Option<Best> = None;
        // Every split into two non-empty halves, each once (the half holding the
        // lowest input first).
        let low = set & set.wrapping_neg();
        let mut a = (set - 1) & set;
        while a > 0 {
            let b = set ^ a;
            if a & low != 0 {
                if let (Some(x), Some(y)) = (&best[a as usize], &best[b as usize]) {
                    if connects(pending, &x.shape.leaves, &y.shape.leaves) {
                        let est = joined_estimate(&x.shape, &y.shape, pending, distinct);
                        let cost = x.cost + y.cost + est + x.shape.est.min(y.shape.est);
                        if found.as_ref().is_none_or(|f| cost < f.cost) {
                            found = Some(Best {
                                shape: Shape::joined(&x.shape, &y.shape, pending, est),
                                cost,
                                split: Some((a, b)),
                            });
                        }
                    }
                }
            }
            a = (a - 1) & set;
        }
        best[set as usize] = found;
    }
    fn collect(best: &[Option<Best>], set: u32, out: &mut Vec<(u32, u32)>) {
        if let Some(Some(Best {
            split: Some((a, b)),
            ..
        })) = best.get(set as usize)
        {
            collect(best, *a, out);
            collect(best, *b, out);
            out.push((*a, *b));
        }
    }
    best[(1usize << n) - 1].as_ref()?;
    let mut order = Vec::new();
    collect(&best, (1u32 << n) - 1, &mut order);
    Some(order)
}

/// Whether an equality among the pending conditions joins an input with leaves `a` to
/// one with leaves `b`, using nothing outside them.
fn connects(pending: &[(Expr, Vec<usize>)], a: &[usize], b: &[usize]) -> bool {
    pending.iter().any(|(t, ls)| {
        equality_sides(t).is_some()
            && ls.iter().any(|l| a.contains(l))
            && ls.iter().any(|l| b.contains(l))
            && ls.iter().all(|l| a.contains(l) || b.contains(l))
    })
}

/// Estimated rows of an equality join of `a` and `b`: the product of their sizes over
/// the number of distinct key values. For each key pair the larger of the two sides'
/// distinct counts (the values of one side are assumed contained in the other's);
/// several keys multiply, up to the larger input. A key column without statistics
/// counts as a key of its whole (unfiltered) input, the foreign-key case.
fn joined_estimate(
    a: &Shape,
    b: &Shape,
    pending: &[(Expr, Vec<usize>)],
    distinct: &dyn Fn(&Expr) -> Option<f64>,
) -> f64 {
    let mut keys = 1.0f64;
    let mut any = false;
    // Equalities of one class (`a = b AND b = c`, or columns the inputs already made
    // equal) filter once.
    let mut equal = a.equal.clone();
    equal.extend(&b.equal);
    for (t, ls) in pending {
        let Some((x, y)) = equality_sides(t) else {
            continue;
        };
        let inside = |c: &Shape| ls.iter().all(|l| c.leaves.contains(l));
        let spans = ls
            .iter()
            .all(|l| a.leaves.contains(l) || b.leaves.contains(l))
            && !inside(a)
            && !inside(b);
        if !spans {
            continue;
        }
        if let Some((p, q)) = plain_columns(t) {
            if same_class(&equal, p, q) {
                continue;
            }
            equal.push((p, q));
        }
        let dx = distinct(x).unwrap_or(a.base.min(b.base));
        let dy = distinct(y).unwrap_or(a.base.min(b.base));
        keys *= dx.max(dy).max(1.0);
        any = true;
    }
    let keys = if any {
        keys.min(a.base.max(b.base))
    } else {
        a.base.min(b.base)
    };
    a.est * b.est / keys.max(1.0)
}

/// Distinct values of output column `col` of `plan`, when it is a stored table's
/// (or a Parquet file's) column passed through unchanged.
fn column_distinct(plan: &LogicalPlan, col: usize, stats: &dyn Statistics) -> Option<f64> {
    distinct_through(plan, col, stats, false)
}

/// [`column_distinct`], and with `filters` at most as many as the constants a
/// filter compares the column with (`d_year IN (2001, 2002)` leaves 2 years).
pub(super) fn distinct_through(
    plan: &LogicalPlan,
    col: usize,
    stats: &dyn Statistics,
    filters: bool,
) -> Option<f64> {
    let column_distinct =
        |p: &LogicalPlan, c: usize, stats: &dyn Statistics| distinct_through(p, c, stats, filters);
    match plan {
        LogicalPlan::Filter { input, predicate } if filters => {
            let mut terms = Vec::new();
            predicate.clone().split_conjunction(&mut terms);
            let named = terms
                .iter()
                .filter_map(super::cardinality::constants_matched)
                .filter(|&(c, _)| c == col)
                .map(|(_, n)| n as f64)
                .reduce(f64::min);
            match (named, column_distinct(input, col, stats)) {
                (Some(n), Some(d)) => Some(n.min(d)),
                (n, d) => n.or(d),
            }
        }
        LogicalPlan::Scan {
            table_id, columns, ..
        } => stats.distinct_values(*table_id, *columns.get(col)?),
        LogicalPlan::TableFunction {
            func: crate::plan::TableFunction::ReadColumnar { source, columns },
            ..
        } => source.0.distinct_estimate(*columns.get(col)?),
        LogicalPlan::Filter { input, .. }
        | LogicalPlan::Sort { input, .. }
        | LogicalPlan::Limit { input, .. } => column_distinct(input, col, stats),
        LogicalPlan::Project { input, exprs, .. } => match exprs.get(col)? {
            Expr::Column { index, .. } => column_distinct(input, *index, stats),
            _ => None,
        },
        LogicalPlan::Aggregate {
            input, group_by, ..
        } => match group_by.get(col)? {
            Expr::Column { index, .. } => column_distinct(input, *index, stats),
            _ => None,
        },
        LogicalPlan::Join {
            left, right, kind, ..
        } => {
            let nleft = left.schema().len();
            if col < nleft {
                column_distinct(left, col, stats)
            } else if matches!(kind, JoinKind::Semi | JoinKind::Anti) {
                None
            } else {
                column_distinct(right, col - nleft, stats)
            }
        }
        _ => None,
    }
}

/// The statistics of a filter's input's columns, where they are a stored table's.
pub(super) struct InputFacts<'a> {
    pub input: &'a LogicalPlan,
    pub stats: &'a dyn Statistics,
}

impl ColumnFacts for InputFacts<'_> {
    fn distinct(&mut self, column: usize) -> Option<f64> {
        column_distinct(self.input, column, self.stats)
    }

    fn range_fraction(
        &mut self,
        column: usize,
        lo: Option<&ScalarValue>,
        hi: Option<&ScalarValue>,
    ) -> Option<f64> {
        let (table_id, table_column) = stored_column(self.input, column)?;
        self.stats.range_fraction(table_id, table_column, lo, hi)
    }
}

/// The stored table and column an output column of `plan` is, passed through
/// unchanged by filters and projections.
fn stored_column(plan: &LogicalPlan, col: usize) -> Option<(u64, usize)> {
    match plan {
        LogicalPlan::Scan {
            table_id, columns, ..
        } => Some((*table_id, *columns.get(col)?)),
        LogicalPlan::Filter { input, .. } => stored_column(input, col),
        LogicalPlan::Project { input, exprs, .. } => match exprs.get(col)? {
            Expr::Column { index, .. } => stored_column(input, *index),
            _ => None,
        },
        _ => None,
    }
}

/// Estimated rows of a join input: [`estimate`], except that a condition matching a
/// column to constants keeps one row per distinct value named when the column's
/// distinct count is known ([`selectivity`]), also under the projections a view or
/// column pruning puts above the filter.
fn leaf_estimate(plan: &LogicalPlan, stats: &dyn Statistics) -> f64 {
    match plan {
        LogicalPlan::Project { input, .. } => leaf_estimate(input, stats),
        LogicalPlan::Filter { input, predicate } => {
            let kept = selectivity(predicate, &mut InputFacts { input, stats });
            (estimate(input) * kept).max(1.0)
        }
        _ => estimate(plan),
    }
}

fn is_inner_join(p: &LogicalPlan) -> bool {
    matches!(
        p,
        LogicalPlan::Join {
            kind: JoinKind::Inner,
            ..
        }
    )
}

/// Splits `l = r` terms with one side over columns < nleft and the other over columns
/// >= nleft into key pairs (right side re-based to 0).
fn extract_keys(terms: Vec<Expr>, nleft: usize) -> (Vec<(Expr, Expr)>, Vec<Expr>) {
    let mut keys = Vec::new();
    let mut rest = Vec::new();
    for t in terms {
        if let Some([(la, ra), (lb, rb)]) = null_safe_keys(&t, nleft) {
            keys.push((la, ra));
            keys.push((lb, rb));
            continue;
        }
        if let Some((a, b)) = equality_sides(&t) {
            let (sa, sb) = (side(a, nleft), side(b, nleft));
            let pair = match (sa, sb) {
                (Some(Side::Left), Some(Side::Right)) => Some((a.clone(), b.clone())),
                (Some(Side::Right), Some(Side::Left)) => Some((b.clone(), a.clone())),
                _ => None,
            };
            if let Some((l, mut r)) = pair {
                r.remap_columns(&|i| i - nleft);
                keys.push((l, r));
                continue;
            }
        }
        rest.push(t);
    }
    (keys, rest)
}

/// `l IS NOT DISTINCT FROM r` between the two inputs as two hash keys that are never
/// NULL: `(l IS NULL, r IS NULL)` and `(COALESCE(l, c), COALESCE(r, c))` for a constant
/// `c` of their type; equal in both exactly when the sides are not distinct. (As a
/// filter it made the join a nested loop: 36 s for 60,000 by 40,000 rows.) For types
/// with a constant at hand; right side re-based to 0.
fn null_safe_keys(t: &Expr, nleft: usize) -> Option<[(Expr, Expr); 2]> {
    let Expr::IsDistinctFrom {
        left,
        right,
        negated: true,
    } = t
    else {
        return None;
    };
    let (mut l, mut r) = match (side(left, nleft)?, side(right, nleft)?) {
        (Side::Left, Side::Right) => ((**left).clone(), (**right).clone()),
        (Side::Right, Side::Left) => ((**right).clone(), (**left).clone()),
        _ => return None,
    };
    let ty = l.data_type();
    if r.data_type() != ty {
        return None;
    }
    let constant = match &ty {
        t if t.is_integer() || t.is_float() || matches!(t, DataType::Decimal(..)) => Expr::Cast {
            expr: Box::new(Expr::literal(ScalarValue::Integer(0))),
            to: ty.clone(),
            try_cast: false,
        },
        DataType::Varchar => Expr::literal(ScalarValue::Varchar(String::new())),
        DataType::Boolean => Expr::literal(ScalarValue::Boolean(false)),
        DataType::Date => Expr::literal(ScalarValue::Date(0)),
        _ => return None,
    };
    r.remap_columns(&|i| i - nleft);
    let is_null = |e: &Expr| Expr::IsNull {
        expr: Box::new(e.clone()),
        negated: false,
    };
    let coalesce = |e: Expr| Expr::Coalesce {
        args: vec![e, constant.clone()],
        ty: ty.clone(),
    };
    let nulls = (is_null(&l), is_null(&r));
    l = coalesce(l);
    r = coalesce(r);
    Some([nulls, (l, r)])
}

#[derive(PartialEq, Clone, Copy)]
enum Side {
    Left,
    Right,
}

fn side(e: &Expr, nleft: usize) -> Option<Side> {
    if e.has_subquery() || e.any(&mut |x| matches!(x, Expr::OuterColumn { .. })) {
        return None;
    }
    let mut cols = Vec::new();
    e.collect_columns(&mut cols);
    if cols.is_empty() {
        None
    } else if cols.iter().all(|&c| c < nleft) {
        Some(Side::Left)
    } else if cols.iter().all(|&c| c >= nleft) {
        Some(Side::Right)
    } else {
        None
    }
}

fn equality_sides(e: &Expr) -> Option<(&Expr, &Expr)> {
    match e {
        Expr::Function { func, args } if func.func == ScalarFunction::Eq && args.len() == 2 => {
            Some((&args[0], &args[1]))
        }
        _ => None,
    }
}

/// Collects the leaves and conditions of a tree of inner joins (and of the filters
/// between them).
fn flatten(plan: LogicalPlan, leaves: &mut Vec<LogicalPlan>, terms: &mut Vec<Expr>, offset: usize) {
    match plan {
        LogicalPlan::Join {
            left,
            right,
            kind: JoinKind::Inner,
            on,
            filter,
            ..
        } => {
            let nleft = left.schema().len();
            for (l, mut r) in on {
                r.remap_columns(&|i| i + nleft);
                let mut t = crate::binder::equality(l, r);
                t.remap_columns(&|i| i + offset);
                terms.push(t);
            }
            if let Some(mut f) = filter {
                f.remap_columns(&|i| i + offset);
                f.split_conjunction(terms);
            }
            flatten(*left, leaves, terms, offset);
            flatten(*right, leaves, terms, offset + nleft);
        }
        // A filter between inner joins (filter_pushdown leaves conditions over both
        // sides of a join right above it) joins the tree's conditions.
        LogicalPlan::Filter { input, predicate } if is_inner_join(&input) => {
            let mut p = predicate;
            p.remap_columns(&|i| i + offset);
            p.split_conjunction(terms);
            flatten(*input, leaves, terms, offset);
        }
        other => leaves.push(other),
    }
}

fn reorder(
    plan: LogicalPlan,
    predicate: Option<Expr>,
    semis: Vec<SemiJoin>,
    stats: &dyn Statistics,
) -> Result<LogicalPlan> {
    let full_schema = plan.schema().to_vec();
    let mut leaves = Vec::new();
    let mut terms = Vec::new();
    flatten(plan, &mut leaves, &mut terms, 0);
    if let Some(p) = predicate {
        p.split_conjunction(&mut terms);
    }
    let mut origin: Vec<usize> = (0..full_schema.len()).collect();
    let hoisted = if semis.is_empty() {
        hoist_left_joins(&mut leaves, &mut terms, &mut origin)
    } else {
        Vec::new()
    };
    let schema: Vec<crate::plan::Field> = leaves.iter().flat_map(|l| l.schema().to_vec()).collect();
    let leaves = leaves
        .into_iter()
        .map(|l| optimize(l, stats))
        .collect::<Result<Vec<_>>>()?;
    let terms: Vec<Expr> = terms.into_iter().flat_map(Expr::factor_or).collect();
    // Global column ranges of each leaf.
    let mut starts = Vec::new();
    let mut acc = 0;
    for l in &leaves {
        starts.push(acc);
        acc += l.schema().len();
    }
    let leaf_of = |c: usize| {
        starts
            .iter()
            .rposition(|&s| s <= c)
            .expect("column inside some leaf")
    };
    let leaves_of = |e: &Expr| -> Option<Vec<usize>> {
        if e.has_subquery() || e.any(&mut |x| matches!(x, Expr::OuterColumn { .. })) {
            return None;
        }
        let mut cols = Vec::new();
        e.collect_columns(&mut cols);
        let mut ls: Vec<usize> = cols.into_iter().map(leaf_of).collect();
        ls.sort_unstable();
        ls.dedup();
        Some(ls)
    };

    // Push single-leaf conditions down; keep the rest.
    let mut pending: Vec<(Expr, Vec<usize>)> = Vec::new();
    let mut top: Vec<Expr> = Vec::new();
    let mut leaf_filters: Vec<Vec<Expr>> = vec![Vec::new(); leaves.len()];
    for t in terms {
        match leaves_of(&t) {
            Some(ls) if ls.len() == 1 => {
                let base = starts[ls[0]];
                let mut t = t;
                t.remap_columns(&|i| i - base);
                leaf_filters[ls[0]].push(t);
            }
            Some(ls) if ls.len() > 1 => {
                for &l in &ls {
                    if let Some(mut implied) =
                        t.implied_disjunction(|e| leaves_of(e) == Some(vec![l]))
                    {
                        let base = starts[l];
                        implied.remap_columns(&|i| i - base);
                        leaf_filters[l].push(implied);
                    }
                }
                pending.push((t, ls))
            }
            _ => top.push(t),
        }
    }
    let mut leaves: Vec<Option<LogicalPlan>> = leaves
        .into_iter()
        .zip(leaf_filters)
        .map(|(l, f)| {
            Some(match Expr::conjunction(f) {
                Some(p) => LogicalPlan::Filter {
                    input: Box::new(l),
                    predicate: p,
                },
                None => l,
            })
        })
        .collect();
    infer_equalities(&mut pending, &leaf_of);
    // A semi or anti join whose left side refers to one input only filters that
    // input, and goes onto it before any join when its own input is smaller (a
    // small IN list of keys is selective: TPC-H Q18). One over a large input stays on
    // top, to probe only the rows the joins keep (Q21's EXISTS over lineitem).
    let mut top_semis = Vec::new();
    for semi in semis {
        let mut cols = Vec::new();
        let mut plain = true;
        for (l, _) in &semi.on {
            plain &= leaves_of(l).is_some();
            l.collect_columns(&mut cols);
        }
        if let Some(f) = &semi.filter {
            let mut fc = Vec::new();
            f.collect_columns(&mut fc);
            cols.extend(fc.into_iter().filter(|&c| c < acc));
            plain &= !f.has_subquery() && !f.any(&mut |x| matches!(x, Expr::OuterColumn { .. }));
        }
        let mut ls: Vec<usize> = cols.into_iter().map(leaf_of).collect();
        ls.sort_unstable();
        ls.dedup();
        match ls[..] {
            [k] if plain
                && estimate(&semi.right) < estimate(leaves[k].as_ref().expect("leaf present")) =>
            {
                let leaf = leaves[k].take().expect("leaf present");
                leaves[k] = Some(apply_semi(leaf, semi, starts[k], acc));
            }
            _ => top_semis.push(semi),
        }
    }

    // The order of joins: searched exhaustively over the connected subsets of up to
    // EXHAUSTIVE_INPUTS inputs, else greedy operator ordering: repeatedly join the two
    // inputs (leaves or joins made so far) connected by an equality whose join is
    // estimated smallest; a cross product only when nothing connects, of the two
    // smallest inputs. Either way the hash table is built on the smaller input of
    // each join, and plans come out bushy where that pays: in TPC-H Q5, customer
    // joins nation and region (to the customers of one region) before orders, and
    // that small build side is what lineitem probes.
    let mut comps: Vec<Component> = leaves
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let plan = l.expect("leaf present");
            let width = plan.schema().len();
            Component {
                shape: Shape {
                    est: leaf_estimate(&plan, stats),
                    base: unfiltered_estimate(&plan),
                    leaves: vec![i],
                    equal: Vec::new(),
                },
                plan,
                cols: (starts[i]..starts[i] + width).collect(),
            }
        })
        .collect();
    // Distinct values of a join key that is a plain column of some leaf.
    let leaf_plans: Vec<&LogicalPlan> = comps.iter().map(|c| &c.plan).collect();
    let key_distinct: Vec<Option<f64>> = (0..acc)
        .map(|g| {
            let l = leaf_of(g);
            let used = pending.iter().any(|(t, _)| {
                equality_sides(t).is_some_and(|(x, y)| {
                    [x, y]
                        .iter()
                        .any(|e| matches!(e, Expr::Column { index, .. } if *index == g))
                })
            });
            if used {
                column_distinct(leaf_plans[l], g - starts[l], stats)
            } else {
                None
            }
        })
        .collect();
    let distinct = |e: &Expr| match e {
        Expr::Column { index, .. } => key_distinct[*index],
        _ => None,
    };
    // Position of each global column in the join being assembled.
    let mut pos: Vec<Option<usize>> = vec![None; acc];
    let shapes: Vec<Shape> = comps.iter().map(|c| c.shape.clone()).collect();
    if let Some(order) = exhaustive_order(&shapes, &pending, &distinct) {
        let mask = |c: &Component| c.shape.leaves.iter().fold(0u32, |m, &l| m | 1 << l);
        for (a, b) in order {
            let i = comps.iter().position(|c| mask(c) == a).expect("joined set");
            let first = comps.remove(i);
            let j = comps.iter().position(|c| mask(c) == b).expect("joined set");
            let second = comps.remove(j);
            let size = joined_estimate(&first.shape, &second.shape, &pending, &distinct);
            comps.push(join_inputs(first, second, size, &mut pending, &mut pos));
        }
    }
    // Greedily, the connected pair with the smallest estimate. A join changes only the
    // pairs of the component it makes (the conditions it takes in span no other
    // pair), so each pair's estimate is computed once, by the components' ids: a
    // 150-way join took 36 s recomputing them every round.
    let mut ids: Vec<usize> = (0..comps.len()).collect();
    let mut next_id = comps.len();
    let mut estimates: HashMap<(usize, usize), Option<f64>> = HashMap::new();
    while comps.len() > 1 {
        let mut best: Option<(f64, usize, usize)> = None;
        for i in 0..comps.len() {
            for j in i + 1..comps.len() {
                let estimate = *estimates.entry((ids[i], ids[j])).or_insert_with(|| {
                    connects(&pending, &comps[i].shape.leaves, &comps[j].shape.leaves).then(|| {
                        joined_estimate(&comps[i].shape, &comps[j].shape, &pending, &distinct)
                    })
                });
                let Some(size) = estimate else { continue };
                if best.is_none_or(|(b, ..)| size < b) {
                    best = Some((size, i, j));
                }
            }
        }
        let (size, i, j) = best.unwrap_or_else(|| {
            let mut by_size: Vec<usize> = (0..comps.len()).collect();
            by_size.sort_by(|&a, &b| comps[a].shape.est.total_cmp(&comps[b].shape.est));
            let (a, b) = (by_size[0].min(by_size[1]), by_size[0].max(by_size[1]));
            (comps[a].shape.est * comps[b].shape.est, a, b)
        });
        let second = comps.remove(j);
        let first = comps.remove(i);
        comps.push(join_inputs(first, second, size, &mut pending, &mut pos));
        let (b, a) = (ids.remove(j), ids.remove(i));
        estimates.retain(|&(x, y), _| ![a, b].contains(&x) && ![a, b].contains(&y));
        ids.push(next_id);
        next_id += 1;
    }
    let last = comps.pop().expect("a join has inputs");
    for (k, &g) in last.cols.iter().enumerate() {
        pos[g] = Some(k);
    }
    let current = last.plan;
    // Restore the original column order, then apply what could not be placed.
    let identity = (0..acc).all(|g| pos[g] == Some(g));
    let mut plan = current;
    if !identity {
        let exprs = (0..acc)
            .map(|g| {
                let p = pos[g].expect("every column placed");
                Expr::column(p, schema[g].ty.clone(), schema[g].name.clone())
            })
            .collect();
        plan = LogicalPlan::Project {
            input: Box::new(plan),
            exprs,
            schema: schema.clone(),
        };
    }
    let leftover: Vec<Expr> = pending.into_iter().map(|(t, _)| t).chain(top).collect();
    if let Some(p) = Expr::conjunction(leftover) {
        plan = LogicalPlan::Filter {
            input: Box::new(plan),
            predicate: p,
        };
    }
    for semi in top_semis {
        plan = apply_semi(plan, semi, 0, acc);
    }
    if !hoisted.is_empty() {
        plan = rejoin_hoisted(plan, hoisted, origin, &full_schema, stats)?;
    }
    Ok(plan)
}

/// A LEFT JOIN taken out of a tree of inner joins (see [`hoist_left_joins`]): its
/// right input and conditions, and the tree's original output positions of its left
/// and right inputs' columns.
struct Hoisted {
    right: LogicalPlan,
    on: Vec<(Expr, Expr)>,
    filter: Option<Expr>,
    left_cols: Vec<usize>,
    right_cols: Vec<usize>,
}

/// `(A LEFT JOIN B) JOIN C ON a = c` is `(A JOIN C ON a = c) LEFT JOIN B`: a LEFT
/// JOIN leaf of an inner join tree whose right side no other condition of the tree
/// reads is taken out, so the tree's joins (often selective: TPC-DS Q80's date range)
/// run before it instead of above all its rows. Its left input takes the leaf's
/// place, split into the leaves of its own inner joins; `terms` move to the new
/// column positions. `origin` maps each remaining column to the tree's original
/// output position.
fn hoist_left_joins(
    leaves: &mut Vec<LogicalPlan>,
    terms: &mut Vec<Expr>,
    origin: &mut Vec<usize>,
) -> Vec<Hoisted> {
    let mut hoisted = Vec::new();
    let mut k = 0;
    while k < leaves.len() {
        let start: usize = leaves[..k].iter().map(|l| l.schema().len()).sum();
        let hoistable = match &leaves[k] {
            LogicalPlan::Join {
                kind: JoinKind::Left,
                left,
                right,
                ..
            } => {
                let (lo, hi) = (
                    start + left.schema().len(),
                    start + left.schema().len() + right.schema().len(),
                );
                !terms.iter().any(|t| {
                    let mut cols = Vec::new();
                    t.collect_columns(&mut cols);
                    t.has_subquery() || cols.iter().any(|c| (lo..hi).contains(c))
                })
            }
            _ => false,
        };
        if !hoistable {
            k += 1;
            continue;
        }
        let LogicalPlan::Join {
            left,
            right,
            on,
            filter,
            ..
        } = leaves.remove(k)
        else {
            unreachable!("matched above")
        };
        let (nl, nr) = (left.schema().len(), right.schema().len());
        let hi = start + nl + nr;
        for t in terms.iter_mut() {
            t.remap_columns(&|c| if c >= hi { c - nr } else { c });
        }
        let right_cols: Vec<usize> = origin.drain(start + nl..hi).collect();
        hoisted.push(Hoisted {
            right: *right,
            on,
            filter,
            left_cols: origin[start..start + nl].to_vec(),
            right_cols,
        });
        let mut sub = Vec::new();
        flatten(*left, &mut sub, terms, start);
        for (i, l) in sub.into_iter().enumerate() {
            leaves.insert(k + i, l);
        }
        // The new leaves at k are looked at again: one may be a LEFT JOIN too.
    }
    hoisted
}

/// `plan` (the tree without its hoisted LEFT JOINs, columns in `origin` order) with
/// each hoisted join applied on top, then its columns put back in the tree's
/// original order `schema`.
fn rejoin_hoisted(
    mut plan: LogicalPlan,
    hoisted: Vec<Hoisted>,
    origin: Vec<usize>,
    schema: &[crate::plan::Field],
    stats: &dyn Statistics,
) -> Result<LogicalPlan> {
    let mut at = origin;
    // Innermost first: a join taken out of another's left input goes back first.
    for h in hoisted.into_iter().rev() {
        let position = |o: usize| at.iter().position(|&x| x == o).expect("left column placed");
        let left_pos: Vec<usize> = h.left_cols.iter().map(|&o| position(o)).collect();
        let width = at.len();
        let nl = h.left_cols.len();
        let on =
            h.on.into_iter()
                .map(|(mut l, r)| {
                    l.remap_columns(&|i| left_pos[i]);
                    (l, r)
                })
                .collect();
        let filter = h.filter.map(|mut f| {
            f.remap_columns(&|i| if i < nl { left_pos[i] } else { width + i - nl });
            f
        });
        let mut fields = plan.schema().to_vec();
        fields.extend(h.right.schema().iter().cloned());
        plan = finish_join(LogicalPlan::Join {
            left: Box::new(plan),
            right: Box::new(optimize(h.right, stats)?),
            kind: JoinKind::Left,
            on,
            filter,
            schema: fields,
        });
        at.extend(h.right_cols);
    }
    let exprs = (0..schema.len())
        .map(|o| {
            let p = at
                .iter()
                .position(|&x| x == o)
                .expect("every column placed");
            Expr::column(p, schema[o].ty.clone(), schema[o].name.clone())
        })
        .collect();
    Ok(LogicalPlan::Project {
        input: Box::new(plan),
        exprs,
        schema: schema.to_vec(),
    })
}

/// Joins two inputs on the pending conditions that only they need (which leave
/// `pending`), building the hash table on the smaller one; `pos` learns where each
/// global column sits in the result.
fn join_inputs(
    first: Component,
    second: Component,
    size: f64,
    pending: &mut Vec<(Expr, Vec<usize>)>,
    pos: &mut [Option<usize>],
) -> Component {
    // The hash table is built on the right input: the smaller one.
    let (probe, build) = if first.shape.est >= second.shape.est {
        (first, second)
    } else {
        (second, first)
    };
    let mut leaves_here = probe.shape.leaves.clone();
    leaves_here.extend(&build.shape.leaves);
    let mut cols = probe.cols.clone();
    cols.extend(&build.cols);
    for (k, &g) in cols.iter().enumerate() {
        pos[g] = Some(k);
    }
    // Conditions now fully inside the joined inputs become this join's conditions.
    let mut here = Vec::new();
    pending.retain(|(t, ls)| {
        if ls.iter().all(|l| leaves_here.contains(l)) {
            here.push(t.clone());
            false
        } else {
            true
        }
    });
    // An equality of two columns the inputs already made equal (through other
    // equalities, some inferred) would only widen the hash key.
    let mut equal = probe.shape.equal.clone();
    equal.extend(&build.shape.equal);
    here.retain(|t| match plain_columns(t) {
        Some((x, y)) if same_class(&equal, x, y) => false,
        Some((x, y)) => {
            equal.push((x, y));
            true
        }
        None => true,
    });
    let here: Vec<Expr> = here
        .into_iter()
        .map(|mut t| {
            t.remap_columns(&|i| pos[i].expect("column of a joined leaf"));
            t
        })
        .collect();
    let nleft = probe.cols.len();
    let (on, rest) = extract_keys(here, nleft);
    let mut jschema = probe.plan.schema().to_vec();
    jschema.extend(build.plan.schema().iter().cloned());
    Component {
        plan: LogicalPlan::Join {
            left: Box::new(probe.plan),
            right: Box::new(build.plan),
            kind: JoinKind::Inner,
            on,
            filter: Expr::conjunction(rest),
            schema: jschema,
        },
        cols,
        shape: Shape {
            leaves: leaves_here,
            equal,
            est: size.max(1.0),
            base: probe.shape.base.max(build.shape.base),
        },
    }
}
