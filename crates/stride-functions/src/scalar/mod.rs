//! The scalar function catalogue: resolution of a call by name and argument types
//! ([`resolve_scalar`]) and vectorized evaluation of the bound result
//! ([`evaluate_scalar`]).
//!
//! Resolution picks one [`ScalarFunction`] per SQL function and fixes, in the
//! [`BoundFunction`], the types the caller casts each argument to; evaluation then
//! dispatches on those types once per chunk to a monomorphized kernel. Functions are
//! strict (NULL in, NULL out) unless documented otherwise (concat, concat_ws).
//! Volatile functions (random, gen_random_uuid, ...) give a value per row and are
//! never folded ([`ScalarFunction::is_volatile`]); a few calls are refined from
//! their constant arguments at bind time ([`specialize`]: `date_part('epoch', x)`,
//! `list_aggregate(l, 'sum')`, `struct_extract(s, 'a')`).
//!
//! One file per function or family of functions under `arithmetic`, `comparison`,
//! `string`, `regex`, `math`, `date`, `list` and `json` (plus `structs`, `maps` and
//! `array` for the nested types, `blobs` for BLOB, `enums` for ENUM, `hash`, `uuid`, `volatile`, `meta` and the
//! PostgreSQL client functions in `pg`); [`catalogue`] maps SQL names to resolvers.

mod arithmetic;
pub mod array;
pub mod bits;
pub mod blobs;
pub mod catalogue;
mod comparison;
pub mod date;
pub mod enums;
mod hash;
mod histogram_bin;
pub mod json;
pub mod list;
pub mod maps;
mod math;
pub mod meta;
mod pg;
mod regex;
mod signature;
pub mod string;
pub mod structs;
pub mod unions;
mod uuid;
mod volatile;

pub use comparison::{comparison_masks, mask_rows, select_comparison};
pub use date::now::{evaluate_at as evaluate_at_clock, now_micros as clock_micros, reads_clock};
pub use date::DateField;
pub use list::resolve_quantified;
pub use math::bitwise::BitOp;
pub use pg::UTF8_ENCODING;
pub use stride_common::CompareOp;

use stride_common::{DataType, Error, Result, ScalarValue, Vector};

