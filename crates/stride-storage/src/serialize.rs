//! Bytes for what the database file and the WAL hold: integers, strings, types, table
//! schemas and column vectors, in the encodings `docs/storage.md` documents. Every
//! read is bounds-checked: a damaged file gives an error naming what could not be
//! read, never a panic.
//!
//! Integers are little-endian; a string is its byte length (u32) and its UTF-8 bytes; a
//! list is its length (u32) and its elements.

use stride_common::time_unit::TimeUnit;
use stride_common::{
    ColumnSchema, DataType, Error, Interval, PhysicalType, Result, ScalarValue, TableSchema,
    Validity, Vector, VectorData,
};

/// Appends encoded values to a byte buffer.
#[derive(Default)]
pub struct ByteWriter {
    pub bytes: Vec<u8>,
    /// Set when a length did not fit its 32 bits: the bytes must not be used.
    pub overflowed: bool,
}

impl ByteWriter {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }

    pub fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub fn len_of(&mut self, n: usize) {
        let v = u32::try_from(n).unwrap_or_else(|_| {
            self.overflowed = true;
            u32::MAX
        });
        self.u32(v);
    }

    pub fn str(&mut self, s: &str) {
        self.len_of(s.len());
        self.bytes.extend_from_slice(s.as_bytes());
    }

    pub fn raw(&mut self, b: &[u8]) {
        self.bytes.extend_from_slice(b);
    }
}

/// Reads encoded values from a byte slice; `what` names the structure in errors.
pub struct ByteReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    what: &'a str,
}

impl<'a> ByteReader<'a> {
    pub fn new(bytes: &'a [u8], what: &'a str) -> Self {
        ByteReader {
            bytes,
            pos: 0,
            what,
        }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    pub fn is_at_end(&self) -> bool {
        self.pos == self.bytes.len()
    }

    /// Bytes read so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// An error saying the structure is damaged at the current position.
    pub fn corrupt(&self, detail: &str) -> Error {
        Error::io(format!(
            "{} is damaged at byte {}: {detail}",
            self.what, self.pos
        ))
    }

    /// `count` items of `size` bytes each.
    pub fn items(&mut self, count: usize, size: usize) -> Result<&'a [u8]> {
        let n = count
            .checked_mul(size)
            .ok_or_else(|| self.corrupt(&format!("{count} items of {size} bytes")))?;
        self.raw(n)
    }

    pub fn raw(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.bytes.len() - self.pos < n {
            return Err(self.corrupt(&format!(
                "{n} bytes needed, {} left",
                self.bytes.len() - self.pos
            )));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.raw(1)?[0])
    }

    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.raw(4)?.try_into().expect("4 bytes"),
        ))
    }

    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.raw(8)?.try_into().expect("8 bytes"),
        ))
    }

    /// A length (u32) of items each at least `min_size` bytes long, checked against
    /// the bytes left so that a damaged length cannot ask for a huge allocation.
    pub fn len_of(&mut self, min_size: usize) -> Result<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_size.max(1)) > self.bytes.len() - self.pos && min_size > 0 {
            return Err(self.corrupt(&format!("a length of {n} exceeds the data")));
        }
        Ok(n)
    }

    pub fn str(&mut self) -> Result<String> {
        let n = self.len_of(1)?;
        let b = self.raw(n)?;
        String::from_utf8(b.to_vec()).map_err(|_| self.corrupt("a string is not UTF-8"))
    }

    pub fn bool(&mut self) -> Result<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(self.corrupt(&format!("{b} is not a boolean"))),
        }
    }
}

/// Whether a string-shaped type's values must be UTF-8 (all but BLOB): what readers
/// check before a string enters a vector.
pub fn is_text(ty: &DataType) -> bool {
    !matches!(ty, DataType::Blob | DataType::Bit)
}

