//! Vectorized expression evaluation. [`eval`] computes an expression for every logical
//! row of a chunk and returns a flat or constant vector of that length; [`select`]
//! evaluates a predicate and returns the rows where it is TRUE. In a conjunction,
//! comparisons of columns with constants are checked together into 64-row bit masks
//! before the other terms run on the rows they keep; a later term comparing a
//! VARCHAR column with constants reads just those rows where they are
//! (`select_strings_at`). IN lists of constants go through sets (`in_set.rs`).
//!
//! Conditional forms (CASE, COALESCE, AND) evaluate later branches only on the rows
//! that reach them, so `CASE WHEN b = 0 THEN 0 ELSE a / b END` never divides by zero.
//! A CASE whose results are columns or constants reads them in place rather than
//! gathering each branch's rows (`case_in_place`).
//! Subqueries the `decorrelate` pass left in place run through the executor, once per
//! distinct set of outer values, with results cached in the [`QueryContext`].
//! `nextval`, `currval` and `setval` are evaluated here too, as they need the
//! sequence in the query's catalogs (`sequence_values`).

use crate::context::{QueryContext, SubqueryRows};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::sync::Arc;
use stride_common::vector::NativeType;
use stride_common::{
    with_native, DataChunk, DataType, Error, Result, ScalarValue, SelectionVector, Validity,
    Vector, VectorData,
};
use stride_functions::{
    cast_vector, comparison_masks, evaluate_scalar, mask_rows, resolve_scalar, select_comparison,
    ScalarFunction,
};
use stride_sql::plan::visit::for_each_outer_ref;
use stride_sql::plan::{Expr, ListSet, Subquery, SubqueryKind};

/// Like [`eval`], but a plain column of a chunk without selection is borrowed, not
/// copied.
pub fn eval_ref<'a>(e: &Expr, chunk: &'a DataChunk, ctx: &QueryContext) -> Result<Cow<'a, Vector>> {
    match e {
        Expr::Column { index, .. } if chunk.selection.is_none() => {
            Ok(Cow::Borrowed(&chunk.columns[*index]))
        }
        Expr::Collate { expr, .. } => eval_ref(expr, chunk, ctx),
        _ => eval(e, chunk, ctx).map(Cow::Owned),
    }
}

/// `nextval` (a value per row, taken from the sequence in order) or `currval` (the
/// last value taken) of the sequence whose id the binder put in the argument.
fn sequence_values(
    func: ScalarFunction,
    args: &[Expr],
    chunk: &DataChunk,
    ctx: &QueryContext,
) -> Result<Vector> {
    let len = chunk.len();
    let id = match args.first() {
        Some(Expr::Literal {
            value: ScalarValue::BigInt(id),
            ..
        }) => *id as u64,
        _ => return Err(Error::internal("nextval without its sequence's id")),
    };
    let seq = ctx.catalog.sequence_by_id(id).ok_or_else(|| {
        Error::catalog("the sequence this statement uses was dropped; run the statement again")
    })?;
    if let [_, value, called] = args {
        // setval: each row's value in turn (a NULL leaves the sequence as it is)
        let (v, c) = (eval(value, chunk, ctx)?, eval(called, chunk, ctx)?);
        let (values, flags) = (v.values::<i64>(), c.values::<bool>());
        let valid = |i: usize| v.is_valid(i) && c.is_valid(i);
        let mut out = Vec::with_capacity(len);
        for i in 0..len {
            out.push(if valid(i) {
                seq.set(values[v.index(i)], flags[c.index(i)])?
            } else {
                0
            });
        }
        return Ok(Vector::new(
            DataType::BigInt,
            VectorData::I64(out.into()),
            Validity::from_fn(len, valid),
        ));
    }
    let values = if func == ScalarFunction::NextVal {
        let mut v = Vec::with_capacity(len);
        seq.next_values(len, &mut v)?;
        v
    } else {
        vec![seq.current()?; len]
    };
    Ok(Vector::new(
        DataType::BigInt,
        VectorData::I64(values.into()),
        Validity::all_valid(),
    ))
}

