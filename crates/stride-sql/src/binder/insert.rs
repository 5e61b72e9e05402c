//! INSERT INTO t [(columns)] VALUES ... | SELECT ...: the source query is bound, its
//! columns matched to the named target columns, omitted columns filled with their
//! DEFAULT (or NULL), and every value cast to its column's type.

use super::expr::{cast_expr, ident_name};
use super::from::object_name;
use super::{Binder, BoundStatement};
use crate::plan::{Expr, Field, LogicalPlan};
use sqlparser::ast;
use stride_common::{Error, Result, ScalarValue};

impl Binder<'_> {
    pub(super) fn bind_insert(&mut self, ins: &ast::Insert) -> Result<BoundStatement> {
        let name = match &ins.table {
            ast::TableObject::TableName(n) => object_name(n)?,
            other => {
                return Err(Error::not_supported(format!(
                    "INSERT INTO {other} is not supported"
                )))
            }
        };
        if ins.or.is_some() || ins.on.is_some() {
            return Err(Error::not_supported(
                "INSERT OR ... and ON CONFLICT are not supported yet",
            ));
        }
        let (table_id, schema) = self
            .catalog
            .table(&name)
            .ok_or_else(|| Error::catalog(format!("Table with name {name} does not exist!")))?;
        let targets: Vec<usize> = if ins.columns.is_empty() {
            (0..schema.columns.len()).collect()
        } else {
            let mut t = Vec::new();
            for c in &ins.columns {
                let cname = match c.0.last() {
                    Some(ast::ObjectNamePart::Identifier(id)) => ident_name(id),
                    _ => return Err(Error::binder(format!("invalid column name {c}"))),
                };
                let idx = schema.column_index(&cname).ok_or_else(|| {
                    let mut msg =
                        format!("Table \"{name}\" does not have a column with name \"{cname}\"");
                    if let Some(s) =
                        super::did_you_mean(&cname, schema.columns.iter().map(|c| c.name.as_str()))
                    {
                        msg.push_str(&format!(". Did you mean \"{s}\"?"));
                    }
                    Error::binder(msg)
                })?;
                if t.contains(&idx) {
                    return Err(Error::binder(format!(
                        "column \"{cname}\" specified more than once"
                    )));
                }
                t.push(idx);
            }
            t
        };
        let source = ins.source.as_ref().ok_or_else(|| {
            Error::not_supported("INSERT ... DEFAULT VALUES is not supported yet")
        })?;
        // `VALUES ($1, $2)`: each parameter has its target column's type.
        if let ast::SetExpr::Values(v) = source.body.as_ref() {
            for row in &v.rows {
                for (e, &t) in row.iter().zip(&targets) {
                    self.hint_parameter(e, &schema.columns[t].ty);
                }
            }
        }
        let plan = self.bind_query(source)?;
        let got = plan.schema().len();
        if got != targets.len() {
            return Err(Error::binder(format!(
                "table {name} has {} columns but {got} values were supplied",
                targets.len()
            )));
        }
        let input_fields = plan.schema().to_vec();
        let mut exprs = Vec::with_capacity(schema.columns.len());
        for (ci, col) in schema.columns.iter().enumerate() {
            let e = match targets.iter().position(|&t| t == ci) {
                Some(src) => {
                    let f = &input_fields[src];
                    let e = Expr::column(src, f.ty.clone(), f.name.clone());
                    if f.ty == col.ty {
                        e
                    } else {
                        Expr::Cast {
                            expr: Box::new(e),
                            to: col.ty.clone(),
                            try_cast: false,
                        }
                    }
                }
                None => cast_expr(
                    Expr::literal(col.default.clone().unwrap_or(ScalarValue::Null)),
                    &col.ty,
                )?,
            };
            exprs.push(e);
        }
        let fields = schema
            .columns
            .iter()
            .map(|c| Field::new(c.name.clone(), c.ty.clone()))
            .collect();
        let source = LogicalPlan::Project {
            input: Box::new(plan),
            exprs,
            schema: fields,
        };
        let returning = match &ins.returning {
            Some(items) => {
                let qual = ins
                    .table_alias
                    .as_ref()
                    .map_or(schema.name.clone(), |a| ident_name(&a.alias));
                let columns = schema
                    .columns
                    .iter()
                    .map(|c| Field {
                        name: c.name.clone(),
                        ty: c.ty.clone(),
                        qualifier: Some(qual.clone()),
                    })
                    .collect();
                Some(self.bind_returning(items, columns)?)
            }
            None => None,
        };
        Ok(BoundStatement::Insert {
            table_id,
            table: schema.name.clone(),
            source,
            returning,
        })
    }
}