pub fn write_type(w: &mut ByteWriter, ty: &DataType) {
    match ty {
        DataType::Null => w.u8(0),
        DataType::Boolean => w.u8(1),
        DataType::TinyInt => w.u8(2),
        DataType::SmallInt => w.u8(3),
        DataType::Integer => w.u8(4),
        DataType::BigInt => w.u8(5),
        DataType::Real => w.u8(6),
        DataType::Double => w.u8(7),
        DataType::Decimal(p, s) => {
            w.u8(8);
            w.u8(*p);
            w.u8(*s);
        }
        DataType::Varchar => w.u8(9),
        DataType::Date => w.u8(10),
        DataType::Timestamp => w.u8(11),
        // 22: 20 is JSON, 21 BLOB (added in parallel)
        DataType::TimestampTz => w.u8(22),
        DataType::Interval => w.u8(12),
        // 20, not the next free tag: other types are being added in parallel
        DataType::Json => w.u8(20),
        DataType::List(child) => {
            w.u8(13);
            write_type(w, child);
        }
        // format 7
        DataType::HugeInt => w.u8(14),
        DataType::Time => w.u8(15),
        DataType::Uuid => w.u8(16),
        // format 8
        DataType::Array(t, n) => {
            w.u8(19);
            write_type(w, t);
            w.u32(*n);
        }
        DataType::Map(k, v) => {
            w.u8(18);
            write_type(w, k);
            write_type(w, v);
        }
        // format 9
        DataType::Blob => w.u8(21),
        // format 10: each stored as the next wider signed integer is
        DataType::UTinyInt => w.u8(24),
        DataType::USmallInt => w.u8(25),
        DataType::UInteger => w.u8(26),
        DataType::UBigInt => w.u8(27),
        // stored as a BLOB is, in DuckDB's layout (`stride_common::bit`)
        DataType::Bit => w.u8(28),
        // format 11: the value in its unit, as a BIGINT is stored
        DataType::TimestampUnit(TimeUnit::Second) => w.u8(29),
        DataType::TimestampUnit(TimeUnit::Millisecond) => w.u8(30),
        DataType::TimestampUnit(TimeUnit::Nanosecond) => w.u8(31),
        // the stored form of `stride_common::time_tz`, as a BIGINT is stored
        DataType::TimeTz => w.u8(32),
        // format 12: the stored form of `stride_common::flip128`, as HUGEINT is stored
        DataType::UHugeInt => w.u8(33),
        // the members as a STRUCT's fields; the values are stored as the STRUCT of the
        // tag and the members (`stride_common::union_type`)
        DataType::Union(members) => {
            w.u8(34);
            w.len_of(members.len());
            for (name, ty) in members {
                w.str(name);
                write_type(w, ty);
            }
        }
        // the type's name (a flag byte, then the name when the flag is 1) and its
        // labels in order
        DataType::Enum(e) => {
            w.u8(23);
            match e.name() {
                Some(name) => {
                    w.u8(1);
                    w.str(name);
                }
                None => w.u8(0),
            }
            w.len_of(e.len());
            for l in e.labels() {
                w.str(l);
            }
        }
        DataType::Struct(fields) => {
            w.u8(17);
            w.len_of(fields.len());
            for (name, ty) in fields {
                w.str(name);
                write_type(w, ty);
            }
        }
    }
}

