//! The sqllogictest harness. `cargo test -p stride --test slt` runs every
//! `tests/slt/**/*.slt` file of the repository and, when the folder `../shared` beside
//! the repository exists, SQLite's `select1.test` … `select5.test` from it. Paths of
//! files or folders given on the command line (`cargo test -p stride --test slt --
//! path...`) are run instead.
//!
//! Files ending in `.test` follow SQLite's conventions: one value per result line,
//! values formatted by the declared column type (`I` integer, `R` three decimals, `T`
//! text, `(empty)` for empty strings), hash-threshold 8, and `skipif`/`onlyif` with
//! stride answering to `postgresql`. `.slt` files compare rows with values printed as
//! stride prints them.
//!
//! Files run with the repository root as the working directory, so they name data
//! files as `tests/data/...`.

use sqllogictest::{DBOutput, DefaultColumnType, QueryExpect, Record, Runner};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use stride::{DataType, ScalarValue};

type Hint = Arc<Mutex<Option<Vec<DefaultColumnType>>>>;

#[derive(Debug)]
struct SltError(String);

impl std::fmt::Display for SltError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SltError {}

struct StrideDb {
    conn: stride::Connection,
    hint: Hint,
    sqlite: bool,
}

fn column_type(t: &DataType) -> DefaultColumnType {
    if t.is_integer() {
        DefaultColumnType::Integer
    } else if t.is_numeric() {
        DefaultColumnType::FloatingPoint
    } else {
        DefaultColumnType::Text
    }
}

/// Leading numeric prefix of a string, as SQLite converts text to numbers.
fn numeric_prefix(s: &str) -> f64 {
    let s = s.trim_start();
    let mut end = 0;
    for (i, c) in s.char_indices() {
        let ok = c.is_ascii_digit()
            || (i == 0 && (c == '-' || c == '+'))
            || c == '.'
            || c == 'e'
            || c == 'E';
        if !ok {
            break;
        }
        end = i + c.len_utf8();
    }
    (0..=end)
        .rev()
        .find_map(|e| s[..e].parse::<f64>().ok())
        .unwrap_or(0.0)
}

fn as_f64(v: &ScalarValue) -> f64 {
    match v {
        ScalarValue::Varchar(s) => numeric_prefix(s),
        ScalarValue::Boolean(b) => *b as i64 as f64,
        other => other.as_f64().unwrap_or(0.0),
    }
}

/// A value as SQLite's sqllogictest prints it for the declared type.
fn sqlite_format(v: &ScalarValue, t: &DefaultColumnType) -> String {
    if v.is_null() {
        return "NULL".into();
    }
    let s = match t {
        DefaultColumnType::Integer => match v {
            ScalarValue::Varchar(s) => (numeric_prefix(s) as i64).to_string(),
            other => match other.as_i64() {
                Some(i) => i.to_string(),
                None => (as_f64(other).trunc() as i64).to_string(),
            },
        },
        DefaultColumnType::FloatingPoint => format!("{:.3}", as_f64(v)),
        _ => v.to_string(),
    };
    printable(s)
}

fn printable(s: String) -> String {
    if s.is_empty() {
        return "(empty)".into();
    }
    if s.bytes().all(|b| (0x20..=0x7e).contains(&b)) {
        s
    } else {
        s.chars()
            .map(|c| if (' '..='~').contains(&c) { c } else { '@' })
            .collect()
    }
}

fn slt_format(v: &ScalarValue) -> String {
    if v.is_null() {
        "NULL".into()
    } else {
        let s = v.to_string();
        if s.is_empty() {
            "(empty)".into()
        } else {
            s
        }
    }
}

impl sqllogictest::DB for StrideDb {
    type Error = SltError;
    type ColumnType = DefaultColumnType;

    fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, SltError> {
        let result = self
            .conn
            .execute(sql)
            .map_err(|e| SltError(e.to_string()))?;
        if !result.is_query() {
            return Ok(DBOutput::StatementComplete(result.changes.unwrap_or(0)));
        }
        let types: Vec<DefaultColumnType> = result.types.iter().map(column_type).collect();
        let declared = self.hint.lock().ok().and_then(|h| h.clone());
        let rows = result.collect_rows().map_err(|e| SltError(e.to_string()))?;
        let formatted = rows
            .iter()
            .map(|row| {
                row.iter()
                    .enumerate()
                    .map(|(i, v)| match (&declared, self.sqlite) {
                        (Some(d), true) => {
                            sqlite_format(v, d.get(i).unwrap_or(&DefaultColumnType::Text))
                        }
                        _ => slt_format(v),
                    })
                    .collect()
            })
            .collect();
        Ok(DBOutput::Rows {
            types,
            rows: formatted,
        })
    }
}

