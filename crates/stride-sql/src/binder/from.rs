//! Binding FROM: tables, CTE references, derived tables, table functions (`range`,
//! `generate_series`) and joins. Produces the plan of the FROM clause and the scope
//! its columns are visible in, with a table's `rowid` pseudo-column when the statement
//! names it. Comma-separated items become cross joins; the optimizer turns WHERE
//! conditions over them into join conditions. LATERAL subqueries are bound in
//! `lateral.rs`.
//!
//! Names are resolved here too: [`Binder::resolve`] finds the database (this one, an
//! attached one, or the connection's `temp`) a qualified name points into,
//! `Binder::relation` looks in `temp` first for unqualified tables and views, and
//! `create_target` / `object_target` say where CREATE and DROP go (a TEMP object to
//! `temp` only).

use super::expr::{bool_expr, cast_expr, compare, ident_name, unify_all, ExprCtx};
use super::fold::fold_constant;
use super::scope::{Lookup, Scope, Visibility};
use super::{did_you_mean, Binder};
use crate::catalog::{Catalog, TEMP_DATABASE};
use crate::plan::expr::next_subquery_id;
use crate::plan::visit::{max_outer_depth, references_outer};
use crate::plan::{DeferredFunction, Expr, Field, JoinKind, LogicalPlan, TableFunction};
use sqlparser::ast;
use std::sync::Arc;
use stride_common::{DataType, Error, Result, ScalarValue};
use stride_io::columnar::ColumnarFormat;

impl<'a> Binder<'a> {
    pub fn bind_from(&mut self, from: &[ast::TableWithJoins]) -> Result<(LogicalPlan, Scope)> {
        let mut acc: Option<(LogicalPlan, Scope)> = None;
        for twj in from {
            // A RIGHT or FULL join after the item keeps rows the item lacks, so it
            // cannot be applied to the items before the comma joined with the item:
            // `a, u RIGHT JOIN c` is `a, (u RIGHT JOIN c)`, the comma binding loosest.
            let keeps_right = twj.joins.iter().any(|j| {
                matches!(
                    j.join_operator,
                    ast::JoinOperator::Right(_)
                        | ast::JoinOperator::RightOuter(_)
                        | ast::JoinOperator::FullOuter(_)
                )
            });
            acc = Some(match acc {
                Some(left) if keeps_right && super::lateral::is_lateral(&twj.relation) => {
                    let right = self.bind_table_with_joins(twj).map_err(|e| {
                        Error::not_supported(format!(
                            "{}; a LATERAL item or table function followed by RIGHT or FULL JOIN cannot read the FROM items before it: join them inside a subquery",
                            e.message
                        ))
                    })?;
                    cross(left, right)
                }
                // `a, LATERAL (…) s JOIN c …`: the subquery sees the items before it.
                Some(left) if super::lateral::is_lateral(&twj.relation) => {
                    let joined = self.bind_lateral(
                        left,
                        &twj.relation,
                        &ast::JoinOperator::CrossJoin(ast::JoinConstraint::None),
                    )?;
                    self.bind_joins(joined, &twj.joins)?
                }
                None => self.bind_table_with_joins(twj)?,
                Some(left) => cross(left, self.bind_table_with_joins(twj)?),
            });
        }
        Ok(acc.unwrap_or_else(|| {
            (
                LogicalPlan::Values {
                    rows: vec![vec![]],
                    schema: vec![],
                },
                Scope::default(),
            )
        }))
    }

    fn bind_table_with_joins(&mut self, twj: &ast::TableWithJoins) -> Result<(LogicalPlan, Scope)> {
        // `a POSITIONAL JOIN b` parses as `a` named positional, then a JOIN without a
        // condition
        let alias = match &twj.relation {
            ast::TableFactor::Table { alias, .. }
            | ast::TableFactor::Derived { alias, .. }
            | ast::TableFactor::Function { alias, .. }
            | ast::TableFactor::TableFunction { alias, .. } => alias.as_ref(),
            _ => None,
        };
        let positional = alias.is_some_and(|a| {
            a.name.quote_style.is_none() && a.name.value.eq_ignore_ascii_case("positional")
        });
        if positional
            && twj.joins.first().is_some_and(|j| {
                matches!(
                    j.join_operator,
                    ast::JoinOperator::Join(ast::JoinConstraint::None)
                        | ast::JoinOperator::Inner(ast::JoinConstraint::None)
                )
            })
        {
            return Err(Error::not_supported("POSITIONAL JOIN is not supported yet"));
        }
        let left = self.bind_table_factor(&twj.relation)?;
        self.bind_joins(left, &twj.joins)
    }

    /// `left` joined with each of `joins` in turn.
    fn bind_joins(
        &mut self,
        mut left: (LogicalPlan, Scope),
        joins: &[ast::Join],
    ) -> Result<(LogicalPlan, Scope)> {
        for j in joins {
            left = if super::lateral::is_lateral(&j.relation) {
                self.bind_lateral(left, &j.relation, &j.join_operator)?
            } else {
                let right = self.bind_table_factor(&j.relation)?;
                self.bind_join(left, right, &j.join_operator)?
            };
        }
        Ok(left)
    }