pub fn eval(e: &Expr, chunk: &DataChunk, ctx: &QueryContext) -> Result<Vector> {
    let len = chunk.len();
    match e {
        Expr::Column { index, .. } => Ok(chunk.column(*index)),
        Expr::Literal { value, ty } => Vector::constant(value, ty),
        // The binder has already compared collated strings by their keys.
        Expr::Collate { expr, .. } => eval(expr, chunk, ctx),
        Expr::Cast { expr, to, try_cast } => {
            let v = eval(expr, chunk, ctx)?;
            cast_vector(&v, len, to, *try_cast)
        }
        // now(), current_date, age(t): the statement's (or transaction's) instant.
        Expr::Function { func, args }
            if stride_functions::scalar::reads_clock(func.func, args.len()) =>
        {
            let vs = args
                .iter()
                .map(|a| eval(a, chunk, ctx))
                .collect::<Result<Vec<_>>>()?;
            stride_functions::scalar::evaluate_at_clock(func.func, &vs, len, ctx.clock)
        }
        Expr::Function { func, args }
            if matches!(
                func.func,
                ScalarFunction::NextVal | ScalarFunction::CurrVal | ScalarFunction::SetVal
            ) =>
        {
            sequence_values(func.func, args, chunk, ctx)
        }
        Expr::Function { func, args } => {
            let vs = args
                .iter()
                .map(|a| eval(a, chunk, ctx))
                .collect::<Result<Vec<_>>>()?;
            evaluate_scalar(func, &vs, len)
        }
        Expr::And(..) | Expr::Or(..) => eval_logical(e, chunk, ctx),
        Expr::Not(x) => {
            let v = eval(x, chunk, ctx)?;
            let vals: Vec<bool> = v.values::<bool>().iter().map(|b| !b).collect();
            Ok(Vector {
                ty: DataType::Boolean,
                data: VectorData::Bool(vals.into()),
                validity: v.validity,
                constant: v.constant,
            })
        }
        Expr::IsNull { expr, negated } => {
            let v = eval(expr, chunk, ctx)?;
            let n = v.data_len();
            let vals: Vec<bool> = (0..n).map(|i| v.validity.is_valid(i) == *negated).collect();
            Ok(Vector {
                ty: DataType::Boolean,
                data: VectorData::Bool(vals.into()),
                validity: Validity::all_valid(),
                constant: v.constant,
            })
        }
        Expr::IsDistinctFrom {
            left,
            right,
            negated,
        } => {
            let l = eval(left, chunk, ctx)?;
            let r = eval(right, chunk, ctx)?;
            let t = l.ty.clone();
            let eq = evaluate_scalar(
                &resolve_scalar("=", &[t.clone(), t])?,
                &[l.clone(), r.clone()],
                len,
            )?;
            let eqv = eq.values::<bool>();
            let vals: Vec<bool> = (0..len)
                .map(|i| {
                    let (lv, rv) = (l.is_valid(i), r.is_valid(i));
                    let distinct = match (lv, rv) {
                        (false, false) => false,
                        (true, true) => !eqv[eq.index(i)],
                        _ => true,
                    };
                    distinct != *negated
                })
                .collect();
            Ok(Vector::from_values(DataType::Boolean, vals))
        }
        Expr::Case {
            branches,
            else_expr,
            ty,
        } => eval_case(branches, else_expr, ty, chunk, ctx),
        Expr::Coalesce { args, ty } => eval_coalesce(args, ty, chunk, ctx),
        Expr::Lambda {
            func,
            list,
            captures,
            body,
            params,
            ty,
        } => crate::lambda::eval_lambda(
            &crate::lambda::Lambda {
                func: *func,
                list,
                captures,
                body,
                params: *params,
                ty,
            },
            chunk,
            ctx,
        ),
        Expr::Greatest { args, least, ty } => {
            let vs = args
                .iter()
                .map(|a| eval(a, chunk, ctx))
                .collect::<Result<Vec<_>>>()?;
            let mut out = Vector::with_capacity(ty, len);
            for i in 0..len {
                let mut best = ScalarValue::Null;
                for v in &vs {
                    let x = v.get(i);
                    if x.is_null() {
                        continue;
                    }
                    let better = best.is_null() || {
                        let o = x.total_cmp(&best);
                        if *least {
                            o == Ordering::Less
                        } else {
                            o == Ordering::Greater
                        }
                    };
                    if better {
                        best = x;
                    }
                }
                out.push(&best)?;
            }
            Ok(out)
        }
        Expr::InList {
            expr,
            list,
            negated,
            set,
        } => eval_in_list(expr, list, *negated, set, chunk, ctx),
        Expr::Subquery(s) => eval_subquery(s, chunk, ctx),
        Expr::OuterColumn { name, .. } => Err(Error::internal(format!(
            "unresolved outer reference {name}"
        ))),
        Expr::AggregateRef { .. }
        | Expr::OuterAggregateRef { .. }
        | Expr::WindowRef { .. }
        | Expr::Grouping { .. } => Err(Error::internal("aggregate placeholder reached execution")),
    }
}

/// Rows (logical indices) where the predicate is TRUE.
pub fn select(e: &Expr, chunk: &DataChunk, ctx: &QueryContext) -> Result<SelectionVector> {
    if let Expr::And(a, b) = e {
        if let Some(sel) = select_column_ranges(e, chunk, ctx)? {
            return Ok(sel);
        }
        if has_or(e) {
            if let Some(masks) = comparison_tree_masks(e, chunk, ctx)? {
                return Ok(SelectionVector::new(mask_rows(&masks)));
            }
        }
        let first = select(a, chunk, ctx)?;
        if first.is_empty() || first.len() == chunk.len() && !chunk.is_empty() {
            if first.is_empty() {
                return Ok(first);
            }
            return select(b, chunk, ctx);
        }
        let mut sub = chunk.clone();
        sub.select(first.clone());
        let second = select(b, &sub, ctx)?;
        return Ok(second.compose(&first));
    }
    if let Expr::Or(..) = e {
        if let Some(masks) = comparison_tree_masks(e, chunk, ctx)? {
            return Ok(SelectionVector::new(mask_rows(&masks)));
        }
        return select_any(e, chunk, ctx);
    }
    if let Some(rows) = select_strings_at(e, chunk) {
        return Ok(SelectionVector::new(rows));
    }
    if let Expr::Function { func, args } = e {
        if let [a, b] = &args[..] {
            let (x, y) = (eval_ref(a, chunk, ctx)?, eval_ref(b, chunk, ctx)?);
            if let Some(rows) = select_comparison(func, &x, &y, chunk.len()) {
                return Ok(SelectionVector::new(rows));
            }
            let v = evaluate_scalar(func, &[x.into_owned(), y.into_owned()], chunk.len())?;
            return Ok(true_rows(&v, chunk.len()));
        }
    }
    let v = eval(e, chunk, ctx)?;
    Ok(true_rows(&v, chunk.len()))
}

