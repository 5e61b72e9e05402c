//! Binding scalar expressions: operators and functions to typed [`Expr`]s with
//! explicit casts, literals, subqueries and parameters; names and accesses
//! (`t.a`, `s.f`, `l[1]`) are bound in `access.rs`. Literal casts are folded on the
//! spot.

use super::fold::fold_constant;
use super::scope::Scope;
use super::types::number_literal;
use super::Binder;
use crate::plan::{AggregateExpr, Expr, Subquery, SubqueryKind};
use sqlparser::ast;
use stride_common::{DataType, Error, Result, ScalarValue};
use stride_functions::{cast_scalar, resolve_scalar};

/// Where an expression is being bound.
pub struct ExprCtx<'s> {
    pub scope: &'s Scope,
    /// Aggregates found so far, when the clause allows them (SELECT, HAVING, ORDER BY).
    pub aggregates: Option<&'s mut Vec<AggregateExpr>>,
    /// Window functions found so far, when the clause allows them (SELECT, ORDER BY).
    pub windows: Option<&'s mut Vec<crate::plan::WindowExpr>>,
    /// The clause, for error messages ("WHERE", "GROUP BY", ...).
    pub clause: &'static str,
}

impl<'s> ExprCtx<'s> {
    pub fn new(scope: &'s Scope, clause: &'static str) -> Self {
        ExprCtx {
            scope,
            aggregates: None,
            windows: None,
            clause,
        }
    }
}

/// Casts `e` to `ty`; literals are converted immediately.
pub fn cast_expr(e: Expr, ty: &DataType) -> Result<Expr> {
    if e.data_type() == *ty {
        return Ok(e);
    }
    Ok(cast_now_or_later(e, ty.clone(), false))
}

/// `e` cast to `to`: a literal converted now, unless converting it fails; then, as
/// any other expression, a cast evaluated per row, so the error is raised only if a
/// row needs the value (`CASE WHEN false THEN 'x'::INT END` is NULL, and a failing
/// cast over no rows returns no rows, as in DuckDB).
fn cast_now_or_later(e: Expr, to: DataType, try_cast: bool) -> Expr {
    if let Expr::Literal { value, ty: from } = &e {
        if let Ok(value) = stride_functions::cast_typed_scalar(value, from, &to, try_cast) {
            return Expr::Literal { value, ty: to };
        }
    }
    Expr::Cast {
        expr: Box::new(e),
        to,
        try_cast,
    }
}

pub fn bool_expr(e: Expr, what: &str) -> Result<Expr> {
    match e.data_type() {
        DataType::Boolean => Ok(e),
        DataType::Null => cast_expr(e, &DataType::Boolean),
        DataType::Varchar
        | DataType::TinyInt
        | DataType::SmallInt
        | DataType::Integer
        | DataType::BigInt => cast_expr(e, &DataType::Boolean),
        t => Err(Error::binder(format!(
            "{what} must be of type BOOLEAN, not type {t}"
        ))),
    }
}

/// Casts both sides of a comparison to their common type.
pub fn unify_pair(l: Expr, r: Expr, what: &str) -> Result<(Expr, Expr)> {
    let [l, r]: [Expr; 2] = literals_beside_uhugeint(vec![l, r])?
        .try_into()
        .map_err(|_| Error::internal("a pair of two"))?;
    // A string literal meets a list: it is the list's text (`'{1,2}'`), as an untyped
    // literal is in PostgreSQL.
    let (l, r) = match (l.data_type(), r.data_type()) {
        (t @ DataType::List(_), DataType::Varchar) if is_literal(&r) => {
            let r = cast_expr(r, &t)?;
            (l, r)
        }
        (DataType::Varchar, t @ DataType::List(_)) if is_literal(&l) => (cast_expr(l, &t)?, r),
        _ => (l, r),
    };
    let (lt, rt) = (l.data_type(), r.data_type());
    let t = DataType::common_supertype(&lt, &rt).ok_or_else(|| {
        Error::binder(format!(
            "Cannot {what} values of type {lt} and type {rt} - an explicit cast is required"
        ))
    })?;
    let t = if t == DataType::Null {
        DataType::Integer
    } else {
        t
    };
    Ok((cast_expr(l, &t)?, cast_expr(r, &t)?))
}

fn is_literal(e: &Expr) -> bool {
    matches!(e, Expr::Literal { .. })
}

/// Whether `e` is an integer written as digits (`1`, `-7`, `(3)`), which DuckDB types
/// by what it meets rather than as an INTEGER.
fn is_integer_literal(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Value(v) => matches!(&v.value,
            ast::Value::Number(n, _) if n.chars().all(|c| c.is_ascii_digit() || c == '_')),
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Minus | ast::UnaryOperator::Plus,
            expr,
        }
        | ast::Expr::Nested(expr) => is_integer_literal(expr),
        _ => false,
    }
}

/// An integer literal beside an operand of another integer type: that type when it
/// holds the literal's value (DuckDB's rule: `tinyint_col + 1` is TINYINT arithmetic,
/// `200::UTINYINT + 100` overflows), otherwise the literal as it is.
fn literal_as(literal: Expr, other: &DataType) -> Result<Expr> {
    let value = match &literal {
        Expr::Literal { value, .. } => match value {
            ScalarValue::Integer(v) => *v as i128,
            ScalarValue::BigInt(v) => *v as i128,
            ScalarValue::HugeInt(v) => *v,
            _ => return Ok(literal),
        },
        _ => return Ok(literal),
    };
    let fits = match other.integer_range() {
        Some((lo, hi)) => (lo..=hi).contains(&value),
        None => *other == DataType::UHugeInt && value >= 0,
    };
    match fits {
        true => cast_expr(literal, other),
        false => Ok(literal),
    }
}

/// DuckDB types an integer literal by what it meets. Beside a UHUGEINT a literal of
/// zero or more is a UHUGEINT (`u + 1`, `u = 5`, `[u, 2]`), where an INTEGER and a
/// UHUGEINT would meet as DOUBLE and lose digits.
fn literals_beside_uhugeint(exprs: Vec<Expr>) -> Result<Vec<Expr>> {
    if !exprs.iter().any(|e| e.data_type() == DataType::UHugeInt) {
        return Ok(exprs);
    }
    exprs
        .into_iter()
        .map(|e| literal_as(e, &DataType::UHugeInt))
        .collect()
}

