//! Collations in a query: where an expression's collation comes from, how two meet,
//! and how collated strings are compared.
//!
//! Where it sits: binding. A reference to a column declared `COLLATE NOCASE`, or an
//! expression written `x COLLATE NOCASE`, binds to an [`Expr::Collate`] marker around
//! its value. CASE, COALESCE, functions that build a string from strings (`||`,
//! lower, substr), min/max/first and lag/lead pass the collation on, and a query's
//! output columns keep their expressions' collations ([`Field::collation`]), so a
//! subquery, view, CTE or `CREATE TABLE AS` column stays collated.
//!
//! Wherever strings are compared, the binder compares their collation *keys* instead:
//! the string without accents (`strip_accents`, NOACCENT) and lower-cased (`lower`,
//! NOCASE). That covers comparisons, BETWEEN, IN, ANY/ALL, LIKE, simple CASE, NULLIF,
//! contains/starts_with/ends_with, joins, ORDER BY, PARTITION BY, min/max, arg_min/
//! arg_max, count(DISTINCT), GROUP BY, DISTINCT and UNION/INTERSECT/EXCEPT. Grouping
//! by a key outputs one of the group's own strings (its first), as DuckDB does, never
//! the key. greatest/least compare bytes, as in DuckDB. Values never change.
//!
//! Precedence is PostgreSQL's: an explicit COLLATE wins over a column's collation;
//! two different explicit collations, or two different column collations, meeting in
//! one comparison are an error that says which to write.

use super::expr::call;
use crate::plan::{AggregateExpr, Expr, Field, LogicalPlan, SetOpKind, SubqueryKind};
use sqlparser::ast;
use stride_common::{Collation, DataType, Error, Result, ScalarValue};
use stride_functions::aggregate::{resolve_aggregate, AggregateFunction};
use stride_functions::ScalarFunction;

/// The collation an expression's strings compare with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Derived {
    pub collation: Collation,
    /// Written with COLLATE (wins over a column's collation).
    pub explicit: bool,
}

/// A collation named in SQL (`NOCASE`, `"NOCASE"`, `nocase.noaccent`, and
/// `pg_catalog.default` as psql writes it).
pub(super) fn parse_name(name: &ast::ObjectName) -> Result<Collation> {
    let mut parts: Vec<String> = name
        .0
        .iter()
        .map(|p| p.to_string().trim_matches('"').to_string())
        .collect();
    if parts.len() > 1 && parts[0].eq_ignore_ascii_case("pg_catalog") {
        parts.remove(0);
    }
    Collation::parse(&parts.join("."))
}

/// `e COLLATE name`.
pub(super) fn explicit(e: Expr, name: &ast::ObjectName) -> Result<Expr> {
    let collation = parse_name(name)?;
    let e = match e.data_type() {
        DataType::Varchar => e,
        DataType::Null => super::expr::cast_expr(e, &DataType::Varchar)?,
        t => {
            return Err(Error::binder(format!(
                "COLLATE {collation} applies to strings, not to a value of type {t}; cast it to VARCHAR first"
            )))
        }
    };
    // A column's own marker stays inside: GROUP BY s still finds `s` in `s COLLATE C`.
    Ok(Expr::Collate {
        expr: Box::new(e),
        collation,
        explicit: true,
    })
}

/// `e` marked with a column's collation (unchanged for byte order).
pub(super) fn mark(e: Expr, collation: Collation) -> Expr {
    if collation.is_binary() || e.data_type() != DataType::Varchar {
        return e;
    }
    Expr::Collate {
        expr: Box::new(e),
        collation,
        explicit: false,
    }
}

/// `e` (a placeholder for an aggregate or window result) marked with the collation
/// its argument passed on.
pub(super) fn marked_as(e: Expr, d: Option<Derived>) -> Expr {
    match d {
        Some(d) if !d.collation.is_binary() => Expr::Collate {
            expr: Box::new(e),
            collation: d.collation,
            explicit: d.explicit,
        },
        _ => e,
    }
}

