//! The function reference: a description and examples for each function, kept in one
//! text file per family beside this module (`text.txt`, `numeric.txt`, ...) and
//! compiled in. `duckdb_functions()` shows them in its `description` and `examples`
//! columns, and `docs/functions.md` is rendered from them by a test
//! (`crates/stride/tests/function_reference.rs`) that runs every example and prints
//! its result, so the reference cannot drift from what the functions do.
//!
//! A family file starts with `# Title` and a blank line; then records separated by a
//! blank line. A record's first line names the functions it documents, the main name
//! first and then its aliases, comma-separated; the description follows, unindented;
//! then its examples, one per line indented by four spaces: an expression (run as
//! `SELECT expression`) or a whole query.

use std::collections::HashMap;
use std::sync::OnceLock;

/// The family files, in the order the reference lists them: (file stem, text).
const FILES: &[(&str, &str)] = &[
    ("text", include_str!("text.txt")),
    ("pattern", include_str!("pattern.txt")),
    ("regex", include_str!("regex.txt")),
    ("numeric", include_str!("numeric.txt")),
    ("date", include_str!("date.txt")),
    ("list", include_str!("list.txt")),
    ("struct", include_str!("struct.txt")),
    ("map", include_str!("map.txt")),
    ("union", include_str!("union.txt")),
    ("array", include_str!("array.txt")),
    ("blob", include_str!("blob.txt")),
    ("bitstring", include_str!("bitstring.txt")),
    ("enum", include_str!("enum.txt")),
    ("json", include_str!("json.txt")),
    ("aggregate", include_str!("aggregate.txt")),
    ("window", include_str!("window.txt")),
    ("table", include_str!("table.txt")),
    ("pragma", include_str!("pragma.txt")),
    ("utility", include_str!("utility.txt")),
];

/// One record: the functions it documents and what it says about them.
#[derive(Debug)]
pub struct Doc {
    /// The main name, then its aliases.
    pub names: Vec<&'static str>,
    pub description: String,
    /// SQL: an expression, or a whole query (see [`Doc::example_query`]).
    pub examples: Vec<&'static str>,
}

impl Doc {
    /// The statement that runs `example`: the example itself when it is a whole query,
    /// otherwise `SELECT example`.
    pub fn example_query(example: &str) -> String {
        let first = example
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        match first.as_str() {
            "SELECT" | "FROM" | "WITH" | "VALUES" | "PRAGMA" => example.to_string(),
            _ => format!("SELECT {example}"),
        }
    }
}

/// A family of functions: its file's title and records.
#[derive(Debug)]
pub struct Family {
    pub file: &'static str,
    pub title: &'static str,
    pub docs: Vec<Doc>,
}

/// Every family, parsed once. A malformed file is left out here (the reference's
/// test parses each one strictly and names the line).
pub fn families() -> &'static [Family] {
    static PARSED: OnceLock<Vec<Family>> = OnceLock::new();
    PARSED.get_or_init(|| {
        FILES
            .iter()
            .filter_map(|(file, text)| parse(file, text).ok())
            .collect()
    })
}

/// The record documenting function `name` (a main name or an alias).
pub fn doc(name: &str) -> Option<&'static Doc> {
    static BY_NAME: OnceLock<HashMap<&'static str, &'static Doc>> = OnceLock::new();
    BY_NAME
        .get_or_init(|| {
            let mut m = HashMap::new();
            for f in families() {
                for d in &f.docs {
                    for &n in &d.names {
                        m.entry(n).or_insert(d);
                    }
                }
            }
            m
        })
        .get(name)
        .copied()
}

/// Parses every family file strictly: the first error names its file and line.
pub fn check() -> Result<Vec<Family>, String> {
    FILES.iter().map(|(file, text)| parse(file, text)).collect()
}

fn parse(file: &'static str, text: &'static str) -> Result<Family, String> {
    let at = |line: usize, what: &str| format!("reference/{file}.txt line {}: {what}", line + 1);
    let mut lines = text.lines().enumerate().peekable();
    let title = match lines.next() {
        Some((_, l)) if l.starts_with("# ") => l[2..].trim(),
        _ => return Err(at(0, "the file must start with `# Title`")),
    };
    let mut docs = Vec::new();
    loop {
        // Blank lines between records.
        while lines.next_if(|(_, l)| l.trim().is_empty()).is_some() {}
        let Some((n, names)) = lines.next() else {
            break;
        };
        if names.starts_with(' ') {
            return Err(at(n, "a record starts with its function names, unindented"));
        }
        let names: Vec<&'static str> = names.split(',').map(str::trim).collect();
        if names.iter().any(|n| n.is_empty()) {
            return Err(at(n, "an empty function name"));
        }
        let mut description = Vec::new();
        let mut examples = Vec::new();
        while let Some((k, line)) = lines.next_if(|(_, l)| !l.trim().is_empty()) {
            match line.strip_prefix("    ") {
                Some(example) if !example.starts_with(' ') => examples.push(example.trim_end()),
                Some(_) => return Err(at(k, "examples are indented by exactly four spaces")),
                None if !examples.is_empty() => {
                    return Err(at(k, "the description comes before the examples"))
                }
                None if line.starts_with(' ') => {
                    return Err(at(k, "description lines are not indented"))
                }
                None => description.push(line.trim()),
            }
        }
        if description.is_empty() {
            return Err(at(n, "a record needs a description"));
        }
        docs.push(Doc {
            names,
            description: description.join(" "),
            examples,
        });
    }
    Ok(Family { file, title, docs })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_parses() {
        let families = check().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(families.len(), FILES.len());
    }

    #[test]
    fn records_and_errors() {
        let f = parse(
            "t",
            "# T\n\nupper, ucase\nUpper case.\nTwo lines.\n    upper('a')\n    ucase('b')\n\nx\nNo example.\n",
        )
        .unwrap();
        assert_eq!(f.title, "T");
        assert_eq!(f.docs[0].names, ["upper", "ucase"]);
        assert_eq!(f.docs[0].description, "Upper case. Two lines.");
        assert_eq!(f.docs[0].examples, ["upper('a')", "ucase('b')"]);
        assert!(f.docs[1].examples.is_empty());
        let e = parse("t", "# T\n\nf\n    f(1)\n").unwrap_err();
        assert!(e.contains("line 3") && e.contains("description"), "{e}");
        let e = parse("t", "# T\n\nf\nText.\n    f(1)\nMore.\n").unwrap_err();
        assert!(e.contains("line 6"), "{e}");
        assert!(parse("t", "T\n").is_err());
        assert_eq!(Doc::example_query("upper('a')"), "SELECT upper('a')");
        assert_eq!(Doc::example_query("FROM range(2)"), "FROM range(2)");
    }
}