    pub(super) fn bind_join(
        &mut self,
        left: (LogicalPlan, Scope),
        right: (LogicalPlan, Scope),
        op: &ast::JoinOperator,
    ) -> Result<(LogicalPlan, Scope)> {
        use ast::JoinOperator as J;
        let (kind, constraint) = match op {
            J::Join(c) | J::Inner(c) => (JoinKind::Inner, c),
            J::Left(c) | J::LeftOuter(c) => (JoinKind::Left, c),
            J::Right(c) | J::RightOuter(c) => (JoinKind::Right, c),
            J::FullOuter(c) => (JoinKind::Full, c),
            J::CrossJoin(c) => (JoinKind::Inner, c),
            J::Semi(c) | J::LeftSemi(c) => (JoinKind::Semi, c),
            J::Anti(c) | J::LeftAnti(c) => (JoinKind::Anti, c),
            other => {
                return Err(Error::not_supported(format!(
                    "join type {other:?} is not supported yet"
                )))
            }
        };
        let (lplan, lscope) = left;
        let (rplan, rscope) = right;
        let nleft = lscope.fields.len();
        let mut fields = lscope.fields.clone();
        fields.extend(rscope.fields.iter().cloned());
        let mut scope = Scope::new(fields.clone());
        scope.visibility[..nleft].copy_from_slice(&lscope.visibility);
        scope.visibility[nleft..].copy_from_slice(&rscope.visibility);
        let mut filter = None;
        let using: Vec<String> = match constraint {
            ast::JoinConstraint::On(e) => {
                let mut ctx = ExprCtx::new(&scope, "JOIN condition");
                filter = Some(bool_expr(self.bind_expr(e, &mut ctx)?, "JOIN condition")?);
                vec![]
            }
            ast::JoinConstraint::Using(cols) => cols
                .iter()
                .map(|c| c.to_string().trim_matches('"').to_string())
                .collect(),
            ast::JoinConstraint::Natural => lscope
                .fields
                .iter()
                .enumerate()
                .filter(|(i, f)| {
                    lscope.is_visible(*i)
                        && matches!(rscope.lookup(None, &f.name), Lookup::Found(r) if rscope.is_visible(r))
                })
                .map(|(_, f)| f.name.clone())
                .collect(),
            ast::JoinConstraint::None => {
                if !matches!(op, J::CrossJoin(_)) {
                    return Err(Error::binder(
                        "this join needs an ON or USING condition; CROSS JOIN pairs every row with every row",
                    ));
                }
                vec![]
            }
        };
        let mut terms = Vec::new();
        // (left, right) positions of each USING column pair.
        let mut merged = Vec::new();
        for name in &using {
            let li = match lscope.lookup(None, name) {
                Lookup::Found(i) => i,
                _ => {
                    return Err(Error::binder(format!(
                        "column \"{name}\" named in USING does not exist in the left table"
                    )))
                }
            };
            let ri = match rscope.lookup(None, name) {
                Lookup::Found(i) => i,
                _ => {
                    return Err(Error::binder(format!(
                        "column \"{name}\" named in USING does not exist in the right table"
                    )))
                }
            };
            terms.push(compare("=", scope.column(li), scope.column(nleft + ri))?);
            scope.visibility[nleft + ri] = Visibility::Qualified;
            merged.push((li, nleft + ri));
        }
        if !terms.is_empty() {
            filter = Expr::conjunction(terms);
        }
        let schema = if matches!(kind, JoinKind::Semi | JoinKind::Anti) {
            scope = lscope;
            scope.fields.clone()
        } else {
            fields
        };
        let mut plan = LogicalPlan::Join {
            left: Box::new(lplan),
            right: Box::new(rplan),
            kind,
            on: vec![],
            filter,
            schema,
        };
        if matches!(kind, JoinKind::Right | JoinKind::Full) && !merged.is_empty() {
            // The unqualified USING column is COALESCE(left, right), in the left
            // column's place (where `SELECT *` shows it, as in DuckDB): rows only the
            // right side has carry their key too. The left column itself follows it,
            // reachable only as `l.k`; `r.k` keeps its own values too.
            let mut exprs = Vec::new();
            let mut out = Scope::default();
            for i in 0..scope.fields.len() {
                if let Some(&(_, r)) = merged.iter().find(|(l, _)| *l == i) {
                    let (args, ty) = unify_all(vec![scope.column(i), scope.column(r)], "USING")?;
                    let merged = Expr::Coalesce {
                        args,
                        ty: ty.clone(),
                    };
                    let field = Field::new(scope.fields[i].name.clone(), ty)
                        .with_collation(super::collation::output(&merged));
                    exprs.push(merged);
                    out.fields.push(field);
                    out.visibility.push(Visibility::Visible);
                    // the left column itself, right after it: reachable only as
                    // `l.k`, and in its place in `l.*`
                    exprs.push(scope.column(i));
                    out.fields.push(scope.fields[i].clone());
                    out.visibility.push(Visibility::Qualified);
                } else {
                    exprs.push(scope.column(i));
                    out.fields.push(scope.fields[i].clone());
                    out.visibility.push(scope.visibility[i]);
                }
            }
            plan = LogicalPlan::Project {
                input: Box::new(plan),
                exprs,
                schema: out.fields.clone(),
            };
            scope = out;
        }
        Ok((plan, scope))
    }

    /// Binds one FROM item, with its `TABLESAMPLE` clause if it has one
    /// (`sample.rs`).
    pub(super) fn bind_table_factor(
        &mut self,
        tf: &ast::TableFactor,
    ) -> Result<(LogicalPlan, Scope)> {
        let (ast::TableFactor::Table {
            sample: Some(kind), ..
        }
        | ast::TableFactor::Derived {
            sample: Some(kind), ..
        }) = tf
        else {
            return self.bind_unsampled_table_factor(tf);
        };
        let sample = match kind {
            ast::TableSampleKind::BeforeTableAlias(s)
            | ast::TableSampleKind::AfterTableAlias(s) => super::sample::bind_sample(s)?,
        };
        let mut unsampled = tf.clone();
        if let ast::TableFactor::Table { sample, .. } | ast::TableFactor::Derived { sample, .. } =
            &mut unsampled
        {
            *sample = None;
        }
        let (plan, scope) = self.bind_unsampled_table_factor(&unsampled)?;
        Ok((super::sample::apply_sample(plan, &sample)?, scope))
    }