/// Removes `# comments` after skipif/onlyif and applies conditional `halt`s, keeping
/// line numbers stable.
fn preprocess(src: &str, labels: &[&str]) -> String {
    let lines: Vec<&str> = src.lines().collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let mut j = i;
        let mut conds: Vec<(String, String)> = Vec::new();
        while j < lines.len() {
            let t: Vec<&str> = lines[j].split_whitespace().collect();
            match t.as_slice() {
                [kw @ ("skipif" | "onlyif"), label, ..] => {
                    conds.push((kw.to_string(), label.to_string()));
                    j += 1;
                }
                _ => break,
            }
        }
        if conds.is_empty() {
            out.push(lines[i].to_string());
            i += 1;
            continue;
        }
        if j < lines.len() && lines[j].trim() == "halt" {
            let skip = conds
                .iter()
                .any(|(kw, l)| labels.contains(&l.as_str()) == (kw == "skipif"));
            if !skip {
                break;
            }
            out.extend((i..=j).map(|_| "#".to_string()));
            i = j + 1;
            continue;
        }
        out.extend(conds.iter().map(|(kw, l)| format!("{kw} {l}")));
        i = j;
    }
    out.join("\n") + "\n"
}

const LABELS: &[&str] = &["postgresql", "stride"];

/// Runs one file; returns its failures as text.
fn run_file(path: &Path) -> Vec<String> {
    let sqlite = path.extension().is_some_and(|e| e == "test");
    let src = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => return vec![format!("{}: cannot read: {e}", path.display())],
    };
    let script = preprocess(&src, LABELS);
    let hint: Hint = Arc::new(Mutex::new(None));
    let h = hint.clone();
    let mut runner = Runner::new(move || {
        let h = h.clone();
        async move {
            let conn = stride::Database::open_in_memory()
                .and_then(|db| db.connect())
                .map_err(|e| SltError(e.to_string()))?;
            Ok(StrideDb {
                conn,
                hint: h,
                sqlite,
            })
        }
    });
    for l in LABELS {
        runner.add_label(l);
    }
    if sqlite {
        runner.with_hash_threshold(8);
        runner.with_column_validator(|a: &Vec<DefaultColumnType>, e: &Vec<DefaultColumnType>| {
            a.len() == e.len()
        });
        if let Err(e) = runner.run_script("control resultmode valuewise\n") {
            return vec![e.to_string()];
        }
    }
    let records = match sqllogictest::parse_with_name::<DefaultColumnType>(
        &script,
        path.display().to_string(),
    ) {
        Ok(r) => r,
        Err(e) => return vec![format!("{}: parse error: {e}", path.display())],
    };
    let mut failures = Vec::new();
    for record in records {
        if let Record::Halt { .. } = record {
            break;
        }
        if let Ok(mut h) = hint.lock() {
            *h = match &record {
                Record::Query {
                    expected: QueryExpect::Results { types, .. },
                    ..
                } => Some(types.clone()),
                _ => None,
            };
        }
        if let Err(e) = runner.run(record) {
            failures.push(e.display(false).to_string());
        }
    }
    runner.shutdown();
    failures
}

fn collect_files(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for e in entries {
            collect_files(&e, out);
        }
    } else if p.extension().is_some_and(|e| e == "slt" || e == "test") {
        out.push(p.to_path_buf());
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mut files = Vec::new();
    if args.is_empty() {
        collect_files(&root.join("tests/slt"), &mut files);
        let shared = root.join("../shared/sqllogictest/sqlite");
        if shared.is_dir() {
            for i in 1..=5 {
                files.push(shared.join(format!("select{i}.test")));
            }
        } else {
            println!("note: {} not found; skipping SQLite's select1-5.test (they live outside the repository)", shared.display());
        }
    } else {
        for a in &args {
            // cargo runs tests from the crate folder; accept paths relative to the
            // workspace root too.
            let p = Path::new(a);
            let p = if p.exists() {
                p.to_path_buf()
            } else {
                root.join(p)
            };
            collect_files(&p, &mut files);
        }
    }
    // Tests name data files relative to the repository root (tests/data/...).
    let files: Vec<PathBuf> = files
        .into_iter()
        .map(|f| f.canonicalize().unwrap_or(f))
        .collect();
    if let Ok(r) = root.canonicalize() {
        let _ = std::env::set_current_dir(r);
    }
    let mut failed_files = 0;
    let mut total_failures = 0;
    for f in &files {
        let start = std::time::Instant::now();
        let failures = run_file(f);
        let secs = start.elapsed().as_secs_f64();
        if failures.is_empty() {
            println!("ok     {} ({secs:.2}s)", f.display());
        } else {
            failed_files += 1;
            total_failures += failures.len();
            println!(
                "FAILED {} ({} failures, {secs:.2}s)",
                f.display(),
                failures.len()
            );
            for msg in failures.iter().take(20) {
                println!("{msg}");
            }
        }
    }
    println!(
        "\n{} files, {} failed, {} failing records",
        files.len(),
        failed_files,
        total_failures
    );
    if failed_files > 0 {
        std::process::exit(1);
    }
}
