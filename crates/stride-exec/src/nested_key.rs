//! Keys of LIST, STRUCT and UNION values, for grouping, DISTINCT and joins (row_key.rs) and
//! for ORDER BY (sort_key.rs): a nested value encoded as bytes, element by element (a
//! struct field by field), recursively.
//!
//! - [`write_equal`] / [`read_equal`]: equal lists give equal bytes (NULL elements
//!   equal each other, -0.0 equals 0.0, every NaN is one value), and the bytes read
//!   back as the list, so a grouped list comes out of its key.
//! - [`write_ordered`]: the bytes compare with `memcmp` as DuckDB orders lists:
//!   element by element, a list that is a prefix of another first, NULL elements
//!   after every value.
//!
//! Nested values are rare as keys, so these work on scalar values row by row.

use stride_common::{DataType, Interval, ScalarValue, Vector};

fn float_bits(x: f64) -> u64 {
    let x = x + 0.0;
    if x.is_nan() {
        f64::NAN.to_bits()
    } else {
        x.to_bits()
    }
}

/// Appends the equality encoding of `v`.
pub fn write_equal(v: &ScalarValue, out: &mut Vec<u8>) {
    use ScalarValue as S;
    if v.is_null() {
        out.push(0);
        return;
    }
    out.push(1);
    match v {
        S::Null => {}
        S::Boolean(b) => out.push(*b as u8),
        S::TinyInt(x) => out.extend_from_slice(&x.to_le_bytes()),
        S::SmallInt(x) => out.extend_from_slice(&x.to_le_bytes()),
        S::Integer(x) => out.extend_from_slice(&x.to_le_bytes()),
        S::BigInt(x) => out.extend_from_slice(&x.to_le_bytes()),
        S::HugeInt(x) => out.extend_from_slice(&x.to_le_bytes()),
        S::UTinyInt(x) => out.push(*x),
        S::USmallInt(x) => out.extend_from_slice(&x.to_le_bytes()),
        S::UInteger(x) => out.extend_from_slice(&x.to_le_bytes()),
        S::UBigInt(x) => out.extend_from_slice(&x.to_le_bytes()),
        S::UHugeInt(x) => out.extend_from_slice(&x.to_le_bytes()),
        S::Real(x) => out.extend_from_slice(&float_bits(*x as f64).to_le_bytes()),
        S::Double(x) => out.extend_from_slice(&float_bits(*x).to_le_bytes()),
        S::Decimal(x, _, _) => out.extend_from_slice(&x.to_le_bytes()),
        S::Date(x) => out.extend_from_slice(&x.to_le_bytes()),
        S::Timestamp(x)
        | S::TimestampTz(x)
        | S::TimestampUnit(_, x)
        | S::Time(x)
        | S::TimeTz(x) => out.extend_from_slice(&x.to_le_bytes()),
        S::Enum(_, p) => out.extend_from_slice(&p.to_le_bytes()),
        S::Interval(i) => {
            let i = crate::row_key::canonical_interval(*i);
            out.extend_from_slice(&i.months.to_le_bytes());
            out.extend_from_slice(&i.days.to_le_bytes());
            out.extend_from_slice(&i.micros.to_le_bytes());
        }
        S::Varchar(s) => {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        S::Blob(b) | S::Bit(b) => {
            out.extend_from_slice(&(b.len() as u32).to_le_bytes());
            out.extend_from_slice(b);
        }
        S::List(_, items) => {
            out.extend_from_slice(&(items.len() as u32).to_le_bytes());
            for x in items {
                write_equal(x, out);
            }
        }
        S::Struct(_, values) => values.iter().for_each(|x| write_equal(x, out)),
        // the tag, then the member's value (which may be a tagged NULL)
        S::Union(_, tag, x) => {
            out.push(*tag);
            write_equal(x, out);
        }
        S::Map(_, _, entries) => {
            out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
            for (k, x) in entries {
                write_equal(k, out);
                write_equal(x, out);
            }
        }
        #[allow(unreachable_patterns)]
        other => {
            // Any other value by its text, which casts back to its type.
            let s = other.to_string();
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
    }
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut a = [0u8; N];
        if let Some(s) = self.b.get(self.at..self.at + N) {
            a.copy_from_slice(s);
        }
        self.at += N;
        a
    }

    fn bytes(&mut self) -> &[u8] {
        let n = u32::from_le_bytes(self.take::<4>()) as usize;
        let s = self.b.get(self.at..self.at + n).unwrap_or(&[]);
        self.at += n;
        s
    }
}

/// Reads back a value of type `ty` written by [`write_equal`].
pub fn read_equal(b: &[u8], ty: &DataType) -> ScalarValue {
    read(&mut Reader { b, at: 0 }, ty)
}

fn read(r: &mut Reader, ty: &DataType) -> ScalarValue {
    use ScalarValue as S;
    if r.take::<1>()[0] == 0 {
        return S::Null;
    }
    match ty {
        DataType::Boolean => S::Boolean(r.take::<1>()[0] != 0),
        DataType::TinyInt => S::TinyInt(i8::from_le_bytes(r.take())),
        DataType::SmallInt => S::SmallInt(i16::from_le_bytes(r.take())),
        DataType::Integer => S::Integer(i32::from_le_bytes(r.take())),
        DataType::BigInt => S::BigInt(i64::from_le_bytes(r.take())),
        DataType::HugeInt => S::HugeInt(i128::from_le_bytes(r.take())),
        DataType::UTinyInt => S::UTinyInt(r.take::<1>()[0]),
        DataType::USmallInt => S::USmallInt(u16::from_le_bytes(r.take())),
        DataType::UInteger => S::UInteger(u32::from_le_bytes(r.take())),
        DataType::UBigInt => S::UBigInt(u64::from_le_bytes(r.take())),
        DataType::UHugeInt => S::UHugeInt(u128::from_le_bytes(r.take())),
        DataType::Real => S::Real(f64::from_bits(u64::from_le_bytes(r.take())) as f32),
        DataType::Double => S::Double(f64::from_bits(u64::from_le_bytes(r.take()))),
        DataType::Decimal(p, s) => S::Decimal(i128::from_le_bytes(r.take()), *p, *s),
        DataType::Date => S::Date(i32::from_le_bytes(r.take())),
        DataType::Timestamp => S::Timestamp(i64::from_le_bytes(r.take())),
        DataType::TimestampTz => S::TimestampTz(i64::from_le_bytes(r.take())),
        DataType::TimestampUnit(u) => S::TimestampUnit(*u, i64::from_le_bytes(r.take())),
        DataType::Time => S::Time(i64::from_le_bytes(r.take())),
        DataType::TimeTz => S::TimeTz(i64::from_le_bytes(r.take())),
        DataType::Interval => S::Interval(Interval::new(
            i32::from_le_bytes(r.take()),
            i32::from_le_bytes(r.take()),
            i64::from_le_bytes(r.take()),
        )),
        DataType::Varchar => S::Varchar(String::from_utf8_lossy(r.bytes()).into_owned()),
        DataType::Blob => S::Blob(r.bytes().to_vec()),
        DataType::Bit => S::Bit(r.bytes().to_vec()),
        DataType::Enum(e) => S::Enum(e.clone(), u32::from_le_bytes(r.take())),
        DataType::List(elem) | DataType::Array(elem, _) => {
            let n = u32::from_le_bytes(r.take::<4>()) as usize;
            let items = (0..n).map(|_| read(r, elem)).collect();
            S::List((**elem).clone(), items)
        }
        DataType::Map(k, v) => {
            let n = u32::from_le_bytes(r.take::<4>()) as usize;
            let entries = (0..n).map(|_| (read(r, k), read(r, v))).collect();
            S::Map((**k).clone(), (**v).clone(), entries)
        }
        DataType::Struct(fields) => S::Struct(
            fields.clone(),
            fields.iter().map(|(_, t)| read(r, t)).collect(),
        ),
        DataType::Union(members) => {
            let tag = r.take::<1>()[0];
            match members.get(tag as usize) {
                Some((_, t)) => S::Union(members.clone(), tag, Box::new(read(r, t))),
                None => S::Null,
            }
        }
        other => {
            let text = String::from_utf8_lossy(r.bytes()).into_owned();
            let v = Vector::constant(&S::Varchar(text), &DataType::Varchar)
                .and_then(|v| stride_functions::cast_vector(&v, 1, other, false));
            v.map(|v| v.get(0)).unwrap_or(S::Null)
        }
    }
}

/// Appends the order-preserving encoding of `v` (ascending, NULL after values).
pub fn write_ordered(v: &ScalarValue, out: &mut Vec<u8>) {
    use ScalarValue as S;
    let flip8 = |x: i8| (x as u8) ^ 0x80;
    match v {
        S::Null => out.push(2),
        S::Boolean(b) => out.extend_from_slice(&[1, *b as u8]),
        S::TinyInt(x) => out.extend_from_slice(&[1, flip8(*x)]),
        S::SmallInt(x) => {
            out.push(1);
            out.extend_from_slice(&((*x as u16) ^ 0x8000).to_be_bytes());
        }
        S::Integer(x) | S::Date(x) => {
            out.push(1);
            out.extend_from_slice(&((*x as u32) ^ (1 << 31)).to_be_bytes());
        }
        // a TIMETZ by its stored form, which orders by UTC time (its text would not)
        S::BigInt(x)
        | S::Timestamp(x)
        | S::TimestampTz(x)
        | S::TimestampUnit(_, x)
        | S::Time(x)
        | S::TimeTz(x) => {
            out.push(1);
            out.extend_from_slice(&((*x as u64) ^ (1 << 63)).to_be_bytes());
        }
        S::Decimal(x, _, _) | S::HugeInt(x) => {
            out.push(1);
            out.extend_from_slice(&((*x as u128) ^ (1 << 127)).to_be_bytes());
        }
        S::UTinyInt(x) => out.extend_from_slice(&[1, *x]),
        S::USmallInt(x) => {
            out.push(1);
            out.extend_from_slice(&x.to_be_bytes());
        }
        S::UInteger(x) => {
            out.push(1);
            out.extend_from_slice(&x.to_be_bytes());
        }
        S::UBigInt(x) => {
            out.push(1);
            out.extend_from_slice(&x.to_be_bytes());
        }
        S::UHugeInt(x) => {
            out.push(1);
            out.extend_from_slice(&x.to_be_bytes());
        }
        // by position, the enum's order
        S::Enum(_, p) => {
            out.push(1);
            out.extend_from_slice(&p.to_be_bytes());
        }
        S::Real(x) => ordered_float(*x as f64, out),
        S::Double(x) => ordered_float(*x, out),
        S::Interval(i) => {
            // by the total length, as intervals compare
            let micros = i.normalized_micros();
            out.push(1);
            out.extend_from_slice(&((micros as u128) ^ (1 << 127)).to_be_bytes());
        }
        S::Varchar(s) => {
            out.push(1);
            ordered_bytes(s.as_bytes(), out);
        }
        S::Blob(b) | S::Bit(b) => {
            out.push(1);
            ordered_bytes(b, out);
        }
        S::List(_, items) => {
            out.push(1);
            for x in items {
                out.push(1);
                write_ordered(x, out);
            }
            out.push(0);
        }
        // entry by entry, as a list of (key, value)
        S::Map(_, _, entries) => {
            out.push(1);
            for (k, x) in entries {
                out.push(1);
                write_ordered(k, out);
                write_ordered(x, out);
            }
            out.push(0);
        }
        // field by field: every struct of a type has the same fields
        S::Struct(_, values) => {
            out.push(1);
            values.iter().for_each(|x| write_ordered(x, out));
        }
        // by tag (the members' order), then by value, as DuckDB orders unions
        S::Union(_, tag, x) => {
            out.extend_from_slice(&[1, *tag]);
            write_ordered(x, out);
        }
        #[allow(unreachable_patterns)]
        other => {
            out.push(1);
            ordered_bytes(other.to_string().as_bytes(), out);
        }
    }
}

fn ordered_float(x: f64, out: &mut Vec<u8>) {
    let b = float_bits(x);
    let o = if b >> 63 == 1 { !b } else { b | (1 << 63) };
    out.push(1);
    out.extend_from_slice(&o.to_be_bytes());
}

/// Bytes with 0x00 escaped, then a 0x00 0x00 terminator (a prefix sorts first).
fn ordered_bytes(b: &[u8], out: &mut Vec<u8>) {
    for &x in b {
        out.push(x);
        if x == 0 {
            out.push(0xFF);
        }
    }
    out.extend_from_slice(&[0, 0]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarValue as S;

    fn list(items: Vec<ScalarValue>) -> ScalarValue {
        S::List(DataType::Integer, items)
    }

    #[test]
    fn equal_keys_read_back() {
        let map = S::Map(
            DataType::Varchar,
            DataType::Integer,
            vec![
                (S::Varchar("a".into()), S::Null),
                (S::Varchar("b".into()), S::Integer(2)),
            ],
        );
        let mut b = Vec::new();
        write_equal(&map, &mut b);
        assert_eq!(read_equal(&b, &map.data_type()), map);
        let ty = DataType::List(Box::new(DataType::List(Box::new(DataType::Varchar))));
        let v = S::List(
            DataType::List(Box::new(DataType::Varchar)),
            vec![
                S::List(DataType::Varchar, vec![S::Varchar("a".into()), S::Null]),
                S::Null,
                S::List(DataType::Varchar, vec![]),
            ],
        );
        let mut b = Vec::new();
        write_equal(&v, &mut b);
        assert_eq!(read_equal(&b, &ty), v);
    }

    #[test]
    fn ordered_keys_sort_like_lists() {
        let key = |v: &ScalarValue| {
            let mut b = Vec::new();
            write_ordered(v, &mut b);
            b
        };
        let sorted = [
            list(vec![]),
            list(vec![S::Integer(-5)]),
            list(vec![S::Integer(1)]),
            list(vec![S::Integer(1), S::Integer(2)]),
            list(vec![S::Integer(1), S::Null]),
            list(vec![S::Integer(3)]),
        ];
        for w in sorted.windows(2) {
            assert!(key(&w[0]) < key(&w[1]), "{} < {}", w[0], w[1]);
        }
    }
}