    fn bind_unsampled_table_factor(
        &mut self,
        tf: &ast::TableFactor,
    ) -> Result<(LogicalPlan, Scope)> {
        if let ast::TableFactor::Table {
            with_ordinality: true,
            ..
        }
        | ast::TableFactor::Function {
            with_ordinality: true,
            ..
        } = tf
        {
            return Err(Error::not_supported(
                "WITH ORDINALITY is not supported yet; for a list, generate_subscripts(l, 1) gives the positions",
            ));
        }
        match tf {
            ast::TableFactor::Table {
                name,
                alias,
                args: None,
                ..
            } => {
                let (catalog, tname) = self.relation(name)?;
                if let Some(schema) = schema_name(name) {
                    if crate::system::is_system_schema(&schema) {
                        let t = crate::system::find(Some(&schema), &tname).ok_or_else(|| {
                            Error::catalog(format!(
                                "Table with name {schema}.{tname} does not exist!"
                            ))
                        })?;
                        let plan = self.bind_system_table(t)?;
                        let qual = alias.as_ref().map_or(tname, |a| ident_name(&a.name));
                        return apply_alias(plan, &qual, alias.as_ref());
                    }
                }
                // The recursive part of a recursive CTE reads the last round's rows.
                if let Some((_, id, schema)) = self
                    .recursive_refs
                    .iter()
                    .rev()
                    .find(|(n, _, _)| name.0.len() == 1 && n.eq_ignore_ascii_case(&tname))
                    .cloned()
                {
                    let plan = LogicalPlan::RecursiveRef { id, schema };
                    let qual = alias.as_ref().map_or(tname, |a| ident_name(&a.name));
                    return apply_alias(plan, &qual, alias.as_ref());
                }
                // Only a bare name can mean a CTE (`main.t` is the table).
                let cte = match name.0.len() {
                    1 => self.find_cte(&tname),
                    _ => None,
                };
                if let Some((level, index, cte)) = cte {
                    let plan = self.bind_cte(&cte, level, index)?;
                    let mut fields = super::unqualified(plan.schema());
                    for (f, c) in fields.iter_mut().zip(&cte.alias.columns) {
                        f.name = ident_name(&c.name);
                    }
                    let plan = rename(plan, fields);
                    let qual = alias
                        .as_ref()
                        .map_or(tname.clone(), |a| ident_name(&a.name));
                    return apply_alias(plan, &qual, alias.as_ref());
                }
                if name.0.len() == 1 {
                    if let Some(r) = self.registered.get(&tname.to_lowercase()).cloned() {
                        let schema = r.names.iter().cloned().zip(r.types.iter().cloned());
                        let plan = super::source_scan(schema.collect(), |columns| {
                            TableFunction::Registered {
                                data: crate::plan::RegisteredData(r),
                                columns,
                            }
                        });
                        let qual = alias.as_ref().map_or(tname, |a| ident_name(&a.name));
                        return apply_alias(plan, &qual, alias.as_ref());
                    }
                }
                if let Some((sql, columns)) = catalog.view(&tname) {
                    // A view's own names are looked up in its database.
                    let home = self.view_home(catalog.clone());
                    let outer = std::mem::replace(&mut self.catalog, home);
                    let plan = self.bind_view(&tname, &sql);
                    self.catalog = outer;
                    let plan = plan?;
                    let mut fields = super::unqualified(plan.schema());
                    for (f, c) in fields.iter_mut().zip(&columns) {
                        f.name = c.clone();
                    }
                    let plan = rename(plan, fields);
                    let qual = alias
                        .as_ref()
                        .map_or(tname.clone(), |a| ident_name(&a.name));
                    return apply_alias(plan, &qual, alias.as_ref());
                }
                if let Some(path) = file_path(name) {
                    if catalog.table(&tname).is_none() {
                        let plan = self.bind_file_shorthand(&path)?;
                        let stem = std::path::Path::new(&path)
                            .file_stem()
                            .and_then(|s| s.to_str())
                            .unwrap_or("")
                            .split('.')
                            .next()
                            .unwrap_or("")
                            .to_string();
                        let qual = alias.as_ref().map_or(stem, |a| ident_name(&a.name));
                        return apply_alias(plan, &qual, alias.as_ref());
                    }
                }
                let Some((id, schema)) = catalog.table(&tname) else {
                    // pg_catalog's tables need no schema, unless the user has a table
                    // of that name.
                    if let Some(t) = crate::system::find(None, &tname) {
                        let plan = self.bind_system_table(t)?;
                        let qual = alias.as_ref().map_or(tname, |a| ident_name(&a.name));
                        return apply_alias(plan, &qual, alias.as_ref());
                    }
                    let names = catalog.table_names();
                    let mut msg = format!("Table with name {tname} does not exist!");
                    if let Some(s) = did_you_mean(&tname, names.iter().map(|s| s.as_str())) {
                        msg.push_str(&format!(" Did you mean \"{s}\"?"));
                    }
                    return Err(Error::catalog(msg));
                };
                let qual = alias
                    .as_ref()
                    .map_or(schema.name.clone(), |a| ident_name(&a.name));
                let fields: Vec<Field> = schema.columns.iter().map(Field::of_column).collect();
                let plan = LogicalPlan::Scan {
                    columns: (0..fields.len()).collect(),
                    table: schema,
                    table_id: id,
                    schema: fields,
                    rows: catalog.row_count(id),
                };
                let scan = apply_alias(plan, &qual, alias.as_ref())?;
                Ok(if self.rowid_column {
                    with_rowid(scan)
                } else {
                    scan
                })
            }
            ast::TableFactor::Table {
                name,
                alias,
                args: Some(args),
                ..
            } => {
                let fname = object_name(name)?;
                let plan = self.bind_table_function(&fname, &args.args)?;
                let alias = column_named_by_alias(&fname, &plan, alias.as_ref());
                let qual = alias.as_ref().map_or(fname, |a| ident_name(&a.name));
                apply_alias(plan, &qual, alias.as_ref())
            }
            // `LATERAL unnest(…)`: the keyword changes nothing for a table function.
            ast::TableFactor::Function {
                name,
                args,
                alias,
                with_ordinality: false,
                ..
            } => {
                let fname = object_name(name)?;
                let plan = self.bind_table_function(&fname, args)?;
                let alias = column_named_by_alias(&fname, &plan, alias.as_ref());
                let qual = alias.as_ref().map_or(fname, |a| ident_name(&a.name));
                apply_alias(plan, &qual, alias.as_ref())
            }
            // LATERAL with nothing before it to read is a plain derived table.
            ast::TableFactor::Derived {
                subquery, alias, ..
            } => {
                let plan = self.bind_query(subquery)?;
                let fields = super::unqualified(plan.schema());
                let plan = rename(plan, fields);
                let qual = alias
                    .as_ref()
                    .map_or(String::new(), |a| ident_name(&a.name));
                apply_alias(plan, &qual, alias.as_ref())
            }
            ast::TableFactor::Pivot {
                table,
                aggregate_functions,
                value_column,
                value_source,
                default_on_null,
                alias,
            } => {
                let plan = self.bind_pivot(
                    table,
                    aggregate_functions,
                    value_column,
                    value_source,
                    default_on_null.as_ref(),
                )?;
                let fields = super::unqualified(plan.schema());
                let qual = alias
                    .as_ref()
                    .map_or(String::new(), |a| ident_name(&a.name));
                apply_alias(rename(plan, fields), &qual, alias.as_ref())
            }
            ast::TableFactor::Unpivot {
                table,
                value,
                name,
                columns,
                null_inclusion,
                alias,
            } => {
                let include = matches!(null_inclusion, Some(ast::NullInclusion::IncludeNulls));
                let plan = self.bind_unpivot(table, value, name, columns, include)?;
                let fields = super::unqualified(plan.schema());
                let qual = alias
                    .as_ref()
                    .map_or(String::new(), |a| ident_name(&a.name));
                apply_alias(rename(plan, fields), &qual, alias.as_ref())
            }
            ast::TableFactor::NestedJoin {
                table_with_joins,
                alias,
            } => {
                let (plan, scope) = self.bind_table_with_joins(table_with_joins)?;
                match alias {
                    None => Ok((plan, scope)),
                    Some(a) => {
                        // An aliased join is one relation of the columns `*` shows
                        // (a USING column once): the others are not its columns.
                        let keep: Vec<usize> = (0..scope.fields.len())
                            .filter(|&i| scope.visibility[i] == Visibility::Visible)
                            .collect();
                        let plan = if keep.len() == scope.fields.len() {
                            plan
                        } else {
                            LogicalPlan::Project {
                                input: Box::new(plan),
                                exprs: keep.iter().map(|&i| scope.column(i)).collect(),
                                schema: keep.iter().map(|&i| scope.fields[i].clone()).collect(),
                            }
                        };
                        let fields = super::unqualified(plan.schema());
                        apply_alias(rename(plan, fields), &ident_name(&a.name), Some(a))
                    }
                }
            }
            other => Err(Error::not_supported(format!(
                "FROM item not supported yet: {other}"
            ))),
        }
    }

