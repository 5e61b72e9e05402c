//! Logical SQL types and the physical representation each one is stored as in a
//! [`crate::Vector`]. The binder reasons in [`DataType`]; kernels are monomorphized over
//! [`PhysicalType`].

use crate::enum_type::EnumType;
use crate::time_unit::TimeUnit;
use std::fmt;

/// Widest DECIMAL precision stored in an `i64`; wider ones use `i128`.
pub const DECIMAL_I64_MAX_PRECISION: u8 = 18;
pub const DECIMAL_MAX_PRECISION: u8 = 38;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DataType {
    /// The type of an untyped NULL literal; it casts implicitly to every type.
    Null,
    Boolean,
    TinyInt,
    SmallInt,
    Integer,
    BigInt,
    /// HUGEINT (INT128): a 128-bit two's complement integer.
    HugeInt,
    /// The unsigned integers UTINYINT, USMALLINT, UINTEGER and UBIGINT. Each is
    /// stored in the next wider signed type ([`DataType::physical`]), so every
    /// signed kernel, hash, sort and zone map serves it unchanged; casts and
    /// arithmetic check the unsigned range ([`DataType::integer_range`]).
    UTinyInt,
    USmallInt,
    UInteger,
    UBigInt,
    /// UHUGEINT: an unsigned 128-bit integer, stored as an i128 whose top bit is
    /// flipped ([`crate::flip128`]), so the signed order of the stored values is the
    /// order of the numbers. It is not one of [`DataType::is_integer`]'s types,
    /// whose stored value is their value: its casts and arithmetic are its own.
    UHugeInt,
    Real,
    Double,
    /// DECIMAL(precision, scale): a scaled integer, exact.
    Decimal(u8, u8),
    Varchar,
    /// Days since 1970-01-01.
    Date,
    /// Microseconds since 1970-01-01 00:00:00.
    Timestamp,
    /// TIMESTAMP WITH TIME ZONE: an instant, microseconds since 1970-01-01 00:00:00
    /// UTC, shown and split into fields in the session's time zone ([`crate::zone`]).
    TimestampTz,
    /// TIMESTAMP_S, TIMESTAMP_MS, TIMESTAMP_NS: a timestamp counted in seconds,
    /// milliseconds or nanoseconds since 1970-01-01 00:00:00 ([`crate::time_unit`]).
    TimestampUnit(TimeUnit),
    /// Microseconds since midnight, 0 to 24:00:00 inclusive (as DuckDB).
    Time,
    /// TIME WITH TIME ZONE: a time of day and a UTC offset in one `i64`
    /// ([`crate::time_tz`]).
    TimeTz,
    Interval,
    /// A UUID stored as an i128 whose top bit is flipped ([`crate::uuid`]), so the
    /// signed order of the stored values is the order of the UUIDs' text.
    Uuid,
    List(Box<DataType>),
    /// STRUCT(name type, ...): a fixed set of named fields, each a value of its own
    /// type. A field name may be empty (the unnamed fields of `row(...)`).
    Struct(Vec<(String, DataType)>),
    /// MAP(key, value): stored as a list of `STRUCT(key, value)` entries (its
    /// [`DataType::list_child`]), keys unique and never NULL.
    Map(Box<DataType>, Box<DataType>),
    /// ARRAY: `T[n]`, a list of exactly `n` elements (DuckDB's fixed-size array,
    /// what vector search works on); stored as a list whose rows all hold `n`.
    Array(Box<DataType>, u32),
    /// BLOB (BYTEA): a string of bytes, compared byte by byte; its text form escapes
    /// non-printable bytes as `\xAA` ([`crate::blob`]). Stored like a VARCHAR, but the
    /// bytes need not be UTF-8.
    Blob,
    /// BIT (BITSTRING): a string of bits, stored like a BLOB in DuckDB's layout
    /// ([`crate::bit`]), so its bytes compare as DuckDB compares bit strings.
    Bit,
    /// JSON text: stored, compared and sorted as a VARCHAR, but with its own type name
    /// (DuckDB's JSON logical type). Casting text to it validates the text.
    Json,
    /// ENUM('a', 'b', ...): one of a fixed list of labels, stored as its position in
    /// the list ([`crate::enum_type`]) and ordered by it.
    Enum(EnumType),
    /// UNION(name type, ...): a value of one of the member types, tagged with the
    /// member's position; stored as a STRUCT of the tag and the members
    /// ([`crate::union_type`]).
    Union(Vec<(String, DataType)>),
}

