//! DuckDB's JSON functions over JSON or VARCHAR text: extraction by path
//! (`json_extract` and `->`, `json_extract_string` and `->>`, `json_value`,
//! `json_exists`, `json_type`, `json_array_length`, `json_keys`), inspection
//! (`json_valid`, `json_structure`, `json_contains`), building (`json_object`,
//! `json_array`, `to_json` / `json_quote`, `array_to_json`, `row_to_json`),
//! merging (`merge`: `json_merge_patch`, `json_deep_merge`, `json_merge_patch_diff`),
//! editing at a path (`modify`: `json_set`, `json_insert`, `json_replace`,
//! `json_remove`, `json_strip_nulls`), formatting (`json` minifies, `json_pretty`) and reading into stride types
//! (`json_transform` / `from_json`, and their `_strict` forms).
//!
//! `json_extract` and `json_extract_string` with a constant path of keys and indexes
//! find their value in the text without building the document (`find.rs`).
//!
//! Resolution ([`resolve`]) binds the document argument as JSON or VARCHAR and the
//! path as VARCHAR, BIGINT (an array index) or VARCHAR[] (several paths: the result
//! is a list). A constant path is parsed once, at bind time by [`specialize`] (a
//! malformed path is a Binder error there; a path with a wildcard makes the result a
//! list) and once per chunk at evaluation; a path column is parsed per row.
//! Evaluation parses each row's document with `serde_json` ([`value`]) and writes
//! results into one reused buffer. Functions are strict (NULL document or path:
//! NULL; a path that matches nothing: NULL) except the builders, which write NULL
//! arguments as JSON `null`. Malformed documents are Invalid Input errors naming
//! the byte where parsing stopped.

pub mod convert;
pub mod each;
mod find;
pub mod merge;
pub mod modify;
pub mod path;
pub mod value;

pub use merge::merge_patch;

