//! PostgreSQL's names for stride's types. A value leaves the server under a type OID,
//! `pg_catalog.pg_type` lists the types, `pg_attribute.atttypid`/`atttypmod` describe
//! each column, and `format_type()` / `to_regtype()` / `::regtype` spell them. One table
//! here serves all of them, so the wire protocol and the catalog always agree.
//!
//! stride's types map onto PostgreSQL's as the server sends them: TINYINT travels as
//! int2, VARCHAR as varchar, LIST(t) as t's array type; `text` is listed too, because
//! SQL may name it (it is stride's VARCHAR).

use stride_common::DataType;

/// One row of `pg_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PgType {
    pub oid: u32,
    /// `typname`, e.g. `int4`, `_int4`.
    pub name: &'static str,
    /// What `format_type` prints, e.g. `integer`, `integer[]`.
    pub sql_name: &'static str,
    /// `typlen`: bytes, or -1 for variable length.
    pub len: i16,
    /// `typcategory`: B boolean, N numeric, S string, D date/time, T timespan, A array,
    /// P pseudo-type.
    pub category: char,
    /// Element type of an array type (0 otherwise).
    pub elem: u32,
    /// The array type of this type (0 for array types).
    pub array: u32,
}

const fn t(
    oid: u32,
    name: &'static str,
    sql_name: &'static str,
    len: i16,
    category: char,
    elem: u32,
    array: u32,
) -> PgType {
    PgType {
        oid,
        name,
        sql_name,
        len,
        category,
        elem,
        array,
    }
}

pub const BOOL: u32 = 16;
pub const INT8: u32 = 20;
pub const INT2: u32 = 21;
pub const INT4: u32 = 23;
pub const TEXT: u32 = 25;
pub const BYTEA: u32 = 17;
pub const VARBIT: u32 = 1562;
pub const FLOAT4: u32 = 700;
pub const FLOAT8: u32 = 701;
pub const VARCHAR: u32 = 1043;
pub const JSON: u32 = 114;
pub const DATE: u32 = 1082;
pub const TIMESTAMP: u32 = 1114;
pub const TIMESTAMPTZ: u32 = 1184;
pub const INTERVAL: u32 = 1186;
pub const TIME: u32 = 1083;
pub const TIMETZ: u32 = 1266;
pub const UUID: u32 = 2950;
pub const NUMERIC: u32 = 1700;
pub const RECORD: u32 = 2249;
pub const ANY: u32 = 2276;
pub const ANYARRAY: u32 = 2277;
pub const VOID: u32 = 2278;
pub const TRIGGER: u32 = 2279;
pub const ANYELEMENT: u32 = 2283;

