//! The buffer manager: column segments of a database file are read and decoded on
//! first use and kept in memory under `SET memory_limit`; when the segments held pass
//! the limit, those used longest ago are dropped and read again when next needed. So a
//! database opens without reading its data, a scan reads only the columns and row
//! groups it needs, and a database larger than memory can be scanned.
//!
//! A segment's bytes may also be in memory ([`Place::Memory`]): the columns of
//! in-memory tables kept compressed once those tables grow large
//! ([`crate::table::Table::compress`]), and the rows a DELETE kept of a stored column.
//! The pool caches their decoded values the same way, and dropping them costs only
//! decoding again.
//!
//! The cache holds a segment compressed or decoded, never as raw blocks. A segment whose
//! codec decodes by windows (bit-packed, run-length, dictionary:
//! [`crate::compression::packed`]) is kept compressed for its first
//! [`DECODE_AFTER_SCANS`] scans, which decode a vector's rows at a time, so a query over
//! data not in memory yet writes no decoded copy of it; from the next scan on, and at
//! once for the other codecs and for [`Segment::load`] (changes, indexes), the pool keeps
//! the decoded vector, and a scan of it costs what a scan of an in-memory table costs,
//! unless decoding it would take the pool past half of `memory_limit`: then it stays
//! compressed, rather than pushing out other decoded segments.
//! What a scan is using stays alive while the scan holds it (vectors and packed
//! segments are shared), even if the pool drops its own reference: "pinned" is simply
//! "referenced". The pool counts the bytes it holds in the database's
//! [`MemoryAccountant`], with operators' state: when an operator needs room under the
//! limit, the accountant asks the pool to drop cached segments first.
//!
//! The pool also knows every segment still alive, cached or not: a checkpoint keeps the
//! blocks of segments that a running query or an open transaction may still read, even
//! when the new checkpoint no longer names them.
//!
//! Lock order: a segment's own lock may be held while taking the pool's, never the
//! reverse (eviction collects its victims under the pool's lock and clears them after
//! releasing it).

use crate::block_file::{BlockReader, Extent};
use crate::column::Values;
use crate::compression::{self, packed::Packed};
use crate::zone_map::ZoneMap;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use stride_common::memory::{Evict, MemoryAccountant, MemoryTag};
use stride_common::{DataType, Error, PhysicalType, Result, Vector};

/// The cache of decoded segments, and the registry of live ones.
pub struct BufferPool {
    /// The database's accountant: the pool's bytes count against `memory_limit`
    /// together with operators' state, which may ask the pool to evict.
    accountant: Arc<MemoryAccountant>,
    state: Mutex<PoolState>,
}

#[derive(Default)]
struct PoolState {
    /// Bytes of the cached vectors.
    used: u64,
    /// Advances on every use; a segment's last use orders eviction.
    tick: u64,
    /// Cached segments by id: the segment, its bytes, its last use.
    resident: HashMap<u64, (Weak<Segment>, u64, u64)>,
    /// Every segment created and maybe still alive.
    live: Vec<Weak<Segment>>,
    next_id: u64,
    /// Segments read from the file since the pool was made (for tests and profiling).
    reads: u64,
}

impl BufferPool {
    /// A pool counting its bytes in `accountant`, which may ask it to evict.
    pub fn new(accountant: &Arc<MemoryAccountant>) -> Arc<BufferPool> {
        let pool = Arc::new(BufferPool {
            accountant: accountant.clone(),
            state: Mutex::new(PoolState::default()),
        });
        let evictor: Arc<dyn Evict> = pool.clone();
        accountant.register_evictor(Arc::downgrade(&evictor));
        pool
    }

    pub fn accountant(&self) -> &Arc<MemoryAccountant> {
        &self.accountant
    }

    pub fn limit(&self) -> u64 {
        self.accountant.limit()
    }