pub fn read_type(r: &mut ByteReader) -> Result<DataType> {
    Ok(match r.u8()? {
        0 => DataType::Null,
        1 => DataType::Boolean,
        2 => DataType::TinyInt,
        3 => DataType::SmallInt,
        4 => DataType::Integer,
        5 => DataType::BigInt,
        6 => DataType::Real,
        7 => DataType::Double,
        8 => {
            let (p, s) = (r.u8()?, r.u8()?);
            if p == 0 || p > 38 || s > p {
                return Err(r.corrupt(&format!("DECIMAL({p},{s}) is not a valid type")));
            }
            DataType::Decimal(p, s)
        }
        9 => DataType::Varchar,
        10 => DataType::Date,
        11 => DataType::Timestamp,
        12 => DataType::Interval,
        13 => DataType::List(Box::new(read_type(r)?)),
        14 => DataType::HugeInt,
        15 => DataType::Time,
        16 => DataType::Uuid,
        21 => DataType::Blob,
        17 => {
            let n = r.len_of(2)?;
            if n == 0 {
                return Err(r.corrupt("a STRUCT type without fields"));
            }
            let mut fields = Vec::with_capacity(n);
            for _ in 0..n {
                let name = r.str()?;
                fields.push((name, read_type(r)?));
            }
            DataType::Struct(fields)
        }
        18 => {
            let k = read_type(r)?;
            DataType::Map(Box::new(k), Box::new(read_type(r)?))
        }
        19 => {
            let t = read_type(r)?;
            DataType::Array(Box::new(t), r.u32()?)
        }
        20 => DataType::Json,
        22 => DataType::TimestampTz,
        24 => DataType::UTinyInt,
        25 => DataType::USmallInt,
        26 => DataType::UInteger,
        27 => DataType::UBigInt,
        28 => DataType::Bit,
        29 => DataType::TimestampUnit(TimeUnit::Second),
        30 => DataType::TimestampUnit(TimeUnit::Millisecond),
        31 => DataType::TimestampUnit(TimeUnit::Nanosecond),
        32 => DataType::TimeTz,
        33 => DataType::UHugeInt,
        34 => {
            let n = r.len_of(2)?;
            let mut members = Vec::with_capacity(n);
            for _ in 0..n {
                let name = r.str()?;
                members.push((name, read_type(r)?));
            }
            stride_common::union_type::check(&members)
                .map_err(|e| r.corrupt(&format!("a bad UNION type: {}", e.message)))?;
            DataType::Union(members)
        }
        23 => {
            let name = match r.u8()? {
                0 => None,
                1 => Some(r.str()?),
                b => return Err(r.corrupt(&format!("{b} is not an ENUM name's flag"))),
            };
            let n = r.len_of(4)?;
            let mut labels = Vec::with_capacity(n);
            for _ in 0..n {
                labels.push(r.str()?);
            }
            let e = stride_common::EnumType::new(name, labels)
                .map_err(|e| r.corrupt(&format!("an ENUM type is not valid: {}", e.message)))?;
            DataType::Enum(e)
        }
        t => return Err(r.corrupt(&format!("unknown type tag {t}"))),
    })
}

pub fn write_schema(w: &mut ByteWriter, s: &TableSchema) {
    w.str(&s.name);
    w.len_of(s.columns.len());
    for c in &s.columns {
        w.str(&c.name);
        write_type(w, &c.ty);
        let flags = u8::from(c.not_null)
            | u8::from(c.collation.nocase) << 1
            | u8::from(c.collation.noaccent) << 2;
        w.u8(flags);
        match (&c.default, &c.default_expr) {
            (Some(v), _) => {
                w.u8(1);
                write_scalar(w, v, &c.ty);
            }
            // format 9
            (None, Some(sql)) => {
                w.u8(2);
                w.str(sql);
            }
            (None, None) => w.u8(0),
        }
    }
    // format 13: the count's top bit says the CHECK constraints follow the keys;
    // format 14: the next bit says which key is the PRIMARY KEY follows them
    let mut flags = 0;
    if !s.checks.is_empty() {
        flags |= CHECKS_FOLLOW;
    }
    if s.primary_key.is_some() {
        flags |= PRIMARY_KEY_FOLLOWS;
    }
    w.u32(s.unique_keys.len() as u32 | flags);
    for k in &s.unique_keys {
        write_positions(w, k);
    }
    if let Some(k) = s.primary_key {
        w.u32(k as u32);
    }
    if !s.checks.is_empty() {
        w.len_of(s.checks.len());
        for c in &s.checks {
            match &c.name {
                Some(name) => {
                    w.u8(1);
                    w.str(name);
                }
                None => w.u8(0),
            }
            w.str(&c.expr);
        }
    }
}

/// Set in a schema's count of unique keys when its CHECK constraints follow the keys
/// (format 13): a schema written before them ends with the keys.
const CHECKS_FOLLOW: u32 = 1 << 31;
/// Set in a schema's count of unique keys when the position of its PRIMARY KEY among
/// them follows the keys (format 14); earlier schemas name no primary key.
const PRIMARY_KEY_FOLLOWS: u32 = 1 << 30;

