//! CSV end to end, on files written by the test: COPY TO and back, parallel reading of
//! files large enough to be cut into several morsels (quoted newlines across the cuts),
//! sampling over the whole file, and a corpus of malformed files that must each give a
//! result or a clear error, never a panic or a hang.

use crate::common;

use common::Rng;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use stride::{Connection, Database, ScalarValue};

fn conn() -> Connection {
    Database::open_in_memory().unwrap().connect().unwrap()
}

/// A fresh folder under the system temp folder, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("stride-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    fn file(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn one(c: &Connection, sql: &str) -> ScalarValue {
    let rows = c.query(sql).unwrap().collect_rows().unwrap();
    rows[0][0].clone()
}

fn text(c: &Connection, sql: &str) -> String {
    one(c, sql).to_string()
}

#[test]
fn copy_to_and_back() {
    let dir = TempDir::new("copy");
    let out = dir.file("out.csv");
    let c = conn();
    c.execute(
        "CREATE TABLE t AS SELECT * FROM (VALUES (1, 'plain', 1.50::DECIMAL(10,2), DATE '2024-01-31'), \
         (2, 'with, comma', NULL, NULL), (3, 'say \"hi\"', -2.25, DATE '1999-12-31'), \
         (4, 'two\nlines', 0, DATE '2000-02-29'), (5, '', 7, NULL)) v(id, s, d, day)",
    )
    .unwrap();
    let n = c
        .execute(&format!("COPY t TO '{out}' (HEADER, DELIMITER ',')"))
        .unwrap();
    assert_eq!(n.changes, Some(5));
    let back = format!("read_csv('{out}')");
    assert_eq!(text(&c, &format!("SELECT count(*) FROM {back}")), "5");
    // Every value reads back as written, including quotes, commas and newlines.
    let diff = format!(
        "SELECT count(*) FROM (SELECT id, s, d::DOUBLE, day FROM t EXCEPT \
         SELECT id, coalesce(s, ''), d, day FROM {back})"
    );
    assert_eq!(text(&c, &diff), "0");
    // A query's result, with another delimiter, read back with COPY FROM.
    c.execute(&format!(
        "COPY (SELECT id, s FROM t WHERE id > 2 ORDER BY id) TO '{out}' (DELIMITER '|')"
    ))
    .unwrap();
    c.execute("CREATE TABLE u (id INTEGER, s VARCHAR)").unwrap();
    c.execute(&format!("COPY u FROM '{out}' (DELIMITER '|')"))
        .unwrap();
    assert_eq!(
        text(&c, "SELECT string_agg(s, ';' ORDER BY id) FROM u"),
        "say \"hi\";two\nlines;"
    );
}

#[test]
fn copy_to_writes_rows_in_result_order_while_the_query_runs() {
    // Written morsel by morsel as the query produces them (never collected whole):
    // many morsels on four threads still land in the file in the result's order.
    let dir = TempDir::new("copy-order");
    let out = dir.file("out.csv");
    let c = conn();
    c.execute("SET threads = 4").unwrap();
    let n = c
        .execute(&format!(
            "COPY (SELECT (x * 7919) % 300007 AS k, x FROM range(300007) t(x) ORDER BY k DESC) \
             TO '{out}' (HEADER)"
        ))
        .unwrap();
    assert_eq!(n.changes, Some(300_007));
    let keys: Vec<i64> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(keys.len(), 300_007);
    assert!(keys.iter().zip(keys.iter().skip(1)).all(|(a, b)| a > b));
    // Without ORDER BY, the scan's order.
    c.execute(&format!(
        "COPY (SELECT x FROM range(250000) t(x)) TO '{out}'"
    ))
    .unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    let xs: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(xs.len(), 250_000);
    assert!(xs.iter().enumerate().all(|(i, x)| *x == i.to_string()));
    // A failing query leaves no file behind.
    let failed = dir.file("failed.csv");
    assert!(c
        .execute(&format!(
            "COPY (SELECT CASE WHEN x = 200000 THEN error('stop') END FROM range(250000) t(x)) \
             TO '{failed}'"
        ))
        .is_err());
    assert!(!std::path::Path::new(&failed).exists());
}

