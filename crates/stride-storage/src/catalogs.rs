//! The catalogs one statement can read: the database it runs in and every database
//! ATTACHed beside it. Each database has a slot (0 for the one opened first, then one
//! per ATTACH, never reused while the process runs), and the table ids the binder
//! hands out carry it in their top bits ([`global_id`]), so a plan that joins tables of
//! two databases names each table unambiguously and the planner finds it here.
//!
//! Ids stored in a database file are the local ones (the slot is 0 there); the slot is
//! added when the binder reads a table's id and taken off where storage is addressed.

use crate::catalog::Catalog;
use crate::table::Table;
use std::sync::Arc;
use stride_common::Result;

/// Bits of a table id below the slot.
const SLOT_SHIFT: u32 = 48;

/// The id of local table `id` of the database in `slot`, as plans carry it.
pub fn global_id(slot: u64, id: u64) -> u64 {
    (slot << SLOT_SHIFT) | id
}

/// The slot of the database a plan's table id belongs to.
pub fn slot_of(id: u64) -> u64 {
    id >> SLOT_SHIFT
}

/// The table's id within its own database.
pub fn local_id(id: u64) -> u64 {
    id & ((1 << SLOT_SHIFT) - 1)
}

/// Catalogs by slot.
#[derive(Clone, Default)]
pub struct Catalogs {
    list: Vec<(u64, Arc<Catalog>)>,
}

impl Catalogs {
    /// One database, in slot 0 (a database with nothing attached).
    pub fn single(catalog: Arc<Catalog>) -> Catalogs {
        Catalogs {
            list: vec![(0, catalog)],
        }
    }

    pub fn new(list: Vec<(u64, Arc<Catalog>)>) -> Catalogs {
        Catalogs { list }
    }

    /// The table a plan's id names, in whichever database it is.
    pub fn table_by_id(&self, id: u64) -> Option<Arc<Table>> {
        self.catalog(slot_of(id))?.table_by_id(local_id(id))
    }

    /// The catalog of the database in `slot`.
    /// The sequence a plan's id names, in whichever database it is.
    pub fn sequence_by_id(&self, id: u64) -> Option<Arc<crate::Sequence>> {
        self.catalog(slot_of(id))?.sequence_by_id(local_id(id))
    }

    pub fn catalog(&self, slot: u64) -> Option<&Arc<Catalog>> {
        self.list.iter().find(|(s, _)| *s == slot).map(|(_, c)| c)
    }

    pub fn iter(&self) -> impl Iterator<Item = &(u64, Arc<Catalog>)> {
        self.list.iter()
    }

    /// A snapshot of every database (see [`Catalog::fork`]). Each is taken on its own:
    /// a commit changes one database only, so each commit is seen whole or not at all.
    pub fn fork(&self) -> Result<Catalogs> {
        Ok(Catalogs {
            list: self
                .list
                .iter()
                .map(|(s, c)| Ok((*s, Arc::new(c.fork()?))))
                .collect::<Result<_>>()?,
        })
    }
}