/// The collation `e`'s strings compare with, if any.
pub(super) fn derived(e: &Expr) -> Result<Option<Derived>> {
    if e.data_type() != DataType::Varchar {
        return Ok(None);
    }
    match e {
        Expr::Collate {
            collation,
            explicit,
            ..
        } => Ok(Some(Derived {
            collation: *collation,
            explicit: *explicit,
        })),
        Expr::Case {
            branches,
            else_expr,
            ..
        } => combine_all(branches.iter().map(|(_, t)| t).chain([&**else_expr])),
        Expr::Coalesce { args, .. } | Expr::Function { args, .. } => combine_all(args.iter()),
        Expr::Subquery(s) => Ok(match s.kind {
            SubqueryKind::Scalar(_) => implicit(s.plan.schema()[0].collation),
            _ => None,
        }),
        _ => Ok(None),
    }
}

fn implicit(collation: Collation) -> Option<Derived> {
    (!collation.is_binary()).then_some(Derived {
        collation,
        explicit: false,
    })
}

fn combine_all<'e>(exprs: impl Iterator<Item = &'e Expr>) -> Result<Option<Derived>> {
    let mut out = None;
    for e in exprs {
        out = combine(out, derived(e)?)?;
    }
    Ok(out)
}

/// The collation where two meet: an explicit one wins; two of the same strength must
/// agree.
fn combine(a: Option<Derived>, b: Option<Derived>) -> Result<Option<Derived>> {
    Ok(match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) if a.collation == b.collation || a.explicit && !b.explicit => Some(a),
        (Some(a), Some(b)) if b.explicit && !a.explicit => Some(b),
        (Some(a), Some(b)) => {
            return Err(Error::binder(format!(
                "Cannot combine strings of collations {} and {}: write COLLATE after one of them to say which applies",
                a.collation, b.collation
            )))
        }
    })
}

/// The collation `e`'s output column keeps. Parts of different collations (`CASE
/// WHEN c THEN nocase_col ELSE noaccent_col END`) leave it without one, as nothing
/// compares them yet; comparing them is the error.
pub(super) fn output(e: &Expr) -> Collation {
    output_of_all(std::iter::once(e))
}

/// The collation a column of several values keeps (see [`output`]).
pub(super) fn output_of_all<'e>(exprs: impl Iterator<Item = &'e Expr>) -> Collation {
    combine_all(exprs)
        .ok()
        .flatten()
        .map_or(Collation::BINARY, |d| d.collation)
}

/// What collated strings are compared by: `e` without accents and lower-cased, as the
/// collation asks.
fn key(collation: Collation, e: Expr) -> Result<Expr> {
    let mut k = e;
    if collation.noaccent {
        k = call("strip_accents", vec![k])?;
    }
    if collation.nocase {
        k = call("lower", vec![k])?;
    }
    // A constant's key is a constant.
    Ok(match super::fold::fold_constant(&k)? {
        Some(value) => Expr::Literal {
            value,
            ty: DataType::Varchar,
        },
        None => k,
    })
}

/// `e`'s sort or grouping key: its collation key when it has a collation, else `e`.
pub(super) fn sort_key(e: Expr) -> Result<Expr> {
    match derived(&e)? {
        Some(d) if !d.collation.is_binary() => key(d.collation, e),
        _ => Ok(e),
    }
}

/// Two expressions of one type about to be compared: their collation keys when
/// either is collated, else the two unchanged.
pub(super) fn keys_of_pair(l: Expr, r: Expr) -> Result<(Expr, Expr)> {
    if l.data_type() != DataType::Varchar || r.data_type() != DataType::Varchar {
        return Ok((l, r));
    }
    match combine(derived(&l)?, derived(&r)?)? {
        Some(d) if !d.collation.is_binary() => Ok((key(d.collation, l)?, key(d.collation, r)?)),
        _ => Ok((l, r)),
    }
}

