//! The self-checking query fuzzer, in the manner of SQLancer. Each case generates a
//! random schema (two or three tables of INTEGER, BIGINT, DOUBLE, DECIMAL, VARCHAR and
//! VARCHAR COLLATE NOCASE columns; strings may also be compared with COLLATE NOCASE), rows with NULLs, duplicates and awkward values (-0.0, NaN, strings of 0,
//! 7, 8, 12, 13 and 40 bytes), and a random predicate over a FROM clause of one table
//! or two joined ones (inner, LEFT, RIGHT, FULL, cross), with correlated EXISTS, IN
//! and scalar aggregate subqueries, and checks the answers against oracles that need no second engine:
//!
//! - ternary logic partitioning (TLP): the rows of `Q` are, as a multiset, those of
//!   `Q WHERE p`, `Q WHERE NOT p` and `Q WHERE (p) IS NULL` together; the same with
//!   DISTINCT (as a set) and for `max` over the three parts;
//! - NoREC: `count(*) ... WHERE p` equals the sum of `CASE WHEN p THEN 1 ELSE 0 END`,
//!   which no optimizer pass rewrites;
//! - plan equivalence: `Q WHERE p` gives the same rows with each optimizer pass
//!   switched off (`SET disabled_optimizers`);
//! - composition: `Q WHERE p UNION ALL Q WHERE p2`, one statement, gives the rows of
//!   its two branches run alone (each branch's expressions keep what they build to
//!   themselves);
//!
//! and, when the `duckdb` Python package is there (installed with pip when missing),
//! DuckDB as a second oracle: the same data and `Q WHERE p` in both engines (its rows,
//! DISTINCT, grouped counts and max, and window counts, ranks and running max), compared
//! as multisets with numbers to 9 significant digits. Dialect differences are avoided
//! by the generator (no `/`, no ORDER BY); a query either engine refuses is skipped,
//! but an Internal Error from stride is always a failure.
//!
//! A failing case is reduced before it is reported: rows are deleted and the
//! predicate replaced by its parts while the failure remains.
//!
//! `cargo test -p stride --test integration fuzz::` runs a fixed set of seeds (about a minute).
//! A long run by hand: `STRIDE_FUZZ_SECONDS=900 STRIDE_FUZZ_SEED=1000 cargo test
//! --release -p stride --test integration fuzz:: -- --nocapture` (it prints queries checked per
//! second). `STRIDE_FUZZ_DUCKDB=0` leaves DuckDB out.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};
use stride::{Connection, Database, ErrorKind, ScalarValue};

/// Seeds of the bounded run in the test suite.
const BOUNDED_CASES: u64 = 150;
/// Predicates checked per generated schema and data.
const QUERIES_PER_CASE: usize = 6;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Ty {
    Int,
    BigInt,
    Double,
    Decimal,
    Varchar,
    /// VARCHAR COLLATE NOCASE: compared case-insensitively everywhere.
    Nocase,
}

impl Ty {
    fn sql(self) -> &'static str {
        match self {
            Ty::Int => "INTEGER",
            Ty::BigInt => "BIGINT",
            Ty::Double => "DOUBLE",
            Ty::Decimal => "DECIMAL(10,2)",
            Ty::Varchar => "VARCHAR",
            Ty::Nocase => "VARCHAR COLLATE NOCASE",
        }
    }
    /// The type to cast an inserted value to.
    fn cast(self) -> &'static str {
        match self {
            Ty::Nocase => "VARCHAR",
            t => t.sql(),
        }
    }
    fn numeric(self) -> bool {
        !matches!(self, Ty::Varchar | Ty::Nocase)
    }
}

const STRINGS: &[&str] = &[
    "",
    "a",
    "A",
    "xy",
    "Xy",
    "abcdefg",
    "abcdefgh",
    "abcdefghijkl",
    "abcdefghijklm",
    "a long string value, stored out of line",
];

fn literal(rng: &mut Rng, ty: Ty) -> String {
    match ty {
        Ty::Int | Ty::BigInt => rng
            .pick(&["0", "1", "2", "3", "-1", "5", "100"])
            .to_string(),
        Ty::Double => rng
            .pick(&[
                "0.0",
                "1.5",
                "-2.25",
                "3.0",
                "CAST('-0.0' AS DOUBLE)",
                "CAST('nan' AS DOUBLE)",
            ])
            .to_string(),
        Ty::Decimal => rng
            .pick(&["0.00", "1.50", "-2.25", "3.00", "99.99"])
            .to_string(),
        Ty::Varchar | Ty::Nocase => format!("'{}'", rng.pick(STRINGS)),
    }
}

