//! Splitting SQL text into statements at top-level semicolons (outside quotes,
//! comments and dollar-quoted strings), for the shell and for running scripts one
//! statement at a time. [`Scanner`] does the work; it can be fed text that grows (the
//! lines of a script as they are read) and scans each byte once.

/// Where the scanner is: in SQL code, or inside something a `;` does not end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Code,
    /// After `--`, up to the end of the line.
    LineComment,
    /// Inside `/* */`, nested this deep (block comments nest, as in PostgreSQL and
    /// DuckDB).
    BlockComment(usize),
    /// Inside a string (`'`) or quoted identifier (`"`); a doubled quote is one inside.
    /// In an escape string (`E'...'`, as PostgreSQL writes it) a backslash escapes the
    /// character after it.
    Quoted { quote: u8, escapes: bool },
    /// Inside a dollar-quoted string (`$$...$$`, `$tag$...$tag$`), which ends at the
    /// next occurrence of its opening delimiter, held here.
    Dollar(String),
}

/// Finds the top-level semicolons of SQL text. Feed it the text with
/// [`Scanner::advance`]; when the text grows (a script read line by line), call it
/// again with the longer text and it goes on from where it stopped, so reading a
/// statement of any length costs time linear in its length.
#[derive(Clone, Debug, Default)]
pub struct Scanner {
    state: State,
    /// How much of the text has been scanned.
    pos: usize,
    /// The length of the text last given: past `pos`, its end is still undecided.
    len: usize,
    /// Each top-level `;` found: its position, and whether the statement it ends holds
    /// something besides whitespace and comments.
    ends: Vec<(usize, bool)>,
    /// Something besides whitespace and comments came after the last top-level `;`.
    content: bool,
}

impl Scanner {
    pub fn new() -> Self {
        Scanner::default()
    }

    /// Scans `text` from where the previous call stopped; `text` must start with the
    /// text given before. With `at_end` false, a construct the end of `text` leaves
    /// undecided (a `-` that a second `-` would make a comment, a quote that a second
    /// quote would keep open) waits for more text; with `at_end` true the text ends
    /// there.
    pub fn advance(&mut self, text: &str, at_end: bool) {
        let t = text.as_bytes();
        let mut i = self.pos;
        // The byte after `i`, or None when the text ends before it; `break` out of
        // the loop (to wait for more text) when that is not known yet.
        macro_rules! next_or_wait {
            () => {
                match t.get(i + 1) {
                    Some(&b) => Some(b),
                    None if at_end => None,
                    None => break,
                }
            };
        }
        while i < t.len() {
            let b = t[i];
            match &self.state {
                State::Code => match b {
                    b'\'' | b'"' => {
                        let escapes = b == b'\''
                            && i > 0
                            && matches!(t[i - 1], b'e' | b'E')
                            && (i < 2 || !is_identifier_byte(t[i - 2]));
                        self.state = State::Quoted { quote: b, escapes };
                        self.content = true;
                    }
                    b'-' | b'/' => {
                        let second = if b == b'-' { b'-' } else { b'*' };
                        if next_or_wait!() == Some(second) {
                            self.state = if b == b'-' {
                                State::LineComment
                            } else {
                                State::BlockComment(1)
                            };
                            i += 1;
                        } else {
                            self.content = true;
                        }
                    }
                    b'$' => {
                        self.content = true;
                        // After a name's character `$` is part of the name (or of a
                        // parameter like `$1`), as in PostgreSQL.
                        if i == 0 || !is_identifier_byte(t[i - 1]) {
                            // A tag starts with a letter or `_` (`$1` is a parameter).
                            let mut j = i + 1;
                            while j < t.len()
                                && (is_identifier_byte(t[j]) && t[j] != b'$')
                                && (j > i + 1 || !t[j].is_ascii_digit())
                            {
                                j += 1;
                            }
                            if j == t.len() && !at_end {
                                break;
                            }
                            if t.get(j) == Some(&b'$') {
                                self.state = State::Dollar(text[i..=j].to_string());
                                i = j;
                            }
                        }
                    }
                    b';' => {
                        self.ends.push((i, self.content));
                        self.content = false;
                    }
                    b if b.is_ascii_whitespace() => {}
                    _ => self.content = true,
                },
                State::LineComment => {
                    if b == b'\n' {
                        self.state = State::Code;
                    }
                }
                &State::BlockComment(depth) => {
                    let pair = [b, next_or_wait!().unwrap_or(0)];
                    if &pair == b"*/" {
                        self.state = match depth {
                            1 => State::Code,
                            d => State::BlockComment(d - 1),
                        };
                        i += 1;
                    } else if &pair == b"/*" {
                        self.state = State::BlockComment(depth + 1);
                        i += 1;
                    }
                }
                &State::Quoted { quote, escapes } => {
                    if escapes && b == b'\\' {
                        next_or_wait!();
                        i += 1;
                    } else if b == quote {
                        if next_or_wait!() == Some(quote) {
                            i += 1;
                        } else {
                            self.state = State::Code;
                        }
                    }
                }
                State::Dollar(delimiter) => {
                    if b == b'$' {
                        let (rest, delimiter) = (&t[i..], delimiter.as_bytes());
                        if rest.starts_with(delimiter) {
                            i += delimiter.len() - 1;
                            self.state = State::Code;
                        } else if !at_end && delimiter.starts_with(rest) {
                            break;
                        }
                    }
                }
            }
            i += 1;
        }
        self.pos = i.min(t.len());
        self.len = t.len();
    }

