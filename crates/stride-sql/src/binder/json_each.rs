//! `json_each(json[, path])` and `json_tree(json[, path])`: with constant
//! arguments the rows are computed here and the plan is VALUES; with arguments over
//! the FROM items before them (`FROM t, json_each(t.j)`, lateral as every table
//! function) the call is a `DeferredFunction::JsonEach`, evaluated per row of `t`
//! once the lateral join has substituted its values. The rows themselves come from
//! `stride_functions::scalar::json::each`.

use super::expr::{cast_expr, ExprCtx};
use super::fold::fold_constant;
use super::scope::Scope;
use super::Binder;
use crate::plan::{DeferredFunction, Expr, Field, LogicalPlan, TableFunction};
use sqlparser::ast;
use stride_common::{DataType, Error, Result, ScalarValue};
use stride_functions::scalar::json::each;

/// The columns of json_each and json_tree.
pub(crate) fn schema() -> Vec<Field> {
    each::columns()
        .into_iter()
        .map(|(n, t)| Field::new(n, t))
        .collect()
}

/// The rows for constant arguments (NULL document or path: none).
pub fn rows(args: &[ScalarValue], tree: bool) -> Result<Vec<Vec<ScalarValue>>> {
    let text = |v: &ScalarValue| match v {
        ScalarValue::Varchar(s) => Some(s.clone()),
        _ => None,
    };
    let Some(doc) = args.first().and_then(text) else {
        return Ok(Vec::new());
    };
    let path = match args.get(1) {
        None => None,
        Some(p) => match text(p) {
            Some(p) => Some(each::each_path(&p)?),
            None => return Ok(Vec::new()),
        },
    };
    each::rows(&doc, path.as_ref(), tree)
}

impl Binder<'_> {
    pub(super) fn bind_json_each(
        &mut self,
        name: &str,
        args: &[ast::FunctionArg],
    ) -> Result<LogicalPlan> {
        let tree = name == "json_tree";
        let scope = Scope::default();
        let mut bound = Vec::with_capacity(args.len());
        for a in args {
            let ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) = a else {
                return Err(Error::binder(format!(
                    "{name} takes positional arguments: {name}(json[, path])"
                )));
            };
            let mut ctx = ExprCtx::new(&scope, "table function arguments");
            bound.push(self.bind_expr(e, &mut ctx)?);
        }
        let texty = |e: &Expr| {
            matches!(
                e.data_type(),
                DataType::Varchar | DataType::Json | DataType::Null
            )
        };
        if bound.is_empty() || bound.len() > 2 || !bound.iter().all(texty) {
            let types: Vec<String> = bound.iter().map(|e| e.data_type().to_string()).collect();
            return Err(Error::binder(format!(
                "No function matches the given name and argument types '{name}({})'. {name} takes a JSON or VARCHAR document and an optional VARCHAR path",
                types.join(", ")
            )));
        }
        let args = bound
            .into_iter()
            .map(|e| cast_expr(e, &DataType::Varchar))
            .collect::<Result<Vec<_>>>()?;
        // A constant path is checked now, even when the document is not constant.
        if let Some(p) = args.get(1) {
            if let Some(ScalarValue::Varchar(p)) = fold_constant(p)? {
                each::each_path(&p)?;
            }
        }
        let mut constants = Vec::with_capacity(args.len());
        for a in &args {
            match fold_constant(a)? {
                Some(v) => constants.push(v),
                None => break,
            }
        }
        if constants.len() == args.len() {
            return Ok(super::constant_rows(schema(), rows(&constants, tree)?));
        }
        if !args
            .iter()
            .any(|a| a.any(&mut |x| matches!(x, Expr::OuterColumn { .. })))
        {
            return Err(Error::binder(format!(
                "the arguments of {name} must be constants or columns of the FROM items before it"
            )));
        }
        Ok(LogicalPlan::TableFunction {
            func: TableFunction::Deferred {
                func: DeferredFunction::JsonEach { tree },
                args,
            },
            schema: schema(),
        })
    }
}