/// One variant per SQL function or operator (aliases share a variant). The SQL names
/// are listed in [`catalogue`]; the kernel for each is chosen from the bound argument
/// types at evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarFunction {
    // arithmetic operators (numeric, and date/time arithmetic)
    /// `+`
    Add,
    /// `-` (binary)
    Subtract,
    /// `*`
    Multiply,
    /// `/` (integer division for integers)
    Divide,
    /// `%`, `mod`
    Modulo,
    /// unary `-` ("negate")
    Negate,
    // comparisons (both arguments of one type)
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    // strings
    /// `concat(...)`: variadic, NULLs skipped
    Concat,
    /// `||`: strict concatenation
    ConcatOperator,
    /// `concat_ws(sep, ...)`: NULL arguments skipped
    ConcatWs,
    /// `~~`, `like` (optional escape argument)
    Like,
    /// `!~~`, `not_like`
    NotLike,
    /// `~~*`, `ilike`
    ILike,
    /// `!~~*`, `not_ilike`
    NotILike,
    /// `length`, `len`, `char_length`, `character_length`: characters
    Length,
    /// `octet_length`, `strlen`: bytes
    OctetLength,
    Lower,
    Upper,
    /// `substring`, `substr`
    Substring,
    Trim,
    LTrim,
    RTrim,
    Replace,
    /// `starts_with`, `prefix`, `^@`
    StartsWith,
    /// `ends_with`, `suffix`
    EndsWith,
    Contains,
    /// `position`, `strpos`, `instr`: (haystack, needle), 1-based, 0 when absent
    Position,
    Left,
    Right,
    Lpad,
    Rpad,
    Repeat,
    Reverse,
    SplitPart,
    Ascii,
    Chr,
    Initcap,
    StripAccents,
    /// `string_split`, `str_split`, `string_to_array`, `split`
    StringSplit,
    /// `levenshtein`, `editdist3`
    Levenshtein,
    DamerauLevenshtein,
    /// `hamming`, `mismatches`
    Hamming,
    Jaccard,
    JaroSimilarity,
    JaroWinklerSimilarity,
    Md5,
    /// `md5_number` (UHUGEINT), `md5_number_lower` and `md5_number_upper` (UBIGINT)
    Md5Number(string::hash::Md5Part),
    Sha1,
    Sha256,
    Translate,
    BitLength,
    LengthGrapheme,
    /// `unicode`, `ord`
    Unicode,
    NfcNormalize,
    UrlEncode,
    UrlDecode,
    /// `format_bytes`, `formatReadableSize`
    FormatBytes,
    /// `formatReadableDecimalSize`
    FormatDecimalBytes,
    ParseDirname,
    ParseDirpath,
    ParseFilename,
    ParsePath,
    /// `to_hex`, `hex`
    ToHex,
    /// `to_binary`, `bin`
    ToBinary,
    Bar,
    /// `format(fmt, ...)`: the fmt library's syntax
    Format,
    /// `printf(fmt, ...)`: C's syntax
    Printf,
    /// `~~~`, `GLOB`
    Glob,
    LeftGrapheme,
    RightGrapheme,
    SubstringGrapheme,
    Overlay,
    /// `path_join(part, ...)`
    PathJoin,
    ToBase,
    ParseFormattedBytes,
    /// `normalized_interval(iv)`
    NormalizedInterval,
    // math
    Abs,
    Sign,
    Round,
    Floor,
    /// `ceil`, `ceiling`
    Ceil,
    Trunc,
    Sqrt,
    Cbrt,
    /// `power`, `pow`
    Power,
    Exp,
    Ln,
    /// `log10`, `log` with one argument
    Log10,
    Log2,
    /// `log(base, x)`
    Log,
    Pi,
    Degrees,
    Radians,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    IsNan,
    IsInf,
    IsFinite,
    Cot,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Gamma,
    Lgamma,
    Even,
    SignBit,
    NextAfter,
    /// `gcd`, `greatest_common_divisor`
    Gcd,
    /// `lcm`, `least_common_multiple`
    Lcm,
    Factorial,
    /// `binom(n, k)`
    Binom,
    BitCount,
    Xor,
    /// `&`, `|`, `<<`, `>>` on integers
    Bitwise(math::bitwise::BitOp),
    /// `fmod(x, y)`: remainder with the sign of y, DOUBLE
    Fmod,
    /// `fdiv(x, y)`: floor(x / y), DOUBLE
    Fdiv,
    /// `add(x)`: the argument itself (unary plus)
    Identity,
    /// `round_even`, `roundbankers`
    RoundEven,
    // dates and times
    /// `date_part(part, x)`, `datepart`, and EXTRACT(part FROM x)
    DatePart,
    /// `date_part([part, ...], x)`: a STRUCT of the parts (fields fixed by [`specialize`])
    DatePartList,
    /// `year(x)`, `month(x)`, ...: date_part with a fixed field
    Extract(DateField),
    DateTrunc,
    /// `date_diff(part, start, end)`, `datediff`: part boundaries crossed
    DateDiff,
    MakeDate,
    MakeTimestamp,
    Strftime,
    Strptime,
    TryStrptime,
    /// `strptime(text, [formats])` (false) and `try_strptime(text, [formats])` (true)
    StrptimeList(bool),
    LastDay,
    DayName,
    MonthName,
    /// `current_date`, `today`
    CurrentDate,
    /// `current_timestamp`, `now`: the statement's instant (TIMESTAMPTZ)
    CurrentTimestamp,
    /// `current_localtimestamp`: its local time in the session's zone (TIMESTAMP)
    CurrentLocalTimestamp,
    /// `current_time`, `get_current_time`: the time of day (UTC), a TIME
    CurrentTime,
    /// `make_time(hour, minute, seconds)`
    MakeTime,
    /// `epoch_ms(x)`, `epoch_us(x)`, `epoch_ns(x)`: a count since the epoch
    EpochUnit(date::EpochUnit),
    /// `epoch_ms(BIGINT)`: milliseconds since the epoch as a TIMESTAMP
    TimestampFromEpochMs,
    /// `to_timestamp(DOUBLE seconds)`
    ToTimestamp,
    /// `make_timestamp(BIGINT micros)`
    MakeTimestampMicros,
    /// `make_timestamp_ns(BIGINT)`: nanoseconds since 1970 as a TIMESTAMP_NS.
    MakeTimestampNanos,
    /// `to_years(n)`, `to_days(n)`, `to_seconds(x)`, ...
    ToInterval(date::IntervalUnit),
    /// `age(a [, b])`
    Age,
    /// `date_add(x, interval)`
    DateAdd,
    /// `time_bucket(width, x [, offset | origin])`
    TimeBucket,
    /// `date_sub(part, start, end)`, `datesub`: complete periods between
    DateSub,
    /// `timezone(zone, x)`, `x AT TIME ZONE zone`: instant <-> local time in a zone
    AtTimeZone,
    /// `make_timestamptz(...)`: an instant from local fields (and a zone) or micros
    MakeTimestampTz,
    // other
    /// `gen_random_uuid()`, `uuid()`: a random version 4 UUID per row (volatile)
    GenRandomUuid,
    /// `uuidv7()`: a time-ordered version 7 UUID per row (volatile)
    UuidV7,
    /// `uuid_extract_version(u)`: INTEGER
    UuidExtractVersion,
    /// `uuid_extract_timestamp(u)`: the time in a version 7 UUID, TIMESTAMP (UTC)
    UuidExtractTimestamp,
    /// `typeof(x)`: the name of x's type
    TypeOf,
    /// `enum_first`, `enum_last`, `enum_range`, `enum_range_boundary`, `enum_code`
    Enum(enums::EnumFunction),
    /// `version()`, `current_database()`, `current_schema()`
    Version,
    CurrentDatabase,
    CurrentSchema,
    // regular expressions
    /// `regexp_matches(s, pattern [, flags])`, `~`
    RegexpMatches,
    /// `regexp_full_match(s, pattern [, flags])`, `SIMILAR TO`
    RegexpFullMatch,
    /// `~*`
    RegexpIMatches,
    /// `regexp_extract(s, pattern [, group] [, options])`
    RegexpExtract,
    /// `regexp_extract_all(s, pattern [, group [, options]])`
    RegexpExtractAll,
    /// `regexp_replace(s, pattern, replacement [, options])`
    RegexpReplace,
    /// `regexp_split_to_array`, `string_split_regex`, `str_split_regex`
    RegexpSplitToArray,
    RegexpEscape,
    /// `quote_ident(s)`
    QuoteIdent,
    /// `quote_literal(s)`
    QuoteLiteral,
    // lists (PostgreSQL arrays)
    /// `list_value(...)`, `ARRAY[...]`
    ListValue,
    ArrayToString,
    ArrayLength,
    ArrayUpper,
    ArrayLower,
    Cardinality,
    /// `list_extract(l, i)`, `l[i]`
    ListExtract,
    /// `list_concat`, `array_cat`, `list + list` (variadic; NULL lists skipped)
    ListConcat,
    /// `list || list`: NULL when either side is NULL
    ListConcatOperator,
    /// `list || element`
    ListAppend,
    /// `element || list`
    ListPrepend,
    /// `x op ANY(list)`
    ListAny(CompareOp),
    /// `x op ALL(list)`
    ListAll(CompareOp),
    /// `len(list)`, `length(list)`
    ListLength,
    /// `list_sum(l)`, `list_min(l)`, ...: an aggregate over each list's elements
    ListAggregate(crate::aggregate::AggregateFunction),
    /// `list_aggregate(l, 'name', ...)` once the name is known (see [`specialize`])
    ListAggregateNamed(crate::aggregate::AggregateFunction),
    /// `list_aggregate(l, name, ...)` before [`specialize`] saw the name
    ListAggregateByName,
    ListLast,
    ListProduct,
    /// `list_sort`, `array_sort`
    ListSort,
    ListReverseSort,
    /// `list_grade_up`, `array_grade_up`, `grade_up`
    ListGradeUp,
    /// `list_reverse`, `array_reverse`
    ListReverse,
    /// `list_distinct`, `array_distinct`
    ListDistinct,
    /// `list_unique`, `array_unique`
    ListUnique,
    /// `list_contains`, `list_has`, `array_contains`, `array_has`
    ListContains,
    /// `list_position`, `list_indexof`, `array_position`, `array_indexof`
    ListPosition,
    /// `list_has_any`, `array_has_any`, `&&`
    ListHasAny,
    /// `list_has_all`, `array_has_all`, `@>`
    ListHasAll,
    /// `<@`: list_has_all with the operands swapped
    ListContainedBy,
    /// `list_intersect`, `array_intersect`
    ListIntersect,
    /// `list_slice`, `array_slice` (lists and strings)
    ListSlice,
    /// `array_extract(s, i)` / `list_extract(s, i)` of a string: one character
    StringExtract,
    /// `array_push_front(list, x)`
    ListPushFront,
    /// `list_resize`, `array_resize`
    ListResize,
    /// `list_select`, `array_select`
    ListSelect,
    /// `list_where`, `array_where`
    ListWhere,
    Flatten,
    /// scalar `range(...)` (false) and `generate_series(...)` (true: stop included)
    ListRange(bool),
    /// `list_distance`, `list_inner_product`, `list_cosine_similarity`, ...
    ListDistance(list::distance::Distance),
    /// `list_zip(l, ... [, truncate])`, `array_zip`: a list of unnamed structs
    ListZip,
    /// `hash(value, ...)`: DuckDB's 64-bit hash, as BIGINT
    Hash,
    /// `random()`: volatile
    Random,
    /// `nextval('seq')` and `currval('seq')`: bound with the sequence's id as their
    /// argument, and evaluated by the executor, which holds the catalog.
    NextVal,
    CurrVal,
    /// `setval('seq', value [, is_called])`, bound like `nextval`.
    SetVal,
    /// `setseed(x)`: volatile
    SetSeed,
    /// `sleep_ms(n)`: volatile
    SleepMs,
    /// `error(msg)`: raises msg
    RaiseError,
    /// A row failed a CHECK constraint: raises msg as a Constraint Error (built by the
    /// binder for statements that write rows, not callable by name).
    CheckFailed,
    // PostgreSQL client functions
    FormatType,
    /// `oids::regtype[]`: format_type of each OID of a list (bound by the binder's
    /// casts, not callable by name).
    FormatTypes,
    ToRegtype,
    PgEncodingToChar,
    PgGetExpr,
    PgSizePretty,
    /// The JSON functions (`json_extract`, `->`, `json_object`, ...)
    Json(json::JsonFunction),
    /// The STRUCT functions (`structs`).
    Struct(structs::StructFunction),
    /// The UNION functions (`unions`).
    Union(unions::UnionFunction),
    /// `is_histogram_other_bin(x)`
    IsHistogramOtherBin,
    /// The MAP functions (`maps`).
    Map(maps::MapFunction),
    /// The fixed-size ARRAY functions (`array`).
    Array(array::ArrayFunction),
    /// The BLOB functions (`blobs`).
    Blob(blobs::BlobFunction),
    Bit(bits::BitFunction),
}

