//! CALL and PRAGMA: built-in procedures. `CALL dbgen(sf = N)` / `CALL dsdgen(sf = N)`
//! generate the TPC-H / TPC-DS tables, `PRAGMA tpch(N)` / `PRAGMA tpcds(N)` run query N, and `CHECKPOINT` (which the parser
//! turns into `PRAGMA checkpoint`) checkpoints the database file; the binder checks names
//! and arguments, the facade carries them out. `PRAGMA storage_info('t')` and
//! `PRAGMA integrity_check` are queries over rows storage reports while binding.

use super::expr::ExprCtx;
use super::fold::fold_constant;
use super::from::object_name;
use super::scope::Scope;
use super::{Benchmark, Binder, BoundStatement};
use crate::catalog::STORAGE_INFO_COLUMNS;
use crate::plan::{Field, LogicalPlan};
use sqlparser::ast;
use stride_common::{DataType, Error, Result, ScalarValue};

/// `PRAGMA functions`: DuckDB's columns, from duckdb_functions().
const PRAGMA_FUNCTIONS_SQL: &str = "SELECT function_name AS name, upper(function_type) AS type, \
    parameter_types AS parameters, varargs, return_type, has_side_effects AS side_effects \
    FROM duckdb_functions() ORDER BY name";

/// `PRAGMA show_tables_expanded`: each table and view with its columns' names and types.
const PRAGMA_SHOW_TABLES_EXPANDED_SQL: &str = "SELECT database_name AS database, \
    schema_name AS schema, table_name AS name, \
    list(column_name ORDER BY column_index) AS column_names, \
    list(data_type ORDER BY column_index) AS column_types, false AS temporary \
    FROM duckdb_columns() GROUP BY ALL ORDER BY name";

