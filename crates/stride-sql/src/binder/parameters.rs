//! The types of `$n` parameters, inferred from where they stand, as PostgreSQL infers
//! them for a statement prepared without declared types: compared with or computed
//! against a typed operand (`i >= $1`, `$1 + 1`), cast (`$1::date`), inserted into a
//! column (`INSERT INTO t VALUES ($1)`), or a LIMIT / OFFSET count (BIGINT). The server
//! reports them in ParameterDescription and decodes binary values with them.
//!
//! Where it sits: binding (step 3). The statement is bound once with every parameter
//! NULL (`Connection::describe`); each place that knows the type an operand must have
//! records it for the parameter standing there, the first such place winning. A
//! parameter no place types stays untyped (text, bound like a string literal).

use super::Binder;
use sqlparser::ast;
use stride_common::DataType;

/// The 0-based index of the parameter `e` is (looking through parentheses).
pub(super) fn placeholder_index(e: &ast::Expr) -> Option<usize> {
    match e {
        ast::Expr::Nested(inner) => placeholder_index(inner),
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Placeholder(p) => {
                p.strip_prefix('$')?.parse::<usize>().ok()?.checked_sub(1)
            }
            _ => None,
        },
        _ => None,
    }
}

impl Binder<'_> {
    /// Records `ty` as the type of the parameter `e` is, if it is one not yet typed.
    pub(super) fn hint_parameter(&mut self, e: &ast::Expr, ty: &DataType) {
        let Some(i) = placeholder_index(e) else {
            return;
        };
        if *ty == DataType::Null || i >= super::MAX_PARAMETERS {
            return;
        }
        if self.param_types.len() <= i {
            self.param_types.resize(i + 1, None);
        }
        if self.param_types[i].is_none() {
            self.param_types[i] = Some(ty.clone());
        }
    }

    /// The parameter types inferred while binding (None: nothing typed it).
    pub fn parameter_types(&self) -> &[Option<DataType>] {
        &self.param_types
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_placeholders() {
        let e = |s: &str| {
            let stmts = crate::parser::parse(&format!("SELECT {s}")).unwrap();
            let ast::Statement::Query(q) = &stmts[0] else {
                panic!("a query")
            };
            let ast::SetExpr::Select(sel) = q.body.as_ref() else {
                panic!("a select")
            };
            match &sel.projection[0] {
                ast::SelectItem::UnnamedExpr(e) => placeholder_index(e),
                _ => None,
            }
        };
        assert_eq!(e("$1"), Some(0));
        assert_eq!(e("($3)"), Some(2));
        assert_eq!(e("$1 + 1"), None);
        assert_eq!(e("1"), None);
    }
}