/// Resolves an operator or function and casts the arguments to what it expects. An
/// argument of a type the function does not take is passed as its stand-in type
/// when it has one, as DuckDB casts implicitly: a fixed-size ARRAY as a LIST
/// (`list_sum(a)`, `a || [4]`), a TIMESTAMP_S, _MS or _NS as a TIMESTAMP
/// (`year(ts_ns)`), a TIME WITH TIME ZONE as its local TIME (`hour(t)`).
pub fn call(name: &str, args: Vec<Expr>) -> Result<Expr> {
    let args = literals_beside_uhugeint(args)?;
    let types: Vec<DataType> = args.iter().map(|a| a.data_type()).collect();
    let mut func = match resolve_scalar(name, &types) {
        Ok(f) => f,
        Err(e) => match stand_ins(&types) {
            Some(others) => resolve_scalar(name, &others).map_err(|_| e)?,
            None => return Err(e),
        },
    };
    let args = args
        .into_iter()
        .zip(func.arg_types.iter())
        .map(|(a, t)| cast_expr(a, t))
        .collect::<Result<Vec<_>>>()?;
    // date_part('epoch', x), list_aggregate(l, 'sum'): the result type depends on a
    // constant argument's value
    if stride_functions::scalar::needs_constants(func.func) {
        let constants = args
            .iter()
            .map(super::fold::fold_constant)
            .collect::<Result<Vec<_>>>()?;
        stride_functions::scalar::specialize(&mut func, &constants)?;
    }
    Ok(Expr::Function { func, args })
}

/// The argument types with each that has a stand-in replaced by it (see [`call`]);
/// `None` when none has one.
fn stand_ins(types: &[DataType]) -> Option<Vec<DataType>> {
    let stand_in = |t: &DataType| match t {
        DataType::Array(elem, _) => Some(DataType::List(elem.clone())),
        DataType::TimestampUnit(_) => Some(DataType::Timestamp),
        // what reads a TIME reads a TIMETZ's local time
        DataType::TimeTz => Some(DataType::Time),
        _ => None,
    };
    types.iter().any(|t| stand_in(t).is_some()).then(|| {
        types
            .iter()
            .map(|t| stand_in(t).unwrap_or_else(|| t.clone()))
            .collect()
    })
}

/// `l op r` for a comparison operator, with both sides of one type (and strings
/// compared by their collation keys when either side is collated).
pub fn compare(op: &str, l: Expr, r: Expr) -> Result<Expr> {
    let (l, r) = match (is_constant(&l), is_constant(&r)) {
        (false, true) => {
            let t = l.data_type();
            (l, constant_as(r, &t))
        }
        (true, false) => (constant_as(l, &r.data_type()), r),
        _ => (l, r),
    };
    let (l, r) = unify_pair(l, r, "compare")?;
    let (l, r) = super::collation::keys_of_pair(l, r)?;
    call(op, vec![l, r])
}

/// Whether `e` reads no column (a literal, or an expression of literals).
fn is_constant(e: &Expr) -> bool {
    let mut columns = Vec::new();
    e.collect_columns(&mut columns);
    columns.is_empty()
        && !e.has_subquery()
        && !e.any(&mut |x| matches!(x, Expr::OuterColumn { .. }))
}

/// A constant compared with a value of type `ty`, as a literal of that type when both
/// are integers or decimals and the constant converts to it and back unchanged: then
/// the comparison reads the column as it is, rather than casting every value to a
/// type wide enough for both (`ss_net_profit BETWEEN 0 AND 2000` compares the
/// DECIMAL(7,2) column with 0.00 and 2000.00). Otherwise the constant as it was.
fn constant_as(constant: Expr, ty: &DataType) -> Expr {
    let exact = |t: &DataType| t.is_integer() || matches!(t, DataType::Decimal(..));
    let from = constant.data_type();
    if from == *ty || !exact(&from) || !exact(ty) {
        return constant;
    }
    let value = match fold_constant(&constant) {
        Ok(Some(v)) if !v.is_null() => v,
        _ => return constant,
    };
    let literal = |value: ScalarValue, ty: &DataType| Expr::Literal {
        value,
        ty: ty.clone(),
    };
    let convert = |value: ScalarValue, from: &DataType, to: &DataType| {
        cast_expr(literal(value, from), to)
            .and_then(|e| fold_constant(&e))
            .ok()
            .flatten()
    };
    match convert(value.clone(), &from, ty) {
        Some(narrow) if convert(narrow.clone(), ty, &from).as_ref() == Some(&value) => {
            literal(narrow, ty)
        }
        _ => constant,
    }
}

/// `x LIKE pattern [ESCAPE esc]` (`op` "~~", or "~~*" for ILIKE): collated strings
/// match by their collation keys.
fn like(op: &str, x: Expr, pattern: Expr, escape: Option<Expr>) -> Result<Expr> {
    let (x, pattern) = match (x.data_type(), pattern.data_type()) {
        (DataType::Varchar, DataType::Varchar) => {
            super::collation::keys_of_pattern(x, pattern, escape.as_ref())?
        }
        _ => (x, pattern),
    };
    let mut args = vec![x, pattern];
    args.extend(escape);
    call(op, args)
}

fn comparison_name(op: &ast::BinaryOperator) -> Option<&'static str> {
    use ast::BinaryOperator as B;
    Some(match op {
        B::Eq => "=",
        B::NotEq => "<>",
        B::Lt => "<",
        B::LtEq => "<=",
        B::Gt => ">",
        B::GtEq => ">=",
        _ => return None,
    })
}

/// A common type for a list of expressions (CASE branches, IN lists, COALESCE).
pub fn unify_all(exprs: Vec<Expr>, what: &str) -> Result<(Vec<Expr>, DataType)> {
    let exprs = literals_beside_uhugeint(exprs)?;
    let mut t = DataType::Null;
    for e in &exprs {
        let et = e.data_type();
        t = DataType::common_supertype(&t, &et).ok_or_else(|| {
            Error::binder(format!(
                "Cannot mix values of type {t} and {et} in {what} - an explicit cast is required"
            ))
        })?;
    }
    let exprs = exprs
        .into_iter()
        .map(|e| cast_expr(e, &t))
        .collect::<Result<Vec<_>>>()?;
    Ok((exprs, t))
}

