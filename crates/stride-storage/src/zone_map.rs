//! Zone maps: the smallest and largest value and the NULL count of one column of one
//! row group. A checkpoint stores them beside each segment; a scan checks its filters'
//! simple conditions ([`ZoneFilter`]: a column compared with a constant, IN a list of
//! constants, IS [NOT] NULL) against them and skips row groups where no row can pass,
//! without reading them. For an in-memory column the map is computed on first use.
//!
//! Bounds are kept in the column's physical domain: integers (and BOOLEAN, DATE,
//! TIMESTAMP, DECIMAL's unscaled values) as i128, floating-point numbers as f64 (no
//! bounds when a NaN is present: NaN sorts above every number), strings as bytes, the
//! lower bound cut to [`STRING_PREFIX`] bytes (a prefix is never larger than the
//! string) and no upper bound when the largest string is longer.

use crate::serialize::{ByteReader, ByteWriter};
use std::cmp::Ordering;
use stride_common::{CompareOp, DataType, Result, ScalarValue, Vector, VectorData};

/// Bytes of a string bound kept.
pub const STRING_PREFIX: usize = 32;

#[derive(Clone, Debug, PartialEq)]
pub struct ZoneMap {
    pub rows: u64,
    pub nulls: u64,
    /// `None`: not known (a type without an order kept here, or NaN).
    pub bounds: Option<Bounds>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Bounds {
    Int(i128, i128),
    Float(f64, f64),
    /// The lower bound and, when known, the upper one.
    Str(Vec<u8>, Option<Vec<u8>>),
}

/// A constant in a column's physical domain.
#[derive(Clone, Debug, PartialEq)]
pub enum Key {
    Int(i128),
    Float(f64),
    Str(Vec<u8>),
}

impl Key {
    /// `value` as a key for a column of type `ty`; `None` when they do not compare
    /// directly (different types, or decimals of different scales).
    pub fn of(value: &ScalarValue, ty: &DataType) -> Option<Key> {
        use ScalarValue as S;
        Some(match (value, ty) {
            (S::Boolean(b), DataType::Boolean) => Key::Int(*b as i128),
            (S::TinyInt(v), DataType::TinyInt) => Key::Int(*v as i128),
            (S::SmallInt(v), DataType::SmallInt) => Key::Int(*v as i128),
            (S::Integer(v), DataType::Integer) => Key::Int(*v as i128),
            (S::BigInt(v), DataType::BigInt) => Key::Int(*v as i128),
            (S::Date(v), DataType::Date) => Key::Int(*v as i128),
            (S::Timestamp(v), DataType::Timestamp) => Key::Int(*v as i128),
            (S::TimestampTz(v), DataType::TimestampTz) => Key::Int(*v as i128),
            (S::Time(v), DataType::Time) => Key::Int(*v as i128),
            (S::HugeInt(v), DataType::HugeInt) => Key::Int(*v),
            (S::UTinyInt(v), DataType::UTinyInt) => Key::Int(*v as i128),
            (S::USmallInt(v), DataType::USmallInt) => Key::Int(*v as i128),
            (S::UInteger(v), DataType::UInteger) => Key::Int(*v as i128),
            (S::UBigInt(v), DataType::UBigInt) => Key::Int(*v as i128),
            (S::UHugeInt(v), DataType::UHugeInt) => {
                Key::Int(stride_common::flip128::to_physical(*v))
            }
            (S::Uuid(v), DataType::Uuid) => Key::Int(stride_common::uuid::to_physical(*v)),
            // an enum's stored value is its position
            (S::Enum(_, p), DataType::Enum(e)) if e.len() > *p as usize => Key::Int(*p as i128),
            (S::Decimal(v, _, s), DataType::Decimal(_, scale)) if s == scale => Key::Int(*v),
            (S::Real(v), DataType::Real) if !v.is_nan() => Key::Float(*v as f64),
            (S::Double(v), DataType::Double) if !v.is_nan() => Key::Float(*v),
            (S::Varchar(s), DataType::Varchar) => Key::Str(s.as_bytes().to_vec()),
            (S::Blob(b), DataType::Blob) | (S::Bit(b), DataType::Bit) => Key::Str(b.clone()),
            _ => return None,
        })
    }
}

/// A condition on one column that every row a scan returns must meet.
#[derive(Clone, Debug, PartialEq)]
pub struct ZoneFilter {
    /// The column's position in the table.
    pub column: usize,
    pub test: ZoneTest,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ZoneTest {
    Compare(CompareOp, Key),
    In(Vec<Key>),
    IsNull,
    IsNotNull,
}

impl ZoneMap {
    /// Whether this map is right for the first `len` rows of `v`: the same rows and
    /// NULLs, and bounds that hold every value, though they need not be reached (a
    /// column a DELETE cut from a stored one keeps the stored bounds; pruning stays
    /// correct with any bounds that hold every value).
    pub fn holds(&self, v: &Vector, len: usize) -> bool {
        let exact = ZoneMap::of(v, len);
        if self.rows != exact.rows || self.nulls != exact.nulls {
            return false;
        }
        match (&self.bounds, &exact.bounds) {
            (None, _) => true,
            _ if exact.nulls == exact.rows => true,
            (Some(Bounds::Int(a, b)), Some(Bounds::Int(c, d))) => a <= c && d <= b,
            (Some(Bounds::Float(a, b)), Some(Bounds::Float(c, d))) => a <= c && d <= b,
            // A string bound is a prefix or absent in an exact map: compare each value.
            (Some(Bounds::Str(lo, hi)), _) => {
                let flat = v.clone().flatten(len);
                let VectorData::Str(s) = &flat.data else {
                    return false;
                };
                (0..len).filter(|&i| flat.is_valid(i)).all(|i| {
                    let b = s.bytes_of(&s.views[i]);
                    lo.as_slice() <= b && hi.as_ref().is_none_or(|h| b <= h.as_slice())
                })
            }
            _ => false,
        }
    }

