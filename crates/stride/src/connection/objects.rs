//! DDL of the catalog's named objects other than tables' contents: DROP TABLE,
//! CREATE/DROP VIEW, MACRO, SEQUENCE, TYPE and INDEX. Each checks the catalog the
//! statement sees, logs its change (to the WAL, or into the open transaction) and
//! applies it; and the connection's logging of the sequences that moved
//! ([`Connection::log_sequences`], before and after every statement).
//!
//! Where it sits: after binding, when `run_bound` meets one of these statements.

use super::access::{checkpoint_if_due, log, WriteLock};
use super::{Connection, Planned};
use crate::databases::Store;
use crate::result::QueryResult;
use std::sync::Arc;
use stride_common::{Error, Result};
use stride_sql::binder::BoundStatement;
use stride_storage::WalEntry;

/// Logs a change, applies it, and checkpoints when the log has grown past its
/// threshold: how every statement here ends.
fn logged(
    writer: &mut WriteLock<'_>,
    entries: &[WalEntry],
    apply: impl FnOnce() -> Result<()>,
) -> Result<Planned> {
    log(writer, entries)?;
    apply()?;
    checkpoint_if_due(writer);
    Ok(Planned::Done(QueryResult::done(None)))
}

impl Connection {
    /// Runs one of the statements this module handles.
    pub(super) fn run_object_ddl(
        &self,
        bound: BoundStatement,
        store: &Arc<Store>,
    ) -> Result<Planned> {
        match bound {
            BoundStatement::DropTable { name, if_exists } => {
                let mut writer = self.writer(store)?;
                if self.catalog_of(store).table(&name).is_none() {
                    if if_exists {
                        return Ok(Planned::Done(QueryResult::done(None)));
                    }
                    return Err(Error::catalog(format!(
                        "Table with name {name} does not exist!"
                    )));
                }
                logged(
                    &mut writer,
                    &[WalEntry::DropTable { name: name.clone() }],
                    || {
                        self.catalog_of(store).drop_table(&name)?;
                        Ok(())
                    },
                )
            }
            BoundStatement::CreateView {
                name,
                sql,
                columns,
                or_replace,
                if_not_exists,
            } => {
                let mut writer = self.writer(store)?;
                if if_not_exists && self.catalog_of(store).view(&name).is_some() {
                    return Ok(Planned::Done(QueryResult::done(None)));
                }
                let view = stride_storage::View {
                    id: 0,
                    name,
                    sql,
                    columns,
                };
                self.catalog_of(store)
                    .check_new_view(&view.name, or_replace)?;
                logged(
                    &mut writer,
                    &[WalEntry::CreateView {
                        view: view.clone(),
                        replace: or_replace,
                    }],
                    || {
                        self.catalog_of(store).create_view(view, or_replace)?;
                        Ok(())
                    },
                )
            }
            BoundStatement::CreateMacro {
                name,
                sql,
                or_replace,
                temporary,
            } => {
                let key = name.to_ascii_lowercase();
                if temporary {
                    if !or_replace && self.temp_macros().contains_key(&key) {
                        return Err(Error::catalog(format!(
                            "Macro Function with name \"{name}\" already exists!"
                        )));
                    }
                    self.change_temp_macros(|m| {
                        m.insert(key, sql);
                    })?;
                    return Ok(Planned::Done(QueryResult::done(None)));
                }
                let mut writer = self.writer(store)?;
                let m = stride_storage::Macro { id: 0, name, sql };
                self.catalog_of(store)
                    .check_new_macro(&m.name, or_replace)?;
                logged(
                    &mut writer,
                    &[WalEntry::CreateMacro {
                        r#macro: m.clone(),
                        replace: or_replace,
                    }],
                    || {
                        self.catalog_of(store).create_macro(m, or_replace)?;
                        Ok(())
                    },
                )
            }
            BoundStatement::CreateSequence {
                name,
                spec,
                or_replace,
                if_not_exists,
            } => {
                let mut writer = self.writer(store)?;
                let catalog = self.catalog_of(store);
                if if_not_exists && catalog.sequence(&name).is_some() {
                    return Ok(Planned::Done(QueryResult::done(None)));
                }
                let options = stride_storage::SequenceOptions::new(
                    spec.increment,
                    spec.min,
                    spec.max,
                    spec.start,
                    spec.cycle,
                )?;
                catalog.check_new_sequence(&name, or_replace)?;
                logged(
                    &mut writer,
                    &[WalEntry::CreateSequence {
                        name: name.clone(),
                        options,
                        replace: or_replace,
                    }],
                    || {
                        catalog.create_sequence(&name, options, or_replace)?;
                        Ok(())
                    },
                )
            }
            BoundStatement::DropSequence {
                name,
                if_exists,
                tables,
            } => {
                let mut writer = self.writer(store)?;
                let catalog = self.catalog_of(store);
                if catalog.sequence(&name).is_none() {
                    if if_exists {
                        return Ok(Planned::Done(QueryResult::done(None)));
                    }
                    return Err(Error::catalog(format!(
                        "Sequence with name {name} does not exist!"
                    )));
                }
                // CASCADE: the tables whose DEFAULT uses it go first
                let mut entries: Vec<WalEntry> = tables
                    .iter()
                    .map(|t| WalEntry::DropTable { name: t.clone() })
                    .collect();
                entries.push(WalEntry::DropSequence { name: name.clone() });
                logged(&mut writer, &entries, || {
                    for t in &tables {
                        catalog.drop_table(t)?;
                    }
                    catalog.drop_sequence(&name)?;
                    Ok(())
                })
            }
            BoundStatement::CreateType {
                name,
                ty,
                or_replace,
                if_not_exists,
            } => {
                let mut writer = self.writer(store)?;
                let catalog = self.catalog_of(store);
                if if_not_exists && catalog.type_named(&name).is_some() {
                    return Ok(Planned::Done(QueryResult::done(None)));
                }
                catalog.check_new_type(&name, or_replace)?;
                let user_type = stride_storage::UserType { id: 0, name, ty };
                logged(
                    &mut writer,
                    &[WalEntry::CreateType {
                        user_type: user_type.clone(),
                        replace: or_replace,
                    }],
                    || {
                        catalog.create_type(user_type, or_replace)?;
                        Ok(())
                    },
                )
            }
            BoundStatement::DropType { name, if_exists } => {
                let mut writer = self.writer(store)?;
                let catalog = self.catalog_of(store);
                if catalog.type_named(&name).is_none() {
                    if if_exists {
                        return Ok(Planned::Done(QueryResult::done(None)));
                    }
                    return Err(Error::catalog(format!(
                        "Type with name {name} does not exist!"
                    )));
                }
                logged(
                    &mut writer,
                    &[WalEntry::DropType { name: name.clone() }],
                    || {
                        catalog.drop_type(&name)?;
                        Ok(())
                    },
                )
            }
            BoundStatement::DropMacro { name, if_exists } => {
                if if_exists {
                    return Ok(Planned::Done(QueryResult::done(None)));
                }
                let key = name.to_ascii_lowercase();
                if self.temp_macros().contains_key(&key) {
                    self.change_temp_macros(|m| {
                        m.remove(&key);
                    })?;
                    return Ok(Planned::Done(QueryResult::done(None)));
                }
                let mut writer = self.writer(store)?;
                if self.catalog_of(store).macro_named(&name).is_none() {
                    return Err(Error::catalog(format!(
                        "Macro Function with name {name} does not exist!"
                    )));
                }
                logged(
                    &mut writer,
                    &[WalEntry::DropMacro { name: name.clone() }],
                    || {
                        self.catalog_of(store).drop_macro(&name)?;
                        Ok(())
                    },
                )
            }
            BoundStatement::DropView { name, if_exists } => {
                let mut writer = self.writer(store)?;
                if self.catalog_of(store).view(&name).is_none() {
                    if if_exists {
                        return Ok(Planned::Done(QueryResult::done(None)));
                    }
                    return Err(Error::catalog(format!(
                        "View with name {name} does not exist!"
                    )));
                }
                logged(
                    &mut writer,
                    &[WalEntry::DropView { name: name.clone() }],
                    || {
                        self.catalog_of(store).drop_view(&name)?;
                        Ok(())
                    },
                )
            }
            BoundStatement::CreateIndex {
                name,
                table,
                columns,
                unique,
                if_not_exists,
            } => {
                let mut writer = self.writer(store)?;
                if self.catalog_of(store).index_table(&name).is_some() {
                    if if_not_exists {
                        return Ok(Planned::Done(QueryResult::done(None)));
                    }
                    return Err(Error::catalog(format!(
                        "Index with name \"{name}\" already exists!"
                    )));
                }
                let t = self.catalog_of(store).table(&table).ok_or_else(|| {
                    Error::catalog(format!("Table with name {table} does not exist!"))
                })?;
                // Added first (a UNIQUE index checks the rows), taken back if the log
                // write fails.
                t.add_index(stride_storage::IndexInfo {
                    id: self.catalog_of(store).new_object_id(),
                    name: name.clone(),
                    columns: columns.clone(),
                    unique,
                })?;
                let entry = WalEntry::CreateIndex {
                    table: t.schema.name.clone(),
                    name: name.clone(),
                    columns,
                    unique,
                };
                if let Err(e) = log(&mut writer, &[entry]) {
                    let _ = t.drop_index(&name);
                    return Err(e);
                }
                checkpoint_if_due(&mut writer);
                Ok(Planned::Done(QueryResult::done(None)))
            }
            BoundStatement::DropIndex { name, if_exists } => {
                let mut writer = self.writer(store)?;
                match self.catalog_of(store).index_table(&name) {
                    Some(t) => logged(
                        &mut writer,
                        &[WalEntry::DropIndex { name: name.clone() }],
                        || t.drop_index(&name).map(|_| ()),
                    ),
                    None if if_exists => Ok(Planned::Done(QueryResult::done(None))),
                    None => Err(Error::catalog(format!(
                        "Index with name {name} does not exist!"
                    ))),
                }
            }
            other => Err(Error::internal(format!(
                "run_object_ddl was given {other:?}"
            ))),
        }
    }

    /// Writes to the log where every sequence that moved since it was last logged
    /// stands (a database without a file has no log). Statements call it before and
    /// after they run. Sequences are not transactional, so their states go straight
    /// to the log, inside a transaction too (its COMMIT would apply a state taken
    /// before later values others took, setting the counter back; its ROLLBACK would
    /// drop values handed out). They are read while the writer is held, so the log
    /// holds each sequence's states in the order it reached them.
    pub(super) fn log_sequences(&self) -> Result<()> {
        for store in self.databases.all() {
            if store.file.is_none() {
                continue;
            }
            let sequences = store.catalog.sequences();
            if !sequences.iter().any(|s| s.moved()) {
                continue;
            }
            let mut writer = self.shared_writer(&store)?;
            let entries: Vec<WalEntry> = sequences
                .iter()
                .filter_map(|s| {
                    s.take_moved().map(|state| WalEntry::SequenceValue {
                        name: s.name.clone(),
                        state,
                    })
                })
                .collect();
            log(&mut writer, &entries)?;
        }
        Ok(())
    }
}
