//! Step 2 of a query's life: the binder turns parsed statements into bound statements.
//! It resolves table and column names (with "did you mean" suggestions), infers and
//! checks types, inserts implicit casts, and builds a [`LogicalPlan`] for every query.
//!
//! One file per statement kind; expressions, functions, FROM clauses and SELECT
//! blocks have their own files. Column references become positions in the input of
//! the node that evaluates them; references to an enclosing query become
//! `Expr::OuterColumn` with the number of subquery levels crossed.

mod access;
mod attach;
mod builtin_macros;
mod by_name;
mod checks;
mod collation;
mod columnar;
mod columns;
mod csv;
mod ddl;
mod duckdb_catalog;
mod expr;
pub(crate) mod fold;
mod from;
mod function;
mod grouping_sets;
mod insert;
mod json;
mod json_each;
mod lambda;
mod lateral;
mod macros;
mod modify;
mod parameters;
mod pivot;
mod prepare;
mod procedure;
mod query_functions;
mod returning;
mod sample;
mod scope;
mod select;
pub mod sequences;
mod session_ids;
mod set_function;
mod star;
mod structs;
mod summarize;
mod system;
mod types;
mod user_types;
mod utility;
mod variables;
mod view;
mod window;

use crate::catalog::Catalog;
use crate::plan::{AggregateExpr, Field, LogicalPlan};
pub use insert::{ConflictUpdate, OnConflict};
pub use json_each::rows as json_each_rows;
pub use macros::TempMacros;
pub use prepare::PreparedStatements;
pub use returning::Returning;
use scope::Scope;
pub use session_ids::{SessionIds, SESSION_ID_FUNCTIONS};
use sqlparser::ast;
use std::collections::HashMap;
use std::sync::Arc;
use stride_common::{DataType, Error, Result, ScalarValue, Settings, TableSchema};
pub use variables::SessionVariables;

pub(crate) use builtin_macros::builtin_macro_names;
pub(crate) use duckdb_catalog::DUCKDB_TABLE_FUNCTIONS;
pub(crate) use query_functions::QUERY_TABLE_FUNCTIONS;
pub(crate) const PRAGMAS: &[&str] = Binder::PRAGMAS;
pub use csv::{parse_type, CopyFromStdin};
pub use fold::fold_constant;
pub(crate) use function::MACRO_FUNCTIONS;
pub(crate) use function::{probe_call, SPECIAL_FORMS};
pub(crate) use lambda::LAMBDA_FUNCTIONS;
pub use stride_io::csv::CsvWriteOptions;
pub(crate) use structs::STRUCT_FUNCTIONS;
pub(crate) use system::catalog_function_signatures;
pub use types::convert_data_type;
pub(crate) use window::WINDOW_FUNCTIONS;