    /// Changes the database's limit, dropping cached segments at once if they no
    /// longer fit.
    pub fn set_limit(&self, bytes: u64) {
        self.accountant.set_limit(bytes);
        self.evict(0);
    }

    /// Bytes of cached segments.
    pub fn used(&self) -> u64 {
        self.state.lock().map_or(0, |s| s.used)
    }

    /// Segments read from the file so far.
    pub fn reads(&self) -> u64 {
        self.state.lock().map_or(0, |s| s.reads)
    }

    /// A segment of `len` rows of type `ty` stored at `extent`, read through `reader`
    /// when first used.
    pub fn segment(
        self: &Arc<Self>,
        reader: Arc<BlockReader>,
        extent: Extent,
        ty: DataType,
        len: usize,
    ) -> Arc<Segment> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.next_id += 1;
        let segment = Arc::new(Segment::new(
            state.next_id,
            Place::File { reader, extent },
            ty,
            len,
            Arc::downgrade(self),
        ));
        if state.live.len() > 64 && state.live.len().is_power_of_two() {
            state.live.retain(|w| w.strong_count() > 0);
        }
        state.live.push(Arc::downgrade(&segment));
        segment
    }

    /// A segment of `len` rows of type `ty` whose encoded `bytes` are kept in memory
    /// (not in any file); the pool caches its decoded values as it does a stored
    /// segment's.
    pub fn memory_segment(
        self: &Arc<Self>,
        bytes: Vec<u8>,
        ty: DataType,
        len: usize,
    ) -> Arc<Segment> {
        let id = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            state.next_id += 1;
            state.next_id
        };
        Segment::in_memory(id, bytes, ty, len, Arc::downgrade(self))
    }

    /// The blocks of every segment still alive.
    pub fn live_blocks(&self) -> Vec<u64> {
        // Upgraded under the lock, used (and maybe dropped last) after it.
        let alive: Vec<Arc<Segment>> = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            state.live.retain(|w| w.strong_count() > 0);
            state.live.iter().filter_map(|w| w.upgrade()).collect()
        };
        alive
            .iter()
            .filter_map(|s| s.extent())
            .flat_map(|e| e.blocks.clone())
            .collect()
    }

    /// Records that `segment` now caches `bytes` bytes, then evicts down to the limit.
    fn admit(&self, segment: &Arc<Segment>, bytes: u64, read: bool) {
        {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            state.tick += 1;
            let tick = state.tick;
            if let Some(old) = state
                .resident
                .insert(segment.id, (Arc::downgrade(segment), bytes, tick))
            {
                state.used -= old.1;
                self.accountant.sub(MemoryTag::BufferPool, old.1);
            }
            state.used += bytes;
            self.accountant.add(MemoryTag::BufferPool, bytes);
            state.reads += read as u64;
        }
        self.evict(0);
    }

    fn touch(&self, id: u64) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.tick += 1;
        let tick = state.tick;
        if let Some(entry) = state.resident.get_mut(&id) {
            entry.2 = tick;
        }
    }

    fn forget(&self, id: u64) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = state.resident.remove(&id) {
            state.used -= old.1;
            self.accountant.sub(MemoryTag::BufferPool, old.1);
        }
    }

    /// Drops cached segments, least recently used first, until `room` more bytes fit
    /// under the limit (with what every other part of the database holds).
    fn evict(&self, room: u64) {
        let over = self.accountant.excess(room);
        if over > 0 {
            self.drop_cached(over);
        }
    }

    /// Drops cached segments, least recently used first, until `bytes` are freed or
    /// none is left; returns the bytes freed.
    fn drop_cached(&self, bytes: u64) -> u64 {
        let mut freed = 0;
        let victims: Vec<Arc<Segment>> = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            let mut order: Vec<(u64, u64)> =
                state.resident.iter().map(|(&id, e)| (e.2, id)).collect();
            order.sort_unstable();
            let mut out = Vec::new();
            for (_, id) in order {
                if freed >= bytes {
                    break;
                }
                let (weak, size, _) = state.resident.remove(&id).expect("listed");
                state.used -= size;
                freed += size;
                out.extend(weak.upgrade());
            }
            out
        };
        self.accountant.sub(MemoryTag::BufferPool, freed);
        for v in victims {
            if let Ok(mut c) = v.cached.lock() {
                *c = Cached::None;
            }
        }
        freed
    }
}

