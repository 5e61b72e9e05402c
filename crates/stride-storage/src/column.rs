//! One column of one row group: its values in memory, or a segment read and decoded
//! through the buffer manager ([`crate::buffer`]): stored in the database file, or
//! encoded bytes kept in memory (an in-memory table's column compressed by
//! [`Column::compress`], or a DELETE's cut of a stored column, [`Column::take`]); with
//! its zone map ([`crate::zone_map`]). Scans read it through [`Column::values`], a
//! window of rows at a time.
//!
//! A column written by a checkpoint becomes stored in place ([`Column::store`]): the
//! row group keeps its identity (transactions detect conflicts by it), and its values
//! move into the buffer pool, which may drop them under `memory_limit`. Changing a
//! column ([`Column::vector_mut`], only on a row group no one else holds) brings it back
//! into memory; the next checkpoint writes it again.

use crate::buffer::{BufferPool, Segment};
use crate::compression::{self, packed::Packed};
use crate::zone_map::ZoneMap;
use std::sync::{Arc, OnceLock, RwLock};
use stride_common::{DataType, Error, Result, Vector};

/// Counts the columns moved between memory and the file ([`Column::store`],
/// [`Column::vector_mut`]): what a table holds in memory may have changed when it has.
static MOVES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// See [`MOVES`].
pub fn moves() -> u64 {
    MOVES.load(std::sync::atomic::Ordering::Relaxed)
}

pub struct Column {
    data: RwLock<ColumnData>,
    zone: OnceLock<ZoneMap>,
}

#[derive(Clone)]
enum ColumnData {
    Memory(Vector),
    /// Encoded: a segment of the database file, or kept compressed in memory (an
    /// in-memory table's column, or the rows a DELETE kept of a stored column, which
    /// the next checkpoint writes as they are).
    Segment(Arc<Segment>),
}

impl Column {
    pub fn memory(v: Vector) -> Column {
        Column {
            data: RwLock::new(ColumnData::Memory(v)),
            zone: OnceLock::new(),
        }
    }

    /// A column whose values are in `segment`, with the zone map stored beside it.
    pub fn stored(segment: Arc<Segment>, zone: Option<ZoneMap>) -> Column {
        let z = OnceLock::new();
        if let Some(zone) = zone {
            let _ = z.set(zone);
        }
        Column {
            data: RwLock::new(ColumnData::Segment(segment)),
            zone: z,
        }
    }

    fn data(&self) -> Result<ColumnData> {
        self.data
            .read()
            .map(|d| d.clone())
            .map_err(|_| Error::internal("column lock poisoned"))
    }

    /// The values (shared, not copied), read from the file when they are not in memory.
    pub fn vector(&self) -> Result<Vector> {
        match self.data()? {
            ColumnData::Memory(v) => Ok(v),
            ColumnData::Segment(s) => s.load(),
        }
    }

    /// The values' type.
    pub fn data_type(&self) -> Result<DataType> {
        Ok(match self.data()? {
            ColumnData::Memory(v) => v.ty,
            ColumnData::Segment(s) => s.ty.clone(),
        })
    }

    /// Bytes the values take ([`crate::size`]): decoded as counted there, or as
    /// encoded when they are not decoded in memory (reading nothing).
    pub fn bytes(&self, seen: &mut std::collections::HashSet<*const u8>) -> usize {
        let decoded = match self.data() {
            Ok(ColumnData::Memory(v)) => Some(v),
            Ok(ColumnData::Segment(s)) => match s.cached_vector() {
                None => return s.encoded_len(),
                v => v,
            },
            Err(_) => None,
        };
        decoded.map_or(0, |v| values_bytes(&v, seen))
    }

    /// Bytes the values hold in memory outside the buffer pool (which counts what it
    /// caches itself): an in-memory column's values, or the bytes of a segment kept
    /// in memory.
    pub fn memory_bytes(&self, seen: &mut std::collections::HashSet<*const u8>) -> usize {
        match self.data() {
            Ok(ColumnData::Memory(v)) => values_bytes(&v, seen),
            Ok(ColumnData::Segment(s)) => s.memory_bytes().map_or(0, <[u8]>::len),
            Err(_) => 0,
        }
    }

    /// The segment bytes of a column encoded in memory but not in the file.
    pub fn encoded_bytes(&self) -> Option<Vec<u8>> {
        match self.data().ok()? {
            ColumnData::Segment(s) => s.memory_bytes().map(<[u8]>::to_vec),
            _ => None,
        }
    }

    /// The values as a scan reads them, a window of rows at a time: compressed while
    /// the buffer pool keeps them so ([`crate::buffer::DECODE_AFTER_SCANS`]).
    pub fn values(&self) -> Result<Values> {
        match self.data()? {
            ColumnData::Memory(v) => Ok(Values::Vector(v)),
            ColumnData::Segment(s) => s.values(),
        }
    }