/// A statement ready for execution.
#[derive(Debug, Clone)]
pub enum BoundStatement {
    Query(LogicalPlan),
    CreateTable {
        schema: TableSchema,
        if_not_exists: bool,
        or_replace: bool,
        source: Option<LogicalPlan>,
    },
    DropTable {
        name: String,
        if_exists: bool,
    },
    CreateView {
        name: String,
        /// The view's query as SQL text, bound again wherever the view is used.
        sql: String,
        columns: Vec<String>,
        or_replace: bool,
        if_not_exists: bool,
    },
    DropView {
        name: String,
        if_exists: bool,
    },
    CreateIndex {
        name: String,
        table: String,
        columns: Vec<usize>,
        unique: bool,
        if_not_exists: bool,
    },
    DropIndex {
        name: String,
        if_exists: bool,
    },
    /// `source` yields rows in the table's column order and types.
    Insert {
        table_id: u64,
        table: String,
        source: LogicalPlan,
        returning: Option<Returning>,
        on_conflict: Option<OnConflict>,
    },
    /// ALTER TABLE: `None` when IF [NOT] EXISTS makes it do nothing.
    AlterTable {
        table: String,
        change: Option<stride_common::TableAlteration>,
    },
    /// `plan` yields the row ids (positions in the table) of the rows to delete.
    /// With `returning`, the plan yields after the row id each deleted row's columns.
    Delete {
        table_id: u64,
        table: String,
        plan: LogicalPlan,
        returning: Option<Returning>,
    },
    /// `plan` yields the row id of each row to change, then the new values of
    /// `columns` (positions in the table), cast to their types; with `returning`,
    /// then each changed row's columns as they will be.
    Update {
        table_id: u64,
        table: String,
        columns: Vec<usize>,
        plan: LogicalPlan,
        returning: Option<Returning>,
    },
    Set {
        name: String,
        value: ScalarValue,
    },
    Reset {
        name: String,
    },
    /// `SET VARIABLE name = expr`: `plan` is one row of one column, the value to keep
    /// on the connection under `name` (lower-case).
    SetVariable {
        name: String,
        plan: LogicalPlan,
    },
    /// `RESET VARIABLE name`.
    ResetVariable {
        name: String,
    },
    /// EXPLAIN [ANALYZE] / EXPLAIN (ANALYZE, FORMAT json): `analyze` runs the query
    /// and shows what each operator did; `json` asks for JSON instead of text.
    Explain {
        plan: LogicalPlan,
        analyze: bool,
        json: bool,
    },
    /// `CALL dbgen(sf = N)` / `CALL dsdgen(sf = N)`: create and fill the TPC-H or
    /// TPC-DS tables.
    Generate {
        benchmark: Benchmark,
        scale_factor: f64,
    },
    /// `COPY table | (query) TO 'file'`: CSV written with `options`, or Parquet or
    /// Arrow when `columnar` says how.
    CopyTo {
        plan: LogicalPlan,
        path: String,
        options: CsvWriteOptions,
        columnar: Option<stride_io::columnar::ColumnarWrite>,
        /// PARTITION_BY: a folder of hive partitions instead of one file.
        partition: Option<stride_io::hive::PartitionBy>,
    },
    /// `COPY table | (query) TO STDOUT`: the rows go to the client, formatted as
    /// `options` say.
    CopyToStdout {
        plan: LogicalPlan,
        options: CsvWriteOptions,
    },
    /// `COPY table FROM STDIN`: the client sends the data next.
    CopyFromStdin(CopyFromStdin),
    /// BEGIN / COMMIT / ROLLBACK (see the facade: every statement applies at once).
    Transaction(TransactionOp),
    /// `PRAGMA tpch(N)` / `PRAGMA tpcds(N)`: run the benchmark's query N.
    BenchmarkQuery {
        benchmark: Benchmark,
        number: i64,
    },
    /// `CHECKPOINT` / `FORCE CHECKPOINT`: write the database file's changes and
    /// empty its WAL. `VACUUM` also moves the data to the front of the file, so the
    /// space of deleted rows and dropped tables goes back to the file system.
    Checkpoint {
        vacuum: bool,
    },
    /// `PRAGMA database_size`: the file's blocks, its WAL, the memory in use.
    DatabaseSize,
    /// `ATTACH 'path' [AS name] [(READ_ONLY)]`: open another database file (or an
    /// in-memory database, for `:memory:`) beside this one, for the whole database.
    Attach {
        path: String,
        name: String,
        read_only: bool,
        if_not_exists: bool,
    },
    /// `DETACH name`.
    Detach {
        name: String,
        if_exists: bool,
    },
    /// `USE name`: the database unqualified names refer to, for this connection.
    Use {
        database: String,
    },
    /// `PREPARE name AS statement`: the connection keeps `statement` under `name`
    /// (lower case), replacing one of that name (`binder/prepare.rs`).
    Prepare {
        name: String,
        statement: Arc<ast::Statement>,
    },
    /// `CREATE [OR REPLACE] [TEMP] MACRO`: `sql` is the macro's CREATE MACRO text
    /// (`binder/macros.rs`), kept in the catalog or, for TEMP, on the connection.
    CreateMacro {
        name: String,
        sql: String,
        or_replace: bool,
        temporary: bool,
    },
    /// `DROP MACRO [TABLE] [IF EXISTS] name`; `if_exists`: there is none (nothing to do).
    DropMacro {
        name: String,
        if_exists: bool,
    },
    /// `CREATE [OR REPLACE] SEQUENCE [IF NOT EXISTS] name ...` (`binder/sequences.rs`);
    /// with `if_not_exists`, nothing happens when it exists.
    CreateSequence {
        name: String,
        spec: sequences::SequenceSpec,
        or_replace: bool,
        if_not_exists: bool,
    },
    /// `DROP SEQUENCE [IF EXISTS] name [CASCADE]`; `tables`: those CASCADE drops with
    /// it (their DEFAULTs use it).
    DropSequence {
        name: String,
        if_exists: bool,
        tables: Vec<String>,
    },
    /// `CREATE [OR REPLACE] TYPE [IF NOT EXISTS] name AS type` (`binder/user_types.rs`):
    /// an ENUM carries `name`; with `if_not_exists` and a type of that name, nothing
    /// happens (`ty` is then NULL).
    CreateType {
        name: String,
        ty: DataType,
        or_replace: bool,
        if_not_exists: bool,
    },
    /// `DROP TYPE [IF EXISTS] name`, checked to be used by no table.
    DropType {
        name: String,
        if_exists: bool,
    },
    /// `DEALLOCATE [PREPARE] name`: the connection forgets the prepared statement
    /// (lower case), if it has one; `None`: `DEALLOCATE ALL` (PostgreSQL's), every one.
    Deallocate {
        name: Option<String>,
    },
}

