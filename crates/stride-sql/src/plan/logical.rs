//! Logical plans: the relational algebra the binder produces and the optimizer
//! rewrites. Each node knows its output [`Field`]s; expressions inside a node refer to
//! columns of its input by position (for a join: left columns, then right columns).

use super::expr::Expr;
use std::sync::Arc;
use stride_common::{Collation, ColumnSchema, DataType, TableSchema};
use stride_functions::aggregate::AggregateFunction;
use stride_io::columnar::ColumnarReader;
use stride_io::csv::CsvReader;

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub ty: DataType,
    /// The table (or alias) the column came from, for `t.col` references.
    pub qualifier: Option<String>,
    /// How the column's strings compare where the query compares them (declared on
    /// a table column, or asked for with `COLLATE`); byte order by default.
    pub collation: Collation,
}

impl Field {
    pub fn new(name: impl Into<String>, ty: DataType) -> Self {
        Field {
            name: name.into(),
            ty,
            qualifier: None,
            collation: Collation::BINARY,
        }
    }

    /// The field of a table column, with the column's collation.
    pub fn of_column(c: &ColumnSchema) -> Self {
        Field::new(c.name.clone(), c.ty.clone()).with_collation(c.collation)
    }

    pub fn with_collation(mut self, collation: Collation) -> Self {
        self.collation = collation;
        self
    }

