//! The physical planner: chooses an algorithm per logical node. An ORDER BY under a
//! LIMIT becomes a top-N; a join with equality keys a hash join (a SEMI or ANTI one
//! built on its preserved input when that input is estimated smaller, an inner one
//! turned around when the physical estimates find its build input clearly the
//! larger), otherwise a nested loop; GROUP BY and DISTINCT a hash aggregate. A
//! filter over a CSV read that needs fewer columns than the read produces becomes
//! part of the read; a filter over a table scan or Parquet/Arrow files stays, and its
//! simple conditions also become the scan's zone filters (`zone_filters.rs`); over an
//! external registered source (a pyarrow Dataset) those the source accepts are handed
//! to it. A shared CTE reference becomes a `CteScan` over its planned body.

use crate::physical_plan::PhysicalPlan;
use stride_common::{DataType, Error, Result, ScalarValue};
use stride_sql::plan::{
    DeferredFunction, Expr, Field, JoinKind, LogicalPlan, RegisteredRows, SetOpKind, TableFunction,
};
use stride_storage::Catalogs;

/// Whether an inner join would build its hash table on the clearly larger input by
/// the physical estimates (`estimate.rs`), which know the tables' distinct counts:
/// the optimizer ordered the join with its cruder logical estimate (TPC-DS Q39's
/// inventory rows within two months of one year: 9,500 by that estimate, 360,000 in
/// fact, joined to 18,000 items).
///
/// "Clearly" is four times, allowing for estimates that are off; twice where the
/// build input is a join, whose rows would be collected only to be hashed, and the
/// probe input a table, read as it is (TPC-DS Q87 and Q38: 287,000 catalog sales
/// of a year against 100,000 customers, 17% faster built on the customers). Below
/// four times, an aggregate's output, already collected, stays the build side
/// (Q74's yearly totals per customer).
fn builds_on_larger(left: &PhysicalPlan, right: &PhysicalPlan) -> bool {
    let (l, r) = (crate::estimate::rows(left), crate::estimate::rows(right));
    let factor = if matches!(right, PhysicalPlan::HashJoin { .. }) && reads_a_table(left) {
        2.0
    } else {
        4.0
    };
    r > factor * l && r > 100_000.0
}

/// Whether `plan` reads one stored table, filtered or projected at most.
fn reads_a_table(plan: &PhysicalPlan) -> bool {
    match plan {
        PhysicalPlan::Scan { .. } => true,
        PhysicalPlan::Filter { input, .. } | PhysicalPlan::Project { input, .. } => {
            reads_a_table(input)
        }
        _ => false,
    }
}

/// An inner hash join built on `left` instead of `right`: the inputs trade places
/// and a projection puts the columns back in the join's order.
fn swapped_inner_join(
    left: Box<PhysicalPlan>,
    right: Box<PhysicalPlan>,
    left_keys: Vec<Expr>,
    right_keys: Vec<Expr>,
    filter: Option<Expr>,
    schema: &[Field],
) -> PhysicalPlan {
    let (nl, nr) = (left.types().len(), right.types().len());
    let filter = filter.map(|mut f| {
        f.swap_join_sides(nl, nr);
        f
    });
    let mut types = right.types();
    types.extend(left.types());
    let join = PhysicalPlan::HashJoin {
        left: right,
        right: left,
        kind: JoinKind::Inner,
        left_keys: right_keys,
        right_keys: left_keys,
        filter,
        types,
        build_left: false,
    };
    // Column i of the join's order is column nr + i (left) or i - nl (right) now.
    let exprs = schema
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let at = if i < nl { nr + i } else { i - nl };
            Expr::column(at, f.ty.clone(), f.name.clone())
        })
        .collect();
    PhysicalPlan::Project {
        input: Box::new(join),
        exprs,
        types: schema.iter().map(|f| f.ty.clone()).collect(),
    }
}

/// The sort under a LIMIT, seen through projections (an ORDER BY on a computed key
/// is planned as a projection that drops the key over the sort: TPC-DS Q47): the
/// projections from the top down, the sort's input and its keys. A projection keeps
/// one row per row, so the limit can be taken first, unless a volatile call (nextval,
/// random) would then run fewer times.
#[allow(clippy::type_complexity)]
fn sorted_under_projections(
    mut plan: &LogicalPlan,
) -> Option<(
    Vec<(&[Expr], &[Field])>,
    &LogicalPlan,
    &[stride_sql::plan::SortExpr],
)> {
    let mut projections = Vec::new();
    loop {
        match plan {
            LogicalPlan::Sort { input, keys } => return Some((projections, input, keys)),
            LogicalPlan::Project {
                input,
                exprs,
                schema,
            } if !exprs.iter().any(volatile) => {
                projections.push((exprs.as_slice(), schema.as_slice()));
                plan = input;
            }
            _ => return None,
        }
    }
}