/// The benchmarks whose data and queries stride carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Benchmark {
    Tpch,
    Tpcds,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransactionOp {
    /// BEGIN [TRANSACTION] [READ ONLY | READ WRITE] [ISOLATION LEVEL ...].
    Begin { read_only: bool },
    /// COMMIT; `chain` (AND CHAIN): a transaction like it begins right after.
    Commit { chain: bool },
    /// ROLLBACK; `chain` (AND CHAIN): a transaction like it begins right after.
    Rollback { chain: bool },
    /// SET TRANSACTION READ ONLY / READ WRITE, inside a transaction.
    SetReadOnly(bool),
    /// SAVEPOINT name: marks the transaction's state to roll back to.
    Savepoint(String),
    /// RELEASE [SAVEPOINT] name: forgets the savepoint and those set after it.
    Release(String),
    /// ROLLBACK TO [SAVEPOINT] name: undoes what the transaction did since the
    /// savepoint (which stays).
    RollbackTo(String),
}

pub struct Binder<'a> {
    /// The catalog of the database unqualified names are looked up in (the session's
    /// current one, or an attached one while one of its views is bound).
    catalog: Arc<dyn Catalog + 'a>,
    /// Relations registered on the connection (DataFrames), found by name before
    /// the catalog's tables and views.
    registered: Arc<HashMap<String, Arc<crate::plan::RegisteredRelation>>>,
    /// The database the statement changes, when a name it changes is qualified by one
    /// (`INSERT INTO other.t`); the facade runs the change there.
    written: Option<String>,
    settings: &'a Settings,
    /// Scopes of the enclosing queries, innermost last, while binding a subquery.
    outer_scopes: Vec<Scope>,
    /// Beside each outer scope: the aggregates found inside its subquery that belong
    /// to it (their arguments read only its columns), bound over its FROM.
    outer_aggregates: Vec<Vec<AggregateExpr>>,
    /// CTE definitions visible at this point: one list per WITH, innermost last, each
    /// in its order of definition (a CTE's body sees only the CTEs before it).
    ctes: Vec<Vec<(String, Arc<ast::Cte>)>>,
    /// Bodies of uncorrelated CTEs already bound, by definition (its address): every
    /// reference shares one body, which runs once (see `LogicalPlan::CteRef`).
    cte_bodies: HashMap<usize, (u64, Arc<crate::plan::LogicalPlan>)>,
    /// Current nesting of expressions being bound (see [`MAX_EXPRESSION_DEPTH`]).
    depth: usize,
    /// Views being expanded, innermost last (a view may not refer to itself).
    views: Vec<String>,
    /// Values of `$1`, `$2`, ... (bound as values, never spliced into the SQL text).
    params: Vec<ScalarValue>,
    /// The statement's snapshot of the catalog for system tables, taken on first use.
    system: Option<Arc<crate::system::Snapshot>>,
    /// Set while that snapshot is being taken (it binds views).
    building_system: bool,
    /// Per SELECT being bound, innermost last: its select list's set-returning calls
    /// and the columns holding their values (`set_function.rs`).
    set_functions: Vec<Vec<(ast::Function, crate::plan::Expr)>>,
    /// Types of `$n` parameters inferred from their context (`parameters.rs`).
    param_types: Vec<Option<DataType>>,
    /// Per SELECT being bound, innermost last: its WINDOW clause (`window.rs`).
    window_defs: Vec<Vec<ast::NamedWindowDefinition>>,
    /// CTEs defined under WITH RECURSIVE (by address).
    recursive_ctes: std::collections::HashSet<usize>,
    /// Recursive CTEs whose recursive part is being bound: name, id, columns.
    recursive_refs: Vec<(String, u64, Vec<Field>)>,
    /// CTEs whose bodies are being bound (by address), to refuse a recursive CTE's
    /// base reading itself.
    binding_ctes: Vec<usize>,
    /// Whether table scans carry the `rowid` pseudo-column (the statement names it).
    rowid_column: bool,
    /// Runs queries binding needs the answers of (PIVOT's values).
    runner: Option<Arc<dyn crate::catalog::PlanRunner + 'a>>,
    /// The connection's prepared statements, for EXECUTE (`prepare.rs`).
    prepared: Arc<PreparedStatements>,
    /// The connection's TEMP macros (`macros.rs`).
    temp_macros: Arc<TempMacros>,
    /// Macros looked up so far in this statement, by lower-case name.
    macro_cache: HashMap<String, Option<Arc<macros::MacroDef>>>,
    /// Macros being expanded, innermost last.
    macro_stack: Vec<String>,
    /// The arguments of the scalar macro calls being bound, which the markers in
    /// their bodies stand for (`macros.rs`).
    macro_args: Vec<macros::MacroArg>,
    /// The statement's text (`current_query()`), when the caller gave it.
    query_text: Option<String>,
    /// The connection's session variables (`getvariable`, `variables.rs`).
    variables: Arc<SessionVariables>,
    /// The numbers of the connection, transaction and statement (`session_ids.rs`).
    session_ids: Option<SessionIds>,
}

