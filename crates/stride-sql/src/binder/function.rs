//! Binding function calls: special forms (COALESCE, NULLIF, GREATEST, IF, ...),
//! aggregates (with DISTINCT, FILTER and ORDER BY inside the call), `current_setting`
//! (read from the session's settings while binding), and scalar functions resolved by
//! name and argument types.

use super::expr::{bool_expr, call, cast_expr, ident_name, unify_all, ExprCtx};
use super::Binder;
use crate::plan::{AggregateExpr, Expr, Field, LogicalPlan, SortExpr, Subquery, SubqueryKind};
use sqlparser::ast;
use stride_common::{DataType, Error, Result, ScalarValue};
use stride_functions::aggregate::{is_aggregate_name, resolve_aggregate};
use stride_functions::ScalarFunction;

impl Binder<'_> {
    pub fn bind_function(&mut self, f: &ast::Function, ctx: &mut ExprCtx) -> Result<Expr> {
        let name = match f.name.0.as_slice() {
            [ast::ObjectNamePart::Identifier(id)] => ident_name(id),
            // Built-in functions live in pg_catalog (and the one user schema).
            [ast::ObjectNamePart::Identifier(schema), ast::ObjectNamePart::Identifier(id)]
                if matches!(
                    ident_name(schema).as_str(),
                    "pg_catalog" | stride_functions::scalar::meta::SCHEMA_NAME
                ) =>
            {
                ident_name(id)
            }
            _ => return Err(Error::binder(format!("unknown function {}", f.name))),
        };
        // A macro (even one named as a built-in function) expands in place.
        if f.over.is_none() {
            if let ast::FunctionArguments::List(list) = &f.args {
                if let Some(def) = self.macro_named(&name)? {
                    if f.filter.is_some()
                        || list.duplicate_treatment.is_some()
                        || !list.clauses.is_empty()
                    {
                        return Err(Error::binder(format!(
                            "DISTINCT, FILTER and ORDER BY are only allowed in aggregate functions, not in the macro {name}"
                        )));
                    }
                    return self.bind_scalar_macro(&def, &list.args, ctx);
                }
            }
        }
        if super::set_function::is_set_function(&name) {
            return self.set_function_column(f, &name);
        }
        if f.over.is_some() {
            return self.bind_window(&name, f, ctx);
        }
        if super::window::is_window_only(&name) {
            return Err(Error::binder(format!(
                "{name}() is a window function: it needs an OVER clause, as in {name}() OVER (ORDER BY ...)"
            )));
        }
        // the session's database: `memory`, or the file's name without its extension
        let no_args = match &f.args {
            ast::FunctionArguments::None => true,
            ast::FunctionArguments::List(l) => l.args.is_empty(),
            _ => false,
        };
        if no_args && (name == "current_database" || name == "current_catalog") {
            return Ok(Expr::literal(ScalarValue::Varchar(
                self.catalog.database_name(),
            )));
        }
        let list = match &f.args {
            ast::FunctionArguments::None => {
                return match name.as_str() {
                    "current_date" | "today" => call("current_date", vec![]),
                    "current_time" | "localtime" => call("current_time", vec![]),
                    "current_timestamp" | "now" => call("current_timestamp", vec![]),
                    "localtimestamp" | "current_localtimestamp" => {
                        call("current_localtimestamp", vec![])
                    }
                    "current_user" | "session_user" | "user" | "current_role"
                    | "current_catalog" | "current_schema" => bind_scalar_call(&name, vec![]),
                    _ => Err(Error::binder(format!(
                        "function {name} needs an argument list"
                    ))),
                };
            }
            ast::FunctionArguments::Subquery(q) if name == "array" => {
                return self.bind_array_subquery(q, ctx);
            }
            ast::FunctionArguments::Subquery(_) => {
                return Err(Error::not_supported(format!(
                    "{name}(subquery) is not supported"
                )))
            }
            ast::FunctionArguments::List(l) => l,
        };
        if let Some(e) = self.bind_struct_call(&name, &list.args, ctx)? {
            return Ok(e);
        }
        if let Some(kind) = super::lambda::kind(&name) {
            return self.bind_lambda_call(&name, kind, &list.args, ctx);
        }
        if matches!(name.as_str(), "grouping" | "grouping_id") {
            let args: Vec<ast::Expr> = list
                .args
                .iter()
                .filter_map(|a| match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => Some(e.clone()),
                    _ => None,
                })
                .collect();
            return self.bind_grouping(&name, &args, ctx);
        }
        if let Some(e) = json_group(&name, f, list)? {
            return self.bind_expr(&e, ctx);
        }
        if super::builtin_macros::is_builtin_macro(&name)
            && f.filter.is_none()
            && list.duplicate_treatment.is_none()
            && list.clauses.is_empty()
        {
            return self.bind_builtin_macro(&name, &list.args, ctx);
        }
        if is_aggregate_name(&name) {
            return self.bind_aggregate(&name, f, list, ctx);
        }
        if f.filter.is_some() || list.duplicate_treatment.is_some() || !list.clauses.is_empty() {
            return Err(Error::binder(format!("DISTINCT, FILTER and ORDER BY are only allowed in aggregate functions, not in {name}")));
        }
        let mut args = Vec::with_capacity(list.args.len());
        for a in &list.args {
            match positional(a) {
                Some(e) => args.push(self.bind_expr(&e, ctx)?),
                None => {
                    let other = a;
                    return Err(Error::binder(format!(
                        "unsupported argument {other} in call to {name}"
                    )));
                }
            }
        }
        if let Some(id) = self.session_id(&name, list.args.len()) {
            return id;
        }
        // current_query(): the statement's text (NULL where the caller gave none)
        if name == "current_query" && list.args.is_empty() {
            return Ok(Expr::Literal {
                value: self
                    .query_text
                    .clone()
                    .map_or(ScalarValue::Null, ScalarValue::Varchar),
                ty: DataType::Varchar,
            });
        }
        // alias(expr): the name the expression's column would get
        if name == "alias" && list.args.len() == 1 {
            if let Some(e) = positional(&list.args[0]) {
                let bound = self.bind_expr(&e, ctx)?;
                return Ok(Expr::literal(ScalarValue::Varchar(
                    super::select::unaliased_name(&e, &bound),
                )));
            }
        }
        if super::system::is_catalog_function(&name) {
            return self.catalog_function(&name, args);
        }
        if name == "current_setting" {
            return self.current_setting(args);
        }
        if name == "getvariable" {
            return self.getvariable(&args);
        }
        if name == "nextval" || name == "currval" || name == "setval" {
            return self.sequence_call(&name, &args);
        }
        bind_scalar_call(&name, args)
    }

    /// `current_setting('name')`: a setting's value in this session, as SHOW gives it.
    /// The name must be a constant: settings are read when the statement is bound.
    fn current_setting(&self, args: Vec<Expr>) -> Result<Expr> {
        let name = match args.as_slice() {
            [a] => super::fold::fold_constant(a)?,
            _ => None,
        };
        match name {
            Some(ScalarValue::Varchar(n)) => Ok(Expr::literal(self.settings.get(n.trim())?)),
            _ => Err(Error::binder(
                "current_setting takes one constant string, the setting's name, as in current_setting('threads')",
            )),
        }
    }

    /// `ARRAY(subquery)`: the subquery's one column as a list, in the subquery's row
    /// order (an empty list when it returns no rows).
    fn bind_array_subquery(&mut self, q: &ast::Query, ctx: &mut ExprCtx) -> Result<Expr> {
        let (plan, correlated) = self.bind_subquery(q, ctx)?;
        let fields = plan.schema();
        if fields.len() != 1 {
            return Err(Error::binder(format!(
                "ARRAY(subquery) needs a subquery returning one column, not {}",
                fields.len()
            )));
        }
        let elem = match &fields[0].ty {
            DataType::Null => DataType::Varchar,
            t => t.clone(),
        };
        let column = cast_expr(
            Expr::column(0, fields[0].ty.clone(), fields[0].name.clone()),
            &elem,
        )?;
        let list = DataType::List(Box::new(elem.clone()));
        let bound = resolve_aggregate("list", std::slice::from_ref(&elem))?
            .ok_or_else(|| Error::internal("list is an aggregate"))?;
        let plan = LogicalPlan::Aggregate {
            input: Box::new(plan),
            group_by: vec![],
            aggregates: vec![AggregateExpr {
                func: bound.func,
                args: vec![column],
                distinct: false,
                filter: None,
                order_by: vec![],
                ty: bound.return_type,
            }],
            schema: vec![Field::new("array", list.clone())],
        };
        let sub = Expr::Subquery(Box::new(Subquery {
            id: crate::plan::expr::next_subquery_id(),
            plan,
            kind: SubqueryKind::Scalar(list.clone()),
            correlated,
        }));
        Ok(Expr::Coalesce {
            args: vec![
                sub,
                Expr::Literal {
                    value: ScalarValue::List(elem, vec![]),
                    ty: list.clone(),
                },
            ],
            ty: list,
        })
    }

    fn bind_aggregate(
        &mut self,
        name: &str,
        f: &ast::Function,
        list: &ast::FunctionArgumentList,
        ctx: &mut ExprCtx,
    ) -> Result<Expr> {
        // Arguments are bound in the same scope, but may not contain aggregates.
        let aggs = ctx.aggregates.take();
        let result = self.bind_aggregate_inner(name, f, list, ctx);
        ctx.aggregates = aggs;
        let mut agg = result?;
        let collated = super::collation::aggregate(&mut agg)?;
        let ty = agg.ty.clone();
        if let Some(depth) = outer_level(&agg) {
            // Reads only the columns of the query `depth` levels out: its aggregate.
            if let Some(at) = self.outer_aggregates.len().checked_sub(depth) {
                let index = super::index_in(&mut self.outer_aggregates[at], lift(agg, depth));
                return Ok(super::collation::marked_as(
                    Expr::OuterAggregateRef { depth, index, ty },
                    collated,
                ));
            }
        }
        let Some(aggs) = ctx.aggregates.as_deref_mut() else {
            return Err(Error::binder(format!(
                "aggregate function {name} is not allowed in {}",
                ctx.clause
            )));
        };
        let index = super::index_in(aggs, agg);
        Ok(super::collation::marked_as(
            Expr::AggregateRef { index, ty },
            collated,
        ))
    }

    fn bind_aggregate_inner(
        &mut self,
        name: &str,
        f: &ast::Function,
        list: &ast::FunctionArgumentList,
        ctx: &mut ExprCtx,
    ) -> Result<AggregateExpr> {
        let mut args = Vec::new();
        let mut star = false;
        for a in &list.args {
            match (a, positional(a)) {
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
        if star && !args.is_empty() {
            return Err(Error::binder("count(*) takes no other arguments"));
        }
        let distinct = matches!(
            list.duplicate_treatment,
            Some(ast::DuplicateTreatment::Distinct)
        );
        if star && distinct {
            return Err(Error::binder(
                "count(DISTINCT *) is not supported; name the columns: count(DISTINCT (a, b)), or count(*) FROM (SELECT DISTINCT ...)",
            ));
        }
        let types: Vec<DataType> = args.iter().map(|a| a.data_type()).collect();
        let bound = resolve_aggregate(name, &types)?
            .ok_or_else(|| Error::internal(format!("{name} is not an aggregate")))?;
        let args = args
            .into_iter()
            .zip(&bound.arg_types)
            .map(|(a, t)| cast_expr(a, t))
            .collect::<Result<Vec<_>>>()?;
        let args = constant_parameters(name, bound.func, args)?;
        let filter = match &f.filter {
            Some(x) => Some(bool_expr(self.bind_expr(x, ctx)?, "FILTER clause")?),
            None => None,
        };
        let mut order_by = Vec::new();
        for clause in &list.clauses {
            match clause {
                ast::FunctionArgumentClause::OrderBy(items) => {
                    for item in items {
                        let expr = self.bind_expr(&item.expr, ctx)?;
                        let asc = !matches!(item.options.sort, Some(ast::OrderBySort::Desc));
                        let nulls_first =
                            super::select::nulls_first(self, asc, item.options.nulls_first);
                        order_by.push(SortExpr {
                            expr,
                            asc,
                            nulls_first,
                        });
                    }
                }
                other => {
                    return Err(Error::not_supported(format!(
                        "{other} in aggregate {name} is not supported yet"
                    )))
                }
            }
        }
        for e in args
            .iter()
            .chain(filter.iter())
            .chain(order_by.iter().map(|s| &s.expr))
        {
            if e.any(&mut |x| matches!(x, Expr::AggregateRef { .. })) {
                return Err(Error::binder(format!(
                    "aggregate function calls cannot be nested (in {name})"
                )));
            }
        }
        Ok(AggregateExpr {
            func: bound.func,
            args,
            distinct,
            filter,
            order_by,
            ty: bound.return_type,
        })
    }
}

/// A function argument that is an expression. `f(a = 1)` parses as a named argument
/// (DuckDB's table functions take `header = true`), but in a scalar or aggregate call
/// it is the comparison `a = 1`, as in DuckDB.
pub(super) fn positional(a: &ast::FunctionArg) -> Option<std::borrow::Cow<'_, ast::Expr>> {
    use std::borrow::Cow;
    match a {
        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => Some(Cow::Borrowed(e)),
        ast::FunctionArg::Named {
            name,
            arg: ast::FunctionArgExpr::Expr(e),
            operator: ast::FunctionArgOperator::Equals,
        } => {
            // `coalesce(NULL = x, ...)`: the keyword, not a column named "null".
            let left = match name.value.to_ascii_lowercase().as_str() {
                _ if name.quote_style.is_some() => ast::Expr::Identifier(name.clone()),
                "null" => ast::Expr::Value(ast::Value::Null.into()),
                "true" => ast::Expr::Value(ast::Value::Boolean(true).into()),
                "false" => ast::Expr::Value(ast::Value::Boolean(false).into()),
                _ => ast::Expr::Identifier(name.clone()),
            };
            Some(Cow::Owned(ast::Expr::BinaryOp {
                left: Box::new(left),
                op: ast::BinaryOperator::Eq,
                right: Box::new(e.clone()),
            }))
        }
        _ => None,
    }
}

