//! Checkpoints: the whole catalog written into the database file, and read back when it
//! is opened.
//!
//! A checkpoint writes each column of each row group as a segment (compressed by the
//! codec [`crate::compression`] picks for it), unless the row group is already in
//! the file: row groups are immutable once shared, so one written by an earlier
//! checkpoint (or committed ahead of one by a bulk load) keeps its segments and costs
//! nothing to checkpoint again. Then the metadata (objects, schemas, and where every
//! segment is) goes into a chain of blocks, and [`BlockFile::switch`] makes it the
//! database.

use crate::block_file::{BlockFile, BlockWriter, Extent, PAYLOAD};
use crate::catalog::{Catalog, View};
use crate::serialize::{
    read_positions, read_schema, write_positions, write_schema, ByteReader, ByteWriter,
};
use crate::table::{IndexInfo, RowGroup, Table};
use std::collections::HashMap;
use std::sync::Arc;
use stride_common::{DataType, Result, Vector};

/// The row groups that are in the file, by identity, with where their columns are.
/// Holding each group keeps it from being changed in place: a table appending to a
/// stored group copies it first.
#[derive(Default)]
pub struct StoredGroups {
    groups: HashMap<usize, (Arc<RowGroup>, Vec<Extent>)>,
}

impl StoredGroups {
    fn key(g: &Arc<RowGroup>) -> usize {
        Arc::as_ptr(g) as usize
    }

    pub fn get(&self, g: &Arc<RowGroup>) -> Option<&Vec<Extent>> {
        self.groups.get(&Self::key(g)).map(|(_, e)| e)
    }

    pub fn insert(&mut self, g: Arc<RowGroup>, extents: Vec<Extent>) {
        self.groups.insert(Self::key(&g), (g, extents));
    }
}

/// Writes the segments of `group`'s columns.
pub fn write_group(w: &mut BlockWriter, group: &RowGroup) -> Result<Vec<Extent>> {
    group
        .columns
        .iter()
        .map(|c| w.write(&crate::compression::encode(c, group.len)))
        .collect()
}

/// Reads a row group of `len` rows whose columns of types `types` are at `extents`.
pub fn read_group(
    file: &BlockFile,
    types: &[DataType],
    len: usize,
    extents: &[Extent],
    cache: &mut Option<(u64, Vec<u8>)>,
) -> Result<RowGroup> {
    let mut columns: Vec<Vector> = Vec::with_capacity(types.len());
    for (ty, e) in types.iter().zip(extents) {
        let bytes = file.read_extent(e, cache)?;
        columns.push(crate::compression::decode(&bytes, ty, len)?);
    }
    Ok(RowGroup { columns, len })
}

pub fn write_extent(w: &mut ByteWriter, e: &Extent) {
    w.len_of(e.blocks.len());
    for &b in &e.blocks {
        w.u64(b);
    }
    w.u32(e.offset);
    w.u64(e.len);
}

pub fn read_extent(r: &mut ByteReader) -> Result<Extent> {
    let n = r.len_of(8)?;
    let blocks = (0..n).map(|_| r.u64()).collect::<Result<Vec<_>>>()?;
    let e = Extent {
        blocks,
        offset: r.u32()?,
        len: r.u64()?,
    };
    let room = (e.blocks.len() as u64 * PAYLOAD as u64).saturating_sub(e.offset as u64);
    if e.offset as usize >= PAYLOAD || e.len > room {
        return Err(r.corrupt("a run of bytes does not fit the blocks it names"));
    }
    Ok(e)
}

