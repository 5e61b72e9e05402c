//! Hive partitioning: a table split into folders named `column=value`
//! (`sales/year=2024/region=EU/data_0.parquet`). `COPY ... TO 'dir' (PARTITION_BY
//! (cols))` writes such folders; reading files beneath them adds the folders'
//! columns back, one value per file, as DuckDB does.
//!
//! Where it sits: binding. [`FileColumns`] are the columns a file reader adds that
//! hold one value per file (the path, with `filename = true`, and the partition
//! keys); the readers produce them as constants and report them as statistics, so
//! a filter on a partition key skips whole files. The writer side
//! ([`partition_path`]) names each partition's folder.
//!
//! Values in folder names are percent-encoded where they would break a path or the
//! `key=value` form (`/`, `=`, `%`, spaces, control characters); NULL is
//! `__HIVE_DEFAULT_PARTITION__`. Partition columns are typed from their values: BIGINT
//! when every value is an integer, DATE when every value is a date, TIMESTAMP for
//! timestamps, VARCHAR otherwise.

use stride_common::{DataChunk, DataType, Error, Result, ScalarValue, Vector};

/// The folder name of a NULL partition value (Hive's, which DuckDB writes too).
pub const NULL_PARTITION: &str = "__HIVE_DEFAULT_PARTITION__";

/// The `key=value` folders of `path`, outermost first, values decoded (`None`: NULL).
pub fn partition_values(path: &str) -> Vec<(String, Option<String>)> {
    let mut parts: Vec<&str> = path.split('/').collect();
    parts.pop(); // the file itself
    parts
        .into_iter()
        .filter_map(|p| {
            let (k, v) = p.split_once('=')?;
            if k.is_empty() {
                return None;
            }
            Some((decode(k), (v != NULL_PARTITION).then(|| decode(v))))
        })
        .collect()
}

/// `value` as a folder-name component (see the module doc).
pub fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '/' | '\\' | '=' | '%' | ' ' | '"' | '*' | '?' | ':' | '<' | '>' | '|' | '#' => {
                out.push_str(&format!("%{:02X}", c as u32))
            }
            c if c.is_control() => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// Undoes [`encode`] (and any percent-encoding of UTF-8); a `%` not followed by
/// two hex digits stays as it is.
pub fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = stride_common::blob::hex_digit;
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// The folder of one partition under `dir`: `dir/k1=v1/k2=v2`.
pub fn partition_path(dir: &str, keys: &[String], values: &[Option<String>]) -> String {
    let mut path = dir.trim_end_matches('/').to_string();
    for (k, v) in keys.iter().zip(values) {
        path.push('/');
        path.push_str(&encode(k));
        path.push('=');
        match v {
            Some(v) => path.push_str(&encode(v)),
            None => path.push_str(NULL_PARTITION),
        }
    }
    path
}

/// Columns holding one value per file, added after a file's own columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileColumns {
    pub names: Vec<String>,
    pub types: Vec<DataType>,
    /// Per file (in the reader's file order), a value per column.
    pub values: Vec<Vec<ScalarValue>>,
}