/// `x LIKE pattern [ESCAPE esc]`: their collation keys when either is collated. An
/// escape character that the key would change (a letter under NOCASE) is refused: the
/// pattern's own copies of it would change too.
pub(super) fn keys_of_pattern(
    x: Expr,
    pattern: Expr,
    escape: Option<&Expr>,
) -> Result<(Expr, Expr)> {
    let d = match combine(derived(&x)?, derived(&pattern)?)? {
        Some(d) if !d.collation.is_binary() => d,
        _ => return Ok((x, pattern)),
    };
    if let Some(esc) = escape {
        let keyed = key(d.collation, esc.clone())?;
        let same = match (
            super::fold::fold_constant(esc)?,
            super::fold::fold_constant(&keyed)?,
        ) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        };
        if !same {
            return Err(Error::not_supported(format!(
                "LIKE with collation {} needs an ESCAPE character the collation leaves alone (not a letter with case or accent), such as '\\' or '!'",
                d.collation
            )));
        }
    }
    Ok((key(d.collation, x)?, key(d.collation, pattern)?))
}

/// `x [NOT] IN list` with the list unified to x's type.
pub(super) fn keys_of_list(x: Expr, list: Vec<Expr>) -> Result<(Expr, Vec<Expr>)> {
    if x.data_type() != DataType::Varchar {
        return Ok((x, list));
    }
    let mut d = derived(&x)?;
    for e in &list {
        d = combine(d, derived(e)?)?;
    }
    match d {
        Some(d) if !d.collation.is_binary() => Ok((
            key(d.collation, x)?,
            list.into_iter()
                .map(|e| key(d.collation, e))
                .collect::<Result<_>>()?,
        )),
        _ => Ok((x, list)),
    }
}

/// `x IN (subquery)` or `x op ANY (subquery)`: with collated strings, x's key and a
/// subquery that yields its column's keys.
pub(super) fn keys_of_subquery(x: Expr, plan: LogicalPlan) -> Result<(Expr, LogicalPlan)> {
    let field = &plan.schema()[0];
    if x.data_type() != DataType::Varchar || field.ty != DataType::Varchar {
        return Ok((x, plan));
    }
    match combine(derived(&x)?, implicit(field.collation))? {
        Some(d) if !d.collation.is_binary() => {
            let column = Expr::column(0, field.ty.clone(), field.name.clone());
            let out = Field::new(field.name.clone(), DataType::Varchar);
            let plan = LogicalPlan::Project {
                input: Box::new(plan),
                exprs: vec![key(d.collation, column)?],
                schema: vec![out],
            };
            Ok((key(d.collation, x)?, plan))
        }
        _ => Ok((x, plan)),
    }
}

/// contains, starts_with and ends_with compare their two strings by collation keys.
pub(super) fn string_matching(e: Expr) -> Result<Expr> {
    match e {
        Expr::Function { func, mut args }
            if args.len() == 2
                && matches!(
                    func.func,
                    ScalarFunction::Contains
                        | ScalarFunction::StartsWith
                        | ScalarFunction::EndsWith
                ) =>
        {
            let r = args.pop().expect("two arguments");
            let l = args.pop().expect("two arguments");
            let (l, r) = keys_of_pair(l, r)?;
            Ok(Expr::Function {
                func,
                args: vec![l, r],
            })
        }
        e => Ok(e),
    }
}