/// A resolved call: the function, the type each argument must be cast to before
/// [`evaluate_scalar`], and the result type.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundFunction {
    pub func: ScalarFunction,
    pub arg_types: Vec<DataType>,
    pub return_type: DataType,
}

impl ScalarFunction {
    /// Whether a call may give a different result each time it is evaluated (or has
    /// an effect): such calls are never constant-folded, shared or evaluated once
    /// for a constant input, and give one value per row.
    pub fn is_volatile(self) -> bool {
        matches!(
            self,
            ScalarFunction::Random
                | ScalarFunction::NextVal
                | ScalarFunction::CurrVal
                | ScalarFunction::SetVal
                | ScalarFunction::GenRandomUuid
                | ScalarFunction::UuidV7
                | ScalarFunction::SetSeed
                | ScalarFunction::SleepMs
                | ScalarFunction::RaiseError
                | ScalarFunction::CheckFailed
        )
    }
}

impl BoundFunction {
    pub fn new(func: ScalarFunction, arg_types: Vec<DataType>, return_type: DataType) -> Self {
        BoundFunction {
            func,
            arg_types,
            return_type,
        }
    }
}

/// Resolves a function or operator by (lower-case) name and argument types.
///
/// Operator names: `+ - * / % negate = <> < <= > >= || ~~ ~~* !~~ !~~*`. Errors: a
/// Catalog error with a did-you-mean suggestion for unknown names, a Binder error
/// naming the call and the types when no signature matches.
pub fn resolve_scalar(name: &str, args: &[DataType]) -> Result<BoundFunction> {
    let lower = name.to_ascii_lowercase();
    let Some(resolver) = catalogue::lookup(&lower) else {
        return Err(catalogue::unknown_function(&lower));
    };
    resolver(args).ok_or_else(|| match catalogue::enum_function(&lower) {
        Some(which) => enums::resolve_error(which, args),
        None => no_match(&lower, args),
    })
}

