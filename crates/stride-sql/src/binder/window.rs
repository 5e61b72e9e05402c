//! Window functions: `f(args) OVER (PARTITION BY ... ORDER BY ... frame)` and named
//! windows (`WINDOW w AS (...)`, `OVER w`, `OVER (w ORDER BY ...)`).
//!
//! Where it sits: binding a SELECT (`select.rs`). A call in the select list or ORDER BY
//! is bound over the FROM clause (its arguments may hold aggregates, as in
//! `sum(sum(x)) OVER ()`), collected like aggregates, and stands in the expression as
//! a `WindowRef`. Once grouping is bound, `select.rs` puts a `LogicalPlan::Window`
//! above the aggregate (and HAVING), which appends one column per call, and the refs
//! become those columns. Elsewhere (WHERE, GROUP BY, HAVING) a call is refused.

use super::collation::{self, Derived};
use super::expr::{bool_expr, cast_expr, ident_name, ExprCtx};
use super::fold::fold_constant;
use super::Binder;
use crate::plan::{
    AggregateExpr, Expr, FrameBound, FrameExclude, FrameUnits, SortExpr, WindowExpr, WindowFrame,
    WindowFunction,
};
use sqlparser::ast;
use stride_common::{DataType, Error, Result, ScalarValue};
use stride_functions::aggregate::{is_aggregate_name, resolve_aggregate, AggregateFunction};

/// Names of the functions that exist only as window functions.
pub(super) fn is_window_only(name: &str) -> bool {
    WINDOW_FUNCTIONS.contains(&name)
}

/// The functions that exist only with OVER (every aggregate works there too).
pub(crate) const WINDOW_FUNCTIONS: &[&str] = &[
    "row_number",
    "rank",
    "dense_rank",
    "rank_dense",
    "percent_rank",
    "cume_dist",
    "ntile",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "nth_value",
];

/// Refuses a WINDOW clause that defines a name twice (names compare as
/// `named_window` looks them up), as DuckDB does.
pub(super) fn check_window_names(defs: &[ast::NamedWindowDefinition]) -> Result<()> {
    for (i, d) in defs.iter().enumerate() {
        let name = ident_name(&d.0);
        if defs[..i]
            .iter()
            .any(|e| ident_name(&e.0).eq_ignore_ascii_case(&name))
        {
            return Err(Error::parse(format!(
                "window \"{}\" is already defined",
                d.0.value
            )));
        }
    }
    Ok(())
}