pub fn ident_name(i: &ast::Ident) -> String {
    if i.quote_style.is_some() {
        i.value.clone()
    } else {
        i.value.to_ascii_lowercase()
    }
}

impl Binder<'_> {
    pub fn bind_expr(&mut self, e: &ast::Expr, ctx: &mut ExprCtx) -> Result<Expr> {
        if self.depth >= super::MAX_EXPRESSION_DEPTH {
            return Err(Error::binder(format!(
                "expression is nested too deeply (more than {} levels); split it or use a subquery",
                super::MAX_EXPRESSION_DEPTH
            )));
        }
        self.depth += 1;
        // Binary operators go straight to their binder: long flat chains (`1 + 1 +
        // …`, thousands of ANDs) recurse through it without the large stack frame
        // of `bind_expr_inner`, which unoptimized builds give tens of kilobytes.
        let r = match e {
            ast::Expr::BinaryOp { left, op, right } => self.bind_binary(left, op, right, ctx),
            _ => self.bind_expr_inner(e, ctx),
        };
        self.depth -= 1;
        r
    }

    fn bind_expr_inner(&mut self, e: &ast::Expr, ctx: &mut ExprCtx) -> Result<Expr> {
        use ast::Expr as A;
        match e {
            A::Identifier(id) => match super::macros::macro_arg_index(&id.value) {
                Some(i) if i < self.macro_args.len() => self.bind_macro_arg(i, ctx),
                _ => self.bind_column(None, &id.value, ctx),
            },
            A::CompoundIdentifier(parts) => self.bind_compound_identifier(parts, ctx),
            A::Dictionary(entries) => self.bind_dictionary(entries, ctx),
            A::Map(m) => self.bind_map_literal(m, ctx),
            A::Tuple(items) => {
                let values = items
                    .iter()
                    .map(|x| self.bind_expr(x, ctx))
                    .collect::<Result<Vec<_>>>()?;
                super::structs::pack(vec![String::new(); values.len()], values)
            }
            A::Value(v) => match &v.value {
                ast::Value::Placeholder(p) => self.parameter(p),
                other => Ok(Expr::literal(value_literal(other)?)),
            },
            A::Nested(inner) => self.bind_expr(inner, ctx),
            A::TypedString(ts) => {
                let ty = self.convert_type(&ts.data_type)?;
                let text = match &ts.value.value {
                    ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                        s.clone()
                    }
                    other => other.to_string(),
                };
                cast_expr(Expr::literal(ScalarValue::Varchar(text)), &ty)
            }
            A::Interval(iv) => self.bind_interval(iv, ctx),
            A::Cast {
                kind,
                expr,
                data_type,
                ..
            } => {
                if let Some(reg) = reg_type(data_type) {
                    let inner = self.bind_expr(expr, ctx)?;
                    return self.bind_reg_cast(inner, reg);
                }
                if let ast::DataType::Array(ast::ArrayElemTypeDef::SquareBracket(elem, _)) =
                    data_type
                {
                    if let Some(reg) = reg_type(elem) {
                        let inner = self.bind_expr(expr, ctx)?;
                        return self.bind_reg_list_cast(inner, reg);
                    }
                }
                let ty = self.convert_type(data_type)?;
                self.hint_parameter(expr, &ty);
                // A reg value shown as text is the object's name: `'t'::regclass::text`
                // looks the name up and prints it back as the catalog spells it.
                if let (
                    DataType::Varchar,
                    A::Cast {
                        data_type: inner_ty,
                        ..
                    },
                ) = (&ty, &**expr)
                {
                    if let Some(reg) = reg_type(inner_ty) {
                        let oid = self.bind_expr(expr, ctx)?;
                        if oid.data_type() == DataType::BigInt {
                            return self.bind_reg_cast(oid, reg);
                        }
                        return cast_expr(oid, &ty);
                    }
                }
                let inner = self.bind_expr(expr, ctx)?;
                let try_cast = matches!(kind, ast::CastKind::TryCast | ast::CastKind::SafeCast);
                if inner.data_type() == ty {
                    return Ok(inner);
                }
                Ok(cast_now_or_later(inner, ty, try_cast))
            }
            A::UnaryOp { op, expr } => self.bind_unary(op, expr, ctx),
            A::BinaryOp { left, op, right } => self.bind_binary(left, op, right, ctx),
            A::IsNull(x) | A::IsNotNull(x) => {
                let inner = self.bind_expr(x, ctx)?;
                Ok(Expr::IsNull {
                    expr: Box::new(inner),
                    negated: matches!(e, A::IsNotNull(_)),
                })
            }
            // a boolean that is NULL (SQL's third truth value)
            A::IsUnknown(x) | A::IsNotUnknown(x) => {
                let inner = bool_expr(self.bind_expr(x, ctx)?, "IS UNKNOWN argument")?;
                Ok(Expr::IsNull {
                    expr: Box::new(inner),
                    negated: matches!(e, A::IsNotUnknown(_)),
                })
            }
            A::IsTrue(x) | A::IsNotTrue(x) | A::IsFalse(x) | A::IsNotFalse(x) => {
                let inner = bool_expr(self.bind_expr(x, ctx)?, "IS TRUE argument")?;
                let target = matches!(e, A::IsTrue(_) | A::IsNotTrue(_));
                let negated = matches!(e, A::IsNotTrue(_) | A::IsNotFalse(_));
                Ok(Expr::IsDistinctFrom {
                    left: Box::new(inner),
                    right: Box::new(Expr::literal(ScalarValue::Boolean(target))),
                    negated: !negated,
                })
            }
            A::IsDistinctFrom(l, r) | A::IsNotDistinctFrom(l, r) => {
                let (l, r) = (self.bind_expr(l, ctx)?, self.bind_expr(r, ctx)?);
                let (l, r) = unify_pair(l, r, "compare")?;
                let (l, r) = super::collation::keys_of_pair(l, r)?;
                Ok(Expr::IsDistinctFrom {
                    left: Box::new(l),
                    right: Box::new(r),
                    negated: matches!(e, A::IsNotDistinctFrom(..)),
                })
            }
            A::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let x = self.bind_expr(expr, ctx)?;
                let lo = self.bind_expr(low, ctx)?;
                let hi = self.bind_expr(high, ctx)?;
                self.hint_parameter(low, &x.data_type());
                self.hint_parameter(high, &x.data_type());
                self.hint_parameter(expr, &lo.data_type());
                // Numbers compare at one type common to all three (DuckDB): REAL
                // 16777216 is below 16777217, which as a REAL would equal it.
                let (x, lo, hi) = if [&x, &lo, &hi].iter().all(|e| e.data_type().is_numeric()) {
                    let (mut all, _) = unify_all(vec![x, lo, hi], "BETWEEN")?;
                    // Constant bounds stay constants (zone maps read them), unless
                    // their cast fails, which then fails per row.
                    let fold = |e: Expr| match super::fold::fold_constant(&e) {
                        Ok(Some(value)) => Expr::Literal {
                            value,
                            ty: e.data_type(),
                        },
                        _ => e,
                    };
                    let hi = fold(all.pop().expect("three"));
                    let lo = fold(all.pop().expect("three"));
                    (all.pop().expect("three"), lo, hi)
                } else {
                    (x, lo, hi)
                };
                let ge = compare(">=", x.clone(), lo)?;
                let le = compare("<=", x, hi)?;
                let both = Expr::And(Box::new(ge), Box::new(le));
                Ok(if *negated {
                    Expr::Not(Box::new(both))
                } else {
                    both
                })
            }
            A::InList {
                expr,
                list,
                negated,
            } => {
                let x = self.bind_expr(expr, ctx)?;
                let xt = x.data_type();
                let mut items = vec![x];
                for i in list {
                    self.hint_parameter(i, &xt);
                    items.push(self.bind_expr(i, ctx)?);
                }
                let (mut items, _) = unify_all(items, "IN list")?;
                let x = items.remove(0);
                let (x, items) = super::collation::keys_of_list(x, items)?;
                Ok(Expr::in_list(x, items, *negated))
            }
            A::InSubquery {
                expr,
                subquery,
                negated,
            } => {
                let x = self.bind_expr(expr, ctx)?;
                let (plan, correlated) = self.bind_subquery(subquery, ctx)?;
                let sub_ty = single_column_type(&plan, "IN")?;
                let t = DataType::common_supertype(&x.data_type(), &sub_ty).ok_or_else(|| {
                    Error::binder(format!(
                        "Cannot compare values of type {} and type {sub_ty} in IN subquery",
                        x.data_type()
                    ))
                })?;
                let plan = cast_plan_column(plan, &t)?;
                let x = cast_expr(x, &t)?;
                let (x, plan) = super::collation::keys_of_subquery(x, plan)?;
                Ok(Expr::Subquery(Box::new(Subquery {
                    id: crate::plan::expr::next_subquery_id(),
                    plan,
                    kind: SubqueryKind::In {
                        expr: Box::new(x),
                        negated: *negated,
                    },
                    correlated,
                })))
            }
            A::Exists { subquery, negated } => {
                let (plan, correlated) = self.bind_subquery(subquery, ctx)?;
                Ok(Expr::Subquery(Box::new(Subquery {
                    id: crate::plan::expr::next_subquery_id(),
                    plan,
                    kind: SubqueryKind::Exists { negated: *negated },
                    correlated,
                })))
            }
            A::Subquery(q) => {
                let (plan, correlated) = self.bind_subquery(q, ctx)?;
                let t = single_column_type(&plan, "scalar subquery")?;
                Ok(Expr::Subquery(Box::new(Subquery {
                    id: crate::plan::expr::next_subquery_id(),
                    plan,
                    kind: SubqueryKind::Scalar(t),
                    correlated,
                })))
            }
            A::AnyOp {
                left,
                compare_op,
                right,
                ..
            }
            | A::AllOp {
                left,
                compare_op,
                right,
            } => {
                let all = matches!(e, A::AllOp { .. });
                let op = comparison_name(compare_op).ok_or_else(|| {
                    Error::binder(format!("unsupported operator {compare_op} with ANY/ALL"))
                })?;
                let q = match &**right {
                    A::Subquery(q) => q,
                    list => {
                        // `x op ANY(list)`: over the elements of a list (array).
                        let x = self.bind_expr(left, ctx)?;
                        if super::collation::derived(&x)?.is_some_and(|d| !d.collation.is_binary())
                        {
                            return Err(Error::not_supported(
                                "x op ANY/ALL (list) with a collated string is not supported yet; use x IN (...) or unnest the list in a subquery",
                            ));
                        }
                        let mut l = self.bind_expr(list, ctx)?;
                        if let DataType::List(elem) = l.data_type() {
                            self.hint_parameter(left, &elem);
                        }
                        self.hint_parameter(list, &DataType::List(Box::new(x.data_type())));
                        if l.data_type() == DataType::Varchar && is_literal(&l) {
                            let t = match x.data_type() {
                                DataType::Null => DataType::Varchar,
                                t => t,
                            };
                            l = cast_expr(l, &DataType::List(Box::new(t)))?;
                        }
                        let f = stride_functions::resolve_quantified(
                            op,
                            all,
                            &[x.data_type(), l.data_type()],
                        )?;
                        let args = vec![
                            cast_expr(x, &f.arg_types[0])?,
                            cast_expr(l, &f.arg_types[1])?,
                        ];
                        return Ok(Expr::Function { func: f, args });
                    }
                };
                let x = self.bind_expr(left, ctx)?;
                let (plan, correlated) = self.bind_subquery(q, ctx)?;
                let sub_ty = single_column_type(&plan, "ANY/ALL")?;
                let t = DataType::common_supertype(&x.data_type(), &sub_ty).ok_or_else(|| {
                    Error::binder(format!(
                        "Cannot compare values of type {} and type {sub_ty}",
                        x.data_type()
                    ))
                })?;
                let plan = cast_plan_column(plan, &t)?;
                let x = cast_expr(x, &t)?;
                let (x, plan) = super::collation::keys_of_subquery(x, plan)?;
                let cmp = resolve_scalar(op, &[t.clone(), t])?;
                Ok(Expr::Subquery(Box::new(Subquery {
                    id: crate::plan::expr::next_subquery_id(),
                    plan,
                    kind: SubqueryKind::Quantified {
                        expr: Box::new(x),
                        cmp,
                        all,
                    },
                    correlated,
                })))
            }
            A::Like {
                negated,
                expr,
                pattern,
                escape_char,
                any,
                ..
            }
            | A::ILike {
                negated,
                expr,
                pattern,
                escape_char,
                any,
                ..
            } => {
                if *any {
                    return Err(Error::not_supported("LIKE ANY is not supported yet"));
                }
                let op = if matches!(e, A::ILike { .. }) {
                    "~~*"
                } else {
                    "~~"
                };
                let (x, p) = (self.bind_expr(expr, ctx)?, self.bind_expr(pattern, ctx)?);
                let esc = match escape_char {
                    Some(esc) => Some(self.bind_expr(esc, ctx)?),
                    None => None,
                };
                let like = like(op, x, p, esc)?;
                Ok(if *negated {
                    Expr::Not(Box::new(like))
                } else {
                    like
                })
            }
            A::SimilarTo {
                negated,
                expr,
                pattern,
                escape_char,
            } => {
                // DuckDB's reading: the pattern is a regular expression that must match
                // the whole string.
                if escape_char.is_some() {
                    return Err(Error::not_supported(
                        "ESCAPE is not supported with SIMILAR TO: its pattern is a regular expression, so escape with a backslash",
                    ));
                }
                let args = vec![self.bind_expr(expr, ctx)?, self.bind_expr(pattern, ctx)?];
                let similar = call("regexp_full_match", args)?;
                Ok(if *negated {
                    Expr::Not(Box::new(similar))
                } else {
                    similar
                })
            }
            A::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                let operand = match operand {
                    Some(o) => Some(self.bind_expr(o, ctx)?),
                    None => None,
                };
                let mut whens = Vec::new();
                let mut results = Vec::new();
                for cw in conditions {
                    let c = self.bind_expr(&cw.condition, ctx)?;
                    let c = match &operand {
                        Some(o) => compare("=", o.clone(), c)?,
                        None => bool_expr(c, "CASE WHEN condition")?,
                    };
                    whens.push(c);
                    results.push(self.bind_expr(&cw.result, ctx)?);
                }
                results.push(match else_result {
                    Some(x) => self.bind_expr(x, ctx)?,
                    None => Expr::literal(ScalarValue::Null),
                });
                // Every result NULL: the CASE is an untyped NULL, as a bare NULL is,
                // and takes the type its context gives it (`coalesce(.., 'x')`).
                let (mut results, ty) = unify_all(results, "CASE")?;
                let else_expr = cast_expr(results.pop().expect("else branch"), &ty)?;
                let results = results
                    .into_iter()
                    .map(|r| cast_expr(r, &ty))
                    .collect::<Result<Vec<_>>>()?;
                Ok(Expr::Case {
                    branches: whens.into_iter().zip(results).collect(),
                    else_expr: Box::new(else_expr),
                    ty,
                })
            }
            A::Function(f) => self.bind_function(f, ctx),
            // `ts AT TIME ZONE zone` is DuckDB's `timezone(zone, ts)`
            A::AtTimeZone {
                timestamp,
                time_zone,
            } => {
                let ts = self.bind_expr(timestamp, ctx)?;
                let zone = self.bind_expr(time_zone, ctx)?;
                call("timezone", vec![zone, ts])
            }
            A::Extract { field, expr, .. } => {
                let part = match field {
                    ast::DateTimeField::Custom(id) => id.value.to_ascii_lowercase(),
                    other => other.to_string().to_ascii_lowercase(),
                };
                let x = self.bind_expr(expr, ctx)?;
                call(
                    "date_part",
                    vec![Expr::literal(ScalarValue::Varchar(part)), x],
                )
            }
            A::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                let mut args = vec![self.bind_expr(expr, ctx)?];
                args.push(match substring_from {
                    Some(f) => self.bind_expr(f, ctx)?,
                    None => Expr::literal(ScalarValue::Integer(1)),
                });
                if let Some(f) = substring_for {
                    args.push(self.bind_expr(f, ctx)?);
                }
                call("substring", args)
            }
            A::Trim {
                trim_where,
                trim_what,
                expr,
                trim_characters,
            } => {
                let name = match trim_where {
                    Some(ast::TrimWhereField::Leading) => "ltrim",
                    Some(ast::TrimWhereField::Trailing) => "rtrim",
                    _ => "trim",
                };
                let mut args = vec![self.bind_expr(expr, ctx)?];
                if let Some(w) = trim_what {
                    args.push(self.bind_expr(w, ctx)?);
                }
                if let Some(chars) = trim_characters {
                    for c in chars {
                        args.push(self.bind_expr(c, ctx)?);
                    }
                }
                call(name, args)
            }
            A::Overlay {
                expr,
                overlay_what,
                overlay_from,
                overlay_for,
            } => {
                let mut args = vec![
                    self.bind_expr(expr, ctx)?,
                    self.bind_expr(overlay_what, ctx)?,
                    self.bind_expr(overlay_from, ctx)?,
                ];
                if let Some(f) = overlay_for {
                    args.push(self.bind_expr(f, ctx)?);
                }
                call("overlay", args)
            }
            A::Position { expr, r#in } => {
                let needle = self.bind_expr(expr, ctx)?;
                let hay = self.bind_expr(r#in, ctx)?;
                call("strpos", vec![hay, needle])
            }
            A::Ceil { expr, field } | A::Floor { expr, field } => {
                let name = if matches!(e, A::Ceil { .. }) {
                    "ceil"
                } else {
                    "floor"
                };
                // `floor(x, 1)`, `ceil(t TO DAY)`: refused, not ignored (as DuckDB).
                if !matches!(
                    field,
                    ast::CeilFloorKind::DateTimeField(ast::DateTimeField::NoDateTime)
                ) {
                    return Err(Error::binder(format!(
                        "{name} takes one argument; round(x, n) rounds to n digits and date_trunc(part, t) truncates dates and times"
                    )));
                }
                let x = self.bind_expr(expr, ctx)?;
                call(name, vec![x])
            }
            A::Collate { expr, collation } => {
                super::collation::explicit(self.bind_expr(expr, ctx)?, collation)
            }
            A::CompoundFieldAccess { root, access_chain } => {
                self.bind_access(root, access_chain, ctx)
            }
            A::Array(arr) => {
                let mut items = Vec::with_capacity(arr.elem.len());
                for e in &arr.elem {
                    items.push(self.bind_expr(e, ctx)?);
                }
                let e = call("list_value", items)?;
                Ok(match fold_constant(&e)? {
                    Some(value) => Expr::Literal {
                        value,
                        ty: e.data_type(),
                    },
                    None => e,
                })
            }
            // `j -> '$.a'` outside a lambda function: sqlparser reads an identifier
            // followed by `->` as a lambda, but here it is DuckDB's JSON arrow.
            A::Lambda(l) => match json_arrow(l) {
                Some(e) => self.bind_expr(&e, ctx),
                None => Err(Error::binder(format!(
                    "a lambda function ({e}) is only allowed as an argument of a list function such as list_transform"
                ))),
            },
            other => Err(Error::not_supported(format!(
                "expression not supported yet: {other}"
            ))),
        }
    }

    fn bind_unary(
        &mut self,
        op: &ast::UnaryOperator,
        x: &ast::Expr,
        ctx: &mut ExprCtx,
    ) -> Result<Expr> {
        match op {
            ast::UnaryOperator::Minus => {
                if let ast::Expr::Value(v) = x {
                    if let ast::Value::Number(n, _) = &v.value {
                        return Ok(Expr::literal(negate_literal(number_literal(n)?)?));
                    }
                }
                let inner = self.bind_expr(x, ctx)?;
                let e = call("negate", vec![inner])?;
                Ok(match fold_constant(&e)? {
                    Some(v) => Expr::Literal {
                        ty: e.data_type(),
                        value: v,
                    },
                    None => e,
                })
            }
            ast::UnaryOperator::Plus => {
                let inner = self.bind_expr(x, ctx)?;
                if !inner.data_type().is_numeric() && inner.data_type() != DataType::Null {
                    return Err(Error::binder(format!(
                        "unary + is not defined for type {}",
                        inner.data_type()
                    )));
                }
                Ok(inner)
            }
            ast::UnaryOperator::Not => {
                let inner = bool_expr(self.bind_expr(x, ctx)?, "NOT argument")?;
                Ok(Expr::Not(Box::new(inner)))
            }
            // `~x` (bitwise NOT) and `@x` (absolute value), DuckDB's prefix operators
            ast::UnaryOperator::BitwiseNot | ast::UnaryOperator::PGAbs => {
                let name = if *op == ast::UnaryOperator::PGAbs {
                    "@"
                } else {
                    "~"
                };
                let inner = self.bind_expr(x, ctx)?;
                call(name, vec![inner])
            }
            other => Err(Error::not_supported(format!(
                "unary operator {other} is not supported yet"
            ))),
        }
    }

    fn bind_binary(
        &mut self,
        l: &ast::Expr,
        op: &ast::BinaryOperator,
        r: &ast::Expr,
        ctx: &mut ExprCtx,
    ) -> Result<Expr> {
        use ast::BinaryOperator as B;
        // Long AND/OR chains are left-deep; bind them iteratively to bound recursion.
        if matches!(op, B::And | B::Or) {
            let mut terms = vec![r];
            let mut cur = l;
            while let ast::Expr::BinaryOp { left, op: o, right } = cur {
                if o != op {
                    break;
                }
                terms.push(right);
                cur = left;
            }
            terms.push(cur);
            terms.reverse();
            let mut acc: Option<Expr> = None;
            for t in terms {
                let b = bool_expr(self.bind_expr(t, ctx)?, &format!("{op} argument"))?;
                acc = Some(match acc {
                    None => b,
                    Some(a) if *op == B::And => Expr::And(Box::new(a), Box::new(b)),
                    Some(a) => Expr::Or(Box::new(a), Box::new(b)),
                });
            }
            return Ok(acc.expect("at least two terms"));
        }
        if let (Some(name), Some(reg)) = (comparison_name(op), same_reg_casts(l, r)) {
            // `a::regtype = 'trigger'::regtype`: reg values compare as the OIDs they are.
            let left = self.bind_reg_oid(l, reg, ctx)?;
            let right = self.bind_reg_oid(r, reg, ctx)?;
            return compare(name, left, right);
        }
        let left = self.bind_expr(l, ctx)?;
        let right = self.bind_expr(r, ctx)?;
        // `i >= $1`, `$1 + 1`: an untyped parameter takes its typed operand's type.
        self.hint_parameter(l, &right.data_type());
        self.hint_parameter(r, &left.data_type());
        let (left, right) = match (is_integer_literal(l), is_integer_literal(r)) {
            (true, false) => (literal_as(left, &right.data_type())?, right),
            (false, true) => {
                let t = left.data_type();
                (left, literal_as(right, &t)?)
            }
            _ => (left, right),
        };
        if let Some(name) = comparison_name(op) {
            return compare(name, left, right);
        }
        let name = match op {
            B::Plus => "+",
            B::Minus => "-",
            B::Multiply => "*",
            B::Divide => "/",
            B::DuckIntegerDivide | B::MyIntegerDivide => "//",
            B::Modulo => "%",
            B::StringConcat => "||",
            B::PGLikeMatch => return like("~~", left, right, None),
            B::PGILikeMatch => return like("~~*", left, right, None),
            B::PGNotLikeMatch => return Ok(Expr::Not(Box::new(like("~~", left, right, None)?))),
            B::PGNotILikeMatch => return Ok(Expr::Not(Box::new(like("~~*", left, right, None)?))),
            B::PGStartsWith => "starts_with",
            B::PGRegexMatch => "~",
            B::PGRegexIMatch => "~*",
            B::PGRegexNotMatch => return Ok(Expr::Not(Box::new(call("~", vec![left, right])?))),
            B::PGRegexNotIMatch => return Ok(Expr::Not(Box::new(call("~*", vec![left, right])?))),
            // `^` is power in DuckDB (and PostgreSQL); `#` is PostgreSQL's xor
            B::PGExp | B::BitwiseXor => "power",
            B::PGBitwiseXor => "xor",
            // list_cosine_distance
            B::Spaceship => "<=>",
            B::BitwiseAnd => "&",
            B::BitwiseOr => "|",
            B::PGBitwiseShiftLeft => "<<",
            B::PGBitwiseShiftRight => ">>",
            // list operators: list_has_any, list_has_all and its mirror
            B::PGOverlap => "&&",
            B::AtArrow => "@>",
            B::ArrowAt => "<@",
            // JSON: json_extract and json_extract_string
            B::Arrow => "->",
            B::LongArrow => "->>",
            other => {
                return Err(Error::not_supported(format!(
                    "operator {other} is not supported yet"
                )))
            }
        };
        let (left, right) =
            if left.data_type() == DataType::Null && right.data_type() == DataType::Null {
                (
                    cast_expr(left, &DataType::Integer)?,
                    cast_expr(right, &DataType::Integer)?,
                )
            } else {
                (left, right)
            };
        call(name, vec![left, right])
    }

    fn bind_interval(&mut self, iv: &ast::Interval, ctx: &mut ExprCtx) -> Result<Expr> {
        let value = self.bind_expr(&iv.value, ctx)?;
        let text = match fold_constant(&value)? {
            Some(ScalarValue::Null) => {
                return Ok(Expr::Literal {
                    value: ScalarValue::Null,
                    ty: DataType::Interval,
                })
            }
            Some(v) => v.to_string(),
            None => {
                // INTERVAL (expr) DAY: multiply a unit interval.
                let unit = iv
                    .leading_field
                    .as_ref()
                    .map(|f| f.to_string())
                    .unwrap_or_else(|| "second".into());
                let one = cast_scalar(
                    &ScalarValue::Varchar(format!("1 {unit}")),
                    &DataType::Interval,
                    false,
                )?;
                return call("*", vec![Expr::literal(one), value]);
            }
        };
        let text = match &iv.leading_field {
            Some(f) => format!("{text} {f}"),
            None => text,
        };
        Ok(Expr::literal(cast_scalar(
            &ScalarValue::Varchar(text),
            &DataType::Interval,
            false,
        )?))
    }

    /// `$n`: the n-th bound value, as a literal (text values cast like string literals).
    fn parameter(&self, p: &str) -> Result<Expr> {
        let n: usize = p
            .strip_prefix('$')
            .and_then(|d| d.parse().ok())
            .filter(|&n| n >= 1)
            .ok_or_else(|| {
                Error::binder(format!("parameter {p} is not supported; use $1, $2, ..."))
            })?;
        let v = self.params.get(n - 1).ok_or_else(|| {
            Error::binder(format!(
                "parameter {p} has no value bound ({} given)",
                self.params.len()
            ))
        })?;
        Ok(Expr::literal(v.clone()))
    }

    /// Binds a subquery of an expression with `ctx`'s scope as its innermost outer
    /// scope. An aggregate inside it whose arguments read only this query's columns
    /// (`(SELECT sum(s1.i) FROM s2)`) belongs to this query, as in the SQL standard
    /// and PostgreSQL: it joins `ctx`'s aggregates (an error where the clause takes
    /// none) and the subquery reads its value as an outer reference.
    pub fn bind_subquery(
        &mut self,
        q: &ast::Query,
        ctx: &mut ExprCtx,
    ) -> Result<(crate::plan::LogicalPlan, bool)> {
        let (mut plan, correlated, mine) = self.bind_subquery_in(q, ctx.scope)?;
        if mine.is_empty() {
            return Ok((plan, correlated));
        }
        let Some(aggregates) = ctx.aggregates.as_deref_mut() else {
            return Err(Error::binder(format!(
                "aggregate function {} is not allowed in {}",
                mine[0].func.name(),
                ctx.clause
            )));
        };
        let at: Vec<usize> = mine
            .into_iter()
            .map(|a| super::index_in(aggregates, a))
            .collect();
        crate::plan::visit::rewrite_exprs_by_level(&mut plan, 1, &mut |x, level| match x {
            Expr::OuterAggregateRef { depth, index, .. } if *depth == level => {
                *index = at[*index];
                true
            }
            _ => false,
        });
        Ok((plan, true))
    }

    /// Binds a subquery with `scope` as its innermost outer scope; also returns the
    /// aggregates inside it that belong to the query of `scope`.
    pub fn bind_subquery_in(
        &mut self,
        q: &ast::Query,
        scope: &Scope,
    ) -> Result<(crate::plan::LogicalPlan, bool, Vec<AggregateExpr>)> {
        self.outer_scopes.push(scope.clone());
        self.outer_aggregates.push(Vec::new());
        let result = self.bind_query(q);
        let mine = self.outer_aggregates.pop().unwrap_or_default();
        self.outer_scopes.pop();
        let plan = result?;
        let correlated =
            crate::plan::visit::references_outer(&plan, 1) || self.references_any_outer(&plan);
        Ok((plan, correlated, mine))
    }

    fn references_any_outer(&self, plan: &crate::plan::LogicalPlan) -> bool {
        (2..=self.outer_scopes.len() + 1).any(|l| crate::plan::visit::references_outer(plan, l))
    }
}

