//! What storage reports about itself: `PRAGMA storage_info('t')` (each segment of a
//! table: its rows, codec, zone map, place in the file and size) and
//! `PRAGMA integrity_check` (every stored segment read back: block checksums, the
//! codec's structure, the row count and the zone map against the values; every unique
//! key's index against the rows).

use crate::catalog::Catalog;
use crate::compression::{ALP, BITPACKED, DICTIONARY, FSST, PLAIN, RLE};
use crate::table::Table;
use crate::zone_map::{Bounds, ZoneMap};
use std::collections::HashSet;
use stride_common::{DataType, Result, ScalarValue};

/// One segment of a table, as `PRAGMA storage_info` lists it.
pub struct SegmentInfo {
    pub row_group: usize,
    pub column: usize,
    /// The row group's first row in the table.
    pub start: u64,
    pub count: u64,
    /// DuckDB's names: Uncompressed, BitPacking, Dictionary.
    pub compression: &'static str,
    /// The zone map, as DuckDB prints statistics.
    pub stats: String,
    /// Whether the segment is in the database file (else in memory only).
    pub persistent: bool,
    /// First block and offset in it, for a persistent segment.
    pub block: Option<(u64, u32)>,
    /// Bytes stored (persistent) or held in memory.
    pub size: u64,
}

fn codec_name(codec: u8) -> &'static str {
    match codec {
        PLAIN => "Uncompressed",
        BITPACKED => "BitPacking",
        DICTIONARY => "Dictionary",
        FSST => "FSST",
        RLE => "RLE",
        ALP => "ALP",
        _ => "Unknown",
    }
}

/// The segments of `table`, row group by row group, column by column.
pub fn storage_info(table: &Table) -> Result<Vec<SegmentInfo>> {
    let mut out = Vec::new();
    let mut start = 0u64;
    for (g, group) in table.snapshot().iter().enumerate() {
        for (c, col) in group.columns.iter().enumerate() {
            let zone = col.zone(group.len)?;
            let stats = stats_text(zone, &table.schema.columns[c].ty);
            let info = match col.encoded() {
                Some(s) => SegmentInfo {
                    row_group: g,
                    column: c,
                    start,
                    count: group.len as u64,
                    compression: codec_name(s.codec()?),
                    stats,
                    persistent: s.extent().is_some(),
                    block: s
                        .extent()
                        .and_then(|e| e.blocks.first().map(|&b| (b, e.offset))),
                    size: s.encoded_len() as u64,
                },
                None => {
                    let mut seen = HashSet::new();
                    let v = col.vector()?;
                    SegmentInfo {
                        row_group: g,
                        column: c,
                        start,
                        count: group.len as u64,
                        compression: "Uncompressed",
                        stats,
                        persistent: false,
                        block: None,
                        size: crate::size::columns_bytes(std::slice::from_ref(&v), &mut seen)
                            as u64,
                    }
                }
            };
            out.push(info);
        }
        start += group.len as u64;
    }
    Ok(out)
}

/// `[Min: 1, Max: 9][Has Null: false]`, the bounds shown as values of `ty`.
fn stats_text(zone: &ZoneMap, ty: &DataType) -> String {
    let int = |v: i128| -> String {
        let s = match ty {
            DataType::Boolean => ScalarValue::Boolean(v != 0),
            DataType::Date => ScalarValue::Date(v as i32),
            DataType::Timestamp => ScalarValue::Timestamp(v as i64),
            DataType::TimestampTz => ScalarValue::TimestampTz(v as i64),
            DataType::Time => ScalarValue::Time(v as i64),
            DataType::Uuid => ScalarValue::Uuid(stride_common::uuid::from_physical(v)),
            DataType::UHugeInt => ScalarValue::UHugeInt(stride_common::flip128::from_physical(v)),
            DataType::Decimal(p, s) => ScalarValue::Decimal(v, *p, *s),
            _ => return v.to_string(),
        };
        s.to_string()
    };
    let bounds = match &zone.bounds {
        Some(Bounds::Int(a, b)) => format!("[Min: {}, Max: {}]", int(*a), int(*b)),
        Some(Bounds::Float(a, b)) => format!("[Min: {a}, Max: {b}]"),
        Some(Bounds::Str(a, b)) => format!(
            "[Min: {}, Max: {}]",
            String::from_utf8_lossy(a),
            b.as_ref()
                .map_or("(longer than kept)".into(), |b| String::from_utf8_lossy(b))
        ),
        None => String::new(),
    };
    format!("{bounds}[Has Null: {}]", zone.nulls > 0)
}

/// Problems found reading back every stored segment of every table and every unique
/// key's index; empty when all is well.
pub fn integrity_check(catalog: &Catalog) -> Vec<String> {
    let mut problems = Vec::new();
    for table in catalog.tables() {
        let name = &table.schema.name;
        for (g, group) in table.snapshot().iter().enumerate() {
            for (c, col) in group.columns.iter().enumerate() {
                let column = &table.schema.columns[c].name;
                let Some(segment) = col.encoded() else {
                    continue;
                };
                let values = match segment.read_uncached() {
                    Ok(v) => v,
                    Err(e) => {
                        problems.push(format!(
                            "table \"{name}\", row group {g}, column \"{column}\": {}",
                            e.message
                        ));
                        continue;
                    }
                };
                match col.zone(group.len) {
                    Ok(stored) if !stored.holds(&values, group.len) => problems.push(
                        format!(
                            "table \"{name}\", row group {g}, column \"{column}\": the zone map does not match the values (stored {stored:?})"
                        ),
                    ),
                    Err(e) => problems.push(format!(
                        "table \"{name}\", row group {g}, column \"{column}\": {}",
                        e.message
                    )),
                    _ => {}
                }
            }
        }
        if let Err(e) = table.check_unique_keys() {
            problems.push(format!("table \"{name}\": {}", e.message));
        }
    }
    problems
}