impl Binder<'_> {
    /// Binds the window call `f` (named `name`): it joins the window functions of the
    /// SELECT being bound, and the call reads its column.
    pub(super) fn bind_window(
        &mut self,
        name: &str,
        f: &ast::Function,
        ctx: &mut ExprCtx,
    ) -> Result<Expr> {
        let Some(windows) = ctx.windows.take() else {
            return Err(Error::binder(format!(
                "window function {name}() is not allowed in {}; compute it in a subquery and filter (or group) outside",
                ctx.clause
            )));
        };
        // Arguments, partitions and orders may hold aggregates, not window calls.
        let clause = std::mem::replace(
            &mut ctx.clause,
            "the arguments or window of another window function: window function calls cannot be nested",
        );
        let result = self.bind_window_call(name, f, ctx);
        ctx.clause = clause;
        ctx.windows = Some(windows);
        let (w, collated) = result?;
        let ty = w.ty.clone();
        let index = super::index_in(ctx.windows.as_mut().expect("restored above"), w);
        Ok(super::collation::marked_as(
            Expr::WindowRef { index, ty },
            collated,
        ))
    }

    /// The window call and the collation its result keeps (lag, first_value, min ...
    /// of a collated string).
    fn bind_window_call(
        &mut self,
        name: &str,
        f: &ast::Function,
        ctx: &mut ExprCtx,
    ) -> Result<(WindowExpr, Option<Derived>)> {
        let spec = match &f.over {
            Some(ast::WindowType::WindowSpec(s)) => self.resolve_window(s)?,
            Some(ast::WindowType::NamedWindow(n)) => self.named_window(&ident_name(n))?,
            None => return Err(Error::internal("a window call without OVER")),
        };
        let mut ignore_nulls = matches!(f.null_treatment, Some(ast::NullTreatment::IgnoreNulls));
        let mut args = Vec::new();
        let mut star = false;
        let mut distinct = false;
        if let ast::FunctionArguments::List(list) = &f.args {
            distinct = matches!(
                list.duplicate_treatment,
                Some(ast::DuplicateTreatment::Distinct)
            );
            for c in &list.clauses {
                match c {
                    ast::FunctionArgumentClause::IgnoreOrRespectNulls(t) => {
                        ignore_nulls = matches!(t, ast::NullTreatment::IgnoreNulls)
                    }
                    other => {
                        return Err(Error::not_supported(format!(
                            "{other} in window function {name}() is not supported yet"
                        )))
                    }
                }
            }
            for a in &list.args {
                match (a, super::function::positional(a)) {
                    (_, Some(e)) => args.push(self.bind_expr(&e, ctx)?),
                    (ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard), _)
                        if name == "count" =>
                    {
                        star = true
                    }
                    (other, None) => {
                        return Err(Error::binder(format!(
                            "unsupported argument {other} in call to {name}"
                        )))
                    }
                }
            }
        }
        let mut partition_by = Vec::new();
        for e in &spec.partition_by {
            partition_by.push(collation::sort_key(self.bind_expr(e, ctx)?)?);
        }
        let mut order_by = Vec::new();
        for item in &spec.order_by {
            let expr = collation::sort_key(self.bind_expr(&item.expr, ctx)?)?;
            let asc = !matches!(item.options.sort, Some(ast::OrderBySort::Desc));
            let nulls_first = super::select::nulls_first(self, asc, item.options.nulls_first);
            order_by.push(SortExpr {
                expr,
                asc,
                nulls_first,
            });
        }
        let filter = match &f.filter {
            Some(e) => Some(bool_expr(self.bind_expr(e, ctx)?, "FILTER")?),
            None => None,
        };
        for e in args
            .iter()
            .chain(&filter)
            .chain(&partition_by)
            .chain(order_by.iter().map(|s| &s.expr))
        {
            if e.any(&mut |x| matches!(x, Expr::WindowRef { .. })) {
                return Err(Error::binder(format!(
                    "window function calls cannot be nested (in {name})"
                )));
            }
        }
        let mut collated = None;
        let n = args.len();
        let arity = |ok: bool, expected: &str| {
            if ok {
                Ok(())
            } else {
                Err(Error::binder(format!(
                    "{name}() takes {expected}, got {n} argument(s)"
                )))
            }
        };
        let (func, ty) = match name {
            "row_number" | "rank" | "dense_rank" | "rank_dense" => {
                arity(n == 0, "no arguments")?;
                let func = match name {
                    "row_number" => WindowFunction::RowNumber,
                    "rank" => WindowFunction::Rank,
                    _ => WindowFunction::DenseRank,
                };
                (func, DataType::BigInt)
            }
            "percent_rank" | "cume_dist" => {
                arity(n == 0, "no arguments")?;
                let func = if name == "percent_rank" {
                    WindowFunction::PercentRank
                } else {
                    WindowFunction::CumeDist
                };
                (func, DataType::Double)
            }
            "ntile" => {
                arity(n == 1, "one argument (the number of buckets)")?;
                args[0] = cast_expr(args[0].clone(), &DataType::BigInt)?;
                (WindowFunction::Ntile, DataType::BigInt)
            }
            "lag" | "lead" => {
                arity(
                    (1..=3).contains(&n),
                    "a value, an optional offset and default",
                )?;
                let ty = value_type(&args[0]);
                args[0] = cast_expr(args[0].clone(), &ty)?;
                if n == 1 {
                    args.push(Expr::literal(ScalarValue::BigInt(1)));
                }
                args[1] = cast_expr(args[1].clone(), &DataType::BigInt)?;
                if n == 3 {
                    args[2] = cast_expr(args[2].clone(), &ty)?;
                }
                let func = if name == "lag" {
                    WindowFunction::Lag
                } else {
                    WindowFunction::Lead
                };
                (func, ty)
            }
            "first_value" | "last_value" => {
                arity(n == 1, "one argument")?;
                let ty = value_type(&args[0]);
                args[0] = cast_expr(args[0].clone(), &ty)?;
                let func = if name == "first_value" {
                    WindowFunction::FirstValue
                } else {
                    WindowFunction::LastValue
                };
                (func, ty)
            }
            "nth_value" => {
                arity(n == 2, "a value and a position")?;
                let ty = value_type(&args[0]);
                args[0] = cast_expr(args[0].clone(), &ty)?;
                args[1] = cast_expr(args[1].clone(), &DataType::BigInt)?;
                (WindowFunction::NthValue, ty)
            }
            _ if is_aggregate_name(name) => {
                if ignore_nulls {
                    return Err(Error::binder(format!(
                        "IGNORE NULLS applies to lag, lead, first_value, last_value and nth_value, not {name}"
                    )));
                }
                if star {
                    (
                        WindowFunction::Aggregate(AggregateFunction::CountStar),
                        DataType::BigInt,
                    )
                } else {
                    let types: Vec<DataType> = args.iter().map(|a| a.data_type()).collect();
                    let bound = resolve_aggregate(name, &types)?
                        .ok_or_else(|| Error::internal(format!("{name} is not an aggregate")))?;
                    let mut agg = AggregateExpr {
                        func: bound.func,
                        args: args
                            .into_iter()
                            .zip(&bound.arg_types)
                            .map(|(a, t)| cast_expr(a, t))
                            .collect::<Result<Vec<_>>>()?,
                        distinct,
                        filter: None,
                        order_by: vec![],
                        ty: bound.return_type,
                    };
                    collated = collation::aggregate(&mut agg)?;
                    args = agg.args;
                    distinct = agg.distinct;
                    (WindowFunction::Aggregate(agg.func), agg.ty)
                }
            }
            _ => {
                return Err(Error::binder(format!(
                    "{name}() is not a window function or an aggregate, so it cannot take OVER"
                )))
            }
        };
        if ignore_nulls && !func.is_value() {
            return Err(Error::binder(format!(
                "IGNORE NULLS applies to lag, lead, first_value, last_value and nth_value, not {name}"
            )));
        }
        if func.is_value() {
            collated = collation::derived(&args[0])?;
        }
        if !matches!(func, WindowFunction::Aggregate(_)) && (distinct || filter.is_some()) {
            return Err(Error::binder(format!(
                "DISTINCT and FILTER apply to aggregates over a window, not to {name}()"
            )));
        }
        let mut frame = self.bind_frame(spec.window_frame.as_ref(), &order_by, ctx)?;
        // EXCLUDE, recorded in the specification's name by the parser
        // (`frame_exclude.rs`)
        if let Some(name) = &spec.window_name {
            frame.exclude = crate::frame_exclude::split(&name.value).1;
        }

        let w = WindowExpr {
            func,
            args,
            partition_by,
            order_by,
            frame,
            ignore_nulls,
            filter,
            distinct,
            ty,
        };
        Ok((w, collated))
    }

    /// A window specification with the named window it starts from (`OVER (w ORDER
    /// BY x)`) filled in.
    /// The result names no base window; its name, if any, is the EXCLUDE marker of
    /// its frame (`frame_exclude.rs`).
    fn resolve_window(&self, spec: &ast::WindowSpec) -> Result<ast::WindowSpec> {
        let (base, exclude) = match &spec.window_name {
            None => (None, FrameExclude::NoOthers),
            Some(n) if n.quote_style.is_some() => crate::frame_exclude::split(&n.value),
            Some(n) => (Some(ident_name(n)), FrameExclude::NoOthers),
        };
        let Some(base) = base else {
            return Ok(spec.clone());
        };
        let mut out = self.named_window(&base)?;
        if !spec.partition_by.is_empty() {
            return Err(Error::binder(format!(
                "cannot override PARTITION BY of window \"{base}\""
            )));
        }
        if !spec.order_by.is_empty() {
            if !out.order_by.is_empty() {
                return Err(Error::binder(format!(
                    "cannot override ORDER BY of window \"{base}\""
                )));
            }
            out.order_by = spec.order_by.clone();
        }
        if spec.window_frame.is_some() {
            out.window_frame = spec.window_frame.clone();
            out.window_name = (exclude != FrameExclude::NoOthers)
                .then(|| ast::Ident::with_quote('"', crate::frame_exclude::marker(exclude)));
        }
        Ok(out)
    }

    /// The window named `name` by the WINDOW clause of the SELECT being bound.
    fn named_window(&self, name: &str) -> Result<ast::WindowSpec> {
        let defs = self
            .window_defs
            .last()
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut seen = 0;
        let mut current = name.to_string();
        loop {
            let def = defs
                .iter()
                .find(|d| ident_name(&d.0).eq_ignore_ascii_case(&current))
                .ok_or_else(|| Error::binder(format!("window \"{current}\" does not exist")))?;
            match &def.1 {
                ast::NamedWindowExpr::WindowSpec(s) => return self.resolve_window(s),
                ast::NamedWindowExpr::NamedWindow(other) => {
                    current = ident_name(other);
                    seen += 1;
                    if seen > defs.len() {
                        return Err(Error::binder(format!(
                            "window \"{name}\" is defined in terms of itself"
                        )));
                    }
                }
            }
        }
    }

    fn bind_frame(
        &mut self,
        frame: Option<&ast::WindowFrame>,
        order_by: &[SortExpr],
        ctx: &mut ExprCtx,
    ) -> Result<WindowFrame> {
        let Some(frame) = frame else {
            return Ok(WindowFrame::default_for(!order_by.is_empty()));
        };
        let units = match frame.units {
            ast::WindowFrameUnits::Rows => FrameUnits::Rows,
            ast::WindowFrameUnits::Range => FrameUnits::Range,
            ast::WindowFrameUnits::Groups => FrameUnits::Groups,
        };
        if units == FrameUnits::Groups && order_by.is_empty() {
            return Err(Error::binder(
                "GROUPS frames need an ORDER BY in the window",
            ));
        }
        let start = self.bind_bound(&frame.start_bound, units, order_by, ctx)?;
        let end = match &frame.end_bound {
            Some(b) => self.bind_bound(b, units, order_by, ctx)?,
            None => FrameBound::CurrentRow,
        };
        let rank = |b: &FrameBound| match b {
            FrameBound::UnboundedPreceding => 0,
            FrameBound::Preceding(_) => 1,
            FrameBound::CurrentRow => 2,
            FrameBound::Following(_) => 3,
            FrameBound::UnboundedFollowing => 4,
        };
        if matches!(start, FrameBound::UnboundedFollowing)
            || matches!(end, FrameBound::UnboundedPreceding)
            || rank(&start) > rank(&end)
        {
            return Err(Error::binder(format!(
                "the window frame cannot start at {} and end at {}",
                frame.start_bound,
                frame
                    .end_bound
                    .as_ref()
                    .map_or("CURRENT ROW".to_string(), |b| b.to_string())
            )));
        }
        Ok(WindowFrame {
            units,
            start,
            end,
            exclude: FrameExclude::NoOthers,
        })
    }

    fn bind_bound(
        &mut self,
        b: &ast::WindowFrameBound,
        units: FrameUnits,
        order_by: &[SortExpr],
        ctx: &mut ExprCtx,
    ) -> Result<FrameBound> {
        let offset = |me: &mut Self, e: &ast::Expr, ctx: &mut ExprCtx| -> Result<ScalarValue> {
            let bound = me.bind_expr(e, ctx)?;
            let value = fold_constant(&bound)?.ok_or_else(|| {
                Error::not_supported(format!(
                    "a window frame offset must be a constant for now, got {e}"
                ))
            })?;
            let value = match units {
                FrameUnits::Rows | FrameUnits::Groups => {
                    let v = fold_constant(&cast_expr(Expr::literal(value), &DataType::BigInt)?)?
                        .unwrap_or(ScalarValue::Null);
                    if v.as_i64().is_none_or(|n| n < 0) {
                        return Err(Error::invalid_input(format!(
                            "a frame offset must be a non-negative integer, got {e}"
                        )));
                    }
                    v
                }
                FrameUnits::Range => {
                    let [key] = order_by else {
                        return Err(Error::binder(
                            "RANGE with an offset needs exactly one ORDER BY expression in the window",
                        ));
                    };
                    let key_ty = key.expr.data_type();
                    let v = match (&key_ty, value.data_type()) {
                        (
                            DataType::Date | DataType::Timestamp | DataType::TimestampTz,
                            DataType::Interval,
                        ) => value,
                        (DataType::Date | DataType::Timestamp | DataType::TimestampTz, _) => {
                            return Err(Error::binder(format!(
                                "RANGE over a {key_ty} needs an INTERVAL offset, got {e}"
                            )))
                        }
                        _ if key_ty.is_numeric() => {
                            // Key and offset compare in a type that holds both, as
                            // DuckDB's `key - offset` does: a float key or offset
                            // makes it a float, an integer offset stays an integer
                            // (HUGEINT) and a decimal one keeps its scale, so 0.5 on
                            // INTEGER keys is not rounded to 1.
                            let offset_ty = match value.data_type() {
                                _ if key_ty.is_float() => key_ty.clone(),
                                t if t.is_float() => DataType::Double,
                                t @ DataType::Decimal(..) => t,
                                t if t.is_integer() => DataType::HugeInt,
                                _ => key_ty.clone(),
                            };
                            fold_constant(&cast_expr(Expr::literal(value), &offset_ty)?)?
                                .unwrap_or(ScalarValue::Null)
                        }
                        _ => {
                            return Err(Error::binder(format!(
                                "RANGE with an offset needs a numeric, DATE or TIMESTAMP ORDER BY key, not {key_ty}"
                            )))
                        }
                    };
                    if v.is_null() || negative(&v) {
                        return Err(Error::invalid_input(format!(
                            "a frame offset must not be negative or NULL, got {e}"
                        )));
                    }
                    v
                }
            };
            Ok(value)
        };
        Ok(match b {
            ast::WindowFrameBound::CurrentRow => FrameBound::CurrentRow,
            ast::WindowFrameBound::Preceding(None) => FrameBound::UnboundedPreceding,
            ast::WindowFrameBound::Following(None) => FrameBound::UnboundedFollowing,
            ast::WindowFrameBound::Preceding(Some(e)) => {
                FrameBound::Preceding(offset(self, e, ctx)?)
            }
            ast::WindowFrameBound::Following(Some(e)) => {
                FrameBound::Following(offset(self, e, ctx)?)
            }
        })
    }
}

/// The type a value function returns for its argument (NULL literals as INTEGER).
fn value_type(e: &Expr) -> DataType {
    match e.data_type() {
        DataType::Null => DataType::Integer,
        t => t,
    }
}

fn negative(v: &ScalarValue) -> bool {
    match v {
        ScalarValue::Interval(i) => i.months < 0 || i.days < 0 || i.micros < 0,
        other => other.as_f64().is_some_and(|x| x < 0.0),
    }
}
