//! The database file: two header slots and a sequence of fixed-size, checksummed
//! blocks (layout byte by byte in `docs/storage.md`).
//!
//! A checkpoint writes its blocks only where the current checkpoint has none, syncs
//! them, and then writes the header slot the current one does not occupy, with the
//! next iteration number; syncing that slot is the one moment the new checkpoint
//! becomes the database. A torn header write leaves the other slot, and so the
//! previous checkpoint, intact: opening takes the valid slot with the highest
//! iteration. A slot damaged after it was written whole is told apart by the WAL,
//! whose header names (and copies) the checkpoint it continues: when that is newer
//! than every valid slot, the copy is used and written back. Every block read is
//! checked against its checksum.

use crate::fs::StorageFile;
use crate::serialize::{ByteReader, ByteWriter};
use std::sync::Arc;
use stride_common::{Error, Result};

/// Bytes per block, checksum included.
pub const BLOCK_SIZE: usize = 256 * 1024;
/// Bytes of a block that hold data (the first 8 are its checksum and number).
pub const PAYLOAD: usize = BLOCK_SIZE - 8;
const SLOT_SIZE: u64 = 4096;
const BLOCKS_START: u64 = 2 * SLOT_SIZE;
pub const MAGIC: &[u8; 8] = b"STRIDEDB";
/// The version of the file format this build writes and the newest it reads.
pub const FORMAT_VERSION: u32 = 14;
/// No block.
pub const NO_BLOCK: u64 = u64::MAX;

/// What a header slot holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Header {
    /// The file format the checkpoint was written in (1: no zone maps; 2: no FSST; 3:
    /// no distinct counts; 4: no run-length or decimal-float codecs; 6: no macros).
    pub version: u32,
    /// Checkpoints written so far; the slot written last has the highest.
    pub iteration: u64,
    /// First block of the checkpoint's metadata chain ([`NO_BLOCK`] when empty).
    pub metadata_block: u64,
    /// Bytes of metadata in the chain.
    pub metadata_len: u64,
    /// Blocks in the file when the checkpoint was written.
    pub block_count: u64,
}

/// Where a run of bytes lives: `len` bytes from `offset` in the concatenated payloads
/// of `blocks`.
#[derive(Clone, Debug, PartialEq)]
pub struct Extent {
    pub blocks: Vec<u64>,
    pub offset: u32,
    pub len: u64,
}

/// Reads checked blocks of a database file; shared by the segments read from it (a
/// reader needs no lock: blocks in use are never written).
pub struct BlockReader {
    pub path: String,
    file: Arc<dyn StorageFile>,
}

impl BlockReader {
    /// The payload of block `id`, checked against its checksum.
    pub fn read_block(&self, id: u64) -> Result<Vec<u8>> {
        let mut buf = vec![0u8; BLOCK_SIZE];
        self.read_block_into(id, &mut buf)?;
        buf.drain(..8);
        Ok(buf)
    }

    /// Reads block `id` into `buf` (`BLOCK_SIZE` bytes) and checks its checksum;
    /// returns its payload.
    fn read_block_into<'b>(&self, id: u64, buf: &'b mut [u8]) -> Result<&'b [u8]> {
        self.file
            .read_at(buf, BLOCKS_START + id * BLOCK_SIZE as u64)
            .map_err(|e| Error::io(format!("cannot read block {id} of \"{}\": {e}", self.path)))?;
        let stored = u32::from_le_bytes(buf[0..4].try_into().expect("4"));
        let number = u32::from_le_bytes(buf[4..8].try_into().expect("4"));
        if stored != crc32fast::hash(&buf[8..]) || number != id as u32 {
            return Err(Error::io(format!(
                "block {id} of \"{}\" is damaged (checksum mismatch); the data it holds cannot be read",
                self.path
            )));
        }
        Ok(&buf[8..])
    }

    /// The bytes of `extent`.
    pub fn read_extent(&self, extent: &Extent) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(extent.len as usize);
        let mut skip = extent.offset as usize;
        let mut buf = vec![0u8; BLOCK_SIZE];
        for &b in &extent.blocks {
            let payload = self.read_block_into(b, &mut buf)?;
            let want = (extent.len as usize - out.len()).min(PAYLOAD - skip);
            out.extend_from_slice(&payload[skip..skip + want]);
            skip = 0;
        }
        if out.len() as u64 != extent.len {
            return Err(Error::io(format!(
                "\"{}\" is damaged: a run of {} bytes in blocks {:?} is cut short",
                self.path, extent.len, extent.blocks
            )));
        }
        Ok(out)
    }
}

pub struct BlockFile {
    pub path: String,
    file: Arc<dyn StorageFile>,
    reader: Arc<BlockReader>,
    pub header: Header,
    /// Blocks that the current checkpoint, or committed data written since, uses.
    used: Vec<bool>,
}

