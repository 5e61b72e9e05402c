//! Bulk loads into a database file (CREATE TABLE AS, INSERT ... SELECT, COPY FROM):
//! each morsel's rows, when they make a row group of their own, are encoded as a
//! checkpoint would write them on the worker that read them ([`Piece::of`]), so the
//! load holds compressed bytes instead of the table's decoded values (and reuses the
//! memory a morsel's values took for the next one). The facade then writes the
//! encoded groups into free blocks in one commit ([`crate::Writer::write_encoded`]),
//! logs where they are, and appends them to the table as stored row groups.

use crate::block_file::BlockWriter;
use crate::buffer::BufferPool;
use crate::checkpoint::StoredColumn;
use crate::column::Column;
use crate::table::{row_groups_of, RowGroup, MIN_OWN_GROUP};
use crate::zone_map::ZoneMap;
use std::sync::Arc;
use stride_common::{DataType, Result, Vector, MORSEL_SIZE};

/// A row group's rows encoded as a checkpoint writes them, with their zone maps, not
/// yet written: a bulk load into a database file encodes each morsel's rows on the
/// worker that read them, and holds only these bytes until it writes them
/// ([`crate::Writer::write_encoded`]).
pub struct EncodedGroup {
    pub len: usize,
    types: Vec<DataType>,
    zones: Vec<ZoneMap>,
    bytes: Vec<Vec<u8>>,
}

impl EncodedGroup {
    /// Encodes `len` rows of `columns`.
    pub fn encode(columns: &[Vector], len: usize) -> EncodedGroup {
        EncodedGroup {
            len,
            types: columns.iter().map(|c| c.ty.clone()).collect(),
            zones: columns.iter().map(|c| ZoneMap::of(c, len)).collect(),
            bytes: columns
                .iter()
                .map(|c| crate::compression::encode(c, len))
                .collect(),
        }
    }

    pub fn types(&self) -> &[DataType] {
        &self.types
    }

    pub fn zones(&self) -> &[ZoneMap] {
        &self.zones
    }

    /// Bytes held.
    pub fn size(&self) -> usize {
        self.bytes.iter().map(Vec::len).sum()
    }

    fn decode(&self) -> Result<Vec<Vector>> {
        let columns = self.types.iter().zip(&self.bytes);
        columns
            .map(|(ty, bytes)| crate::compression::decode(bytes, ty, self.len))
            .collect()
    }

    /// Writes the segments and returns the row group of stored columns they make,
    /// with where each column is (durable once the writer's blocks are committed).
    pub(crate) fn write(
        self,
        w: &mut BlockWriter,
        pool: &Arc<BufferPool>,
    ) -> Result<(Arc<RowGroup>, Vec<StoredColumn>)> {
        let mut columns = Vec::with_capacity(self.types.len());
        let mut stored = Vec::with_capacity(self.types.len());
        for ((ty, zone), bytes) in self.types.into_iter().zip(self.zones).zip(self.bytes) {
            let extent = w.write(&bytes)?;
            let segment = pool.segment(w.file().reader(), extent.clone(), ty, self.len);
            segment.set_codec(bytes.first().copied().unwrap_or(0));
            columns.push(Column::stored(segment, Some(zone.clone())));
            stored.push((extent, zone));
        }
        let group = RowGroup {
            columns,
            len: self.len,
        };
        Ok((Arc::new(group), stored))
    }
}

/// A morsel's rows bound for a database file: encoded when they make a row group of
/// their own, else as read (grouped with their neighbours when written).
pub enum Piece {
    Encoded(EncodedGroup),
    Rows(Vec<Vector>, usize),
}

impl Piece {
    pub fn of(columns: Vec<Vector>, len: usize) -> Piece {
        if (MIN_OWN_GROUP..=MORSEL_SIZE).contains(&len) {
            Piece::Encoded(EncodedGroup::encode(&columns, len))
        } else {
            Piece::Rows(columns, len)
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Piece::Encoded(g) => g.len,
            Piece::Rows(_, len) => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows as values (decoded, for a load that goes through the WAL after all).
    pub fn into_rows(self) -> Result<(Vec<Vector>, usize)> {
        match self {
            Piece::Encoded(g) => Ok((g.decode()?, g.len)),
            Piece::Rows(columns, len) => Ok((columns, len)),
        }
    }
}

/// The row groups `pieces` make, in order, all encoded: runs of pieces left as read
/// are grouped as [`row_groups_of`] groups them and encoded on all cores.
pub fn encoded_groups(types: &[DataType], pieces: Vec<Piece>) -> Result<Vec<EncodedGroup>> {
    let mut out = Vec::with_capacity(pieces.len());
    let mut run = Vec::new();
    let flush = |run: &mut Vec<(Vec<Vector>, usize)>, out: &mut Vec<EncodedGroup>| {
        if run.is_empty() {
            return Ok(());
        }
        let groups = row_groups_of(types, std::mem::take(run));
        let encoded = stride_common::workers::map(&groups, crate::cores(), |g| {
            g.vectors()
                .map(|columns| EncodedGroup::encode(&columns, g.len))
        })?;
        for g in encoded {
            out.push(g?);
        }
        Ok::<(), stride_common::Error>(())
    };
    for piece in pieces {
        match piece {
            Piece::Encoded(g) => {
                flush(&mut run, &mut out)?;
                out.push(g);
            }
            Piece::Rows(columns, len) => run.push((columns, len)),
        }
    }
    flush(&mut run, &mut out)?;
    Ok(out)
}
