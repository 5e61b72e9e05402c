//! Pass `unused_columns`: scans read, and projections, joins, lateral joins, windows,
//! unnests and UNION ALL pass on, only the columns something above them uses (other
//! set operations compare whole rows, but prune below themselves). Works top-down with the set of columns each node
//! must produce, and rewrites column positions bottom-up as nodes shrink.
//!
//! A correlated subquery's references to the evaluating node's input count as uses
//! of those columns and move with them (`Expr::collect_columns`, `remap_columns`).

use crate::plan::{Expr, Field, LogicalPlan, SetOpKind};
use stride_common::Result;

pub fn optimize(plan: LogicalPlan) -> Result<LogicalPlan> {
    let n = plan.schema().len();
    let (plan, _) = prune(plan, &vec![true; n]);
    Ok(plan)
}

/// Old output position → new output position (None: column removed).
type Mapping = Vec<Option<usize>>;

fn identity(n: usize) -> Mapping {
    (0..n).map(Some).collect()
}

fn mark(e: &Expr, need: &mut [bool]) {
    let mut cols = Vec::new();
    e.collect_columns(&mut cols);
    for c in cols {
        need[c] = true;
    }
}

fn remap(e: &mut Expr, m: &Mapping) {
    e.remap_columns(&|i| m[i].expect("required column kept"));
}

/// The columns of a source (table or file scan) to keep: the required ones, or the
/// first when none is (the row count still matters); and the old → new positions.
fn kept_columns(n: usize, required: &[bool]) -> (Vec<usize>, Mapping) {
    let mut keep: Vec<usize> = (0..n).filter(|&i| required[i]).collect();
    if keep.is_empty() && n > 0 {
        keep.push(0);
    }
    let mut m = vec![None; n];
    for (new, &old) in keep.iter().enumerate() {
        m[old] = Some(new);
    }
    (keep, m)
}

