//! Arrow interchange, both ways: query results as Arrow record batches (for the
//! Python package's `__arrow_c_stream__` and the Parquet and Arrow file writers), and
//! Arrow arrays as stride vectors (DataFrames from Python, Parquet pages, Arrow files).
//!
//! Where it sits: after execution, a consumer collects result chunks (flat columns,
//! see [`stride_common::DataChunk::into_flat_columns`]) and hands them here, one
//! batch's worth at a time ([`record_batch`]). During a scan, the readers turn each
//! decoded array into a vector ([`to_vector`], in `arrow/import.rs`) that reads the
//! Arrow memory in place where the layouts agree (see there).
//!
//! Copying results: stride's vectors already have Arrow's layouts for most types, so a batch
//! shares its chunks' buffers instead of copying them when the chunks lie one after
//! the other in memory (one chunk, or consecutive windows of a stored table's row
//! group, as a scan hands them out): fixed-width values (integers, floats, DATE as
//! `Date32`, TIMESTAMP as microseconds, DECIMAL wider than 18 digits) and strings,
//! whose 16-byte views are Arrow's `Utf8View` layout byte for byte. Otherwise a batch
//! copies each value once, into its own buffer, and still shares string bytes. What always
//! converts: BOOLEAN (bytes to bits), DECIMAL of at most 18 digits (`i64` to Arrow's
//! `i128`), INTERVAL (microseconds to nanoseconds), list offsets (`u32` to `i32`),
//! UHUGEINT (its flipped stored form to `decimal128(38, 0)`), UNION (the tag to a
//! sparse union's type ids) and validity masks (one bit per row, cheap).

use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, IntervalMonthDayNanoType, Time64MicrosecondType, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{
    ArrayRef, ArrowPrimitiveType, BinaryArray, BinaryViewArray, BooleanArray, FixedSizeListArray,
    LargeBinaryArray, LargeStringArray, ListArray, MapArray, NullArray, PrimitiveArray,
    RecordBatch, RecordBatchOptions, StringArray, StringViewArray, StructArray, UnionArray,
};
use arrow_buffer::{
    ArrowNativeType, BooleanBuffer, Buffer as ArrowBuffer, IntervalMonthDayNano, NullBuffer,
    OffsetBuffer, ScalarBuffer,
};
use arrow_schema::{
    DataType as ArrowType, Field, Fields, IntervalUnit, Schema, SchemaRef, TimeUnit, UnionFields,
    UnionMode,
};
use std::ptr::NonNull;
use std::sync::Arc;
use stride_common::flip128::from_physical;
use stride_common::time_unit::TimeUnit as Unit;
use stride_common::vector::NativeType;
use stride_common::{
    Buffer, DataType, Error, Result, StringVector, StringView, Vector, VectorData,
};

mod import;

pub use import::{batch_to_chunks, stride_type, to_vector, to_vector_with, SharedHeaps};

/// How strings leave: as views (no copy, Arrow's `Utf8View`, the default) or as
/// offsets and bytes (`Utf8`, for consumers that do not read views yet).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum StringLayout {
    #[default]
    View,
    Offsets,
}

/// The Arrow type a stride type leaves as.
pub fn arrow_type(ty: &DataType, strings: StringLayout) -> ArrowType {
    match ty {
        DataType::Null => ArrowType::Null,
        DataType::Boolean => ArrowType::Boolean,
        DataType::TinyInt => ArrowType::Int8,
        DataType::SmallInt => ArrowType::Int16,
        DataType::Integer => ArrowType::Int32,
        DataType::BigInt => ArrowType::Int64,
        DataType::UTinyInt => ArrowType::UInt8,
        DataType::USmallInt => ArrowType::UInt16,
        DataType::UInteger => ArrowType::UInt32,
        DataType::UBigInt => ArrowType::UInt64,
        DataType::Real => ArrowType::Float32,
        DataType::Double => ArrowType::Float64,
        DataType::Decimal(p, s) => ArrowType::Decimal128(*p, *s as i8),
        // As DuckDB exports them: HUGEINT as DECIMAL(38,0), UUID as text.
        DataType::HugeInt | DataType::UHugeInt => ArrowType::Decimal128(38, 0),
        // a TIMETZ leaves as its local time, the offset dropped (as DuckDB exports it)
        DataType::Time | DataType::TimeTz => ArrowType::Time64(TimeUnit::Microsecond),
        // a BIT leaves as its text of 0s and 1s
        DataType::Varchar | DataType::Json | DataType::Uuid | DataType::Bit => match strings {
            StringLayout::View => ArrowType::Utf8View,
            StringLayout::Offsets => ArrowType::Utf8,
        },
        DataType::Blob => match strings {
            StringLayout::View => ArrowType::BinaryView,
            StringLayout::Offsets => ArrowType::Binary,
        },
        DataType::Date => ArrowType::Date32,
        DataType::Timestamp => ArrowType::Timestamp(TimeUnit::Microsecond, None),
        DataType::TimestampUnit(u) => ArrowType::Timestamp(
            match u {
                Unit::Second => TimeUnit::Second,
                Unit::Millisecond => TimeUnit::Millisecond,
                Unit::Nanosecond => TimeUnit::Nanosecond,
            },
            None,
        ),
        // an instant, labelled with the session's zone (as DuckDB exports it)
        DataType::TimestampTz => ArrowType::Timestamp(
            TimeUnit::Microsecond,
            Some(stride_common::zone::current().name().into()),
        ),
        DataType::Interval => ArrowType::Interval(IntervalUnit::MonthDayNano),
        DataType::List(t) => ArrowType::List(Arc::new(Field::new_list_field(
            arrow_type(t, strings),
            true,
        ))),
        DataType::Struct(fields) => ArrowType::Struct(struct_fields(fields, strings)),
        // as DuckDB exports a union: sparse, the members' positions as type ids
        DataType::Union(members) => ArrowType::Union(
            // at most 255 members, so a position fits an i8 only up to 127
            UnionFields::try_new(
                (0..members.len()).map(|i| i as i8),
                struct_fields(members, strings).iter().cloned(),
            )
            .unwrap_or_else(|_| UnionFields::empty()),
            UnionMode::Sparse,
        ),
        DataType::Array(t, n) => ArrowType::FixedSizeList(
            Arc::new(Field::new_list_field(arrow_type(t, strings), true)),
            *n as i32,
        ),
        // as DuckDB exports an enum: the labels as a dictionary, each row its index
        DataType::Enum(e) => {
            ArrowType::Dictionary(Box::new(enum_key_type(e)), Box::new(ArrowType::Utf8))
        }
        // Arrow's map: a list of non-NULL keys with their values
        DataType::Map(k, v) => {
            let entries = Fields::from(vec![
                Field::new("key", arrow_type(k, strings), false),
                Field::new("value", arrow_type(v, strings), true),
            ]);
            ArrowType::Map(
                Arc::new(Field::new("entries", ArrowType::Struct(entries), false)),
                false,
            )
        }
    }
}