    /// Whether the scanner is in SQL code: not inside a string, quoted identifier,
    /// dollar-quoted string or comment.
    pub fn in_code(&self) -> bool {
        self.state == State::Code
    }

    /// Whether nothing but whitespace and comments follows the last top-level `;`
    /// (or the start), no string or block comment is open, and no text waits for
    /// more to be decided.
    pub fn at_statement_start(&self) -> bool {
        !self.content
            && matches!(self.state, State::Code | State::LineComment)
            && self.pos == self.len
    }

    /// Whether the text scanned ends a statement: it has a top-level `;` after which
    /// there is only whitespace and comments, none of them left open (a line comment
    /// ends with the text).
    pub fn complete(&self) -> bool {
        !self.ends.is_empty() && self.at_statement_start()
    }
}

/// Whether `b` may be part of an identifier (PostgreSQL counts `$` and every byte of
/// a non-ASCII character).
fn is_identifier_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// The statements of `sql`, trimmed, without their terminating semicolons; a final
/// statement without `;` is included. Pieces holding only whitespace and comments are
/// left out.
pub fn split_statements(sql: &str) -> Vec<String> {
    let mut scanner = Scanner::new();
    scanner.advance(sql, true);
    let mut out = Vec::new();
    let mut start = 0;
    for &(end, content) in &scanner.ends {
        if content {
            out.push(sql[start..end].trim().to_string());
        }
        start = end + 1;
    }
    if scanner.content {
        out.push(sql[start..].trim().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `s` ends a statement, as the shell's scanner sees it fed at once.
    fn is_complete(s: &str) -> bool {
        let mut scanner = Scanner::new();
        scanner.advance(s, true);
        scanner.complete()
    }

    #[test]
    fn splits_outside_quotes() {
        assert_eq!(
            split_statements("SELECT ';'; SELECT 2;"),
            vec!["SELECT ';'", "SELECT 2"]
        );
        assert_eq!(
            split_statements("-- c; x\nSELECT 1"),
            vec!["-- c; x\nSELECT 1"]
        );
        assert_eq!(split_statements("  ;  ; "), Vec::<String>::new());
        assert!(is_complete("SELECT 1;"));
        assert!(!is_complete("SELECT ';"));
        assert!(!is_complete("SELECT 1"));
        assert!(is_complete("SELECT 1; -- note"));
        assert!(is_complete("SELECT 1; /* x */ "));
        assert!(!is_complete("SELECT 1; /* open"));
        assert!(!is_complete("SELECT 1; SELECT 2"));
        assert!(is_complete("SELECT 1; SELECT 2;\n"));
        assert!(is_complete("SELECT 1; -- done\n"));
        assert!(!is_complete("SELECT 1; SELECT"));
        assert!(!is_complete("SELECT $$a;"));
        // Dollar quotes may have a tag ($tag$...$tag$), and end only at the same one.
        assert_eq!(
            split_statements("SELECT $t$a;b$t$ AS d; SELECT $t$a$$b;$T$;$t$; SELECT $_1$;$_1$"),
            vec![
                "SELECT $t$a;b$t$ AS d",
                "SELECT $t$a$$b;$T$;$t$",
                "SELECT $_1$;$_1$"
            ]
        );
        // ... but `$` in a name or a parameter starts none.
        assert_eq!(
            split_statements("SELECT a$b$; SELECT $1; SELECT $b$"),
            vec!["SELECT a$b$", "SELECT $1", "SELECT $b$"]
        );
        // Block comments nest, as in PostgreSQL and DuckDB.
        assert_eq!(
            split_statements("SELECT /* a /* b; */ c; */ 1; SELECT 2"),
            vec!["SELECT /* a /* b; */ c; */ 1", "SELECT 2"]
        );
        // In an escape string a backslash escapes the quote after it.
        assert_eq!(
            split_statements(r"SELECT E'\'' a; SELECT 2 b"),
            vec![r"SELECT E'\'' a", "SELECT 2 b"]
        );
        assert!(!is_complete(r"SELECT E'\';"));
        assert!(is_complete(r"SELECT e'a\\'; "));
        // ... but not in a plain string, nor after a name ending in e
        assert_eq!(
            split_statements(r"SELECT 'a\'; SELECT name'x'; SELECT 3"),
            vec![r"SELECT 'a\'", "SELECT name'x'", "SELECT 3"]
        );
    }

    /// Fed a text line by line, the scanner finds what scanning it whole finds, and
    /// says where a string or comment is open.
    #[test]
    fn scans_line_by_line() {
        let lines = [
            "SELECT 'a;",
            "b' AS s, /* c;",
            "d */ 1 -- e;",
            "AS n; SELECT",
            "E'\\';",
            "';",
        ];
        let mut text = String::new();
        let mut scanner = Scanner::new();
        let mut states = Vec::new();
        for line in lines {
            text.push_str(line);
            text.push('\n');
            scanner.advance(&text, false);
            states.push((scanner.in_code(), scanner.complete()));
        }
        let mut whole = Scanner::new();
        whole.advance(&text, true);
        assert_eq!(scanner.ends, whole.ends);
        assert_eq!(
            states,
            [
                (false, false),
                (false, false),
                (true, false),
                (true, false),
                (false, false),
                (true, true)
            ]
        );
        // Text that may go on waits: `-` could start a comment.
        let mut scanner = Scanner::new();
        scanner.advance("SELECT 1;-", false);
        assert!(!scanner.complete());
        scanner.advance("SELECT 1;--", false);
        assert!(scanner.complete());
        scanner.advance("SELECT 1;--x", false);
        assert!(scanner.complete());
    }
}
