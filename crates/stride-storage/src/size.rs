//! How many bytes a table's stored values take: what `pg_table_size` and psql's
//! `\dt+` report. Counted from the row groups' column vectors: fixed-width values at
//! their width, strings as their 16-byte views plus the heap buffers they point into
//! (each shared buffer once), lists as their offsets plus their elements, and a
//! validity bitmap where a column has NULLs.

use std::collections::HashSet;
use stride_common::vector::VectorData;
use stride_common::Vector;

/// Bytes of `columns`; `seen` holds heap buffers already counted.
pub fn columns_bytes(columns: &[Vector], seen: &mut HashSet<*const u8>) -> usize {
    columns.iter().map(|c| vector_bytes(c, seen)).sum()
}

fn vector_bytes(v: &Vector, seen: &mut HashSet<*const u8>) -> usize {
    let n = v.data_len();
    let validity = if v.validity.has_nulls() {
        n.div_ceil(8)
    } else {
        0
    };
    let data = match &v.data {
        VectorData::Bool(b) => std::mem::size_of_val(&b[..]),
        VectorData::I8(b) => std::mem::size_of_val(&b[..]),
        VectorData::I16(b) => std::mem::size_of_val(&b[..]),
        VectorData::I32(b) => std::mem::size_of_val(&b[..]),
        VectorData::I64(b) => std::mem::size_of_val(&b[..]),
        VectorData::I128(b) => std::mem::size_of_val(&b[..]),
        VectorData::F32(b) => std::mem::size_of_val(&b[..]),
        VectorData::F64(b) => std::mem::size_of_val(&b[..]),
        VectorData::Interval(b) => std::mem::size_of_val(&b[..]),
        VectorData::Str(s) => {
            let heap: usize = s
                .buffers
                .iter()
                .filter(|b| seen.insert(b.as_ptr()))
                .map(|b| b.len())
                .sum();
            std::mem::size_of_val(&s.views[..]) + heap
        }
        VectorData::List(l) => std::mem::size_of_val(&l.offsets[..]) + vector_bytes(&l.child, seen),
        VectorData::Struct(st) => st.fields.iter().map(|f| vector_bytes(f, seen)).sum(),
    };
    data + validity
}

#[cfg(test)]
mod tests {
    use super::*;
    use stride_common::{DataType, ScalarValue};

    #[test]
    fn counts_values() {
        let ints = Vector::from_values(DataType::BigInt, vec![1i64, 2, 3]);
        let mut seen = HashSet::new();
        assert_eq!(columns_bytes(&[ints], &mut seen), 24);
        let mut s = Vector::with_capacity(&DataType::Varchar, 2);
        s.push(&ScalarValue::Varchar("short".into())).unwrap();
        s.push(&ScalarValue::Varchar("a string longer than twelve".into()))
            .unwrap();
        let bytes = columns_bytes(&[s], &mut seen);
        // Two views, and at least the long string's bytes out of line.
        assert!(bytes >= 32 + 27, "{bytes}");
    }
}
