//! Checkpoints: the whole catalog written into the database file, and read back when it
//! is opened.
//!
//! A checkpoint writes each column of each row group as a segment (compressed by the
//! codec [`crate::compression`] picks for it), unless the column is already stored: a
//! column written by an earlier checkpoint (or committed ahead of one by a bulk load)
//! keeps its segment and costs nothing to checkpoint again. Then the metadata (objects,
//! schemas, and for every segment where it is and its zone map) goes into a chain of
//! blocks, and [`BlockFile::switch`] makes it the database. Only then do the columns
//! just written become stored ([`store_written`]), their values handed to the buffer
//! pool.
//!
//! Opening reads only the metadata ([`load`]): every column starts stored, not read.

use crate::block_file::{BlockFile, BlockWriter, Extent, PAYLOAD};
use crate::buffer::{BufferPool, Segment};
use crate::catalog::{Catalog, Macro, UserType, View};
use crate::column::Column;
use crate::sequence::Sequence;
use crate::serialize::{
    read_positions, read_schema, read_type, write_positions, write_schema, write_type, ByteReader,
    ByteWriter,
};
use crate::table::{IndexInfo, RowGroup, Table};
use crate::wal::{
    read_sequence_options, read_sequence_state, write_sequence_options, write_sequence_state,
};
use crate::zone_map::ZoneMap;
use std::sync::Arc;
use stride_common::{DataType, Result};

/// Where one column of a row group is stored, with its zone map.
pub type StoredColumn = (Extent, ZoneMap);

/// Row groups encoded at once (in parallel) before they are written.
const BATCH: usize = 16;

/// A row group made ready to write: every column's zone map and, for each column to
/// write, its segment's bytes (`None`: the column keeps its stored segment).
struct Prepared {
    zones: Vec<ZoneMap>,
    bytes: Vec<Option<Vec<u8>>>,
}

/// Encodes the columns of `group` that are not stored yet (with `move_stored`, copies
/// the stored ones' bytes too) and computes its zone maps. Needs no file access but
/// reads, so groups are prepared in parallel.
fn prepare(group: &RowGroup, move_stored: bool) -> Result<Prepared> {
    let mut zones = Vec::with_capacity(group.columns.len());
    let mut bytes = Vec::with_capacity(group.columns.len());
    for col in &group.columns {
        zones.push(col.zone(group.len)?.clone());
        bytes.push(match col.segment() {
            Some(s) if move_stored => Some(s.raw_bytes()?),
            Some(_) => None,
            None => match col.encoded_bytes() {
                Some(bytes) => Some(bytes),
                None => Some(crate::compression::encode(&col.vector()?, group.len)),
            },
        });
    }
    Ok(Prepared { zones, bytes })
}

/// Writes the prepared segments of `group`, returning where every column is and the
/// segments written (column position, segment), which [`store_written`] installs once
/// the blocks are durable.
fn write_prepared(
    w: &mut BlockWriter,
    pool: &Arc<BufferPool>,
    group: &RowGroup,
    prepared: Prepared,
) -> Result<(Vec<StoredColumn>, Vec<(usize, Arc<Segment>)>)> {
    let mut out = Vec::with_capacity(group.columns.len());
    let mut written = Vec::new();
    let columns = group.columns.iter().zip(prepared.zones).zip(prepared.bytes);
    for (c, ((col, zone), bytes)) in columns.enumerate() {
        let extent = match (bytes, col.segment()) {
            (None, Some(s)) => s
                .extent()
                .cloned()
                .ok_or_else(|| stride_common::Error::internal("a stored column without a place"))?,
            (Some(bytes), _) => {
                let extent = w.write(&bytes)?;
                let ty = col.data_type()?;
                let segment = pool.segment(w.file().reader(), extent.clone(), ty, group.len);
                segment.set_codec(bytes.first().copied().unwrap_or(0));
                written.push((c, segment));
                extent
            }
            (None, None) => {
                return Err(stride_common::Error::internal(
                    "a column with nothing to write",
                ))
            }
        };
        out.push((extent, zone));
    }
    Ok((out, written))
}

/// Writes `groups` (see [`write_prepared`]), encoding each batch on all cores first.
pub fn write_groups(
    w: &mut BlockWriter,
    pool: &Arc<BufferPool>,
    groups: &[Arc<RowGroup>],
    move_stored: bool,
) -> Result<Vec<(Vec<StoredColumn>, Vec<(usize, Arc<Segment>)>)>> {
    let threads = crate::cores();
    let mut out = Vec::with_capacity(groups.len());
    for batch in groups.chunks(BATCH) {
        let prepared = stride_common::workers::map(batch, threads, |g| prepare(g, move_stored))?;
        for (g, p) in batch.iter().zip(prepared) {
            out.push(write_prepared(w, pool, g, p?)?);
        }
    }
    Ok(out)
}

/// Makes the columns a checkpoint or bulk load wrote stored (their values move into
/// the buffer pool); only once the blocks they were written to are part of the file.
pub fn store_written(group: &RowGroup, written: Vec<(usize, Arc<Segment>)>) {
    for (c, segment) in written {
        group.columns[c].store(segment);
    }
}

