//! Types created by `CREATE TYPE name AS type` (parsed by `type_syntax.rs`) and
//! dropped by `DROP TYPE`, and type names resolved against them.
//!
//! Where it sits: binding. Wherever a type name appears (a column definition, a
//! cast, a `read_csv` types option), [`Binder::convert_type`] resolves names the
//! parser does not know among the catalog's types. An ENUM made by CREATE TYPE
//! carries its name, which is how `DROP TYPE` finds the columns that use it; an alias
//! (`CREATE TYPE id AS INTEGER`) resolves to the type it stands for and leaves no
//! trace in the columns declared with it.
//!
//! The facade stores the type (`crates/stride/src/connection.rs`, WAL kinds 18 and
//! 19, and the checkpoint's list of types).

use super::types::{convert_data_type, convert_data_type_in};
use super::{Binder, BoundStatement};
use crate::type_syntax::TypeFlags;
use sqlparser::ast;
use stride_common::{DataType, EnumType, Error, Result, ScalarValue};

impl Binder<'_> {
    /// A type name as a [`DataType`], types created by CREATE TYPE included.
    pub(super) fn convert_type(&self, t: &ast::DataType) -> Result<DataType> {
        let catalog = self.catalog.clone();
        convert_data_type_in(t, &|name| catalog.user_type(name))
    }

    pub(super) fn bind_create_type(
        &mut self,
        d: &ast::CreateDomain,
        flags: TypeFlags,
    ) -> Result<BoundStatement> {
        if flags.temporary {
            return Err(Error::not_supported(
                "CREATE TEMP TYPE is not supported yet; create the type without TEMP",
            ));
        }
        let (catalog, bare) = self.object_target(&d.name)?;
        if is_builtin_type(&bare) {
            return Err(Error::catalog(format!(
                "Type with name \"{bare}\" already exists!"
            )));
        }
        let existing = catalog.user_type(&bare);
        if existing.is_some() && flags.if_not_exists {
            return Ok(BoundStatement::CreateType {
                name: bare,
                ty: DataType::Null,
                or_replace: false,
                if_not_exists: true,
            });
        }
        if existing.is_some() && !flags.or_replace {
            return Err(Error::catalog(format!(
                "Type with name \"{bare}\" already exists!"
            )));
        }
        if existing.is_some() {
            self.check_type_unused(&bare)?;
        }
        let ty = match (&d.data_type, &d.default) {
            (_, Some(ast::Expr::Subquery(q))) => self.enum_of_query(q)?,
            (ast::DataType::Enum(members, _), None) if members.is_empty() => {
                DataType::Enum(EnumType::new(None, Vec::new())?)
            }
            (t, None) => self.convert_type(t)?,
            (_, Some(other)) => {
                return Err(Error::internal(format!(
                    "CREATE TYPE read {other} as its query"
                )))
            }
        };
        // an enum created here carries the type's name, so DROP TYPE finds its uses
        let ty = match ty {
            DataType::Enum(e) if e.name().is_none() => {
                DataType::Enum(e.with_name(Some(bare.clone())))
            }
            other => other,
        };
        Ok(BoundStatement::CreateType {
            name: bare,
            ty,
            or_replace: flags.or_replace,
            if_not_exists: flags.if_not_exists,
        })
    }

    /// `ENUM (query)`: the query's distinct non-NULL values, as text, in the order it
    /// gives them.
    fn enum_of_query(&mut self, q: &ast::Query) -> Result<DataType> {
        let Some(runner) = self.runner.clone() else {
            return Err(Error::not_supported(
                "CREATE TYPE ... AS ENUM (query) needs to run the query while the statement is prepared, which this interface cannot; list the labels: AS ENUM ('a', 'b')",
            ));
        };
        let plan = self.bind_query(q)?;
        if plan.schema().len() != 1 {
            return Err(Error::binder("The query must return a single column"));
        }
        let mut labels: Vec<String> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for row in runner.rows(plan)? {
            match row.into_iter().next() {
                None | Some(ScalarValue::Null) => {}
                Some(v) => {
                    let label = v.to_string();
                    if seen.insert(label.clone()) {
                        labels.push(label);
                    }
                }
            }
        }
        Ok(DataType::Enum(EnumType::new(None, labels)?))
    }

    pub(super) fn bind_drop_type(
        &mut self,
        name: &ast::ObjectName,
        if_exists: bool,
        cascade: bool,
    ) -> Result<BoundStatement> {
        if cascade {
            return Err(Error::not_supported(
                "DROP TYPE ... CASCADE is not supported: drop the tables that use the type first",
            ));
        }
        let (catalog, bare) = self.object_target(name)?;
        if catalog.user_type(&bare).is_none() {
            if !if_exists {
                return Err(
                    Error::catalog(format!("Type with name {bare} does not exist!"))
                        .with_sqlstate(stride_common::error::sqlstate::UNDEFINED_OBJECT),
                );
            }
        } else {
            self.check_type_unused(&bare)?;
        }
        Ok(BoundStatement::DropType {
            name: bare,
            if_exists,
        })
    }

    /// A Dependency error when a table column's type is the enum `name` (or holds
    /// it: a list of it, a struct field of it).
    fn check_type_unused(&self, name: &str) -> Result<()> {
        let user = self
            .catalog
            .tables()
            .into_iter()
            .find(|(_, t)| t.columns.iter().any(|c| uses_type(&c.ty, name)));
        match user {
            Some((_, t)) => Err(Error::dependency(format!(
                "Cannot drop entry \"{name}\" because there are entries that depend on it.\ntable \"{}\" depends on type \"{name}\".\nUse DROP...CASCADE to drop all dependents.",
                t.name
            ))),
            None => Ok(()),
        }
    }
}

/// Whether `ty` is, or holds, the enum created as `name`.
pub fn uses_type(ty: &DataType, name: &str) -> bool {
    match ty {
        DataType::Enum(e) => e.name().is_some_and(|n| n.eq_ignore_ascii_case(name)),
        DataType::List(t) | DataType::Array(t, _) => uses_type(t, name),
        DataType::Map(k, v) => uses_type(k, name) || uses_type(v, name),
        DataType::Struct(fields) => fields.iter().any(|(_, t)| uses_type(t, name)),
        _ => false,
    }
}

/// Whether `name` is a type stride knows without CREATE TYPE (DuckDB refuses to
/// create a type of a built-in type's name).
fn is_builtin_type(name: &str) -> bool {
    let dialect = sqlparser::dialect::DuckDbDialect {};
    sqlparser::parser::Parser::new(&dialect)
        .try_with_sql(name)
        .and_then(|mut p| p.parse_data_type())
        .is_ok_and(|t| convert_data_type(&t).is_ok())
}