#[test]
fn hugeint_uuid_and_time_round_trip_and_are_detected() {
    let dir = TempDir::new("new-types");
    let out = dir.file("out.csv");
    let c = conn();
    c.execute(
        "CREATE TABLE t AS SELECT i, \
         CASE WHEN i % 7 = 0 THEN NULL ELSE (i::HUGEINT - 500) * 100000000000000000000000 END AS h, \
         CASE WHEN i % 5 = 0 THEN NULL ELSE ('{' || md5(i::VARCHAR)[1:32] || '}')::UUID END AS u, \
         CASE WHEN i % 3 = 0 THEN NULL ELSE make_time(i % 24, i % 60, (i % 600) / 10.0) END AS t \
         FROM range(1000) r(i)",
    )
    .unwrap();
    c.execute(&format!("COPY t TO '{out}' (HEADER)")).unwrap();
    // DuckDB's sniffer: integers beyond BIGINT are HUGEINT, times of day TIME, and
    // UUIDs stay text.
    assert_eq!(
        text(
            &c,
            &format!(
                "SELECT typeof(h) || ',' || typeof(u) || ',' || typeof(t) FROM '{out}' LIMIT 1"
            )
        ),
        "HUGEINT,VARCHAR,TIME"
    );
    let same = |from: &str| {
        format!(
            "SELECT count(*) FROM (SELECT i, h, u, t FROM t EXCEPT SELECT i, h, u, t FROM {from})"
        )
    };
    assert_eq!(text(&c, &same(&format!("'{out}'"))), "0");
    assert_eq!(
        text(
            &c,
            &same(&format!(
                "read_csv('{out}', columns = {{'i': 'BIGINT', 'h': 'HUGEINT', 'u': 'UUID', 't': 'TIME'}}, header = true)"
            ))
        ),
        "0"
    );
    // COPY FROM into typed columns; a malformed value names itself.
    c.execute("CREATE TABLE back (i BIGINT, h HUGEINT, u UUID, t TIME)")
        .unwrap();
    c.execute(&format!("COPY back FROM '{out}' (HEADER)"))
        .unwrap();
    assert_eq!(
        text(
            &c,
            "SELECT count(*) FROM (SELECT * FROM t EXCEPT SELECT * FROM back)"
        ),
        "0"
    );
    std::fs::write(
        &out,
        "u\na0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\nnot-a-uuid\n",
    )
    .unwrap();
    let e = c
        .execute(&format!("COPY back (u) FROM '{out}' (HEADER)"))
        .unwrap_err();
    assert!(e.message.contains("not-a-uuid"), "{e}");
}

/// Lines of a file big enough for several morsels; every 7th record holds a quoted
/// field with a newline and delimiters in it.
fn write_big(path: &str, rows: usize) -> (i64, usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(f, "id,note,amount").unwrap();
    let mut sum = 0i64;
    let mut quoted = 0;
    for i in 0..rows {
        let note = if i % 7 == 0 {
            quoted += 1;
            format!("\"multi\nline, \"\"{i}\"\" {}\"", "x".repeat(i % 50))
        } else {
            format!("note {i} {}", "y".repeat(i % 40))
        };
        let amount = (i % 1000) as i64;
        sum += amount;
        writeln!(f, "{i},{note},{amount}").unwrap();
    }
    f.flush().unwrap();
    (sum, quoted)
}

#[test]
fn parallel_read_matches_sequential() {
    let dir = TempDir::new("big");
    let path = dir.file("big.csv");
    let rows = 800_000;
    let (sum, quoted) = write_big(&path, rows);
    assert!(std::fs::metadata(&path).unwrap().len() > 3 * (8 << 20));
    for threads in [1, 2, 4] {
        let c = conn();
        c.execute(&format!("SET threads = {threads}")).unwrap();
        let row = c
            .query(&format!(
                "SELECT count(*), sum(amount), count(*) FILTER (WHERE note LIKE 'multi\n%'), \
                 count(DISTINCT id), max(id) FROM '{path}'"
            ))
            .unwrap()
            .collect_rows()
            .unwrap()
            .remove(0);
        let got: Vec<String> = row.iter().map(|v| v.to_string()).collect();
        assert_eq!(
            got,
            vec![
                rows.to_string(),
                sum.to_string(),
                quoted.to_string(),
                rows.to_string(),
                (rows - 1).to_string()
            ],
            "threads = {threads}"
        );
    }
}