/// The reg type both operands are cast to (`x::regtype = 'int4'::regtype`), if they are.
fn same_reg_casts(l: &ast::Expr, r: &ast::Expr) -> Option<super::system::RegType> {
    let reg = |e: &ast::Expr| match e {
        ast::Expr::Cast { data_type, .. } => reg_type(data_type),
        ast::Expr::Nested(inner) => match &**inner {
            ast::Expr::Cast { data_type, .. } => reg_type(data_type),
            _ => None,
        },
        _ => None,
    };
    match (reg(l)?, reg(r)?) {
        (a, b) if a == b => Some(a),
        _ => None,
    }
}

/// The `reg*` / `oid` type a cast names, if any.
fn reg_type(t: &ast::DataType) -> Option<super::system::RegType> {
    match t {
        ast::DataType::Regclass => Some(super::system::RegType::Class),
        ast::DataType::Custom(name, args) if args.is_empty() => {
            super::system::RegType::from_name(&super::name_parts(name).join("."))
        }
        _ => None,
    }
}

pub(super) fn negate_literal(v: ScalarValue) -> Result<ScalarValue> {
    Ok(match v {
        ScalarValue::Integer(i) => ScalarValue::Integer(-i),
        ScalarValue::BigInt(2_147_483_648) => ScalarValue::Integer(i32::MIN),
        ScalarValue::BigInt(i) => ScalarValue::BigInt(-i),
        ScalarValue::HugeInt(9_223_372_036_854_775_808) => ScalarValue::BigInt(i64::MIN),
        ScalarValue::HugeInt(v) => ScalarValue::HugeInt(-v),
        // 2^127, above HUGEINT's largest, negated is its smallest; larger ones have no
        // integer type (DOUBLE, as an integer literal past UHUGEINT is)
        ScalarValue::UHugeInt(v) if v == 1u128 << 127 => ScalarValue::HugeInt(i128::MIN),
        ScalarValue::UHugeInt(v) => ScalarValue::Double(-(v as f64)),
        ScalarValue::Decimal(v, p, s) => ScalarValue::Decimal(-v, p, s),
        ScalarValue::Double(d) => ScalarValue::Double(-d),
        other => return Err(Error::internal(format!("cannot negate literal {other:?}"))),
    })
}