/// Whether evaluating `e` once more or less is visible: a volatile function or a
/// subquery.
fn volatile(e: &Expr) -> bool {
    e.has_subquery() || e.calls_volatile()
}

/// Whether `predicate` reads fewer than all `columns` of its input.
fn reads_fewer_columns(predicate: &Expr, columns: usize) -> bool {
    let mut used = Vec::new();
    predicate.collect_columns(&mut used);
    used.sort_unstable();
    used.dedup();
    used.len() < columns
}

/// The column types of a logical node's output, as physical nodes carry them.
fn types(schema: &[Field]) -> Vec<DataType> {
    schema.iter().map(|f| f.ty.clone()).collect()
}

pub fn plan(logical: &LogicalPlan, catalog: &Catalogs) -> Result<PhysicalPlan> {
    let p = |l: &LogicalPlan| plan(l, catalog).map(Box::new);
    Ok(match logical {
        LogicalPlan::Scan {
            table,
            table_id,
            columns,
            schema,
            ..
        } => {
            let t = catalog.table_by_id(*table_id).ok_or_else(|| {
                Error::catalog(format!(
                    "Table with name {} does not exist (it was dropped)",
                    table.name
                ))
            })?;
            PhysicalPlan::Scan {
                table: t,
                columns: columns.clone(),
                types: types(schema),
                filters: Vec::new(),
            }
        }
        LogicalPlan::CteRef { id, body, .. } => PhysicalPlan::CteScan {
            id: *id,
            input: p(body)?,
        },
        LogicalPlan::Values { rows, schema } => PhysicalPlan::Values {
            rows: rows.clone(),
            types: types(schema),
        },
        LogicalPlan::TableFunction {
            func:
                TableFunction::Range {
                    start,
                    stop,
                    step,
                    inclusive,
                },
            ..
        } => PhysicalPlan::Range {
            start: *start,
            stop: *stop,
            step: *step,
            inclusive: *inclusive,
        },
        LogicalPlan::TableFunction {
            func: TableFunction::ReadCsv { source, columns },
            schema,
        } => PhysicalPlan::CsvScan {
            reader: source.0.clone(),
            columns: columns.clone(),
            types: types(schema),
            filter: None,
        },
        LogicalPlan::TableFunction {
            func: TableFunction::Registered { data, columns },
            schema,
        } => PhysicalPlan::Registered {
            data: data.0.clone(),
            columns: columns.clone(),
            types: types(schema),
            filters: Vec::new(),
        },
        LogicalPlan::TableFunction {
            func: TableFunction::ReadColumnar { source, columns },
            schema,
        } => PhysicalPlan::ColumnarScan {
            reader: source.0.clone(),
            columns: columns.clone(),
            types: types(schema),
            filters: Vec::new(),
        },
        LogicalPlan::TableFunction {
            func: TableFunction::Deferred { func, args },
            schema,
        } => deferred(*func, args, schema)?,
        LogicalPlan::Filter { input, predicate } => match plan(input, catalog)? {
            // A filter over a CSV read that needs fewer columns than the read
            // produces runs inside the read, which then converts the other columns
            // only for the rows that pass.
            PhysicalPlan::CsvScan {
                reader,
                columns,
                types,
                filter: None,
            } if reads_fewer_columns(predicate, types.len()) => PhysicalPlan::CsvScan {
                reader,
                columns,
                types,
                filter: Some(predicate.clone()),
            },
            // A filter over a table scan: its simple conditions also let the scan
            // skip row groups by their zone maps.
            PhysicalPlan::Scan {
                table,
                columns,
                types,
                mut filters,
            } => {
                let column_types: Vec<DataType> =
                    table.schema.columns.iter().map(|c| c.ty.clone()).collect();
                filters.extend(crate::zone_filters::zone_filters(
                    predicate,
                    &column_types,
                    &columns,
                ));
                PhysicalPlan::Filter {
                    input: Box::new(PhysicalPlan::Scan {
                        table,
                        columns,
                        types,
                        filters,
                    }),
                    predicate: predicate.clone(),
                }
            }
            // Over Parquet files: the same conditions skip row groups by their
            // statistics.
            PhysicalPlan::ColumnarScan {
                reader,
                columns,
                types,
                mut filters,
            } => {
                filters.extend(crate::zone_filters::zone_filters(
                    predicate,
                    reader.types(),
                    &columns,
                ));
                PhysicalPlan::Filter {
                    input: Box::new(PhysicalPlan::ColumnarScan {
                        reader,
                        columns,
                        types,
                        filters,
                    }),
                    predicate: predicate.clone(),
                }
            }
            // Over a registered source read when the query runs (a pyarrow
            // Dataset, a polars LazyFrame): the conditions it evaluates itself are
            // handed to it, so it reads fewer rows.
            PhysicalPlan::Registered {
                data,
                columns,
                types,
                mut filters,
            } => {
                if let RegisteredRows::External(source) = &data.rows {
                    filters.extend(
                        crate::zone_filters::conditions(predicate, data.types.len(), &columns)
                            .into_iter()
                            .filter(|f| source.accepts(f)),
                    );
                }
                PhysicalPlan::Filter {
                    input: Box::new(PhysicalPlan::Registered {
                        data,
                        columns,
                        types,
                        filters,
                    }),
                    predicate: predicate.clone(),
                }
            }
            input => PhysicalPlan::Filter {
                input: Box::new(input),
                predicate: predicate.clone(),
            },
        },
        LogicalPlan::Project {
            input,
            exprs,
            schema,
        } => PhysicalPlan::Project {
            input: p(input)?,
            exprs: exprs.clone(),
            types: types(schema),
        },
        LogicalPlan::Unnest {
            input,
            passed,
            lists,
            schema,
        } => PhysicalPlan::Unnest {
            input: p(input)?,
            passed: passed.clone(),
            functions: lists.clone(),
            types: types(schema),
        },
        LogicalPlan::LateralJoin {
            left,
            right,
            kind,
            schema,
        } => {
            let Expr::Subquery(subquery) = &**right else {
                return Err(Error::internal("a lateral join's right side is a subquery"));
            };
            PhysicalPlan::LateralJoin {
                input: p(left)?,
                subquery: (**subquery).clone(),
                kind: *kind,
                types: types(schema),
            }
        }
        LogicalPlan::RecursiveCte {
            id,
            base,
            step,
            all,
            ..
        } => PhysicalPlan::RecursiveCte {
            id: *id,
            base: p(base)?,
            step: p(step)?,
            all: *all,
        },
        LogicalPlan::RecursiveRef { id, schema } => PhysicalPlan::RecursiveScan {
            id: *id,
            types: types(schema),
        },
        LogicalPlan::Window {
            input,
            functions,
            schema,
        } => PhysicalPlan::Window {
            input: p(input)?,
            functions: functions.clone(),
            types: types(schema),
        },
        LogicalPlan::Aggregate {
            input,
            group_by,
            aggregates,
            schema,
        } => PhysicalPlan::HashAggregate {
            input: p(input)?,
            groups: group_by.clone(),
            aggregates: aggregates.clone(),
            types: types(schema),
        },
        LogicalPlan::Sort { input, keys } => PhysicalPlan::Sort {
            input: p(input)?,
            keys: keys.clone(),
        },
        LogicalPlan::Limit {
            input,
            limit,
            offset,
        } => match (sorted_under_projections(input), limit) {
            (Some((projections, sorted, keys)), Some(l)) => {
                let mut plan = PhysicalPlan::TopN {
                    input: p(sorted)?,
                    keys: keys.to_vec(),
                    limit: *l,
                    offset: *offset,
                };
                for (exprs, schema) in projections.into_iter().rev() {
                    plan = PhysicalPlan::Project {
                        input: Box::new(plan),
                        exprs: exprs.to_vec(),
                        types: types(schema),
                    };
                }
                plan
            }
            _ => PhysicalPlan::Limit {
                input: p(input)?,
                limit: *limit,
                offset: *offset,
            },
        },
        LogicalPlan::Join {
            left,
            right,
            kind,
            on,
            filter,
            schema,
        } => {
            let types = types(schema);
            if on.is_empty() {
                PhysicalPlan::NestedLoopJoin {
                    left: p(left)?,
                    right: p(right)?,
                    kind: *kind,
                    filter: filter.clone(),
                    types,
                }
            } else {
                // A SEMI or ANTI join builds on its preserved input when that is the
                // smaller one by the physical estimates (TPC-DS Q95: 147 web sales
                // against the hundreds of thousands of rows of its ws_wh CTE, which
                // the optimizer's estimate, without distinct counts, put the other
                // way); the residual
                // filter then sees the other input first.
                let (left_plan, right_plan) = (p(left)?, p(right)?);
                let build_left = matches!(kind, JoinKind::Semi | JoinKind::Anti)
                    && crate::estimate::rows(&left_plan) < crate::estimate::rows(&right_plan);
                let filter = match filter {
                    Some(f) if build_left => {
                        let mut f = f.clone();
                        f.swap_join_sides(left.schema().len(), right.schema().len());
                        Some(f)
                    }
                    other => other.clone(),
                };
                let left_keys: Vec<Expr> = on.iter().map(|(l, _)| l.clone()).collect();
                let right_keys: Vec<Expr> = on.iter().map(|(_, r)| r.clone()).collect();
                if *kind == JoinKind::Inner && builds_on_larger(&left_plan, &right_plan) {
                    return Ok(swapped_inner_join(
                        left_plan, right_plan, left_keys, right_keys, filter, schema,
                    ));
                }
                PhysicalPlan::HashJoin {
                    left: left_plan,
                    right: right_plan,
                    kind: *kind,
                    left_keys,
                    right_keys,
                    filter,
                    types,
                    build_left,
                }
            }
        }
        LogicalPlan::SetOp {
            left,
            right,
            kind: SetOpKind::Union,
            all: false,
            schema,
        } => {
            // UNION is DISTINCT over UNION ALL: the parallel hash aggregate, with its
            // fast paths for narrow keys, finds the distinct rows.
            let union_all = PhysicalPlan::SetOp {
                left: p(left)?,
                right: p(right)?,
                kind: SetOpKind::Union,
                all: true,
            };
            PhysicalPlan::HashAggregate {
                input: Box::new(union_all),
                groups: schema
                    .iter()
                    .enumerate()
                    .map(|(i, f)| Expr::column(i, f.ty.clone(), f.name.clone()))
                    .collect(),
                aggregates: Vec::new(),
                types: types(schema),
            }
        }
        LogicalPlan::SetOp {
            left,
            right,
            kind,
            all,
            ..
        } => PhysicalPlan::SetOp {
            left: p(left)?,
            right: p(right)?,
            kind: *kind,
            all: *all,
        },
    })
}

