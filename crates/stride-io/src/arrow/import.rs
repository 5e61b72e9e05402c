//! Arrow arrays as stride vectors: the reading half of [`super`]. Parquet pages,
//! Arrow IPC files and Python's DataFrames and Datasets arrive as Arrow arrays; each
//! becomes a vector of the stride type [`stride_type`] picks for its Arrow type,
//! reading the Arrow memory in place where the layouts agree ([`to_vector_with`]).

use arrow_array::{ArrowPrimitiveType, RecordBatch};
use arrow_buffer::{Buffer as ArrowBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType as ArrowType, IntervalUnit, TimeUnit, UnionMode};
use std::sync::Arc;
use stride_common::time_unit::TimeUnit as Unit;
use stride_common::{
    Buffer, DataType, Error, Result, StringVector, StringView, Validity, Vector, VectorData,
};

/// The stride type an Arrow column is read as, or an error naming the column for
/// types stride does not have yet.
pub fn stride_type(name: &str, ty: &ArrowType) -> Result<DataType> {
    Ok(match ty {
        ArrowType::Null => DataType::Null,
        ArrowType::Boolean => DataType::Boolean,
        ArrowType::Int8 => DataType::TinyInt,
        ArrowType::Int16 => DataType::SmallInt,
        ArrowType::Int32 => DataType::Integer,
        ArrowType::Int64 => DataType::BigInt,
        ArrowType::UInt8 => DataType::UTinyInt,
        ArrowType::UInt16 => DataType::USmallInt,
        ArrowType::UInt32 => DataType::UInteger,
        ArrowType::UInt64 => DataType::UBigInt,
        ArrowType::Float16 | ArrowType::Float32 => DataType::Real,
        ArrowType::Float64 => DataType::Double,
        ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View => DataType::Varchar,
        ArrowType::Binary
        | ArrowType::LargeBinary
        | ArrowType::BinaryView
        | ArrowType::FixedSizeBinary(_) => DataType::Blob,
        ArrowType::Date32 | ArrowType::Date64 => DataType::Date,
        // A timestamp with a zone is an instant; without one, a local time.
        ArrowType::Timestamp(_, Some(_)) => DataType::TimestampTz,
        // in its own unit, as DuckDB reads it (pandas' nanoseconds stay exact)
        ArrowType::Timestamp(unit, None) => match unit {
            TimeUnit::Second => DataType::TimestampUnit(Unit::Second),
            TimeUnit::Millisecond => DataType::TimestampUnit(Unit::Millisecond),
            TimeUnit::Microsecond => DataType::Timestamp,
            TimeUnit::Nanosecond => DataType::TimestampUnit(Unit::Nanosecond),
        },
        ArrowType::Decimal32(p, s) | ArrowType::Decimal64(p, s) | ArrowType::Decimal128(p, s)
            if *s >= 0 && *s as u8 <= *p =>
        {
            DataType::Decimal(*p, *s as u8)
        }
        ArrowType::Interval(IntervalUnit::MonthDayNano) => DataType::Interval,
        ArrowType::Time32(_) | ArrowType::Time64(_) => DataType::Time,
        ArrowType::List(f) | ArrowType::LargeList(f) | ArrowType::ListView(f) => {
            DataType::List(Box::new(stride_type(name, f.data_type())?))
        }
        ArrowType::FixedSizeList(f, n) if *n > 0 => {
            DataType::Array(Box::new(stride_type(name, f.data_type())?), *n as u32)
        }
        ArrowType::Map(entries, _) => match entries.data_type() {
            ArrowType::Struct(kv) if kv.len() == 2 => DataType::Map(
                Box::new(stride_type(name, kv[0].data_type())?),
                Box::new(stride_type(name, kv[1].data_type())?),
            ),
            other => {
                return Err(Error::not_supported(format!(
                    "column \"{name}\" is an Arrow map of {other}, which stride cannot read"
                )))
            }
        },
        ArrowType::Struct(fields) if !fields.is_empty() => DataType::Struct(
            fields
                .iter()
                .map(|f| Ok((f.name().clone(), stride_type(name, f.data_type())?)))
                .collect::<Result<_>>()?,
        ),
        ArrowType::Dictionary(_, value) => stride_type(name, value)?,
        // a sparse union whose type ids are the members' positions (as DuckDB writes
        // and reads them)
        ArrowType::Union(fields, UnionMode::Sparse)
            if fields
                .iter()
                .enumerate()
                .all(|(i, (id, _))| id as usize == i) =>
        {
            let members = fields
                .iter()
                .map(|(_, f)| Ok((f.name().clone(), stride_type(name, f.data_type())?)))
                .collect::<Result<Vec<_>>>()?;
            stride_common::union_type::check(&members)?;
            DataType::Union(members)
        }
        ArrowType::Union(..) => {
            return Err(Error::not_supported(format!(
            "column \"{name}\" is an Arrow dense union or one whose type ids are not 0, 1, ...; \
                 stride reads sparse unions with type ids 0, 1, ... (as DuckDB writes them)"
        )))
        }
        other => {
            return Err(Error::not_supported(format!(
                "column \"{name}\" has the Arrow type {other}, which stride cannot read yet"
            )))
        }
    })
}