struct Table {
    name: String,
    columns: Vec<Ty>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn create(&self) -> String {
        let cols: Vec<String> = self
            .columns
            .iter()
            .enumerate()
            .map(|(i, t)| format!("c{i} {}", t.sql()))
            .collect();
        format!("CREATE TABLE {}({})", self.name, cols.join(", "))
    }
    fn insert(&self) -> Option<String> {
        if self.rows.is_empty() {
            return None;
        }
        let rows: Vec<String> = self
            .rows
            .iter()
            .map(|r| {
                let vals: Vec<String> = r
                    .iter()
                    .zip(&self.columns)
                    .map(|(v, t)| format!("CAST({v} AS {})", t.cast()))
                    .collect();
                format!("({})", vals.join(", "))
            })
            .collect();
        Some(format!(
            "INSERT INTO {} VALUES {}",
            self.name,
            rows.join(", ")
        ))
    }
}

fn gen_tables(rng: &mut Rng) -> Vec<Table> {
    let types = [
        Ty::Int,
        Ty::BigInt,
        Ty::Double,
        Ty::Decimal,
        Ty::Varchar,
        Ty::Nocase,
    ];
    (0..2 + rng.below(2))
        .map(|t| {
            // Every table has an INTEGER key first, so joins find partners.
            let mut columns = vec![Ty::Int];
            columns.extend((0..1 + rng.below(3)).map(|_| *rng.pick(&types)));
            let rows = (0..rng.below(9))
                .map(|_| {
                    columns
                        .iter()
                        .map(|&ty| {
                            if rng.chance(20) {
                                "NULL".to_string()
                            } else {
                                literal(rng, ty)
                            }
                        })
                        .collect()
                })
                .collect();
            Table {
                name: format!("t{t}"),
                columns,
                rows,
            }
        })
        .collect()
}

/// A column visible to a predicate: `alias.cN` and its type.
#[derive(Clone)]
struct Col {
    name: String,
    ty: Ty,
}

/// A predicate as a tree, so that a failing one can be reduced to its parts.
#[derive(Clone)]
enum Pred {
    Leaf(String),
    Not(Box<Pred>),
    And(Box<Pred>, Box<Pred>),
    Or(Box<Pred>, Box<Pred>),
}

impl Pred {
    fn sql(&self) -> String {
        match self {
            Pred::Leaf(s) => s.clone(),
            Pred::Not(p) => format!("(NOT {})", p.sql()),
            Pred::And(a, b) => format!("({} AND {})", a.sql(), b.sql()),
            Pred::Or(a, b) => format!("({} OR {})", a.sql(), b.sql()),
        }
    }
    /// Smaller predicates to try in its place.
    fn parts(&self) -> Vec<Pred> {
        match self {
            Pred::Leaf(_) => vec![],
            Pred::Not(p) => vec![(**p).clone()],
            Pred::And(a, b) | Pred::Or(a, b) => vec![(**a).clone(), (**b).clone()],
        }
    }
}

fn value_expr(rng: &mut Rng, cols: &[Col], ty_of: &mut Ty) -> String {
    let c = rng.pick(cols).clone();
    *ty_of = c.ty;
    match rng.below(6) {
        0 if c.ty.numeric() => format!("({} + {})", c.name, literal(rng, c.ty)),
        1 if c.ty.numeric() => format!("abs({})", c.name),
        2 if !c.ty.numeric() => format!("lower({})", c.name),
        3 if !c.ty.numeric() => format!("length({})", c.name).tap(|| *ty_of = Ty::BigInt),
        5 if c.ty == Ty::Varchar && rng.chance(50) => {
            format!("({} COLLATE NOCASE)", c.name).tap(|| *ty_of = Ty::Nocase)
        }
        4 => format!(
            "CASE WHEN {} IS NULL THEN {} ELSE {} END",
            c.name,
            literal(rng, c.ty),
            c.name
        ),
        _ => c.name,
    }
}

trait Tap {
    fn tap(self, f: impl FnOnce()) -> Self;
}

impl Tap for String {
    fn tap(self, f: impl FnOnce()) -> Self {
        f();
        self
    }
}

