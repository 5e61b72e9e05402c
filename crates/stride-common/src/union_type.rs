//! UNION(name type, ...) (DuckDB's tagged union): each value is one of the member
//! types, with its tag, the member's position.
//!
//! A union is stored as DuckDB stores it: a STRUCT whose first field is the tag
//! (UTINYINT) followed by one field per member, all NULL but the tag's
//! ([`storage_fields`]). Sorting, hashing, grouping and joins then see a struct, and
//! order unions as DuckDB does: by tag (declaration order), then by value. A NULL row
//! is a SQL NULL; a valid row whose member is NULL is a *tagged* NULL (DuckDB's
//! `NULL::INTEGER` cast into a union), which `union_tag` still names.
//!
//! This module holds the rules the binder and the casts share: which member a value
//! of another type becomes ([`member_for`]), and how two union types meet
//! ([`merge`]).

use crate::error::{Error, Result};
use crate::types::DataType;

/// The most members a union has (its tag is a UTINYINT), as in DuckDB.
pub const MAX_MEMBERS: usize = 255;

/// The fields of the STRUCT a union is stored as: the tag, then the members.
pub fn storage_fields(members: &[(String, DataType)]) -> Vec<(String, DataType)> {
    let mut fields = Vec::with_capacity(members.len() + 1);
    fields.push((String::new(), DataType::UTinyInt));
    fields.extend(members.iter().cloned());
    fields
}

/// The position of the member named `name` (names match case-insensitively).
pub fn position(members: &[(String, DataType)], name: &str) -> Option<usize> {
    members
        .iter()
        .position(|(n, _)| n.eq_ignore_ascii_case(name))
}

/// Checks a union type's members: 1 to 255, names unique case-insensitively.
pub fn check(members: &[(String, DataType)]) -> Result<()> {
    if members.is_empty() {
        return Err(Error::binder("a UNION type needs at least one member"));
    }
    if members.len() > MAX_MEMBERS {
        return Err(Error::binder(format!(
            "UNION type supports at most {MAX_MEMBERS} type modifiers"
        )));
    }
    for (i, (name, _)) in members.iter().enumerate() {
        if position(&members[..i], name).is_some() {
            return Err(Error::binder(format!(
                "Duplicate type parameter {name} for type \"UNION\""
            )));
        }
    }
    Ok(())
}

/// How readily a value is cast implicitly to a member of this type, lower first,
/// where the value's own type is not a member: DuckDB's preferences (a TINYINT
/// becomes a BIGINT before an INTEGER, an INTEGER a HUGEINT before a DOUBLE, a DATE
/// a TIMESTAMP).
fn cost(target: &DataType) -> u8 {
    match target {
        DataType::BigInt => 1,
        DataType::Integer => 2,
        DataType::HugeInt => 3,
        DataType::Double => 4,
        DataType::Decimal(..) => 5,
        DataType::Timestamp => 6,
        DataType::SmallInt => 7,
        _ => 10,
    }
}

/// The member a value of type `from` becomes when cast into a union of `members`:
/// the member of exactly that type, else the one it casts to implicitly most
/// readily. No such member, or two equally ready, is an error saying so.
pub fn member_for(members: &[(String, DataType)], from: &DataType) -> Result<usize> {
    if let Some(i) = members.iter().position(|(_, t)| t == from) {
        return Ok(i);
    }
    let union = DataType::Union(members.to_vec());
    let candidates: Vec<usize> = (0..members.len())
        .filter(|&i| from.can_implicitly_cast_to(&members[i].1))
        .collect();
    let best = candidates.iter().map(|&i| cost(&members[i].1)).min();
    let Some(best) = best else {
        let names: Vec<String> = members.iter().map(|(_, t)| t.to_string()).collect();
        return Err(Error::conversion(format!(
            "Type {from} can't be cast as {union}. {from} can't be implicitly cast to any of the union member types: {}",
            names.join(", ")
        )));
    };
    let best: Vec<usize> = candidates
        .into_iter()
        .filter(|&i| cost(&members[i].1) == best)
        .collect();
    match best[..] {
        [i] => Ok(i),
        _ => {
            let names: Vec<String> = best
                .iter()
                .map(|&i| format!("'{} ({})'", members[i].0, members[i].1))
                .collect();
            Err(Error::conversion(format!(
                "Type {from} can't be cast as {union}. The cast is ambiguous, multiple possible members in target: {}. Disambiguate the target type by using the 'union_value(<tag> := <arg>)' function to ensure only one member is selected",
                names.join(", ")
            )))
        }
    }
}

/// Where each member of `from` goes in the union `to` (by name), or the error a cast
/// between them gives when one is missing.
pub fn member_map(from: &[(String, DataType)], to: &[(String, DataType)]) -> Result<Vec<usize>> {
    from.iter()
        .map(|(name, _)| {
            position(to, name).ok_or_else(|| {
                Error::conversion(format!(
                    "Type {} can't be cast as {}. The member \"{name}\" is not present in target union",
                    DataType::Union(from.to_vec()),
                    DataType::Union(to.to_vec())
                ))
            })
        })
        .collect()
}

/// The union two union types meet as (UNION ALL, CASE, comparisons): the left's
/// members in order, then the right's new ones; a member both have takes the two
/// types' common type. `None` when they have none or there would be too many.
pub fn merge(
    a: &[(String, DataType)],
    b: &[(String, DataType)],
) -> Option<Vec<(String, DataType)>> {
    let mut out = a.to_vec();
    for (name, t) in b {
        match position(&out, name) {
            Some(i) => out[i].1 = DataType::common_supertype(&out[i].1, t)?,
            None => out.push((name.clone(), t.clone())),
        }
    }
    (out.len() <= MAX_MEMBERS).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use DataType::*;

    fn m(types: &[DataType]) -> Vec<(String, DataType)> {
        types
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("m{i}"), t.clone()))
            .collect()
    }

    #[test]
    fn member_choice_follows_duckdb() {
        assert_eq!(member_for(&m(&[Integer, Varchar]), &Varchar).unwrap(), 1);
        assert_eq!(
            member_for(&m(&[SmallInt, Integer, BigInt]), &TinyInt).unwrap(),
            2
        );
        assert_eq!(member_for(&m(&[SmallInt, Integer]), &TinyInt).unwrap(), 1);
        assert_eq!(member_for(&m(&[Integer, Double]), &BigInt).unwrap(), 1);
        assert_eq!(member_for(&m(&[HugeInt, Double]), &Integer).unwrap(), 0);
        assert_eq!(member_for(&m(&[Date, Timestamp]), &Date).unwrap(), 0);
        let e = member_for(&m(&[Integer, Varchar]), &BigInt).unwrap_err();
        assert!(e.message.contains(
            "can't be implicitly cast to any of the union member types: INTEGER, VARCHAR"
        ));
        let e = member_for(&m(&[BigInt, BigInt]), &Integer).unwrap_err();
        assert!(e.message.contains("The cast is ambiguous"));
    }

    #[test]
    fn merging_keeps_the_left_order() {
        let a = vec![("a".to_string(), Integer), ("b".to_string(), Varchar)];
        let b = vec![("C".to_string(), Date), ("A".to_string(), BigInt)];
        assert_eq!(
            merge(&a, &b).unwrap(),
            vec![
                ("a".to_string(), BigInt),
                ("b".to_string(), Varchar),
                ("C".to_string(), Date)
            ]
        );
        assert!(member_map(&a, &b).is_err());
        assert_eq!(member_map(&b[1..], &a).unwrap(), vec![0]);
    }
}