impl BlockFile {
    /// Opens a database file, writing the first header if the file is empty. `copy` is
    /// the WAL's copy of the header slot it continues: when it is newer than every
    /// valid slot and a slot is damaged, that slot was damaged after it was written
    /// whole, and the copy is taken instead; the flag returned says so (write it back
    /// with [`BlockFile::write_back_header`] once the checkpoint has loaded).
    pub fn open(
        path: &str,
        file: Arc<dyn StorageFile>,
        writable: bool,
        copy: Option<Header>,
    ) -> Result<(BlockFile, bool)> {
        let io = |e: std::io::Error| Error::io(format!("cannot read \"{path}\": {e}"));
        let len = file.size().map_err(io)?;
        if len > 0 && len <= BLOCKS_START && writable {
            // A crash while the file was being created leaves zeros: start it again.
            let mut head = vec![0u8; len as usize];
            file.read_at(&mut head, 0).map_err(io)?;
            if head.iter().all(|&b| b == 0) {
                file.set_len(0).map_err(io)?;
                return Self::open(path, file, writable, None);
            }
        }
        if len == 0 {
            if !writable {
                return Err(Error::io(format!(
                    "\"{path}\" is empty; a read-only database file must exist"
                )));
            }
            let header = Header {
                version: FORMAT_VERSION,
                iteration: 1,
                metadata_block: NO_BLOCK,
                metadata_len: 0,
                block_count: 0,
            };
            let f = BlockFile {
                path: path.to_string(),
                reader: Arc::new(BlockReader {
                    path: path.to_string(),
                    file: file.clone(),
                }),
                file,
                header,
                used: Vec::new(),
            };
            // Iteration 1 goes to slot 1; slot 0 starts empty (no valid checksum).
            f.write_slot_bytes(0, &[0u8; SLOT_SIZE as usize])?;
            f.write_slot(&header)?;
            return Ok((f, false));
        }
        let mut slots = Vec::new();
        let mut magic_seen = false;
        let mut damaged = false;
        for i in 0..2u64 {
            let mut buf = vec![0u8; SLOT_SIZE as usize];
            if file.read_at(&mut buf, i * SLOT_SIZE).is_err() {
                continue;
            }
            if &buf[..8] == MAGIC {
                magic_seen = true;
            } else {
                continue;
            }
            let version = u32::from_le_bytes(buf[8..12].try_into().expect("4"));
            if version > FORMAT_VERSION {
                return Err(Error::io(format!(
                    "\"{path}\" was written by a newer stride (file format {version}; this build reads format {FORMAT_VERSION} and older); upgrade stride to open it"
                )));
            }
            match decode_slot(&buf) {
                Some(h) => slots.push(h),
                None => damaged = true,
            }
        }
        if !magic_seen {
            return Err(Error::io(format!(
                "\"{path}\" is not a stride database file (it does not start with the bytes \"STRIDEDB\")"
            )));
        }
        // A slot naming more metadata than its blocks carry is damaged however its
        // checksum came out. (It may name more blocks than the file holds: free ones
        // at the end are cut off after the switch.)
        let blocks_in_file = len.saturating_sub(BLOCKS_START).div_ceil(BLOCK_SIZE as u64);
        let sane = |h: &Header| h.metadata_len <= h.block_count.saturating_mul(PAYLOAD as u64);
        damaged |= slots.iter().any(|h| !sane(h));
        slots.retain(sane);
        let newest = slots.into_iter().max_by_key(|h| h.iteration);
        let copy = copy.filter(|c| {
            damaged
                && sane(c)
                && c.version <= FORMAT_VERSION
                && newest.is_none_or(|h| c.iteration > h.iteration)
        });
        let restored = copy.is_some();
        let header = copy.or(newest).ok_or_else(|| {
            Error::io(format!(
                "\"{path}\": both header slots are damaged (checksum mismatch); the file cannot be read"
            ))
        })?;
        let f = BlockFile {
            path: path.to_string(),
            reader: Arc::new(BlockReader {
                path: path.to_string(),
                file: file.clone(),
            }),
            file,
            header,
            used: vec![false; header.block_count.min(blocks_in_file) as usize],
        };
        Ok((f, restored))
    }

    /// Marks the blocks of `extent` as in use.
    pub fn mark_used(&mut self, blocks: &[u64]) {
        for &b in blocks {
            let b = b as usize;
            if b >= self.used.len() {
                self.used.resize(b + 1, false);
            }
            self.used[b] = true;
        }
    }

    pub fn used_blocks(&self) -> usize {
        self.used.iter().filter(|&&u| u).count()
    }

    pub fn block_count(&self) -> u64 {
        self.used.len() as u64
    }

    fn io_error(&self, what: &str, e: std::io::Error) -> Error {
        Error::io(format!("cannot {what} \"{}\": {e}", self.path))
    }

