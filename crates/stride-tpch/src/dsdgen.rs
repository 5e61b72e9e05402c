//! `CALL dsdgen(sf = N)`: creates the 24 TPC-DS tables and fills them with the
//! `tpcdsgen` crate's rows. The column types are the generator's own (its Arrow
//! schema, kept in `tpcds/schema.txt`). Each table is cut into the generator's chunks,
//! which worker threads generate independently; a chunk's rows are formatted by the
//! crate's CSV writer and read back by stride's CSV reader with the table's types, so
//! the tables hold exactly what `tpcgen-cli tpcds csv` writes, in its order.

use crate::fill::fill_tables;
use std::fmt::Write;
use std::sync::Arc;
use stride_common::{ColumnSchema, DataChunk, DataType, Error, Result, TableSchema};
use stride_io::csv::{CsvOptions, CsvReader};
use stride_io::file::FileData;
use stride_storage::Catalog;
use tpcdsgen::config::{SessionBuilder, Table};
use tpcdsgen::csv::*;
use tpcdsgen::row::*;

/// Each table's columns and types, one line per table in creation order.
const SCHEMA: &str = include_str!("../tpcds/schema.txt");

/// Source rows (tickets for the sales tables) per generated part.
const ROWS_PER_PART: u64 = 20_000;

/// The TPC-DS table names in the order dsdgen creates them.
pub fn tables() -> Vec<&'static str> {
    schema_lines().map(|(name, _)| name).collect()
}

/// Creates and fills the TPC-DS tables at scale factor `sf` using up to `threads`
/// threads, calling `after(false)` after each wave of rows appended and `after(true)`
/// once each table is filled (`fill::fill_tables`). Fails without touching the
/// catalog if any table already exists; a failure later drops the tables created.
pub fn dsdgen(
    catalog: &Catalog,
    sf: f64,
    threads: usize,
    after: &mut dyn FnMut(bool) -> Result<()>,
) -> Result<()> {
    let names = tables();
    fill_tables(
        "dsdgen",
        "TPC-DS",
        sf,
        threads,
        catalog,
        &names,
        &schema,
        &|name| parts(name, sf),
        &|name, part, count| generate_part(table_of(name), &schema(name), sf, part, count),
        after,
    )
}

fn schema_lines() -> impl Iterator<Item = (&'static str, &'static str)> {
    SCHEMA
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once(": "))
}

/// The schema of `table` as the generator types it. Columns are nullable: the
/// generator leaves some values of nearly every column NULL.
fn schema(table: &str) -> TableSchema {
    let (_, cols) = schema_lines()
        .find(|(n, _)| *n == table)
        .expect("a TPC-DS table");
    TableSchema {
        name: table.to_string(),
        columns: split_columns(cols)
            .map(|c| {
                let (name, ty) = c.split_once(' ').expect("column and type");
                ColumnSchema::new(name, parse_type(ty))
            })
            .collect(),
        unique_keys: Vec::new(),
        primary_key: None,
        checks: Vec::new(),
    }
}

/// `a INTEGER, b DECIMAL(7,2)` split at the commas outside parentheses.
fn split_columns(cols: &str) -> impl Iterator<Item = &str> {
    let mut depth = 0;
    cols.split(move |c| {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        c == ',' && depth == 0
    })
    .map(str::trim)
}

fn parse_type(ty: &str) -> DataType {
    match ty {
        "INTEGER" => DataType::Integer,
        "BIGINT" => DataType::BigInt,
        "VARCHAR" => DataType::Varchar,
        "DATE" => DataType::Date,
        _ => {
            let inner = ty
                .strip_prefix("DECIMAL(")
                .and_then(|t| t.strip_suffix(')'))
                .and_then(|t| t.split_once(','))
                .unwrap_or_else(|| panic!("schema.txt: unknown type {ty}"));
            DataType::Decimal(inner.0.parse().unwrap(), inner.1.parse().unwrap())
        }
    }
}

fn table_of(name: &str) -> Table {
    *Table::values()
        .iter()
        .find(|t| t.get_name() == name)
        .expect("a TPC-DS table")
}

/// The table whose source rows drive `table`: returns replay their sales.
fn source_table(table: Table) -> Table {
    match table {
        Table::StoreReturns => Table::StoreSales,
        Table::CatalogReturns => Table::CatalogSales,
        Table::WebReturns => Table::WebSales,
        t => t,
    }
}

/// The parts `name` is generated in: about `ROWS_PER_PART` rows each.
fn parts(name: &str, sf: f64) -> Result<i32> {
    let session = SessionBuilder::new()
        .with_scale_factor(sf)
        .build()
        .map_err(|e| Error::invalid_input(format!("dsdgen: {e}")))?;
    let rows = session
        .get_scaling()
        .get_row_count(source_table(table_of(name)));
    Ok(rows.div_ceil(ROWS_PER_PART).clamp(1, 1024) as i32)
}