pub fn value_literal(v: &ast::Value) -> Result<ScalarValue> {
    use ast::Value as V;
    Ok(match v {
        V::Number(n, _) => number_literal(n)?,
        V::SingleQuotedString(s)
        | V::EscapedStringLiteral(s)
        | V::DoubleQuotedString(s)
        | V::NationalStringLiteral(s)
        | V::TripleSingleQuotedString(s)
        | V::TripleDoubleQuotedString(s)
        | V::UnicodeStringLiteral(s) => ScalarValue::Varchar(s.clone()),
        V::DollarQuotedString(d) => ScalarValue::Varchar(d.value.clone()),
        V::Boolean(b) => ScalarValue::Boolean(*b),
        V::Null => ScalarValue::Null,
        // X'DEADBEEF': a BLOB of the bytes the hexadecimal digits spell
        V::HexStringLiteral(h) => {
            if h.len() % 2 != 0 {
                return Err(Error::parse(
                    "Hex string literal must have an even number of hex digits",
                ));
            }
            let digit = |c: u8| {
                stride_common::blob::hex_digit(c).ok_or_else(|| {
                    Error::parse(format!(
                        "Hex string literal contains a non-hexadecimal character '{}'",
                        c as char
                    ))
                })
            };
            let b = h.as_bytes();
            ScalarValue::Blob(
                b.chunks(2)
                    .map(|p| Ok(digit(p[0])? << 4 | digit(p[1])?))
                    .collect::<Result<Vec<u8>>>()?,
            )
        }
        V::Placeholder(p) => {
            return Err(Error::binder(format!("parameter {p} has no value bound")))
        }
        other => {
            return Err(Error::not_supported(format!(
                "literal {other} is not supported"
            )))
        }
    })
}