/// The arguments of an aggregate that takes constant parameters (a quantile's
/// fractions), each folded to a literal and checked; other aggregates' arguments as
/// they are.
fn constant_parameters(
    name: &str,
    func: stride_functions::aggregate::AggregateFunction,
    mut args: Vec<Expr>,
) -> Result<Vec<Expr>> {
    use stride_functions::aggregate::{quantile, top_n, AggregateFunction as F};
    let (at, what) = match func {
        F::Quantile(_) if args.len() == 2 => (1, "quantile"),
        F::TopN(_) => (args.len() - 1, "n"),
        F::ApproxTopK => (1, "k"),
        F::BitstringAgg if args.len() == 3 => {
            // both ends of the range, constants
            for at in [1, 2] {
                let Some(value) = super::fold::fold_constant(&args[at])? else {
                    return Err(Error::binder(format!(
                        "The range arguments of \"{name}\" must be constant expressions"
                    )));
                };
                let ty = args[at].data_type();
                args[at] = Expr::Literal { value, ty };
            }
            return Ok(args);
        }
        _ => return Ok(args),
    };
    let q = &args[at];
    let Some(value) = super::fold::fold_constant(q)? else {
        return Err(Error::binder(format!(
            "The \"{what}\" argument in function \"{name}\" must be a constant expression"
        )));
    };
    if what == "k" {
        stride_functions::aggregate::approx_top_k_count(&value)?;
    } else if what == "n" {
        top_n::count(&value)?;
    } else {
        quantile::fractions(name, &value)?;
    }
    args[at] = Expr::Literal {
        value,
        ty: q.data_type(),
    };
    Ok(args)
}

