//! `CALL dbgen(sf = N)`: creates the eight TPC-H tables and fills them with the
//! `tpchgen` crate's rows. Each large table is cut into parts that worker threads
//! generate independently (the generator can start at any part); parts are appended
//! in order, so the tables hold exactly the reference generator's rows in its order.

use crate::fill::fill_tables;
use std::fmt::{Display, Write};
use stride_common::{
    ColumnSchema, DataChunk, DataType, Result, StringVector, TableSchema, Validity, Vector,
    VectorData, VECTOR_SIZE,
};
use stride_storage::Catalog;
use tpchgen::generators::{
    CustomerGenerator, LineItemGenerator, NationGenerator, OrderGenerator, PartGenerator,
    PartSuppGenerator, RegionGenerator, SupplierGenerator,
};

/// The TPC-H tables in the order dbgen creates them.
pub const TABLES: [&str; 8] = [
    "nation", "region", "part", "supplier", "partsupp", "customer", "orders", "lineitem",
];

/// Rows per generated part; small enough that every worker gets several parts.
const ROWS_PER_PART: f64 = 50_000.0;

const MONEY: DataType = DataType::Decimal(15, 2);

/// Creates and fills the TPC-H tables at scale factor `sf` using up to `threads`
/// threads, calling `after(false)` after each wave of rows appended and `after(true)`
/// once each table is filled ([`fill_tables`]). Fails without touching the catalog if
/// any table already exists; a failure later drops the tables created.
pub fn dbgen(
    catalog: &Catalog,
    sf: f64,
    threads: usize,
    after: &mut dyn FnMut(bool) -> Result<()>,
) -> Result<()> {
    fill_tables(
        "dbgen",
        "TPC-H",
        sf,
        threads,
        catalog,
        &TABLES,
        &schema,
        &|name| Ok(parts(name, sf)),
        &|name, part, count| Ok(generate_part(name, sf, part, count)),
        after,
    )
}

fn schema(table: &str) -> TableSchema {
    use DataType::{BigInt, Date, Integer, Varchar};
    let cols: &[(&str, DataType)] = match table {
        "nation" => &[
            ("n_nationkey", BigInt),
            ("n_name", Varchar),
            ("n_regionkey", BigInt),
            ("n_comment", Varchar),
        ],
        "region" => &[
            ("r_regionkey", BigInt),
            ("r_name", Varchar),
            ("r_comment", Varchar),
        ],
        "part" => &[
            ("p_partkey", BigInt),
            ("p_name", Varchar),
            ("p_mfgr", Varchar),
            ("p_brand", Varchar),
            ("p_type", Varchar),
            ("p_size", Integer),
            ("p_container", Varchar),
            ("p_retailprice", MONEY),
            ("p_comment", Varchar),
        ],
        "supplier" => &[
            ("s_suppkey", BigInt),
            ("s_name", Varchar),
            ("s_address", Varchar),
            ("s_nationkey", BigInt),
            ("s_phone", Varchar),
            ("s_acctbal", MONEY),
            ("s_comment", Varchar),
        ],
        "partsupp" => &[
            ("ps_partkey", BigInt),
            ("ps_suppkey", BigInt),
            ("ps_availqty", Integer),
            ("ps_supplycost", MONEY),
            ("ps_comment", Varchar),
        ],
        "customer" => &[
            ("c_custkey", BigInt),
            ("c_name", Varchar),
            ("c_address", Varchar),
            ("c_nationkey", BigInt),
            ("c_phone", Varchar),
            ("c_acctbal", MONEY),
            ("c_mktsegment", Varchar),
            ("c_comment", Varchar),
        ],
        "orders" => &[
            ("o_orderkey", BigInt),
            ("o_custkey", BigInt),
            ("o_orderstatus", Varchar),
            ("o_totalprice", MONEY),
            ("o_orderdate", Date),
            ("o_orderpriority", Varchar),
            ("o_clerk", Varchar),
            ("o_shippriority", Integer),
            ("o_comment", Varchar),
        ],
        "lineitem" => &[
            ("l_orderkey", BigInt),
            ("l_partkey", BigInt),
            ("l_suppkey", BigInt),
            ("l_linenumber", Integer),
            ("l_quantity", MONEY),
            ("l_extendedprice", MONEY),
            ("l_discount", MONEY),
            ("l_tax", MONEY),
            ("l_returnflag", Varchar),
            ("l_linestatus", Varchar),
            ("l_shipdate", Date),
            ("l_commitdate", Date),
            ("l_receiptdate", Date),
            ("l_shipinstruct", Varchar),
            ("l_shipmode", Varchar),
            ("l_comment", Varchar),
        ],
        other => unreachable!("not a TPC-H table: {other}"),
    };
    TableSchema {
        name: table.to_string(),
        columns: cols
            .iter()
            .map(|(name, ty)| ColumnSchema {
                not_null: true,
                ..ColumnSchema::new(*name, ty.clone())
            })
            .collect(),
        unique_keys: Vec::new(),
        primary_key: None,
        checks: Vec::new(),
    }
}

