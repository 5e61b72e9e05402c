//! A shortcut past step 1 for the most common write: `INSERT INTO t [(a, b)] VALUES
//! (1, 'x'), (2, NULL), ...` whose cells are all plain literals. Such a statement is
//! recognized here, byte by byte, without building `sqlparser`'s tokens and syntax
//! tree (for a 1,000-row INSERT, most of the statement's time); the binder then fills
//! column vectors straight from the literals ([`crate::binder::Binder::bind_literal_insert`]),
//! with the same literal typing and casts as the general path.
//!
//! Anything else (comments, expressions, casts, parameters, escape strings, ON
//! CONFLICT, RETURNING, DEFAULT, rows of different lengths, ...) is not recognized
//! (`parse` answers `None`) and takes the general path, which also reports every error.

use sqlparser::ast;
use std::borrow::Cow;

/// An INSERT of literal rows.
#[derive(Debug)]
pub struct LiteralInsert<'a> {
    /// The table's name, one to three parts.
    pub table: ast::ObjectName,
    /// The named target columns; empty: all of the table's, in order.
    pub columns: Vec<ast::ObjectName>,
    /// Cells per row (at least one).
    pub width: usize,
    /// The rows' cells, row after row.
    pub cells: Vec<Literal<'a>>,
}

impl LiteralInsert<'_> {
    pub fn rows(&self) -> usize {
        self.cells.len() / self.width
    }
}

/// One cell of a VALUES row.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal<'a> {
    Null,
    Bool(bool),
    /// A number as written (digits, a point, an exponent), and whether a minus sign
    /// precedes it.
    Number {
        text: &'a str,
        negative: bool,
    },
    /// A single-quoted string, its doubled quotes undone.
    String(Cow<'a, str>),
}