/// Functions bound by [`bind_scalar_call`] itself rather than by the function
/// catalogue of stride-functions (pg_proc lists them too).
pub(crate) const SPECIAL_FORMS: &[&str] = &[
    "coalesce",
    "ifnull",
    "nvl",
    "nullif",
    "if",
    "iff",
    "greatest",
    "least",
    "current_user",
    "session_user",
    "current_role",
    "user",
    "current_catalog",
    "current_schemas",
    "constant_or_null",
    "can_cast_implicitly",
    "cast_to_type",
];

/// The argument types a call `name(args)` binds with and its result type, or None
/// when it does not bind: how pg_proc learns the signatures of functions.
pub(crate) fn probe_call(name: &str, args: &[DataType]) -> Option<(Vec<DataType>, DataType)> {
    let values = args
        .iter()
        .map(|t| Expr::Literal {
            value: ScalarValue::Null,
            ty: t.clone(),
        })
        .collect();
    let e = bind_scalar_call(name, values).ok()?;
    let ty = e.data_type();
    let arg_types = match &e {
        _ if name == "current_schemas" => vec![DataType::Boolean],
        _ if matches!(name, "if" | "iff") => vec![DataType::Boolean, ty.clone(), ty.clone()],
        Expr::Function { func, .. } => func.arg_types.clone(),
        Expr::Coalesce { args, .. } | Expr::Greatest { args, .. } => {
            args.iter().map(|a| a.data_type()).collect()
        }
        _ => args.to_vec(),
    };
    Some((arg_types, ty))
}