/// A VARCHAR column compared with constants (`s = 'x'`, `s <> 'x'`, `s [NOT] IN ('x',
/// ...)`) on a chunk with a selection (a filter's later term, after the earlier ones
/// narrowed it): only the selected rows are compared, where they are in the column,
/// instead of gathering them first. The logical rows kept; `None` for other shapes.
fn select_strings_at(e: &Expr, chunk: &DataChunk) -> Option<Vec<u32>> {
    let sel = chunk.selection.as_ref()?;
    fn varchar(x: &Expr) -> Option<&[u8]> {
        match x {
            Expr::Literal {
                value: ScalarValue::Varchar(s),
                ..
            } => Some(s.as_bytes()),
            _ => None,
        }
    }
    let (col, constants, keep_equal) = match e {
        Expr::Function { func, args }
            if matches!(func.func, ScalarFunction::Eq | ScalarFunction::NotEq) =>
        {
            let (col, text) = match &args[..] {
                [Expr::Column { index, .. }, lit] | [lit, Expr::Column { index, .. }] => {
                    (*index, varchar(lit)?)
                }
                _ => return None,
            };
            (col, vec![text], func.func == ScalarFunction::Eq)
        }
        Expr::InList {
            expr,
            list,
            negated,
            ..
        } => {
            let Expr::Column { index, .. } = expr.as_ref() else {
                return None;
            };
            let texts = list.iter().map(varchar).collect::<Option<Vec<_>>>()?;
            (*index, texts, !negated)
        }
        _ => return None,
    };
    let v = &chunk.columns[col];
    let VectorData::Str(strings) = &v.data else {
        return None;
    };
    if v.constant || v.ty != DataType::Varchar {
        return None;
    }
    let mut equal = vec![false; sel.len()];
    for text in constants {
        for (e, hit) in equal.iter_mut().zip(strings.equal_at(&sel.indices, text)) {
            *e |= hit;
        }
    }
    let kept = sel.indices.iter().zip(&equal).enumerate();
    Some(
        kept.filter(|(_, (&row, &e))| e == keep_equal && v.validity.is_valid(row as usize))
            .map(|(k, _)| k as u32)
            .collect(),
    )
}

/// A conjunction with at least two comparisons of a column with a constant (a date
/// range, `BETWEEN`) over a chunk without a selection: those comparisons are
/// evaluated together, 64 rows at a time into one mask
/// ([`comparison_masks`]), and the other terms then on the rows they keep.
/// `None` when the conjunction has no such shape.
fn select_column_ranges(
    e: &Expr,
    chunk: &DataChunk,
    ctx: &QueryContext,
) -> Result<Option<SelectionVector>> {
    if chunk.selection.is_some() {
        return Ok(None);
    }
    let (simple, rest) = comparisons_and_rest(e);
    if simple.len() < 2 {
        return Ok(None);
    }
    let Some(masks) = masks_of_comparisons(&simple, chunk, ctx)? else {
        return Ok(None);
    };
    let rows = mask_rows(&masks);
    let mut sel = SelectionVector::new(rows);
    for t in rest {
        if sel.is_empty() {
            break;
        }
        let mut sub = chunk.clone();
        sub.select(sel.clone());
        sel = select(t, &sub, ctx)?.compose(&sel);
    }
    Ok(Some(sel))
}

/// The terms of conjunction `e` split into comparisons of a column with a constant
/// and the others.
#[allow(clippy::type_complexity)]
fn comparisons_and_rest(e: &Expr) -> (Vec<(ScalarFunction, usize, &Expr)>, Vec<&Expr>) {
    let mut terms = Vec::new();
    conjuncts(e, &mut terms);
    let (mut simple, mut rest) = (Vec::new(), Vec::new());
    for t in terms {
        match column_comparison(t) {
            Some(c) => simple.push(c),
            None => rest.push(t),
        }
    }
    (simple, rest)
}

/// The rows where all of `comparisons` (column, constant) hold, as one bit per row
/// ([`comparison_masks`]); `None` where a column's type has no such kernel.
fn masks_of_comparisons(
    comparisons: &[(ScalarFunction, usize, &Expr)],
    chunk: &DataChunk,
    ctx: &QueryContext,
) -> Result<Option<Vec<u64>>> {
    let constants = comparisons
        .iter()
        .map(|(_, _, c)| eval(c, chunk, ctx))
        .collect::<Result<Vec<_>>>()?;
    let terms: Vec<_> = comparisons
        .iter()
        .zip(&constants)
        .map(|(&(func, col, _), c)| (func, &chunk.columns[col], c))
        .collect();
    Ok(comparison_masks(&terms, chunk.len()))
}

/// Whether a conjunction has a disjunction among its terms.
fn has_or(e: &Expr) -> bool {
    match e {
        Expr::Or(..) => true,
        Expr::And(a, b) => has_or(a) || has_or(b),
        _ => false,
    }
}

