//! Columnar vectors: one column of up to [`crate::VECTOR_SIZE`] values of one logical
//! type, a validity mask, and a `constant` flag (one stored value standing for every
//! row, as produced by literals). Kernels read values through [`NativeType::slice`] and
//! are monomorphized per physical type.
//!
//! Invariants: `data` matches `ty.physical()`; a constant vector stores exactly one
//! value; the validity mask is indexed like `data`.

use crate::buffer::Buffer;
use crate::error::{Error, Result};
use crate::interval::Interval;
use crate::scalar::ScalarValue;
use crate::string_view::StringVector;
use crate::types::{DataType, PhysicalType};
use crate::validity::Validity;

/// A list column: row i holds `child[offsets[i]..offsets[i+1]]`.
#[derive(Clone, Debug)]
pub struct ListData {
    pub offsets: Vec<u32>,
    pub child: Box<Vector>,
}

/// A struct column: field j of row i is `fields[j]`'s row i. The fields are flat
/// (never constant) vectors with as many rows as the struct; a NULL struct holds NULL
/// in every field.
#[derive(Clone, Debug)]
pub struct StructData {
    pub fields: Vec<Vector>,
}

impl StructData {
    fn len(&self) -> usize {
        self.fields.first().map_or(0, Vector::data_len)
    }
}

#[derive(Clone, Debug)]
pub enum VectorData {
    Bool(Buffer<bool>),
    I8(Buffer<i8>),
    I16(Buffer<i16>),
    I32(Buffer<i32>),
    I64(Buffer<i64>),
    I128(Buffer<i128>),
    F32(Buffer<f32>),
    F64(Buffer<f64>),
    Str(StringVector),
    Interval(Buffer<Interval>),
    List(ListData),
    Struct(StructData),
}

/// Fixed-width values a vector can hold; lets kernels be generic over the physical type.
pub trait NativeType:
    Copy + Default + PartialEq + PartialOrd + Send + Sync + std::fmt::Debug + 'static
{
    const PHYSICAL: PhysicalType;
    fn slice(d: &VectorData) -> &[Self];
    /// The values as a `Vec` to write to (copied first when shared).
    fn vec_mut(d: &mut VectorData) -> &mut Vec<Self>;
    fn wrap(v: Vec<Self>) -> VectorData;
    fn wrap_buffer(b: Buffer<Self>) -> VectorData;
    fn buffer(d: &VectorData) -> &Buffer<Self>;
}

macro_rules! native {
    ($t:ty, $variant:ident, $phys:ident) => {
        impl NativeType for $t {
            const PHYSICAL: PhysicalType = PhysicalType::$phys;
            #[inline]
            fn slice(d: &VectorData) -> &[Self] {
                match d {
                    VectorData::$variant(v) => v,
                    other => panic!(
                        "internal: expected {} vector, found {:?}",
                        stringify!($t),
                        other.physical()
                    ),
                }
            }
            #[inline]
            fn vec_mut(d: &mut VectorData) -> &mut Vec<Self> {
                match d {
                    VectorData::$variant(v) => v.make_mut(),
                    other => panic!(
                        "internal: expected {} vector, found {:?}",
                        stringify!($t),
                        other.physical()
                    ),
                }
            }
            #[inline]
            fn wrap_buffer(b: Buffer<Self>) -> VectorData {
                VectorData::$variant(b)
            }
            #[inline]
            fn buffer(d: &VectorData) -> &Buffer<Self> {
                match d {
                    VectorData::$variant(v) => v,
                    other => panic!(
                        "internal: expected {} vector, found {:?}",
                        stringify!($t),
                        other.physical()
                    ),
                }
            }
            #[inline]
            fn wrap(v: Vec<Self>) -> VectorData {
                VectorData::$variant(v.into())
            }
        }
    };
}
native!(bool, Bool, Bool);
native!(i8, I8, I8);
native!(i16, I16, I16);
native!(i32, I32, I32);
native!(i64, I64, I64);
native!(i128, I128, I128);
native!(f32, F32, F32);
native!(f64, F64, F64);
native!(Interval, Interval, Interval);