use super::signature::castable;
use super::{BoundFunction, ScalarFunction};
use crate::kernels::{all_constant, strict_validity, StrSlot};
use path::JsonPath;
use serde_json::Value;
use stride_common::{
    DataType, Error, Result, ScalarValue, StringVector, Validity, Vector, VectorData,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JsonFunction {
    /// `json_extract`, `json_extract_path`, `->`
    Extract,
    /// `json_extract_string`, `json_extract_path_text`, `->>`
    ExtractString,
    Value,
    Exists,
    Type,
    ArrayLength,
    Keys,
    Valid,
    Structure,
    Pretty,
    /// `json(x)`: the document minified
    Minify,
    Contains,
    Object,
    Array,
    /// `to_json`, `json_quote`
    ToJson,
    ArrayToJson,
    MergePatch,
    /// `json_deep_merge`: a merge patch whose nulls do not remove
    DeepMerge,
    /// `json_merge_patch_diff(old, new)`
    MergePatchDiff,
    StripNulls,
    Remove,
    Set,
    Insert,
    Replace,
    /// `row_to_json(struct)`: `to_json` of a STRUCT with named fields
    RowToJson,
    /// `json_transform`, `from_json`
    Transform,
    /// `json_transform_strict`, `from_json_strict`
    TransformStrict,
    /// `json_group_object`'s last step: an object from a list of keys and a list of
    /// values (the binder writes `json_group_object(k, v)` as this over `list(k)`,
    /// `list(v)`; stride has no MAP to build it from).
    ObjectFromLists,
}

use JsonFunction as J;

fn bind(f: JsonFunction, args: Vec<DataType>, ret: DataType) -> Option<BoundFunction> {
    Some(BoundFunction::new(ScalarFunction::Json(f), args, ret))
}

/// The type a document argument is bound as: JSON stays JSON, text and NULL are
/// VARCHAR.
fn doc_type(t: &DataType) -> Option<DataType> {
    match t {
        DataType::Json => Some(DataType::Json),
        t if castable(t, &DataType::Varchar) => Some(DataType::Varchar),
        _ => None,
    }
}

/// The result type of a path function for one path.
fn single_type(f: JsonFunction) -> DataType {
    match f {
        J::Extract => DataType::Json,
        J::Exists => DataType::Boolean,
        J::ArrayLength => DataType::BigInt,
        J::Keys => DataType::List(Box::new(DataType::Varchar)),
        _ => DataType::Varchar,
    }
}

fn list_of(t: DataType) -> DataType {
    DataType::List(Box::new(t))
}

/// Resolves `json_extract` and the other functions of (document, path).
pub(crate) fn resolve_path_function(f: JsonFunction, args: &[DataType]) -> Option<BoundFunction> {
    let doc = doc_type(args.first()?)?;
    match args {
        [_] if matches!(f, J::Type | J::ArrayLength | J::Keys) => {
            bind(f, vec![doc], single_type(f))
        }
        [_, p] => {
            let ret = single_type(f);
            match p {
                DataType::List(e) if castable(e, &DataType::Varchar) => {
                    bind(f, vec![doc, list_of(DataType::Varchar)], list_of(ret))
                }
                t if t.is_integer() => bind(f, vec![doc, DataType::BigInt], ret),
                t if castable(t, &DataType::Varchar) => bind(f, vec![doc, DataType::Varchar], ret),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Resolves the functions of one document.
pub(crate) fn resolve_unary(f: JsonFunction, args: &[DataType]) -> Option<BoundFunction> {
    let [a] = args else { return None };
    let doc = doc_type(a)?;
    let ret = match f {
        J::Valid => DataType::Boolean,
        J::Pretty => DataType::Varchar,
        _ => DataType::Json,
    };
    bind(f, vec![doc], ret)
}

pub(crate) fn resolve_contains(args: &[DataType]) -> Option<BoundFunction> {
    let [a, b] = args else { return None };
    bind(
        J::Contains,
        vec![doc_type(a)?, doc_type(b)?],
        DataType::Boolean,
    )
}

/// `json_merge_patch` and `json_deep_merge` (two documents or more) and
/// `json_merge_patch_diff` (exactly two).
pub(crate) fn resolve_merge(f: JsonFunction, args: &[DataType]) -> Option<BoundFunction> {
    if args.len() < 2 || (f == J::MergePatchDiff && args.len() != 2) {
        return None;
    }
    let types = args.iter().map(doc_type).collect::<Option<Vec<_>>>()?;
    bind(f, types, DataType::Json)
}

/// The editing functions (`modify`): a JSON document, then (but for
/// `json_strip_nulls`) a VARCHAR path, then (for `json_set`, `json_insert`,
/// `json_replace`) a value. Document and value are bound as JSON, so text is checked
/// by the cast (a Conversion error) and any other value becomes its JSON.
pub(crate) fn resolve_modify(f: JsonFunction, args: &[DataType]) -> Option<BoundFunction> {
    let arity = match f {
        J::StripNulls => 1,
        J::Remove => 2,
        _ => 3,
    };
    if args.len() != arity || doc_type(&args[0]).is_none() {
        return None;
    }
    let mut types = vec![DataType::Json];
    if arity > 1 {
        if !matches!(args[1], DataType::Varchar | DataType::Json | DataType::Null) {
            return None;
        }
        types.push(DataType::Varchar);
    }
    if arity > 2 {
        types.push(DataType::Json);
    }
    bind(f, types, DataType::Json)
}

/// `row_to_json(x)`: any one argument binds, so that a non-STRUCT can be refused
/// by name in `specialize`.
pub(crate) fn resolve_row_to_json(args: &[DataType]) -> Option<BoundFunction> {
    let [a] = args else { return None };
    bind(J::RowToJson, vec![a.clone()], DataType::Json)
}

/// `json_object(k, v, ...)`: keys VARCHAR, values of any type.
pub(crate) fn resolve_object(args: &[DataType]) -> Option<BoundFunction> {
    if !args.len().is_multiple_of(2) {
        return None;
    }
    let mut types = Vec::with_capacity(args.len());
    for pair in args.chunks(2) {
        if !matches!(pair[0], DataType::Varchar | DataType::Json) {
            return None;
        }
        types.push(DataType::Varchar);
        types.push(value_type(&pair[1]));
    }
    bind(J::Object, types, DataType::Json)
}

/// A value argument keeps its type; an untyped NULL is bound as JSON.
fn value_type(t: &DataType) -> DataType {
    if *t == DataType::Null {
        DataType::Json
    } else {
        t.clone()
    }
}

pub(crate) fn resolve_array(args: &[DataType]) -> Option<BoundFunction> {
    bind(
        J::Array,
        args.iter().map(value_type).collect(),
        DataType::Json,
    )
}

pub(crate) fn resolve_to_json(args: &[DataType]) -> Option<BoundFunction> {
    let [a] = args else { return None };
    bind(J::ToJson, vec![value_type(a)], DataType::Json)
}

pub(crate) fn resolve_array_to_json(args: &[DataType]) -> Option<BoundFunction> {
    match args {
        [t @ DataType::List(_)] => bind(J::ArrayToJson, vec![t.clone()], DataType::Json),
        [DataType::Null] => bind(
            J::ArrayToJson,
            vec![list_of(DataType::Json)],
            DataType::Json,
        ),
        _ => None,
    }
}

pub(crate) fn resolve_transform(f: JsonFunction, args: &[DataType]) -> Option<BoundFunction> {
    let [a, s] = args else { return None };
    if !castable(s, &DataType::Varchar) {
        return None;
    }
    // The result type comes from the constant structure (see `specialize`).
    bind(f, vec![doc_type(a)?, DataType::Varchar], DataType::Json)
}

pub(crate) fn resolve_object_from_lists(args: &[DataType]) -> Option<BoundFunction> {
    match args {
        [k @ DataType::List(_), v @ DataType::List(_)] => bind(
            J::ObjectFromLists,
            vec![k.clone(), v.clone()],
            DataType::Json,
        ),
        _ => None,
    }
}

/// Refines a bound call from its constant arguments: a constant path is checked
/// (a malformed one is a Binder error) and one with a wildcard makes the result a
/// list; `json_transform`'s structure gives its result type.
pub(crate) fn specialize(
    bf: &mut BoundFunction,
    f: JsonFunction,
    constants: &[Option<ScalarValue>],
) -> Result<()> {
    match f {
        J::Transform | J::TransformStrict => match constants.get(1) {
            Some(Some(ScalarValue::Varchar(s))) => {
                bf.return_type = convert::structure_type(s)?;
                Ok(())
            }
            Some(Some(ScalarValue::Null)) => Ok(()),
            _ => Err(Error::binder(
                "json_transform needs a constant structure, such as '[\"INTEGER\"]'",
            )),
        },
        J::Extract
        | J::ExtractString
        | J::Value
        | J::Exists
        | J::Type
        | J::ArrayLength
        | J::Keys => {
            match constants.get(1) {
                Some(Some(ScalarValue::Varchar(p)))
                    if bf.arg_types[1] == DataType::Varchar && path::parse(p)?.has_wildcard() =>
                {
                    bf.return_type = list_of(single_type(f));
                }
                Some(Some(ScalarValue::List(_, items))) => {
                    for p in items {
                        if let ScalarValue::Varchar(p) = p {
                            path::parse(p)?;
                        }
                    }
                }
                _ => {}
            }
            Ok(())
        }
        J::RowToJson => match &bf.arg_types[0] {
            DataType::Struct(fields) if fields.iter().all(|(n, _)| !n.is_empty()) => Ok(()),
            DataType::Null => Ok(()),
            _ => Err(Error::binder(
                "row_to_json() argument type must be STRUCT (with named fields)",
            )),
        },
        _ => Ok(()),
    }
}

/// Results under construction: strings (JSON or VARCHAR) straight into a string
/// column, anything else as values.
enum Out {
    Str {
        ty: DataType,
        strings: StringVector,
        validity: Validity,
    },
    Values(Vector),
}

impl Out {
    fn new(ty: &DataType, rows: usize) -> Out {
        match ty {
            DataType::Varchar | DataType::Json => Out::Str {
                ty: ty.clone(),
                strings: StringVector::with_capacity(rows),
                validity: Validity::all_valid(),
            },
            _ => Out::Values(Vector::with_capacity(ty, rows)),
        }
    }

    fn push_str(&mut self, s: &str) -> Result<()> {
        match self {
            Out::Str { strings, .. } => {
                strings.push(s);
                Ok(())
            }
            Out::Values(v) => v.push(&ScalarValue::Varchar(s.to_string())),
        }
    }

    fn push_null(&mut self) {
        match self {
            Out::Str {
                strings, validity, ..
            } => {
                let n = strings.len();
                strings.push("");
                validity.set_invalid(n, n + 1);
            }
            Out::Values(v) => v.push_null(),
        }
    }

    fn push(&mut self, v: ScalarValue) -> Result<()> {
        match (self, v) {
            (o, ScalarValue::Null) => {
                o.push_null();
                Ok(())
            }
            (o @ Out::Str { .. }, ScalarValue::Varchar(s)) => o.push_str(&s),
            (Out::Values(out), v) => out.push(&v),
            (Out::Str { .. }, v) => Err(Error::internal(format!(
                "a JSON function produced {v:?} for a text result"
            ))),
        }
    }

    fn finish(self, constant: bool) -> Vector {
        let mut v = match self {
            Out::Str {
                ty,
                strings,
                validity,
            } => Vector::new(ty, VectorData::Str(strings), validity),
            Out::Values(v) => v,
        };
        v.constant = constant;
        v
    }
}

pub(super) fn evaluate(
    bf: &BoundFunction,
    func: JsonFunction,
    args: &[Vector],
    len: usize,
) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let constant = all_constant(&refs);
    let rows = if constant { 1 } else { len };
    let mut out = Out::new(&bf.return_type, rows);
    match func {
        J::Extract
        | J::ExtractString
        | J::Value
        | J::Exists
        | J::Type
        | J::ArrayLength
        | J::Keys => path_function(func, args, rows, &mut out)?,
        J::Valid => {
            let validity = strict_validity(&refs, rows);
            let s = StrSlot::new(&args[0]);
            for i in 0..rows {
                if validity.is_valid(i) {
                    out.push(ScalarValue::Boolean(value::is_valid(s.get(i))))?;
                } else {
                    out.push_null();
                }
            }
        }
        J::Structure | J::Pretty | J::Minify => {
            let validity = strict_validity(&refs, rows);
            let s = StrSlot::new(&args[0]);
            let mut buf = String::new();
            for i in 0..rows {
                if !validity.is_valid(i) {
                    out.push_null();
                    continue;
                }
                let v = value::parse(s.get(i))?;
                buf.clear();
                match func {
                    J::Pretty => value::write_pretty(&mut buf, &v, 0),
                    J::Minify => value::write(&mut buf, &v),
                    _ => value::write(&mut buf, &described(structure(&v))),
                }
                out.push_str(&buf)?;
            }
        }
        J::Contains => {
            let validity = strict_validity(&refs, rows);
            let (h, n) = (StrSlot::new(&args[0]), StrSlot::new(&args[1]));
            let mut needle_cache: Option<Value> = None;
            for i in 0..rows {
                if !validity.is_valid(i) {
                    out.push_null();
                    continue;
                }
                let hay = value::parse(h.get(i))?;
                let needle = if args[1].constant {
                    if needle_cache.is_none() {
                        needle_cache = Some(value::parse(n.get(i))?);
                    }
                    needle_cache.clone().expect("cached")
                } else {
                    value::parse(n.get(i))?
                };
                out.push(ScalarValue::Boolean(contains(&hay, &needle)))?;
            }
        }
        J::StripNulls | J::Remove | J::Set | J::Insert | J::Replace => {
            modify::evaluate(func, args, rows, &mut out)?
        }
        J::Object | J::Array | J::ToJson | J::ArrayToJson | J::RowToJson => {
            let strict = matches!(func, J::ToJson | J::ArrayToJson | J::RowToJson);
            let mut buf = String::new();
            for i in 0..rows {
                let vals: Vec<ScalarValue> = args.iter().map(|a| a.get(i)).collect();
                if strict && vals[0].is_null() {
                    out.push_null();
                    continue;
                }
                buf.clear();
                match func {
                    J::Object => {
                        buf.push('{');
                        for (k, pair) in vals.chunks(2).enumerate() {
                            let ScalarValue::Varchar(key) = &pair[0] else {
                                return Err(Error::invalid_input(
                                    "json_object() keys cannot be NULL",
                                ));
                            };
                            if k > 0 {
                                buf.push(',');
                            }
                            value::write_string(&mut buf, key);
                            buf.push(':');
                            convert::write_scalar(&mut buf, &pair[1], &bf.arg_types[2 * k + 1]);
                        }
                        buf.push('}');
                    }
                    J::Array => {
                        buf.push('[');
                        for (k, v) in vals.iter().enumerate() {
                            if k > 0 {
                                buf.push(',');
                            }
                            convert::write_scalar(&mut buf, v, &bf.arg_types[k]);
                        }
                        buf.push(']');
                    }
                    _ => convert::write_scalar(&mut buf, &vals[0], &bf.arg_types[0]),
                }
                out.push_str(&buf)?;
            }
        }
        J::ObjectFromLists => {
            let mut buf = String::new();
            let vt = match &bf.arg_types[1] {
                DataType::List(t) => (**t).clone(),
                t => t.clone(),
            };
            for i in 0..rows {
                let (ScalarValue::List(_, keys), ScalarValue::List(_, vals)) =
                    (args[0].get(i), args[1].get(i))
                else {
                    out.push_null();
                    continue;
                };
                buf.clear();
                buf.push('{');
                for (k, (key, v)) in keys.iter().zip(&vals).enumerate() {
                    if k > 0 {
                        buf.push(',');
                    }
                    match key {
                        ScalarValue::Null => {
                            return Err(Error::invalid_input(
                                "json_group_object key cannot be NULL",
                            ))
                        }
                        ScalarValue::Varchar(s) => value::write_string(&mut buf, s),
                        other => value::write_string(&mut buf, &other.to_string()),
                    }
                    buf.push(':');
                    convert::write_scalar(&mut buf, v, &vt);
                }
                buf.push('}');
                out.push_str(&buf)?;
            }
        }
        J::MergePatchDiff => {
            let (old, new) = (StrSlot::new(&args[0]), StrSlot::new(&args[1]));
            let mut buf = String::new();
            for i in 0..rows {
                if !args[1].is_valid(i) {
                    out.push_null();
                    continue;
                }
                let o = if args[0].is_valid(i) {
                    value::parse(old.get(i))?
                } else {
                    Value::Null
                };
                buf.clear();
                value::write(&mut buf, &merge::diff(&o, &value::parse(new.get(i))?));
                out.push_str(&buf)?;
            }
        }
        J::MergePatch | J::DeepMerge => {
            let mut buf = String::new();
            'rows: for i in 0..rows {
                let mut acc = if args[0].is_valid(i) {
                    value::parse(args[0].strings().get(args[0].index(i)))?
                } else {
                    Value::Null
                };
                for a in &args[1..] {
                    if !a.is_valid(i) {
                        out.push_null();
                        continue 'rows;
                    }
                    let patch = value::parse(a.strings().get(a.index(i)))?;
                    if func == J::DeepMerge {
                        merge::deep_merge(&mut acc, patch);
                    } else {
                        merge_patch(&mut acc, patch);
                    }
                }
                buf.clear();
                value::write(&mut buf, &acc);
                out.push_str(&buf)?;
            }
        }
        J::Transform | J::TransformStrict => {
            let validity = strict_validity(&refs[..1], rows);
            let s = StrSlot::new(&args[0]);
            let mode = if func == J::TransformStrict {
                convert::Mode::Strict
            } else {
                convert::Mode::Lenient
            };
            for i in 0..rows {
                if !validity.is_valid(i) || !args[1].is_valid(i) {
                    out.push_null();
                    continue;
                }
                let v = value::parse(s.get(i))?;
                out.push(convert::transform(&v, &bf.return_type, mode)?)?;
            }
        }
    }
    Ok(out.finish(constant))
}

/// The paths of one row: parsed once for a constant argument.
enum Paths {
    One(Option<JsonPath>),
    Many(Vec<Option<JsonPath>>),
}

fn row_paths(arg: &Vector, i: usize) -> Result<Paths> {
    let ty = &arg.ty;
    let check = |p: JsonPath| -> Result<JsonPath> {
        if p.has_wildcard() && !arg.constant {
            return Err(Error::invalid_input(
                "JSON path cannot contain wildcards if the path is not a constant parameter",
            ));
        }
        Ok(p)
    };
    match ty {
        DataType::BigInt => {
            Ok(Paths::One(arg.is_valid(i).then(|| {
                JsonPath::index(arg.values::<i64>()[arg.index(i)])
            })))
        }
        DataType::List(_) => match arg.get(i) {
            ScalarValue::List(_, items) => Ok(Paths::Many(
                items
                    .iter()
                    .map(|p| match p {
                        ScalarValue::Varchar(s) => path::parse(s).map(Some),
                        _ => Ok(None),
                    })
                    .collect::<Result<_>>()?,
            )),
            _ => Ok(Paths::One(None)),
        },
        _ => {
            if !arg.is_valid(i) {
                return Ok(Paths::One(None));
            }
            let text = arg.strings().get(arg.index(i));
            Ok(Paths::One(Some(check(
                path::parse(text).map_err(|e| Error::invalid_input(e.message))?,
            )?)))
        }
    }
}

fn path_function(func: JsonFunction, args: &[Vector], rows: usize, out: &mut Out) -> Result<()> {
    let doc = StrSlot::new(&args[0]);
    let path_const = args.get(1).is_none_or(|a| a.constant);
    let cached: Option<Paths> = if args.len() == 1 {
        Some(Paths::One(Some(JsonPath { steps: vec![] })))
    } else if path_const {
        Some(row_paths(&args[1], 0)?)
    } else {
        None
    };
    let wildcard_result = matches!(&cached, Some(Paths::One(Some(p))) if p.has_wildcard());
    let mut buf = String::new();
    // a constant path of keys and indexes: found in the text without a tree
    if let (J::Extract | J::ExtractString, Some(Paths::One(Some(p)))) = (func, &cached) {
        if find::is_simple(&p.steps) {
            for i in 0..rows {
                if !args[0].is_valid(i) {
                    out.push_null();
                    continue;
                }
                let text = doc.get(i);
                let found = match find::find(text, &p.steps) {
                    Ok(f) => f,
                    // the parser's own message, naming the byte
                    Err(_) => {
                        return Err(value::parse(text).err().unwrap_or_else(|| {
                            Error::internal("a document the parser reads failed to be walked")
                        }))
                    }
                };
                push_found(func, found, &mut buf, out)?;
            }
            return Ok(());
        }
    }
    for i in 0..rows {
        if !args[0].is_valid(i) {
            out.push_null();
            continue;
        }
        let owned;
        let paths = match &cached {
            Some(p) => p,
            None => {
                owned = row_paths(&args[1], i)?;
                &owned
            }
        };
        let v = value::parse(doc.get(i))?;
        match paths {
            Paths::One(None) => out.push_null(),
            Paths::One(Some(p)) if wildcard_result => {
                let mut found = Vec::new();
                p.all(&v, &mut found);
                let items = found
                    .iter()
                    .map(|x| apply(func, Some(x), &mut buf))
                    .collect::<Vec<_>>();
                out.push(ScalarValue::List(single_type(func), items))?;
            }
            Paths::One(Some(p)) => {
                let r = apply(func, p.get(&v), &mut buf);
                out.push(r)?;
            }
            Paths::Many(ps) => {
                let items = ps
                    .iter()
                    .map(|p| match p {
                        Some(p) => apply(func, p.get(&v), &mut buf),
                        None => ScalarValue::Null,
                    })
                    .collect::<Vec<_>>();
                out.push(ScalarValue::List(single_type(func), items))?;
            }
        }
    }
    Ok(())
}

/// `json_extract` or `json_extract_string` of the text of the value a simple path
/// found (`None`: no match): plain strings and integers as they are written, other
/// values through the parser and writer, so they print as [`apply`] prints them.
fn push_found(
    func: JsonFunction,
    found: Option<&str>,
    buf: &mut String,
    out: &mut Out,
) -> Result<()> {
    let Some(t) = found else {
        out.push_null();
        return Ok(());
    };
    let plain_string = t.len() >= 2 && t.starts_with('"') && !t.contains('\\');
    let integer = !t.is_empty()
        && t.bytes()
            .enumerate()
            .all(|(k, c)| c.is_ascii_digit() || (k == 0 && c == b'-'))
        && !(t.len() > 1 && t.trim_start_matches('-').starts_with('0'));
    match func {
        J::ExtractString if plain_string => out.push_str(&t[1..t.len() - 1]),
        J::ExtractString if t == "null" => {
            out.push_null();
            Ok(())
        }
        _ if integer || (plain_string && func == J::Extract) => out.push_str(t),
        _ => out.push(apply(func, Some(&value::parse(t)?), buf)),
    }
}

/// One path function's result for the value a path found (`None`: no match).
fn apply(func: JsonFunction, v: Option<&Value>, buf: &mut String) -> ScalarValue {
    let text = |buf: &mut String, v: &Value| {
        buf.clear();
        value::write(buf, v);
        ScalarValue::Varchar(buf.clone())
    };
    match (func, v) {
        (J::Exists, v) => ScalarValue::Boolean(v.is_some()),
        (_, None) => ScalarValue::Null,
        (J::Extract, Some(v)) => text(buf, v),
        (J::ExtractString, Some(Value::Null)) => ScalarValue::Null,
        (J::ExtractString, Some(Value::String(s))) => ScalarValue::Varchar(s.clone()),
        (J::ExtractString, Some(v)) => text(buf, v),
        (J::Value, Some(Value::Null | Value::Array(_) | Value::Object(_))) => ScalarValue::Null,
        (J::Value, Some(v)) => text(buf, v),
        (J::Type, Some(v)) => ScalarValue::Varchar(value::type_name(v).to_string()),
        (J::ArrayLength, Some(Value::Array(a))) => ScalarValue::BigInt(a.len() as i64),
        (J::ArrayLength, Some(_)) => ScalarValue::BigInt(0),
        (J::Keys, Some(Value::Object(m))) => ScalarValue::List(
            DataType::Varchar,
            m.keys().map(|k| ScalarValue::Varchar(k.clone())).collect(),
        ),
        (J::Keys, Some(_)) => ScalarValue::List(DataType::Varchar, vec![]),
        (_, Some(_)) => ScalarValue::Null,
    }
}

/// `json_structure`: every value replaced by its type name; an array by the
/// structure its elements share (`"JSON"` where they disagree, NULLs ignored),
/// objects in an array merged key by key.
pub fn structure(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, x)| (k.clone(), structure(x))).collect())
        }
        Value::Array(items) => {
            let mut acc: Option<Value> = None;
            for x in items {
                if x.is_null() {
                    continue;
                }
                let s = structure(x);
                acc = Some(match acc {
                    None => s,
                    Some(a) => merge_structure(a, s),
                });
            }
            Value::Array(vec![acc.unwrap_or_else(|| Value::String("NULL".into()))])
        }
        other => Value::String(value::type_name(other).into()),
    }
}