impl Evict for BufferPool {
    fn evict(&self, bytes: u64) -> u64 {
        self.drop_cached(bytes)
    }
}

/// Scans of a segment that read it compressed; the next one decodes it and the pool
/// keeps it decoded from then on. So a query over data not in memory yet writes no
/// decoded copy of it (no fresh pages to fault in and zero), and data queried again
/// and again is read at memory speed, without decoding.
pub const DECODE_AFTER_SCANS: u32 = 2;

/// What the pool holds of a segment.
#[derive(Clone)]
enum Cached {
    None,
    /// Compressed, and the scans that read it so.
    Packed(Arc<Packed>, u32),
    /// Decoded.
    Vector(Vector),
}

impl Cached {
    /// Bytes held.
    fn size(&self) -> usize {
        match self {
            Cached::None => 0,
            Cached::Packed(p, _) => p.size(),
            Cached::Vector(v) => {
                crate::size::columns_bytes(std::slice::from_ref(v), &mut Default::default())
            }
        }
    }
}

/// Where a segment's encoded bytes are.
pub enum Place {
    /// In the database file, read through `reader`.
    File {
        reader: Arc<BlockReader>,
        extent: Extent,
    },
    /// In memory, not written to any file.
    Memory(Vec<u8>),
}

/// One column of one row group, encoded: stored in the database file, or kept
/// compressed in memory.
pub struct Segment {
    id: u64,
    place: Place,
    pub ty: DataType,
    pub len: usize,
    pool: Weak<BufferPool>,
    cached: Mutex<Cached>,
    /// The codec byte the segment starts with, once known.
    codec: OnceLock<u8>,
}

impl Segment {
    fn new(id: u64, place: Place, ty: DataType, len: usize, pool: Weak<BufferPool>) -> Segment {
        Segment {
            id,
            place,
            ty,
            len,
            pool,
            cached: Mutex::new(Cached::None),
            codec: OnceLock::new(),
        }
    }

    /// A segment of `bytes` kept in memory (its codec is their first byte).
    fn in_memory(
        id: u64,
        mut bytes: Vec<u8>,
        ty: DataType,
        len: usize,
        pool: Weak<BufferPool>,
    ) -> Arc<Segment> {
        // What the table is counted to hold is the bytes' length: no spare room.
        bytes.shrink_to_fit();
        Arc::new(Segment::new(id, Place::Memory(bytes), ty, len, pool))
    }

    /// Where the segment is in the database file; `None` for one kept in memory.
    pub fn extent(&self) -> Option<&Extent> {
        match &self.place {
            Place::File { extent, .. } => Some(extent),
            Place::Memory(_) => None,
        }
    }

    /// Bytes of the encoded segment.
    pub fn encoded_len(&self) -> usize {
        match &self.place {
            Place::File { extent, .. } => extent.len as usize,
            Place::Memory(bytes) => bytes.len(),
        }
    }

    /// The encoded bytes of a segment kept in memory.
    pub fn memory_bytes(&self) -> Option<&[u8]> {
        match &self.place {
            Place::File { .. } => None,
            Place::Memory(bytes) => Some(bytes),
        }
    }