    /// The payload of block `id`, checked against its checksum.
    pub fn read_block(&self, id: u64) -> Result<Vec<u8>> {
        self.reader.read_block(id)
    }

    /// The reader the file's segments share.
    pub fn reader(&self) -> Arc<BlockReader> {
        self.reader.clone()
    }

    fn write_block(&self, id: u64, payload: &[u8]) -> Result<()> {
        let mut buf = vec![0u8; BLOCK_SIZE];
        buf[8..8 + payload.len()].copy_from_slice(payload);
        self.write_filled(id, &mut buf, payload.len())
    }

    /// Writes block `id` from `buf` (BLOCK_SIZE bytes), whose payload (after the
    /// 8-byte header) holds `len` bytes: the rest is zeroed, and the header filled in.
    fn write_filled(&self, id: u64, buf: &mut [u8], len: usize) -> Result<()> {
        buf[8 + len..].fill(0);
        let crc = crc32fast::hash(&buf[8..]);
        buf[0..4].copy_from_slice(&crc.to_le_bytes());
        buf[4..8].copy_from_slice(&(id as u32).to_le_bytes());
        self.file
            .write_at(buf, BLOCKS_START + id * BLOCK_SIZE as u64)
            .map_err(|e| self.io_error(&format!("write block {id} of"), e))
    }

    /// A block neither in use nor taken in `taken` (blocks given out since the last
    /// header switch), growing the file when there is none.
    fn allocate(&mut self, taken: &mut Vec<bool>) -> u64 {
        let n = self.used.len().max(taken.len());
        let id = (0..n)
            .find(|&i| {
                !self.used.get(i).copied().unwrap_or(false)
                    && !taken.get(i).copied().unwrap_or(false)
            })
            .unwrap_or(n);
        if id >= taken.len() {
            taken.resize(id + 1, false);
        }
        taken[id] = true;
        id as u64
    }

    /// The metadata of the current header, and the blocks of its chain.
    pub fn read_metadata(&self) -> Result<(Vec<u8>, Vec<u64>)> {
        let mut out = Vec::with_capacity(self.header.metadata_len as usize);
        let mut chain = Vec::new();
        let mut next = self.header.metadata_block;
        while out.len() < self.header.metadata_len as usize {
            if next == NO_BLOCK || chain.len() as u64 > self.header.block_count {
                return Err(Error::io(format!(
                    "\"{}\" is damaged: its metadata chain ends early",
                    self.path
                )));
            }
            let payload = self.read_block(next)?;
            chain.push(next);
            next = u64::from_le_bytes(payload[0..8].try_into().expect("8"));
            let want = (self.header.metadata_len as usize - out.len()).min(PAYLOAD - 8);
            out.extend_from_slice(&payload[8..8 + want]);
        }
        Ok((out, chain))
    }

    fn write_slot_bytes(&self, slot: u64, bytes: &[u8]) -> Result<()> {
        self.file
            .write_at(bytes, slot * SLOT_SIZE)
            .map_err(|e| self.io_error("write the header of", e))
    }

    /// Writes the current header back into its slot (after it was restored from the
    /// WAL's copy) and syncs it.
    pub fn write_back_header(&self) -> Result<()> {
        self.write_slot(&self.header)
    }

    /// Writes `header` into the slot its iteration selects and syncs it.
    fn write_slot(&self, header: &Header) -> Result<()> {
        self.write_slot_bytes(header.iteration % 2, &encode_slot(header))?;
        self.sync()
    }

    pub fn sync(&self) -> Result<()> {
        self.file.sync().map_err(|e| self.io_error("sync", e))
    }

    /// A writer for a new checkpoint (or for data committed ahead of one).
    pub fn writer(&mut self) -> BlockWriter<'_> {
        BlockWriter {
            file: self,
            taken: Vec::new(),
            current: None,
            block: Vec::new(),
        }
    }
}

fn encode_slot(h: &Header) -> Vec<u8> {
    let mut w = ByteWriter::new();
    w.raw(MAGIC);
    w.u32(h.version);
    w.u32(BLOCK_SIZE as u32);
    w.u64(h.iteration);
    w.u64(h.metadata_block);
    w.u64(h.metadata_len);
    w.u64(h.block_count);
    let mut bytes = w.bytes;
    bytes.resize(SLOT_SIZE as usize - 4, 0);
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    bytes
}

fn decode_slot(buf: &[u8]) -> Option<Header> {
    let n = SLOT_SIZE as usize - 4;
    if u32::from_le_bytes(buf[n..].try_into().ok()?) != crc32fast::hash(&buf[..n]) {
        return None;
    }
    let mut r = ByteReader::new(&buf[12..], "header");
    if r.u32().ok()? as usize != BLOCK_SIZE {
        return None;
    }
    let version = u32::from_le_bytes(buf[8..12].try_into().ok()?);
    let h = Header {
        version,
        iteration: r.u64().ok()?,
        metadata_block: r.u64().ok()?,
        metadata_len: r.u64().ok()?,
        block_count: r.u64().ok()?,
    };
    (h.iteration > 0).then_some(h)
}

