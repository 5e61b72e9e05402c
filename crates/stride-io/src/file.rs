//! Opening input files: glob patterns expanded, plain files memory-mapped, `.gz` files
//! decompressed into memory. Every error names the path and says what to do. And
//! writing output files safely ([`NewFile`]: beside the path, renamed into place).

use memmap2::Mmap;
use std::io::Read;
use std::path::{Path, PathBuf};
use stride_common::{Error, Result};

/// The bytes of one input file, mapped or decompressed.
pub struct FileData {
    pub path: String,
    bytes: Bytes,
}

enum Bytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl FileData {
    pub fn bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }

    /// Bytes of text held in memory, for tests and in-memory sources.
    pub fn from_bytes(path: impl Into<String>, bytes: Vec<u8>) -> FileData {
        FileData {
            path: path.into(),
            bytes: Bytes::Owned(bytes),
        }
    }
}

impl std::fmt::Debug for FileData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FileData({}, {} bytes)", self.path, self.bytes().len())
    }
}

/// Opens `path`: a `.gz` file is decompressed, any other file is memory-mapped.
pub fn open(path: &str) -> Result<FileData> {
    let io_err = |e: std::io::Error| Error::io(format!("cannot read \"{path}\": {e}"));
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::io(format!(
            "No files found that match the pattern \"{path}\": check the path and the working directory"
        )),
        _ => io_err(e),
    })?;
    if meta.is_dir() {
        return Err(Error::io(format!(
            "cannot read \"{path}\": it is a directory; give a file or a pattern such as \"{}/*.csv\"",
            path.trim_end_matches('/')
        )));
    }
    let file = std::fs::File::open(path).map_err(io_err)?;
    let bytes = if path.ends_with(".gz") {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(file)
            .read_to_end(&mut out)
            .map_err(|e| {
                Error::io(format!(
                    "cannot decompress \"{path}\": {e}; is it a gzip file?"
                ))
            })?;
        Bytes::Owned(out)
    } else if meta.len() == 0 {
        Bytes::Owned(Vec::new())
    } else {
        // SAFETY: the map is read-only; a file truncated by another process while
        // mapped is outside what any reader can defend against (as in every mmap reader).
        Bytes::Mapped(unsafe { Mmap::map(&file) }.map_err(io_err)?)
    };
    Ok(FileData {
        path: path.to_string(),
        bytes,
    })
}

/// The files a pattern names, sorted; `*` and `?` match within one path component.
/// A pattern without wildcards names itself (whether or not it exists).
pub fn expand(pattern: &str) -> Result<Vec<String>> {
    if !pattern.contains(['*', '?']) {
        return Ok(vec![pattern.to_string()]);
    }
    let files = matches(pattern);
    if files.is_empty() {
        return Err(Error::io(format!(
            "No files found that match the pattern \"{pattern}\""
        )));
    }
    Ok(files)
}

/// The files a pattern with `*` or `?` matches, sorted; none is no error (`glob()`).
pub fn matches(pattern: &str) -> Vec<String> {
    let absolute = pattern.starts_with('/');
    let mut bases = vec![if absolute {
        PathBuf::from("/")
    } else {
        PathBuf::new()
    }];
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let mut next = Vec::new();
        for base in &bases {
            if !part.contains(['*', '?']) {
                next.push(base.join(part));
                continue;
            }
            let dir = if base.as_os_str().is_empty() {
                Path::new(".")
            } else {
                base.as_path()
            };
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for e in entries.flatten() {
                let name = e.file_name();
                let Some(name) = name.to_str() else { continue };
                let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
                if wildcard_match(part.as_bytes(), name.as_bytes()) && (last || is_dir) {
                    next.push(base.join(name));
                }
            }
        }
        bases = next;
    }
    let mut files: Vec<String> = bases
        .into_iter()
        .filter(|p| p.is_file())
        .filter_map(|p| p.to_str().map(str::to_string))
        .collect();
    files.sort();
    files
}

/// `*` matches any run of bytes, `?` any one byte.
fn wildcard_match(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() && (pattern[p] == b'?' || pattern[p] == name[n]) {
            p += 1;
            n += 1;
        } else if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, n));
            p += 1;
        } else if let Some((sp, sn)) = star {
            p = sp + 1;
            n = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// A file written beside its final path and renamed over it once complete: a query
/// still reading the old file (an Arrow file stays memory-mapped while its rows are
/// in use, also by the COPY that replaces it) keeps the old pages, and a write that
/// fails leaves the old file, or none, instead of half a file.
/// A path that exists and is not a regular file (a device such as /dev/stdout, a
/// pipe) is written directly.
pub struct NewFile {
    /// The temporary file, until renamed; `None` when writing `path` directly.
    temp: Option<PathBuf>,
    path: PathBuf,
}

impl NewFile {
    /// Creates the file to write for `path`: a temporary one in the same folder.
    pub fn create(path: &str) -> std::io::Result<(NewFile, std::fs::File)> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let target = PathBuf::from(path);
        let special = std::fs::metadata(&target).is_ok_and(|m| !m.is_file());
        let name = match target.file_name() {
            Some(n) if !special => n.to_string_lossy().into_owned(),
            _ => {
                let file = std::fs::File::create(&target)?;
                return Ok((
                    NewFile {
                        temp: None,
                        path: target,
                    },
                    file,
                ));
            }
        };
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let temp = target.with_file_name(format!(".{name}.{}-{n}.tmp", std::process::id()));
        let file = std::fs::File::create(&temp)?;
        Ok((
            NewFile {
                temp: Some(temp),
                path: target,
            },
            file,
        ))
    }

    /// Puts the written file in place of `path`.
    pub fn commit(mut self) -> std::io::Result<()> {
        if let Some(temp) = self.temp.take() {
            if let Err(e) = std::fs::rename(&temp, &self.path) {
                let _ = std::fs::remove_file(&temp);
                return Err(e);
            }
        }
        Ok(())
    }
}

impl Drop for NewFile {
    fn drop(&mut self) {
        if let Some(temp) = &self.temp {
            let _ = std::fs::remove_file(temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards() {
        assert!(wildcard_match(b"*.csv", b"a.csv"));
        assert!(wildcard_match(b"a?c*", b"abc.txt"));
        assert!(!wildcard_match(b"*.csv", b"a.tsv"));
        assert!(wildcard_match(b"*", b""));
    }

    #[test]
    fn missing_and_directories() {
        let e = open("/no/such/file.csv").unwrap_err();
        assert!(e.message.contains("No files found"), "{e}");
        let e = open("/tmp").unwrap_err();
        assert!(e.message.contains("is a directory"), "{e}");
        assert!(expand("/no/such/dir/*.csv").is_err());
    }
}