/// Rows of one table at scale factor 1, which sets how many parts to cut it into.
fn base_rows(table: &str) -> f64 {
    match table {
        "part" => 200_000.0,
        "supplier" => 10_000.0,
        "partsupp" => 800_000.0,
        "customer" => 150_000.0,
        // Line items are generated per order, so they follow the orders' parts.
        "orders" => 1_500_000.0,
        "lineitem" => 6_000_000.0,
        _ => 25.0,
    }
}

/// The parts a table is generated in: about [`ROWS_PER_PART`] rows each.
fn parts(table: &str, sf: f64) -> i32 {
    ((base_rows(table) * sf) / ROWS_PER_PART)
        .ceil()
        .clamp(1.0, 1024.0) as i32
}

/// One part (1-based, of `count`) of a table, as chunks in the schema's column order.
fn generate_part(table: &str, sf: f64, part: i32, count: i32) -> Vec<DataChunk> {
    let mut b = ChunkBuilder::new(&schema(table).types());
    match table {
        "nation" => {
            for r in NationGenerator::new(sf, part, count).iter() {
                b.i64(r.n_nationkey).str(r.n_name).i64(r.n_regionkey);
                b.str(r.n_comment).end_row();
            }
        }
        "region" => {
            for r in RegionGenerator::new(sf, part, count).iter() {
                b.i64(r.r_regionkey)
                    .str(r.r_name)
                    .str(r.r_comment)
                    .end_row();
            }
        }
        "part" => {
            for r in PartGenerator::new(sf, part, count).iter() {
                b.i64(r.p_partkey).display(&r.p_name).display(r.p_mfgr);
                b.display(r.p_brand).str(r.p_type).i32(r.p_size);
                b.str(r.p_container).i64(r.p_retailprice.into_inner());
                b.str(r.p_comment).end_row();
            }
        }
        "supplier" => {
            for r in SupplierGenerator::new(sf, part, count).iter() {
                b.i64(r.s_suppkey).display(r.s_name).display(&r.s_address);
                b.i64(r.s_nationkey).display(&r.s_phone);
                b.i64(r.s_acctbal.into_inner()).str(&r.s_comment).end_row();
            }
        }
        "partsupp" => {
            for r in PartSuppGenerator::new(sf, part, count).iter() {
                b.i64(r.ps_partkey).i64(r.ps_suppkey).i32(r.ps_availqty);
                b.i64(r.ps_supplycost.into_inner())
                    .str(r.ps_comment)
                    .end_row();
            }
        }
        "customer" => {
            for r in CustomerGenerator::new(sf, part, count).iter() {
                b.i64(r.c_custkey).display(r.c_name).display(&r.c_address);
                b.i64(r.c_nationkey).display(&r.c_phone);
                b.i64(r.c_acctbal.into_inner()).str(r.c_mktsegment);
                b.str(r.c_comment).end_row();
            }
        }
        "orders" => {
            for r in OrderGenerator::new(sf, part, count).iter() {
                b.i64(r.o_orderkey)
                    .i64(r.o_custkey)
                    .str(r.o_orderstatus.as_str());
                b.i64(r.o_totalprice.into_inner());
                b.i32(r.o_orderdate.to_unix_epoch()).str(r.o_orderpriority);
                b.display(r.o_clerk).i32(r.o_shippriority).str(r.o_comment);
                b.end_row();
            }
        }
        "lineitem" => {
            for r in LineItemGenerator::new(sf, part, count).iter() {
                b.i64(r.l_orderkey).i64(r.l_partkey).i64(r.l_suppkey);
                b.i32(r.l_linenumber).i64(r.l_quantity * 100);
                b.i64(r.l_extendedprice.into_inner());
                b.i64(r.l_discount.into_inner()).i64(r.l_tax.into_inner());
                b.str(r.l_returnflag).str(r.l_linestatus);
                b.i32(r.l_shipdate.to_unix_epoch());
                b.i32(r.l_commitdate.to_unix_epoch());
                b.i32(r.l_receiptdate.to_unix_epoch());
                b.str(r.l_shipinstruct).str(r.l_shipmode).str(r.l_comment);
                b.end_row();
            }
        }
        other => unreachable!("not a TPC-H table: {other}"),
    }
    b.finish()
}