#[test]
fn sampling_covers_the_whole_file() {
    let dir = TempDir::new("sample");
    let path = dir.file("late.csv");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(f, "id,code").unwrap();
    let rows = 1_000_000;
    for i in 0..rows {
        // Numbers for the first 95% of the file, text codes after.
        if i < rows * 95 / 100 {
            writeln!(f, "{i},{}", i % 1000).unwrap();
        } else {
            writeln!(f, "{i},X{}", i % 1000).unwrap();
        }
    }
    f.flush().unwrap();
    drop(f);
    let c = conn();
    assert_eq!(
        text(&c, &format!("SELECT typeof(code) FROM '{path}' LIMIT 1")),
        "VARCHAR"
    );
    assert_eq!(
        text(
            &c,
            &format!("SELECT count(*) FROM '{path}' WHERE code LIKE 'X%'")
        ),
        (rows / 20).to_string()
    );

    // One odd value at the very end, which no sample sees: the column is widened and
    // the statement re-run, with a note; no row is lost.
    let one_odd = |name: &str| {
        let path = dir.file(name);
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        writeln!(f, "id,code").unwrap();
        for i in 0..rows {
            writeln!(f, "{i},{}", i % 1000).unwrap();
        }
        writeln!(f, "{rows},oops").unwrap();
        f.flush().unwrap();
        path
    };
    let path2 = one_odd("one_odd.csv");
    let r = c
        .query(&format!("SELECT count(*), max(code) FROM '{path2}'"))
        .unwrap();
    let notes = r.notes();
    assert_eq!(
        r.collect_rows().unwrap(),
        vec![vec![
            ScalarValue::BigInt(rows as i64 + 1),
            ScalarValue::Varchar("oops".into())
        ]]
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains(&format!("\"oops\" on line {}", rows + 2))
                && n.contains("read as VARCHAR")),
        "{notes:?}"
    );
    // Later reads of the file use the wider type from the start.
    assert_eq!(
        text(&c, &format!("SELECT typeof(code) FROM '{path2}' LIMIT 1")),
        "VARCHAR"
    );
    // sample_size = -1 reads every row and finds the text when sniffing.
    let path3 = one_odd("one_odd_again.csv");
    assert_eq!(
        text(
            &c,
            &format!("SELECT typeof(code) FROM read_csv('{path3}', sample_size = -1) LIMIT 1")
        ),
        "VARCHAR"
    );
    // Rows already streamed to the caller cannot be taken back: the error says the
    // column is now wider, and running the statement again works.
    let path4 = one_odd("one_odd_stream.csv");
    let e = c
        .query(&format!("SELECT * FROM '{path4}'"))
        .and_then(|r| r.collect_rows())
        .unwrap_err();
    let m = e.to_string();
    assert!(m.contains(&format!("on line {}", rows + 2)), "{m}");
    assert!(m.contains("\"oops\" is not a BIGINT"), "{m}");
    assert!(m.contains("run the statement again"), "{m}");
    let all = c
        .query(&format!("SELECT * FROM '{path4}'"))
        .and_then(|r| r.collect_rows())
        .unwrap();
    assert_eq!(all.len(), rows + 1);
}

/// A file past the sniffer's whole-file size whose quoted fields hold newlines: its
/// sample runs start at real record starts (followed through the quotes), not inside
/// a quoted field, so the types are the values' and the first row is not taken for a
/// header.
#[test]
fn samples_of_files_with_quoted_newlines_start_at_records() {
    let dir = TempDir::new("quoted-newlines");
    let path = dir.file("big.csv");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(f, "5,first,7").unwrap();
    let rows = 1_000_000;
    for i in 0..rows {
        match i % 5 {
            0 => writeln!(f, "{i},\"a\nb\n\",{i}"),
            2 | 3 => writeln!(f, "{i},\"c, d\",{i}"),
            _ => writeln!(f, "{i},plain{i},{i}"),
        }
        .unwrap();
    }
    f.flush().unwrap();
    drop(f);
    assert!(std::fs::metadata(&path).unwrap().len() > 16 << 20);
    let c = conn();
    assert_eq!(
        text(
            &c,
            &format!("SELECT typeof(column0) || typeof(column1) || typeof(column2) FROM '{path}' LIMIT 1")
        ),
        "BIGINTVARCHARBIGINT"
    );
    assert_eq!(
        text(
            &c,
            &format!("SELECT count(*) || ',' || sum(column2) FROM '{path}'")
        ),
        format!("{},{}", rows + 1, 7 + (rows as i64 - 1) * rows as i64 / 2)
    );
}