/// Every type stride's values can have, then their array types, then the pseudo-types
/// function signatures use.
pub const PG_TYPES: &[PgType] = &[
    t(BOOL, "bool", "boolean", 1, 'B', 0, 1000),
    t(INT2, "int2", "smallint", 2, 'N', 0, 1005),
    t(INT4, "int4", "integer", 4, 'N', 0, 1007),
    t(INT8, "int8", "bigint", 8, 'N', 0, 1016),
    t(FLOAT4, "float4", "real", 4, 'N', 0, 1021),
    t(FLOAT8, "float8", "double precision", 8, 'N', 0, 1022),
    t(NUMERIC, "numeric", "numeric", -1, 'N', 0, 1231),
    t(VARCHAR, "varchar", "character varying", -1, 'S', 0, 1015),
    t(JSON, "json", "json", -1, 'U', 0, 199),
    t(199, "_json", "json[]", -1, 'A', JSON, 0),
    t(TEXT, "text", "text", -1, 'S', 0, 1009),
    t(BYTEA, "bytea", "bytea", -1, 'U', 0, 1001),
    t(1001, "_bytea", "bytea[]", -1, 'A', BYTEA, 0),
    t(VARBIT, "varbit", "bit varying", -1, 'V', 0, 1563),
    t(1563, "_varbit", "bit varying[]", -1, 'A', VARBIT, 0),
    t(DATE, "date", "date", 4, 'D', 0, 1182),
    t(
        TIMESTAMP,
        "timestamp",
        "timestamp without time zone",
        8,
        'D',
        0,
        1115,
    ),
    t(
        TIMESTAMPTZ,
        "timestamptz",
        "timestamp with time zone",
        8,
        'D',
        0,
        1185,
    ),
    t(TIME, "time", "time without time zone", 8, 'D', 0, 1183),
    t(TIMETZ, "timetz", "time with time zone", 12, 'D', 0, 1270),
    t(INTERVAL, "interval", "interval", 16, 'T', 0, 1187),
    t(UUID, "uuid", "uuid", 16, 'U', 0, 2951),
    t(1000, "_bool", "boolean[]", -1, 'A', BOOL, 0),
    t(1005, "_int2", "smallint[]", -1, 'A', INT2, 0),
    t(1007, "_int4", "integer[]", -1, 'A', INT4, 0),
    t(1016, "_int8", "bigint[]", -1, 'A', INT8, 0),
    t(1021, "_float4", "real[]", -1, 'A', FLOAT4, 0),
    t(1022, "_float8", "double precision[]", -1, 'A', FLOAT8, 0),
    t(1231, "_numeric", "numeric[]", -1, 'A', NUMERIC, 0),
    t(1015, "_varchar", "character varying[]", -1, 'A', VARCHAR, 0),
    t(1009, "_text", "text[]", -1, 'A', TEXT, 0),
    t(1182, "_date", "date[]", -1, 'A', DATE, 0),
    t(
        1115,
        "_timestamp",
        "timestamp without time zone[]",
        -1,
        'A',
        TIMESTAMP,
        0,
    ),
    t(
        1185,
        "_timestamptz",
        "timestamp with time zone[]",
        -1,
        'A',
        TIMESTAMPTZ,
        0,
    ),
    t(1183, "_time", "time without time zone[]", -1, 'A', TIME, 0),
    t(1270, "_timetz", "time with time zone[]", -1, 'A', TIMETZ, 0),
    t(1187, "_interval", "interval[]", -1, 'A', INTERVAL, 0),
    t(2951, "_uuid", "uuid[]", -1, 'A', UUID, 0),
    // Pseudo-types (category P): no value has them, but function signatures in
    // pg_proc name them (`count("any")`, `min(anyelement)`, a trigger's return type).
    t(ANY, "any", "\"any\"", 4, 'P', 0, 0),
    t(ANYELEMENT, "anyelement", "anyelement", 4, 'P', 0, 0),
    t(ANYARRAY, "anyarray", "anyarray", -1, 'P', 0, 0),
    t(RECORD, "record", "record", -1, 'P', 0, 0),
    t(VOID, "void", "void", 4, 'P', 0, 0),
    t(TRIGGER, "trigger", "trigger", 4, 'P', 0, 0),
];

pub fn by_oid(oid: u32) -> Option<&'static PgType> {
    PG_TYPES.iter().find(|t| t.oid == oid)
}

/// The type OID a stride type is described and sent as; untyped NULLs are text.
pub fn oid_of(ty: &DataType) -> u32 {
    match ty {
        DataType::Boolean => BOOL,
        // an unsigned type goes out as the signed type that holds all its values
        DataType::TinyInt | DataType::SmallInt | DataType::UTinyInt => INT2,
        DataType::Integer | DataType::USmallInt => INT4,
        DataType::BigInt | DataType::UInteger => INT8,
        DataType::UBigInt | DataType::UHugeInt => NUMERIC,
        DataType::Real => FLOAT4,
        DataType::Double => FLOAT8,
        DataType::Decimal(..) | DataType::HugeInt => NUMERIC,
        // an enum goes out as its label (PostgreSQL's enums have per-type OIDs)
        DataType::Varchar | DataType::Enum(_) => VARCHAR,
        DataType::Json => JSON,
        DataType::Blob => BYTEA,
        // sent as its text of 0s and 1s
        DataType::Bit => VARBIT,
        DataType::Date => DATE,
        // TIMESTAMP_NS goes out as text with its nine digits, which PostgreSQL's
        // clients read (rounded) as a timestamp
        DataType::Timestamp | DataType::TimestampUnit(_) => TIMESTAMP,
        DataType::TimestampTz => TIMESTAMPTZ,
        DataType::Time => TIME,
        DataType::TimeTz => TIMETZ,
        DataType::Interval => INTERVAL,
        DataType::Uuid => UUID,
        // PostgreSQL has no anonymous struct type a client could decode: a STRUCT
        // goes out as its text, `{'a': 1, 'b': x}`
        DataType::Null | DataType::Struct(_) | DataType::Map(..) | DataType::Union(_) => TEXT,
        DataType::List(inner) | DataType::Array(inner, _) => {
            by_oid(oid_of(inner)).map_or(0, |t| t.array)
        }
    }
}