    /// The segment's values, decoded whole: from the cache, or read, checked and
    /// decoded (and then cached decoded).
    pub fn load(self: &Arc<Self>) -> Result<Vector> {
        let mut cached = self.lock()?;
        let v = match &*cached {
            Cached::Vector(v) => {
                let v = v.clone();
                drop(cached);
                self.touch();
                return Ok(v);
            }
            Cached::Packed(p, _) => p.window(0, self.len),
            Cached::None => self.decode(&self.read()?)?,
        };
        *cached = Cached::Vector(v.clone());
        let bytes = cached.size();
        drop(cached);
        self.admit(bytes, true);
        Ok(v)
    }

    /// The segment's values as a scan reads them: kept compressed ([`Packed`]) when
    /// the codec allows, until the segment has been scanned [`DECODE_AFTER_SCANS`]
    /// times; from then on decoded.
    pub fn values(self: &Arc<Self>) -> Result<Values> {
        let mut cached = self.lock()?;
        let values = match &mut *cached {
            Cached::Vector(v) => Some(Values::Vector(v.clone())),
            Cached::Packed(p, scans) if *scans < DECODE_AFTER_SCANS || !self.decoded_fits() => {
                *scans = scans.saturating_add(1);
                Some(Values::Packed(p.clone()))
            }
            _ => None,
        };
        if let Some(values) = values {
            drop(cached);
            self.touch();
            return Ok(values);
        }
        let (values, read) = match &*cached {
            Cached::Packed(p, _) => (Values::Vector(p.window(0, self.len)), false),
            _ => {
                let bytes = self.read()?;
                let packed =
                    Packed::read(&bytes, &self.ty, self.len).map_err(|e| self.damaged(e))?;
                match packed {
                    Some(p) => (Values::Packed(Arc::new(p)), true),
                    None => (Values::Vector(self.decode(&bytes)?), true),
                }
            }
        };
        *cached = match &values {
            Values::Packed(p) => Cached::Packed(p.clone(), 1),
            Values::Vector(v) => Cached::Vector(v.clone()),
        };
        let bytes = cached.size();
        drop(cached);
        self.admit(bytes, read);
        Ok(values)
    }

    /// Whether the pool may keep this segment decoded: while what it holds with the
    /// decoded values stays within half of `memory_limit`. Past that, segments that
    /// decode by windows stay compressed however often they are scanned: decoded
    /// copies would only push each other out (TPC-H at SF 10 under 2GB), each
    /// evicted one read from the file and decoded again at its next scan.
    fn decoded_fits(&self) -> bool {
        let width = match self.ty.physical() {
            PhysicalType::Bool | PhysicalType::I8 => 1,
            PhysicalType::I16 => 2,
            PhysicalType::I32 | PhysicalType::F32 => 4,
            PhysicalType::I64 | PhysicalType::F64 => 8,
            _ => 16,
        };
        let decoded = (self.len * width) as u64;
        self.pool
            .upgrade()
            .is_none_or(|p| p.used() + decoded <= p.limit() / 2)
    }

    /// Puts values known to equal the stored ones into the cache (a checkpoint or bulk
    /// load that just wrote them), sparing the first read.
    pub fn fill(self: &Arc<Self>, v: Vector) {
        let bytes = match self.cached.lock() {
            Ok(mut c) => {
                *c = Cached::Vector(v);
                c.size()
            }
            Err(_) => return,
        };
        self.admit(bytes, false);
    }

    /// Takes over what `old`, the same values stored elsewhere in the file (VACUUM
    /// moved them), has cached.
    pub fn fill_from(self: &Arc<Self>, old: &Segment) {
        let Ok(from) = old.cached.lock().map(|c| c.clone()) else {
            return;
        };
        let bytes = match self.cached.lock() {
            Ok(mut c) => {
                *c = from;
                c.size()
            }
            Err(_) => return,
        };
        if bytes > 0 {
            self.admit(bytes, false);
        }
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Cached>> {
        self.cached
            .lock()
            .map_err(|_| Error::internal("segment lock poisoned"))
    }

    /// The segment's bytes (read from the file and checked, or in memory), noting
    /// the codec they start with.
    fn read(&self) -> Result<std::borrow::Cow<'_, [u8]>> {
        let bytes = match &self.place {
            Place::File { reader, extent } => std::borrow::Cow::Owned(reader.read_extent(extent)?),
            Place::Memory(bytes) => std::borrow::Cow::Borrowed(bytes.as_slice()),
        };
        let _ = self.codec.set(bytes.first().copied().unwrap_or(0));
        Ok(bytes)
    }