/// For an AND/OR tree whose leaves all compare a column with a constant (Q48's
/// `(p BETWEEN 0 AND 2000 OR p BETWEEN 150 AND 3000 OR ...) AND (...)`) over a chunk
/// without a selection: the rows where it is TRUE, as one bit per row, each
/// conjunction's comparisons evaluated together 64 rows at a time and the
/// conjunctions' masks combined word by word, with no rows gathered between terms.
/// `None` for any other shape. (A leaf that is NULL is not TRUE, and neither AND nor
/// OR can make a tree TRUE from a NULL leaf that a FALSE leaf would not.)
fn comparison_tree_masks(
    e: &Expr,
    chunk: &DataChunk,
    ctx: &QueryContext,
) -> Result<Option<Vec<u64>>> {
    if chunk.selection.is_some() {
        return Ok(None);
    }
    let len = chunk.len();
    match e {
        Expr::Or(..) => {
            let mut terms = Vec::new();
            disjuncts(e, &mut terms);
            let mut acc: Option<Vec<u64>> = None;
            for t in terms {
                let Some(m) = comparison_tree_masks(t, chunk, ctx)? else {
                    return Ok(None);
                };
                acc = Some(match acc {
                    None => m,
                    Some(mut a) => {
                        a.iter_mut().zip(&m).for_each(|(x, y)| *x |= y);
                        a
                    }
                });
            }
            Ok(acc)
        }
        _ => {
            let (simple, rest) = comparisons_and_rest(e);
            if !rest.iter().all(|t| matches!(t, Expr::Or(..))) {
                return Ok(None);
            }
            // String (in)equalities take their own loop; the others compare together.
            let (strings, simple): (Vec<_>, Vec<_>) = simple.into_iter().partition(|&(f, c, _)| {
                chunk.columns[c].ty.physical() == stride_common::PhysicalType::Str
                    && matches!(f, ScalarFunction::Eq | ScalarFunction::NotEq)
            });
            let Some(mut masks) = masks_of_comparisons(&simple, chunk, ctx)? else {
                return Ok(None);
            };
            for (func, col, literal) in strings {
                let c = &chunk.columns[col];
                let Expr::Literal {
                    value: ScalarValue::Varchar(text),
                    ..
                } = literal
                else {
                    return Ok(None);
                };
                if c.constant {
                    return Ok(None);
                }
                let want = func == ScalarFunction::Eq;
                let equal = c.strings().equal_to(len, text.as_bytes());
                for (k, m) in masks.iter_mut().enumerate() {
                    let rows = &equal[k * 64..(k * 64 + 64).min(len)];
                    let bits = rows
                        .iter()
                        .enumerate()
                        .fold(0u64, |w, (j, &e)| w | ((e == want) as u64) << j);
                    *m &= bits;
                }
                if c.validity.has_nulls() {
                    for i in 0..len {
                        if !c.validity.is_valid(i) {
                            masks[i / 64] &= !(1u64 << (i % 64));
                        }
                    }
                }
            }
            for t in rest {
                let Some(m) = comparison_tree_masks(t, chunk, ctx)? else {
                    return Ok(None);
                };
                masks.iter_mut().zip(&m).for_each(|(x, y)| *x &= y);
            }
            Ok(Some(masks))
        }
    }
}

/// Rows where a disjunction is TRUE: each term is selected only among the rows the
/// terms before it left (so each of `(a AND b) OR (c AND d)`'s conjunctions takes its
/// own fast path), rather than every term evaluated to TRUE/FALSE/NULL over every row
/// and the results combined.
fn select_any(e: &Expr, chunk: &DataChunk, ctx: &QueryContext) -> Result<SelectionVector> {
    let mut terms = Vec::new();
    disjuncts(e, &mut terms);
    let len = chunk.len();
    let mut chosen = vec![false; len];
    // The rows no term has selected yet; `None`: all of them.
    let mut left: Option<SelectionVector> = None;
    for t in terms {
        let sel = match &left {
            None => select(t, chunk, ctx)?,
            Some(rest) if rest.is_empty() => break,
            Some(rest) => {
                let mut sub = chunk.clone();
                sub.select(rest.clone());
                select(t, &sub, ctx)?.compose(rest)
            }
        };
        for &i in &sel.indices {
            chosen[i as usize] = true;
        }
        left = Some(SelectionVector::new(
            (0..len as u32).filter(|&i| !chosen[i as usize]).collect(),
        ));
    }
    Ok(SelectionVector::new(
        (0..len as u32).filter(|&i| chosen[i as usize]).collect(),
    ))
}

/// The terms of a disjunction, left to right.
fn disjuncts<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    terms(e, false, out)
}

/// The terms of a conjunction, left to right.
fn conjuncts<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    terms(e, true, out)
}

/// The terms of a chain of ANDs (`and`) or of ORs, left to right.
fn terms<'a>(e: &'a Expr, and: bool, out: &mut Vec<&'a Expr>) {
    match e {
        Expr::And(a, b) if and => {
            terms(a, and, out);
            terms(b, and, out);
        }
        Expr::Or(a, b) if !and => {
            terms(a, and, out);
            terms(b, and, out);
        }
        other => out.push(other),
    }
}

