//! CSV: `read_csv` and `COPY … FROM` read through [`CsvReader`]; `COPY … TO` writes
//! through [`writer`]. In a query's life the binder calls [`CsvReader::bind`] (which
//! opens the files and runs the [`sniffer`]), the executor calls [`CsvReader::plan`]
//! once and [`CsvReader::produce`] for each morsel on the worker threads.

pub mod learned;
pub mod options;
pub mod pg_text;
pub mod reader;
pub mod sniffer;
pub mod tokenizer;
pub mod values;
pub mod writer;

pub use options::{CsvOptions, Dialect};
pub use reader::{CsvReader, Morsel, RowFilter};
pub use writer::CsvWriteOptions;
