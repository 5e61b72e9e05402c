//! Two processes sharing one Arrow file in memory (the SWING use case, with a standard
//! format): the `stride` binary writes a ~150 MB Arrow IPC file to /dev/shm, and this
//! test process reads all of it as a query result, holding every row, while its
//! private memory (RssAnon) grows by a small fraction of the file: the result's
//! vectors point into the shared mapping (RssShmem grows instead) rather than into
//! copies.

use std::process::Command;

/// A field of /proc/self/status, in kB.
fn status_kb(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"))
}

#[test]
fn a_file_in_shared_memory_is_read_without_copying() {
    // /dev/shm where the machine has it (Linux); elsewhere the page cache behind a
    // temporary file is shared the same way.
    let dir = match std::path::Path::new("/dev/shm").is_dir() {
        true => std::path::PathBuf::from("/dev/shm"),
        false => std::env::temp_dir(),
    };
    let path = dir.join(format!("stride-shared-{}.arrow", std::process::id()));
    let path = path.to_str().unwrap().to_string();
    let rows: u64 = 4_000_000;
    let out = Command::new(env!("CARGO_BIN_EXE_stride"))
        .env("HOME", std::env::temp_dir())
        .arg("-c")
        .arg(format!(
            "COPY (SELECT range AS a, range * 2 AS b, range::DOUBLE / 4 AS c, \
             'row ' || range AS s FROM range({rows})) TO '{path}' (FORMAT arrow)"
        ))
        .output()
        .expect("run stride");
    assert!(
        out.status.success(),
        "the writer failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file_kb = std::fs::metadata(&path).unwrap().len() / 1024;

    let db = stride::Database::open_in_memory().unwrap();
    let conn = db.connect().unwrap();
    let (anon_before, shared_before) = (
        status_kb("RssAnon"),
        status_kb("RssShmem") + status_kb("RssFile"),
    );
    let mut result = conn.query(&format!("SELECT * FROM '{path}'")).unwrap();
    let mut chunks = Vec::new();
    while let Some(chunk) = result.next_chunk() {
        chunks.push(chunk.unwrap());
    }
    // Touch every value (and check them) while all chunks are held.
    let (mut n, mut sum_b, mut long) = (0u64, 0i64, 0usize);
    for c in &chunks {
        let (cols, len) = c.clone().into_flat_columns();
        n += len as u64;
        sum_b += cols[1].values::<i64>()[..len].iter().sum::<i64>();
        long += (0..len)
            .map(|i| cols[3].strings().get(i).len())
            .sum::<usize>();
    }
    let anon = status_kb("RssAnon") - anon_before;
    let shared = (status_kb("RssShmem") + status_kb("RssFile")).saturating_sub(shared_before);
    drop(chunks);
    let _ = std::fs::remove_file(&path);
    assert_eq!(n, rows);
    assert_eq!(sum_b, (rows * (rows - 1)) as i64);
    assert!(long > 0);
    eprintln!(
        "file {file_kb} kB; holding the whole result grew private memory by {anon} kB and mapped shared pages by {shared} kB"
    );
    assert!(
        anon * 10 < file_kb,
        "reading a {file_kb} kB file grew private memory by {anon} kB: it was copied"
    );
    assert!(
        shared * 2 > file_kb,
        "the file's pages ({file_kb} kB) should be mapped, not read: {shared} kB are"
    );
}