/// The literal INSERT `sql` is, or `None` when it is anything else.
pub fn parse(sql: &str) -> Option<LiteralInsert<'_>> {
    let mut s = Scanner {
        text: sql,
        bytes: sql.as_bytes(),
        at: 0,
    };
    s.keyword("INSERT")?;
    s.keyword("INTO")?;
    let mut table = vec![s.identifier()?];
    while s.eat(b'.') {
        table.push(s.identifier()?);
    }
    if table.len() > 3 {
        return None;
    }
    let mut columns = Vec::new();
    if s.eat(b'(') {
        loop {
            columns.push(ast::ObjectName::from(vec![s.identifier()?]));
            if !s.eat(b',') {
                break;
            }
        }
        if !s.eat(b')') {
            return None;
        }
    }
    s.keyword("VALUES")?;
    let mut cells = Vec::new();
    let mut width = 0;
    loop {
        if !s.eat(b'(') {
            return None;
        }
        let start = cells.len();
        loop {
            cells.push(s.literal()?);
            if !s.eat(b',') {
                break;
            }
        }
        if !s.eat(b')') {
            return None;
        }
        let n = cells.len() - start;
        if width == 0 {
            width = n;
        } else if n != width {
            return None;
        }
        if !s.eat(b',') {
            break;
        }
    }
    s.eat(b';');
    s.skip_space();
    if s.at != s.bytes.len() {
        return None;
    }
    Some(LiteralInsert {
        table: ast::ObjectName::from(table),
        columns,
        width,
        cells,
    })
}

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scanner<'a> {
    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// Skips spaces, then `b` if it is next.
    fn eat(&mut self, b: u8) -> bool {
        self.skip_space();
        if self.bytes.get(self.at) == Some(&b) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// The next unquoted word, as written.
    fn word(&mut self) -> Option<&'a str> {
        self.skip_space();
        let start = self.at;
        match self.bytes.get(self.at) {
            Some(b) if b.is_ascii_alphabetic() || *b == b'_' => self.at += 1,
            _ => return None,
        }
        while let Some(b) = self.bytes.get(self.at) {
            if b.is_ascii_alphanumeric() || *b == b'_' {
                self.at += 1;
            } else if b.is_ascii() && *b != b'$' {
                break;
            } else {
                // `$` and letters beyond ASCII also continue words: not handled here.
                return None;
            }
        }
        Some(&self.text[start..self.at])
    }

    fn keyword(&mut self, k: &str) -> Option<()> {
        self.word()
            .filter(|w| w.eq_ignore_ascii_case(k))
            .map(|_| ())
    }

    /// An unquoted word or a double-quoted name (`""` is a quote in it).
    fn identifier(&mut self) -> Option<ast::Ident> {
        self.skip_space();
        if self.bytes.get(self.at) != Some(&b'"') {
            return self.word().map(ast::Ident::new);
        }
        let value = self.quoted(b'"')?;
        (!value.is_empty()).then(|| ast::Ident::with_quote('"', value))
    }

    /// The text between `quote`s at the cursor, its doubled quotes undone; `None`
    /// when it does not end.
    fn quoted(&mut self, quote: u8) -> Option<Cow<'a, str>> {
        self.at += 1;
        let start = self.at;
        let mut doubled = false;
        loop {
            let b = *self.bytes.get(self.at)?;
            self.at += 1;
            if b == b'\\' {
                // A backslash is plain in DuckDB's strings, but the general path
                // decides that.
                return None;
            }
            if b == quote {
                if self.bytes.get(self.at) == Some(&quote) {
                    doubled = true;
                    self.at += 1;
                } else {
                    break;
                }
            }
        }
        let inner = &self.text[start..self.at - 1];
        Some(if doubled {
            let q = quote as char;
            Cow::Owned(inner.replace(&format!("{q}{q}"), &q.to_string()))
        } else {
            Cow::Borrowed(inner)
        })
    }

    fn literal(&mut self) -> Option<Literal<'a>> {
        self.skip_space();
        let b = *self.bytes.get(self.at)?;
        let literal = match b {
            b'\'' => {
                let s = self.quoted(b'\'')?;
                // `'a' 'b'` (adjacent strings) and `'1'::INT` are the general path's.
                self.skip_space();
                if self.bytes.get(self.at) == Some(&b'\'') {
                    return None;
                }
                Literal::String(s)
            }
            b'-' | b'+' | b'0'..=b'9' | b'.' => {
                let negative = b == b'-';
                if matches!(b, b'-' | b'+') {
                    self.at += 1;
                }
                Literal::Number {
                    text: self.number()?,
                    negative,
                }
            }
            _ => match self.word()? {
                w if w.eq_ignore_ascii_case("NULL") => Literal::Null,
                w if w.eq_ignore_ascii_case("TRUE") => Literal::Bool(true),
                w if w.eq_ignore_ascii_case("FALSE") => Literal::Bool(false),
                _ => return None,
            },
        };
        // A literal ends a cell: what follows must be `,` or `)`.
        self.skip_space();
        matches!(self.bytes.get(self.at), Some(b',' | b')')).then_some(literal)
    }

    /// Digits with at most one point, and an optional exponent.
    fn number(&mut self) -> Option<&'a str> {
        let start = self.at;
        let digits = |s: &mut Self| {
            let from = s.at;
            while s.bytes.get(s.at).is_some_and(u8::is_ascii_digit) {
                s.at += 1;
            }
            s.at - from
        };
        let mut n = digits(self);
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            n += digits(self);
        }
        if n == 0 {
            return None;
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.at) {
            self.at += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.at) {
                self.at += 1;
            }
            if digits(self) == 0 {
                return None;
            }
        }
        Some(&self.text[start..self.at])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(sql: &str) -> Option<Vec<Literal<'_>>> {
        parse(sql).map(|i| i.cells)
    }

    #[test]
    fn literal_rows_are_recognized() {
        let i =
            parse("insert into s.\"My T\" (a, \"B\") VALUES (1, 'x''y'), (-2.5e3, NULL);").unwrap();
        assert_eq!(i.table.to_string(), "s.\"My T\"");
        assert_eq!(i.columns.len(), 2);
        assert_eq!((i.width, i.rows()), (2, 2));
        assert_eq!(
            i.cells,
            vec![
                Literal::Number {
                    text: "1",
                    negative: false
                },
                Literal::String(Cow::Borrowed("x'y")),
                Literal::Number {
                    text: "2.5e3",
                    negative: true
                },
                Literal::Null,
            ]
        );
        assert_eq!(
            cells("INSERT INTO t VALUES (TRUE,false , .5,+7 , '')  "),
            Some(vec![
                Literal::Bool(true),
                Literal::Bool(false),
                Literal::Number {
                    text: ".5",
                    negative: false
                },
                Literal::Number {
                    text: "7",
                    negative: false
                },
                Literal::String(Cow::Borrowed("")),
            ])
        );
    }

    #[test]
    fn anything_else_takes_the_general_path() {
        for sql in [
            "INSERT INTO t VALUES (1 + 1)",
            "INSERT INTO t VALUES ('1'::INT)",
            "INSERT INTO t VALUES ($1)",
            "INSERT INTO t VALUES (?)",
            "INSERT INTO t VALUES (E'a')",
            "INSERT INTO t VALUES ('a\\n')",
            "INSERT INTO t VALUES ('a' 'b')",
            "INSERT INTO t VALUES (DEFAULT)",
            "INSERT INTO t VALUES (1), (1, 2)",
            "INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING",
            "INSERT INTO t VALUES (1) RETURNING *",
            "INSERT INTO t VALUES (1); SELECT 1",
            "INSERT INTO t VALUES (1) -- comment",
            "INSERT INTO t VALUES (--1)",
            "INSERT INTO t VALUES (1e)",
            "INSERT INTO t VALUES (1_000)",
            "INSERT INTO t VALUES (0x1F)",
            "INSERT INTO t VALUES ('unterminated)",
            "INSERT INTO t VALUES ()",
            "INSERT INTO t VALUES (1",
            "INSERT INTO t BY NAME SELECT 1 AS a",
            "INSERT OR REPLACE INTO t VALUES (1)",
            "INSERT INTO t SELECT 1",
            "INSERT INTO t DEFAULT VALUES",
            "INSERT INTO a.b.c.d VALUES (1)",
            "INSERT INTO t$ VALUES (1)",
            "INSERT INTO tä VALUES (1)",
            "INSERT INTO \"\" VALUES (1)",
            "INSERT INTO t AS x VALUES (1)",
            "INSERT INTO t VALUES (NULLX)",
        ] {
            assert!(parse(sql).is_none(), "{sql}");
        }
    }
}