/// An aggregate over collated strings: min and max become arg_min and arg_max of the
/// string by its key, arg_min/arg_max compare collated keys, count(DISTINCT) counts
/// keys, and ORDER BY inside the aggregate sorts by keys. Returns the collation the
/// result keeps (min, max, first, any_value and arg_min/arg_max of a collated string).
pub(super) fn aggregate(agg: &mut AggregateExpr) -> Result<Option<Derived>> {
    for k in &mut agg.order_by {
        k.expr = sort_key(std::mem::replace(
            &mut k.expr,
            Expr::literal(ScalarValue::Null),
        ))?;
    }
    let first = match agg.args.first() {
        Some(a) => derived(a)?.filter(|d| !d.collation.is_binary()),
        None => None,
    };
    use AggregateFunction as F;
    match agg.func {
        F::Min | F::Max => {
            if let Some(d) = first {
                let name = if agg.func == F::Min { "arg_min" } else { "arg_max" };
                let value = agg.args[0].clone();
                let bound = resolve_aggregate(name, &[DataType::Varchar, DataType::Varchar])?
                    .ok_or_else(|| Error::internal(format!("{name} is an aggregate")))?;
                agg.func = bound.func;
                agg.args = vec![value.clone(), key(d.collation, value)?];
                agg.ty = bound.return_type;
            }
            Ok(first)
        }
        F::ArgMin | F::ArgMax => {
            if agg.args.len() == 2 {
                agg.args[1] = sort_key(agg.args[1].clone())?;
            }
            Ok(first)
        }
        F::First | F::AnyValue => Ok(first),
        F::Count if agg.distinct => {
            if let Some(d) = first {
                agg.args[0] = key(d.collation, agg.args[0].clone())?;
            }
            Ok(None)
        }
        _ if agg.distinct && first.is_some() => Err(Error::not_supported(
            "DISTINCT over strings with a collation is supported in count(DISTINCT ...) only; compute the distinct strings in a subquery with SELECT DISTINCT",
        )),
        _ => Ok(None),
    }
}

/// `first(e)`: the string a group of equal collation keys outputs.
pub(super) fn first_of(e: Expr) -> Result<AggregateExpr> {
    let bound = resolve_aggregate("first", &[DataType::Varchar])?
        .ok_or_else(|| Error::internal("first is an aggregate"))?;
    Ok(AggregateExpr {
        func: bound.func,
        args: vec![e],
        distinct: false,
        filter: None,
        order_by: vec![],
        ty: bound.return_type,
    })
}

/// Whether any of `fields` compares by a collation.
pub(super) fn any_collated(fields: &[Field]) -> bool {
    fields.iter().any(|f| !f.collation.is_binary())
}

/// The collation of a set operation's output column from its two inputs' columns.
pub(super) fn of_columns(a: &Field, b: &Field) -> Result<Collation> {
    Ok(combine(implicit(a.collation), implicit(b.collation))?
        .map_or(Collation::BINARY, |d| d.collation))
}

/// UNION, INTERSECT or EXCEPT (without ALL) of `left` and `right` (already of one
/// type per column) whose output `schema` has collated strings: the two inputs side
/// by side (INTERSECT and EXCEPT tag each row with its input) and their distinct
/// rows by collation keys.
pub(super) fn set_operation(
    left: LogicalPlan,
    right: LogicalPlan,
    kind: SetOpKind,
    all: bool,
    schema: Vec<Field>,
) -> Result<LogicalPlan> {
    if all {
        return Err(Error::not_supported(format!(
            "{} ALL over strings with a collation is not supported yet; use {} (without ALL) or compare the collation keys, as in lower(s)",
            kind_name(kind),
            kind_name(kind)
        )));
    }
    if kind == SetOpKind::Union {
        let both = LogicalPlan::SetOp {
            left: Box::new(left),
            right: Box::new(right),
            kind,
            all: true,
            schema,
        };
        return distinct_rows(both, None);
    }
    let tagged = |plan: LogicalPlan, side: i32| {
        let mut fields = plan.schema().to_vec();
        let mut exprs: Vec<Expr> = fields
            .iter()
            .enumerate()
            .map(|(i, f)| Expr::column(i, f.ty.clone(), f.name.clone()))
            .collect();
        exprs.push(Expr::literal(ScalarValue::Integer(side)));
        fields.push(Field::new("side", DataType::Integer));
        LogicalPlan::Project {
            input: Box::new(plan),
            exprs,
            schema: fields,
        }
    };
    let mut fields = schema;
    fields.push(Field::new("side", DataType::Integer));
    let both = LogicalPlan::SetOp {
        left: Box::new(tagged(left, 0)),
        right: Box::new(tagged(right, 1)),
        kind: SetOpKind::Union,
        all: true,
        schema: fields,
    };
    distinct_rows(both, Some(kind))
}