    fn bind_table_function(
        &mut self,
        name: &str,
        args: &[ast::FunctionArg],
    ) -> Result<LogicalPlan> {
        if let Some(def) = self.macro_named(name)? {
            let plan = self.bind_table_macro(&def, args)?;
            let fields = super::unqualified(plan.schema());
            return Ok(rename(plan, fields));
        }
        match name {
            crate::parser::SUMMARIZE_FUNCTION => return self.bind_summarize(args),
            "read_csv" | "read_csv_auto" => return self.bind_read_csv(args),
            "read_parquet" | "parquet_scan" => {
                return self.bind_read_columnar(args, ColumnarFormat::Parquet)
            }
            "read_arrow" => return self.bind_read_columnar(args, ColumnarFormat::Arrow),
            "read_json" | "read_json_auto" => return self.bind_read_json(args, name, false),
            "read_ndjson" | "read_ndjson_auto" | "read_ndjson_objects" => {
                return self.bind_read_json(args, name, true)
            }
            "read_json_objects" | "read_json_objects_auto" => {
                return self.bind_read_json(args, name, false)
            }
            "json_each" | "json_tree" => return self.bind_json_each(name, args),
            "parquet_schema" => return self.bind_parquet_footer(args, false),
            "parquet_metadata" => return self.bind_parquet_footer(args, true),
            "parquet_file_metadata" => return self.bind_parquet_file_metadata(args),
            "sniff_csv" => return self.bind_sniff_csv(args),
            "duckdb_databases" if args.is_empty() => return Ok(self.bind_databases()),
            "duckdb_functions" if args.is_empty() => {
                let schema = crate::system::duckdb_functions::columns()
                    .into_iter()
                    .map(|(n, t)| Field::new(n, t))
                    .collect();
                return Ok(super::constant_rows(
                    schema,
                    crate::system::duckdb_functions::rows(),
                ));
            }
            "pragma_storage_info" | "pragma_table_info" => {
                let table =
                    match args {
                        [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(
                            ast::Expr::Value(v),
                        ))] => match &v.value {
                            ast::Value::SingleQuotedString(s) => Some(s.clone()),
                            _ => None,
                        },
                        _ => None,
                    }
                    .ok_or_else(|| {
                        Error::binder(format!("{name} takes a table name, as in {name}('t')"))
                    })?;
                return if name == "pragma_table_info" {
                    self.bind_table_info(&table)
                } else {
                    self.bind_storage_info(&table)
                };
            }
            _ if args.is_empty() && super::DUCKDB_TABLE_FUNCTIONS.contains(&name) => {
                if let Some(plan) = self.duckdb_table_function(name) {
                    return plan;
                }
            }
            _ if super::QUERY_TABLE_FUNCTIONS.contains(&name) => {
                if let Some(plan) = self.query_table_function(name, args) {
                    return plan;
                }
            }
            _ => {}
        }
        let mut bound_args = Vec::new();
        let scope = Scope::default();
        for a in args {
            let e = match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => e,
                other => {
                    return Err(Error::binder(format!(
                        "unsupported argument {other} to table function {name}"
                    )))
                }
            };
            let mut ctx = ExprCtx::new(&scope, "table function arguments");
            bound_args.push(self.bind_expr(e, &mut ctx)?);
        }
        if name == "unnest" {
            return bind_unnest(bound_args);
        }
        let temporal = |e: &Expr| {
            matches!(
                e.data_type(),
                DataType::Date | DataType::Timestamp | DataType::TimestampTz | DataType::Interval
            )
        };
        if matches!(name, "range" | "generate_series") && bound_args.iter().any(temporal) {
            return temporal_series(name, bound_args);
        }
        // Arguments over an enclosing query's columns are evaluated per outer row.
        let outer = bound_args
            .iter()
            .any(|a| a.any(&mut |x| matches!(x, Expr::OuterColumn { .. })));
        if outer && matches!(name, "range" | "generate_series") {
            let args = bound_args
                .into_iter()
                .map(|a| cast_expr(a, &DataType::BigInt))
                .collect::<Result<Vec<_>>>()?;
            if args.is_empty() || args.len() > 3 {
                return Err(Error::binder(format!(
                    "{name} takes 1 to 3 arguments, got {}",
                    args.len()
                )));
            }
            return Ok(LogicalPlan::TableFunction {
                func: TableFunction::Deferred {
                    func: DeferredFunction::Series {
                        inclusive: name == "generate_series",
                    },
                    args,
                },
                schema: vec![Field::new(name, DataType::BigInt)],
            });
        }
        if !matches!(name, "range" | "generate_series") {
            return Err(unknown_table_function(name));
        }
        let mut values = Vec::new();
        for bound in bound_args {
            let v = fold_constant(&bound)?
                .ok_or_else(|| Error::binder(format!("arguments of {name} must be constants")))?;
            let v = if v.is_null() {
                None
            } else {
                let cast =
                    stride_functions::cast_scalar(&v, &DataType::BigInt, false).map_err(|_| {
                        Error::binder(format!(
                            "arguments of {name} must be integers, got {}",
                            v.data_type()
                        ))
                    })?;
                cast.as_i64()
            };
            values.push(v);
        }
        match name {
            "range" | "generate_series" => {
                let inclusive = name == "generate_series";
                if values.iter().any(|v| v.is_none()) {
                    return Ok(LogicalPlan::TableFunction {
                        func: TableFunction::Range {
                            start: 0,
                            stop: 0,
                            step: 1,
                            inclusive: false,
                        },
                        schema: vec![Field::new(name, DataType::BigInt)],
                    });
                }
                let v: Vec<i64> = values.into_iter().flatten().collect();
                let (start, stop, step) = match v.as_slice() {
                    [n] => (0, *n, 1),
                    [a, b] => (*a, *b, 1),
                    [a, b, s] => (*a, *b, *s),
                    _ => {
                        return Err(Error::binder(format!(
                            "{name} takes 1 to 3 arguments, got {}",
                            v.len()
                        )))
                    }
                };
                if step == 0 {
                    return Err(Error::invalid_input(format!(
                        "{name}: the step must not be zero"
                    )));
                }
                Ok(LogicalPlan::TableFunction {
                    func: TableFunction::Range {
                        start,
                        stop,
                        step,
                        inclusive,
                    },
                    schema: vec![Field::new(name, DataType::BigInt)],
                })
            }
            other => Err(unknown_table_function(other)),
        }
    }

    /// The plan of a reference to `cte`, the `index`th of the WITH at `level` of
    /// [`Binder::ctes`]: its body bound once and shared by every reference (computed
    /// once, as `AS MATERIALIZED` asks), unless it is `AS NOT MATERIALIZED` or refers
    /// to columns of an enclosing query (then each reference binds its own copy, in
    /// its own scope).
    fn bind_cte(
        &mut self,
        cte: &std::sync::Arc<ast::Cte>,
        level: usize,
        index: usize,
    ) -> Result<LogicalPlan> {
        let key = std::sync::Arc::as_ptr(cte) as usize;
        let (id, body) = match self.cte_bodies.get(&key) {
            Some(shared) => shared.clone(),
            None => {
                if self.binding_ctes.contains(&key) {
                    return Err(Error::binder(format!(
                        "Circular reference to CTE \"{}\": only the part after the last UNION of a recursive CTE (WITH RECURSIVE name AS (base UNION [ALL] step)) may read it",
                        ident_name(&cte.alias.name)
                    )));
                }
                // The body sees the CTEs defined before it (all of a WITH RECURSIVE,
                // itself included), and those of enclosing queries, not the CTEs of
                // the query that refers to it: a body's own name, or a later CTE's,
                // means an outer CTE or a table, as in PostgreSQL and DuckDB.
                let visible = self.ctes.clone();
                self.ctes.truncate(level + 1);
                if !self.recursive_ctes.contains(&key) {
                    self.ctes[level].truncate(index);
                }
                self.binding_ctes.push(key);
                let body = self.bind_cte_body(cte, key);
                self.binding_ctes.pop();
                self.ctes = visible;
                let body = body?;
                // `AS NOT MATERIALIZED`: written out at each reference, as is a
                // body that reads columns of an enclosing query
                let inline = matches!(
                    cte.materialized,
                    Some(ast::CteAsMaterialized::NotMaterialized)
                );
                let depth = max_outer_depth(&body);
                if inline || (1..=depth).any(|level| references_outer(&body, level)) {
                    return Ok(body);
                }
                let shared = (next_subquery_id(), std::sync::Arc::new(body));
                self.cte_bodies.insert(key, shared.clone());
                shared
            }
        };
        let schema = body.schema().to_vec();
        Ok(LogicalPlan::CteRef {
            id,
            body,
            schema,
            shared: false,
        })
    }

    /// A CTE's body: recursive (base UNION step, the step reading the CTE) or not.
    fn bind_cte_body(&mut self, cte: &ast::Cte, key: usize) -> Result<LogicalPlan> {
        if self.recursive_ctes.contains(&key) {
            if let Some(plan) = super::select::bind_recursive_cte(self, cte)? {
                return Ok(plan);
            }
        }
        self.bind_query(&cte.query)
    }

    /// The innermost visible CTE named `name`: its WITH's level, its position
    /// there, and its definition.
    fn find_cte(&self, name: &str) -> Option<(usize, usize, std::sync::Arc<ast::Cte>)> {
        self.ctes
            .iter()
            .enumerate()
            .rev()
            .find_map(|(level, with)| {
                let index = with.iter().position(|(n, _)| n == name)?;
                Some((level, index, with[index].1.clone()))
            })
    }
}

