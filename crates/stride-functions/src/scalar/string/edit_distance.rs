//! Edit distances between two strings, counted in characters: `levenshtein`
//! (`editdist3`: insertions, deletions, substitutions), `damerau_levenshtein`
//! (also transpositions of adjacent characters, the unrestricted form) and
//! `hamming` (`mismatches`: positions that differ, for strings of equal length;
//! an error otherwise, with DuckDB's messages). All BIGINT.

use crate::kernels::{map_rows, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use std::collections::HashMap;
use stride_common::{DataType, Error, Result, Vector};

fn resolve(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        func,
        args,
        &[DataType::Varchar, DataType::Varchar],
        DataType::BigInt,
    )
}

pub(crate) fn resolve_levenshtein(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Levenshtein, args)
}

pub(crate) fn resolve_damerau_levenshtein(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::DamerauLevenshtein, args)
}

pub(crate) fn resolve_hamming(args: &[DataType]) -> Option<BoundFunction> {
    resolve(ScalarFunction::Hamming, args)
}

/// Scratch buffers reused across rows.
#[derive(Default)]
struct Scratch {
    a: Vec<char>,
    b: Vec<char>,
    rows: Vec<usize>,
}

fn chars_into(s: &str, out: &mut Vec<char>) {
    out.clear();
    out.extend(s.chars());
}

fn levenshtein(a: &[char], b: &[char], row: &mut Vec<usize>) -> usize {
    row.clear();
    row.extend(0..=b.len());
    for (i, ca) in a.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = diag + usize::from(ca != cb);
            diag = row[j + 1];
            row[j + 1] = sub.min(row[j + 1] + 1).min(row[j] + 1);
        }
    }
    row[b.len()]
}

/// The unrestricted Damerau-Levenshtein distance (Lowrance-Wagner).
fn damerau(a: &[char], b: &[char], d: &mut Vec<usize>) -> usize {
    let (n, m) = (a.len(), b.len());
    let w = m + 2;
    let inf = n + m;
    d.clear();
    d.resize((n + 2) * w, 0);
    d[0] = inf;
    for i in 0..=n {
        d[(i + 1) * w] = inf;
        d[(i + 1) * w + 1] = i;
    }
    for j in 0..=m {
        d[j + 1] = inf;
        d[w + j + 1] = j;
    }
    let mut last_row: HashMap<char, usize> = HashMap::new();
    for i in 1..=n {
        let mut last_col = 0;
        for j in 1..=m {
            let i1 = *last_row.get(&b[j - 1]).unwrap_or(&0);
            let j1 = last_col;
            let cost = if a[i - 1] == b[j - 1] {
                last_col = j;
                0
            } else {
                1
            };
            let v = (d[i * w + j] + cost)
                .min(d[(i + 1) * w + j] + 1)
                .min(d[i * w + j + 1] + 1)
                .min(d[i1 * w + j1] + (i - i1 - 1) + 1 + (j - j1 - 1));
            d[(i + 1) * w + j + 1] = v;
        }
        last_row.insert(a[i - 1], i);
    }
    d[(n + 1) * w + m + 1]
}

fn hamming(a: &str, b: &str) -> Result<usize> {
    if a.is_empty() && b.is_empty() {
        return Err(Error::invalid_input(
            "Mismatch Function: Strings must be of length > 0!",
        ));
    }
    let mut n = 0;
    let (mut x, mut y) = (a.chars(), b.chars());
    loop {
        match (x.next(), y.next()) {
            (Some(p), Some(q)) => n += usize::from(p != q),
            (None, None) => return Ok(n),
            _ => {
                return Err(Error::invalid_input(
                    "Mismatch Function: Strings must be of equal length!",
                ))
            }
        }
    }
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let (a, b) = (StrSlot::new(&args[0]), StrSlot::new(&args[1]));
    let mut sc = Scratch::default();
    map_rows(&[&args[0], &args[1]], len, DataType::BigInt, |i| {
        let (x, y) = (a.get(i), b.get(i));
        let d = match func {
            ScalarFunction::Hamming => hamming(x, y)?,
            _ => {
                chars_into(x, &mut sc.a);
                chars_into(y, &mut sc.b);
                if func == ScalarFunction::Levenshtein {
                    levenshtein(&sc.a, &sc.b, &mut sc.rows)
                } else {
                    damerau(&sc.a, &sc.b, &mut sc.rows)
                }
            }
        };
        Ok(d as i64)
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::{self, *};

    fn d(f: &str, a: &str, b: &str) -> ScalarValue {
        eval(f, &[s(a), s(b)]).unwrap()
    }

    #[test]
    fn distances() {
        assert_eq!(d("levenshtein", "kitten", "sitting"), BigInt(3));
        assert_eq!(d("levenshtein", "", "abc"), BigInt(3));
        assert_eq!(d("editdist3", "héllo", "hello"), BigInt(1));
        assert_eq!(d("damerau_levenshtein", "ca", "abc"), BigInt(2));
        assert_eq!(d("damerau_levenshtein", "abcd", "acbd"), BigInt(1));
        assert_eq!(d("damerau_levenshtein", "héllo", "hlélo"), BigInt(1));
        assert_eq!(d("damerau_levenshtein", "", ""), BigInt(0));
        assert_eq!(d("hamming", "abc", "abd"), BigInt(1));
        assert_eq!(d("mismatches", "héllo", "hello"), BigInt(1));
        assert_eq!(eval("hamming", &[Null, s("a")]).unwrap(), Null);
        let e = eval("hamming", &[s("abc"), s("ab")]).unwrap_err();
        assert_eq!(
            e.message,
            "Mismatch Function: Strings must be of equal length!"
        );
        assert!(eval("hamming", &[s(""), s("")]).is_err());
    }
}