    /// Whether some row of the zone may meet `test`.
    pub fn may_match(&self, test: &ZoneTest) -> bool {
        match test {
            ZoneTest::IsNull => self.nulls > 0,
            ZoneTest::IsNotNull => self.nulls < self.rows,
            _ if self.nulls >= self.rows => false,
            ZoneTest::Compare(op, key) => self.may_compare(*op, key),
            ZoneTest::In(keys) => keys.iter().any(|k| self.may_compare(CompareOp::Eq, k)),
        }
    }

    fn may_compare(&self, op: CompareOp, key: &Key) -> bool {
        // (key vs smallest, key vs largest); None where unknown.
        let (lo, hi) = match (&self.bounds, key) {
            (Some(Bounds::Int(a, b)), Key::Int(k)) => (Some(k.cmp(a)), Some(k.cmp(b))),
            (Some(Bounds::Float(a, b)), Key::Float(k)) => (k.partial_cmp(a), k.partial_cmp(b)),
            (Some(Bounds::Str(a, b)), Key::Str(k)) => (
                Some(k.as_slice().cmp(a)),
                b.as_ref().map(|b| k.as_slice().cmp(b)),
            ),
            _ => return true,
        };
        use Ordering::*;
        match op {
            CompareOp::Eq => lo != Some(Less) && hi != Some(Greater),
            // Every value equals the key only when smallest = largest = key.
            CompareOp::NotEq => !(lo == Some(Equal) && hi == Some(Equal)),
            CompareOp::Lt => lo == Some(Greater) || lo.is_none(),
            CompareOp::LtEq => lo != Some(Less),
            CompareOp::Gt => hi == Some(Less) || hi.is_none(),
            CompareOp::GtEq => hi != Some(Greater),
        }
    }