pub fn read_schema(r: &mut ByteReader) -> Result<TableSchema> {
    let name = r.str()?;
    let n = r.len_of(6)?;
    let mut columns = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.str()?;
        let ty = read_type(r)?;
        let flags = r.u8()?;
        if flags > 0b111 {
            return Err(r.corrupt(&format!("column flags {flags:#x} are not valid")));
        }
        let not_null = flags & 1 != 0;
        let collation = stride_common::Collation {
            nocase: flags & 2 != 0,
            noaccent: flags & 4 != 0,
        };
        let (default, default_expr) = match r.u8()? {
            0 => (None, None),
            1 => (Some(read_scalar(r, &ty)?), None),
            2 => (None, Some(r.str()?)),
            b => return Err(r.corrupt(&format!("{b} is not a column default's kind"))),
        };
        columns.push(ColumnSchema {
            name,
            ty,
            not_null,
            default,
            default_expr,
            collation,
        });
    }
    let count = r.u32()?;
    let k = (count & !(CHECKS_FOLLOW | PRIMARY_KEY_FOLLOWS)) as usize;
    if k.saturating_mul(4) > r.remaining() {
        return Err(r.corrupt(&format!("a length of {k} exceeds the data")));
    }
    let mut unique_keys = Vec::with_capacity(k);
    for _ in 0..k {
        let key = read_positions(r)?;
        if key.iter().any(|&c| c >= columns.len()) {
            return Err(r.corrupt("a unique key names a column the table lacks"));
        }
        unique_keys.push(key);
    }
    let primary_key = if count & PRIMARY_KEY_FOLLOWS != 0 {
        let p = r.u32()? as usize;
        if p >= unique_keys.len() {
            return Err(r.corrupt("the primary key is not one of the table's keys"));
        }
        Some(p)
    } else {
        None
    };
    let mut checks = Vec::new();
    if count & CHECKS_FOLLOW != 0 {
        for _ in 0..r.len_of(5)? {
            let name = match r.u8()? {
                0 => None,
                1 => Some(r.str()?),
                b => return Err(r.corrupt(&format!("{b} is not a CHECK constraint's kind"))),
            };
            checks.push(stride_common::CheckConstraint {
                name,
                expr: r.str()?,
            });
        }
    }
    Ok(TableSchema {
        name,
        columns,
        unique_keys,
        primary_key,
        checks,
    })
}

pub fn write_positions(w: &mut ByteWriter, p: &[usize]) {
    w.len_of(p.len());
    for &c in p {
        w.len_of(c);
    }
}

pub fn read_positions(r: &mut ByteReader) -> Result<Vec<usize>> {
    let n = r.len_of(4)?;
    (0..n).map(|_| Ok(r.u32()? as usize)).collect()
}

/// A value of type `ty`, as a one-row vector.
pub fn write_scalar(w: &mut ByteWriter, v: &ScalarValue, ty: &DataType) {
    let vector = match Vector::constant(v, ty) {
        Ok(c) => c.flatten(1),
        Err(_) => Vector::null_constant(ty).flatten(1),
    };
    write_vector(w, &vector, 1);
}

pub fn read_scalar(r: &mut ByteReader, ty: &DataType) -> Result<ScalarValue> {
    Ok(read_vector(r, ty, 1)?.get(0))
}

/// Strings: the byte length of each (u32), their total byte count (u64), then their
/// bytes one after another.
pub fn write_strings(w: &mut ByteWriter, strings: &[&[u8]]) {
    for b in strings {
        w.len_of(b.len());
    }
    w.u64(strings.iter().map(|b| b.len() as u64).sum());
    for b in strings {
        w.raw(b);
    }
}

/// `n` strings written by [`write_strings`], checked to be UTF-8 when `text` (every
/// string-shaped type but BLOB, [`is_text`]).
pub fn read_strings<'a>(r: &mut ByteReader<'a>, n: usize, text: bool) -> Result<Vec<&'a [u8]>> {
    let lens = r.items(n, 4)?;
    let total = r.u64()?;
    let bytes = r.raw(usize::try_from(total).unwrap_or(usize::MAX))?;
    let mut out = Vec::with_capacity(n);
    let mut at = 0usize;
    for c in lens.chunks_exact(4) {
        let k = u32::from_le_bytes(c.try_into().expect("4")) as usize;
        let piece = bytes
            .get(at..at + k)
            .ok_or_else(|| r.corrupt("string lengths exceed the string bytes"))?;
        if text && std::str::from_utf8(piece).is_err() {
            return Err(r.corrupt("a string is not UTF-8"));
        }
        out.push(piece);
        at += k;
    }
    Ok(out)
}

