//! Small helpers for writing resolvers: matching argument types against a fixed
//! parameter list through implicit casts, and building the [`BoundFunction`].

use super::{BoundFunction, ScalarFunction};
use stride_common::DataType;

/// Binds `func` with the given argument and return types.
pub(crate) fn bind(
    func: ScalarFunction,
    arg_types: Vec<DataType>,
    ret: DataType,
) -> Option<BoundFunction> {
    Some(BoundFunction::new(func, arg_types, ret))
}

/// Binds when every argument casts implicitly to its parameter.
pub(crate) fn fixed(
    func: ScalarFunction,
    args: &[DataType],
    params: &[DataType],
    ret: DataType,
) -> Option<BoundFunction> {
    if args.len() != params.len() || !args.iter().zip(params).all(|(a, p)| castable(a, p)) {
        return None;
    }
    bind(func, params.to_vec(), ret)
}

/// Whether an argument of type `arg` may be passed for a parameter of type `param`.
pub(crate) fn castable(arg: &DataType, param: &DataType) -> bool {
    arg.can_implicitly_cast_to(param)
}

/// Whether the type is an integer (or an untyped NULL, or text that may hold one):
/// what an integer parameter such as a length or position accepts.
pub(crate) fn is_integer_arg(t: &DataType) -> bool {
    castable(t, &DataType::BigInt)
}
