//! The catalog of one database: tables, views, macros, sequences and types (CREATE
//! TYPE) by name (case-insensitive, as in DuckDB). Tables and views share one
//! namespace; macros (functions), sequences and types have their own.

use crate::sequence::{Sequence, SequenceOptions};
use crate::table::Table;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use stride_common::{DataType, Error, Result, TableSchema};

/// A view: a named query, stored as SQL text and bound again each time it is used.
#[derive(Clone, Debug)]
pub struct View {
    /// Assigned by [`Catalog::create_view`] (kept when a view is replaced).
    pub id: u64,
    pub name: String,
    pub sql: String,
    /// Names given to the query's columns (`CREATE VIEW v(a, b) AS ...`), if any.
    pub columns: Vec<String>,
}

/// A macro (`CREATE MACRO name(params) AS expr | AS TABLE query`): stored, like a
/// view, as SQL text — the CREATE MACRO statement itself, without OR REPLACE — and
/// parsed and expanded again wherever it is called.
#[derive(Clone, Debug)]
pub struct Macro {
    /// Assigned by [`Catalog::create_macro`] (kept when a macro is replaced).
    pub id: u64,
    pub name: String,
    pub sql: String,
}

/// A type made by `CREATE TYPE name AS type`: an ENUM (carrying `name`) or an alias
/// of another type. Transactional, like a macro.
#[derive(Clone, Debug)]
pub struct UserType {
    /// Assigned by [`Catalog::create_type`] (kept when a type is replaced).
    pub id: u64,
    pub name: String,
    pub ty: DataType,
}

#[derive(Default)]
pub struct Catalog {
    tables: RwLock<BTreeMap<String, Arc<Table>>>,
    views: RwLock<BTreeMap<String, View>>,
    macros: RwLock<BTreeMap<String, Macro>>,
    types: RwLock<BTreeMap<String, UserType>>,
    /// Shared with every fork: a sequence is not transactional.
    sequences: RwLock<BTreeMap<String, Arc<Sequence>>>,
    next_id: AtomicU64,
    /// Held exclusively while a transaction's changes are applied, and shared while
    /// a transaction's copy is taken, so the copy has all of a commit or none of it.
    commits: RwLock<()>,
}

impl Catalog {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn table(&self, name: &str) -> Option<Arc<Table>> {
        self.tables
            .read()
            .ok()?
            .get(&name.to_ascii_lowercase())
            .cloned()
    }

    pub fn table_by_id(&self, id: u64) -> Option<Arc<Table>> {
        self.tables
            .read()
            .ok()?
            .values()
            .find(|t| t.id == id)
            .cloned()
    }

    /// Every table, in name order.
    pub fn tables(&self) -> Vec<Arc<Table>> {
        self.tables
            .read()
            .map(|t| t.values().cloned().collect())
            .unwrap_or_default()
    }

    /// Every view, in name order.
    pub fn views(&self) -> Vec<View> {
        self.views
            .read()
            .map(|v| v.values().cloned().collect())
            .unwrap_or_default()
    }

    /// A new id for a table, view or index: ids are unique within the catalog and
    /// never reused, so the system catalog can number objects by them.
    pub fn new_object_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// A copy of every table and view, for a transaction to read and change on its
    /// own until it commits.
    pub fn fork(&self) -> Result<Catalog> {
        let _consistent = self
            .commits
            .read()
            .map_err(|_| Error::internal("catalog lock poisoned"))?;
        let tables = self
            .tables
            .read()
            .map_err(|_| Error::internal("catalog lock poisoned"))?
            .iter()
            .map(|(k, t)| Ok((k.clone(), Arc::new(t.fork()?))))
            .collect::<Result<BTreeMap<_, _>>>()?;
        let views = self
            .views
            .read()
            .map_err(|_| Error::internal("catalog lock poisoned"))?
            .clone();
        let macros = self
            .macros
            .read()
            .map_err(|_| Error::internal("catalog lock poisoned"))?
            .clone();
        let sequences = self
            .sequences
            .read()
            .map_err(|_| Error::internal("catalog lock poisoned"))?
            .clone();
        let types = self
            .types
            .read()
            .map_err(|_| Error::internal("catalog lock poisoned"))?
            .clone();
        Ok(Catalog {
            tables: RwLock::new(tables),
            views: RwLock::new(views),
            macros: RwLock::new(macros),
            types: RwLock::new(types),
            sequences: RwLock::new(sequences),
            next_id: AtomicU64::new(self.peek_next_id()),
            commits: RwLock::new(()),
        })
    }

