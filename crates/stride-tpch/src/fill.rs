//! What `CALL dbgen` and `CALL dsdgen` share: creating a benchmark's tables, filling
//! each from its generated rows, and dropping them again when anything fails.

use stride_common::{DataChunk, Error, Result, TableSchema, Vector};
use stride_storage::Catalog;

/// Rows of one table, as parts of about a row group each (flat columns and a count).
pub type Parts = Vec<(Vec<Vector>, usize)>;

/// Creates the tables `names` (schemas from `schema`) and fills each with
/// `generate`'s rows at scale factor `sf` (greater than 0, at most 1000), calling `after_table` once each is filled (a database file
/// checkpoints there, so the tables need not all be in memory at once). Fails
/// without touching the catalog if any table already exists; a failure later drops
/// the tables created. `procedure` and `benchmark` name the caller in errors.
pub fn fill_tables(
    procedure: &str,
    benchmark: &str,
    sf: f64,
    catalog: &Catalog,
    names: &[&str],
    schema: &dyn Fn(&str) -> TableSchema,
    generate: &dyn Fn(&str) -> Result<Parts>,
    after_table: &mut dyn FnMut() -> Result<()>,
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
            let parts = generate(name)?;
            let table = catalog.create_table(schema(name), false)?;
            created.push(name);
            table.append_parts(parts)?;
            after_table()?;
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