    fn decode(&self, bytes: &[u8]) -> Result<Vector> {
        compression::decode(bytes, &self.ty, self.len).map_err(|e| self.damaged(e))
    }

    fn damaged(&self, e: Error) -> Error {
        match &self.place {
            Place::File { reader, extent } => Error::io(format!(
                "\"{}\" is damaged: a column segment in blocks {:?} cannot be decoded ({})",
                reader.path, extent.blocks, e.message
            )),
            Place::Memory(_) => Error::internal(format!(
                "a column segment kept compressed in memory cannot be decoded ({})",
                e.message
            )),
        }
    }

    fn touch(&self) {
        if let Some(pool) = self.pool.upgrade() {
            pool.touch(self.id);
        }
    }

    /// The segment of rows `keep` (increasing) of this one, whose zone map is `zone`,
    /// cut from its bytes and kept in memory (in the same pool), and its zone map
    /// ([`compression::take`]).
    pub fn take(&self, keep: &[u32], zone: &ZoneMap) -> Result<(Arc<Segment>, ZoneMap)> {
        let bytes = self.read()?;
        let (cut, zone) = compression::take::take(&bytes, &self.ty, self.len, keep, zone)
            .map_err(|e| self.damaged(e))?;
        let segment = match self.pool.upgrade() {
            Some(pool) => pool.memory_segment(cut, self.ty.clone(), keep.len()),
            None => Segment::in_memory(0, cut, self.ty.clone(), keep.len(), Weak::new()),
        };
        Ok((segment, zone))
    }

    /// The segment's bytes as encoded (to copy them elsewhere in the file).
    pub fn raw_bytes(&self) -> Result<Vec<u8>> {
        Ok(self.read()?.into_owned())
    }

    /// Reads and decodes the segment without caching it (an integrity check).
    pub fn read_uncached(&self) -> Result<Vector> {
        compression::decode(&self.read()?, &self.ty, self.len)
    }

    /// The codec the segment is encoded with (its first byte; read from the file when
    /// not known yet).
    pub fn codec(&self) -> Result<u8> {
        if let Some(&c) = self.codec.get() {
            return Ok(c);
        }
        let c = match &self.place {
            Place::File { reader, extent } => {
                let first = extent.blocks.first().copied().unwrap_or(0);
                let block = reader.read_block(first)?;
                block.get(extent.offset as usize).copied().unwrap_or(0)
            }
            Place::Memory(bytes) => bytes.first().copied().unwrap_or(0),
        };
        Ok(*self.codec.get_or_init(|| c))
    }

    /// Records the codec of a segment just written.
    pub fn set_codec(&self, codec: u8) {
        let _ = self.codec.set(codec);
    }

    /// The values, when the pool holds them decoded.
    pub fn cached_vector(&self) -> Option<Vector> {
        match &*self.cached.lock().ok()? {
            Cached::Vector(v) => Some(v.clone()),
            _ => None,
        }
    }

    fn admit(self: &Arc<Self>, bytes: usize, read: bool) {
        if let Some(pool) = self.pool.upgrade() {
            pool.admit(self, bytes as u64, read);
        }
    }
}

impl Drop for Segment {
    fn drop(&mut self) {
        if let Some(pool) = self.pool.upgrade() {
            pool.forget(self.id);
        }
    }
}

impl std::fmt::Debug for Segment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Segment")
            .field("extent", &self.extent())
            .field("bytes", &self.encoded_len())
            .field("len", &self.len)
            .finish()
    }
}
