//! SQL names of every scalar function and operator, each mapped to the resolver that
//! checks argument types and binds a [`ScalarFunction`]. Aliases are simply several
//! names with one resolver. Unknown names get a did-you-mean suggestion by edit
//! distance, as DuckDB does.

use super::array::ArrayFunction as A;
use super::bits::{self, BitFunction as Bits};
use super::blobs::{self, BlobFunction as B};
use super::date::{DateField, EpochUnit, IntervalUnit};
use super::enums::EnumFunction;
use super::json::{self, JsonFunction as J};
use super::list::distance::Distance;
use super::maps::MapFunction as M;
use super::string::hash::Md5Part;
use super::{
    arithmetic, array, comparison, date, histogram_bin, list, maps, math, meta, pg, regex, string,
    structs, unions,
};
use super::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error};

/// Checks argument types and binds; `None` when no signature matches.
pub type Resolver = fn(&[DataType]) -> Option<BoundFunction>;

const CATALOGUE: &[(&str, Resolver)] = &[
    // arithmetic
    ("+", |a| {
        arithmetic::resolve_add(a).or_else(|| list::resolve_list_concat(a))
    }),
    ("-", arithmetic::resolve_subtract),
    ("*", arithmetic::resolve_multiply),
    ("/", arithmetic::resolve_divide),
    ("%", arithmetic::resolve_modulo),
    ("mod", arithmetic::resolve_modulo),
    ("negate", arithmetic::resolve_negate),
    // the operators' function names (DuckDB's)
    ("add", |a| match a {
        [t] => math::numeric_arg(t)
            .and_then(|t| super::signature::bind(ScalarFunction::Identity, vec![t.clone()], t)),
        _ => arithmetic::resolve_add(a).or_else(|| list::resolve_list_concat(a)),
    }),
    ("subtract", arithmetic::resolve_subtract),
    ("multiply", arithmetic::resolve_multiply),
    ("divide", arithmetic::resolve_divide),
    ("//", arithmetic::resolve_divide),
    ("fdiv", math::float_fns::resolve_fdiv),
    ("fmod", math::float_fns::resolve_fmod),
    ("**", math::float_fns::resolve_power),
    ("^", math::float_fns::resolve_power),
    ("@", math::abs_sign::resolve_abs),
    ("!__postfix", math::integer_fns::resolve_factorial),
    ("&", |a| {
        bits::resolve(Bits::And, a).or_else(|| math::bitwise::resolve(math::bitwise::BitOp::And, a))
    }),
    ("|", |a| {
        bits::resolve(Bits::Or, a).or_else(|| math::bitwise::resolve(math::bitwise::BitOp::Or, a))
    }),
    ("<<", |a| {
        bits::resolve(Bits::ShiftLeft, a)
            .or_else(|| math::bitwise::resolve(math::bitwise::BitOp::ShiftLeft, a))
    }),
    (">>", |a| {
        bits::resolve(Bits::ShiftRight, a)
            .or_else(|| math::bitwise::resolve(math::bitwise::BitOp::ShiftRight, a))
    }),
    // comparison
    ("=", comparison::resolve_eq),
    ("==", comparison::resolve_eq),
    ("<>", comparison::resolve_not_eq),
    ("!=", comparison::resolve_not_eq),
    ("<", comparison::resolve_lt),
    ("<=", comparison::resolve_lt_eq),
    (">", comparison::resolve_gt),
    (">=", comparison::resolve_gt_eq),
    // string
    ("||", |a| {
        blobs::resolve(B::Concat, a).or_else(|| list::resolve_concat_operator(a))
    }),
    ("concat", string::concat::resolve_concat),
    ("concat_ws", string::concat::resolve_concat_ws),
    ("~~", string::like::resolve_like),
    ("like", string::like::resolve_like),
    ("!~~", string::like::resolve_not_like),
    ("not_like", string::like::resolve_not_like),
    ("~~*", string::like::resolve_ilike),
    ("ilike", string::like::resolve_ilike),
    ("!~~*", string::like::resolve_not_ilike),
    ("not_ilike", string::like::resolve_not_ilike),
    ("length", |a| {
        list::build::resolve_len(a)
            .or_else(|| bits::resolve(Bits::BitLength, a))
            .or_else(|| string::length::resolve_length(a))
    }),
    ("len", |a| {
        list::build::resolve_len(a)
            .or_else(|| bits::resolve(Bits::BitLength, a))
            .or_else(|| string::length::resolve_length(a))
    }),
    ("char_length", string::length::resolve_length),
    ("character_length", string::length::resolve_length),
    ("octet_length", |a| {
        bits::resolve(Bits::OctetLength, a).or_else(|| string::length::resolve_octet_length(a))
    }),
    ("strlen", string::length::resolve_octet_length),
    ("lower", string::case::resolve_lower),
    ("lcase", string::case::resolve_lower),
    ("upper", string::case::resolve_upper),
    ("ucase", string::case::resolve_upper),
    ("initcap", string::case::resolve_initcap),
    ("strip_accents", string::accents::resolve),
    ("substring", string::substring::resolve),
    ("substr", string::substring::resolve),
    ("trim", string::trim::resolve_trim),
    ("btrim", string::trim::resolve_trim),
    ("ltrim", string::trim::resolve_ltrim),
    ("rtrim", string::trim::resolve_rtrim),
    ("replace", string::replace::resolve),
    ("starts_with", string::search::resolve_starts_with),
    ("prefix", string::search::resolve_starts_with),
    ("^@", string::search::resolve_starts_with),
    ("ends_with", string::search::resolve_ends_with),
    ("suffix", string::search::resolve_ends_with),
    ("contains", string::search::resolve_contains),
    ("position", string::search::resolve_position),
    ("strpos", string::search::resolve_position),
    ("instr", string::search::resolve_position),
    ("left", string::left_right::resolve_left),
    ("right", string::left_right::resolve_right),
    ("lpad", string::pad::resolve_lpad),
    ("rpad", string::pad::resolve_rpad),
    ("repeat", |a| {
        blobs::resolve(B::Repeat, a).or_else(|| string::repeat::resolve(a))
    }),
    ("reverse", string::reverse::resolve),
    ("split_part", string::split_part::resolve),
    ("ascii", string::ascii::resolve_ascii),
    ("chr", string::ascii::resolve_chr),
    ("unicode", string::ascii::resolve_unicode),
    ("ord", string::ascii::resolve_unicode),
    ("like_escape", |a| {
        string::like::resolve_escape(ScalarFunction::Like, a)
    }),
    ("not_like_escape", |a| {
        string::like::resolve_escape(ScalarFunction::NotLike, a)
    }),
    ("ilike_escape", |a| {
        string::like::resolve_escape(ScalarFunction::ILike, a)
    }),
    ("not_ilike_escape", |a| {
        string::like::resolve_escape(ScalarFunction::NotILike, a)
    }),
    ("bit_length", |a| {
        bits::resolve(Bits::BitLength, a).or_else(|| string::length::resolve_bit_length(a))
    }),
    ("bitstring", |a| bits::resolve(Bits::Bitstring, a)),
    ("get_bit", |a| bits::resolve(Bits::GetBit, a)),
    ("set_bit", |a| bits::resolve(Bits::SetBit, a)),
    ("bit_position", |a| bits::resolve(Bits::BitPosition, a)),
    ("length_grapheme", string::length::resolve_length_grapheme),
    ("string_split", string::split::resolve),
    ("str_split", string::split::resolve),
    ("string_to_array", string::split::resolve),
    ("split", string::split::resolve),
    ("levenshtein", string::edit_distance::resolve_levenshtein),
    ("editdist3", string::edit_distance::resolve_levenshtein),
    (
        "damerau_levenshtein",
        string::edit_distance::resolve_damerau_levenshtein,
    ),
    ("hamming", string::edit_distance::resolve_hamming),
    ("mismatches", string::edit_distance::resolve_hamming),
    ("jaccard", string::similarity::resolve_jaccard),
    ("jaro_similarity", string::similarity::resolve_jaro),
    (
        "jaro_winkler_similarity",
        string::similarity::resolve_jaro_winkler,
    ),
    ("md5", string::hash::resolve_md5),
    ("md5_number", |a| {
        string::hash::resolve_md5_number(Md5Part::Whole, a)
    }),
    ("md5_number_upper", |a| {
        string::hash::resolve_md5_number(Md5Part::Upper, a)
    }),
    ("md5_number_lower", |a| {
        string::hash::resolve_md5_number(Md5Part::Lower, a)
    }),
    ("sha1", string::hash::resolve_sha1),
    ("sha256", string::hash::resolve_sha256),
    ("translate", string::translate::resolve),
    ("nfc_normalize", string::normalize::resolve),
    ("url_encode", string::url::resolve_encode),
    ("url_decode", string::url::resolve_decode),
    ("format_bytes", string::format_bytes::resolve_binary),
    ("formatreadablesize", string::format_bytes::resolve_binary),
    (
        "formatreadabledecimalsize",
        string::format_bytes::resolve_decimal,
    ),
    ("parse_dirname", string::path::resolve_dirname),
    ("parse_dirpath", string::path::resolve_dirpath),
    ("parse_filename", string::path::resolve_filename),
    ("parse_path", string::path::resolve_path),
    ("path_join", string::path_join::resolve),
    ("to_hex", string::hex::resolve_hex),
    ("hex", string::hex::resolve_hex),
    // sequences: the binder binds them (`binder/sequences.rs`); these entries
    // name their signatures
    ("nextval", |a| {
        super::signature::fixed(
            ScalarFunction::NextVal,
            a,
            &[DataType::Varchar],
            DataType::BigInt,
        )
    }),
    ("currval", |a| {
        super::signature::fixed(
            ScalarFunction::CurrVal,
            a,
            &[DataType::Varchar],
            DataType::BigInt,
        )
    }),
    ("setval", |a| {
        use DataType::{BigInt, Boolean, Varchar};
        let f = ScalarFunction::SetVal;
        super::signature::fixed(f, a, &[Varchar, BigInt], BigInt)
            .or_else(|| super::signature::fixed(f, a, &[Varchar, BigInt, Boolean], BigInt))
    }),
    // blob
    ("to_base64", |a| blobs::resolve(B::ToBase64, a)),
    ("base64", |a| blobs::resolve(B::ToBase64, a)),
    ("from_base64", |a| blobs::resolve(B::FromBase64, a)),
    ("from_hex", |a| blobs::resolve(B::FromHex, a)),
    ("unhex", |a| blobs::resolve(B::FromHex, a)),
    ("from_binary", |a| blobs::resolve(B::FromBinary, a)),
    ("unbin", |a| blobs::resolve(B::FromBinary, a)),
    ("encode", |a| blobs::resolve(B::Encode, a)),
    ("decode", |a| blobs::resolve(B::Decode, a)),
    ("to_binary", string::hex::resolve_bin),
    ("bin", string::hex::resolve_bin),
    ("bar", string::bar::resolve),
    ("overlay", string::overlay::resolve),
    ("to_base", string::to_base::resolve_to_base),
    (
        "parse_formatted_bytes",
        string::to_base::resolve_parse_bytes,
    ),
    ("~~~", string::glob::resolve),
    ("left_grapheme", string::grapheme::resolve_left),
    ("right_grapheme", string::grapheme::resolve_right),
    ("substring_grapheme", string::grapheme::resolve_substring),
    ("format", string::format::resolve),
    ("printf", string::printf::resolve),
    // math
    ("abs", math::abs_sign::resolve_abs),
    ("sign", math::abs_sign::resolve_sign),
    ("round", math::rounding::resolve_round),
    ("floor", math::rounding::resolve_floor),
    ("ceil", math::rounding::resolve_ceil),
    ("ceiling", math::rounding::resolve_ceil),
    ("trunc", math::rounding::resolve_trunc),
    ("sqrt", math::float_fns::resolve_sqrt),
    ("cbrt", math::float_fns::resolve_cbrt),
    ("power", math::float_fns::resolve_power),
    ("pow", math::float_fns::resolve_power),
    ("exp", math::float_fns::resolve_exp),
    ("ln", math::float_fns::resolve_ln),
    ("log10", math::float_fns::resolve_log10),
    ("log", math::float_fns::resolve_log),
    ("log2", math::float_fns::resolve_log2),
    ("pi", math::float_fns::resolve_pi),
    ("degrees", math::float_fns::resolve_degrees),
    ("radians", math::float_fns::resolve_radians),
    ("sin", math::float_fns::resolve_sin),
    ("cos", math::float_fns::resolve_cos),
    ("tan", math::float_fns::resolve_tan),
    ("asin", math::float_fns::resolve_asin),
    ("acos", math::float_fns::resolve_acos),
    ("atan", math::float_fns::resolve_atan),
    ("atan2", math::float_fns::resolve_atan2),
    ("isnan", math::float_fns::resolve_isnan),
    ("isinf", math::float_fns::resolve_isinf),
    ("isfinite", math::float_fns::resolve_isfinite),
    ("cot", math::float_fns::resolve_cot),
    ("sinh", math::float_fns::resolve_sinh),
    ("cosh", math::float_fns::resolve_cosh),
    ("tanh", math::float_fns::resolve_tanh),
    ("asinh", math::float_fns::resolve_asinh),
    ("acosh", math::float_fns::resolve_acosh),
    ("atanh", math::float_fns::resolve_atanh),
    ("gamma", math::float_fns::resolve_gamma),
    ("lgamma", math::float_fns::resolve_lgamma),
    ("even", math::float_fns::resolve_even),
    ("signbit", math::float_bits::resolve_signbit),
    ("nextafter", math::float_bits::resolve_nextafter),
    ("gcd", math::integer_fns::resolve_gcd),
    ("greatest_common_divisor", math::integer_fns::resolve_gcd),
    ("lcm", math::integer_fns::resolve_lcm),
    ("least_common_multiple", math::integer_fns::resolve_lcm),
    ("factorial", math::integer_fns::resolve_factorial),
    ("binom", math::integer_fns::resolve_binom),
    ("bit_count", |a| {
        bits::resolve(Bits::BitCount, a).or_else(|| math::integer_fns::resolve_bit_count(a))
    }),
    ("xor", |a| {
        bits::resolve(Bits::Xor, a).or_else(|| math::integer_fns::resolve_xor(a))
    }),
    ("round_even", math::rounding::resolve_round_even),
    ("roundbankers", math::rounding::resolve_round_even),
    // dates and times
    ("date_part", |a| {
        date::part::resolve_date_part(a).or_else(|| date::part_list::resolve(a))
    }),
    ("datepart", |a| {
        date::part::resolve_date_part(a).or_else(|| date::part_list::resolve(a))
    }),
    ("extract", date::part::resolve_date_part),
    ("year", |a| date::part::resolve_field(a, DateField::Year)),
    ("month", |a| date::part::resolve_field(a, DateField::Month)),
    ("day", |a| date::part::resolve_field(a, DateField::Day)),
    ("dayofmonth", |a| {
        date::part::resolve_field(a, DateField::Day)
    }),
    ("hour", |a| date::part::resolve_field(a, DateField::Hour)),
    ("minute", |a| {
        date::part::resolve_field(a, DateField::Minute)
    }),
    ("second", |a| {
        date::part::resolve_field(a, DateField::Second)
    }),
    ("millisecond", |a| {
        date::part::resolve_field(a, DateField::Millisecond)
    }),
    ("microsecond", |a| {
        date::part::resolve_field(a, DateField::Microsecond)
    }),
    ("quarter", |a| {
        date::part::resolve_field(a, DateField::Quarter)
    }),
    ("week", |a| date::part::resolve_field(a, DateField::Week)),
    ("weekofyear", |a| {
        date::part::resolve_field(a, DateField::Week)
    }),
    ("dayofweek", |a| {
        date::part::resolve_field(a, DateField::DayOfWeek)
    }),
    ("weekday", |a| {
        date::part::resolve_field(a, DateField::DayOfWeek)
    }),
    ("isodow", |a| {
        date::part::resolve_field(a, DateField::IsoDayOfWeek)
    }),
    ("dayofyear", |a| {
        date::part::resolve_field(a, DateField::DayOfYear)
    }),
    ("isoyear", |a| {
        date::part::resolve_field(a, DateField::IsoYear)
    }),
    ("decade", |a| {
        date::part::resolve_field(a, DateField::Decade)
    }),
    ("century", |a| {
        date::part::resolve_field(a, DateField::Century)
    }),
    ("millennium", |a| {
        date::part::resolve_field(a, DateField::Millennium)
    }),
    ("epoch", |a| date::part::resolve_field(a, DateField::Epoch)),
    ("yearweek", |a| {
        date::part::resolve_field(a, DateField::YearWeek)
    }),
    ("epoch_ms", |a| {
        date::epoch::resolve_epoch_unit(a, EpochUnit::Millis)
    }),
    ("epoch_us", |a| {
        date::epoch::resolve_epoch_unit(a, EpochUnit::Micros)
    }),
    ("epoch_ns", |a| {
        date::epoch::resolve_epoch_unit(a, EpochUnit::Nanos)
    }),
    ("to_timestamp", date::epoch::resolve_to_timestamp),
    ("to_millennia", |a| {
        date::to_interval::resolve(a, IntervalUnit::Millennia)
    }),
    ("to_centuries", |a| {
        date::to_interval::resolve(a, IntervalUnit::Centuries)
    }),
    ("to_decades", |a| {
        date::to_interval::resolve(a, IntervalUnit::Decades)
    }),
    ("to_years", |a| {
        date::to_interval::resolve(a, IntervalUnit::Years)
    }),
    ("to_months", |a| {
        date::to_interval::resolve(a, IntervalUnit::Months)
    }),
    ("to_weeks", |a| {
        date::to_interval::resolve(a, IntervalUnit::Weeks)
    }),
    ("to_days", |a| {
        date::to_interval::resolve(a, IntervalUnit::Days)
    }),
    ("to_hours", |a| {
        date::to_interval::resolve(a, IntervalUnit::Hours)
    }),
    ("to_minutes", |a| {
        date::to_interval::resolve(a, IntervalUnit::Minutes)
    }),
    ("to_seconds", |a| {
        date::to_interval::resolve(a, IntervalUnit::Seconds)
    }),
    ("to_milliseconds", |a| {
        date::to_interval::resolve(a, IntervalUnit::Milliseconds)
    }),
    ("to_microseconds", |a| {
        date::to_interval::resolve(a, IntervalUnit::Microseconds)
    }),
    ("age", date::age::resolve_age),
    ("date_add", date::age::resolve_date_add),
    ("time_bucket", date::bucket::resolve),
    ("nanosecond", |a| {
        date::part::resolve_field(a, DateField::Nanosecond)
    }),
    ("era", |a| date::part::resolve_field(a, DateField::Era)),
    // the session zone's offset for TIMESTAMPTZ, 0 for TIMESTAMP; DuckDB refuses
    // them for dates. `timezone(zone, ts)` is AT TIME ZONE.
    ("timezone", |a| match a {
        [DataType::Timestamp | DataType::TimestampTz] => {
            date::part::resolve_field(a, DateField::Timezone)
        }
        [_, _] => date::zone::resolve(a),
        _ => None,
    }),
    ("timezone_hour", |a| match a {
        [DataType::Timestamp | DataType::TimestampTz | DataType::TimeTz] => {
            date::part::resolve_field(a, DateField::TimezoneHour)
        }
        _ => None,
    }),
    ("timezone_minute", |a| match a {
        [DataType::Timestamp | DataType::TimestampTz | DataType::TimeTz] => {
            date::part::resolve_field(a, DateField::TimezoneMinute)
        }
        _ => None,
    }),
    ("to_quarters", |a| {
        date::to_interval::resolve(a, IntervalUnit::Quarters)
    }),
    ("normalized_interval", date::normalize::resolve),
    ("make_timestamp_ms", |a| match a {
        [t] if super::signature::castable(t, &DataType::BigInt) => super::signature::bind(
            ScalarFunction::TimestampFromEpochMs,
            vec![DataType::BigInt],
            DataType::Timestamp,
        ),
        _ => None,
    }),
    ("julian", |a| {
        date::part::resolve_field(a, DateField::Julian)
    }),
    ("date_trunc", date::trunc::resolve),
    ("datetrunc", date::trunc::resolve),
    ("date_diff", date::diff::resolve),
    ("datediff", date::diff::resolve),
    ("date_sub", date::sub::resolve),
    ("datesub", date::sub::resolve),
    ("make_date", date::make::resolve_make_date),
    ("make_time", date::make::resolve_make_time),
    ("make_timestamptz", date::make::resolve_make_timestamptz),
    (
        "make_timestamp_ns",
        date::epoch::resolve_make_timestamp_nanos,
    ),
    ("make_timestamp", |a| {
        date::make::resolve_make_timestamp(a)
            .or_else(|| date::epoch::resolve_make_timestamp_micros(a))
    }),
    ("strftime", date::strftime::resolve),
    ("strptime", |a| {
        date::strptime::resolve_strptime(a).or_else(|| date::strptime_list::resolve(false, a))
    }),
    ("try_strptime", |a| {
        date::strptime::resolve_try_strptime(a).or_else(|| date::strptime_list::resolve(true, a))
    }),
    ("last_day", date::names::resolve_last_day),
    ("dayname", date::names::resolve_dayname),
    ("monthname", date::names::resolve_monthname),
    ("current_date", date::now::resolve_current_date),
    ("today", date::now::resolve_current_date),
    ("current_time", date::now::resolve_current_time),
    ("get_current_time", date::now::resolve_current_time),
    // the local clock's time (stride has no TIME WITH TIME ZONE, so current_time is too)
    ("current_localtime", date::now::resolve_current_time),
    ("current_timestamp", date::now::resolve_current_timestamp),
    ("now", date::now::resolve_current_timestamp),
    (
        "get_current_timestamp",
        date::now::resolve_current_timestamp,
    ),
    (
        "transaction_timestamp",
        date::now::resolve_current_timestamp,
    ),
    (
        "current_localtimestamp",
        date::now::resolve_current_local_timestamp,
    ),
    // other
    ("typeof", meta::resolve_typeof),
    ("enum_first", |a| {
        super::enums::resolve(EnumFunction::First, a)
    }),
    ("enum_last", |a| {
        super::enums::resolve(EnumFunction::Last, a)
    }),
    ("enum_range", |a| {
        super::enums::resolve(EnumFunction::Range, a)
    }),
    ("enum_range_boundary", |a| {
        super::enums::resolve(EnumFunction::RangeBoundary, a)
    }),
    ("enum_code", |a| {
        super::enums::resolve(EnumFunction::Code, a)
    }),
    ("gen_random_uuid", super::uuid::resolve),
    ("uuid", super::uuid::resolve),
    ("uuidv4", super::uuid::resolve),
    ("uuidv7", super::uuid::resolve_v7),
    ("uuid_extract_version", super::uuid::resolve_extract_version),
    (
        "uuid_extract_timestamp",
        super::uuid::resolve_extract_timestamp,
    ),
    ("version", meta::resolve_version),
    ("current_database", meta::resolve_current_database),
    ("current_schema", meta::resolve_current_schema),
    ("hash", super::hash::resolve),
    ("random", super::volatile::resolve_random),
    ("setseed", super::volatile::resolve_setseed),
    ("sleep_ms", super::volatile::resolve_sleep_ms),
    ("error", super::volatile::resolve_error),
    // regular expressions and quoting
    ("regexp_matches", regex::resolve_regexp_matches),
    ("regexp_full_match", regex::resolve_regexp_full_match),
    // unary `~` is bitwise NOT, binary `~` a regular expression match
    ("~", |a| {
        if a.len() == 1 {
            bits::resolve(Bits::Not, a).or_else(|| math::bitwise::resolve_not(a))
        } else {
            regex::resolve_regexp_matches(a)
        }
    }),
    ("~*", regex::resolve_imatch),
    ("regexp_extract", regex::extract::resolve_extract),
    ("regexp_extract_all", regex::extract::resolve_extract_all),
    ("regexp_replace", regex::replace::resolve),
    ("regexp_split_to_array", regex::split::resolve),
    ("string_split_regex", regex::split::resolve),
    ("str_split_regex", regex::split::resolve),
    ("regexp_escape", regex::escape::resolve),
    ("quote_ident", string::quote::resolve_quote_ident),
    ("quote_literal", string::quote::resolve_quote_literal),
    // lists
    ("list_value", list::resolve_list_value),
    // structs (struct_pack, struct_insert, struct_update and struct_concat take
    // named arguments and are bound in the binder)
    ("row", structs::resolve_row),
    // fixed-size arrays
    ("array_distance", |a| {
        array::resolve(A::Distance(Distance::Euclidean), a)
    }),
    ("array_inner_product", |a| {
        array::resolve(A::Distance(Distance::InnerProduct), a)
    }),
    ("array_dot_product", |a| {
        array::resolve(A::Distance(Distance::InnerProduct), a)
    }),
    ("array_negative_inner_product", |a| {
        array::resolve(A::Distance(Distance::NegativeInnerProduct), a)
    }),
    ("array_negative_dot_product", |a| {
        array::resolve(A::Distance(Distance::NegativeInnerProduct), a)
    }),
    ("array_cosine_similarity", |a| {
        array::resolve(A::Distance(Distance::Cosine), a)
    }),
    ("array_cosine_distance", |a| {
        array::resolve(A::Distance(Distance::OneMinusCosine), a)
    }),
    ("array_cross_product", |a| {
        array::resolve(A::CrossProduct, a)
    }),
    // maps
    ("map", |a| maps::resolve(M::FromLists, a)),
    ("map_from_entries", |a| maps::resolve(M::FromEntries, a)),
    ("map_extract", |a| maps::resolve(M::Extract, a)),
    ("element_at", |a| maps::resolve(M::Extract, a)),
    ("map_extract_value", |a| maps::resolve(M::ExtractValue, a)),
    ("map_keys", |a| maps::resolve(M::Keys, a)),
    ("map_values", |a| maps::resolve(M::Values, a)),
    ("map_entries", |a| maps::resolve(M::Entries, a)),
    ("map_contains", |a| maps::resolve(M::Contains, a)),
    ("map_contains_value", |a| maps::resolve(M::ContainsValue, a)),
    ("map_contains_entry", |a| maps::resolve(M::ContainsEntry, a)),
    ("map_concat", |a| maps::resolve(M::Concat, a)),
    ("struct_extract", |a| structs::resolve_extract(a, false)),
    ("struct_extract_at", |a| structs::resolve_extract(a, true)),
    ("struct_keys", structs::resolve_keys),
    ("union_tag", unions::resolve_tag),
    ("is_histogram_other_bin", histogram_bin::resolve),
    ("union_extract", unions::resolve_extract),
    ("struct_values", structs::resolve_values),
    ("struct_contains", |a| structs::resolve_search(a, false)),
    ("struct_has", |a| structs::resolve_search(a, false)),
    ("struct_position", |a| structs::resolve_search(a, true)),
    ("struct_indexof", |a| structs::resolve_search(a, true)),
    ("array_to_string", list::resolve_array_to_string),
    ("array_length", |a| {
        list::build::resolve_len(a)
            .or_else(|| list::resolve_dimension(ScalarFunction::ArrayLength, a))
    }),
    ("array_upper", |a| {
        list::resolve_dimension(ScalarFunction::ArrayUpper, a)
    }),
    ("array_lower", |a| {
        list::resolve_dimension(ScalarFunction::ArrayLower, a)
    }),
    ("cardinality", |a| {
        list::resolve_cardinality(a).or_else(|| maps::resolve(M::Cardinality, a))
    }),
    ("list_extract", list::resolve_extract),
    ("list_element", list::resolve_extract),
    ("list_concat", list::resolve_list_concat),
    ("list_cat", list::resolve_list_concat),
    ("array_concat", list::resolve_list_concat),
    ("array_value", list::resolve_list_value),
    ("list_pack", list::resolve_list_value),
    ("array_cat", list::resolve_list_concat),
    ("array_extract", list::resolve_extract),
    ("list_aggregate", list::aggregate::resolve_list_aggregate),
    ("list_aggr", list::aggregate::resolve_list_aggregate),
    ("array_aggregate", list::aggregate::resolve_list_aggregate),
    ("array_aggr", list::aggregate::resolve_list_aggregate),
    ("list_last", list::aggregate::resolve_last),
    ("list_product", list::aggregate::resolve_product),
    ("list_sort", |a| {
        list::order::resolve_sort(ScalarFunction::ListSort, a)
    }),
    ("array_sort", |a| {
        list::order::resolve_sort(ScalarFunction::ListSort, a)
    }),
    ("list_reverse_sort", |a| {
        list::order::resolve_sort(ScalarFunction::ListReverseSort, a)
    }),
    ("array_reverse_sort", |a| {
        list::order::resolve_sort(ScalarFunction::ListReverseSort, a)
    }),
    ("list_grade_up", |a| {
        list::order::resolve_sort(ScalarFunction::ListGradeUp, a)
    }),
    ("array_grade_up", |a| {
        list::order::resolve_sort(ScalarFunction::ListGradeUp, a)
    }),
    ("grade_up", |a| {
        list::order::resolve_sort(ScalarFunction::ListGradeUp, a)
    }),
    ("list_reverse", |a| {
        list::order::resolve_unary(ScalarFunction::ListReverse, a)
    }),
    ("array_reverse", |a| {
        list::order::resolve_unary(ScalarFunction::ListReverse, a)
    }),
    ("list_distinct", |a| {
        list::order::resolve_unary(ScalarFunction::ListDistinct, a)
    }),
    ("array_distinct", |a| {
        list::order::resolve_unary(ScalarFunction::ListDistinct, a)
    }),
    ("list_unique", |a| {
        list::order::resolve_unary(ScalarFunction::ListUnique, a)
    }),
    ("array_unique", |a| {
        list::order::resolve_unary(ScalarFunction::ListUnique, a)
    }),
    ("list_contains", |a| {
        list::search::resolve_find(ScalarFunction::ListContains, a)
    }),
    ("list_has", |a| {
        list::search::resolve_find(ScalarFunction::ListContains, a)
    }),
    ("array_contains", |a| {
        list::search::resolve_find(ScalarFunction::ListContains, a)
    }),
    ("array_has", |a| {
        list::search::resolve_find(ScalarFunction::ListContains, a)
    }),
    ("list_position", |a| {
        list::search::resolve_find(ScalarFunction::ListPosition, a)
    }),
    ("list_indexof", |a| {
        list::search::resolve_find(ScalarFunction::ListPosition, a)
    }),
    ("array_position", |a| {
        list::search::resolve_find(ScalarFunction::ListPosition, a)
    }),
    ("array_indexof", |a| {
        list::search::resolve_find(ScalarFunction::ListPosition, a)
    }),
    ("list_has_any", |a| {
        list::search::resolve_pair(ScalarFunction::ListHasAny, a)
    }),
    ("array_has_any", |a| {
        list::search::resolve_pair(ScalarFunction::ListHasAny, a)
    }),
    ("&&", |a| {
        list::search::resolve_pair(ScalarFunction::ListHasAny, a)
    }),
    ("list_has_all", |a| {
        list::search::resolve_pair(ScalarFunction::ListHasAll, a)
    }),
    ("array_has_all", |a| {
        list::search::resolve_pair(ScalarFunction::ListHasAll, a)
    }),
    ("@>", |a| {
        list::search::resolve_pair(ScalarFunction::ListHasAll, a)
    }),
    ("<@", |a| {
        list::search::resolve_pair(ScalarFunction::ListContainedBy, a)
    }),
    ("list_intersect", |a| {
        list::search::resolve_pair(ScalarFunction::ListIntersect, a)
    }),
    ("array_intersect", |a| {
        list::search::resolve_pair(ScalarFunction::ListIntersect, a)
    }),
    ("list_slice", list::slice::resolve),
    ("array_slice", list::slice::resolve),
    ("list_append", list::build::resolve_append),
    ("array_append", list::build::resolve_append),
    ("array_push_back", list::build::resolve_append),
    ("list_prepend", list::build::resolve_prepend),
    ("array_prepend", list::build::resolve_prepend),
    ("array_push_front", list::build::resolve_push_front),
    ("list_resize", list::build::resolve_resize),
    ("array_resize", list::build::resolve_resize),
    ("list_select", |a| {
        list::build::resolve_pick(ScalarFunction::ListSelect, a)
    }),
    ("array_select", |a| {
        list::build::resolve_pick(ScalarFunction::ListSelect, a)
    }),
    ("list_where", |a| {
        list::build::resolve_pick(ScalarFunction::ListWhere, a)
    }),
    ("array_where", |a| {
        list::build::resolve_pick(ScalarFunction::ListWhere, a)
    }),
    ("flatten", list::build::resolve_flatten),
    ("range", |a| list::build::resolve_range(a, false)),
    ("generate_series", |a| list::build::resolve_range(a, true)),
    ("list_distance", |a| {
        list::distance::resolve(a, Distance::Euclidean)
    }),
    ("list_inner_product", |a| {
        list::distance::resolve(a, Distance::InnerProduct)
    }),
    ("list_dot_product", |a| {
        list::distance::resolve(a, Distance::InnerProduct)
    }),
    ("list_negative_inner_product", |a| {
        list::distance::resolve(a, Distance::NegativeInnerProduct)
    }),
    ("list_negative_dot_product", |a| {
        list::distance::resolve(a, Distance::NegativeInnerProduct)
    }),
    ("list_cosine_similarity", |a| {
        list::distance::resolve(a, Distance::Cosine)
    }),
    ("list_cosine_distance", |a| {
        list::distance::resolve(a, Distance::OneMinusCosine)
    }),
    ("<=>", |a| {
        list::distance::resolve(a, Distance::OneMinusCosine)
    }),
    ("<->", |a| list::distance::resolve(a, Distance::Euclidean)),
    ("list_zip", list::zip::resolve),
    ("array_zip", list::zip::resolve),
    ("list_sum", |a| list::aggregate::resolve_shorthand(a, "sum")),
    ("list_min", |a| list::aggregate::resolve_shorthand(a, "min")),
    ("list_max", |a| list::aggregate::resolve_shorthand(a, "max")),
    ("list_avg", |a| list::aggregate::resolve_shorthand(a, "avg")),
    ("list_mean", |a| {
        list::aggregate::resolve_shorthand(a, "avg")
    }),
    ("list_count", |a| {
        list::aggregate::resolve_shorthand(a, "count")
    }),
    ("list_first", |a| {
        list::aggregate::resolve_shorthand(a, "first")
    }),
    ("list_any_value", |a| {
        list::aggregate::resolve_shorthand(a, "any_value")
    }),
    ("list_bool_and", |a| {
        list::aggregate::resolve_shorthand(a, "bool_and")
    }),
    ("list_bool_or", |a| {
        list::aggregate::resolve_shorthand(a, "bool_or")
    }),
    ("list_string_agg", |a| {
        list::aggregate::resolve_shorthand(a, "string_agg")
    }),
    ("list_var_samp", |a| {
        list::aggregate::resolve_shorthand(a, "var_samp")
    }),
    ("list_var_pop", |a| {
        list::aggregate::resolve_shorthand(a, "var_pop")
    }),
    ("list_stddev_samp", |a| {
        list::aggregate::resolve_shorthand(a, "stddev_samp")
    }),
    ("list_stddev_pop", |a| {
        list::aggregate::resolve_shorthand(a, "stddev_pop")
    }),
    ("list_mode", |a| {
        list::aggregate::resolve_shorthand(a, "mode")
    }),
    ("list_entropy", |a| {
        list::aggregate::resolve_shorthand(a, "entropy")
    }),
    ("list_skewness", |a| {
        list::aggregate::resolve_shorthand(a, "skewness")
    }),
    ("list_kurtosis", |a| {
        list::aggregate::resolve_shorthand(a, "kurtosis")
    }),
    ("list_median", |a| {
        list::aggregate::resolve_shorthand(a, "median")
    }),
    ("list_mad", |a| list::aggregate::resolve_shorthand(a, "mad")),
    ("list_sem", |a| list::aggregate::resolve_shorthand(a, "sem")),
    ("list_approx_count_distinct", |a| {
        list::aggregate::resolve_shorthand(a, "approx_count_distinct")
    }),
    ("list_bit_and", |a| {
        list::aggregate::resolve_shorthand(a, "bit_and")
    }),
    ("list_bit_or", |a| {
        list::aggregate::resolve_shorthand(a, "bit_or")
    }),
    ("list_bit_xor", |a| {
        list::aggregate::resolve_shorthand(a, "bit_xor")
    }),
    ("list_kurtosis_pop", |a| {
        list::aggregate::resolve_shorthand(a, "kurtosis_pop")
    }),
    // PostgreSQL client functions
    ("format_type", pg::resolve_format_type),
    ("to_regtype", pg::resolve_to_regtype),
    ("pg_encoding_to_char", pg::resolve_encoding_to_char),
    ("pg_get_expr", pg::resolve_get_expr),
    ("pg_size_pretty", pg::resolve_size_pretty),
    // JSON
    ("json_extract", |a| {
        json::resolve_path_function(J::Extract, a)
    }),
    ("json_extract_path", |a| {
        json::resolve_path_function(J::Extract, a)
    }),
    ("->", |a| json::resolve_path_function(J::Extract, a)),
    ("json_extract_string", |a| {
        json::resolve_path_function(J::ExtractString, a)
    }),
    ("json_extract_path_text", |a| {
        json::resolve_path_function(J::ExtractString, a)
    }),
    ("->>", |a| json::resolve_path_function(J::ExtractString, a)),
    ("json_value", |a| json::resolve_path_function(J::Value, a)),
    ("json_exists", |a| json::resolve_path_function(J::Exists, a)),
    ("json_type", |a| json::resolve_path_function(J::Type, a)),
    ("json_array_length", |a| {
        json::resolve_path_function(J::ArrayLength, a)
    }),
    ("json_keys", |a| json::resolve_path_function(J::Keys, a)),
    ("json_valid", |a| json::resolve_unary(J::Valid, a)),
    ("json_structure", |a| json::resolve_unary(J::Structure, a)),
    ("json_pretty", |a| json::resolve_unary(J::Pretty, a)),
    ("json", |a| json::resolve_unary(J::Minify, a)),
    ("json_contains", json::resolve_contains),
    ("json_merge_patch", |a| {
        json::resolve_merge(J::MergePatch, a)
    }),
    ("json_deep_merge", |a| json::resolve_merge(J::DeepMerge, a)),
    ("json_merge_patch_diff", |a| {
        json::resolve_merge(J::MergePatchDiff, a)
    }),
    ("json_strip_nulls", |a| {
        json::resolve_modify(J::StripNulls, a)
    }),
    ("json_remove", |a| json::resolve_modify(J::Remove, a)),
    ("json_set", |a| json::resolve_modify(J::Set, a)),
    ("json_insert", |a| json::resolve_modify(J::Insert, a)),
    ("json_replace", |a| json::resolve_modify(J::Replace, a)),
    ("row_to_json", json::resolve_row_to_json),
    ("json_object", json::resolve_object),
    ("json_build_object", json::resolve_object),
    ("json_array", json::resolve_array),
    ("to_json", json::resolve_to_json),
    ("json_quote", json::resolve_to_json),
    ("array_to_json", json::resolve_array_to_json),
    ("json_transform", |a| {
        json::resolve_transform(J::Transform, a)
    }),
    ("from_json", |a| json::resolve_transform(J::Transform, a)),
    ("json_transform_strict", |a| {
        json::resolve_transform(J::TransformStrict, a)
    }),
    ("from_json_strict", |a| {
        json::resolve_transform(J::TransformStrict, a)
    }),
    ("__json_object_from_lists", json::resolve_object_from_lists),
];

