//! Splitting SQL text into statements at top-level semicolons (outside quotes,
//! comments and dollar-quoted strings), for the shell and for running scripts one
//! statement at a time.

/// The statements of `sql`, trimmed, without their terminating semicolons; a final
/// statement without `;` is included.
pub fn split_statements(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = sql.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\'' | b'"' => i = closing_quote(b, i).unwrap_or(b.len()),
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            b'$' if b.get(i + 1) == Some(&b'$') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'$' && b[i + 1] == b'$') {
                    i += 1;
                }
                i += 1;
            }
            b';' => {
                push(&mut out, &sql[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < sql.len() {
        push(&mut out, &sql[start..]);
    }
    out
}

/// The position of the quote that closes the one at `b[open]` (a doubled quote is
/// one inside); None when the text ends first. In an escape string (`E'...'`, as
/// PostgreSQL writes it) a backslash escapes the character after it: `E'\''` is one
/// quote.
fn closing_quote(b: &[u8], open: usize) -> Option<usize> {
    let q = b[open];
    let escapes = q == b'\''
        && open > 0
        && matches!(b[open - 1], b'e' | b'E')
        && (open < 2 || !(b[open - 2].is_ascii_alphanumeric() || b[open - 2] == b'_'));
    let mut i = open + 1;
    while i < b.len() {
        if escapes && b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i] == q {
            if b.get(i + 1) == Some(&q) {
                i += 2;
                continue;
            }
            return Some(i);
        }
        i += 1;
    }
    None
}

fn push(out: &mut Vec<String>, s: &str) {
    if !is_blank(s) {
        out.push(s.trim().to_string());
    }
}

/// Whether `s` holds only whitespace and comments.
pub fn is_blank(s: &str) -> bool {
    let mut rest = s.trim_start();
    loop {
        if rest.is_empty() {
            return true;
        }
        if let Some(r) = rest.strip_prefix("--") {
            rest = r.split_once('\n').map_or("", |(_, a)| a).trim_start();
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.split_once("*/").map_or("", |(_, a)| a).trim_start();
        } else {
            return false;
        }
    }
}

/// Whether `s` ends a statement: its last character outside comments and quotes is
/// `;` and no quote or block comment is left open.
pub fn is_complete(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let mut last = None;
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"') => {
                let Some(end) = closing_quote(b, i) else {
                    return false;
                };
                i = end;
                last = Some(q);
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                if i + 1 >= b.len() {
                    return false;
                }
                i += 1;
            }
            b'$' if b.get(i + 1) == Some(&b'$') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'$' && b[i + 1] == b'$') {
                    i += 1;
                }
                if i + 1 >= b.len() {
                    return false;
                }
                i += 1;
                last = Some(b'$');
            }
            c if c.is_ascii_whitespace() => {}
            c => last = Some(c),
        }
        i += 1;
    }
    last == Some(b';')
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
