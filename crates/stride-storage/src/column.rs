//! One column of one row group: its values in memory, a segment of the database file
//! read on first use through the buffer manager ([`crate::buffer`]), or a segment's
//! bytes not written yet (a DELETE's cut of a stored column, [`Column::encoded`]); with
//! its zone map ([`crate::zone_map`]). Scans read it through [`Column::values`], a
//! window of rows at a time.
//!
//! A column written by a checkpoint becomes stored in place ([`Column::store`]): the
//! row group keeps its identity (transactions detect conflicts by it), and its values
//! move into the buffer pool, which may drop them under `memory_limit`. Changing a
//! column ([`Column::vector_mut`], only on a row group no one else holds) brings it back
//! into memory; the next checkpoint writes it again.

use crate::buffer::Segment;
use crate::compression::packed::Packed;
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
    Stored(Arc<Segment>),
    Encoded(Arc<Encoded>),
}

/// Values encoded as a segment but not in the file yet: the rows a DELETE kept of a
/// stored column, cut from its segment ([`crate::compression::take`]). Decoded when
/// first read; the next checkpoint writes the bytes as they are.
pub struct Encoded {
    bytes: Vec<u8>,
    ty: DataType,
    len: usize,
    decoded: OnceLock<Vector>,
}

impl Column {
    pub fn memory(v: Vector) -> Column {
        Column {
            data: RwLock::new(ColumnData::Memory(v)),
            zone: OnceLock::new(),
        }
    }

    /// A column of `len` rows of type `ty` encoded as segment `bytes`, with its zone
    /// map.
    pub fn encoded(bytes: Vec<u8>, ty: DataType, len: usize, zone: ZoneMap) -> Column {
        Column {
            data: RwLock::new(ColumnData::Encoded(Arc::new(Encoded {
                bytes,
                ty,
                len,
                decoded: OnceLock::new(),
            }))),
            zone: OnceLock::from(zone),
        }
    }

    /// A column whose values are in `segment`, with the zone map stored beside it.
    pub fn stored(segment: Arc<Segment>, zone: Option<ZoneMap>) -> Column {
        let z = OnceLock::new();
        if let Some(zone) = zone {
            let _ = z.set(zone);
        }
        Column {
            data: RwLock::new(ColumnData::Stored(segment)),
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
            ColumnData::Stored(s) => s.load(),
            ColumnData::Encoded(e) => e.vector(),
        }
    }

    /// The values' type.
    pub fn data_type(&self) -> Result<DataType> {
        Ok(match self.data()? {
            ColumnData::Memory(v) => v.ty,
            ColumnData::Stored(s) => s.ty.clone(),
            ColumnData::Encoded(e) => e.ty.clone(),
        })
    }

    /// Bytes the values take ([`crate::size`]): decoded as counted there, or as
    /// encoded when they are not decoded in memory (reading nothing).
    pub fn bytes(&self, seen: &mut std::collections::HashSet<*const u8>) -> usize {
        let decoded = match self.data() {
            Ok(ColumnData::Memory(v)) => Some(v),
            Ok(ColumnData::Stored(s)) => match s.cached_vector() {
                None => return s.extent.len as usize,
                v => v,
            },
            Ok(ColumnData::Encoded(e)) => match e.decoded.get() {
                None => return e.bytes.len(),
                v => v.cloned(),
            },
            Err(_) => None,
        };
        decoded.map_or(0, |v| values_bytes(&v, seen))
    }

    /// Bytes the values hold in memory outside the buffer pool (which counts what it
    /// caches itself): an in-memory column's values, or an encoded column's bytes
    /// and what was decoded of them.
    pub fn memory_bytes(&self, seen: &mut std::collections::HashSet<*const u8>) -> usize {
        match self.data() {
            Ok(ColumnData::Memory(v)) => values_bytes(&v, seen),
            Ok(ColumnData::Encoded(e)) => {
                e.bytes.len() + e.decoded.get().map_or(0, |v| values_bytes(v, seen))
            }
            Ok(ColumnData::Stored(_)) | Err(_) => 0,
        }
    }

    /// The segment bytes of a column encoded but not written yet.
    pub fn encoded_bytes(&self) -> Option<Vec<u8>> {
        match self.data().ok()? {
            ColumnData::Encoded(e) => Some(e.bytes.clone()),
            _ => None,
        }
    }

    /// The values as a scan reads them, a window of rows at a time: compressed while
    /// the buffer pool keeps them so ([`crate::buffer::DECODE_AFTER_SCANS`]).
    pub fn values(&self) -> Result<Values> {
        match self.data()? {
            ColumnData::Memory(v) => Ok(Values::Vector(v)),
            ColumnData::Stored(s) => s.values(),
            ColumnData::Encoded(e) => Ok(Values::Vector(e.vector()?)),
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
            ColumnData::Stored(s) => *data = ColumnData::Memory(s.load()?),
            ColumnData::Encoded(e) => *data = ColumnData::Memory(e.vector()?),
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
            ColumnData::Stored(s) => Some(s),
            _ => None,
        }
    }

    /// Records that a checkpoint wrote the values to `segment`: they move into the
    /// buffer pool's cache.
    pub fn store(&self, segment: Arc<Segment>) {
        if let Ok(mut data) = self.data.write() {
            match &*data {
                ColumnData::Memory(v) => segment.fill(v.clone()),
                // Moved within the file (VACUUM): the cache moves along.
                ColumnData::Stored(old) => segment.fill_from(old),
                ColumnData::Encoded(e) => {
                    if let Some(v) = e.decoded.get() {
                        segment.fill(v.clone())
                    }
                }
            }
            *data = ColumnData::Stored(segment);
            MOVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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

impl Encoded {
    fn vector(&self) -> Result<Vector> {
        if let Some(v) = self.decoded.get() {
            return Ok(v.clone());
        }
        let v = crate::compression::decode(&self.bytes, &self.ty, self.len)?;
        Ok(self.decoded.get_or_init(|| v).clone())
    }
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
            Ok(ColumnData::Stored(s)) => write!(f, "Stored({s:?})"),
            Ok(ColumnData::Encoded(e)) => write!(f, "Encoded({}, {} bytes)", e.ty, e.bytes.len()),
            Err(_) => write!(f, "Poisoned"),
        }
    }
}