/// How values of a type are laid out in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PhysicalType {
    Bool,
    I8,
    I16,
    I32,
    I64,
    I128,
    F32,
    F64,
    Str,
    Interval,
    List,
    Struct,
}

impl DataType {
    pub fn physical(&self) -> PhysicalType {
        match self {
            DataType::Null | DataType::Boolean => PhysicalType::Bool,
            DataType::TinyInt => PhysicalType::I8,
            DataType::SmallInt | DataType::UTinyInt => PhysicalType::I16,
            DataType::Integer | DataType::Date | DataType::USmallInt => PhysicalType::I32,
            DataType::BigInt
            | DataType::Timestamp
            | DataType::TimestampTz
            | DataType::TimestampUnit(_)
            | DataType::Time
            | DataType::TimeTz
            | DataType::UInteger => PhysicalType::I64,
            DataType::HugeInt | DataType::Uuid | DataType::UBigInt | DataType::UHugeInt => {
                PhysicalType::I128
            }
            DataType::Decimal(p, _) if *p <= DECIMAL_I64_MAX_PRECISION => PhysicalType::I64,
            DataType::Decimal(..) => PhysicalType::I128,
            DataType::Real => PhysicalType::F32,
            DataType::Double => PhysicalType::F64,
            DataType::Varchar | DataType::Json | DataType::Blob | DataType::Bit => {
                PhysicalType::Str
            }
            DataType::Interval => PhysicalType::Interval,
            DataType::List(_) | DataType::Map(..) | DataType::Array(..) => PhysicalType::List,
            DataType::Struct(_) | DataType::Union(_) => PhysicalType::Struct,
            DataType::Enum(e) => e.physical(),
        }
    }

    pub fn is_integer(&self) -> bool {
        matches!(
            self,
            DataType::TinyInt
                | DataType::SmallInt
                | DataType::Integer
                | DataType::BigInt
                | DataType::HugeInt
        ) || self.is_unsigned()
    }

    /// UTINYINT, USMALLINT, UINTEGER or UBIGINT.
    pub fn is_unsigned(&self) -> bool {
        matches!(
            self,
            DataType::UTinyInt | DataType::USmallInt | DataType::UInteger | DataType::UBigInt
        )
    }

    /// The smallest and largest value of an integer type. For the signed types they
    /// are their storage's; an unsigned type is stored wider, so a value computed in
    /// its storage must be checked against this range.
    pub fn integer_range(&self) -> Option<(i128, i128)> {
        Some(match self {
            DataType::TinyInt => (i8::MIN as i128, i8::MAX as i128),
            DataType::SmallInt => (i16::MIN as i128, i16::MAX as i128),
            DataType::Integer => (i32::MIN as i128, i32::MAX as i128),
            DataType::BigInt => (i64::MIN as i128, i64::MAX as i128),
            DataType::HugeInt => (i128::MIN, i128::MAX),
            DataType::UTinyInt => (0, u8::MAX as i128),
            DataType::USmallInt => (0, u16::MAX as i128),
            DataType::UInteger => (0, u32::MAX as i128),
            DataType::UBigInt => (0, u64::MAX as i128),
            _ => return None,
        })
    }

