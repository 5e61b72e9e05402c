//! Binding LATERAL: `FROM t, LATERAL (SELECT … t.k …) s`, `t CROSS JOIN LATERAL (…)`,
//! `t JOIN LATERAL (…) ON …` and `t LEFT JOIN LATERAL (…) ON …`, and table functions
//! over the items before them (`FROM t, unnest(t.list)`), lateral without the keyword. The subquery is bound
//! with the FROM items before it as its outer scope, so it reads their columns as
//! outer references of level 1, and becomes the right side of a
//! `LogicalPlan::LateralJoin`; the `decorrelate` pass later turns most of these into
//! plain joins. A LATERAL subquery that reads nothing before it is a plain join. As
//! in PostgreSQL, only INNER and LEFT joins may be LATERAL.

use super::expr::{bool_expr, ident_name, ExprCtx};
use super::from::{apply_alias, rename};
use super::scope::Scope;
use super::Binder;
use crate::plan::expr::next_subquery_id;
use crate::plan::visit::{
    for_each_outer_ref, max_outer_depth, outer_refs_one_level_closer, references_outer,
};
use crate::plan::{Expr, JoinKind, LogicalPlan, Subquery, SubqueryKind};
use sqlparser::ast;
use stride_common::{Error, Result, ScalarValue};

/// Whether a FROM item may read the items before it: a LATERAL subquery, or a table
/// function (`unnest(t.list)`, `range(t.n)`), which is lateral without the keyword as
/// in DuckDB and PostgreSQL.
pub(super) fn is_lateral(tf: &ast::TableFactor) -> bool {
    matches!(
        tf,
        ast::TableFactor::Derived { lateral: true, .. }
            | ast::TableFactor::Table { args: Some(_), .. }
            | ast::TableFactor::Function { .. }
    )
}

impl Binder<'_> {
    /// `left` joined by `op` with the LATERAL subquery `tf`.
    pub(super) fn bind_lateral(
        &mut self,
        left: (LogicalPlan, Scope),
        tf: &ast::TableFactor,
        op: &ast::JoinOperator,
    ) -> Result<(LogicalPlan, Scope)> {
        use ast::JoinOperator as J;
        let (kind, constraint) = match op {
            J::Join(c) | J::Inner(c) | J::CrossJoin(c) => (JoinKind::Inner, c),
            J::Left(c) | J::LeftOuter(c) => (JoinKind::Left, c),
            _ => {
                return Err(Error::binder(
                    "the join with a LATERAL subquery must be INNER or LEFT (a RIGHT, FULL, SEMI or ANTI join cannot read the rows before it)",
                ))
            }
        };
        let (mut plan, right_scope) = match tf {
            ast::TableFactor::Derived {
                subquery, alias, ..
            } => {
                let (plan, _, aggregates) = self.bind_subquery_in(subquery, &left.1)?;
                if let Some(a) = aggregates.first() {
                    return Err(Error::binder(format!(
                        "aggregate function {} is not allowed in FROM",
                        a.func.name()
                    )));
                }
                let fields = super::unqualified(plan.schema());
                let qual = alias
                    .as_ref()
                    .map_or(String::new(), |a| ident_name(&a.name));
                apply_alias(rename(plan, fields), &qual, alias.as_ref())?
            }
            _ => {
                self.outer_scopes.push(left.1.clone());
                self.outer_aggregates.push(Vec::new());
                let bound = self.bind_table_factor(tf);
                self.outer_aggregates.pop();
                self.outer_scopes.pop();
                bound?
            }
        };
        if !references_outer(&plan, 1) {
            // Reads nothing to its left: references further out move one level closer.
            outer_refs_one_level_closer(&mut plan);
            return self.bind_join(left, (plan, right_scope), op);
        }
        let (lplan, lscope) = left;
        let nleft = lscope.fields.len();
        let mut fields = lscope.fields.clone();
        fields.extend(right_scope.fields.iter().cloned());
        let mut scope = Scope::new(fields.clone());
        scope.visibility[..nleft].copy_from_slice(&lscope.visibility);
        scope.visibility[nleft..].copy_from_slice(&right_scope.visibility);
        let condition = match constraint {
            ast::JoinConstraint::On(e) => {
                let mut ctx = ExprCtx::new(&scope, "JOIN condition");
                Some(bool_expr(self.bind_expr(e, &mut ctx)?, "JOIN condition")?)
            }
            ast::JoinConstraint::None => {
                if kind == JoinKind::Left {
                    return Err(Error::binder("LEFT JOIN LATERAL needs an ON condition, as in ON true"));
                }
                None
            }
            ast::JoinConstraint::Using(_) | ast::JoinConstraint::Natural => {
                return Err(Error::not_supported(
                    "USING and NATURAL with a LATERAL subquery are not supported; write the condition with ON",
                ))
            }
        };
        // A LEFT join's condition decides which of the subquery's rows a left row
        // keeps, so it moves into the subquery; an inner join's filters the pairs.
        let condition = condition.filter(|c| *c != Expr::literal(ScalarValue::Boolean(true)));
        let (plan, above) = match (kind, condition) {
            (JoinKind::Left, Some(c)) => (
                LogicalPlan::Filter {
                    input: Box::new(plan),
                    predicate: into_subquery(c, nleft),
                },
                None,
            ),
            (_, c) => (plan, c),
        };
        let joined = LogicalPlan::LateralJoin {
            left: Box::new(lplan),
            right: Box::new(Expr::Subquery(Box::new(Subquery {
                id: next_subquery_id(),
                plan,
                kind: SubqueryKind::Table,
                correlated: true,
            }))),
            kind,
            schema: fields,
        };
        Ok((
            LogicalPlan::filtered(joined, above.into_iter().collect()),
            scope,
        ))
    }
}

/// `e`, bound over the left columns and then the subquery's, as seen from inside
/// the subquery: left columns become outer references, the subquery's own columns
/// move to its positions, and references further out move one level out.
fn into_subquery(e: Expr, nleft: usize) -> Expr {
    match e {
        Expr::Column { index, ty, name } if index < nleft => Expr::OuterColumn {
            depth: 1,
            index,
            ty,
            name,
        },
        Expr::Column { index, ty, name } => Expr::Column {
            index: index - nleft,
            ty,
            name,
        },
        Expr::OuterColumn {
            depth,
            index,
            ty,
            name,
        } => Expr::OuterColumn {
            depth: depth + 1,
            index,
            ty,
            name,
        },
        Expr::Subquery(mut s) => {
            // For a nested subquery the subquery's own columns stay one level out and
            // the left columns and everything further out move one more level out.
            // Outermost first, so no reference moves twice.
            for level in (1..=max_outer_depth(&s.plan)).rev() {
                for_each_outer_ref(&mut s.plan, level, &mut |x| {
                    if let Expr::OuterColumn { depth, index, .. } = x {
                        if level == 1 && *index >= nleft {
                            *index -= nleft;
                        } else {
                            *depth += 1;
                        }
                    }
                });
            }
            if let SubqueryKind::In { expr, .. } | SubqueryKind::Quantified { expr, .. } =
                &mut s.kind
            {
                let inner = std::mem::replace(&mut **expr, Expr::literal(ScalarValue::Null));
                **expr = into_subquery(inner, nleft);
            }
            Expr::Subquery(s)
        }
        mut e => {
            for c in e.children_mut() {
                let child = std::mem::replace(c, Expr::literal(ScalarValue::Null));
                *c = into_subquery(child, nleft);
            }
            e
        }
    }
}
