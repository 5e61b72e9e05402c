//! What `CALL dbgen` and `CALL dsdgen` share: creating a benchmark's tables, filling
//! each from its generated rows, and dropping them again when anything fails.

use stride_common::{workers, DataChunk, Error, Result, TableSchema, Vector};
use stride_storage::Catalog;

/// Rows of one table, as parts of about a row group each (flat columns and a count).
pub type Parts = Vec<(Vec<Vector>, usize)>;

/// Parts generated (on all threads) and appended at a time: the rows of a large
/// table reach it in waves of about 3M rows rather than all at once, so that the
/// caller can compress or write what came so far (`after`).
const WAVE_PARTS: usize = 64;

/// Creates the tables `names` (schemas from `schema`) and fills each at scale factor
/// `sf` (greater than 0, at most 1000) from its rows generated in `parts(name)` parts,
/// `part(name, i, count)` making part `i` (1-based) on one of `threads` threads. Calls
/// `after(false)` after each wave of parts appended and `after(true)` once a table
/// is filled: an in-memory database compresses large tables there, a database file
/// checkpoints once each table is filled, so the tables need not all be in memory
/// at once. Fails without touching the catalog if any table already exists; a
/// failure later drops the tables created. `procedure` and `benchmark` name the
/// caller in errors.
#[allow(clippy::too_many_arguments)]
pub fn fill_tables(
    procedure: &str,
    benchmark: &str,
    sf: f64,
    threads: usize,
    catalog: &Catalog,
    names: &[&str],
    schema: &dyn Fn(&str) -> TableSchema,
    parts: &dyn Fn(&str) -> Result<i32>,
    part: &(dyn Fn(&str, i32, i32) -> Result<Vec<DataChunk>> + Sync),
    after: &mut dyn FnMut(bool) -> Result<()>,
) -> Result<()> {
    if !(sf > 0.0 && sf <= 1000.0) {
        return Err(Error::invalid_input(format!(
            "{procedure}: scale factor {sf} is out of range; use a value greater than 0 and at most 1000"
        )));
    }
    if let Some(t) = names.iter().find(|t| catalog.table(t).is_some()) {
        return Err(Error::catalog(format!(
            "{procedure}: table \"{t}\" already exists; drop the {benchmark} tables first"
        )));
    }
    let mut created = Vec::new();
    let result = (|| {
        for &name in names {
            let count = parts(name)?;
            let numbers: Vec<i32> = (1..=count).collect();
            let table = catalog.create_table(schema(name), false)?;
            created.push(name);
            for wave in numbers.chunks(WAVE_PARTS) {
                let done = workers::map(wave, threads.max(1), |&i| part(name, i, count))?;
                let mut chunks = Vec::new();
                for p in done {
                    chunks.extend(p?);
                }
                table.append_parts(row_groups(chunks))?;
                after(false)?;
            }
            after(true)?;
        }
        Ok(())
    })();
    if result.is_err() {
        for name in created {
            let _ = catalog.drop_table(name);
        }
    }
    result
}

/// `chunks` gathered into parts of a row group's rows, each chunk dropped once copied,
/// so the rows are in memory about once, not twice.
pub fn row_groups(chunks: Vec<DataChunk>) -> Parts {
    let mut out: Parts = Vec::new();
    for chunk in chunks {
        let (cols, n) = chunk.into_flat_columns();
        match out.last_mut() {
            Some((acc, len)) if *len + n <= stride_common::MORSEL_SIZE => {
                for (a, c) in acc.iter_mut().zip(&cols) {
                    a.append(c, n);
                }
                *len += n;
            }
            _ => out.push((cols, n)),
        }
    }
    out
}