/// Buffers for the columns of one chunk.
enum Column {
    I32(Vec<i32>),
    I64(Vec<i64>),
    Str(StringVector),
}

/// Builds chunks row by row: each row sets its columns in schema order, then
/// [`ChunkBuilder::end_row`] moves on, cutting a chunk every [`VECTOR_SIZE`] rows.
struct ChunkBuilder {
    types: Vec<DataType>,
    columns: Vec<Column>,
    /// Next column of the current row.
    at: usize,
    rows: usize,
    chunks: Vec<DataChunk>,
    scratch: String,
}

impl ChunkBuilder {
    fn new(types: &[DataType]) -> Self {
        let mut b = ChunkBuilder {
            types: types.to_vec(),
            columns: Vec::new(),
            at: 0,
            rows: 0,
            chunks: Vec::new(),
            scratch: String::new(),
        };
        b.columns = b.empty_columns();
        b
    }

    fn empty_columns(&self) -> Vec<Column> {
        self.types
            .iter()
            .map(|t| match t {
                DataType::Integer | DataType::Date => Column::I32(Vec::with_capacity(VECTOR_SIZE)),
                DataType::Varchar => Column::Str(StringVector::with_capacity(VECTOR_SIZE)),
                _ => Column::I64(Vec::with_capacity(VECTOR_SIZE)),
            })
            .collect()
    }

    fn i32(&mut self, v: i32) -> &mut Self {
        match &mut self.columns[self.at] {
            Column::I32(c) => c.push(v),
            _ => unreachable!("column {} is not 32-bit", self.at),
        }
        self.at += 1;
        self
    }

    fn i64(&mut self, v: i64) -> &mut Self {
        match &mut self.columns[self.at] {
            Column::I64(c) => c.push(v),
            _ => unreachable!("column {} is not 64-bit", self.at),
        }
        self.at += 1;
        self
    }

    fn str(&mut self, v: &str) -> &mut Self {
        match &mut self.columns[self.at] {
            Column::Str(c) => c.push(v),
            _ => unreachable!("column {} is not a string", self.at),
        }
        self.at += 1;
        self
    }

    fn display(&mut self, v: impl Display) -> &mut Self {
        let mut s = std::mem::take(&mut self.scratch);
        s.clear();
        write!(s, "{v}").expect("formatting into a String");
        self.str(&s);
        self.scratch = s;
        self
    }

    fn end_row(&mut self) {
        debug_assert_eq!(self.at, self.types.len(), "row sets every column");
        self.at = 0;
        self.rows += 1;
        if self.rows == VECTOR_SIZE {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.rows == 0 {
            return;
        }
        let fresh = self.empty_columns();
        let columns = std::mem::replace(&mut self.columns, fresh);
        let vectors = columns
            .into_iter()
            .zip(&self.types)
            .map(|(c, ty)| {
                let data = match c {
                    Column::I32(v) => VectorData::I32(v.into()),
                    Column::I64(v) => VectorData::I64(v.into()),
                    Column::Str(v) => VectorData::Str(v),
                };
                Vector::new(ty.clone(), data, Validity::all_valid())
            })
            .collect();
        self.chunks.push(DataChunk::new(vectors, self.rows));
        self.rows = 0;
    }

    fn finish(mut self) -> Vec<DataChunk> {
        self.flush();
        self.chunks
    }
}
