//! Scalar functions and casts of stride: the per-row computations of a query.
//!
//! Where this crate sits in a query's life: the binder (stride-sql) meets a function
//! call or operator and asks [`resolve_scalar`] for a [`BoundFunction`], which names
//! the kernel, the type each argument must be cast to, and the result type; it then
//! wraps arguments in casts that the executor runs with [`cast_vector`] (and the
//! optimizer folds with [`cast_scalar`]). The executor (stride-exec) evaluates the
//! bound expression one chunk at a time through [`evaluate_scalar`], handing over
//! flat or constant [`stride_common::Vector`]s already of the bound argument types.
//! Nothing here knows about plans, catalogs or threads: every entry point is a pure
//! function of its inputs.
//!
//! Layout: [`kernels`] holds the generic vectorized loops (null propagation, constant
//! vectors, error reporting for valid rows only); [`cast`] converts between types;
//! [`scalar`] is the function catalogue, one file per function or function family;
//! [`aggregate`] holds the aggregate functions and their per-group states.

pub mod aggregate;
pub mod cast;
pub mod kernels;
mod list_memory;
pub mod pg_types;
pub mod reference;
pub mod scalar;
pub mod timezone;

pub use cast::{cast_scalar, cast_typed_scalar, cast_vector};
pub use scalar::{
    comparison_masks, evaluate_scalar, mask_rows, resolve_quantified, resolve_scalar,
    select_comparison, BoundFunction, ScalarFunction,
};