/// A comparison of a column with a literal, as (comparison with the column on the
/// left, column index, literal).
fn column_comparison(e: &Expr) -> Option<(ScalarFunction, usize, &Expr)> {
    let Expr::Function { func, args } = e else {
        return None;
    };
    let flipped = match func.func {
        ScalarFunction::Eq => ScalarFunction::Eq,
        ScalarFunction::NotEq => ScalarFunction::NotEq,
        ScalarFunction::Lt => ScalarFunction::Gt,
        ScalarFunction::LtEq => ScalarFunction::GtEq,
        ScalarFunction::Gt => ScalarFunction::Lt,
        ScalarFunction::GtEq => ScalarFunction::LtEq,
        _ => return None,
    };
    match &args[..] {
        [Expr::Column { index, .. }, lit @ Expr::Literal { .. }] => Some((func.func, *index, lit)),
        [lit @ Expr::Literal { .. }, Expr::Column { index, .. }] => Some((flipped, *index, lit)),
        _ => None,
    }
}

pub fn true_rows(v: &Vector, len: usize) -> SelectionVector {
    let vals = v.values::<bool>();
    if v.constant {
        let all = v.validity.is_valid(0) && vals[0];
        return SelectionVector::new(if all {
            (0..len as u32).collect()
        } else {
            vec![]
        });
    }
    // Branch-free: every row's index is written, and the cursor only advances past
    // the true ones, so the loop costs the same whatever the selectivity.
    let mut idx = vec![0u32; len];
    let mut n = 0;
    if v.validity.has_nulls() {
        for (i, &b) in vals[..len].iter().enumerate() {
            idx[n] = i as u32;
            n += (b && v.validity.is_valid(i)) as usize;
        }
    } else {
        for (i, &b) in vals[..len].iter().enumerate() {
            idx[n] = i as u32;
            n += b as usize;
        }
    }
    idx.truncate(n);
    SelectionVector::new(idx)
}

fn bool_vector(vals: Vec<bool>, validity: Validity) -> Vector {
    Vector::new(DataType::Boolean, VectorData::Bool(vals.into()), validity)
}

/// Three-valued AND / OR.
fn eval_logical(e: &Expr, chunk: &DataChunk, ctx: &QueryContext) -> Result<Vector> {
    let (a, b, is_and) = match e {
        Expr::And(a, b) => (a, b, true),
        Expr::Or(a, b) => (a, b, false),
        _ => unreachable!("only AND/OR"),
    };
    let len = chunk.len();
    let l = eval(a, chunk, ctx)?;
    let r = eval(b, chunk, ctx)?;
    let (lv, rv) = (l.values::<bool>(), r.values::<bool>());
    let mut vals = Vec::with_capacity(len);
    let mut validity = Validity::all_valid();
    for i in 0..len {
        let (li, ri) = (l.index(i), r.index(i));
        let x = l.validity.is_valid(li).then(|| lv[li]);
        let y = r.validity.is_valid(ri).then(|| rv[ri]);
        let out = if is_and {
            match (x, y) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            }
        } else {
            match (x, y) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            }
        };
        vals.push(out.unwrap_or(false));
        if out.is_none() {
            validity.set_invalid(i, len);
        }
    }
    Ok(bool_vector(vals, validity))
}

/// Assembles a vector from pieces computed for disjoint row subsets.
fn assemble(ty: &DataType, len: usize, pieces: Vec<(Vec<u32>, Vector)>) -> Vector {
    let mut all = Vector::with_capacity(ty, len);
    let mut rows: Vec<u32> = Vec::with_capacity(len);
    for (r, v) in pieces {
        all.append(&v, r.len());
        rows.extend_from_slice(&r);
    }
    let mut inverse = vec![0u32; len];
    for (pos, &r) in rows.iter().enumerate() {
        inverse[r as usize] = pos as u32;
    }
    all.take(&inverse)
}

fn subset(chunk: &DataChunk, rows: &[u32]) -> DataChunk {
    let mut c = chunk.clone();
    c.select(SelectionVector::new(rows.to_vec()));
    c
}

fn eval_case(
    branches: &[(Expr, Expr)],
    else_expr: &Expr,
    ty: &DataType,
    chunk: &DataChunk,
    ctx: &QueryContext,
) -> Result<Vector> {
    let len = chunk.len();
    // `CASE WHEN c THEN x END` (ELSE NULL), x a column or a constant, as in
    // `sum(CASE WHEN d_day_name = 'Sunday' THEN price END)`: x itself, NULL where c
    // is not true. Nothing is gathered, and x cannot fail on rows c rejects.
    if let ([(cond, result)], Expr::Literal { value, .. }) = (branches, else_expr) {
        if value.is_null()
            && matches!(result, Expr::Column { .. } | Expr::Literal { .. })
            && result.data_type() == *ty
        {
            let hit = select(cond, chunk, ctx)?;
            let v = eval(result, chunk, ctx)?.flatten(len);
            let validity = v.validity.and(&Validity::from_rows(len, &hit.indices));
            return Ok(Vector { validity, ..v });
        }
    }
    if let Some(v) = case_in_place(branches, else_expr, ty, chunk, ctx)? {
        return Ok(v);
    }
    // The rows of `chunk` at `rows`, without a copy when that is all of them.
    let rows_of = |rows: &[u32]| {
        if rows.len() == len {
            chunk.clone()
        } else {
            subset(chunk, rows)
        }
    };
    let mut remaining: Vec<u32> = (0..len as u32).collect();
    let mut pieces = Vec::new();
    for (cond, result) in branches {
        if remaining.is_empty() {
            break;
        }
        let hit = select(cond, &rows_of(&remaining), ctx)?;
        if hit.is_empty() {
            continue;
        }
        let hit_rows: Vec<u32> = hit.indices.iter().map(|&i| remaining[i as usize]).collect();
        let v = eval(result, &rows_of(&hit_rows), ctx)?;
        let mut is_hit = vec![false; remaining.len()];
        for &i in &hit.indices {
            is_hit[i as usize] = true;
        }
        remaining = remaining
            .iter()
            .zip(&is_hit)
            .filter(|(_, h)| !**h)
            .map(|(r, _)| *r)
            .collect();
        let n = hit_rows.len();
        pieces.push((hit_rows, v.flatten(n)));
    }
    if !remaining.is_empty() {
        let n = remaining.len();
        let v = eval(else_expr, &rows_of(&remaining), ctx)?;
        pieces.push((remaining, v.flatten(n)));
    }
    if pieces.len() == 1 && pieces[0].0.len() == len {
        return Ok(pieces.pop().expect("one piece").1);
    }
    Ok(assemble(ty, len, pieces))
}

