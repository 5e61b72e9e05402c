//! Dot commands: lines starting with `.` typed where no statement is pending. They
//! change the shell's settings (`.mode`, `.timer`, `.bail`), describe the database
//! (`.tables`, `.schema`, `.databases`), run a script (`.read`), or end the session (`.quit`). An
//! unknown command is an error, counted as a failure like a failed statement.

use crate::shell::{Flow, Shell};
use stride::render::{display_width, Mode};

/// `.read` files may nest this deep (a file that reads itself stops here).
const MAX_READ_DEPTH: usize = 16;

/// Width `.tables` lays its columns out in.
const TABLES_WIDTH: usize = 80;

const HELP: &str = "\
.bail on|off             Stop after hitting an error (default off)
.databases               List the databases: the one opened and those attached
.exit                    Exit this program
.help                    Show this message
.mode MODE               Set the output mode: box, csv, json, line, list, markdown
.quit                    Exit this program
.read FILE               Read input from FILE
.schema ?TABLE?          Show the CREATE statements of all tables, or of TABLE
.tables                  List the names of the tables
.timer on|off            Turn the timer for each statement on or off
";

/// Runs the dot command on `line` (which starts with `.`).
pub fn run(shell: &mut Shell, line: &str) -> Flow {
    let args = split_args(line.trim());
    let Some(command) = args.first() else {
        return unknown(shell, line);
    };
    let name = command.trim_start_matches('.');
    let rest = &args[1..];
    match (name, rest.len()) {
        ("quit" | "exit" | "q", 0) => Flow::Quit,
        ("help", _) => {
            shell.print(HELP);
            Flow::Continue
        }
        ("mode", 0) => {
            let text = format!("current output mode: {}\n", shell.mode);
            shell.print(&text);
            Flow::Continue
        }
        ("mode", 1) => match Mode::parse(&rest[0]) {
            Some(mode) => {
                shell.mode = mode;
                Flow::Continue
            }
            None => {
                let names: Vec<&str> = Mode::ALL.iter().map(|m| m.name()).collect();
                shell.fail(&format!(
                    "unknown output mode \"{}\"; expected one of: {}",
                    rest[0],
                    names.join(", ")
                ))
            }
        },
        ("timer", 1) => match on_off(&rest[0]) {
            Some(on) => {
                shell.timer = on;
                Flow::Continue
            }
            None => shell.fail("usage: .timer on|off"),
        },
        ("bail", 1) => match on_off(&rest[0]) {
            Some(on) => {
                shell.bail = on;
                Flow::Continue
            }
            None => shell.fail("usage: .bail on|off"),
        },
        ("tables", 0) => {
            let mut names = shell.conn.table_names();
            names.sort();
            let text = columns(&names, TABLES_WIDTH);
            shell.print(&text);
            Flow::Continue
        }
        ("schema", 0 | 1) => {
            let mut names = shell.conn.table_names();
            names.sort();
            if let Some(wanted) = rest.first() {
                names.retain(|n| n.eq_ignore_ascii_case(wanted));
            }
            let mut text = String::new();
            for n in &names {
                if let Some(sql) = shell.conn.table_sql(n) {
                    text.push_str(&sql);
                    text.push('\n');
                }
            }
            shell.print(&text);
            Flow::Continue
        }
        ("databases", 0) => databases(shell),
        ("read", 1) => read(shell, &rest[0]),
        _ => unknown(shell, name),
    }
}

fn unknown(shell: &mut Shell, name: &str) -> Flow {
    shell.fail(&format!(
        "unknown command or invalid arguments: \"{name}\". Enter \".help\" for help"
    ))
}

/// `.databases`: one line per database, `name: path`, marked when read-only.
fn databases(shell: &mut Shell) -> Flow {
    // The connection's own `temp` (internal) is not one a user opened or attached.
    let sql = "SELECT database_name, coalesce(path, ':memory:'), readonly FROM duckdb_databases() WHERE NOT internal";
    let rows = match shell.conn.query(sql) {
        Ok(r) => r.rows().collect::<stride::Result<Vec<_>>>(),
        Err(e) => Err(e),
    };
    match rows {
        Ok(rows) => {
            let mut text = String::new();
            for r in rows {
                let read_only = matches!(r[2], stride::ScalarValue::Boolean(true));
                text.push_str(&format!(
                    "{}: {}{}\n",
                    r[0],
                    r[1],
                    if read_only { " (read only)" } else { "" }
                ));
            }
            shell.print(&text);
            Flow::Continue
        }
        Err(e) => shell.fail(&e.to_string()),
    }
}

/// `.read FILE`: runs the statements and commands of a file.
fn read(shell: &mut Shell, path: &str) -> Flow {
    if shell.read_depth >= MAX_READ_DEPTH {
        return shell.fail(&format!(
            "cannot read \"{path}\": .read nested more than {MAX_READ_DEPTH} deep"
        ));
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => return shell.fail(&format!("cannot read \"{path}\": {e}")),
    };
    shell.read_depth += 1;
    let flow = shell.run_script(&bytes, &format!("\"{path}\""));
    shell.read_depth -= 1;
    flow
}

fn on_off(word: &str) -> Option<bool> {
    match word.to_ascii_lowercase().as_str() {
        "on" | "1" | "true" | "yes" => Some(true),
        "off" | "0" | "false" | "no" => Some(false),
        _ => None,
    }
}

/// The words of a dot command line; single or double quotes group words with spaces.
fn split_args(line: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let Some(&first) = chars.peek() else { break };
        let mut arg = String::new();
        if first == '\'' || first == '"' {
            chars.next();
            for c in chars.by_ref() {
                if c == first {
                    break;
                }
                arg.push(c);
            }
        } else {
            while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                arg.push(c);
            }
        }
        args.push(arg);
    }
    args
}

/// `names` in columns down then across, as wide as fits in `width`, like `ls`.
fn columns(names: &[String], width: usize) -> String {
    if names.is_empty() {
        return String::new();
    }
    let col_width = names.iter().map(|n| display_width(n)).max().unwrap_or(0) + 2;
    let ncols = (width / col_width).max(1);
    let nrows = names.len().div_ceil(ncols);
    let mut out = String::new();
    for r in 0..nrows {
        let mut line = String::new();
        for c in 0..ncols {
            let Some(name) = names.get(c * nrows + r) else {
                break;
            };
            line.push_str(name);
            line.push_str(&" ".repeat(col_width - display_width(name)));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_and_quotes() {
        assert_eq!(
            split_args(".read 'my file.sql'"),
            vec![".read", "my file.sql"]
        );
        assert_eq!(split_args("  .mode   csv "), vec![".mode", "csv"]);
        assert_eq!(split_args(".schema \"t\""), vec![".schema", "t"]);
        assert_eq!(split_args(""), Vec::<String>::new());
    }

    #[test]
    fn table_columns() {
        let names: Vec<String> = ["a", "bb", "c", "d"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(columns(&names, 80), "a   bb  c   d\n");
        assert_eq!(columns(&names, 8), "a   c\nbb  d\n");
        assert_eq!(columns(&[], 80), "");
    }
}