    /// Runs `f` (applying a commit) so that no [`Catalog::fork`] sees part of it.
    pub fn atomically<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let _exclusive = self
            .commits
            .write()
            .map_err(|_| Error::internal("catalog lock poisoned"))?;
        f()
    }

    /// The id [`Catalog::new_object_id`] gives next (stored by checkpoints).
    pub fn peek_next_id(&self) -> u64 {
        self.next_id.load(Ordering::Relaxed)
    }

    /// Makes later ids at least `id` (a catalog read back from a file).
    pub fn advance_next_id(&self, id: u64) {
        self.next_id.fetch_max(id, Ordering::Relaxed);
    }

    /// Adds a table read back from a database file, keeping its id.
    pub fn restore_table(&self, table: Arc<Table>) -> Result<()> {
        let mut tables = self
            .tables
            .write()
            .map_err(|_| Error::internal("catalog lock poisoned"))?;
        self.next_id.fetch_max(table.id + 1, Ordering::Relaxed);
        tables.insert(table.schema.name.to_ascii_lowercase(), table);
        Ok(())
    }

    /// Adds a view read back from a database file, keeping its id.
    pub fn restore_view(&self, view: View) -> Result<()> {
        let mut views = self
            .views
            .write()
            .map_err(|_| Error::internal("catalog lock poisoned"))?;
        self.next_id.fetch_max(view.id + 1, Ordering::Relaxed);
        views.insert(view.name.to_ascii_lowercase(), view);
        Ok(())
    }

    pub fn table_names(&self) -> Vec<String> {
        self.tables
            .read()
            .map(|t| t.values().map(|t| t.schema.name.clone()).collect())
            .unwrap_or_default()
    }

    /// Whether [`Catalog::create_table`] would accept a table named `name`.
    pub fn check_new_table(&self, name: &str, replace: bool) -> Result<()> {
        if self.view(name).is_some() {
            return Err(Error::catalog(format!(
                "a view named \"{name}\" already exists; drop it first"
            ))
            .with_sqlstate(stride_common::error::sqlstate::DUPLICATE_TABLE));
        }
        if self.table(name).is_some() && !replace {
            return Err(
                Error::catalog(format!("Table with name \"{name}\" already exists!"))
                    .with_sqlstate(stride_common::error::sqlstate::DUPLICATE_TABLE),
            );
        }
        Ok(())
    }

    /// Whether [`Catalog::create_view`] would accept a view named `name`.
    pub fn check_new_view(&self, name: &str, replace: bool) -> Result<()> {
        if self.table(name).is_some() {
            return Err(
                Error::catalog(format!("a table named \"{name}\" already exists"))
                    .with_sqlstate(stride_common::error::sqlstate::DUPLICATE_TABLE),
            );
        }
        if self.view(name).is_some() && !replace {
            return Err(
                Error::catalog(format!("View with name \"{name}\" already exists!"))
                    .with_sqlstate(stride_common::error::sqlstate::DUPLICATE_TABLE),
            );
        }
        Ok(())
    }

    /// Creates a table; with `replace`, an existing one of that name is dropped first.
    pub fn create_table(&self, schema: TableSchema, replace: bool) -> Result<Arc<Table>> {
        let key = schema.name.to_ascii_lowercase();
        let mut tables = self
            .tables
            .write()
            .map_err(|_| Error::internal("catalog lock poisoned"))?;
        if self.view(&key).is_some() {
            return Err(Error::catalog(format!(
                "a view named \"{}\" already exists; drop it first",
                schema.name
            ))
            .with_sqlstate(stride_common::error::sqlstate::DUPLICATE_TABLE));
        }
        if tables.contains_key(&key) && !replace {
            return Err(Error::catalog(format!(
                "Table with name \"{}\" already exists!",
                schema.name
            ))
            .with_sqlstate(stride_common::error::sqlstate::DUPLICATE_TABLE));
        }
        let id = self.new_object_id();
        let table = Arc::new(Table::new(id, schema));
        tables.insert(key, table.clone());
        Ok(table)
    }

    /// The table holding the index `name`.
    pub fn index_table(&self, name: &str) -> Option<Arc<Table>> {
        let tables = self.tables.read().ok()?;
        tables
            .values()
            .find(|t| {
                t.indexes()
                    .iter()
                    .any(|i| i.name.eq_ignore_ascii_case(name))
            })
            .cloned()
    }

    pub fn view(&self, name: &str) -> Option<View> {
        self.views
            .read()
            .ok()?
            .get(&name.to_ascii_lowercase())
            .cloned()
    }

    /// Creates a view and gives it its id; with `replace`, an existing view of that
    /// name is replaced (and keeps its id).
    pub fn create_view(&self, mut view: View, replace: bool) -> Result<()> {
        let key = view.name.to_ascii_lowercase();
        if self.table(&key).is_some() {
            return Err(
                Error::catalog(format!("a table named \"{}\" already exists", view.name))
                    .with_sqlstate(stride_common::error::sqlstate::DUPLICATE_TABLE),
            );
        }
        let mut views = self
            .views
            .write()
            .map_err(|_| Error::internal("catalog lock poisoned"))?;
        if views.contains_key(&key) && !replace {
            return Err(Error::catalog(format!(
                "View with name \"{}\" already exists!",
                view.name
            ))
            .with_sqlstate(stride_common::error::sqlstate::DUPLICATE_TABLE));
        }
        view.id = match views.get(&key) {
            Some(old) => old.id,
            None => self.new_object_id(),
        };
        views.insert(key, view);
        Ok(())
    }

    /// Removes a view; `Ok(false)` when it did not exist.
    pub fn drop_view(&self, name: &str) -> Result<bool> {
        let mut views = self
            .views
            .write()
            .map_err(|_| Error::internal("catalog lock poisoned"))?;
        Ok(views.remove(&name.to_ascii_lowercase()).is_some())
    }

    /// Puts `table` (an altered version of the table named `old`) in its place, under
    /// its own name.
    pub fn replace_table(&self, old: &str, table: Table) -> Result<()> {
        let new_key = table.schema.name.to_ascii_lowercase();
        let old_key = old.to_ascii_lowercase();
        if new_key != old_key && (self.table(&new_key).is_some() || self.view(&new_key).is_some()) {
            return Err(Error::catalog(format!(
                "a table or view named \"{}\" already exists",
                table.schema.name
            ))
            .with_sqlstate(stride_common::error::sqlstate::DUPLICATE_TABLE));
        }
        let mut tables = self
            .tables
            .write()
            .map_err(|_| Error::internal("catalog lock poisoned"))?;
        if tables.remove(&old_key).is_none() {
            return Err(Error::catalog(format!(
                "Table with name {old} does not exist!"
            )));
        }
        tables.insert(new_key, Arc::new(table));
        Ok(())
    }

    /// Removes a table; `Ok(false)` when it did not exist.
    pub fn drop_table(&self, name: &str) -> Result<bool> {
        let mut tables = self
            .tables
            .write()
            .map_err(|_| Error::internal("catalog lock poisoned"))?;
        Ok(tables.remove(&name.to_ascii_lowercase()).is_some())
    }

    /// Every macro, in name order.
    pub fn macros(&self) -> Vec<Macro> {
        self.macros
            .read()
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default()
    }

    pub fn macro_named(&self, name: &str) -> Option<Macro> {
        self.macros
            .read()
            .ok()?
            .get(&name.to_ascii_lowercase())
            .cloned()
    }

    /// Whether [`Catalog::create_macro`] would accept a macro named `name`.
    pub fn check_new_macro(&self, name: &str, replace: bool) -> Result<()> {
        if self.macro_named(name).is_some() && !replace {
            return Err(Error::catalog(format!(
                "Macro Function with name \"{name}\" already exists!"
            )));
        }
        Ok(())
    }

    /// Creates a macro and gives it its id; with `replace`, an existing macro of that
    /// name is replaced (and keeps its id).
    pub fn create_macro(&self, mut m: Macro, replace: bool) -> Result<()> {
        let key = m.name.to_ascii_lowercase();
        let mut macros = self
            .macros
            .write()
            .map_err(|_| Error::internal("catalog lock poisoned"))?;
        if macros.contains_key(&key) && !replace {
            return Err(Error::catalog(format!(
                "Macro Function with name \"{}\" already exists!",
                m.name
            )));
        }
        m.id = match macros.get(&key) {
            Some(old) => old.id,
            None => self.new_object_id(),
        };
        macros.insert(key, m);
        Ok(())
    }

    /// Adds a macro read back from a database file, keeping its id.
    pub fn restore_macro(&self, m: Macro) -> Result<()> {
        let mut macros = self
            .macros
            .write()
            .map_err(|_| Error::internal("catalog lock poisoned"))?;
        self.next_id.fetch_max(m.id + 1, Ordering::Relaxed);
        macros.insert(m.name.to_ascii_lowercase(), m);
        Ok(())
    }

    /// Removes a macro; `Ok(false)` when it did not exist.
    pub fn drop_macro(&self, name: &str) -> Result<bool> {
        let mut macros = self
            .macros
            .write()
            .map_err(|_| Error::internal("catalog lock poisoned"))?;
        Ok(macros.remove(&name.to_ascii_lowercase()).is_some())
    }

    /// Every type made by CREATE TYPE, in name order.
    pub fn types(&self) -> Vec<UserType> {
        self.types
            .read()
            .map(|t| t.values().cloned().collect())
            .unwrap_or_default()
    }

    pub fn type_named(&self, name: &str) -> Option<UserType> {
        self.types
            .read()
            .ok()?
            .get(&name.to_ascii_lowercase())
            .cloned()
    }

    /// Whether [`Catalog::create_type`] would accept a type named `name`.
    pub fn check_new_type(&self, name: &str, replace: bool) -> Result<()> {
        if self.type_named(name).is_some() && !replace {
            return Err(Error::catalog(format!(
                "Type with name \"{name}\" already exists!"
            )));
        }
        Ok(())
    }

    /// Creates a type and gives it its id; with `replace`, an existing type of that
    /// name is replaced (and keeps its id).
    pub fn create_type(&self, mut t: UserType, replace: bool) -> Result<()> {
        let key = t.name.to_ascii_lowercase();
        let mut types = self
            .types
            .write()
            .map_err(|_| Error::internal("catalog lock poisoned"))?;
        if types.contains_key(&key) && !replace {
            return Err(Error::catalog(format!(
                "Type with name \"{}\" already exists!",
                t.name
            )));
        }
        t.id = match types.get(&key) {
            Some(old) => old.id,
            None => self.new_object_id(),
        };
        types.insert(key, t);
        Ok(())
    }

    /// Adds a type read back from a database file, keeping its id.
    pub fn restore_type(&self, t: UserType) -> Result<()> {
        let mut types = self
            .types
            .write()
            .map_err(|_| Error::internal("catalog lock poisoned"))?;
        self.next_id.fetch_max(t.id + 1, Ordering::Relaxed);
        types.insert(t.name.to_ascii_lowercase(), t);
        Ok(())
    }

    /// Removes a type; `Ok(false)` when it did not exist.
    pub fn drop_type(&self, name: &str) -> Result<bool> {
        let mut types = self
            .types
            .write()
            .map_err(|_| Error::internal("catalog lock poisoned"))?;
        Ok(types.remove(&name.to_ascii_lowercase()).is_some())
    }

    /// Every sequence, in name order.
    pub fn sequences(&self) -> Vec<Arc<Sequence>> {
        self.sequences
            .read()
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default()
    }

    pub fn sequence(&self, name: &str) -> Option<Arc<Sequence>> {
        self.sequences
            .read()
            .ok()?
            .get(&name.to_ascii_lowercase())
            .cloned()
    }

    pub fn sequence_by_id(&self, id: u64) -> Option<Arc<Sequence>> {
        self.sequences
            .read()
            .ok()?
            .values()
            .find(|s| s.id == id)
            .cloned()
    }

    /// Whether [`Catalog::create_sequence`] would accept a sequence named `name`.
    pub fn check_new_sequence(&self, name: &str, replace: bool) -> Result<()> {
        if self.sequence(name).is_some() && !replace {
            return Err(Error::catalog(format!(
                "Sequence with name \"{name}\" already exists!"
            )));
        }
        Ok(())
    }

    /// Creates a sequence at its start (with `replace`, in place of one of that name,
    /// with a new id: statements bound to the old one no longer find it).
    pub fn create_sequence(
        &self,
        name: &str,
        options: SequenceOptions,
        replace: bool,
    ) -> Result<Arc<Sequence>> {
        self.check_new_sequence(name, replace)?;
        let s = Arc::new(Sequence::new(
            self.new_object_id(),
            name.to_string(),
            options,
        ));
        self.restore_sequence(s.clone())?;
        Ok(s)
    }

    /// Adds a sequence read back from a database file, keeping its id.
    pub fn restore_sequence(&self, s: Arc<Sequence>) -> Result<()> {
        self.sequences
            .write()
            .map_err(|_| Error::internal("catalog lock poisoned"))?
            .insert(s.name.to_ascii_lowercase(), s);
        Ok(())
    }

    /// Removes a sequence; `Ok(false)` when it did not exist.
    pub fn drop_sequence(&self, name: &str) -> Result<bool> {
        Ok(self
            .sequences
            .write()
            .map_err(|_| Error::internal("catalog lock poisoned"))?
            .remove(&name.to_ascii_lowercase())
            .is_some())
    }
}