/// `atttypmod`: precision and scale of a DECIMAL as PostgreSQL packs them, -1 for
/// types without modifiers.
pub fn typmod_of(ty: &DataType) -> i32 {
    match ty {
        DataType::Decimal(p, s) => (((*p as i32) << 16) | *s as i32) + 4,
        DataType::List(inner) | DataType::Array(inner, _) => typmod_of(inner),
        _ => -1,
    }
}

/// `format_type(oid, typmod)`: the SQL spelling of a type, with its modifiers when
/// `typmod` is given; `???` for an OID that names no type, as in PostgreSQL.
pub fn format_type(oid: u32, typmod: Option<i32>) -> String {
    let Some(t) = by_oid(oid) else {
        return "???".into();
    };
    let base = if t.elem != 0 { t.elem } else { t.oid };
    let modifier = match (base, typmod) {
        (NUMERIC, Some(m)) if m >= 4 => {
            let m = m - 4;
            format!("({},{})", (m >> 16) & 0xffff, m & 0xffff)
        }
        (VARCHAR, Some(m)) if m >= 4 => format!("({})", m - 4),
        _ => String::new(),
    };
    if modifier.is_empty() {
        return t.sql_name.to_string();
    }
    let elem = by_oid(base).map_or("???", |e| e.sql_name);
    format!("{elem}{modifier}{}", if t.elem != 0 { "[]" } else { "" })
}

/// `to_regtype(name)`: the OID of a type named as SQL or the catalog spells it
/// (`integer`, `int4`, `pg_catalog.int4`, `character varying(10)`, `text[]`, `_text`),
/// or None.
pub fn oid_by_name(name: &str) -> Option<u32> {
    let mut n = name.trim().to_ascii_lowercase();
    if let Some(rest) = n.strip_prefix("pg_catalog.") {
        n = rest.trim().to_string();
    }
    if let Some(elem) = n.strip_suffix("[]") {
        return by_oid(oid_by_name(elem)?)
            .map(|t| t.array)
            .filter(|&a| a != 0);
    }
    // Modifiers do not change the type: `numeric(10,2)`, `timestamp(3) without time zone`.
    if let Some(open) = n.find('(') {
        let close = n[open..].find(')')? + open;
        n = format!("{}{}", n[..open].trim_end(), &n[close + 1..]);
    }
    let n = n.split_whitespace().collect::<Vec<_>>().join(" ");
    let alias = match n.as_str() {
        "boolean" => "bool",
        "smallint" => "int2",
        "int" | "integer" => "int4",
        "bigint" => "int8",
        "real" => "float4",
        "double precision" | "double" => "float8",
        "decimal" => "numeric",
        "character varying" => "varchar",
        "timestamp without time zone" => "timestamp",
        "timestamp with time zone" => "timestamptz",
        "time without time zone" => "time",
        other => other,
    };
    PG_TYPES
        .iter()
        .find(|t| t.name == alias || t.sql_name == alias)
        .map(|t| t.oid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_modifiers() {
        let dec = DataType::Decimal(10, 2);
        assert_eq!(
            format_type(oid_of(&dec), Some(typmod_of(&dec))),
            "numeric(10,2)"
        );
        assert_eq!(format_type(oid_of(&dec), None), "numeric");
        assert_eq!(
            format_type(oid_of(&DataType::Varchar), Some(-1)),
            "character varying"
        );
        let list = DataType::List(Box::new(DataType::Integer));
        assert_eq!(format_type(oid_of(&list), Some(-1)), "integer[]");
        assert_eq!(format_type(12345, None), "???");
        assert_eq!(oid_by_name("integer"), Some(INT4));
        assert_eq!(oid_by_name("pg_catalog.INT4"), Some(INT4));
        assert_eq!(oid_by_name("numeric(10, 2)"), Some(NUMERIC));
        assert_eq!(oid_by_name("text[]"), Some(1009));
        assert_eq!(oid_by_name("_text"), Some(1009));
        assert_eq!(
            oid_by_name("timestamp(3) without time zone"),
            Some(TIMESTAMP)
        );
        assert_eq!(oid_by_name("no such type"), None);
        assert_eq!(oid_by_name("trigger"), Some(TRIGGER));
        assert_eq!(format_type(ANY, None), "\"any\"");
        for t in PG_TYPES {
            if t.array != 0 {
                assert_eq!(by_oid(t.array).unwrap().elem, t.oid, "{}", t.name);
            }
        }
    }
}
