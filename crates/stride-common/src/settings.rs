//! Session settings changed with `SET name = value`, shown with `SHOW name` and
//! restored with `RESET name`. Each setting has one canonical name, as in DuckDB.

use crate::error::{Error, Result};
use crate::scalar::ScalarValue;

#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Worker threads per query.
    pub threads: usize,
    /// Optimizer passes switched off, by pass name.
    pub disabled_optimizers: Vec<String>,
    /// Default ORDER BY direction's NULL placement: PostgreSQL puts NULLs last for ASC.
    pub default_null_order: NullOrder,
    /// Whether SQL may read and write files (read_csv, COPY). Once switched off it
    /// stays off for the database instance.
    pub enable_external_access: bool,
    /// When set, files may be read and written only inside these directories
    /// (canonical paths). The server sets it for network clients; SQL cannot.
    pub allowed_directories: Option<Vec<std::path::PathBuf>>,
    /// How long one statement may run before it is cancelled (`statement_timeout`,
    /// also DuckDB's `max_execution_time`); None: no limit.
    pub statement_timeout: Option<std::time::Duration>,
    /// How long a statement waits for the write lock another statement holds
    /// (`lock_timeout`, as PostgreSQL names it); `None`: as long as it takes.
    pub lock_timeout: Option<std::time::Duration>,
    /// How long a transaction may stay open with no statement running
    /// (`idle_in_transaction_session_timeout`): past it the transaction is rolled
    /// back (and `stride serve` ends the session, as PostgreSQL does).
    pub idle_in_transaction_session_timeout: Option<std::time::Duration>,
    /// Bytes the buffer pool may hold (`memory_limit`, also `max_memory`). One value
    /// for the whole database: the facade keeps every connection's copy in step.
    pub memory_limit: u64,
    /// Where operators that pass `memory_limit` write their spill files
    /// (`temp_directory`): `None` for the default, beside the database file
    /// (`<file>.tmp`) or the system's temporary directory in memory; an empty path
    /// turns spilling off, so such a query fails with an Out of Memory Error.
    pub temp_directory: Option<String>,
    /// Whether a commit waits for its WAL record to be synced to disk (`synchronous`:
    /// `full`, the default; `normal` and `off` skip that sync, as SQLite's WAL mode
    /// does: a crash may then lose the last commits, never the database's integrity).
    pub synchronous: bool,
    /// WAL size that makes a commit checkpoint the database file (`checkpoint_threshold`,
    /// also `wal_autocheckpoint`, as DuckDB names it). One value for the database,
    /// mirrored like `memory_limit`.
    pub checkpoint_threshold: u64,
    /// Whether every query is profiled as EXPLAIN ANALYZE would, and how its profile is
    /// written (`enable_profiling`, as DuckDB names it); `None`: off.
    pub enable_profiling: Option<ProfilingFormat>,
    /// The file each profiled query's profile replaces (`profiling_output`); `None`:
    /// the client shows it (the shell prints it after the result, `stride serve`
    /// sends it as a notice).
    pub profiling_output: Option<String>,
    /// The zone TIMESTAMP WITH TIME ZONE values are shown and split into fields in, and
    /// local times are read in (`TimeZone`, also `SET TIME ZONE`). The connection
    /// resolves the name ([`Settings::set_time_zone`]): this crate knows no zone rules.
    pub time_zone: crate::zone::SessionZone,
    /// Parameters PostgreSQL clients set and show (application_name, DateStyle, ...):
    /// kept and echoed, with no effect on stride.
    pub client_parameters: std::collections::BTreeMap<String, String>,
}

/// PostgreSQL client parameters accepted by SHOW, with their values as PostgreSQL 16
/// reports them (`stride serve` sends the same at startup). SET accepts only the
/// values stride really works by ([`Settings::set`]); [`READ_ONLY_PARAMETERS`] not
/// at all.
pub const CLIENT_PARAMETERS: &[(&str, &str)] = &[
    ("application_name", ""),
    ("client_encoding", "UTF8"),
    ("client_min_messages", "notice"),
    ("datestyle", "ISO, MDY"),
    ("extra_float_digits", "1"),
    ("intervalstyle", "postgres"),
    ("search_path", "main"),
    ("standard_conforming_strings", "on"),
    ("server_version", "16.0"),
    ("server_version_num", "160000"),
    ("server_encoding", "UTF8"),
    ("integer_datetimes", "on"),
    ("max_identifier_length", "63"),
    ("is_superuser", "on"),
    // The access method of every table (`pg_am`).
    ("default_table_access_method", "columnar"),
    // Transactions read one snapshot (see `stride::connection::transaction`).
    ("transaction_isolation", "repeatable read"),
    ("default_transaction_isolation", "repeatable read"),
];