/// The Arrow fields of a STRUCT's fields; an unnamed field is named by its position
/// (`v1`, `v2`, ...), as Arrow needs names.
fn struct_fields(fields: &[(String, DataType)], strings: StringLayout) -> Fields {
    fields
        .iter()
        .enumerate()
        .map(|(j, (name, ty))| {
            let name = if name.is_empty() {
                format!("v{}", j + 1)
            } else {
                name.clone()
            };
            Field::new(name, arrow_type(ty, strings), true)
        })
        .collect()
}

/// The Arrow schema of a result with these columns; every field is nullable.
pub fn arrow_schema(names: &[String], types: &[DataType], strings: StringLayout) -> SchemaRef {
    Arc::new(Schema::new(
        names
            .iter()
            .zip(types)
            .map(|(n, t)| Field::new(n, arrow_type(t, strings), true))
            .collect::<Vec<_>>(),
    ))
}

/// One record batch of `schema` from consecutive result chunks, each given as its
/// flat columns and row count.
pub fn record_batch(
    schema: &SchemaRef,
    types: &[DataType],
    chunks: &[(Vec<Vector>, usize)],
) -> Result<RecordBatch> {
    let rows: usize = chunks.iter().map(|(_, n)| n).sum();
    let mut columns = Vec::with_capacity(types.len());
    for (c, ty) in types.iter().enumerate() {
        let parts: Vec<(&Vector, usize)> = chunks.iter().map(|(cols, n)| (&cols[c], *n)).collect();
        let expected = schema.field(c).data_type();
        columns.push(column(ty, expected, &parts)?);
    }
    RecordBatch::try_new_with_options(
        schema.clone(),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .map_err(|e| Error::internal(format!("building an Arrow record batch: {e}")))
}

/// One Arrow array holding `parts` (flat vectors of `ty`, with their row counts) one
/// after the other, typed as `target` (the schema's type for this column).
fn column(ty: &DataType, target: &ArrowType, parts: &[(&Vector, usize)]) -> Result<ArrayRef> {
    let nulls = nulls(parts);
    Ok(match ty {
        DataType::Null => Arc::new(NullArray::new(parts.iter().map(|(_, n)| n).sum())),
        DataType::Boolean => {
            let bits = concat_bits(parts, |v, i| v.values::<bool>()[i]);
            Arc::new(BooleanArray::new(bits, nulls))
        }
        DataType::TinyInt => primitive::<Int8Type>(parts, nulls, target),
        DataType::SmallInt => primitive::<Int16Type>(parts, nulls, target),
        DataType::Integer => primitive::<Int32Type>(parts, nulls, target),
        DataType::BigInt => primitive::<Int64Type>(parts, nulls, target),
        // unsigned values are stored wider (always within their range)
        DataType::UTinyInt => narrowed::<i16, UInt8Type>(parts, nulls, |x| x as u8),
        DataType::USmallInt => narrowed::<i32, UInt16Type>(parts, nulls, |x| x as u16),
        DataType::UInteger => narrowed::<i64, UInt32Type>(parts, nulls, |x| x as u32),
        DataType::UBigInt => narrowed::<i128, UInt64Type>(parts, nulls, |x| x as u64),
        DataType::Real => primitive::<Float32Type>(parts, nulls, target),
        DataType::Double => primitive::<Float64Type>(parts, nulls, target),
        DataType::Date => primitive::<Date32Type>(parts, nulls, target),
        DataType::Timestamp | DataType::TimestampTz => {
            primitive::<TimestampMicrosecondType>(parts, nulls, target)
        }
        DataType::TimestampUnit(Unit::Second) => {
            primitive::<TimestampSecondType>(parts, nulls, target)
        }
        DataType::TimestampUnit(Unit::Millisecond) => {
            primitive::<TimestampMillisecondType>(parts, nulls, target)
        }
        DataType::TimestampUnit(Unit::Nanosecond) => {
            primitive::<TimestampNanosecondType>(parts, nulls, target)
        }
        DataType::Decimal(..) if matches!(parts.first(), Some((v, _)) if matches!(v.data, VectorData::I64(_))) =>
        {
            let values: Vec<i128> = parts
                .iter()
                .flat_map(|(v, n)| v.values::<i64>()[..*n].iter().map(|&x| x as i128))
                .collect();
            Arc::new(
                PrimitiveArray::<Decimal128Type>::new(values.into(), nulls)
                    .with_data_type(target.clone()),
            )
        }
        DataType::Decimal(..) | DataType::HugeInt => {
            primitive::<Decimal128Type>(parts, nulls, target)
        }
        DataType::UHugeInt => {
            // as DuckDB exports it: a DECIMAL(38,0), which holds values below 10^38
            let too_large = parts.iter().find_map(|(v, n)| {
                (0..*n).find_map(|i| {
                    let x = from_physical(v.values::<i128>()[i]);
                    (v.is_valid(i) && x >= 10u128.pow(38)).then_some(x)
                })
            });
            if let Some(x) = too_large {
                return Err(Error::out_of_range(format!(
                    "UHUGEINT value {x} does not fit Arrow's DECIMAL(38,0), which UHUGEINT \
                     leaves as; cast the column to VARCHAR or DOUBLE"
                )));
            }
            let values: Vec<i128> = parts
                .iter()
                .flat_map(|(v, n)| v.values::<i128>()[..*n].iter())
                .map(|&x| from_physical(x) as i128)
                .collect();
            Arc::new(
                PrimitiveArray::<Decimal128Type>::new(values.into(), nulls)
                    .with_data_type(target.clone()),
            )
        }
        DataType::Time => primitive::<Time64MicrosecondType>(parts, nulls, target),
        DataType::TimeTz => narrowed::<i64, Time64MicrosecondType>(parts, nulls, |x| {
            stride_common::time_tz::decode(x).0
        }),
        DataType::Uuid => {
            let text: Vec<Vector> = parts.iter().map(|(v, n)| uuids_as_text(v, *n)).collect();
            let text_parts: Vec<(&Vector, usize)> =
                text.iter().zip(parts).map(|(v, (_, n))| (v, *n)).collect();
            return column(&DataType::Varchar, target, &text_parts);
        }
        DataType::Interval => {
            let mut values = Vec::with_capacity(parts.iter().map(|(_, n)| n).sum());
            for (v, n) in parts {
                let VectorData::Interval(b) = &v.data else {
                    return Err(Error::internal("an INTERVAL column without intervals"));
                };
                for (i, iv) in b[..*n].iter().enumerate() {
                    let nanos = match iv.micros.checked_mul(1000) {
                        Some(x) => x,
                        // A NULL row's value is never read.
                        None if !v.is_valid(i) => 0,
                        None => {
                            return Err(Error::out_of_range(format!(
                                "INTERVAL {iv} has more microseconds than Arrow's nanosecond \
                                 intervals hold (about 292 years)"
                            )))
                        }
                    };
                    values.push(IntervalMonthDayNano::new(iv.months, iv.days, nanos));
                }
            }
            Arc::new(PrimitiveArray::<IntervalMonthDayNanoType>::new(
                values.into(),
                nulls,
            ))
        }
        DataType::Varchar | DataType::Json => match target {
            ArrowType::Utf8View => {
                let (views, buffers) = string_views(parts);
                // SAFETY: every view of a text vector holds valid UTF-8 (a StringVector
                // invariant) and points into the buffers passed with it, which keep
                // the chunks' order and indexes.
                Arc::new(unsafe { StringViewArray::new_unchecked(views, buffers.into(), nulls) })
            }
            _ => {
                let (offsets, data) = string_offsets(parts);
                // SAFETY: offsets rise monotonically within `data`, at string boundaries
                // of valid UTF-8 (text vectors hold UTF-8).
                match offsets {
                    Offsets::Small(o) => {
                        Arc::new(unsafe { StringArray::new_unchecked(o, data, nulls) })
                    }
                    Offsets::Large(o) => {
                        Arc::new(unsafe { LargeStringArray::new_unchecked(o, data, nulls) })
                    }
                }
            }
        },
        DataType::Bit => {
            let text: Vec<Vector> = parts.iter().map(|(v, n)| bits_as_text(v, *n)).collect();
            let text_parts: Vec<(&Vector, usize)> =
                text.iter().zip(parts).map(|(v, (_, n))| (v, *n)).collect();
            return column(&DataType::Varchar, target, &text_parts);
        }
        DataType::Blob => match target {
            ArrowType::BinaryView => {
                let (views, buffers) = string_views(parts);
                // SAFETY: the views point into the buffers passed with them.
                Arc::new(unsafe { BinaryViewArray::new_unchecked(views, buffers.into(), nulls) })
            }
            _ => {
                let (offsets, data) = string_offsets(parts);
                // SAFETY: offsets rise monotonically within `data`.
                match offsets {
                    Offsets::Small(o) => {
                        Arc::new(unsafe { BinaryArray::new_unchecked(o, data, nulls) })
                    }
                    Offsets::Large(o) => {
                        Arc::new(unsafe { LargeBinaryArray::new_unchecked(o, data, nulls) })
                    }
                }
            }
        },
        DataType::List(child_ty) => {
            let ArrowType::List(field) = target else {
                return Err(Error::internal(format!(
                    "a list column exported as {target}"
                )));
            };
            let (offsets, values) = list_children(child_ty, field.data_type(), parts)?;
            Arc::new(ListArray::new(
                field.clone(),
                OffsetBuffer::new(offsets.into()),
                values,
                nulls,
            ))
        }
        DataType::Array(elem, n) => {
            let ArrowType::FixedSizeList(field, size) = target else {
                return Err(Error::internal(format!(
                    "an array column exported as {target}"
                )));
            };
            let n = *n as usize;
            let total: usize = parts.iter().map(|(_, rows)| rows).sum();
            // n elements per row, NULL rows included (as NULL elements)
            let mut child = Vector::with_capacity(elem, total * n);
            for (v, rows) in parts {
                let l = v.list();
                let whole = (0..*rows)
                    .all(|i| v.is_valid(i) && (l.offsets[i + 1] - l.offsets[i]) as usize == n);
                if whole {
                    let idx: Vec<u32> = (l.offsets[0]..l.offsets[*rows]).collect();
                    child.append(&l.child.take(&idx), idx.len());
                    continue;
                }
                for i in 0..*rows {
                    if v.is_valid(i) && (l.offsets[i + 1] - l.offsets[i]) as usize == n {
                        let idx: Vec<u32> = (l.offsets[i]..l.offsets[i + 1]).collect();
                        child.append(&l.child.take(&idx), n);
                    } else {
                        (0..n).for_each(|_| child.push_null());
                    }
                }
            }
            let values = column(elem, field.data_type(), &[(&child, total * n)])?;
            Arc::new(
                FixedSizeListArray::try_new(field.clone(), *size, values, nulls)
                    .map_err(|e| Error::internal(format!("building an Arrow array: {e}")))?,
            )
        }
        DataType::Map(..) => {
            let ArrowType::Map(field, _) = target else {
                return Err(Error::internal(format!(
                    "a map column exported as {target}"
                )));
            };
            let entry_ty = ty.list_child().expect("a map has entries");
            let (offsets, values) = list_children(&entry_ty, field.data_type(), parts)?;
            let entries = values
                .as_any()
                .downcast_ref::<StructArray>()
                .cloned()
                .ok_or_else(|| {
                    Error::internal("map entries exported as something else than a struct")
                })?;
            Arc::new(
                MapArray::try_new(
                    field.clone(),
                    OffsetBuffer::new(offsets.into()),
                    entries,
                    nulls,
                    false,
                )
                .map_err(|e| Error::internal(format!("building an Arrow map: {e}")))?,
            )
        }
        DataType::Enum(e) => enum_column(e, parts, nulls)?,
        DataType::Struct(fields) => {
            let ArrowType::Struct(arrow_fields) = target else {
                return Err(Error::internal(format!(
                    "a struct column exported as {target}"
                )));
            };
            let mut children = Vec::with_capacity(fields.len());
            for (j, (_, field_ty)) in fields.iter().enumerate() {
                let field_parts: Vec<(&Vector, usize)> = parts
                    .iter()
                    .map(|(v, n)| (&v.struct_data().fields[j], *n))
                    .collect();
                children.push(column(field_ty, arrow_fields[j].data_type(), &field_parts)?);
            }
            let rows = parts.iter().map(|(_, n)| n).sum();
            Arc::new(
                StructArray::try_new_with_length(arrow_fields.clone(), children, nulls, rows)
                    .map_err(|e| Error::internal(format!("building an Arrow struct: {e}")))?,
            )
        }
        // Each member is a full-length child, NULL where another member is the
        // tag's. A sparse union has no NULLs of its own: a NULL row is member 0's
        // NULL, as DuckDB exports it.
        DataType::Union(members) => {
            let ArrowType::Union(arrow_fields, _) = target else {
                return Err(Error::internal(format!(
                    "a union column exported as {target}"
                )));
            };
            let mut type_ids = Vec::with_capacity(parts.iter().map(|(_, n)| n).sum());
            for (v, n) in parts {
                let tags = &v.struct_data().fields[0];
                for i in 0..*n {
                    let tag = match v.is_valid(i) && tags.is_valid(i) {
                        true => tags.values::<i16>()[i] as i8,
                        false => 0,
                    };
                    type_ids.push(tag);
                }
            }
            let mut children = Vec::with_capacity(members.len());
            for (j, ((_, member_ty), (_, field))) in
                members.iter().zip(arrow_fields.iter()).enumerate()
            {
                let member_parts: Vec<(&Vector, usize)> = parts
                    .iter()
                    .map(|(v, n)| (&v.struct_data().fields[j + 1], *n))
                    .collect();
                children.push(column(member_ty, field.data_type(), &member_parts)?);
            }
            Arc::new(
                UnionArray::try_new(arrow_fields.clone(), type_ids.into(), None, children)
                    .map_err(|e| Error::internal(format!("building an Arrow union: {e}")))?,
            )
        }
    })
}

/// The offsets and the child array of list-shaped columns (LIST, MAP), all `parts`
/// one after the other.
fn list_children(
    child_ty: &DataType,
    child_target: &ArrowType,
    parts: &[(&Vector, usize)],
) -> Result<(Vec<i32>, ArrayRef)> {
    let mut offsets = Vec::with_capacity(parts.iter().map(|(_, n)| n + 1).sum());
    offsets.push(0i32);
    let mut children = Vec::with_capacity(parts.len());
    for (v, n) in parts {
        let list = v.list();
        let (start, end) = (list.offsets[0], list.offsets[*n]);
        let base = *offsets.last().expect("starts with 0");
        for &o in &list.offsets[1..=*n] {
            let o = i32::try_from(o - start)
                .ok()
                .and_then(|o| base.checked_add(o))
                .ok_or_else(|| {
                    Error::out_of_range("a list column holds more than 2^31 elements")
                })?;
            offsets.push(o);
        }
        let len = (end - start) as usize;
        let child = (*list.child)
            .clone()
            .flatten(list.child.data_len().max(end as usize))
            .slice(start as usize, len);
        children.push((child, len));
    }
    let child_parts: Vec<(&Vector, usize)> = children.iter().map(|(v, n)| (v, *n)).collect();
    Ok((offsets, column(child_ty, child_target, &child_parts)?))
}

/// The unsigned index type of an enum's Arrow dictionary, the narrowest that holds
/// every position (DuckDB's choice: UInt8 up to 256 labels).
fn enum_key_type(e: &stride_common::EnumType) -> ArrowType {
    match e.len() {
        n if n <= 1 << 8 => ArrowType::UInt8,
        n if n <= 1 << 16 => ArrowType::UInt16,
        _ => ArrowType::UInt32,
    }
}

/// An ENUM column as a dictionary array: the labels once, each row's position as its
/// key (widened from stride's signed storage to the key type).
fn enum_column(
    e: &stride_common::EnumType,
    parts: &[(&Vector, usize)],
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef> {
    use arrow_array::DictionaryArray;
    let total: usize = parts.iter().map(|(_, n)| n).sum();
    let mut keys: Vec<u32> = Vec::with_capacity(total);
    for (v, n) in parts {
        match &v.data {
            VectorData::I8(b) => keys.extend(b[..*n].iter().map(|&x| x as u8 as u32)),
            VectorData::I16(b) => keys.extend(b[..*n].iter().map(|&x| x as u16 as u32)),
            VectorData::I32(b) => keys.extend(b[..*n].iter().map(|&x| x as u32)),
            d => {
                return Err(Error::internal(format!(
                    "an ENUM column holds {:?} data",
                    d.physical()
                )))
            }
        }
    }
    // NULL rows may hold anything: point them at the first label
    for (i, k) in keys.iter_mut().enumerate() {
        if nulls.as_ref().is_some_and(|b| !b.is_valid(i)) || *k as usize >= e.len() {
            *k = 0;
        }
    }
    let values: ArrayRef = Arc::new(StringArray::from_iter_values(e.labels()));
    let built = match enum_key_type(e) {
        ArrowType::UInt8 => DictionaryArray::<UInt8Type>::try_new(
            PrimitiveArray::new(keys.iter().map(|&k| k as u8).collect(), nulls),
            values,
        )
        .map(|a| Arc::new(a) as ArrayRef),
        ArrowType::UInt16 => DictionaryArray::<UInt16Type>::try_new(
            PrimitiveArray::new(keys.iter().map(|&k| k as u16).collect(), nulls),
            values,
        )
        .map(|a| Arc::new(a) as ArrayRef),
        _ => {
            DictionaryArray::<UInt32Type>::try_new(PrimitiveArray::new(keys.into(), nulls), values)
                .map(|a| Arc::new(a) as ArrayRef)
        }
    };
    built.map_err(|err| Error::internal(format!("building an Arrow dictionary: {err}")))
}

/// The first `n` rows of a UUID vector as their text.
fn uuids_as_text(v: &Vector, n: usize) -> Vector {
    let values = v.values::<i128>();
    let mut out = StringVector::with_capacity(n);
    let mut buf = String::with_capacity(36);
    for (i, &x) in values[..n].iter().enumerate() {
        buf.clear();
        if v.is_valid(i) {
            stride_common::uuid::write(&mut buf, stride_common::uuid::from_physical(x));
        }
        out.push(&buf);
    }
    Vector::new(DataType::Varchar, VectorData::Str(out), v.validity.clone())
}

fn bits_as_text(v: &Vector, n: usize) -> Vector {
    let strings = v.strings();
    let mut out = StringVector::with_capacity(n);
    let mut buf = String::new();
    for i in 0..n {
        buf.clear();
        if v.is_valid(i) {
            stride_common::bit::write_text(strings.get_bytes(i), &mut buf);
        }
        out.push(&buf);
    }
    Vector::new(DataType::Varchar, VectorData::Str(out), v.validity.clone())
}

/// Whether the chunk `next` starts in memory where `prev` (of `prev_rows` rows)
/// ends, column by column, so a batch of both can share their buffers (see
/// [`record_batch`]); a consumer cuts batches where this fails to keep them shared.
pub fn follows(prev: &[Vector], prev_rows: usize, next: &[Vector]) -> bool {
    prev.iter()
        .zip(next)
        .all(|(p, n)| match (&p.data, &n.data) {
            (VectorData::Str(a), VectorData::Str(b)) => {
                a.views[..prev_rows].as_ptr_range().end == b.views.as_ptr()
                    && a.buffers.len() == b.buffers.len()
                    && a.buffers.iter().zip(&b.buffers).all(|(x, y)| x.ptr_eq(y))
            }
            (VectorData::List(_), _) | (VectorData::Bool(_), _) | (VectorData::Interval(_), _) => {
                true
            }
            (a, b) => match (value_range(a, prev_rows), value_range(b, 0)) {
                (Some((_, end)), Some((start, _))) => end == start,
                _ => false,
            },
        })
}

/// The addresses of the first `n` values of a fixed-width vector.
fn value_range(d: &VectorData, n: usize) -> Option<(usize, usize)> {
    fn range<T>(v: &[T], n: usize) -> Option<(usize, usize)> {
        let r = v.get(..n)?.as_ptr_range();
        Some((r.start as usize, r.end as usize))
    }
    match d {
        VectorData::I8(b) => range(b, n),
        VectorData::I16(b) => range(b, n),
        VectorData::I32(b) => range(b, n),
        VectorData::I64(b) => range(b, n),
        VectorData::I128(b) => range(b, n),
        VectorData::F32(b) => range(b, n),
        VectorData::F64(b) => range(b, n),
        _ => None,
    }
}

/// The validity of `parts` one after the other; `None` when no row is NULL.
fn nulls(parts: &[(&Vector, usize)]) -> Option<NullBuffer> {
    if parts.iter().all(|(v, _)| !v.validity.has_nulls()) {
        return None;
    }
    let bits = concat_bits(parts, |v, i| v.is_valid(i));
    Some(NullBuffer::new(bits))
}

fn concat_bits(parts: &[(&Vector, usize)], f: impl Fn(&Vector, usize) -> bool) -> BooleanBuffer {
    let total = parts.iter().map(|(_, n)| n).sum();
    let mut part = 0;
    let mut start = 0;
    BooleanBuffer::collect_bool(total, |i| {
        while i >= start + parts[part].1 {
            start += parts[part].1;
            part += 1;
        }
        f(parts[part].0, i - start)
    })
}

/// A fixed-width column: shared with the chunk when there is one, else copied once.
fn primitive<A>(
    parts: &[(&Vector, usize)],
    nulls: Option<NullBuffer>,
    target: &ArrowType,
) -> ArrayRef
where
    A: ArrowPrimitiveType,
    A::Native: NativeType + std::panic::RefUnwindSafe,
{
    let buffers: Vec<(&Buffer<A::Native>, usize)> = parts
        .iter()
        .map(|(v, n)| (<A::Native as NativeType>::buffer(&v.data), *n))
        .collect();
    let values: ScalarBuffer<A::Native> = match share(&buffers) {
        Some(shared) => shared,
        None => {
            let mut all = Vec::with_capacity(parts.iter().map(|(_, n)| n).sum());
            for (v, n) in parts {
                all.extend_from_slice(&v.values::<A::Native>()[..*n]);
            }
            all.into()
        }
    };
    Arc::new(PrimitiveArray::<A>::new(values, nulls).with_data_type(target.clone()))
}

/// An Arrow array of `A` from parts stored as `S`, each value converted by `f`.
fn narrowed<S: NativeType, A: ArrowPrimitiveType>(
    parts: &[(&Vector, usize)],
    nulls: Option<NullBuffer>,
    f: impl Fn(S) -> A::Native,
) -> ArrayRef {
    let values: Vec<A::Native> = parts
        .iter()
        .flat_map(|(v, n)| v.values::<S>()[..*n].iter().map(|&x| f(x)))
        .collect();
    Arc::new(PrimitiveArray::<A>::new(values.into(), nulls))
}

/// The first `n` values of each buffer, one after the other, as an Arrow buffer over
/// the same memory, when each part ends where the next begins; `None` otherwise. The
/// Arrow buffer keeps clones of the parts (reference counts) alive until released,
/// which keeps the whole range alive even where the parts are separate allocations
/// that happen to touch.
fn share<T>(parts: &[(&Buffer<T>, usize)]) -> Option<ScalarBuffer<T>>
where
    T: ArrowNativeType + Send + Sync + std::panic::RefUnwindSafe,
{
    let (buffer, len) = share_raw(parts)?;
    Some(ScalarBuffer::new(buffer, 0, len))
}

/// [`share`] for any value type: the Arrow buffer and the number of values.
fn share_raw<T>(parts: &[(&Buffer<T>, usize)]) -> Option<(ArrowBuffer, usize)>
where
    T: Clone + Send + Sync + std::panic::RefUnwindSafe + 'static,
{
    let (first, _) = parts.first()?;
    let start = first.as_ptr();
    let mut end = start;
    for (b, n) in parts {
        if b.as_ptr() != end {
            return None;
        }
        // In bounds: `n` values of `b` start at `end`.
        end = b[..*n].as_ptr_range().end;
    }
    let len: usize = parts.iter().map(|(_, n)| n).sum();
    let owners: Vec<Buffer<T>> = parts.iter().map(|(b, _)| (*b).clone()).collect();
    let ptr = NonNull::new(start as *mut u8).expect("slices are never null");
    // SAFETY: the parts cover `start..end` without gaps, each range owned by a
    // buffer's shared storage, which the clones moved into the Arrow buffer keep
    // alive and which no one writes while shared (stride's buffers are copy-on-write).
    let buffer = unsafe {
        ArrowBuffer::from_custom_allocation(ptr, len * std::mem::size_of::<T>(), Arc::new(owners))
    };
    Some((buffer, len))
}

/// Strings as Arrow views: stride's 16-byte views are Arrow's layout (length, then
/// the bytes inline up to 12, or a 4-byte prefix, buffer index and offset), so one
/// chunk's views and heap buffers are shared as they are; several chunks' views are
/// copied with their buffer indexes moved past the buffers of the chunks before.
/// The views and heap buffers of string-shaped vectors one after the other, as
/// Arrow's view arrays (`Utf8View`, `BinaryView`) hold them.
fn string_views(parts: &[(&Vector, usize)]) -> (ScalarBuffer<u128>, Vec<ArrowBuffer>) {
    let mut buffers: Vec<ArrowBuffer> = Vec::new();
    // Views can be shared when they lie one after the other and every chunk's views
    // index the same heap buffers (windows of one stored string column do).
    let first = parts.first().map(|(v, _)| &v.strings().buffers);
    let same_heaps = parts.iter().all(|(v, _)| {
        let b = &v.strings().buffers;
        first.is_some_and(|f| f.len() == b.len() && f.iter().zip(b).all(|(x, y)| x.ptr_eq(y)))
    });
    let view_parts: Vec<(&Buffer<StringView>, usize)> = parts
        .iter()
        .map(|(v, n)| (&v.strings().views, *n))
        .collect();
    let aligned = view_parts
        .first()
        .is_some_and(|(b, _)| (b.as_ptr() as usize) % std::mem::align_of::<u128>() == 0);
    let shared = if same_heaps && aligned {
        share_views(&view_parts)
    } else {
        None
    };
    let views: ScalarBuffer<u128> = match shared {
        Some(views) => {
            buffers.extend(first.into_iter().flatten().map(share_bytes));
            views
        }
        _ => {
            let mut all = Vec::with_capacity(parts.iter().map(|(_, n)| n).sum());
            for (v, n) in parts {
                let s = v.strings();
                let base = buffers.len() as u128;
                buffers.extend(s.buffers.iter().map(share_bytes));
                for (i, view) in s.views[..*n].iter().enumerate() {
                    let raw = view_bits(view);
                    all.push(if !v.is_valid(i) {
                        0
                    } else if view.is_inline() {
                        raw
                    } else {
                        raw + (base << 64)
                    });
                }
            }
            all.into()
        }
    };
    (views, buffers)
}

/// 32-bit offsets, or 64-bit ones when a batch holds 2 GiB or more.
enum Offsets {
    Small(OffsetBuffer<i32>),
    Large(OffsetBuffer<i64>),
}

/// Contiguous views as Arrow's u128 views (same bytes; checked aligned by the caller).
fn share_views(parts: &[(&Buffer<StringView>, usize)]) -> Option<ScalarBuffer<u128>> {
    let (buffer, len) = share_raw(parts)?;
    Some(ScalarBuffer::new(buffer, 0, len))
}

fn view_bits(v: &StringView) -> u128 {
    // SAFETY: StringView is 16 plain bytes (`repr(C)`: a u32 and 12 bytes).
    unsafe { std::mem::transmute::<StringView, u128>(*v) }
}

fn share_bytes(b: &Buffer<u8>) -> ArrowBuffer {
    let ptr = NonNull::new(b.as_ptr() as *mut u8).expect("vectors are never null");
    // SAFETY: the bytes are owned by the `Arc`, kept alive by the clone, and never
    // written once shared.
    unsafe { ArrowBuffer::from_custom_allocation(ptr, b.len(), Arc::new(b.clone())) }
}

/// Strings as offsets and bytes (a copy); large offsets when a batch holds 2 GiB or more.
fn string_offsets(parts: &[(&Vector, usize)]) -> (Offsets, ArrowBuffer) {
    let total: usize = parts.iter().map(|(_, n)| n).sum();
    let bytes: usize = parts
        .iter()
        .map(|(v, n)| strings_len(v.strings(), *n))
        .sum();
    let mut data = Vec::with_capacity(bytes);
    let mut offsets = Vec::with_capacity(total + 1);
    offsets.push(0usize);
    for (v, n) in parts {
        let s = v.strings();
        for i in 0..*n {
            if v.is_valid(i) {
                data.extend_from_slice(s.get_bytes(i));
            }
            offsets.push(data.len());
        }
    }
    let data = ArrowBuffer::from_vec(data);
    // SAFETY (both): the offsets start at 0 and rise monotonically.
    let offsets = if bytes <= i32::MAX as usize {
        let o: Vec<i32> = offsets.into_iter().map(|o| o as i32).collect();
        Offsets::Small(unsafe { OffsetBuffer::new_unchecked(o.into()) })
    } else {
        let o: Vec<i64> = offsets.into_iter().map(|o| o as i64).collect();
        Offsets::Large(unsafe { OffsetBuffer::new_unchecked(o.into()) })
    };
    (offsets, data)
}

fn strings_len(s: &StringVector, n: usize) -> usize {
    s.views[..n].iter().map(|v| v.len()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::Array;
    use stride_common::{DataChunk, ScalarValue};

    fn vector(ty: DataType, values: &[ScalarValue]) -> Vector {
        let mut v = Vector::with_capacity(&ty, values.len());
        for x in values {
            v.push(x).unwrap();
        }
        v
    }

    #[test]
    fn one_chunk_shares_fixed_width_values_and_strings() {
        let ints = Vector::from_values(DataType::BigInt, vec![1i64, 2, 3]);
        let long = "a string longer than twelve bytes";
        let strs = vector(
            DataType::Varchar,
            &[
                ScalarValue::Varchar("short".into()),
                ScalarValue::Null,
                ScalarValue::Varchar(long.into()),
            ],
        );
        let types = [DataType::BigInt, DataType::Varchar];
        let schema = arrow_schema(&["i".into(), "s".into()], &types, StringLayout::View);
        let (cols, n) = DataChunk::new(vec![ints.clone(), strs.clone()], 3).into_flat_columns();
        let batch = record_batch(&schema, &types, &[(cols, n)]).unwrap();
        let i = batch.column(0).as_primitive::<Int64Type>();
        assert_eq!(i.values().as_ptr(), ints.values::<i64>().as_ptr());
        let s = batch.column(1).as_string_view();
        assert_eq!(s.value(0), "short");
        assert!(s.is_null(1));
        assert_eq!(s.value(2), long);
        assert_eq!(
            s.data_buffers()[0].as_ptr(),
            strs.strings().buffers[0].as_ptr()
        );
    }

    #[test]
    fn unsigned_integers_leave_and_return_as_arrow_unsigned() {
        use ScalarValue as S;
        let cases = [
            (DataType::UTinyInt, S::UTinyInt(255)),
            (DataType::USmallInt, S::USmallInt(65535)),
            (DataType::UInteger, S::UInteger(u32::MAX)),
            (DataType::UBigInt, S::UBigInt(u64::MAX)),
        ];
        for (ty, max) in cases {
            let v = vector(ty.clone(), &[S::Null, max.clone()]);
            let types = [ty.clone()];
            let schema = arrow_schema(&["u".into()], &types, StringLayout::View);
            let (cols, n) = DataChunk::new(vec![v], 2).into_flat_columns();
            let batch = record_batch(&schema, &types, &[(cols, n)]).unwrap();
            let array = batch.column(0);
            assert!(array.data_type().is_unsigned_integer(), "{ty}");
            assert!(array.is_null(0));
            assert_eq!(stride_type("u", array.data_type()).unwrap(), ty);
            let back = to_vector(array, &ty).unwrap();
            assert_eq!(back.get(0), S::Null);
            assert_eq!(back.get(1), max);
        }
    }

    #[test]
    fn consecutive_windows_of_one_vector_are_shared() {
        let ints = Vector::from_values(DataType::Integer, (0..100).collect::<Vec<i32>>());
        let values: Vec<ScalarValue> = (0..100)
            .map(|i| ScalarValue::Varchar(format!("string {i} is longer than twelve")))
            .collect();
        let strs = vector(DataType::Varchar, &values);
        let types = [DataType::Integer, DataType::Varchar];
        let schema = arrow_schema(&["i".into(), "s".into()], &types, StringLayout::View);
        let window = |o: usize, n: usize| (vec![ints.slice(o, n), strs.slice(o, n)], n);
        let batch = record_batch(&schema, &types, &[window(0, 40), window(40, 60)]).unwrap();
        let i = batch.column(0).as_primitive::<Int32Type>();
        assert_eq!(i.values().as_ptr(), ints.values::<i32>().as_ptr());
        assert_eq!(i.values().len(), 100);
        let s = batch.column(1).as_string_view();
        assert_eq!(
            s.views().as_ptr() as usize,
            strs.strings().views.as_ptr() as usize
        );
        assert_eq!(s.value(99), "string 99 is longer than twelve");
        // Windows out of order are copied.
        let batch = record_batch(&schema, &types, &[window(40, 60), window(0, 40)]).unwrap();
        let i = batch.column(0).as_primitive::<Int32Type>();
        assert_ne!(i.values().as_ptr(), ints.values::<i32>().as_ptr());
        assert_eq!((i.value(0), i.value(60)), (40, 0));
        assert_eq!(
            batch.column(1).as_string_view().value(60),
            "string 0 is longer than twelve"
        );
    }

    #[test]
    fn several_chunks_concatenate() {
        let long = |k: usize| format!("string number {k} is long enough");
        let chunk = |k: usize| {
            let strs = vector(
                DataType::Varchar,
                &[
                    ScalarValue::Varchar(long(k)),
                    ScalarValue::Varchar("x".into()),
                ],
            );
            let dec = vector(
                DataType::Decimal(10, 2),
                &[
                    ScalarValue::Decimal(k as i128 * 100 + 5, 10, 2),
                    ScalarValue::Null,
                ],
            );
            let list = vector(
                DataType::List(Box::new(DataType::Integer)),
                &[
                    ScalarValue::List(DataType::Integer, vec![ScalarValue::Integer(k as i32)]),
                    ScalarValue::List(DataType::Integer, vec![]),
                ],
            );
            DataChunk::new(vec![strs, dec, list], 2).into_flat_columns()
        };
        let types = [
            DataType::Varchar,
            DataType::Decimal(10, 2),
            DataType::List(Box::new(DataType::Integer)),
        ];
        for layout in [StringLayout::View, StringLayout::Offsets] {
            let schema = arrow_schema(&["s".into(), "d".into(), "l".into()], &types, layout);
            let batch = record_batch(&schema, &types, &[chunk(0), chunk(1)]).unwrap();
            assert_eq!(batch.num_rows(), 4);
            let s: Vec<String> = (0..4)
                .map(|i| match layout {
                    StringLayout::View => batch.column(0).as_string_view().value(i).to_string(),
                    StringLayout::Offsets => {
                        batch.column(0).as_string::<i32>().value(i).to_string()
                    }
                })
                .collect();
            assert_eq!(s, [long(0), "x".into(), long(1), "x".into()]);
            let d = batch.column(1).as_primitive::<Decimal128Type>();
            assert_eq!((d.value(2), d.is_null(3)), (105, true));
            let l = batch.column(2).as_list::<i32>();
            assert_eq!(l.value_offsets(), &[0, 1, 1, 2, 2]);
            assert_eq!(l.values().as_primitive::<Int32Type>().values(), &[0, 1]);
        }
    }

    #[test]
    fn arrow_arrays_are_read_in_place() {
        let ints = arrow_array::Int64Array::from(vec![1, 2, 3]);
        let v = to_vector(&ints, &DataType::BigInt).unwrap();
        assert_eq!(v.values::<i64>().as_ptr(), ints.values().as_ptr());
        let long = "a string longer than twelve bytes";
        let offsets = StringArray::from(vec![Some("short"), None, Some(long)]);
        let views = StringViewArray::from(vec![Some("short"), Some(long)]);
        let with_null = StringViewArray::from(vec![Some(long), None]);
        for (array, expect) in [
            (
                &offsets as &dyn arrow_array::Array,
                vec![Some("short"), None, Some(long)],
            ),
            (&views, vec![Some("short"), Some(long)]),
            (&with_null, vec![Some(long), None]),
        ] {
            let v = to_vector(array, &DataType::Varchar).unwrap();
            let got: Vec<Option<&str>> = (0..v.data_len())
                .map(|i| v.is_valid(i).then(|| v.strings().get(i)))
                .collect();
            assert_eq!(got, expect);
            let heap = &v.strings().buffers[0];
            assert!(heap.is_foreign(), "string bytes are not copied");
        }
        let v = to_vector(&views, &DataType::Varchar).unwrap();
        assert!(v.strings().views.is_foreign(), "NULL-free views are shared");
        // A stride vector outlives the Arrow array it reads.
        let v = to_vector(
            &arrow_array::Int32Array::from(vec![7, 8]),
            &DataType::Integer,
        )
        .unwrap();
        assert_eq!(v.values::<i32>(), &[7, 8]);
    }
}