/// Malformed inputs: truncated quotes, random bytes, NUL bytes, mixed newlines, ragged
/// rows, invalid UTF-8, huge fields.
fn malformed_corpus(dir: &Path) -> Vec<PathBuf> {
    let mut rng = Rng(0x05ee_dc5b);
    let good = "id,name,amount,day\n1,\"a, b\",1.5,2024-01-01\n2,\"say \"\"hi\"\"\",2,2024-02-02\n3,plain,3,2024-03-03\n";
    let mut files = Vec::new();
    let mut write = |name: String, bytes: Vec<u8>| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        files.push(p);
    };
    let specials: &[&[u8]] = &[
        b"\"",
        b",",
        b"\n",
        b"\r",
        b"\r\n",
        b"\0",
        b"\xff\xfe",
        b"\"\"",
        b"|",
        b";",
        b"\t",
        b"\\",
        b"'",
        b"\xc3",
    ];
    for i in 0..300 {
        let mut b = good.as_bytes().to_vec();
        match i % 6 {
            0 => b.truncate(rng.below(b.len())),
            1 => {
                for _ in 0..1 + rng.below(5) {
                    let at = rng.below(b.len());
                    let s = specials[rng.below(specials.len())];
                    b.splice(at..at, s.iter().copied());
                }
            }
            2 => {
                let n = rng.below(200);
                b = (0..n).map(|_| rng.next() as u8).collect();
            }
            3 => {
                for _ in 0..1 + rng.below(4) {
                    let at = rng.below(b.len());
                    b.remove(at);
                }
            }
            4 => {
                let at = rng.below(b.len());
                b[at] = specials[rng.below(specials.len())][0];
                b.extend_from_slice(b"4,\"unterminated");
            }
            _ => {
                let lines: Vec<&str> = good.lines().collect();
                let mut out = String::new();
                for _ in 0..rng.below(8) {
                    out.push_str(lines[rng.below(lines.len())]);
                    out.push_str(["\n", "\r\n", "\r", ",\n"][rng.below(4)]);
                }
                b = out.into_bytes();
            }
        }
        write(format!("m{i:03}.csv"), b);
    }
    // A 10 MB single field, quoted and not.
    let mut big = b"a,b\n1,\"".to_vec();
    big.extend(std::iter::repeat_n(b'x', 10 << 20));
    big.extend_from_slice(b"\"\n2,y\n");
    write("huge_quoted.csv".into(), big.clone());
    big.retain(|&c| c != b'"');
    write("huge_plain.csv".into(), big);
    let mut nul = vec![0u8; 1 << 16];
    nul.extend_from_slice(b"\n1,2\n");
    write("nul.csv".into(), nul);
    write("only_newlines.csv".into(), b"\n\n\n\r\n".to_vec());
    write("bom.csv".into(), b"\xef\xbb\xbfa,b\n1,2\n".to_vec());
    files
}

#[test]
fn malformed_files_give_results_or_errors() {
    let dir = TempDir::new("malformed");
    let files = match std::env::var("STRIDE_CSV_CORPUS") {
        // Replay a folder of files found elsewhere (for example by the fuzzer).
        Ok(folder) => std::fs::read_dir(folder)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect(),
        Err(_) => malformed_corpus(&dir.0),
    };
    assert!(files.len() >= 300);
    let c = conn();
    let mut errors = 0;
    for f in &files {
        let p = f.to_str().unwrap();
        for opts in [
            "",
            ", ignore_errors = true",
            ", null_padding = true, all_varchar = true",
        ] {
            let start = Instant::now();
            let r = c
                .query(&format!("SELECT * FROM read_csv('{p}'{opts})"))
                .and_then(|r| r.collect_rows());
            if let Err(e) = r {
                errors += 1;
                let m = e.to_string();
                assert!(!m.contains("Internal"), "{p}{opts}: {m}");
                assert!(!m.is_empty());
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "{p}{opts} took {:?}",
                start.elapsed()
            );
        }
    }
    // Some files are broken beyond reading; most are not.
    assert!(errors > 0);
}

