//! Rule `implied_filters` (applied by `filter_pushdown` at each join): a comparison of
//! a column with constants implies the same comparison of every column it is joined
//! to by equality. `a.x = b.y AND a.x < 5` also gives `b.y < 5`, so both inputs are
//! filtered before the join instead of one. `SET disabled_optimizers =
//! 'implied_filters'` switches it off.
//!
//! Only comparisons with constants (`=`, `<>`, `<`, `<=`, `>`, `>=`, `IN (constants)`,
//! `IS NOT NULL`) of a single column travel, and only between columns of the same
//! type joined by a plain `=`: values equal under `=` then agree on every such
//! comparison (-0.0 and 0.0 compare alike, and so do NaNs).

use crate::plan::Expr;
use stride_functions::ScalarFunction;

/// The comparisons `terms` imply through the column equalities among `equalities` and
/// the equal column pairs `keys` (a join's keys; all over the same columns), which are
/// not among `terms` already.
pub fn implied(terms: &[Expr], equalities: &[Expr], keys: &[(&Expr, &Expr)]) -> Vec<Expr> {
    let mut pairs: Vec<(usize, usize)> = equalities.iter().filter_map(column_equality).collect();
    pairs.extend(keys.iter().filter_map(|(a, b)| same_type_columns(a, b)));
    if pairs.is_empty() {
        return Vec::new();
    }
    // Column names, for EXPLAIN to show the comparison's new column by its name.
    let mut names = std::collections::HashMap::new();
    let all = equalities
        .iter()
        .chain(keys.iter().flat_map(|(a, b)| [*a, *b]));
    for e in all {
        e.any(&mut |x| {
            if let Expr::Column { index, name, .. } = x {
                names.entry(*index).or_insert_with(|| name.clone());
            }
            false
        });
    }
    let mut out: Vec<Expr> = Vec::new();
    for t in terms {
        let Some(c) = constant_comparison(t) else {
            continue;
        };
        for d in column_class(c, &pairs).into_iter().skip(1) {
            let mut t2 = t.clone();
            rename(&mut t2, c, d, names.get(&d));
            if !terms.contains(&t2) && !out.contains(&t2) {
                out.push(t2);
            }
        }
    }
    out
}

/// The columns equal to `c` through the chain of `pairs`, `c` first.
pub fn column_class(c: usize, pairs: &[(usize, usize)]) -> Vec<usize> {
    let mut class = vec![c];
    let mut i = 0;
    while i < class.len() {
        let x = class[i];
        for &(a, b) in pairs {
            for (from, to) in [(a, b), (b, a)] {
                if from == x && !class.contains(&to) {
                    class.push(to);
                }
            }
        }
        i += 1;
    }
    class
}

/// `(a, b)` when `e` is `a = b` over two columns of one type.
fn column_equality(e: &Expr) -> Option<(usize, usize)> {
    match e {
        Expr::Function { func, args } if func.func == ScalarFunction::Eq && args.len() == 2 => {
            same_type_columns(&args[0], &args[1])
        }
        _ => None,
    }
}

fn same_type_columns(a: &Expr, b: &Expr) -> Option<(usize, usize)> {
    match (a, b) {
        (
            Expr::Column {
                index: a, ty: ta, ..
            },
            Expr::Column {
                index: b, ty: tb, ..
            },
        ) if ta == tb && a != b => Some((*a, *b)),
        _ => None,
    }
}

/// The column `e` compares with constants, if it is such a comparison.
fn constant_comparison(e: &Expr) -> Option<usize> {
    let column = |x: &Expr| match x {
        Expr::Column { index, .. } => Some(*index),
        _ => None,
    };
    let constant = |x: &Expr| matches!(x, Expr::Literal { .. });
    match e {
        Expr::Function { func, args } => {
            use ScalarFunction as F;
            if !matches!(
                func.func,
                F::Eq | F::NotEq | F::Lt | F::LtEq | F::Gt | F::GtEq
            ) {
                return None;
            }
            match args.as_slice() {
                [a, b] if constant(b) => column(a),
                [a, b] if constant(a) => column(b),
                _ => None,
            }
        }
        Expr::InList { expr, list, .. } if list.iter().all(constant) => column(expr),
        Expr::IsNull {
            expr,
            negated: true,
        } => column(expr),
        _ => None,
    }
}

/// `e` with column `from` read as column `to` (named `name`).
fn rename(e: &mut Expr, from: usize, to: usize, name: Option<&String>) {
    if let Expr::Column { index, name: n, .. } = e {
        if *index == from {
            *index = to;
            if let Some(name) = name {
                n.clone_from(name);
            }
        }
    }
    for c in e.children_mut() {
        rename(c, from, to, name);
    }
}