/// A record batch as stride chunks of at most `VECTOR_SIZE` rows (windows of
/// one conversion per column), with its columns' stride types.
pub fn batch_to_chunks(
    batch: &RecordBatch,
    types: &[DataType],
    copied: &mut SharedHeaps,
) -> Result<Vec<stride_common::DataChunk>> {
    let vectors = batch
        .columns()
        .iter()
        .zip(types)
        .map(|(a, t)| to_vector_with(a.as_ref(), t, copied))
        .collect::<Result<Vec<_>>>()?;
    let mut out = Vec::new();
    crate::columnar::emit_windows(&vectors, batch.num_rows(), &mut |c| {
        out.push(c);
        Ok(())
    })?;
    Ok(out)
}

/// The string heaps already taken from Arrow, by the Arrow buffer's address and
/// length: the batches of one Parquet row group or Arrow stream share their data
/// buffers, and reusing one stride buffer per Arrow buffer keeps a column's heap
/// list short when its chunks are appended together (see `StringVector::append`).
#[derive(Default)]
pub struct SharedHeaps(std::collections::HashMap<(usize, usize), Buffer<u8>>);

impl SharedHeaps {
    fn get(&mut self, b: &ArrowBuffer) -> Buffer<u8> {
        self.0
            .entry((b.as_ptr() as usize, b.len()))
            .or_insert_with(|| foreign(b.as_slice(), b))
            .clone()
    }
}

/// Values in an Arrow buffer as a stride buffer over the same memory; the stride
/// buffer keeps (a reference-counted handle on) the Arrow buffer alive.
fn foreign<T: Clone>(values: &[T], owner: &ArrowBuffer) -> Buffer<T> {
    // SAFETY: `values` lies inside `owner`'s memory, which is immutable (Arrow
    // buffers are shared read-only) and lives as long as the handle moved into the
    // stride buffer; a slice is always aligned.
    unsafe { Buffer::from_foreign(values.as_ptr(), values.len(), Arc::new(owner.clone())) }
}

/// The values of a primitive Arrow array, read in place.
fn shared<T: ArrowPrimitiveType>(array: &dyn arrow_array::Array) -> Buffer<T::Native>
where
    T::Native: Clone,
{
    use arrow_array::cast::AsArray;
    let values = array.as_primitive::<T>().values();
    foreign(values, values.inner())
}

/// The values of a primitive Arrow array converted one by one (`f`) into a buffer of
/// stride's own, where the layouts differ.
fn converted<A: ArrowPrimitiveType, T>(
    array: &dyn arrow_array::Array,
    f: impl Fn(A::Native) -> T,
) -> Buffer<T> {
    use arrow_array::cast::AsArray;
    let values = array.as_primitive::<A>().values();
    values.iter().map(|&x| f(x)).collect::<Vec<_>>().into()
}

/// An Arrow array as a stride vector of `ty` (from [`stride_type`]). Where the
/// layouts agree the vector reads the Arrow memory in place (the Arrow buffers stay
/// alive while it does): integers, floats, DATE (`Date32`), TIMESTAMP in
/// microseconds, DECIMAL in stride's width, string views and the bytes of `Utf8`
/// strings. Other values are converted into buffers of stride's own.
pub fn to_vector(array: &dyn arrow_array::Array, ty: &DataType) -> Result<Vector> {
    to_vector_with(array, ty, &mut SharedHeaps::default())
}