/// CASE of fixed-width values whose results are all columns or constants (`CASE WHEN
/// a - b <= 30 THEN 1 ELSE 0 END`): the ELSE value is read whole, then each branch's
/// value is written over it at the rows the branch takes. The conditions still see
/// only the rows earlier branches left, so a condition never fails on a row it
/// should not see; the results are read in place, never gathered.
fn case_in_place(
    branches: &[(Expr, Expr)],
    else_expr: &Expr,
    ty: &DataType,
    chunk: &DataChunk,
    ctx: &QueryContext,
) -> Result<Option<Vector>> {
    let in_place =
        |e: &Expr| matches!(e, Expr::Column { .. } | Expr::Literal { .. }) && e.data_type() == *ty;
    let fixed = with_native!(ty.physical(), T => true, _ => false);
    if !fixed || !in_place(else_expr) || !branches.iter().all(|(_, r)| in_place(r)) {
        return Ok(None);
    }
    let len = chunk.len();
    let mut out = eval(else_expr, chunk, ctx)?.flatten(len);
    let mut remaining: Vec<u32> = (0..len as u32).collect();
    for (cond, result) in branches {
        if remaining.is_empty() {
            break;
        }
        let hit = if remaining.len() == len {
            select(cond, chunk, ctx)?
        } else {
            select(cond, &subset(chunk, &remaining), ctx)?
        };
        if hit.is_empty() {
            continue;
        }
        let rows: Vec<u32> = hit.indices.iter().map(|&i| remaining[i as usize]).collect();
        let v = eval(result, chunk, ctx)?;
        with_native!(ty.physical(), T => write_rows::<T>(&mut out, &rows, &v, len), _ => unreachable!("fixed width"));
        let mut is_hit = vec![false; remaining.len()];
        for &i in &hit.indices {
            is_hit[i as usize] = true;
        }
        let mut k = 0;
        remaining.retain(|_| {
            k += 1;
            !is_hit[k - 1]
        });
    }
    Ok(Some(out))
}

/// `out[r] = src[r]` (or src's one value, when constant) for each of `rows`.
fn write_rows<T: NativeType>(out: &mut Vector, rows: &[u32], src: &Vector, len: usize) {
    let values = T::vec_mut(&mut out.data);
    let from = T::slice(&src.data);
    if src.constant {
        let c = from[0];
        for &r in rows {
            values[r as usize] = c;
        }
    } else {
        for &r in rows {
            values[r as usize] = from[r as usize];
        }
    }
    if src.validity.has_nulls() || out.validity.has_nulls() {
        let at = |r: u32| if src.constant { 0 } else { r as usize };
        for &r in rows {
            out.validity
                .set(r as usize, src.validity.is_valid(at(r)), len);
        }
    }
}

fn eval_coalesce(
    args: &[Expr],
    ty: &DataType,
    chunk: &DataChunk,
    ctx: &QueryContext,
) -> Result<Vector> {
    let len = chunk.len();
    let mut remaining: Vec<u32> = (0..len as u32).collect();
    let mut pieces = Vec::new();
    for a in args {
        if remaining.is_empty() {
            break;
        }
        let v = eval(a, &subset(chunk, &remaining), ctx)?;
        let mut valid_rows = Vec::new();
        let mut valid_idx = Vec::new();
        let mut rest = Vec::new();
        for (k, &r) in remaining.iter().enumerate() {
            if v.is_valid(k) {
                valid_rows.push(r);
                valid_idx.push(k as u32);
            } else {
                rest.push(r);
            }
        }
        if !valid_rows.is_empty() {
            let n = valid_rows.len();
            pieces.push((
                valid_rows,
                v.flatten(remaining.len()).take(&valid_idx).flatten(n),
            ));
        }
        remaining = rest;
    }
    if !remaining.is_empty() {
        let n = remaining.len();
        pieces.push((remaining, Vector::null_constant(ty).flatten(n)));
    }
    Ok(assemble(ty, len, pieces))
}