    /// The name overflow and cast errors give an integer type's storage, as DuckDB
    /// names it ("INT32", "UINT8").
    pub fn physical_integer_name(&self) -> Option<&'static str> {
        Some(match self {
            DataType::TinyInt => "INT8",
            DataType::SmallInt => "INT16",
            DataType::Integer => "INT32",
            DataType::BigInt => "INT64",
            DataType::HugeInt => "INT128",
            DataType::UTinyInt => "UINT8",
            DataType::USmallInt => "UINT16",
            DataType::UInteger => "UINT32",
            DataType::UBigInt => "UINT64",
            DataType::UHugeInt => "UINT128",
            _ => return None,
        })
    }

    pub fn is_float(&self) -> bool {
        matches!(self, DataType::Real | DataType::Double)
    }

    pub fn is_numeric(&self) -> bool {
        self.is_integer() || self.is_float() || matches!(self, DataType::Decimal(..))
    }

    /// Whether values of this type hold other values (LIST, STRUCT): such values are
    /// compared, hashed and cast through their elements, not as one machine value.
    pub fn is_nested(&self) -> bool {
        matches!(
            self,
            DataType::List(_)
                | DataType::Struct(_)
                | DataType::Map(..)
                | DataType::Array(..)
                | DataType::Union(_)
        )
    }

    /// The type of the child vector of a list-shaped type: a LIST's elements, a MAP's
    /// `STRUCT(key, value)` entries.
    pub fn list_child(&self) -> Option<DataType> {
        match self {
            DataType::List(t) | DataType::Array(t, _) => Some((**t).clone()),
            DataType::Map(k, v) => Some(Self::map_entry(k, v)),
            _ => None,
        }
    }

    /// The entry type of MAP(k, v): `STRUCT(key k, value v)`.
    pub fn map_entry(k: &DataType, v: &DataType) -> DataType {
        DataType::Struct(vec![
            ("key".to_string(), k.clone()),
            ("value".to_string(), v.clone()),
        ])
    }

    /// The fields of a STRUCT type.
    pub fn struct_fields(&self) -> Option<&[(String, DataType)]> {
        match self {
            DataType::Struct(f) => Some(f),
            _ => None,
        }
    }

    /// The fields of the STRUCT values of this type are stored as (a struct-shaped
    /// vector's children): a STRUCT's own, a UNION's tag and members.
    pub fn stored_fields(&self) -> Option<std::borrow::Cow<'_, [(String, DataType)]>> {
        match self {
            DataType::Struct(f) => Some(std::borrow::Cow::Borrowed(f)),
            DataType::Union(m) => Some(std::borrow::Cow::Owned(crate::union_type::storage_fields(
                m,
            ))),
            _ => None,
        }
    }

    pub fn is_temporal(&self) -> bool {
        matches!(
            self,
            DataType::Date
                | DataType::Timestamp
                | DataType::TimestampTz
                | DataType::TimestampUnit(_)
                | DataType::Time
                | DataType::TimeTz
                | DataType::Interval
        )
    }

    /// Precision and scale of an integer or decimal viewed as a DECIMAL.
    pub fn decimal_properties(&self) -> Option<(u8, u8)> {
        match self {
            DataType::TinyInt => Some((3, 0)),
            DataType::SmallInt => Some((5, 0)),
            DataType::Integer => Some((10, 0)),
            DataType::BigInt => Some((19, 0)),
            DataType::HugeInt => Some((38, 0)),
            DataType::UTinyInt => Some((3, 0)),
            DataType::USmallInt => Some((5, 0)),
            DataType::UInteger => Some((10, 0)),
            DataType::UBigInt => Some((20, 0)),
            DataType::Decimal(p, s) => Some((*p, *s)),
            _ => None,
        }
    }

    /// Rank used to pick the wider of two numeric types in implicit casts.
    fn numeric_rank(&self) -> u8 {
        match self {
            DataType::TinyInt | DataType::UTinyInt => 1,
            DataType::SmallInt | DataType::USmallInt => 2,
            DataType::Integer | DataType::UInteger => 3,
            DataType::BigInt | DataType::UBigInt => 4,
            DataType::HugeInt => 5,
            DataType::Decimal(..) => 6,
            DataType::Real => 7,
            DataType::Double => 8,
            _ => 0,
        }
    }

    /// The narrowest integer type holding every value of two integer types
    /// (DuckDB's rule): the wider of two signed or of two unsigned types; a signed
    /// type meeting an unsigned one as wide or wider than itself gives the next
    /// signed type wider than the unsigned one (UINTEGER and INTEGER: BIGINT).
    pub fn integer_supertype(a: &DataType, b: &DataType) -> Option<DataType> {
        use DataType::*;
        let (ra, rb) = (a.integer_range()?, b.integer_range()?);
        if a.is_unsigned() == b.is_unsigned() {
            return Some(if ra.1 >= rb.1 { a.clone() } else { b.clone() });
        }
        let (signed, unsigned) = if a.is_unsigned() { (rb, ra) } else { (ra, rb) };
        if signed.1 >= unsigned.1 {
            return Some(if a.is_unsigned() {
                b.clone()
            } else {
                a.clone()
            });
        }
        [SmallInt, Integer, BigInt, HugeInt]
            .into_iter()
            .find(|t| t.integer_range().is_some_and(|r| r.1 >= unsigned.1))
    }

    /// The type both sides are cast to when two values meet in a comparison, a UNION,
    /// a CASE or an IN list; `None` when no implicit cast exists.
    pub fn common_supertype(a: &DataType, b: &DataType) -> Option<DataType> {
        use DataType::*;
        if a == b {
            return Some(a.clone());
        }
        match (a, b) {
            (Null, t) | (t, Null) => Some(t.clone()),
            (Decimal(p1, s1), Decimal(p2, s2)) => {
                let s = (*s1).max(*s2);
                let int_digits = (p1 - s1).max(p2 - s2);
                Some(Decimal((int_digits + s).min(DECIMAL_MAX_PRECISION), s))
            }
            (Decimal(..), i) | (i, Decimal(..)) if i.is_integer() => {
                let d = if matches!(a, Decimal(..)) { a } else { b };
                let (ip, _) = i.decimal_properties().unwrap();
                let (p, s) = d.decimal_properties().unwrap();
                let int_digits = (p - s).max(ip);
                Some(Decimal((int_digits + s).min(DECIMAL_MAX_PRECISION), s))
            }
            (x, y) if x.is_integer() && y.is_integer() => Self::integer_supertype(x, y),
            // UHUGEINT holds every unsigned value; with a signed integer or a float
            // the two meet as DOUBLE, with a DECIMAL as the widest DECIMAL (DuckDB)
            (UHugeInt, t) | (t, UHugeInt) if t.is_unsigned() => Some(UHugeInt),
            (UHugeInt, Decimal(_, s)) | (Decimal(_, s), UHugeInt) => {
                Some(Decimal(DECIMAL_MAX_PRECISION, *s))
            }
            (UHugeInt, t) | (t, UHugeInt) if t.is_numeric() => Some(Double),
            (x, y) if x.is_numeric() && y.is_numeric() => {
                let wider = if x.numeric_rank() >= y.numeric_rank() {
                    x
                } else {
                    y
                };
                Some(wider.clone())
            }
            // an enum meets text, or an enum of other labels, as text (DuckDB)
            (Enum(_), Varchar | Enum(_)) | (Varchar, Enum(_)) => Some(Varchar),
            (Enum(_), t) | (t, Enum(_)) if !t.is_nested() && *t != Json => None,
            // JSON meets text as text (DuckDB compares them as strings)
            (Json, Varchar) | (Varchar, Json) => Some(Varchar),
            (Json, t) | (t, Json) if !t.is_nested() => Some(Varchar),
            (Varchar, t) | (t, Varchar) if !t.is_nested() => Some(t.clone()),
            // DuckDB's rule: a BOOLEAN meets a number as 0 or 1 (so `2 = true` is false)
            (Boolean, t) | (t, Boolean) if t.is_numeric() => Some(t.clone()),
            (Date, Timestamp) | (Timestamp, Date) => Some(Timestamp),
            // timestamps in other units meet at the finer one, seconds and milliseconds
            // meeting TIMESTAMP (or a date) as TIMESTAMP (DuckDB)
            (TimestampUnit(x), TimestampUnit(y)) => Some(TimestampUnit(*x.max(y))),
            (TimestampUnit(TimeUnit::Nanosecond), Date | Timestamp)
            | (Date | Timestamp, TimestampUnit(TimeUnit::Nanosecond)) => {
                Some(TimestampUnit(TimeUnit::Nanosecond))
            }
            (TimestampUnit(_), Date | Timestamp) | (Date | Timestamp, TimestampUnit(_)) => {
                Some(Timestamp)
            }
            // a local time meets an instant as an instant (DuckDB)
            (Date | Timestamp, TimestampTz) | (TimestampTz, Date | Timestamp) => Some(TimestampTz),
            (List(x), List(y)) => Some(List(Box::new(Self::common_supertype(x, y)?))),
            // arrays meet arrays of their size, and lists (as arrays)
            (Array(x, n), Array(y, m)) if n == m => {
                Some(Array(Box::new(Self::common_supertype(x, y)?), *n))
            }
            (Array(x, n), List(y)) | (List(y), Array(x, n)) => {
                Some(Array(Box::new(Self::common_supertype(x, y)?), *n))
            }
            (Union(x), Union(y)) => crate::union_type::merge(x, y).map(Union),
            // a value meets a union as the member it would be cast to
            (Union(m), t) | (t, Union(m)) => crate::union_type::member_for(m, t)
                .ok()
                .map(|_| Union(m.clone())),
            (Map(k1, v1), Map(k2, v2)) => Some(Map(
                Box::new(Self::common_supertype(k1, k2)?),
                Box::new(Self::common_supertype(v1, v2)?),
            )),
            // Structs meet field by field, matched by position; the names must agree
            // (an unnamed field takes the other side's name).
            (Struct(x), Struct(y)) if x.len() == y.len() => x
                .iter()
                .zip(y)
                .map(|((n1, t1), (n2, t2))| {
                    let name = if n1.is_empty() { n2 } else { n1 };
                    if !n1.is_empty() && !n2.is_empty() && !n1.eq_ignore_ascii_case(n2) {
                        return None;
                    }
                    Some((name.clone(), Self::common_supertype(t1, t2)?))
                })
                .collect::<Option<Vec<_>>>()
                .map(Struct),
            _ => None,
        }
    }

    /// Whether a value of `self` may be cast implicitly to `target` (function arguments,
    /// INSERT targets).
    pub fn can_implicitly_cast_to(&self, target: &DataType) -> bool {
        if self == target || *self == DataType::Null {
            return true;
        }
        match (self, target) {
            (a, b) if a.is_numeric() && b.is_numeric() => {
                if b.is_float() {
                    return true;
                }
                if a.is_float() {
                    return false;
                }
                if let (Some(ra), Some(rb)) = (a.integer_range(), b.integer_range()) {
                    return rb.0 <= ra.0 && ra.1 <= rb.1;
                }
                if b.is_unsigned() {
                    return false;
                }
                match (a.decimal_properties(), b.decimal_properties()) {
                    (Some((p1, s1)), Some((p2, s2))) => p1 - s1 <= p2 - s2 && s1 <= s2,
                    _ => false,
                }
            }
            (DataType::UHugeInt, t) => t.is_float(),
            (t, DataType::UHugeInt) => t.is_unsigned(),
            (DataType::Date, DataType::Timestamp | DataType::TimestampTz) => true,
            (DataType::Timestamp, DataType::TimestampTz) => true,
            // what takes a TIMESTAMP takes one in another unit (DuckDB)
            (DataType::TimestampUnit(_), DataType::Timestamp) => true,
            (DataType::Varchar, _) => !target.is_nested(),
            // an array is a list of its elements wherever a list is expected
            (DataType::Array(a, _), DataType::List(b)) => a == b,
            (DataType::Struct(a), DataType::Struct(b)) => {
                a.len() == b.len()
                    && a.iter().zip(b).all(|((n1, t1), (n2, t2))| {
                        (n1.is_empty() || n1.eq_ignore_ascii_case(n2))
                            && t1.can_implicitly_cast_to(t2)
                    })
            }
            (DataType::Json, DataType::Varchar) => true,
            (DataType::Union(a), DataType::Union(b)) => crate::union_type::member_map(a, b).is_ok(),
            (t, DataType::Union(m)) => crate::union_type::member_for(m, t).is_ok(),
            // an enum is its label wherever text is expected (DuckDB)
            (DataType::Enum(_), DataType::Varchar) => true,
            // a bit string is its 0s and 1s wherever text is expected (DuckDB)
            (DataType::Bit, DataType::Varchar) => true,
            _ => false,
        }
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataType::Null => write!(f, "NULL"),
            DataType::Boolean => write!(f, "BOOLEAN"),
            DataType::TinyInt => write!(f, "TINYINT"),
            DataType::SmallInt => write!(f, "SMALLINT"),
            DataType::Integer => write!(f, "INTEGER"),
            DataType::BigInt => write!(f, "BIGINT"),
            DataType::HugeInt => write!(f, "HUGEINT"),
            DataType::UTinyInt => write!(f, "UTINYINT"),
            DataType::USmallInt => write!(f, "USMALLINT"),
            DataType::UInteger => write!(f, "UINTEGER"),
            DataType::UBigInt => write!(f, "UBIGINT"),
            DataType::UHugeInt => write!(f, "UHUGEINT"),
            DataType::Real => write!(f, "FLOAT"),
            DataType::Double => write!(f, "DOUBLE"),
            DataType::Decimal(p, s) => write!(f, "DECIMAL({p},{s})"),
            DataType::Varchar => write!(f, "VARCHAR"),
            DataType::Date => write!(f, "DATE"),
            DataType::Timestamp => write!(f, "TIMESTAMP"),
            DataType::TimestampTz => write!(f, "TIMESTAMP WITH TIME ZONE"),
            DataType::TimestampUnit(u) => write!(f, "{}", u.type_name()),
            DataType::Time => write!(f, "TIME"),
            DataType::TimeTz => write!(f, "TIME WITH TIME ZONE"),
            DataType::Interval => write!(f, "INTERVAL"),
            DataType::Uuid => write!(f, "UUID"),
            DataType::List(t) => write!(f, "{t}[]"),
            DataType::Map(k, v) => write!(f, "MAP({k}, {v})"),
            DataType::Array(t, n) => write!(f, "{t}[{n}]"),
            DataType::Struct(fields) => {
                write!(f, "STRUCT(")?;
                for (i, (name, ty)) in fields.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    if !name.is_empty() {
                        write!(f, "{} ", quote_identifier(name))?;
                    }
                    write!(f, "{ty}")?;
                }
                write!(f, ")")
            }
            DataType::Json => write!(f, "JSON"),
            DataType::Blob => write!(f, "BLOB"),
            DataType::Bit => write!(f, "BIT"),
            DataType::Enum(e) => write!(f, "{e}"),
            DataType::Union(members) => {
                write!(f, "UNION(")?;
                for (i, (name, ty)) in members.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{} {ty}", quote_identifier(name))?;
                }
                write!(f, ")")
            }
        }
    }
}