fn single_column_type(plan: &crate::plan::LogicalPlan, what: &str) -> Result<DataType> {
    let s = plan.schema();
    if s.len() != 1 {
        return Err(Error::binder(format!(
            "{what} subquery must return exactly one column, not {}",
            s.len()
        )));
    }
    Ok(s[0].ty.clone())
}

/// Wraps a one-column plan in a projection casting its column to `ty`.
fn cast_plan_column(
    plan: crate::plan::LogicalPlan,
    ty: &DataType,
) -> Result<crate::plan::LogicalPlan> {
    let f = &plan.schema()[0];
    if f.ty == *ty {
        return Ok(plan);
    }
    let mut field = f.clone();
    field.ty = ty.clone();
    let e = cast_expr(Expr::column(0, f.ty.clone(), f.name.clone()), ty)?;
    Ok(crate::plan::LogicalPlan::Project {
        input: Box::new(plan),
        exprs: vec![e],
        schema: vec![field],
    })
}

/// `x -> body` parsed as a lambda of one untyped parameter, read as the JSON
/// operator `x -> path`, with the path the parser's infix `->` reads
/// (`parse_arrow_path`): the body's leftmost operand and what `||` or operators
/// binding tighter than `||` join to it. The lambda's body swallowed what followed
/// the path (`j -> '$.a' = '1'` has the body `'$.a' = '1'`), so the arrow is pushed
/// down the body's left operands to where the path starts.
fn json_arrow(l: &ast::LambdaFunction) -> Option<ast::Expr> {
    let ast::OneOrManyWithParens::One(p) = &l.params else {
        return None;
    };
    if p.data_type.is_some() {
        return None;
    }
    /// Whether `op` joins its right operand to a path (see above).
    fn joins_path(op: &ast::BinaryOperator) -> bool {
        use ast::BinaryOperator as B;
        matches!(
            op,
            B::StringConcat
                | B::Plus
                | B::Minus
                | B::Multiply
                | B::Divide
                | B::Modulo
                | B::DuckIntegerDivide
                | B::MyIntegerDivide
                | B::BitwiseOr
                | B::BitwiseAnd
                | B::BitwiseXor
                | B::PGBitwiseShiftLeft
                | B::PGBitwiseShiftRight
                | B::PGExp
        )
    }
    /// Whether `e` is a path: no operator on its left edge ends one.
    fn is_path(e: &ast::Expr) -> bool {
        match e {
            ast::Expr::BinaryOp { left, op, .. } => joins_path(op) && is_path(left),
            ast::Expr::IsNull(_) | ast::Expr::IsNotNull(_) => false,
            _ => true,
        }
    }
    fn rotate(param: ast::Expr, body: &ast::Expr) -> ast::Expr {
        match body {
            ast::Expr::BinaryOp { left, op, right } if !is_path(body) => ast::Expr::BinaryOp {
                left: Box::new(rotate(param, left)),
                op: op.clone(),
                right: right.clone(),
            },
            ast::Expr::IsNull(x) => ast::Expr::IsNull(Box::new(rotate(param, x))),
            ast::Expr::IsNotNull(x) => ast::Expr::IsNotNull(Box::new(rotate(param, x))),
            path => ast::Expr::BinaryOp {
                left: Box::new(param),
                op: ast::BinaryOperator::Arrow,
                right: Box::new(path.clone()),
            },
        }
    }
    Some(rotate(ast::Expr::Identifier(p.name.clone()), &l.body))
}
