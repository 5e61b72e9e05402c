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
];

impl Default for Settings {
    fn default() -> Self {
        Settings {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            disabled_optimizers: Vec::new(),
            default_null_order: NullOrder::NullsLargest,
            enable_external_access: true,
        }
    }
}

impl Settings {
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
            "enable_external_access" if !self.enable_external_access => {
                return Err(external_access_locked())
            }
            "enable_external_access" => {}
            "all" => *self = d,
            other => return Err(unknown_setting(other)),
        }
        Ok(())
    }

    pub fn get(&self, name: &str) -> Result<ScalarValue> {
        Ok(match name.to_ascii_lowercase().as_str() {
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
            other => return Err(unknown_setting(other)),
        })
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

    pub fn is_optimizer_enabled(&self, pass: &str) -> bool {
        !self.disabled_optimizers.iter().any(|p| p == pass)
    }
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
}