fn prune(plan: LogicalPlan, required: &[bool]) -> (LogicalPlan, Mapping) {
    match plan {
        LogicalPlan::Scan {
            table,
            table_id,
            columns,
            schema,
            rows,
        } => {
            let (keep, m) = kept_columns(columns.len(), required);
            let plan = LogicalPlan::Scan {
                table,
                table_id,
                columns: keep.iter().map(|&i| columns[i]).collect(),
                schema: keep.iter().map(|&i| schema[i].clone()).collect(),
                rows,
            };
            (plan, m)
        }
        // Files and registered data read only the columns kept.
        LogicalPlan::TableFunction { mut func, schema } if func.reads_source() => {
            let columns = func.source_columns_mut().expect("reads a source");
            let (keep, m) = kept_columns(columns.len(), required);
            *columns = keep.iter().map(|&i| columns[i]).collect();
            let plan = LogicalPlan::TableFunction {
                func,
                schema: keep.iter().map(|&i| schema[i].clone()).collect(),
            };
            (plan, m)
        }
        LogicalPlan::Filter {
            input,
            mut predicate,
        } => {
            let mut need = required.to_vec();
            mark(&predicate, &mut need);
            let (input, m) = prune(*input, &need);
            remap(&mut predicate, &m);
            (
                LogicalPlan::Filter {
                    input: Box::new(input),
                    predicate,
                },
                m,
            )
        }
        LogicalPlan::Project {
            input,
            exprs,
            schema,
        } => {
            let n = input.schema().len();
            let keep: Vec<usize> = (0..exprs.len()).filter(|&i| required[i]).collect();
            let mut need = vec![false; n];
            for &i in &keep {
                mark(&exprs[i], &mut need);
            }
            let (input, m) = prune(*input, &need);
            let mut out_m = vec![None; exprs.len()];
            let mut new_exprs = Vec::with_capacity(keep.len());
            let mut new_schema = Vec::with_capacity(keep.len());
            for (new, &i) in keep.iter().enumerate() {
                let mut e = exprs[i].clone();
                remap(&mut e, &m);
                new_exprs.push(e);
                new_schema.push(schema[i].clone());
                out_m[i] = Some(new);
            }
            (
                LogicalPlan::Project {
                    input: Box::new(input),
                    exprs: new_exprs,
                    schema: new_schema,
                },
                out_m,
            )
        }
        LogicalPlan::Aggregate {
            input,
            mut group_by,
            mut aggregates,
            schema,
        } => {
            let n = input.schema().len();
            let mut exprs: Vec<&Expr> = group_by.iter().collect();
            for a in &aggregates {
                exprs.extend(
                    a.args
                        .iter()
                        .chain(a.filter.iter())
                        .chain(a.order_by.iter().map(|s| &s.expr)),
                );
            }
            let mut need = vec![false; n];
            for e in &exprs {
                mark(e, &mut need);
            }
            let (input, m) = prune(*input, &need);
            for g in group_by.iter_mut() {
                remap(g, &m);
            }
            for a in aggregates.iter_mut() {
                a.args.iter_mut().for_each(|e| remap(e, &m));
                a.filter.iter_mut().for_each(|e| remap(e, &m));
                a.order_by.iter_mut().for_each(|s| remap(&mut s.expr, &m));
            }
            let out = identity(schema.len());
            (
                LogicalPlan::Aggregate {
                    input: Box::new(input),
                    group_by,
                    aggregates,
                    schema,
                },
                out,
            )
        }
        LogicalPlan::Sort { input, mut keys } => {
            let mut need = required.to_vec();
            for k in &keys {
                mark(&k.expr, &mut need);
            }
            let (input, m) = prune(*input, &need);
            keys.iter_mut().for_each(|k| remap(&mut k.expr, &m));
            (
                LogicalPlan::Sort {
                    input: Box::new(input),
                    keys,
                },
                m,
            )
        }
        LogicalPlan::Limit {
            input,
            limit,
            offset,
        } => {
            let (input, m) = prune(*input, required);
            (
                LogicalPlan::Limit {
                    input: Box::new(input),
                    limit,
                    offset,
                },
                m,
            )
        }
        LogicalPlan::Join {
            left,
            right,
            kind,
            mut on,
            mut filter,
            schema,
        } => {
            let nl = left.schema().len();
            let nr = right.schema().len();
            let mut need_l = vec![false; nl];
            let mut need_r = vec![false; nr];
            for (i, &r) in required.iter().enumerate() {
                if r {
                    if i < nl {
                        need_l[i] = true;
                    } else {
                        need_r[i - nl] = true;
                    }
                }
            }
            for (l, r) in &on {
                mark(l, &mut need_l);
                mark(r, &mut need_r);
            }
            if let Some(f) = &filter {
                let mut need = vec![false; nl + nr];
                mark(f, &mut need);
                for (i, x) in need.into_iter().enumerate() {
                    if x {
                        if i < nl {
                            need_l[i] = true;
                        } else {
                            need_r[i - nl] = true;
                        }
                    }
                }
            }
            let (left, ml) = prune(*left, &need_l);
            let (right, mr) = prune(*right, &need_r);
            let new_nl = left.schema().len();
            let mut m: Mapping = ml.clone();
            m.extend(mr.iter().map(|x| x.map(|j| j + new_nl)));
            for (l, r) in on.iter_mut() {
                remap(l, &ml);
                remap(r, &mr);
            }
            if let Some(f) = filter.as_mut() {
                remap(f, &m);
            }
            let left_only = schema.len() == nl;
            let mut new_schema: Vec<_> = left.schema().to_vec();
            if !left_only {
                new_schema.extend(right.schema().iter().cloned());
            }
            let out = if left_only { ml } else { m };
            (
                LogicalPlan::Join {
                    left: Box::new(left),
                    right: Box::new(right),
                    kind,
                    on,
                    filter,
                    schema: new_schema,
                },
                out,
            )
        }
        LogicalPlan::Unnest {
            input,
            passed,
            mut lists,
            schema,
        } => {
            // The input keeps the passed columns something above reads and the
            // columns the lists read; only the former are passed on.
            let n = input.schema().len();
            let mut need = vec![false; n];
            let keep: Vec<usize> = (0..passed.len()).filter(|&k| required[k]).collect();
            for &k in &keep {
                need[passed[k]] = true;
            }
            for f in &lists {
                mark(f.list(), &mut need);
            }
            let (input, m) = prune(*input, &need);
            for f in lists.iter_mut() {
                remap(f.list_mut(), &m);
            }
            let mut out_m = vec![None; schema.len()];
            let mut new_passed = Vec::with_capacity(keep.len());
            let mut new_schema = Vec::with_capacity(keep.len() + lists.len());
            for (new, &k) in keep.iter().enumerate() {
                new_passed.push(m[passed[k]].expect("required column kept"));
                new_schema.push(schema[k].clone());
                out_m[k] = Some(new);
            }
            for (j, f) in schema[passed.len()..].iter().enumerate() {
                out_m[passed.len() + j] = Some(keep.len() + j);
                new_schema.push(f.clone());
            }
            (
                LogicalPlan::Unnest {
                    input: Box::new(input),
                    passed: new_passed,
                    lists,
                    schema: new_schema,
                },
                out_m,
            )
        }
        LogicalPlan::LateralJoin {
            left,
            mut right,
            kind,
            schema,
        } => {
            // The left side keeps what something above reads and what the subquery
            // reads of it; the subquery's columns all stay.
            let n = left.schema().len();
            let mut need = required[..n].to_vec();
            mark(&right, &mut need);
            let (left, m) = prune(*left, &need);
            remap(&mut right, &m);
            let kept = left.schema().len();
            let mut new_schema = left.schema().to_vec();
            new_schema.extend(schema[n..].iter().cloned());
            let mut out_m = m;
            out_m.extend((0..schema.len() - n).map(|j| Some(kept + j)));
            (
                LogicalPlan::LateralJoin {
                    left: Box::new(left),
                    right,
                    kind,
                    schema: new_schema,
                },
                out_m,
            )
        }
        LogicalPlan::Window {
            input,
            mut functions,
            schema,
        } => {
            // The input keeps the columns something above reads and those the
            // functions read; every function stays.
            let n = input.schema().len();
            let mut need: Vec<bool> = required[..n].to_vec();
            for e in functions.iter().flat_map(|w| w.exprs()) {
                mark(e, &mut need);
            }
            let (input, m) = prune(*input, &need);
            for e in functions.iter_mut().flat_map(|w| w.exprs_mut()) {
                remap(e, &m);
            }
            let kept = input.schema().len();
            let mut out_m = vec![None; schema.len()];
            let mut new_schema: Vec<Field> = input.schema().to_vec();
            for (k, slot) in m.iter().enumerate().take(n) {
                out_m[k] = *slot;
            }
            for (j, f) in schema[n..].iter().enumerate() {
                out_m[n + j] = Some(kept + j);
                new_schema.push(f.clone());
            }
            (
                LogicalPlan::Window {
                    input: Box::new(input),
                    functions,
                    schema: new_schema,
                },
                out_m,
            )
        }
        LogicalPlan::SetOp {
            left,
            right,
            kind,
            all,
            schema,
        } => {
            // UNION ALL passes on only the columns something above reads (at least
            // one: the row count still matters); the other set operations compare
            // whole rows, so both sides keep every column. Either way each side
            // prunes below itself.
            let keep: Vec<usize> = if all && kind == SetOpKind::Union {
                let k: Vec<usize> = (0..schema.len()).filter(|&i| required[i]).collect();
                if k.is_empty() && !schema.is_empty() {
                    vec![0]
                } else {
                    k
                }
            } else {
                (0..schema.len()).collect()
            };
            let side = |plan: LogicalPlan| {
                let mut need = vec![false; schema.len()];
                for &k in &keep {
                    need[k] = true;
                }
                let (plan, m) = prune(plan, &need);
                let fields = plan.schema().to_vec();
                if fields.len() == keep.len()
                    && keep.iter().enumerate().all(|(i, &k)| m[k] == Some(i))
                {
                    return plan;
                }
                let exprs = keep
                    .iter()
                    .map(|&k| {
                        let at = m[k].expect("required column kept");
                        Expr::column(at, fields[at].ty.clone(), fields[at].name.clone())
                    })
                    .collect();
                let out = keep
                    .iter()
                    .map(|&k| fields[m[k].expect("kept")].clone())
                    .collect();
                LogicalPlan::Project {
                    input: Box::new(plan),
                    exprs,
                    schema: out,
                }
            };
            let (left, right) = (side(*left), side(*right));
            let mut out_m = vec![None; schema.len()];
            for (new, &k) in keep.iter().enumerate() {
                out_m[k] = Some(new);
            }
            let schema = keep.iter().map(|&k| schema[k].clone()).collect();
            (
                LogicalPlan::SetOp {
                    left: Box::new(left),
                    right: Box::new(right),
                    kind,
                    all,
                    schema,
                },
                out_m,
            )
        }
        other => {
            // VALUES, table functions and recursive CTEs produce all their columns.
            let n = other.schema().len();
            (other, identity(n))
        }
    }
}