/// Runs `$body` with `$T` bound to the native type of a fixed-width physical type;
/// `Str` and `List` go to `$other`.
#[macro_export]
macro_rules! with_native {
    ($phys:expr, $T:ident => $body:expr, _ => $other:expr) => {
        match $phys {
            $crate::PhysicalType::Bool => {
                type $T = bool;
                $body
            }
            $crate::PhysicalType::I8 => {
                type $T = i8;
                $body
            }
            $crate::PhysicalType::I16 => {
                type $T = i16;
                $body
            }
            $crate::PhysicalType::I32 => {
                type $T = i32;
                $body
            }
            $crate::PhysicalType::I64 => {
                type $T = i64;
                $body
            }
            $crate::PhysicalType::I128 => {
                type $T = i128;
                $body
            }
            $crate::PhysicalType::F32 => {
                type $T = f32;
                $body
            }
            $crate::PhysicalType::F64 => {
                type $T = f64;
                $body
            }
            $crate::PhysicalType::Interval => {
                type $T = $crate::Interval;
                $body
            }
            $crate::PhysicalType::Str
            | $crate::PhysicalType::List
            | $crate::PhysicalType::Struct => $other,
        }
    };
}

impl VectorData {
    /// Copies any values read in place from foreign memory (an Arrow array, a
    /// memory-mapped file) into buffers of the vector's own; a no-op otherwise.
    /// Stored tables call it: their rows must not change or vanish with the file or
    /// the Python object they came from.
    pub fn make_owned(&mut self) {
        match self {
            VectorData::Bool(b) => b.make_owned(),
            VectorData::I8(b) => b.make_owned(),
            VectorData::I16(b) => b.make_owned(),
            VectorData::I32(b) => b.make_owned(),
            VectorData::I64(b) => b.make_owned(),
            VectorData::I128(b) => b.make_owned(),
            VectorData::F32(b) => b.make_owned(),
            VectorData::F64(b) => b.make_owned(),
            VectorData::Interval(b) => b.make_owned(),
            VectorData::Str(s) => {
                s.views.make_owned();
                s.buffers.iter_mut().for_each(Buffer::make_owned);
            }
            VectorData::List(l) => l.child.data.make_owned(),
            VectorData::Struct(st) => st.fields.iter_mut().for_each(|f| f.data.make_owned()),
        }
    }

    pub fn physical(&self) -> PhysicalType {
        match self {
            VectorData::Bool(_) => PhysicalType::Bool,
            VectorData::I8(_) => PhysicalType::I8,
            VectorData::I16(_) => PhysicalType::I16,
            VectorData::I32(_) => PhysicalType::I32,
            VectorData::I64(_) => PhysicalType::I64,
            VectorData::I128(_) => PhysicalType::I128,
            VectorData::F32(_) => PhysicalType::F32,
            VectorData::F64(_) => PhysicalType::F64,
            VectorData::Str(_) => PhysicalType::Str,
            VectorData::Interval(_) => PhysicalType::Interval,
            VectorData::List(_) => PhysicalType::List,
            VectorData::Struct(_) => PhysicalType::Struct,
        }
    }

