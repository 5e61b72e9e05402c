//! Logical plans and bound expressions: the binder's output and the optimizer's input.

pub mod aggregate_split;
pub mod explain;
pub mod expr;
pub mod logical;
pub mod visit;

pub use expr::{Expr, LambdaKind, ListSet, Subquery, SubqueryKind};
pub use logical::{
    aggregate_schema, AggregateExpr, ColumnarSource, CsvSource, DeferredFunction, Field,
    FrameBound, FrameExclude, FrameUnits, JoinKind, LogicalPlan, RegisteredData,
    RegisteredRelation, RegisteredRows, SetFunction, SetOpKind, SortExpr, TableFunction,
    WindowExpr, WindowFrame, WindowFunction,
};