/// A table function whose arguments came from an outer row: by now (the subquery was
/// instantiated for that row) they are constants, evaluated here.
fn deferred(func: DeferredFunction, args: &[Expr], schema: &[Field]) -> Result<PhysicalPlan> {
    let mut values = Vec::with_capacity(args.len());
    for a in args {
        values.push(stride_sql::binder::fold_constant(a)?.ok_or_else(|| {
            Error::not_supported(
                "table function arguments may refer to columns of an enclosing query, but not to other tables of the same FROM clause (LATERAL)",
            )
        })?);
    }
    let types: Vec<_> = types(schema);
    match func {
        DeferredFunction::Unnest => {
            let items = match values.first() {
                Some(ScalarValue::List(_, items)) => items.clone(),
                _ => Vec::new(),
            };
            let ty = types
                .first()
                .cloned()
                .unwrap_or(stride_common::DataType::Null);
            Ok(PhysicalPlan::Values {
                rows: items
                    .into_iter()
                    .map(|value| {
                        vec![Expr::Literal {
                            value,
                            ty: ty.clone(),
                        }]
                    })
                    .collect(),
                types,
            })
        }
        DeferredFunction::JsonEach { tree } => {
            let rows = stride_sql::binder::json_each_rows(&values, tree)?;
            Ok(PhysicalPlan::Values {
                rows: rows
                    .into_iter()
                    .map(|r| {
                        r.into_iter()
                            .zip(&types)
                            .map(|(value, ty)| Expr::Literal {
                                value,
                                ty: ty.clone(),
                            })
                            .collect()
                    })
                    .collect(),
                types,
            })
        }
        DeferredFunction::Series { inclusive } => {
            if values.iter().any(|v| v.is_null()) {
                return Ok(PhysicalPlan::Values {
                    rows: Vec::new(),
                    types,
                });
            }
            let v: Vec<i64> = values
                .iter()
                .map(|v| {
                    v.as_i64().ok_or_else(|| {
                        Error::invalid_input(format!("series bounds must be integers, got {v}"))
                    })
                })
                .collect::<Result<_>>()?;
            let (start, stop, step) = match v.as_slice() {
                [n] => (0, *n, 1),
                [a, b] => (*a, *b, 1),
                [a, b, s] => (*a, *b, *s),
                _ => return Err(Error::binder("a series takes 1 to 3 arguments")),
            };
            if step == 0 {
                return Err(Error::invalid_input(
                    "the step of a series must not be zero",
                ));
            }
            Ok(PhysicalPlan::Range {
                start,
                stop,
                step,
                inclusive,
            })
        }
    }
}
