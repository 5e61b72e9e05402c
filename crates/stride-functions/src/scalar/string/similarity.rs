//! String similarities in [0, 1], over characters, as DOUBLE: `jaccard` (shared
//! distinct characters over all distinct characters; an error when a string is
//! empty), `jaro_similarity` and `jaro_winkler_similarity` (the Jaro score raised
//! for a common prefix of up to four characters, by 0.1 each, when it is above 0.7).
//! The Jaro functions take an optional `score_cutoff`: a score below it is 0. Two
//! empty strings score 0, as in DuckDB.

use crate::kernels::{map_rows, Slot, StrSlot};
use crate::scalar::signature::fixed;
use crate::scalar::{BoundFunction, ScalarFunction};
use std::collections::HashSet;
use stride_common::{DataType, Error, Result, Vector};

pub(crate) fn resolve_jaccard(args: &[DataType]) -> Option<BoundFunction> {
    fixed(
        ScalarFunction::Jaccard,
        args,
        &[DataType::Varchar, DataType::Varchar],
        DataType::Double,
    )
}

fn resolve_jaro_family(func: ScalarFunction, args: &[DataType]) -> Option<BoundFunction> {
    use DataType::{Double, Varchar};
    match args.len() {
        2 => fixed(func, args, &[Varchar, Varchar], Double),
        3 => fixed(func, args, &[Varchar, Varchar, Double], Double),
        _ => None,
    }
}

pub(crate) fn resolve_jaro(args: &[DataType]) -> Option<BoundFunction> {
    resolve_jaro_family(ScalarFunction::JaroSimilarity, args)
}

pub(crate) fn resolve_jaro_winkler(args: &[DataType]) -> Option<BoundFunction> {
    resolve_jaro_family(ScalarFunction::JaroWinklerSimilarity, args)
}

fn jaccard(a: &str, b: &str) -> Result<f64> {
    if a.is_empty() || b.is_empty() {
        return Err(Error::invalid_input(
            "Jaccard Function: An argument too short!",
        ));
    }
    let x: HashSet<char> = a.chars().collect();
    let y: HashSet<char> = b.chars().collect();
    let common = x.intersection(&y).count();
    Ok(common as f64 / (x.len() + y.len() - common) as f64)
}

/// Scratch buffers reused across rows.
#[derive(Default)]
struct Jaro {
    a: Vec<char>,
    b: Vec<char>,
    matched_b: Vec<bool>,
    matches_a: Vec<char>,
}

impl Jaro {
    fn jaro(&mut self, s: &str, t: &str) -> f64 {
        self.a.clear();
        self.a.extend(s.chars());
        self.b.clear();
        self.b.extend(t.chars());
        let (a, b) = (&self.a, &self.b);
        if a.is_empty() || b.is_empty() {
            return 0.0;
        }
        let window = (a.len().max(b.len()) / 2).saturating_sub(1);
        self.matched_b.clear();
        self.matched_b.resize(b.len(), false);
        self.matches_a.clear();
        for (i, c) in a.iter().enumerate() {
            let lo = i.saturating_sub(window);
            let hi = (i + window + 1).min(b.len());
            if lo >= hi {
                break;
            }
            let window = b[lo..hi].iter().zip(&mut self.matched_b[lo..hi]);
            if let Some((_, m)) = window.into_iter().find(|(x, m)| !**m && *x == c) {
                *m = true;
                self.matches_a.push(*c);
            }
        }
        let m = self.matches_a.len();
        if m == 0 {
            return 0.0;
        }
        let in_b = b
            .iter()
            .zip(&self.matched_b)
            .filter(|(_, &k)| k)
            .map(|(c, _)| *c);
        let half_t = self
            .matches_a
            .iter()
            .zip(in_b)
            .filter(|(x, y)| **x != *y)
            .count()
            / 2;
        let m = m as f64;
        (m / a.len() as f64 + m / b.len() as f64 + (m - half_t as f64) / m) / 3.0
    }

    fn jaro_winkler(&mut self, s: &str, t: &str) -> f64 {
        let j = self.jaro(s, t);
        if j <= 0.7 {
            return j;
        }
        let prefix = s
            .chars()
            .zip(t.chars())
            .take(4)
            .take_while(|(x, y)| x == y)
            .count();
        j + prefix as f64 * 0.1 * (1.0 - j)
    }
}

pub(super) fn evaluate(func: ScalarFunction, args: &[Vector], len: usize) -> Result<Vector> {
    let refs: Vec<&Vector> = args.iter().collect();
    let (a, b) = (StrSlot::new(&args[0]), StrSlot::new(&args[1]));
    if func == ScalarFunction::Jaccard {
        return map_rows(&refs, len, DataType::Double, |i| {
            jaccard(a.get(i), b.get(i))
        });
    }
    let cutoff = args.get(2).map(Slot::<f64>::new);
    let mut j = Jaro::default();
    map_rows(&refs, len, DataType::Double, |i| {
        let score = if func == ScalarFunction::JaroSimilarity {
            j.jaro(a.get(i), b.get(i))
        } else {
            j.jaro_winkler(a.get(i), b.get(i))
        };
        Ok(match cutoff {
            Some(c) if score < c.get(i) => 0.0,
            _ => score,
        })
    })
}

#[cfg(test)]
mod tests {
    use crate::scalar::test_util::eval;
    use crate::scalar::test_util::text as s;
    use stride_common::ScalarValue::*;

    fn f(name: &str, a: &str, b: &str) -> f64 {
        match eval(name, &[s(a), s(b)]).unwrap() {
            Double(x) => x,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn similarities() {
        assert_eq!(f("jaccard", "abc", "bcd"), 0.5);
        assert_eq!(f("jaccard", "héllo", "hello"), 0.6);
        assert!(eval("jaccard", &[s(""), s("a")]).is_err());
        assert!((f("jaro_similarity", "martha", "marhta") - 0.9444444444444445).abs() < 1e-12);
        assert!((f("jaro_similarity", "héllo", "hello") - 0.8666666666666667).abs() < 1e-12);
        assert_eq!(f("jaro_similarity", "", ""), 0.0);
        assert!((f("jaro_similarity", "kitten", "sit") - 2.0 / 3.0).abs() < 1e-12);
        assert!((f("jaro_similarity", "sit", "kitten") - 2.0 / 3.0).abs() < 1e-12);
        assert!(
            (f("jaro_winkler_similarity", "martha", "marhta") - 0.9611111111111111).abs() < 1e-12
        );
        assert!((f("jaro_winkler_similarity", "dwayne", "duane") - 0.84).abs() < 1e-12);
        assert_eq!(
            eval(
                "jaro_winkler_similarity",
                &[s("dwayne"), s("duane"), Double(0.9)]
            )
            .unwrap(),
            Double(0.0)
        );
        assert_eq!(eval("jaro_similarity", &[Null, s("a")]).unwrap(), Null);
    }
}