/// [`to_vector`], reusing the string heaps taken for earlier arrays.
pub fn to_vector_with(
    array: &dyn arrow_array::Array,
    ty: &DataType,
    copied: &mut SharedHeaps,
) -> Result<Vector> {
    use arrow_array::cast::AsArray;
    use arrow_array::types as t;
    let len = array.len();
    let validity = match array.logical_nulls() {
        Some(n) if n.null_count() > 0 => Validity::from_fn(len, |i| n.is_valid(i)),
        _ => Validity::all_valid(),
    };
    let unsupported = || Error::internal(format!("reading Arrow {} as {ty}", array.data_type()));
    if let ArrowType::Dictionary(_, _) = array.data_type() {
        return dictionary_to_vector(array, ty, validity, copied);
    }
    let data = match (array.data_type(), ty) {
        (ArrowType::Null, DataType::Null) => {
            return Ok(Vector::new(
                DataType::Null,
                VectorData::Bool(vec![false; len].into()),
                Validity::all_invalid(len),
            ))
        }
        (ArrowType::Boolean, _) => {
            let b = array.as_boolean();
            VectorData::Bool((0..len).map(|i| b.value(i)).collect::<Vec<_>>().into())
        }
        (ArrowType::Int8, _) => VectorData::I8(shared::<t::Int8Type>(array)),
        (ArrowType::Int16, _) => VectorData::I16(shared::<t::Int16Type>(array)),
        (ArrowType::UInt8, _) => VectorData::I16(converted::<t::UInt8Type, _>(array, |x| x as i16)),
        (ArrowType::Int32, _) => VectorData::I32(shared::<t::Int32Type>(array)),
        (ArrowType::UInt16, _) => {
            VectorData::I32(converted::<t::UInt16Type, _>(array, |x| x as i32))
        }
        (ArrowType::Int64, _) => VectorData::I64(shared::<t::Int64Type>(array)),
        (ArrowType::UInt32, _) => {
            VectorData::I64(converted::<t::UInt32Type, _>(array, |x| x as i64))
        }
        (ArrowType::UInt64, _) => {
            VectorData::I128(converted::<t::UInt64Type, _>(array, |x| x as i128))
        }
        (ArrowType::Float16, _) => {
            VectorData::F32(converted::<t::Float16Type, _>(array, |x| x.to_f32()))
        }
        (ArrowType::Float32, _) => VectorData::F32(shared::<t::Float32Type>(array)),
        (ArrowType::Float64, _) => VectorData::F64(shared::<t::Float64Type>(array)),
        (ArrowType::Date32, _) => VectorData::I32(shared::<t::Date32Type>(array)),
        (ArrowType::Timestamp(TimeUnit::Microsecond, _), _) => {
            VectorData::I64(shared::<t::TimestampMicrosecondType>(array))
        }
        (ArrowType::Timestamp(TimeUnit::Second, None), _) => {
            VectorData::I64(shared::<t::TimestampSecondType>(array))
        }
        (ArrowType::Timestamp(TimeUnit::Millisecond, None), _) => {
            VectorData::I64(shared::<t::TimestampMillisecondType>(array))
        }
        (ArrowType::Timestamp(TimeUnit::Nanosecond, None), _) => {
            VectorData::I64(shared::<t::TimestampNanosecondType>(array))
        }
        (ArrowType::Time64(TimeUnit::Microsecond), _) => {
            VectorData::I64(shared::<t::Time64MicrosecondType>(array))
        }
        (ArrowType::Time64(_), _) => {
            VectorData::I64(converted::<t::Time64NanosecondType, _>(array, |ns| {
                ns.div_euclid(1000)
            }))
        }
        (ArrowType::Time32(TimeUnit::Second), _) => {
            VectorData::I64(converted::<t::Time32SecondType, _>(array, |s| {
                s as i64 * 1_000_000
            }))
        }
        (ArrowType::Time32(_), _) => {
            VectorData::I64(converted::<t::Time32MillisecondType, _>(array, |ms| {
                ms as i64 * 1000
            }))
        }
        (ArrowType::Date64, _) => VectorData::I32(converted::<t::Date64Type, _>(array, |ms| {
            ms.div_euclid(86_400_000) as i32
        })),
        (ArrowType::Timestamp(unit, _), _) => {
            let (values, mul, div): (&[i64], i64, i64) = match unit {
                TimeUnit::Second => (
                    array.as_primitive::<t::TimestampSecondType>().values(),
                    1_000_000,
                    1,
                ),
                TimeUnit::Millisecond => (
                    array.as_primitive::<t::TimestampMillisecondType>().values(),
                    1_000,
                    1,
                ),
                TimeUnit::Microsecond => (
                    array.as_primitive::<t::TimestampMicrosecondType>().values(),
                    1,
                    1,
                ),
                TimeUnit::Nanosecond => (
                    array.as_primitive::<t::TimestampNanosecondType>().values(),
                    1,
                    1_000,
                ),
            };
            let mut out = Vec::with_capacity(len);
            for (i, &v) in values.iter().enumerate() {
                match v.checked_mul(mul) {
                    Some(x) => out.push(x.div_euclid(div)),
                    None if !validity.is_valid(i) => out.push(0),
                    None => {
                        return Err(Error::out_of_range(format!(
                            "the timestamp {v} ({unit:?}) is outside TIMESTAMP's range"
                        )))
                    }
                }
            }
            VectorData::I64(out.into())
        }
        (ArrowType::Decimal64(..), DataType::Decimal(p, _))
            if *p <= stride_common::types::DECIMAL_I64_MAX_PRECISION =>
        {
            VectorData::I64(shared::<t::Decimal64Type>(array))
        }
        (ArrowType::Decimal128(..), DataType::Decimal(p, _))
            if *p > stride_common::types::DECIMAL_I64_MAX_PRECISION =>
        {
            VectorData::I128(shared::<t::Decimal128Type>(array))
        }
        (
            ArrowType::Decimal32(..) | ArrowType::Decimal64(..) | ArrowType::Decimal128(..),
            DataType::Decimal(p, _),
        ) => {
            let wide: Vec<i128> = match array.data_type() {
                ArrowType::Decimal32(..) => array
                    .as_primitive::<t::Decimal32Type>()
                    .values()
                    .iter()
                    .map(|&x| x as i128)
                    .collect(),
                ArrowType::Decimal64(..) => array
                    .as_primitive::<t::Decimal64Type>()
                    .values()
                    .iter()
                    .map(|&x| x as i128)
                    .collect(),
                _ => array.as_primitive::<t::Decimal128Type>().values().to_vec(),
            };
            if *p <= stride_common::types::DECIMAL_I64_MAX_PRECISION {
                VectorData::I64(
                    wide.into_iter()
                        .map(|x| x as i64)
                        .collect::<Vec<_>>()
                        .into(),
                )
            } else {
                VectorData::I128(wide.into())
            }
        }
        (ArrowType::Interval(IntervalUnit::MonthDayNano), _) => {
            VectorData::Interval(converted::<t::IntervalMonthDayNanoType, _>(array, |v| {
                stride_common::Interval {
                    months: v.months,
                    days: v.days,
                    micros: v.nanoseconds.div_euclid(1000),
                }
            }))
        }
        (ArrowType::Utf8View, _) => {
            let a = array.as_string_view();
            VectorData::Str(views_to_strings(
                a.views(),
                a.data_buffers(),
                &validity,
                copied,
            ))
        }
        (ArrowType::BinaryView, _) => {
            let a = array.as_binary_view();
            VectorData::Str(views_to_strings(
                a.views(),
                a.data_buffers(),
                &validity,
                copied,
            ))
        }
        (ArrowType::Binary, _) => {
            let a = array.as_binary::<i32>();
            VectorData::Str(offsets_to_strings(
                a.offsets(),
                a.values(),
                &validity,
                copied,
            ))
        }
        (ArrowType::LargeBinary, _) => {
            let a = array.as_binary::<i64>();
            VectorData::Str(offsets_to_strings(
                a.offsets(),
                a.values(),
                &validity,
                copied,
            ))
        }
        (ArrowType::FixedSizeBinary(_), _) => {
            let a = array.as_fixed_size_binary();
            let mut out = StringVector::with_capacity(len);
            for i in 0..len {
                out.push_blob(if validity.is_valid(i) {
                    a.value(i)
                } else {
                    &[]
                });
            }
            VectorData::Str(out)
        }
        (ArrowType::Utf8, _) => {
            let a = array.as_string::<i32>();
            VectorData::Str(offsets_to_strings(
                a.offsets(),
                a.values(),
                &validity,
                copied,
            ))
        }
        (ArrowType::LargeUtf8, _) => {
            let a = array.as_string::<i64>();
            VectorData::Str(offsets_to_strings(
                a.offsets(),
                a.values(),
                &validity,
                copied,
            ))
        }
        (ArrowType::List(_) | ArrowType::LargeList(_), DataType::List(child_ty)) => {
            let (offsets, values): (Vec<i64>, &arrow_array::ArrayRef) = match array.data_type() {
                ArrowType::List(_) => {
                    let l = array.as_list::<i32>();
                    (
                        l.value_offsets().iter().map(|&o| o as i64).collect(),
                        l.values(),
                    )
                }
                _ => {
                    let l = array.as_list::<i64>();
                    (l.value_offsets().to_vec(), l.values())
                }
            };
            let (start, end) = (offsets[0] as usize, offsets[len] as usize);
            let child =
                to_vector_with(values.slice(start, end - start).as_ref(), child_ty, copied)?;
            let offsets = offsets
                .iter()
                .map(|&o| u32::try_from(o - start as i64))
                .collect::<std::result::Result<Vec<u32>, _>>()
                .map_err(|_| Error::out_of_range("a list column holds more than 2^32 elements"))?;
            VectorData::List(stride_common::vector::ListData {
                offsets,
                child: Box::new(child),
            })
        }
        (ArrowType::FixedSizeList(_, n), DataType::Array(elem, _)) => {
            let a = array.as_fixed_size_list();
            let n = *n as usize;
            let values = a.values().slice(a.value_offset_at(0) as usize, len * n);
            let child = to_vector_with(values.as_ref(), elem, copied)?;
            VectorData::List(stride_common::vector::ListData {
                offsets: (0..=len).map(|i| (i * n) as u32).collect(),
                child: Box::new(child),
            })
        }
        (ArrowType::Map(..), DataType::Map(..)) => {
            let m = array.as_map();
            let offsets = m.value_offsets();
            let (start, end) = (offsets[0] as usize, offsets[len] as usize);
            let entry_ty = ty.list_child().expect("a map has entries");
            let entries: arrow_array::ArrayRef = Arc::new(m.entries().clone());
            let child = to_vector_with(
                entries.slice(start, end - start).as_ref(),
                &entry_ty,
                copied,
            )?;
            VectorData::List(stride_common::vector::ListData {
                offsets: offsets
                    .iter()
                    .map(|&o| (o as usize - start) as u32)
                    .collect(),
                child: Box::new(child),
            })
        }
        (ArrowType::Struct(_), DataType::Struct(fields)) => {
            let a = array.as_struct();
            let mut children = Vec::with_capacity(fields.len());
            for (column, (_, field_ty)) in a.columns().iter().zip(fields) {
                let mut child = to_vector_with(column.as_ref(), field_ty, copied)?;
                // A NULL struct's fields are NULL (Arrow leaves them undefined).
                if validity.has_nulls() {
                    for i in 0..len {
                        if !validity.is_valid(i) {
                            child.validity.set_invalid(i, len);
                        }
                    }
                }
                children.push(child);
            }
            VectorData::Struct(stride_common::vector::StructData { fields: children })
        }
        // The tag, then each member NULL but where it is the row's. A row whose
        // member is NULL is a NULL union (`validity` is the selected child's).
        (ArrowType::Union(..), DataType::Union(members)) => {
            let a = array
                .as_any()
                .downcast_ref::<arrow_array::UnionArray>()
                .ok_or_else(unsupported)?;
            let ids = a.type_ids();
            let tags: Vec<i16> = ids.iter().map(|&t| t as i16).collect();
            let mut children = Vec::with_capacity(members.len() + 1);
            children.push(Vector::new(
                DataType::UTinyInt,
                VectorData::I16(tags.into()),
                validity.clone(),
            ));
            for (k, (_, member_ty)) in members.iter().enumerate() {
                let mut child = to_vector_with(a.child(k as i8).as_ref(), member_ty, copied)?;
                for (i, &t) in ids.iter().enumerate() {
                    if t as usize != k {
                        child.validity.set_invalid(i, len);
                    }
                }
                children.push(child);
            }
            VectorData::Struct(stride_common::vector::StructData { fields: children })
        }
        _ => return Err(unsupported()),
    };
    Ok(Vector::new(ty.clone(), data, validity))
}