    pub fn with_qualifier(mut self, qualifier: Option<String>) -> Self {
        self.qualifier = qualifier;
        self
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct SortExpr {
    pub expr: Expr,
    pub asc: bool,
    pub nulls_first: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AggregateExpr {
    pub func: AggregateFunction,
    pub args: Vec<Expr>,
    pub distinct: bool,
    pub filter: Option<Expr>,
    pub order_by: Vec<SortExpr>,
    pub ty: DataType,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    Left,
    Right,
    Full,
    /// Left rows with at least one match (EXISTS / IN).
    Semi,
    /// Left rows with no match (NOT EXISTS).
    Anti,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetOpKind {
    Union,
    Intersect,
    Except,
}

/// Table-producing functions in FROM.
#[derive(Debug, Clone, PartialEq)]
pub enum TableFunction {
    /// `range(start, stop, step)` (stop exclusive) and `generate_series` (inclusive).
    Range {
        start: i64,
        stop: i64,
        step: i64,
        inclusive: bool,
    },
    /// `read_csv(...)`: `columns` are positions in the reader's schema.
    ReadCsv {
        source: CsvSource,
        columns: Vec<usize>,
    },
    /// `read_parquet(...)`, `read_arrow(...)`: `columns` are positions in the
    /// reader's schema.
    ReadColumnar {
        source: ColumnarSource,
        columns: Vec<usize>,
    },
    /// A relation registered on the connection (a DataFrame from Python): its rows,
    /// computed already. `columns` are positions in its schema.
    Registered {
        data: RegisteredData,
        columns: Vec<usize>,
    },
    /// A table function whose arguments are expressions over an enclosing query's
    /// columns (`unnest(t.list)`, `generate_series(1, t.n)` inside a correlated
    /// subquery): the executor substitutes the outer values when it instantiates the
    /// subquery, and the physical planner evaluates the then-constant arguments.
    Deferred {
        func: DeferredFunction,
        args: Vec<Expr>,
    },
}

impl TableFunction {
    /// The columns read (positions in the source's schema), for the functions that
    /// read a source's columns by position (files, registered data), which can read
    /// fewer; `None` for the others.
    pub fn source_columns_mut(&mut self) -> Option<&mut Vec<usize>> {
        match self {
            TableFunction::ReadCsv { columns, .. }
            | TableFunction::ReadColumnar { columns, .. }
            | TableFunction::Registered { columns, .. } => Some(columns),
            TableFunction::Range { .. } | TableFunction::Deferred { .. } => None,
        }
    }

    /// Whether the function reads a source's columns (see `source_columns_mut`).
    pub fn reads_source(&self) -> bool {
        matches!(
            self,
            TableFunction::ReadCsv { .. }
                | TableFunction::ReadColumnar { .. }
                | TableFunction::Registered { .. }
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeferredFunction {
    /// `unnest(list)`: one row per element.
    Unnest,
    /// `range` / `generate_series` (`inclusive`) with 1 to 3 integer arguments.
    Series { inclusive: bool },
    /// `json_each` / `json_tree` (`tree`) of a document and an optional path.
    JsonEach { tree: bool },
}

/// A bound CSV reader; plans compare readers by identity.
#[derive(Clone)]
pub struct CsvSource(pub Arc<CsvReader>);

impl PartialEq for CsvSource {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for CsvSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CsvSource({:?})",
            self.0.files.iter().map(|f| &f.path).collect::<Vec<_>>()
        )
    }
}

/// Rows registered under a name on a connection (`Connection::register`): data
/// from outside, such as a DataFrame, queried like a table. Cloning shares the
/// chunks' buffers.
#[derive(Clone)]
pub struct RegisteredRelation {
    pub names: Vec<String>,
    pub types: Vec<DataType>,
    pub rows: RegisteredRows,
}

/// Where a registered relation's rows come from.
#[derive(Clone)]
pub enum RegisteredRows {
    /// Read already (a DataFrame's columns, shared in place).
    Chunks(Vec<stride_common::DataChunk>),
    /// Read when a query runs, only the columns and rows it needs (a pyarrow
    /// Dataset, a polars LazyFrame).
    External(Arc<dyn stride_io::external::ExternalSource>),
}

impl RegisteredRelation {
    /// Its rows, where they are known without reading them.
    pub fn known_rows(&self) -> Option<usize> {
        match &self.rows {
            RegisteredRows::Chunks(chunks) => Some(chunks.iter().map(|c| c.len()).sum()),
            RegisteredRows::External(source) => source.estimated_rows(),
        }
    }

    /// Its rows for the optimizer: known, or a guess of a million for a source that
    /// cannot tell without reading (a polars LazyFrame).
    pub fn estimated_rows(&self) -> f64 {
        self.known_rows().map_or(1e6, |n| n as f64)
    }
}

/// A registered relation in a plan; plans compare them by identity.
#[derive(Clone)]
pub struct RegisteredData(pub Arc<RegisteredRelation>);

impl PartialEq for RegisteredData {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for RegisteredData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RegisteredData({:?})", self.0.names)
    }
}

/// Bound Parquet or Arrow files; plans compare readers by identity.
#[derive(Clone)]
pub struct ColumnarSource(pub Arc<dyn ColumnarReader>);

impl PartialEq for ColumnarSource {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for ColumnarSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ColumnarSource({:?})", self.0.paths())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum LogicalPlan {
    /// Reads `columns` (positions in the table) of a stored table.
    Scan {
        table: Arc<TableSchema>,
        table_id: u64,
        columns: Vec<usize>,
        schema: Vec<Field>,
        /// Rows in the table when the query was bound (an estimate for the optimizer).
        rows: usize,
    },
    /// A common table expression referenced more than once in a query: computed
    /// once, its rows read by every reference. All references hold the same `body`
    /// (one `id`). To the optimizer passes it is a leaf; the `materialize_ctes` pass
    /// optimizes the body on its own, or puts the body in place of a reference that
    /// is the only one.
    CteRef {
        id: u64,
        body: Arc<LogicalPlan>,
        schema: Vec<Field>,
        /// Set by the pass once it decided to share the body (and optimized it): a
        /// subquery plan optimized again later keeps the reference.
        shared: bool,
    },
    /// Constant rows; expressions have no input.
    Values {
        rows: Vec<Vec<Expr>>,
        schema: Vec<Field>,
    },
    TableFunction {
        func: TableFunction,
        schema: Vec<Field>,
    },
    Filter {
        input: Box<LogicalPlan>,
        predicate: Expr,
    },
    Project {
        input: Box<LogicalPlan>,
        exprs: Vec<Expr>,
        schema: Vec<Field>,
    },
    /// Output: the group expressions, then the aggregates.
    Aggregate {
        input: Box<LogicalPlan>,
        group_by: Vec<Expr>,
        aggregates: Vec<AggregateExpr>,
        schema: Vec<Field>,
    },
    Sort {
        input: Box<LogicalPlan>,
        keys: Vec<SortExpr>,
    },
    Limit {
        input: Box<LogicalPlan>,
        limit: Option<u64>,
        offset: u64,
    },
    /// `on` pairs are equi-join keys (left expr over left input, right expr over right
    /// input); `filter` is any further condition over the concatenated row.
    Join {
        left: Box<LogicalPlan>,
        right: Box<LogicalPlan>,
        kind: JoinKind,
        on: Vec<(Expr, Expr)>,
        filter: Option<Expr>,
        schema: Vec<Field>,
    },
    SetOp {
        left: Box<LogicalPlan>,
        right: Box<LogicalPlan>,
        kind: SetOpKind,
        all: bool,
        schema: Vec<Field>,
    },
    /// Set-returning functions of a select list (`SELECT a, unnest(l) FROM t`): each
    /// input row repeats once per element of its longest list, followed by one column
    /// per list holding the elements side by side (NULL where a list is shorter). A row
    /// whose lists are all empty or NULL yields nothing. Output: the input's columns
    /// named by `passed`, then one per list.
    Unnest {
        input: Box<LogicalPlan>,
        /// Input columns repeated into the output (those something above reads).
        passed: Vec<usize>,
        lists: Vec<SetFunction>,
        schema: Vec<Field>,
    },
    /// `left, LATERAL (subquery)` and `left [LEFT] JOIN LATERAL (subquery) ON …`: the
    /// subquery (`right`, an [`Expr::Subquery`] of kind [`SubqueryKind::Table`](super::expr::SubqueryKind::Table)) reads
    /// the left row's columns as outer references of level 1. Each left row is output
    /// beside each row the subquery gives for it; a LEFT join outputs it beside NULLs
    /// when there are none (an ON condition is then part of the subquery). `kind` is
    /// Inner or Left. The `decorrelate` pass turns most into plain joins; the rest run
    /// the subquery once per distinct set of left values.
    LateralJoin {
        left: Box<LogicalPlan>,
        right: Box<Expr>,
        kind: JoinKind,
        schema: Vec<Field>,
    },
    /// Window functions: every input row with one more column per function, computed
    /// over the row's partition and frame. Output: the input's columns, then one per
    /// function.
    Window {
        input: Box<LogicalPlan>,
        functions: Vec<WindowExpr>,
        schema: Vec<Field>,
    },
    /// WITH RECURSIVE: the rows of `base`, then of `step` run again and again over
    /// the rows the last round added (which `step` reads as `RecursiveRef { id }`),
    /// until a round adds none. Without ALL, rows already produced are dropped.
    RecursiveCte {
        id: u64,
        base: Box<LogicalPlan>,
        step: Box<LogicalPlan>,
        all: bool,
        schema: Vec<Field>,
    },
    /// The rows the last round of recursive CTE `id` added.
    RecursiveRef { id: u64, schema: Vec<Field> },
}

/// A window function call: `func(args) OVER (PARTITION BY ... ORDER BY ... frame)`.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowExpr {
    pub func: WindowFunction,
    pub args: Vec<Expr>,
    pub partition_by: Vec<Expr>,
    pub order_by: Vec<SortExpr>,
    pub frame: WindowFrame,
    /// IGNORE NULLS (lag, lead, first_value, last_value, nth_value).
    pub ignore_nulls: bool,
    /// An aggregate's `FILTER (WHERE …)`: only rows where it is true count.
    pub filter: Option<Expr>,
    /// An aggregate over the distinct argument values of its frame.
    pub distinct: bool,
    pub ty: DataType,
}

impl WindowExpr {
    /// Every expression of the call: arguments, filter, partition and order keys.
    pub fn exprs(&self) -> impl Iterator<Item = &Expr> {
        self.args
            .iter()
            .chain(&self.filter)
            .chain(&self.partition_by)
            .chain(self.order_by.iter().map(|s| &s.expr))
    }

    pub fn exprs_mut(&mut self) -> impl Iterator<Item = &mut Expr> {
        self.args
            .iter_mut()
            .chain(&mut self.filter)
            .chain(&mut self.partition_by)
            .chain(self.order_by.iter_mut().map(|s| &mut s.expr))
    }

    /// `name(args) OVER (PARTITION BY ... ORDER BY ...)`, for EXPLAIN.
    pub fn describe(&self) -> String {
        let list = |v: Vec<String>| v.join(", ");
        let mut over = Vec::new();
        if !self.partition_by.is_empty() {
            over.push(format!(
                "PARTITION BY {}",
                list(self.partition_by.iter().map(|e| e.to_string()).collect())
            ));
        }
        if !self.order_by.is_empty() {
            over.push(format!(
                "ORDER BY {}",
                list(
                    self.order_by
                        .iter()
                        .map(|k| format!("{} {}", k.expr, if k.asc { "ASC" } else { "DESC" }))
                        .collect()
                )
            ));
        }
        format!(
            "{}({}{}){} OVER ({})",
            self.func.name(),
            if self.distinct { "DISTINCT " } else { "" },
            list(self.args.iter().map(|e| e.to_string()).collect()),
            self.filter
                .as_ref()
                .map_or(String::new(), |f| format!(" FILTER (WHERE {f})")),
            over.join(" ")
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WindowFunction {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    Ntile,
    Lag,
    Lead,
    FirstValue,
    LastValue,
    NthValue,
    /// An aggregate over the frame.
    Aggregate(AggregateFunction),
}

impl WindowFunction {
    /// lag, lead, first_value, last_value and nth_value: the result is one of the
    /// argument's values (of another row of the partition).
    pub fn is_value(&self) -> bool {
        matches!(
            self,
            WindowFunction::Lag
                | WindowFunction::Lead
                | WindowFunction::FirstValue
                | WindowFunction::LastValue
                | WindowFunction::NthValue
        )
    }
}

impl WindowFunction {
    pub fn name(self) -> &'static str {
        match self {
            WindowFunction::RowNumber => "row_number",
            WindowFunction::Rank => "rank",
            WindowFunction::DenseRank => "dense_rank",
            WindowFunction::PercentRank => "percent_rank",
            WindowFunction::CumeDist => "cume_dist",
            WindowFunction::Ntile => "ntile",
            WindowFunction::Lag => "lag",
            WindowFunction::Lead => "lead",
            WindowFunction::FirstValue => "first_value",
            WindowFunction::LastValue => "last_value",
            WindowFunction::NthValue => "nth_value",
            WindowFunction::Aggregate(a) => a.name(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameUnits {
    Rows,
    Range,
    Groups,
}

/// One end of a window frame; offsets are non-negative constants (for RANGE, of the
/// ORDER BY key's type or an INTERVAL).
#[derive(Debug, Clone, PartialEq)]
pub enum FrameBound {
    UnboundedPreceding,
    Preceding(stride_common::ScalarValue),
    CurrentRow,
    Following(stride_common::ScalarValue),
    UnboundedFollowing,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WindowFrame {
    pub units: FrameUnits,
    pub start: FrameBound,
    pub end: FrameBound,
    /// Rows of the frame left out around the current row.
    pub exclude: FrameExclude,
}

/// A frame's `EXCLUDE` clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FrameExclude {
    /// `EXCLUDE NO OTHERS`, and no clause: the whole frame.
    #[default]
    NoOthers,
    /// `EXCLUDE CURRENT ROW`.
    CurrentRow,
    /// `EXCLUDE GROUP`: the current row and its peers.
    Group,
    /// `EXCLUDE TIES`: the current row's peers, but not the row itself.
    Ties,
}

impl WindowFrame {
    /// The frame when none is given: with ORDER BY, from the partition's start to the
    /// current row's last peer; without, the whole partition.
    pub fn default_for(ordered: bool) -> WindowFrame {
        WindowFrame {
            units: FrameUnits::Range,
            start: FrameBound::UnboundedPreceding,
            end: if ordered {
                FrameBound::CurrentRow
            } else {
                FrameBound::UnboundedFollowing
            },
            exclude: FrameExclude::NoOthers,
        }
    }
}

/// One set-returning function of a select list, over a list-valued expression.
#[derive(Debug, Clone, PartialEq)]
pub enum SetFunction {
    /// `unnest(list)`: the elements.
    Elements(Expr),
    /// `generate_subscripts(list, 1)`: the positions 1, 2, ... of the elements.
    Subscripts(Expr),
}

impl SetFunction {
    pub fn list(&self) -> &Expr {
        match self {
            SetFunction::Elements(e) | SetFunction::Subscripts(e) => e,
        }
    }

    pub fn list_mut(&mut self) -> &mut Expr {
        match self {
            SetFunction::Elements(e) | SetFunction::Subscripts(e) => e,
        }
    }
}

impl std::fmt::Display for SetFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SetFunction::Elements(e) => write!(f, "unnest({e})"),
            SetFunction::Subscripts(e) => write!(f, "generate_subscripts({e}, 1)"),
        }
    }
}

impl LogicalPlan {
    /// A projection of the first `schema.len()` columns of `input`, named by `schema`.
    pub fn project_leading(input: LogicalPlan, schema: Vec<Field>) -> LogicalPlan {
        let exprs = schema
            .iter()
            .enumerate()
            .map(|(i, f)| Expr::column(i, f.ty.clone(), f.name.clone()))
            .collect();
        LogicalPlan::Project {
            input: Box::new(input),
            exprs,
            schema,
        }
    }

    /// `input` under a filter of the conjunction of `terms` (`input` itself when
    /// there are none).
    pub fn filtered(input: LogicalPlan, terms: Vec<Expr>) -> LogicalPlan {
        match Expr::conjunction(terms) {
            Some(predicate) => LogicalPlan::Filter {
                input: Box::new(input),
                predicate,
            },
            None => input,
        }
    }

    pub fn schema(&self) -> &[Field] {
        match self {
            LogicalPlan::Scan { schema, .. }
            | LogicalPlan::CteRef { schema, .. }
            | LogicalPlan::Values { schema, .. }
            | LogicalPlan::TableFunction { schema, .. }
            | LogicalPlan::Project { schema, .. }
            | LogicalPlan::Aggregate { schema, .. }
            | LogicalPlan::Join { schema, .. }
            | LogicalPlan::SetOp { schema, .. }
            | LogicalPlan::Unnest { schema, .. }
            | LogicalPlan::LateralJoin { schema, .. }
            | LogicalPlan::Window { schema, .. }
            | LogicalPlan::RecursiveCte { schema, .. }
            | LogicalPlan::RecursiveRef { schema, .. } => schema,
            LogicalPlan::Filter { input, .. }
            | LogicalPlan::Sort { input, .. }
            | LogicalPlan::Limit { input, .. } => input.schema(),
        }
    }

    /// Whether the output columns have the types of `schema`'s fields, in order.
    pub fn has_types(&self, schema: &[Field]) -> bool {
        self.schema().len() == schema.len()
            && self.schema().iter().zip(schema).all(|(a, b)| a.ty == b.ty)
    }

    pub fn types(&self) -> Vec<DataType> {
        self.schema().iter().map(|f| f.ty.clone()).collect()
    }

    pub fn children(&self) -> Vec<&LogicalPlan> {
        match self {
            LogicalPlan::Scan { .. }
            | LogicalPlan::CteRef { .. }
            | LogicalPlan::Values { .. }
            | LogicalPlan::TableFunction { .. } => vec![],
            LogicalPlan::Filter { input, .. }
            | LogicalPlan::Project { input, .. }
            | LogicalPlan::Aggregate { input, .. }
            | LogicalPlan::Sort { input, .. }
            | LogicalPlan::Limit { input, .. }
            | LogicalPlan::Unnest { input, .. }
            | LogicalPlan::Window { input, .. } => vec![input],
            // The subquery is an expression of the node, not a child: it runs at the
            // next level, per left row.
            LogicalPlan::LateralJoin { left, .. } => vec![left],
            LogicalPlan::RecursiveCte { base, step, .. } => vec![base, step],
            LogicalPlan::RecursiveRef { .. } => vec![],
            LogicalPlan::Join { left, right, .. } | LogicalPlan::SetOp { left, right, .. } => {
                vec![left, right]
            }
        }
    }
}

/// The output of an aggregate grouping by `groups`: `group0..`, then `agg0..`.
pub fn aggregate_schema(groups: &[Expr], aggregates: &[AggregateExpr]) -> Vec<Field> {
    let mut schema: Vec<Field> = groups
        .iter()
        .enumerate()
        .map(|(i, g)| Field::new(format!("group{i}"), g.data_type()))
        .collect();
    schema.extend(
        aggregates
            .iter()
            .enumerate()
            .map(|(i, a)| Field::new(format!("agg{i}"), a.ty.clone())),
    );
    schema
}
