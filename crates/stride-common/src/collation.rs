//! Collations: how strings compare. The default compares UTF-8 bytes (PostgreSQL's
//! "C"); `NOCASE` ignores case and `NOACCENT` ignores accents, alone or together
//! (`NOCASE.NOACCENT`), as DuckDB names them.
//!
//! A column can be declared with one (`s VARCHAR COLLATE NOCASE`, kept in its
//! [`ColumnSchema`](crate::ColumnSchema)), and an expression can ask for one
//! (`s COLLATE NOCASE`). The binder carries collations through a query and compares
//! collated strings by a key (the string lower-cased, its accents stripped); values
//! themselves never change.

use crate::error::{Error, Result};
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Collation {
    /// Compare case-insensitively.
    pub nocase: bool,
    /// Compare ignoring accents (the combining marks of the canonical decomposition).
    pub noaccent: bool,
}

impl Collation {
    /// Byte order: the default.
    pub const BINARY: Collation = Collation {
        nocase: false,
        noaccent: false,
    };

    pub fn is_binary(self) -> bool {
        self == Collation::BINARY
    }

    /// Parses a collation name: `NOCASE`, `NOACCENT`, both joined by dots, or a name of
    /// byte order (`C`, `POSIX`, `BINARY`, `default`, `ucs_basic`). Case does not matter.
    pub fn parse(name: &str) -> Result<Collation> {
        let mut c = Collation::BINARY;
        for part in name.split('.') {
            match part.trim().to_ascii_lowercase().as_str() {
                "nocase" => c.nocase = true,
                "noaccent" => c.noaccent = true,
                "c" | "posix" | "binary" | "default" | "ucs_basic" => {}
                _ => {
                    return Err(Error::catalog(format!(
                        "Collation with name {name} does not exist: stride knows NOCASE, NOACCENT (combined as NOCASE.NOACCENT) and C (byte order, the default)"
                    )))
                }
            }
        }
        Ok(c)
    }
}

impl fmt::Display for Collation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.nocase, self.noaccent) {
            (false, false) => write!(f, "C"),
            (true, false) => write!(f, "NOCASE"),
            (false, true) => write!(f, "NOACCENT"),
            (true, true) => write!(f, "NOCASE.NOACCENT"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_print_back() {
        for name in ["NOCASE", "NOACCENT", "NOCASE.NOACCENT", "C"] {
            assert_eq!(Collation::parse(name).unwrap().to_string(), name);
        }
        assert_eq!(
            Collation::parse("noaccent.NoCase").unwrap().to_string(),
            "NOCASE.NOACCENT"
        );
        assert!(Collation::parse("posix").unwrap().is_binary());
        let e = Collation::parse("german").unwrap_err().to_string();
        assert!(e.contains("german") && e.contains("NOCASE"), "{e}");
    }
}