    /// The values to change in place; the column is in memory from then on.
    pub fn vector_mut(&mut self) -> Result<&mut Vector> {
        self.zone = OnceLock::new();
        let data = self
            .data
            .get_mut()
            .map_err(|_| Error::internal("column lock poisoned"))?;
        match data {
            ColumnData::Segment(s) => *data = ColumnData::Memory(s.load()?),
            ColumnData::Memory(v) => return Ok(v),
        }
        MOVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match data {
            ColumnData::Memory(v) => Ok(v),
            _ => unreachable!("just loaded"),
        }
    }

    /// The segment holding the values, when they are stored in the file.
    pub fn segment(&self) -> Option<Arc<Segment>> {
        match self.data().ok()? {
            ColumnData::Segment(s) if s.extent().is_some() => Some(s),
            _ => None,
        }
    }

    /// The segment holding the values, in the file or in memory.
    pub fn encoded(&self) -> Option<Arc<Segment>> {
        match self.data().ok()? {
            ColumnData::Segment(s) => Some(s),
            _ => None,
        }
    }

    /// Records that a checkpoint wrote the values to `segment`: they move into the
    /// buffer pool's cache.
    pub fn store(&self, segment: Arc<Segment>) {
        if let Ok(mut data) = self.data.write() {
            match &*data {
                ColumnData::Memory(v) => segment.fill(v.clone()),
                // Moved within the file (VACUUM), or written from memory: the cache
                // moves along.
                ColumnData::Segment(old) => segment.fill_from(old),
            }
            *data = ColumnData::Segment(segment);
            MOVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Keeps the values of an in-memory column compressed ([`compression::encode`])
    /// in a segment of `pool` from now on; the decoded values are dropped (the pool
    /// decodes them again when they are scanned). The values stay the same, so the
    /// row group keeps its identity, as with [`Column::store`]. Returns whether the
    /// column was in memory.
    pub fn compress(&self, pool: &Arc<BufferPool>, len: usize) -> Result<bool> {
        let ColumnData::Memory(v) = self.data()? else {
            return Ok(false);
        };
        // The zone map is kept: computed while the values are at hand.
        self.zone(len)?;
        let bytes = compression::encode(&v, len);
        let segment = pool.memory_segment(bytes, v.ty.clone(), len);
        let mut data = self
            .data
            .write()
            .map_err(|_| Error::internal("column lock poisoned"))?;
        // Values change only in a row group no one else holds (`vector_mut`), and
        // the caller holds this one: still in memory means still these values.
        if matches!(&*data, ColumnData::Memory(_)) {
            *data = ColumnData::Segment(segment);
            MOVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            return Ok(true);
        }
        Ok(false)
    }

    /// The column of rows `keep` (increasing) of this one's `len`: cut from the
    /// encoded bytes of a segment (kept in memory), else taken from the values.
    pub fn take(&self, keep: &[u32], len: usize) -> Result<Column> {
        match self.data()? {
            ColumnData::Segment(s) => {
                let (segment, zone) = s.take(keep, self.zone(len)?)?;
                Ok(Column::stored(segment, Some(zone)))
            }
            ColumnData::Memory(v) => Ok(Column::memory(v.take(keep))),
        }
    }

    /// The zone map of the column's `len` rows, computed from the values the first
    /// time when it was not stored.
    pub fn zone(&self, len: usize) -> Result<&ZoneMap> {
        if let Some(z) = self.zone.get() {
            return Ok(z);
        }
        let z = ZoneMap::of(&self.vector()?, len);
        Ok(self.zone.get_or_init(|| z))
    }
}

/// Bytes of decoded values ([`crate::size`]); `seen` holds heap buffers already
/// counted.
fn values_bytes(v: &Vector, seen: &mut std::collections::HashSet<*const u8>) -> usize {
    crate::size::columns_bytes(std::slice::from_ref(v), seen)
}

/// A column's values as a scan reads them.
pub enum Values {
    /// Decoded: windows are shared slices.
    Vector(Vector),
    /// Compressed: windows are decoded.
    Packed(Arc<Packed>),
}

impl Values {
    /// Rows `offset..offset + n`.
    pub fn window(&self, offset: usize, n: usize) -> Vector {
        match self {
            Values::Vector(v) => v.slice(offset, n),
            Values::Packed(p) => p.window(offset, n),
        }
    }

    /// Rows `offset + rows[i]` (ascending), decoding only those where the codec
    /// allows.
    pub fn take(&self, offset: usize, rows: &[u32]) -> Vector {
        match self {
            Values::Vector(v) => {
                let at: Vec<u32> = rows.iter().map(|&r| offset as u32 + r).collect();
                v.take(&at)
            }
            Values::Packed(p) => p.take(offset, rows),
        }
    }
}

impl Clone for Column {
    fn clone(&self) -> Self {
        let data = self
            .data
            .read()
            .map(|d| d.clone())
            .unwrap_or_else(|e| e.into_inner().clone());
        Column {
            data: RwLock::new(data),
            zone: self.zone.clone(),
        }
    }
}

impl std::fmt::Debug for Column {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.data() {
            Ok(ColumnData::Memory(v)) => write!(f, "Memory({:?})", v.ty),
            Ok(ColumnData::Segment(s)) => write!(f, "Segment({s:?})"),
            Err(_) => write!(f, "Poisoned"),
        }
    }
}