impl FileColumns {
    /// The hive partition columns of `paths` when `hive` is true, or when it is not
    /// given and every path has `key=value` folders (DuckDB detects them the same
    /// way); then the path itself as `filename` when asked. Partition columns are
    /// sorted by name, as DuckDB orders them.
    pub fn new(paths: &[String], filename: bool, hive: Option<bool>) -> Result<FileColumns> {
        let mut out = FileColumns {
            values: vec![Vec::new(); paths.len()],
            ..Default::default()
        };
        let found: Vec<Vec<(String, Option<String>)>> =
            paths.iter().map(|p| partition_values(p)).collect();
        let detected = !paths.is_empty() && found.iter().all(|f| !f.is_empty());
        if hive.unwrap_or(detected) {
            let mut keys: Vec<String> = found
                .first()
                .into_iter()
                .flatten()
                .map(|(k, _)| k.clone())
                .collect();
            keys.sort();
            keys.dedup();
            for (path, f) in paths.iter().zip(&found) {
                let mut mine: Vec<&String> = f.iter().map(|(k, _)| k).collect();
                mine.sort();
                mine.dedup();
                if mine.len() != keys.len() || mine.iter().zip(&keys).any(|(a, b)| *a != b) {
                    return Err(Error::invalid_input(format!(
                        "hive partitioning: \"{path}\" has other partition folders than \"{}\" ({}); \
                         read them separately or give hive_partitioning = false",
                        paths[0],
                        keys.join(", ")
                    )));
                }
            }
            for key in keys {
                // The innermost folder wins when a key appears twice.
                let texts: Vec<Option<&String>> = found
                    .iter()
                    .map(|f| {
                        f.iter()
                            .rev()
                            .find(|(k, _)| *k == key)
                            .and_then(|(_, v)| v.as_ref())
                    })
                    .collect();
                let ty = infer_type(texts.iter().flatten().map(|s| s.as_str()));
                for (i, t) in texts.iter().enumerate() {
                    let value = match t {
                        None => ScalarValue::Null,
                        Some(t) => stride_functions::cast::cast_scalar(
                            &ScalarValue::Varchar((*t).clone()),
                            &ty,
                            false,
                        )?,
                    };
                    out.values[i].push(value);
                }
                out.names.push(key);
                out.types.push(ty);
            }
        }
        if filename {
            out.names.push("filename".into());
            out.types.push(DataType::Varchar);
            for (v, p) in out.values.iter_mut().zip(paths) {
                v.push(ScalarValue::Varchar(p.clone()));
            }
        }
        Ok(out)
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// The type of partition values: BIGINT, DATE or TIMESTAMP when every value reads as
/// one, else VARCHAR (DuckDB's `hive_types_autocast`).
fn infer_type<'a>(values: impl Iterator<Item = &'a str> + Clone) -> DataType {
    for ty in [DataType::BigInt, DataType::Date, DataType::Timestamp] {
        let all = values.clone().all(|v| {
            let looks = match ty {
                DataType::BigInt => {
                    v.trim_start_matches('-')
                        .bytes()
                        .all(|b| b.is_ascii_digit())
                        && !v.is_empty()
                }
                _ => v.len() >= 8 && v.as_bytes()[0].is_ascii_digit() && v.contains('-'),
            };
            looks
                && stride_functions::cast::cast_scalar(
                    &ScalarValue::Varchar(v.to_string()),
                    &ty,
                    false,
                )
                .is_ok()
        });
        if all {
            return ty;
        }
    }
    DataType::Varchar
}

/// What COPY ... PARTITION_BY does when the target folder already holds files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Overwrite {
    /// Refuse (DuckDB's default).
    #[default]
    No,
    /// `OVERWRITE`: empty the folder first.
    All,
    /// `OVERWRITE_OR_IGNORE`: write into it, replacing files of the same name.
    OrIgnore,
}

/// A bound PARTITION_BY: the key columns (positions in the rows written).
#[derive(Clone, Debug, PartialEq)]
pub struct PartitionBy {
    pub keys: Vec<usize>,
    pub overwrite: Overwrite,
}