#[test]
fn cancelled_load_leaves_no_table() {
    let dir = TempDir::new("cancel");
    let path = dir.file("big.csv");
    write_big(&path, 800_000);
    let c = conn();
    let handle = c.interrupt_handle();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let d = done.clone();
    let ticker = std::thread::spawn(move || {
        while !d.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(20));
            handle.interrupt();
        }
    });
    let start = Instant::now();
    let r = c.execute(&format!("CREATE TABLE t AS SELECT * FROM '{path}'"));
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    ticker.join().unwrap();
    let e = r.unwrap_err();
    assert_eq!(e.kind, stride::ErrorKind::Interrupted, "{e}");
    assert!(start.elapsed() < Duration::from_secs(10));
    let e = c.query("SELECT * FROM t").unwrap_err();
    assert!(e.to_string().contains("does not exist"), "{e}");
}

/// Plain decimals are detected as DECIMAL(18, s) and summed exactly. A value past the
/// sample that needs more decimals, more digits or an exponent widens the column
/// (to a wider DECIMAL, or DOUBLE) and the statement runs again: no value is rounded
/// and no row is lost.
#[test]
fn decimals_are_detected_and_widened_exactly() {
    let dir = TempDir::new("decimals");
    let rows = 1_000_000u64;
    let write = |name: &str, last: &str| {
        let path = dir.file(name);
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        writeln!(f, "id,amount").unwrap();
        for i in 0..rows {
            writeln!(f, "{i},{}.{:02}", i % 1000, i % 100).unwrap();
        }
        writeln!(f, "{rows},{last}").unwrap();
        f.flush().unwrap();
        path
    };
    // Sum of the regular rows, in cents.
    let cents: u64 = (0..rows).map(|i| (i % 1000) * 100 + i % 100).sum();
    let c = conn();
    let typed = |path: &str| text(&c, &format!("SELECT typeof(amount) FROM '{path}' LIMIT 1"));

    let plain = write("plain.csv", "1.5");
    assert_eq!(typed(&plain), "DECIMAL(18,2)");
    assert_eq!(
        text(&c, &format!("SELECT sum(amount) FROM '{plain}'")),
        format!("{}.{:02}", (cents + 150) / 100, (cents + 150) % 100)
    );

    for (name, last, wider, sum) in [
        (
            "more_decimals.csv",
            "0.125",
            "DECIMAL(38,3)",
            format!(
                "{}.{:03}",
                (cents * 10 + 125) / 1000,
                (cents * 10 + 125) % 1000
            ),
        ),
        (
            "more_digits.csv",
            "123456789012345678",
            "DECIMAL(38,2)",
            format!("{}.{:02}", 123456789012345678 + cents / 100, cents % 100),
        ),
    ] {
        let path = write(name, last);
        let r = c
            .query(&format!("SELECT sum(amount), count(*) FROM '{path}'"))
            .unwrap();
        let notes = r.notes();
        let row = r.collect_rows().unwrap().remove(0);
        assert_eq!(row[0].to_string(), sum, "{name}");
        assert_eq!(row[1], ScalarValue::BigInt(rows as i64 + 1));
        assert!(
            notes
                .iter()
                .any(|n| n.contains(&format!("read as {wider}")) && n.contains(last)),
            "{name}: {notes:?}"
        );
        assert_eq!(typed(&path), wider);
    }

    let exponent = write("exponent.csv", "1e3");
    assert_eq!(
        text(
            &c,
            &format!("SELECT count(*) FROM '{exponent}' WHERE amount = 1000")
        ),
        "1"
    );
    assert_eq!(typed(&exponent), "DOUBLE");

    // Integers first, a decimal last: BIGINT widens to DECIMAL.
    let path = dir.file("ints.csv");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(f, "amount").unwrap();
    for i in 0..rows {
        writeln!(f, "{}", i % 1000).unwrap();
    }
    writeln!(f, "2.5").unwrap();
    f.flush().unwrap();
    drop(f);
    let ints: u64 = (0..rows).map(|i| i % 1000).sum();
    assert_eq!(
        text(&c, &format!("SELECT sum(amount) FROM '{path}'")),
        format!("{}.5", ints + 2)
    );
    assert_eq!(typed(&path), "DECIMAL(18,1)");
}