fn comparable(a: Ty, b: Ty) -> bool {
    a.numeric() == b.numeric()
}

fn gen_pred(rng: &mut Rng, cols: &[Col], tables: &[Table], depth: usize) -> Pred {
    if depth < 3 && rng.chance(45) {
        let a = Box::new(gen_pred(rng, cols, tables, depth + 1));
        return match rng.below(3) {
            0 => Pred::Not(a),
            1 => Pred::And(a, Box::new(gen_pred(rng, cols, tables, depth + 1))),
            _ => Pred::Or(a, Box::new(gen_pred(rng, cols, tables, depth + 1))),
        };
    }
    let mut ty = Ty::Int;
    let x = value_expr(rng, cols, &mut ty);
    let ops = ["=", "<>", "<", "<=", ">", ">="];
    Pred::Leaf(match rng.below(10) {
        0 => format!("({x} IS {}NULL)", if rng.chance(50) { "NOT " } else { "" }),
        1 => {
            // Short lists are compared value by value, longer ones go through a set.
            let n = 1 + if rng.chance(30) {
                rng.below(20)
            } else {
                rng.below(3)
            };
            let list: Vec<String> = (0..n).map(|_| literal(rng, ty)).collect();
            let not = if rng.chance(30) { "NOT " } else { "" };
            format!("({x} {not}IN ({}))", list.join(", "))
        }
        2 => format!(
            "({x} BETWEEN {} AND {})",
            literal(rng, ty),
            literal(rng, ty)
        ),
        3 | 4 => {
            // A subquery over another table, correlated with the outer columns.
            let t = rng.pick(tables);
            let inner: Vec<Col> = t
                .columns
                .iter()
                .enumerate()
                .map(|(i, &ty)| Col {
                    name: format!("sq.c{i}"),
                    ty,
                })
                .collect();
            let inner_col = rng.pick(&inner).clone();
            let outer = cols
                .iter()
                .filter(|c| comparable(c.ty, inner_col.ty))
                .cloned()
                .collect::<Vec<_>>();
            let corr = match outer.first() {
                Some(_) if rng.chance(75) => {
                    let o = rng.pick(&outer);
                    format!(" WHERE {} {} {}", inner_col.name, rng.pick(&ops), o.name)
                }
                _ => String::new(),
            };
            if rng.chance(50) {
                let not = if rng.chance(40) { "NOT " } else { "" };
                format!("({not}EXISTS (SELECT 1 FROM {} sq{corr}))", t.name)
            } else {
                let probe = cols
                    .iter()
                    .filter(|c| comparable(c.ty, inner.first().map_or(Ty::Int, |c| c.ty)))
                    .cloned()
                    .collect::<Vec<_>>();
                let p = rng.pick(&probe).name.clone();
                let not = if rng.chance(40) { "NOT " } else { "" };
                format!("({p} {not}IN (SELECT sq.c0 FROM {} sq{corr}))", t.name)
            }
        }
        9 => {
            // A scalar aggregate subquery over another table, maybe correlated, the
            // correlation sometimes repeated in both branches of an OR.
            let t = rng.pick(tables);
            let inner: Vec<Col> = t
                .columns
                .iter()
                .enumerate()
                .map(|(i, &ty)| Col {
                    name: format!("sq.c{i}"),
                    ty,
                })
                .collect();
            let ic = rng.pick(&inner).clone();
            let (agg, aty) = match rng.below(3) {
                0 => ("count(*)".to_string(), Ty::BigInt),
                1 => (format!("max({})", ic.name), ic.ty),
                _ => (format!("min({})", ic.name), ic.ty),
            };
            let outer: Vec<Col> = cols
                .iter()
                .filter(|c| comparable(c.ty, ic.ty))
                .cloned()
                .collect();
            let corr = match outer.first() {
                Some(_) if rng.chance(75) => {
                    let eq = format!("{} = {}", ic.name, rng.pick(&outer).name);
                    if rng.chance(30) {
                        let other = &rng.pick(&inner).name;
                        format!(
                            " WHERE ({eq} AND {other} IS NULL) OR ({eq} AND {other} IS NOT NULL)"
                        )
                    } else {
                        format!(" WHERE {eq}")
                    }
                }
                _ => String::new(),
            };
            let lhs: Vec<Col> = cols
                .iter()
                .filter(|c| comparable(c.ty, aty))
                .cloned()
                .collect();
            let y = match lhs.first() {
                Some(_) if rng.chance(60) => rng.pick(&lhs).name.clone(),
                _ => literal(rng, aty),
            };
            format!(
                "({y} {} (SELECT {agg} FROM {} sq{corr}))",
                rng.pick(&ops),
                t.name
            )
        }
        _ => {
            let others: Vec<Col> = cols
                .iter()
                .filter(|c| comparable(c.ty, ty))
                .cloned()
                .collect();
            let y = if rng.chance(50) {
                literal(rng, ty)
            } else {
                rng.pick(&others).name.clone()
            };
            format!("({x} {} {y})", rng.pick(&ops))
        }
    })
}

