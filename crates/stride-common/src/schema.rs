//! Table schemas: what the catalog knows about a table's columns and constraints. The
//! binder reads them to resolve names and check inserts; storage keeps one per table.

use crate::scalar::ScalarValue;
use crate::types::DataType;

#[derive(Debug, Clone, PartialEq)]
pub struct ColumnSchema {
    pub name: String,
    pub ty: DataType,
    pub not_null: bool,
    /// Value used when an INSERT omits the column; NULL when none was declared.
    pub default: Option<ScalarValue>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TableSchema {
    pub name: String,
    pub columns: Vec<ColumnSchema>,
    /// Column positions of the PRIMARY KEY (or UNIQUE) constraints, checked on insert.
    pub unique_keys: Vec<Vec<usize>>,
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
#[derive(Debug, Clone, PartialEq)]
pub enum TableAlteration {
    AddColumn(ColumnSchema),
    DropColumn(String),
    RenameColumn { old: String, new: String },
    RenameTable(String),
}