    /// The zone map of the first `len` rows of `v`.
    pub fn of(v: &Vector, len: usize) -> ZoneMap {
        let rows = len as u64;
        let flat = v.clone().flatten(len);
        let v = &flat;
        let all_valid = !v.validity.has_nulls();
        let nulls = if all_valid {
            0
        } else {
            (0..len).filter(|&i| !v.is_valid(i)).count() as u64
        };
        if nulls == rows {
            return ZoneMap {
                rows,
                nulls,
                bounds: None,
            };
        }
        // The smallest and largest of `x` over the valid rows (there is one).
        fn range<T: Copy + PartialOrd>(x: &[T], v: &Vector, all_valid: bool) -> (T, T) {
            let mut it = x
                .iter()
                .enumerate()
                .filter(|&(i, _)| all_valid || v.validity.is_valid(i))
                .map(|(_, &x)| x);
            let first = it.next().expect("a valid row");
            it.fold((first, first), |(lo, hi), x| {
                (if x < lo { x } else { lo }, if x > hi { x } else { hi })
            })
        }
        fn ints<T: Copy + PartialOrd + Into<i128>>(
            x: &[T],
            v: &Vector,
            all: bool,
        ) -> Option<Bounds> {
            let (lo, hi) = range(x, v, all);
            Some(Bounds::Int(lo.into(), hi.into()))
        }
        fn floats<T: Copy + PartialOrd + Into<f64>>(
            x: &[T],
            v: &Vector,
            all: bool,
        ) -> Option<Bounds> {
            let nan = x
                .iter()
                .enumerate()
                .any(|(i, &x)| (all || v.validity.is_valid(i)) && x.into().is_nan());
            if nan {
                return None;
            }
            let (lo, hi) = range(x, v, all);
            Some(Bounds::Float(lo.into(), hi.into()))
        }
        let bounds = match &v.data {
            VectorData::Bool(x) => {
                let (lo, hi) = range(&x[..len], v, all_valid);
                Some(Bounds::Int(lo as i128, hi as i128))
            }
            VectorData::I8(x) => ints(&x[..len], v, all_valid),
            VectorData::I16(x) => ints(&x[..len], v, all_valid),
            VectorData::I32(x) => ints(&x[..len], v, all_valid),
            VectorData::I64(x) => ints(&x[..len], v, all_valid),
            VectorData::I128(x) => ints(&x[..len], v, all_valid),
            VectorData::F32(x) => floats(&x[..len], v, all_valid),
            VectorData::F64(x) => floats(&x[..len], v, all_valid),
            VectorData::Str(s) => {
                // Rows are compared by their views' first four bytes (big-endian, so
                // they order as the bytes do) and only on a tie by their bytes.
                let head = |i: usize| u32::from_be_bytes(s.views[i].prefix());
                let mut rows = (0..len).filter(|&i| all_valid || v.validity.is_valid(i));
                let first = rows.next().expect("a valid row");
                let ((mut lo, mut lo_head), (mut hi, mut hi_head)) =
                    ((first, head(first)), (first, head(first)));
                for i in rows {
                    let h = head(i);
                    if h < lo_head || (h == lo_head && s.get_bytes(i) < s.get_bytes(lo)) {
                        (lo, lo_head) = (i, h);
                    }
                    if h > hi_head || (h == hi_head && s.get_bytes(i) > s.get_bytes(hi)) {
                        (hi, hi_head) = (i, h);
                    }
                }
                let (lo, hi) = (s.get_bytes(lo), s.get_bytes(hi));
                let lo = lo[..lo.len().min(STRING_PREFIX)].to_vec();
                let hi = (hi.len() <= STRING_PREFIX).then(|| hi.to_vec());
                Some(Bounds::Str(lo, hi))
            }
            VectorData::Interval(_) | VectorData::List(_) | VectorData::Struct(_) => None,
        };
        ZoneMap {
            rows,
            nulls,
            bounds,
        }
    }

    pub fn write(&self, w: &mut ByteWriter) {
        w.u64(self.nulls);
        match &self.bounds {
            None => w.u8(0),
            Some(Bounds::Int(a, b)) => {
                w.u8(1);
                w.raw(&a.to_le_bytes());
                w.raw(&b.to_le_bytes());
            }
            Some(Bounds::Float(a, b)) => {
                w.u8(2);
                w.u64(a.to_bits());
                w.u64(b.to_bits());
            }
            Some(Bounds::Str(a, b)) => {
                w.u8(3);
                w.len_of(a.len());
                w.raw(a);
                match b {
                    None => w.u8(0),
                    Some(b) => {
                        w.u8(1);
                        w.len_of(b.len());
                        w.raw(b);
                    }
                }
            }
        }
    }