/// Most parameters whose types are inferred (the protocol allows 65535).
pub const MAX_PARAMETERS: usize = u16::MAX as usize;

/// Deepest expression nesting the binder accepts. Long chains such as `1 + 1 + ...`
/// parse without recursion but nest in the tree; beyond this they are refused with an
/// error instead of exhausting the stack in later phases.
pub const MAX_EXPRESSION_DEPTH: usize = 10_000;

impl<'a> Binder<'a> {
    pub fn new(catalog: Arc<dyn Catalog + 'a>, settings: &'a Settings) -> Self {
        Binder {
            catalog,
            registered: Arc::default(),
            written: None,
            settings,
            outer_scopes: Vec::new(),
            outer_aggregates: Vec::new(),
            ctes: Vec::new(),
            cte_bodies: HashMap::new(),
            depth: 0,
            views: Vec::new(),
            params: Vec::new(),
            system: None,
            building_system: false,
            set_functions: Vec::new(),
            param_types: Vec::new(),
            window_defs: Vec::new(),
            recursive_ctes: Default::default(),
            recursive_refs: Vec::new(),
            binding_ctes: Vec::new(),
            rowid_column: false,
            runner: None,
            prepared: Arc::default(),
            temp_macros: Arc::default(),
            macro_cache: HashMap::new(),
            macro_stack: Vec::new(),
            macro_args: Vec::new(),
            query_text: None,
            variables: Arc::default(),
            session_ids: None,
        }
    }

    /// What runs the queries binding needs answers from (PIVOT without IN).
    pub fn with_runner(mut self, runner: Arc<dyn crate::catalog::PlanRunner + 'a>) -> Self {
        self.runner = Some(runner);
        self
    }

    /// The database the bound statement changes, when its target was qualified by a
    /// database name; `None`: the current one.
    pub fn written_database(&self) -> Option<&str> {
        self.written.as_deref()
    }

    /// The statement's SQL text, which `current_query()` returns.
    pub fn with_query_text(mut self, sql: &str) -> Self {
        self.query_text = Some(sql.to_string());
        self
    }

    /// Values for the statement's `$n` parameters.
    pub fn with_params(mut self, params: Vec<ScalarValue>) -> Self {
        self.params = params;
        self
    }