/// The resolver registered under `name` (already lower-case).
/// The enum function a (lower-case) name calls, if any: its resolution errors are
/// DuckDB's own (`enums::resolve_error`).
pub fn enum_function(name: &str) -> Option<EnumFunction> {
    Some(match name {
        "enum_first" => EnumFunction::First,
        "enum_last" => EnumFunction::Last,
        "enum_range" => EnumFunction::Range,
        "enum_range_boundary" => EnumFunction::RangeBoundary,
        "enum_code" => EnumFunction::Code,
        _ => return None,
    })
}

pub fn lookup(name: &str) -> Option<Resolver> {
    CATALOGUE.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
}

/// Whether `name` is a scalar function or operator.
pub fn exists(name: &str) -> bool {
    lookup(&name.to_ascii_lowercase()).is_some()
}

/// Every registered name, aliases and operators included.
pub fn function_names() -> impl Iterator<Item = &'static str> {
    CATALOGUE.iter().map(|(n, _)| *n)
}

/// The closest function name to `name` by edit distance (operators excluded).
pub fn closest_name(name: &str) -> Option<&'static str> {
    function_names()
        .filter(|n| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .min_by_key(|n| edit_distance(name, n))
}

pub(crate) fn unknown_function(name: &str) -> Error {
    let mut msg = format!("Scalar Function with name {name} does not exist!");
    if let Some(s) = closest_name(name) {
        msg.push_str(&format!(" Did you mean \"{s}\"?"));
    }
    Error::catalog(msg).with_sqlstate(stride_common::error::sqlstate::UNDEFINED_FUNCTION)
}

/// Levenshtein distance over characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_suggestions() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(closest_name("uper"), Some("upper"));
        assert_eq!(closest_name("substrin"), Some("substring"));
        assert!(exists("LOWER"));
        assert!(!exists("nope"));
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = function_names().collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len());
    }
}