/// A structure as json_structure shows it: an object without keys (seen only empty)
/// is "JSON", as in DuckDB; it merges as an object until then.
fn described(s: Value) -> Value {
    match s {
        Value::Object(m) if m.is_empty() => Value::String("JSON".into()),
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, x)| (k, described(x))).collect()),
        Value::Array(items) => Value::Array(items.into_iter().map(described).collect()),
        other => other,
    }
}

fn merge_structure(a: Value, b: Value) -> Value {
    match (a, b) {
        (a, b) if a == b => a,
        (Value::Object(mut x), Value::Object(y)) => {
            for (k, v) in y {
                let merged = match x.shift_remove(&k) {
                    Some(old) => merge_structure(old, v),
                    None => v,
                };
                x.insert(k, merged);
            }
            Value::Object(x)
        }
        (Value::Array(mut x), Value::Array(mut y)) if x.len() == 1 && y.len() == 1 => {
            let (a, b) = (x.pop().expect("one"), y.pop().expect("one"));
            Value::Array(vec![merge_structure(a, b)])
        }
        (Value::String(x), Value::String(y)) => Value::String(
            match (x.as_str(), y.as_str()) {
                ("NULL", o) | (o, "NULL") => o,
                // a negative and a non-negative integer: together only a HUGEINT
                // holds both kinds, whatever their sizes (DuckDB)
                ("UBIGINT" | "BIGINT" | "HUGEINT", "UBIGINT" | "BIGINT" | "HUGEINT") => "HUGEINT",
                ("UBIGINT" | "BIGINT" | "HUGEINT", "DOUBLE")
                | ("DOUBLE", "UBIGINT" | "BIGINT" | "HUGEINT") => "DOUBLE",
                _ => "JSON",
            }
            .into(),
        ),
        _ => Value::String("JSON".into()),
    }
}