fn eval_in_list(
    expr: &Expr,
    list: &[Expr],
    negated: bool,
    set: &ListSet,
    chunk: &DataChunk,
    ctx: &QueryContext,
) -> Result<Vector> {
    let len = chunk.len();
    let x = eval(expr, chunk, ctx)?;
    if list.is_empty() {
        return Vector::constant(&ScalarValue::Boolean(negated), &DataType::Boolean);
    }
    if let Some(set) = crate::in_set::InSet::for_list(list, set, &x.ty) {
        return Ok(set.test(&x, len, negated));
    }
    if let Some(found) = in_string_constants(&x, list, len) {
        let vals = found.into_iter().map(|f| f != negated).collect();
        return Ok(bool_vector(vals, x.validity.clone()));
    }
    let t = x.ty.clone();
    let eq = resolve_scalar("=", &[t.clone(), t])?;
    // found[i]: Some(true) matched, None unknown (a NULL took part), Some(false) no match
    let mut found: Vec<Option<bool>> = vec![Some(false); len];
    for item in list {
        let v = eval(item, chunk, ctx)?;
        let r = evaluate_scalar(&eq, &[x.clone(), v], len)?;
        let rv = r.values::<bool>();
        for (i, f) in found.iter_mut().enumerate() {
            if *f == Some(true) {
                continue;
            }
            let j = r.index(i);
            if !r.validity.is_valid(j) {
                *f = None;
            } else if rv[j] {
                *f = Some(true);
            }
        }
    }
    let mut validity = Validity::all_valid();
    let vals = found
        .iter()
        .enumerate()
        .map(|(i, f)| match f {
            Some(b) => b != &negated,
            None => {
                validity.set_invalid(i, len);
                false
            }
        })
        .collect();
    Ok(bool_vector(vals, validity))
}