/// `unnest(list)`: one row per element, in order (a NULL list gives no rows).
/// `range(start, stop, step)` / `generate_series` over dates or timestamps with an
/// INTERVAL step (DuckDB's): one TIMESTAMP row per element of the scalar function's
/// list, so the two agree (a step of zero, though, is an error here as in DuckDB,
/// where the scalar gives an empty list).
fn temporal_series(name: &str, args: Vec<Expr>) -> Result<LogicalPlan> {
    if args.len() != 3 {
        return Err(Error::binder(format!(
            "{name} over dates and timestamps takes a start, a stop and an INTERVAL step, as in {name}(DATE '2024-01-01', DATE '2024-02-01', INTERVAL 1 DAY)"
        )));
    }
    if let Some(ScalarValue::Interval(step)) = fold_constant(&args[2])? {
        if step == stride_common::Interval::default() {
            return Err(Error::binder(format!(
                "{name}: the INTERVAL step must not be 0"
            )));
        }
    }
    let list = super::expr::call(name, args)?;
    let mut plan = bind_unnest(vec![list])?;
    match &mut plan {
        LogicalPlan::Values { schema, .. } | LogicalPlan::TableFunction { schema, .. } => {
            schema[0].name = name.to_string();
        }
        _ => {}
    }
    Ok(plan)
}