/// A FROM clause and the columns it makes visible.
fn gen_from(rng: &mut Rng, tables: &[Table]) -> (String, Vec<Col>) {
    let cols_of = |t: &Table, alias: &str| -> Vec<Col> {
        t.columns
            .iter()
            .enumerate()
            .map(|(i, &ty)| Col {
                name: format!("{alias}.c{i}"),
                ty,
            })
            .collect()
    };
    let a = rng.pick(tables);
    let mut cols = cols_of(a, "a");
    if rng.chance(30) {
        return (format!("{} a", a.name), cols);
    }
    let b = rng.pick(tables);
    let bcols = cols_of(b, "b");
    let kind = *rng.pick(&["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN"]);
    let from = if kind == "CROSS JOIN" {
        format!("{} a CROSS JOIN {} b", a.name, b.name)
    } else {
        let mut all = cols.clone();
        all.extend(bcols.clone());
        let mut on = "a.c0 = b.c0".to_string();
        if rng.chance(40) {
            on = format!("{on} AND {}", gen_pred(rng, &all, tables, 2).sql());
        }
        format!("{} a {kind} {} b ON {on}", a.name, b.name)
    };
    cols.extend(bcols);
    (from, cols)
}

/// A result as a sorted multiset of canonical rows.
type Rows = Vec<String>;

fn canon_number(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v == 0.0 {
        return "0".into();
    }
    let r: f64 = format!("{v:.8e}").parse().unwrap_or(v);
    format!("{r:?}")
}

fn canon(v: &ScalarValue) -> String {
    match v {
        ScalarValue::Null => "NULL".into(),
        ScalarValue::Boolean(b) => b.to_string(),
        ScalarValue::Varchar(s) => format!("s:{s}"),
        other => match other.as_f64() {
            Some(f) => canon_number(f),
            None => other.to_string(),
        },
    }
}

enum Outcome {
    Rows(Rows),
    /// An error a user may get (the query is skipped).
    Refused,
}

/// Runs `sql` on stride; an Internal Error (or a panic) is a failure.
fn stride_rows(conn: &Connection, sql: &str) -> Result<Outcome, String> {
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        conn.query(sql).and_then(|r| r.collect_rows())
    }));
    match run {
        Err(_) => Err(format!("panic on {sql}")),
        Ok(Err(e)) if e.kind == ErrorKind::Internal => Err(format!("{e} on {sql}")),
        Ok(Err(_)) => Ok(Outcome::Refused),
        Ok(Ok(rows)) => {
            let mut out: Rows = rows
                .iter()
                .map(|r| r.iter().map(canon).collect::<Vec<_>>().join("|"))
                .collect();
            out.sort();
            Ok(Outcome::Rows(out))
        }
    }
}