    pub fn with_capacity(ty: &DataType, n: usize) -> VectorData {
        match ty {
            DataType::List(_) | DataType::Map(..) | DataType::Array(..) => {
                let mut offsets = Vec::with_capacity(n + 1);
                offsets.push(0);
                let child = ty.list_child().expect("list-shaped");
                VectorData::List(ListData {
                    offsets,
                    child: Box::new(Vector::empty(&child)),
                })
            }
            DataType::Struct(_) | DataType::Union(_) => VectorData::Struct(StructData {
                fields: ty
                    .stored_fields()
                    .expect("struct-shaped")
                    .iter()
                    .map(|(_, t)| Vector::with_capacity(t, n))
                    .collect(),
            }),
            _ => with_native!(ty.physical(), T => T::wrap(Vec::<T>::with_capacity(n)),
                _ => VectorData::Str(StringVector::with_capacity(n))),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            VectorData::Str(s) => s.len(),
            VectorData::List(l) => l.offsets.len().saturating_sub(1),
            VectorData::Struct(st) => st.len(),
            other => {
                with_native!(other.physical(), T => T::slice(other).len(), _ => unreachable!())
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn take(&self, indices: &[u32]) -> VectorData {
        match self {
            VectorData::Str(s) => VectorData::Str(s.take(indices)),
            VectorData::List(l) => {
                let mut offsets = Vec::with_capacity(indices.len() + 1);
                offsets.push(0u32);
                let mut child_idx = Vec::new();
                for &i in indices {
                    let (a, b) = (l.offsets[i as usize], l.offsets[i as usize + 1]);
                    child_idx.extend(a..b);
                    offsets.push(child_idx.len() as u32);
                }
                VectorData::List(ListData {
                    offsets,
                    child: Box::new(l.child.take(&child_idx)),
                })
            }
            VectorData::Struct(st) => VectorData::Struct(StructData {
                fields: st.fields.iter().map(|f| f.take(indices)).collect(),
            }),
            other => with_native!(other.physical(), T => {
                T::wrap(crate::selection::gather(T::slice(other), indices))
            }, _ => unreachable!()),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Vector {
    pub ty: DataType,
    pub data: VectorData,
    pub validity: Validity,
    /// One stored value stands for every row.
    pub constant: bool,
}

impl Vector {
    pub fn new(ty: DataType, data: VectorData, validity: Validity) -> Self {
        debug_assert_eq!(ty.physical(), data.physical());
        Vector {
            ty,
            data,
            validity,
            constant: false,
        }
    }

    pub fn empty(ty: &DataType) -> Self {
        Self::with_capacity(ty, 0)
    }

    pub fn with_capacity(ty: &DataType, n: usize) -> Self {
        Vector {
            ty: ty.clone(),
            data: VectorData::with_capacity(ty, n),
            validity: Validity::all_valid(),
            constant: false,
        }
    }

    pub fn from_values<T: NativeType>(ty: DataType, values: Vec<T>) -> Self {
        Self::new(ty, T::wrap(values), Validity::all_valid())
    }

    /// A constant vector holding `value`, which must already have type `ty` (or be NULL).
    pub fn constant(value: &ScalarValue, ty: &DataType) -> Result<Self> {
        let mut v = Self::with_capacity(ty, 1);
        v.push(value)?;
        v.constant = true;
        Ok(v)
    }

    pub fn null_constant(ty: &DataType) -> Self {
        let mut v = Self::with_capacity(ty, 1);
        v.push_null();
        v.constant = true;
        v
    }

    /// Stored values (1 for a constant vector).
    pub fn data_len(&self) -> usize {
        self.data.len()
    }

    #[inline]
    pub fn index(&self, i: usize) -> usize {
        if self.constant {
            0
        } else {
            i
        }
    }

    #[inline]
    pub fn is_valid(&self, i: usize) -> bool {
        self.validity.is_valid(self.index(i))
    }

    #[inline]
    pub fn values<T: NativeType>(&self) -> &[T] {
        T::slice(&self.data)
    }

    #[inline]
    pub fn strings(&self) -> &StringVector {
        match &self.data {
            VectorData::Str(s) => s,
            other => panic!(
                "internal: expected string vector, found {:?}",
                other.physical()
            ),
        }
    }

    pub fn list(&self) -> &ListData {
        match &self.data {
            VectorData::List(l) => l,
            other => panic!(
                "internal: expected list vector, found {:?}",
                other.physical()
            ),
        }
    }

    pub fn struct_data(&self) -> &StructData {
        match &self.data {
            VectorData::Struct(s) => s,
            other => panic!(
                "internal: expected struct vector, found {:?}",
                other.physical()
            ),
        }
    }

    /// Row `i` as a [`ScalarValue`] (slow path).
    pub fn get(&self, i: usize) -> ScalarValue {
        let i = self.index(i);
        if !self.validity.is_valid(i) {
            return ScalarValue::Null;
        }
        match (&self.ty, &self.data) {
            (DataType::Null, _) => ScalarValue::Null,
            (DataType::Boolean, VectorData::Bool(v)) => ScalarValue::Boolean(v[i]),
            (DataType::TinyInt, VectorData::I8(v)) => ScalarValue::TinyInt(v[i]),
            (DataType::SmallInt, VectorData::I16(v)) => ScalarValue::SmallInt(v[i]),
            (DataType::Integer, VectorData::I32(v)) => ScalarValue::Integer(v[i]),
            (DataType::BigInt, VectorData::I64(v)) => ScalarValue::BigInt(v[i]),
            (DataType::HugeInt, VectorData::I128(v)) => ScalarValue::HugeInt(v[i]),
            // unsigned values are stored wider, always within their type's range
            (DataType::UTinyInt, VectorData::I16(v)) => ScalarValue::UTinyInt(v[i] as u8),
            (DataType::USmallInt, VectorData::I32(v)) => ScalarValue::USmallInt(v[i] as u16),
            (DataType::UInteger, VectorData::I64(v)) => ScalarValue::UInteger(v[i] as u32),
            (DataType::UBigInt, VectorData::I128(v)) => ScalarValue::UBigInt(v[i] as u64),
            (DataType::UHugeInt, VectorData::I128(v)) => {
                ScalarValue::UHugeInt(crate::flip128::from_physical(v[i]))
            }
            (DataType::Uuid, VectorData::I128(v)) => {
                ScalarValue::Uuid(crate::uuid::from_physical(v[i]))
            }
            (DataType::Time, VectorData::I64(v)) => ScalarValue::Time(v[i]),
            (DataType::Real, VectorData::F32(v)) => ScalarValue::Real(v[i]),
            (DataType::Double, VectorData::F64(v)) => ScalarValue::Double(v[i]),
            (DataType::Decimal(p, s), VectorData::I64(v)) => {
                ScalarValue::Decimal(v[i] as i128, *p, *s)
            }
            (DataType::Decimal(p, s), VectorData::I128(v)) => ScalarValue::Decimal(v[i], *p, *s),
            (DataType::Varchar | DataType::Json, VectorData::Str(v)) => {
                ScalarValue::Varchar(v.get(i).to_string())
            }
            (DataType::Blob, VectorData::Str(v)) => ScalarValue::Blob(v.get_bytes(i).to_vec()),
            (DataType::Bit, VectorData::Str(v)) => ScalarValue::Bit(v.get_bytes(i).to_vec()),
            (DataType::Enum(e), VectorData::I8(v)) => ScalarValue::Enum(e.clone(), v[i] as u32),
            (DataType::Enum(e), VectorData::I16(v)) => ScalarValue::Enum(e.clone(), v[i] as u32),
            (DataType::Enum(e), VectorData::I32(v)) => ScalarValue::Enum(e.clone(), v[i] as u32),
            (DataType::Date, VectorData::I32(v)) => ScalarValue::Date(v[i]),
            (DataType::Timestamp, VectorData::I64(v)) => ScalarValue::Timestamp(v[i]),
            (DataType::TimestampTz, VectorData::I64(v)) => ScalarValue::TimestampTz(v[i]),
            (DataType::TimeTz, VectorData::I64(v)) => ScalarValue::TimeTz(v[i]),
            (DataType::TimestampUnit(u), VectorData::I64(v)) => {
                ScalarValue::TimestampUnit(*u, v[i])
            }
            (DataType::Interval, VectorData::Interval(v)) => ScalarValue::Interval(v[i]),
            (DataType::List(t) | DataType::Array(t, _), VectorData::List(l)) => {
                let (a, b) = (l.offsets[i] as usize, l.offsets[i + 1] as usize);
                ScalarValue::List((**t).clone(), (a..b).map(|j| l.child.get(j)).collect())
            }
            (DataType::Map(k, v), VectorData::List(l)) => {
                let (a, b) = (l.offsets[i] as usize, l.offsets[i + 1] as usize);
                let entries = (a..b)
                    .map(|j| match l.child.get(j) {
                        ScalarValue::Struct(_, mut kv) if kv.len() == 2 => {
                            let value = kv.pop().expect("2");
                            (kv.pop().expect("1"), value)
                        }
                        _ => (ScalarValue::Null, ScalarValue::Null),
                    })
                    .collect();
                ScalarValue::Map((**k).clone(), (**v).clone(), entries)
            }
            (DataType::Struct(fields), VectorData::Struct(st)) => {
                ScalarValue::Struct(fields.clone(), st.fields.iter().map(|f| f.get(i)).collect())
            }
            (DataType::Union(members), VectorData::Struct(st)) => {
                let tag = match st.fields[0].get(i) {
                    ScalarValue::UTinyInt(t) if (t as usize) < members.len() => t,
                    _ => return ScalarValue::Null,
                };
                let value = st.fields[tag as usize + 1].get(i);
                ScalarValue::Union(members.clone(), tag, Box::new(value))
            }
            (t, d) => panic!("internal: vector of type {t} holds {:?} data", d.physical()),
        }
    }

    pub fn push_null(&mut self) {
        let n = self.data.len();
        match &mut self.data {
            VectorData::Str(s) => s.push(""),
            VectorData::List(l) => {
                let last = *l.offsets.last().unwrap_or(&0);
                l.offsets.push(last);
            }
            VectorData::Struct(st) => st.fields.iter_mut().for_each(Vector::push_null),
            d => {
                with_native!(d.physical(), T => T::vec_mut(d).push(T::default()), _ => unreachable!())
            }
        }
        self.validity.set_invalid(n, n + 1);
    }

    /// Appends one value of this vector's type (or NULL).
    pub fn push(&mut self, value: &ScalarValue) -> Result<()> {
        let n = self.data.len();
        match (&mut self.data, value) {
            (_, ScalarValue::Null) => {
                self.push_null();
                return Ok(());
            }
            (VectorData::Bool(v), ScalarValue::Boolean(x)) => v.make_mut().push(*x),
            (VectorData::I8(v), ScalarValue::TinyInt(x)) => v.make_mut().push(*x),
            (VectorData::I16(v), ScalarValue::SmallInt(x)) => v.make_mut().push(*x),
            (VectorData::I32(v), ScalarValue::Integer(x) | ScalarValue::Date(x)) => {
                v.make_mut().push(*x)
            }
            (
                VectorData::I64(v),
                ScalarValue::BigInt(x)
                | ScalarValue::Timestamp(x)
                | ScalarValue::TimestampTz(x)
                | ScalarValue::TimestampUnit(_, x)
                | ScalarValue::TimeTz(x)
                | ScalarValue::Time(x),
            ) => v.make_mut().push(*x),
            (VectorData::I128(v), ScalarValue::HugeInt(x)) => v.make_mut().push(*x),
            (VectorData::I16(v), ScalarValue::UTinyInt(x)) => v.make_mut().push(*x as i16),
            (VectorData::I32(v), ScalarValue::USmallInt(x)) => v.make_mut().push(*x as i32),
            (VectorData::I64(v), ScalarValue::UInteger(x)) => v.make_mut().push(*x as i64),
            (VectorData::I128(v), ScalarValue::UBigInt(x)) => v.make_mut().push(*x as i128),
            (VectorData::I128(v), ScalarValue::UHugeInt(x)) => {
                v.make_mut().push(crate::flip128::to_physical(*x))
            }
            (VectorData::I128(v), ScalarValue::Uuid(x)) => {
                v.make_mut().push(crate::uuid::to_physical(*x))
            }
            (VectorData::I64(v), ScalarValue::Decimal(x, ..)) => v.make_mut().push(*x as i64),
            (VectorData::I128(v), ScalarValue::Decimal(x, ..)) => v.make_mut().push(*x),
            (VectorData::F32(v), ScalarValue::Real(x)) => v.make_mut().push(*x),
            (VectorData::F64(v), ScalarValue::Double(x)) => v.make_mut().push(*x),
            (VectorData::Str(v), ScalarValue::Varchar(x)) => v.push(x),
            (VectorData::Str(v), ScalarValue::Blob(x) | ScalarValue::Bit(x)) => v.push_blob(x),
            // positions fit the vector's width (`EnumType::physical`)
            (VectorData::I8(v), ScalarValue::Enum(_, x)) => v.make_mut().push(*x as i8),
            (VectorData::I16(v), ScalarValue::Enum(_, x)) => v.make_mut().push(*x as i16),
            (VectorData::I32(v), ScalarValue::Enum(_, x)) => v.make_mut().push(*x as i32),
            (VectorData::Interval(v), ScalarValue::Interval(x)) => v.make_mut().push(*x),
            (VectorData::List(l), ScalarValue::List(_, items)) => {
                for it in items {
                    l.child.push(it)?;
                }
                l.offsets.push(l.child.data_len() as u32);
            }
            (VectorData::List(l), ScalarValue::Map(k, v, entries)) => {
                let fields = match DataType::map_entry(k, v) {
                    DataType::Struct(f) => f,
                    _ => unreachable!("a map entry is a struct"),
                };
                for (key, value) in entries {
                    l.child.push(&ScalarValue::Struct(
                        fields.clone(),
                        vec![key.clone(), value.clone()],
                    ))?;
                }
                l.offsets.push(l.child.data_len() as u32);
            }
            (VectorData::Struct(st), ScalarValue::Struct(_, values))
                if values.len() == st.fields.len() =>
            {
                for (f, v) in st.fields.iter_mut().zip(values) {
                    f.push(v)?;
                }
            }
            // the tag, the value in its member, NULL in the others
            (VectorData::Struct(st), ScalarValue::Union(_, tag, value))
                if (*tag as usize) + 1 < st.fields.len() =>
            {
                st.fields[0].push(&ScalarValue::UTinyInt(*tag))?;
                for (k, f) in st.fields[1..].iter_mut().enumerate() {
                    match k == *tag as usize {
                        true => f.push(value)?,
                        false => f.push_null(),
                    }
                }
            }
            (d, v) => {
                return Err(Error::internal(format!(
                    "cannot store {v:?} in a {} vector ({:?})",
                    self.ty,
                    d.physical()
                )))
            }
        }
        if self.validity.has_nulls() {
            self.validity.set(n, true, n + 1);
        }
        Ok(())
    }

    /// The rows named by `indices` as a flat vector (a constant vector stays constant).
    pub fn take(&self, indices: &[u32]) -> Vector {
        if self.constant {
            return self.clone();
        }
        Vector {
            ty: self.ty.clone(),
            data: self.data.take(indices),
            validity: self.validity.take(indices),
            constant: false,
        }
    }

    pub fn slice(&self, offset: usize, len: usize) -> Vector {
        if self.constant {
            return self.clone();
        }
        let data = match &self.data {
            VectorData::Str(s) => VectorData::Str(s.slice(offset, len)),
            // the offsets rebased, the child sliced (shared, not copied, when flat)
            VectorData::List(l) => {
                let (a, b) = (l.offsets[offset], l.offsets[offset + len]);
                VectorData::List(ListData {
                    offsets: l.offsets[offset..=offset + len]
                        .iter()
                        .map(|o| o - a)
                        .collect(),
                    child: Box::new(l.child.slice(a as usize, (b - a) as usize)),
                })
            }
            VectorData::Struct(st) => VectorData::Struct(StructData {
                fields: st.fields.iter().map(|f| f.slice(offset, len)).collect(),
            }),
            d => {
                with_native!(d.physical(), T => T::wrap_buffer(T::buffer(d).slice(offset, len)), _ => unreachable!())
            }
        };
        Vector {
            ty: self.ty.clone(),
            data,
            validity: self.validity.slice(offset, len),
            constant: false,
        }
    }

    /// A flat vector of `len` rows.
    pub fn flatten(self, len: usize) -> Vector {
        if !self.constant {
            return self;
        }
        let idx = vec![0u32; len];
        let validity = if self.validity.is_valid(0) {
            Validity::all_valid()
        } else {
            Validity::all_invalid(len)
        };
        Vector {
            ty: self.ty.clone(),
            data: self.data.take(&idx),
            validity,
            constant: false,
        }
    }

    /// Appends the first `len` rows of `other` (flattening a constant).
    pub fn append(&mut self, other: &Vector, len: usize) {
        let nested = matches!(other.data, VectorData::List(_) | VectorData::Struct(_));
        if other.constant && !nested && other.data.len() > 0 {
            // The one stored value, `len` times (a VALUES row's literal is one).
            let n = self.data.len();
            match (&mut self.data, &other.data) {
                (VectorData::Str(a), VectorData::Str(b)) => {
                    let value = b.get_bytes(0);
                    for _ in 0..len {
                        a.push_blob(value);
                    }
                }
                (a, b) => with_native!(a.physical(), T => {
                    let value = T::slice(b)[0];
                    T::vec_mut(a).extend(std::iter::repeat_n(value, len))
                }, _ => unreachable!()),
            }
            let validity = match other.validity.is_valid(0) {
                true => Validity::all_valid(),
                false => Validity::all_invalid(len),
            };
            self.validity.append(n, &validity, len);
            return;
        }
        let flat;
        let other = if other.constant {
            flat = other.clone().flatten(len);
            &flat
        } else {
            other
        };
        let n = self.data.len();
        let other_len = other.data.len().min(len);
        match (&mut self.data, &other.data) {
            (VectorData::Str(a), VectorData::Str(b)) => {
                if other_len == b.len() {
                    a.append(b)
                } else {
                    a.append(&b.slice(0, other_len))
                }
            }
            (VectorData::List(a), VectorData::List(b)) => {
                let base = *a.offsets.last().unwrap_or(&0);
                let end = b.offsets[other_len] as usize;
                a.child.append(&b.child, end);
                a.offsets
                    .extend(b.offsets[1..=other_len].iter().map(|o| o + base));
            }
            (VectorData::Struct(a), VectorData::Struct(b)) => {
                for (x, y) in a.fields.iter_mut().zip(&b.fields) {
                    x.append(y, other_len);
                }
            }
            (a, b) => {
                with_native!(a.physical(), T => T::vec_mut(a).extend_from_slice(&T::slice(b)[..other_len]), _ => unreachable!())
            }
        }
        self.validity.append(n, &other.validity, other_len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_get_take_append() {
        let mut v = Vector::empty(&DataType::Integer);
        v.push(&ScalarValue::Integer(1)).unwrap();
        v.push(&ScalarValue::Null).unwrap();
        v.push(&ScalarValue::Integer(3)).unwrap();
        assert_eq!(v.get(1), ScalarValue::Null);
        assert_eq!(v.get(2), ScalarValue::Integer(3));
        let t = v.take(&[2, 1]);
        assert_eq!(t.get(0), ScalarValue::Integer(3));
        assert_eq!(t.get(1), ScalarValue::Null);
        let c = Vector::constant(&ScalarValue::Integer(9), &DataType::Integer).unwrap();
        v.append(&c, 2);
        assert_eq!(v.data_len(), 5);
        assert_eq!(v.get(4), ScalarValue::Integer(9));
        assert_eq!(v.get(1), ScalarValue::Null);
    }

    #[test]
    fn lists() {
        let ty = DataType::List(Box::new(DataType::Varchar));
        let mut v = Vector::empty(&ty);
        let l = ScalarValue::List(
            DataType::Varchar,
            vec![ScalarValue::Varchar("a".into()), ScalarValue::Null],
        );
        v.push(&l).unwrap();
        v.push(&ScalarValue::Null).unwrap();
        v.push(&l).unwrap();
        assert_eq!(v.get(2), l);
        assert_eq!(v.get(1), ScalarValue::Null);
        let t = v.take(&[2]);
        assert_eq!(t.get(0).to_string(), "[a, NULL]");
    }

    #[test]
    fn structs() {
        let fields = vec![
            ("a".to_string(), DataType::Integer),
            ("b".to_string(), DataType::Varchar),
        ];
        let ty = DataType::Struct(fields.clone());
        let mut v = Vector::empty(&ty);
        let s = ScalarValue::Struct(
            fields.clone(),
            vec![ScalarValue::Integer(1), ScalarValue::Varchar("x".into())],
        );
        v.push(&s).unwrap();
        v.push(&ScalarValue::Null).unwrap();
        v.push(&s).unwrap();
        assert_eq!(v.get(0), s);
        assert_eq!(v.get(1), ScalarValue::Null);
        assert_eq!(v.struct_data().fields[0].get(1), ScalarValue::Null);
        let t = v.take(&[2, 1]);
        assert_eq!(t.get(0).to_string(), "{'a': 1, 'b': x}");
        let mut w = Vector::empty(&ty);
        w.append(&v.slice(1, 2), 2);
        assert_eq!(w.get(1), s);
        assert_eq!(w.data_len(), 2);
    }
}
