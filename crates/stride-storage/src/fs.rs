//! The file-system layer every byte of a database file and its WAL goes through. The
//! operating system's files implement it; tests wrap it to make writes, syncs and
//! reads fail at chosen moments, so each failure path is exercised.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

/// An open file: positioned reads and writes, sync, size.
pub trait StorageFile: Send + Sync {
    /// Fills `buf` from `offset`; an error when the file ends first.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()>;
    /// Makes every write so far durable (fsync).
    fn sync(&self) -> io::Result<()>;
    fn size(&self) -> io::Result<u64>;
    fn set_len(&self, len: u64) -> io::Result<()>;
    /// Takes an advisory lock on the whole file for this process (shared for readers,
    /// exclusive for a writer). `Ok(Err(pid))` when another process holds a
    /// conflicting lock (`pid` when the system says which).
    fn try_lock(&self, exclusive: bool) -> io::Result<Result<(), Option<i64>>>;
}

/// Opens files.
pub trait FileSystem: Send + Sync {
    /// Opens `path` for reading, and for writing when `write` (creating it if missing).
    fn open(&self, path: &Path, write: bool) -> io::Result<Arc<dyn StorageFile>>;
    fn exists(&self, path: &Path) -> bool;
    /// Makes the creation of new files in `dir` durable.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;
}

/// The operating system's files.
pub struct OsFileSystem;

struct OsFile(File);

impl FileSystem for OsFileSystem {
    fn open(&self, path: &Path, write: bool) -> io::Result<Arc<dyn StorageFile>> {
        let file = OpenOptions::new()
            .read(true)
            .write(write)
            .create(write)
            .truncate(false)
            .open(path)?;
        Ok(Arc::new(OsFile(file)))
    }

    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        File::open(dir)?.sync_all()
    }
}

impl StorageFile for OsFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.0.read_exact_at(buf, offset)
    }

    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.0.write_all_at(buf, offset)
    }

    fn sync(&self) -> io::Result<()> {
        self.0.sync_data()
    }

    fn size(&self) -> io::Result<u64> {
        Ok(self.0.metadata()?.len())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.0.set_len(len)
    }

    fn try_lock(&self, exclusive: bool) -> io::Result<Result<(), Option<i64>>> {
        posix_lock(&self.0, exclusive)
    }
}

/// A POSIX record lock over the whole file (`fcntl(F_SETLK)`); on conflict,
/// `F_GETLK` names the process holding it.
fn posix_lock(file: &File, exclusive: bool) -> io::Result<Result<(), Option<i64>>> {
    use std::os::fd::AsRawFd;
    // SAFETY: `flock` is plain data; zeroed is a valid value for every field.
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = if exclusive {
        libc::F_WRLCK
    } else {
        libc::F_RDLCK
    } as _;
    lock.l_whence = libc::SEEK_SET as _;
    // SAFETY: the descriptor is open for the life of `file`; `lock` is a valid flock.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLK, &lock) } == 0 {
        return Ok(Ok(()));
    }
    let err = io::Error::last_os_error();
    if !matches!(err.raw_os_error(), Some(libc::EACCES | libc::EAGAIN)) {
        return Err(err);
    }
    // SAFETY: as above; F_GETLK fills `lock` with the conflicting lock.
    let holder = if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETLK, &mut lock) } == 0
        && lock.l_type != libc::F_UNLCK as _
    {
        Some(lock.l_pid as i64)
    } else {
        None
    };
    Ok(Err(holder))
}

/// Failures tests inject through [`FaultyFileSystem`].
#[derive(Default)]
pub struct Faults {
    /// Writes allowed before every further write fails (`None`: no limit).
    pub writes_left: std::sync::Mutex<Option<u64>>,
    /// Every sync fails while set.
    pub fail_sync: std::sync::atomic::AtomicBool,
    /// Writes that succeeded, to place a failure at each of them in turn.
    pub writes_done: std::sync::atomic::AtomicU64,
}

/// The operating system's files, with the failures of a shared [`Faults`].
pub struct FaultyFileSystem {
    pub faults: Arc<Faults>,
}

struct FaultyFile {
    inner: Arc<dyn StorageFile>,
    faults: Arc<Faults>,
}

impl FileSystem for FaultyFileSystem {
    fn open(&self, path: &Path, write: bool) -> io::Result<Arc<dyn StorageFile>> {
        Ok(Arc::new(FaultyFile {
            inner: OsFileSystem.open(path, write)?,
            faults: self.faults.clone(),
        }))
    }

    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        OsFileSystem.sync_dir(dir)
    }
}

impl StorageFile for FaultyFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.inner.read_at(buf, offset)
    }

    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        if let Ok(mut left) = self.faults.writes_left.lock() {
            match left.as_mut() {
                Some(0) => {
                    return Err(io::Error::from_raw_os_error(libc::ENOSPC));
                }
                Some(n) => *n -= 1,
                None => {}
            }
        }
        self.faults
            .writes_done
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.inner.write_at(buf, offset)
    }

    fn sync(&self) -> io::Result<()> {
        if self
            .faults
            .fail_sync
            .load(std::sync::atomic::Ordering::SeqCst)
        {
            return Err(io::Error::from_raw_os_error(libc::EIO));
        }
        self.inner.sync()
    }

    fn size(&self) -> io::Result<u64> {
        self.inner.size()
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        self.inner.set_len(len)
    }

    fn try_lock(&self, exclusive: bool) -> io::Result<Result<(), Option<i64>>> {
        self.inner.try_lock(exclusive)
    }
}
