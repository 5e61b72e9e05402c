//! Table schemas: what the catalog knows about a table's columns and constraints. The
//! binder reads them to resolve names and check inserts; storage keeps one per table.

use crate::collation::Collation;
use crate::scalar::ScalarValue;
use crate::types::DataType;

#[derive(Debug, Clone, PartialEq)]
pub struct ColumnSchema {
    pub name: String,
    pub ty: DataType,
    pub not_null: bool,
    /// Value used when an INSERT omits the column; NULL when none was declared.
    pub default: Option<ScalarValue>,
    /// A DEFAULT that is not a constant (`nextval('seq')`, `random()`, `now()`): its
    /// SQL text, bound again by every INSERT that uses it (`default` is then `None`).
    pub default_expr: Option<String>,
    /// How the column's strings compare (`COLLATE NOCASE`); byte order by default.
    pub collation: Collation,
}

impl ColumnSchema {
    /// A nullable column with no default, comparing in byte order.
    pub fn new(name: impl Into<String>, ty: DataType) -> Self {
        ColumnSchema {
            name: name.into(),
            ty,
            not_null: false,
            default: None,
            default_expr: None,
            collation: Collation::BINARY,
        }
    }

    pub fn with_collation(mut self, collation: Collation) -> Self {
        self.collation = collation;
        self
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct TableSchema {
    pub name: String,
    pub columns: Vec<ColumnSchema>,
    /// Column positions of the PRIMARY KEY (or UNIQUE) constraints, checked on insert.
    pub unique_keys: Vec<Vec<usize>>,
    /// Which of `unique_keys` is the PRIMARY KEY, if the table has one (the others
    /// are UNIQUE constraints): what the catalogs report (`pg_constraint`).
    pub primary_key: Option<usize>,
    /// CHECK constraints, in declaration order: every row an INSERT or UPDATE writes
    /// must not make one FALSE.
    pub checks: Vec<CheckConstraint>,
}

/// A CHECK constraint: a condition over the row's columns, named by their bare
/// names, kept as SQL text and bound again by each statement that writes rows.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckConstraint {
    /// `CONSTRAINT name CHECK (...)`: the name, for errors.
    pub name: Option<String>,
    pub expr: String,
}

impl TableSchema {
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    }

    pub fn types(&self) -> Vec<DataType> {
        self.columns.iter().map(|c| c.ty.clone()).collect()
    }
}

/// One change of ALTER TABLE.
#[derive(Debug, Clone)]
pub enum TableAlteration {
    AddColumn(ColumnSchema),
    DropColumn(String),
    RenameColumn {
        old: String,
        new: String,
    },
    RenameTable(String),
    /// ALTER COLUMN ... SET DEFAULT value, or DROP DEFAULT (`None`).
    SetDefault {
        column: String,
        default: Option<crate::ScalarValue>,
    },
    /// ALTER COLUMN ... SET NOT NULL (`true`) or DROP NOT NULL.
    SetNotNull {
        column: String,
        not_null: bool,
    },
    /// ALTER COLUMN ... TYPE: the column's values converted to `ty`, one vector per
    /// row group in order (the binder leaves `values` empty; the facade, which can
    /// cast, fills it before the change is checked and logged).
    SetType {
        column: String,
        ty: crate::DataType,
        values: Vec<crate::Vector>,
    },
}