fn bind_unnest(mut args: Vec<Expr>) -> Result<LogicalPlan> {
    if args.len() != 1 {
        return Err(Error::binder(format!(
            "unnest takes one list argument, got {} arguments",
            args.len()
        )));
    }
    let mut arg = args.remove(0);
    if let DataType::Array(e, _) = arg.data_type() {
        arg = cast_expr(arg, &DataType::List(e))?;
    }
    let elem = match arg.data_type() {
        DataType::List(e) => *e,
        DataType::Null => DataType::Varchar,
        other => {
            return Err(Error::binder(format!(
                "unnest needs a list (array) argument, got {other}"
            )))
        }
    };
    let schema = vec![Field::new("unnest", elem.clone())];
    if let Some(v) = fold_constant(&arg)? {
        let items = match v {
            ScalarValue::List(_, items) => items,
            _ => Vec::new(),
        };
        let rows = items
            .into_iter()
            .map(|value| {
                vec![Expr::Literal {
                    value,
                    ty: elem.clone(),
                }]
            })
            .collect();
        return Ok(LogicalPlan::Values { rows, schema });
    }
    if !arg.any(&mut |x| matches!(x, Expr::OuterColumn { .. })) {
        return Err(Error::not_supported(
            "unnest over a column of the same FROM clause (LATERAL) is not supported yet",
        ));
    }
    let list = DataType::List(Box::new(elem));
    Ok(LogicalPlan::TableFunction {
        func: TableFunction::Deferred {
            func: DeferredFunction::Unnest,
            args: vec![cast_expr(arg, &list)?],
        },
        schema,
    })
}

/// The schema part of a qualified name (`pg_catalog` in `pg_catalog.pg_class`).
pub fn schema_name(name: &ast::ObjectName) -> Option<String> {
    let n = name.0.len();
    match name.0.get(n.checked_sub(2)?) {
        Some(ast::ObjectNamePart::Identifier(id)) => Some(ident_name(id)),
        _ => None,
    }
}

impl<'a> Binder<'a> {
    /// The name of a table or view, checking its qualifiers: `t`, `main.t`,
    /// `db.t` and `db.main.t` for this database `db`, and the system schemas
    /// `pg_catalog` and `information_schema`. Any other qualifier is an error rather
    /// than ignored (it names a database or schema stride does not have).
    /// A table or view name's bare name, checking its qualifiers: this database's
    /// name and the schemas main, pg_catalog and information_schema (see
    /// [`Binder::relation`] for names in other databases).
    pub(super) fn relation_name(&self, name: &ast::ObjectName) -> Result<String> {
        Ok(self.relation(name)?.1)
    }

    /// The catalog a table or view name refers to, and its bare name: `t`,
    /// `schema.t`, `db.t` or `db.schema.t`, where `db` is this database's name (`memory`
    /// or the file's stem), one ATTACHed or `temp`, and the schema is main (or
    /// pg_catalog and information_schema, for the system tables). As in DuckDB, `t` and
    /// `main.t` name the connection's TEMP table or view `t` when it has one.
    pub(super) fn relation(
        &self,
        name: &ast::ObjectName,
    ) -> Result<(Arc<dyn Catalog + 'a>, String)> {
        let (catalog, bare) = self.resolve(name)?;
        if search_temp_first(name) {
            if let Some(temp) = self.temp_holding(&bare) {
                return Ok((temp, bare));
            }
        }
        Ok((catalog, bare))
    }

