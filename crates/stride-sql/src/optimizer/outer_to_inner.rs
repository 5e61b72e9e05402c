//! Rule `outer_to_inner` (applied by `filter_pushdown` at each join): a condition
//! above an outer join that no NULL-extended row can satisfy makes the join inner on
//! that side. In `a LEFT JOIN b ON a.k = b.k WHERE b.x > 5`, a row of `a` without a
//! partner has NULL for `b.x` and fails `b.x > 5`, so the join is an inner join and the
//! condition (and what it implies) filters both inputs. `SET disabled_optimizers =
//! 'outer_to_inner'` switches it off.
//!
//! The conditions of an inner join count too for the outer joins right below it: in
//! `(a LEFT JOIN b ON …) JOIN c ON b.x = c.x` no NULL-extended row finds a partner
//! in `c` (TPC-DS Q93).
//!
//! A condition rejects the NULLs of a side when it is a comparison (`=`, `<>`, `<`,
//! `<=`, `>`, `>=`, LIKE and its variants), an IN list or `IS NOT NULL` with an
//! argument that is NULL whenever a column of that side is (the column itself, a cast
//! of it, arithmetic on it); an AND of conditions of which one rejects them; or an OR
//! of conditions that all do.

use crate::plan::{Expr, JoinKind};
use std::ops::Range;
use stride_functions::ScalarFunction;

/// The join kind a join of kind `kind` becomes under the conjuncts `terms`, whose
/// columns `start..start + n` are the join's output and the first `nl` of them come
/// from its left input (`start` is not 0 when the terms are an enclosing inner
/// join's conditions and the join its right input).
pub fn simplify(kind: JoinKind, terms: &[Expr], start: usize, nl: usize, n: usize) -> JoinKind {
    let rejects = |side: Range<usize>| terms.iter().any(|t| rejects_nulls(t, &side));
    let (left, right) = (start..start + nl, start + nl..start + n);
    match kind {
        JoinKind::Left if rejects(right.clone()) => JoinKind::Inner,
        JoinKind::Right if rejects(left.clone()) => JoinKind::Inner,
        JoinKind::Full => match (rejects(left), rejects(right)) {
            (true, true) => JoinKind::Inner,
            (true, false) => JoinKind::Left,
            (false, true) => JoinKind::Right,
            (false, false) => JoinKind::Full,
        },
        kind => kind,
    }
}

/// Whether condition `t` is never TRUE for a row whose columns `side` are all NULL.
fn rejects_nulls(t: &Expr, side: &Range<usize>) -> bool {
    use ScalarFunction::*;
    match t {
        Expr::And(a, b) => rejects_nulls(a, side) || rejects_nulls(b, side),
        Expr::Or(a, b) => rejects_nulls(a, side) && rejects_nulls(b, side),
        Expr::IsNull {
            expr,
            negated: true,
        } => null_with(expr, side),
        Expr::InList { expr, .. } => null_with(expr, side),
        Expr::Function { func, args }
            if matches!(
                func.func,
                Eq | NotEq | Lt | LtEq | Gt | GtEq | Like | NotLike | ILike | NotILike
            ) =>
        {
            args.iter().any(|a| null_with(a, side))
        }
        _ => false,
    }
}

/// Whether `e` is NULL whenever the columns `side` are.
fn null_with(e: &Expr, side: &Range<usize>) -> bool {
    use ScalarFunction::*;
    match e {
        Expr::Column { index, .. } => side.contains(index),
        Expr::Cast { expr, .. } => null_with(expr, side),
        Expr::Function { func, args }
            if matches!(
                func.func,
                Add | Subtract | Multiply | Divide | Modulo | Negate
            ) =>
        {
            args.iter().any(|a| null_with(a, side))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stride_common::{DataType, ScalarValue};

    fn col(i: usize) -> Expr {
        Expr::column(i, DataType::Integer, format!("c{i}"))
    }

    #[test]
    fn only_conditions_that_reject_nulls_convert() {
        let not_null = |e: Expr| Expr::IsNull {
            expr: Box::new(e),
            negated: true,
        };
        let is_null = Expr::IsNull {
            expr: Box::new(col(1)),
            negated: false,
        };
        let coalesce = Expr::Coalesce {
            args: vec![col(1), Expr::literal(ScalarValue::Integer(0))],
            ty: DataType::Integer,
        };
        assert_eq!(
            simplify(JoinKind::Left, &[not_null(col(1))], 0, 1, 2),
            JoinKind::Inner
        );
        assert_eq!(
            simplify(JoinKind::Left, &[not_null(col(0))], 0, 1, 2),
            JoinKind::Left
        );
        assert_eq!(
            simplify(JoinKind::Left, &[is_null], 0, 1, 2),
            JoinKind::Left
        );
        assert_eq!(
            simplify(JoinKind::Left, &[not_null(coalesce)], 0, 1, 2),
            JoinKind::Left
        );
        assert_eq!(
            simplify(JoinKind::Full, &[not_null(col(0))], 0, 1, 2),
            JoinKind::Left
        );
        assert_eq!(
            simplify(JoinKind::Full, &[not_null(col(1))], 0, 1, 2),
            JoinKind::Right
        );
        // The join as the right input of an enclosing join: its columns start at 3.
        assert_eq!(
            simplify(JoinKind::Left, &[not_null(col(4))], 3, 1, 2),
            JoinKind::Inner
        );
        assert_eq!(
            simplify(JoinKind::Left, &[not_null(col(1))], 3, 1, 2),
            JoinKind::Left
        );
        let either = Expr::Or(Box::new(not_null(col(0))), Box::new(not_null(col(1))));
        assert_eq!(simplify(JoinKind::Full, &[either], 0, 1, 2), JoinKind::Full);
        assert_eq!(
            simplify(JoinKind::Semi, &[not_null(col(1))], 0, 1, 2),
            JoinKind::Semi
        );
    }
}
