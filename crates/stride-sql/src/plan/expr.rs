//! Bound expressions: the binder's output for every scalar expression. Column
//! references are positions in the input of the plan node that evaluates them, so an
//! expression is meaningful only together with its node. Types are resolved: every
//! function call carries the [`BoundFunction`] chosen for its argument types.

use super::logical::LogicalPlan;
use super::visit::{for_each_outer_ref, outer_refs};
use std::any::Any;
use std::fmt;
use std::sync::OnceLock;
use stride_common::{Collation, DataType, ScalarValue};
use stride_functions::{BoundFunction, ScalarFunction};

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// Column `index` of the evaluating node's input.
    Column {
        index: usize,
        ty: DataType,
        name: String,
    },
    /// Column `index` of the input of an enclosing query, `depth` subquery levels up.
    OuterColumn {
        depth: usize,
        index: usize,
        ty: DataType,
        name: String,
    },
    Literal {
        value: ScalarValue,
        ty: DataType,
    },
    Cast {
        expr: Box<Expr>,
        to: DataType,
        try_cast: bool,
    },
    Function {
        func: BoundFunction,
        args: Vec<Expr>,
    },
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    IsNull {
        expr: Box<Expr>,
        negated: bool,
    },
    /// NULL-safe comparison: `IS [NOT] DISTINCT FROM`.
    IsDistinctFrom {
        left: Box<Expr>,
        right: Box<Expr>,
        negated: bool,
    },
    /// Searched CASE; simple CASE, NULLIF and IF are rewritten into it.
    Case {
        branches: Vec<(Expr, Expr)>,
        else_expr: Box<Expr>,
        ty: DataType,
    },
    Coalesce {
        args: Vec<Expr>,
        ty: DataType,
    },
    /// GREATEST / LEAST, ignoring NULL arguments as PostgreSQL does.
    Greatest {
        args: Vec<Expr>,
        least: bool,
        ty: DataType,
    },
    /// `expr [NOT] IN (list)`, all of one type.
    InList {
        expr: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
        /// The list's hash set, built by execution on first use.
        set: ListSet,
    },
    Subquery(Box<Subquery>),
    /// The value of `expr`, marked with the collation its comparisons use: written
    /// `expr COLLATE NOCASE` (`explicit`), or a reference to a column declared with a
    /// collation. The binder compares collated strings by their collation keys
    /// (`binder/collation.rs`); the marker itself leaves values as they are.
    Collate {
        expr: Box<Expr>,
        collation: Collation,
        explicit: bool,
    },
    /// Binder-internal placeholder for the `index`-th aggregate of the SELECT being
    /// bound; replaced by a column of the aggregate's output before binding ends.
    AggregateRef {
        index: usize,
        ty: DataType,
    },
    /// Binder-internal placeholder, inside a subquery, for the `index`-th aggregate of
    /// the query `depth` levels out: an aggregate whose arguments read only that
    /// query's columns belongs to it (`(SELECT sum(s1.i) FROM s2)` sums over s1's
    /// rows). That query's aggregation turns it into an outer column.
    OuterAggregateRef {
        depth: usize,
        index: usize,
        ty: DataType,
    },
    /// Binder-internal placeholder for the `index`-th window function of the SELECT
    /// being bound; replaced by a column of the window node's output.
    WindowRef {
        index: usize,
        ty: DataType,
    },
    /// Binder-internal: `GROUPING(args)`, replaced by a constant or a column of the
    /// grouping's output once the grouping sets are known. Its arguments are not
    /// children: they name grouping expressions, they are not evaluated.
    Grouping {
        args: Vec<Expr>,
    },
    /// `list_transform(list, x -> body)`, `list_filter` and `list_reduce`: `body`
    /// evaluated for the elements of each row's list. The body is bound over its own
    /// input, not the row's: column 0 the element (for reduce, the accumulated value,
    /// then the element), then the element's 1-based position when the lambda takes
    /// one more parameter, then the `captures`, values of the row the body reads
    /// (evaluated over the row's input, so they are children; the body is not).
    Lambda {
        func: LambdaKind,
        list: Box<Expr>,
        captures: Vec<Expr>,
        body: Box<Expr>,
        /// The body's parameters (1 or 2; reduce 2 or 3).
        params: usize,
        ty: DataType,
    },
}

