//! CREATE TABLE [AS], DROP TABLE: column definitions with NOT NULL, DEFAULT, PRIMARY
//! KEY, UNIQUE and CHECK (`checks.rs`); the schema of CREATE TABLE AS comes from its
//! query.

use super::expr::{cast_expr, ident_name, ExprCtx};
use super::fold::fold_constant;
use super::from::object_name;
use super::scope::Scope;
use super::{Binder, BoundStatement};
use crate::plan::Expr;
use sqlparser::ast;
use stride_common::{
    Collation, ColumnSchema, DataType, Error, Result, ScalarValue, TableAlteration, TableSchema,
};

/// The key a column definition declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    None,
    Primary,
    Unique,
}

impl Binder<'_> {
    pub(super) fn bind_create_table(&mut self, ct: &ast::CreateTable) -> Result<BoundStatement> {
        let name = self.create_target(&ct.name, ct.temporary)?.1;
        if ct.or_replace && ct.if_not_exists {
            return Err(Error::binder(
                "CREATE OR REPLACE and IF NOT EXISTS cannot be combined",
            ));
        }
        let mut columns: Vec<ColumnSchema> = Vec::new();
        let mut unique_keys: Vec<Vec<usize>> = Vec::new();
        let mut primary_key: Option<usize> = None;
        let mut set_primary = |k: usize| {
            if primary_key.replace(k).is_some() {
                return Err(Error::binder(format!(
                    "multiple primary keys for table \"{name}\" are not allowed; make the others UNIQUE"
                ))
                .with_sqlstate(stride_common::error::sqlstate::INVALID_TABLE_DEFINITION));
            }
            Ok(())
        };
        // CHECK constraints, bound once every column is known.
        let mut checks: Vec<(&ast::CheckConstraint, Option<&ast::Ident>)> = Vec::new();
        for (i, c) in ct.columns.iter().enumerate() {
            let cname = ident_name(&c.name);
            if columns.iter().any(|x| x.name.eq_ignore_ascii_case(&cname)) {
                return Err(Error::catalog(format!(
                    "Column with name {cname} already exists in table \"{name}\""
                ))
                .with_sqlstate(stride_common::error::sqlstate::DUPLICATE_COLUMN));
            }
            let (col, key) = self.bind_column_def(c, Some(&mut checks))?;
            if key != Key::None {
                if key == Key::Primary {
                    set_primary(unique_keys.len())?;
                }
                unique_keys.push(vec![i]);
            }
            columns.push(col);
        }
        for c in &ct.constraints {
            let (cols, primary) = match c {
                ast::TableConstraint::PrimaryKey(pk) => (&pk.columns, true),
                ast::TableConstraint::Unique(u) => (&u.columns, false),
                ast::TableConstraint::Check(check) => {
                    checks.push((check, None));
                    continue;
                }
                other => {
                    return Err(Error::not_supported(format!(
                        "table constraint {other} is not supported yet"
                    )))
                }
            };
            let mut key = Vec::new();
            for ic in cols {
                let cname = match &ic.column.expr {
                    ast::Expr::Identifier(id) => ident_name(id),
                    other => {
                        return Err(Error::binder(format!(
                            "key column must be a column name, got {other}"
                        )))
                    }
                };
                let idx = columns
                    .iter()
                    .position(|x| x.name.eq_ignore_ascii_case(&cname))
                    .ok_or_else(|| {
                        Error::binder(format!(
                            "key column \"{cname}\" does not exist in table \"{name}\""
                        ))
                    })?;
                if primary {
                    columns[idx].not_null = true;
                }
                key.push(idx);
            }
            if primary {
                set_primary(unique_keys.len())?;
            }
            unique_keys.push(key);
        }
        let source = match &ct.query {
            Some(q) => {
                if !columns.is_empty() {
                    return Err(Error::not_supported(
                        "CREATE TABLE with both columns and AS query",
                    ));
                }
                let plan = self.bind_query(q)?;
                for f in plan.schema() {
                    if columns
                        .iter()
                        .any(|x: &ColumnSchema| x.name.eq_ignore_ascii_case(&f.name))
                    {
                        return Err(Error::binder(format!(
                            "CREATE TABLE AS: the query has two columns named \"{}\"; give them distinct aliases",
                            f.name
                        )));
                    }
                    let ty = if f.ty == DataType::Null {
                        DataType::Integer
                    } else {
                        f.ty.clone()
                    };
                    let collation = if ty == DataType::Varchar {
                        f.collation
                    } else {
                        Collation::BINARY
                    };
                    columns.push(ColumnSchema::new(f.name.clone(), ty).with_collation(collation));
                }
                let types: Vec<DataType> = columns.iter().map(|c| c.ty.clone()).collect();
                Some(super::select::cast_columns(plan, &types)?)
            }
            None => None,
        };
        if columns.is_empty() {
            return Err(Error::binder(format!(
                "table \"{name}\" must have at least one column"
            )));
        }
        let checks = checks
            .into_iter()
            .map(|(c, column)| self.bind_check(&name, &columns, c, column))
            .collect::<Result<Vec<_>>>()?;
        Ok(BoundStatement::CreateTable {
            schema: TableSchema {
                name,
                columns,
                unique_keys,
                primary_key,
                checks,
            },
            if_not_exists: ct.if_not_exists,
            or_replace: ct.or_replace,
            source,
        })
    }

    /// A column definition: its schema, and whether it is a PRIMARY KEY or UNIQUE. Its
    /// CHECK constraints go to `checks` (with the name the column option gave), where
    /// the statement allows them.
    fn bind_column_def<'c>(
        &mut self,
        c: &'c ast::ColumnDef,
        mut checks: Option<&mut Vec<(&'c ast::CheckConstraint, Option<&'c ast::Ident>)>>,
    ) -> Result<(ColumnSchema, Key)> {
        let cname = ident_name(&c.name);
        let ty = self.convert_type(&c.data_type)?;
        let mut col = ColumnSchema::new(cname.clone(), ty.clone());
        let mut key = Key::None;
        for opt in &c.options {
            match &opt.option {
                ast::ColumnOption::Null => {}
                ast::ColumnOption::NotNull => col.not_null = true,
                ast::ColumnOption::Default(e) => match self.bind_default(e, &ty)? {
                    Some(v) => col.default = Some(v),
                    // bound again by each INSERT (`insert.rs`): a value per row
                    None => col.default_expr = Some(e.to_string()),
                },
                ast::ColumnOption::PrimaryKey(_) => {
                    col.not_null = true;
                    key = Key::Primary;
                }
                ast::ColumnOption::Unique(_) if key == Key::None => key = Key::Unique,
                ast::ColumnOption::Unique(_) => {}
                ast::ColumnOption::Check(check) => match checks.as_mut() {
                    Some(checks) => checks.push((check, opt.name.as_ref())),
                    None => {
                        return Err(Error::not_supported(
                            "adding a column with a CHECK constraint is not supported yet; add the column, then recreate the table with the constraint",
                        ))
                    }
                },
                ast::ColumnOption::Collation(name) => {
                    if ty != DataType::Varchar {
                        return Err(Error::binder(format!(
                            "column \"{cname}\" is of type {ty}: only VARCHAR columns can have a collation"
                        )));
                    }
                    col.collation = super::collation::parse_name(name)?;
                }
                other => {
                    return Err(Error::not_supported(format!(
                        "column option {other} is not supported yet"
                    )))
                }
            }
        }
        Ok((col, key))
    }

    /// ALTER TABLE with one of ADD COLUMN, DROP COLUMN, RENAME COLUMN, RENAME TO.
    /// A column's DEFAULT, checked to bind without columns and cast to the column's
    /// type: its value when it is a constant; `None` when each insert must compute it
    /// (`nextval('seq')`, `random()`, `now()`: the clock is read per statement, so it
    /// is never folded into the table's definition).
    pub(super) fn bind_default(
        &mut self,
        e: &ast::Expr,
        ty: &DataType,
    ) -> Result<Option<ScalarValue>> {
        let scope = Scope::default();
        let mut ctx = ExprCtx::new(&scope, "DEFAULT");
        let bound = cast_expr(self.bind_expr(e, &mut ctx)?, ty)?;
        if bound.any(&mut |x| {
            matches!(x, Expr::Function { func, args } if stride_functions::scalar::reads_clock(func.func, args.len()))
        }) {
            return Ok(None);
        }
        fold_constant(&bound)
    }

    /// What a row gets for a column an INSERT (or `UPDATE ... SET c = DEFAULT`) does
    /// not give: its DEFAULT, a constant or an expression bound again here (its SQL
    /// text), cast to the column's type; NULL without one.
    pub(super) fn column_default(&mut self, col: &ColumnSchema) -> Result<Expr> {
        let Some(sql) = &col.default_expr else {
            return cast_expr(
                Expr::literal(col.default.clone().unwrap_or(ScalarValue::Null)),
                &col.ty,
            );
        };
        let e = crate::parser::parse_expr(sql)?;
        let scope = Scope::default();
        let mut ctx = ExprCtx::new(&scope, "DEFAULT");
        cast_expr(self.bind_expr(&e, &mut ctx)?, &col.ty)
    }

    pub(super) fn bind_alter_table(&mut self, at: &ast::AlterTable) -> Result<BoundStatement> {
        let (catalog, name) = self.target(&at.name)?;
        let Some((_, schema)) = catalog.table(&name) else {
            if at.if_exists {
                return Ok(BoundStatement::AlterTable {
                    table: name,
                    change: None,
                });
            }
            return Err(Error::catalog(format!(
                "Table with name {name} does not exist!"
            )));
        };
        let [op] = at.operations.as_slice() else {
            return Err(Error::not_supported(
                "ALTER TABLE with several changes at once is not supported yet; run one ALTER TABLE per change",
            ));
        };
        let has = |c: &str| schema.column_index(c).is_some();
        use ast::AlterTableOperation as Op;
        let change = match op {
            Op::AddColumn {
                if_not_exists,
                column_def,
                column_position: None,
                ..
            } => {
                let (col, key) = self.bind_column_def(column_def, None)?;
                if key != Key::None {
                    return Err(Error::not_supported(
                        "ADD COLUMN with PRIMARY KEY or UNIQUE is not supported yet",
                    ));
                }
                if has(&col.name) {
                    if *if_not_exists {
                        None
                    } else {
                        return Err(Error::catalog(format!(
                            "Column with name {} already exists in table \"{}\"",
                            col.name, schema.name
                        )));
                    }
                } else {
                    Some(TableAlteration::AddColumn(col))
                }
            }
            Op::DropColumn {
                column_names,
                if_exists,
                ..
            } => {
                let [c] = column_names.as_slice() else {
                    return Err(Error::not_supported("DROP COLUMN takes one column for now"));
                };
                let c = ident_name(c);
                if !has(&c) {
                    if *if_exists {
                        None
                    } else {
                        return Err(Error::binder(format!(
                            "Table \"{}\" does not have a column with name \"{c}\"",
                            schema.name
                        )));
                    }
                } else {
                    super::checks::refuse_checked(&schema, &c, "drop")?;
                    Some(TableAlteration::DropColumn(c))
                }
            }
            Op::RenameColumn {
                old_column_name,
                new_column_name,
            } => {
                let (old, new) = (ident_name(old_column_name), ident_name(new_column_name));
                if !has(&old) {
                    return Err(Error::binder(format!(
                        "Table \"{}\" does not have a column with name \"{old}\"",
                        schema.name
                    )));
                }
                if has(&new) && !old.eq_ignore_ascii_case(&new) {
                    return Err(Error::catalog(format!(
                        "Column with name {new} already exists in table \"{}\"",
                        schema.name
                    )));
                }
                super::checks::refuse_checked(&schema, &old, "rename")?;
                Some(TableAlteration::RenameColumn { old, new })
            }
            Op::RenameTable {
                table_name: ast::RenameTableNameKind::To(n) | ast::RenameTableNameKind::As(n),
            } => Some(TableAlteration::RenameTable(self.relation_name(n)?)),
            Op::AlterColumn { column_name, op } => {
                let column = ident_name(column_name);
                let Some(idx) = schema.column_index(&column) else {
                    return Err(Error::binder(format!(
                        "Table \"{}\" does not have a column with name \"{column}\"",
                        schema.name
                    )));
                };
                let ty = schema.columns[idx].ty.clone();
                let column = schema.columns[idx].name.clone();
                use ast::AlterColumnOperation as C;
                Some(match op {
                    C::SetNotNull => TableAlteration::SetNotNull {
                        column,
                        not_null: true,
                    },
                    C::DropNotNull => TableAlteration::SetNotNull {
                        column,
                        not_null: false,
                    },
                    C::SetDefault { value } => TableAlteration::SetDefault {
                        default: Some(self.bind_default(value, &ty)?.ok_or_else(|| {
                            Error::not_supported(format!(
                                "ALTER TABLE ... SET DEFAULT of column {column} takes a constant for now; \
                                 a default such as nextval('seq') or now() can be given in CREATE TABLE"
                            ))
                        })?),
                        column,
                    },
                    C::DropDefault => TableAlteration::SetDefault {
                        column,
                        default: None,
                    },
                    C::SetDataType {
                        data_type,
                        using: None,
                        ..
                    } => {
                        super::checks::refuse_checked(&schema, &column, "change the type of")?;
                        TableAlteration::SetType {
                            column,
                            ty: self.convert_type(data_type)?,
                            values: Vec::new(),
                        }
                    }
                    other => {
                        return Err(Error::not_supported(format!(
                            "ALTER COLUMN ... {other} is not supported yet"
                        )))
                    }
                })
            }
            other => {
                return Err(Error::not_supported(format!(
                    "ALTER TABLE ... {other} is not supported yet"
                )))
            }
        };
        Ok(BoundStatement::AlterTable {
            table: schema.name.clone(),
            change,
        })
    }

    pub(super) fn bind_drop(
        &mut self,
        object_type: &ast::ObjectType,
        if_exists: bool,
        names: &[ast::ObjectName],
    ) -> Result<BoundStatement> {
        let [name] = names else {
            return Err(Error::not_supported(format!(
                "DROP {object_type} of several objects at once"
            )));
        };
        let (catalog, name) = self.target(name)?;
        // Even with IF EXISTS, naming a view as a table (or the reverse) is an error.
        let wrong_kind = |existing: &str, dropped: &str| {
            Error::catalog(format!(
                "Existing object \"{name}\" is of type {existing}, trying to drop type {dropped}: use DROP {} {name}",
                existing.to_uppercase()
            ))
        };
        match object_type {
            ast::ObjectType::Table => {
                if catalog.table(&name).is_none() && catalog.view(&name).is_some() {
                    return Err(wrong_kind("View", "Table"));
                }
            }
            ast::ObjectType::Index => return Ok(BoundStatement::DropIndex { name, if_exists }),
            ast::ObjectType::View => {
                if catalog.view(&name).is_none() && catalog.table(&name).is_some() {
                    return Err(wrong_kind("Table", "View"));
                }
                if !if_exists && catalog.view(&name).is_none() {
                    return Err(Error::catalog(format!(
                        "View with name {name} does not exist!"
                    )));
                }
                return Ok(BoundStatement::DropView { name, if_exists });
            }
            other => {
                return Err(Error::not_supported(format!(
                    "DROP {other} is not supported yet"
                )))
            }
        }
        if !if_exists && catalog.table(&name).is_none() {
            return Err(Error::catalog(format!(
                "Table with name {name} does not exist!"
            )));
        }
        Ok(BoundStatement::DropTable { name, if_exists })
    }
}