    /// The connection's prepared statements (PREPARE), which EXECUTE runs.
    pub fn with_prepared(mut self, prepared: Arc<PreparedStatements>) -> Self {
        self.prepared = prepared;
        self
    }

    /// The connection's TEMP macros.
    pub fn with_temp_macros(mut self, macros: Arc<TempMacros>) -> Self {
        self.temp_macros = macros;
        self
    }

    /// The numbers of the connection, the statement's transaction and the statement.
    pub fn with_session_ids(mut self, ids: SessionIds) -> Self {
        self.session_ids = Some(ids);
        self
    }

    /// The connection's session variables (SET VARIABLE), which getvariable reads.
    pub fn with_variables(mut self, variables: Arc<SessionVariables>) -> Self {
        self.variables = variables;
        self
    }

    /// The relations registered on the connection (lower-case names).
    pub fn with_registered(
        mut self,
        registered: Arc<HashMap<String, Arc<crate::plan::RegisteredRelation>>>,
    ) -> Self {
        self.registered = registered;
        self
    }

    pub fn bind_statement(&mut self, stmt: &ast::Statement) -> Result<BoundStatement> {
        use ast::Statement as S;
        // (Not for INSERT ... VALUES, whose rows can be many and scan no table.)
        let values = matches!(stmt, S::Insert(i)
            if i.source.as_ref().is_some_and(|q| matches!(*q.body, ast::SetExpr::Values(_))));
        if !values {
            self.rowid_column |= from::mentions_rowid(&stmt.to_string());
        }
        match stmt {
            S::Query(q) => Ok(BoundStatement::Query(self.bind_query(q)?)),
            S::CreateTable(ct) => self.bind_create_table(ct),
            S::Drop {
                object_type: ast::ObjectType::Type,
                if_exists,
                names,
                cascade,
                ..
            } => match names.as_slice() {
                [name] => self.bind_drop_type(name, *if_exists, *cascade),
                _ => Err(Error::not_supported("DROP TYPE of several types at once")),
            },
            S::Drop {
                object_type: ast::ObjectType::Sequence,
                if_exists,
                names,
                cascade,
                ..
            } => match names.as_slice() {
                [name] => self.bind_drop_sequence(name, *if_exists, *cascade),
                _ => Err(Error::not_supported(
                    "DROP SEQUENCE of several sequences at once",
                )),
            },
            S::Drop {
                object_type,
                if_exists,
                names,
                ..
            } => self.bind_drop(object_type, *if_exists, names),
            S::CreateDomain(d) => match crate::type_syntax::type_flags(d) {
                Some(flags) => self.bind_create_type(d, flags),
                None => Err(Error::not_supported(
                    "CREATE DOMAIN is not supported; CREATE TYPE name AS type makes a type alias",
                )),
            },
            S::CreateIndex(ci) => self.bind_create_index(ci),
            S::AlterTable(at) => self.bind_alter_table(at),
            S::CreateView(cv) => self.bind_create_view(cv),
            S::Insert(ins) => self.bind_insert(ins),
            S::Delete(d) => self.bind_delete(d),
            S::Truncate(t) => self.bind_truncate(t),
            S::Vacuum(v) if v.table_name.is_none() => {
                Ok(BoundStatement::Checkpoint { vacuum: true })
            }
            S::Update(u) => self.bind_update(u),
            S::Set(set) => self.bind_set(set),
            S::Reset(r) => self.bind_reset(r),
            S::ShowVariable { variable } => self.bind_show(variable),
            S::ShowTables {
                terse: false,
                history: false,
                extended: false,
                full: false,
                external: false,
                show_options,
            } => self.show_tables(Some(show_options)),
            S::ShowTables { .. } => Err(Error::not_supported(
                "SHOW TABLES takes no TERSE, HISTORY, EXTENDED, FULL or EXTERNAL; write SHOW TABLES [FROM database]",
            )),
            S::ShowDatabases { .. } => Ok(BoundStatement::Query(self.show_databases())),
            S::AttachDuckDBDatabase {
                if_not_exists,
                database_path,
                database_alias,
                attach_options,
                ..
            } => self.bind_attach(
                &database_path.value,
                database_alias.as_ref(),
                attach_options,
                *if_not_exists,
            ),
            S::AttachDatabase {
                schema_name,
                database_file_name: ast::Expr::Value(v),
                ..
            } => match &v.value {
                ast::Value::SingleQuotedString(path) => {
                    self.bind_attach(path, Some(schema_name), &[], false)
                }
                other => Err(Error::binder(format!(
                    "ATTACH takes the file's path as a string, not {other}"
                ))),
            },
            S::DetachDuckDBDatabase {
                if_exists,
                database_alias,
                ..
            } => Ok(BoundStatement::Detach {
                name: expr::ident_name(database_alias),
                if_exists: *if_exists,
            }),
            S::Use(ast::Use::Object(name) | ast::Use::Database(name) | ast::Use::Catalog(name)) => {
                self.bind_use(name)
            }
            S::Call(f) => self.bind_call(f),
            S::CreateMacro {
                or_replace,
                temporary,
                name,
                args,
                definition,
            } => self.bind_create_macro(*or_replace, *temporary, name, args.as_deref(), definition),
            S::CreateSequence {
                temporary,
                if_not_exists,
                name,
                data_type,
                sequence_options,
                owned_by,
            } => self.bind_create_sequence(
                *temporary,
                *if_not_exists,
                name,
                data_type,
                sequence_options,
                owned_by,
            ),
            S::DropFunction(d) => {
                let [desc] = d.func_desc.as_slice() else {
                    return Err(Error::not_supported("DROP MACRO of several macros at once"));
                };
                let table = crate::parser::is_drop_table_macro(desc);
                self.bind_drop_macro(&desc.name, d.if_exists, table)
            }
            S::Prepare {
                name,
                data_types,
                statement,
            } => self.bind_prepare(name, data_types, statement),
            S::Execute {
                name: Some(name),
                parameters,
                immediate: false,
                into,
                using,
                ..
            } if into.is_empty() && using.is_empty() => self.bind_execute(name, parameters),
            S::Deallocate { name, .. } => Ok(BoundStatement::Deallocate {
                name: (name.quote_style.is_some() || !name.value.eq_ignore_ascii_case("all"))
                    .then(|| expr::ident_name(name).to_ascii_lowercase()),
            }),
            S::Copy {
                source,
                to,
                target,
                options,
                legacy_options,
                ..
            } => self.bind_copy(source, *to, target, options, legacy_options),
            S::Pragma { name, value, .. } => self.bind_pragma(name, value.as_ref()),
            S::StartTransaction { modes, .. } => {
                Ok(BoundStatement::Transaction(TransactionOp::Begin {
                    read_only: transaction_modes(modes)?.unwrap_or(false),
                }))
            }
            S::Commit { chain, .. } => Ok(BoundStatement::Transaction(TransactionOp::Commit {
                chain: *chain,
            })),
            S::Rollback {
                savepoint: None,
                chain,
            } => Ok(BoundStatement::Transaction(TransactionOp::Rollback {
                chain: *chain,
            })),
            S::Savepoint { name } => Ok(BoundStatement::Transaction(TransactionOp::Savepoint(
                expr::ident_name(name),
            ))),
            S::ReleaseSavepoint { name } => Ok(BoundStatement::Transaction(
                TransactionOp::Release(expr::ident_name(name)),
            )),
            S::Rollback {
                savepoint: Some(name),
                chain: false,
            } => Ok(BoundStatement::Transaction(TransactionOp::RollbackTo(
                expr::ident_name(name),
            ))),
            S::ExplainTable { table_name, .. } => self.describe_table(table_name),
            S::Explain {
                statement,
                analyze,
                describe_alias,
                format,
                options,
                ..
            } => match describe_alias {
                ast::DescribeAlias::Describe | ast::DescribeAlias::Desc => {
                    self.describe_statement(statement)
                }
                ast::DescribeAlias::Explain => {
                    self.bind_explain(statement, *analyze, format.as_ref(), options.as_deref())
                }
            },
            other => Err(Error::not_supported(format!(
                "statement not supported yet: {}",
                first_words(&other.to_string())
            ))),
        }
    }