/// Writes a checkpoint of `catalog` and switches the file to it. `stored` is updated
/// to the row groups of this checkpoint.
pub fn checkpoint(
    file: &mut BlockFile,
    catalog: &Catalog,
    stored: &mut StoredGroups,
) -> Result<()> {
    let mut next = StoredGroups::default();
    let mut used: Vec<u64> = Vec::new();
    let mut meta = ByteWriter::new();
    let mut w = file.writer();
    meta.u64(catalog.peek_next_id());
    let tables = catalog.tables();
    meta.len_of(tables.len());
    for t in &tables {
        meta.u64(t.id);
        write_schema(&mut meta, &t.schema);
        let indexes = t.indexes();
        meta.len_of(indexes.len());
        for i in &indexes {
            meta.u64(i.id);
            meta.str(&i.name);
            write_positions(&mut meta, &i.columns);
            meta.u8(i.unique as u8);
        }
        let groups = t.snapshot();
        meta.len_of(groups.len());
        for g in groups {
            let extents = match stored.get(&g) {
                Some(e) => e.clone(),
                None => write_group(&mut w, &g)?,
            };
            meta.u64(g.len as u64);
            for e in &extents {
                write_extent(&mut meta, e);
                used.extend(&e.blocks);
            }
            next.insert(g, extents);
        }
    }
    let views = catalog.views();
    meta.len_of(views.len());
    for v in &views {
        meta.u64(v.id);
        meta.str(&v.name);
        meta.str(&v.sql);
        meta.len_of(v.columns.len());
        for c in &v.columns {
            meta.str(c);
        }
    }
    let (header, chain) = w.finish(&meta.bytes)?;
    used.extend(chain);
    file.switch(header, &used)?;
    *stored = next;
    Ok(())
}

/// Reads the checkpoint the file's header points at into an empty catalog.
pub fn load(file: &mut BlockFile, catalog: &Catalog) -> Result<StoredGroups> {
    let mut stored = StoredGroups::default();
    if file.header.metadata_len == 0 {
        return Ok(stored);
    }
    let (bytes, chain) = file.read_metadata()?;
    let mut r = ByteReader::new(&bytes, "the database metadata");
    let mut used: Vec<u64> = Vec::new();
    let next_id = r.u64()?;
    let mut cache = None;
    let n = r.len_of(8)?;
    for _ in 0..n {
        let id = r.u64()?;
        let schema = read_schema(&mut r)?;
        let types = schema.types();
        let mut indexes = Vec::new();
        for _ in 0..r.len_of(13)? {
            let index = IndexInfo {
                id: r.u64()?,
                name: r.str()?,
                columns: read_positions(&mut r)?,
                unique: r.bool()?,
            };
            if index.columns.iter().any(|&c| c >= types.len()) {
                return Err(r.corrupt("an index names a column its table lacks"));
            }
            indexes.push(index);
        }
        let mut groups = Vec::new();
        for _ in 0..r.len_of(8)? {
            let len = usize::try_from(r.u64()?)
                .ok()
                .filter(|&n| n <= stride_common::MORSEL_SIZE)
                .ok_or_else(|| r.corrupt("a row group's row count"))?;
            let extents = (0..types.len())
                .map(|_| read_extent(&mut r))
                .collect::<Result<Vec<_>>>()?;
            let group = Arc::new(read_group(file, &types, len, &extents, &mut cache)?);
            for e in &extents {
                used.extend(&e.blocks);
            }
            stored.insert(group.clone(), extents);
            groups.push(group);
        }
        let table = Table::restore(id, schema, groups)?;
        for i in indexes {
            table.add_index(i)?;
        }
        catalog.restore_table(Arc::new(table))?;
    }
    for _ in 0..r.len_of(16)? {
        let id = r.u64()?;
        let name = r.str()?;
        let sql = r.str()?;
        let columns = (0..r.len_of(4)?)
            .map(|_| r.str())
            .collect::<Result<Vec<_>>>()?;
        catalog.restore_view(View {
            id,
            name,
            sql,
            columns,
        })?;
    }
    if !r.is_at_end() {
        return Err(r.corrupt("bytes follow the last object"));
    }
    catalog.advance_next_id(next_id);
    file.mark_used(&used);
    file.mark_used(&chain);
    Ok(stored)
}
