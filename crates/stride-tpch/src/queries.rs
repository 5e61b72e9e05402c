//! The 22 TPC-H queries with the specification's validation parameters, and the 99
//! TPC-DS queries with fixed substitution parameters (DuckDB's variants), as text.

/// Number of TPC-H queries.
pub const QUERY_COUNT: usize = 22;

const QUERIES: [&str; QUERY_COUNT] = [
    include_str!("../queries/q01.sql"),
    include_str!("../queries/q02.sql"),
    include_str!("../queries/q03.sql"),
    include_str!("../queries/q04.sql"),
    include_str!("../queries/q05.sql"),
    include_str!("../queries/q06.sql"),
    include_str!("../queries/q07.sql"),
    include_str!("../queries/q08.sql"),
    include_str!("../queries/q09.sql"),
    include_str!("../queries/q10.sql"),
    include_str!("../queries/q11.sql"),
    include_str!("../queries/q12.sql"),
    include_str!("../queries/q13.sql"),
    include_str!("../queries/q14.sql"),
    include_str!("../queries/q15.sql"),
    include_str!("../queries/q16.sql"),
    include_str!("../queries/q17.sql"),
    include_str!("../queries/q18.sql"),
    include_str!("../queries/q19.sql"),
    include_str!("../queries/q20.sql"),
    include_str!("../queries/q21.sql"),
    include_str!("../queries/q22.sql"),
];

/// The text of query `number` (1 to 22), or `None` for any other number.
pub fn query(number: i64) -> Option<&'static str> {
    let i = usize::try_from(number).ok()?.checked_sub(1)?;
    QUERIES.get(i).copied()
}

/// Number of TPC-DS queries.
pub const TPCDS_QUERY_COUNT: usize = 99;

const TPCDS_QUERIES: [&str; TPCDS_QUERY_COUNT] = [
    include_str!("../tpcds/q01.sql"),
    include_str!("../tpcds/q02.sql"),
    include_str!("../tpcds/q03.sql"),
    include_str!("../tpcds/q04.sql"),
    include_str!("../tpcds/q05.sql"),
    include_str!("../tpcds/q06.sql"),
    include_str!("../tpcds/q07.sql"),
    include_str!("../tpcds/q08.sql"),
    include_str!("../tpcds/q09.sql"),
    include_str!("../tpcds/q10.sql"),
    include_str!("../tpcds/q11.sql"),
    include_str!("../tpcds/q12.sql"),
    include_str!("../tpcds/q13.sql"),
    include_str!("../tpcds/q14.sql"),
    include_str!("../tpcds/q15.sql"),
    include_str!("../tpcds/q16.sql"),
    include_str!("../tpcds/q17.sql"),
    include_str!("../tpcds/q18.sql"),
    include_str!("../tpcds/q19.sql"),
    include_str!("../tpcds/q20.sql"),
    include_str!("../tpcds/q21.sql"),
    include_str!("../tpcds/q22.sql"),
    include_str!("../tpcds/q23.sql"),
    include_str!("../tpcds/q24.sql"),
    include_str!("../tpcds/q25.sql"),
    include_str!("../tpcds/q26.sql"),
    include_str!("../tpcds/q27.sql"),
    include_str!("../tpcds/q28.sql"),
    include_str!("../tpcds/q29.sql"),
    include_str!("../tpcds/q30.sql"),
    include_str!("../tpcds/q31.sql"),
    include_str!("../tpcds/q32.sql"),
    include_str!("../tpcds/q33.sql"),
    include_str!("../tpcds/q34.sql"),
    include_str!("../tpcds/q35.sql"),
    include_str!("../tpcds/q36.sql"),
    include_str!("../tpcds/q37.sql"),
    include_str!("../tpcds/q38.sql"),
    include_str!("../tpcds/q39.sql"),
    include_str!("../tpcds/q40.sql"),
    include_str!("../tpcds/q41.sql"),
    include_str!("../tpcds/q42.sql"),
    include_str!("../tpcds/q43.sql"),
    include_str!("../tpcds/q44.sql"),
    include_str!("../tpcds/q45.sql"),
    include_str!("../tpcds/q46.sql"),
    include_str!("../tpcds/q47.sql"),
    include_str!("../tpcds/q48.sql"),
    include_str!("../tpcds/q49.sql"),
    include_str!("../tpcds/q50.sql"),
    include_str!("../tpcds/q51.sql"),
    include_str!("../tpcds/q52.sql"),
    include_str!("../tpcds/q53.sql"),
    include_str!("../tpcds/q54.sql"),
    include_str!("../tpcds/q55.sql"),
    include_str!("../tpcds/q56.sql"),
    include_str!("../tpcds/q57.sql"),
    include_str!("../tpcds/q58.sql"),
    include_str!("../tpcds/q59.sql"),
    include_str!("../tpcds/q60.sql"),
    include_str!("../tpcds/q61.sql"),
    include_str!("../tpcds/q62.sql"),
    include_str!("../tpcds/q63.sql"),
    include_str!("../tpcds/q64.sql"),
    include_str!("../tpcds/q65.sql"),
    include_str!("../tpcds/q66.sql"),
    include_str!("../tpcds/q67.sql"),
    include_str!("../tpcds/q68.sql"),
    include_str!("../tpcds/q69.sql"),
    include_str!("../tpcds/q70.sql"),
    include_str!("../tpcds/q71.sql"),
    include_str!("../tpcds/q72.sql"),
    include_str!("../tpcds/q73.sql"),
    include_str!("../tpcds/q74.sql"),
    include_str!("../tpcds/q75.sql"),
    include_str!("../tpcds/q76.sql"),
    include_str!("../tpcds/q77.sql"),
    include_str!("../tpcds/q78.sql"),
    include_str!("../tpcds/q79.sql"),
    include_str!("../tpcds/q80.sql"),
    include_str!("../tpcds/q81.sql"),
    include_str!("../tpcds/q82.sql"),
    include_str!("../tpcds/q83.sql"),
    include_str!("../tpcds/q84.sql"),
    include_str!("../tpcds/q85.sql"),
    include_str!("../tpcds/q86.sql"),
    include_str!("../tpcds/q87.sql"),
    include_str!("../tpcds/q88.sql"),
    include_str!("../tpcds/q89.sql"),
    include_str!("../tpcds/q90.sql"),
    include_str!("../tpcds/q91.sql"),
    include_str!("../tpcds/q92.sql"),
    include_str!("../tpcds/q93.sql"),
    include_str!("../tpcds/q94.sql"),
    include_str!("../tpcds/q95.sql"),
    include_str!("../tpcds/q96.sql"),
    include_str!("../tpcds/q97.sql"),
    include_str!("../tpcds/q98.sql"),
    include_str!("../tpcds/q99.sql"),
];

/// The text of TPC-DS query `number` (1 to 99), or `None` for any other number.
pub fn tpcds_query(number: i64) -> Option<&'static str> {
    let i = usize::try_from(number).ok()?.checked_sub(1)?;
    TPCDS_QUERIES.get(i).copied()
}

#[cfg(test)]
mod tests {
    #[test]
    fn numbering() {
        assert!(super::query(0).is_none());
        assert!(super::query(23).is_none());
        assert!(super::query(-1).is_none());
        assert!(super::query(6).unwrap().contains("l_discount BETWEEN"));
        assert!(super::tpcds_query(0).is_none());
        assert!(super::tpcds_query(100).is_none());
        assert!(super::tpcds_query(99).unwrap().contains("catalog_sales"));
    }
}