/// What a [`Expr::Lambda`] does with its body's results.
/// What execution builds once from an `IN` list of constants (a hash set of them)
/// and keeps for every chunk the expression is evaluated on. It belongs to this
/// one expression value: a clone starts empty, and so does a list handed out for
/// rewriting ([`Expr::children_mut`]), so a changed or substituted copy never reads
/// a set built from other constants. Plans compare equal whatever it holds.
#[derive(Default)]
pub struct ListSet(OnceLock<Option<Box<dyn Any + Send + Sync>>>);

impl ListSet {
    /// The set, built by `build` on the first call (`None`: the list has none).
    pub fn get_or_init<T: Any + Send + Sync>(
        &self,
        build: impl FnOnce() -> Option<T>,
    ) -> Option<&T> {
        self.0
            .get_or_init(|| build().map(|t| Box::new(t) as Box<dyn Any + Send + Sync>))
            .as_ref()?
            .downcast_ref()
    }
}

impl Clone for ListSet {
    fn clone(&self) -> Self {
        ListSet::default()
    }
}

impl PartialEq for ListSet {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl fmt::Debug for ListSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "ListSet(built)"
        } else {
            "ListSet"
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LambdaKind {
    /// Each element replaced by the body's value.
    Transform,
    /// The elements for which the body is true.
    Filter,
    /// The body folded over the elements, left to right.
    Reduce,
    /// `list_reduce(l, lambda, initial)`: the fold starts from `initial`, the first
    /// of the captures (which the body does not read), instead of the first element.
    ReduceFrom,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Subquery {
    /// Unique per bound subquery; keys the executor's cache of subquery results.
    pub id: u64,
    pub plan: LogicalPlan,
    pub kind: SubqueryKind,
    /// Whether the plan refers to columns of enclosing queries.
    pub correlated: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SubqueryKind {
    /// First column of the single row (NULL when empty; error when more than one row).
    Scalar(DataType),
    Exists {
        negated: bool,
    },
    /// `expr [NOT] IN (subquery)` with SQL's NULL rules.
    In {
        expr: Box<Expr>,
        negated: bool,
    },
    /// `expr op ANY|ALL (subquery)`; `cmp` compares (expr, subquery column).
    Quantified {
        expr: Box<Expr>,
        cmp: BoundFunction,
        all: bool,
    },
    /// Every row and column: the right side of a [`LogicalPlan::LateralJoin`], never
    /// a value.
    ///
    /// [`LogicalPlan::LateralJoin`]: crate::plan::LogicalPlan::LateralJoin
    Table,
}

/// A fresh subquery id.
pub fn next_subquery_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Expr {
    /// `expr [NOT] IN (list)`.
    pub fn in_list(expr: Expr, list: Vec<Expr>, negated: bool) -> Expr {
        Expr::InList {
            expr: Box::new(expr),
            list,
            negated,
            set: ListSet::default(),
        }
    }

    pub fn data_type(&self) -> DataType {
        match self {
            Expr::Column { ty, .. }
            | Expr::OuterColumn { ty, .. }
            | Expr::Literal { ty, .. }
            | Expr::AggregateRef { ty, .. }
            | Expr::OuterAggregateRef { ty, .. }
            | Expr::WindowRef { ty, .. } => ty.clone(),
            Expr::Grouping { .. } => DataType::BigInt,
            Expr::Cast { to, .. } => to.clone(),
            Expr::Collate { expr, .. } => expr.data_type(),
            Expr::Function { func, .. } => func.return_type.clone(),
            Expr::And(..)
            | Expr::Or(..)
            | Expr::Not(_)
            | Expr::IsNull { .. }
            | Expr::IsDistinctFrom { .. }
            | Expr::InList { .. } => DataType::Boolean,
            Expr::Lambda { ty, .. } => ty.clone(),
            Expr::Case { ty, .. } | Expr::Coalesce { ty, .. } | Expr::Greatest { ty, .. } => {
                ty.clone()
            }
            Expr::Subquery(s) => match &s.kind {
                SubqueryKind::Scalar(t) => t.clone(),
                _ => DataType::Boolean,
            },
        }
    }

    pub fn literal(value: ScalarValue) -> Expr {
        let ty = value.data_type();
        Expr::Literal { value, ty }
    }

    /// The value of a literal; `None` for any other expression.
    pub fn literal_value(&self) -> Option<ScalarValue> {
        match self {
            Expr::Literal { value, .. } => Some(value.clone()),
            _ => None,
        }
    }

    pub fn column(index: usize, ty: DataType, name: impl Into<String>) -> Expr {
        Expr::Column {
            index,
            ty,
            name: name.into(),
        }
    }

    /// The direct children, for generic walks.
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Column { .. }
            | Expr::OuterColumn { .. }
            | Expr::Literal { .. }
            | Expr::AggregateRef { .. }
            | Expr::OuterAggregateRef { .. }
            | Expr::WindowRef { .. }
            | Expr::Grouping { .. } => vec![],
            Expr::Cast { expr, .. }
            | Expr::Collate { expr, .. }
            | Expr::Not(expr)
            | Expr::IsNull { expr, .. } => vec![expr],
            Expr::Function { args, .. }
            | Expr::Coalesce { args, .. }
            | Expr::Greatest { args, .. } => args.iter().collect(),
            Expr::And(a, b) | Expr::Or(a, b) => vec![a, b],
            Expr::IsDistinctFrom { left, right, .. } => vec![left, right],
            Expr::Case {
                branches,
                else_expr,
                ..
            } => {
                let mut v: Vec<&Expr> = branches.iter().flat_map(|(w, t)| [w, t]).collect();
                v.push(else_expr);
                v
            }
            Expr::InList { expr, list, .. } => {
                std::iter::once(&**expr).chain(list.iter()).collect()
            }
            Expr::Lambda { list, captures, .. } => {
                std::iter::once(&**list).chain(captures.iter()).collect()
            }
            Expr::Subquery(s) => match &s.kind {
                SubqueryKind::In { expr, .. } | SubqueryKind::Quantified { expr, .. } => vec![expr],
                _ => vec![],
            },
        }
    }

    /// Mutable children (same order as [`Expr::children`]).
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Expr::Column { .. }
            | Expr::OuterColumn { .. }
            | Expr::Literal { .. }
            | Expr::AggregateRef { .. }
            | Expr::OuterAggregateRef { .. }
            | Expr::WindowRef { .. }
            | Expr::Grouping { .. } => vec![],
            Expr::Cast { expr, .. }
            | Expr::Collate { expr, .. }
            | Expr::Not(expr)
            | Expr::IsNull { expr, .. } => vec![expr],
            Expr::Function { args, .. }
            | Expr::Coalesce { args, .. }
            | Expr::Greatest { args, .. } => args.iter_mut().collect(),
            Expr::And(a, b) | Expr::Or(a, b) => vec![a, b],
            Expr::IsDistinctFrom { left, right, .. } => vec![left, right],
            Expr::Case {
                branches,
                else_expr,
                ..
            } => {
                let mut v: Vec<&mut Expr> = branches.iter_mut().flat_map(|(w, t)| [w, t]).collect();
                v.push(else_expr);
                v
            }
            Expr::InList {
                expr, list, set, ..
            } => {
                *set = ListSet::default();
                std::iter::once(&mut **expr)
                    .chain(list.iter_mut())
                    .collect()
            }
            Expr::Lambda { list, captures, .. } => std::iter::once(&mut **list)
                .chain(captures.iter_mut())
                .collect(),
            Expr::Subquery(s) => match &mut s.kind {
                SubqueryKind::In { expr, .. } | SubqueryKind::Quantified { expr, .. } => vec![expr],
                _ => vec![],
            },
        }
    }

    /// Whether any part of the expression satisfies `f`.
    pub fn any(&self, f: &mut impl FnMut(&Expr) -> bool) -> bool {
        f(self) || self.children().into_iter().any(|c| c.any(f))
    }

    /// Input columns referenced, including those a correlated subquery inside reads
    /// through its references to this expression's input (its `OuterColumn`s one
    /// level up, or further up from subqueries nested in it).
    pub fn collect_columns(&self, out: &mut Vec<usize>) {
        match self {
            Expr::Column { index, .. } => out.push(*index),
            Expr::Subquery(s) => outer_refs(&s.plan, 1, &mut |index| out.push(index)),
            _ => {}
        }
        for c in self.children() {
            c.collect_columns(out);
        }
    }

    /// Rewrites every column index through `f`, the references of correlated
    /// subqueries to this expression's input included (see
    /// [`Expr::collect_columns`]): moving an expression to another node must move
    /// what its subqueries read with it.
    pub fn remap_columns(&mut self, f: &impl Fn(usize) -> usize) {
        match self {
            Expr::Column { index, .. } => *index = f(*index),
            Expr::Subquery(s) => for_each_outer_ref(&mut s.plan, 1, &mut |e| {
                if let Expr::OuterColumn { index, .. } = e {
                    *index = f(*index);
                }
            }),
            _ => {}
        }
        for c in self.children_mut() {
            c.remap_columns(f);
        }
    }

    /// The expression under its collation markers (see [`Expr::Collate`]).
    pub fn without_collation(&self) -> &Expr {
        match self {
            Expr::Collate { expr, .. } => expr.without_collation(),
            e => e,
        }
    }

    pub fn has_subquery(&self) -> bool {
        self.any(&mut |e| matches!(e, Expr::Subquery(_)))
    }

    /// Whether a call inside may give another value each time it is evaluated, or
    /// has an effect (random, nextval): such an expression runs once per row, where
    /// it was written.
    pub fn calls_volatile(&self) -> bool {
        self.any(&mut |e| matches!(e, Expr::Function { func, .. } if func.func.is_volatile()))
    }

    /// Whether a subquery inside reads the row the expression is evaluated on (an
    /// uncorrelated one is a constant wherever the expression goes).
    pub fn has_correlated_subquery(&self) -> bool {
        self.any(&mut |e| {
            matches!(e, Expr::Subquery(s) if crate::plan::visit::references_outer(&s.plan, 1))
        })
    }

    /// Rewrites an expression over a join's row (`nleft` left columns, then `nright`
    /// right ones) to read the same columns when the two inputs trade places.
    pub fn swap_join_sides(&mut self, nleft: usize, nright: usize) {
        self.remap_columns(&|i| if i < nleft { i + nright } else { i - nleft });
    }

    /// Splits a conjunction into its terms.
    pub fn split_conjunction(self, out: &mut Vec<Expr>) {
        match self {
            Expr::And(a, b) => {
                a.split_conjunction(out);
                b.split_conjunction(out);
            }
            e => out.push(e),
        }
    }

    /// `(a AND b) OR (a AND c)` as `a` and `b OR c`: conjuncts common to every branch
    /// of a disjunction become terms of their own (often join keys, as in TPC-H Q19,
    /// or correlations, as in TPC-DS Q41).
    pub fn factor_or(self) -> Vec<Expr> {
        if !matches!(self, Expr::Or(..)) {
            return vec![self];
        }
        let mut branches: Vec<Vec<Expr>> = self
            .disjuncts()
            .into_iter()
            .map(|d| {
                let mut c = Vec::new();
                d.split_conjunction(&mut c);
                c
            })
            .collect();
        let common: Vec<Expr> = branches[0]
            .iter()
            .filter(|c| branches[1..].iter().all(|b| b.contains(c)))
            .cloned()
            .collect();
        for b in &mut branches {
            b.retain(|c| !common.contains(c));
        }
        let mut out = common;
        // A branch left with no conjunct is TRUE, and so is the whole disjunction.
        if branches.iter().all(|b| !b.is_empty()) {
            let rebuilt = branches
                .into_iter()
                .filter_map(Expr::conjunction)
                .reduce(|a, b| Expr::Or(Box::new(a), Box::new(b)))
                .expect("a disjunction has branches");
            out.push(rebuilt);
        }
        out
    }

    /// The branches of a disjunction (`self` alone when it is none).
    pub fn disjuncts(self) -> Vec<Expr> {
        match self {
            Expr::Or(a, b) => {
                let mut v = a.disjuncts();
                v.extend(b.disjuncts());
                v
            }
            other => vec![other],
        }
    }

    /// For a disjunction, a weaker condition it implies: the OR of each branch's
    /// conjuncts that `keep` holds for. `None` when some branch has none (the weaker
    /// condition would be TRUE) or `self` is no disjunction. Filter pushdown moves it
    /// below an aggregate (`keep`: reads only grouping columns), join ordering onto
    /// one join input (`keep`: reads only that input).
    pub fn implied_disjunction(&self, keep: impl Fn(&Expr) -> bool) -> Option<Expr> {
        if !matches!(self, Expr::Or(..)) {
            return None;
        }
        self.clone()
            .disjuncts()
            .into_iter()
            .map(|d| {
                let mut terms = Vec::new();
                d.split_conjunction(&mut terms);
                Expr::conjunction(terms.into_iter().filter(|t| keep(t)).collect())
            })
            .collect::<Option<Vec<Expr>>>()?
            .into_iter()
            .reduce(|a, b| Expr::Or(Box::new(a), Box::new(b)))
    }

    pub fn conjunction(terms: Vec<Expr>) -> Option<Expr> {
        terms
            .into_iter()
            .reduce(|a, b| Expr::And(Box::new(a), Box::new(b)))
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |args: &[Expr]| {
            args.iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            Expr::Column { name, index, .. } => {
                if name.is_empty() {
                    write!(f, "#{index}")
                } else {
                    write!(f, "{name}")
                }
            }
            Expr::OuterColumn { name, .. } => write!(f, "outer.{name}"),
            Expr::AggregateRef { index, .. } => write!(f, "aggregate#{index}"),
            Expr::OuterAggregateRef { depth, index, .. } => {
                write!(f, "outer{depth}.aggregate#{index}")
            }
            Expr::WindowRef { index, .. } => write!(f, "window#{index}"),
            Expr::Grouping { args } => {
                let list: Vec<String> = args.iter().map(|a| a.to_string()).collect();
                write!(f, "grouping({})", list.join(", "))
            }
            Expr::Lambda {
                func, list, body, ..
            } => {
                let name = match func {
                    LambdaKind::Transform => "list_transform",
                    LambdaKind::Filter => "list_filter",
                    LambdaKind::Reduce | LambdaKind::ReduceFrom => "list_reduce",
                };
                write!(f, "{name}({list}, lambda: {body})")
            }
            Expr::Literal { value, ty } => match value {
                ScalarValue::Varchar(s) => write!(f, "'{}'", s.replace('\'', "''")),
                ScalarValue::Null => write!(f, "NULL"),
                v if matches!(
                    ty,
                    DataType::Date
                        | DataType::Timestamp
                        | DataType::TimestampTz
                        | DataType::Time
                        | DataType::Interval
                        | DataType::Uuid
                ) =>
                {
                    write!(f, "{ty} '{v}'")
                }
                v => write!(f, "{v}"),
            },
            Expr::Collate {
                expr,
                collation,
                explicit,
            } => {
                if *explicit {
                    write!(f, "({expr} COLLATE {collation})")
                } else {
                    write!(f, "{expr}")
                }
            }
            Expr::Cast { expr, to, try_cast } => write!(
                f,
                "{}({expr} AS {to})",
                if *try_cast { "TRY_CAST" } else { "CAST" }
            ),
            Expr::Function { func, args } => {
                let name = function_name(func.func);
                if args.len() == 2 && name.chars().all(|c| !c.is_alphanumeric()) {
                    write!(f, "({} {name} {})", args[0], args[1])
                } else {
                    write!(f, "{name}({})", list(args))
                }
            }
            Expr::And(a, b) => write!(f, "({a} AND {b})"),
            Expr::Or(a, b) => write!(f, "({a} OR {b})"),
            Expr::Not(e) => write!(f, "(NOT {e})"),
            Expr::IsNull { expr, negated } => {
                write!(f, "({expr} IS {}NULL)", if *negated { "NOT " } else { "" })
            }
            Expr::IsDistinctFrom {
                left,
                right,
                negated,
            } => {
                write!(
                    f,
                    "({left} IS {}DISTINCT FROM {right})",
                    if *negated { "NOT " } else { "" }
                )
            }
            Expr::Case {
                branches,
                else_expr,
                ..
            } => {
                write!(f, "CASE")?;
                for (w, t) in branches {
                    write!(f, " WHEN {w} THEN {t}")?;
                }
                write!(f, " ELSE {else_expr} END")
            }
            Expr::Coalesce { args, .. } => write!(f, "COALESCE({})", list(args)),
            Expr::Greatest { args, least, .. } => write!(
                f,
                "{}({})",
                if *least { "LEAST" } else { "GREATEST" },
                list(args)
            ),
            Expr::InList {
                expr,
                list: l,
                negated,
                ..
            } => write!(
                f,
                "({expr} {}IN ({}))",
                if *negated { "NOT " } else { "" },
                list(l)
            ),
            Expr::Subquery(s) => match &s.kind {
                SubqueryKind::Scalar(_) | SubqueryKind::Table => write!(f, "(SUBQUERY)"),
                SubqueryKind::Exists { negated } => {
                    write!(f, "{}EXISTS(SUBQUERY)", if *negated { "NOT " } else { "" })
                }
                SubqueryKind::In { expr, negated } => write!(
                    f,
                    "({expr} {}IN (SUBQUERY))",
                    if *negated { "NOT " } else { "" }
                ),
                SubqueryKind::Quantified { expr, cmp, all } => {
                    write!(
                        f,
                        "({expr} {} {}(SUBQUERY))",
                        function_name(cmp.func),
                        if *all { "ALL" } else { "ANY" }
                    )
                }
            },
        }
    }
}

