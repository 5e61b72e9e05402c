//! Constant folding: evaluates an expression whose leaves are all literals, using the
//! same kernels as execution. The binder uses it for literal casts (so `DATE
//! '1995-01-01'` becomes a DATE literal), LIMIT/OFFSET, table-function arguments,
//! DEFAULT values and SET values.

use crate::plan::Expr;
use stride_common::{Result, ScalarValue, Vector};
use stride_functions::{cast_scalar, evaluate_scalar};

/// The value of a constant expression; `None` when it depends on input rows.
pub fn fold_constant(e: &Expr) -> Result<Option<ScalarValue>> {
    Ok(match e {
        Expr::Literal { value, .. } => Some(value.clone()),
        Expr::Cast { expr, to, try_cast } => match fold_constant(expr)? {
            Some(v) => Some(cast_scalar(&v, to, *try_cast)?),
            None => None,
        },
        Expr::Function { func, .. } if stride_functions::is_volatile(func.func) => None,
        Expr::Function { func, args } => {
            let mut vectors = Vec::with_capacity(args.len());
            for (a, t) in args.iter().zip(&func.arg_types) {
                match fold_constant(a)? {
                    Some(v) => vectors.push(Vector::constant(&v, t)?),
                    None => return Ok(None),
                }
            }
            Some(evaluate_scalar(func, &vectors, 1)?.get(0))
        }
        _ => None,
    })
}