/// Arrow string views as stride's (the same 16-byte layout), read in place: the
/// data buffers become the vector's heap buffers in the same order, so the views'
/// buffer indexes hold. Views are shared too when no row is NULL; otherwise they
/// are copied with NULL rows' views cleared (Arrow leaves those undefined).
/// The views and data buffers of an Arrow view array (`Utf8View`, whose strings are
/// UTF-8, or `BinaryView` for a BLOB) as a string vector reading them in place.
fn views_to_strings(
    raw: &ScalarBuffer<u128>,
    data_buffers: &[ArrowBuffer],
    validity: &Validity,
    heaps: &mut SharedHeaps,
) -> StringVector {
    let views: Buffer<StringView> = if !validity.has_nulls() {
        // SAFETY: StringView is 16 plain bytes with Arrow's view layout (length,
        // then inline bytes or prefix, buffer index and offset), and its alignment
        // (8) divides u128's; a Utf8View's views hold valid UTF-8 (a StringViewArray
        // invariant; a BinaryView is read as a BLOB), and unused inline bytes are
        // zero (Arrow's rule too). The
        // views live in the Arrow buffer, kept alive by the handle moved in.
        unsafe {
            Buffer::from_foreign(
                raw.as_ptr() as *const StringView,
                raw.len(),
                Arc::new(raw.inner().clone()),
            )
        }
    } else {
        raw.iter()
            .enumerate()
            .map(|(i, &v)| {
                let v = if validity.is_valid(i) { v } else { 0 };
                // SAFETY: as above; 0 is the empty view.
                unsafe { std::mem::transmute::<u128, StringView>(v) }
            })
            .collect::<Vec<_>>()
            .into()
    };
    StringVector {
        views,
        buffers: data_buffers.iter().map(|b| heaps.get(b)).collect(),
    }
}