/// Part `part` (1-based, of `count`) of `table`, as chunks of `schema`.
fn generate_part(
    table: Table,
    schema: &TableSchema,
    sf: f64,
    part: i32,
    count: i32,
) -> Result<Vec<DataChunk>> {
    let session = SessionBuilder::new()
        .with_scale_factor(sf)
        .with_chunk_number(part)
        .with_total_chunks(count)
        .build()
        .map_err(|e| Error::invalid_input(format!("dsdgen: {e}")))?;
    let range = session.get_source_row_range(source_table(table));
    if range.is_empty() {
        return Ok(Vec::new());
    }
    let (first, last) = (*range.start(), *range.end());
    let mut text = String::new();
    macro_rules! rows {
        ($generator:ident, $csv:ident) => {{
            let mut g = $generator::new(session, last);
            g.skip_rows_until_starting_row_number(first);
            for row in g {
                writeln!(text, "{}", $csv::new(&row)).expect("formatting into a String");
            }
        }};
    }
    match table {
        Table::CallCenter => rows!(CallCenterRowGenerator, CallCenterCsv),
        Table::CatalogPage => rows!(CatalogPageRowGenerator, CatalogPageCsv),
        Table::CatalogReturns => rows!(CatalogReturnsRowGenerator, CatalogReturnsCsv),
        Table::CatalogSales => rows!(CatalogSalesRowGenerator, CatalogSalesCsv),
        Table::Customer => rows!(CustomerRowGenerator, CustomerCsv),
        Table::CustomerAddress => rows!(CustomerAddressRowGenerator, CustomerAddressCsv),
        Table::CustomerDemographics => {
            rows!(CustomerDemographicsRowGenerator, CustomerDemographicsCsv)
        }
        Table::DateDim => rows!(DateDimRowGenerator, DateDimCsv),
        Table::HouseholdDemographics => {
            rows!(HouseholdDemographicsRowGenerator, HouseholdDemographicsCsv)
        }
        Table::IncomeBand => rows!(IncomeBandRowGenerator, IncomeBandCsv),
        Table::Inventory => rows!(InventoryRowGenerator, InventoryCsv),
        Table::Item => rows!(ItemRowGenerator, ItemCsv),
        Table::Promotion => rows!(PromotionRowGenerator, PromotionCsv),
        Table::Reason => rows!(ReasonRowGenerator, ReasonCsv),
        Table::ShipMode => rows!(ShipModeRowGenerator, ShipModeCsv),
        Table::Store => rows!(StoreRowGenerator, StoreCsv),
        Table::StoreReturns => rows!(StoreReturnsRowGenerator, StoreReturnsCsv),
        Table::StoreSales => rows!(StoreSalesRowGenerator, StoreSalesCsv),
        Table::TimeDim => rows!(TimeDimRowGenerator, TimeDimCsv),
        Table::Warehouse => rows!(WarehouseRowGenerator, WarehouseCsv),
        Table::WebPage => rows!(WebPageRowGenerator, WebPageCsv),
        Table::WebReturns => rows!(WebReturnsRowGenerator, WebReturnsCsv),
        Table::WebSales => rows!(WebSalesRowGenerator, WebSalesCsv),
        Table::WebSite => rows!(WebSiteRowGenerator, WebSiteCsv),
        Table::DbgenVersion => rows!(DbgenVersionRowGenerator, DbgenVersionCsv),
    }
    read_csv(table.get_name(), text.into_bytes(), schema)
}

/// Rows in the generator's CSV form read as chunks of `schema`.
fn read_csv(name: &str, bytes: Vec<u8>, schema: &TableSchema) -> Result<Vec<DataChunk>> {
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    let options = CsvOptions {
        delimiter: Some(b','),
        quote: Some(Some(b'"')),
        escape: Some(Some(b'"')),
        header: Some(false),
        new_line: Some(b'\n'),
        columns: Some(
            schema
                .columns
                .iter()
                .map(|c| (c.name.clone(), c.ty.clone()))
                .collect(),
        ),
        ..CsvOptions::default()
    };
    let file = Arc::new(FileData::from_bytes(format!("dsdgen {name}"), bytes));
    let reader = CsvReader::from_files(vec![file], options)?;
    let columns: Vec<usize> = (0..schema.columns.len()).collect();
    let mut chunks = Vec::new();
    for morsel in reader.plan(1)? {
        reader.produce(&morsel, &columns, None, &mut |c| {
            chunks.push(c);
            Ok(())
        })?;
    }
    Ok(chunks)
}

#[cfg(test)]
mod tests {
    #[test]
    fn schema_covers_24_tables_with_known_types() {
        let names = super::tables();
        assert_eq!(names.len(), 24);
        for n in names {
            let s = super::schema(n);
            assert!(!s.columns.is_empty(), "{n}");
        }
        assert_eq!(
            super::schema("store_sales").columns[11].ty,
            stride_common::DataType::Decimal(7, 2)
        );
    }
}