/// Scalar calls, with the special forms that are not plain functions.
pub fn bind_scalar_call(name: &str, mut args: Vec<Expr>) -> Result<Expr> {
    let arity = |n: usize| -> Result<()> {
        if args.len() == n {
            Ok(())
        } else {
            Err(Error::binder(format!(
                "{name}() takes {n} arguments, got {}",
                args.len()
            )))
        }
    };
    match name {
        "coalesce" | "ifnull" | "nvl" => {
            if args.is_empty() {
                return Err(Error::binder(format!(
                    "{name}() needs at least one argument"
                )));
            }
            if name != "coalesce" {
                arity(2)?;
            }
            let (args, ty) = unify_all(args, name)?;
            Ok(Expr::Coalesce { args, ty })
        }
        // CASE WHEN a = b THEN NULL ELSE a END, as DuckDB's macro: of the first
        // argument's type, the two compared as `=` compares them
        "nullif" => {
            arity(2)?;
            let b = args.pop().expect("two args");
            let a = args.pop().expect("two args");
            let ty = a.data_type();
            let cond = super::expr::compare("=", a.clone(), b)?;
            Ok(Expr::Case {
                branches: vec![(
                    cond,
                    Expr::Literal {
                        value: ScalarValue::Null,
                        ty: ty.clone(),
                    },
                )],
                else_expr: Box::new(a),
                ty,
            })
        }
        "if" | "iff" => {
            arity(3)?;
            let else_e = args.pop().expect("3 args");
            let then_e = args.pop().expect("3 args");
            let cond = bool_expr(args.pop().expect("3 args"), "IF condition")?;
            let (mut v, ty) = unify_all(vec![then_e, else_e], name)?;
            let e = v.pop().expect("2");
            let t = v.pop().expect("2");
            Ok(Expr::Case {
                branches: vec![(cond, t)],
                else_expr: Box::new(e),
                ty,
            })
        }
        "greatest" | "least" => {
            if args.is_empty() {
                return Err(Error::binder(format!(
                    "{name}() needs at least one argument"
                )));
            }
            let (args, ty) = unify_all(args, name)?;
            Ok(Expr::Greatest {
                args,
                least: name == "least",
                ty,
            })
        }
        // The one role, which owns everything (see pg_roles), and the database.
        "current_user" | "session_user" | "current_role" | "user" if args.is_empty() => {
            Ok(Expr::literal(ScalarValue::Varchar(
                crate::system::snapshot::OWNER_NAME.into(),
            )))
        }
        "current_catalog" if args.is_empty() => Ok(Expr::literal(ScalarValue::Varchar(
            stride_functions::scalar::meta::DATABASE_NAME.into(),
        ))),
        // The schemas searched for unqualified names, in order; pg_catalog (searched
        // first, implicitly) only when asked for.
        "current_schemas" => {
            arity(1)?;
            let implicit = cast_expr(args.pop().expect("one argument"), &DataType::Boolean)?;
            let list = |names: &[&str]| {
                Expr::literal(ScalarValue::List(
                    DataType::Varchar,
                    names
                        .iter()
                        .map(|n| ScalarValue::Varchar(n.to_string()))
                        .collect(),
                ))
            };
            let user = stride_functions::scalar::meta::SCHEMA_NAME;
            if let Some(v) = super::fold::fold_constant(&implicit)? {
                return Ok(match v {
                    ScalarValue::Boolean(true) => list(&["pg_catalog", user]),
                    ScalarValue::Boolean(false) => list(&[user]),
                    _ => Expr::Literal {
                        value: ScalarValue::Null,
                        ty: DataType::List(Box::new(DataType::Varchar)),
                    },
                });
            }
            Ok(Expr::Case {
                branches: vec![(implicit, list(&["pg_catalog", user]))],
                else_expr: Box::new(list(&[user])),
                ty: DataType::List(Box::new(DataType::Varchar)),
            })
        }
        // NULL when any argument after the first is NULL, else the first
        "constant_or_null" => {
            if args.len() < 2 {
                return Err(Error::binder(
                    "constant_or_null() takes at least two arguments",
                ));
            }
            let value = args.remove(0);
            let ty = match value.data_type() {
                DataType::Null => DataType::Integer,
                t => t,
            };
            let any_null = args
                .into_iter()
                .map(|a| Expr::IsNull {
                    expr: Box::new(a),
                    negated: false,
                })
                .reduce(|a, b| Expr::Or(Box::new(a), Box::new(b)))
                .expect("at least one argument");
            Ok(Expr::Case {
                branches: vec![(
                    any_null,
                    Expr::Literal {
                        value: ScalarValue::Null,
                        ty: ty.clone(),
                    },
                )],
                else_expr: Box::new(cast_expr(value, &ty)?),
                ty,
            })
        }
        // DuckDB's function names of the operators
        n if n.eq_ignore_ascii_case("IS DISTINCT FROM")
            || n.eq_ignore_ascii_case("IS NOT DISTINCT FROM") =>
        {
            arity(2)?;
            let r = args.pop().expect("two arguments");
            let l = args.pop().expect("two arguments");
            let (l, r) = super::expr::unify_pair(l, r, "compare")?;
            let (l, r) = super::collation::keys_of_pair(l, r)?;
            Ok(Expr::IsDistinctFrom {
                left: Box::new(l),
                right: Box::new(r),
                negated: n.eq_ignore_ascii_case("IS NOT DISTINCT FROM"),
            })
        }
        // whether the first argument's type casts implicitly to the second's
        "can_cast_implicitly" => {
            arity(2)?;
            let (from, to) = (args[0].data_type(), args[1].data_type());
            Ok(Expr::literal(ScalarValue::Boolean(
                from.can_implicitly_cast_to(&to),
            )))
        }
        // the first argument cast to the second's type
        "cast_to_type" => {
            arity(2)?;
            let to = args.pop().expect("two arguments").data_type();
            cast_expr(args.pop().expect("two arguments"), &to)
        }
        "typeof" => {
            arity(1)?;
            Ok(Expr::literal(ScalarValue::Varchar(
                args[0].data_type().to_string(),
            )))
        }
        _ => call(name, args)
            .and_then(decimal_rounding_scale)
            .and_then(super::collation::string_matching),
    }
}