    /// The connection's database of TEMP tables and views, if it holds a table, view
    /// or index named `bare`.
    fn temp_holding(&self, bare: &str) -> Option<Arc<dyn Catalog + 'a>> {
        let temp = self.temp_catalog()?;
        let holds = temp.table(bare).is_some()
            || temp.view(bare).is_some()
            || temp
                .indexes()
                .iter()
                .any(|i| i.name.eq_ignore_ascii_case(bare));
        holds.then_some(temp)
    }

    /// The connection's database of TEMP tables and views, when the session has one.
    pub(super) fn temp_catalog(&self) -> Option<Arc<dyn Catalog + 'a>> {
        if self
            .catalog
            .database_name()
            .eq_ignore_ascii_case(TEMP_DATABASE)
        {
            return Some(self.catalog.clone());
        }
        self.catalog
            .database(TEMP_DATABASE)
            .map(|c| c as Arc<dyn Catalog + 'a>)
    }

    /// The database whose names a view's query uses: the view's own, except for a
    /// TEMP view, whose names are looked up as the statement's are (TEMP objects, then
    /// the current database), as in DuckDB.
    pub(super) fn view_home(&self, view_catalog: Arc<dyn Catalog + 'a>) -> Arc<dyn Catalog + 'a> {
        if view_catalog
            .database_name()
            .eq_ignore_ascii_case(TEMP_DATABASE)
        {
            self.catalog.clone()
        } else {
            view_catalog
        }
    }

    /// Like [`Binder::relation`] without looking among TEMP tables and views: for
    /// sequences, macros and types, which the `temp` database never holds.
    pub(super) fn resolve(
        &self,
        name: &ast::ObjectName,
    ) -> Result<(Arc<dyn Catalog + 'a>, String)> {
        let parts: Vec<String> = name
            .0
            .iter()
            .map(|p| match p {
                ast::ObjectNamePart::Identifier(id) => Ok(ident_name(id)),
                _ => Err(Error::binder(format!("invalid name {name}"))),
            })
            .collect::<Result<_>>()?;
        let is_schema = |q: &str| {
            ["main", "pg_catalog", "information_schema"]
                .iter()
                .any(|s| q.eq_ignore_ascii_case(s))
        };
        let database = |d: &str| -> Option<Arc<dyn Catalog + 'a>> {
            if d.eq_ignore_ascii_case(&self.catalog.database_name()) {
                Some(self.catalog.clone())
            } else {
                self.catalog.database(d).map(|c| c as Arc<dyn Catalog + 'a>)
            }
        };
        let found = match parts.as_slice() {
            [_] => Some(self.catalog.clone()),
            [q, _] if is_schema(q) => Some(self.catalog.clone()),
            [q, _] => database(q),
            [d, s, _] if is_schema(s) => database(d),
            _ => None,
        };
        let Some(catalog) = found else {
            let qualifier = parts[..parts.len() - 1].join(".");
            let names: Vec<String> = self
                .catalog
                .databases()
                .into_iter()
                .map(|d| format!("\"{}\"", d.name))
                .collect();
            return Err(Error::catalog(format!(
                "Catalog or schema \"{qualifier}\" does not exist: the databases are {}, each with the schema main; ATTACH another database file to read it",
                names.join(", ")
            )));
        };
        Ok((catalog, parts.last().cloned().unwrap_or_default()))
    }

    /// Like [`Binder::relation`], for the table or view a statement changes: the
    /// database it names becomes the one the statement writes to (one per statement).
    pub(super) fn target(
        &mut self,
        name: &ast::ObjectName,
    ) -> Result<(Arc<dyn Catalog + 'a>, String)> {
        let (catalog, bare) = self.relation(name)?;
        self.writes_to(&catalog)?;
        Ok((catalog, bare))
    }

    /// Like [`Binder::resolve`], for the sequence, macro or type a statement creates
    /// or changes.
    pub(super) fn object_target(
        &mut self,
        name: &ast::ObjectName,
    ) -> Result<(Arc<dyn Catalog + 'a>, String)> {
        let (catalog, bare) = self.resolve(name)?;
        if catalog.database_name().eq_ignore_ascii_case(TEMP_DATABASE) {
            return Err(Error::not_supported(format!(
                "only TEMP tables and views can be created in the \"{TEMP_DATABASE}\" database; name {bare} without it"
            )));
        }
        self.writes_to(&catalog)?;
        Ok((catalog, bare))
    }

    /// The database CREATE [TEMP] TABLE / VIEW `name` creates it in. A TEMP one goes
    /// to the connection's `temp` database (`t`, `main.t`, `temp.t` or
    /// `temp.main.t`); any other to the database it names or the current one, never
    /// to `temp` (as DuckDB, whose CREATE TABLE t makes main.t even beside a TEMP t).
    pub(super) fn create_target(
        &mut self,
        name: &ast::ObjectName,
        temporary: bool,
    ) -> Result<(Arc<dyn Catalog + 'a>, String)> {
        let (catalog, bare) = self.resolve(name)?;
        let in_temp = catalog.database_name().eq_ignore_ascii_case(TEMP_DATABASE);
        let catalog = match (temporary, in_temp) {
            (true, true) | (false, false) => catalog,
            (true, false) if search_temp_first(name) => self.temp_catalog().ok_or_else(|| {
                Error::not_supported("TEMP tables and views are not supported here")
            })?,
            (true, false) => {
                return Err(Error::binder(format!(
                    "TEMPORARY table names can *only* use the \"{TEMP_DATABASE}\" catalog: {name} names another database; write {bare} or {TEMP_DATABASE}.{bare}"
                )))
            }
            (false, true) => {
                return Err(Error::binder(format!(
                    "Only TEMPORARY table names can use the \"{TEMP_DATABASE}\" catalog: write CREATE TEMP TABLE / CREATE TEMP VIEW {bare}"
                )))
            }
        };
        self.writes_to(&catalog)?;
        Ok((catalog, bare))
    }

    /// Records that the statement changes `catalog`'s database: one per statement.
    fn writes_to(&mut self, catalog: &Arc<dyn Catalog + 'a>) -> Result<()> {
        let database = catalog.database_name();
        match &self.written {
            Some(w) if !w.eq_ignore_ascii_case(&database) => Err(Error::not_supported(format!(
                "a statement may change one database only; it changes \"{w}\" and \"{database}\""
            ))),
            _ => {
                self.written = Some(database);
                Ok(())
            }
        }
    }
}

/// Whether a name may refer to a TEMP table or view found before the current
/// database's: `t` or `main.t`.
fn search_temp_first(name: &ast::ObjectName) -> bool {
    match name.0.as_slice() {
        [_] => true,
        [ast::ObjectNamePart::Identifier(s), _] => ident_name(s).eq_ignore_ascii_case("main"),
        _ => false,
    }
}

pub fn object_name(name: &ast::ObjectName) -> Result<String> {
    match name.0.last() {
        Some(ast::ObjectNamePart::Identifier(id)) => Ok(ident_name(id)),
        _ => Err(Error::binder(format!("invalid name {name}"))),
    }
}

