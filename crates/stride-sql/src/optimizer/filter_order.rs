//! Pass `filter_order`: the conditions of a filter are evaluated cheapest first, each
//! on the rows the earlier ones kept. TPC-H Q12 filters lineitem by
//! `l_shipmode IN ('MAIL', 'SHIP')` (string comparisons) before three date
//! comparisons; with the date range first, the IN list sees a seventh of the rows.
//!
//! Only conditions that cannot fail move, and only to the front: comparisons of
//! columns and constants of numbers, dates and strings, IN lists of constants, and
//! IS [NOT] NULL. TPC-H Q16 filters part by a brand, a type pattern and
//! `p_size IN (8 sizes)`: the sizes first leave the strings a sixth of the rows. Every other
//! condition keeps its place relative to the others, so a guard such as `x <> 0`
//! written before `y / x > 1` still runs first (it is one of those that move).

use crate::plan::visit::children_mut;
use crate::plan::{Expr, LogicalPlan};
use stride_common::{DataType, Result, ScalarValue};
use stride_functions::scalar::ScalarFunction;

pub fn optimize(mut plan: LogicalPlan) -> Result<LogicalPlan> {
    for c in children_mut(&mut plan) {
        let child = std::mem::replace(c, super::placeholder());
        *c = optimize(child)?;
    }
    if let LogicalPlan::Filter { predicate, .. } = &mut plan {
        let always = || Expr::literal(ScalarValue::Boolean(true));
        let mut terms = Vec::new();
        std::mem::replace(predicate, always()).split_conjunction(&mut terms);
        // A stable sort: equal costs keep their written order.
        terms.sort_by_key(cost);
        *predicate = Expr::conjunction(terms).unwrap_or_else(always);
    }
    Ok(plan)
}

/// Rank of a condition: 0 an equality of a fixed-width value with a constant, 1 a
/// range on one or an IN list of constants, 2 a comparison of two fixed-width values,
/// 3 a comparison or IN list over strings, 4 anything else (which keeps its order).
fn cost(e: &Expr) -> u8 {
    let fixed = |e: &Expr| !(e.data_type() == DataType::Varchar || e.data_type().is_nested());
    match e {
        Expr::IsNull { expr, .. } if plain(expr) => 0,
        Expr::InList { expr, list, .. }
            if plain(expr) && list.iter().all(|x| matches!(x, Expr::Literal { .. })) =>
        {
            if fixed(expr) {
                1
            } else {
                3
            }
        }
        Expr::Function { func, args } if is_comparison(func.func) && args.len() == 2 => {
            let (a, b) = (&args[0], &args[1]);
            if !plain(a) || !plain(b) {
                return 4;
            }
            let constant = matches!(a, Expr::Literal { .. }) || matches!(b, Expr::Literal { .. });
            match (fixed(a), constant) {
                (true, true) if func.func == ScalarFunction::Eq => 0,
                (true, true) => 1,
                (true, false) => 2,
                (false, _) => 3,
            }
        }
        _ => 4,
    }
}

fn is_comparison(f: ScalarFunction) -> bool {
    use ScalarFunction::*;
    matches!(f, Eq | NotEq | Lt | LtEq | Gt | GtEq)
}

/// A column, a constant, or a cast of one that cannot fail (to DOUBLE, or a DATE to
/// TIMESTAMP): evaluating it never raises an error.
fn plain(e: &Expr) -> bool {
    match e {
        Expr::Column { .. } | Expr::Literal { .. } => true,
        Expr::Cast {
            expr,
            to,
            try_cast: _,
        } => {
            let from = expr.data_type();
            let safe = matches!(to, DataType::Double) && from.is_numeric()
                || matches!((&from, to), (DataType::Date, DataType::Timestamp))
                || matches!(
                    (&from, to),
                    (DataType::Decimal(p1, s1), DataType::Decimal(p2, s2)) if s1 == s2 && p1 <= p2
                );
            safe && plain(expr)
        }
        _ => false,
    }
}