struct DuckDb {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl DuckDb {
    /// The oracle process, or None (with the reason printed) when DuckDB is missing.
    fn start() -> Option<DuckDb> {
        if std::env::var("STRIDE_FUZZ_DUCKDB").as_deref() == Ok("0") {
            return None;
        }
        let have = |py: &str| {
            Command::new(py)
                .args(["-c", "import duckdb"])
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        if !have("python3") {
            let _ = Command::new("python3")
                .args(["-m", "pip", "install", "--quiet", "duckdb"])
                .status();
            if !have("python3") {
                eprintln!("fuzz: the duckdb Python package is missing and pip could not install it: DuckDB oracle skipped");
                return None;
            }
        }
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz/duckdb_oracle.py");
        let mut child = Command::new("python3")
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .ok()?;
        let stdin = child.stdin.take()?;
        let stdout = BufReader::new(child.stdout.take()?);
        Some(DuckDb {
            child,
            stdin,
            stdout,
        })
    }

    fn line(&mut self) -> String {
        let mut l = String::new();
        self.stdout
            .read_line(&mut l)
            .expect("DuckDB oracle answers");
        l.trim_end_matches('\n').to_string()
    }

    fn send(&mut self, cmd: &str, sql: &str) -> String {
        writeln!(self.stdin, "{cmd} {}", sql.replace('\n', " ")).expect("DuckDB oracle reads");
        self.stdin.flush().expect("DuckDB oracle reads");
        self.line()
    }

    fn query(&mut self, sql: &str) -> Outcome {
        let head = self.send("Q", sql);
        let Some(n) = head.strip_prefix("ROWS ") else {
            return Outcome::Refused;
        };
        let n: usize = n.parse().expect("row count");
        let mut rows: Rows = (0..n)
            .map(|_| {
                let l = self.line();
                if l.is_empty() {
                    return String::new();
                }
                l.split('\t')
                    .map(|v| match v.split_at(1) {
                        ("N", _) => "NULL".to_string(),
                        ("B", b) => (b == "1").to_string(),
                        ("F", f) => canon_number(f.parse().unwrap_or(f64::NAN)),
                        (_, s) => format!("s:{s}"),
                    })
                    .collect::<Vec<_>>()
                    .join("|")
            })
            .collect();
        rows.sort();
        Outcome::Rows(rows)
    }
}

impl Drop for DuckDb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One generated query: its FROM clause, select list and predicate.
#[derive(Clone)]
struct Query {
    from: String,
    select: String,
    agg: String,
    pred: Pred,
    /// A second predicate, filtering the other branch of a UNION ALL.
    other: Pred,
}

/// Checks `q` over the loaded data with every oracle; Err describes the first failure.
fn check(conn: &Connection, duck: &mut Option<DuckDb>, q: &Query) -> Result<usize, String> {
    let p = q.pred.sql();
    let base = format!("SELECT {} FROM {}", q.select, q.from);
    let mut checked = 0;
    let rows = |sql: &str| stride_rows(conn, sql);
    let all = |sqls: &[String]| -> Result<Option<Rows>, String> {
        let mut out = Vec::new();
        for s in sqls {
            match rows(s)? {
                Outcome::Rows(r) => out.extend(r),
                Outcome::Refused => return Ok(None),
            }
        }
        out.sort();
        Ok(Some(out))
    };
    let parts = |prefix: &str, suffix: &str| -> Vec<String> {
        [p.clone(), format!("NOT {p}"), format!("({p}) IS NULL")]
            .iter()
            .map(|w| format!("{prefix} WHERE {w}{suffix}"))
            .collect()
    };
    // TLP over the rows.
    if let (Some(whole), Some(split)) = (all(std::slice::from_ref(&base))?, all(&parts(&base, ""))?)
    {
        checked += 1;
        if whole != split {
            return Err(format!(
                "TLP: {base} gives {whole:?}, its three parts by {p} give {split:?}"
            ));
        }
    }
    // TLP with DISTINCT (the parts' union deduplicated).
    let distinct = format!("SELECT DISTINCT {} FROM {}", q.select, q.from);
    let union = parts(&distinct, "").join(" UNION ");
    if let (Some(a), Some(b)) = (
        all(std::slice::from_ref(&distinct))?,
        all(std::slice::from_ref(&union))?,
    ) {
        checked += 1;
        if a != b {
            return Err(format!(
                "TLP DISTINCT: {distinct} gives {a:?}, {union} gives {b:?}"
            ));
        }
    }
    // TLP for max.
    let whole_max = format!("SELECT max({}) FROM {}", q.agg, q.from);
    let part_max = format!(
        "SELECT max(m) FROM ({}) t(m)",
        parts(&format!("SELECT max({}) FROM {}", q.agg, q.from), "").join(" UNION ALL ")
    );
    if let (Some(a), Some(b)) = (
        all(std::slice::from_ref(&whole_max))?,
        all(std::slice::from_ref(&part_max))?,
    ) {
        checked += 1;
        if a != b {
            return Err(format!(
                "TLP max: {whole_max} gives {a:?}, {part_max} gives {b:?}"
            ));
        }
    }
    // NoREC.
    let counted = format!("SELECT count(*) FROM {} WHERE {p}", q.from);
    let summed = format!(
        "SELECT coalesce(sum(CASE WHEN {p} THEN 1 ELSE 0 END), 0) FROM {}",
        q.from
    );
    if let (Some(a), Some(b)) = (
        all(std::slice::from_ref(&counted))?,
        all(std::slice::from_ref(&summed))?,
    ) {
        checked += 1;
        if a != b {
            return Err(format!(
                "NoREC: {counted} gives {a:?}, {summed} gives {b:?}"
            ));
        }
    }
    // Plan equivalence with each pass off.
    let filtered = format!("{base} WHERE {p}");
    let reference = all(std::slice::from_ref(&filtered))?;
    if let Some(reference) = &reference {
        // materialize_ctes always runs; every other pass is switched off in turn.
        for pass in stride_sql::optimizer::PASSES
            .iter()
            .filter(|p| **p != "materialize_ctes")
        {
            conn.execute(&format!("SET disabled_optimizers = '{pass}'"))
                .map_err(|e| e.to_string())?;
            let other = all(std::slice::from_ref(&filtered));
            conn.execute("RESET disabled_optimizers")
                .map_err(|e| e.to_string())?;
            if let Some(other) = other? {
                checked += 1;
                if &other != reference {
                    return Err(format!(
                        "plans: {filtered} gives {reference:?}, with {pass} off {other:?}"
                    ));
                }
            }
        }
    }
    // Two filters in one statement: a UNION ALL's branches run one after the other,
    // each with its own copy of its expressions, and give together what each gives
    // alone (expressions must not share what they build, such as IN lists' sets).
    let second = format!("{base} WHERE {}", q.other.sql());
    if let (Some(both), Some(apart)) = (
        all(&[format!("{filtered} UNION ALL {second}")])?,
        all(&[filtered.clone(), second.clone()])?,
    ) {
        checked += 1;
        if both != apart {
            return Err(format!(
                "UNION ALL: {filtered} UNION ALL {second} gives {both:?}, its branches alone {apart:?}"
            ));
        }
    }
    // DuckDB: the filtered rows, DISTINCT, and grouped counts.
    if let Some(d) = duck.as_mut() {
        let grouped = format!(
            "SELECT {}, count(*), max({}) FROM {} WHERE {p} GROUP BY {}",
            q.select, q.agg, q.from, q.select
        );
        // Window functions whose values ties do not change: counts per partition,
        // ranks, and a running max over peers.
        let first = q.select.split(", ").next().unwrap_or(&q.select);
        let windowed = format!(
            "SELECT {}, count(*) OVER (PARTITION BY {agg}), \
             rank() OVER (PARTITION BY {agg} ORDER BY {first}), \
             max({agg}) OVER (ORDER BY {first}) FROM {} WHERE {p}",
            q.select,
            q.from,
            agg = q.agg
        );
        for sql in [filtered, format!("{distinct} WHERE {p}"), grouped, windowed] {
            if let (Some(ours), Outcome::Rows(theirs)) =
                (all(std::slice::from_ref(&sql))?, d.query(&sql))
            {
                checked += 1;
                if ours != theirs {
                    return Err(format!(
                        "DuckDB: {sql} gives {ours:?} in stride, {theirs:?} in DuckDB"
                    ));
                }
            }
        }
    }
    Ok(checked)
}

/// Loads `tables` into a fresh stride connection (and DuckDB database). Every other
/// load goes into a database file, checkpointed, with a buffer pool too small to keep
/// anything: the queries then read every column back through its codec.
fn load(tables: &[Table], duck: &mut Option<DuckDb>) -> Connection {
    static LOADS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = LOADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let stored = n % 2 == 1;
    let conn = if stored {
        let path =
            std::env::temp_dir().join(format!("stride-fuzz-{}-{n}.stride", std::process::id()));
        let path = path.to_string_lossy().into_owned();
        let conn = Database::open(&path)
            .and_then(|d| d.connect())
            .expect("database file");
        // The open files live on unnamed; nothing is left behind.
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(format!("{path}.wal"));
        conn.execute("SET memory_limit = '1KB'")
            .expect("memory_limit");
        conn
    } else {
        Database::open_in_memory()
            .and_then(|d| d.connect())
            .expect("in-memory database")
    };
    conn.execute("SET threads = 2").expect("threads");
    if let Some(d) = duck.as_mut() {
        d.send("R", "");
    }
    for t in tables {
        let stmts = std::iter::once(t.create()).chain(t.insert());
        for s in stmts {
            conn.execute(&s).unwrap_or_else(|e| panic!("{e} in {s}"));
            if let Some(d) = duck.as_mut() {
                let r = d.send("E", &s);
                assert_eq!(r, "OK", "DuckDB refused {s}");
            }
        }
    }
    if stored {
        conn.execute("CHECKPOINT").expect("checkpoint");
    }
    conn
}

/// The smallest data and predicate that still fail the same way, as a script.
fn reduce(mut tables: Vec<Table>, mut q: Query, duck: &mut Option<DuckDb>) -> String {
    let fails = |tables: &[Table], q: &Query, duck: &mut Option<DuckDb>| {
        let conn = load(tables, duck);
        check(&conn, duck, q).is_err()
    };
    let mut progress = true;
    while progress {
        progress = false;
        for t in 0..tables.len() {
            let mut r = 0;
            while r < tables[t].rows.len() {
                let row = tables[t].rows.remove(r);
                if fails(&tables, &q, duck) {
                    progress = true;
                } else {
                    tables[t].rows.insert(r, row);
                    r += 1;
                }
            }
        }
        for part in q.pred.parts() {
            let smaller = Query {
                pred: part,
                ..q.clone()
            };
            if fails(&tables, &smaller, duck) {
                q = smaller;
                progress = true;
                break;
            }
        }
    }
    let conn = load(&tables, duck);
    let failure = check(&conn, duck, &q).err().unwrap_or_default();
    let mut script: Vec<String> = Vec::new();
    for t in &tables {
        script.push(t.create() + ";");
        script.extend(t.insert().map(|s| s + ";"));
    }
    format!("{}\n-- {failure}", script.join("\n"))
}

fn run_case(seed: u64, duck: &mut Option<DuckDb>) -> Result<usize, String> {
    let mut rng = Rng(seed);
    let tables = gen_tables(&mut rng);
    let conn = load(&tables, duck);
    let mut checked = 0;
    for _ in 0..QUERIES_PER_CASE {
        let (from, cols) = gen_from(&mut rng, &tables);
        // A NOCASE column is selected as lower(c): DISTINCT, GROUP BY and max show
        // one of a group's spellings, which may differ between the parts of a TLP
        // split and between engines; its key does not.
        let output = |c: &Col| match c.ty {
            Ty::Nocase => format!("lower({})", c.name),
            _ => c.name.clone(),
        };
        let select: Vec<String> = (0..1 + rng.below(3))
            .map(|_| output(rng.pick(&cols)))
            .collect();
        let agg = output(rng.pick(&cols));
        let pred = gen_pred(&mut rng, &cols, &tables, 0);
        let other = gen_pred(&mut rng, &cols, &tables, 0);
        let q = Query {
            from,
            select: select.join(", "),
            agg,
            pred,
            other,
        };
        match check(&conn, duck, &q) {
            Ok(n) => checked += n,
            Err(_) => {
                let reduced = reduce(
                    tables
                        .iter()
                        .map(|t| Table {
                            name: t.name.clone(),
                            columns: t.columns.clone(),
                            rows: t.rows.clone(),
                        })
                        .collect(),
                    q,
                    duck,
                );
                return Err(format!("seed {seed}:\n{reduced}"));
            }
        }
    }
    Ok(checked)
}

#[test]
fn random_queries_agree_with_every_oracle() {
    let mut duck = DuckDb::start();
    let first: u64 = std::env::var("STRIDE_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let budget = std::env::var("STRIDE_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map(Duration::from_secs);
    let start = Instant::now();
    let (mut cases, mut checked, mut failures) = (0u64, 0usize, Vec::new());
    loop {
        let seed = first + cases;
        match budget {
            Some(b) if start.elapsed() >= b => break,
            None if cases >= BOUNDED_CASES => break,
            _ => {}
        }
        match run_case(seed, &mut duck) {
            Ok(n) => checked += n,
            Err(e) => {
                eprintln!("{e}\n");
                failures.push(e);
                if budget.is_none() {
                    break;
                }
            }
        }
        cases += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "fuzz: {cases} cases, {checked} checks in {secs:.1} s ({:.0} checks/s){}, {} failure(s)",
        checked as f64 / secs,
        if duck.is_some() {
            ", DuckDB included"
        } else {
            ""
        },
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