/// Which of the first `len` rows of `v` are not NULL: a flag byte (0: all of them; 1:
/// a bitmap of `ceil(len / 8)` bytes follows, bit i set when row i is valid; 2: none).
pub fn write_validity(w: &mut ByteWriter, v: &Vector, len: usize) {
    match (v.constant, v.is_valid(0)) {
        (true, true) => write_validity_of(w, &Validity::all_valid(), len),
        (true, false) => write_validity_of(w, &Validity::all_invalid(len), len),
        (false, _) => write_validity_of(w, &v.validity, len),
    }
}

/// [`write_validity`] of a mask of `len` rows.
pub fn write_validity_of(w: &mut ByteWriter, validity: &Validity, len: usize) {
    if !validity.has_nulls() {
        w.u8(0);
        return;
    }
    if (0..len).all(|i| !validity.is_valid(i)) {
        w.u8(2);
        return;
    }
    w.u8(1);
    let mut bits = vec![0u8; len.div_ceil(8)];
    for (i, byte) in bits.iter_mut().enumerate() {
        for b in 0..8 {
            let row = i * 8 + b;
            if row < len && validity.is_valid(row) {
                *byte |= 1 << b;
            }
        }
    }
    w.raw(&bits);
}

pub fn read_validity(r: &mut ByteReader, len: usize) -> Result<Validity> {
    Ok(match r.u8()? {
        0 => Validity::all_valid(),
        1 => {
            let bits = r.items(len.div_ceil(8), 1)?;
            Validity::from_fn(len, |i| bits[i / 8] & (1 << (i % 8)) != 0)
        }
        2 => Validity::all_invalid(len),
        b => return Err(r.corrupt(&format!("validity flag {b}"))),
    })
}

/// The first `len` rows of `v`: a validity flag byte (0: no NULLs; 1: a bitmap of
/// `ceil(len / 8)` bytes follows, bit i set when row i is valid), then the values.
pub fn write_vector(w: &mut ByteWriter, v: &Vector, len: usize) {
    let flat;
    let v = if v.constant && len != 1 {
        flat = v.clone().flatten(len);
        &flat
    } else {
        v
    };
    write_validity(w, v, len);
    match &v.data {
        VectorData::Bool(d) => w.raw(&d[..len].iter().map(|&b| b as u8).collect::<Vec<_>>()),
        VectorData::I8(d) => d[..len].iter().for_each(|x| w.raw(&x.to_le_bytes())),
        VectorData::I16(d) => d[..len].iter().for_each(|x| w.raw(&x.to_le_bytes())),
        VectorData::I32(d) => d[..len].iter().for_each(|x| w.raw(&x.to_le_bytes())),
        VectorData::I64(d) => d[..len].iter().for_each(|x| w.raw(&x.to_le_bytes())),
        VectorData::I128(d) => d[..len].iter().for_each(|x| w.raw(&x.to_le_bytes())),
        VectorData::F32(d) => d[..len].iter().for_each(|x| w.raw(&x.to_le_bytes())),
        VectorData::F64(d) => d[..len].iter().for_each(|x| w.raw(&x.to_le_bytes())),
        VectorData::Interval(d) => d[..len].iter().for_each(|x| {
            w.raw(&x.months.to_le_bytes());
            w.raw(&x.days.to_le_bytes());
            w.raw(&x.micros.to_le_bytes());
        }),
        VectorData::Str(s) => {
            let strings: Vec<&[u8]> = (0..len).map(|i| s.bytes_of(&s.views[i])).collect();
            write_strings(w, &strings);
        }
        VectorData::List(l) => {
            let base = l.offsets[0];
            for &o in &l.offsets[..=len] {
                w.u32(o - base);
            }
            let (start, end) = (base as usize, l.offsets[len] as usize);
            let child = l.child.slice(start, end - start);
            write_vector(w, &child, end - start);
        }
        VectorData::Struct(st) => {
            for f in &st.fields {
                write_vector(w, f, len);
            }
        }
    }
}