/// `FROM 'data.csv'`: a single-quoted name, or a quoted one that looks like a file.
fn file_path(name: &ast::ObjectName) -> Option<String> {
    let [ast::ObjectNamePart::Identifier(id)] = name.0.as_slice() else {
        return None;
    };
    let looks_like_file = [
        ".csv",
        ".tsv",
        ".tbl",
        ".txt",
        ".csv.gz",
        ".tsv.gz",
        ".tbl.gz",
        ".parquet",
        ".json",
        ".ndjson",
        ".jsonl",
        ".json.gz",
        ".ndjson.gz",
        ".jsonl.gz",
    ]
    .iter()
    .any(|e| id.value.to_ascii_lowercase().ends_with(e));
    match id.quote_style {
        Some('\'') => Some(id.value.clone()),
        Some('"') if looks_like_file => Some(id.value.clone()),
        _ => None,
    }
}

pub(super) fn cross(
    left: (LogicalPlan, Scope),
    right: (LogicalPlan, Scope),
) -> (LogicalPlan, Scope) {
    let mut fields = left.1.fields.clone();
    fields.extend(right.1.fields.iter().cloned());
    let mut scope = Scope::new(fields.clone());
    scope.visibility = left
        .1
        .visibility
        .iter()
        .chain(right.1.visibility.iter())
        .copied()
        .collect();
    let plan = LogicalPlan::Join {
        left: Box::new(left.0),
        right: Box::new(right.0),
        kind: JoinKind::Inner,
        on: vec![],
        filter: None,
        schema: fields,
    };
    (plan, scope)
}

/// Replaces a plan's output field names (a projection when the plan has no schema of
/// its own to rename).
pub(super) fn rename(plan: LogicalPlan, fields: Vec<Field>) -> LogicalPlan {
    LogicalPlan::project_leading(plan, fields)
}

/// Adds the `rowid` pseudo-column to a table scan: the row's position in the table
/// (the row id DELETE and UPDATE use), which the scan produces as the column one past
/// the table's. A table with a column of that name keeps it instead.
fn with_rowid((plan, mut scope): (LogicalPlan, Scope)) -> (LogicalPlan, Scope) {
    let LogicalPlan::Scan {
        table,
        table_id,
        mut columns,
        mut schema,
        rows,
    } = plan
    else {
        return (plan, scope);
    };
    if table.column_index("rowid").is_none() {
        let field = Field::new("rowid", DataType::BigInt)
            .with_qualifier(schema.first().and_then(|f| f.qualifier.clone()));
        columns.push(table.columns.len());
        schema.push(field.clone());
        scope.fields.push(field);
        scope.visibility.push(Visibility::Pseudo);
    }
    let plan = LogicalPlan::Scan {
        table,
        table_id,
        columns,
        schema,
        rows,
    };
    (plan, scope)
}

/// Whether a statement names `rowid` anywhere: only then do table scans carry the
/// pseudo-column, so other plans are unchanged.
pub(super) fn mentions_rowid(sql: &str) -> bool {
    let lower = sql.to_ascii_lowercase();
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    lower
        .match_indices("rowid")
        .any(|(i, _)| !word(lower[..i].chars().next_back()) && !word(lower[i + 5..].chars().next()))
}

/// The alias of a FROM item calling table function `fname`. As in DuckDB, the one
/// column of `range`, `generate_series` and `unnest` is named after an alias without
/// column names (`FROM range(3) r` has the column `r`).
fn column_named_by_alias(
    fname: &str,
    plan: &LogicalPlan,
    alias: Option<&ast::TableAlias>,
) -> Option<ast::TableAlias> {
    let mut alias = alias?.clone();
    let single = matches!(
        fname.to_ascii_lowercase().as_str(),
        "range" | "generate_series" | "unnest"
    ) && plan.schema().len() == 1;
    if single && alias.columns.is_empty() {
        alias.columns.push(ast::TableAliasColumnDef::from_name(
            alias.name.value.clone(),
        ));
        alias.columns[0].name.quote_style = alias.name.quote_style;
    }
    Some(alias)
}

/// Qualifies the plan's columns with `qual` and applies alias column names `t(a, b)`.
pub(super) fn apply_alias(
    plan: LogicalPlan,
    qual: &str,
    alias: Option<&ast::TableAlias>,
) -> Result<(LogicalPlan, Scope)> {
    let mut fields: Vec<Field> = plan.schema().to_vec();
    if let Some(a) = alias {
        if a.columns.len() > fields.len() {
            return Err(Error::binder(format!(
                "table \"{qual}\" has {} columns available but {} columns specified",
                fields.len(),
                a.columns.len()
            )));
        }
        for (f, c) in fields.iter_mut().zip(&a.columns) {
            f.name = ident_name(&c.name);
        }
    }
    for f in &mut fields {
        f.qualifier = if qual.is_empty() {
            None
        } else {
            Some(qual.to_string())
        };
    }
    let plan = match plan {
        LogicalPlan::Scan {
            table,
            table_id,
            columns,
            rows,
            ..
        } => LogicalPlan::Scan {
            table,
            table_id,
            columns,
            schema: fields.clone(),
            rows,
        },
        LogicalPlan::TableFunction { func, .. } => LogicalPlan::TableFunction {
            func,
            schema: fields.clone(),
        },
        LogicalPlan::Project { input, exprs, .. } => LogicalPlan::Project {
            input,
            exprs,
            schema: fields.clone(),
        },
        other => rename(other, fields.clone()),
    };
    Ok((plan, Scope::new(fields)))
}

/// The error for a table function stride does not have, with a suggestion among
/// those it has (pg_proc's set-returning functions).
fn unknown_table_function(name: &str) -> Error {
    let known = crate::system::pg_proc::procs()
        .iter()
        .filter(|p| p.retset)
        .map(|p| p.name.as_str());
    let mut msg = format!("Table Function with name {name} does not exist!");
    if let Some(s) = did_you_mean(name, known) {
        msg.push_str(&format!(" Did you mean \"{s}\"?"));
    }
    Error::catalog(msg)
}