/// Whether [`specialize`] may refine a call of `func` from its constant arguments:
/// the binder folds the arguments of such calls and passes their values.
pub fn needs_constants(func: ScalarFunction) -> bool {
    matches!(
        func,
        ScalarFunction::DatePart
            | ScalarFunction::Strptime
            | ScalarFunction::TryStrptime
            | ScalarFunction::StrptimeList(_)
            | ScalarFunction::DatePartList
            | ScalarFunction::ListAggregateByName
            | ScalarFunction::Json(_)
            | ScalarFunction::Struct(
                structs::StructFunction::Extract | structs::StructFunction::ExtractAt
            )
            | ScalarFunction::Union(unions::UnionFunction::Extract)
    )
}

/// Refines a bound call from the values of its constant arguments (`None` where an
/// argument is not constant): `date_part('epoch', x)` returns DOUBLE, and
/// `list_aggregate(l, 'sum')` binds the named aggregate and its result type (an
/// unknown name is a Catalog error, a name that is not constant a Binder error).
pub fn specialize(f: &mut BoundFunction, constants: &[Option<ScalarValue>]) -> Result<()> {
    match f.func {
        ScalarFunction::DatePart => {
            if let Some(Some(part)) = constants.first() {
                date::part::specialize_date_part(f, part);
            }
            Ok(())
        }
        ScalarFunction::Strptime | ScalarFunction::TryStrptime => {
            if let Some(Some(format)) = constants.get(1) {
                date::strptime::specialize(f, format);
            }
            Ok(())
        }
        ScalarFunction::StrptimeList(_) => date::strptime_list::specialize(f, constants),
        ScalarFunction::DatePartList => date::part_list::specialize(f, constants),
        ScalarFunction::ListAggregateByName => list::aggregate::specialize(f, constants),
        ScalarFunction::Json(j) => json::specialize(f, j, constants),
        ScalarFunction::Struct(
            structs::StructFunction::Extract | structs::StructFunction::ExtractAt,
        ) => structs::specialize_extract(f, constants),
        ScalarFunction::Union(unions::UnionFunction::Extract) => {
            unions::specialize_extract(f, constants)
        }
        _ => Ok(()),
    }
}