    /// The query's output as a plan whose fields carry the user-visible names.
    pub fn bind_query(&mut self, q: &ast::Query) -> Result<LogicalPlan> {
        select::bind_query(self, q)
    }
}

fn first_words(sql: &str) -> String {
    sql.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

/// The closest candidate to `name` by edit distance, if it is close enough to suggest.
pub(crate) fn did_you_mean<'b>(
    name: &str,
    candidates: impl IntoIterator<Item = &'b str>,
) -> Option<String> {
    let lname = name.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|c| (edit_distance(&lname, &c.to_ascii_lowercase()), c))
        .filter(|(d, c)| *d <= (c.len().max(lname.len()) / 2).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c.to_string())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + (ca != *cb) as usize)
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Output fields named for the user, without qualifiers.
/// The position of `item` in `list`, added at the end if it is not there yet (the
/// aggregates, window functions and GROUPING() calls of a SELECT, each bound once).
/// The parts of a dotted name as written (identifiers unquoted, case kept).
pub(super) fn name_parts(name: &ast::ObjectName) -> Vec<String> {
    name.0
        .iter()
        .map(|p| match p {
            ast::ObjectNamePart::Identifier(id) => id.value.clone(),
            other => other.to_string(),
        })
        .collect()
}

pub(super) fn index_in<T: PartialEq>(list: &mut Vec<T>, item: T) -> usize {
    match list.iter().position(|x| *x == item) {
        Some(i) => i,
        None => {
            list.push(item);
            list.len() - 1
        }
    }
}

