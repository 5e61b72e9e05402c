//! CREATE VIEW, and views used in FROM. A view is stored as the SQL text of its
//! query and bound again, in a context of its own (no CTEs or outer columns of the
//! query using it), wherever it appears, so it always reflects the current tables.

use super::expr::ident_name;
use super::{Binder, BoundStatement};
use crate::plan::LogicalPlan;
use sqlparser::ast;
use stride_common::{Error, Result};

/// How deeply views may refer to other views.
const MAX_VIEW_NESTING: usize = 64;

impl Binder<'_> {
    pub(super) fn bind_create_view(&mut self, cv: &ast::CreateView) -> Result<BoundStatement> {
        if cv.materialized {
            return Err(Error::not_supported("materialized views"));
        }
        let (catalog, name) = self.create_target(&cv.name, cv.temporary)?;
        let columns: Vec<String> = cv.columns.iter().map(|c| ident_name(&c.name)).collect();
        let sql = cv.query.to_string();
        // Bound once now, where its names will be looked up, so a broken view is
        // refused when it is created.
        let home = self.view_home(catalog);
        let outer = std::mem::replace(&mut self.catalog, home);
        let plan = self.bind_view_query(&name, &cv.query);
        self.catalog = outer;
        let plan = plan?;
        if columns.len() > plan.schema().len() {
            return Err(Error::binder(format!(
                "view \"{name}\" names {} columns but its query returns {}",
                columns.len(),
                plan.schema().len()
            )));
        }
        Ok(BoundStatement::CreateView {
            name,
            sql,
            columns,
            or_replace: cv.or_replace,
            if_not_exists: cv.if_not_exists,
        })
    }

    /// The plan of view `name` (SQL text `sql`), for use in FROM.
    pub(super) fn bind_view(&mut self, name: &str, sql: &str) -> Result<LogicalPlan> {
        let statements = crate::parser::parse(sql)?;
        self.rowid_column |= super::from::mentions_rowid(sql);
        let [ast::Statement::Query(q)] = statements.as_slice() else {
            return Err(Error::internal(format!(
                "view \"{name}\" does not hold a single query"
            )));
        };
        self.bind_view_query(name, q)
    }

    fn bind_view_query(&mut self, name: &str, q: &ast::Query) -> Result<LogicalPlan> {
        let lname = name.to_ascii_lowercase();
        if self.views.contains(&lname) {
            return Err(Error::binder(format!(
                "view \"{name}\" refers to itself (through: {})",
                self.views.join(" -> ")
            )));
        }
        if self.views.len() >= MAX_VIEW_NESTING {
            return Err(Error::binder(format!(
                "views nest more than {MAX_VIEW_NESTING} levels deep"
            )));
        }
        let ctes = std::mem::take(&mut self.ctes);
        let outer = std::mem::take(&mut self.outer_scopes);
        let outer_aggregates = std::mem::take(&mut self.outer_aggregates);
        self.views.push(lname);
        let plan = self.bind_query(q);
        self.views.pop();
        self.ctes = ctes;
        self.outer_scopes = outer;
        self.outer_aggregates = outer_aggregates;
        plan
    }
}
