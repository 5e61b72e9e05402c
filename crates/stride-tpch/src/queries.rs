//! The 22 TPC-H queries with the specification's validation parameters, as text.

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

#[cfg(test)]
mod tests {
    #[test]
    fn numbering() {
        assert!(super::query(0).is_none());
        assert!(super::query(23).is_none());
        assert!(super::query(-1).is_none());
        assert!(super::query(6).unwrap().contains("l_discount BETWEEN"));
    }
}
