//! UNION [ALL] BY NAME (DuckDB's friendly SQL): the two sides' columns are matched by
//! name (case-insensitively) instead of by position.
//!
//! Where it sits: binding (step 3), inside `select.rs`'s set operations. Both sides
//! are bound as usual; then each is wrapped in a projection onto the output columns —
//! the left side's columns in its order, then the right side's columns the left lacks,
//! in theirs — with NULL where a side has no column of that name. The set operation
//! itself is then an ordinary positional one, so types unify as in any UNION. DuckDB
//! has BY NAME only for UNION; EXCEPT and INTERSECT BY NAME are refused as it does.

use crate::plan::{Expr, Field, LogicalPlan};
use sqlparser::ast;
use stride_common::{Error, Result, ScalarValue};

/// Whether the quantifier asks for BY NAME, and if so whether duplicates are kept.
pub(super) fn by_name(q: &ast::SetQuantifier) -> Option<bool> {
    match q {
        ast::SetQuantifier::ByName | ast::SetQuantifier::DistinctByName => Some(false),
        ast::SetQuantifier::AllByName => Some(true),
        _ => None,
    }
}

/// The two sides of `op ... BY NAME`, projected onto the same columns by name.
pub(super) fn align(
    op: &ast::SetOperator,
    left: LogicalPlan,
    right: LogicalPlan,
) -> Result<(LogicalPlan, LogicalPlan)> {
    if *op != ast::SetOperator::Union {
        return Err(Error::parse(format!(
            "Invalid combination of {op} and BY NAME"
        )));
    }
    let (ls, rs) = (left.schema().to_vec(), right.schema().to_vec());
    check_unique(&ls)?;
    check_unique(&rs)?;
    let mut names: Vec<String> = ls.iter().map(|f| f.name.clone()).collect();
    for f in &rs {
        if !names.iter().any(|n| n.eq_ignore_ascii_case(&f.name)) {
            names.push(f.name.clone());
        }
    }
    Ok((onto(left, &ls, &names), onto(right, &rs, &names)))
}

fn check_unique(fields: &[Field]) -> Result<()> {
    for (i, f) in fields.iter().enumerate() {
        if fields[..i]
            .iter()
            .any(|g| g.name.eq_ignore_ascii_case(&f.name))
        {
            return Err(Error::binder(format!(
                "UNION (ALL) BY NAME operation doesn't support duplicate names in the SELECT list - the name \"{}\" occurs multiple times",
                f.name
            )));
        }
    }
    Ok(())
}

/// `plan` projected onto `names`: its column of each name, or NULL.
fn onto(plan: LogicalPlan, fields: &[Field], names: &[String]) -> LogicalPlan {
    let mut exprs = Vec::with_capacity(names.len());
    let mut schema = Vec::with_capacity(names.len());
    for name in names {
        match fields
            .iter()
            .position(|f| f.name.eq_ignore_ascii_case(name))
        {
            Some(i) => {
                let f = &fields[i];
                exprs.push(Expr::column(i, f.ty.clone(), f.name.clone()));
                schema.push(f.clone().with_qualifier(None));
            }
            None => {
                exprs.push(Expr::literal(ScalarValue::Null));
                schema.push(Field::new(name.clone(), stride_common::DataType::Null));
            }
        }
    }
    LogicalPlan::Project {
        input: Box::new(plan),
        exprs,
        schema,
    }
}