/// Client parameters that describe the server: SHOW reads them, SET refuses them (as
/// PostgreSQL does).
pub const READ_ONLY_PARAMETERS: &[&str] = &[
    "server_version",
    "server_version_num",
    "server_encoding",
    "integer_datetimes",
    "max_identifier_length",
    "is_superuser",
    "default_table_access_method",
    "transaction_isolation",
    "default_transaction_isolation",
];

/// The value a client parameter is set to: the values stride works by, spelled as
/// SHOW gives them back; others are refused, since stride would not honour them.
fn client_parameter_value(name: &str, v: &str) -> Result<String> {
    let refuse = |what: &str| {
        Err(Error::not_supported(format!(
            "{name} '{v}' is not supported: {what}"
        )))
    };
    let words: Vec<String> = v
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .collect();
    match name {
        n if READ_ONLY_PARAMETERS.contains(&n) => Err(Error::invalid_input(format!(
            "parameter \"{n}\" cannot be changed"
        ))
        .with_sqlstate(crate::error::sqlstate::CANT_CHANGE_RUNTIME_PARAM)),
        "client_encoding" if !v.eq_ignore_ascii_case("utf8") && !v.eq_ignore_ascii_case("unicode") => {
            Err(Error::not_supported(format!(
                "client_encoding {v} is not supported; stride speaks UTF8"
            )))
        }
        "client_encoding" => Ok("UTF8".into()),
        // Dates are written as ISO (YYYY-MM-DD); the order only matters for reading
        // ambiguous dates like 01/02/2024, which stride reads as month first.
        "datestyle" if !words.is_empty() && words.iter().all(|w| w == "iso" || w == "mdy") => {
            Ok("ISO, MDY".into())
        }
        "datestyle" => refuse("stride writes dates in ISO style with MDY order; SET DateStyle = 'ISO, MDY'"),
        "intervalstyle" if v.eq_ignore_ascii_case("postgres") => Ok("postgres".into()),
        "intervalstyle" => refuse("stride writes intervals in PostgreSQL's default style; SET IntervalStyle = 'postgres'"),
        // Any positive value gives the shortest text that reads back exactly, which is
        // what stride writes (PostgreSQL 12 and later).
        "extra_float_digits" if matches!(v.trim().parse::<i32>(), Ok(1..=3)) => Ok(v.trim().into()),
        "extra_float_digits" => refuse("stride writes floats exactly (the shortest text that reads back as the same value), as PostgreSQL does for 1 to 3; SET extra_float_digits = 1"),
        "standard_conforming_strings" if matches!(words.as_slice(), [w] if w == "on" || w == "true") => {
            Ok("on".into())
        }
        // stride's only messages below an error are NOTICEs (a profile, `SET
        // enable_profiling`), which `stride serve` sends only at these levels
        // ([`Settings::client_notices`]).
        "client_min_messages"
            if CLIENT_MESSAGE_LEVELS.contains(&v.trim().to_ascii_lowercase().as_str()) =>
        {
            Ok(v.trim().to_ascii_lowercase())
        }
        "client_min_messages" => refuse("the levels are debug5 to debug1, log, notice, warning and error; SET client_min_messages = notice"),
        "standard_conforming_strings" => refuse("backslashes in string literals are plain characters in stride; SET standard_conforming_strings = on"),
        _ => Ok(v.to_string()),
    }
}

/// `client_min_messages`' levels, from the one that lets most messages through.
const CLIENT_MESSAGE_LEVELS: &[&str] = &[
    "debug5", "debug4", "debug3", "debug2", "debug1", "log", "notice", "warning", "error",
];

impl Settings {
    /// Whether `client_min_messages` lets NOTICE messages through to a PostgreSQL
    /// client (it does up to `notice`; not at `warning` or `error`).
    pub fn client_notices(&self) -> bool {
        let level = self
            .client_parameters
            .get("client_min_messages")
            .map_or("notice", String::as_str);
        let at = |l: &str| CLIENT_MESSAGE_LEVELS.iter().position(|x| *x == l);
        at(level) <= at("notice")
    }
}