/// Arrow strings as offsets and bytes, as views into those bytes: the value buffer
/// becomes the vector's one heap buffer, read in place, and only the 16-byte views
/// are built. Strings of at most 12 bytes are inlined in their views.
fn offsets_to_strings<O: arrow_array::OffsetSizeTrait>(
    offsets: &OffsetBuffer<O>,
    values: &ArrowBuffer,
    validity: &Validity,
    heaps: &mut SharedHeaps,
) -> StringVector {
    let mut out = StringVector::with_capacity(offsets.len() - 1);
    let bytes = values.as_slice();
    // Views address the heap with 32-bit offsets: a larger value buffer is copied
    // string by string instead (only `LargeUtf8` can exceed 4 GiB).
    if bytes.len() > u32::MAX as usize {
        for (i, w) in offsets.windows(2).enumerate() {
            let s = if validity.is_valid(i) {
                &bytes[w[0].as_usize()..w[1].as_usize()]
            } else {
                &[]
            };
            // SAFETY: Arrow string arrays hold UTF-8 between offsets (binary arrays
            // are read as BLOBs, which may hold any bytes).
            unsafe { out.push_bytes_unchecked(s) };
        }
        return out;
    }
    out.buffers.push(heaps.get(values));
    let views = out.views.make_mut();
    for (i, w) in offsets.windows(2).enumerate() {
        let (start, end) = (w[0].as_usize(), w[1].as_usize());
        views.push(if validity.is_valid(i) {
            // SAFETY: `bytes[start..end]` is UTF-8 (an Arrow string array invariant,
            // or a BLOB's bytes) in heap buffer 0, whose offsets fit in 32 bits
            // (checked above).
            unsafe { StringView::of_heap(&bytes[start..end], 0, start as u32) }
        } else {
            StringView::default()
        });
    }
    out
}

/// A dictionary-encoded array: its values converted once, then taken by key.
fn dictionary_to_vector(
    array: &dyn arrow_array::Array,
    ty: &DataType,
    validity: Validity,
    copied: &mut SharedHeaps,
) -> Result<Vector> {
    use arrow_array::types::*;
    use arrow_array::DictionaryArray;
    let len = array.len();
    macro_rules! by_key {
        ($($k:ty),*) => {$(
            if let Some(d) = array.as_any().downcast_ref::<DictionaryArray<$k>>() {
                let values = to_vector_with(d.values().as_ref(), ty, copied)?;
                if values.data_len() == 0 {
                    return Ok(Vector::null_constant(ty).flatten(len));
                }
                let keys: Vec<u32> = (0..len)
                    .map(|i| if validity.is_valid(i) { d.keys().value(i) as u32 } else { 0 })
                    .collect();
                let mut v = values.take(&keys);
                v.validity = validity;
                return Ok(v);
            }
        )*};
    }
    by_key!(
        Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type
    );
    Err(Error::not_supported(format!(
        "Arrow {} cannot be read yet",
        array.data_type()
    )))
}