/// A row group of `len` rows whose columns of types `types` are stored as `columns`
/// (zone maps absent in files of format 1), read when first used.
pub fn stored_group(
    file: &BlockFile,
    pool: &Arc<BufferPool>,
    types: &[DataType],
    len: usize,
    columns: Vec<(Extent, Option<ZoneMap>)>,
) -> RowGroup {
    let columns = types
        .iter()
        .zip(columns)
        .map(|(ty, (extent, zone))| {
            Column::stored(pool.segment(file.reader(), extent, ty.clone(), len), zone)
        })
        .collect();
    RowGroup { columns, len }
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

/// Writes a checkpoint of `catalog` and switches the file to it. Blocks of segments
/// still alive (read by a running query or an open transaction) stay in use.
pub fn checkpoint(
    file: &mut BlockFile,
    catalog: &Catalog,
    pool: &Arc<BufferPool>,
    move_stored: bool,
) -> Result<()> {
    let mut used: Vec<u64> = Vec::new();
    let mut installs: Vec<(Arc<RowGroup>, Vec<(usize, Arc<Segment>)>)> = Vec::new();
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
        for (g, (columns, written)) in
            groups
                .iter()
                .zip(write_groups(&mut w, pool, &groups, move_stored)?)
        {
            meta.u64(g.len as u64);
            for (extent, zone) in &columns {
                write_extent(&mut meta, extent);
                zone.write(&mut meta);
                used.extend(&extent.blocks);
            }
            if !written.is_empty() {
                installs.push((g.clone(), written));
            }
        }
        t.take_counts_unsaved();
        let counts = t.distinct_counts();
        meta.len_of(counts.len());
        for (column, rows, d) in counts {
            meta.u32(column as u32);
            meta.u64(rows as u64);
            meta.u64(d.to_bits());
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
    // Format 7 and later: the macros.
    let macros = catalog.macros();
    meta.len_of(macros.len());
    for m in &macros {
        meta.u64(m.id);
        meta.str(&m.name);
        meta.str(&m.sql);
    }
    // Format 9 and later: the sequences.
    let sequences = catalog.sequences();
    meta.len_of(sequences.len());
    for s in &sequences {
        meta.u64(s.id);
        meta.str(&s.name);
        write_sequence_options(&mut meta, &s.options);
        // taken now: a value handed out while the checkpoint is written is logged
        // again by the statement that took it
        s.take_moved();
        write_sequence_state(&mut meta, &s.state());
    }
    // Format 9, after the sequences (absent from files written before types
    // existed): the types made by CREATE TYPE.
    let types = catalog.types();
    meta.len_of(types.len());
    for t in &types {
        meta.u64(t.id);
        meta.str(&t.name);
        write_type(&mut meta, &t.ty);
    }
    let (header, chain) = w.finish(&meta.bytes)?;
    used.extend(chain);
    used.extend(pool.live_blocks());
    file.switch(header, &used)?;
    for (g, written) in installs {
        store_written(&g, written);
    }
    Ok(())
}

/// Reads the checkpoint the file's header points at into an empty catalog: schemas and
/// where each segment is; the data stays in the file until a query needs it.
pub fn load(file: &mut BlockFile, catalog: &Catalog, pool: &Arc<BufferPool>) -> Result<()> {
    if file.header.metadata_len == 0 {
        return Ok(());
    }
    let zones = file.header.version >= 2;
    let (bytes, chain) = file.read_metadata()?;
    let mut r = ByteReader::new(&bytes, "the database metadata");
    let mut used: Vec<u64> = Vec::new();
    let next_id = r.u64()?;
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
            let mut columns = Vec::with_capacity(types.len());
            for _ in 0..types.len() {
                let extent = read_extent(&mut r)?;
                let zone = if zones {
                    Some(ZoneMap::read(&mut r, len as u64)?)
                } else {
                    None
                };
                used.extend(&extent.blocks);
                columns.push((extent, zone));
            }
            groups.push(Arc::new(stored_group(file, pool, &types, len, columns)));
        }
        let mut counts = Vec::new();
        if file.header.version >= 4 {
            for _ in 0..r.len_of(20)? {
                let column = r.u32()? as usize;
                let rows = r.u64()? as usize;
                let d = f64::from_bits(r.u64()?);
                if column >= types.len() || !d.is_finite() {
                    return Err(r.corrupt("a distinct count of a column the table lacks"));
                }
                counts.push((column, rows, d));
            }
        }
        let table = Table::restore(id, schema, groups)?;
        table.restore_distinct_counts(&counts);
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
    if file.header.version >= 7 {
        for _ in 0..r.len_of(20)? {
            catalog.restore_macro(Macro {
                id: r.u64()?,
                name: r.str()?,
                sql: r.str()?,
            })?;
        }
    }
    if file.header.version >= 9 {
        for _ in 0..r.len_of(8 + 4 + 33 + 2)? {
            let id = r.u64()?;
            let name = r.str()?;
            let options = read_sequence_options(&mut r)?;
            let state = read_sequence_state(&mut r)?;
            catalog.restore_sequence(Arc::new(Sequence::restore(id, name, options, state)))?;
        }
    }
    // the types' list ends the checkpoint; files of format 9 written before types
    // existed end before it
    if file.header.version >= 9 && !r.is_at_end() {
        for _ in 0..r.len_of(8 + 4 + 1)? {
            catalog.restore_type(UserType {
                id: r.u64()?,
                name: r.str()?,
                ty: read_type(&mut r)?,
            })?;
        }
    }
    if !r.is_at_end() {
        return Err(r.corrupt("bytes follow the last object"));
    }
    catalog.advance_next_id(next_id);
    file.mark_used(&used);
    file.mark_used(&chain);
    Ok(())
}
