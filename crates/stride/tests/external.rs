//! Registered relations read when a query runs (`RegisteredRows::External`, the
//! embedded API's side of pyarrow Datasets and polars LazyFrames): the source is
//! asked for the columns the query reads and for the conditions it accepts, the
//! filter still runs on what it returns, and a failing source fails the query.

use std::sync::{Arc, Mutex};
use stride::{
    CompareOp, DataChunk, DataType, Database, Error, ExternalSource, RegisteredRelation,
    RegisteredRows, Result, ScalarValue, SourceFilter, SourceTest, Vector,
};

/// 1,000 rows: `a` = 0..999 (BIGINT), `b` = 'x' or 'y' (VARCHAR), `c` = a / 10.0
/// (DOUBLE). It accepts comparisons on `a` only; it applies those it is given only
/// when `exact` (otherwise it returns every row, as a source may), and records
/// what each read was asked for.
struct Numbers {
    exact: bool,
    fail: bool,
    reads: Mutex<Vec<(Vec<usize>, Vec<SourceFilter>)>>,
}

impl Numbers {
    fn new(exact: bool) -> Arc<Numbers> {
        Arc::new(Numbers {
            exact,
            fail: false,
            reads: Mutex::new(Vec::new()),
        })
    }

    fn keeps(&self, a: i64, filters: &[SourceFilter]) -> bool {
        !self.exact
            || filters.iter().all(|f| match &f.test {
                SourceTest::Compare(op, ScalarValue::BigInt(v)) => match op {
                    CompareOp::Eq => a == *v,
                    CompareOp::NotEq => a != *v,
                    CompareOp::Lt => a < *v,
                    CompareOp::LtEq => a <= *v,
                    CompareOp::Gt => a > *v,
                    CompareOp::GtEq => a >= *v,
                },
                other => panic!("a condition it does not accept: {other:?}"),
            })
    }
}

impl ExternalSource for Numbers {
    fn kind(&self) -> String {
        "numbers".into()
    }

    fn estimated_rows(&self) -> Option<usize> {
        Some(1000)
    }

    fn accepts(&self, filter: &SourceFilter) -> bool {
        filter.column == 0 && matches!(filter.test, SourceTest::Compare(_, ScalarValue::BigInt(_)))
    }

    fn read(&self, columns: &[usize], filters: &[SourceFilter]) -> Result<Vec<DataChunk>> {
        self.reads
            .lock()
            .unwrap()
            .push((columns.to_vec(), filters.to_vec()));
        if self.fail {
            return Err(Error::invalid_input("the numbers are gone"));
        }
        let kept: Vec<i64> = (0..1000).filter(|&a| self.keeps(a, filters)).collect();
        let vectors = columns
            .iter()
            .map(|&c| match c {
                0 => Vector::from_values(DataType::BigInt, kept.clone()),
                1 => {
                    let mut v = Vector::with_capacity(&DataType::Varchar, kept.len());
                    for a in &kept {
                        let s = if a % 2 == 0 { "x" } else { "y" };
                        v.push(&ScalarValue::Varchar(s.into())).unwrap();
                    }
                    v
                }
                _ => Vector::from_values(
                    DataType::Double,
                    kept.iter().map(|&a| a as f64 / 10.0).collect(),
                ),
            })
            .collect();
        Ok(vec![DataChunk::new(vectors, kept.len())])
    }
}

fn relation(source: Arc<Numbers>) -> RegisteredRelation {
    RegisteredRelation {
        names: vec!["a".into(), "b".into(), "c".into()],
        types: vec![DataType::BigInt, DataType::Varchar, DataType::Double],
        rows: RegisteredRows::External(source),
    }
}

fn one(c: &stride::Connection, sql: &str) -> Vec<String> {
    let row = c
        .query(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .rows()
        .next()
        .unwrap()
        .unwrap();
    row.iter().map(|v| v.to_string()).collect()
}

#[test]
fn columns_and_accepted_conditions_reach_the_source() {
    let db = Database::open_in_memory().unwrap();
    let c = db.connect().unwrap();
    for exact in [true, false] {
        let source = Numbers::new(exact);
        c.register("numbers", relation(source.clone())).unwrap();
        // `b = 'x'` and `c > 1` are not accepted; the filter above applies them, and
        // applies `a`'s conditions too when the source returns every row.
        let sql =
            "SELECT count(*), sum(a) FROM numbers WHERE a >= 100 AND 200 > a AND b = 'x' AND c > 1";
        assert_eq!(one(&c, sql), ["50", "7450"], "exact: {exact}");
        let reads = source.reads.lock().unwrap().clone();
        assert_eq!(reads.len(), 1);
        let (columns, filters) = &reads[0];
        assert_eq!(columns, &[0, 1, 2]);
        assert_eq!(
            filters,
            &[
                SourceFilter {
                    column: 0,
                    test: SourceTest::Compare(CompareOp::GtEq, ScalarValue::BigInt(100)),
                },
                SourceFilter {
                    column: 0,
                    test: SourceTest::Compare(CompareOp::Lt, ScalarValue::BigInt(200)),
                },
            ]
        );
    }

    // Only the columns a query reads (count(*) reads at most one).
    let source = Numbers::new(true);
    c.register("numbers", relation(source.clone())).unwrap();
    assert_eq!(one(&c, "SELECT sum(c) FROM numbers"), ["49950.0"]);
    assert_eq!(one(&c, "SELECT count(*) FROM numbers"), ["1000"]);
    let reads = source.reads.lock().unwrap().clone();
    assert_eq!(reads[0], (vec![2], vec![]));
    assert!(
        reads[1].0.len() <= 1 && reads[1].1.is_empty(),
        "{:?}",
        reads[1]
    );

    // EXPLAIN ANALYZE names the source and what it was given.
    let plan: Vec<String> = c
        .query("EXPLAIN ANALYZE SELECT count(*) FROM numbers WHERE a = 7")
        .unwrap()
        .rows()
        .map(|r| r.unwrap()[0].to_string())
        .collect();
    let plan = plan.join("\n");
    assert!(
        plan.contains("REGISTERED_SCAN numbers [a] filters: a = 7"),
        "{plan}"
    );
}

#[test]
fn a_failing_source_fails_the_query() {
    let db = Database::open_in_memory().unwrap();
    let c = db.connect().unwrap();
    let source = Arc::new(Numbers {
        exact: true,
        fail: true,
        reads: Mutex::new(Vec::new()),
    });
    c.register("numbers", relation(source)).unwrap();
    let e = c
        .query("SELECT count(*) FROM numbers")
        .and_then(|r| r.rows().collect::<Result<Vec<_>>>())
        .unwrap_err();
    assert!(e.to_string().contains("the numbers are gone"), "{e}");
    assert_eq!(one(&c, "SELECT 42"), ["42"]);
}
