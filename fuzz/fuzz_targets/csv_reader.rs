//! Feeds arbitrary bytes to the CSV reader: sniffing, planning morsels of a few bytes
//! (so cuts fall everywhere) and reading every column, with and without a filter,
//! must end in rows or an error, never a panic. Run with `cargo +nightly fuzz run
//! csv_reader` from this folder; replay what it finds with `STRIDE_CSV_CORPUS=fuzz/artifacts/csv_reader cargo test
//! -p stride --test integration csv::`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::Arc;
use stride_common::SelectionVector;
use stride_io::csv::{CsvOptions, CsvReader, RowFilter};
use stride_io::file::FileData;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, body)) = data.split_first() else {
        return;
    };
    let options = CsvOptions {
        ignore_errors: flags & 1 != 0,
        null_padding: flags & 2 != 0,
        all_varchar: flags & 4 != 0,
        escape: (flags & 8 != 0).then_some(Some(b'\\')),
        max_line_size: (flags & 16 != 0).then_some(64),
        ..Default::default()
    };
    let file = Arc::new(FileData::from_bytes("fuzz.csv", body.to_vec()));
    let Ok(mut reader) = CsvReader::from_files(vec![file], options) else {
        return;
    };
    reader.morsel_bytes = 1 + (flags as usize >> 5) * 7;
    let columns: Vec<usize> = (0..reader.schema().len()).collect();
    let Ok(morsels) = reader.plan(2) else {
        return;
    };
    // Every column, then again with a filter (on the first column) that keeps
    // every third row, so the other columns are read for a subset of the records.
    let every_third = |chunk: &stride_common::DataChunk| {
        Ok(SelectionVector::new((0..chunk.len() as u32).step_by(3).collect()))
    };
    let reads: Vec<bool> = (0..columns.len()).map(|i| i == 0).collect();
    let filter = RowFilter {
        reads: &reads,
        select: &every_third,
    };
    for m in &morsels {
        let _ = reader.produce(m, &columns, None, &mut |_| Ok(()));
        let _ = reader.produce(m, &columns, Some(&filter), &mut |_| Ok(()));
    }
});