/// A filter over a CSV read runs inside the read, which converts the other columns
/// only for the rows that pass. Results must equal filtering the loaded table, over
/// many morsels and chunks, with rejected rows, NULLs and the filename column.
#[test]
fn filters_applied_while_reading_match_filtering_the_table() {
    let dir = TempDir::new("filters");
    let path = dir.file("f.csv");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(f, "id,name,amount,day,note").unwrap();
    let rows = 300_000;
    let mut rng = Rng(7);
    for i in 0..rows {
        let amount = match rng.next() % 50 {
            0 => String::new(),     // NULL
            1 => "n/a".to_string(), // rejected under ignore_errors
            k => format!("{k}.{:02}", i % 100),
        };
        writeln!(
            f,
            "{i},name{},{amount},2024-{:02}-{:02},\"note, {}\"",
            rng.next() % 1000,
            i % 12 + 1,
            i % 28 + 1,
            i % 7
        )
        .unwrap();
    }
    f.flush().unwrap();
    drop(f);
    let c = conn();
    let read = format!(
        "read_csv('{path}', types = {{'amount': 'DECIMAL(10,2)'}}, ignore_errors = true, filename = true)"
    );
    c.execute(&format!("CREATE TABLE t AS SELECT * FROM {read}"))
        .unwrap();
    let count = |sql: &str| text(&c, sql);
    let loaded: usize = count("SELECT count(*) FROM t").parse().unwrap();
    assert!(loaded < rows && loaded > rows * 9 / 10, "{loaded}");
    for pred in [
        "amount < 3",
        "amount IS NULL",
        "id % 1000 = 7 AND day >= DATE '2024-06-01'",
        "name = 'name42' OR id < 10",
        "note LIKE '%3'",
        "filename LIKE '%f.csv' AND id > 299990",
        "false",
        "id >= 0",
    ] {
        let expect = count(&format!(
            "SELECT count(*) || ' ' || coalesce(sum(id), 0) || ' ' || coalesce(sum(amount), 0) \
             || ' ' || coalesce(max(note), '') || ' ' || coalesce(max(filename), '') FROM t WHERE {pred}"
        ));
        for threads in [1, 2] {
            c.execute(&format!("SET threads = {threads}")).unwrap();
            let got = count(&format!(
                "SELECT count(*) || ' ' || coalesce(sum(id), 0) || ' ' || coalesce(sum(amount), 0) \
                 || ' ' || coalesce(max(note), '') || ' ' || coalesce(max(filename), '') FROM {read} WHERE {pred}"
            ));
            assert_eq!(got, expect, "{pred}, threads = {threads}");
        }
    }
    // Whole rows come back too, not only aggregates.
    let got = c
        .query(&format!(
            "SELECT * FROM {read} WHERE id % 50000 = 1 ORDER BY id"
        ))
        .unwrap()
        .collect_rows()
        .unwrap();
    let expect = c
        .query("SELECT * FROM t WHERE id % 50000 = 1 ORDER BY id")
        .unwrap()
        .collect_rows()
        .unwrap();
    assert_eq!(got, expect);
    assert!(!got.is_empty());

    // Rejected rows never reach the filter: the short row's 0 would divide by zero.
    let small = dir.file("small.csv");
    std::fs::write(&small, "a,b\n1,x\n0\n2,y\n5,z\n").unwrap();
    for threads in [1, 2] {
        c.execute(&format!("SET threads = {threads}")).unwrap();
        assert_eq!(
            text(
                &c,
                &format!(
                    "SELECT string_agg(b, '' ORDER BY b) FROM read_csv('{small}', ignore_errors = true) WHERE 10 // a > 1"
                )
            ),
            "xyz"
        );
    }
}