fn no_match(name: &str, args: &[DataType]) -> Error {
    if let ("=" | "<>" | "!=" | "<" | "<=" | ">" | ">=", [a, b]) = (name, args) {
        return Error::binder(format!(
            "Cannot compare values of type {a} and type {b} - an explicit cast is required"
        ));
    }
    let list = args
        .iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    Error::binder(format!(
        "No function matches '{name}({list})'. You might need to add explicit type casts."
    ))
}

/// Evaluates `f` over `len` rows. `args[i]` has type `f.arg_types[i]` and is flat or
/// constant; the result has type `f.return_type` and is constant when every argument
/// is.
pub fn evaluate_scalar(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    if args.len() != f.arg_types.len() {
        return Err(Error::internal(format!(
            "{:?} bound for {} arguments called with {}",
            f.func,
            f.arg_types.len(),
            args.len()
        )));
    }
    use ScalarFunction as F;
    match f.func {
        F::Add | F::Subtract | F::Multiply | F::Divide | F::Modulo | F::Negate => {
            arithmetic::evaluate(f, args, len)
        }
        F::Eq | F::NotEq | F::Lt | F::LtEq | F::Gt | F::GtEq => comparison::evaluate(f, args, len),
        F::Abs
        | F::Sign
        | F::Round
        | F::Floor
        | F::Ceil
        | F::Trunc
        | F::Sqrt
        | F::Cbrt
        | F::Power
        | F::Exp
        | F::Ln
        | F::Log10
        | F::Log2
        | F::Log
        | F::Pi
        | F::Degrees
        | F::Radians
        | F::Sin
        | F::Cos
        | F::Tan
        | F::Asin
        | F::Acos
        | F::Atan
        | F::Atan2
        | F::IsNan
        | F::IsInf
        | F::IsFinite
        | F::Cot
        | F::Sinh
        | F::Cosh
        | F::Tanh
        | F::Asinh
        | F::Acosh
        | F::Atanh
        | F::Gamma
        | F::Lgamma
        | F::Even
        | F::SignBit
        | F::NextAfter
        | F::Gcd
        | F::Lcm
        | F::Factorial
        | F::Binom
        | F::BitCount
        | F::Xor
        | F::Bitwise(_)
        | F::Fmod
        | F::Fdiv
        | F::RoundEven => math::evaluate(f, args, len),
        F::Identity => Ok(args[0].clone()),
        F::DatePart
        | F::Extract(_)
        | F::DateTrunc
        | F::DateDiff
        | F::MakeDate
        | F::MakeTimestamp
        | F::MakeTime
        | F::CurrentTime
        | F::Strftime
        | F::Strptime
        | F::TryStrptime
        | F::StrptimeList(_)
        | F::DatePartList
        | F::LastDay
        | F::DayName
        | F::MonthName
        | F::CurrentDate
        | F::CurrentTimestamp
        | F::CurrentLocalTimestamp
        | F::AtTimeZone
        | F::MakeTimestampTz
        | F::EpochUnit(_)
        | F::TimestampFromEpochMs
        | F::ToTimestamp
        | F::MakeTimestampMicros
        | F::MakeTimestampNanos
        | F::ToInterval(_)
        | F::Age
        | F::DateAdd
        | F::TimeBucket
        | F::DateSub
        | F::NormalizedInterval => date::evaluate(f, args, len),
        F::TypeOf => meta::evaluate(f, args, len),
        F::Enum(which) => enums::evaluate(which, f, args, len),
        F::GenRandomUuid | F::UuidV7 | F::UuidExtractVersion | F::UuidExtractTimestamp => {
            uuid::evaluate(f, args, len)
        }
        F::RegexpMatches
        | F::RegexpIMatches
        | F::RegexpFullMatch
        | F::RegexpExtract
        | F::RegexpExtractAll
        | F::RegexpReplace
        | F::RegexpSplitToArray
        | F::RegexpEscape => regex::evaluate(f, args, len),
        F::QuoteIdent | F::QuoteLiteral => string::quote::evaluate(f.func, args, len),
        F::ListValue
        | F::ArrayToString
        | F::ArrayLength
        | F::ArrayUpper
        | F::ArrayLower
        | F::Cardinality
        | F::ListExtract
        | F::ListConcat
        | F::ListConcatOperator
        | F::ListAppend
        | F::ListPrepend
        | F::ListAny(_)
        | F::ListAll(_)
        | F::ListLength
        | F::ListAggregate(_)
        | F::ListAggregateNamed(_)
        | F::ListAggregateByName
        | F::ListLast
        | F::ListProduct
        | F::ListSort
        | F::ListReverseSort
        | F::ListGradeUp
        | F::ListReverse
        | F::ListDistinct
        | F::ListUnique
        | F::ListContains
        | F::ListPosition
        | F::ListHasAny
        | F::ListHasAll
        | F::ListContainedBy
        | F::ListIntersect
        | F::ListSlice
        | F::StringExtract
        | F::ListPushFront
        | F::ListResize
        | F::ListSelect
        | F::ListWhere
        | F::Flatten
        | F::ListRange(_)
        | F::ListDistance(_)
        | F::ListZip => list::evaluate(f, args, len),
        F::FormatType
        | F::FormatTypes
        | F::ToRegtype
        | F::PgEncodingToChar
        | F::PgGetExpr
        | F::PgSizePretty => pg::evaluate(f, args, len),
        F::Json(j) => json::evaluate(f, j, args, len),
        F::Struct(s) => structs::evaluate(f, s, args, len),
        F::Union(u) => unions::evaluate(f, u, args, len),
        F::IsHistogramOtherBin => histogram_bin::evaluate(args, len),
        F::Map(m) => maps::evaluate(f, m, args, len),
        F::Array(a) => array::evaluate(f, a, args, len),
        F::Blob(b) => blobs::evaluate(b, args, len),
        F::Bit(b) => bits::evaluate(b, args, len),
        F::Version | F::CurrentDatabase | F::CurrentSchema => meta::evaluate_constant(f),
        F::Hash => hash::evaluate(f, args, len),
        F::Random | F::SetSeed | F::SleepMs | F::RaiseError | F::CheckFailed => {
            volatile::evaluate(f, args, len)
        }
        F::NextVal | F::CurrVal | F::SetVal => Err(Error::internal(
            "nextval and currval are evaluated by the executor",
        )),
        _ => string::evaluate(f, args, len),
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    //! Helpers for the function tests: build vectors from scalars and run a call.
    use super::*;
    use stride_common::ScalarValue;

    /// A VARCHAR value.
    pub fn text(x: &str) -> ScalarValue {
        ScalarValue::Varchar(x.into())
    }

    /// A list of VARCHARs.
    pub fn text_list(items: &[&str]) -> ScalarValue {
        ScalarValue::List(DataType::Varchar, items.iter().map(|x| text(x)).collect())
    }

    /// A list of INTEGERs, `None` for a NULL element.
    pub fn int_list(v: &[Option<i32>]) -> ScalarValue {
        ScalarValue::List(
            DataType::Integer,
            v.iter()
                .map(|x| x.map_or(ScalarValue::Null, ScalarValue::Integer))
                .collect(),
        )
    }

    /// A flat vector of `ty` holding `values`.
    pub fn flat(ty: &DataType, values: &[ScalarValue]) -> Vector {
        let mut v = Vector::with_capacity(ty, values.len());
        for x in values {
            v.push(x).unwrap();
        }
        v
    }

    /// Resolves `name(types of args)`, casts each argument as bound, and evaluates
    /// over constant inputs, returning the single result value.
    pub fn call(name: &str, args: &[ScalarValue]) -> Result<ScalarValue> {
        let types: Vec<DataType> = args.iter().map(|a| a.data_type()).collect();
        let f = resolve_scalar(name, &types)?;
        let vs: Vec<Vector> = args
            .iter()
            .zip(&f.arg_types)
            .map(|(a, t)| {
                let v = Vector::constant(a, &a.data_type()).unwrap();
                crate::cast_vector(&v, 1, t, false)
            })
            .collect::<Result<_>>()?;
        let out = evaluate_scalar(&f, &vs, 1)?;
        assert!(out.constant, "{name}: constant inputs must give a constant");
        assert_eq!(out.ty, f.return_type);
        Ok(out.get(0))
    }

    /// Like [`call`] but with flat single-row inputs, checking the flat kernels agree.
    pub fn call_flat(name: &str, args: &[ScalarValue]) -> Result<ScalarValue> {
        let types: Vec<DataType> = args.iter().map(|a| a.data_type()).collect();
        let f = resolve_scalar(name, &types)?;
        let vs: Vec<Vector> = args
            .iter()
            .zip(&f.arg_types)
            .map(|(a, t)| {
                crate::cast_vector(&flat(&a.data_type(), std::slice::from_ref(a)), 1, t, false)
            })
            .collect::<Result<_>>()?;
        let out = evaluate_scalar(&f, &vs, 1)?;
        assert!(!out.constant || vs.is_empty());
        Ok(out.get(0))
    }

    /// Calls through both paths and checks they agree.
    pub fn eval(name: &str, args: &[ScalarValue]) -> Result<ScalarValue> {
        let c = call(name, args);
        let f = call_flat(name, args);
        assert_eq!(c, f, "{name}{args:?}: constant and flat paths disagree");
        c
    }
}

#[cfg(test)]
mod tests {
    use super::test_util::flat;
    use super::*;
    use stride_common::{ErrorKind, ScalarValue};

    #[test]
    fn resolution_errors() {
        let e = resolve_scalar("lower", &[DataType::Integer]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Binder);
        assert_eq!(
            e.message,
            "No function matches 'lower(INTEGER)'. You might need to add explicit type casts."
        );
        let e = resolve_scalar("flor", &[DataType::Double]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Catalog);
        assert_eq!(
            e.message,
            "Scalar Function with name flor does not exist! Did you mean \"floor\"?"
        );
        let e = resolve_scalar("=", &[DataType::Date, DataType::Boolean]).unwrap_err();
        assert!(e
            .message
            .starts_with("Cannot compare values of type DATE and type BOOLEAN"));
    }

    #[test]
    fn names_are_case_insensitive_and_aliases_share_variants() {
        let a = resolve_scalar("LCASE", &[DataType::Varchar]).unwrap();
        let b = resolve_scalar("lower", &[DataType::Varchar]).unwrap();
        assert_eq!(a, b);
        assert_eq!(
            resolve_scalar("char_length", &[DataType::Varchar])
                .unwrap()
                .func,
            ScalarFunction::Length
        );
    }

    /// Evaluates `name` over flat columns, over per-row constants, and with each
    /// argument in turn replaced by a constant, checking that every path agrees.
    fn check_paths(name: &str, types: &[DataType], cols: &[Vec<ScalarValue>]) {
        let f = resolve_scalar(name, types).unwrap();
        let len = cols[0].len();
        let flats: Vec<Vector> = cols
            .iter()
            .zip(types)
            .zip(&f.arg_types)
            .map(|((c, t), at)| crate::cast_vector(&flat(t, c), len, at, false).unwrap())
            .collect();
        let row = |args: &[Vector], i: usize| -> ScalarValue {
            let consts: Vec<Vector> = args
                .iter()
                .zip(&f.arg_types)
                .map(|(v, t)| Vector::constant(&v.get(i), t).unwrap())
                .collect();
            let r = evaluate_scalar(&f, &consts, 1).unwrap();
            assert!(r.constant);
            r.get(0)
        };
        let out = evaluate_scalar(&f, &flats, len).unwrap();
        assert!(!out.constant);
        for i in 0..len {
            assert_eq!(out.get(i), row(&flats, i), "{name} row {i}");
        }
        for j in 0..flats.len() {
            let mut mixed = flats.clone();
            mixed[j] = Vector::constant(&flats[j].get(0), &f.arg_types[j]).unwrap();
            let out = evaluate_scalar(&f, &mixed, len).unwrap();
            for i in 0..len {
                assert_eq!(
                    out.get(i),
                    row(&mixed, i),
                    "{name} row {i}, arg {j} constant"
                );
            }
        }
    }

    #[test]
    fn flat_constant_and_mixed_paths_agree() {
        use ScalarValue::*;
        let s = |x: &str| Varchar(x.into());
        let ints = vec![Integer(3), Null, Integer(-7), Integer(100), Integer(0)];
        let nonzero = vec![Integer(2), Integer(5), Null, Integer(-3), Integer(9)];
        let int = DataType::Integer;
        let dec = DataType::Decimal(9, 2);
        let decs = vec![
            Decimal(150, 9, 2),
            Decimal(-1, 9, 2),
            Null,
            Decimal(99999, 9, 2),
            Decimal(0, 9, 2),
        ];
        let text = DataType::Varchar;
        let strs = vec![
            s("hello"),
            s("a much longer string value"),
            Null,
            s(""),
            s("héllo wörld"),
        ];
        let pats = vec![s("h%"), s("%long%"), s("x"), Null, s("_é%")];
        let dates = vec![Date(0), Date(19_000), Null, Date(-400), Date(8_036)];
        type Case<'a> = (&'a str, Vec<DataType>, Vec<Vec<ScalarValue>>);
        let cases: Vec<Case> = vec![
            (
                "+",
                vec![int.clone(), int.clone()],
                vec![ints.clone(), nonzero.clone()],
            ),
            (
                "/",
                vec![int.clone(), int.clone()],
                vec![ints.clone(), nonzero.clone()],
            ),
            (
                "%",
                vec![int.clone(), int.clone()],
                vec![ints.clone(), nonzero.clone()],
            ),
            (
                "*",
                vec![dec.clone(), int.clone()],
                vec![decs.clone(), ints.clone()],
            ),
            (
                "-",
                vec![dec.clone(), dec.clone()],
                vec![decs.clone(), decs.clone()],
            ),
            (
                "<",
                vec![int.clone(), int.clone()],
                vec![ints.clone(), nonzero.clone()],
            ),
            (
                "<>",
                vec![text.clone(), text.clone()],
                vec![strs.clone(), pats.clone()],
            ),
            (
                ">=",
                vec![text.clone(), text.clone()],
                vec![strs.clone(), pats.clone()],
            ),
            (
                "~~",
                vec![text.clone(), text.clone()],
                vec![strs.clone(), pats.clone()],
            ),
            (
                "~~*",
                vec![text.clone(), text.clone()],
                vec![strs.clone(), pats.clone()],
            ),
            (
                "concat",
                vec![text.clone(), text.clone()],
                vec![strs.clone(), pats.clone()],
            ),
            (
                "||",
                vec![text.clone(), text.clone()],
                vec![strs.clone(), pats.clone()],
            ),
            (
                "substring",
                vec![text.clone(), int.clone(), int.clone()],
                vec![
                    strs.clone(),
                    ints.clone(),
                    nonzero
                        .iter()
                        .map(|v| {
                            if *v == Integer(-3) {
                                Integer(3)
                            } else {
                                v.clone()
                            }
                        })
                        .collect(),
                ],
            ),
            (
                "left",
                vec![text.clone(), int.clone()],
                vec![strs.clone(), ints.clone()],
            ),
            (
                "contains",
                vec![text.clone(), text.clone()],
                vec![strs.clone(), pats.clone()],
            ),
            (
                "position",
                vec![text.clone(), text.clone()],
                vec![
                    strs.clone(),
                    vec![s("l"), s("string"), s("a"), Null, s("ö")],
                ],
            ),
            (
                "replace",
                vec![text.clone(), text.clone(), text.clone()],
                vec![
                    strs.clone(),
                    vec![s("l"), s("string"), s("a"), s("x"), s("ö")],
                    pats.clone(),
                ],
            ),
            ("lower", vec![text.clone()], vec![strs.clone()]),
            (
                "regexp_replace",
                vec![text.clone(), text.clone(), text.clone()],
                vec![strs.clone(), pats.clone(), strs.clone()],
            ),
            (
                "regexp_extract_all",
                vec![text.clone(), text.clone()],
                vec![strs.clone(), pats.clone()],
            ),
            (
                "string_split",
                vec![text.clone(), text.clone()],
                vec![strs.clone(), pats.clone()],
            ),
            (
                "levenshtein",
                vec![text.clone(), text.clone()],
                vec![strs.clone(), pats.clone()],
            ),
            (
                "translate",
                vec![text.clone(), text.clone(), text.clone()],
                vec![strs.clone(), pats.clone(), strs.clone()],
            ),
            (
                "parse_filename",
                vec![text.clone(), text.clone()],
                vec![
                    strs.clone(),
                    vec![s("backslash"), Null, s("x"), s("system"), s("both_slash")],
                ],
            ),
            (
                "format",
                vec![text.clone(), int.clone(), text.clone()],
                vec![
                    vec![s("{}-{}"), s("{1}{0}"), Null, s("{:>5}|{}"), s("x")],
                    ints.clone(),
                    strs.clone(),
                ],
            ),
            (
                "gcd",
                vec![int.clone(), int.clone()],
                vec![ints.clone(), nonzero.clone()],
            ),
            ("length", vec![text.clone()], vec![strs.clone()]),
            (
                "round",
                vec![dec.clone(), int.clone()],
                vec![
                    decs.clone(),
                    vec![Integer(1), Integer(0), Integer(-1), Null, Integer(5)],
                ],
            ),
            ("abs", vec![dec.clone()], vec![decs.clone()]),
            (
                "date_part",
                vec![text.clone(), DataType::Date],
                vec![
                    vec![s("year"), s("month"), s("dow"), s("day"), Null],
                    dates.clone(),
                ],
            ),
            ("year", vec![DataType::Date], vec![dates.clone()]),
            (
                "+",
                vec![DataType::Date, int.clone()],
                vec![dates.clone(), ints.clone()],
            ),
        ];
        for (name, types, cols) in cases {
            check_paths(name, &types, &cols);
        }
    }
}
