//! ENUM types: a fixed, ordered list of string labels (DuckDB's ENUM). A value is
//! stored as its label's position in the list, in the narrowest signed integer that
//! holds every position ([`EnumType::physical`]), so equality, ordering (by position,
//! as DuckDB orders enums), hashing, grouping, joins, sort keys and zone maps all work
//! on plain integers; only casts and display look at the labels.
//!
//! Where it sits: the binder makes an `EnumType` from `ENUM('a', 'b')` or from a type
//! created by `CREATE TYPE name AS ENUM (...)` (then it carries that name); casts
//! (`stride-functions/src/cast/enums.rs`) map labels to positions and back; storage
//! serializes the labels with the column's type (type tag 23).
//!
//! Two enums are the same type when their labels are the same, in the same order,
//! whatever their names (as in DuckDB, where `'a'::e1 = 'a'::e2` compares as enums
//! when `e1` and `e2` list the same labels). The labels are shared behind an `Arc`,
//! so cloning a [`crate::DataType`] that holds one costs a reference count.

use crate::types::PhysicalType;
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Most labels an ENUM may have: positions are stored in an `i32`.
pub const MAX_ENUM_LABELS: usize = i32::MAX as usize;

#[derive(Clone)]
pub struct EnumType(Arc<EnumInfo>);

struct EnumInfo {
    /// The name of the type created by CREATE TYPE, if it was created so.
    name: Option<String>,
    labels: Vec<String>,
    /// Label to position, for casts from text.
    positions: HashMap<String, u32>,
}

impl EnumType {
    /// An enum of `labels` in order; an error names the first label given twice.
    pub fn new(name: Option<String>, labels: Vec<String>) -> crate::Result<EnumType> {
        if labels.len() > MAX_ENUM_LABELS {
            return Err(crate::Error::invalid_input(format!(
                "an ENUM holds at most {MAX_ENUM_LABELS} values, not {}",
                labels.len()
            )));
        }
        let mut positions = HashMap::with_capacity(labels.len());
        for (i, l) in labels.iter().enumerate() {
            if positions.insert(l.clone(), i as u32).is_some() {
                return Err(crate::Error::invalid_input(format!(
                    "Attempted to create ENUM type with duplicate value {l}"
                )));
            }
        }
        Ok(EnumType(Arc::new(EnumInfo {
            name,
            labels,
            positions,
        })))
    }

    /// The same labels under another name (`CREATE TYPE name AS ENUM ...`).
    pub fn with_name(&self, name: Option<String>) -> EnumType {
        EnumType(Arc::new(EnumInfo {
            name,
            labels: self.0.labels.clone(),
            positions: self.0.positions.clone(),
        }))
    }

    pub fn name(&self) -> Option<&str> {
        self.0.name.as_deref()
    }

    pub fn labels(&self) -> &[String] {
        &self.0.labels
    }

    pub fn len(&self) -> usize {
        self.0.labels.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.labels.is_empty()
    }

    /// The label at `position`, if there is one.
    pub fn label(&self, position: usize) -> Option<&str> {
        self.0.labels.get(position).map(String::as_str)
    }

    /// The position of `label`, if it is one of the enum's.
    pub fn position(&self, label: &str) -> Option<u32> {
        self.0.positions.get(label).copied()
    }

    /// The narrowest signed integer that holds every position (DuckDB uses the
    /// unsigned ones: UTINYINT up to 256 labels, and so on).
    pub fn physical(&self) -> PhysicalType {
        match self.len() {
            n if n <= i8::MAX as usize + 1 => PhysicalType::I8,
            n if n <= i16::MAX as usize + 1 => PhysicalType::I16,
            _ => PhysicalType::I32,
        }
    }
}

impl PartialEq for EnumType {
    fn eq(&self, other: &EnumType) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.labels == other.0.labels
    }
}

impl Eq for EnumType {}

impl Hash for EnumType {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.labels.hash(state)
    }
}

impl fmt::Debug for EnumType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Enum({:?}, {:?})", self.0.name, self.0.labels)
    }
}

/// DuckDB's name of the type: `ENUM('a', 'b')`, quotes in labels doubled.
impl fmt::Display for EnumType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ENUM(")?;
        for (i, l) in self.0.labels.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "'{}'", l.replace('\'', "''"))?;
        }
        write!(f, ")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_positions_and_width() {
        let e = EnumType::new(None, vec!["a".into(), "b'c".into()]).unwrap();
        assert_eq!(e.position("b'c"), Some(1));
        assert_eq!(e.position("z"), None);
        assert_eq!(e.to_string(), "ENUM('a', 'b''c')");
        assert_eq!(e.physical(), PhysicalType::I8);
        let wide = EnumType::new(None, (0..200).map(|i| i.to_string()).collect()).unwrap();
        assert_eq!(wide.physical(), PhysicalType::I16);
        assert!(EnumType::new(None, vec!["a".into(), "a".into()]).is_err());
        let named = e.with_name(Some("mood".into()));
        assert_eq!(named, e);
    }
}
