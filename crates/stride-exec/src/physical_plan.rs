//! Physical plans: the logical plan with algorithms chosen (hash join or nested loop,
//! top-N or full sort) and tables resolved to storage handles. Each node's output
//! columns are given by `types()`.

use std::sync::Arc;
use stride_common::DataType;
use stride_io::columnar::ColumnarReader;
use stride_io::csv::CsvReader;
use stride_io::external::SourceFilter;
use stride_sql::plan::{
    AggregateExpr, Expr, JoinKind, RegisteredRelation, SetFunction, SetOpKind, SortExpr, Subquery,
    WindowExpr,
};
use stride_storage::{Table, ZoneFilter};

#[derive(Clone)]
pub enum PhysicalPlan {
    /// Reads `columns` (positions in the table) of a table's row groups, skipping
    /// those whose zone maps show that no row meets `filters` (conditions of a filter
    /// above the scan, which still runs).
    Scan {
        table: Arc<Table>,
        columns: Vec<usize>,
        types: Vec<DataType>,
        filters: Vec<ZoneFilter>,
    },
    /// Reads `columns` (positions in the reader's schema) of CSV files, keeping the
    /// rows `filter` (over those columns) passes.
    CsvScan {
        reader: Arc<CsvReader>,
        columns: Vec<usize>,
        types: Vec<DataType>,
        filter: Option<Expr>,
    },
    /// Reads `columns` (positions in the reader's schema) of Parquet or Arrow files,
    /// one row group or record batch per morsel, skipping morsels whose statistics
    /// show that no row meets `filters` (conditions of a filter above the scan, which
    /// still runs).
    ColumnarScan {
        reader: Arc<dyn ColumnarReader>,
        columns: Vec<usize>,
        types: Vec<DataType>,
        filters: Vec<ZoneFilter>,
    },
    /// Reads `columns` of a relation registered on the connection; one whose rows
    /// are read when the query runs gets the conditions of a filter above the scan
    /// that it evaluates itself (`filters`; the filter still runs).
    Registered {
        data: Arc<RegisteredRelation>,
        columns: Vec<usize>,
        types: Vec<DataType>,
        filters: Vec<SourceFilter>,
    },
    Range {
        start: i64,
        stop: i64,
        step: i64,
        inclusive: bool,
    },
    Values {
        rows: Vec<Vec<Expr>>,
        types: Vec<DataType>,
    },
    /// The rows of a CTE referenced more than once: `input` runs once per query (the
    /// first reference to run computes it) and every reference reads its rows.
    CteScan {
        id: u64,
        input: Box<PhysicalPlan>,
    },
    Filter {
        input: Box<PhysicalPlan>,
        predicate: Expr,
    },
    Project {
        input: Box<PhysicalPlan>,
        exprs: Vec<Expr>,
        types: Vec<DataType>,
    },
    /// Set-returning functions of a select list (`operators/unnest.rs`).
    Unnest {
        input: Box<PhysicalPlan>,
        passed: Vec<usize>,
        functions: Vec<SetFunction>,
        types: Vec<DataType>,
    },
    /// The LATERAL joins left per row (`operators/lateral_join.rs`): the input's
    /// columns, then the subquery's.
    LateralJoin {
        input: Box<PhysicalPlan>,
        subquery: Subquery,
        kind: JoinKind,
        types: Vec<DataType>,
    },
    HashAggregate {
        input: Box<PhysicalPlan>,
        groups: Vec<Expr>,
        aggregates: Vec<AggregateExpr>,
        types: Vec<DataType>,
    },
    Sort {
        input: Box<PhysicalPlan>,
        keys: Vec<SortExpr>,
    },
    TopN {
        input: Box<PhysicalPlan>,
        keys: Vec<SortExpr>,
        limit: u64,
        offset: u64,
    },
    Limit {
        input: Box<PhysicalPlan>,
        limit: Option<u64>,
        offset: u64,
    },
    /// Builds a hash table on `right`, probes it with `left`.
    HashJoin {
        left: Box<PhysicalPlan>,
        right: Box<PhysicalPlan>,
        kind: JoinKind,
        left_keys: Vec<Expr>,
        right_keys: Vec<Expr>,
        filter: Option<Expr>,
        types: Vec<DataType>,
        /// SEMI / ANTI only: build on `left` (the smaller input) and probe with `right`;
        /// `filter` then reads the right row's columns first.
        build_left: bool,
    },
    NestedLoopJoin {
        left: Box<PhysicalPlan>,
        right: Box<PhysicalPlan>,
        kind: JoinKind,
        filter: Option<Expr>,
        types: Vec<DataType>,
    },
    SetOp {
        left: Box<PhysicalPlan>,
        right: Box<PhysicalPlan>,
        kind: SetOpKind,
        all: bool,
    },
    /// Window functions over the whole input (`operators/window.rs`): the input's
    /// columns, then one per function.
    Window {
        input: Box<PhysicalPlan>,
        functions: Vec<WindowExpr>,
        types: Vec<DataType>,
    },
    /// WITH RECURSIVE (`operators/recursive_cte.rs`): `base`, then `step` round after
    /// round over the last round's rows (`RecursiveScan`), until a round adds none.
    RecursiveCte {
        id: u64,
        base: Box<PhysicalPlan>,
        step: Box<PhysicalPlan>,
        all: bool,
    },
    RecursiveScan {
        id: u64,
        types: Vec<DataType>,
    },
}