pub(crate) fn unqualified(fields: &[Field]) -> Vec<Field> {
    fields
        .iter()
        .map(|f| f.clone().with_qualifier(None))
        .collect()
}

/// `l = r` over two expressions of one type (for rewrites that rebuild equalities).
pub fn equality(l: crate::plan::Expr, r: crate::plan::Expr) -> crate::plan::Expr {
    expr::compare("=", l, r).expect("equality of join keys of one type")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(
            did_you_mean("lineitm", ["orders", "lineitem"]),
            Some("lineitem".into())
        );
        assert_eq!(did_you_mean("zzz", ["orders", "lineitem"]), None);
    }
}

/// The access mode among a transaction's modes (`Some(true)` for READ ONLY), checking
/// the isolation level: every transaction runs under snapshot isolation, which is
/// PostgreSQL's REPEATABLE READ and at least what READ COMMITTED and READ UNCOMMITTED
/// promise; SERIALIZABLE (which also prevents write skew) is refused rather than
/// weakened silently.
pub(crate) fn transaction_modes(modes: &[ast::TransactionMode]) -> Result<Option<bool>> {
    use ast::{TransactionAccessMode as A, TransactionIsolationLevel as L, TransactionMode as M};
    let mut read_only = None;
    for m in modes {
        match m {
            M::AccessMode(A::ReadOnly) => read_only = Some(true),
            M::AccessMode(A::ReadWrite) => read_only = Some(false),
            M::IsolationLevel(L::Serializable) => {
                return Err(Error::not_supported(
                    "ISOLATION LEVEL SERIALIZABLE is not supported: stride runs every transaction under snapshot isolation (REPEATABLE READ), which allows write skew; use REPEATABLE READ",
                ))
            }
            M::IsolationLevel(_) => {}
        }
    }
    Ok(read_only)
}

/// VALUES of constant `rows`, each value of its column's type in `schema`.
pub(crate) fn constant_rows(schema: Vec<Field>, rows: Vec<Vec<ScalarValue>>) -> LogicalPlan {
    let rows = rows
        .into_iter()
        .map(|r| {
            r.into_iter()
                .zip(&schema)
                .map(|(value, f)| crate::plan::Expr::Literal {
                    value,
                    ty: f.ty.clone(),
                })
                .collect()
        })
        .collect();
    LogicalPlan::Values { rows, schema }
}

/// A table function reading every column of a source with this schema (files,
/// registered data), made by `read`, which is given the columns' positions.
fn source_scan(
    schema: Vec<(String, stride_common::DataType)>,
    read: impl FnOnce(Vec<usize>) -> crate::plan::TableFunction,
) -> LogicalPlan {
    LogicalPlan::TableFunction {
        func: read((0..schema.len()).collect()),
        schema: schema.into_iter().map(|(n, t)| Field::new(n, t)).collect(),
    }
}