/// `x IN ('a', 'b', ...)` over a VARCHAR column and non-NULL string literals (TPC-H's
/// ship modes and containers): each constant is compared with every row at once
/// ([`stride_common::StringVector::equal_to`]: length and prefix first), without a comparison vector
/// per constant. A NULL row's answer is left to the caller's validity (`x`'s own).
fn in_string_constants(x: &Vector, list: &[Expr], len: usize) -> Option<Vec<bool>> {
    let VectorData::Str(sv) = &x.data else {
        return None;
    };
    if x.constant {
        return None;
    }
    let constants = list
        .iter()
        .map(|item| match item {
            Expr::Literal {
                value: ScalarValue::Varchar(s),
                ..
            } => Some(s),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    let mut found = vec![false; len];
    for s in constants {
        for (f, e) in found.iter_mut().zip(sv.equal_to(len, s.as_bytes())) {
            *f |= e;
        }
    }
    Some(found)
}

/// Outer column positions (level 1) a subquery plan reads.
pub(crate) fn outer_refs(s: &Subquery) -> Vec<usize> {
    let mut plan = s.plan.clone();
    let mut refs = Vec::new();
    for_each_outer_ref(&mut plan, 1, &mut |e| {
        if let Expr::OuterColumn { index, .. } = e {
            refs.push(*index);
        }
    });
    refs.sort_unstable();
    refs.dedup();
    refs
}

/// Runs the subquery for one set of outer values (cached).
fn subquery_rows(
    s: &Subquery,
    refs: &[usize],
    outer: &[ScalarValue],
    ctx: &QueryContext,
) -> Result<Arc<SubqueryRows>> {
    let key = (s.id, format!("{outer:?}"));
    if let Some(r) = ctx
        .subquery_cache
        .lock()
        .map_err(|_| Error::internal("cache lock"))?
        .get(&key)
    {
        return Ok(r.clone());
    }
    let plan = instantiate(s, refs, outer);
    let limit = match s.kind {
        SubqueryKind::Exists { .. } => Some(1),
        SubqueryKind::Scalar(_) => Some(2),
        _ => None,
    };
    let plan = match limit {
        Some(l) => stride_sql::plan::LogicalPlan::Limit {
            input: Box::new(plan),
            limit: Some(l),
            offset: 0,
        },
        None => plan,
    };
    let chunks = if refs.is_empty() {
        crate::executor::execute_plan_collect(&plan, ctx)?
    } else {
        crate::executor::execute_plan_collect(&plan, &ctx.child())?
    };
    let mut values = Vec::new();
    for c in &chunks {
        for i in 0..c.len() {
            values.push(match c.columns.first() {
                Some(_) => c.row(i).into_iter().next().unwrap_or(ScalarValue::Null),
                None => ScalarValue::Null,
            });
        }
    }
    if matches!(
        s.kind,
        SubqueryKind::In { .. } | SubqueryKind::Quantified { .. }
    ) {
        values.sort_by(|a, b| a.total_cmp(b));
    }
    let rows = Arc::new(SubqueryRows {
        values,
        set: Default::default(),
    });
    ctx.subquery_cache
        .lock()
        .map_err(|_| Error::internal("cache lock"))?
        .insert(key, rows.clone());
    Ok(rows)
}

/// The plan of subquery `s` for one outer row: its outer references (columns `refs`
/// of the evaluating node's input) replaced by that row's values `outer`.
pub(crate) fn instantiate(
    s: &Subquery,
    refs: &[usize],
    outer: &[ScalarValue],
) -> stride_sql::plan::LogicalPlan {
    let mut plan = s.plan.clone();
    if !refs.is_empty() {
        for_each_outer_ref(&mut plan, 1, &mut |e| {
            if let Expr::OuterColumn { index, ty, .. } = e {
                let pos = refs.binary_search(index).expect("collected above");
                *e = Expr::Literal {
                    value: outer[pos].clone(),
                    ty: ty.clone(),
                };
            }
        });
    }
    plan
}

fn eval_subquery(s: &Subquery, chunk: &DataChunk, ctx: &QueryContext) -> Result<Vector> {
    if s.kind == SubqueryKind::Table {
        return Err(Error::internal(
            "a LATERAL subquery is a join's right side, not a value",
        ));
    }
    let len = chunk.len();
    let refs = outer_refs(s);
    let ref_vectors: Vec<Vector> = refs.iter().map(|&r| chunk.column(r)).collect();
    let probe = match &s.kind {
        SubqueryKind::In { expr, .. } | SubqueryKind::Quantified { expr, .. } => {
            Some(eval(expr, chunk, ctx)?)
        }
        _ => None,
    };
    let out_ty = match &s.kind {
        SubqueryKind::Scalar(t) => t.clone(),
        _ => DataType::Boolean,
    };
    // Uncorrelated and not row-dependent: one value for the whole chunk.
    let rows_needed = if refs.is_empty() && probe.is_none() {
        1
    } else {
        len
    };
    // Uncorrelated: the same rows for every row of the chunk, looked up once.
    let shared = match refs.is_empty() {
        true => Some(subquery_rows(s, &refs, &[], ctx)?),
        false => None,
    };
    // `x IN (uncorrelated subquery)`: one hash lookup per row, as for a long IN list.
    let same_type = s.plan.schema().first().map(|f| &f.ty) == probe.as_ref().map(|x| &x.ty);
    if let (Some(rows), Some(x), SubqueryKind::In { negated, .. }, true) =
        (&shared, &probe, &s.kind, same_type)
    {
        if rows.values.is_empty() {
            return Vector::constant(&ScalarValue::Boolean(*negated), &DataType::Boolean);
        }
        let set = rows
            .set
            .get_or_init(|| crate::in_set::InSet::of_values(&rows.values, &x.ty));
        if let Some(set) = set {
            return Ok(set.test(x, len, *negated));
        }
    }
    let mut out = Vector::with_capacity(&out_ty, rows_needed);
    for i in 0..rows_needed {
        ctx.check()?;
        let rows = match &shared {
            Some(rows) => rows.clone(),
            None => {
                let outer: Vec<ScalarValue> = ref_vectors.iter().map(|v| v.get(i)).collect();
                subquery_rows(s, &refs, &outer, ctx)?
            }
        };
        let value = match &s.kind {
            SubqueryKind::Scalar(_) => match rows.values.len() {
                0 => ScalarValue::Null,
                1 => rows.values[0].clone(),
                _ => {
                    return Err(Error::invalid_input(
                        "More than one row returned by a subquery used as an expression",
                    ))
                }
            },
            SubqueryKind::Exists { negated } => {
                ScalarValue::Boolean(rows.values.is_empty() == *negated)
            }
            SubqueryKind::In { negated, .. } => {
                let x = probe.as_ref().expect("IN has a probe").get(i);
                match in_sorted(&x, &rows.values) {
                    Some(b) => ScalarValue::Boolean(b != *negated),
                    None => ScalarValue::Null,
                }
            }
            SubqueryKind::Quantified { cmp, all, .. } => {
                let x = probe.as_ref().expect("quantified has a probe").get(i);
                quantified(&x, &rows.values, cmp, *all)?
            }
            SubqueryKind::Table => unreachable!("refused above"),
        };
        out.push(&value)?;
    }
    if rows_needed == 1 && len != 1 {
        out.constant = true;
    }
    Ok(out)
}

/// SQL `x IN (values)` over sorted values: Some(found) or None for unknown.
fn in_sorted(x: &ScalarValue, values: &[ScalarValue]) -> Option<bool> {
    if values.is_empty() {
        return Some(false);
    }
    if x.is_null() {
        return None;
    }
    let non_null: &[ScalarValue] = {
        let end = values
            .iter()
            .position(|v| v.is_null())
            .unwrap_or(values.len());
        &values[..end]
    };
    if non_null.binary_search_by(|v| v.total_cmp(x)).is_ok() {
        Some(true)
    } else if non_null.len() < values.len() {
        None
    } else {
        Some(false)
    }
}

fn quantified(
    x: &ScalarValue,
    values: &[ScalarValue],
    cmp: &stride_functions::BoundFunction,
    all: bool,
) -> Result<ScalarValue> {
    if values.is_empty() {
        return Ok(ScalarValue::Boolean(all));
    }
    let t = &cmp.arg_types[0];
    let xv = Vector::constant(x, t)?;
    let mut col = Vector::with_capacity(t, values.len());
    for v in values {
        col.push(v)?;
    }
    let r = evaluate_scalar(cmp, &[xv, col], values.len())?;
    let rv = r.values::<bool>();
    let mut unknown = false;
    for i in 0..values.len() {
        let j = r.index(i);
        if !r.validity.is_valid(j) {
            unknown = true;
        } else if rv[j] != all {
            return Ok(ScalarValue::Boolean(!all));
        }
    }
    Ok(if unknown {
        ScalarValue::Null
    } else {
        ScalarValue::Boolean(all)
    })
}