/// How a function or operator is shown in EXPLAIN output and column names.
pub fn function_name(f: ScalarFunction) -> String {
    use ScalarFunction as F;
    match f {
        F::Add => "+".into(),
        F::Subtract => "-".into(),
        F::Multiply => "*".into(),
        F::Divide => "/".into(),
        F::Modulo => "%".into(),
        F::Negate => "-".into(),
        F::Eq => "=".into(),
        F::NotEq => "<>".into(),
        F::Lt => "<".into(),
        F::LtEq => "<=".into(),
        F::Gt => ">".into(),
        F::GtEq => ">=".into(),
        F::ConcatOperator => "||".into(),
        F::Like => "~~".into(),
        F::ILike => "~~*".into(),
        F::StripAccents => "strip_accents".into(),
        F::Struct(s) => s.name().into(),
        F::Union(u) => u.name().into(),
        F::IsHistogramOtherBin => "is_histogram_other_bin".into(),
        F::Md5Number(part) => match part {
            stride_functions::scalar::string::hash::Md5Part::Whole => "md5_number",
            stride_functions::scalar::string::hash::Md5Part::Upper => "md5_number_upper",
            stride_functions::scalar::string::hash::Md5Part::Lower => "md5_number_lower",
        }
        .into(),
        F::Map(m) => m.name().into(),
        F::Array(a) => a.name().into(),
        F::Blob(b) => b.name().into(),
        F::Bit(b) => b.name().into(),
        other => format!("{other:?}").to_lowercase(),
    }
}