/// Writes runs of bytes into blocks the current checkpoint does not use, packing small
/// runs into shared blocks.
pub struct BlockWriter<'a> {
    file: &'a mut BlockFile,
    taken: Vec<bool>,
    /// The block being filled and how many payload bytes it holds, in `block`.
    current: Option<(u64, usize)>,
    /// The block being filled, header space included (one buffer for every block).
    block: Vec<u8>,
}

impl BlockWriter<'_> {
    pub fn file(&self) -> &BlockFile {
        self.file
    }

    /// Stores `bytes`, returning where they are.
    pub fn write(&mut self, bytes: &[u8]) -> Result<Extent> {
        let fits = self
            .current
            .is_some_and(|(_, len)| PAYLOAD - len >= bytes.len());
        if !fits && bytes.len() <= PAYLOAD {
            self.flush()?;
        }
        if self.current.is_none() {
            self.open_block();
        }
        let (first, len) = self.current.expect("just ensured");
        let mut extent = Extent {
            blocks: vec![first],
            offset: len as u32,
            len: bytes.len() as u64,
        };
        let mut rest = bytes;
        loop {
            let (id, len) = self.current.expect("a block is open");
            let n = rest.len().min(PAYLOAD - len);
            self.block[8 + len..8 + len + n].copy_from_slice(&rest[..n]);
            self.current = Some((id, len + n));
            rest = &rest[n..];
            if rest.is_empty() {
                break;
            }
            self.flush()?;
            extent.blocks.push(self.open_block());
        }
        Ok(extent)
    }

    /// Starts filling a newly allocated block; returns its id.
    fn open_block(&mut self) -> u64 {
        let id = self.file.allocate(&mut self.taken);
        self.block.resize(BLOCK_SIZE, 0);
        self.current = Some((id, 0));
        id
    }

    /// Writes out the block being filled.
    pub fn flush(&mut self) -> Result<()> {
        if let Some((id, len)) = self.current.take() {
            self.file.write_filled(id, &mut self.block, len)?;
        }
        Ok(())
    }

    /// Writes `metadata` as a chain of blocks, syncs everything written, and returns
    /// the header that makes it the database (not yet written).
    pub fn finish(mut self, metadata: &[u8]) -> Result<(Header, Vec<u64>)> {
        self.flush()?;
        let chunks: Vec<&[u8]> = metadata.chunks(PAYLOAD - 8).collect();
        let ids: Vec<u64> = chunks
            .iter()
            .map(|_| self.file.allocate(&mut self.taken))
            .collect();
        for (i, chunk) in chunks.iter().enumerate() {
            let next = ids.get(i + 1).copied().unwrap_or(NO_BLOCK);
            let mut payload = Vec::with_capacity(8 + chunk.len());
            payload.extend_from_slice(&next.to_le_bytes());
            payload.extend_from_slice(chunk);
            self.file.write_block(ids[i], &payload)?;
        }
        self.file.sync()?;
        let header = Header {
            version: FORMAT_VERSION,
            iteration: self.file.header.iteration + 1,
            metadata_block: ids.first().copied().unwrap_or(NO_BLOCK),
            metadata_len: metadata.len() as u64,
            block_count: self.file.used.len().max(self.taken.len()) as u64,
        };
        Ok((header, ids))
    }

    /// Syncs the blocks written so far (data committed ahead of a checkpoint) and
    /// marks them in use.
    pub fn commit_blocks(mut self) -> Result<()> {
        self.flush()?;
        self.file.sync()?;
        let taken: Vec<u64> = (0..self.taken.len() as u64)
            .filter(|&i| self.taken[i as usize])
            .collect();
        self.file.mark_used(&taken);
        Ok(())
    }
}

impl BlockFile {
    /// Makes `header` the database: writes and syncs its slot. `used` lists every
    /// block the new checkpoint references; the others become free, and free blocks
    /// at the end of the file are cut off.
    pub fn switch(&mut self, header: Header, used: &[u64]) -> Result<()> {
        self.write_slot(&header)?;
        self.header = header;
        self.used = vec![false; header.block_count as usize];
        self.mark_used(used);
        let last = self.used.iter().rposition(|&u| u).map_or(0, |i| i + 1);
        self.used.truncate(last);
        let len = BLOCKS_START + last as u64 * BLOCK_SIZE as u64;
        // Shrinking is only housekeeping: the checkpoint is complete either way.
        let _ = self.file.set_len(len);
        Ok(())
    }
}