/// Reads `len` rows of a vector of type `ty` written by [`write_vector`].
pub fn read_vector(r: &mut ByteReader, ty: &DataType, len: usize) -> Result<Vector> {
    let validity = read_validity(r, len)?;
    macro_rules! fixed {
        ($t:ty, $variant:ident) => {{
            const W: usize = std::mem::size_of::<$t>();
            let bytes = r.items(len, W)?;
            VectorData::$variant(
                bytes
                    .chunks_exact(W)
                    .map(|c| <$t>::from_le_bytes(c.try_into().expect("width")))
                    .collect::<Vec<$t>>()
                    .into(),
            )
        }};
    }
    let data = match ty.physical() {
        PhysicalType::Bool => VectorData::Bool(
            r.raw(len)?
                .iter()
                .map(|&b| b != 0)
                .collect::<Vec<_>>()
                .into(),
        ),
        PhysicalType::I8 => fixed!(i8, I8),
        PhysicalType::I16 => fixed!(i16, I16),
        PhysicalType::I32 => fixed!(i32, I32),
        PhysicalType::I64 => fixed!(i64, I64),
        PhysicalType::I128 => fixed!(i128, I128),
        PhysicalType::F32 => fixed!(f32, F32),
        PhysicalType::F64 => fixed!(f64, F64),
        PhysicalType::Interval => {
            let bytes = r.items(len, 16)?;
            let v: Vec<Interval> = bytes
                .chunks_exact(16)
                .map(|c| Interval {
                    months: i32::from_le_bytes(c[0..4].try_into().expect("4")),
                    days: i32::from_le_bytes(c[4..8].try_into().expect("4")),
                    micros: i64::from_le_bytes(c[8..16].try_into().expect("8")),
                })
                .collect();
            VectorData::Interval(v.into())
        }
        PhysicalType::Str => {
            let strings = read_strings(r, len, is_text(ty))?;
            let mut s = stride_common::StringVector::with_capacity(len);
            s.reserve_heap(strings.iter().map(|x| x.len()).sum());
            for bytes in strings {
                // checked to be UTF-8 above unless the type is BLOB
                s.push_blob(bytes);
            }
            VectorData::Str(s)
        }
        PhysicalType::List => {
            let Some(child_ty) = ty.list_child() else {
                return Err(Error::internal(format!("{ty} is not a list type")));
            };
            let raw = r.items(len.saturating_add(1), 4)?;
            let offsets: Vec<u32> = raw
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4")))
                .collect();
            if offsets[0] != 0 || offsets.windows(2).any(|p| p[0] > p[1]) {
                return Err(r.corrupt("list offsets are not increasing from 0"));
            }
            let child = read_vector(r, &child_ty, offsets[len] as usize)?;
            VectorData::List(stride_common::vector::ListData {
                offsets,
                child: Box::new(child),
            })
        }
        PhysicalType::Struct => {
            let Some(fields) = ty.stored_fields() else {
                return Err(Error::internal(format!("{ty} is not a struct type")));
            };
            VectorData::Struct(stride_common::vector::StructData {
                fields: fields
                    .iter()
                    .map(|(_, t)| read_vector(r, t, len))
                    .collect::<Result<_>>()?,
            })
        }
    };
    Ok(Vector::new(ty.clone(), data, validity))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(ty: DataType, values: Vec<ScalarValue>) {
        let mut v = Vector::empty(&ty);
        for x in &values {
            v.push(x).unwrap();
        }
        let mut w = ByteWriter::new();
        write_vector(&mut w, &v, values.len());
        let mut r = ByteReader::new(&w.bytes, "test vector");
        let back = read_vector(&mut r, &ty, values.len()).unwrap();
        assert!(r.is_at_end());
        let got: Vec<ScalarValue> = (0..values.len()).map(|i| back.get(i)).collect();
        assert_eq!(got, values);
        // Every truncation is an error, never a panic.
        for cut in 0..w.bytes.len() {
            let mut r = ByteReader::new(&w.bytes[..cut], "test vector");
            assert!(read_vector(&mut r, &ty, values.len()).is_err());
        }
    }

    #[test]
    fn vectors_of_every_type_round_trip() {
        use ScalarValue::*;
        round_trip(DataType::Boolean, vec![Boolean(true), Null, Boolean(false)]);
        round_trip(DataType::TinyInt, vec![TinyInt(-1), Null]);
        round_trip(DataType::Integer, vec![Integer(7), Integer(i32::MIN), Null]);
        round_trip(DataType::BigInt, vec![BigInt(i64::MAX)]);
        round_trip(DataType::Double, vec![Double(-0.0), Double(1.5), Null]);
        round_trip(DataType::Decimal(38, 2), vec![Decimal(-12345, 38, 2), Null]);
        round_trip(DataType::Decimal(9, 2), vec![Decimal(12345, 9, 2)]);
        round_trip(
            DataType::Varchar,
            vec![
                Varchar("".into()),
                Null,
                Varchar("a string longer than twelve".into()),
            ],
        );
        round_trip(DataType::Json, vec![Varchar(r#"{"a":[1,2]}"#.into()), Null]);
        round_trip(DataType::Date, vec![Date(-1), Date(19000)]);
        let mood = stride_common::EnumType::new(
            Some("mood".into()),
            vec!["sad".into(), "ok".into(), "happy".into()],
        )
        .unwrap();
        round_trip(
            DataType::Enum(mood.clone()),
            vec![Enum(mood.clone(), 2), Null, Enum(mood.clone(), 0)],
        );
        // the type itself, its name and labels included
        for e in [mood.clone(), mood.with_name(None)] {
            let mut w = ByteWriter::new();
            write_type(&mut w, &DataType::Enum(e.clone()));
            let mut r = ByteReader::new(&w.bytes, "test type");
            match read_type(&mut r).unwrap() {
                DataType::Enum(back) => {
                    assert_eq!(back.name(), e.name());
                    assert_eq!(back.labels(), e.labels());
                }
                other => panic!("read back {other}"),
            }
            for cut in 0..w.bytes.len() {
                assert!(read_type(&mut ByteReader::new(&w.bytes[..cut], "test type")).is_err());
            }
        }
        round_trip(
            DataType::Interval,
            vec![Interval(stride_common::Interval {
                months: 1,
                days: -2,
                micros: 3,
            })],
        );
        let list = DataType::List(Box::new(DataType::Integer));
        round_trip(
            list.clone(),
            vec![
                List(DataType::Integer, vec![Integer(1), Null]),
                Null,
                List(DataType::Integer, vec![]),
            ],
        );
        let fields = vec![
            ("a".to_string(), DataType::Integer),
            ("l".to_string(), list.clone()),
        ];
        round_trip(
            DataType::Struct(fields.clone()),
            vec![
                Struct(
                    fields.clone(),
                    vec![Integer(1), List(DataType::Integer, vec![Integer(2)])],
                ),
                Null,
                Struct(fields.clone(), vec![Null, Null]),
            ],
        );
    }

    #[test]
    fn schemas_round_trip() {
        let s = TableSchema {
            name: "t".into(),
            columns: vec![
                ColumnSchema {
                    name: "a".into(),
                    ty: DataType::Decimal(10, 2),
                    not_null: true,
                    default: Some(ScalarValue::Decimal(150, 10, 2)),
                    default_expr: None,
                    collation: stride_common::Collation::BINARY,
                },
                ColumnSchema {
                    name: "b".into(),
                    ty: DataType::List(Box::new(DataType::Varchar)),
                    not_null: false,
                    default: None,
                    default_expr: Some("nextval('s')".into()),
                    collation: stride_common::Collation {
                        nocase: true,
                        noaccent: true,
                    },
                },
            ],
            unique_keys: vec![vec![0], vec![0, 1]],
            primary_key: Some(1),
            checks: vec![
                stride_common::CheckConstraint {
                    name: None,
                    expr: "a > 0".into(),
                },
                stride_common::CheckConstraint {
                    name: Some("short".into()),
                    expr: "length(b) < a".into(),
                },
            ],
        };
        let mut w = ByteWriter::new();
        write_schema(&mut w, &s);
        let back = read_schema(&mut ByteReader::new(&w.bytes, "schema")).unwrap();
        assert_eq!(back, s);
    }
}
