//! File path parts, DuckDB's `parse_*` functions: `parse_dirname(path [, sep])` the
//! top-level directory, `parse_dirpath(path [, sep])` everything before the last
//! separator, `parse_filename(path [, trim_extension] [, sep])` the last component
//! (without its extension when `trim_extension`), and `parse_path(path [, sep])` the
//! components as a VARCHAR[] (a leading separator is the first, empty components
//! are dropped). `sep` is 'system' or 'forward_slash' (`/`), 'backslash' (`\`), or
//! anything else, NULL included, for both.

use crate::kernels::{map_rows_to_string_lists, map_rows_to_strings_with, Slot, StrSlot};
use crate::scalar::signature::{bind, castable};
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Result, Vector};

fn text(t: &DataType) -> bool {
    castable(t, &DataType::Varchar)
}

fn resolve_with_separator(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    let ret = if func == ScalarFunction::ParsePath {
        DataType::List(Box::new(DataType::Varchar))
    } else {
        DataType::Varchar
    };
    match args {
        [p] if text(p) => bind(func, vec![DataType::Varchar], ret),
        [p, s] if text(p) && text(s) => bind(func, vec![DataType::Varchar; 2], ret),
        _ => None,
    }
}

pub(crate) fn resolve_dirname(args: &[DataType]) -> Option<BoundFunction> {
    resolve_with_separator(ScalarFunction::ParseDirname, args)
}

pub(crate) fn resolve_dirpath(args: &[DataType]) -> Option<BoundFunction> {
    resolve_with_separator(ScalarFunction::ParseDirpath, args)
}

pub(crate) fn resolve_path(args: &[DataType]) -> Option<BoundFunction> {
    resolve_with_separator(ScalarFunction::ParsePath, args)
}

/// `parse_filename(path)`, `(path, sep)`, `(path, trim_extension)` or `(path,
/// trim_extension, sep)`.
pub(crate) fn resolve_filename(args: &[DataType]) -> Option<BoundFunction> {
    use DataType::{Boolean, Varchar};
    let f = ScalarFunction::ParseFilename;
    match args {
        [p, DataType::Boolean] if text(p) => bind(f, vec![Varchar, Boolean], Varchar),
        [p, b, s] if text(p) && castable(b, &Boolean) && text(s) => {
            bind(f, vec![Varchar, Boolean, Varchar], Varchar)
        }
        _ => resolve_with_separator(f, args),
    }
}

/// The separator characters an option names.
fn separators(option: Option<&str>) -> &'static [char] {
    match option {
        Some("system" | "forward_slash") => &['/'],
        Some("backslash") => &['\\'],
        _ => &['/', '\\'],
    }
}

fn dirname<'a>(p: &'a str, sep: &[char]) -> &'a str {
    match p.find(sep) {
        Some(0) => &p[..1],
        Some(i) => &p[..i],
        None => "",
    }
}

fn dirpath<'a>(p: &'a str, sep: &[char]) -> &'a str {
    match p.rfind(sep) {
        Some(0) if p.len() == 1 => p,
        Some(i) => &p[..i],
        None => "",
    }
}

fn filename<'a>(p: &'a str, sep: &[char], trim_extension: bool) -> &'a str {
    let name = p.rfind(sep).map_or(p, |i| &p[i + 1..]);
    match name.rfind('.') {
        Some(i) if trim_extension => &name[..i],
        _ => name,
    }
}

pub(super) fn evaluate(f: &BoundFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let p = StrSlot::new(&args[0]);
    let sep_arg = args
        .iter()
        .zip(&f.arg_types)
        .skip(1)
        .find(|(_, t)| **t == DataType::Varchar)
        .map(|(v, _)| v);
    let trim_arg = args
        .iter()
        .zip(&f.arg_types)
        .find(|(_, t)| **t == DataType::Boolean)
        .map(|(v, _)| v);
    let sep_of = |i: usize| -> &'static [char] {
        separators(
            sep_arg
                .filter(|v| v.is_valid(i))
                .map(|v| StrSlot::new(v).get(i)),
        )
    };
    if f.func == ScalarFunction::ParsePath {
        return map_rows_to_string_lists(&[&args[0]], &refs, len, |i, out| {
            let (text, sep) = (p.get(i), sep_of(i));
            if let Some(c) = text.chars().next().filter(|c| sep.contains(c)) {
                out.push(&text[..c.len_utf8()]);
            }
            for part in text.split(sep).filter(|s| !s.is_empty()) {
                out.push(part);
            }
            Ok(())
        });
    }
    let trim = trim_arg.map(|v| (v, Slot::<bool>::new(v)));
    map_rows_to_strings_with(&[&args[0]], &refs, len, |i, out| {
        let (text, sep) = (p.get(i), sep_of(i));
        out.push(match f.func {
            ScalarFunction::ParseDirname => dirname(text, sep),
            ScalarFunction::ParseDirpath => dirpath(text, sep),
            _ => {
                let t = trim.is_some_and(|(v, s)| v.is_valid(i) && s.get(i));
                filename(text, sep, t)
            }
        });
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::DataType;
    use stride_common::ScalarValue::{self, *};

    #[test]
    fn parts() {
        let f = |name: &str, a: &[ScalarValue]| eval(name, a).unwrap();
        assert_eq!(f("parse_dirname", &[s("/a/b/c.txt")]), s("/"));
        assert_eq!(f("parse_dirname", &[s("a/b/c.txt")]), s("a"));
        assert_eq!(f("parse_dirname", &[s("c.txt")]), s(""));
        assert_eq!(f("parse_dirname", &[s(r"C:\a\b"), s("backslash")]), s("C:"));
        assert_eq!(f("parse_dirpath", &[s("/a/b/c.txt")]), s("/a/b"));
        assert_eq!(f("parse_dirpath", &[s("/c.txt")]), s(""));
        assert_eq!(f("parse_dirpath", &[s("/")]), s("/"));
        assert_eq!(f("parse_filename", &[s("/a/b/c.txt")]), s("c.txt"));
        assert_eq!(
            f("parse_filename", &[s("/a/b/c.tar.gz"), Boolean(true)]),
            s("c.tar")
        );
        assert_eq!(
            f(
                "parse_filename",
                &[s(r"C:\a\c.txt"), Boolean(true), s("backslash")]
            ),
            s("c")
        );
        assert_eq!(
            f("parse_filename", &[s(r"/a\b"), s("forward_slash")]),
            s(r"a\b")
        );
        assert_eq!(f("parse_filename", &[s(".bashrc"), Boolean(true)]), s(""));
        assert_eq!(f("parse_filename", &[s("a.b"), Null]), s("a.b"));
        assert_eq!(f("parse_filename", &[Null]), Null);
        let list = |x: &[&str]| List(DataType::Varchar, x.iter().map(|v| s(v)).collect());
        assert_eq!(
            f("parse_path", &[s("/a/b/c.txt")]),
            list(&["/", "a", "b", "c.txt"])
        );
        assert_eq!(f("parse_path", &[s("a//b/")]), list(&["a", "b"]));
        assert_eq!(f("parse_path", &[s("")]), list(&[]));
    }
}