/// `json_contains(haystack, needle)`: the needle equals the haystack or a value
/// anywhere inside it; an object needle matches an object holding its keys with
/// contained values, an array needle an array holding each of its elements.
pub fn contains(hay: &Value, needle: &Value) -> bool {
    if contained(hay, needle) {
        return true;
    }
    match hay {
        Value::Object(m) => m.values().any(|x| contains(x, needle)),
        Value::Array(a) => a.iter().any(|x| contains(x, needle)),
        _ => false,
    }
}

fn contained(hay: &Value, needle: &Value) -> bool {
    match (hay, needle) {
        (Value::Object(h), Value::Object(n)) => n
            .iter()
            .all(|(k, nv)| h.get(k).is_some_and(|hv| contains(hv, nv))),
        (Value::Array(h), Value::Array(n)) => {
            n.iter().all(|nv| h.iter().any(|hv| contains(hv, nv)))
        }
        (Value::Array(h), n) => h.iter().any(|hv| contained(hv, n)),
        (Value::Number(a), Value::Number(b)) => {
            a.as_str() == b.as_str() || a.as_f64().is_some() && a.as_f64() == b.as_f64()
        }
        (a, b) => a == b,
    }
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::*;

    #[test]
    fn extraction() {
        let d = s(r#"{"a":{"b":[1,"x",null]},"c":2.50}"#);
        assert_eq!(
            eval("json_extract", &[d.clone(), s("$.a.b[1]")]).unwrap(),
            s("\"x\"")
        );
        assert_eq!(
            eval("json_extract_string", &[d.clone(), s("$.a.b[1]")]).unwrap(),
            s("x")
        );
        assert_eq!(
            eval("json_extract_string", &[d.clone(), s("$.a.b[2]")]).unwrap(),
            Null
        );
        assert_eq!(
            eval("json_extract", &[d.clone(), s("$.a.b[2]")]).unwrap(),
            s("null")
        );
        assert_eq!(
            eval("json_extract", &[d.clone(), s("c")]).unwrap(),
            s("2.5")
        );
        assert_eq!(eval("json_extract", &[d.clone(), s("$.zz")]).unwrap(), Null);
        assert_eq!(
            eval("json_exists", &[d.clone(), s("$.zz")]).unwrap(),
            Boolean(false)
        );
        assert_eq!(
            eval("json_type", &[d.clone(), s("$.a")]).unwrap(),
            s("OBJECT")
        );
        assert_eq!(
            eval("json_array_length", &[d.clone(), s("$.a.b")]).unwrap(),
            BigInt(3)
        );
        assert_eq!(
            eval("json_extract", &[s("[1,2]"), BigInt(1)]).unwrap(),
            s("2")
        );
        assert!(eval("json_extract", &[s("{"), s("$.a")]).is_err());
        assert_eq!(eval("json_extract", &[Null, s("$.a")]).unwrap(), Null);
    }

    #[test]
    fn building_and_merging() {
        assert_eq!(
            eval("json_object", &[s("a"), Integer(1), s("b"), Null]).unwrap(),
            s(r#"{"a":1,"b":null}"#)
        );
        assert_eq!(
            eval(
                "json_merge_patch",
                &[
                    s(r#"{"a":1,"b":{"c":1}}"#),
                    s(r#"{"b":{"c":null,"d":2},"e":3}"#)
                ]
            )
            .unwrap(),
            s(r#"{"a":1,"b":{"d":2},"e":3}"#)
        );
        assert_eq!(
            eval("json_structure", &[s(r#"[{"a":1},{"a":"x","b":-1}]"#)]).unwrap(),
            s(r#"[{"a":"JSON","b":"BIGINT"}]"#)
        );
        assert_eq!(
            eval(
                "json_contains",
                &[s(r#"{"a":{"b":[1,2]}}"#), s(r#"{"b":[2]}"#)]
            )
            .unwrap(),
            Boolean(true)
        );
        assert_eq!(
            eval("json_contains", &[s("[1,2]"), s("3")]).unwrap(),
            Boolean(false)
        );
        assert_eq!(eval("json_valid", &[s("[1")]).unwrap(), Boolean(false));
    }
}