impl PhysicalPlan {
    pub fn types(&self) -> Vec<DataType> {
        match self {
            PhysicalPlan::Scan { types, .. }
            | PhysicalPlan::CsvScan { types, .. }
            | PhysicalPlan::ColumnarScan { types, .. }
            | PhysicalPlan::Registered { types, .. }
            | PhysicalPlan::Values { types, .. }
            | PhysicalPlan::Project { types, .. }
            | PhysicalPlan::Unnest { types, .. }
            | PhysicalPlan::LateralJoin { types, .. }
            | PhysicalPlan::HashAggregate { types, .. }
            | PhysicalPlan::HashJoin { types, .. }
            | PhysicalPlan::NestedLoopJoin { types, .. }
            | PhysicalPlan::Window { types, .. }
            | PhysicalPlan::RecursiveScan { types, .. } => types.clone(),
            PhysicalPlan::RecursiveCte { base, .. } => base.types(),
            PhysicalPlan::Range { .. } => vec![DataType::BigInt],
            PhysicalPlan::Filter { input, .. }
            | PhysicalPlan::CteScan { input, .. }
            | PhysicalPlan::Sort { input, .. }
            | PhysicalPlan::TopN { input, .. }
            | PhysicalPlan::Limit { input, .. } => input.types(),
            PhysicalPlan::SetOp { left, .. } => left.types(),
        }
    }

    pub fn children(&self) -> Vec<&PhysicalPlan> {
        match self {
            PhysicalPlan::Scan { .. }
            | PhysicalPlan::CsvScan { .. }
            | PhysicalPlan::ColumnarScan { .. }
            | PhysicalPlan::Registered { .. }
            | PhysicalPlan::Range { .. }
            | PhysicalPlan::Values { .. } => vec![],
            PhysicalPlan::Filter { input, .. }
            | PhysicalPlan::CteScan { input, .. }
            | PhysicalPlan::Project { input, .. }
            | PhysicalPlan::Unnest { input, .. }
            | PhysicalPlan::LateralJoin { input, .. }
            | PhysicalPlan::HashAggregate { input, .. }
            | PhysicalPlan::Sort { input, .. }
            | PhysicalPlan::TopN { input, .. }
            | PhysicalPlan::Limit { input, .. }
            | PhysicalPlan::Window { input, .. } => vec![input],
            PhysicalPlan::RecursiveCte { base, step, .. } => vec![base, step],
            PhysicalPlan::RecursiveScan { .. } => vec![],
            PhysicalPlan::HashJoin { left, right, .. }
            | PhysicalPlan::NestedLoopJoin { left, right, .. }
            | PhysicalPlan::SetOp { left, right, .. } => vec![left, right],
        }
    }

    /// Whether this plan gives the same rows each time it runs within one query: it
    /// reads tables, files and constants only, through filters, projections and
    /// hash joins without subqueries, never a recursive CTE's last round. (Its
    /// volatile functions, such as random(), would differ, as they do between the
    /// rows of one run.) A hash join in a recursive CTE's step keeps the table built on
    /// such an input across rounds.
    pub fn round_invariant(&self) -> bool {
        let plain = |e: &Expr| !e.has_subquery();
        match self {
            PhysicalPlan::Scan { .. }
            | PhysicalPlan::ColumnarScan { .. }
            | PhysicalPlan::Registered { .. }
            | PhysicalPlan::Range { .. } => true,
            PhysicalPlan::CsvScan { filter, .. } => filter.as_ref().is_none_or(plain),
            PhysicalPlan::Values { rows, .. } => rows.iter().flatten().all(plain),
            PhysicalPlan::CteScan { input, .. } => input.round_invariant(),
            PhysicalPlan::Filter { input, predicate } => {
                plain(predicate) && input.round_invariant()
            }
            PhysicalPlan::Project { input, exprs, .. } => {
                exprs.iter().all(plain) && input.round_invariant()
            }
            PhysicalPlan::HashJoin {
                left,
                right,
                left_keys,
                right_keys,
                filter,
                ..
            } => {
                left_keys.iter().chain(right_keys).all(plain)
                    && filter.as_ref().is_none_or(plain)
                    && left.round_invariant()
                    && right.round_invariant()
            }
            _ => false,
        }
    }

    /// Calls `f` on this node and every node below it.
    pub fn visit(&self, f: &mut dyn FnMut(&PhysicalPlan)) {
        f(self);
        for c in self.children() {
            c.visit(f);
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            PhysicalPlan::Scan { .. } => "SEQ_SCAN",
            PhysicalPlan::CsvScan { .. } => "READ_CSV",
            PhysicalPlan::ColumnarScan { reader, .. } => reader.function_name(),
            PhysicalPlan::Registered { .. } => "REGISTERED_SCAN",
            PhysicalPlan::Range { .. } => "RANGE",
            PhysicalPlan::Values { .. } => "VALUES",
            PhysicalPlan::CteScan { .. } => "CTE_SCAN",
            PhysicalPlan::Filter { .. } => "FILTER",
            PhysicalPlan::Project { .. } => "PROJECTION",
            PhysicalPlan::Unnest { .. } => "UNNEST",
            PhysicalPlan::LateralJoin { .. } => "LATERAL_JOIN",
            PhysicalPlan::HashAggregate { .. } => "HASH_GROUP_BY",
            PhysicalPlan::Sort { .. } => "ORDER_BY",
            PhysicalPlan::TopN { .. } => "TOP_N",
            PhysicalPlan::Limit { .. } => "LIMIT",
            PhysicalPlan::HashJoin { .. } => "HASH_JOIN",
            PhysicalPlan::NestedLoopJoin { .. } => "NESTED_LOOP_JOIN",
            PhysicalPlan::SetOp { .. } => "SET_OPERATION",
            PhysicalPlan::Window { .. } => "WINDOW",
            PhysicalPlan::RecursiveCte { .. } => "RECURSIVE_CTE",
            PhysicalPlan::RecursiveScan { .. } => "RECURSIVE_CTE_SCAN",
        }
    }
}