/// `round(d, k)` and `trunc(d, k)` of a DECIMAL(p, s) with a constant `k` return
/// DECIMAL(p, k) for 0 <= k < s, and DECIMAL(p, 0) for negative `k` (DECIMAL(p + 1, 0)
/// when rounding a DECIMAL(p, 0)), as DuckDB does (`round(1.25::DECIMAL(10,2), 1)` is
/// 1.3, not 1.30). A `k` that is not constant
/// keeps scale s, with the rounded-away digits zero.
fn decimal_rounding_scale(e: Expr) -> Result<Expr> {
    let Expr::Function { mut func, args } = e else {
        return Ok(e);
    };
    if matches!(
        func.func,
        ScalarFunction::Round | ScalarFunction::Trunc | ScalarFunction::RoundEven
    ) && args.len() == 2
    {
        if let DataType::Decimal(p, s) = args[0].data_type() {
            if let Some(k) = super::fold::fold_constant(&args[1])?.and_then(|v| v.as_i64()) {
                // Rounding a whole DECIMAL(p, 0) to tens or more can carry into one
                // more digit (round(99::DECIMAL(2,0), -1) is 100); with fraction
                // digits to drop, p holds the carry.
                let carry = s == 0 && k < 0 && func.func != ScalarFunction::Trunc;
                let p = if carry { (p + 1).min(38) } else { p };
                func.return_type = DataType::Decimal(p, k.clamp(0, s as i64) as u8);
            }
        }
    }
    Ok(Expr::Function { func, args })
}