    /// Reads a zone map written by [`ZoneMap::write`] for a segment of `rows` rows.
    pub fn read(r: &mut ByteReader, rows: u64) -> Result<ZoneMap> {
        let nulls = r.u64()?;
        if nulls > rows {
            return Err(r.corrupt("a zone map counts more NULLs than rows"));
        }
        let i128_of = |r: &mut ByteReader| -> Result<i128> {
            Ok(i128::from_le_bytes(r.raw(16)?.try_into().expect("16")))
        };
        let bounds = match r.u8()? {
            0 => None,
            1 => Some(Bounds::Int(i128_of(r)?, i128_of(r)?)),
            2 => Some(Bounds::Float(
                f64::from_bits(r.u64()?),
                f64::from_bits(r.u64()?),
            )),
            3 => {
                let n = r.len_of(1)?;
                let lo = r.raw(n)?.to_vec();
                let hi = match r.u8()? {
                    0 => None,
                    _ => {
                        let n = r.len_of(1)?;
                        Some(r.raw(n)?.to_vec())
                    }
                };
                Some(Bounds::Str(lo, hi))
            }
            k => return Err(r.corrupt(&format!("unknown zone map kind {k}"))),
        };
        Ok(ZoneMap {
            rows,
            nulls,
            bounds,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(ty: &DataType, values: &[ScalarValue]) -> Vector {
        let mut v = Vector::with_capacity(ty, values.len());
        for x in values {
            v.push(x).expect("push");
        }
        v
    }

    /// String bounds are the byte-wise smallest and largest values, also among
    /// strings that share their first four bytes, hold zero bytes or are shorter than
    /// four, inline or not.
    #[test]
    fn string_bounds_are_the_bytewise_extremes() {
        let words = [
            "ab",
            "ab\0",
            "ab\0\0x",
            "abc",
            "abcd",
            "abcd\0",
            "abcdzzzzzzzzzzzzz",
            "abce",
            "a",
            "",
            "\u{7f}",
            "\u{80}",
            "\u{ff}",
            "zzzz",
            "zzz",
            "zzzz long enough to be out of line",
        ];
        let mut seed = 7u64;
        for round in 0..200 {
            let mut values = Vec::new();
            for _ in 0..1 + round % 9 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let w = words[(seed >> 33) as usize % words.len()];
                values.push(match (seed >> 20) % 7 {
                    0 => ScalarValue::Null,
                    _ => ScalarValue::Varchar(w.into()),
                });
            }
            let v = vector(&DataType::Varchar, &values);
            let valid: Vec<&[u8]> = values
                .iter()
                .filter_map(|x| match x {
                    ScalarValue::Varchar(s) => Some(s.as_bytes()),
                    _ => None,
                })
                .collect();
            let z = ZoneMap::of(&v, values.len());
            match (valid.iter().min(), valid.iter().max()) {
                (Some(lo), Some(hi)) => {
                    let want_hi = (hi.len() <= STRING_PREFIX).then(|| hi.to_vec());
                    let want = Bounds::Str(lo[..lo.len().min(STRING_PREFIX)].to_vec(), want_hi);
                    assert_eq!(z.bounds, Some(want), "{values:?}");
                }
                _ => assert_eq!(z.bounds, None),
            }
        }
    }

    fn ints(values: &[Option<i32>]) -> ZoneMap {
        let v = vector(
            &DataType::Integer,
            &values
                .iter()
                .map(|v| v.map_or(ScalarValue::Null, ScalarValue::Integer))
                .collect::<Vec<_>>(),
        );
        ZoneMap::of(&v, values.len())
    }

    #[test]
    fn comparisons_skip_only_zones_without_matches() {
        let z = ints(&[Some(10), None, Some(20), Some(15)]);
        assert_eq!(z.nulls, 1);
        assert_eq!(z.bounds, Some(Bounds::Int(10, 20)));
        let cmp = |op, k: i128| z.may_match(&ZoneTest::Compare(op, Key::Int(k)));
        assert!(cmp(CompareOp::Eq, 10) && cmp(CompareOp::Eq, 20) && !cmp(CompareOp::Eq, 21));
        assert!(!cmp(CompareOp::Lt, 10) && cmp(CompareOp::Lt, 11));
        assert!(cmp(CompareOp::LtEq, 10) && !cmp(CompareOp::LtEq, 9));
        assert!(!cmp(CompareOp::Gt, 20) && cmp(CompareOp::Gt, 19));
        assert!(cmp(CompareOp::GtEq, 20) && !cmp(CompareOp::GtEq, 21));
        assert!(cmp(CompareOp::NotEq, 10));
        assert!(z.may_match(&ZoneTest::IsNull) && z.may_match(&ZoneTest::IsNotNull));
        assert!(!z.may_match(&ZoneTest::In(vec![Key::Int(1), Key::Int(30)])));
        assert!(z.may_match(&ZoneTest::In(vec![Key::Int(1), Key::Int(12)])));
        let same = ints(&[Some(7), Some(7)]);
        assert!(!same.may_match(&ZoneTest::Compare(CompareOp::NotEq, Key::Int(7))));
        assert!(!same.may_match(&ZoneTest::IsNull));
        let nulls = ints(&[None, None]);
        assert!(!nulls.may_match(&ZoneTest::Compare(CompareOp::NotEq, Key::Int(7))));
        assert!(!nulls.may_match(&ZoneTest::IsNotNull));
    }

    #[test]
    fn long_strings_keep_a_prefix_and_no_upper_bound() {
        let long = "m".repeat(40);
        let v = vector(
            &DataType::Varchar,
            &[ScalarValue::Varchar("b".into()), ScalarValue::Varchar(long)],
        );
        let z = ZoneMap::of(&v, 2);
        let cmp = |op, k: &str| z.may_match(&ZoneTest::Compare(op, Key::Str(k.into())));
        assert!(!cmp(CompareOp::Lt, "a") && cmp(CompareOp::Gt, "zzz") && cmp(CompareOp::Eq, "c"));
        let mut w = ByteWriter::new();
        z.write(&mut w);
        let back = ZoneMap::read(&mut ByteReader::new(&w.bytes, "test"), 2).expect("read");
        assert_eq!(back, z);
    }

    #[test]
    fn nan_leaves_floats_unbounded() {
        let v = vector(
            &DataType::Double,
            &[ScalarValue::Double(1.0), ScalarValue::Double(f64::NAN)],
        );
        let z = ZoneMap::of(&v, 2);
        assert_eq!(z.bounds, None);
        assert!(z.may_match(&ZoneTest::Compare(CompareOp::Gt, Key::Float(5.0))));
    }
}