fn kind_name(kind: SetOpKind) -> &'static str {
    match kind {
        SetOpKind::Union => "UNION",
        SetOpKind::Intersect => "INTERSECT",
        SetOpKind::Except => "EXCEPT",
    }
}

/// Where a column of [`distinct_rows`] comes from in the aggregate's output.
enum Output {
    /// The i-th group column.
    Group(usize),
    /// The i-th aggregate: the first string of a collated column.
    First(usize),
}

/// The distinct rows of `plan`, strings compared as their columns' collations say:
/// an aggregate grouping by each column (a collated one by its key) that keeps the
/// first string of each group of a collated column, then the columns in their order.
/// With `side`, the plan's last column tells the rows of a set operation's left
/// input (0) from its right (1): the result keeps the rows INTERSECT or EXCEPT keeps.
pub(super) fn distinct_rows(plan: LogicalPlan, set_op: Option<SetOpKind>) -> Result<LogicalPlan> {
    let mut fields = plan.schema().to_vec();
    let side = set_op.map(|_| {
        let f = fields.pop().expect("a side column");
        Expr::column(fields.len(), f.ty, f.name)
    });
    let from_side = |s: i32| -> Result<Option<Expr>> {
        side.clone()
            .map(|c| call("=", vec![c, Expr::literal(ScalarValue::Integer(s))]))
            .transpose()
    };
    let mut group_by = Vec::new();
    let mut aggregates = Vec::new();
    let mut outputs = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        let column = mark(Expr::column(i, f.ty.clone(), f.name.clone()), f.collation);
        if f.collation.is_binary() || f.ty != DataType::Varchar {
            outputs.push(Output::Group(group_by.len()));
            group_by.push(column);
        } else {
            group_by.push(key(f.collation, column.clone())?);
            outputs.push(Output::First(aggregates.len()));
            aggregates.push(AggregateExpr {
                filter: from_side(0)?,
                ..first_of(column)?
            });
        }
    }
    let counts = aggregates.len();
    if set_op.is_some() {
        for s in 0..2 {
            aggregates.push(AggregateExpr {
                func: AggregateFunction::CountStar,
                args: vec![],
                distinct: false,
                filter: from_side(s)?,
                order_by: vec![],
                ty: DataType::BigInt,
            });
        }
    }
    let ngroups = group_by.len();
    let schema = crate::plan::aggregate_schema(&group_by, &aggregates);
    let mut plan = LogicalPlan::Aggregate {
        input: Box::new(plan),
        group_by,
        aggregates,
        schema,
    };
    if let Some(kind) = set_op {
        let count = |k: usize| Expr::column(ngroups + counts + k, DataType::BigInt, "count");
        let zero = || Expr::literal(ScalarValue::BigInt(0));
        let in_right = match kind {
            SetOpKind::Intersect => call(">", vec![count(1), zero()])?,
            _ => call("=", vec![count(1), zero()])?,
        };
        plan = LogicalPlan::Filter {
            input: Box::new(plan),
            predicate: Expr::And(
                Box::new(call(">", vec![count(0), zero()])?),
                Box::new(in_right),
            ),
        };
    }
    let exprs = outputs
        .iter()
        .zip(&fields)
        .map(|(o, f)| {
            let i = match o {
                Output::Group(g) => *g,
                Output::First(a) => ngroups + a,
            };
            Expr::column(i, f.ty.clone(), f.name.clone())
        })
        .collect();
    Ok(LogicalPlan::Project {
        input: Box::new(plan),
        exprs,
        schema: fields,
    })
}