/// The level of the enclosing query an aggregate belongs to, when its arguments,
/// FILTER and ORDER BY read columns of enclosing queries only (the nearest of them,
/// as in PostgreSQL), and no subquery; `None` for an aggregate of this query.
fn outer_level(agg: &AggregateExpr) -> Option<usize> {
    let mut local = false;
    let mut nearest: Option<usize> = None;
    let mut subquery = false;
    for e in agg
        .args
        .iter()
        .chain(&agg.filter)
        .chain(agg.order_by.iter().map(|o| &o.expr))
    {
        e.any(&mut |x| {
            match x {
                Expr::Column { .. } | Expr::AggregateRef { .. } => local = true,
                Expr::OuterColumn { depth, .. } => {
                    nearest = Some(nearest.map_or(*depth, |n| n.min(*depth)))
                }
                Expr::Subquery(_) => subquery = true,
                _ => {}
            }
            false
        });
    }
    if local || subquery {
        return None;
    }
    nearest
}

/// An aggregate bound inside a subquery, as the query `depth` levels out sees it.
fn lift(mut agg: AggregateExpr, depth: usize) -> AggregateExpr {
    for e in agg
        .args
        .iter_mut()
        .chain(&mut agg.filter)
        .chain(agg.order_by.iter_mut().map(|o| &mut o.expr))
    {
        let moved = std::mem::replace(e, Expr::literal(stride_common::ScalarValue::Null));
        *e = crate::plan::visit::outer_to_columns(moved, depth);
    }
    agg
}