impl Binder<'_> {
    pub(super) fn bind_call(&mut self, f: &ast::Function) -> Result<BoundStatement> {
        let name = object_name(&f.name)?;
        match name.as_str() {
            "dbgen" | "dsdgen" => {
                let mut scale_factor = None;
                for (param, value) in self.procedure_args(&name, &f.args)? {
                    match param.as_deref() {
                        Some("sf") => {
                            scale_factor = Some(value.as_f64().ok_or_else(|| {
                                Error::binder(format!("{name}: sf must be a number, not {value}"))
                            })?)
                        }
                        Some(other) => {
                            return Err(Error::binder(format!(
                                "{name} has no parameter \"{other}\"; it takes sf, as in CALL {name}(sf = 1)"
                            )))
                        }
                        None => {
                            return Err(Error::binder(format!(
                                "{name} takes named arguments, as in CALL {name}(sf = 1)"
                            )))
                        }
                    }
                }
                Ok(BoundStatement::Generate {
                    benchmark: if name == "dbgen" {
                        Benchmark::Tpch
                    } else {
                        Benchmark::Tpcds
                    },
                    scale_factor: scale_factor.unwrap_or(1.0),
                })
            }
            other => Err(Error::catalog(format!(
                "procedure \"{other}\" does not exist; the built-in procedures are dbgen and dsdgen"
            ))),
        }
    }

    /// The pragmas [`Binder::bind_pragma`] knows that DuckDB has too (duckdb_functions
    /// lists them).
    pub(crate) const PRAGMAS: &'static [&'static str] = &[
        "force_checkpoint",
        "storage_info",
        "table_info",
        "show_tables",
        "database_size",
        "database_list",
        "platform",
        "user_agent",
        "show_databases",
        "show_tables_expanded",
        "collations",
        "functions",
        "show",
        "enable_optimizer",
        "disable_optimizer",
        "enable_profiling",
        "enable_profile",
        "disable_profiling",
        "disable_profile",
    ];

    /// `PRAGMA collations` / `pragma_collations()`: the collations stride knows.
    pub(super) fn collations(&self) -> LogicalPlan {
        super::constant_rows(
            vec![crate::plan::Field::new("collname", DataType::Varchar)],
            ["binary", "noaccent", "nocase"]
                .iter()
                .map(|c| vec![ScalarValue::Varchar(c.to_string())])
                .collect(),
        )
    }

    pub(super) fn bind_pragma(
        &mut self,
        name: &ast::ObjectName,
        value: Option<&ast::ValueWithSpan>,
    ) -> Result<BoundStatement> {
        let name = object_name(name)?;
        match name.as_str() {
            "tpch" | "tpcds" => {
                let number = match value.map(|v| &v.value) {
                    Some(ast::Value::Number(n, _)) => n.parse::<i64>().ok(),
                    _ => None,
                }
                .ok_or_else(|| {
                    Error::binder(format!(
                        "PRAGMA {name} takes a query number, as in PRAGMA {name}(7)"
                    ))
                })?;
                Ok(BoundStatement::BenchmarkQuery {
                    benchmark: if name == "tpch" {
                        Benchmark::Tpch
                    } else {
                        Benchmark::Tpcds
                    },
                    number,
                })
            }
            "checkpoint" | "force_checkpoint" if value.is_none() => Ok(BoundStatement::Checkpoint { vacuum: false }),
            "storage_info" | "table_info" => {
                let table = match value.map(|v| &v.value) {
                    Some(ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s)) => {
                        s.clone()
                    }
                    _ => {
                        return Err(Error::binder(format!(
                            "PRAGMA {name} takes a table name, as in PRAGMA {name}('t')"
                        )))
                    }
                };
                Ok(BoundStatement::Query(if name == "table_info" {
                    self.bind_table_info(&table)?
                } else {
                    self.bind_storage_info(&table)?
                }))
            }
            "show_tables" if value.is_none() => Ok(BoundStatement::Query(self.show_tables_plan())),
            "database_size" if value.is_none() => Ok(BoundStatement::DatabaseSize),
            "database_list" if value.is_none() => {
                Ok(BoundStatement::Query(self.database_list()))
            }
            "platform" | "user_agent" | "version" if value.is_none() => {
                let plan = self
                    .duckdb_table_function(&format!("pragma_{name}"))
                    .ok_or_else(|| Error::internal("pragma table function"))??;
                Ok(BoundStatement::Query(plan))
            }
            // every optimizer pass off (SET disabled_optimizers), or back on (RESET)
            "disable_optimizer" if value.is_none() => Ok(BoundStatement::Set {
                name: "disabled_optimizers".into(),
                value: ScalarValue::Varchar(crate::optimizer::PASSES.join(",")),
            }),
            "enable_optimizer" if value.is_none() => Ok(BoundStatement::Reset {
                name: "disabled_optimizers".into(),
            }),
            // profile every query (SET enable_profiling), or stop (RESET)
            "enable_profiling" | "enable_profile" => Ok(BoundStatement::Set {
                name: "enable_profiling".into(),
                value: match value.map(|v| &v.value) {
                    Some(ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s)) => {
                        ScalarValue::Varchar(s.clone())
                    }
                    Some(_) => {
                        return Err(Error::binder(
                            "PRAGMA enable_profiling takes a format: 'query_tree', 'json' or 'no_output'",
                        ))
                    }
                    None => ScalarValue::Varchar("query_tree".into()),
                },
            }),
            "disable_profiling" | "disable_profile" if value.is_none() => {
                Ok(BoundStatement::Reset {
                    name: "enable_profiling".into(),
                })
            }
            "profiling_output" | "profile_output" => match value.map(|v| &v.value) {
                Some(ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s)) => {
                    Ok(BoundStatement::Set {
                        name: "profiling_output".into(),
                        value: ScalarValue::Varchar(s.clone()),
                    })
                }
                _ => Err(Error::binder(format!(
                    "PRAGMA {name} takes a file name, as in PRAGMA {name} = 'profile.txt'"
                ))),
            },
            "show_databases" if value.is_none() => Ok(BoundStatement::Query(self.show_databases())),
            "collations" if value.is_none() => Ok(BoundStatement::Query(self.collations())),
            "functions" | "show_tables_expanded" if value.is_none() => {
                let sql = if name == "functions" {
                    PRAGMA_FUNCTIONS_SQL
                } else {
                    PRAGMA_SHOW_TABLES_EXPANDED_SQL
                };
                Ok(BoundStatement::Query(self.bind_sql_query(sql)?))
            }
            "show" => {
                let table = match value.map(|v| &v.value) {
                    Some(ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s)) => {
                        s.clone()
                    }
                    _ => {
                        return Err(Error::binder(
                            "PRAGMA show takes a table name, as in PRAGMA show('t')",
                        ))
                    }
                };
                self.describe_table(&ast::ObjectName::from(vec![ast::Ident::new(table)]))
            }
            "integrity_check" if value.is_none() => {
                Ok(BoundStatement::Query(self.bind_integrity_check()))
            }
            // `PRAGMA setting = value` (DuckDB's spelling of SET)
            _ if value.is_some() => Ok(BoundStatement::Set {
                value: super::expr::value_literal(&value.expect("checked").value)?,
                name,
            }),
            other => Err(Error::catalog(format!(
                "pragma \"{other}\" does not exist; the built-in pragmas are tpch, tpcds, checkpoint, database_size, database_list, storage_info, table_info, show, show_tables, show_tables_expanded, show_databases, functions, collations, platform, user_agent, version, enable_optimizer, disable_optimizer, enable_profiling, disable_profiling, profiling_output and integrity_check"
            ))),
        }
    }

    /// `PRAGMA table_info('t')` / `pragma_table_info('t')`: a row per column, as
    /// SQLite and DuckDB give it. The catalog keeps a primary key as a unique key over
    /// NOT NULL columns, so such a key is what `pk` marks.
    pub(super) fn bind_table_info(&mut self, table: &str) -> Result<LogicalPlan> {
        let name = ast::ObjectName(
            table
                .split('.')
                .map(|p| ast::ObjectNamePart::Identifier(ast::Ident::new(p)))
                .collect(),
        );
        let (catalog, tname) = self.relation(&name)?;
        let (_, schema) = catalog
            .table(&tname)
            .ok_or_else(|| Error::catalog(format!("Table with name {tname} does not exist!")))?;
        let fields = vec![
            Field::new("cid", DataType::Integer),
            Field::new("name", DataType::Varchar),
            Field::new("type", DataType::Varchar),
            Field::new("notnull", DataType::Boolean),
            Field::new("dflt_value", DataType::Varchar),
            Field::new("pk", DataType::Boolean),
        ];
        let rows = schema
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let pk = schema
                    .primary_key
                    .and_then(|k| schema.unique_keys.get(k))
                    .is_some_and(|k| k.contains(&i));
                vec![
                    ScalarValue::Integer(i as i32),
                    ScalarValue::Varchar(c.name.clone()),
                    ScalarValue::Varchar(c.ty.to_string()),
                    ScalarValue::Boolean(c.not_null),
                    crate::system::snapshot::duckdb_default(c)
                        .map_or(ScalarValue::Null, ScalarValue::Varchar),
                    ScalarValue::Boolean(pk),
                ]
            })
            .collect();
        Ok(super::constant_rows(fields, rows))
    }

    /// `PRAGMA storage_info('t')` / `pragma_storage_info('t')`: a row per segment.
    pub(super) fn bind_storage_info(&mut self, table: &str) -> Result<LogicalPlan> {
        let (id, _) = self
            .catalog
            .table(table)
            .ok_or_else(|| Error::catalog(format!("Table with name {table} does not exist!")))?;
        let schema: Vec<Field> = STORAGE_INFO_COLUMNS
            .iter()
            .map(|(n, ty)| Field::new(*n, ty.clone()))
            .collect();
        Ok(super::constant_rows(schema, self.catalog.storage_info(id)?))
    }

    /// `PRAGMA integrity_check`: one row `ok`, or a row per problem found (as SQLite
    /// answers it).
    pub(super) fn bind_integrity_check(&mut self) -> LogicalPlan {
        let mut problems = self.catalog.integrity_check();
        if problems.is_empty() {
            problems.push("ok".into());
        }
        super::constant_rows(
            vec![Field::new("integrity_check", DataType::Varchar)],
            problems
                .into_iter()
                .map(|p| vec![ScalarValue::Varchar(p)])
                .collect(),
        )
    }

    /// The arguments of a procedure call as (parameter name, constant value) pairs.
    fn procedure_args(
        &mut self,
        procedure: &str,
        args: &ast::FunctionArguments,
    ) -> Result<Vec<(Option<String>, ScalarValue)>> {
        let list = match args {
            ast::FunctionArguments::None => return Ok(Vec::new()),
            ast::FunctionArguments::List(l) => &l.args,
            ast::FunctionArguments::Subquery(_) => {
                return Err(Error::binder(format!(
                    "{procedure}: arguments must be constants, not a subquery"
                )))
            }
        };
        let mut out = Vec::new();
        for arg in list {
            let (param, expr) = match arg {
                ast::FunctionArg::Named { name, arg, .. } => {
                    (Some(name.value.to_ascii_lowercase()), arg)
                }
                ast::FunctionArg::ExprNamed { name, arg, .. } => match name {
                    ast::Expr::Identifier(id) => (Some(id.value.to_ascii_lowercase()), arg),
                    other => {
                        return Err(Error::binder(format!(
                            "{procedure}: \"{other}\" is not a parameter name"
                        )))
                    }
                },
                ast::FunctionArg::Unnamed(arg) => (None, arg),
            };
            let ast::FunctionArgExpr::Expr(e) = expr else {
                return Err(Error::binder(format!(
                    "{procedure}: arguments must be constant expressions"
                )));
            };
            let scope = Scope::default();
            let mut ctx = ExprCtx::new(&scope, "CALL");
            let bound = self.bind_expr(e, &mut ctx)?;
            let value = fold_constant(&bound)?.ok_or_else(|| {
                Error::binder(format!("{procedure}: arguments must be constants"))
            })?;
            out.push((param, value));
        }
        Ok(out)
    }
}