/// How a profiled query's profile is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfilingFormat {
    /// EXPLAIN ANALYZE's text tree.
    QueryTree,
    /// EXPLAIN (ANALYZE, FORMAT json)'s document.
    Json,
    /// Profiled, written nowhere (to measure what profiling costs).
    NoOutput,
}

impl ProfilingFormat {
    pub fn name(self) -> &'static str {
        match self {
            ProfilingFormat::QueryTree => "query_tree",
            ProfilingFormat::Json => "json",
            ProfilingFormat::NoOutput => "no_output",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NullOrder {
    /// NULLs sort as if larger than every value (PostgreSQL): last for ASC, first for DESC.
    NullsLargest,
    NullsFirst,
    NullsLast,
}

pub const SETTING_NAMES: &[&str] = &[
    "threads",
    "disabled_optimizers",
    "default_null_order",
    "enable_external_access",
    "statement_timeout",
    "lock_timeout",
    "idle_in_transaction_session_timeout",
    "memory_limit",
    "temp_directory",
    "synchronous",
    "checkpoint_threshold",
    "enable_profiling",
    "profiling_output",
    "TimeZone",
    "Calendar",
];

impl Default for Settings {
    fn default() -> Self {
        Settings {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            disabled_optimizers: Vec::new(),
            default_null_order: NullOrder::NullsLargest,
            enable_external_access: true,
            allowed_directories: None,
            statement_timeout: None,
            lock_timeout: None,
            idle_in_transaction_session_timeout: None,
            memory_limit: default_memory_limit(),
            temp_directory: None,
            synchronous: true,
            checkpoint_threshold: 16 << 20,
            enable_profiling: None,
            profiling_output: None,
            time_zone: Default::default(),
            client_parameters: Default::default(),
        }
    }
}

impl Settings {
    /// Whether `name` is the `TimeZone` setting, whose values the connection resolves
    /// to a zone before [`Settings::set_time_zone`].
    pub fn is_time_zone(name: &str) -> bool {
        name.eq_ignore_ascii_case("timezone")
    }

    pub fn set_time_zone(&mut self, zone: crate::zone::SessionZone) {
        self.time_zone = zone;
    }

    pub fn set(&mut self, name: &str, value: &ScalarValue) -> Result<()> {
        match name.to_ascii_lowercase().as_str() {
            "threads" | "worker_threads" => {
                let n = value
                    .as_i64()
                    .or_else(|| if let ScalarValue::Varchar(s) = value { s.trim().parse().ok() } else { None })
                    .filter(|n| (1..=1024).contains(n))
                    .ok_or_else(|| Error::invalid_input(format!("threads must be an integer between 1 and 1024, got {value}")))?;
                self.threads = n as usize;
            }
            "disabled_optimizers" => {
                let s = value.to_string();
                self.disabled_optimizers =
                    s.split(',').map(|p| p.trim().to_ascii_lowercase()).filter(|p| !p.is_empty()).collect();
            }
            "default_null_order" => {
                self.default_null_order = match value.to_string().to_ascii_lowercase().as_str() {
                    "nulls_last" | "nulls last" => NullOrder::NullsLast,
                    "nulls_first" | "nulls first" => NullOrder::NullsFirst,
                    "nulls_largest" | "postgres" => NullOrder::NullsLargest,
                    other => {
                        return Err(Error::invalid_input(format!(
                            "unknown default_null_order '{other}': expected nulls_first, nulls_last or nulls_largest"
                        )))
                    }
                }
            }
            "enable_external_access" => {
                let on = match value {
                    ScalarValue::Boolean(b) => *b,
                    other => match other.to_string().to_ascii_lowercase().as_str() {
                        "true" | "1" | "on" => true,
                        "false" | "0" | "off" => false,
                        v => {
                            return Err(Error::invalid_input(format!(
                                "enable_external_access must be true or false, got '{v}'"
                            )))
                        }
                    },
                };
                if on && !self.enable_external_access {
                    return Err(external_access_locked());
                }
                self.enable_external_access = on;
            }
            "statement_timeout" | "max_execution_time" => {
                self.statement_timeout = parse_timeout(value)?;
            }
            "lock_timeout" => self.lock_timeout = parse_timeout(value)?,
            "idle_in_transaction_session_timeout" => {
                self.idle_in_transaction_session_timeout = parse_timeout(value)?
            }
            "memory_limit" | "max_memory" => self.memory_limit = parse_memory("memory_limit", value)?,
            "temp_directory" => {
                let dir = match value {
                    ScalarValue::Varchar(s) => s.clone(),
                    ScalarValue::Null => String::new(),
                    other => other.to_string(),
                };
                if !dir.is_empty() {
                    self.check_external_access("setting temp_directory")?;
                    self.check_path(&dir, true)?;
                }
                self.temp_directory = Some(dir);
            }
            "checkpoint_threshold" | "wal_autocheckpoint" => {
                self.checkpoint_threshold = parse_memory("checkpoint_threshold", value)?
            }
            "synchronous" => {
                self.synchronous = match value.to_string().trim().to_ascii_lowercase().as_str() {
                    "full" | "2" | "on" | "true" | "extra" | "3" => true,
                    "normal" | "1" | "off" | "0" | "false" => false,
                    other => {
                        return Err(Error::invalid_input(format!(
                            "invalid value for synchronous: '{other}'; expected full, normal or off"
                        )))
                    }
                }
            }
            "enable_profiling" => {
                self.enable_profiling = Some(
                    match value.to_string().trim().to_ascii_lowercase().as_str() {
                        "query_tree" | "" | "true" | "on" => ProfilingFormat::QueryTree,
                        "json" => ProfilingFormat::Json,
                        "no_output" => ProfilingFormat::NoOutput,
                        other => {
                            return Err(Error::invalid_input(format!(
                                "invalid value for enable_profiling: '{other}'; expected query_tree, json or no_output (RESET enable_profiling turns it off)"
                            )))
                        }
                    },
                );
            }
            "profiling_output" | "profile_output" => {
                let path = match value {
                    ScalarValue::Varchar(s) => s.clone(),
                    ScalarValue::Null => String::new(),
                    other => other.to_string(),
                };
                if !path.is_empty() {
                    self.check_external_access("setting profiling_output")?;
                    self.check_path(&path, true)?;
                }
                self.profiling_output = (!path.is_empty()).then_some(path);
            }
            // ICU's calendar: stride counts dates in the Gregorian calendar only
            "calendar" => {
                let v = match value {
                    ScalarValue::Varchar(s) => s.clone(),
                    other => other.to_string(),
                };
                if !v.eq_ignore_ascii_case("gregorian") {
                    return Err(Error::not_supported(format!(
                        "Calendar '{v}' is not supported: stride's dates follow the Gregorian calendar (SET Calendar = 'gregorian')"
                    )));
                }
            }
            "timezone" => {
                return Err(Error::internal(
                    "the TimeZone setting must be resolved to a zone by the connection; this is a bug",
                ))
            }
            other if client_parameter(other).is_some() => {
                let v = match value {
                    ScalarValue::Varchar(s) => s.clone(),
                    other => other.to_string(),
                };
                let v = client_parameter_value(other, &v)?;
                self.client_parameters.insert(other.to_string(), v);
            }
            other => return Err(unknown_setting(other)),
        }
        Ok(())
    }

    pub fn reset(&mut self, name: &str) -> Result<()> {
        let d = Settings::default();
        match name.to_ascii_lowercase().as_str() {
            "threads" | "worker_threads" => self.threads = d.threads,
            "disabled_optimizers" => self.disabled_optimizers = d.disabled_optimizers,
            "default_null_order" => self.default_null_order = d.default_null_order,
            "statement_timeout" | "max_execution_time" => self.statement_timeout = None,
            "lock_timeout" => self.lock_timeout = None,
            "idle_in_transaction_session_timeout" => {
                self.idle_in_transaction_session_timeout = None
            }
            "memory_limit" | "max_memory" => self.memory_limit = d.memory_limit,
            "temp_directory" => self.temp_directory = None,
            "synchronous" => self.synchronous = d.synchronous,
            "checkpoint_threshold" | "wal_autocheckpoint" => {
                self.checkpoint_threshold = d.checkpoint_threshold
            }
            "enable_profiling" => self.enable_profiling = None,
            "profiling_output" | "profile_output" => self.profiling_output = None,
            "timezone" => self.time_zone = d.time_zone,
            "calendar" => {}
            "enable_external_access" if !self.enable_external_access => {
                return Err(external_access_locked())
            }
            "enable_external_access" => {}
            "all" => {
                let (dirs, external) =
                    (self.allowed_directories.take(), self.enable_external_access);
                *self = d;
                self.allowed_directories = dirs;
                if !external {
                    self.enable_external_access = false;
                }
            }
            other if client_parameter(other).is_some() => {
                self.client_parameters.remove(other);
            }
            other => return Err(unknown_setting(other)),
        }
        Ok(())
    }

    pub fn get(&self, name: &str) -> Result<ScalarValue> {
        let name = name.to_ascii_lowercase();
        let name = name.as_str();
        Ok(match name {
            "threads" | "worker_threads" => ScalarValue::BigInt(self.threads as i64),
            "disabled_optimizers" => ScalarValue::Varchar(self.disabled_optimizers.join(",")),
            "default_null_order" => ScalarValue::Varchar(
                match self.default_null_order {
                    NullOrder::NullsLargest => "nulls_largest",
                    NullOrder::NullsFirst => "nulls_first",
                    NullOrder::NullsLast => "nulls_last",
                }
                .into(),
            ),
            "enable_external_access" => ScalarValue::Boolean(self.enable_external_access),
            "statement_timeout" | "max_execution_time" => {
                ScalarValue::Varchar(format_timeout(self.statement_timeout))
            }
            "lock_timeout" => ScalarValue::Varchar(format_timeout(self.lock_timeout)),
            "idle_in_transaction_session_timeout" => {
                ScalarValue::Varchar(format_timeout(self.idle_in_transaction_session_timeout))
            }
            "memory_limit" | "max_memory" => ScalarValue::Varchar(format_bytes(self.memory_limit)),
            "temp_directory" => ScalarValue::Varchar(self.spill_directory().unwrap_or_default()),
            "synchronous" => {
                ScalarValue::Varchar(if self.synchronous { "full" } else { "off" }.into())
            }
            "checkpoint_threshold" | "wal_autocheckpoint" => {
                ScalarValue::Varchar(format_bytes(self.checkpoint_threshold))
            }
            "enable_profiling" => match self.enable_profiling {
                Some(f) => ScalarValue::Varchar(f.name().into()),
                None => ScalarValue::Null,
            },
            "profiling_output" | "profile_output" => {
                ScalarValue::Varchar(self.profiling_output.clone().unwrap_or_default())
            }
            "timezone" => ScalarValue::Varchar(self.time_zone.name().to_string()),
            "calendar" => ScalarValue::Varchar("gregorian".into()),
            other => match client_parameter(other) {
                Some(default) => ScalarValue::Varchar(
                    self.client_parameters
                        .get(other)
                        .cloned()
                        .unwrap_or_else(|| default.to_string()),
                ),
                None => return Err(unknown_setting(other)),
            },
        })
    }

    /// Fails with a permission error when `path` lies outside the allowed directories
    /// (symbolic links and `..` resolved). `writing`: the file may not exist yet.
    pub fn check_path(&self, path: &str, writing: bool) -> Result<()> {
        let Some(dirs) = &self.allowed_directories else {
            return Ok(());
        };
        let p = std::path::Path::new(path);
        let resolved = if writing {
            let parent = match p.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => std::path::Path::new("."),
            };
            std::fs::canonicalize(parent)
                .ok()
                .zip(p.file_name())
                .map(|(d, f)| d.join(f))
        } else {
            std::fs::canonicalize(p).ok()
        };
        match resolved {
            Some(r) if dirs.iter().any(|d| r.starts_with(d)) => Ok(()),
            _ => Err(Error::new(
                crate::error::ErrorKind::Permission,
                format!(
                    "access to \"{path}\" is not allowed: files are limited to {}",
                    if dirs.is_empty() {
                        "none (the server allows no file access; see stride serve --allow-dir)"
                            .to_string()
                    } else {
                        dirs.iter()
                            .map(|d| d.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ),
            )),
        }
    }

    /// Fails with a permission error naming the setting when file access is off.
    pub fn check_external_access(&self, what: &str) -> Result<()> {
        if self.enable_external_access {
            Ok(())
        } else {
            Err(Error::new(
                crate::error::ErrorKind::Permission,
                format!("{what} is disabled because enable_external_access is false"),
            ))
        }
    }

    /// The directory spill files go to; `None` when spilling is off. The facade fills
    /// in the database file's default before a query runs.
    pub fn spill_directory(&self) -> Option<String> {
        match &self.temp_directory {
            Some(d) if d.is_empty() => None,
            Some(d) => Some(d.clone()),
            None => Some(std::env::temp_dir().display().to_string()),
        }
    }

    pub fn is_optimizer_enabled(&self, pass: &str) -> bool {
        !self.disabled_optimizers.iter().any(|p| p == pass)
    }
}

/// A statement timeout as PostgreSQL takes it: a number of milliseconds, or a number
/// with a unit (`'1.5s'`, `'250ms'`, `'2min'`, `'1h'`, `'1d'`, `'500us'`); 0 turns it off.
/// 80% of the machine's memory, as DuckDB defaults `memory_limit` (8 GiB where the
/// machine's memory cannot be read), or 60% of the process's own limit where the
/// system sets a lower one (`ulimit -v`, a container's cgroup), which also bounds what
/// memory_limit does not count (code, stacks, the allocator's overhead): operators
/// then spill or fail with an error before an allocation could fail.
pub fn default_memory_limit() -> u64 {
    let machine = physical_memory().map_or(8 << 30, |m| m / 10 * 8);
    let own = crate::memory::process_limit().map_or(u64::MAX, |p| p / 10 * 6);
    machine.min(own)
}

pub(crate) fn physical_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// A size as DuckDB writes and reads them: `'2GB'` (powers of 1000), `'2GiB'` (powers
/// of 1024), `'512 MB'`, `'1.5GB'`; a number alone is bytes.
fn parse_memory(name: &str, value: &ScalarValue) -> Result<u64> {
    let bad = || {
        Error::invalid_input(format!(
            "invalid value for {name}: {value}; expected a size such as '2GB', '512MiB' or '1.5GB'"
        ))
    };
    let text = match value {
        ScalarValue::Varchar(t) => t.trim().to_string(),
        other if other.as_i64().is_some() => other.to_string(),
        _ => return Err(bad()),
    };
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let number: f64 = text[..split].parse().map_err(|_| bad())?;
    let unit: f64 = match text[split..].trim().to_ascii_lowercase().as_str() {
        "" | "b" | "byte" | "bytes" => 1.0,
        "kb" | "k" => 1e3,
        "mb" | "m" => 1e6,
        "gb" | "g" => 1e9,
        "tb" | "t" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return Err(bad()),
    };
    let bytes = number * unit;
    if !bytes.is_finite() || bytes < 1.0 || bytes > u64::MAX as f64 {
        return Err(bad());
    }
    Ok(bytes as u64)
}

/// Bytes in the largest binary unit that keeps the number at least 1 (`'953.6 MiB'`).
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

fn parse_timeout(value: &ScalarValue) -> Result<Option<std::time::Duration>> {
    let bad = || {
        Error::invalid_input(format!(
            "invalid value for statement_timeout: {value}; expected milliseconds or a number with a unit (ms, s, min, h, d), 0 for no limit"
        ))
    };
    let ms = match value {
        ScalarValue::Varchar(text) => {
            let t = text.trim();
            let split = t
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(t.len());
            let number: f64 = t[..split].parse().map_err(|_| bad())?;
            let unit = match t[split..].trim().to_ascii_lowercase().as_str() {
                "" | "ms" => 1.0,
                "us" => 0.001,
                "s" => 1000.0,
                "min" => 60_000.0,
                "h" => 3_600_000.0,
                "d" => 86_400_000.0,
                _ => return Err(bad()),
            };
            number * unit
        }
        other => other.as_f64().ok_or_else(bad)?,
    };
    if !ms.is_finite() || !(0.0..=i32::MAX as f64).contains(&ms) {
        return Err(bad());
    }
    Ok((ms > 0.0).then(|| std::time::Duration::from_micros((ms * 1000.0) as u64)))
}

/// A statement timeout as SHOW prints it: `0` (none), `5s` or `250ms`.
pub fn format_timeout(t: Option<std::time::Duration>) -> String {
    match t.map(|d| d.as_millis()) {
        None => "0".into(),
        Some(ms) if ms % 1000 == 0 => format!("{}s", ms / 1000),
        Some(ms) => format!("{ms}ms"),
    }
}

/// The default of a PostgreSQL client parameter, if `name` is one.
fn client_parameter(name: &str) -> Option<&'static str> {
    CLIENT_PARAMETERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, d)| *d)
}

pub fn external_access_locked() -> Error {
    Error::new(
        crate::error::ErrorKind::Permission,
        "enable_external_access cannot be set back to true once it was switched off; open a new database instance",
    )
}

fn unknown_setting(name: &str) -> Error {
    Error::catalog(format!(
        "unrecognized configuration parameter \"{name}\"; known settings: {}",
        SETTING_NAMES.join(", ")
    ))
    .with_sqlstate(crate::error::sqlstate::UNDEFINED_OBJECT)
}