/// Calls the binder writes out as other calls, as DuckDB's macros are (listed by
/// `duckdb_functions()` as macros).
pub(crate) const MACRO_FUNCTIONS: &[&str] = &["json_group_array", "json_group_object"];

/// DuckDB's macros `json_group_array(x)` (`to_json(list(x))`) and
/// `json_group_object(k, v)` (an object from `list(k)` and `list(v)`; DuckDB goes
/// through a MAP, which stride lacks), written out as the calls they stand for.
/// DISTINCT, FILTER and ORDER BY inside the call go to each `list`.
fn json_group(
    name: &str,
    f: &ast::Function,
    list: &ast::FunctionArgumentList,
) -> Result<Option<ast::Expr>> {
    let with_name = |n: &str, args: Vec<ast::FunctionArg>, keep_clauses: bool| {
        let mut g = f.clone();
        g.name = ast::ObjectName::from(vec![ast::Ident::new(n)]);
        g.args = ast::FunctionArguments::List(ast::FunctionArgumentList {
            duplicate_treatment: if keep_clauses {
                list.duplicate_treatment
            } else {
                None
            },
            args,
            clauses: if keep_clauses {
                list.clauses.clone()
            } else {
                vec![]
            },
        });
        if !keep_clauses {
            g.filter = None;
        }
        ast::Expr::Function(g)
    };
    let arg = |e: ast::Expr| ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e));
    match (name, list.args.as_slice()) {
        ("json_group_array", [x]) => {
            let inner = with_name("list", vec![x.clone()], true);
            Ok(Some(with_name("to_json", vec![arg(inner)], false)))
        }
        ("json_group_object", [k, v]) => {
            let keys = with_name("list", vec![k.clone()], true);
            let values = with_name("list", vec![v.clone()], true);
            Ok(Some(with_name(
                "__json_object_from_lists",
                vec![arg(keys), arg(values)],
                false,
            )))
        }
        ("json_group_array", _) => Err(Error::binder(
            "json_group_array() takes one argument: json_group_array(value)",
        )),
        ("json_group_object", _) => Err(Error::binder(
            "json_group_object() takes two arguments: json_group_object(key, value)",
        )),
        _ => Ok(None),
    }
}