impl Binder<'_> {
    pub(super) fn bind_create_index(&mut self, ci: &ast::CreateIndex) -> Result<BoundStatement> {
        let (catalog, table) = self.target(&ci.table_name)?;
        let (_, schema) = catalog
            .table(&table)
            .ok_or_else(|| Error::catalog(format!("Table with name {table} does not exist!")))?;
        let name = match &ci.name {
            Some(n) => object_name(n)?,
            None => return Err(Error::binder("CREATE INDEX needs an index name")),
        };
        if ci.predicate.is_some() || !ci.include.is_empty() {
            return Err(Error::not_supported(
                "partial indexes and INCLUDE columns are not supported",
            ));
        }
        let mut columns = Vec::new();
        for ic in &ci.columns {
            let cname = match &ic.column.expr {
                ast::Expr::Identifier(id) => ident_name(id),
                other => {
                    return Err(Error::not_supported(format!(
                        "index on expression {other} is not supported"
                    )))
                }
            };
            let idx = schema.column_index(&cname).ok_or_else(|| {
                Error::binder(format!(
                    "Table \"{table}\" does not have a column named \"{cname}\""
                ))
            })?;
            columns.push(idx);
        }
        Ok(BoundStatement::CreateIndex {
            name,
            table: schema.name.clone(),
            columns,
            unique: ci.unique,
            if_not_exists: ci.if_not_exists,
        })
    }
}
