//! mode(x), the most frequent non-NULL value of a group (on ties, the one seen
//! first), entropy(x), the base-2 entropy of the distribution of its non-NULL
//! values (0 for no values), and approx_top_k(x, k), the k most frequent non-NULL
//! values, most frequent first (counted exactly here; NULL for a group without
//! values), and histogram(x), every distinct non-NULL value with its count as a MAP
//! ordered by value (NULL for a group without values). All count each distinct
//! value per group; partial states
//! are the distinct values with their counts, as two lists per group.

use super::GroupedState;
use std::collections::HashMap;
use stride_common::{DataType, Result, ScalarValue, Vector, VectorData};

/// A value as a hashable key: integers widened, floats by their bits (with -0 as 0
/// and one NaN, so equal values count together), strings by their bytes.
#[derive(PartialEq, Eq, Hash)]
enum Key {
    Int(i128),
    Float(u64),
    Bytes(Box<[u8]>),
    /// Intervals and lists, by their printed form.
    Text(String),
}

fn key(v: &Vector, i: usize) -> Key {
    let j = v.index(i);
    let float = |x: f64| {
        let x = if x == 0.0 {
            0.0
        } else if x.is_nan() {
            f64::NAN
        } else {
            x
        };
        Key::Float(x.to_bits())
    };
    match &v.data {
        VectorData::Bool(b) => Key::Int(b[j] as i128),
        VectorData::I8(b) => Key::Int(b[j] as i128),
        VectorData::I16(b) => Key::Int(b[j] as i128),
        VectorData::I32(b) => Key::Int(b[j] as i128),
        VectorData::I64(b) => Key::Int(b[j] as i128),
        VectorData::I128(b) => Key::Int(b[j]),
        VectorData::F32(b) => float(b[j] as f64),
        VectorData::F64(b) => float(b[j]),
        VectorData::Str(sv) => Key::Bytes(sv.bytes_of(&sv.views[j]).into()),
        VectorData::Interval(_) | VectorData::List(_) | VectorData::Struct(_) => {
            Key::Text(v.get(i).to_string())
        }
    }
}

/// One distinct value of a group: how often it occurred, and when it was first seen.
struct Seen {
    count: i64,
    first: usize,
    value: ScalarValue,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Mode,
    Entropy,
    TopK(usize),
    Histogram,
}

pub struct ValueCounts {
    out: Output,
    ty: DataType,
    groups: Vec<HashMap<Key, Seen>>,
    /// Values seen so far, in any group: orders first sightings.
    seen: usize,
}

impl ValueCounts {
    pub fn new(out: Output, ty: &DataType) -> Self {
        ValueCounts {
            out,
            ty: ty.clone(),
            groups: Vec::new(),
            seen: 0,
        }
    }

    fn add(&mut self, g: usize, v: &Vector, i: usize, count: i64) {
        let first = self.seen;
        self.seen += 1;
        self.groups[g]
            .entry(key(v, i))
            .or_insert_with(|| Seen {
                count: 0,
                first,
                value: v.get(i),
            })
            .count += count;
    }

    /// A group's distinct values in the order they were first seen.
    fn ordered(map: &HashMap<Key, Seen>) -> Vec<&Seen> {
        let mut all: Vec<&Seen> = map.values().collect();
        all.sort_by_key(|s| s.first);
        all
    }
}

impl GroupedState for ValueCounts {
    fn resize(&mut self, groups: usize) {
        self.groups.resize_with(groups, HashMap::new);
    }

    fn update(&mut self, groups: &[u32], args: &[&Vector], rows: usize) -> Result<()> {
        for (i, &g) in groups[..rows].iter().enumerate() {
            if args[0].is_valid(i) {
                self.add(g as usize, args[0], i, 1);
            }
        }
        Ok(())
    }

    fn partial(&mut self) -> Result<Vec<Vector>> {
        let values_ty = DataType::List(Box::new(self.ty.clone()));
        let counts_ty = DataType::List(Box::new(DataType::BigInt));
        let mut values = Vector::with_capacity(&values_ty, self.groups.len());
        let mut counts = Vector::with_capacity(&counts_ty, self.groups.len());
        for map in std::mem::take(&mut self.groups) {
            let all = Self::ordered(&map);
            let vals = all.iter().map(|s| s.value.clone()).collect();
            let cnts = all.iter().map(|s| ScalarValue::BigInt(s.count)).collect();
            values.push(&ScalarValue::List(self.ty.clone(), vals))?;
            counts.push(&ScalarValue::List(DataType::BigInt, cnts))?;
        }
        Ok(vec![values, counts])
    }

    fn merge(&mut self, groups: &[u32], partial: &[Vector], rows: usize) -> Result<()> {
        for (i, &g) in groups[..rows].iter().enumerate() {
            let (ScalarValue::List(_, vals), ScalarValue::List(_, cnts)) =
                (partial[0].get(i), partial[1].get(i))
            else {
                continue;
            };
            let mut values = Vector::with_capacity(&self.ty, vals.len());
            for v in &vals {
                values.push(v)?;
            }
            for (j, c) in cnts.iter().enumerate() {
                self.add(g as usize, &values, j, c.as_i64().unwrap_or(0));
            }
        }
        Ok(())
    }

    fn finalize(&mut self) -> Result<Vector> {
        let n = self.groups.len();
        match self.out {
            Output::Mode => {
                let mut out = Vector::with_capacity(&self.ty, n);
                for map in &self.groups {
                    // the highest count; among equals, the first seen
                    let best = Self::ordered(map).into_iter().rev().max_by_key(|s| s.count);
                    match best {
                        Some(s) => out.push(&s.value)?,
                        None => out.push_null(),
                    }
                }
                Ok(out)
            }
            Output::TopK(k) => {
                let list_ty = DataType::List(Box::new(self.ty.clone()));
                let mut out = Vector::with_capacity(&list_ty, n);
                for map in &self.groups {
                    if map.is_empty() {
                        out.push_null();
                        continue;
                    }
                    let mut all = Self::ordered(map);
                    // stable: among equal counts, the first seen first
                    all.sort_by_key(|s| std::cmp::Reverse(s.count));
                    let top = all.iter().take(k).map(|s| s.value.clone()).collect();
                    out.push(&ScalarValue::List(self.ty.clone(), top))?;
                }
                Ok(out)
            }
            Output::Histogram => {
                let ty = DataType::Map(Box::new(self.ty.clone()), Box::new(DataType::UBigInt));
                let mut out = Vector::with_capacity(&ty, n);
                for map in &self.groups {
                    if map.is_empty() {
                        out.push_null();
                        continue;
                    }
                    let mut all: Vec<&Seen> = map.values().collect();
                    all.sort_by(|a, b| a.value.total_cmp(&b.value));
                    let entries = all
                        .iter()
                        .map(|s| (s.value.clone(), ScalarValue::UBigInt(s.count as u64)))
                        .collect();
                    out.push(&ScalarValue::Map(
                        self.ty.clone(),
                        DataType::UBigInt,
                        entries,
                    ))?;
                }
                Ok(out)
            }
            Output::Entropy => {
                let vals = self.groups.iter().map(|map| {
                    let total: i64 = map.values().map(|s| s.count).sum();
                    let t = total as f64;
                    map.values()
                        .map(|s| {
                            let p = s.count as f64 / t;
                            -p * p.log2()
                        })
                        .sum::<f64>()
                        + 0.0
                });
                Ok(Vector::from_values(
                    DataType::Double,
                    vals.collect::<Vec<_>>(),
                ))
            }
        }
    }
}