/// `COPY ... TO 'dir' (PARTITION_BY (cols))`: the rows of `chunks` split by the
/// values of columns `keys`, each partition written by `write` (to a path and with
/// the other columns) as `dir/k=v/.../data_0.<extension>`. Returns the rows written.
#[allow(clippy::too_many_arguments)]
pub fn write_partitioned(
    dir: &str,
    names: &[String],
    types: &[DataType],
    chunks: &[DataChunk],
    keys: &[usize],
    overwrite: Overwrite,
    extension: &str,
    write: &dyn Fn(&str, &[String], &[DataType], &[DataChunk]) -> Result<u64>,
) -> Result<u64> {
    let io = |what: &str, e: std::io::Error| Error::io(format!("COPY {what} \"{dir}\": {e}"));
    if dir.trim().is_empty() {
        return Err(Error::io("COPY with PARTITION_BY needs a folder name"));
    }
    let root = std::path::Path::new(dir);
    if root.is_file() {
        return Err(Error::io(format!(
            "COPY with PARTITION_BY writes a folder, and \"{dir}\" is a file"
        )));
    }
    let occupied = root.is_dir()
        && std::fs::read_dir(root)
            .map_err(|e| io("cannot read", e))?
            .next()
            .is_some();
    match (occupied, overwrite) {
        (true, Overwrite::No) => {
            return Err(Error::io(format!(
                "Directory \"{dir}\" is not empty: add OVERWRITE to replace its contents or OVERWRITE_OR_IGNORE to write into it"
            )))
        }
        // Never the root, the working folder or a folder above it.
        (true, Overwrite::All) => {
            let full = std::fs::canonicalize(root).map_err(|e| io("cannot read", e))?;
            let here = std::env::current_dir().ok().and_then(|d| std::fs::canonicalize(d).ok());
            if full.parent().is_none() || here.is_some_and(|h| h.starts_with(&full)) {
                return Err(Error::io(format!(
                    "COPY ... OVERWRITE would delete \"{dir}\", which holds the working folder or is the root; write to a folder of its own"
                )));
            }
        }
        _ => {}
    }
    // Each partition's rows, chunk by chunk, in the order partitions first appear.
    let kept: Vec<usize> = (0..names.len()).filter(|c| !keys.contains(c)).collect();
    let mut partitions: Vec<(Vec<Option<String>>, Vec<DataChunk>)> = Vec::new();
    let mut index: std::collections::HashMap<Vec<Option<String>>, usize> = Default::default();
    for chunk in chunks {
        let chunk = chunk.clone().flatten();
        let mut rows: Vec<Vec<u32>> = Vec::new();
        let mut order: Vec<usize> = Vec::new();
        let texts = keys
            .iter()
            .map(|&k| {
                let v = chunk.columns[k].clone().flatten(chunk.len());
                stride_functions::cast::cast_vector(&v, chunk.len(), &DataType::Varchar, false)
            })
            .collect::<Result<Vec<_>>>()?;
        for r in 0..chunk.len() {
            let key: Vec<Option<String>> = texts
                .iter()
                .map(|t| t.is_valid(r).then(|| t.strings().get(r).to_string()))
                .collect();
            let p = match index.get(&key) {
                Some(&p) => p,
                None => {
                    index.insert(key.clone(), partitions.len());
                    partitions.push((key, Vec::new()));
                    partitions.len() - 1
                }
            };
            if rows.len() <= p {
                rows.resize(p + 1, Vec::new());
            }
            if rows[p].is_empty() {
                order.push(p);
            }
            rows[p].push(r as u32);
        }
        for p in order {
            let columns: Vec<Vector> = kept
                .iter()
                .map(|&c| chunk.columns[c].take(&rows[p]).flatten(rows[p].len()))
                .collect();
            partitions[p].1.push(DataChunk::new(columns, rows[p].len()));
        }
    }
    // The old contents go only once the rows are split (a failed cast keeps them).
    if occupied && overwrite == Overwrite::All {
        std::fs::remove_dir_all(root).map_err(|e| io("cannot empty", e))?;
    }
    let key_names: Vec<String> = keys.iter().map(|&k| names[k].clone()).collect();
    let kept_names: Vec<String> = kept.iter().map(|&c| names[c].clone()).collect();
    let kept_types: Vec<DataType> = kept.iter().map(|&c| types[c].clone()).collect();
    let mut rows = 0;
    for (values, chunks) in &partitions {
        let folder = partition_path(dir, &key_names, values);
        std::fs::create_dir_all(&folder).map_err(|e| io("cannot create a folder in", e))?;
        let path = format!("{folder}/data_0.{extension}");
        rows += write(&path, &kept_names, &kept_types, chunks)?;
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_become_typed_columns() {
        let paths = vec![
            "d/k=2/day=2024-01-02/s=a%2Fb%3Dc%201/data_0.parquet".to_string(),
            "d/k=10/day=2024-01-01/s=__HIVE_DEFAULT_PARTITION__/data_0.parquet".to_string(),
        ];
        let f = FileColumns::new(&paths, true, None).unwrap();
        assert_eq!(f.names, ["day", "k", "s", "filename"]);
        assert_eq!(
            f.types,
            [
                DataType::Date,
                DataType::BigInt,
                DataType::Varchar,
                DataType::Varchar
            ]
        );
        assert_eq!(f.values[0][1], ScalarValue::BigInt(2));
        assert_eq!(f.values[0][2], ScalarValue::Varchar("a/b=c 1".into()));
        assert_eq!(f.values[1][2], ScalarValue::Null);
        assert!(FileColumns::new(&paths, false, Some(false))
            .unwrap()
            .is_empty());
        assert!(FileColumns::new(&["plain/x.parquet".into()], false, None)
            .unwrap()
            .is_empty());
        let mixed = vec![paths[0].clone(), "d/k=1/x.parquet".to_string()];
        assert!(FileColumns::new(&mixed, false, None).is_err());
    }

    #[test]
    fn values_round_trip_through_folder_names() {
        for v in ["plain", "a/b=c 1", "100%", "naïve", "tab\there", "x:y*z"] {
            let p = partition_path("out", &["k".into()], &[Some(v.into())]);
            assert_eq!(p.matches('/').count(), 1, "{p}");
            let found = partition_values(&format!("{p}/data_0.parquet"));
            assert_eq!(found, vec![("k".to_string(), Some(v.to_string()))]);
        }
        assert_eq!(
            partition_path("out/", &["k".into()], &[None]),
            "out/k=__HIVE_DEFAULT_PARTITION__"
        );
        assert_eq!(decode("50%"), "50%");
        assert_eq!(decode("%zz"), "%zz");
    }
}