/// An identifier as SQL must spell it: in double quotes unless it is all lower-case
/// letters, digits and underscores (not starting with a digit). STRUCT field names in
/// type names are spelled so (DuckDB's `STRUCT("my field" INTEGER)`).
pub fn quote_identifier(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supertypes() {
        use DataType::*;
        assert_eq!(DataType::common_supertype(&Integer, &BigInt), Some(BigInt));
        assert_eq!(DataType::common_supertype(&Integer, &Double), Some(Double));
        assert_eq!(
            DataType::common_supertype(&Decimal(15, 2), &Integer),
            Some(Decimal(15, 2))
        );
        assert_eq!(
            DataType::common_supertype(&Decimal(15, 2), &Decimal(10, 4)),
            Some(Decimal(17, 4))
        );
        assert_eq!(DataType::common_supertype(&Null, &Varchar), Some(Varchar));
        assert_eq!(DataType::common_supertype(&Boolean, &Date), None);
        assert_eq!(
            DataType::common_supertype(&UTinyInt, &TinyInt),
            Some(SmallInt)
        );
        assert_eq!(
            DataType::common_supertype(&UTinyInt, &Integer),
            Some(Integer)
        );
        assert_eq!(
            DataType::common_supertype(&UInteger, &USmallInt),
            Some(UInteger)
        );
        assert_eq!(
            DataType::common_supertype(&UBigInt, &Integer),
            Some(HugeInt)
        );
        assert_eq!(
            DataType::common_supertype(&UBigInt, &Decimal(18, 2)),
            Some(Decimal(22, 2))
        );
    }
}
