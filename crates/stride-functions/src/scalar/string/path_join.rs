//! `path_join(part, ...)`: path components joined with `/`, normalized as DuckDB
//! does: repeated separators collapse, `.` segments go, `..` removes the segment
//! before it (or stays at the start of a relative path; at the root it goes), and
//! a trailing `/` on the last part is kept. A part that is itself absolute (`/x`,
//! `s3://bucket/x`) may only extend the path built so far (it must start with it)
//! and replaces it; any other is an error. NULL in any part gives NULL.

use crate::kernels::{map_rows_to_strings, StrSlot};
use crate::scalar::signature::castable;
use crate::scalar::{BoundFunction, ScalarFunction};
use stride_common::{DataType, Error, Result, Vector};

pub(crate) fn resolve(args: &[DataType]) -> Option<BoundFunction> {
    if args.is_empty() || !args.iter().all(|a| castable(a, &DataType::Varchar)) {
        return None;
    }
    Some(BoundFunction::new(
        ScalarFunction::PathJoin,
        vec![DataType::Varchar; args.len()],
        DataType::Varchar,
    ))
}

/// The root of an absolute path (`/`, `s3://bucket/`) and the rest.
fn split_root(p: &str) -> (&str, &str) {
    if let Some(i) = p.find("://") {
        if i > 0
            && p[..i]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '+')
        {
            let after = i + 3;
            let end = p[after..].find('/').map_or(p.len(), |j| after + j + 1);
            return (&p[..end], &p[end..]);
        }
    }
    if let Some(rest) = p.strip_prefix('/') {
        return ("/", rest);
    }
    ("", p)
}

/// A path being built: its root and its segments.
#[derive(Default)]
struct Path {
    root: String,
    segments: Vec<String>,
    trailing: bool,
}

impl Path {
    fn push(&mut self, rest: &str) {
        for seg in rest.split('/') {
            match seg {
                "" | "." => {}
                ".." => match self.segments.last().map(String::as_str) {
                    Some(s) if s != ".." => {
                        self.segments.pop();
                    }
                    _ if self.root.is_empty() => self.segments.push("..".into()),
                    _ => {}
                },
                s => self.segments.push(s.to_string()),
            }
        }
    }

    fn render(&self) -> String {
        let mut out = self.root.clone();
        out.push_str(&self.segments.join("/"));
        if out.is_empty() {
            return ".".into();
        }
        if self.trailing && !self.segments.is_empty() {
            out.push('/');
        }
        out
    }
}

fn join(parts: &[&str]) -> Result<String> {
    let mut path = Path::default();
    let mut written = String::new();
    for (k, part) in parts.iter().enumerate() {
        let (root, rest) = split_root(part);
        if k == 0 || (!root.is_empty() && path.root.is_empty() && path.segments.is_empty()) {
            path.root = root.to_string();
        } else if !root.is_empty() {
            // an absolute part must extend the path so far
            let mut candidate = Path {
                root: root.to_string(),
                ..Path::default()
            };
            candidate.push(rest);
            path.trailing = false;
            let ours = path.render();
            let theirs = candidate.render();
            let extends =
                theirs == ours || theirs.starts_with(&format!("{}/", ours.trim_end_matches('/')));
            if !extends {
                return Err(Error::invalid_input(format!(
                    "Path: cannot join incompatible paths: \"{part}\" onto \"{written}\""
                )));
            }
            path = Path::default();
            path.root = root.to_string();
        }
        path.push(rest);
        if !part.is_empty() {
            path.trailing = part.ends_with('/');
        }
        written = path.render();
    }
    Ok(path.render())
}

pub(super) fn evaluate(args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let slots: Vec<StrSlot> = args.iter().map(StrSlot::new).collect();
    let mut parts = Vec::with_capacity(args.len());
    map_rows_to_strings(&refs, len, |i, out| {
        parts.clear();
        parts.extend(slots.iter().map(|s| s.get(i)));
        out.push(&join(&parts)?);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::join;

    #[test]
    fn joins() {
        let j = |p: &[&str]| join(p).unwrap();
        assert_eq!(j(&["dir", "subdir", "file"]), "dir/subdir/file");
        assert_eq!(j(&["a/", "b"]), "a/b");
        assert_eq!(j(&["a", "../b", "./c"]), "b/c");
        assert_eq!(j(&["a"]), "a");
        assert_eq!(j(&["/x", "y//z/"]), "/x/y/z/");
        assert_eq!(j(&["/a", "/a/b"]), "/a/b");
        assert_eq!(j(&["", "b"]), "b");
        assert_eq!(j(&["a/b", "..", "..", ".."]), "..");
        assert_eq!(j(&["s3://bucket/x", "y"]), "s3://bucket/x/y");
        assert_eq!(j(&["a", ".."]), ".");
        assert_eq!(j(&["/a", "..", ".."]), "/");
        assert_eq!(j(&["a/", "b/"]), "a/b/");
        assert_eq!(j(&["a", "b", ""]), "a/b");
        assert_eq!(j(&["a", "."]), "a");
        assert_eq!(j(&["s3://b/x", "s3://b/x/y"]), "s3://b/x/y");
        assert_eq!(j(&["/a/", "/a"]), "/a");
        let e = |p: &[&str]| join(p).unwrap_err().message;
        assert_eq!(
            e(&["a", "/b"]),
            "Path: cannot join incompatible paths: \"/b\" onto \"a\""
        );
        assert_eq!(
            e(&["/a", "/ab"]),
            "Path: cannot join incompatible paths: \"/ab\" onto \"/a\""
        );
        assert_eq!(
            e(&["s3://bucket/x", "/y"]),
            "Path: cannot join incompatible paths: \"/y\" onto \"s3://bucket/x\""
        );
    }
}
